/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The responder's acknowledgements (IBA 9.7.5.1.6, 9.7.5.2; rxe
 * send_ack() / send_atomic_ack()): ACKs and NAKs owed and coalesced to the
 * end of the round, atomic ACKs sent at once or kept owed (they carry the
 * original value only they can tell), and the count of each kind sent.
 */

#include <errno.h>

#include <rte_mbuf.h>

#include "dr_resp_ack.h"
#include "dr_resp_sr.h"
#include "dr_transport.h"

/* Count an ACK / NAK sent, by kind (telemetry). */
static void
resp_count_ack(struct dr_qp_impl *qp, uint8_t syndrome)
{
	switch (dr_aeth_syn_type(syndrome)) {
	case DR_AETH_ACK:
		dr_qp_wk(qp)->stats.acks_tx++;
		return;
	case DR_AETH_RNR_NAK:
		dr_qp_wk(qp)->stats.naks_rnr_tx++;
		break;
	case DR_AETH_NAK:
		if (dr_aeth_syn_value(syndrome) == DR_NAK_PSN_SEQ_ERR)
			dr_qp_wk(qp)->stats.naks_seq_tx++;
		else
			dr_qp_wk(qp)->stats.naks_err_tx++;
		break;
	default:
		return;
	}
	qp->cnt.naks_tx++;
}

/* Send an ACK / NAK / atomic ACK now. Returns 0 or -ENOBUFS (no mbuf, no room, no MAC yet). */
int
dr_resp_send_ack(struct dr_qp_impl *qp, uint8_t opcode, uint8_t syndrome, uint32_t psn, uint64_t orig)
{
	struct dr_pkt_info pi;
	struct rte_mbuf *m;

	if (dr_tx_room(dr_qp_wk(qp)) == 0)
		return -ENOBUFS;
	m = dr_qp_pkt_start(qp, &qp->resp.tmpl, opcode, 0, psn, &pi);
	if (m == NULL)
		return -ENOBUFS;
	dr_aeth_set(dr_pkt_aeth(&pi), syndrome, qp->resp.msn);
	if (pi.mask & DR_OPF_ATMACK)
		dr_atmack_set_orig(dr_pkt_atmack(&pi), orig);
	if (dr_pkt_finalize(m, &pi) != 0) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	dr_wk_tx(dr_qp_wk(qp), m);
	if (!(pi.mask & DR_OPF_ATMACK))
		resp_count_ack(qp, syndrome);
	return 0;
}

/* Owe an ACK / NAK; it is sent at the end of the round (coalesced with later ones). */
void
dr_resp_owe(struct dr_qp_impl *qp, uint8_t syndrome, uint32_t psn)
{
	qp->resp.ack_pending = true;
	qp->resp.ack_syndrome = syndrome;
	qp->resp.ack_psn = psn;
}

/*
 * Send an atomic ACK (IBA 9.4.5, 9.7.5.1.4), or keep it owed when it cannot
 * go out now: it carries the original value only this packet can tell.
 */
void
dr_resp_send_atomic_ack(struct dr_qp_impl *qp, uint32_t psn, uint64_t orig)
{
	if (dr_resp_send_ack(qp, dr_qp_rel_opcode(qp, DR_OP_ATOMIC_ACK), DR_RESP_SYN_ACK, psn, orig) == 0) {
		qp->resp.atomic_ack_pending = false;
		return;
	}
	qp->resp.atomic_ack_pending = true;
	qp->resp.atomic_ack_psn = psn;
	qp->resp.atomic_ack_orig = orig;
}

/*
 * Selective repeat: the ACK owed, or the one a duplicate would get, with
 * the map of what is held after ePSN (DR_OPCODE_SACK, struct dr_sack).
 * 0 or -ENOBUFS.
 */
static int
resp_send_sack(struct dr_qp_impl *qp)
{
	struct dr_resp_state *rs = &qp->resp;
	uint32_t psn = rs->ack_pending ? rs->ack_psn : rs->dup_ack_psn;
	struct dr_pkt_info pi;
	struct dr_sack sack;
	struct rte_mbuf *m;

	if (dr_tx_room(dr_qp_wk(qp)) == 0)
		return -ENOBUFS;
	m = dr_qp_pkt_start(qp, &rs->tmpl, DR_OPCODE_SACK, DR_SACK_PAYLOAD_BYTES, psn, &pi);
	if (m == NULL)
		return -ENOBUFS;
	dr_aeth_set(dr_pkt_aeth(&pi), DR_RESP_SYN_ACK, rs->msn);
	dr_resp_sr_map(qp, &sack);
	if (dr_pkt_append(m, &sack, sizeof(sack)) != 0 || dr_pkt_finalize(m, &pi) != 0) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	dr_wk_tx(dr_qp_wk(qp), m);
	dr_qp_wk(qp)->stats.sacks_tx++;
	rs->ack_pending = false;
	rs->sack_owed = false;
	rs->unacked = 0;
	return 0;
}

/* Send what is owed. Returns 0 or -ENOBUFS (kept for the next round). */
int
dr_resp_flush_ack(struct dr_qp_impl *qp)
{
	if (qp->resp.atomic_ack_pending) {
		dr_resp_send_atomic_ack(qp, qp->resp.atomic_ack_psn, qp->resp.atomic_ack_orig);
		if (qp->resp.atomic_ack_pending)
			return -ENOBUFS;
	}
	/* selective repeat: an ACK while requests are held after a gap says what is missing */
	if (dr_qp_sr(qp) && (qp->resp.sack_owed || (qp->resp.ack_pending && qp->resp.sr_count != 0)) &&
	    (!qp->resp.ack_pending || dr_aeth_syn_type(qp->resp.ack_syndrome) == DR_AETH_ACK))
		return resp_send_sack(qp);
	if (!qp->resp.ack_pending)
		return 0;
	if (dr_resp_send_ack(qp, dr_qp_rel_opcode(qp, DR_OP_ACK), qp->resp.ack_syndrome, qp->resp.ack_psn, 0) != 0)
		return -ENOBUFS;
	qp->resp.ack_pending = false;
	qp->resp.unacked = 0;
	return 0;
}
