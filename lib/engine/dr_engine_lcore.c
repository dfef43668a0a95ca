/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The engine's lcores. DR_PROGRESS_RTC: each worker is an EAL lcore running
 * every stage for its QPs (run to completion, the shape of Marvell DAO's
 * graph workers, Machnet's engines and TAS's fast path). One round of a
 * worker:
 *
 *   commands   slow-path calls other threads queued for it (dr_engine_call())
 *   rx         its rx queue, then the frames other workers redirected to it
 *   QPs        timers, responder, requester, completer of its active QPs
 *   tx         worker 0 also sends what control threads and queue-less
 *              workers handed it, and watches the link
 *   quiescent  rte_rcu_qsbr: it holds no pointer into the object tables
 *
 * then, if the round found no work, its idle policy (spin, pause, yield,
 * sleep, auto).
 * DR_PROGRESS_PIPELINE: the same loop, each worker doing its role's part
 * of the round (pipeline_round(); dr_engine_pipeline.c).
 */

#include <errno.h>
#include <sched.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "dr_context.h"
#include "dr_engine.h"
#include "dr_log.h"
#include "dr_transport.h"

/* Run the commands queued for @wk; returns how many. */
static int
run_commands(struct dr_worker *wk)
{
	struct dr_engine_cmd *cmd;
	int n = 0;

	while (rte_ring_sc_dequeue(wk->cmd, (void **)&cmd) == 0) {
		cmd->rc = cmd->fn(cmd->arg);
		__atomic_store_n(&cmd->done, 1, __ATOMIC_RELEASE);
		n++;
	}
	return n;
}

/*
 * The worker found no work in the round that began at @t0 (idle since
 * @idle_since): its policy's wait. DR_IDLE_SLEEP spins DR_IDLE_SPIN_US
 * after the last busy round (a reply often comes within a round trip),
 * then sleeps: the time slept stays below DR_STALL_CAP_US with the
 * kernel's timer slack, so the run clock counts it whole.
 */
static void
idle(struct dr_worker *wk, enum dr_idle_policy policy, uint64_t t0, uint64_t idle_since, uint64_t spin_ticks)
{
	/* auto: sleep's while the lcore shares its CPU (it was preempted lately), else spin's */
	if (policy == DR_IDLE_AUTO)
		policy = dr_idle_cpu_shared(wk, dr_run_clock_base_now(t0)) ? DR_IDLE_SLEEP : DR_IDLE_SPIN;
	switch (policy) {
	case DR_IDLE_PAUSE:
		rte_pause();
		break;
	case DR_IDLE_YIELD:
		sched_yield();
		break;
	case DR_IDLE_SLEEP:
		if (t0 - idle_since < spin_ticks)
			sched_yield();
		else
			dr_idle_nap(wk);
		break;
	case DR_IDLE_SPIN:
	default:
		break;
	}
}

/*
 * One round of a worker of a pipeline group; returns the work done. @now is
 * the worker's run clock (the QPs' timers), @tsc the TSC (the port's watch).
 */
static int
pipeline_round(struct dr_worker *wk, uint64_t now, uint64_t tsc)
{
	int n = 0;

	switch (wk->role) {
	case DR_WK_RX:
		dr_pipe_park_point(wk);
		n += dr_engine_rx(wk);
		n += dr_engine_qps(wk, now);
		if (wk->id == 0) {
			n += dr_engine_ctl_tx(wk);       /* frames of control threads: on to the tx worker */
			dr_port_watch(wk->ctx, tsc);
		}
		break;
	case DR_WK_TX:
		dr_pipe_park_point(wk);
		n += dr_engine_ctl_tx(wk);               /* what the rx and completion workers built */
		n += dr_engine_qps(wk, now);
		break;
	case DR_WK_COMP:
	default:
		n += dr_pipe_leader_round(wk, run_commands);
		n += dr_engine_rx(wk);                   /* responses the rx worker handed over */
		n += dr_engine_qps(wk, now);
		break;
	}
	dr_wk_tx_flush(wk);
	return n;
}

/* One round of a run-to-completion worker (@now, @tsc: as pipeline_round()'s). */
static int
rtc_round(struct dr_worker *wk, uint64_t now, uint64_t tsc)
{
	int n = run_commands(wk);

	n += dr_engine_rx(wk);
	n += dr_engine_qps(wk, now);
	if (wk->id == 0) {
		n += dr_engine_ctl_tx(wk);
		dr_port_watch(wk->ctx, tsc);
	}
	dr_wk_tx_flush(wk);
	return n;
}

