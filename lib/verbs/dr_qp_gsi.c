/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * QP1, the General Services Interface (IBA 13.5.1), on the verbs side: made
 * as any UD QP (dr_qp.c), then kept beside the QP table under DR_GSI_QPN,
 * where dr_qp_lookup() finds it once the table misses. The CM drives it
 * (lib/cm/dr_gsi.c).
 */

#include <errno.h>
#include <pthread.h>

#include "dr_context.h"
#include "dr_engine.h"
#include "dr_qp_impl.h"

static struct dr_qp *
qp_fail(int err)
{
	errno = err;
	return NULL;
}

struct dr_qp_impl *
dr_qp_lookup_untabled(struct dr_context *ctx, uint32_t qpn)
{
	return qpn == DR_GSI_QPN ? __atomic_load_n(&ctx->gsi_qp, __ATOMIC_ACQUIRE) : NULL;
}

/*
 * QP1 of @pd's context (the CM's, lib/cm/dr_gsi.c): a UD QP made as any
 * other, then moved from its table slot to ctx->gsi_qp under the number
 * DR_GSI_QPN (IBA 13.5.1), where dr_qp_lookup() finds it. Its table index
 * stays taken (one QPN of max_qp unused) until it is destroyed. One per
 * context: NULL with EEXIST for a second. On the control side.
 */
struct dr_qp *
dr_qp_create_gsi(struct dr_pd *pd, struct dr_qp_init_attr *ia)
{
	struct dr_context *ctx = pd->context;
	struct dr_qp_impl *qp;
	struct dr_qp *pub;

	if (ia->qp_type != DR_QPT_UD)
		return qp_fail(EINVAL);
	if (ctx->gsi_qp != NULL)
		return qp_fail(EEXIST);
	pub = dr_qp_create(ctx, pd, ia, NULL);
	if (pub == NULL)
		return NULL;
	qp = dr_qp_impl(pub);
	pthread_mutex_lock(&ctx->ctl_lock);
	__atomic_store_n(&ctx->qp_table[qp->index], NULL, __ATOMIC_RELEASE);
	qp->pub.qp_num = DR_GSI_QPN;
	qp->route.udp_sport = dr_udp_sport_from_qpn(DR_GSI_QPN);
	__atomic_store_n(&ctx->gsi_qp, qp, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->ctl_lock);
	/* no worker has seen it under its first number: it has been in RESET, taking nothing */
	dr_engine_sync(ctx);
	return pub;
}
