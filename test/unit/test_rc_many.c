/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 *
 * A worker with many active QPs (lib/engine/dr_engine_sched.c): beyond
 * DR_SCHED_ALL_MAX a round visits the QPs a frame came for, the QPs posted
 * to (the doorbell) and those with work left, and sweeps DR_SCHED_SWEEP of
 * the others for their timers. Between two contexts with NPAIRS connected
 * pairs:
 *
 *  - every pair moves a checked WRITE and READs it back (every mode; in
 *    pipeline mode every round still visits every QP);
 *  - inline, step by step: an idle worker's hot list empties; a WR posted
 *    to the QP the sweep just passed goes out in the very next round (its
 *    doorbell), not a sweep later; a lost request of a QP nobody marks is
 *    recovered by its timer within one sweep of rounds on a stopped clock;
 *    a QP destroyed with its doorbell queued is skipped; with the pairs
 *    gone the worker visits every QP every round again.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dr_engine_sched.h"
#include "test_rc.h"

#define NPAIRS 600        /* two rtc workers a context: 300 QPs each, beyond DR_SCHED_ALL_MAX */
#define MSG 64

struct many {
	struct rc_qp_params p;
	struct dr_cq *cq[2];
	struct dr_qp *qp[NPAIRS][2];
	unsigned int n;
	struct rc_buf src, dst, back;  /* A's source, B's target, A's READ target */
};

static bool inline_mode(void) { return strcmp(rc_mode_name(), "inline") == 0; }

static struct dr_worker *
wk_of(struct dr_qp *qp)
{
	return dr_qp_impl(qp)->wk;
}

static int
many_setup(struct rc_env *e, struct many *m)
{
	memset(m, 0, sizeof(*m));
	rc_params_default(&m->p);
	m->p.max_wr = 8;
	m->p.max_inline = 0;
	for (int i = 0; i < 2; i++) {
		m->cq[i] = dr_create_cq(e->s[i].ctx, 4096, NULL, NULL, 0);
		if (m->cq[i] == NULL)
			return -1;
		m->p.cq[i] = m->cq[i];
	}
	for (m->n = 0; m->n < NPAIRS; m->n++)
		if (rc_connect_pair(e, &m->p, m->qp[m->n]) != 0)
			return -1;
	if (rc_buf_alloc(&e->s[0], &m->src, NPAIRS * MSG, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(&e->s[1], &m->dst, NPAIRS * MSG,
			 DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ) != 0 ||
	    rc_buf_alloc(&e->s[0], &m->back, NPAIRS * MSG, DR_ACCESS_LOCAL_WRITE) != 0)
		return -1;
	rc_fill(m->src.p, NPAIRS * MSG, 41);
	return 0;
}

static void
destroy_pair(struct many *m, unsigned int i)
{
	for (int s = 0; s < 2; s++) {
		if (m->qp[i][s] != NULL && dr_destroy_qp(m->qp[i][s]) != 0)
			fprintf(stderr, "destroy_qp failed\n");
		m->qp[i][s] = NULL;
	}
}

static void
many_teardown(struct rc_env *e, struct many *m)
{
	rc_clock_freeze(false);
	rc_rules_clear(e);
	rc_wire_flush(e);
	for (unsigned int i = 0; i < m->n; i++)
		destroy_pair(m, i);
	rc_buf_free(&m->src);
	rc_buf_free(&m->dst);
	rc_buf_free(&m->back);
	for (int i = 0; i < 2; i++)
		if (m->cq[i] != NULL)
			dr_destroy_cq(m->cq[i]);
}

static int
post_rdma(struct dr_qp *qp, uint64_t wr_id, enum dr_wr_opcode op, struct rc_buf *l, struct rc_buf *r,
	  unsigned int i)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(l->p + i * MSG), MSG, l->mr->lkey };
	struct dr_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = DR_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(r->p + i * MSG);
	wr.wr.rdma.rkey = r->mr->rkey;
	return dr_post_send(qp, &wr, &bad);
}

