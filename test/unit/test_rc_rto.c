/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The adaptive retransmission timer (lib/transport/dr_comp_rto.c,
 * reliability.rst "Retransmission timer"), step by step: the round trip
 * measured (RFC 6298), a lost tail repaired by the tail-loss probe alone, a
 * probe answered by a sequence NAK (IBA 9.7.5.1.1), an early go-back-N that
 * spends no retry (the oldest request alone first, F-RTO: a needless
 * expiry told from a loss), its backoff up to the local ACK timeout, which then acts
 * as IBA 9.7.6.1.3 says (retry_cnt unchanged for the peer), Karn's rule;
 * selective repeat's probe backed off while the responder stays silent.
 *
 * The step cases run inline and drive the completer's timer by hand at the
 * times they name (as test_rc_recovery.c's timeout case does), with a round
 * trip set by the test, on a stopped clock (rc_clock_freeze()): no round
 * of the wire reaches a deadline before the test names it. The tail-loss
 * cases run in every mode on the wire's clock: a lost tail recovered far
 * below the local ACK timeout. The last plays a responder slower than the
 * timer through a bottleneck of the wire (rc_bottleneck()).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "dr_transport.h"
#include "test_rc.h"

#define WLEN 3000u                      /* three packets at MTU 1024 */

struct rto_case {
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_qp_impl *qa;
};

/* Connect with a local ACK timeout of 1.07 s (18), a round trip of 20 ms +- 10 ms: RTO 60 ms, probe at 40 ms. */
static int
rto_setup_sr(struct rc_env *e, struct rto_case *c, uint8_t timeout, uint8_t retry_cnt, bool sr)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];

	rc_params_default(&c->p);
	c->p.timeout = timeout;
	c->p.retry_cnt = retry_cnt;
	c->p.sr[0] = c->p.sr[1] = sr;
	if (rc_connect(e, &c->p) != 0)
		return -1;
	if (rc_buf_alloc(a, &c->src, WLEN, DR_ACCESS_LOCAL_WRITE) != 0)
		return -1;
	if (rc_buf_alloc(b, &c->dst, WLEN, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE |
			 DR_ACCESS_REMOTE_READ) != 0) {
		rc_buf_free(&c->src);
		return -1;
	}
	c->qa = dr_qp_impl(a->qp);
	rc_fill(c->src.p, WLEN, 11);
	memset(c->dst.p, 0, WLEN);
	return 0;
}

/* Go-back-N: selective repeat probes by itself (dr_comp_sr.c). */
static int
rto_setup(struct rc_env *e, struct rto_case *c, uint8_t timeout, uint8_t retry_cnt)
{
	return rto_setup_sr(e, c, timeout, retry_cnt, false);
}

static void
rto_teardown(struct rc_env *e, struct rto_case *c)
{
	rc_clock_freeze(false);
	rc_buf_free(&c->src);
	rc_buf_free(&c->dst);
	rc_disconnect(e);
}

static int
post_write(struct rc_env *e, struct rto_case *c, uint64_t wr_id)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)c->src.p, WLEN, c->src.mr->lkey };

	return rc_post_send(&e->s[0], wr_id, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED,
			    (uint64_t)(uintptr_t)c->dst.p, c->dst.mr->rkey, 0);
}

static bool
inline_only(const char *name)
{
	return rc_inline_only(name, "the test plays the completer's timer on its own thread");
}

/*
 * The WRITE went out and its wait started, on a stopped clock; the round
 * trip is the test's: @srtt_us +- @rttvar_us.
 */
static uint64_t
start_wait(struct rc_env *e, struct rto_case *c, uint64_t srtt_us, uint64_t rttvar_us)
{
	rc_clock_freeze(true);
	c->qa->comp.srtt = rc_ms(1) * srtt_us / 1000u;
	c->qa->comp.rttvar = rc_ms(1) * rttvar_us / 1000u;
	rc_round(e);                          /* sent: the frames the rules let through reach B */
	rc_round(e);                          /* the completer's timers ran: the wait started */
	RC_CHECK(c->qa->comp.rto_at != 0);
	return RTE_MAX(c->qa->comp.wait_from, c->qa->comp.sent_at);
}

