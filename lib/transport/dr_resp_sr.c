/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The responder's half of selective repeat (dr_set_ece(),
 * DR_ECE_OPT_SELECTIVE_REPEAT; doc/guides/reliability.rst). Where IBA's
 * responder drops a request after a gap and NAKs once (9.7.5.1.1, the
 * requester then goes back N), this one keeps it: a request whose PSN is
 * one of the DR_SACK_BITS after ePSN waits here, its ICRC checked, in slot
 * PSN % DR_SACK_BITS. When ePSN reaches it, it goes through every check and
 * the execution of dr_resp.c as if it had just arrived, so nothing is
 * executed out of order and nothing bypasses a rule. What is held is told
 * to the requester in a SACK (struct dr_sack), which replaces the ACK the
 * responder owes: ePSN, and a map of the PSNs held after it. Held frames
 * count against the worker's share of the pool with the ones held behind
 * READs (resp_held, dr_resp_keep(); the application's frames beyond their
 * share are kept as copies); when it is spent, or the slot is taken, the
 * frame is dropped and its PSN is missing from the map: resent like a loss.
 */

#include <rte_mbuf.h>

#include "dr_psn.h"
#include "dr_resp.h"
#include "dr_resp_ack.h"
#include "dr_resp_sr.h"
#include "dr_transport.h"

/* The frame held at @slot, taken out. */
static struct rte_mbuf *
sr_take(struct dr_qp_impl *qp, uint32_t slot)
{
	struct rte_mbuf *m = qp->resp.sr_held[slot];

	qp->resp.sr_held[slot] = NULL;
	qp->resp.sr_count--;
	dr_resp_unkeep(qp, m);
	return m;
}

bool
dr_resp_sr_hold(struct dr_qp_impl *qp, struct rte_mbuf *m, uint32_t psn)
{
	struct dr_resp_state *rs = &qp->resp;
	int32_t ahead = dr_psn_diff(psn, rs->epsn);
	uint32_t slot = psn % DR_SACK_BITS;

	rs->sack_owed = true;                  /* what is held (or not) changed: the requester must learn it */
	if (ahead < 1 || ahead > DR_SACK_BITS)
		return false;                  /* beyond the map: as lost */
	if (rs->sr_held[slot] != NULL) {
		if (qp->sr->held_psn[slot] == psn)
			return false;          /* held already: a duplicate */
		rte_pktmbuf_free(sr_take(qp, slot));   /* left from before ePSN moved past it */
	}
	m = dr_resp_keep(qp, m);
	if (m == NULL)
		return false;
	rs->sr_held[slot] = m;
	qp->sr->held_psn[slot] = psn;
	rs->sr_count++;
	dr_qp_wk(qp)->stats.rx_sr_held++;
	return true;
}

struct rte_mbuf *
dr_resp_sr_next(struct dr_qp_impl *qp)
{
	struct dr_resp_state *rs = &qp->resp;
	uint32_t slot = rs->epsn % DR_SACK_BITS;

	if (rs->sr_count == 0 || rs->sr_held[slot] == NULL || qp->sr->held_psn[slot] != rs->epsn)
		return NULL;
	return sr_take(qp, slot);
}

void
dr_resp_sr_drain(struct dr_qp_impl *qp)
{
	struct rte_mbuf *m;

	while (!dr_resp_busy(qp) && dr_qp_can_receive(qp) && (m = dr_resp_sr_next(qp)) != NULL) {
		dr_resp_handle_held(qp, m);
	}
}

void
dr_resp_sr_free(struct dr_qp_impl *qp)
{
	uint32_t i;

	for (i = 0; qp->resp.sr_count != 0 && i < DR_SACK_BITS; i++)
		if (qp->resp.sr_held[i] != NULL)
			rte_pktmbuf_free(sr_take(qp, i));
	qp->resp.sack_owed = false;
}

void
dr_resp_sr_map(const struct dr_qp_impl *qp, struct dr_sack *s)
{
	const struct dr_resp_state *rs = &qp->resp;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->epsn = rte_cpu_to_be_32(rs->epsn & DR_PSN_MASK);
	for (i = 0; rs->sr_count != 0 && i < DR_SACK_BITS; i++) {
		uint32_t psn = dr_psn_add(rs->epsn, i + 1), slot = psn % DR_SACK_BITS;

		if (rs->sr_held[slot] != NULL && qp->sr->held_psn[slot] == psn)
			s->bits[i / 8] |= (uint8_t)(1u << (i % 8));
	}
}
