/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Enhanced connection establishment (ibv_query_ece(3), ibv_set_ece(3)):
 * the options a QP negotiated with its peer through the application's
 * connection exchange. The one option, selective repeat, changes what the
 * responder does with a request after a gap and what the requester resends
 * (dr_resp_sr.c, dr_comp_sr.c; doc/guides/reliability.rst), so it is set
 * while no stage runs the QP: in RESET or INIT, before RTR.
 */

#include <errno.h>

#include <rte_malloc.h>

#include "dr_control.h"
#include "dr_log.h"
#include "dr_qp_impl.h"

/* The options a QP of this type supports. */
static uint32_t
ece_supported(const struct dr_qp_impl *qp)
{
	return dr_qp_reliable(qp) ? DR_ECE_OPT_SELECTIVE_REPEAT : 0;
}

int
dr_query_ece(struct dr_qp *pub, struct dr_ece *ece)
{
	struct dr_qp_impl *qp;

	if (pub == NULL || ece == NULL)
		return -EINVAL;
	qp = dr_qp_impl(pub);
	ece->vendor_id = DR_ECE_VENDOR_ID;
	ece->options = __atomic_load_n(&qp->ece_set, __ATOMIC_ACQUIRE) ? qp->ece_options : ece_supported(qp);
	ece->comp_mask = 0;
	return 0;
}

struct set_ece_args {
	struct dr_qp *pub;
	struct dr_ece *ece;
};

static int
set_ece_call(void *arg)
{
	struct set_ece_args *a = arg;
	struct dr_qp_impl *qp = dr_qp_impl(a->pub);
	uint32_t opts;

	if (a->ece->comp_mask != 0) {
		DR_LOG(qp, INFO, "set_ece: QP 0x%x: comp_mask %#x names no field", a->pub->qp_num, a->ece->comp_mask);
		return -EINVAL;
	}
	/* ibv_set_ece(3): options are used during the modify_qp stages; ours from RTR on */
	if (a->pub->state != DR_QPS_RESET && a->pub->state != DR_QPS_INIT) {
		DR_LOG(qp, INFO, "set_ece: QP 0x%x is past INIT", a->pub->qp_num);
		return -EINVAL;
	}
	opts = a->ece->vendor_id == DR_ECE_VENDOR_ID ? a->ece->options & ece_supported(qp) : 0;
	if ((opts & DR_ECE_OPT_SELECTIVE_REPEAT) && qp->sr == NULL) {
		qp->sr = rte_zmalloc_socket("dr_qp_sr", sizeof(*qp->sr), RTE_CACHE_LINE_SIZE,
					    a->pub->context->socket_id);
		if (qp->sr == NULL)
			return -ENOMEM;
		qp->resp.sr_held = qp->sr->held;
	}
	qp->ece_options = opts;
	__atomic_store_n(&qp->ece_set, true, __ATOMIC_RELEASE);
	a->ece->options = opts;
	DR_LOG(qp, DEBUG, "QP 0x%x: ECE options %#x", a->pub->qp_num, opts);
	return 0;
}

int
dr_set_ece(struct dr_qp *pub, struct dr_ece *ece)
{
	struct set_ece_args a = { .pub = pub, .ece = ece };

	if (pub == NULL || ece == NULL)
		return -EINVAL;
	return dr_ctl_run(pub->context, set_ece_call, &a);
}
