/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_ENGINE_H
#define DR_ENGINE_H

/*
 * The engine as the rest of the library sees it: the workers of a context
 * (set up and torn down with it), where objects are placed, how the control
 * side (the application's calls) reaches a worker, and how it waits for the
 * workers to let go of an object before freeing it.
 *
 * Threads (DR_PROGRESS_RTC):
 *   - the application's threads post and poll through SPSC rings (the send
 *     and receive queues, the CQ lanes); their slow-path calls run on the
 *     context's control thread (dr_control.h), one at a time;
 *   - a slow-path call that changes a QP's transport state runs on the QP's
 *     worker (dr_engine_call()), so that state has one writer;
 *   - tables (QPN -> QP, key -> MR / MW) are written by the control side
 *     with release stores and read by the workers without locks; an object
 *     taken out of a table is freed after dr_engine_sync().
 * In DR_PROGRESS_INLINE mode every one of these is a plain call.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_worker.h"

struct dr_context;
struct rte_ring;
struct dr_qp_impl;

/*
 * The time base of the engine threads' run clocks (dr_run_clock.h), in TSC
 * ticks: NULL (the default) is the TSC itself. A test that controls time
 * (the transport tests' wire, test_rc_harness.c) sets it before it opens a
 * context, so that its own stalls are no time to the transport either.
 * Internal: not in the version map.
 */
extern uint64_t (*dr_run_clock_base)(void);

/*
 * DR_IDLE_AUTO's source of the calling thread's run-queue wait, in ns
 * since it started: NULL (the default) is the second field of
 * /proc/thread-self/schedstat (0 where the kernel has none: never shared);
 * a test sets its own. Internal: not in the version map.
 */
extern uint64_t (*dr_idle_run_delay)(void);

/*
 * DR_IDLE_AUTO: does the idle thread of @wk share its CPU (within
 * DR_IDLE_AUTO_HOLD_US of @t, the run clocks' base, its average share of
 * time waiting on a run queue reached DR_IDLE_AUTO_WAIT_PCT)? It looks at
 * most every DR_IDLE_AUTO_CHECK_US.
 */
bool dr_idle_cpu_shared(struct dr_worker *wk, uint64_t t);

/*
 * DR_IDLE_SLEEP's nap: DR_IDLE_SLEEP_US in nanosleep() (the kernel's timer
 * slack may add some), counted in @wk's idle_naps.
 */
void dr_idle_nap(struct dr_worker *wk);

/*
 * Inline mode, DR_IDLE_SLEEP (DR_IDLE_AUTO while the CPU is shared): a
 * dr_progress() call that did @n things at @t (the run clocks' base); one
 * that found no work, DR_IDLE_SPIN_US after the last one that did, naps
 * before it returns, so that a process polling on a CPU it shares (MPI
 * ranks, a busy machine) lets the others run instead of spinning through
 * its scheduler slice.
 */
void dr_idle_inline(struct dr_worker *wk, uint64_t t, int n);

/* The run clocks' base now, given the TSC @tsc the caller read. */
static inline uint64_t
dr_run_clock_base_now(uint64_t tsc)
{
	return dr_run_clock_base != NULL ? dr_run_clock_base() : tsc;
}

/*
 * The bookkeeping of one round of a worker, wherever rounds run (an engine
 * lcore, dr_progress()): dr_wk_round_begin() at TSC @tsc advances the
 * worker's run clock (a stall of an engine lcore is counted, not timed:
 * dr_run_clock.h) and returns it; dr_wk_round_end() raises the completion
 * events of the round's CQ pushes, behind one fence (dr_cq_notify_flush()).
 */
uint64_t dr_wk_round_begin(struct dr_worker *wk, uint64_t tsc);
void dr_wk_round_end(struct dr_worker *wk);

/*
 * Inline mode: a post call found @qp's send queue empty (every earlier WR
 * completed) and posted to it: run its requester and transmit now, as a
 * round would, rather than at the caller's next dr_progress() (a
 * ping-pong's post leaves at once; doc/guides/speed.rst, "Transmit at
 * post"). Nothing in other modes, inside a round, or for a QP not in RTS.
 */
void dr_engine_post_kick(struct dr_qp_impl *qp);

