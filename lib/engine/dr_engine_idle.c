/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * What an idle worker does (enum dr_idle_policy), for inline progress and
 * for lcores alike: DR_IDLE_AUTO's test of a shared CPU and DR_IDLE_SLEEP's
 * nap. The lcores' choice among the policies is their loop's
 * (dr_engine_lcore.c); the inline rule is dr_idle_inline().
 */

#include <time.h>
#include <sys/resource.h>

#include <rte_cycles.h>

#include "dr_engine.h"

long (*dr_idle_nivcsw)(void);

static long
thread_nivcsw(void)
{
	struct rusage ru;

	if (dr_idle_nivcsw != NULL)
		return dr_idle_nivcsw();
	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

bool
dr_idle_cpu_shared(struct dr_worker *wk, uint64_t t)
{
	const uint64_t us = rte_get_tsc_hz() / 1000000u;

	if (wk->auto_checked == 0 || t - wk->auto_checked >= us * DR_IDLE_AUTO_CHECK_US) {
		long v = thread_nivcsw();

		/*
		 * The first look only counts; then the involuntary switches since
		 * the last one, at their rate (a busy thread looks late): as many
		 * as DR_IDLE_AUTO_SWITCHES per DR_IDLE_AUTO_CHECK_US is a CPU shared
		 * with another task, fewer the kernel's own threads passing by.
		 */
		if (wk->auto_checked != 0 && v > wk->auto_nivcsw &&
		    (uint64_t)(v - wk->auto_nivcsw) * us * DR_IDLE_AUTO_CHECK_US >=
		    (uint64_t)DR_IDLE_AUTO_SWITCHES * (t - wk->auto_checked))
			wk->auto_shared_until = t + us * DR_IDLE_AUTO_HOLD_US;
		wk->auto_nivcsw = v;
		wk->auto_checked = t != 0 ? t : 1;
	}
	return t < wk->auto_shared_until;
}

void
dr_idle_nap(struct dr_worker *wk)
{
	static const struct timespec nap = { .tv_sec = 0, .tv_nsec = DR_IDLE_SLEEP_US * 1000 };

	(void)nanosleep(&nap, NULL);
	wk->lstats.idle_naps++;
}

void
dr_idle_inline(struct dr_worker *wk, uint64_t t, int n)
{
	if (n != 0 || wk->idle_since == 0) {
		wk->idle_since = t;
		return;
	}
	if (t - wk->idle_since >= rte_get_tsc_hz() / 1000000u * DR_IDLE_SPIN_US)
		dr_idle_nap(wk);
}
