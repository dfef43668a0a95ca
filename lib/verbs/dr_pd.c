/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Protection domains (ibv_alloc_pd(3), ibv_dealloc_pd(3)). */

#include <errno.h>

#include <rte_malloc.h>

#include "dr_context.h"
#include "dr_control.h"
#include "dr_log.h"

static struct dr_pd *
alloc_pd_ctl(struct dr_context *ctx)
{
	struct dr_pd *pd;

	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (ctx->num_pds >= DR_MAX_PD) {
		DR_LOG(ctx, INFO, "%s: %u PDs already", ctx->device.name, ctx->num_pds);
		errno = ENOMEM;
		return NULL;
	}
	pd = rte_zmalloc("dr_pd", sizeof(*pd), 0);
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->context = ctx;
	ctx->num_pds++;
	return pd;
}

/* dr_alloc_pd() as a control command (dr_control.h) */
struct alloc_pd_args {
	struct dr_context *ctx;
	struct dr_pd *ret;
};

static int
alloc_pd_call(void *arg)
{
	struct alloc_pd_args *a = arg;

	a->ret = alloc_pd_ctl(a->ctx);
	return 0;
}

struct dr_pd *
dr_alloc_pd(struct dr_context *ctx)
{
	struct alloc_pd_args a = { .ctx = ctx };

	if (ctx == NULL)
		return alloc_pd_ctl(ctx);
	(void)dr_ctl_run(ctx, alloc_pd_call, &a);
	return a.ret;
}

static int
dealloc_pd_ctl(struct dr_pd *pd)
{
	if (pd == NULL)
		return -EINVAL;
	/* ibv_dealloc_pd(3): fails while any other resource is associated with it */
	if (pd->refcnt != 0) {
		DR_LOG(ctx, INFO, "PD still used by %u MRs/QPs", pd->refcnt);
		return -EBUSY;
	}
	pd->context->num_pds--;
	rte_free(pd);
	return 0;
}

/* dr_dealloc_pd() as a control command (dr_control.h) */
struct dealloc_pd_args {
	struct dr_pd *pd;
};

static int
dealloc_pd_call(void *arg)
{
	struct dealloc_pd_args *a = arg;

	return dealloc_pd_ctl(a->pd);
}

int
dr_dealloc_pd(struct dr_pd *pd)
{
	struct dealloc_pd_args a = { .pd = pd };

	if (pd == NULL)
		return dealloc_pd_ctl(pd);
	return dr_ctl_run(pd->context, dealloc_pd_call, &a);
}
