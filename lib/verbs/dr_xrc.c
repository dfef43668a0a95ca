/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * XRC objects (IBA 1.2.1 annex "XRC"; ibv_open_xrcd(3), ibv_create_srq_ex(3),
 * ibv_get_srq_num(3)): domains, and the XRC SRQs in them that XRC_RECV QPs
 * of the same domain deliver into, each request naming its SRQ by number in
 * its XRCETH. The QPs are dr_create_qp_ex()'s (lib/dr_wr_ex.c); the
 * transport's rules are in dr_req.c (XRCETH), dr_resp.c (the SRQ, its PD,
 * its CQ).
 */

#include <errno.h>
#include <fcntl.h>

#include <rte_malloc.h>

#include "dr_context.h"
#include "dr_control.h"
#include "dr_engine.h"
#include "dr_log.h"
#include "dr_srq.h"

static struct dr_xrcd *
open_xrcd_ctl(struct dr_context *ctx, struct dr_xrcd_init_attr *attr)
{
	struct dr_xrcd_impl *x;

	if (ctx == NULL || attr == NULL ||
	    (attr->comp_mask & ~(uint32_t)(DR_XRCD_INIT_ATTR_FD | DR_XRCD_INIT_ATTR_OFLAGS))) {
		errno = EINVAL;
		return NULL;
	}
	/* a domain shared through a file between processes (or contexts) is not offered */
	if ((attr->comp_mask & DR_XRCD_INIT_ATTR_FD) && attr->fd != -1) {
		DR_LOG(ctx, INFO, "open_xrcd: domains shared through a file are not supported");
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* ibv_open_xrcd(3): with no file, O_CREAT is required */
	if ((attr->comp_mask & DR_XRCD_INIT_ATTR_OFLAGS) && (attr->oflags & ~(O_CREAT | O_EXCL)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & DR_XRCD_INIT_ATTR_OFLAGS) && !(attr->oflags & O_CREAT)) {
		errno = EINVAL;
		return NULL;
	}
	x = rte_zmalloc("dr_xrcd", sizeof(*x), 0);
	if (x == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	x->pub.context = ctx;
	x->wk = dr_engine_place(ctx);
	ctx->num_xrcds++;
	return &x->pub;
}

/* dr_open_xrcd() as a control command (dr_control.h) */
struct open_xrcd_args {
	struct dr_context *ctx;
	struct dr_xrcd_init_attr *attr;
	struct dr_xrcd *ret;
};

static int
open_xrcd_call(void *arg)
{
	struct open_xrcd_args *a = arg;

	a->ret = open_xrcd_ctl(a->ctx, a->attr);
	return 0;
}

struct dr_xrcd *
dr_open_xrcd(struct dr_context *ctx, struct dr_xrcd_init_attr *attr)
{
	struct open_xrcd_args a = { .ctx = ctx, .attr = attr };

	if (ctx == NULL)
		return open_xrcd_ctl(ctx, attr);
	(void)dr_ctl_run(ctx, open_xrcd_call, &a);
	return a.ret;
}

static int
close_xrcd_ctl(struct dr_xrcd *pub)
{
	struct dr_xrcd_impl *x;

	if (pub == NULL)
		return -EINVAL;
	x = dr_xrcd_impl(pub);
	if (x->refcnt != 0)
		return -EBUSY;
	pub->context->num_xrcds--;
	rte_free(x);
	return 0;
}

/* dr_close_xrcd() as a control command (dr_control.h) */
struct close_xrcd_args {
	struct dr_xrcd *pub;
};

static int
close_xrcd_call(void *arg)
{
	struct close_xrcd_args *a = arg;

	return close_xrcd_ctl(a->pub);
}

int
dr_close_xrcd(struct dr_xrcd *pub)
{
	struct close_xrcd_args a = { .pub = pub };

	if (pub == NULL)
		return close_xrcd_ctl(pub);
	return dr_ctl_run(pub->context, close_xrcd_call, &a);
}

static struct dr_srq *
create_srq_ex_ctl(struct dr_context *ctx, struct dr_srq_init_attr_ex *ia)
{
	const uint32_t known = DR_SRQ_INIT_ATTR_TYPE | DR_SRQ_INIT_ATTR_PD | DR_SRQ_INIT_ATTR_XRCD |
			       DR_SRQ_INIT_ATTR_CQ | DR_SRQ_INIT_ATTR_TM;
	enum dr_srq_type type;

	if (ctx == NULL || ia == NULL || (ia->comp_mask & ~known) || !(ia->comp_mask & DR_SRQ_INIT_ATTR_PD) ||
	    ia->pd == NULL || ia->pd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	type = (ia->comp_mask & DR_SRQ_INIT_ATTR_TYPE) ? ia->srq_type : DR_SRQT_BASIC;
	if (type == DR_SRQT_TM || (ia->comp_mask & DR_SRQ_INIT_ATTR_TM)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (type == DR_SRQT_BASIC)
		return dr_srq_create(ia->pd, ia->srq_context, &ia->attr, type, NULL, NULL);
	/* XRC: a domain and a CQ of this context (ibv_create_srq_ex(3)) */
	if (type != DR_SRQT_XRC ||
	    (ia->comp_mask & (DR_SRQ_INIT_ATTR_XRCD | DR_SRQ_INIT_ATTR_CQ)) !=
	    (DR_SRQ_INIT_ATTR_XRCD | DR_SRQ_INIT_ATTR_CQ) ||
	    ia->xrcd == NULL || ia->xrcd->context != ctx || ia->cq == NULL || ia->cq->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	return dr_srq_create(ia->pd, ia->srq_context, &ia->attr, type, dr_xrcd_impl(ia->xrcd), ia->cq);
}

/* dr_create_srq_ex() as a control command (dr_control.h) */
struct create_srq_ex_args {
	struct dr_context *ctx;
	struct dr_srq_init_attr_ex *ia;
	struct dr_srq *ret;
};

static int
create_srq_ex_call(void *arg)
{
	struct create_srq_ex_args *a = arg;

	a->ret = create_srq_ex_ctl(a->ctx, a->ia);
	return 0;
}

struct dr_srq *
dr_create_srq_ex(struct dr_context *ctx, struct dr_srq_init_attr_ex *ia)
{
	struct create_srq_ex_args a = { .ctx = ctx, .ia = ia };

	if (ctx == NULL)
		return create_srq_ex_ctl(ctx, ia);
	(void)dr_ctl_run(ctx, create_srq_ex_call, &a);
	return a.ret;
}

int
dr_get_srq_num(struct dr_srq *srq, uint32_t *srq_num)
{
	if (srq == NULL || srq_num == NULL || dr_srq_impl(srq)->type != DR_SRQT_XRC)
		return -EINVAL;
	*srq_num = dr_srq_impl(srq)->num;
	return 0;
}