/* The last packet of a WRITE is lost: the probe (the newest request again) repairs it, no retry. */
static void
test_tail_probe(struct rc_env *e)
{
	struct rc_wcs sw = { .n = 0 };
	struct rto_case c;
	uint64_t t;

	if (!inline_only("test_tail_probe") || rto_setup(e, &c, 18, 7) != 0)
		return;
	rc_rule_add(e, RC_A2B, DR_OPCODE(RC, WRITE_LAST), 0, 0, 1, RC_DROP);
	RC_CHECK_EQ(post_write(e, &c, 1), 0);
	t = start_wait(e, &c, 20000, 10000);
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), rc_ms(60));   /* srtt + 4 rttvar (RFC 6298 2.3) */
	dr_comp_timers(c.qa, t + rc_ms(40) - 1);          /* max(2 srtt, DR_TLP_MIN_US) not over yet */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.tlp_probes), 0);
	dr_comp_timers(c.qa, t + rc_ms(40));
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.tlp_probes), 1);
	RC_CHECK_EQ(c.qa->comp.rto_at, t + rc_ms(100));   /* the RTO runs again from the probe (RFC 8985 7.3) */
	dr_comp_timers(c.qa, t + rc_ms(50));              /* once per wait */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.tlp_probes), 1);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &sw, 1, 2000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	RC_CHECK_EQ(e->frames[RC_A2B], 4);             /* three, and the probe */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.rto_expiries), 0);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.retries), 0);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.ack_timeouts), 0);
	RC_CHECK_EQ(c.qa->comp.rto_at, 0);             /* everything answered: no timer runs */
	RC_CHECK_EQ(c.qa->comp.srtt, rc_ms(20));          /* Karn: the probe's ACK is no sample */
	rto_teardown(e, &c);
}

/*
 * The last two packets are lost: the probe arrives out of sequence, the
 * responder NAKs (IBA 9.7.5.1.1), and the NAK's go-back-N (a retry, as
 * rxe counts it) resends from the first missing one.
 */
static void
test_probe_nak(struct rc_env *e)
{
	struct rc_wcs sw = { .n = 0 };
	struct rto_case c;
	struct rc_rule *r;
	uint64_t t;

	if (!inline_only("test_probe_nak") || rto_setup(e, &c, 18, 7) != 0)
		return;
	r = rc_rule_add(e, RC_A2B, DR_OPCODE(RC, WRITE_MIDDLE), 0, 0, 1, RC_DROP);
	r->fresh = true;
	r = rc_rule_add(e, RC_A2B, DR_OPCODE(RC, WRITE_LAST), 0, 0, 1, RC_DROP);
	r->fresh = true;
	RC_CHECK_EQ(post_write(e, &c, 2), 0);
	t = start_wait(e, &c, 20000, 10000);
	dr_comp_timers(c.qa, t + rc_ms(40));
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.tlp_probes), 1);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &sw, 1, 2000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.naks_rx), 1);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.retries), 1);
	RC_CHECK_EQ(e->frames[RC_A2B], 6);             /* three, the probe, MIDDLE and LAST again */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.rto_expiries), 0);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.ack_timeouts), 0);
	rto_teardown(e, &c);
}

/*
 * F-RTO (RFC 5682; dr_comp_rto.c): an expiry sends the oldest request
 * again alone, and the first progress after it tells what happened.
 *  - lost: the three requests and the probe are lost; the oldest sent
 *    again is accepted and acknowledged alone, so the rest was lost too: a
 *    go-back-N at once, no second expiry (3 + 1 + 1 + 2 frames);
 *  - needless: every request arrived but the ACKs of the three and of the
 *    probe were lost; the oldest sent again is a duplicate, which the
 *    responder acknowledges with the newest PSN it executed (IBA 9.7.5.1.1,
 *    C9-105): everything is acknowledged and nothing more is sent (3 + 1 + 1).
 * Neither spends a retry.
 */
