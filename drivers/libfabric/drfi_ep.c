/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Endpoints (fi_endpoint(3), FI_EP_MSG) and passive endpoints, their
 * connections through the connection manager (fi_cm(3)) as the verbs
 * provider makes them through rdma_cm:
 *
 * - an active endpoint is a synchronous id, its address (and route)
 *   resolved when fi_endpoint() knows the destination; fi_enable() makes
 *   its RC QP (dr_cm_create_qp(): the CM readies it) and moves the id to
 *   the bound EQ's channel (dr_cm_migrate_id()); fi_connect() sends the
 *   REQ with the caller's private data (56 bytes at most);
 * - a passive endpoint listens on an id of its EQ's channel; each request
 *   comes as FI_CONNREQ with a handle holding its new id, which
 *   fi_endpoint() takes over and fi_accept() answers (REP) or fi_reject()
 *   refuses (REJ 28);
 * - fi_shutdown() sends the DREQ; both sides then read FI_SHUTDOWN.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drfi.h"

#define RESOLVE_MS 2000

/* ---- addresses ------------------------------------------------------------------------ */

static size_t
sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* fi_getname(3)'s copy: the whole address when there is room, else -FI_ETOOSMALL and the length needed. */
static int
copy_name(const struct sockaddr *sa, void *addr, size_t *addrlen)
{
	size_t len = sa_len(sa), n = *addrlen < len ? *addrlen : len;

	memcpy(addr, sa, n);
	*addrlen = len;
	return n < len ? -FI_ETOOSMALL : 0;
}

static int
ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	if (fid->fclass == FI_CLASS_PEP) {
		struct drfi_pep *pep = container_of(fid, struct drfi_pep, pep.fid);

		return copy_name(pep->id != NULL ? dr_cm_get_local_addr(pep->id) : (struct sockaddr *)&pep->src,
				 addr, addrlen);
	}
	return copy_name(dr_cm_get_local_addr(container_of(fid, struct drfi_ep, ep.fid)->id), addr, addrlen);
}

static int
ep_getpeer(struct fid_ep *fep, void *addr, size_t *addrlen)
{
	struct drfi_ep *ep = (struct drfi_ep *)fep;

	return copy_name(dr_cm_get_peer_addr(ep->id), addr, addrlen);
}

static int
ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct drfi_pep *pep;
	const struct sockaddr *sa = addr;

	if (fid->fclass != FI_CLASS_PEP)
		return -FI_ENOSYS;      /* an active endpoint's source comes from its fi_info */
	pep = container_of(fid, struct drfi_pep, pep.fid);
	if (pep->id != NULL)
		return -FI_EOPBADSTATE;  /* listening */
	if (sa == NULL || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6) || addrlen < sa_len(sa) ||
	    addrlen > sizeof(pep->src))
		return -FI_EINVAL;
	memset(&pep->src, 0, sizeof(pep->src));
	memcpy(&pep->src, sa, sa_len(sa));
	return 0;
}

/* ---- the CM's calls ---------------------------------------------------------------------- */

/* rdma_cm's values where libfabric has none: retries 7, READs as deep as the device's. */
static void
conn_param(struct drfi_ep *ep, const void *param, size_t len, struct dr_cm_conn_param *p)
{
	struct dr_device_attr da;

	memset(p, 0, sizeof(*p));
	p->private_data = param;
	p->private_data_len = (uint8_t)len;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->responder_resources = p->initiator_depth = 1;
	if (dr_query_device(ep->dom->fab->ctx, &da) == 0) {
		p->responder_resources = (uint8_t)(da.max_qp_rd_atom > 255 ? 255 : da.max_qp_rd_atom);
		p->initiator_depth = (uint8_t)(da.max_qp_init_rd_atom > 255 ? 255 : da.max_qp_init_rd_atom);
	}
}

/* FI_DPDK_RDMA_ACK_TIMEOUT: the QP's local ACK timeout, through the CM (rdma_set_option(3)). */
static int
set_ack_timeout(struct drfi_ep *ep)
{
	uint8_t t;

	if (drfi_conf()->ack_timeout < 0)
		return 0;
	t = (uint8_t)drfi_conf()->ack_timeout;
	return dr_cm_set_option(ep->id, DR_CM_OPTION_ID, DR_CM_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t));
}

