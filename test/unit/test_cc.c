/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Congestion control's per-QP logic (lib/cc/dr_pacer.c, dr_cc.c) on a
 * virtual TSC: the pacer holds a flow to its rate and to a burst's credit
 * after a quiet spell; the context settings (defaults, conversion to the
 * TSC, refusals); the notification point's one CNP per interval; the
 * requester's gate taking CNPs, pacing while limited and letting go at line
 * rate again.
 */

#include <errno.h>

#include "dr_cc.h"
#include "dr_test.h"

#define HZ 2000000000ull              /* a 2 GHz TSC */
#define US (HZ / 1000000u)

/* Send @bytes-byte frames as fast as the pacer lets, from @t0 for @cycles: bytes sent. */
static uint64_t
pace_run(struct dr_pacer *p, uint64_t t0, uint64_t cycles, uint32_t bytes, uint64_t step)
{
	uint64_t sent = 0;

	for (uint64_t now = t0; now < t0 + cycles; now += step) {
		while (dr_pacer_ready(p, now)) {
			dr_pacer_sent(p, now, bytes);
			sent += bytes;
		}
	}
	return sent;
}

static void
test_pacer_rate(void)
{
	static const uint64_t rates[] = { 1000000ull, 100000000ull, 1000000000ull, 40000000000ull };

	for (unsigned int i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct dr_pacer p = { 0 };
		uint64_t sent, want;

		dr_pacer_set_rate(&p, rates[i], HZ);
		/* one virtual second, polled every 100 ns: the rate, within one burst and a frame */
		sent = pace_run(&p, 1000 * HZ, HZ, 1500, 200);
		want = rates[i] / 8;
		/* within 1e-5 (cycles per byte in 2^-20), one burst and a frame */
		CHECK_MSG(sent + 1500 >= want && sent <= want + want / 100000 + DR_PACER_BURST_BYTES + 1500,
			  "rate %" PRIu64 ": %" PRIu64 " bytes in a second, want %" PRIu64, rates[i], sent, want);
	}
}

static void
test_pacer_burst(void)
{
	struct dr_pacer p = { 0 };
	uint64_t now = 5 * HZ, sent = 0;

	dr_pacer_set_rate(&p, 100000000ull, HZ);     /* 100 Mb/s: 1000 bytes = 80 us */
	/* after a long quiet spell a flow sends one burst's credit, then waits */
	while (dr_pacer_ready(&p, now)) {
		dr_pacer_sent(&p, now, 1000);
		sent += 1000;
	}
	CHECK_MSG(sent >= DR_PACER_BURST_BYTES && sent <= DR_PACER_BURST_BYTES + 1000, "burst %" PRIu64, sent);
	/* then one frame each 80 us */
	CHECK(!dr_pacer_ready(&p, now));
	CHECK(dr_pacer_ready(&p, now + 80 * US));
	CHECK_EQ(pace_run(&p, now, 8000 * US, 1000, 100), 100 * 1000);
	/* rate 0: no pacing at all */
	dr_pacer_set_rate(&p, 0, HZ);
	CHECK(dr_pacer_ready(&p, now));
	dr_pacer_sent(&p, now, 1000000);
	CHECK(dr_pacer_ready(&p, now));
	/* below the floor the rate is DR_PACER_MIN_RATE, no overflow for a jumbo frame */
	dr_pacer_set_rate(&p, 1, HZ);
	CHECK_EQ(p.rate, DR_PACER_MIN_RATE);
	dr_pacer_sent(&p, now, 9000);
	CHECK(!dr_pacer_ready(&p, now + 60 * HZ));  /* 9000 bytes at 1 kb/s: 72 s */
	CHECK(dr_pacer_ready(&p, now + 80 * HZ));
}

static void
test_ctx(void)
{
	struct dr_cc_attr a = { 0 };
	struct dr_cc_ctx c;

	/* all zero: none, CNPs every 50 us, DCQCN's defaults at the link's speed for telemetry */
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 25000000000ull, HZ), 0);
	CHECK_EQ(c.algo, DR_CC_NONE);
	CHECK_EQ(c.cnp_interval, 50 * US);
	CHECK_EQ(c.dcqcn.line_rate, 25000000000ull);
	/* a port that says nothing: 10 Gb/s */
	a.algo = DR_CC_DCQCN;
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 0, HZ), 0);
	CHECK_EQ(c.dcqcn.line_rate, DR_CC_LINE_RATE_DEFAULT);
	/* the machine runs on the TSC: 55 us, 4 us in cycles; rates unchanged */
	CHECK_EQ(c.dcqcn_tsc.alpha_period_ns, 55 * US);
	CHECK_EQ(c.dcqcn_tsc.rate_period_ns, 55 * US);
	CHECK_EQ(c.dcqcn_tsc.min_dec_period_ns, 4 * US);
	CHECK_EQ(c.dcqcn_tsc.rate_ai, c.dcqcn.rate_ai);
	/* given parameters are taken as given, and checked */
	dr_dcqcn_params_default(&a.dcqcn, 1000000000ull);
	a.dcqcn.rate_period_ns = 100;
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 0, HZ), 0);
	CHECK_EQ(c.dcqcn.line_rate, 1000000000ull);
	CHECK_EQ(c.dcqcn_tsc.rate_period_ns, 200);
	a.dcqcn.min_rate = 2000000000ull;             /* floor above the ceiling */
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 0, HZ), -EINVAL);
	a.dcqcn.min_rate = 1000000ull;
	a.dcqcn.alpha_period_ns = 0;
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 0, HZ), -EINVAL);
	a.dcqcn.alpha_period_ns = 55000;
	a.algo = (enum dr_cc_algo)7;
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 0, HZ), -EINVAL);
	/* bad DCQCN parameters do not matter without DCQCN */
	a.algo = DR_CC_NONE;
	a.dcqcn.g_shift = 0;
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 0, HZ), 0);
	/* no CNPs at all */
	a.cnp_interval_ns = UINT32_MAX;
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 0, HZ), 0);
	CHECK_EQ(c.cnp_interval, UINT64_MAX);
}

