/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Completion queues (fi_cq(3)) on a dpdk-rdma CQ: each work completion as
 * an entry of the CQ's format (CONTEXT, MSG, DATA, TAGGED); a failed one
 * stops the read with -FI_EAVAIL and waits for fi_cq_readerr(). In inline
 * mode reading drives the transport (dr_poll_cq() does).
 */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>

#include "drfi.h"


static size_t
entry_size(enum fi_cq_format f)
{
	switch (f) {
	case FI_CQ_FORMAT_CONTEXT:
		return sizeof(struct fi_cq_entry);
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	case FI_CQ_FORMAT_TAGGED:
		return sizeof(struct fi_cq_tagged_entry);
	default:
		return 0;
	}
}

/* fi_cq(3) flags of a completion. */
static uint64_t
flags_of(const struct dr_wc *wc)
{
	uint64_t f;

	switch (wc->opcode) {
	case DR_WC_SEND:
		f = FI_SEND | FI_MSG;
		break;
	case DR_WC_RDMA_WRITE:
		f = FI_RMA | FI_WRITE;
		break;
	case DR_WC_RDMA_READ:
		f = FI_RMA | FI_READ;
		break;
	case DR_WC_RECV:
		f = FI_RECV | FI_MSG;
		break;
	case DR_WC_RECV_RDMA_WITH_IMM:
		f = FI_RMA | FI_REMOTE_WRITE;
		break;
	default:
		f = 0;
		break;
	}
	if (wc->wc_flags & DR_WC_WITH_IMM)
		f |= FI_REMOTE_CQ_DATA;
	return f;
}

/* A failed completion's libfabric error. */
static int
err_of(enum dr_wc_status s)
{
	switch (s) {
	case DR_WC_LOC_LEN_ERR:
		return FI_ETRUNC;
	case DR_WC_WR_FLUSH_ERR:
		return FI_ECANCELED;
	case DR_WC_REM_ACCESS_ERR:
	case DR_WC_LOC_PROT_ERR:
	case DR_WC_LOC_ACCESS_ERR:
		return FI_EACCES;
	case DR_WC_RETRY_EXC_ERR:
	case DR_WC_RESP_TIMEOUT_ERR:
		return FI_ETIMEDOUT;
	case DR_WC_RNR_RETRY_EXC_ERR:
		return FI_ENORX;
	case DR_WC_REM_INV_REQ_ERR:
	case DR_WC_REM_OP_ERR:
		return FI_EREMOTEIO;
	default:
		return FI_EIO;
	}
}

static void
fill(struct drfi_cq *cq, void *out, const struct dr_wc *wc)
{
	uint64_t flags = flags_of(wc);
	void *ctx = (void *)(uintptr_t)wc->wr_id;
	bool recv = (wc->opcode & DR_WC_RECV) != 0;

	switch (cq->format) {
	case FI_CQ_FORMAT_CONTEXT:
		((struct fi_cq_entry *)out)->op_context = ctx;
		break;
	case FI_CQ_FORMAT_MSG:
		*(struct fi_cq_msg_entry *)out = (struct fi_cq_msg_entry){ ctx, flags, recv ? wc->byte_len : 0 };
		break;
	case FI_CQ_FORMAT_DATA:
	case FI_CQ_FORMAT_TAGGED:
		*(struct fi_cq_data_entry *)out = (struct fi_cq_data_entry){
			.op_context = ctx, .flags = flags, .len = recv ? wc->byte_len : 0,
			.data = (wc->wc_flags & DR_WC_WITH_IMM) ? rte_be_to_cpu_32(wc->imm_data) : 0 };
		if (cq->format == FI_CQ_FORMAT_TAGGED)
			((struct fi_cq_tagged_entry *)out)->tag = 0;
		break;
	default:
		break;
	}
}

/* Stage the next completions of the library's CQ (taken in bursts, handed out in order). */
static int
stage(struct drfi_cq *cq)
{
	int n;

	if (cq->staged_next < cq->staged)
		return 0;
	n = dr_poll_cq(cq->cq, DRFI_CQ_BURST, cq->stage);
	cq->staged = n > 0 ? (unsigned int)n : 0;
	cq->staged_next = 0;
	return n < 0 ? n : 0;
}

static ssize_t
cq_read_locked(struct fid_cq *fcq, void *buf, size_t count)
{
	struct drfi_cq *cq = (struct drfi_cq *)fcq;
	size_t size = entry_size(cq->format), done = 0;

	if (cq->have_err)
		return -FI_EAVAIL;
	while (done < count) {
		const struct dr_wc *wc;
		int ret = stage(cq);

		if (ret != 0)
			return done > 0 ? (ssize_t)done : ret;
		if (cq->staged_next >= cq->staged)
			break;
		wc = &cq->stage[cq->staged_next++];
		if (wc->wr_id == DRFI_WR_INTERNAL)
			continue;       /* a send signaled for the send queue's sake, or its flush */
		if (wc->status != DR_WC_SUCCESS) {
			/* fi_cq(3): the entries before it first, then -FI_EAVAIL until fi_cq_readerr() */
			memset(&cq->err, 0, sizeof(cq->err));
			cq->err.op_context = (void *)(uintptr_t)wc->wr_id;
			cq->err.flags = flags_of(wc);
			cq->err.err = err_of(wc->status);
			cq->err.prov_errno = (int)wc->status;
			cq->have_err = true;
			break;
		}
		fill(cq, (uint8_t *)buf + done * size, wc);
		done++;
	}
	if (done > 0)
		return (ssize_t)done;
	return cq->have_err ? -FI_EAVAIL : -FI_EAGAIN;
}