static int
ep_connect_locked(struct fid_ep *fep, const void *addr, const void *param, size_t paramlen)
{
	struct drfi_ep *ep = (struct drfi_ep *)fep;
	struct dr_cm_conn_param p;
	int ret;

	if (paramlen > DRFI_CM_DATA_SIZE || (paramlen > 0 && param == NULL))
		return -FI_EINVAL;
	if (!ep->enabled || ep->passive)
		return -FI_EOPBADSTATE;
	ep->conn_t0 = drfi_now_ms();
	if (dr_cm_get_peer_addr(ep->id)->sa_family == AF_UNSPEC) {
		struct drfi_fabric *fab = ep->dom->fab;
		double took;

		if (addr == NULL)
			return -FI_EINVAL;
		ret = dr_cm_resolve_addr(ep->id, NULL, addr, RESOLVE_MS);
		if (ret == 0)
			ret = dr_cm_resolve_route(ep->id, RESOLVE_MS);
		if (ret != 0)
			return ret;
		took = drfi_now_ms() - ep->conn_t0;
		fab->resolve_ms_sum += took;
		if (took > fab->resolve_ms_max)
			fab->resolve_ms_max = took;
	}
	conn_param(ep, param, paramlen, &p);
	ret = set_ack_timeout(ep);
	return ret != 0 ? ret : dr_cm_connect(ep->id, &p);
}

static int
ep_connect(struct fid_ep *fep, const void *addr, const void *param, size_t paramlen)
{
	struct drfi_fabric *fab = ((struct drfi_ep *)fep)->dom->fab;
	int ret;

	drfi_lock(fab);
	ret = ep_connect_locked(fep, addr, param, paramlen);
	drfi_unlock(fab);
	if (ret != 0)
		FI_WARN(&drfi_prov, FI_LOG_EP_CTRL, "fi_connect: %s\n", fi_strerror(-ret));
	return ret;
}

static int
ep_accept(struct fid_ep *fep, const void *param, size_t paramlen)
{
	struct drfi_ep *ep = (struct drfi_ep *)fep;
	struct dr_cm_conn_param p;
	int ret;

	if (paramlen > DRFI_CM_DATA_SIZE || (paramlen > 0 && param == NULL))
		return -FI_EINVAL;
	if (!ep->enabled || !ep->passive)
		return -FI_EOPBADSTATE;
	conn_param(ep, param, paramlen, &p);
	drfi_lock(ep->dom->fab);
	ep->conn_t0 = drfi_now_ms();
	ret = set_ack_timeout(ep);
	if (ret == 0)
		ret = dr_cm_accept(ep->id, &p);
	drfi_unlock(ep->dom->fab);
	return ret;
}

static int
pep_reject(struct fid_pep *fpep, fid_t handle, const void *param, size_t paramlen)
{
	struct drfi_connreq *cr = container_of(handle, struct drfi_connreq, fid);
	int ret;

	(void)fpep;
	if (handle == NULL || handle->fclass != FI_CLASS_CONNREQ || paramlen > DRFI_CM_DATA_SIZE ||
	    (paramlen > 0 && param == NULL))
		return -FI_EINVAL;
	ret = dr_cm_reject(cr->id, param, (uint8_t)paramlen);
	(void)dr_cm_destroy_id(cr->id);
	free(cr);
	return ret;
}

static int
ep_shutdown(struct fid_ep *fep, uint64_t flags)
{
	struct drfi_ep *ep = (struct drfi_ep *)fep;
	int ret;

	(void)flags;
	drfi_lock(ep->dom->fab);
	ret = dr_cm_disconnect(ep->id);
	drfi_unlock(ep->dom->fab);
	return ret == -EINVAL ? 0 : ret;    /* already released (the peer's DREQ came first) */
}