static void
test_frto(struct rc_env *e, bool acks_lost)
{
	const char *name = acks_lost ? "needless" : "lost";
	struct rc_wcs sw = { .n = 0 };
	struct rto_case c;
	uint64_t t;

	if (!inline_only("test_frto") || rto_setup(e, &c, 18, 7) != 0)
		return;
	if (acks_lost)
		rc_rule_add(e, RC_B2A, -1, 0, 0, 2, RC_DROP);
	else
		rc_rule_add(e, RC_A2B, -1, 0, 0, 4, RC_DROP);
	RC_CHECK_EQ(post_write(e, &c, 4), 0);
	t = start_wait(e, &c, 20000, 10000);
	dr_comp_timers(c.qa, t + rc_ms(40));              /* the probe, and its answer, lost */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.tlp_probes), 1);
	rc_round(e);
	rc_round(e);
	RC_CHECK_EQ(c.qa->comp.rto_at, t + rc_ms(100));
	dr_comp_timers(c.qa, t + rc_ms(100));             /* the RTO: the oldest alone */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.rto_expiries), 1);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &sw, 1, 2000000));
	RC_CHECK_MSG(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS, "%s", name);
	RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	RC_CHECK_MSG(e->frames[RC_A2B] == (acks_lost ? 5u : 7u), "%s: %" PRIu64 " frames", name,
		     e->frames[RC_A2B]);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.rto_expiries), 1);
	RC_CHECK_MSG(rc_counter(&c.qa->cnt.rto_spurious) == (acks_lost ? 1u : 0u), "%s: %" PRIu64 " needless", name,
		     rc_counter(&c.qa->cnt.rto_spurious));
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.retries), 0);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.ack_timeouts), 0);
	RC_CHECK_EQ(c.qa->comp.rto_at, 0);
	RC_CHECK(!c.qa->comp.frto_on);
	rto_teardown(e, &c);
}

/*
 * Everything A sends is lost for a while, round trip 200 us +- 100 us: the
 * probe at 1 ms (DR_TLP_MIN_US), the RTO (5 ms, DR_RTO_MIN_US) from there;
 * its expiries (the oldest request alone, then a go-back-N when that went
 * unanswered, in turn) spend no retry and come every 8 ms after the first (10 ms
 * doubled, capped at DR_RTO_BACKOFF_CAP_US); the local ACK timeout (1.07 s)
 * expires beside them as IBA says and spends one. The path comes back:
 * done, the backoff gone, no sample from anything resent (Karn).
 */
static void
test_rto_backoff(struct rc_env *e)
{
	struct rc_wcs sw = { .n = 0 };
	struct dr_qp_counters qc;
	struct rto_case c;
	uint64_t w, at, us;
	unsigned int k;

	if (!inline_only("test_rto_backoff") || rto_setup(e, &c, 18, 7) != 0)
		return;
	rc_rule_add(e, RC_A2B, -1, 0, 0, 0, RC_DROP);
	RC_CHECK_EQ(post_write(e, &c, 3), 0);
	w = start_wait(e, &c, 200, 100);
	us = rc_ms(1) / 1000u;
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), 5000 * us);
	RC_CHECK_EQ(c.qa->comp.rto_at, w + 5000 * us);
	dr_comp_timers(c.qa, w + 1000 * us);           /* the probe */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.tlp_probes), 1);
	at = c.qa->comp.rto_at;
	RC_CHECK_EQ(at, w + 6000 * us);
	for (k = 0; k < 5; k++) {
		dr_comp_timers(c.qa, at - 1);
		RC_CHECK_EQ(rc_counter(&c.qa->cnt.rto_expiries), k);
		dr_comp_timers(c.qa, at);
		RC_CHECK_MSG(rc_counter(&c.qa->cnt.rto_expiries) == k + 1u, "expiry %u", k + 1);
		RC_CHECK_EQ(c.qa->comp.retry_left, 7);   /* no retry spent */
		RC_CHECK_EQ(rc_counter(&c.qa->cnt.ack_timeouts), 0);
		rc_round(e);                             /* what it resent goes out (and is lost) */
		RC_CHECK_MSG(c.qa->comp.rto_at == at + 8000 * us, "gap %u: %" PRIu64 " us", k + 1,
			     (c.qa->comp.rto_at - at) / us);
		at = c.qa->comp.rto_at;
	}
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.tlp_probes), 1);     /* one per wait */
	RC_CHECK(c.qa->comp.timeout_at != 0);
	dr_comp_timers(c.qa, c.qa->comp.timeout_at);   /* the local ACK timeout: a retry (IBA 9.7.6.1.3) */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.ack_timeouts), 1);
	RC_CHECK_EQ(c.qa->comp.retry_left, 6);
	RC_CHECK_EQ(dr_query_qp_counters(e->s[0].qp, &qc), 0);
	RC_CHECK_EQ(qc.rto_expiries, 5);
	RC_CHECK_MSG(qc.max_rto_us >= 7999 && qc.max_rto_us <= 8001, "max_rto_us %" PRIu64, qc.max_rto_us);
	rc_rules_clear(e);
	rc_clock_freeze(false);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &sw, 1, 3000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	RC_CHECK_EQ(c.qa->comp.rto_backoff, 0);        /* progress: the backoff is gone */
	RC_CHECK_EQ(c.qa->comp.rto_at, 0);
	RC_CHECK_EQ(c.qa->comp.srtt, 200 * us);        /* Karn: nothing resent was timed */
	RC_CHECK_EQ(c.qa->comp.retry_left, 7);         /* progress restores retry_cnt */
	rto_teardown(e, &c);
}

