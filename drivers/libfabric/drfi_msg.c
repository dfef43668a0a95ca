/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The data path of an endpoint (fi_msg(3), fi_rma(3)): each call one work
 * request on the endpoint's RC QP, its context the wr_id. Local buffers
 * carry their registration's descriptor (FI_MR_LOCAL); inject and short
 * descriptor-less sends go inline. No allocation, no lock: a full queue
 * answers -FI_EAGAIN, as fi_msg(3) says, and the caller reads its CQ.
 *
 * Completions: every receive; a send, WRITE or READ when FI_COMPLETION is
 * among its flags or the transmit CQ was bound without
 * FI_SELECTIVE_COMPLETION; inject never. Every (send queue / 2)th send
 * without one is signaled anyway, with an internal wr_id the CQ skips, so
 * the send queue drains (the verbs provider's rule).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "drfi.h"

static inline struct drfi_ep *
ep_of(struct fid_ep *fep)
{
	return (struct drfi_ep *)fep;
}

/*
 * @iov / @desc as SGEs, and whether they go inline (*@inl): asked for
 * (@inject) or without a descriptor, within inject_size, and never for a
 * READ (@may_inline false). -FI_EINVAL: too many, or a buffer without a
 * descriptor that cannot go inline.
 */
static inline int
sges_of(struct drfi_ep *ep, const struct iovec *iov, void **desc, size_t count, bool may_inline, bool inject,
	struct dr_sge *sge, bool *inl)
{
	size_t sum = 0;
	bool all_desc = true;

	if (count > DRFI_IOV_LIMIT)
		return -FI_EINVAL;
	for (size_t i = 0; i < count; i++) {
		struct dr_mr *mr = desc != NULL ? desc[i] : NULL;

		sge[i].addr = (uintptr_t)iov[i].iov_base;
		sge[i].length = (uint32_t)iov[i].iov_len;
		sge[i].lkey = mr != NULL ? mr->lkey : 0;
		if (mr == NULL && iov[i].iov_len > 0)
			all_desc = false;
		sum += iov[i].iov_len;
	}
	*inl = may_inline && sum <= ep->inject_size && (inject || !all_desc);
	if (!all_desc && !*inl)
		return -FI_EINVAL;      /* FI_MR_LOCAL: a buffer without a descriptor is carried inline only */
	return 0;
}

/* Post @wr on @ep's QP, signaled as the flags say (or for the queue's sake). */
static inline ssize_t
post_send(struct drfi_ep *ep, struct dr_send_wr *wr, uint64_t flags, void *context)
{
	struct drfi_fabric *fab = ep->dom->fab;
	bool completion = !(flags & FI_INJECT) && (!ep->tx_selective || (flags & FI_COMPLETION));
	unsigned int unsignaled;
	struct dr_send_wr *bad;
	int ret;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	wr->wr_id = (uintptr_t)context;
	drfi_lock(fab);
	unsignaled = ep->unsignaled;
	if (completion) {
		wr->send_flags |= DR_SEND_SIGNALED;
		ep->unsignaled = 0;
	} else if (++ep->unsignaled >= ep->signal_every) {
		wr->send_flags |= DR_SEND_SIGNALED;
		wr->wr_id = DRFI_WR_INTERNAL;
		ep->unsignaled = 0;
	}
	ret = dr_post_send(ep->id->qp, wr, &bad);
	if (ret != 0)
		ep->unsignaled = unsignaled;
	/*
	 * Inline mode: what is posted goes out now. A caller that waits for no
	 * completion (fi_inject) may not read its CQ again before the peer has
	 * to answer (fi_pingpong's last reply waited for ever otherwise).
	 */
	else if (ep->inline_mode)
		(void)dr_progress(fab->ctx);
	drfi_unlock(fab);
	return drfi_err(ret);
}

static ssize_t
send_common(struct drfi_ep *ep, const struct iovec *iov, void **desc, size_t count, uint64_t data, bool with_data,
	    uint64_t flags, void *context)
{
	struct dr_sge sge[DRFI_IOV_LIMIT];
	struct dr_send_wr wr;
	bool inl;
	int ret;

	ret = sges_of(ep, iov, desc, count, true, (flags & FI_INJECT) != 0, sge, &inl);
	if (ret != 0)
		return ret;
	if ((flags & FI_INJECT) && !inl)
		return -FI_EINVAL;      /* fi_inject: inject_size bytes at most */
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sge;
	wr.num_sge = (int)count;
	wr.opcode = with_data ? DR_WR_SEND_WITH_IMM : DR_WR_SEND;
	wr.imm_data = rte_cpu_to_be_32((uint32_t)data);
	wr.send_flags = inl ? DR_SEND_INLINE : 0;
	return post_send(ep, &wr, flags, context);
}

static ssize_t
msg_send(struct fid_ep *fep, const void *buf, size_t len, void *desc, fi_addr_t dest_addr, void *context)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	(void)dest_addr;
	return send_common(ep_of(fep), &iov, &desc, 1, 0, false, ep_of(fep)->tx_op_flags, context);
}

