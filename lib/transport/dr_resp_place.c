/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The responder's one-pass receive of RDMA WRITE and SEND MIDDLE and LAST
 * packets: the payload is copied into memory and its ICRC computed in the
 * same read of the data (dr_pkt_copy_check_icrc()), where the usual order
 * reads it twice (the ICRC check on receive, then the copy at EXECUTE).
 * Placing before the ICRC is known is safe only where a valid packet would
 * put the same bytes, so it is done only when everything that decides the
 * place comes from the responder's own state, not from the packet: a message
 * in progress (its FIRST packet was checked and executed: a WRITE's RETH, a
 * SEND's receive WQE), the packet the next in sequence (BTH PSN = ePSN, IBA
 * 9.7.5.1.1), of the length the rules give it (MIDDLE: the path MTU; LAST:
 * 1 to MTU, IBA 9.7.5.1.2), within what the RETH allowed and into the same
 * region still valid (R_Key rechecked, IBA 10.6.3.2), or into one SGE of the
 * receive WQE whose L_Key grants local write (IBA 10.6.3.1), and no READ
 * being answered ahead of it. A damaged packet that looked so is dropped
 * (rx_bad_icrc) with no other effect: the bytes it left are where the
 * requester's retransmission of that PSN puts them again (IBA 9.7.5.2.x),
 * and neither a WRITE's target nor a receive buffer has defined content
 * until the message completes. Everything else is checked first, as before.
 */

#include <rte_mbuf.h>

#include "dr_mw.h"
#include "dr_resp_read.h"
#include "dr_srq.h"
#include "dr_transport.h"


static inline bool
is_write(uint8_t opcode)
{
	return opcode == DR_OPCODE(RC, WRITE_MIDDLE) || opcode == DR_OPCODE(RC, WRITE_LAST);
}

static inline bool
is_send(uint8_t opcode)
{
	return opcode == DR_OPCODE(RC, SEND_MIDDLE) || opcode == DR_OPCODE(RC, SEND_LAST);
}

bool
dr_resp_place_eligible(const struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	return pi->paylen >= DR_PLACE_MIN && qp->pub.qp_type == DR_QPT_RC &&
	       ((is_write(pi->opcode) && qp->resp.in_msg == DR_RESP_MSG_WRITE) ||
		(is_send(pi->opcode) && qp->resp.in_msg == DR_RESP_MSG_SEND));
}

/* Where the payload of @pi goes when the responder's state alone decides it, else NULL. */
static uint8_t *
place_of(struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	const struct dr_resp_state *rs = &qp->resp;
	uint32_t paylen = pi->paylen;
	struct dr_rkey_target t;
	const struct dr_recv_wqe *rwqe;

	if (!dr_qp_can_receive(qp) || dr_resp_busy(qp) || dr_bth_psn(dr_pkt_bth(pi)) != rs->epsn ||
	    ((pi->mask & DR_OPF_LAST) ? paylen > qp->mtu : paylen != qp->mtu))
		return NULL;
	if (is_send(pi->opcode)) {
		if (rs->in_msg != DR_RESP_MSG_SEND || !rs->have_rwqe)
			return NULL;
		rwqe = dr_rwqe_cur(qp);
		return dr_qp_sge_span(qp, rwqe->sge, rwqe->num_sge, rs->rcv_off, paylen);
	}
	if (rs->in_msg != DR_RESP_MSG_WRITE || paylen > rs->write_resid ||
	    !dr_resp_target(qp, rs->write_rkey, rs->write_va, paylen, DR_ACCESS_REMOTE_WRITE, &t) ||
	    t.mr != rs->write_mr)
		return NULL;
	return dr_rkey_host(&t, rs->write_va);
}

void
dr_resp_rx_unverified(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	uint8_t *dst = place_of(qp, pi);

	if (dr_qp_rx_check_placing(qp, m, pi, dst))
		dr_resp_rx_placed(qp, m, pi, dst != NULL);
}