/*
 * A READ awaited (reliability.rst "Retransmission timer"): no tail-loss
 * probe (a READ asked again is executed again, IBA 9.7.5.1.3). While the
 * responder is silent (its requests lost: a peer descheduled), the RTO
 * backs off as any other, every 8 ms after the first (DR_RTO_BACKOFF_CAP_US):
 * no expiry longer than that. Once it answers in the wait without
 * progress (still streaming, as rxe under emulation replays an 8 MiB
 * READ), asking again would start another replay: the backoff doubles on,
 * up to the local ACK timeout (1.07 s), where that timer acts.
 */
static void
test_read_rto_backoff(struct rc_env *e)
{
	struct dr_sge sge;
	struct rc_wcs sw = { .n = 0 };
	struct dr_qp_counters qc;
	struct rto_case c;
	uint64_t w, at, us, gap;
	unsigned int k;

	if (!inline_only("test_read_rto_backoff") || rto_setup(e, &c, 18, 7) != 0)
		return;
	sge = (struct dr_sge){ (uint64_t)(uintptr_t)c.src.p, WLEN, c.src.mr->lkey };
	rc_fill(c.dst.p, WLEN, 77);
	memset(c.src.p, 0, WLEN);
	rc_rule_add(e, RC_A2B, -1, 0, 0, 0, RC_DROP);
	RC_CHECK_EQ(rc_post_send(&e->s[0], 4, DR_WR_RDMA_READ, &sge, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)c.dst.p, c.dst.mr->rkey, 0), 0);
	w = start_wait(e, &c, 200, 100);
	us = rc_ms(1) / 1000u;
	dr_comp_timers(c.qa, w + 1000 * us);           /* no probe: a READ */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.tlp_probes), 0);
	at = c.qa->comp.rto_at;
	RC_CHECK_EQ(at, w + 5000 * us);                /* and the RTO where it was */
	for (k = 0; k < 4; k++) {
		dr_comp_timers(c.qa, at - 1);
		RC_CHECK_EQ(rc_counter(&c.qa->cnt.rto_expiries), k);
		dr_comp_timers(c.qa, at);
		RC_CHECK_MSG(rc_counter(&c.qa->cnt.rto_expiries) == k + 1u, "expiry %u", k + 1);
		rc_round(e);                             /* the READ again (and lost) */
		RC_CHECK_MSG(c.qa->comp.rto_at == at + 8000 * us, "silent, gap %u: %" PRIu64 " us", k + 1,
			     (c.qa->comp.rto_at - at) / us);
		at = c.qa->comp.rto_at;
	}
	RC_CHECK_EQ(dr_query_qp_counters(e->s[0].qp, &qc), 0);
	RC_CHECK_MSG(qc.max_rto_us >= 7999 && qc.max_rto_us <= 8001, "max_rto_us %" PRIu64, qc.max_rto_us);
	/* a response without progress: the responder is alive, busy with an earlier READ */
	dr_comp_rto_acked(c.qa, at - 1000 * us);
	RC_CHECK(c.qa->comp.streaming);
	at = c.qa->comp.rto_at;
	gap = 5000 * us << 4;                          /* four expiries: 5 ms doubled four times */
	RC_CHECK_MSG(at == c.qa->comp.wait_from + gap, "streaming: %" PRIu64 " us",
		     (at - c.qa->comp.wait_from) / us);
	for (k = 0; k < 2; k++) {
		dr_comp_timers(c.qa, at);
		rc_round(e);
		gap *= 2;
		RC_CHECK_MSG(c.qa->comp.rto_at == at + gap, "streaming, gap %u: %" PRIu64 " us", k + 1,
			     (c.qa->comp.rto_at - at) / us);
		at = c.qa->comp.rto_at;
	}
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.rto_expiries), 6);
	RC_CHECK_EQ(c.qa->comp.retry_left, 7);         /* no retry spent */
	rc_rules_clear(e);
	rc_clock_freeze(false);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &sw, 1, 3000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	RC_CHECK(!c.qa->comp.streaming);               /* progress: a new wait */
	RC_CHECK_EQ(c.qa->comp.rto_backoff, 0);
	rto_teardown(e, &c);
}