static int
worker_main(void *arg)
{
	struct dr_worker *wk = arg;
	struct dr_context *ctx = wk->ctx;
	enum dr_idle_policy policy = ctx->attr.idle;
	uint64_t t0, t1, idle_since;
	const uint64_t spin_ticks = rte_get_tsc_hz() / 1000000u * DR_IDLE_SPIN_US;   /* DR_IDLE_SLEEP's */

	RTE_PER_LCORE(dr_cur_worker) = wk;
	(void)rte_rcu_qsbr_thread_register(ctx->rcu, wk->id);
	rte_rcu_qsbr_thread_online(ctx->rcu, wk->id);
	t0 = rte_rdtsc();
	idle_since = t0;
	while (!__atomic_load_n(&wk->stop, __ATOMIC_ACQUIRE)) {
		/* the QPs' timers run on the worker's run clock: a stall of ours is no loss */
		uint64_t now = dr_wk_round_begin(wk, t0);
		int n;

		n = wk->role == DR_WK_ALL ? rtc_round(wk, now, t0) : pipeline_round(wk, now, t0);
		dr_wk_round_end(wk);            /* the events of this round's completions, one fence */

		rte_rcu_qsbr_quiescent(ctx->rcu, wk->id);

		t1 = rte_rdtsc();
		wk->lstats.loops++;
		if (n != 0) {
			wk->lstats.busy_loops++;
			wk->lstats.busy_cycles += t1 - t0;
			idle_since = t1;
		} else {
			wk->lstats.idle_cycles += t1 - t0;
			idle(wk, policy, t0, idle_since, spin_ticks);
			t1 = rte_rdtsc();
		}
		t0 = t1;
	}
	/* the last commands (a destroy racing the close) still get an answer */
	__atomic_store_n(&wk->gone, true, __ATOMIC_RELEASE);
	if (wk->role == DR_WK_ALL || wk->role == DR_WK_COMP)
		(void)run_commands(wk);
	dr_wk_tx_flush(wk);
	rte_rcu_qsbr_thread_offline(ctx->rcu, wk->id);
	(void)rte_rcu_qsbr_thread_unregister(ctx->rcu, wk->id);
	RTE_PER_LCORE(dr_cur_worker) = NULL;
	return 0;
}

/* The lcores the workers run on: the attribute's, or the first idle EAL workers. */
static int
pick_lcores(struct dr_context *ctx, const unsigned int *want)
{
	unsigned int lcore, i, j, n = 0;

	if (want != NULL) {
		for (i = 0; i < ctx->nb_workers; i++) {
			lcore = want[i];
			if (lcore >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcore) ||
			    lcore == rte_get_main_lcore() || rte_eal_get_lcore_state(lcore) != WAIT) {
				DR_LOG(ctx, ERR, "worker %u: lcore %u is not an idle EAL worker lcore", i, lcore);
				return -EINVAL;
			}
			for (j = 0; j < i; j++) {
				if (want[j] == lcore) {
					DR_LOG(ctx, ERR, "workers %u and %u: the same lcore %u", j, i, lcore);
					return -EINVAL;
				}
			}
			ctx->wk[i].lcore = lcore;
		}
		return 0;
	}
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (n == ctx->nb_workers)
			break;
		if (rte_eal_get_lcore_state(lcore) != WAIT)
			continue;
		ctx->wk[n++].lcore = lcore;
	}
	if (n < ctx->nb_workers) {
		DR_LOG(ctx, ERR, "%u worker lcores wanted, %u idle EAL worker lcores (give EAL more with -l / --lcores)",
		       ctx->nb_workers, n);
		return -EBUSY;
	}
	return 0;
}

