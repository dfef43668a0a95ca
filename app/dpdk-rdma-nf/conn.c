/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The connection's objects and messages (conn.h). */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "conn.h"

bool
nf_conn_cm_due(struct nf_conn *c, bool paced, uint64_t now_tsc)
{
	if (paced && now_tsc < c->cm_next)
		return false;
	c->cm_next = now_tsc + rte_get_tsc_hz() / 1000 * NF_CM_POLL_MS;
	return true;
}

int
nf_conn_init(struct nf_conn *c, struct dr_context *ctx)
{
	memset(c, 0, sizeof(*c));
	c->ctx = ctx;
	c->ch = dr_cm_create_event_channel();
	if (c->ch == NULL || fcntl(c->ch->fd, F_SETFL, O_NONBLOCK) != 0) {
		fprintf(stderr, "dpdk-rdma-nf: CM event channel: %s\n", strerror(errno));
		return -1;
	}
	c->pd = dr_alloc_pd(ctx);
	c->cq = dr_create_cq(ctx, 4 * NF_SLOTS, NULL, NULL, 0);
	c->msgs = calloc(NF_MSG_RECVS + 1, sizeof(*c->msgs));
	if (c->pd == NULL || c->cq == NULL || c->msgs == NULL) {
		fprintf(stderr, "dpdk-rdma-nf: PD / CQ / buffers: %s\n", strerror(errno));
		return -1;
	}
	c->msgs_mr = dr_reg_mr(c->pd, c->msgs, (NF_MSG_RECVS + 1) * sizeof(*c->msgs), DR_ACCESS_LOCAL_WRITE);
	if (c->msgs_mr == NULL) {
		fprintf(stderr, "dpdk-rdma-nf: dr_reg_mr: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int
nf_conn_recv(struct nf_conn *c, unsigned int i)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)&c->msgs[i], sizeof(c->msgs[i]), c->msgs_mr->lkey };
	struct dr_recv_wr wr = { .wr_id = NF_WR_RECV + i, .sg_list = &sge, .num_sge = 1 }, *bad;
	int ret = dr_post_recv(c->id->qp, &wr, &bad);

	if (ret != 0)
		fprintf(stderr, "dpdk-rdma-nf: dr_post_recv: %s\n", strerror(ret));
	return ret;
}

int
nf_conn_qp(struct nf_conn *c, struct dr_cm_id *id, uint32_t max_send_wr)
{
	struct dr_qp_init_attr qa;
	unsigned int i;
	int ret;

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = DR_QPT_RC;
	qa.cap.max_send_wr = max_send_wr;
	qa.cap.max_recv_wr = NF_MSG_RECVS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	ret = dr_cm_create_qp(id, c->pd, &qa);
	if (ret != 0) {
		fprintf(stderr, "dpdk-rdma-nf: dr_cm_create_qp: %s\n", strerror(-ret));
		return -1;
	}
	c->id = id;
	for (i = 0; i < NF_MSG_RECVS; i++)
		if (nf_conn_recv(c, i) != 0)
			return -1;
	return 0;
}

int
nf_conn_send(struct nf_conn *c, const struct nf_msg *m)
{
	struct nf_msg *out = &c->msgs[NF_MSG_RECVS];
	struct dr_sge sge = { (uint64_t)(uintptr_t)out, sizeof(*out), c->msgs_mr->lkey };
	struct dr_send_wr wr = { .wr_id = NF_WR_MSG, .sg_list = &sge, .num_sge = 1, .opcode = DR_WR_SEND,
				 .send_flags = DR_SEND_SIGNALED }, *bad;
	int ret;

	*out = *m;
	ret = dr_post_send(c->id->qp, &wr, &bad);
	if (ret != 0)
		fprintf(stderr, "dpdk-rdma-nf: dr_post_send(message): %s\n", strerror(ret));
	return ret;
}

void
nf_conn_drop(struct nf_conn *c)
{
	if (c->id == NULL)
		return;
	if (c->id->qp != NULL)
		dr_cm_destroy_qp(c->id);
	(void)dr_cm_destroy_id(c->id);
	c->id = NULL;
}

void
nf_conn_fini(struct nf_conn *c)
{
	nf_conn_drop(c);
	if (c->msgs_mr != NULL)
		(void)dr_dereg_mr(c->msgs_mr);
	if (c->cq != NULL)
		(void)dr_destroy_cq(c->cq);
	if (c->pd != NULL)
		(void)dr_dealloc_pd(c->pd);
	if (c->ch != NULL)
		(void)dr_cm_destroy_event_channel(c->ch);
	free(c->msgs);
	memset(c, 0, sizeof(*c));
}