/*
 * Selective repeat's probe (dr_comp_sr.c) while the responder stays
 * silent (a peer descheduled, an application not progressing): the oldest
 * request again after the recovery timeout, srtt + 4 rttvar = 600 us, then
 * after 1.2, 2.4, 4.8 ms and every 8 ms (DR_RTO_BACKOFF_CAP_US), as RFC
 * 6298 5.5 backs off its timer; not every 600 us. Each probe is counted in
 * sr_probes and sr_resends, spends no retry and is no go-back-N. The path
 * comes back: done, the backoff gone.
 */
static void
test_sr_probe_backoff(struct rc_env *e)
{
	static const unsigned int gap_us[] = { 1200, 2400, 4800, 8000, 8000, 8000 };
	struct rc_wcs sw = { .n = 0 };
	struct dr_qp_counters qc;
	struct rto_case c;
	uint64_t at, us;
	unsigned int k;

	if (!inline_only("test_sr_probe_backoff") || rto_setup_sr(e, &c, 18, 7, true) != 0)
		return;
	rc_rule_add(e, RC_A2B, -1, 0, 0, 0, RC_DROP);
	RC_CHECK_EQ(post_write(e, &c, 5), 0);
	start_wait(e, &c, 200, 100);
	us = rc_ms(1) / 1000u;
	at = c.qa->comp.sr_last_rx + 600 * us;             /* the wait started when the WRITE went out */
	RC_CHECK(c.qa->comp.sr_last_rx != 0);
	dr_comp_timers(c.qa, at - 1);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.sr_probes), 0);
	dr_comp_timers(c.qa, at);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.sr_probes), 1);
	rc_round(e);                                       /* the probe goes out (and is lost) */
	for (k = 0; k < RTE_DIM(gap_us); k++) {
		RC_CHECK_MSG(c.qa->comp.sr_probe_at == at + gap_us[k] * us, "gap %u: %" PRIu64 " us", k + 1,
			     (c.qa->comp.sr_probe_at - at) / us);
		at += gap_us[k] * us;
		dr_comp_timers(c.qa, at - 1);
		RC_CHECK_EQ(rc_counter(&c.qa->cnt.sr_probes), k + 1);
		dr_comp_timers(c.qa, at);
		RC_CHECK_MSG(rc_counter(&c.qa->cnt.sr_probes) == k + 2u, "probe %u", k + 2);
		rc_round(e);
	}
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.sr_resends), RTE_DIM(gap_us) + 1);   /* nothing but the probes */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.rto_expiries), 0);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.ack_timeouts), 0);
	RC_CHECK_EQ(c.qa->comp.retry_left, 7);
	RC_CHECK_EQ(dr_query_qp_counters(e->s[0].qp, &qc), 0);
	RC_CHECK_EQ(qc.sr_probes, RTE_DIM(gap_us) + 1);
	rc_rules_clear(e);
	rc_clock_freeze(false);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &sw, 1, 3000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	RC_CHECK_EQ(c.qa->comp.sr_probe_backoff, 0);       /* the responder spoke: the backoff is gone */
	rto_teardown(e, &c);
}

/* The first round trip measured: srtt = R, rttvar = R / 2 (RFC 6298 2.2); later ones smoothed. */
static void
test_rtt_estimate(struct rc_env *e)
{
	struct rc_wcs sw = { .n = 0 };
	struct dr_qp_counters qc;
	struct rto_case c;
	unsigned int k;

	if (rto_setup(e, &c, 18, 7) != 0)
		return;
	for (k = 0; k < 20; k++) {
		sw.n = 0;
		RC_CHECK_EQ(post_write(e, &c, 10 + k), 0);
		RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &sw, 1, 2000000));
		RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	}
	RC_CHECK_EQ(dr_query_qp_counters(e->s[0].qp, &qc), 0);
	/* a round trip of the in-process wire: above 0, far below the local ACK timeout */
	RC_CHECK_MSG(rc_counter(&c.qa->comp.srtt) != 0 && qc.srtt_us < 100000, "srtt %" PRIu64 " us", qc.srtt_us);
	RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	rto_teardown(e, &c);
}

/*
 * The RTO's bound (dr_comp_rtt_timeout()): the median of the recent
 * samples is the path's round trip. On a path of 100 us, one sample of
 * 10 ms (a peer descheduled for a scheduler slice) lifts srtt + 4 rttvar
 * to 11.3 ms; the RTO is 8 ms (DR_RTO_BACKOFF_CAP_US), and 5 ms again
 * (DR_RTO_MIN_US) once rttvar has forgotten it. A path
 * whose every sample is 50 ms (a large flight through rxe under
 * emulation) keeps RFC 6298's estimate whole once its rttvar has settled,
 * and the step to it, or a sample of 1 s on it, is bounded at 2 x 50 ms. Pure arithmetic on the QP's estimate: no frame
 * is sent.
 */
