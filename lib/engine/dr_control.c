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
	pthread_t thread;
	bool stop;
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

	if (ctx->attr.mode == DR_PROGRESS_INLINE)
		return 0;
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
	__atomic_store_n(&ctl->stop, true, __ATOMIC_RELEASE);
	sem_post(&ctl->kick);
	pthread_join(ctl->thread, NULL);
	ctx->ctl = NULL;
	sem_destroy(&ctl->kick);
	rte_ring_free(ctl->cmds);
	rte_free(ctl);
}

int
dr_ctl_run(struct dr_context *ctx, int (*fn)(void *arg), void *arg)
{
	struct dr_worker *self = RTE_PER_LCORE(dr_cur_worker);
	struct dr_control *ctl = ctx->ctl;
	struct dr_ctl_cmd cmd = { .fn = fn, .arg = arg };

	if (ctl == NULL || ctl_self == ctx)
		return fn(arg);
	if (self != NULL && self->ctx == ctx) {
		DR_LOG(ctx, ERR, "worker %u: a slow-path call from a worker lcore of its own context",
		       self->id);
		errno = EDEADLK;
		return -EDEADLK;
	}
	sem_init(&cmd.done, 0, 0);
	while (rte_ring_mp_enqueue(ctl->cmds, &cmd) != 0)
		sched_yield();
	sem_post(&ctl->kick);
	sem_wait_intr(&cmd.done);
	sem_destroy(&cmd.done);
	errno = cmd.err;
	return cmd.rc;
}
