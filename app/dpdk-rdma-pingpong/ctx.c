/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * pp_init_ctx() and pp_close_ctx() of the four programs: one buffer
 * registered with LOCAL_WRITE (ibv_{rc,uc,ud}_pingpong fill it with 0x7b,
 * ibv_srq_pingpong with 0; UD's is 40 bytes longer, its GRH area), an
 * optional completion channel (-e), one CQ of rx_depth + num_qp entries,
 * for srq an SRQ of rx_depth WRs and 1 SGE, then num_qp QPs of 1 send WR
 * (and rx_depth receive WRs of their own unless on the SRQ), each moved to
 * INIT (access 0; UD: Q_Key 0x11111111).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "dr_app.h"
#include "pingpong.h"

const char *
pp_qp_name(const struct pp_ctx *ctx, unsigned int i, char buf[16])
{
	if (ctx->o->use_srq)
		snprintf(buf, 16, "QP[%u]", i);
	else
		snprintf(buf, 16, "QP");
	return buf;
}

static struct dr_device *
find_device(struct pp_ctx *ctx, int n)
{
	const char *want = ctx->o->ib_devname;

	if (n == 0) {
		fprintf(stderr, "No IB devices found (give a DPDK port to EAL, e.g. "
			"--vdev net_af_packet0,iface=IF)\n");
		return NULL;
	}
	if (want == NULL)
		return ctx->dev_list[0];
	for (int i = 0; i < n; i++)
		if (strcmp(dr_get_device_name(ctx->dev_list[i]), want) == 0)
			return ctx->dev_list[i];
	fprintf(stderr, "IB device %s not found\n", want);
	return NULL;
}

static int
open_ctx(struct pp_ctx *ctx)
{
	const struct pp_opts *o = ctx->o;
	struct dr_context_attr cattr;
	struct dr_device *dev;
	int n = 0;

	dr_app_context_attr(&cattr, o->ipv4, o->ipv6, o->num_ipv6, o->link_mtu);
	dr_app_engine_attr(&o->engine, &cattr);
	ctx->dev_list = dr_get_device_list(&n);
	if (ctx->dev_list == NULL) {
		perror("Failed to get IB devices list");
		return 1;
	}
	dev = find_device(ctx, n);
	if (dev == NULL)
		return 1;
	ctx->context = dr_open_device(dev, &cattr);
	if (ctx->context == NULL) {
		fprintf(stderr, "Couldn't get context for %s: %s\n", dr_get_device_name(dev),
			strerror(errno));
		return 1;
	}
	if (o->qp_type == DR_QPT_UD) {
		struct dr_port_attr port_info;
		uint32_t mtu;

		if (dr_query_port(ctx->context, (uint8_t)o->ib_port, &port_info) != 0) {
			fprintf(stderr, "Unable to query port info for port %d\n", o->ib_port);
			return 1;
		}
		mtu = dr_mtu_bytes(port_info.active_mtu);
		if (o->size > mtu) {
			fprintf(stderr, "Requested size larger than port MTU (%u)\n", mtu);
			return 1;
		}
	}
	return 0;
}

static int
create_srq(struct pp_ctx *ctx)
{
	struct dr_srq_init_attr attr = {
		.attr = {
			.max_wr = (uint32_t)ctx->rx_depth,
			.max_sge = 1,
		},
	};

	ctx->srq = dr_create_srq(ctx->pd, &attr);
	if (ctx->srq == NULL) {
		fprintf(stderr, "Couldn't create SRQ: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* QP @i: created on the CQ (and the SRQ), then INIT */
static int
create_qp(struct pp_ctx *ctx, unsigned int i)
{
	const struct pp_opts *o = ctx->o;
	struct dr_qp_init_attr init_attr;
	struct dr_qp_attr attr;
	char name[16];
	int ret;

	pp_qp_name(ctx, i, name);
	memset(&init_attr, 0, sizeof(init_attr));
	init_attr.send_cq = ctx->cq;
	init_attr.recv_cq = ctx->cq;
	init_attr.srq = ctx->srq;
	init_attr.cap.max_send_wr = 1;
	init_attr.cap.max_send_sge = 1;
	if (ctx->srq == NULL) {
		init_attr.cap.max_recv_wr = (uint32_t)ctx->rx_depth;
		init_attr.cap.max_recv_sge = 1;
	}
	init_attr.qp_type = o->qp_type;
	ctx->qp[i] = dr_create_qp(ctx->pd, &init_attr);
	if (ctx->qp[i] == NULL) {
		fprintf(stderr, "Couldn't create %s: %s\n", name, strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	if (dr_query_qp(ctx->qp[i], &attr, DR_QP_CAP, &init_attr) == 0 &&
	    init_attr.cap.max_inline_data >= o->size)
		ctx->send_flags |= DR_SEND_INLINE;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = DR_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = (uint8_t)o->ib_port;
	attr.qp_access_flags = 0;
	attr.qkey = PP_UD_QKEY;
	ret = dr_modify_qp(ctx->qp[i], &attr, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT |
			   (o->qp_type == DR_QPT_UD ? DR_QP_QKEY : DR_QP_ACCESS_FLAGS));
	if (ret != 0) {
		fprintf(stderr, "Failed to modify %s to INIT: %s\n", name, strerror(-ret));
		return 1;
	}
	return 0;
}

int
pp_init_ctx(struct pp_ctx *ctx)
{
	const struct pp_opts *o = ctx->o;
	size_t len;

	ctx->size = o->size;
	ctx->send_flags = DR_SEND_SIGNALED;
	ctx->rx_depth = (int)o->rx_depth;
	ctx->num_qp = o->num_qp;
	ctx->grh = o->qp_type == DR_QPT_UD ? DR_GRH_LEN : 0;
	len = RTE_MAX(o->size + ctx->grh, 1u);
	ctx->buf = aligned_alloc((size_t)pp_page_size, RTE_ALIGN_CEIL(len, (size_t)pp_page_size));
	if (ctx->buf == NULL) {
		fprintf(stderr, "Couldn't allocate work buf.\n");
		return 1;
	}
	memset(ctx->buf, o->use_srq ? 0 : 0x7b, len);

	if (open_ctx(ctx) != 0)
		return 1;
	ctx->pd = dr_alloc_pd(ctx->context);
	if (ctx->pd == NULL) {
		fprintf(stderr, "Couldn't allocate PD\n");
		return 1;
	}
	ctx->mr = dr_reg_mr(ctx->pd, ctx->buf, len, DR_ACCESS_LOCAL_WRITE);
	if (ctx->mr == NULL) {
		fprintf(stderr, "Couldn't register MR: %s\n", strerror(errno));
		return 1;
	}
	if (o->use_event) {
		ctx->channel = dr_create_comp_channel(ctx->context);
		if (ctx->channel == NULL) {
			fprintf(stderr, "Couldn't create completion channel\n");
			return 1;
		}
	}
	ctx->cq = dr_create_cq(ctx->context, ctx->rx_depth + (int)ctx->num_qp, NULL, ctx->channel, 0);
	if (ctx->cq == NULL) {
		fprintf(stderr, "Couldn't create CQ: %s\n", strerror(errno));
		return 1;
	}
	if (o->use_srq && create_srq(ctx) != 0)
		return 1;
	for (unsigned int i = 0; i < ctx->num_qp; i++)
		if (create_qp(ctx, i) != 0)
			return 1;
	return 0;
}

int
pp_close_ctx(struct pp_ctx *ctx)
{
	int ret = 0;

	for (unsigned int i = 0; i < ctx->num_qp; i++)
		if (ctx->qp[i] != NULL && dr_destroy_qp(ctx->qp[i]) != 0) {
			fprintf(stderr, "Couldn't destroy QP[%u]\n", i);
			ret = 1;
		}
	if (ctx->srq != NULL && dr_destroy_srq(ctx->srq) != 0) {
		fprintf(stderr, "Couldn't destroy SRQ\n");
		ret = 1;
	}
	if (ctx->cq != NULL && dr_destroy_cq(ctx->cq) != 0) {
		fprintf(stderr, "Couldn't destroy CQ\n");
		ret = 1;
	}
	if (ctx->ah != NULL && dr_destroy_ah(ctx->ah) != 0) {
		fprintf(stderr, "Couldn't destroy AH\n");
		ret = 1;
	}
	if (ctx->mr != NULL && dr_dereg_mr(ctx->mr) != 0) {
		fprintf(stderr, "Couldn't deregister MR\n");
		ret = 1;
	}
	if (ctx->pd != NULL && dr_dealloc_pd(ctx->pd) != 0) {
		fprintf(stderr, "Couldn't deallocate PD\n");
		ret = 1;
	}
	if (ctx->channel != NULL && dr_destroy_comp_channel(ctx->channel) != 0) {
		fprintf(stderr, "Couldn't destroy completion channel\n");
		ret = 1;
	}
	if (ctx->context != NULL && dr_close_device(ctx->context) != 0) {
		fprintf(stderr, "Couldn't release context\n");
		ret = 1;
	}
	if (ctx->dev_list != NULL)
		dr_free_device_list(ctx->dev_list);
	free(ctx->buf);
	memset(ctx, 0, sizeof(*ctx));
	return ret;
}
