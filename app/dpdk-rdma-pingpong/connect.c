/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * pp_connect_ctx() of the four programs: every QP from INIT to RTR and RTS
 * towards its peer QP, with the attributes of its type. RC (and each of
 * ibv_srq_pingpong's QPs): RTR path_mtu, dest_qpn, rq_psn,
 * max_dest_rd_atomic 1, min_rnr_timer 12, GRH with hop_limit 1; RTS timeout
 * 14, retry_cnt 7, rnr_retry 7, max_rd_atomic 1, its own sq_psn. UC: RTR
 * path_mtu, dest_qpn, rq_psn, AV; RTS sq_psn. UD: RTR; RTS sq_psn; an AH to
 * the peer.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pingpong.h"

static void
set_grh(const struct pp_opts *o, const struct pp_dest *dest, struct dr_ah_attr *ah_attr)
{
	if (dest->gid.global.interface_id) {
		ah_attr->is_global = 1;
		ah_attr->grh.hop_limit = 1;
		ah_attr->grh.dgid = dest->gid;
		ah_attr->grh.sgid_index = (uint8_t)o->gidx;
	}
}

/* ibv_ud_pingpong's pp_connect_ctx(): RTR, RTS, an AH to the peer. */
static int
connect_ud(struct pp_ctx *ctx, const struct pp_dest *dest)
{
	const struct pp_opts *o = ctx->o;
	struct dr_qp_attr attr = { .qp_state = DR_QPS_RTR };
	struct dr_ah_attr ah_attr = {
		.is_global = 0,
		.dlid = (uint16_t)dest->lid,
		.sl = (uint8_t)o->sl,
		.src_path_bits = 0,
		.port_num = (uint8_t)o->ib_port,
	};
	int ret;

	ret = dr_modify_qp(ctx->qp[0], &attr, DR_QP_STATE);
	if (ret != 0) {
		fprintf(stderr, "Failed to modify QP to RTR: %s\n", strerror(-ret));
		return 1;
	}
	attr.qp_state = DR_QPS_RTS;
	attr.sq_psn = ctx->my_psn[0];
	ret = dr_modify_qp(ctx->qp[0], &attr, DR_QP_STATE | DR_QP_SQ_PSN);
	if (ret != 0) {
		fprintf(stderr, "Failed to modify QP to RTS: %s\n", strerror(-ret));
		return 1;
	}
	set_grh(o, dest, &ah_attr);
	ctx->ah = dr_create_ah(ctx->pd, &ah_attr);
	if (ctx->ah == NULL) {
		fprintf(stderr, "Failed to create AH: %s\n", strerror(errno));
		return 1;
	}
	ctx->rem_qpn = dest->qpn;
	return 0;
}

/* QP @i of an RC or UC context to RTR and RTS towards @dest */
static int
connect_one(struct pp_ctx *ctx, unsigned int i, const struct pp_dest *dest)
{
	const struct pp_opts *o = ctx->o;
	bool rc = o->qp_type == DR_QPT_RC;
	struct dr_qp_attr attr = {
		.qp_state = DR_QPS_RTR,
		.path_mtu = o->mtu,
		.dest_qp_num = dest->qpn,
		.rq_psn = dest->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 0,
			.dlid = (uint16_t)dest->lid,
			.sl = (uint8_t)o->sl,
			.src_path_bits = 0,
			.port_num = (uint8_t)o->ib_port,
		},
	};
	char name[16];
	int ret;

	set_grh(o, dest, &attr.ah_attr);
	/* ibv_uc_pingpong: no RDMA-atomic or RNR attributes on UC */
	ret = dr_modify_qp(ctx->qp[i], &attr, DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU |
			   DR_QP_DEST_QPN | DR_QP_RQ_PSN |
			   (rc ? DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER : 0));
	if (ret != 0) {
		fprintf(stderr, "Failed to modify %s to RTR: %s\n", pp_qp_name(ctx, i, name), strerror(-ret));
		return 1;
	}
	attr.qp_state = DR_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = ctx->my_psn[i];
	attr.max_rd_atomic = 1;
	ret = dr_modify_qp(ctx->qp[i], &attr, DR_QP_STATE | DR_QP_SQ_PSN |
			   (rc ? DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY |
				 DR_QP_MAX_QP_RD_ATOMIC : 0));
	if (ret != 0) {
		fprintf(stderr, "Failed to modify %s to RTS: %s\n", pp_qp_name(ctx, i, name), strerror(-ret));
		return 1;
	}
	return 0;
}

int
pp_connect_ctx(void *arg, const struct pp_dest *dest)
{
	struct pp_ctx *ctx = arg;

	if (ctx->o->qp_type == DR_QPT_UD)
		return connect_ud(ctx, dest);
	for (unsigned int i = 0; i < ctx->num_qp; i++)
		if (connect_one(ctx, i, &dest[i]) != 0)
			return 1;
	return 0;
}
