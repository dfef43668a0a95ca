/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The responder's own state across QP states (dr_qp_impl.h): set up at RTR
 * (IBA 9.7.5.1: ePSN from rq_psn, MSN from 0), reset for a new QP and at
 * RESET, stopped at ERR, and drained of the requests it holds behind READs
 * (their count is the responder's worker's, qp->wk->resp_held; of those,
 * the ones from the application's pools in qp->wk->app_held).
 */

#include <string.h>

#include <rte_mbuf.h>

#include "dr_psn.h"
#include "dr_resp.h"
#include "dr_resp_sr.h"
#include "dr_transport.h"

/*
 * @m is from the application's pool: the context receives on a queue the
 * application configured or from dr_rx_burst_input(), and @m is not from
 * its own pool. (A port the context configured receives into the context's
 * pool; on net_ring the frames are the sender's, its pool no application's.)
 */
static inline bool
resp_app_frame(const struct dr_qp_impl *qp, const struct rte_mbuf *m)
{
	const struct dr_context *ctx = qp->wk->ctx;

	return !ctx->attr.configure_port && m->pool != ctx->pool;
}

struct rte_mbuf *
dr_resp_keep(struct dr_qp_impl *qp, struct rte_mbuf *m)
{
	struct dr_worker *wk = qp->wk;

	if (wk->resp_held >= wk->resp_held_max) {
		dr_qp_wk(qp)->stats.rx_dropped++;
		return NULL;
	}
	if (resp_app_frame(qp, m)) {
		if (wk->app_held >= wk->app_held_max) {
			/* the application's pool is not ours to drain: keep a copy in ours */
			struct rte_mbuf *c = rte_pktmbuf_copy(m, wk->ctx->pool, 0, UINT32_MAX);

			if (c == NULL) {
				dr_qp_wk(qp)->stats.rx_dropped++;
				return NULL;
			}
			dr_qp_wk(qp)->stats.rx_app_copied++;
			rte_pktmbuf_free(m);
			m = c;
		} else {
			wk->app_held++;
		}
	}
	wk->resp_held++;
	return m;
}

void
dr_resp_unkeep(struct dr_qp_impl *qp, const struct rte_mbuf *m)
{
	qp->wk->resp_held--;
	if (resp_app_frame(qp, m))
		qp->wk->app_held--;
}

void
dr_resp_drain(struct dr_qp_impl *qp)
{
	struct dr_resp_state *rs = &qp->resp;

	while (rs->pend_head != rs->pend_tail) {
		struct rte_mbuf *m = rs->pend[rs->pend_tail++ % DR_RESP_PEND];

		dr_resp_unkeep(qp, m);
		rte_pktmbuf_free(m);
	}
	rs->pend_head = rs->pend_tail = 0;
	if (rs->sr_held != NULL)
		dr_resp_sr_free(qp);         /* requests held after a gap (selective repeat) */
	rs->res_active = -1;
	rs->res_qhead = rs->res_qtail = 0;
	rs->ack_pending = false;
	rs->atomic_ack_pending = false;
}

void
dr_resp_reset(struct dr_qp_impl *qp)
{
	struct rte_mbuf **sr_held = qp->resp.sr_held;

	dr_resp_drain(qp);               /* frees the requests it holds */
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->resp.res_active = -1;
	qp->resp.sr_held = sr_held;      /* selective repeat's buffer stays with the QP (dr_ece.c) */
}

void
dr_resp_start(struct dr_qp_impl *qp, uint32_t rq_psn)
{
	dr_resp_reset(qp);
	qp->resp.epsn = rq_psn;          /* IBA 9.7.5.1: ePSN from rq_psn, MSN from 0 */
	/* nothing executed yet: a duplicate is ACKed with the PSN just before ePSN */
	qp->resp.dup_ack_psn = dr_psn_sub(rq_psn, 1);
	dr_cc_rx_init(&qp->cc_rx);       /* a CNP may go for the first CE-marked packet */
}

void
dr_resp_stop(struct dr_qp_impl *qp)
{
	/* no message in progress, no ACK owed; a class C NAK still owed stays (final_nak_pending) */
	qp->resp.in_msg = 0;
	qp->resp.have_rwqe = false;
	qp->resp.ack_pending = false;
	qp->resp.atomic_ack_pending = false;
	qp->resp.res_active = -1;
	qp->resp.res_qhead = qp->resp.res_qtail = 0;
}
