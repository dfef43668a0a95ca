/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The engine with several QPs at once (test_rc.h's two contexts; meant for
 * rtc mode with two workers a context, where QPs land on different workers,
 * and run in inline mode too):
 *   - QPs spread over the workers; CQs shared by QPs of different workers
 *     get every completion once, each QP's in order;
 *   - a QP used, moved to ERR (its later WRs flushed) and destroyed while
 *     the other QPs carry traffic, which completes untouched;
 *   - an MR deregistered while RDMA WRITEs stream into it: each WRITE lands
 *     before dr_dereg_mr() returns or fails with a remote access error,
 *     nothing lands after;
 *   - where each worker has a queue pair of its own (DR_TEST_QUEUES equal to
 *     the workers; the wire pairs the queues as memif does), each worker
 *     receives its QPs' frames on its own rx queue and redirects none;
 *     with one queue pair, worker 0 receives everything and redirects;
 *   - slow-path calls from several threads at once while traffic runs
 *     (rtc and pipeline: the control thread serialises them);
 *   - inline: a poll returns completions already waiting without a round.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rc.h"

#define NPAIRS 4

/* A connected QP pair of rc_connect(), taken out of the sides so that several can live at once. */
struct qpair {
	struct dr_qp *qa, *qb;
	struct dr_cq *cq[4];          /* A send/recv, B send/recv: those rc_connect made (NULL: shared) */
};

static int
pair_up(struct rc_env *e, const struct rc_qp_params *p, struct qpair *q)
{
	int rc = rc_connect(e, p);

	q->qa = e->s[0].qp;
	q->qb = e->s[1].qp;
	q->cq[0] = e->s[0].scq;
	q->cq[1] = e->s[0].rcq;
	q->cq[2] = e->s[1].scq;
	q->cq[3] = e->s[1].rcq;
	for (int i = 0; i < 2; i++) {
		e->s[i].qp = NULL;
		e->s[i].scq = e->s[i].rcq = NULL;
	}
	return rc;
}

static void
pair_down(struct qpair *q)
{
	if (q->qa != NULL)
		RC_CHECK_EQ(dr_destroy_qp(q->qa), 0);
	if (q->qb != NULL)
		RC_CHECK_EQ(dr_destroy_qp(q->qb), 0);
	for (int i = 0; i < 4; i++)
		if (q->cq[i] != NULL)
			RC_CHECK_EQ(dr_destroy_cq(q->cq[i]), 0);
	memset(q, 0, sizeof(*q));
}

/* Let the post helpers of test_rc.h address this pair. */
static void
use(struct rc_env *e, const struct qpair *q)
{
	e->s[0].qp = q->qa;
	e->s[1].qp = q->qb;
}

static void
unuse(struct rc_env *e)
{
	e->s[0].qp = e->s[1].qp = NULL;
}

/* The rtc worker or pipeline group a QP lives on. */
static unsigned int
worker_of(struct dr_qp *qp)
{
	const struct dr_worker *w = dr_qp_impl(qp)->wk;

	return w->role == DR_WK_ALL ? w->id : w->id / DR_WK_ROLES;
}

/*
 * Four QP pairs on one shared CQ a side: SENDs on all of them at once. The
 * QPs alternate between the workers; each CQ gets every completion once and
 * each QP's in posting order; the data is right.
 */
