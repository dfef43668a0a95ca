/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_ENGINE_SCHED_H
#define DR_ENGINE_SCHED_H

/*
 * Which QPs a round of a DR_WK_ALL worker visits (dr_engine_sched.c). Up to
 * DR_SCHED_ALL_MAX active QPs, every one, every round. Beyond, a round
 * costs what happens, not how many QPs are connected: it visits the hot
 * list - QPs a frame came for (rx), the application posted to (the
 * doorbell), or that had work left after their last visit - and sweeps
 * DR_SCHED_SWEEP of the other active QPs, so that every QP's timers run at
 * least once every num_active / DR_SCHED_SWEEP rounds.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_qp_impl.h"
#include "dr_worker.h"

#define DR_SCHED_ALL_MAX 256          /* active QPs up to which every round visits all */
#define DR_SCHED_SWEEP 64             /* QPs off the hot list a round visits for their timers */
#define DR_SCHED_DOORBELLS 4096       /* QPs posted to a worker holds at once (more: the sweep) */

/* A QP's turn in a round (timers, responder, requester, completer): the work it did. */
int dr_engine_visit(struct dr_qp_impl *qp, uint64_t now);

/* The active QPs of @wk worth a visit this round, visited (many QPs); the work done. */
int dr_sched_round(struct dr_worker *wk, uint64_t now);

/* @qp (of @wk, active) on the hot list: its next round visits it. */
static inline void
dr_sched_mark(struct dr_worker *wk, struct dr_qp_impl *qp)
{
	if (!qp->hot && qp->active) {
		qp->hot = true;
		TAILQ_INSERT_TAIL(&wk->hot, qp, hot_link);
	}
}

/* After @wk's active list changed: many QPs or not (its worker calls this). */
void dr_sched_update(struct dr_worker *wk);
/* @qp leaves @wk's active list: off the hot list and the sweep (its worker calls this). */
void dr_sched_forget(struct dr_worker *wk, struct dr_qp_impl *qp);

/*
 * The poster, after it published send WRs on @qp: when its worker runs many
 * QPs, the QP is queued for its next round (once, until that round takes it).
 */
void dr_sched_doorbell_ring(struct dr_qp_impl *qp);

static inline void
dr_sched_doorbell(struct dr_qp_impl *qp)
{
	if (unlikely(__atomic_load_n(&qp->wk->many, __ATOMIC_RELAXED)))
		dr_sched_doorbell_ring(qp);
}

#endif /* DR_ENGINE_SCHED_H */
