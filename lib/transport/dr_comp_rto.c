/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The completer's adaptive retransmission timer (doc/guides/reliability.rst,
 * "Retransmission timer"): loss recovered in about a round trip, not in a
 * local ACK timeout.
 *
 * The round trip is measured as TCP does (RFC 6298): one timed PSN at a
 * time, the newest sent when the timing starts, sampled when it is
 * acknowledged; a go-back-N or a resend before that spoils the sample
 * (Karn's rule). srtt and rttvar give the retransmission timeout
 *
 *   RTO = max(DR_RTO_MIN_US, min(srtt + 4 rttvar, B))   (DR_RTO_INIT_US before a sample)
 *   B   = max(DR_RTO_BACKOFF_CAP_US, DR_RTO_MEDIAN_MULT median(last DR_RTT_RECENT samples))
 *
 * A round trip far above the recent ones is the time a peer took to
 * answer: an MPI rank computing without progressing, a process descheduled
 * on a shared CPU for a scheduler slice. One such sample lifts rttvar by a
 * quarter of it, and srtt + 4 rttvar to about the sample itself: 11 ms on
 * a path of 100 us, and a loss after it waits that long. B bounds it. A
 * path that is slow itself - a large flight drained through a slow
 * responder, rxe under emulation, every sample long - moves the median
 * and keeps its estimate (the RTO guards the time between two responses
 * that move the oldest PSN on, not a whole flight): a bound by the least
 * round trip ever seen cut such an RTO below the path's and resent an
 * 8 MiB WRITE every 8 ms (doc/guides/reliability.rst). The RTO is then
 * doubled after each expiry that brought no progress up to
 * DR_RTO_BACKOFF_CAP_US (as Linux's tcp_rto_max_ms caps TCP's: a peer that
 * was silent for a while, a process descheduled on a shared CPU, is asked
 * again soon after it is back), and never longer than the QP's local ACK
 * timeout (IBA 9.7.6.1.3, attr.timeout). Awaiting a READ whose responder
 * answered in this wait without progress (still streaming a READ that
 * will be replayed whole if asked again), the backoff doubles up to that
 * timeout.
 *
 * The wait starts when requests go out with none outstanding, and again
 * at each response (progress - the oldest PSN moved on - also ends the
 * backoff; a response without progress, a READ reply still streaming
 * after a loss or an answered duplicate, shows the responder alive, as
 * the local ACK timer takes it, dr_comp.c). Two things happen when a wait
 * goes on:
 *
 *  - tail-loss probe (RFC 8985's TLP, once per wait): when neither a
 *    response nor a new request came for max(2 srtt, DR_TLP_MIN_US),
 *    the newest request sent goes out again alone, AckReq set. If only it
 *    was lost, it is accepted and acknowledged; if more of the tail was
 *    lost, the responder finds it out of sequence and NAKs (IBA 9.7.5.1.1),
 *    and the NAK's go-back-N recovers; if every request arrived and an ACK
 *    was lost, it is a duplicate and the responder acknowledges again
 *    (9.7.5.1.1). A READ is never probed (a duplicate READ is replayed whole,
 *    9.7.5.1.3). The RTO then runs again from the probe (RFC 8985 7.3): a
 *    path that only paused costs one frame.
 *  - RTO: the oldest unacknowledged request again alone (F-RTO, RFC 5682:
 *    frto_send()); if the first progress after it acknowledges that one
 *    alone, or nothing answers it by the next expiry, a go-back-N from the
 *    oldest unacknowledged PSN, exactly the one the local ACK timeout would
 *    make (dr_ho_rewind(): a peer - rxe, a NIC - sees standard duplicates),
 *    but early; an ACK beyond it shows the expiry needless (frto_check());
 *    or, when that PSN is a READ's
 *    response, the READ asked again for its first gap only, at most a
 *    window of it (dr_comp_read_hold.c: a responder replays whatever a
 *    duplicate READ names, rxe after the reply it is streaming, and a
 *    go-back-N names all the rest of it). Neither spends retry_cnt:
 *    that stays the count of local ACK timeouts without progress (IBA
 *    9.7.6.1.x), whose timer runs as before beside this one, so a dead path
 *    still fails after (retry_cnt + 1) timeouts.
 *
 * Selective repeat (dr_comp_sr.c) uses the same round-trip estimate; its
 * own probe replaces both, except for a READ awaited at the oldest PSN:
 * the probe never asks a READ again, so the lost tail of its responses is
 * the RTO's (a re-READ of its first gap) there too.
 *
 * Everything runs on the run clock of the completer's lcore (dr_run_clock.h),
 * so a stall of the lcore itself is not taken for a loss.
 */

#include <rte_cycles.h>

#include "dr_comp.h"
#include "dr_handoff.h"
#include "dr_log.h"
#include "dr_psn.h"
#include "dr_transport.h"

static inline uint64_t
us_ticks(const struct dr_qp_impl *qp, uint64_t us)
{
	return dr_qp_tsc_hz(qp) * us / 1000000u;
}

/* The local ACK timeout in ticks: the longest an RTO may be (0: infinite, DR_RTO_MAX_US then). */
static uint64_t
rto_ceiling(struct dr_qp_impl *qp)
{
	uint64_t t = dr_comp_timeout_ticks(qp);

	return t != 0 ? t : us_ticks(qp, DR_RTO_MAX_US);
}

uint64_t
dr_comp_rtt_timeout(const struct dr_qp_impl *qp)
{
	const struct dr_comp_state *cs = &qp->comp;
	uint64_t r = cs->srtt + 4 * cs->rttvar;

	if (cs->srtt == 0)
		return 0;
	return cs->rtt_cap != 0 && cs->rtt_cap < r ? cs->rtt_cap : r;
}

uint64_t
dr_comp_rto_base(const struct dr_qp_impl *qp)
{
	uint64_t r = dr_comp_rtt_timeout(qp);

	if (r == 0)
		r = us_ticks(qp, DR_RTO_INIT_US);
	return RTE_MAX(r, us_ticks(qp, DR_RTO_MIN_US));
}

/*
 * The RTO after rto_backoff expiries without progress: doubled each time
 * up to DR_RTO_BACKOFF_CAP_US (or the RTO itself when longer) - up to the
 * ceiling when a READ is awaited - and never above the ceiling.
 */
static bool oldest_is_read(struct dr_qp_impl *qp);

static uint64_t
rto_backed_off(struct dr_qp_impl *qp)
{
	uint64_t base = dr_comp_rto_base(qp), cap;

	if (qp->comp.rto_backoff == 0)
		return RTE_MIN(base, rto_ceiling(qp));
	/*
	 * a READ asked again is executed again, the whole rest of it (IBA
	 * 9.7.5.1.3): a responder still streaming an earlier one (rxe under
	 * emulation) would be asked every few ms and replay without end.
	 * Once it has been heard in this wait without progress, the backoff
	 * of a READ goes on doubling up to the local ACK timeout, Karn's way;
	 * a silent one (a peer descheduled, a lost request) is asked again as
	 * soon as any other request would be.
	 */
	cap = qp->comp.streaming && oldest_is_read(qp) ? rto_ceiling(qp) :
	      RTE_MIN(RTE_MAX(base, us_ticks(qp, DR_RTO_BACKOFF_CAP_US)), rto_ceiling(qp));
	return dr_backoff(base, qp->comp.rto_backoff, cap);
}

/* The median of the recent samples (the upper one of an even count). */
static uint64_t
rtt_median(const struct dr_comp_state *cs)
{
	unsigned int n = cs->rtt_recent_n, i, j;
	uint64_t v[DR_RTT_RECENT];

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {             /* insertion sort of at most DR_RTT_RECENT */
		uint64_t x = cs->rtt_recent[i];

		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return v[n / 2];
}

/* Once per round trip: the ACK path only compares with rtt_cap. */
void
dr_comp_rtt_sample(struct dr_qp_impl *qp, uint64_t rtt)
{
	struct dr_comp_state *cs = &qp->comp;

	if (rtt == 0)
		rtt = 1;
	cs->rtt_recent[cs->rtt_recent_i] = rtt;
	cs->rtt_recent_i = (cs->rtt_recent_i + 1) % DR_RTT_RECENT;
	if (cs->rtt_recent_n < DR_RTT_RECENT)
		cs->rtt_recent_n++;
	cs->rtt_cap = RTE_MAX(us_ticks(qp, DR_RTO_BACKOFF_CAP_US), DR_RTO_MEDIAN_MULT * rtt_median(cs));
	if (cs->srtt == 0) {
		cs->srtt = rtt;
		cs->rttvar = rtt / 2;
		return;
	}
	cs->rttvar = (3 * cs->rttvar + (cs->srtt > rtt ? cs->srtt - rtt : rtt - cs->srtt)) / 4;
	cs->srtt = (7 * cs->srtt + rtt) / 8;
}

void
dr_comp_rto_start(struct dr_qp_impl *qp, uint32_t sq_psn)
{
	struct dr_comp_state *cs = &qp->comp;

	cs->sent_max = sq_psn;
	cs->seen_sent = sq_psn;
	cs->rtt_psn = dr_psn_sub(sq_psn, 1);   /* the first request sent is the first timed */
	cs->rtt_rewind = __atomic_load_n(&qp->comp_out.rewind_seq, __ATOMIC_RELAXED);
}

void
dr_comp_rtt_cancel(struct dr_qp_impl *qp, uint32_t psn)
{
	struct dr_comp_state *cs = &qp->comp;

	if (cs->rtt_t0 != 0 && !dr_psn_after(psn, cs->rtt_psn))
		cs->rtt_t0 = 0;               /* Karn: its ACK may answer the resend */
	if (dr_psn_after(psn, cs->rtt_psn))
		cs->rtt_psn = psn;            /* and it is never timed */
}

/*
 * Time one PSN at a time: the newest sent, if it is newer than anything
 * timed or sent again before (Karn's rule: a go-back-N since the last look
 * makes everything sent up to now untimeable).
 */
static void
rtt_watch(struct dr_qp_impl *qp, uint32_t sent)
{
	struct dr_comp_state *cs = &qp->comp;
	uint32_t rewind_seq = __atomic_load_n(&qp->comp_out.rewind_seq, __ATOMIC_RELAXED);

	if (dr_psn_after(sent, cs->sent_max))
		cs->sent_max = sent;
	if (rewind_seq != cs->rtt_rewind) {
		cs->rtt_rewind = rewind_seq;
		cs->rtt_t0 = 0;
		cs->rtt_psn = dr_psn_sub(cs->sent_max, 1);
	}
	if (cs->rtt_t0 == 0 && dr_psn_after(dr_psn_sub(sent, 1), cs->rtt_psn)) {
		cs->rtt_psn = dr_psn_sub(sent, 1);
		cs->rtt_t0 = dr_ho_sent_at(qp);   /* when the requester sent it */
	}
}

void
dr_comp_rtt_watch(struct dr_qp_impl *qp)
{
	rtt_watch(qp, dr_ho_sent_psn(qp));
}

static void frto_check(struct dr_qp_impl *qp);

/* A wait for an acknowledgement starts (or starts again after progress) at @now. */
static void
rto_wait_start(struct dr_qp_impl *qp, uint64_t now)
{
	struct dr_comp_state *cs = &qp->comp;

	cs->rto_psn = cs->psn;
	cs->rto_backoff = 0;
	cs->tlp_done = false;
	cs->streaming = false;
	cs->wait_from = now;
	cs->rto_at = now + rto_backed_off(qp);
}

void
dr_comp_rto_acked(struct dr_qp_impl *qp, uint64_t now)
{
	struct dr_comp_state *cs = &qp->comp;

	if (cs->rtt_t0 != 0 && dr_psn_after(cs->psn, cs->rtt_psn)) {
		if (__atomic_load_n(&qp->comp_out.rewind_seq, __ATOMIC_RELAXED) == cs->rtt_rewind &&
		    now >= cs->rtt_t0)               /* two lcores' run clocks: never a negative sample */
			dr_comp_rtt_sample(qp, now - cs->rtt_t0);
		cs->rtt_t0 = 0;
	}
	frto_check(qp);
	if (cs->rto_at == 0)
		return;
	if (cs->psn == cs->rto_psn) {
		/*
		 * no progress, but the responder is alive (a READ reply still
		 * streaming after a loss, duplicates answered): the wait starts
		 * again, its backoff kept, as the local ACK timer does (dr_comp.c)
		 */
		cs->streaming = true;
		cs->rto_at = now + rto_backed_off(qp);
		cs->wait_from = now;
		return;
	}
	if (dr_ho_sent_psn(qp) == cs->psn) {
		cs->rto_at = 0;                   /* everything answered */
		cs->rto_backoff = 0;
		cs->streaming = false;
	} else {
		rto_wait_start(qp, now);
	}
}

const struct dr_send_wqe *
dr_comp_sent_wqe(struct dr_qp_impl *qp, uint32_t psn, uint32_t *i)
{
	struct dr_sq *sq = &qp->sq;
	uint32_t head = dr_sq_head(sq);

	for (; *i != head; (*i)++) {
		const struct dr_send_wqe *wqe = dr_sq_wqe(sq, *i);
		enum dr_wqe_state st = dr_wqe_req_state(wqe);

		if (st == DR_WQE_POSTED)
			return NULL;              /* nothing sent from here on */
		if (wqe->npkts == 0 || dr_psn_after(wqe->first_psn, psn))
			continue;                 /* a local operation; or a WQE before a rewind's PSN */
		if (!dr_psn_after(psn, wqe->last_psn))
			return dr_wqe_done(wqe) ? NULL : wqe;
	}
	return NULL;
}

/* Is the oldest unacknowledged request a READ (its responses are what is awaited)? */
static bool
oldest_is_read(struct dr_qp_impl *qp)
{
	uint32_t idx = qp->sq.tail;
	const struct dr_send_wqe *wqe = dr_comp_sent_wqe(qp, qp->comp.psn, &idx);

	return wqe != NULL && wqe->opcode == DR_WR_RDMA_READ;
}

/* The request at @psn again, alone, AckReq set (never a READ: it would be replayed whole). Sent? */
static bool
resend_one(struct dr_qp_impl *qp, uint32_t psn)
{
	uint32_t idx = qp->sq.tail;
	const struct dr_send_wqe *wqe = dr_comp_sent_wqe(qp, psn, &idx);

	if (wqe == NULL || wqe->opcode == DR_WR_RDMA_READ)
		return false;
	return dr_req_resend(qp, wqe, psn) == 0;  /* else no mbuf or room: the RTO still runs */
}

/* The tail-loss probe: the newest request sent (@sent - 1) again, alone, AckReq set. Sent? */
static bool
rto_probe(struct dr_qp_impl *qp, uint32_t sent)
{
	uint32_t psn = dr_psn_sub(sent, 1);

	if (!resend_one(qp, psn))
		return false;
	dr_comp_rtt_cancel(qp, psn);
	dr_qp_wk(qp)->stats.tlp_probes++;
	qp->cnt.tlp_probes++;
	DR_DP_LOG(comp, DEBUG, "qp %u: tail-loss probe psn %#x", qp->pub.qp_num, psn);
	return true;
}

/*
 * F-RTO (RFC 5682, for go-back-N): an expiry first sends the oldest
 * request again alone, AckReq set. Sent? Not when the last expiry's went
 * unanswered (no progress since: a go-back-N now, as without it), nor for
 * a READ (replayed whole). Only a sample of that PSN itself is spoiled
 * (Karn): an ACK of a later one answers requests sent once only - a lost
 * request drops every later one at the responder (IBA 9.7.5.1.1).
 */
static bool
frto_send(struct dr_qp_impl *qp)
{
	struct dr_comp_state *cs = &qp->comp;

	if (cs->frto_on) {
		cs->frto_on = false;
		return false;
	}
	if (!resend_one(qp, cs->psn))
		return false;
	if (cs->rtt_t0 != 0 && cs->rtt_psn == cs->psn)
		cs->rtt_t0 = 0;
	cs->frto_on = true;
	cs->frto_psn = cs->psn;
	cs->frto_rewind = __atomic_load_n(&qp->comp_out.rewind_seq, __ATOMIC_RELAXED);
	return true;
}

/*
 * The first progress after an F-RTO resend tells (RFC 5682 3.1): an ACK
 * beyond the request sent again acknowledges requests sent once only - they
 * were on their way or queued at a responder slower than the timer, and the
 * expiry was needless (rxe under emulation drains a window of 256 packets
 * in 60 ms and acknowledges every 64th; a go-back-N at each 10 ms expiry
 * buried it under duplicates, reliability.rst). An ACK of that request
 * alone shows the rest lost: go back N now. A go-back-N since (a NAK's)
 * ends the test.
 */
static void
frto_check(struct dr_qp_impl *qp)
{
	struct dr_comp_state *cs = &qp->comp;

	if (!cs->frto_on)
		return;
	if (__atomic_load_n(&qp->comp_out.rewind_seq, __ATOMIC_RELAXED) != cs->frto_rewind) {
		cs->frto_on = false;
		return;
	}
	if (cs->psn == cs->frto_psn)
		return;                           /* no progress yet: the next expiry goes back N */
	cs->frto_on = false;
	if (dr_psn_after(cs->psn, dr_psn_add(cs->frto_psn, 1))) {
		dr_qp_wk(qp)->stats.rto_spurious++;
		qp->cnt.rto_spurious++;
		DR_DP_LOG(comp, DEBUG, "qp %u: needless retransmission timeout at psn %#x (acknowledged to %#x)",
			  qp->pub.qp_num, cs->frto_psn, cs->psn);
		return;
	}
	if (dr_ho_sent_psn(qp) != cs->psn && !dr_ho_rewind_pending(qp))
		dr_comp_rewind(qp);
}

void
dr_comp_rto_timer(struct dr_qp_impl *qp, uint64_t now, bool ack_timeout_due)
{
	struct dr_comp_state *cs = &qp->comp;
	uint32_t sent = dr_ho_sent_psn(qp);
	uint64_t rto;

	if (sent == cs->psn) {
		cs->rto_at = 0;                   /* nothing outstanding: no timer runs */
		return;
	}
	rtt_watch(qp, sent);
	if (sent != cs->seen_sent) {
		cs->seen_sent = sent;             /* new requests went out: not a tail yet */
		cs->sent_at = now;
	}
	if (cs->rto_at == 0 || cs->rto_psn != cs->psn) {
		rto_wait_start(qp, now);          /* requests went out: the wait for an answer starts */
		return;
	}
	if (ack_timeout_due)
		return;                           /* IBA's timer goes first */
	if (dr_qp_sr(qp)) {
		/*
		 * selective repeat probes itself, but never asks a READ again
		 * (dr_comp_sr.c): the lost tail of a READ's responses, which
		 * nothing follows, is the RTO's, as without it
		 */
		if (now < cs->rto_at || !oldest_is_read(qp))
			return;
	} else if (!cs->tlp_done && cs->srtt != 0) {
		uint64_t due = RTE_MAX(cs->wait_from, cs->sent_at) + RTE_MAX(2 * cs->srtt, us_ticks(qp, DR_TLP_MIN_US));

		if (now >= due && due < cs->rto_at) {
			cs->tlp_done = true;
			/* RFC 8985 7.3: the RTO runs again from the probe (a pause of the path costs one frame) */
			if (rto_probe(qp, sent))
				cs->rto_at = RTE_MAX(cs->rto_at, now + rto_backed_off(qp));
			return;
		}
	}
	if (now < cs->rto_at)
		return;
	rto = rto_backed_off(qp);
	if (rto >= rto_ceiling(qp) && qp->attr.timeout != 0) {
		cs->rto_at = now + rto;           /* as long as the local ACK timeout: that one acts */
		return;
	}
	if (dr_ho_rewind_pending(qp)) {
		cs->rto_at = now + rto;           /* the last go-back-N has not gone out yet */
		return;
	}
	dr_qp_wk(qp)->stats.rto_expiries++;
	qp->cnt.rto_expiries++;
	if (rto > qp->cnt.max_rto_ticks)
		__atomic_store_n(&qp->cnt.max_rto_ticks, rto, __ATOMIC_RELAXED);
	DR_DP_LOG(comp, DEBUG, "qp %u: retransmission timeout (%u us) at psn %#x", qp->pub.qp_num,
		  (unsigned int)(rto * 1000000u / dr_qp_tsc_hz(qp)), cs->psn);
	cs->tlp_done = true;                      /* no probe until progress: the go-back-N is one */
	if (cs->rto_backoff < DR_RTO_BACKOFF_MAX)
		cs->rto_backoff++;
	/*
	 * a READ awaited: its first gap only, as a gap found by later
	 * responses (dr_comp_read_hold.c); else the oldest request alone
	 * first (F-RTO), a go-back-N if that one went unanswered
	 */
	if (!dr_comp_reread_oldest(qp) && !frto_send(qp))
		dr_comp_rewind(qp);
	cs->rto_at = now + rto_backed_off(qp);
}