static int
pep_listen(struct fid_pep *fpep)
{
	struct drfi_pep *pep = (struct drfi_pep *)fpep;
	int ret;

	if (pep->eq == NULL)
		return -FI_ENOEQ;
	if (pep->id != NULL)
		return -FI_EOPBADSTATE;
	ret = dr_cm_create_id(pep->eq->ch, &pep->id, pep, DR_CM_PS_TCP);
	if (ret != 0)
		return ret;
	ret = dr_cm_bind_addr(pep->id, (struct sockaddr *)&pep->src);
	if (ret == 0)
		ret = dr_cm_listen(pep->id, 0);    /* port 0: the CM picks one, fi_getname() tells it */
	if (ret != 0) {
		(void)dr_cm_destroy_id(pep->id);
		pep->id = NULL;
		FI_WARN(&drfi_prov, FI_LOG_EP_CTRL, "fi_listen: %s\n", fi_strerror(-ret));
	}
	return ret;
}

static int
no_join(struct fid_ep *ep, const void *addr, uint64_t flags, struct fid_mc **mc, void *context)
{
	(void)ep;
	(void)addr;
	(void)flags;
	(void)mc;
	(void)context;
	return -FI_ENOSYS;
}

static int
no_connect(struct fid_ep *ep, const void *addr, const void *param, size_t paramlen)
{
	(void)ep;
	(void)addr;
	(void)param;
	(void)paramlen;
	return -FI_ENOSYS;
}

static int
no_listen(struct fid_pep *pep)
{
	(void)pep;
	return -FI_ENOSYS;
}

static struct fi_ops_cm ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = ep_setname,
	.getname = ep_getname,
	.getpeer = ep_getpeer,
	.connect = ep_connect,
	.listen = no_listen,
	.accept = ep_accept,
	.reject = pep_reject,
	.shutdown = ep_shutdown,
	.join = no_join,
};

static struct fi_ops_cm pep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = ep_setname,
	.getname = ep_getname,
	.getpeer = NULL,
	.connect = no_connect,
	.listen = pep_listen,
	.accept = NULL,
	.reject = pep_reject,
	.shutdown = NULL,
	.join = no_join,
};

/* ---- options ------------------------------------------------------------------------------ */

static int
ep_getopt(fid_t fid, int level, int optname, void *optval, size_t *optlen)
{
	(void)fid;
	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	if (optname == FI_OPT_CM_DATA_SIZE) {
		if (*optlen < sizeof(size_t))
			return -FI_ETOOSMALL;
		*(size_t *)optval = DRFI_CM_DATA_SIZE;
		*optlen = sizeof(size_t);
		return 0;
	}
	return -FI_ENOPROTOOPT;
}

static struct fi_ops_ep ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.getopt = ep_getopt,
	.setopt = drfi_no_setopt,
};

/* ---- life ---------------------------------------------------------------------------------- */

static int
ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct drfi_ep *ep = container_of(fid, struct drfi_ep, ep.fid);

	if (ep->enabled)
		return -FI_EOPBADSTATE;
	switch (bfid->fclass) {
	case FI_CLASS_EQ:
		ep->eq = container_of(bfid, struct drfi_eq, eq.fid);
		return 0;
	case FI_CLASS_CQ: {
		struct drfi_cq *cq = container_of(bfid, struct drfi_cq, cq_.fid);

		if (!(flags & (FI_TRANSMIT | FI_RECV)))
			return -FI_EINVAL;
		if (flags & FI_TRANSMIT) {
			if (ep->tx_cq != NULL)
				return -FI_EINVAL;
			ep->tx_cq = cq;
			ep->tx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
			cq->refs++;
		}
		if (flags & FI_RECV) {
			if (ep->rx_cq != NULL)
				return -FI_EINVAL;
			ep->rx_cq = cq;
			cq->refs++;
		}
		return 0;
	}
	default:
		return -FI_ENOSYS;       /* counters, shared contexts */
	}
}

