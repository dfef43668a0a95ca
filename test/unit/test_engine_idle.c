/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * DR_IDLE_SLEEP in inline mode (lib/engine/dr_engine.c, inline_idle()): a
 * dr_progress() that finds no work, DR_IDLE_SPIN_US after the last one
 * that did, naps DR_IDLE_SLEEP_US before it returns; one that does work
 * never naps and starts the spin again; DR_IDLE_SPIN (the default) never
 * naps; DR_IDLE_AUTO naps so only while the thread was preempted often lately
 * (its involuntary context switches, here the test's). On the wire's
 * stopped clock (rc_clock_freeze()), which the test moves by exactly the
 * times it names, so a slow machine changes nothing.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "test_rc.h"

static uint64_t
naps(struct rc_env *e)
{
	return e->s[0].ctx->wk[0].lstats.idle_naps;
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* A WRITE from A, completed: work for A's dr_progress(). */
static int
write_one(struct rc_env *e, struct rc_buf *src, struct rc_buf *dst, uint64_t wr_id)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)src->p, 64, src->mr->lkey };
	struct rc_wcs w = { .n = 0 };

	if (rc_post_send(&e->s[0], wr_id, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED,
			 (uint64_t)(uintptr_t)dst->p, dst->mr->rkey, 0) != 0)
		return -1;
	return rc_wait_wcs(e, e->s[0].scq, &w, 1, 2000000) && w.wc[0].status == DR_WC_SUCCESS ? 0 : -1;
}

/* A connected pair and a 64-byte buffer on each side; the clock stopped by the caller. */
static int
idle_setup(struct rc_env *e, struct rc_buf *src, struct rc_buf *dst)
{
	struct rc_qp_params p;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(&e->s[0], src, 64, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(&e->s[1], dst, 64, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
		RC_CHECK_MSG(0, "setup");
		return -1;
	}
	return 0;
}

/* The policy back to the default, the clock going, the pair and buffers gone. */
static void
idle_teardown(struct rc_env *e, struct rc_buf *src, struct rc_buf *dst)
{
	e->s[0].ctx->attr.idle = DR_IDLE_SPIN;
	rc_clock_freeze(false);
	rc_buf_free(src);
	rc_buf_free(dst);
	rc_disconnect(e);
}

static void
test_inline_naps(struct rc_env *e)
{
	struct dr_context *a = e->s[0].ctx;
	const uint64_t spin = rte_get_tsc_hz() / 1000000u * DR_IDLE_SPIN_US;
	struct rc_buf src, dst;
	uint64_t n0;
	double t0;
	int k;

	if (idle_setup(e, &src, &dst) != 0)
		return;
	rc_clock_freeze(true);

	/* the default, DR_IDLE_SPIN: idle calls past any spin time never nap */
	RC_CHECK_EQ(a->attr.idle, DR_IDLE_SPIN);
	RC_CHECK_EQ(write_one(e, &src, &dst, 1), 0);
	n0 = naps(e);
	rc_clock_advance(10 * spin);
	for (k = 0; k < 100; k++)
		dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);

	a->attr.idle = DR_IDLE_SLEEP;
	RC_CHECK_EQ(write_one(e, &src, &dst, 2), 0);
	dr_progress(a);                            /* the spin starts from an idle call's time at the latest */
	n0 = naps(e);
	/* within the spin, on a stopped clock: however many idle calls, no nap */
	for (k = 0; k < 1000; k++)
		dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);
	rc_clock_advance(spin - 1);
	dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);
	/* the spin over: each idle call naps, at least DR_IDLE_SLEEP_US */
	rc_clock_advance(1);
	t0 = now_us();
	for (k = 0; k < 20; k++)
		dr_progress(a);
	RC_CHECK_MSG(now_us() - t0 >= 20 * DR_IDLE_SLEEP_US, "20 naps took %.0f us", now_us() - t0);
	RC_CHECK_EQ(naps(e), n0 + 20);
	/* work (a WRITE sent, its ACK taken) ends the idle time: no nap until a spin passed again */
	RC_CHECK_EQ(write_one(e, &src, &dst, 3), 0);
	n0 = naps(e);
	for (k = 0; k < 100; k++)
		dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);
	rc_clock_advance(spin);
	dr_progress(a);
	RC_CHECK_EQ(naps(e), n0 + 1);

	idle_teardown(e, &src, &dst);
}

