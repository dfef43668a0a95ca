/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The control thread of a context (dr_control.h): a multi-producer ring of
 * commands, a semaphore that wakes the thread when one is queued, and one
 * semaphore per command that wakes its caller when it ran. The thread sleeps
 * while there is nothing to do: it never takes a CPU from the workers.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "dr_context.h"
#include "dr_control.h"
#include "dr_log.h"
#include "dr_worker.h"

#define DR_CTL_RING 256         /* commands queued at once (callers wait for room) */

struct dr_ctl_cmd {
	int (*fn)(void *arg);
	void *arg;
	int rc;
	int err;                /* errno after fn */
	sem_t done;
};

struct dr_control {
	struct dr_context *ctx;
	struct rte_ring *cmds;  /* MP / SC */
	sem_t kick;             /* posted once per queued command, and to stop */
	pthread_t thread;       /* rtc / pipeline: the control thread */
	bool stop;
	/*
	 * Inline: the progress thread, the one calling dr_progress() (claimed
	 * under lock by its first round), which runs the commands other
	 * threads queue; until there is one, a slow-path call runs in its
	 * caller under lock
	 */
	pthread_mutex_t lock;
	pthread_t progress;
	bool progress_known;
};

/* The context whose control thread this is (NULL in every other thread). */
static __thread struct dr_context *ctl_self;

static void
sem_wait_intr(sem_t *s)
{
	while (sem_wait(s) != 0 && errno == EINTR)
		;
}

static void *
ctl_main(void *arg)
{
	struct dr_control *ctl = arg;
	struct dr_ctl_cmd *cmd;

	ctl_self = ctl->ctx;
	for (;;) {
		sem_wait_intr(&ctl->kick);
		while (rte_ring_sc_dequeue(ctl->cmds, (void **)&cmd) == 0) {
			errno = 0;
			cmd->rc = cmd->fn(cmd->arg);
			cmd->err = errno;
			sem_post(&cmd->done);   /* the caller owns cmd again */
		}
		if (__atomic_load_n(&ctl->stop, __ATOMIC_ACQUIRE))
			break;
	}
	return NULL;
}

int
dr_ctl_start(struct dr_context *ctx)
{
	char name[RTE_RING_NAMESIZE];
	struct dr_control *ctl;
	int rc;

	ctl = rte_zmalloc_socket("dr_control", sizeof(*ctl), RTE_CACHE_LINE_SIZE, ctx->socket_id);
	if (ctl == NULL)
		return -ENOMEM;
	ctl->ctx = ctx;
	snprintf(name, sizeof(name), "dr_ctl_%u", ctx->port_id);
	ctl->cmds = rte_ring_create(name, DR_CTL_RING, ctx->socket_id, RING_F_SC_DEQ);
	if (ctl->cmds == NULL) {
		rc = -rte_errno;
		rte_free(ctl);
		return rc;
	}
	if (ctx->attr.mode == DR_PROGRESS_INLINE) {
		/* no thread: the progress thread runs what other threads queue (dr_ctl_inline_run()) */
		pthread_mutex_init(&ctl->lock, NULL);
		ctx->ctl = ctl;
		return 0;
	}
	sem_init(&ctl->kick, 0, 0);
	snprintf(name, sizeof(name), "dr-ctl-%u", ctx->port_id);
	rc = rte_ctrl_thread_create(&ctl->thread, name, NULL, ctl_main, ctl);
	if (rc != 0) {
		DR_LOG(ctx, ERR, "port %u: control thread: %s", ctx->port_id, strerror(rc));
		sem_destroy(&ctl->kick);
		rte_ring_free(ctl->cmds);
		rte_free(ctl);
		return -rc;
	}
	ctx->ctl = ctl;
	return 0;
}

