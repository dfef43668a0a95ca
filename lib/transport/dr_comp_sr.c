/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The requester's half of selective repeat (dr_set_ece(),
 * DR_ECE_OPT_SELECTIVE_REPEAT; doc/guides/reliability.rst), run by the
 * completer when a SACK arrives. The SACK's BTH and AETH were handled
 * first as an ACK (dr_comp.c): what they acknowledge is complete. Its map
 * then says which requests the responder holds after its ePSN; the missing
 * ones - ePSN, and every PSN below the newest held one that is not held -
 * are sent again, each alone, rebuilt from its WQE (dr_req_resend()), with
 * AckReq. The requester's own sequence is not touched: new requests keep
 * going out within the window.
 *
 * A missing PSN is sent again once, then again when the map shows a
 * request the requester sent after that resend (its sent PSN then, kept in
 * resent_mark: the resend was lost too), or when the resend is older than
 * the recovery timeout (with the window full nothing newer goes out to
 * tell). The recovery timeout is RFC 6298's, srtt + 4 rttvar (bounded as
 * dr_comp_rtt_timeout() says), of the QP's round-trip estimate
 * (dr_comp_rto.c; a resend at or before the timed PSN spoils its sample,
 * as Karn's rule says), between DR_SR_RTO_MIN_US and a quarter of the local
 * ACK timeout, DR_SR_RTO_INIT_US before the first sample. When no
 * response came for that long while requests are outstanding (the tail of
 * a burst was lost, or every resend), the oldest unacknowledged request is
 * sent again alone (dr_comp_sr_timer()): whatever the responder makes of it,
 * it answers with a SACK or an ACK, and the map does the rest. While the
 * responder stays silent the probes back off as RFC 6298 5.5's timer does:
 * each waits twice the one before, up to DR_RTO_BACKOFF_CAP_US (or the
 * recovery timeout when longer); its first response ends the backoff. A
 * peer that is not running for a while (descheduled on a shared CPU, an
 * application that does not call into its progress) is asked a few times,
 * not once per recovery timeout: each probe it finds on its return is a
 * duplicate it must answer (IBA 9.7.5.1.1). The local ACK
 * timer still runs as IBA says (9.7.6.1.3): its go-back-N, which the
 * responder's held requests make cheap, and retry_cnt end a dead path.
 *
 * Nothing here spends retry_cnt: a SACK is a response, so the responder is
 * alive and the requester is making progress (IBA 9.7.5.2.x counts
 * retries of the same PSN without an answer).
 */

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dr_handoff.h"
#include "dr_log.h"
#include "dr_psn.h"
#include "dr_transport.h"

/* Resends for one SACK at most (the rest, if any, at the next one). */
#define SR_RESENDS_PER_SACK 64
/* Recovery timeout bounds: a resend older than it is sent again; no response for that long: probe. */
#define DR_SR_RTO_MIN_US 50
#define DR_SR_RTO_INIT_US 1000

/* The recovery timeout in TSC ticks (RFC 6298 2.3, the estimate of dr_comp_rto.c), within its bounds. */
static uint64_t
sr_rto(const struct dr_qp_impl *qp)
{
	uint64_t hz = dr_qp_tsc_hz(qp), t = qp->comp.timeout_ticks;
	uint64_t r = dr_comp_rtt_timeout(qp);

	if (r == 0)
		r = hz * DR_SR_RTO_INIT_US / 1000000u;
	r = RTE_MAX(r, hz * DR_SR_RTO_MIN_US / 1000000u);
	return t != 0 && t / 4 < r ? t / 4 : r;
}

/*
 * The wait after a probe: the recovery timeout @rto (sr_rto(): at most a
 * quarter of the local ACK timeout) doubled for each probe since the
 * responder last spoke, up to DR_RTO_BACKOFF_CAP_US (or @rto when longer),
 * and within that quarter as @rto is.
 */
static uint64_t
sr_probe_gap(const struct dr_qp_impl *qp, uint64_t rto)
{
	uint64_t t = qp->comp.timeout_ticks;
	uint64_t cap = RTE_MAX(rto, dr_qp_tsc_hz(qp) * DR_RTO_BACKOFF_CAP_US / 1000000u);

	if (t != 0 && t / 4 < cap)
		cap = t / 4;                      /* not below @rto: sr_rto() keeps it within */
	return dr_backoff(rto, qp->comp.sr_probe_backoff, cap);
}

void
dr_comp_sr_acked(struct dr_qp_impl *qp, uint64_t now)
{
	qp->comp.sr_last_rx = now;
	qp->comp.sr_probe_backoff = 0;            /* it spoke: the next silence starts at the recovery timeout */
}

/* What one SACK or probe works with. */
struct sr_ctx {
	uint32_t sent;                            /* the requester's sent PSN */
	uint32_t newest;                          /* the newest PSN the responder holds (or its ePSN) */
	uint32_t idx;                             /* SQ index where the WQE search goes on */
	uint64_t now;
	uint64_t rto;
	bool probe;                               /* the timer's probe: not the map's word that it is missing */
};

/* Send missing PSN @psn again unless its last resend may still arrive; false when out of room. */
static bool
sr_resend(struct dr_qp_impl *qp, uint32_t psn, struct sr_ctx *x)
{
	struct dr_sr_mem *sr = qp->sr;
	uint32_t slot = psn % DR_SACK_BITS;
	const struct dr_send_wqe *wqe;
	int rc;

	/* resent, nothing sent after that has arrived yet, and not long ago: it may still come */
	if (sr->resent_psn[slot] == psn + 1 && dr_psn_before(x->newest, sr->resent_mark[slot]) &&
	    x->now - sr->resent_tsc[slot] < x->rto)
		return true;
	wqe = dr_comp_sent_wqe(qp, psn, &x->idx);
	if (wqe == NULL)
		return true;                      /* acknowledged meanwhile, or no request has that PSN */
	/*
	 * a probe never asks a READ again: executed already, its request would
	 * make the responder replay all of it (IBA 9.7.5.1.3); its responses
	 * have their own recovery (dr_comp.c REREAD, the ACK timer)
	 */
	if (x->probe && wqe->opcode == DR_WR_RDMA_READ)
		return true;
	rc = dr_req_resend(qp, wqe, psn);
	if (rc == -EINVAL)
		return true;                      /* a READ's response PSN: nothing to send */
	if (rc != 0)
		return false;                     /* no mbuf or room: the next SACK asks again */
	dr_comp_rtt_cancel(qp, psn);             /* Karn: its ACK may answer the resend */
	sr->resent_psn[slot] = psn + 1;
	sr->resent_mark[slot] = x->sent;
	sr->resent_tsc[slot] = x->now;
	dr_qp_wk(qp)->stats.sr_resends++;
	qp->cnt.sr_resends++;
	if (x->probe) {
		dr_qp_wk(qp)->stats.sr_probes++;
		qp->cnt.sr_probes++;
	}
	return true;
}

void
dr_comp_sr_rx(struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	const struct dr_sack *s = (const struct dr_sack *)(pi->frame + pi->pay_off);
	uint32_t epsn = rte_be_to_cpu_32(s->epsn) & DR_PSN_MASK, psn;
	struct sr_ctx x = {
		.sent = dr_ho_sent_psn(qp),   /* acquire: the WQE fields of what was sent are visible */
		.newest = epsn,
		.idx = qp->sq.tail,
		.now = dr_qp_wk(qp)->clock.now,   /* the run clock of this round, as the timers' */
		.rto = sr_rto(qp),
	};
	int i, n = 0;

	dr_qp_wk(qp)->stats.sacks_rx++;
	/* the map's newest held PSN: everything missing below it was lost (or is late) */
	for (i = DR_SACK_BITS - 1; i >= 0; i--)
		if (s->bits[i / 8] & (1u << (i % 8))) {
			x.newest = dr_psn_add(epsn, (uint32_t)i + 1);
			break;
		}
	/* a SACK from before what the completer knows, or naming what was never sent: stale or bogus */
	if (dr_psn_before(epsn, qp->comp.psn) || !dr_psn_before(x.newest, x.sent))
		return;
	for (psn = epsn, i = -1; dr_psn_before(psn, x.newest) && n < SR_RESENDS_PER_SACK;
	     psn = dr_psn_add(psn, 1), i++) {
		if (i >= 0 && (s->bits[i / 8] & (1u << (i % 8))))
			continue;                 /* held by the responder */
		if (!sr_resend(qp, psn, &x))
			break;
		n++;
	}
	/* a lone gap: nothing held yet, ePSN itself is what a later arrival showed missing */
	if (x.newest == epsn && dr_psn_before(epsn, x.sent))
		sr_resend(qp, epsn, &x);
	DR_DP_LOG(comp, DEBUG, "qp %u: SACK epsn %#x newest held %#x", qp->pub.qp_num, epsn, x.newest);
}

void
dr_comp_sr_timer(struct dr_qp_impl *qp, uint64_t now)
{
	struct sr_ctx x = {
		.sent = dr_ho_sent_psn(qp), .idx = qp->sq.tail, .now = now, .rto = sr_rto(qp), .probe = true,
	};

	if (x.sent == qp->comp.psn) {
		qp->comp.sr_last_rx = 0;          /* nothing outstanding: no clock runs */
		qp->comp.sr_probe_backoff = 0;
		return;
	}
	if (qp->comp.sr_last_rx == 0) {
		qp->comp.sr_last_rx = now;        /* requests went out: the wait for an answer starts */
		return;
	}
	if (now - qp->comp.sr_last_rx < x.rto || now < qp->comp.sr_probe_at)
		return;                           /* the responder spoke lately, or a probe is out */
	x.newest = qp->comp.psn;
	if (qp->comp.sr_probe_backoff < DR_RTO_BACKOFF_MAX)
		qp->comp.sr_probe_backoff++;
	qp->comp.sr_probe_at = now + sr_probe_gap(qp, x.rto);
	if (qp->comp.rnr_at == 0)
		sr_resend(qp, qp->comp.psn, &x);
}