static void
test_rto_bound(struct rc_env *e)
{
	struct rto_case c;
	struct dr_comp_state *cs;
	uint64_t us, est;
	int i;

	if (!inline_only("test_rto_bound") || rto_setup(e, &c, 18, 7) != 0)
		return;
	cs = &c.qa->comp;
	us = rc_ms(1) / 1000u;
	cs->srtt = cs->rttvar = 0;
	RC_CHECK_EQ(dr_comp_rtt_timeout(c.qa), 0);
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), 10000 * us);    /* DR_RTO_INIT_US */
	for (i = 0; i < 5; i++)
		dr_comp_rtt_sample(c.qa, 100 * us);
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), 5000 * us);     /* DR_RTO_MIN_US */
	dr_comp_rtt_sample(c.qa, 10000 * us);
	est = cs->srtt + 4 * cs->rttvar;
	RC_CHECK_MSG(est > 11000 * us, "srtt + 4 rttvar %" PRIu64 " us", est / us);
	RC_CHECK_EQ(dr_comp_rtt_timeout(c.qa), 8000 * us);
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), 8000 * us);
	for (i = 0; i < 45; i++)
		dr_comp_rtt_sample(c.qa, 100 * us);
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), 5000 * us);
	/* a slow path: every sample 50 ms; the step to it is bounded too, at 2 x 50 ms */
	for (i = 0; i < 5; i++)
		dr_comp_rtt_sample(c.qa, 50000 * us);
	RC_CHECK_MSG(cs->srtt + 4 * cs->rttvar > 100000 * us, "srtt + 4 rttvar %" PRIu64 " us",
		     (cs->srtt + 4 * cs->rttvar) / us);
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), 100000 * us);   /* DR_RTO_MEDIAN_MULT x 50 ms */
	for (i = 0; i < 15; i++)
		dr_comp_rtt_sample(c.qa, 50000 * us);
	est = cs->srtt + 4 * cs->rttvar;
	RC_CHECK_MSG(est > 50000 * us && est < 100000 * us, "srtt + 4 rttvar %" PRIu64 " us", est / us);
	RC_CHECK_EQ(dr_comp_rtt_timeout(c.qa), est);       /* RFC 6298's, whole */
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), est);
	dr_comp_rtt_sample(c.qa, 1000000 * us);
	RC_CHECK_EQ(dr_comp_rto_base(c.qa), 100000 * us);
	rto_teardown(e, &c);
}

/*
 * Every mode, on the wire's clock: the last packet of one WRITE in three
 * is lost (first transmissions), with a local ACK timeout of 4.3 s (20).
 * Each loss is recovered by the probe or the RTO, never the local ACK
 * timeout: 30 WRITEs take well under one of those.
 */
static void
test_tail_loss_fast(struct rc_env *e)
{
	struct rc_wcs sw = { .n = 0 };
	struct dr_qp_counters qc;
	struct rto_case c;
	struct rc_rule *r;
	unsigned int k;

	if (rto_setup(e, &c, 20, 7) != 0)
		return;
	r = rc_rule_add(e, RC_A2B, DR_OPCODE(RC, WRITE_LAST), 0, 3, 0, RC_DROP);
	r->fresh = true;
	for (k = 0; k < 30; k++) {
		sw.n = 0;
		rc_fill(c.src.p, WLEN, 100 + k);
		RC_CHECK_EQ(post_write(e, &c, 100 + k), 0);
		/* 4 s of the transport's time, under the local ACK timeout (a busy machine stretches the wall's) */
		RC_CHECK_MSG(rc_wait_wcs_clock(e, e->s[0].scq, &sw, 1, 4000000, 120000000), "write %u not done", k);
		RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS && sw.wc[0].wr_id == 100 + k);
		RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	}
	RC_CHECK_EQ(dr_query_qp_counters(e->s[0].qp, &qc), 0);
	RC_CHECK_MSG(qc.ack_timeouts == 0 && qc.tlp_probes + qc.rto_expiries >= 10,
		     "%" PRIu64 " ACK timeouts, %" PRIu64 " probes, %" PRIu64 " RTOs", qc.ack_timeouts,
		     qc.tlp_probes, qc.rto_expiries);
	if (rc_failed != 0)
		rc_print_counters(e, "tail loss");
	rto_teardown(e, &c);
}

