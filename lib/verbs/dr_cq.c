/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Completion queues (ibv_create_cq(3), ibv_destroy_cq(3), ibv_poll_cq(3)):
 * a power-of-two ring of work completions per worker of the context (a
 * lane: single producer, single consumer), written by the transport
 * (dr_cq_push) and read by dr_poll_cq(). An overrun loses a completion and
 * puts the CQ in error for good (IBA 11.4.2.1): every later poll reports
 * -EOVERFLOW and the QPs that use the CQ are moved to ERR.
 */

#include <errno.h>
#include <inttypes.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_malloc.h>

#include "dr_context.h"
#include "dr_control.h"
#include "dr_log.h"
#include "dr_qp_impl.h"

static int cq_poll(struct dr_cq *cq, int num_entries, struct dr_wc *wc);

static const struct dr_cq_ops dr_cq_ops = {
	.poll = cq_poll,
};

static void
lanes_free(struct dr_cq_impl *cq)
{
	for (unsigned int i = 0; i < cq->nlanes; i++)
		rte_free(cq->lane[i].ring);
	rte_free(cq->lane);
}

static struct dr_cq *
create_fail(int err)
{
	errno = err;
	return NULL;
}

static struct dr_cq *
create_cq_ctl(struct dr_context *ctx, int cqe, void *cq_context, struct dr_comp_channel *channel, int comp_vector)
{
	struct dr_cq_impl *cq;
	uint32_t size;

	if (ctx == NULL)
		return create_fail(EINVAL);
	/* ibv_create_cq(3): cqe at least 1, at most the device's max_cqe */
	if (cqe < 1 || cqe > DR_MAX_CQE) {
		DR_LOG(ctx, INFO, "create_cq: cqe %d outside 1..%d", cqe, DR_MAX_CQE);
		return create_fail(EINVAL);
	}
	if (channel != NULL && channel->context != ctx)
		return create_fail(EINVAL);
	/* no completion vectors: ibv_create_cq(3) wants comp_vector < num_comp_vectors */
	if (comp_vector != 0)
		return create_fail(EINVAL);
	if (ctx->num_cqs >= DR_MAX_CQ)
		return create_fail(ENOMEM);

	size = rte_align32pow2((uint32_t)cqe + 1);
	cq = rte_zmalloc("dr_cq", sizeof(*cq), RTE_CACHE_LINE_SIZE);
	if (cq == NULL)
		return create_fail(ENOMEM);
	/* a lane per worker: each can hold every completion the CQ was asked for */
	cq->nlanes = ctx->nb_workers;
	cq->lane = rte_zmalloc("dr_cq_lanes", cq->nlanes * sizeof(*cq->lane), RTE_CACHE_LINE_SIZE);
	if (cq->lane == NULL) {
		rte_free(cq);
		return create_fail(ENOMEM);
	}
	for (unsigned int i = 0; i < cq->nlanes; i++) {
		cq->lane[i].ring = rte_zmalloc("dr_cq_ring", size * sizeof(struct dr_wc), RTE_CACHE_LINE_SIZE);
		if (cq->lane[i].ring == NULL) {
			lanes_free(cq);
			rte_free(cq);
			return create_fail(ENOMEM);
		}
	}
	cq->size = size;
	cq->pub.context = ctx;
	cq->pub.cq_context = cq_context;
	cq->pub.cqe = (int)(size - 1);      /* as granted: at least cqe */
	cq->pub.ops = &dr_cq_ops;
	cq->channel = channel;
	if (channel != NULL)
		channel->refcnt++;
	ctx->num_cqs++;
	return &cq->pub;
}

/* dr_create_cq() as a control command (dr_control.h) */
struct create_cq_args {
	struct dr_context *ctx;
	int cqe;
	void *cq_context;
	struct dr_comp_channel *channel;
	int comp_vector;
	struct dr_cq *ret;
};

static int
create_cq_call(void *arg)
{
	struct create_cq_args *a = arg;

	a->ret = create_cq_ctl(a->ctx, a->cqe, a->cq_context, a->channel, a->comp_vector);
	return 0;
}

struct dr_cq *
dr_create_cq(struct dr_context *ctx, int cqe, void *cq_context, struct dr_comp_channel *channel, int comp_vector)
{
	struct create_cq_args a = { .ctx = ctx, .cqe = cqe, .cq_context = cq_context, .channel = channel, .comp_vector = comp_vector };

	if (ctx == NULL)
		return create_cq_ctl(ctx, cqe, cq_context, channel, comp_vector);
	(void)dr_ctl_run(ctx, create_cq_call, &a);
	return a.ret;
}