static int
ep_enable(struct drfi_ep *ep)
{
	struct dr_qp_init_attr ia;
	int ret;

	if (ep->enabled)
		return 0;
	if (ep->eq == NULL)
		return -FI_ENOEQ;
	if (ep->tx_cq == NULL || ep->rx_cq == NULL)
		return -FI_ENOCQ;        /* an RC QP has both queues */
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = DR_QPT_RC;
	ia.send_cq = ep->tx_cq->cq;
	ia.recv_cq = ep->rx_cq->cq;
	ia.cap.max_send_wr = (uint32_t)ep->info->tx_attr->size;
	ia.cap.max_recv_wr = (uint32_t)ep->info->rx_attr->size;
	ia.cap.max_send_sge = (uint32_t)ep->info->tx_attr->iov_limit;
	ia.cap.max_recv_sge = (uint32_t)ep->info->rx_attr->iov_limit;
	ia.cap.max_inline_data = DRFI_INJECT_SIZE;
	ret = dr_cm_create_qp(ep->id, ep->dom->pd, &ia);
	if (ret != 0)
		return ret;
	ep->inject_size = ia.cap.max_inline_data;
	/* a send queue of N slots drains when every (N / 2)th send asks for its completion */
	ep->signal_every = ia.cap.max_send_wr / 2 > 0 ? ia.cap.max_send_wr / 2 : 1;
	ret = dr_cm_migrate_id(ep->id, ep->eq->ch);
	if (ret != 0) {
		dr_cm_destroy_qp(ep->id);
		return ret;
	}
	ep->enabled = true;
	return 0;
}

static int
ep_control(struct fid *fid, int command, void *arg)
{
	struct drfi_ep *ep = container_of(fid, struct drfi_ep, ep.fid);

	int ret;

	switch (command) {
	case FI_ENABLE:
		drfi_lock(ep->dom->fab);
		ret = ep_enable(ep);
		drfi_unlock(ep->dom->fab);
		if (ret != 0)
			FI_WARN(&drfi_prov, FI_LOG_EP_CTRL, "fi_enable: %s\n", fi_strerror(-ret));
		return ret;
	case FI_GETOPSFLAG:
		if (arg == NULL)
			return -FI_EINVAL;
		*(uint64_t *)arg = (*(uint64_t *)arg & FI_TRANSMIT) ? ep->tx_op_flags : ep->rx_op_flags;
		return 0;
	case FI_SETOPSFLAG:
		if (arg == NULL)
			return -FI_EINVAL;
		if (*(uint64_t *)arg & FI_TRANSMIT)
			ep->tx_op_flags = *(uint64_t *)arg & ~FI_TRANSMIT;
		else
			ep->rx_op_flags = *(uint64_t *)arg & ~FI_RECV;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int
ep_close(struct fid *fid)
{
	struct drfi_ep *ep = container_of(fid, struct drfi_ep, ep.fid);
	int ret;

	if (ep->id != NULL) {
		drfi_lock(ep->dom->fab);
		if (drfi_conf()->stats)
			drfi_stats_take_qp(ep->dom->fab, ep->id->qp);
		dr_cm_destroy_qp(ep->id);
		ret = dr_cm_destroy_id(ep->id);
		drfi_unlock(ep->dom->fab);
		if (ret != 0)
			return -FI_EBUSY;
	}
	if (ep->tx_cq != NULL)
		ep->tx_cq->refs--;
	if (ep->rx_cq != NULL)
		ep->rx_cq->refs--;
	ep->dom->refs--;
	fi_freeinfo(ep->info);
	free(ep);
	return 0;
}

static struct fi_ops ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = ep_close,
	.bind = ep_bind,
	.control = ep_control,
	.ops_open = drfi_no_ops_open,
};

/* An active endpoint's id: synchronous, its source bound, its destination resolved when known. */
static int
active_id(struct drfi_ep *ep, const struct fi_info *info)
{
	const struct sockaddr *src = info->src_addr, *dst = info->dest_addr;
	int ret = dr_cm_create_id(NULL, &ep->id, ep, DR_CM_PS_TCP);

	if (ret != 0)
		return ret;
	if (dst != NULL) {
		ret = dr_cm_resolve_addr(ep->id, src, dst, RESOLVE_MS);
		if (ret == 0)
			ret = dr_cm_resolve_route(ep->id, RESOLVE_MS);
	} else if (src != NULL) {
		ret = dr_cm_bind_addr(ep->id, src);
	} else {
		ret = -FI_EINVAL;
	}
	return ret;
}

int
drfi_endpoint(struct fid_domain *domain, struct fi_info *info, struct fid_ep **out, void *context)
{
	struct drfi_domain *dom = (struct drfi_domain *)domain;
	struct drfi_ep *ep;
	int ret;

	if (info == NULL || info->ep_attr == NULL || info->ep_attr->type != FI_EP_MSG || info->tx_attr == NULL ||
	    info->rx_attr == NULL)
		return -FI_EINVAL;
	if (info->handle != NULL && info->handle->fclass != FI_CLASS_CONNREQ)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL)
		return -FI_ENOMEM;
	ep->info = fi_dupinfo(info);
	if (ep->info == NULL) {
		free(ep);
		return -FI_ENOMEM;
	}
	ep->dom = dom;
	ep->inline_mode = drfi_conf()->mode == DR_PROGRESS_INLINE;
	ep->tx_op_flags = info->tx_attr->op_flags;
	ep->rx_op_flags = info->rx_attr->op_flags;
	if (info->handle != NULL) {
		struct drfi_connreq *cr = container_of(info->handle, struct drfi_connreq, fid);

		/* the request's id is the endpoint's now */
		ep->id = cr->id;
		ep->id->context = ep;
		ep->passive = true;
		free(cr);
		info->handle = NULL;
		ep->info->handle = NULL;
		ret = 0;
	} else {
		ret = active_id(ep, info);
	}
	if (ret != 0) {
		FI_WARN(&drfi_prov, FI_LOG_EP_CTRL, "fi_endpoint: %s\n", fi_strerror(-ret));
		if (ep->id != NULL)
			(void)dr_cm_destroy_id(ep->id);
		fi_freeinfo(ep->info);
		free(ep);
		return ret;
	}
	ep->ep.fid.fclass = FI_CLASS_EP;
	ep->ep.fid.context = context;
	ep->ep.fid.ops = &ep_fi_ops;
	ep->ep.ops = &ep_ops;
	ep->ep.cm = &ep_cm_ops;
	ep->ep.msg = &drfi_msg_ops;
	ep->ep.rma = &drfi_rma_ops;
	dom->refs++;
	*out = &ep->ep;
	return 0;
}

