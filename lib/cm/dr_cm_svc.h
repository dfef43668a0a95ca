/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_SVC_H
#define DR_CM_SVC_H

/*
 * The connection manager of a context: QP1 (dr_gsi.h), the agent
 * (dr_cm_agent.h) that routes its MADs, and who drives them. Inline, the
 * application's thread does, from dr_progress() (every DR_CM_POLL_US at
 * most: the fast path pays a compare); in rtc and pipeline mode a thread of
 * the control side does, asleep on QP1's completion channel and the
 * agent's next timer. One lock serialises the agent, QP1 and their owner
 * (the rdma_cm layer): the slow path, never taken by a worker.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "dr_cm_agent.h"
#include "dr_gsi.h"

#define DR_CM_POLL_US 50         /* inline: dr_progress() runs the CM at most this often */
#define DR_CM_MAX_CONNS 4096     /* connections of a context at once (time wait included) */
#define DR_CM_MAX_LISTENERS 64
#define DR_CM_MAX_SIDR 64
#define DR_CM_LINGER_MS 1000     /* at close: what the CM owes the wire goes out, this long at most */

struct dr_cm_svc;

/** The owner's side of the agent's callbacks, called with the service locked. */
struct dr_cm_svc_ops {
	void (*req)(struct dr_cm_svc *s, void *listener, const struct dr_cm_peer *from, const uint8_t *mad);
	void (*event)(struct dr_cm_svc *s, struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad);
	void (*sidr_req)(struct dr_cm_svc *s, void *listener, const struct dr_cm_peer *from, const uint8_t *mad);
	void (*sidr_rep)(struct dr_cm_svc *s, void *user, const uint8_t *mad);
	/** After each pass over QP1 and the timers (NULL: none). */
	void (*tick)(struct dr_cm_svc *s, uint64_t now);
};

/** Counters of the service (beside the agent's and QP1's). */
struct dr_cm_svc_stats {
	uint64_t polls;          /**< passes over QP1 and the timers */
	uint64_t tx_dropped;     /**< MADs QP1 could not send (the CM's retries cover them) */
};

/** The service of a context; its fields are its own. */
struct dr_cm_svc {
	struct dr_context *ctx;
	struct dr_gsi gsi;
	struct dr_cm_agent agent;
	const struct dr_cm_svc_ops *ops;
	void *owner;
	pthread_mutex_t lock;
	struct dr_comp_channel *chan;   /* engine modes: QP1's CQ wakes the thread */
	int wake_fd;                    /* engine modes: an eventfd that stops the thread */
	pthread_t thread;
	bool threaded;
	volatile bool stop;
	bool polling;                   /* inline: QP1's CQ poll drives dr_progress() again */
	uint64_t poll_cycles;           /* DR_CM_POLL_US in TSC cycles */
	void *rtu_waiters;              /* the owner's: passive connections whose RTU has not come */
	struct dr_cm_svc_stats stats;
};

/**
 * Start the connection manager of @ctx for @owner (its callbacks @ops): QP1,
 * the agent, the thread or the inline hook. 0, -EEXIST (it runs), -errno.
 */
int dr_cm_svc_start(struct dr_context *ctx, const struct dr_cm_svc_ops *ops, void *owner);

/** The service of @ctx, or NULL. */
struct dr_cm_svc *dr_cm_svc_of(struct dr_context *ctx);

/** Stop it (dr_close_device() does): its thread, its connections without a word, QP1. */
void dr_cm_svc_stop(struct dr_context *ctx);

/** Now, in ns, on the clock of every CM timer (the TSC). */
uint64_t dr_cm_svc_now(void);

void dr_cm_svc_lock(struct dr_cm_svc *s);
void dr_cm_svc_unlock(struct dr_cm_svc *s);

/* dr_cm_telemetry.c: /dr/cm/stats (registered once, at the first service's start) */
void dr_cm_telemetry_init(void);

#endif /* DR_CM_SVC_H */