static int
destroy_cq_ctl(struct dr_cq *pub)
{
	struct dr_cq_impl *cq;

	if (pub == NULL)
		return -EINVAL;
	cq = dr_cq_impl(pub);
	/* ibv_destroy_cq(3): fails while a QP is associated with it */
	if (cq->refcnt != 0) {
		DR_LOG(ctx, INFO, "destroy_cq: still used by %u QP queues", cq->refcnt);
		return -EBUSY;
	}
	/* ibv_destroy_cq(3) / ibv_ack_cq_events(3): every event handed out must be acknowledged */
	if (cq->events_got != cq->events_acked || cq->async_unacked != 0) {
		DR_LOG(ctx, INFO, "destroy_cq: %u completion and %u async events unacknowledged",
		       cq->events_got - cq->events_acked, cq->async_unacked);
		return -EBUSY;
	}
	dr_channel_forget(cq);
	dr_async_forget(pub->context, pub);
	if (cq->channel != NULL)
		cq->channel->refcnt--;
	pub->context->num_cqs--;
	lanes_free(cq);
	rte_free(cq);
	return 0;
}

/* dr_destroy_cq() as a control command (dr_control.h) */
struct destroy_cq_args {
	struct dr_cq *pub;
};

static int
destroy_cq_call(void *arg)
{
	struct destroy_cq_args *a = arg;

	return destroy_cq_ctl(a->pub);
}

int
dr_destroy_cq(struct dr_cq *pub)
{
	struct destroy_cq_args a = { .pub = pub };

	if (pub == NULL)
		return destroy_cq_ctl(pub);
	return dr_ctl_run(pub->context, destroy_cq_call, &a);
}

static void cq_notify(struct dr_cq_impl *cq, struct dr_worker *wk, bool se);

int
dr_cq_push_se(struct dr_cq_impl *cq, const struct dr_wc *wc, bool solicited)
{
	struct dr_worker *wk = RTE_PER_LCORE(dr_cur_worker);
	struct dr_cq_lane *ln;
	uint32_t head;

	ln = &cq->lane[wk != NULL && wk->ctx == cq->pub.context ? wk->id : 0];
	if (__atomic_load_n(&cq->overrun, __ATOMIC_RELAXED))
		return -EOVERFLOW;      /* in error: every completion is lost */
	head = ln->head;
	if (head - __atomic_load_n(&ln->tail, __ATOMIC_ACQUIRE) == cq->size) {
		__atomic_store_n(&cq->overrun, true, __ATOMIC_RELEASE);
		DR_LOG(ctx, ERR, "CQ %p overrun (%u entries): completion of wr_id 0x%" PRIx64 " on QP 0x%x lost",
		       (void *)cq, cq->size, wc->wr_id, wc->qp_num);
		/* IBA 11.4.2.1 / 11.6.3: the CQ error is an affiliated asynchronous event */
		dr_async_raise(cq->pub.context, DR_EVENT_CQ_ERR, &cq->pub);
		return -EOVERFLOW;
	}
	ln->ring[head & (cq->size - 1)] = *wc;
	__atomic_store_n(&ln->head, head + 1, __ATOMIC_RELEASE);
	if (cq->channel != NULL)
		cq_notify(cq, wk, solicited || wc->status != DR_WC_SUCCESS);
	return 0;
}

/*
 * Whether an armed CQ gets an event. The pusher stores the lane's head,
 * then loads cq->notify; dr_req_notify_cq() stores notify, then the
 * application loads the heads (dr_poll_cq()). Each side is a store then a
 * load of the other's variable: without a full fence on both sides each
 * load may pass its own store (x86 store buffers do this), both miss, and
 * dr_get_cq_event() blocks with a completion queued (a lost wakeup). The
 * application's side fences in dr_req_notify_cq(); ours fences once per
 * round: a worker notes the CQs it pushed to and checks them at the
 * round's end (dr_cq_notify_flush()), outside a round at once.
 * IBA 11.4.2.2: a solicited-only request fires on a solicited or an
 * unsuccessful completion (@se).
 */
static void
cq_notify_now(struct dr_cq_impl *cq, bool se)
{
	if (__atomic_load_n(&cq->notify, __ATOMIC_ACQUIRE) != DR_CQ_NOTIFY_NONE)
		dr_cq_event(cq, se);
}

