/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The requester's own state (dr_qp_impl.h): go-back-N, which moves it back
 * to the oldest unacknowledged PSN; reset, start at RTS (IBA 9.7.1), stop at
 * ERR. Its step machine is dr_req.c.
 */

#include <string.h>

#include "dr_context.h"
#include "dr_handoff.h"
#include "dr_log.h"
#include "dr_psn.h"
#include "dr_transport.h"

/*
 * Go-back-N (IBA 9.7.5.2.x: retransmit from the oldest unacknowledged PSN):
 * rewind req.cur/offset/psn to the acknowledged PSN. The WQE holding it
 * restarts at the packet after its last acknowledged one; a READ whose
 * responses partly arrived is requested again from its first missing byte.
 */
void
dr_req_rewind(struct dr_qp_impl *qp)
{
	struct dr_sq *sq = &qp->sq;
	/*
	 * the tail first: the completer publishes the acknowledged PSN before it
	 * frees the WQEs it covers, so a tail seen here comes with a PSN at
	 * least as new (the other order could pair a new tail with an old PSN)
	 */
	uint32_t tail = dr_sq_tail(sq), psn = dr_ho_acked_psn(qp);
	uint32_t i;

	/* what was sent before is resent from here on, and never written again */
	if ((int32_t)(qp->req.cur - qp->req.resend_end) > 0)
		qp->req.resend_end = qp->req.cur;
	qp->req.psn = psn;
	qp->req.cur = tail;
	qp->req.offset = 0;
	qp->req.wait_fence = false;
	for (i = tail; i != dr_sq_head(sq); i++) {
		struct dr_send_wqe *wqe = dr_sq_wqe(sq, i);
		int32_t acked;

		if (wqe->state == DR_WQE_POSTED || dr_wqe_failed(wqe))
			break;
		if (dr_wqe_done(wqe)) {
			qp->req.cur = i + 1;
			continue;
		}
		/*
		 * Sent before: the WQE keeps its PSNs, its READ/atomic slot and
		 * its fence clearance (the go-back-N replays the same PSN
		 * sequence, IBA 9.7.5.2.x). Its state is left alone: the
		 * completer may retire it as soon as an ACK covers it, and the
		 * poster reuse its slot (req_xmit() checks before a frame goes).
		 */
		qp->req.cur = i;
		/* nothing before it is left: it starts where it started */
		if (dr_psn_before(qp->req.psn, wqe->first_psn))
			qp->req.psn = wqe->first_psn;
		acked = dr_psn_diff(psn, wqe->first_psn);
		if (!dr_wqe_is_rd_atomic(wqe) && acked > 0 && (uint32_t)acked < wqe->npkts)
			qp->req.offset = (uint32_t)acked * qp->mtu;  /* after the last acked packet */
		/* a READ keeps resp_bytes, the part that came in order: asked again from its first missing byte */
		break;                  /* the first WQE not done is where it starts again */
	}
	DR_DP_LOG(req, DEBUG, "qp %u: go back to psn %#x (wqe %u offset %u)", qp->pub.qp_num, psn,
		  qp->req.cur, qp->req.offset);
}

void
dr_req_reset(struct dr_qp_impl *qp)
{
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->req_out, 0, sizeof(qp->req_out));
	/* the completer's go-back-N requests so far are not for this incarnation */
	qp->req.rewind_seen = __atomic_load_n(&qp->comp_out.rewind_seq, __ATOMIC_ACQUIRE);
	__atomic_store_n(&qp->req_out.rewind_done, qp->req.rewind_seen, __ATOMIC_RELEASE);
	qp->req.rd_taken = __atomic_load_n(&qp->comp_out.rd_freed, __ATOMIC_ACQUIRE);
}

void
dr_req_start(struct dr_qp_impl *qp, uint32_t sq_psn)
{
	const struct dr_context *ctx = qp->pub.context;
	uint32_t w = ctx != NULL && ctx->inflight_bytes != 0 ? ctx->inflight_bytes / RTE_MAX(qp->mtu, 1u) :
							       DR_INFLIGHT_PKTS_DEFAULT;

	dr_req_reset(qp);
	/* the send window: inflight_bytes in packets, bounded (dr_transport.h) */
	w = RTE_MAX(RTE_MIN(w, (uint32_t)DR_REQ_WINDOW), (uint32_t)DR_REQ_WINDOW_MIN);
	if (dr_qp_sr(qp))
		w = RTE_MIN(w, (uint32_t)DR_SACK_BITS);
	qp->window = w;
	qp->req.psn = sq_psn;         /* IBA 9.7.1: the first request carries sq_psn */
	qp->req.cur = dr_sq_tail(&qp->sq);
	if (ctx != NULL)
		dr_cc_tx_init(&qp->cc_tx, &ctx->cc, dr_cc_cnp_seen(&qp->cc_rx), rte_rdtsc());
	dr_ho_req_sent(qp, 0);
}

void
dr_req_stop(struct dr_qp_impl *qp)
{
	/* the queue was flushed: nothing in progress, no READ / atomic slot held */
	qp->req.cur = dr_sq_head(&qp->sq);
	qp->req.offset = 0;
	qp->req.wait_fence = false;
	qp->req.rd_taken = __atomic_load_n(&qp->comp_out.rd_freed, __ATOMIC_ACQUIRE);
}
