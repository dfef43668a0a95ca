/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Workers as objects (dr_worker.h): their roles and groups, their rings, the
 * queues they own, the placement of QPs on them, their active QP lists, their
 * counters, and the transmit staging every stage queues its frames on.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "dr_context.h"
#include "dr_engine.h"
#include "dr_engine_sched.h"
#include "dr_log.h"
#include "dr_qp_impl.h"

RTE_DEFINE_PER_LCORE(struct dr_worker *, dr_cur_worker);

/* Frames in flight between two workers, per ring. */
#define DR_WK_RING_SIZE 1024
/* Slow-path calls queued on one worker at a time. */
#define DR_WK_CMD_RING 64
/* Frames control threads may queue for worker 0. */
#define DR_WK_CTL_RING 256
/* QPs a pipeline's rx worker may hand its completion worker to fail at once. */
#define DR_WK_FAIL_RING 1024

struct rte_ring *
dr_engine_ring_make(const struct dr_context *ctx, const char *what, unsigned int a, unsigned int b,
	  unsigned int size, unsigned int flags)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), "dr%u_%s%u_%u", ctx->port_id, what, a, b);
	r = rte_ring_create(name, size, rte_socket_id(), flags);
	if (r == NULL)
		DR_LOG(ctx, ERR, "port %u: ring %s: %s", ctx->port_id, name, rte_strerror(rte_errno));
	return r;
}

