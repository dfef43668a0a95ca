/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The requester's one-pass receive of RDMA READ response MIDDLE and LAST
 * packets: the payload is copied into the READ's local buffer and its ICRC
 * computed in the same read of the data (dr_pkt_copy_check_icrc()), where
 * the usual order reads it twice (the ICRC check on receive, then the
 * scatter at the completer's READ step). As on the responder
 * (dr_resp_place.c), placing before the ICRC is known is done only where
 * the requester's own state decides the place: the oldest WQE of the send
 * queue is a READ that was sent and is neither done nor failed, the
 * response is the next one it expects (BTH PSN = the completer's PSN = the
 * READ's first PSN plus the packets it placed, IBA 9.7.5.2.x), of the length
 * the rules give it (MIDDLE: the path MTU, short of the end; LAST: exactly
 * the rest, IBA 9.7.4.1.3), into one SGE whose L_Key grants local write. A
 * damaged response that looked so is dropped (rx_bad_icrc) with no other
 * effect: its bytes are where the valid response of that PSN goes when the
 * READ is asked again, and the buffer of a READ has no defined content until
 * it completes. The completer then runs as usual without copying again.
 * Only where the completer runs on the receiving lcore (inline, rtc; a
 * pipeline's rx lcore hands responses on, checked).
 */

#include <rte_mbuf.h>

#include "dr_handoff.h"
#include "dr_transport.h"


bool
dr_comp_place_eligible(const struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	return (pi->opcode == DR_OPCODE(RC, READ_RESP_MIDDLE) || pi->opcode == DR_OPCODE(RC, READ_RESP_LAST)) &&
	       pi->paylen >= DR_PLACE_MIN && qp->pub.qp_type == DR_QPT_RC;
}

/* Where the payload of @pi goes when the requester's state alone decides it, else NULL. */
static uint8_t *
place_of(struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	const struct dr_sq *sq = &qp->sq;
	uint32_t psn = dr_bth_psn(dr_pkt_bth(pi)), paylen = pi->paylen, off;
	struct dr_send_wqe *wqe;

	if (!dr_qp_can_send(qp) || sq->tail == dr_sq_head(sq))
		return NULL;
	wqe = dr_sq_wqe(sq, sq->tail);
	if (wqe->opcode != DR_WR_RDMA_READ || dr_wqe_done(wqe) || dr_wqe_failed(wqe) ||
	    dr_wqe_req_state(wqe) == DR_WQE_POSTED)
		return NULL;
	if (psn != qp->comp.psn || psn != dr_read_next_psn(qp, wqe))
		return NULL;
	off = dr_wqe_resp_bytes(wqe);
	if (pi->opcode == DR_OPCODE(RC, READ_RESP_LAST) ? off + paylen != wqe->length :
							   paylen != qp->mtu || off + paylen >= wqe->length)
		return NULL;
	return dr_qp_sge_span(qp, wqe->sge, wqe->num_sge, off, paylen);
}

void
dr_comp_rx_unverified(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	uint8_t *dst = place_of(qp, pi);

	if (dr_qp_rx_check_placing(qp, m, pi, dst))
		dr_comp_rx_placed(qp, m, pi, dst != NULL);
}
