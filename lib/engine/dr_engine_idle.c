/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * What an idle worker does (enum dr_idle_policy), for inline progress and
 * for lcores alike: DR_IDLE_AUTO's test of a shared CPU (the thread's time
 * waiting on a run queue) and DR_IDLE_SLEEP's nap. The lcores' choice
 * among the policies is their loop's (dr_engine_lcore.c); the inline rule
 * is dr_idle_inline().
 */

#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "dr_engine.h"

uint64_t (*dr_idle_run_delay)(void);

static uint64_t
thread_run_delay(void)
{
	unsigned long long run, wait;
	char buf[96];
	ssize_t n;
	int fd;

	if (dr_idle_run_delay != NULL)
		return dr_idle_run_delay();
	/* "run-time wait-time timeslices" of the calling thread (the kernel's sched/stats.c) */
	fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (uint64_t)wait : 0;
}

bool
dr_idle_cpu_shared(struct dr_worker *wk, uint64_t t)
{
	const uint64_t us = rte_get_tsc_hz() / 1000000u;

	if (wk->auto_checked == 0 || t - wk->auto_checked >= us * DR_IDLE_AUTO_CHECK_US) {
		uint64_t w = thread_run_delay();

		/*
		 * The first look only reads; then the share of the interval since
		 * the last one that the thread spent runnable but not running,
		 * averaged with the earlier looks' (3/4 theirs): a CPU shared with
		 * another task takes a third or more of it, look after look; the
		 * kernel's softirq threads at work on our own frames take a few
		 * percent, in bursts that one look cannot turn into naps.
		 */
		if (wk->auto_checked != 0 && t > wk->auto_checked) {
			uint64_t span_ns = (t - wk->auto_checked) * 1000u / us;
			uint64_t pct = w > wk->auto_wait_ns && span_ns != 0 ? (w - wk->auto_wait_ns) * 100u / span_ns : 0;

			wk->auto_wait_pct = (uint32_t)((3u * wk->auto_wait_pct + RTE_MIN(pct, (uint64_t)100)) / 4u);
			if (wk->auto_wait_pct >= DR_IDLE_AUTO_WAIT_PCT)
				wk->auto_shared_until = t + us * DR_IDLE_AUTO_HOLD_US;
		}
		wk->auto_wait_ns = w;
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