static ssize_t
msg_sendv(struct fid_ep *fep, const struct iovec *iov, void **desc, size_t count, fi_addr_t dest_addr, void *context)
{
	(void)dest_addr;
	return send_common(ep_of(fep), iov, desc, count, 0, false, ep_of(fep)->tx_op_flags, context);
}

static ssize_t
msg_sendmsg(struct fid_ep *fep, const struct fi_msg *msg, uint64_t flags)
{
	return send_common(ep_of(fep), msg->msg_iov, msg->desc, msg->iov_count, msg->data,
			   (flags & FI_REMOTE_CQ_DATA) != 0, flags, msg->context);
}

static ssize_t
msg_inject(struct fid_ep *fep, const void *buf, size_t len, fi_addr_t dest_addr)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	(void)dest_addr;
	return send_common(ep_of(fep), &iov, NULL, 1, 0, false, FI_INJECT, NULL);
}

static ssize_t
msg_senddata(struct fid_ep *fep, const void *buf, size_t len, void *desc, uint64_t data, fi_addr_t dest_addr,
	     void *context)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	(void)dest_addr;
	return send_common(ep_of(fep), &iov, &desc, 1, data, true, ep_of(fep)->tx_op_flags, context);
}

static ssize_t
msg_injectdata(struct fid_ep *fep, const void *buf, size_t len, uint64_t data, fi_addr_t dest_addr)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	(void)dest_addr;
	return send_common(ep_of(fep), &iov, NULL, 1, data, true, FI_INJECT, NULL);
}

static ssize_t
recv_common(struct drfi_ep *ep, const struct iovec *iov, void **desc, size_t count, void *context)
{
	struct dr_sge sge[DRFI_IOV_LIMIT];
	struct dr_recv_wr wr = { .wr_id = (uintptr_t)context, .sg_list = sge, .num_sge = (int)count }, *bad;
	bool inl;
	int ret;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	ret = sges_of(ep, iov, desc, count, false, false, sge, &inl);
	if (ret != 0)
		return ret;
	drfi_lock(ep->dom->fab);
	ret = dr_post_recv(ep->id->qp, &wr, &bad);
	drfi_unlock(ep->dom->fab);
	return drfi_err(ret);
}

static ssize_t
msg_recv(struct fid_ep *fep, void *buf, size_t len, void *desc, fi_addr_t src_addr, void *context)
{
	struct iovec iov = { buf, len };

	(void)src_addr;
	return recv_common(ep_of(fep), &iov, &desc, 1, context);
}

static ssize_t
msg_recvv(struct fid_ep *fep, const struct iovec *iov, void **desc, size_t count, fi_addr_t src_addr, void *context)
{
	(void)src_addr;
	return recv_common(ep_of(fep), iov, desc, count, context);
}

static ssize_t
msg_recvmsg(struct fid_ep *fep, const struct fi_msg *msg, uint64_t flags)
{
	if (flags & FI_MULTI_RECV)
		return -FI_EINVAL;
	return recv_common(ep_of(fep), msg->msg_iov, msg->desc, msg->iov_count, msg->context);
}

struct fi_ops_msg drfi_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = msg_recv,
	.recvv = msg_recvv,
	.recvmsg = msg_recvmsg,
	.send = msg_send,
	.sendv = msg_sendv,
	.sendmsg = msg_sendmsg,
	.inject = msg_inject,
	.senddata = msg_senddata,
	.injectdata = msg_injectdata,
};

/* ---- RMA --------------------------------------------------------------------------------------- */

static ssize_t
rma_common(struct drfi_ep *ep, enum dr_wr_opcode op, const struct iovec *iov, void **desc, size_t count,
	   uint64_t addr, uint64_t key, uint64_t data, uint64_t flags, void *context)
{
	struct dr_sge sge[DRFI_IOV_LIMIT];
	struct dr_send_wr wr;
	bool inl;
	int ret;

	ret = sges_of(ep, iov, desc, count, op != DR_WR_RDMA_READ, (flags & FI_INJECT) != 0, sge, &inl);
	if (ret != 0)
		return ret;
	if ((flags & FI_INJECT) && !inl)
		return -FI_EINVAL;
	if (key > UINT32_MAX)
		return -FI_EINVAL;      /* mr_key_size 4 */
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sge;
	wr.num_sge = (int)count;
	wr.opcode = op;
	wr.imm_data = rte_cpu_to_be_32((uint32_t)data);
	wr.send_flags = inl ? DR_SEND_INLINE : 0;
	wr.wr.rdma.remote_addr = addr;     /* FI_MR_VIRT_ADDR */
	wr.wr.rdma.rkey = (uint32_t)key;
	return post_send(ep, &wr, flags, context);
}

