/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The requester's READ and atomic requests (IBA 9.4.3, 9.4.5, 9.7.4.1.3):
 * one packet each, a READ taking one PSN per response it asks for; asked
 * again from the first missing response (dr_req_reread(), the
 * completer's) or resent whole (dr_req_resend()). Each holds a slot of the
 * initiator depth from its first transmission (req.rd_taken; dr_req.c's
 * CHECK_RD_ATOMIC).
 */

#include <errno.h>

#include "dr_req.h"

/* A READ request packet of @wqe at @psn for @len of its bytes from @done on, along @tc; 0 or -errno. */
int
dr_req_read_packet(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, const struct dr_send_wqe *wqe,
		   uint32_t psn, uint32_t done, uint32_t len)
{
	struct dr_pkt_info pi;
	struct dr_reth *reth;
	struct rte_mbuf *m;

	m = dr_qp_pkt_start(qp, tc, dr_qp_rel_opcode(qp, DR_OP_READ_REQ), 0, psn, &pi);
	if (m == NULL)
		return -ENOBUFS;
	if (pi.mask & DR_OPF_XRCETH)
		dr_xrceth_set_srq(dr_pkt_xrceth(&pi), wqe->xrc_srqn);
	reth = dr_pkt_reth(&pi);
	dr_reth_set_va(reth, wqe->remote_addr + done);
	dr_reth_set_rkey(reth, wqe->rkey);
	dr_reth_set_len(reth, len);
	dr_req_fill_bth(&pi, false, true);
	return dr_req_xmit(qp, tc, m, &pi);
}

int
dr_req_reread(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe, uint32_t len)
{
	/*
	 * a duplicate of its request for a part of it, from the first missing
	 * response (IBA 9.7.5.1.3: the responder replays that part), built by
	 * the completer along its own headers
	 */
	return dr_req_read_packet(qp, &qp->comp.tmpl, wqe, dr_read_next_psn(qp, wqe), dr_wqe_resp_bytes(wqe), len);
}

/* Step SEND_PKT for a READ request (IBA 9.4.3, 9.7.4.1.3). */
int
dr_req_send_read(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	uint32_t done = dr_wqe_resp_bytes(wqe);  /* > 0 when re-requesting after a partial reply */
	uint32_t n = dr_msg_pkts(wqe->length - done, qp->mtu);
	int rc;

	/*
	 * asked again: from its first missing response, whose PSN the request
	 * takes (IBA 9.7.4.1.3); from the same count of bytes as its length (the
	 * completer may place more meanwhile, on another lcore)
	 */
	if (wqe->state != DR_WQE_POSTED)
		qp->req.psn = dr_psn_add(wqe->first_psn, done / qp->mtu);
	rc = dr_req_read_packet(qp, &qp->req.tmpl, wqe, qp->req.psn, done, wqe->length - done);
	if (rc != 0)
		return rc;
	if (wqe->state == DR_WQE_POSTED) {
		wqe->first_psn = qp->req.psn;
		wqe->npkts = n;
		wqe->last_psn = dr_psn_add(wqe->first_psn, n - 1);
		qp->req.rd_taken++;
	}
	if (!dr_req_resending(qp)) {
		/* a resent WQE was SENT before and may be retired by now: nothing is written into it */
		dr_wqe_set_sent_once(wqe, true);
		dr_wqe_set_state(wqe, DR_WQE_SENT);
	}
	qp->req.psn = dr_psn_add(qp->req.psn, n);
	qp->req.cur++;
	qp->req.offset = 0;
	return 0;
}

/* A CmpSwap / FetchAdd request of @wqe at @psn along @tc (IBA 9.4.5, AtomicETH 9.3.5); 0 or -errno. */
int
dr_req_atomic_packet(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, const struct dr_send_wqe *wqe,
		     uint32_t psn)
{
	bool cas = wqe->opcode == DR_WR_ATOMIC_CMP_AND_SWP;
	struct dr_atmeth *ae;
	struct dr_pkt_info pi;
	struct rte_mbuf *m;

	m = dr_qp_pkt_start(qp, tc, dr_qp_rel_opcode(qp, cas ? DR_OP_CMP_SWAP : DR_OP_FETCH_ADD), 0, psn, &pi);
	if (m == NULL)
		return -ENOBUFS;
	if (pi.mask & DR_OPF_XRCETH)
		dr_xrceth_set_srq(dr_pkt_xrceth(&pi), wqe->xrc_srqn);
	ae = dr_pkt_atmeth(&pi);
	dr_atmeth_set_va(ae, wqe->remote_addr);
	dr_atmeth_set_rkey(ae, wqe->rkey);
	dr_atmeth_set_swap_add(ae, cas ? wqe->swap : wqe->compare_add);
	dr_atmeth_set_comp(ae, cas ? wqe->compare_add : 0);
	dr_req_fill_bth(&pi, false, true);
	return dr_req_xmit(qp, tc, m, &pi);
}

/* Step SEND_PKT for CmpSwap / FetchAdd. */
int
dr_req_send_atomic(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	int rc = dr_req_atomic_packet(qp, &qp->req.tmpl, wqe, qp->req.psn);

	if (rc != 0)
		return rc;
	if (wqe->state == DR_WQE_POSTED) {
		wqe->first_psn = qp->req.psn;
		wqe->last_psn = qp->req.psn;
		wqe->npkts = 1;
		qp->req.rd_taken++;
	}
	if (!dr_req_resending(qp)) {
		dr_wqe_set_sent_once(wqe, true);
		dr_wqe_set_state(wqe, DR_WQE_SENT);
	}
	qp->req.psn = dr_psn_add(qp->req.psn, 1);
	qp->req.cur++;
	qp->req.offset = 0;
	return 0;
}

