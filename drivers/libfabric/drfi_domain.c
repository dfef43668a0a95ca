/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The domain (fi_domain(3)): a protection domain of the fabric's context;
 * its memory registrations (fi_mr(3)) are dpdk-rdma MRs: FI_MR_LOCAL (the
 * descriptor is the MR, its lkey goes in every SGE), FI_MR_VIRT_ADDR (RMA
 * addresses are virtual), FI_MR_PROV_KEY (the key is the MR's rkey),
 * FI_MR_ALLOCATED.
 */

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <string.h>

#include "drfi.h"

/* fi_mr_reg(3) access as MR rights: what the peer may do, and local writes for receives and READ results. */
static int
access_of(uint64_t access)
{
	int a = DR_ACCESS_LOCAL_WRITE;

	if (access & FI_REMOTE_WRITE)
		a |= DR_ACCESS_REMOTE_WRITE;
	if (access & FI_REMOTE_READ)
		a |= DR_ACCESS_REMOTE_READ;
	return a;
}

static int
mr_close(struct fid *fid)
{
	struct drfi_mr *mr = (struct drfi_mr *)fid;
	int ret;

	drfi_lock(mr->fab);
	ret = dr_dereg_mr(mr->dmr);
	drfi_unlock(mr->fab);
	if (ret != 0)
		return ret == -EBUSY ? -FI_EBUSY : ret;
	free(mr);
	return 0;
}

static struct fi_ops mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mr_close,
	.bind = drfi_no_bind,
	.control = drfi_no_control,
	.ops_open = drfi_no_ops_open,
};

static int
mr_regv(struct fid *fid, const struct iovec *iov, size_t count, uint64_t access, uint64_t offset,
	uint64_t requested_key, uint64_t flags, struct fid_mr **out, void *context)
{
	struct drfi_domain *dom = (struct drfi_domain *)fid;
	struct drfi_mr *mr;

	(void)requested_key;     /* FI_MR_PROV_KEY: ours */
	(void)flags;             /* none asks what we cannot do (ofi_rxm passes its own, such as "no cache") */
	if (count != 1 || offset != 0)
		return -FI_EINVAL;   /* mr_iov_limit 1; FI_MR_VIRT_ADDR (no offsets) */
	if (access & ~(FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE))
		return -FI_EINVAL;
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return -FI_ENOMEM;
	drfi_lock(dom->fab);
	mr->dmr = dr_reg_mr(dom->pd, iov[0].iov_base, iov[0].iov_len, access_of(access));
	drfi_unlock(dom->fab);
	if (mr->dmr == NULL) {
		int err = errno;

		FI_WARN(&drfi_prov, FI_LOG_MR, "fi_mr_reg(%p, %zu): %s\n", iov[0].iov_base, iov[0].iov_len,
			strerror(err));
		free(mr);
		return -(err != 0 ? err : FI_EINVAL);
	}
	mr->fab = dom->fab;
	mr->mr.fid.fclass = FI_CLASS_MR;
	mr->mr.fid.context = context;
	mr->mr.fid.ops = &mr_fi_ops;
	mr->mr.mem_desc = mr->dmr;
	mr->mr.key = mr->dmr->rkey;
	*out = &mr->mr;
	return 0;
}

static int
mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access, uint64_t offset, uint64_t requested_key,
       uint64_t flags, struct fid_mr **out, void *context)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf, .iov_len = len };

	return mr_regv(fid, &iov, 1, access, offset, requested_key, flags, out, context);
}

static int
mr_regattr(struct fid *fid, const struct fi_mr_attr *attr, uint64_t flags, struct fid_mr **out)
{
	if (attr == NULL || attr->iface != FI_HMEM_SYSTEM)
		return -FI_EINVAL;
	return mr_regv(fid, attr->mr_iov, attr->iov_count, attr->access, attr->offset, attr->requested_key, flags,
		       out, attr->context);
}

static struct fi_ops_mr mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = mr_reg,
	.regv = mr_regv,
	.regattr = mr_regattr,
};