/*
 * Every mode, on the wire's clock, with go-back-N and with selective
 * repeat: the last response of one READ in three is lost (first
 * transmissions), local ACK timeout 4.3 s (20). Nothing follows a READ's
 * lost tail, and selective repeat's probe never asks a READ again
 * (dr_comp_sr.c): the RTO asks the READ again for its first gap (no
 * go-back-N: each expiry is a re-read, dr_comp_read_hold.c), in a round
 * trip or so, never the local ACK timeout.
 */
static void
test_read_tail_loss_fast(struct rc_env *e, bool sr)
{
	struct rc_wcs sw = { .n = 0 };
	uint64_t t0;
	struct dr_qp_counters qc;
	struct rto_case c;
	struct rc_rule *r;
	unsigned int k;

	if (rto_setup_sr(e, &c, 20, 7, sr) != 0)
		return;
	r = rc_rule_add(e, RC_B2A, DR_OPCODE(RC, READ_RESP_LAST), 0, 3, 0, RC_DROP);
	r->fresh = true;
	for (k = 0; k < 30; k++) {
		struct dr_sge sge = { (uint64_t)(uintptr_t)c.src.p, WLEN, c.src.mr->lkey };

		sw.n = 0;
		rc_fill(c.dst.p, WLEN, 200 + k);
		memset(c.src.p, 0, WLEN);
		RC_CHECK_EQ(rc_post_send(&e->s[0], 200 + k, DR_WR_RDMA_READ, &sge, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)c.dst.p, c.dst.mr->rkey, 0), 0);
		t0 = rc_clock_now();
		RC_CHECK_MSG(rc_wait_wcs_clock(e, e->s[0].scq, &sw, 1, 4000000, 120000000),
			     "%s: read %u not done in 4 s of the transport's time (%.1f ms)",
			     sr ? "selective repeat" : "go-back-N", k, (double)(rc_clock_now() - t0) / (double)rc_ms(1));
		RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS && sw.wc[0].wr_id == 200 + k);
		RC_CHECK(memcmp(c.src.p, c.dst.p, WLEN) == 0);
	}
	RC_CHECK_EQ(dr_query_qp_counters(e->s[0].qp, &qc), 0);
	RC_CHECK_MSG(qc.ack_timeouts == 0 && qc.rto_expiries >= 10, "%s: %" PRIu64 " ACK timeouts, %" PRIu64
		     " RTOs (longest %" PRIu64 " us, srtt %" PRIu64 " us, rttvar %" PRIu64 " us)",
		     sr ? "selective repeat" : "go-back-N", qc.ack_timeouts, qc.rto_expiries, qc.max_rto_us,
		     qc.srtt_us, qc.rttvar_us);
	RC_CHECK_MSG(qc.rereads >= qc.rto_expiries && qc.retries == 0, "%s: %" PRIu64 " re-reads, %" PRIu64
		     " retries for %" PRIu64 " RTOs", sr ? "selective repeat" : "go-back-N", qc.rereads, qc.retries,
		     qc.rto_expiries);
	if (rc_failed != 0)
		rc_print_counters(e, "read tail loss");
	rto_teardown(e, &c);
}

/*
 * A responder slower than the timer (reliability.rst "Retransmission
 * timer", F-RTO): rxe under emulation takes about 4,000 frames a second
 * and acknowledges a 64 KiB WRITE (64 packets at MTU 1024) every 16 ms,
 * later than the first RTO (DR_RTO_INIT_US: no round trip measured yet).
 * Here A's requests leave through a bottleneck of one frame every 250 us
 * (a queue of 1024, drop-tail) and 16 such WRITEs are posted at once with
 * the default send window (256 packets), on a clock the test advances by
 * 50 us a round. An expiry sends the oldest request again alone; the
 * responder then acknowledges requests sent once only: the expiry was
 * needless (RFC 5682), nothing more is resent, and the round trip through
 * the queue is measured past it (Karn's rule spoils only the PSN sent
 * again). A go-back-N at each expiry instead sent every window again
 * behind the last one: 173,536 frames for 12,800 against rxe, here several
 * times the 1,024 needed and a queue that overflowed.
 */
