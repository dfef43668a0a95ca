/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The run clock of an engine thread (lib/engine/dr_run_clock.h), on TSC
 * values the test makes up: it follows the TSC while rounds come often,
 * counts at most the cap across a longer gap (a stall), keeps the stalls'
 * count, the time they left out and the longest gap, and never goes back.
 */

#include "dr_run_clock.h"
#include "dr_test.h"

static void
test_follows_tsc(void)
{
	struct dr_run_clock c;

	dr_run_clock_init(&c, 1000, 500, false);
	CHECK_EQ(c.now, 1000);
	CHECK_EQ(dr_run_clock_advance(&c, 1100), 1100);
	CHECK_EQ(dr_run_clock_advance(&c, 1600), 1600);      /* a gap of exactly the cap counts whole */
	CHECK_EQ(c.stalls, 0);
	CHECK_EQ(c.max_gap, 500);
}

static void
test_stall_capped(void)
{
	struct dr_run_clock c;

	dr_run_clock_init(&c, 1000, 500, false);
	CHECK_EQ(dr_run_clock_advance(&c, 1100), 1100);
	/* descheduled for 10000 ticks: 500 of them count */
	CHECK_EQ(dr_run_clock_advance(&c, 11100), 1600);
	CHECK_EQ(c.stalls, 1);
	CHECK_EQ(c.stall_ticks, 9500);
	CHECK_EQ(c.max_gap, 10000);
	/* then it follows the TSC again from where it stands */
	CHECK_EQ(dr_run_clock_advance(&c, 11200), 1700);
	CHECK_EQ(dr_run_clock_advance(&c, 31200), 2200);
	CHECK_EQ(c.stalls, 2);
	CHECK_EQ(c.stall_ticks, 9500 + 19500);
	CHECK_EQ(c.max_gap, 20000);
}

static void
test_no_cap(void)
{
	struct dr_run_clock c;

	dr_run_clock_init(&c, 0, 0, false);
	CHECK_EQ(dr_run_clock_advance(&c, 5), 5);
	CHECK_EQ(dr_run_clock_advance(&c, 1000005), 1000005);
	CHECK_EQ(c.stalls, 0);
}

static void
test_never_back(void)
{
	struct dr_run_clock c;

	dr_run_clock_init(&c, 1000, 500, false);
	CHECK_EQ(dr_run_clock_advance(&c, 1200), 1200);
	/* a TSC read before the last one (another CPU's, a base that stood still): no change */
	CHECK_EQ(dr_run_clock_advance(&c, 1100), 1200);
	CHECK_EQ(dr_run_clock_advance(&c, 1200), 1200);
	CHECK_EQ(dr_run_clock_advance(&c, 1300), 1300);
	CHECK_EQ(c.stalls, 0);
}

static void
test_uninitialised(void)
{
	struct dr_run_clock c = { .cap = 500 };

	/* a zeroed clock starts at the first TSC it is given */
	CHECK_EQ(dr_run_clock_advance(&c, 7777), 7777);
	CHECK_EQ(dr_run_clock_advance(&c, 7800), 7800);
	CHECK_EQ(c.stalls, 0);
}

/* Inline (keep_gaps): every gap counts, the long ones are still counted as stalls. */
static void
test_keep_gaps(void)
{
	struct dr_run_clock c;

	dr_run_clock_init(&c, 1000, 500, true);
	CHECK_EQ(dr_run_clock_advance(&c, 1100), 1100);
	CHECK_EQ(dr_run_clock_advance(&c, 11100), 11100);
	CHECK_EQ(c.stalls, 1);
	CHECK_EQ(c.stall_ticks, 9500);
	CHECK_EQ(c.max_gap, 10000);
}

/* A deadline armed on the clock: a stall longer than the timeout does not reach it, running does. */
static void
test_deadline(void)
{
	struct dr_run_clock c;
	uint64_t t, deadline;

	dr_run_clock_init(&c, 0, 500, false);
	deadline = dr_run_clock_advance(&c, 100) + 4000;          /* a 4000-tick timer */
	t = dr_run_clock_advance(&c, 100 + 1000000);               /* a long stall */
	CHECK(t < deadline);
	for (t = 100 + 1000000; dr_run_clock_advance(&c, t) < deadline; t += 100)
		;
	/* reached after the stall's 500 and 3500 ticks of rounds */
	CHECK_EQ(t - (100 + 1000000), 3500);
}

int
main(void)
{
	test_follows_tsc();
	test_stall_capped();
	test_no_cap();
	test_never_back();
	test_uninitialised();
	test_keep_gaps();
	test_deadline();
	return dr_test_report("test_run_clock");
}