void
dr_ctl_stop(struct dr_context *ctx)
{
	struct dr_control *ctl = ctx->ctl;

	if (ctl == NULL)
		return;
	ctx->ctl = NULL;
	if (ctx->attr.mode == DR_PROGRESS_INLINE) {
		pthread_mutex_destroy(&ctl->lock);
		rte_ring_free(ctl->cmds);
		rte_free(ctl);
		return;
	}
	__atomic_store_n(&ctl->stop, true, __ATOMIC_RELEASE);
	sem_post(&ctl->kick);
	pthread_join(ctl->thread, NULL);
	sem_destroy(&ctl->kick);
	rte_ring_free(ctl->cmds);
	rte_free(ctl);
}

/* Queue @cmd for the thread that runs commands and sleep until it ran. */
static int
ctl_queue_wait(struct dr_control *ctl, struct dr_ctl_cmd *cmd, bool kick)
{
	sem_init(&cmd->done, 0, 0);
	while (rte_ring_mp_enqueue(ctl->cmds, cmd) != 0)
		sched_yield();
	if (kick)
		sem_post(&ctl->kick);
	sem_wait_intr(&cmd->done);
	sem_destroy(&cmd->done);
	errno = cmd->err;
	return cmd->rc;
}

/*
 * Inline: a slow-path call from the progress thread, or from any thread
 * before there is one, runs in the caller, under the lock its claim takes;
 * from another thread it is queued for the progress thread's next round.
 */
static int
ctl_run_inline(struct dr_control *ctl, int (*fn)(void *arg), void *arg)
{
	struct dr_ctl_cmd cmd = { .fn = fn, .arg = arg };
	int rc;

	pthread_mutex_lock(&ctl->lock);
	if (!ctl->progress_known || pthread_equal(ctl->progress, pthread_self())) {
		ctl_self = ctl->ctx;
		rc = fn(arg);
		ctl_self = NULL;
		pthread_mutex_unlock(&ctl->lock);
		return rc;
	}
	pthread_mutex_unlock(&ctl->lock);
	return ctl_queue_wait(ctl, &cmd, false);
}

void
dr_ctl_inline_round(struct dr_context *ctx)
{
	struct dr_control *ctl = ctx->ctl;
	struct dr_ctl_cmd *cmd;

	/* a round driven from inside a slow-path call (it waits for the transport) claims and runs nothing */
	if (ctl == NULL || ctl_self == ctx)
		return;
	if (unlikely(!ctl->progress_known || !pthread_equal(ctl->progress, pthread_self()))) {
		/* this thread drives the context from now on (a slow-path call running elsewhere ends first) */
		pthread_mutex_lock(&ctl->lock);
		ctl->progress = pthread_self();
		ctl->progress_known = true;
		pthread_mutex_unlock(&ctl->lock);
	}
	if (likely(rte_ring_empty(ctl->cmds)))
		return;
	ctl_self = ctx;
	while (rte_ring_sc_dequeue(ctl->cmds, (void **)&cmd) == 0) {
		errno = 0;
		cmd->rc = cmd->fn(cmd->arg);
		cmd->err = errno;
		sem_post(&cmd->done);   /* the caller owns cmd again */
	}
	ctl_self = NULL;
}

int
dr_ctl_run(struct dr_context *ctx, int (*fn)(void *arg), void *arg)
{
	struct dr_worker *self = RTE_PER_LCORE(dr_cur_worker);
	struct dr_control *ctl = ctx->ctl;
	struct dr_ctl_cmd cmd = { .fn = fn, .arg = arg };

	if (ctl == NULL || ctl_self == ctx)
		return fn(arg);
	if (ctx->attr.mode == DR_PROGRESS_INLINE)
		return ctl_run_inline(ctl, fn, arg);
	if (self != NULL && self->ctx == ctx) {
		DR_LOG(ctx, ERR, "worker %u: a slow-path call from a worker lcore of its own context",
		       self->id);
		errno = EDEADLK;
		return -EDEADLK;
	}
	return ctl_queue_wait(ctl, &cmd, true);
}