/* Set up the context's workers and rings (before the backend opens the port). 0 or -errno. */
int dr_engine_init(struct dr_context *ctx);
/* After the backend set ctx->nb_rxq / nb_txq: give worker i queue first + i where it exists. */
int dr_engine_assign_queues(struct dr_context *ctx, uint16_t first_rxq, uint16_t first_txq);
/* Free what dr_engine_init() set up (the workers must not run). */
void dr_engine_free(struct dr_context *ctx);
/*
 * A ring of the engine's, named "dr<port>_<what><a>_<b>" (unique per
 * context), on the calling thread's socket; NULL (logged) when it cannot be
 * made.
 */
struct rte_ring *dr_engine_ring_make(const struct dr_context *ctx, const char *what, unsigned int a,
				     unsigned int b, unsigned int size, unsigned int flags);
/* Free a ring of frames and the frames still in it; NULL it. */
void dr_engine_frame_ring_free(struct rte_ring **r);
/* Launch the worker lcores (DR_PROGRESS_RTC; after the port is up) on @lcores
 * (NULL: the first idle EAL workers). 0 or -errno. */
int dr_engine_start(struct dr_context *ctx, const unsigned int *lcores);
/* Stop the worker lcores and wait for them (DR_PROGRESS_RTC; no-op inline). */
void dr_engine_stop(struct dr_context *ctx);

/*
 * Frames the engine's rings and staging arrays of @ctx can hold at once
 * (ctx->nb_workers set; before dr_engine_init()): the context's pool is
 * sized with it (dr_context.c).
 */
uint64_t dr_engine_frames_held(const struct dr_context *ctx);

/* The worker a new QP / SRQ / XRC domain goes to (round robin). */
struct dr_worker *dr_engine_place(struct dr_context *ctx);

/*
 * Run @fn(@arg) on worker @wk and return its result: at once when the
 * caller is that worker or the context is inline, else through the worker's
 * command ring, waiting for it (the call returns when the change is done).
 */
int dr_engine_call(struct dr_worker *wk, int (*fn)(void *arg), void *arg);

/* Wait until every worker has passed a quiescent point (no-op inline). */
void dr_engine_sync(struct dr_context *ctx);

/* Keep @qp on its worker's active list iff its state has transport work (its worker calls this). */
void dr_engine_qp_update(struct dr_qp_impl *qp);
/* Take @qp off its worker's active list (before it is destroyed; its worker calls this). */
void dr_engine_qp_remove(struct dr_qp_impl *qp);

/*
 * Pipeline (dr_engine_pipeline.c). A completion worker parks the other two
 * workers of its group (nested calls count) and releases them; an rx or tx
 * worker calls dr_pipe_park_point() at the top of each round and parks there
 * while asked to. dr_pipe_leader_round(): the completion worker's handed-over
 * failures and slow-path calls, run with the group parked.
 */
void dr_pipe_park(struct dr_worker *leader);
void dr_pipe_release(struct dr_worker *leader);
void dr_pipe_park_point(struct dr_worker *wk);
int dr_pipe_leader_round(struct dr_worker *leader, int (*run_commands)(struct dr_worker *));

/* Worker 0: send the frames control threads queued (dr_ctx_tx() outside a worker). */
int dr_engine_ctl_tx(struct dr_worker *wk);

/* Register the /dr/... telemetry commands (dr_telemetry.c; once per process). */
void dr_telemetry_init(void);

/* The counters of every worker of @ctx added up. */
struct dr_ctx_stats dr_ctx_stats_sum(const struct dr_context *ctx);
/* The stalls of the context's engine threads (their run clocks): count, time left out, longest gap. */
void dr_ctx_stall_sum(const struct dr_context *ctx, uint64_t *stalls, uint64_t *stall_us, uint64_t *max_gap_us);
/* The naps of @ctx's idle threads, every worker's (dr_idle_nap()). */
uint64_t dr_ctx_idle_naps(const struct dr_context *ctx);
/* The port's own counters through its backend (zeros where it has none; dr_counters.c). */
struct dr_backend_port_stats;
void dr_ctx_port_stats(struct dr_context *ctx, struct dr_backend_port_stats *ps);
/* Zero the counters of every worker (tests; while no worker moves frames). */
void dr_ctx_stats_reset(struct dr_context *ctx);

#endif /* DR_ENGINE_H */