static uint64_t fake_wait_ns;

static uint64_t
run_delay_of_test(void)
{
	return fake_wait_ns;
}

/* The thread waited on a run queue @pct % of a look's interval of @ticks (the stopped clock's). */
static void
waited(uint64_t ticks, unsigned int pct)
{
	fake_wait_ns += ticks * 1000u / (rte_get_tsc_hz() / 1000000u) * pct / 100u;
}

/*
 * DR_IDLE_AUTO, on the stopped clock, with the thread's run-queue wait the
 * test's: no nap while the thread waits for its CPU little, however long it
 * idles; nor after one look's interval of waiting much (a burst of the
 * kernel's softirq threads: each look's share weighs a quarter); naps
 * (DR_IDLE_SLEEP's rule) from the look where the average reaches
 * DR_IDLE_AUTO_WAIT_PCT, for DR_IDLE_AUTO_HOLD_US; then no more.
 */
static void
test_auto(struct rc_env *e)
{
	struct dr_context *a = e->s[0].ctx;
	const uint64_t us = rte_get_tsc_hz() / 1000000u, check = us * DR_IDLE_AUTO_CHECK_US;
	struct rc_buf src, dst;
	uint64_t n0;
	int k;

	if (idle_setup(e, &src, &dst) != 0)
		return;
	fake_wait_ns = 1000000;
	dr_idle_run_delay = run_delay_of_test;
	rc_clock_freeze(true);
	a->attr.idle = DR_IDLE_AUTO;
	RC_CHECK_EQ(write_one(e, &src, &dst, 11), 0);
	n0 = naps(e);
	/* its CPU nearly to itself (5 %: softirq work on its own frames): looks every 10 ms, never naps */
	for (k = 0; k < 20; k++) {
		waited(check, 5);
		rc_clock_advance(check);
		dr_progress(a);
		dr_progress(a);
	}
	RC_CHECK_EQ(naps(e), n0);
	/* one interval of 40 %: the average (whole percent, 2 after the 5 %s) goes to (3 * 2 + 40) / 4 = 11 */
	waited(check, 40);
	rc_clock_advance(check);
	dr_progress(a);
	dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);
	/* a second rank on the CPU: 40 % again, (3 * 11 + 40) / 4 = 18, not yet; the next look's 23: naps */
	waited(check, 40);
	rc_clock_advance(check);
	dr_progress(a);
	dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);
	waited(check - 1, 40);
	rc_clock_advance(check - 1);
	dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);      /* no look before its interval is over */
	waited(1, 40);
	rc_clock_advance(1);
	dr_progress(a);
	RC_CHECK_EQ(naps(e), n0 + 1);
	for (k = 0; k < 10; k++)
		dr_progress(a);
	RC_CHECK_EQ(naps(e), n0 + 11);
	/* work: no nap within the spin that follows, as sleep */
	RC_CHECK_EQ(write_one(e, &src, &dst, 12), 0);
	n0 = naps(e);
	dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);
	/* no more waiting: the average falls below (one look, 23 * 3 / 4 = 17), the naps end
	 * DR_IDLE_AUTO_HOLD_US after the look that saw it */
	rc_clock_advance(us * DR_IDLE_AUTO_HOLD_US - check);
	dr_progress(a);
	RC_CHECK_EQ(naps(e), n0 + 1);
	rc_clock_advance(check + 1);
	n0 = naps(e);
	for (k = 0; k < 10; k++)
		dr_progress(a);
	RC_CHECK_EQ(naps(e), n0);

	dr_idle_run_delay = NULL;
	idle_teardown(e, &src, &dst);
}

static void
run(struct rc_env *e)
{
	if (!rc_inline_only("test_engine_idle", "dr_progress() drives nothing there"))
		return;
	test_inline_naps(e);
	test_auto(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_engine_idle", argv[0], 4300, run);
}
