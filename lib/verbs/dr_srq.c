/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Shared receive queues (ibv_create_srq(3), ibv_modify_srq(3),
 * ibv_query_srq(3), ibv_destroy_srq(3), ibv_post_srq_recv(3); IBA 10.2.9):
 * a ring of receive WQEs that several QPs of its context take from, and the
 * SRQ limit: once armed, the first time fewer than srq_limit WQEs remain the
 * SRQ_LIMIT_REACHED async event is raised and the limit disarmed.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "dr_context.h"
#include "dr_control.h"
#include "dr_engine.h"
#include "dr_log.h"
#include "dr_srq.h"

static int
ring_alloc(struct dr_rq *rq, uint32_t max_wr, uint32_t max_sge)
{
	uint32_t i;

	rq->max_wr = max_wr;
	rq->size = rte_align32pow2(max_wr);
	rq->max_sge = max_sge;
	rq->wqe = rte_zmalloc("dr_srq", rq->size * sizeof(*rq->wqe), RTE_CACHE_LINE_SIZE);
	rq->sges = rte_zmalloc("dr_srq_sge", rq->size * max_sge * sizeof(*rq->sges), RTE_CACHE_LINE_SIZE);
	if (rq->wqe == NULL || rq->sges == NULL) {
		rte_free(rq->wqe);
		rte_free(rq->sges);
		return -ENOMEM;
	}
	for (i = 0; i < rq->size; i++)
		rq->wqe[i].sge = &rq->sges[i * max_sge];
	rq->head = rq->tail = 0;
	return 0;
}

struct dr_srq *
dr_srq_create(struct dr_pd *pd, void *srq_context, struct dr_srq_attr *attr, enum dr_srq_type type,
	      struct dr_xrcd_impl *xrcd, struct dr_cq *cq)
{
	struct dr_context *ctx = pd->context;
	struct dr_srq_impl *srq;
	uint32_t max_sge, slot;