static void
test_np(void)
{
	struct dr_cc_attr a = { 0 };
	struct dr_cc_rx r = { 0 };
	struct dr_cc_ctx c;
	uint64_t now = 7 * HZ;
	unsigned int due = 0;

	dr_cc_ctx_init(&c, &a, 0, HZ);
	dr_cc_rx_init(&r);
	/* a CE-marked packet every microsecond for a millisecond: a CNP every 50 us, the first at once */
	for (unsigned int i = 0; i < 1000; i++, now += US)
		due += dr_cc_rx_ce(&r, &c, now);
	CHECK_EQ(due, 20);
	CHECK_EQ(r.ce_rx, 1000);
	/* the CNPs received are published to the requester */
	dr_cc_rx_cnp(&r);
	dr_cc_rx_cnp(&r);
	CHECK_EQ(dr_cc_cnp_seen(&r), 2);
	/* none at all */
	a.cnp_interval_ns = UINT32_MAX;
	dr_cc_ctx_init(&c, &a, 0, HZ);
	CHECK(!dr_cc_rx_ce(&r, &c, now + HZ));
}

static void
test_tx_gate(void)
{
	struct dr_cc_attr a = { .algo = DR_CC_DCQCN };
	struct dr_cc_rx r = { 0 };
	struct dr_cc_tx t;
	struct dr_cc_ctx c;
	uint64_t now = 3 * HZ, sent, rate;

	dr_dcqcn_params_default(&a.dcqcn, 1000000000ull);
	CHECK_EQ(dr_cc_ctx_init(&c, &a, 0, HZ), 0);
	dr_cc_tx_init(&t, &c, dr_cc_cnp_seen(&r), now);
	/* at line rate: always ready, nothing paced */
	for (int i = 0; i < 100; i++) {
		CHECK(dr_cc_tx_ready(&t, &c, dr_cc_cnp_seen(&r), now));
		dr_cc_tx_sent(&t, &c, now, 4096);
	}
	CHECK_EQ(t.pacer.rate, 0);
	CHECK_EQ(t.paced, 0);
	/* a CNP: the rate halves (alpha 1) and the pacer enforces it */
	dr_cc_rx_cnp(&r);
	CHECK(dr_cc_tx_ready(&t, &c, dr_cc_cnp_seen(&r), now));
	CHECK_EQ(t.rp.decreases, 1);
	CHECK_EQ(t.pacer.rate, 500000000ull);
	CHECK_EQ(t.cnp_taken, 1);
	/*
	 * paced for 50 us, before the first increase event (55 us): the bytes
	 * sent are what half rate allows plus the burst's credit
	 */
	sent = 0;
	for (uint64_t end = now + 50 * US; now < end; now += US / 4) {
		unsigned int burst = 0;

		while (dr_cc_tx_ready(&t, &c, dr_cc_cnp_seen(&r), now) && burst++ < 1000) {
			dr_cc_tx_sent(&t, &c, now, 1000);
			sent += 1000;
		}
	}
	CHECK(t.paced > 0);
	rate = 500000000ull / 8 * 50 / 1000000;        /* bytes at 500 Mb/s in 50 us */
	CHECK_MSG(sent + 1000 >= rate && sent <= rate + DR_PACER_BURST_BYTES + 1000, "%" PRIu64 " bytes in 50 us",
		  sent);
	/* a quiet second: timers bring it back to line rate, the pacer lets go */
	now += HZ;
	CHECK(dr_cc_tx_ready(&t, &c, dr_cc_cnp_seen(&r), now));
	CHECK_EQ(t.rp.rc, 1000000000ull);
	CHECK_EQ(t.pacer.rate, 0);
	/* a restart (RTS again) keeps the CNPs counted so far as old */
	dr_cc_rx_cnp(&r);
	dr_cc_tx_init(&t, &c, dr_cc_cnp_seen(&r), now);
	CHECK(dr_cc_tx_ready(&t, &c, dr_cc_cnp_seen(&r), now));
	CHECK_EQ(t.rp.decreases, 0);
	/* without DCQCN a CNP is taken and changes nothing */
	a.algo = DR_CC_NONE;
	dr_cc_ctx_init(&c, &a, 0, HZ);
	dr_cc_rx_cnp(&r);
	CHECK(dr_cc_tx_ready(&t, &c, dr_cc_cnp_seen(&r), now));
	CHECK_EQ(t.pacer.rate, 0);
	CHECK_EQ(t.cnp_taken, dr_cc_cnp_seen(&r));
}

int
main(void)
{
	test_pacer_rate();
	test_pacer_burst();
	test_ctx();
	test_np();
	test_tx_gate();
	return dr_test_report("cc");
}
