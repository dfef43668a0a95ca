/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * -t xrc, the server's half (ibv_open_xrcd(3), ibv_create_srq_ex(3),
 * ibv_get_srq_num(3), ibv_create_qp_ex(3)): an XRC domain, one XRC SRQ in
 * it on the server's PD and CQ (its receives and their completions), and
 * the XRC_RECV QP the client's XRC_SEND QP connects to. The exchange
 * carries the SRQ's number; the client names it in every request's XRCETH.
 * rxe has no XRC: this runs between two dpdk-rdma-opgen.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "opgen.h"

struct dr_qp *
og_xrc_target(struct dr_context *ctx, struct dr_pd *pd, struct dr_cq *cq, uint32_t max_wr,
	      struct og_xrc *x, uint32_t *srqn)
{
	struct dr_xrcd_init_attr xa = {
		.comp_mask = DR_XRCD_INIT_ATTR_FD | DR_XRCD_INIT_ATTR_OFLAGS, .fd = -1,
		.oflags = O_CREAT,
	};
	struct dr_srq_init_attr_ex sa = {
		.attr = { .max_wr = max_wr, .max_sge = 1 },
		.comp_mask = DR_SRQ_INIT_ATTR_TYPE | DR_SRQ_INIT_ATTR_PD | DR_SRQ_INIT_ATTR_XRCD |
			     DR_SRQ_INIT_ATTR_CQ,
		.srq_type = DR_SRQT_XRC, .pd = pd, .cq = cq,
	};
	struct dr_qp_init_attr_ex qa = { .qp_type = DR_QPT_XRC_RECV, .comp_mask = DR_QP_INIT_ATTR_XRCD };
	struct dr_qp *qp;
	int ret;

	x->xrcd = dr_open_xrcd(ctx, &xa);
	if (x->xrcd == NULL)
		og_fail(OG_EXIT_SETUP, "dr_open_xrcd: %s", strerror(errno));
	sa.xrcd = x->xrcd;
	x->srq = dr_create_srq_ex(ctx, &sa);
	if (x->srq == NULL)
		og_fail(OG_EXIT_SETUP, "dr_create_srq_ex(XRC): %s", strerror(errno));
	ret = dr_get_srq_num(x->srq, srqn);
	if (ret != 0)
		og_fail(OG_EXIT_SETUP, "dr_get_srq_num: %s", strerror(-ret));
	qa.xrcd = x->xrcd;
	qp = dr_create_qp_ex(ctx, &qa);
	if (qp == NULL)
		og_fail(OG_EXIT_SETUP, "dr_create_qp_ex(XRC_RECV): %s", strerror(errno));
	return qp;
}

void
og_xrc_release(struct og_xrc *x)
{
	if (x->srq != NULL && dr_destroy_srq(x->srq) != 0)
		og_warn("dr_destroy_srq failed");
	if (x->xrcd != NULL && dr_close_xrcd(x->xrcd) != 0)
		og_warn("dr_close_xrcd failed");
	x->srq = NULL;
	x->xrcd = NULL;
}