static void
test_slow_responder(struct rc_env *e)
{
	enum { NW = 16, MLEN = 65536, GAP_US = 250, STEP_US = 50 };
	const uint64_t need = NW * (MLEN / 1024);
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 };
	struct dr_qp_counters qc;
	struct rc_qp_params p;
	struct rc_buf src, dst;
	uint64_t t0, took_us, ideal_us = need * GAP_US, frames;
	unsigned int k;

	if (!inline_only("test_slow_responder"))
		return;
	rc_params_default(&p);
	p.timeout = 18;                       /* 1.07 s: never reached */
	p.max_wr = NW;
	if (rc_connect(e, &p) != 0)
		return;
	if (rc_buf_alloc(a, &src, NW * MLEN, DR_ACCESS_LOCAL_WRITE) != 0) {
		rc_disconnect(e);
		return;
	}
	if (rc_buf_alloc(b, &dst, NW * MLEN, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
		rc_buf_free(&src);
		rc_disconnect(e);
		return;
	}
	rc_fill(src.p, NW * MLEN, 77);
	memset(dst.p, 0, NW * MLEN);
	rc_bottleneck(e, RC_A2B, GAP_US, 1024);
	rc_clock_freeze(true);
	t0 = rc_clock_now();
	for (k = 0; k < NW; k++) {
		struct dr_sge sge = { (uint64_t)(uintptr_t)(src.p + k * MLEN), MLEN, src.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, 300 + k, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)(dst.p + k * MLEN), dst.mr->rkey, 0), 0);
	}
	/* two seconds of the transport's time: eight times what the queue needs */
	while (sw.n < NW && rc_clock_now() - t0 < rc_ms(2000)) {
		rc_round(e);
		rc_clock_advance(rc_ms(1) * STEP_US / 1000u);
		RC_CHECK(rc_poll(a->scq, &sw) >= 0);
	}
	took_us = (rc_clock_now() - t0) / (rc_ms(1) / 1000u);
	rc_clock_freeze(false);
	frames = e->frames[RC_A2B];
	RC_CHECK_MSG(sw.n == NW, "%u of %u WRITEs completed in %" PRIu64 " us", sw.n, (unsigned int)NW, took_us);
	for (k = 0; k < sw.n; k++)
		RC_CHECK(sw.wc[k].status == DR_WC_SUCCESS && sw.wc[k].wr_id == 300 + k);
	RC_CHECK(memcmp(src.p, dst.p, NW * MLEN) == 0);
	RC_CHECK_EQ(dr_query_qp_counters(a->qp, &qc), 0);
	/* at most 1/16 of the requests sent twice, none lost in the queue, no retry spent */
	RC_CHECK_MSG(frames >= need && frames <= need + need / 16, "%" PRIu64 " request frames for %" PRIu64
		     " packets: %" PRIu64 " RTOs, %" PRIu64 " needless, %" PRIu64 " dropped by the queue", frames,
		     need, qc.rto_expiries, qc.rto_spurious, e->neck_drops[RC_A2B]);
	RC_CHECK_EQ(e->neck_drops[RC_A2B], 0);
	RC_CHECK_MSG(qc.rto_spurious >= 1 && qc.rto_spurious == qc.rto_expiries, "%" PRIu64 " RTOs, %" PRIu64
		     " needless", qc.rto_expiries, qc.rto_spurious);
	RC_CHECK_EQ(qc.retries + qc.ack_timeouts, 0);
	/* the queue's pace: within an eighth of it; and its round trip measured (beyond 16 ms) */
	RC_CHECK_MSG(took_us <= ideal_us + ideal_us / 8, "%" PRIu64 " us for %" PRIu64 " us of frames", took_us,
		     ideal_us);
	RC_CHECK_MSG(qc.srtt_us > 16000, "srtt %" PRIu64 " us", qc.srtt_us);
	printf("slow responder: %" PRIu64 " request frames for %" PRIu64 ", %" PRIu64 " RTOs (%" PRIu64
	       " needless), %" PRIu64 " us for %" PRIu64 " us of frames, srtt %" PRIu64 " us\n", frames, need,
	       qc.rto_expiries, qc.rto_spurious, took_us, ideal_us, qc.srtt_us);
	if (rc_failed != 0)
		rc_print_counters(e, "slow responder");
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

static void
run(struct rc_env *e)
{
	test_tail_probe(e);
	test_probe_nak(e);
	test_frto(e, false);
	test_frto(e, true);
	test_rto_backoff(e);
	test_read_rto_backoff(e);
	test_sr_probe_backoff(e);
	test_rtt_estimate(e);
	test_rto_bound(e);
	test_tail_loss_fast(e);
	test_read_tail_loss_fast(e, false);
	test_read_tail_loss_fast(e, true);
	test_slow_responder(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_rto", argv[0], 4300, run);
}
