/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Protection domains (ibv_alloc_pd(3), ibv_dealloc_pd(3)). */

#include <errno.h>

#include <rte_malloc.h>

#include "dr_context.h"
#include "dr_log.h"

struct dr_pd *
dr_alloc_pd(struct dr_context *ctx)
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

int
dr_dealloc_pd(struct dr_pd *pd)
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