static int
domain_close(struct fid *fid)
{
	struct drfi_domain *dom = (struct drfi_domain *)fid;

	if (dom->refs != 0 || dr_dealloc_pd(dom->pd) != 0)
		return -FI_EBUSY;       /* endpoints, CQs or MRs left */
	dom->fab->refs--;
	fi_freeinfo(dom->info);
	free(dom);
	return 0;
}

static struct fi_ops domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = domain_close,
	.bind = drfi_no_bind,
	.control = drfi_no_control,
	.ops_open = drfi_no_ops_open,
};

static int
no_av_open(struct fid_domain *d, struct fi_av_attr *attr, struct fid_av **av, void *context)
{
	(void)d;
	(void)attr;
	(void)av;
	(void)context;
	return -FI_ENOSYS;       /* FI_EP_MSG: no address vectors */
}

static int
no_scalable_ep(struct fid_domain *d, struct fi_info *info, struct fid_ep **sep, void *context)
{
	(void)d;
	(void)info;
	(void)sep;
	(void)context;
	return -FI_ENOSYS;
}

static int
no_cntr_open(struct fid_domain *d, struct fi_cntr_attr *attr, struct fid_cntr **cntr, void *context)
{
	(void)d;
	(void)attr;
	(void)cntr;
	(void)context;
	return -FI_ENOSYS;
}

static int
no_poll_open(struct fid_domain *d, struct fi_poll_attr *attr, struct fid_poll **pollset)
{
	(void)d;
	(void)attr;
	(void)pollset;
	return -FI_ENOSYS;
}

static int
no_stx_ctx(struct fid_domain *d, struct fi_tx_attr *attr, struct fid_stx **stx, void *context)
{
	(void)d;
	(void)attr;
	(void)stx;
	(void)context;
	return -FI_ENOSYS;
}

static int
no_srx_ctx(struct fid_domain *d, struct fi_rx_attr *attr, struct fid_ep **rx_ep, void *context)
{
	(void)d;
	(void)attr;
	(void)rx_ep;
	(void)context;
	return -FI_ENOSYS;
}

static int
no_query_atomic(struct fid_domain *d, enum fi_datatype datatype, enum fi_op op, struct fi_atomic_attr *attr,
		uint64_t flags)
{
	(void)d;
	(void)datatype;
	(void)op;
	(void)attr;
	(void)flags;
	return -FI_ENOSYS;
}

static struct fi_ops_domain domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = no_av_open,
	.cq_open = drfi_cq_open,
	.endpoint = drfi_endpoint,
	.scalable_ep = no_scalable_ep,
	.cntr_open = no_cntr_open,
	.poll_open = no_poll_open,
	.stx_ctx = no_stx_ctx,
	.srx_ctx = no_srx_ctx,
	.query_atomic = no_query_atomic,
};

int
drfi_domain_open(struct fid_fabric *fabric, struct fi_info *info, struct fid_domain **out, void *context)
{
	struct drfi_fabric *fab = (struct drfi_fabric *)fabric;
	struct drfi_domain *dom;

	if (info == NULL || info->domain_attr == NULL || info->domain_attr->name == NULL ||
	    strncmp(info->domain_attr->name, DRFI_PROV_NAME, strlen(DRFI_PROV_NAME)) != 0)
		return -FI_EINVAL;
	dom = calloc(1, sizeof(*dom));
	if (dom == NULL)
		return -FI_ENOMEM;
	dom->info = fi_dupinfo(info);
	dom->pd = dr_alloc_pd(fab->ctx);
	if (dom->info == NULL || dom->pd == NULL) {
		if (dom->pd != NULL)
			(void)dr_dealloc_pd(dom->pd);
		fi_freeinfo(dom->info);
		free(dom);
		return -FI_ENOMEM;
	}
	dom->fab = fab;
	if (info->domain_attr->threading == FI_THREAD_SAFE || info->domain_attr->threading == FI_THREAD_FID)
		fab->thread_safe = true;        /* for the process's life: objects are shared across domains */
	dom->domain.fid.fclass = FI_CLASS_DOMAIN;
	dom->domain.fid.context = context;
	dom->domain.fid.ops = &domain_fi_ops;
	dom->domain.ops = &domain_ops;
	dom->domain.mr = &mr_ops;
	fab->refs++;
	*out = &dom->domain;
	return 0;
}
