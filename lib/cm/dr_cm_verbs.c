/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* librdmacm's rdma_verbs.h on a dr_cm_id (include/dr_cm_verbs.h). */

#include <errno.h>
#include <string.h>

#include "dr_cm_verbs.h"

static struct dr_mr *
reg(struct dr_cm_id *id, void *addr, size_t length, int access)
{
	if (id == NULL || id->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return dr_reg_mr(id->pd, addr, length, access);
}

struct dr_mr *
dr_cm_reg_msgs(struct dr_cm_id *id, void *addr, size_t length)
{
	return reg(id, addr, length, DR_ACCESS_LOCAL_WRITE);
}

struct dr_mr *
dr_cm_reg_read(struct dr_cm_id *id, void *addr, size_t length)
{
	return reg(id, addr, length, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ);
}

struct dr_mr *
dr_cm_reg_write(struct dr_cm_id *id, void *addr, size_t length)
{
	return reg(id, addr, length, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE);
}

int
dr_cm_dereg_mr(struct dr_mr *mr)
{
	return dr_dereg_mr(mr);
}

/* The post calls answer a positive errno (ibv_post_send(3)); these, -errno. */
static int
post(struct dr_cm_id *id, struct dr_send_wr *wr)
{
	struct dr_send_wr *bad;

	if (id == NULL || id->qp == NULL)
		return -EINVAL;
	return -dr_post_send(id->qp, wr, &bad);
}

static void
send_wr(struct dr_send_wr *wr, void *context, struct dr_sge *sgl, int nsge, int flags, enum dr_wr_opcode op)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = (uint64_t)(uintptr_t)context;
	wr->sg_list = sgl;
	wr->num_sge = nsge;
	wr->opcode = op;
	wr->send_flags = (unsigned int)flags;
}

/* One SGE of @length bytes at @addr (@mr's L_Key; none for inline data): 0, or -EINVAL past 32 bits. */
static int
sge_of(struct dr_sge *sge, void *addr, size_t length, struct dr_mr *mr)
{
	if (length > UINT32_MAX)
		return -EINVAL;
	sge->addr = (uint64_t)(uintptr_t)addr;
	sge->length = (uint32_t)length;
	sge->lkey = mr != NULL ? mr->lkey : 0;
	return 0;
}

int
dr_cm_post_recvv(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge)
{
	struct dr_recv_wr wr = { .wr_id = (uint64_t)(uintptr_t)context, .sg_list = sgl, .num_sge = nsge }, *bad;

	if (id == NULL || id->qp == NULL)
		return -EINVAL;
	return -dr_post_recv(id->qp, &wr, &bad);
}

int
dr_cm_post_sendv(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge, int flags)
{
	struct dr_send_wr wr;

	send_wr(&wr, context, sgl, nsge, flags, DR_WR_SEND);
	return post(id, &wr);
}

/* rdma_post_readv(3) and rdma_post_writev(3): @op at @remote_addr / @rkey. */
static int
post_rdma(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge, int flags, enum dr_wr_opcode op,
	  uint64_t remote_addr, uint32_t rkey)
{
	struct dr_send_wr wr;

	send_wr(&wr, context, sgl, nsge, flags, op);
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	return post(id, &wr);
}

int
dr_cm_post_readv(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge, int flags,
		 uint64_t remote_addr, uint32_t rkey)
{
	return post_rdma(id, context, sgl, nsge, flags, DR_WR_RDMA_READ, remote_addr, rkey);
}

int
dr_cm_post_writev(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge, int flags,
		  uint64_t remote_addr, uint32_t rkey)
{
	return post_rdma(id, context, sgl, nsge, flags, DR_WR_RDMA_WRITE, remote_addr, rkey);
}

int
dr_cm_post_recv(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr)
{
	struct dr_sge sge;

	return sge_of(&sge, addr, length, mr) == 0 ? dr_cm_post_recvv(id, context, &sge, 1) : -EINVAL;
}

int
dr_cm_post_send(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr, int flags)
{
	struct dr_sge sge;

	return sge_of(&sge, addr, length, mr) == 0 ? dr_cm_post_sendv(id, context, &sge, 1, flags) : -EINVAL;
}

int
dr_cm_post_read(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr, int flags,
		uint64_t remote_addr, uint32_t rkey)
{
	struct dr_sge sge;

	if (sge_of(&sge, addr, length, mr) != 0)
		return -EINVAL;
	return post_rdma(id, context, &sge, 1, flags, DR_WR_RDMA_READ, remote_addr, rkey);
}

int
dr_cm_post_write(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr, int flags,
		 uint64_t remote_addr, uint32_t rkey)
{
	struct dr_sge sge;

	if (sge_of(&sge, addr, length, mr) != 0)
		return -EINVAL;
	return post_rdma(id, context, &sge, 1, flags, DR_WR_RDMA_WRITE, remote_addr, rkey);
}

int
dr_cm_post_ud_send(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr, int flags,
		   struct dr_ah *ah, uint32_t remote_qpn)
{
	if (id == NULL || id->qp == NULL)
		return -EINVAL;
	return -dr_post_ud_send(id->qp, context, addr, length, mr, flags, ah, remote_qpn);
}

/* librdmacm's rdma_get_send_comp(): poll, arm, poll again, sleep on the channel. */
static int
get_comp(struct dr_cq *cq, struct dr_comp_channel *ch, struct dr_wc *wc)
{
	if (cq == NULL || ch == NULL || wc == NULL)
		return -EINVAL;
	for (;;) {
		struct dr_cq *ev_cq;
		void *ev_ctx;
		int ret = dr_poll_cq(cq, 1, wc);

		if (ret != 0)
			return ret;
		ret = dr_req_notify_cq(cq, 0);
		if (ret != 0)
			return ret;
		ret = dr_poll_cq(cq, 1, wc);
		if (ret != 0)
			return ret;
		ret = dr_get_cq_event(ch, &ev_cq, &ev_ctx);
		if (ret != 0)
			return ret;
		dr_ack_cq_events(ev_cq, 1);
	}
}

int
dr_cm_get_send_comp(struct dr_cm_id *id, struct dr_wc *wc)
{
	return id == NULL ? -EINVAL : get_comp(id->send_cq, id->send_cq_channel, wc);
}

int
dr_cm_get_recv_comp(struct dr_cm_id *id, struct dr_wc *wc)
{
	return id == NULL ? -EINVAL : get_comp(id->recv_cq, id->recv_cq_channel, wc);
}