static ssize_t
cq_read(struct fid_cq *fcq, void *buf, size_t count)
{
	struct drfi_fabric *fab = ((struct drfi_cq *)fcq)->dom->fab;
	ssize_t n;

	drfi_lock(fab);
	n = cq_read_locked(fcq, buf, count);
	drfi_unlock(fab);
	return n;
}

static ssize_t
cq_readfrom(struct fid_cq *fcq, void *buf, size_t count, fi_addr_t *src_addr)
{
	ssize_t n = cq_read(fcq, buf, count);

	/* FI_EP_MSG: the sender is the connection's peer, no address vector */
	for (ssize_t i = 0; src_addr != NULL && i < n; i++)
		src_addr[i] = FI_ADDR_NOTAVAIL;
	return n;
}

static ssize_t
cq_readerr(struct fid_cq *fcq, struct fi_cq_err_entry *buf, uint64_t flags)
{
	struct drfi_cq *cq = (struct drfi_cq *)fcq;

	(void)flags;
	if (!cq->have_err)
		return -FI_EAGAIN;
	/* err_data_size in: the room the caller gave (API 1.5+); we have none to give */
	buf->op_context = cq->err.op_context;
	buf->flags = cq->err.flags;
	buf->len = 0;
	buf->buf = NULL;
	buf->data = 0;
	buf->tag = 0;
	buf->olen = 0;
	buf->err = cq->err.err;
	buf->prov_errno = cq->err.prov_errno;
	buf->err_data_size = 0;
	cq->have_err = false;
	return 1;
}

static ssize_t
cq_sread(struct fid_cq *fcq, void *buf, size_t count, const void *cond, int timeout)
{
	double end = timeout < 0 ? -1 : drfi_now_ms() + timeout;

	(void)cond;
	for (;;) {
		ssize_t n = cq_read(fcq, buf, count);

		if (n != -FI_EAGAIN)
			return n;
		if (end >= 0 && drfi_now_ms() >= end)
			return -FI_EAGAIN;
		if (drfi_conf()->mode != DR_PROGRESS_INLINE)
			sched_yield();  /* the workers make the completions */
	}
}

static ssize_t
cq_sreadfrom(struct fid_cq *fcq, void *buf, size_t count, fi_addr_t *src_addr, const void *cond, int timeout)
{
	ssize_t n = cq_sread(fcq, buf, count, cond, timeout);

	for (ssize_t i = 0; src_addr != NULL && i < n; i++)
		src_addr[i] = FI_ADDR_NOTAVAIL;
	return n;
}

static int
cq_signal(struct fid_cq *fcq)
{
	(void)fcq;
	return -FI_ENOSYS;
}

static const char *
cq_strerror(struct fid_cq *fcq, int prov_errno, const void *err_data, char *buf, size_t len)
{
	const char *s = dr_wc_status_str((enum dr_wc_status)prov_errno);

	(void)fcq;
	(void)err_data;
	if (buf != NULL && len > 0) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	return s;
}

static int
cq_close(struct fid *fid)
{
	struct drfi_cq *cq = (struct drfi_cq *)fid;

	if (cq->refs != 0 || dr_destroy_cq(cq->cq) != 0)
		return -FI_EBUSY;
	cq->dom->refs--;
	free(cq);
	return 0;
}

static struct fi_ops cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cq_close,
	.bind = drfi_no_bind,
	.control = drfi_no_control,
	.ops_open = drfi_no_ops_open,
};

static struct fi_ops_cq cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = cq_read,
	.readfrom = cq_readfrom,
	.readerr = cq_readerr,
	.sread = cq_sread,
	.sreadfrom = cq_sreadfrom,
	.signal = cq_signal,
	.strerror = cq_strerror,
};

int
drfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr, struct fid_cq **out, void *context)
{
	struct drfi_domain *dom = (struct drfi_domain *)domain;
	enum fi_cq_format format = attr->format == FI_CQ_FORMAT_UNSPEC ? FI_CQ_FORMAT_CONTEXT : attr->format;
	size_t size = attr->size != 0 ? attr->size : 2 * DRFI_TX_SIZE;
	struct dr_device_attr da;
	struct drfi_cq *cq;

	if (entry_size(format) == 0)
		return -FI_ENOSYS;
	if (attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC)
		return -FI_ENOSYS;      /* sread polls; no fd, mutex or wait set */
	if (attr->flags & FI_AFFINITY || attr->wait_cond != FI_CQ_COND_NONE)
		return -FI_EINVAL;
	/* as the verbs provider: a size beyond the device's is cut to it (ofi_rxm asks for thousands) */
	if (dr_query_device(dom->fab->ctx, &da) == 0 && size > (size_t)da.max_cqe)
		size = (size_t)da.max_cqe;
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL)
		return -FI_ENOMEM;
	drfi_lock(dom->fab);
	cq->cq = dr_create_cq(dom->fab->ctx, (int)size, cq, NULL, 0);
	drfi_unlock(dom->fab);
	if (cq->cq == NULL) {
		int err = errno;

		free(cq);
		return -(err != 0 ? err : FI_ENOMEM);
	}
	cq->dom = dom;
	cq->format = format;
	cq->cq_.fid.fclass = FI_CLASS_CQ;
	cq->cq_.fid.context = context;
	cq->cq_.fid.ops = &cq_fi_ops;
	cq->cq_.ops = &cq_ops;
	dom->refs++;
	*out = &cq->cq_;
	return 0;
}