static void
cq_notify(struct dr_cq_impl *cq, struct dr_worker *wk, bool se)
{
	uint16_t i;

	if (wk != NULL && wk->ctx == cq->pub.context && wk->in_round) {
		for (i = 0; i < wk->notify_n; i++)
			if (wk->notify_cq[i] == cq) {
				wk->notify_se[i] |= se;
				return;
			}
		if (wk->notify_n < DR_WK_NOTIFY_CQS) {
			wk->notify_cq[wk->notify_n] = cq;
			wk->notify_se[wk->notify_n++] = se;
			return;
		}
	}
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	cq_notify_now(cq, se);
}

void
dr_cq_notify_flush(struct dr_worker *wk)
{
	uint16_t i;

	if (likely(wk->notify_n == 0))
		return;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);      /* the heads stored, before notify is loaded */
	for (i = 0; i < wk->notify_n; i++)
		cq_notify_now(wk->notify_cq[i], wk->notify_se[i]);
	wk->notify_n = 0;
}

int
dr_cq_push(struct dr_cq_impl *cq, const struct dr_wc *wc)
{
	return dr_cq_push_se(cq, wc, false);
}

/* IBA 11.4.2.1: after an overrun the QPs of the CQ go to the error state. */
static void
cq_error_qps(struct dr_cq_impl *cq)
{
	struct dr_context *ctx = cq->pub.context;
	struct dr_qp_impl *qp;

	/* the context's QPs (not its whole table); no QP comes or goes meanwhile */
	pthread_mutex_lock(&ctx->ctl_lock);
	TAILQ_FOREACH(qp, &ctx->qps, ctx_link) {
		enum dr_qp_state st = __atomic_load_n(&qp->pub.state, __ATOMIC_ACQUIRE);

		if (st == DR_QPS_ERR || st == DR_QPS_RESET)
			continue;
		if (qp->pub.send_cq == &cq->pub || qp->pub.recv_cq == &cq->pub)
			(void)dr_qp_error_on_worker(qp);
	}
	pthread_mutex_unlock(&ctx->ctl_lock);
}

/* Completions written and not yet taken, in any lane (the workers' heads against our tails)? */
static bool
cq_queued(const struct dr_cq_impl *cq)
{
	for (uint16_t i = 0; i < cq->nlanes; i++)
		if (__atomic_load_n(&cq->lane[i].head, __ATOMIC_ACQUIRE) != cq->lane[i].tail)
			return true;
	return false;
}

static int
cq_poll(struct dr_cq *pub, int num_entries, struct dr_wc *wc)
{
	struct dr_cq_impl *cq = dr_cq_impl(pub);
	uint32_t tail, avail, n, i;

	/* ibv_poll_cq(3): a negative count or no array is an error */
	if (num_entries < 0 || (wc == NULL && num_entries > 0))
		return -EINVAL;
	/*
	 * inline mode: the caller's thread drives the transport (its errors are
	 * its own), when nothing waits here to be taken: completions already
	 * written go back first, a round later, not after another round each;
	 * and when no round ran since this CQ's last poll: a loop that calls
	 * dr_progress() itself, or polls several CQs, pays one round per turn,
	 * while a loop that only polls this CQ still drives one every call
	 */
	if (pub->context->attr.mode == DR_PROGRESS_INLINE && !cq_queued(cq) &&
	    cq->inline_seen == pub->context->inline_rounds)
		(void)dr_progress(pub->context);
	cq->inline_seen = pub->context->inline_rounds;
	if (__atomic_load_n(&cq->overrun, __ATOMIC_ACQUIRE)) {
		cq_error_qps(cq);
		return -EOVERFLOW;
	}
	/* every lane in turn, starting after the one read first last time (no lane starves) */
	n = 0;
	for (i = 0; i < cq->nlanes && n < (uint32_t)num_entries; i++) {
		struct dr_cq_lane *ln = &cq->lane[(cq->next_lane + i) % cq->nlanes];
		uint32_t k, take;

		tail = ln->tail;
		avail = __atomic_load_n(&ln->head, __ATOMIC_ACQUIRE) - tail;
		take = RTE_MIN(avail, (uint32_t)num_entries - n);
		for (k = 0; k < take; k++)
			wc[n + k] = ln->ring[(tail + k) & (cq->size - 1)];
		__atomic_store_n(&ln->tail, tail + take, __ATOMIC_RELEASE);
		n += take;
	}
	if (cq->nlanes > 1)
		cq->next_lane = (uint16_t)((cq->next_lane + 1) % cq->nlanes);
	return (int)n;
}