/* Rounds until A's CQ gave @want successful completions, each wr_id in [base, base + NPAIRS) once. */
static bool
reap(struct rc_env *e, struct many *m, uint64_t base, unsigned int want, uint64_t usec)
{
	static uint8_t seen[NPAIRS];
	uint64_t end = rte_get_timer_cycles() + usec * rte_get_timer_hz() / 1000000u;
	unsigned int got = 0;
	struct dr_wc wc[64];

	memset(seen, 0, sizeof(seen));
	while (got < want && rte_get_timer_cycles() < end) {
		int n;

		rc_round(e);
		n = dr_poll_cq(m->cq[0], 64, wc);
		for (int k = 0; k < n; k++) {
			uint64_t id = wc[k].wr_id - base;

			RC_CHECK_MSG(wc[k].status == DR_WC_SUCCESS, "wr_id %#" PRIx64 ": status %d",
				     wc[k].wr_id, (int)wc[k].status);
			RC_CHECK_MSG(id < NPAIRS && !seen[id], "wr_id %#" PRIx64 " unexpected or twice",
				     wc[k].wr_id);
			if (id < NPAIRS)
				seen[id] = 1;
			got++;
		}
	}
	RC_CHECK_MSG(got == want, "%u of %u completions", got, want);
	return got == want;
}

/* Every pair: a WRITE of its own bytes, then a READ of them back; all checked. */
static void
test_traffic(struct rc_env *e, struct many *m)
{
	unsigned int i;

	for (i = 0; i < NPAIRS; i++)
		RC_CHECK_EQ(post_rdma(m->qp[i][0], i, DR_WR_RDMA_WRITE, &m->src, &m->dst, i), 0);
	/* inline, rtc: more than DR_SCHED_ALL_MAX on each worker; a pipeline visits them all */
	for (int side = 0; side < 2; side++)
		RC_CHECK_EQ(__atomic_load_n(&wk_of(m->qp[0][side])->many, __ATOMIC_RELAXED),
			    strcmp(rc_mode_name(), "pipeline") != 0);
	if (!reap(e, m, 0, NPAIRS, 20000000))
		return;
	RC_CHECK(memcmp(m->src.p, m->dst.p, NPAIRS * MSG) == 0);
	for (i = 0; i < NPAIRS; i++)
		RC_CHECK_EQ(post_rdma(m->qp[i][0], 1000 + i, DR_WR_RDMA_READ, &m->back, &m->dst, i), 0);
	if (!reap(e, m, 1000, NPAIRS, 20000000))
		return;
	RC_CHECK(memcmp(m->src.p, m->back.p, NPAIRS * MSG) == 0);
}

/* The QP the sweep of A's worker passed last: the one it would reach last from now on. */
static unsigned int
behind_sweep(struct many *m)
{
	struct dr_worker *wk = wk_of(m->qp[0][0]);
	struct dr_qp_impl *q = wk->sweep != NULL ? TAILQ_PREV(wk->sweep, dr_qp_list, wk_link[0]) : NULL;

	if (q == NULL)
		q = TAILQ_LAST(&wk->active, dr_qp_list);
	for (unsigned int i = 0; i < m->n; i++)
		if (m->qp[i][0] != NULL && dr_qp_impl(m->qp[i][0]) == q)
			return i;
	return 0;
}

/* Rounds until A's worker has nothing on its hot list (at most @max). */
static unsigned int
settle(struct rc_env *e, struct many *m, unsigned int max)
{
	unsigned int r = 0;

	while (r < max && !TAILQ_EMPTY(&wk_of(m->qp[0][0])->hot)) {
		rc_round(e);
		r++;
	}
	return r;
}

/* A WR posted to a QP nobody marked goes out in the next round: its doorbell. */
static void
test_doorbell(struct rc_env *e, struct many *m)
{
	unsigned int i, sweep_rounds = NPAIRS / DR_SCHED_SWEEP + 1;
	uint64_t f0;

	settle(e, m, 100);
	RC_CHECK(TAILQ_EMPTY(&wk_of(m->qp[0][0])->hot));
	for (int k = 0; k < 3; k++) {
		i = behind_sweep(m);
		RC_CHECK(!dr_qp_impl(m->qp[i][0])->hot);
		f0 = e->frames[RC_A2B];
		RC_CHECK_EQ(post_rdma(m->qp[i][0], 2000 + i, DR_WR_RDMA_WRITE, &m->src, &m->dst, i), 0);
		RC_CHECK_EQ(dr_qp_impl(m->qp[i][0])->doorbell, 1);
		rc_round(e);
		RC_CHECK_MSG(e->frames[RC_A2B] == f0 + 1, "QP %u: %" PRIu64 " frames after one round "
			     "(the sweep alone would reach it in up to %u)", i, e->frames[RC_A2B] - f0,
			     sweep_rounds);
		RC_CHECK_EQ(dr_qp_impl(m->qp[i][0])->doorbell, 0);
		if (!reap(e, m, 2000, 1, 2000000))
			return;
	}
}

