/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The responder's entry points (IBA 9.7.5.1): a request arrives
 * (dr_resp_rx(), dr_resp_rx_placed()) and goes through the responder's
 * steps (dr_resp.c) at once, unless READ responses are being sent: those go
 * out in PSN order (IBA 9.7.5.1.3), so the requests that arrive meanwhile
 * wait in resp.pend and are handled after them (rxe keeps them in its packet
 * queue the same way). Once per round, dr_resp_progress() sends READ
 * responses within the round's budget, then the waiting requests, then the
 * requests selective repeat held (dr_resp_sr.c), then an owed ACK or SACK.
 */

#include <rte_mbuf.h>

#include "dr_resp.h"
#include "dr_resp_ack.h"
#include "dr_resp_read.h"
#include "dr_resp_sr.h"
#include "dr_transport.h"

/*
 * A new READ request in sequence while READs are being answered and no other
 * request waits: it is executed at once into a resource of its own and
 * answered in its turn (IBA 9.7.5.1.3: responses in PSN order), so the
 * request's mbuf is not held. Holding one per QP would take a pool's worth
 * of mbufs with thousands of QPs reading at once.
 */
static inline bool
resp_read_queueable(const struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	return (pi->mask & DR_OPF_READ) && (pi->mask & DR_OPF_REQ) && dr_resp_read_room(qp) &&
	       dr_bth_psn(dr_pkt_bth(pi)) == qp->resp.epsn;
}

/* The first request of a QP the CM armed: communication established (IBA 11.6.3), for the CM to see. */
static __rte_noinline void
resp_comm_est(struct dr_qp_impl *qp)
{
	qp->comm_est_armed = false;
	__atomic_store_n(&qp->comm_est_seen, 1, __ATOMIC_RELEASE);
}

void
dr_resp_rx_placed(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi, bool placed)
{
	struct dr_resp_state *rs = &qp->resp;

	/* IBA 10.3.1: requests are taken from RTR on */
	if (!dr_qp_can_receive(qp)) {
		dr_qp_wk(qp)->stats.rx_bad_state++;
		rte_pktmbuf_free(m);
		return;
	}
	if (unlikely(qp->comm_est_armed))
		resp_comm_est(qp);
	if (dr_resp_busy(qp) && !resp_read_queueable(qp, pi)) {
		/*
		 * READ responses first: keep the request for later; full, or the
		 * worker's responders hold their share of the pool: drop, it is
		 * retransmitted (the responses must find mbufs)
		 */
		struct rte_mbuf *kept = NULL;

		if (rs->pend_head - rs->pend_tail >= DR_RESP_PEND)
			dr_qp_wk(qp)->stats.rx_dropped++;
		else
			kept = dr_resp_keep(qp, m);
		if (kept == NULL) {
			rte_pktmbuf_free(m);
			return;
		}
		rs->pend[rs->pend_head++ % DR_RESP_PEND] = kept;
		return;
	}
	dr_resp_handle(qp, m, pi, placed);
	if (rs->sr_count != 0)
		dr_resp_sr_drain(qp);
}

void
dr_resp_rx(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	dr_resp_rx_placed(qp, m, pi, false);
}

int
dr_resp_progress(struct dr_qp_impl *qp)
{
	struct dr_resp_state *rs = &qp->resp;
	int n = 0;

	if (unlikely(rs->fail_unsent))
		dr_qp_fail_retry(qp);         /* the hand-off to the completion worker was full */
	/* a class C NAK owed from before the move to ERR (IBA 9.7.5.1: the requester must learn it) */
	if (unlikely(rs->final_nak_pending) &&
	    dr_resp_send_ack(qp, dr_qp_rel_opcode(qp, DR_OP_ACK), rs->final_nak_syndrome, rs->final_nak_psn, 0) == 0) {
		rs->final_nak_pending = false;
		n++;
	}
	if (!dr_qp_can_receive(qp)) {
		if (rs->pend_head != rs->pend_tail || rs->res_active >= 0 || rs->res_qhead != rs->res_qtail)
			dr_resp_drain(qp);
		return 0;
	}
	for (;;) {
		struct rte_mbuf *m;

		if (rs->res_active < 0 && rs->res_qhead != rs->res_qtail)
			rs->res_active = rs->res_queue[rs->res_qtail++ % DR_MAX_RD_ATOMIC];   /* the next READ's turn */
		if (rs->res_active >= 0) {
			bool access_err = false;

			n += dr_resp_read_reply(qp, DR_RESP_PKTS_PER_ROUND - n, &access_err);
			if (unlikely(access_err))
				dr_resp_nak_read_access(qp);
			if (rs->res_active >= 0 || !dr_qp_can_receive(qp))
				return n;     /* budget, mbufs or room ran out: next round */
			continue;             /* a queued READ may be next */
		}
		if (rs->pend_head == rs->pend_tail)
			break;
		m = rs->pend[rs->pend_tail++ % DR_RESP_PEND];
		dr_resp_unkeep(qp, m);
		dr_resp_handle_held(qp, m);
		if (!dr_qp_can_receive(qp))
			return n;
	}
	if (rs->sr_count != 0) {
		dr_resp_sr_drain(qp);
		if (dr_resp_busy(qp))
			return n;             /* a held READ's turn: its responses next round */
	}
	if ((rs->ack_pending || rs->atomic_ack_pending || rs->sack_owed) && dr_resp_flush_ack(qp) == 0)
		n++;
	return n;
}