static void
test_shared_cq(struct rc_env *e)
{
	enum { PER_QP = 64, LEN = 1500 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct dr_cq *cqa = dr_create_cq(a->ctx, 4096, NULL, NULL, 0);
	struct dr_cq *cqb = dr_create_cq(b->ctx, 4096, NULL, NULL, 0);
	struct rc_wcs *sw = calloc(1, sizeof(*sw)), *rw = calloc(1, sizeof(*rw));
	uint32_t next_send[NPAIRS] = { 0 }, next_recv[NPAIRS] = { 0 };
	struct qpair q[NPAIRS];
	struct rc_qp_params p;
	struct rc_buf src, dst;
	unsigned int i, k, workers = 0;

	memset(q, 0, sizeof(q));
	if (cqa == NULL || cqb == NULL || sw == NULL || rw == NULL ||
	    rc_buf_alloc(a, &src, NPAIRS * PER_QP * LEN, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &dst, NPAIRS * PER_QP * LEN, DR_ACCESS_LOCAL_WRITE) != 0) {
		RC_CHECK_MSG(0, "shared CQ setup");
		goto out;
	}
	rc_params_default(&p);
	p.max_wr = 256;
	p.cq[0] = cqa;
	p.cq[1] = cqb;
	for (i = 0; i < NPAIRS; i++) {
		if (pair_up(e, &p, &q[i]) != 0) {
			RC_CHECK_MSG(0, "pair %u", i);
			goto out;
		}
		workers |= 1u << worker_of(q[i].qa);
	}
	/* two workers (groups) a context: both carry QPs of the shared CQ */
	if (a->ctx->nb_groups > 1)
		RC_CHECK_EQ(workers, 3);
	rc_fill(src.p, src.len, 5);
	memset(dst.p, 0, dst.len);
	for (k = 0; k < PER_QP; k++) {
		for (i = 0; i < NPAIRS; i++) {
			size_t off = ((size_t)i * PER_QP + k) * LEN;
			struct dr_sge ls = { (uint64_t)(uintptr_t)(src.p + off), LEN, src.mr->lkey };
			struct dr_sge rs = { (uint64_t)(uintptr_t)(dst.p + off), LEN, dst.mr->lkey };

			use(e, &q[i]);
			RC_CHECK_EQ(rc_post_recv(b, ((uint64_t)i << 32) | k, &rs, 1), 0);
			RC_CHECK_EQ(rc_post_send(a, ((uint64_t)i << 32) | k, DR_WR_SEND, &ls, 1, DR_SEND_SIGNALED,
						 0, 0, 0), 0);
		}
	}
	unuse(e);
	RC_CHECK(rc_wait_wcs(e, cqa, sw, NPAIRS * PER_QP, 10000000));
	RC_CHECK(rc_wait_wcs(e, cqb, rw, NPAIRS * PER_QP, 10000000));
	RC_CHECK_EQ(sw->n, NPAIRS * PER_QP);
	RC_CHECK_EQ(rw->n, NPAIRS * PER_QP);
	for (i = 0; i < sw->n; i++) {
		uint32_t qi = (uint32_t)(sw->wc[i].wr_id >> 32), kk = (uint32_t)sw->wc[i].wr_id;

		RC_CHECK_MSG(sw->wc[i].status == DR_WC_SUCCESS && qi < NPAIRS && kk == next_send[qi],
			     "send completion %u: QP %u wr %u (%s), want wr %u", i, qi, kk,
			     dr_wc_status_str(sw->wc[i].status), qi < NPAIRS ? next_send[qi] : 0);
		if (qi < NPAIRS)
			next_send[qi] = kk + 1;
	}
	for (i = 0; i < rw->n; i++) {
		uint32_t qi = (uint32_t)(rw->wc[i].wr_id >> 32), kk = (uint32_t)rw->wc[i].wr_id;

		RC_CHECK_MSG(rw->wc[i].status == DR_WC_SUCCESS && qi < NPAIRS && kk == next_recv[qi] &&
			     rw->wc[i].qp_num == q[qi].qb->qp_num && rw->wc[i].byte_len == LEN,
			     "recv completion %u: QP %u wr %u", i, qi, kk);
		if (qi < NPAIRS)
			next_recv[qi] = kk + 1;
	}
	RC_CHECK(memcmp(src.p, dst.p, src.len) == 0);
out:
	unuse(e);
	for (i = 0; i < NPAIRS; i++)
		pair_down(&q[i]);
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	if (cqa != NULL)
		RC_CHECK_EQ(dr_destroy_cq(cqa), 0);
	if (cqb != NULL)
		RC_CHECK_EQ(dr_destroy_cq(cqb), 0);
	free(sw);
	free(rw);
}

/*
 * Three QP pairs stream RDMA WRITEs; meanwhile a fourth, on a worker of
 * theirs, sends, is moved to ERR with WRs queued (flushed, in order) and
 * destroyed. The three complete untouched, every byte right.
 */
static void
test_lifecycle_under_traffic(struct rc_env *e)
{
	enum { BUSY = 3, PER_QP = 100, LEN = 4096, LATE = 8 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs *sw = calloc(1, sizeof(*sw)), *xw = calloc(1, sizeof(*xw));
	struct dr_cq *cqa = dr_create_cq(a->ctx, 4096, NULL, NULL, 0);
	struct qpair q[BUSY + 1];
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_qp_attr qa;
	unsigned int i, k, flushed = 0;

	memset(q, 0, sizeof(q));
	if (sw == NULL || xw == NULL || cqa == NULL ||
	    rc_buf_alloc(a, &src, BUSY * PER_QP * LEN, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &dst, BUSY * PER_QP * LEN, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
		RC_CHECK_MSG(0, "lifecycle setup");
		goto out;
	}
	rc_params_default(&p);
	p.max_wr = 256;
	p.cq[0] = cqa;                  /* the busy QPs share A's CQ */
	for (i = 0; i < BUSY; i++)
		if (pair_up(e, &p, &q[i]) != 0)
			goto fail;
	p.cq[0] = NULL;                 /* the short-lived one has its own */
	if (pair_up(e, &p, &q[BUSY]) != 0)
		goto fail;
	rc_fill(src.p, src.len, 9);
	memset(dst.p, 0, dst.len);
	for (k = 0; k < PER_QP; k++) {
		for (i = 0; i < BUSY; i++) {
			size_t off = ((size_t)i * PER_QP + k) * LEN;
			struct dr_sge ls = { (uint64_t)(uintptr_t)(src.p + off), LEN, src.mr->lkey };

			use(e, &q[i]);
			RC_CHECK_EQ(rc_post_send(a, k, DR_WR_RDMA_WRITE, &ls, 1, DR_SEND_SIGNALED,
						 (uint64_t)(uintptr_t)(dst.p + off), dst.mr->rkey, 0), 0);
		}
	}
	/* the fourth: one WRITE through, then ERR with WRs queued behind it, then gone */
	use(e, &q[BUSY]);
	{
		struct dr_sge ls = { (uint64_t)(uintptr_t)src.p, 64, src.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, 1000, DR_WR_RDMA_WRITE, &ls, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)(dst.p + dst.len - 64), dst.mr->rkey, 0), 0);
		RC_CHECK(rc_wait_wcs(e, q[BUSY].cq[0], xw, 1, 5000000));
		RC_CHECK(xw->n == 1 && xw->wc[0].status == DR_WC_SUCCESS);
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = DR_QPS_ERR;
		RC_CHECK_EQ(dr_modify_qp(q[BUSY].qa, &qa, DR_QP_STATE), 0);
		/* IBA 10.3.1: WRs posted in ERR complete, flushed, in order */
		for (k = 0; k < LATE; k++)
			RC_CHECK_EQ(rc_post_send(a, 2000 + k, DR_WR_RDMA_WRITE, &ls, 1, DR_SEND_SIGNALED,
						 (uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0), 0);
		RC_CHECK(rc_wait_wcs(e, q[BUSY].cq[0], xw, 1 + LATE, 5000000));
		for (k = 1; k < xw->n; k++)
			flushed += xw->wc[k].status == DR_WC_WR_FLUSH_ERR && xw->wc[k].wr_id == 2000 + k - 1;
		RC_CHECK_EQ(flushed, LATE);
	}
	unuse(e);
	pair_down(&q[BUSY]);
	RC_CHECK(rc_wait_wcs(e, cqa, sw, BUSY * PER_QP, 10000000));
	RC_CHECK_EQ(sw->n, BUSY * PER_QP);
	for (i = 0; i < sw->n; i++)
		RC_CHECK_MSG(sw->wc[i].status == DR_WC_SUCCESS, "busy completion %u: %s", i,
			     dr_wc_status_str(sw->wc[i].status));
	RC_CHECK(memcmp(src.p, dst.p, dst.len - 64) == 0);
	goto out;
fail:
	RC_CHECK_MSG(0, "lifecycle: pair setup");
out:
	unuse(e);
	for (i = 0; i <= BUSY; i++)
		pair_down(&q[i]);
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	if (cqa != NULL)
		RC_CHECK_EQ(dr_destroy_cq(cqa), 0);
	free(sw);
	free(xw);
}

/* The completions of WRITEs that met a deregistration: how many of each kind, and out of order. */
struct dereg_tally {
	unsigned int ok, err, flush, order_bad;
};

/*
 * @sw's completions, checked to come in wr_id order (0, 1, ...): successes,
 * then at most one @err (the first WRITE that found no MR), then flushed
 * ones; anything else, or those in another order, counts as out of order.
 */
static struct dereg_tally
dereg_tally(const struct rc_wcs *sw, enum dr_wc_status err)
{
	struct dereg_tally t = { 0, 0, 0, 0 };

	for (unsigned int i = 0; i < sw->n; i++) {
		enum dr_wc_status st = sw->wc[i].status;

		if (st == DR_WC_SUCCESS)
			t.order_bad += t.err + t.flush != 0, t.ok++;
		else if (st == err)
			t.order_bad += t.flush != 0 || t.err != 0, t.err++;
		else if (st == DR_WC_WR_FLUSH_ERR)
			t.flush++;
		else
			t.order_bad++;
		RC_CHECK_EQ(sw->wc[i].wr_id, i);
	}
	return t;
}

/*
 * The deregistration tests' connection (@n WRs deep) and buffers: A's @src
 * of @src_len bytes (LOCAL_WRITE) filled from @seed, B's @dst of @dst_len
 * bytes with @dst_access, zeroed. 0 or -1 (the caller's buffers start
 * zeroed: rc_buf_free() takes whatever was made).
 */
static int
dereg_setup(struct rc_env *e, uint32_t n, struct rc_buf *src, size_t src_len, struct rc_buf *dst, size_t dst_len,
	    int dst_access, uint32_t seed)
{
	struct rc_qp_params p;

	rc_params_default(&p);
	p.max_wr = n;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(&e->s[0], src, src_len, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(&e->s[1], dst, dst_len, dst_access) != 0)
		return -1;
	rc_fill(src->p, src->len, seed);
	memset(dst->p, 0, dst->len);
	return 0;
}

/* A posts @n signaled WRITEs of @len bytes, the i-th from @src + i * @len to @dst + i * @len. */
static void
dereg_post_writes(struct rc_env *e, const struct rc_buf *src, const struct rc_buf *dst, unsigned int n, uint32_t len)
{
	for (unsigned int i = 0; i < n; i++) {
		struct dr_sge ls = { (uint64_t)(uintptr_t)(src->p + (size_t)i * len), len, src->mr->lkey };

		RC_CHECK_EQ(rc_post_send(&e->s[0], i, DR_WR_RDMA_WRITE, &ls, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)(dst->p + (size_t)i * len), dst->mr->rkey, 0), 0);
	}
}

/*
 * WRITEs stream into an MR of B; B deregisters it mid-stream. A's WRITEs
 * complete SUCCESS up to one REM_ACCESS_ERR (the first that found no MR),
 * the rest flushed; B's memory does not change once dr_dereg_mr() returned.
 */
static void
test_dereg_race(struct rc_env *e)
{
	enum { N = 400, LEN = 2048 };
	struct rc_side *a = &e->s[0];
	struct rc_wcs *sw = calloc(1, sizeof(*sw));
	struct rc_buf src = { 0 }, dst = { 0 };
	uint8_t *snap = NULL;
	struct dereg_tally t = { 0, 0, 0, 0 };

	if (sw == NULL || dereg_setup(e, N, &src, N * LEN, &dst, N * LEN,
				      DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE, 11) != 0 ||
	    (snap = malloc(N * LEN)) == NULL) {
		RC_CHECK_MSG(0, "dereg race setup");
		goto out;
	}
	dereg_post_writes(e, &src, &dst, N, LEN);
	/* some have landed: deregister while the rest are on their way */
	RC_CHECK(rc_wait_wcs(e, a->scq, sw, N / 8, 5000000));
	RC_CHECK_EQ(dr_dereg_mr(dst.mr), 0);
	dst.mr = NULL;
	memcpy(snap, dst.p, dst.len);
	RC_CHECK(rc_wait_wcs(e, a->scq, sw, N, 10000000));
	rc_run(e, 20000, NULL, NULL);
	RC_CHECK_MSG(memcmp(snap, dst.p, dst.len) == 0, "B's memory changed after dr_dereg_mr() returned");
	t = dereg_tally(sw, DR_WC_REM_ACCESS_ERR);
	RC_CHECK_MSG(t.ok + t.err + t.flush == N && t.order_bad == 0 && t.err <= 1,
		     "%u success, %u remote access error, %u flushed, %u out of order", t.ok, t.err, t.flush,
		     t.order_bad);
	/* what succeeded landed whole */
	RC_CHECK(memcmp(src.p, dst.p, (size_t)t.ok * LEN) == 0);
	printf("test_dereg_race (%s): %u WRITEs landed before the dereg, %u failed, %u flushed\n",
	       rc_mode_name(), t.ok, t.err, t.flush);
out:
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	free(snap);
	free(sw);
}

/*
 * A deregisters the MR its posted WRITEs read from (small, one frame each:
 * the one-pass build, which skips the second L_Key check while no MR was
 * deregistered since the post, ctx->mr_gen): they complete SUCCESS up to one
 * LOC_PROT_ERR (IBA 10.6.3.1: the first built after the dereg), the rest
 * flushed, in order; inline, where only the first is built before the
 * dereg (at its post, to an empty queue: dr_engine_post_kick()), that one
 * succeeds and the next fails. B never gets bytes of a failed WRITE.
 */
static void
test_dereg_local(struct rc_env *e)
{
	enum { N = 64, LEN = 256 };
	struct rc_side *a = &e->s[0];
	struct rc_wcs *sw = calloc(1, sizeof(*sw));
	struct rc_buf src = { 0 }, dst = { 0 };
	struct dereg_tally t = { 0, 0, 0, 0 };
	unsigned int i;
	bool inl = strcmp(rc_mode_name(), "inline") == 0;

	if (sw == NULL || dereg_setup(e, N, &src, N * LEN, &dst, N * LEN,
				      DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE, 12) != 0) {
		RC_CHECK_MSG(0, "dereg local setup");
		goto out;
	}
	dereg_post_writes(e, &src, &dst, N, LEN);
	RC_CHECK_EQ(dr_dereg_mr(src.mr), 0);
	src.mr = NULL;
	RC_CHECK(rc_wait_wcs(e, a->scq, sw, N, 10000000));
	t = dereg_tally(sw, DR_WC_LOC_PROT_ERR);
	RC_CHECK_MSG(t.ok + t.err + t.flush == N && t.order_bad == 0 && t.err <= 1 &&
		     (!inl || (t.ok == 1 && t.err == 1)),
		     "%u success, %u local protection error, %u flushed, %u out of order", t.ok, t.err, t.flush,
		     t.order_bad);
	RC_CHECK(memcmp(src.p, dst.p, (size_t)t.ok * LEN) == 0);
	for (i = t.ok * LEN; i < N * LEN; i++)
		if (dst.p[i] != 0)
			break;
	RC_CHECK_MSG(i == N * LEN, "B got bytes of a WRITE that failed (offset %u)", i);
	printf("test_dereg_local (%s): %u WRITEs before the dereg, %u failed, %u flushed\n", rc_mode_name(), t.ok,
	       t.err, t.flush);
out:
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	free(sw);
}

/*
 * B deregisters the MR its posted receives point into (one SGE each: the
 * express path copies a SEND ONLY without checking the L_Key again while
 * no MR was deregistered since the post, ctx->mr_gen); A's small SENDs
 * then find a receive WQE whose L_Key is gone (IBA 10.6.3.1, rxe
 * copy_data()): none succeeds on either side, the receives complete in
 * error or flushed, and B's memory gets no byte.
 */
static void
test_dereg_recv(struct rc_env *e)
{
	enum { N = 32, LEN = 256, MSG = 64 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs *sw = calloc(1, sizeof(*sw)), *rw = calloc(1, sizeof(*rw));
	struct rc_buf src = { 0 }, dst = { 0 };
	unsigned int i, ok = 0;

	if (sw == NULL || rw == NULL ||
	    dereg_setup(e, N, &src, N * MSG, &dst, N * LEN, DR_ACCESS_LOCAL_WRITE, 13) != 0) {
		RC_CHECK_MSG(0, "dereg recv setup");
		goto out;
	}
	for (i = 0; i < N; i++) {
		struct dr_sge rs = { (uint64_t)(uintptr_t)(dst.p + (size_t)i * LEN), LEN, dst.mr->lkey };

		RC_CHECK_EQ(rc_post_recv(b, i, &rs, 1), 0);
	}
	RC_CHECK_EQ(dr_dereg_mr(dst.mr), 0);
	dst.mr = NULL;
	for (i = 0; i < N; i++) {
		struct dr_sge ls = { (uint64_t)(uintptr_t)(src.p + (size_t)i * MSG), MSG, src.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, i, DR_WR_SEND, &ls, 1, DR_SEND_SIGNALED, 0, 0, 0), 0);
	}
	RC_CHECK(rc_wait_wcs(e, a->scq, sw, N, 10000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, rw, N, 10000000));
	for (i = 0; i < sw->n; i++)
		ok += sw->wc[i].status == DR_WC_SUCCESS;
	for (i = 0; i < rw->n; i++)
		ok += rw->wc[i].status == DR_WC_SUCCESS;
	RC_CHECK_MSG(ok == 0 && sw->n == N && rw->n == N, "%u completions of %u SENDs and %u of %u receives, %u "
		     "successful, into a deregistered MR", sw->n, N, rw->n, N, ok);
	RC_CHECK_MSG(rw->n == 0 || rw->wc[0].status != DR_WC_WR_FLUSH_ERR, "the first receive is flushed, not failed");
	for (i = 0; i < N * LEN; i++)
		if (dst.p[i] != 0)
			break;
	RC_CHECK_MSG(i == N * LEN, "B got bytes into a deregistered MR (offset %u)", i);
	printf("test_dereg_recv (%s): first SEND %s, first receive %s\n", rc_mode_name(),
	       sw->n ? dr_wc_status_str(sw->wc[0].status) : "-", rw->n ? dr_wc_status_str(rw->wc[0].status) : "-");
out:
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	free(sw);
	free(rw);
}

/* Per-worker receive counters of both contexts (read while the workers run: relaxed loads). */
struct rx_snap {
	uint64_t burst_pkts[2][DR_MAX_WORKERS];
	uint64_t redirected[2][DR_MAX_WORKERS];
};

static void
rx_snap_take(struct rc_env *e, struct rx_snap *sn)
{
	for (int s = 0; s < 2; s++) {
		struct dr_context *ctx = e->s[s].ctx;

		for (uint16_t i = 0; i < ctx->nb_workers; i++) {
			sn->burst_pkts[s][i] = __atomic_load_n(&ctx->wk[i].lstats.rx_burst_pkts, __ATOMIC_RELAXED);
			sn->redirected[s][i] = __atomic_load_n(&ctx->wk[i].stats.rx_redirected, __ATOMIC_RELAXED);
		}
	}
}

/*
 * After test_shared_cq() (QPs on every worker, the same worker on both sides:
 * both place QPs round robin in the same order): who received what. The
 * per-worker counters are those of /dr/lcore/stats. Inline mode has one
 * worker on queue 0: nothing to tell apart.
 */
static void
check_rx_queues(struct rc_env *e, const struct rx_snap *before, const struct rx_snap *after)
{
	for (int s = 0; s < 2; s++) {
		struct dr_context *ctx = e->s[s].ctx;

		if (ctx->nb_workers < 2 || ctx->attr.mode == DR_PROGRESS_PIPELINE)
			return;
		if (ctx->nb_rxq == ctx->nb_workers) {
			/* one queue pair each: every worker polled its own queue, redirected nothing */
			RC_CHECK_EQ(rc_queues(), ctx->nb_workers);
			for (uint16_t i = 0; i < ctx->nb_workers; i++) {
				RC_CHECK_EQ(ctx->wk[i].rxq, i);
				RC_CHECK_MSG(after->burst_pkts[s][i] > before->burst_pkts[s][i],
					     "side %d worker %u received nothing on its queue", s, i);
				RC_CHECK_MSG(after->redirected[s][i] == before->redirected[s][i],
					     "side %d worker %u redirected %" PRIu64 " frames", s, i,
					     after->redirected[s][i] - before->redirected[s][i]);
			}
		} else {
			/* fewer queues than workers: worker 1 has none, worker 0 hands it its frames */
			RC_CHECK_EQ(ctx->nb_rxq, rc_queues());
			RC_CHECK_EQ(ctx->wk[ctx->nb_workers - 1].rxq, DR_WK_NO_QUEUE);
			RC_CHECK_EQ(after->burst_pkts[s][ctx->nb_workers - 1],
				    before->burst_pkts[s][ctx->nb_workers - 1]);
			RC_CHECK(after->redirected[s][0] > before->redirected[s][0]);
		}
	}
}

/*
 * Slow-path calls from several application threads at once (rtc and
 * pipeline: the control thread runs them one at a time, dr_control.h): each
 * thread makes and unmakes a PD, an MR, a CQ and an RC QP taken to RTS and
 * back to ERR, CHURN times, while the main thread streams RDMA WRITEs on a
 * connected pair and checks every byte. Nothing fails, the counts of the
 * context come back where they were, and a slow-path call made as a worker
 * lcore of the context is refused with EDEADLK.
 */
struct churn {
	struct rc_side *side;
	uint32_t dest_qpn;
	unsigned int errors;
	char what[96];
	char mem[4096];               /* what its MRs register */
};

static unsigned int churn_done;       /* threads finished */

static void
churn_fail(struct churn *c, const char *what, int err)
{
	if (c->errors++ == 0)
		snprintf(c->what, sizeof(c->what), "%s: %s", what, strerror(err));
}

static void *
churn_main(void *arg)
{
	enum { CHURN = 300 };
	struct churn *c = arg;
	struct dr_context *ctx = c->side->ctx;
	char *mem = c->mem;
	unsigned int i;

	for (i = 0; i < CHURN; i++) {
		struct dr_qp_init_attr ia;
		struct dr_qp_attr qa, got;
		struct dr_qp_init_attr gia;
		struct dr_pd *pd = dr_alloc_pd(ctx);
		struct dr_mr *mr = NULL;
		struct dr_cq *cq = NULL;
		struct dr_qp *qp = NULL;
		int rc;

		if (pd == NULL) {
			churn_fail(c, "alloc_pd", errno);
			continue;
		}
		mr = dr_reg_mr(pd, mem, 4096, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE);
		cq = dr_create_cq(ctx, 16, NULL, NULL, 0);
		if (mr == NULL || cq == NULL) {
			churn_fail(c, mr == NULL ? "reg_mr" : "create_cq", errno);
			goto undo;
		}
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = DR_QPT_RC;
		ia.cap.max_send_wr = 8;
		ia.cap.max_recv_wr = 8;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp = dr_create_qp(pd, &ia);
		if (qp == NULL) {
			churn_fail(c, "create_qp", errno);
			goto undo;
		}
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = DR_QPS_INIT;
		qa.port_num = 1;
		qa.qp_access_flags = DR_ACCESS_REMOTE_WRITE;
		rc = dr_modify_qp(qp, &qa, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS);
		if (rc == 0) {
			qa.qp_state = DR_QPS_RTR;
			qa.path_mtu = DR_MTU_1024;
			qa.dest_qp_num = c->dest_qpn;
			qa.rq_psn = i;
			qa.max_dest_rd_atomic = 1;
			qa.min_rnr_timer = 12;
			qa.ah_attr.is_global = 1;
			qa.ah_attr.port_num = 1;
			qa.ah_attr.grh.sgid_index = 1;
			qa.ah_attr.grh.hop_limit = 64;
			memcpy(qa.ah_attr.grh.dgid.raw, c->side->ctx->gid[1].raw, 16);
			rc = dr_modify_qp(qp, &qa, DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN |
					  DR_QP_RQ_PSN | DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER);
		}
		if (rc == 0) {
			qa.qp_state = DR_QPS_RTS;
			qa.sq_psn = i;
			qa.timeout = 14;
			qa.retry_cnt = 7;
			qa.rnr_retry = 7;
			qa.max_rd_atomic = 1;
			rc = dr_modify_qp(qp, &qa, DR_QP_STATE | DR_QP_SQ_PSN | DR_QP_TIMEOUT | DR_QP_RETRY_CNT |
					  DR_QP_RNR_RETRY | DR_QP_MAX_QP_RD_ATOMIC);
		}
		if (rc == 0)
			rc = dr_query_qp(qp, &got, DR_QP_STATE, &gia);
		if (rc == 0 && got.qp_state != DR_QPS_RTS)
			rc = -EPROTO;
		if (rc == 0) {
			qa.qp_state = DR_QPS_ERR;
			rc = dr_modify_qp(qp, &qa, DR_QP_STATE);
		}
		if (rc != 0)
			churn_fail(c, "modify/query_qp", -rc);
undo:
		if (qp != NULL && (rc = dr_destroy_qp(qp)) != 0)
			churn_fail(c, "destroy_qp", -rc);
		if (cq != NULL && (rc = dr_destroy_cq(cq)) != 0)
			churn_fail(c, "destroy_cq", -rc);
		if (mr != NULL && (rc = dr_dereg_mr(mr)) != 0)
			churn_fail(c, "dereg_mr", -rc);
		if ((rc = dr_dealloc_pd(pd)) != 0)
			churn_fail(c, "dealloc_pd", -rc);
	}
	__atomic_fetch_add(&churn_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void
test_control_threads(struct rc_env *e)
{
	enum { THREADS = 3, N = 200, LEN = 2048 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct churn c[THREADS];
	pthread_t th[THREADS];
	uint32_t qps0 = a->ctx->num_qps, mrs0 = a->ctx->num_mrs, pds0 = a->ctx->num_pds;
	uint32_t cqs0 = a->ctx->num_cqs;
	struct rc_wcs *sw = calloc(1, sizeof(*sw));
	struct rc_qp_params p;
	struct rc_buf src, dst;
	unsigned int i, started = 0;

	churn_done = 0;
	if (strcmp(rc_mode_name(), "inline") == 0) {
		printf("control threads: inline mode has one thread per context, skipped\n");
		free(sw);
		return;
	}
	rc_params_default(&p);
	p.max_wr = 256;
	if (sw == NULL || rc_connect(e, &p) != 0 ||
	    rc_buf_alloc(a, &src, N * LEN, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &dst, N * LEN, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
		RC_CHECK_MSG(0, "control threads setup");
		free(sw);
		return;
	}
	rc_fill(src.p, src.len, 5);
	memset(dst.p, 0, dst.len);
	for (i = 0; i < THREADS; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].side = a;
		c[i].dest_qpn = b->qp->qp_num;
		if (pthread_create(&th[i], NULL, churn_main, &c[i]) == 0)
			started++;
	}
	RC_CHECK_EQ(started, THREADS);
	for (i = 0; i < N; i++) {
		struct dr_sge ls = { (uint64_t)(uintptr_t)(src.p + (size_t)i * LEN), LEN, src.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, i, DR_WR_RDMA_WRITE, &ls, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)(dst.p + (size_t)i * LEN), dst.mr->rkey, 0), 0);
		if (i % 64 == 63)
			RC_CHECK(rc_wait_wcs(e, a->scq, sw, i + 1, 10000000));
	}
	/*
	 * We are the wire between the two contexts: keep it moving until the
	 * threads are done, yielding often (the control thread shares our CPU).
	 */
	while (__atomic_load_n(&churn_done, __ATOMIC_ACQUIRE) < started) {
		rc_run(e, 20, NULL, NULL);
		sched_yield();
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	RC_CHECK(rc_wait_wcs(e, a->scq, sw, N, 10000000));
	for (i = 0; i < sw->n; i++)
		RC_CHECK_MSG(sw->wc[i].status == DR_WC_SUCCESS, "WRITE %u: %s", i, dr_wc_status_str(sw->wc[i].status));
	RC_CHECK(memcmp(src.p, dst.p, dst.len) == 0);
	for (i = 0; i < THREADS; i++)
		RC_CHECK_MSG(c[i].errors == 0, "thread %u: %u errors, first %s", i, c[i].errors, c[i].what);
	/* a worker lcore of the context cannot wait for the control thread (it may wait for it) */
	{
		struct dr_worker *saved = RTE_PER_LCORE(dr_cur_worker);

		RTE_PER_LCORE(dr_cur_worker) = &a->ctx->wk[0];
		errno = 0;
		RC_CHECK(dr_alloc_pd(a->ctx) == NULL && errno == EDEADLK);
		RC_CHECK_EQ(dr_dereg_mr(src.mr), -EDEADLK);
		RTE_PER_LCORE(dr_cur_worker) = saved;
	}
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	RC_CHECK_EQ(a->ctx->num_qps, qps0);
	RC_CHECK_EQ(a->ctx->num_mrs, mrs0);
	RC_CHECK_EQ(a->ctx->num_pds, pds0);
	RC_CHECK_EQ(a->ctx->num_cqs, cqs0);
	free(sw);
}

/*
 * ibv_post_send(3): a WR's slot is free once its completion is polled. With
 * a one-WR send queue, each WRITE is posted the moment the previous one's
 * completion comes out of the CQ: never ENOMEM (the completer frees the slot
 * before it pushes the completion).
 */
static void
test_slot_free_at_completion(struct rc_env *e)
{
	enum { N = 500, LEN = 64 };     /* rc_wcs holds 512 */
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs *w = calloc(1, sizeof(*w));
	struct rc_qp_params p;
	struct rc_buf src, dst;
	unsigned int i, refused = 0;

	rc_params_default(&p);
	p.max_wr = 1;
	if (w == NULL || rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, LEN, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &dst, LEN, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
		RC_CHECK_MSG(0, "slot test setup");
		free(w);
		return;
	}
	for (i = 0; i < N; i++) {
		struct dr_sge ls = { (uint64_t)(uintptr_t)src.p, LEN, src.mr->lkey };

		refused += rc_post_send(a, i, DR_WR_RDMA_WRITE, &ls, 1, DR_SEND_SIGNALED,
					(uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0) != 0;
		if (!rc_wait_wcs(e, a->scq, w, i + 1, 5000000))
			break;
	}
	RC_CHECK_EQ(refused, 0);
	RC_CHECK_EQ(w->n, N);
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	free(w);
}

/*
 * Inline mode (dr_cq.c, cq_poll()): a poll that finds completions waiting
 * returns them without another progress round; a poll of an empty CQ
 * drives the transport. Every round reads the run clock's base
 * (dr_run_clock_base, which the harness points at its wire clock): its
 * reads count the rounds.
 */
static unsigned int base_reads;
static uint64_t (*base_wrapped)(void);

static uint64_t
base_counted(void)
{
	base_reads++;
	return base_wrapped();
}

static unsigned int
cq_waiting(struct dr_cq *pub)
{
	const struct dr_cq_impl *cq = dr_cq_impl(pub);
	unsigned int n = 0;

	for (uint16_t i = 0; i < cq->nlanes; i++)
		n += __atomic_load_n(&cq->lane[i].head, __ATOMIC_ACQUIRE) - cq->lane[i].tail;
	return n;
}

static void
test_poll_before_progress(struct rc_env *e)
{
	enum { N = 3, LEN = 64 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_wc wc[N];
	unsigned int i;

	if (!rc_inline_only("test_poll_before_progress", "the test counts the caller's own rounds"))
		return;
	rc_params_default(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, LEN, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &dst, LEN, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
		RC_CHECK_MSG(0, "poll test setup");
		return;
	}
	for (i = 0; i < N; i++) {
		struct dr_sge ls = { (uint64_t)(uintptr_t)src.p, LEN, src.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, i, DR_WR_RDMA_WRITE, &ls, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0), 0);
	}
	for (i = 0; i < 1000 && cq_waiting(a->scq) < N; i++)
		rc_round(e);
	RC_CHECK_EQ(cq_waiting(a->scq), N);
	base_wrapped = dr_run_clock_base;
	dr_run_clock_base = base_counted;
	base_reads = 0;
	RC_CHECK_EQ(dr_poll_cq(a->scq, 1, wc), 1);
	RC_CHECK_EQ(wc[0].wr_id, 0);
	RC_CHECK_EQ(base_reads, 0);                 /* waiting: no round */
	RC_CHECK_EQ(dr_poll_cq(a->scq, N, wc), N - 1);
	RC_CHECK(wc[0].wr_id == 1 && wc[1].wr_id == 2 && wc[1].status == DR_WC_SUCCESS);
	RC_CHECK_EQ(base_reads, 0);
	RC_CHECK_EQ(dr_poll_cq(a->scq, N, wc), 0);
	RC_CHECK_MSG(base_reads != 0, "an empty CQ's poll ran no round");   /* empty: a round */
	dr_run_clock_base = base_wrapped;
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
}

static void
run(struct rc_env *e)
{
	struct rx_snap before, after;

	rx_snap_take(e, &before);
	test_shared_cq(e);
	rx_snap_take(e, &after);
	check_rx_queues(e, &before, &after);
	test_lifecycle_under_traffic(e);
	test_dereg_race(e);
	test_dereg_local(e);
	test_dereg_recv(e);
	test_control_threads(e);
	test_slot_free_at_completion(e);
	test_poll_before_progress(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_engine", argv[0], 4200, run);
}