/* A lost request of an unmarked QP: its timer runs when the sweep comes, within one sweep. */
static void
test_timer_by_sweep(struct rc_env *e, struct many *m)
{
	struct dr_worker *wk = wk_of(m->qp[0][0]);
	unsigned int i, r, sweep_rounds = wk->num_active / DR_SCHED_SWEEP + 1;
	struct dr_qp_impl *q;
	uint64_t f0, tlp0, rto0;

	settle(e, m, 100);
	rc_clock_freeze(true);
	i = behind_sweep(m);
	q = dr_qp_impl(m->qp[i][0]);
	rc_rule_add(e, RC_A2B, -1, 0, 0, 1, RC_DROP);
	RC_CHECK_EQ(post_rdma(m->qp[i][0], 3000 + i, DR_WR_RDMA_WRITE, &m->src, &m->dst, i), 0);
	for (r = 0; r < 4; r++)
		rc_round(e);
	RC_CHECK_EQ(e->dropped[RC_A2B], 1);
	RC_CHECK(!q->hot);                      /* it sent, nothing came back: nobody marks it */
	tlp0 = rc_counter(&q->cnt.tlp_probes);
	rto0 = rc_counter(&q->cnt.rto_expiries);
	f0 = e->frames[RC_A2B];
	/* past its tail-loss probe and RTO alike (the sweep's visit runs whichever is due) */
	rc_clock_advance(rc_ms(6));
	for (r = 0; r < 2 * sweep_rounds && e->frames[RC_A2B] == f0; r++)
		rc_round(e);
	RC_CHECK_MSG(e->frames[RC_A2B] > f0 && r <= sweep_rounds + 1,
		     "QP %u: its timer went off after %u rounds (a sweep is %u)", i, r, sweep_rounds);
	RC_CHECK(rc_counter(&q->cnt.tlp_probes) + rc_counter(&q->cnt.rto_expiries) > tlp0 + rto0);
	rc_clock_freeze(false);
	rc_rules_clear(e);
	reap(e, m, 3000, 1, 2000000);
	RC_CHECK(memcmp(m->src.p + i * MSG, m->dst.p + i * MSG, MSG) == 0);
}

/* A QP destroyed with its doorbell queued: the round finds no QP of that number and goes on. */
static void
test_destroyed_with_doorbell(struct rc_env *e, struct many *m)
{
	struct dr_worker *wk = wk_of(m->qp[0][0]);
	unsigned int i = NPAIRS / 2;

	settle(e, m, 100);
	RC_CHECK_EQ(post_rdma(m->qp[i][0], 4000, DR_WR_RDMA_WRITE, &m->src, &m->dst, i), 0);
	RC_CHECK_EQ(rte_ring_count(wk->doorbell), 1);
	destroy_pair(m, i);
	rc_round(e);
	RC_CHECK_EQ(rte_ring_count(wk->doorbell), 0);
	/* the others still move */
	RC_CHECK_EQ(post_rdma(m->qp[i + 1][0], 4001, DR_WR_RDMA_WRITE, &m->src, &m->dst, i + 1), 0);
	reap(e, m, 4000, 1, 2000000);
}

/* The pairs gone: every round visits every QP again, the hot list empty. */
static void
test_back_to_few(struct rc_env *e, struct many *m)
{
	struct dr_worker *wk = wk_of(m->qp[0][0]);
	unsigned int i;

	RC_CHECK(wk->many);
	for (i = 1; i < m->n; i++)
		destroy_pair(m, i);
	RC_CHECK(!wk->many);
	RC_CHECK(TAILQ_EMPTY(&wk->hot));
	RC_CHECK(wk->sweep == NULL);
	RC_CHECK_EQ(post_rdma(m->qp[0][0], 5000, DR_WR_RDMA_WRITE, &m->src, &m->dst, 0), 0);
	RC_CHECK_EQ(dr_qp_impl(m->qp[0][0])->doorbell, 0);   /* no doorbell rung */
	reap(e, m, 5000, 1, 2000000);
}

static void
run(struct rc_env *e)
{
	struct many m;

	if (many_setup(e, &m) != 0) {
		RC_CHECK_MSG(0, "%u pairs connected of %u", m.n, NPAIRS);
		many_teardown(e, &m);
		return;
	}
	test_traffic(e, &m);
	if (inline_mode()) {
		test_doorbell(e, &m);
		test_timer_by_sweep(e, &m);
		test_destroyed_with_doorbell(e, &m);
		test_back_to_few(e, &m);
	} else {
		printf("test_rc_many: the step-by-step cases run inline only (%s mode)\n", rc_mode_name());
	}
	many_teardown(e, &m);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_many", argv[0], 4300, run);
}