	/* ibv_create_srq(3): max_wr and max_sge within the device's max_srq_wr / max_srq_sge */
	if (attr->max_wr < 1 || attr->max_wr > DR_MAX_SRQ_WR || attr->max_sge > DR_MAX_SGE) {
		DR_LOG(qp, INFO, "create_srq: max_wr %u / max_sge %u outside 1..%u / 0..%u", attr->max_wr,
		       attr->max_sge, DR_MAX_SRQ_WR, DR_MAX_SGE);
		errno = EINVAL;
		return NULL;
	}
	for (slot = 0; slot < DR_MAX_SRQ && ctx->srq_table[slot] != NULL; slot++)
		;
	if (slot == DR_MAX_SRQ) {
		errno = ENOMEM;
		return NULL;
	}
	srq = rte_zmalloc("dr_srq_obj", sizeof(*srq), RTE_CACHE_LINE_SIZE);
	if (srq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	max_sge = RTE_MAX(attr->max_sge, 1u);
	if (ring_alloc(&srq->rq, attr->max_wr, max_sge) != 0) {
		rte_free(srq);
		errno = ENOMEM;
		return NULL;
	}
	srq->pub.context = ctx;
	srq->pub.srq_context = srq_context;
	srq->pub.pd = pd;
	srq->pub.handle = slot;
	srq->num = slot + 1;
	srq->type = type;
	srq->xrcd = xrcd;
	srq->cq = cq;
	srq->wk = xrcd != NULL ? xrcd->wk : dr_engine_place(ctx);
	/* the attributes actually provided; srq_limit is not set at creation (ibv_create_srq(3)) */
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = max_sge;
	pd->refcnt++;
	if (xrcd != NULL)
		xrcd->refcnt++;
	if (cq != NULL)
		dr_cq_impl(cq)->refcnt++;
	__atomic_store_n(&ctx->srq_table[slot], srq, __ATOMIC_RELEASE);
	ctx->num_srqs++;
	return &srq->pub;
}

static struct dr_srq *
create_srq_ctl(struct dr_pd *pd, struct dr_srq_init_attr *ia)
{
	if (pd == NULL || ia == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return dr_srq_create(pd, ia->srq_context, &ia->attr, DR_SRQT_BASIC, NULL, NULL);
}

/* dr_create_srq() as a control command (dr_control.h) */
struct create_srq_args {
	struct dr_pd *pd;
	struct dr_srq_init_attr *ia;
	struct dr_srq *ret;
};

static int
create_srq_call(void *arg)
{
	struct create_srq_args *a = arg;

	a->ret = create_srq_ctl(a->pd, a->ia);
	return 0;
}

struct dr_srq *
dr_create_srq(struct dr_pd *pd, struct dr_srq_init_attr *ia)
{
	struct create_srq_args a = { .pd = pd, .ia = ia };

	if (pd == NULL)
		return create_srq_ctl(pd, ia);
	(void)dr_ctl_run(pd->context, create_srq_call, &a);
	return a.ret;
}

/* Move the queued WQEs into a ring of @max_wr (IBA 10.2.9.3 resize); -errno. */
static int
srq_resize(struct dr_srq_impl *srq, uint32_t max_wr)
{
	struct dr_rq *old = &srq->rq, nrq;
	uint32_t n = old->head - old->tail, i;

	if (max_wr < n)
		return -EINVAL;            /* the WRs it holds must fit */
	if (ring_alloc(&nrq, max_wr, old->max_sge) != 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct dr_recv_wqe *w = dr_rq_wqe(old, old->tail + i);
		struct dr_recv_wqe *d = &nrq.wqe[i];

		d->wr_id = w->wr_id;
		d->num_sge = w->num_sge;
		d->length = w->length;
		memcpy(d->sge, w->sge, (size_t)w->num_sge * sizeof(*w->sge));
	}
	nrq.head = n;
	rte_free(old->wqe);
	rte_free(old->sges);
	*old = nrq;
	return 0;
}

struct srq_modify_args {
	struct dr_srq_impl *srq;
	struct dr_srq_attr *attr;
	int mask;
};

static int srq_modify(struct dr_srq_impl *srq, struct dr_srq_attr *attr, int mask);

static int
srq_modify_call(void *arg)
{
	struct srq_modify_args *a = arg;

	return srq_modify(a->srq, a->attr, a->mask);
}

static int
modify_srq_ctl(struct dr_srq *pub, struct dr_srq_attr *attr, int mask)
{
	struct srq_modify_args a = { .attr = attr, .mask = mask };

	if (pub == NULL || attr == NULL)
		return -EINVAL;
	/* the ring and the limit are its consumer's: the change runs on the SRQ's worker */
	a.srq = dr_srq_impl(pub);
	return dr_engine_call(a.srq->wk, srq_modify_call, &a);
}

/* dr_modify_srq() as a control command (dr_control.h) */
struct modify_srq_args {
	struct dr_srq *pub;
	struct dr_srq_attr *attr;
	int mask;
};

static int
modify_srq_call(void *arg)
{
	struct modify_srq_args *a = arg;

	return modify_srq_ctl(a->pub, a->attr, a->mask);
}

int
dr_modify_srq(struct dr_srq *pub, struct dr_srq_attr *attr, int mask)
{
	struct modify_srq_args a = { .pub = pub, .attr = attr, .mask = mask };

	if (pub == NULL)
		return modify_srq_ctl(pub, attr, mask);
	return dr_ctl_run(pub->context, modify_srq_call, &a);
}

static int
srq_modify(struct dr_srq_impl *srq, struct dr_srq_attr *attr, int mask)
{
	int rc;

	if ((mask & ~(DR_SRQ_MAX_WR | DR_SRQ_LIMIT)) != 0)
		return -EINVAL;
	if (mask & DR_SRQ_MAX_WR) {
		uint32_t limit = (mask & DR_SRQ_LIMIT) ? attr->srq_limit : srq->limit;

		/* rxe_srq_chk_attr(): 1..max_srq_wr, not below an armed limit */
		if (attr->max_wr < 1 || attr->max_wr > DR_MAX_SRQ_WR || (limit != 0 && attr->max_wr < limit))
			return -EINVAL;
	}
	if ((mask & DR_SRQ_LIMIT) &&
	    attr->srq_limit > ((mask & DR_SRQ_MAX_WR) ? attr->max_wr : srq->rq.max_wr))
		return -EINVAL;
	if (mask & DR_SRQ_MAX_WR) {
		rc = srq_resize(srq, attr->max_wr);
		if (rc != 0)
			return rc;
	}
	if (mask & DR_SRQ_LIMIT)
		srq->limit = attr->srq_limit;
	return 0;
}

static int
query_srq_ctl(struct dr_srq *pub, struct dr_srq_attr *attr)
{
	struct dr_srq_impl *srq;

	if (pub == NULL || attr == NULL)
		return -EINVAL;
	srq = dr_srq_impl(pub);
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

/* dr_query_srq() as a control command (dr_control.h) */
struct query_srq_args {
	struct dr_srq *pub;
	struct dr_srq_attr *attr;
};

static int
query_srq_call(void *arg)
{
	struct query_srq_args *a = arg;

	return query_srq_ctl(a->pub, a->attr);
}

int
dr_query_srq(struct dr_srq *pub, struct dr_srq_attr *attr)
{
	struct query_srq_args a = { .pub = pub, .attr = attr };

	if (pub == NULL)
		return query_srq_ctl(pub, attr);
	return dr_ctl_run(pub->context, query_srq_call, &a);
}

static int
destroy_srq_ctl(struct dr_srq *pub)
{
	struct dr_srq_impl *srq;

	if (pub == NULL)
		return -EINVAL;
	srq = dr_srq_impl(pub);
	/* ibv_destroy_srq(3): fails while a QP uses it; events must be acknowledged first */
	if (srq->refcnt != 0 || srq->events_unacked != 0) {
		DR_LOG(qp, INFO, "destroy_srq: %u QPs, %u unacknowledged events", srq->refcnt,
		       srq->events_unacked);
		return -EBUSY;
	}
	dr_async_forget(pub->context, pub);
	pub->pd->refcnt--;
	if (srq->xrcd != NULL)
		srq->xrcd->refcnt--;
	if (srq->cq != NULL)
		dr_cq_impl(srq->cq)->refcnt--;
	__atomic_store_n(&pub->context->srq_table[srq->num - 1], NULL, __ATOMIC_RELEASE);
	pub->context->num_srqs--;
	dr_engine_sync(pub->context);       /* no worker still looks at it */
	rte_free(srq->rq.wqe);
	rte_free(srq->rq.sges);
	rte_free(srq);
	return 0;
}

/* dr_destroy_srq() as a control command (dr_control.h) */
struct destroy_srq_args {
	struct dr_srq *pub;
};

static int
destroy_srq_call(void *arg)
{
	struct destroy_srq_args *a = arg;

	return destroy_srq_ctl(a->pub);
}

int
dr_destroy_srq(struct dr_srq *pub)
{
	struct destroy_srq_args a = { .pub = pub };

	if (pub == NULL)
		return destroy_srq_ctl(pub);
	return dr_ctl_run(pub->context, destroy_srq_call, &a);
}

int
dr_post_srq_recv(struct dr_srq *pub, struct dr_recv_wr *wr, struct dr_recv_wr **bad_wr)
{
	struct dr_recv_wr *unused;
	struct dr_srq_impl *srq;
	int rc;

	if (bad_wr == NULL)
		bad_wr = &unused;
	if (pub == NULL) {
		*bad_wr = wr;
		return EINVAL;
	}
	srq = dr_srq_impl(pub);
	for (; wr != NULL; wr = wr->next) {
		rc = dr_rq_post_one(pub->context, pub->pd, &srq->rq, wr);
		if (rc != 0) {
			*bad_wr = wr;
			DR_DP_LOG(qp, DEBUG, "post_srq_recv: wr_id 0x%" PRIx64 " refused: %s", wr->wr_id,
				  strerror(rc));
			return rc;
		}
	}
	return 0;
}

void
dr_rwqe_take(struct dr_qp_impl *qp)
{
	struct dr_srq_impl *srq = qp->srq;
	const struct dr_recv_wqe *w;
	struct dr_recv_wqe *d;

	if (srq == NULL)
		return;                    /* the QP's own: consumed by dr_rwqe_done() */
	w = dr_rq_wqe(&srq->rq, srq->rq.tail);
	d = &qp->resp.srq_wqe;
	d->wr_id = w->wr_id;
	d->num_sge = w->num_sge;
	d->length = w->length;
	d->sge = qp->resp.srq_sges;
	memcpy(d->sge, w->sge, (size_t)w->num_sge * sizeof(*w->sge));
	__atomic_store_n(&srq->rq.tail, srq->rq.tail + 1, __ATOMIC_RELEASE);
	/* IBA 10.2.9.2: below the armed limit, one event, and the limit is disarmed */
	if (srq->limit != 0 && srq->rq.head - srq->rq.tail < srq->limit) {
		srq->limit = 0;
		dr_async_raise(qp->pub.context, DR_EVENT_SRQ_LIMIT_REACHED, &srq->pub);
	}
}
