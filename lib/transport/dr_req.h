/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_REQ_H
#define DR_REQ_H

/*
 * The requester's own pieces (dr_req.c, its steps and its express step;
 * dr_req_rd_atomic.c, its READ and atomic requests): a local error, the
 * request's BTH flags, the go-back-N resend's guard, and the queueing of a
 * finished frame. Seen by the requester's files only.
 */

#include <inttypes.h>
#include <stdbool.h>

#include <rte_atomic.h>
#include <rte_mbuf.h>

#include "dr_handoff.h"
#include "dr_log.h"
#include "dr_transport.h"

/* End a WQE with a local error; the completer reports it in order, then moves the QP to ERR. */
static inline void
dr_req_error(struct dr_qp_impl *qp, struct dr_send_wqe *wqe, enum dr_wc_status status)
{
	DR_DP_LOG(req, DEBUG, "qp %u: wr_id %" PRIu64 " failed locally: %s", qp->pub.qp_num, wqe->wr_id,
		  dr_wc_status_str(status));
	wqe->status = status;
	dr_wqe_set_state(wqe, DR_WQE_ERROR);
}

/* BTH flags and extension headers common to every request packet. */
static inline void
dr_req_fill_bth(struct dr_pkt_info *pi, bool se, bool ackreq)
{
	struct dr_bth *bth = dr_pkt_bth(pi);

	dr_bth_set_se(bth, se);
	dr_bth_set_ackreq(bth, ackreq);
}

/* The requester is resending the WQE at req.cur (go-back-N): one the completer may retire meanwhile. */
static inline bool
dr_req_resending(const struct dr_qp_impl *qp)
{
	return (int32_t)(qp->req.resend_end - qp->req.cur) > 0;
}

/*
 * A resend's frame was built from a WQE the completer may have retired
 * meanwhile (its slot then reused by the poster): still ours? The fields
 * were read before this load of the tail (a seqlock's check): a slot the
 * poster wrote into was retired first, so the tail shows it.
 */
static inline bool
dr_req_wqe_still_ours(const struct dr_qp_impl *qp)
{
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	return (int32_t)(qp->req.cur - dr_sq_tail(&qp->sq)) >= 0;
}

/*
 * Queue a finished packet (built whole: dr_qp_pkt_only()); on failure free
 * it. Returns 0 or -ESTALE: the requester's resend of a WQE retired
 * meanwhile (@tc is the requester's templates: not the completer's own
 * resends), not sent.
 */
static inline int
dr_req_queue(struct dr_qp_impl *qp, const struct dr_pkt_tmpl_cache *tc, struct rte_mbuf *m)
{
	if (unlikely(tc == &qp->req.tmpl && dr_req_resending(qp))) {
		if (unlikely(dr_req_resend_hook != NULL))
			dr_req_resend_hook(qp);
		if (!dr_req_wqe_still_ours(qp)) {
			rte_pktmbuf_free(m);
			return -ESTALE;
		}
	}
	dr_wk_tx(dr_qp_wk(qp), m);
	return 0;
}

/* dr_req_queue() of a frame built by parts: its pad and ICRC first (dr_pkt_finalize()). */
static inline int
dr_req_xmit(struct dr_qp_impl *qp, const struct dr_pkt_tmpl_cache *tc, struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	int rc = dr_pkt_finalize(m, pi);

	if (unlikely(rc != 0)) {
		rte_pktmbuf_free(m);
		return rc;
	}
	return dr_req_queue(qp, tc, m);
}

/*
 * Step SEND_PKT of a READ (IBA 9.4.3, 9.7.4.1.3) / CmpSwap or FetchAdd
 * (IBA 9.4.5) WQE at req.cur (dr_req_rd_atomic.c): 0 or -errno.
 */
int dr_req_send_read(struct dr_qp_impl *qp, struct dr_send_wqe *wqe);
int dr_req_send_atomic(struct dr_qp_impl *qp, struct dr_send_wqe *wqe);
/* A READ request of @wqe at @psn for @len of its bytes from @done on, along @tc; 0 or -errno. */
int dr_req_read_packet(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, const struct dr_send_wqe *wqe,
		       uint32_t psn, uint32_t done, uint32_t len);
/* A CmpSwap / FetchAdd request of @wqe at @psn along @tc; 0 or -errno. */
int dr_req_atomic_packet(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, const struct dr_send_wqe *wqe,
			 uint32_t psn);

#endif /* DR_REQ_H */
