/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * DR_PROGRESS_PIPELINE: groups of three worker lcores, each stage of every
 * QP of the group on one of them (dr_worker.h):
 *
 *   rx lcore     rx queue -> checks, ICRC -> responder (requests; its ACKs,
 *                NAKs and READ responses go to the tx lcore)
 *                                         -> responses -> completion lcore
 *   tx lcore     requester -> tx queue; and the frames the other two built
 *   completion   completer: responses, ACK / RNR timers, CQEs; go-back-N
 *   lcore        and credits back to the requester through dr_handoff.h
 *
 * Frames cross over SPSC rings (the redirect and txq_in rings of dr_worker.h,
 * burst-dequeued); stage state crosses through the release/acquire hand-offs
 * of dr_handoff.h only.
 *
 * What touches every stage of a QP at once - the slow-path calls (modify,
 * query, destroy: dr_engine_call()) and the move to ERR after an error -
 * runs on the completion lcore while the group's rx and tx lcores are
 * parked: it asks them to park (an odd pause_seq), each acknowledges at the
 * top of its round, outside any stage, and goes offline for RCU while it
 * waits. Between two parkings each of them runs at least one round, so a
 * stream of slow-path calls slows the group down but never stops it. No
 * lock is taken on the fast path: parking costs its peers one load per round.
 */

#include <sched.h>

#include <rte_rcu_qsbr.h>

#include "dr_context.h"
#include "dr_engine.h"
#include "dr_log.h"
#include "dr_transport.h"

/* Park the other two workers of the completion worker @leader's group (nests). */
void
dr_pipe_park(struct dr_worker *leader)
{
	unsigned int r;

	if (leader->park_depth++ != 0)
		return;
	for (r = 0; r < DR_WK_COMP; r++) {
		struct dr_worker *f = leader->grp[r];
		uint32_t seq = f->pause_seq + 1;         /* odd: park */

		/*
		 * Not before it ran a whole round since the last release:
		 * back-to-back slow-path calls (several application threads
		 * through the control thread) would otherwise keep rx and tx
		 * parked until ACK timers ran out of retries.
		 */
		while (__atomic_load_n(&f->pause_seen, __ATOMIC_ACQUIRE) != f->pause_seq &&
		       !__atomic_load_n(&f->gone, __ATOMIC_ACQUIRE))
			sched_yield();

		__atomic_store_n(&f->pause_seq, seq, __ATOMIC_RELEASE);
		while (__atomic_load_n(&f->pause_ack, __ATOMIC_ACQUIRE) != seq &&
		       !__atomic_load_n(&f->gone, __ATOMIC_ACQUIRE))
			sched_yield();                   /* it may share our CPU */
	}
}

void
dr_pipe_release(struct dr_worker *leader)
{
	unsigned int r;

	if (--leader->park_depth != 0)
		return;
	for (r = 0; r < DR_WK_COMP; r++) {
		struct dr_worker *f = leader->grp[r];

		__atomic_store_n(&f->pause_seq, f->pause_seq + 1, __ATOMIC_RELEASE);   /* even: go */
	}
}

void
dr_pipe_park_point(struct dr_worker *wk)
{
	struct dr_context *ctx = wk->ctx;
	uint32_t seq = __atomic_load_n(&wk->pause_seq, __ATOMIC_ACQUIRE);

	if (likely((seq & 1) == 0)) {
		if (unlikely(seq != wk->pause_seen))        /* a round begun since the release */
			__atomic_store_n(&wk->pause_seen, seq, __ATOMIC_RELEASE);
		return;
	}
	rte_rcu_qsbr_thread_offline(ctx->rcu, wk->id);   /* holds nothing: sync need not wait */
	while (seq & 1) {
		__atomic_store_n(&wk->pause_ack, seq, __ATOMIC_RELEASE);
		while (__atomic_load_n(&wk->pause_seq, __ATOMIC_ACQUIRE) == seq &&
		       !__atomic_load_n(&wk->stop, __ATOMIC_ACQUIRE))
			sched_yield();
		if (__atomic_load_n(&wk->stop, __ATOMIC_ACQUIRE))
			break;
		seq = __atomic_load_n(&wk->pause_seq, __ATOMIC_ACQUIRE);
	}
	rte_rcu_qsbr_thread_online(ctx->rcu, wk->id);
}

/* The move to ERR itself: the finished sends complete first when asked, then everything flushes. */
static void
fail_now(struct dr_qp_impl *qp, bool complete_sends)
{
	if (qp->pub.state == DR_QPS_ERR || qp->pub.state == DR_QPS_RESET)
		return;                 /* a slow-path call got there first */
	if (complete_sends)
		dr_comp_progress(qp);
	dr_qp_to_error(qp);
}

void
dr_qp_fail(struct dr_qp_impl *qp, bool complete_sends)
{
	struct dr_worker *self = RTE_PER_LCORE(dr_cur_worker);

	if (qp->wk->role == DR_WK_ALL || self == NULL || self->ctx != qp->pub.context) {
		fail_now(qp, complete_sends);         /* one thread runs every stage of it */
		return;
	}
	if (self->role == DR_WK_COMP) {
		dr_pipe_park(self);
		fail_now(qp, complete_sends);
		dr_pipe_release(self);
		return;
	}
	/* the responder, on the rx lcore: the completion lcore does it; take nothing meanwhile */
	qp->resp.failing = true;
	qp->resp.fail_complete = complete_sends;
	dr_qp_fail_retry(qp);
}

void
dr_qp_fail_retry(struct dr_qp_impl *qp)
{
	struct dr_worker *comp = qp->wk->grp[DR_WK_COMP];

	qp->resp.fail_unsent = rte_ring_sp_enqueue(comp->fail_in, qp) != 0;
}

/* The completion worker: QPs its rx worker handed over to fail (the group is parked). */
static int
fail_handed(struct dr_worker *leader)
{
	struct dr_qp_impl *qp;
	int n = 0;

	while (rte_ring_sc_dequeue(leader->fail_in, (void **)&qp) == 0) {
		fail_now(qp, qp->resp.fail_complete);
		n++;
	}
	return n;
}

int
dr_pipe_leader_round(struct dr_worker *leader, int (*run_commands)(struct dr_worker *))
{
	int n;

	if (rte_ring_empty(leader->fail_in) && rte_ring_empty(leader->cmd))
		return 0;
	dr_pipe_park(leader);
	/* handed-over failures first: a command after them may destroy the QP */
	n = fail_handed(leader);
	n += run_commands(leader);
	dr_pipe_release(leader);
	return n;
}