void
dr_engine_frame_ring_free(struct rte_ring **r)
{
	struct rte_mbuf *m;

	if (*r == NULL)
		return;
	while (rte_ring_dequeue(*r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(*r);
	*r = NULL;
}

static void
rings_free(struct dr_worker *wk)
{
	unsigned int j;

	for (j = 0; j < DR_MAX_WORKERS; j++) {
		dr_engine_frame_ring_free(&wk->redirect[j]);
		dr_engine_frame_ring_free(&wk->txq_in[j]);
	}
	dr_engine_frame_ring_free(&wk->ctl_tx);
	rte_ring_free(wk->cmd);
	wk->cmd = NULL;
	rte_ring_free(wk->fail_in);        /* QP pointers, nothing to free */
	wk->fail_in = NULL;
	rte_ring_free(wk->doorbell);       /* QPNs */
	wk->doorbell = NULL;
}

/*
 * Whether worker @to takes frames from worker @from: rtc workers all from
 * each other; in a pipeline, an rx worker from the other rx workers (frames
 * of its group's QPs, ARP / ND for worker 0) and a completion worker from
 * its group's rx worker (responses).
 */
static bool
redirect_needed(const struct dr_context *ctx, uint16_t to, uint16_t from)
{
	if (to == from)
		return false;
	if (ctx->attr.mode != DR_PROGRESS_PIPELINE)
		return true;
	switch (to % DR_WK_ROLES) {
	case DR_WK_RX:
		return from % DR_WK_ROLES == DR_WK_RX;
	case DR_WK_COMP:
		return from == to - DR_WK_COMP;
	default:
		return false;
	}
}

int
dr_engine_init(struct dr_context *ctx)
{
	uint16_t n = ctx->nb_workers, i, j;
	const unsigned int spsc = RING_F_SP_ENQ | RING_F_SC_DEQ;

	ctx->wk = rte_zmalloc("dr_workers", n * sizeof(*ctx->wk), RTE_CACHE_LINE_SIZE);
	if (ctx->wk == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct dr_worker *wk = &ctx->wk[i];

		wk->ctx = ctx;
		wk->id = i;
		wk->lcore = RTE_MAX_LCORE;
		wk->rx_budget = DR_RX_BUDGET_ANY;
		wk->rxq = DR_WK_NO_QUEUE;
		wk->txq = DR_WK_NO_QUEUE;
		/* inline: the application's thread, whose gaps are its own choice (dr_run_clock.h) */
		dr_run_clock_init(&wk->clock, dr_run_clock_base_now(rte_rdtsc()),
				  rte_get_tsc_hz() / 1000000u * DR_STALL_CAP_US,
				  ctx->attr.mode == DR_PROGRESS_INLINE);
		TAILQ_INIT(&wk->active);
		TAILQ_INIT(&wk->hot);
		if (ctx->attr.mode == DR_PROGRESS_PIPELINE) {
			uint16_t g = i / DR_WK_ROLES;

			wk->role = (enum dr_wk_role)(i % DR_WK_ROLES);
			for (j = 0; j < DR_WK_ROLES; j++)
				wk->grp[j] = &ctx->wk[g * DR_WK_ROLES + j];
		} else {
			wk->role = DR_WK_ALL;
			for (j = 0; j < DR_WK_ROLES; j++)
				wk->grp[j] = wk;
		}
		if (ctx->attr.mode != DR_PROGRESS_INLINE) {
			/* any application thread may call: multi-producer */
			wk->cmd = dr_engine_ring_make(ctx, "cmd", i, 0, DR_WK_CMD_RING, RING_F_SC_DEQ);
			if (wk->cmd == NULL)
				goto fail;
		}
		if (wk->role == DR_WK_ALL) {
			/* any application thread may post: multi-producer */
			wk->doorbell = dr_engine_ring_make(ctx, "db", i, 0, DR_SCHED_DOORBELLS, RING_F_SC_DEQ);
			if (wk->doorbell == NULL)
				goto fail;
		}
		if (wk->role == DR_WK_COMP) {
			wk->fail_in = dr_engine_ring_make(ctx, "fail", i, 0, DR_WK_FAIL_RING, spsc);
			if (wk->fail_in == NULL)
				goto fail;
		}
		for (j = 0; j < n; j++) {
			if (!redirect_needed(ctx, i, j))
				continue;
			wk->redirect[j] = dr_engine_ring_make(ctx, "rd", i, j, DR_WK_RING_SIZE, spsc);
			if (wk->redirect[j] == NULL)
				goto fail;
		}
	}
	ctx->wk[0].ctl_tx = dr_engine_ring_make(ctx, "ctl", 0, 0, DR_WK_CTL_RING, RING_F_SC_DEQ);
	if (ctx->wk[0].ctl_tx == NULL)
		goto fail;
	return 0;
fail:
	for (i = 0; i < n; i++)
		rings_free(&ctx->wk[i]);
	rte_free(ctx->wk);
	ctx->wk = NULL;
	return -ENOMEM;
}

/*
 * After the backend opened the port with nb_rxq / nb_txq queues: rtc worker
 * (pipeline group) g owns queue g of each where there is one; in a group the
 * rx worker owns the rx queue and the tx worker the tx queue. A worker
 * without a tx queue hands its frames to the one that sends for it (its
 * group's tx worker, else the first tx queue's owner) over a txq_in ring; one
 * without an rx queue gets its frames from the others' redirect rings only.
 */
int
dr_engine_assign_queues(struct dr_context *ctx, uint16_t first_rxq, uint16_t first_txq)
{
	bool pipe = ctx->attr.mode == DR_PROGRESS_PIPELINE;
	struct dr_worker *sender0 = pipe ? &ctx->wk[DR_WK_TX] : &ctx->wk[0];
	uint32_t held_max = ctx->pool->size / (4u * ctx->nb_groups);
	uint32_t app_hold = ctx->attr.app_pool_hold != 0 ? ctx->attr.app_pool_hold : DR_APP_POOL_HOLD_DEFAULT;
	uint32_t app_max = app_hold / ctx->nb_groups;
	uint16_t i;

	/*
	 * a quarter of the pool for requests held behind READs, shared by the
	 * responders' workers; of those, dr_context_attr.app_pool_hold from the
	 * application's pools (dr_resp_keep())
	 */
	for (i = 0; i < ctx->nb_workers; i++) {
		ctx->wk[i].resp_held_max = held_max > 0 ? held_max : 1;
		ctx->wk[i].app_held_max = app_max > 0 ? app_max : 1;
	}

	for (i = 0; i < ctx->nb_workers; i++) {
		struct dr_worker *wk = &ctx->wk[i];
		uint16_t g = pipe ? i / DR_WK_ROLES : i;

		if (wk->role == DR_WK_ALL || wk->role == DR_WK_RX)
			wk->rxq = g < ctx->nb_rxq ? (uint16_t)(first_rxq + g) : DR_WK_NO_QUEUE;
		if (wk->role == DR_WK_ALL || wk->role == DR_WK_TX)
			wk->txq = g < ctx->nb_txq ? (uint16_t)(first_txq + g) : DR_WK_NO_QUEUE;
	}
	for (i = 0; i < ctx->nb_workers; i++) {
		struct dr_worker *wk = &ctx->wk[i];

		if (wk->txq != DR_WK_NO_QUEUE)
			continue;
		wk->tx_via = wk->grp[DR_WK_TX]->txq != DR_WK_NO_QUEUE ? wk->grp[DR_WK_TX] : sender0;
		wk->tx_via->txq_in[i] = dr_engine_ring_make(ctx, "tx", wk->tx_via->id, i, DR_WK_RING_SIZE,
						  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (wk->tx_via->txq_in[i] == NULL)
			return -ENOMEM;
	}
	return 0;
}

void
dr_engine_free(struct dr_context *ctx)
{
	uint16_t i;

	if (ctx->wk == NULL)
		return;
	for (i = 0; i < ctx->nb_workers; i++) {
		struct dr_worker *wk = &ctx->wk[i];

		if (wk->tx_count != 0)
			rte_pktmbuf_free_bulk(wk->tx_buf, wk->tx_count);
		wk->tx_count = 0;
		rings_free(wk);
	}
	rte_free(ctx->wk);
	ctx->wk = NULL;
}

uint64_t
dr_engine_frames_held(const struct dr_context *ctx)
{
	uint64_t w = ctx->nb_workers, rings = 0;
	uint16_t i, j;

	/* staging of each worker, the redirect rings (dr_engine_init() made them), tx
	 * hand-off rings (at most one per worker), the control ring */
	for (i = 0; i < w; i++)
		for (j = 0; j < w; j++)
			rings += ctx->wk[i].redirect[j] != NULL;
	return w * RTE_DIM(ctx->wk[0].tx_buf) + rings * DR_WK_RING_SIZE + w * DR_WK_RING_SIZE +
	       DR_WK_CTL_RING;
}

struct dr_worker *
dr_engine_place(struct dr_context *ctx)
{
	/* a pipeline group is known by its rx worker (where its QPs' frames arrive) */
	uint16_t per = ctx->attr.mode == DR_PROGRESS_PIPELINE ? DR_WK_ROLES : 1;
	struct dr_worker *wk = &ctx->wk[ctx->next_worker * per];

	ctx->next_worker = (uint16_t)((ctx->next_worker + 1) % ctx->nb_groups);
	return wk;
}

/* ------------------------------------------------------------ active QPs */

/* QP states with transport work: receiving, sending, or draining after an error. */
static inline bool
state_has_work(enum dr_qp_state st)
{
	switch (st) {
	case DR_QPS_RTR:
	case DR_QPS_RTS:
	case DR_QPS_SQD:
	case DR_QPS_SQE:
	case DR_QPS_ERR:
		return true;
	default:
		return false;
	}
}

/*
 * The QP on (off) the active list of each worker that runs a stage of it:
 * its worker, or the three workers of its pipeline group (changed while
 * they are parked: dr_engine_pipeline.c).
 */
static void
lists_add(struct dr_qp_impl *qp)
{
	unsigned int r, n = qp->wk->role == DR_WK_ALL ? 1 : DR_WK_ROLES;

	for (r = 0; r < n; r++) {
		struct dr_worker *w = qp->wk->grp[r];

		TAILQ_INSERT_TAIL(&w->active, qp, wk_link[r]);
		w->num_active++;
		dr_sched_update(w);
	}
}

static void
lists_del(struct dr_qp_impl *qp)
{
	unsigned int r, n = qp->wk->role == DR_WK_ALL ? 1 : DR_WK_ROLES;

	for (r = 0; r < n; r++) {
		struct dr_worker *w = qp->wk->grp[r];

		if (w->role == DR_WK_ALL)
			dr_sched_forget(w, qp);
		TAILQ_REMOVE(&w->active, qp, wk_link[r]);
		w->num_active--;
		dr_sched_update(w);
	}
}

void
dr_engine_qp_update(struct dr_qp_impl *qp)
{
	bool want = state_has_work(qp->pub.state);

	if (want == qp->active) {
		if (want && qp->wk->many)
			dr_sched_mark(qp->wk, qp);   /* a new state: its next round acts on it */
		return;
	}
	if (want)
		lists_add(qp);
	else
		lists_del(qp);
	qp->active = want;
	if (want && qp->wk->many)
		dr_sched_mark(qp->wk, qp);
}

void
dr_engine_qp_remove(struct dr_qp_impl *qp)
{
	if (!qp->active)
		return;
	lists_del(qp);
	qp->active = false;
}

/* ------------------------------------------------------------ counters */

struct dr_ctx_stats
dr_ctx_stats_sum(const struct dr_context *ctx)
{
	struct dr_ctx_stats sum;
	uint16_t i;

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < ctx->nb_workers; i++) {
		const uint64_t *src = (const uint64_t *)&ctx->wk[i].stats;
		uint64_t *dst = (uint64_t *)&sum;
		size_t k;

		/* every field is a uint64_t counter, read whole (a worker may be adding) */
		for (k = 0; k < sizeof(sum) / sizeof(uint64_t); k++)
			dst[k] += __atomic_load_n(&src[k], __ATOMIC_RELAXED);
	}
	return sum;
}

void
dr_ctx_stats_reset(struct dr_context *ctx)
{
	uint16_t i;

	for (i = 0; i < ctx->nb_workers; i++)
		memset(&ctx->wk[i].stats, 0, sizeof(ctx->wk[i].stats));
}

/* ------------------------------------------------------------ transmit */

void
dr_wk_tx_flush(struct dr_worker *wk)
{
	struct dr_context *ctx = wk->ctx;
	uint16_t sent;

	if (wk->tx_count == 0)
		return;
	if (likely(wk->txq != DR_WK_NO_QUEUE)) {
		sent = ctx->io_tx(&ctx->bport, wk->txq, wk->tx_buf, wk->tx_count);
		if (sent > wk->tx_count)
			sent = wk->tx_count;   /* a backend bug must not corrupt the array */
		wk->stats.tx_pkts += sent;
	} else {
		/* no queue of our own: tx_via sends for us (and counts them) */
		sent = (uint16_t)rte_ring_sp_enqueue_burst(wk->tx_via->txq_in[wk->id],
							   (void **)wk->tx_buf, wk->tx_count, NULL);
	}
	wk->tx_count -= sent;
	if (wk->tx_count != 0 && sent != 0)
		memmove(wk->tx_buf, wk->tx_buf + sent, wk->tx_count * sizeof(wk->tx_buf[0]));
}

void
dr_wk_tx_full(struct dr_worker *wk, struct rte_mbuf *m)
{
	dr_wk_tx_flush(wk);
	if (wk->tx_count == RTE_DIM(wk->tx_buf)) {
		/* the PMD takes nothing: drop as a full tx ring would */
		wk->stats.tx_dropped++;
		rte_pktmbuf_free(m);
		return;
	}
	wk->tx_staged_bytes += m->pkt_len;
	wk->tx_buf[wk->tx_count++] = m;
}

/*
 * A frame built by the backend or a control call: on the calling worker's
 * staging when the caller is a worker of @ctx, else through worker 0's
 * control ring (dropped when it is full: ARP / ND retry on their own).
 */
void
dr_ctx_tx(struct dr_context *ctx, struct rte_mbuf *m)
{
	struct dr_worker *wk = RTE_PER_LCORE(dr_cur_worker);

	if (wk != NULL && wk->ctx == ctx) {
		dr_wk_tx(wk, m);
		return;
	}
	if (rte_ring_mp_enqueue(ctx->wk[0].ctl_tx, m) != 0)
		rte_pktmbuf_free(m);
}

void
dr_backend_tx(struct dr_backend_port *bp, struct rte_mbuf *m)
{
	dr_ctx_tx(container_of(bp, struct dr_context, bport), m);
}

int
dr_engine_ctl_tx(struct dr_worker *wk)
{
	struct rte_mbuf *pkts[DR_BURST];
	unsigned int n, i, j, total = 0;

	if (wk->ctl_tx != NULL) {
		n = rte_ring_sc_dequeue_burst(wk->ctl_tx, (void **)pkts, DR_BURST, NULL);
		for (i = 0; i < n; i++)
			dr_wk_tx(wk, pkts[i]);
		total += n;
	}
	for (j = 0; j < wk->ctx->nb_workers; j++) {
		if (wk->txq_in[j] == NULL)
			continue;
		n = rte_ring_sc_dequeue_burst(wk->txq_in[j], (void **)pkts, DR_BURST, NULL);
		for (i = 0; i < n; i++)
			dr_wk_tx(wk, pkts[i]);
		total += n;
	}
	return (int)total;
}