int
dr_engine_start(struct dr_context *ctx, const unsigned int *lcores)
{
	size_t sz;
	uint16_t i;
	int rc;

	if (ctx->attr.mode == DR_PROGRESS_INLINE)
		return 0;
	rc = pick_lcores(ctx, lcores);
	if (rc != 0)
		return rc;
	sz = rte_rcu_qsbr_get_memsize(ctx->nb_workers);
	ctx->rcu = rte_zmalloc("dr_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (ctx->rcu == NULL)
		return -ENOMEM;
	rc = rte_rcu_qsbr_init(ctx->rcu, ctx->nb_workers);
	if (rc != 0) {
		rte_free(ctx->rcu);
		ctx->rcu = NULL;
		return -EINVAL;
	}
	for (i = 0; i < ctx->nb_workers; i++) {
		rc = rte_eal_remote_launch(worker_main, &ctx->wk[i], ctx->wk[i].lcore);
		if (rc != 0) {
			DR_LOG(ctx, ERR, "worker %u: launch on lcore %u: %s", i, ctx->wk[i].lcore, rte_strerror(-rc));
			dr_engine_stop(ctx);
			return rc;
		}
		ctx->wk[i].launched = true;
	}
	DR_LOG(ctx, INFO, "%s: %u %s, %u rx / %u tx queues, idle %s", ctx->device.name, ctx->nb_groups,
	       ctx->attr.mode == DR_PROGRESS_PIPELINE ? "pipeline groups (rx, tx, completion lcores)" :
	       "run-to-completion workers", ctx->nb_rxq, ctx->nb_txq,
	       ctx->attr.idle == DR_IDLE_YIELD ? "yield" : ctx->attr.idle == DR_IDLE_PAUSE ? "pause" :
	       ctx->attr.idle == DR_IDLE_SLEEP ? "sleep" : ctx->attr.idle == DR_IDLE_AUTO ? "auto" : "spin");
	return 0;
}

void
dr_engine_stop(struct dr_context *ctx)
{
	uint16_t i;

	if (ctx->wk == NULL)
		return;
	for (i = 0; i < ctx->nb_workers; i++)
		__atomic_store_n(&ctx->wk[i].stop, true, __ATOMIC_RELEASE);
	for (i = 0; i < ctx->nb_workers; i++) {
		if (!ctx->wk[i].launched)
			continue;
		(void)rte_eal_wait_lcore(ctx->wk[i].lcore);
		ctx->wk[i].launched = false;
	}
	rte_free(ctx->rcu);
	ctx->rcu = NULL;
}

int
dr_stop_workers(struct dr_context *ctx)
{
	if (ctx == NULL)
		return -EINVAL;
	if (ctx->cm_linger != NULL)
		ctx->cm_linger(ctx);
	dr_engine_stop(ctx);
	return 0;
}

/* Wait for another lcore without holding our CPU (lcores may share one: --lcores '(1-2)@1'). */
static inline void
wait_a_little(void)
{
	sched_yield();
}

int
dr_engine_call(struct dr_worker *wk, int (*fn)(void *arg), void *arg)
{
	struct dr_engine_cmd cmd = { .fn = fn, .arg = arg };
	struct dr_worker *self = RTE_PER_LCORE(dr_cur_worker);

	/* a pipeline group's calls run on its completion worker, the other two parked */
	wk = wk->grp[DR_WK_COMP];
	if (wk->ctx->attr.mode == DR_PROGRESS_INLINE || !wk->launched)
		return fn(arg);
	if (self == wk) {
		int rc;

		if (wk->role == DR_WK_ALL)
			return fn(arg);
		dr_pipe_park(wk);
		rc = fn(arg);
		dr_pipe_release(wk);
		return rc;
	}
	if (self != NULL && self->ctx == wk->ctx && self->grp[DR_WK_COMP] == wk) {
		/* a parked-to-be worker cannot wait for the one that parks it */
		DR_LOG(ctx, ERR, "worker %u: a slow-path call from its own pipeline group", self->id);
		return -EDEADLK;
	}
	while (rte_ring_mp_enqueue(wk->cmd, &cmd) != 0)
		wait_a_little();
	while (!__atomic_load_n(&cmd.done, __ATOMIC_ACQUIRE))
		wait_a_little();
	return cmd.rc;
}

void
dr_engine_sync(struct dr_context *ctx)
{
	struct dr_worker *self = RTE_PER_LCORE(dr_cur_worker);
	uint64_t token;

	if (ctx->rcu == NULL)
		return;
	/* a worker waiting on the others is itself quiescent here */
	if (self != NULL && self->ctx == ctx)
		rte_rcu_qsbr_quiescent(ctx->rcu, self->id);
	token = rte_rcu_qsbr_start(ctx->rcu);
	while (rte_rcu_qsbr_check(ctx->rcu, token, false) != 1) {
		if (self != NULL && self->ctx == ctx)
			rte_rcu_qsbr_quiescent(ctx->rcu, self->id);
		wait_a_little();
	}
}
