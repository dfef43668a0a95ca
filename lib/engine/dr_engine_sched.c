/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * A worker with many active QPs (dr_engine_sched.h). Visiting every
 * connected QP every round made a round's cost grow with the QPs connected:
 * with 16384 QPs each round touched a few cache lines of each, rounds took
 * milliseconds, round trips grew to tens of milliseconds and READs ran into
 * their local ACK timeouts (test_scale_memif.py). A round now visits:
 *
 *  - the QPs whose doorbell rang: the poster queued the QPN on the worker's
 *    MP/SC doorbell ring (a QPN, not a pointer: a QP destroyed meanwhile is
 *    looked up again and not found);
 *  - the hot list: QPs a frame came for this round (rx_one()), or that did
 *    work in their last visit or have some left (a READ reply to stream, a
 *    request held, an ACK owed, a requester stopped by its budget, tx room,
 *    an mbuf or its rate);
 *  - DR_SCHED_SWEEP QPs of the active list from where the last sweep
 *    stopped: every QP's timers (ACK timeout, RTO, RNR wait, keepalive)
 *    and anything the rest missed (a full doorbell ring, a state change)
 *    are seen within num_active / DR_SCHED_SWEEP rounds.
 *
 * Nothing is lost when a QP is not marked: the sweep reaches it. Marking
 * only saves the wait.
 *
 * The doorbell: the poster stores the SQ head (release), then exchanges the
 * QP's doorbell flag to 1 and queues the QPN only if it was 0; the worker
 * exchanges it back to 0 before it visits the QP. Both exchanges are
 * sequentially consistent read-modify-writes on one location: either the
 * poster's comes first in its order and the worker's reads it (and sees the
 * head stored before), or the worker's comes first and the poster finds 0
 * and queues the QP again.
 */

#include <rte_ring.h>

#include "dr_context.h"
#include "dr_engine.h"
#include "dr_engine_sched.h"
#include "dr_transport.h"

/* Work left after a visit that did none: it is visited again next round. */
static inline bool
wants_round(const struct dr_qp_impl *qp)
{
	const struct dr_resp_state *rs = &qp->resp;

	return dr_resp_busy(qp) || rs->ack_pending || rs->atomic_ack_pending || rs->sack_owed ||
	       rs->final_nak_pending || rs->fail_unsent || qp->req.blocked;
}

static void
hot_del(struct dr_worker *wk, struct dr_qp_impl *qp)
{
	TAILQ_REMOVE(&wk->hot, qp, hot_link);
	qp->hot = false;
}

void
dr_sched_update(struct dr_worker *wk)
{
	bool many = wk->role == DR_WK_ALL && wk->num_active > DR_SCHED_ALL_MAX;
	struct dr_qp_impl *qp;

	if (many == wk->many)
		return;
	if (!many) {
		while ((qp = TAILQ_FIRST(&wk->hot)) != NULL)
			hot_del(wk, qp);
		wk->sweep = NULL;
	}
	__atomic_store_n(&wk->many, many, __ATOMIC_RELAXED);
}

void
dr_sched_forget(struct dr_worker *wk, struct dr_qp_impl *qp)
{
	if (wk->sweep == qp)
		wk->sweep = TAILQ_NEXT(qp, wk_link[0]);
	if (qp->hot)
		hot_del(wk, qp);
}

void
dr_sched_doorbell_ring(struct dr_qp_impl *qp)
{
	struct dr_worker *wk = qp->wk;

	if (__atomic_load_n(&qp->doorbell, __ATOMIC_RELAXED) != 0 ||
	    __atomic_exchange_n(&qp->doorbell, 1, __ATOMIC_SEQ_CST) != 0)
		return;                       /* queued already: its visit reads the new head */
	if (rte_ring_mp_enqueue(wk->doorbell, (void *)(uintptr_t)qp->pub.qp_num) != 0)
		__atomic_store_n(&qp->doorbell, 0, __ATOMIC_RELAXED);   /* full: the sweep finds it */
}

/* The QPs posted to since the last round, on the hot list. */
static void
take_doorbells(struct dr_worker *wk)
{
	void *qpns[DR_BURST];
	unsigned int n, i;

	do {
		n = rte_ring_sc_dequeue_burst(wk->doorbell, qpns, DR_BURST, NULL);
		for (i = 0; i < n; i++) {
			struct dr_qp_impl *qp = dr_qp_lookup(wk->ctx, (uint32_t)(uintptr_t)qpns[i]);

			if (qp == NULL || qp->wk != wk)
				continue;             /* destroyed meanwhile (its number may be reused) */
			(void)__atomic_exchange_n(&qp->doorbell, 0, __ATOMIC_SEQ_CST);
			dr_sched_mark(wk, qp);
		}
	} while (n == DR_BURST);
}

int
dr_sched_round(struct dr_worker *wk, uint64_t now)
{
	struct dr_qp_impl *qp, *next;
	unsigned int k;
	int n = 0;

	take_doorbells(wk);
	/* the hot list (a QP a visit marks - a state change - goes to its tail: this round too) */
	for (qp = TAILQ_FIRST(&wk->hot); qp != NULL; qp = next) {
		int w = dr_engine_visit(qp, now);

		next = TAILQ_NEXT(qp, hot_link);
		if (w == 0 && !wants_round(qp))
			hot_del(wk, qp);
		n += w;
	}
	/* the sweep: the timers of the others */
	qp = wk->sweep != NULL ? wk->sweep : TAILQ_FIRST(&wk->active);
	for (k = 0; k < DR_SCHED_SWEEP && qp != NULL; k++) {
		next = TAILQ_NEXT(qp, wk_link[0]);
		if (next == NULL)
			next = TAILQ_FIRST(&wk->active);
		if (!qp->hot) {
			int w = dr_engine_visit(qp, now);

			if (w != 0 || wants_round(qp))
				dr_sched_mark(wk, qp);
			n += w;
		}
		qp = next;
	}
	wk->sweep = qp;
	return n;
}
