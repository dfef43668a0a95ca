/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CONTROL_H
#define DR_CONTROL_H

/*
 * The control side of a context (dr_control.c). In DR_PROGRESS_RTC and
 * DR_PROGRESS_PIPELINE mode a DPDK control thread per context ("dr-ctl-<port>",
 * rte_ctrl_thread_create(): on the CPUs outside the EAL lcore list, or the
 * main lcore's when there are none) owns object creation, modification and
 * destruction. Every slow-path call of the API is a command: the calling
 * thread queues it on the control thread's multi-producer ring and sleeps
 * until it ran, so any number of application threads may make slow-path
 * calls at once and each call still returns when its change is visible to
 * the workers. In DR_PROGRESS_INLINE mode the thread that calls
 * dr_progress() (the progress thread) is the control side: its slow-path
 * calls are plain calls, and another thread's (a network function's
 * control thread) are queued and run at the start of the progress
 * thread's next round while the caller sleeps (dr_ctl_inline_round()).
 */

struct dr_context;

/* Start the control side of @ctx: its thread (rtc / pipeline), its queue (inline). 0 or -errno. */
int dr_ctl_start(struct dr_context *ctx);
/* Stop it and wait for it (no command may be in flight). */
void dr_ctl_stop(struct dr_context *ctx);

/*
 * Run @fn(@arg) as @ctx's control side and return its result, with errno as
 * @fn left it: in the caller when it is the control side already (the
 * control thread, a call made from a command, an inline context's progress
 * thread or any thread before it has one), else on the control side
 * (inline: at the progress thread's next round; the caller sleeps). From a worker lcore of @ctx it fails with -EDEADLK (errno too): the
 * command may have to wait for that very worker (dr_engine_call(),
 * dr_engine_sync()).
 */
int dr_ctl_run(struct dr_context *ctx, int (*fn)(void *arg), void *arg);
/*
 * Inline mode, at the start of each round: the calling thread becomes the
 * progress thread, and runs the slow-path calls other threads queued.
 */
void dr_ctl_inline_round(struct dr_context *ctx);

#endif /* DR_CONTROL_H */