/* ---- passive endpoints ------------------------------------------------------------------------ */

static int
pep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct drfi_pep *pep = container_of(fid, struct drfi_pep, pep.fid);

	(void)flags;
	if (bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	if (pep->id != NULL)
		return -FI_EOPBADSTATE;
	pep->eq = container_of(bfid, struct drfi_eq, eq.fid);
	return 0;
}

static int
pep_close(struct fid *fid)
{
	struct drfi_pep *pep = container_of(fid, struct drfi_pep, pep.fid);

	if (pep->id != NULL && dr_cm_destroy_id(pep->id) != 0)
		return -FI_EBUSY;       /* a request not yet read from the EQ */
	pep->fab->refs--;
	fi_freeinfo(pep->info);
	free(pep);
	return 0;
}

static struct fi_ops pep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = pep_close,
	.bind = pep_bind,
	.control = drfi_no_control,
	.ops_open = drfi_no_ops_open,
};

int
drfi_passive_ep(struct fid_fabric *fabric, struct fi_info *info, struct fid_pep **out, void *context)
{
	struct drfi_fabric *fab = (struct drfi_fabric *)fabric;
	const struct sockaddr *src;
	struct drfi_pep *pep;

	if (info == NULL || info->src_addr == NULL || info->ep_attr == NULL || info->ep_attr->type != FI_EP_MSG)
		return -FI_EINVAL;
	src = info->src_addr;
	if ((src->sa_family != AF_INET && src->sa_family != AF_INET6) || info->src_addrlen < sa_len(src))
		return -FI_EINVAL;
	pep = calloc(1, sizeof(*pep));
	if (pep == NULL)
		return -FI_ENOMEM;
	pep->info = fi_dupinfo(info);
	if (pep->info == NULL) {
		free(pep);
		return -FI_ENOMEM;
	}
	memcpy(&pep->src, src, sa_len(src));
	pep->fab = fab;
	pep->pep.fid.fclass = FI_CLASS_PEP;
	pep->pep.fid.context = context;
	pep->pep.fid.ops = &pep_fi_ops;
	pep->pep.ops = &ep_ops;
	pep->pep.cm = &pep_cm_ops;
	fab->refs++;
	*out = &pep->pep;
	return 0;
}