static ssize_t
rma_read(struct fid_ep *fep, void *buf, size_t len, void *desc, fi_addr_t src_addr, uint64_t addr, uint64_t key,
	 void *context)
{
	struct iovec iov = { buf, len };

	(void)src_addr;
	return rma_common(ep_of(fep), DR_WR_RDMA_READ, &iov, &desc, 1, addr, key, 0, ep_of(fep)->tx_op_flags,
			  context);
}

static ssize_t
rma_readv(struct fid_ep *fep, const struct iovec *iov, void **desc, size_t count, fi_addr_t src_addr, uint64_t addr,
	  uint64_t key, void *context)
{
	(void)src_addr;
	return rma_common(ep_of(fep), DR_WR_RDMA_READ, iov, desc, count, addr, key, 0, ep_of(fep)->tx_op_flags,
			  context);
}

static ssize_t
rma_readmsg(struct fid_ep *fep, const struct fi_msg_rma *msg, uint64_t flags)
{
	if (msg->rma_iov_count != 1)
		return -FI_EINVAL;      /* rma_iov_limit 1 */
	return rma_common(ep_of(fep), DR_WR_RDMA_READ, msg->msg_iov, msg->desc, msg->iov_count, msg->rma_iov[0].addr,
			  msg->rma_iov[0].key, 0, flags, msg->context);
}

static ssize_t
rma_write(struct fid_ep *fep, const void *buf, size_t len, void *desc, fi_addr_t dest_addr, uint64_t addr,
	  uint64_t key, void *context)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	(void)dest_addr;
	return rma_common(ep_of(fep), DR_WR_RDMA_WRITE, &iov, &desc, 1, addr, key, 0, ep_of(fep)->tx_op_flags,
			  context);
}

static ssize_t
rma_writev(struct fid_ep *fep, const struct iovec *iov, void **desc, size_t count, fi_addr_t dest_addr,
	   uint64_t addr, uint64_t key, void *context)
{
	(void)dest_addr;
	return rma_common(ep_of(fep), DR_WR_RDMA_WRITE, iov, desc, count, addr, key, 0, ep_of(fep)->tx_op_flags,
			  context);
}

static ssize_t
rma_writemsg(struct fid_ep *fep, const struct fi_msg_rma *msg, uint64_t flags)
{
	bool data = (flags & FI_REMOTE_CQ_DATA) != 0;

	if (msg->rma_iov_count != 1)
		return -FI_EINVAL;
	return rma_common(ep_of(fep), data ? DR_WR_RDMA_WRITE_WITH_IMM : DR_WR_RDMA_WRITE, msg->msg_iov, msg->desc,
			  msg->iov_count, msg->rma_iov[0].addr, msg->rma_iov[0].key, msg->data, flags, msg->context);
}

static ssize_t
rma_inject(struct fid_ep *fep, const void *buf, size_t len, fi_addr_t dest_addr, uint64_t addr, uint64_t key)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	(void)dest_addr;
	return rma_common(ep_of(fep), DR_WR_RDMA_WRITE, &iov, NULL, 1, addr, key, 0, FI_INJECT, NULL);
}

static ssize_t
rma_writedata(struct fid_ep *fep, const void *buf, size_t len, void *desc, uint64_t data, fi_addr_t dest_addr,
	      uint64_t addr, uint64_t key, void *context)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	(void)dest_addr;
	return rma_common(ep_of(fep), DR_WR_RDMA_WRITE_WITH_IMM, &iov, &desc, 1, addr, key, data,
			  ep_of(fep)->tx_op_flags, context);
}

static ssize_t
rma_injectdata(struct fid_ep *fep, const void *buf, size_t len, uint64_t data, fi_addr_t dest_addr, uint64_t addr,
	       uint64_t key)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	(void)dest_addr;
	return rma_common(ep_of(fep), DR_WR_RDMA_WRITE_WITH_IMM, &iov, NULL, 1, addr, key, data, FI_INJECT, NULL);
}

struct fi_ops_rma drfi_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = rma_read,
	.readv = rma_readv,
	.readmsg = rma_readmsg,
	.write = rma_write,
	.writev = rma_writev,
	.writemsg = rma_writemsg,
	.inject = rma_inject,
	.writedata = rma_writedata,
	.injectdata = rma_injectdata,
};
