/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * fi_getinfo(3) for dpdk_rdma: one fi_info, FI_EP_MSG on the configured
 * port, with the capabilities an RC QP of dpdk-rdma really has; hints it
 * cannot meet get -FI_ENODATA (logged at FI_LOG_INFO, as libfabric's
 * providers do, so `FI_LOG_LEVEL=info` says why).
 */

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drfi.h"

/* IBA 10.8.3 / 9.5 ordering on an RC QP (the orders verbs providers give) */
#define DRFI_MSG_ORDER (FI_ORDER_RAR | FI_ORDER_RAW | FI_ORDER_RAS | FI_ORDER_WAW | FI_ORDER_WAS | \
			FI_ORDER_SAW | FI_ORDER_SAS)
#define DRFI_COMP_ORDER (FI_ORDER_STRICT | FI_ORDER_DATA)
#define DRFI_TX_CAPS (FI_MSG | FI_RMA | FI_SEND | FI_READ | FI_WRITE)
#define DRFI_RX_CAPS (FI_MSG | FI_RMA | FI_RECV | FI_REMOTE_READ | FI_REMOTE_WRITE)
#define DRFI_TX_OP_FLAGS (FI_COMPLETION | FI_INJECT | FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE | \
			  FI_INJECT_COMPLETE)
#define DRFI_RX_OP_FLAGS (FI_COMPLETION)

static int
nodata(const char *why)
{
	FI_INFO(&drfi_prov, FI_LOG_CORE, "hints: %s\n", why);
	return -FI_ENODATA;
}

/* @node:@service (node NULL: @def's address) as a sockaddr of @family (0: either) in @ss. */
static int
resolve(const char *node, const char *service, int family, const struct sockaddr_storage *def,
	struct sockaddr_storage *ss)
{
	struct addrinfo h = { .ai_family = family, .ai_socktype = SOCK_STREAM }, *r = NULL;
	unsigned long port = 0;
	char *end;

	if (service != NULL) {
		port = strtoul(service, &end, 10);
		if (*service == '\0' || *end != '\0' || port > 65535)
			return nodata("service is not a port number");
	}
	if (node == NULL) {
		*ss = *def;
	} else {
		h.ai_flags = AI_NUMERICSERV;
		if (getaddrinfo(node, NULL, &h, &r) != 0 || r == NULL)
			return nodata("node does not resolve");
		memset(ss, 0, sizeof(*ss));
		memcpy(ss, r->ai_addr, r->ai_addrlen);
		freeaddrinfo(r);
	}
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	return 0;
}

/* Our address of @family (0: IPv4 if we have one), port 0. */
static int
our_addr(const struct drfi_conf *c, int family, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if ((family == AF_INET || family == 0) && c->ipv4 != 0) {
		ss->ss_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_addr.s_addr = c->ipv4;
		return 0;
	}
	if ((family == AF_INET6 || family == 0) && c->has_ipv6) {
		ss->ss_family = AF_INET6;
		memcpy(((struct sockaddr_in6 *)ss)->sin6_addr.s6_addr, c->ipv6, 16);
		return 0;
	}
	return nodata("no address of that family (FI_DPDK_RDMA_IP, _IPV6)");
}

static size_t
sa_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

static int
set_addr(void **where, size_t *len, const struct sockaddr_storage *ss)
{
	*len = sa_len(ss);
	*where = malloc(*len);
	if (*where == NULL)
		return -FI_ENOMEM;
	memcpy(*where, ss, *len);
	return 0;
}

/* The source and destination of @hints / @node / @service (fi_getinfo(3): FI_SOURCE, addr_format). */
static int
addresses(const struct drfi_conf *c, const char *node, const char *service, uint64_t flags,
	  const struct fi_info *hints, struct sockaddr_storage *src, struct sockaddr_storage *dst, bool *has_dst)
{
	int family = 0, ret;

	*has_dst = false;
	if (hints != NULL) {
		switch (hints->addr_format) {
		case FI_FORMAT_UNSPEC:
		case FI_SOCKADDR:
			break;
		case FI_SOCKADDR_IN:
			family = AF_INET;
			break;
		case FI_SOCKADDR_IN6:
			family = AF_INET6;
			break;
		default:
			return nodata("addr_format: sockaddr_in or sockaddr_in6 only");
		}
	}
	if (hints != NULL && hints->dest_addr != NULL) {
		const struct sockaddr *d = hints->dest_addr;

		if ((d->sa_family != AF_INET && d->sa_family != AF_INET6) || hints->dest_addrlen > sizeof(*dst))
			return nodata("dest_addr: not a sockaddr_in or sockaddr_in6");
		memset(dst, 0, sizeof(*dst));
		memcpy(dst, d, hints->dest_addrlen);
		family = d->sa_family;
		*has_dst = true;
	} else if (node != NULL && !(flags & FI_SOURCE)) {
		ret = resolve(node, service, family, NULL, dst);
		if (ret != 0)
			return ret;
		family = dst->ss_family;
		*has_dst = true;
	}
	ret = our_addr(c, family, src);
	if (ret != 0)
		return ret;
	if (hints != NULL && hints->src_addr != NULL) {
		const struct sockaddr *s = hints->src_addr;

		if (s->sa_family != src->ss_family || hints->src_addrlen > sizeof(*src))
			return nodata("src_addr: not of the destination's family");
		memset(src, 0, sizeof(*src));
		memcpy(src, s, hints->src_addrlen);
	} else if (flags & FI_SOURCE) {
		struct sockaddr_storage mine = *src;

		ret = resolve(node, service, src->ss_family, &mine, src);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static int
check_tx(const struct fi_tx_attr *h)
{
	if (h == NULL)
		return 0;
	if (h->caps & ~(DRFI_TX_CAPS | FI_REMOTE_COMM))
		return nodata("tx_attr->caps");
	if ((h->msg_order & ~DRFI_MSG_ORDER) || (h->comp_order & ~DRFI_COMP_ORDER))
		return nodata("tx_attr->msg_order / comp_order");
	if (h->inject_size > DRFI_INJECT_SIZE || h->size > DRFI_MAX_QUEUE || h->iov_limit > DRFI_IOV_LIMIT ||
	    h->rma_iov_limit > 1)
		return nodata("tx_attr: inject_size, size, iov_limit or rma_iov_limit too large");
	if (h->op_flags & ~DRFI_TX_OP_FLAGS)
		return nodata("tx_attr->op_flags");
	return 0;
}

static int
check_rx(const struct fi_rx_attr *h)
{
	if (h == NULL)
		return 0;
	if (h->caps & ~(DRFI_RX_CAPS | FI_REMOTE_COMM))
		return nodata("rx_attr->caps");
	if ((h->msg_order & ~DRFI_MSG_ORDER) || (h->comp_order & ~DRFI_COMP_ORDER))
		return nodata("rx_attr->msg_order / comp_order");
	if (h->size > DRFI_MAX_QUEUE || h->iov_limit > DRFI_IOV_LIMIT || h->total_buffered_recv > 0)
		return nodata("rx_attr: size, iov_limit too large, or buffered receives");
	if (h->op_flags & ~DRFI_RX_OP_FLAGS)
		return nodata("rx_attr->op_flags (no FI_MULTI_RECV)");
	return 0;
}

static int
check_ep(const struct fi_ep_attr *h)
{
	if (h == NULL)
		return 0;
	if (h->type != FI_EP_UNSPEC && h->type != FI_EP_MSG)
		return nodata("ep_attr->type: FI_EP_MSG only (FI_EP_RDM through ofi_rxm)");
	if (h->protocol != FI_PROTO_UNSPEC && h->protocol != FI_PROTO_RDMA_CM_IB_RC)
		return nodata("ep_attr->protocol");
	if (h->max_msg_size > DRFI_MAX_MSG_SIZE || h->msg_prefix_size > 0 || h->mem_tag_format != 0 ||
	    h->auth_key_size != 0)
		return nodata("ep_attr: max_msg_size, prefix, tags or auth keys");
	if (h->tx_ctx_cnt > 1 || h->rx_ctx_cnt > 1)
		return nodata("ep_attr: one transmit and one receive context (no shared or scalable ones)");
	return 0;
}

static int
check_domain(const struct fi_domain_attr *h, const struct drfi_conf *c, const char *name)
{
	if (h == NULL)
		return 0;
	if (h->name != NULL && strcmp(h->name, name) != 0)
		return nodata("domain_attr->name");
	if (c->mode == DR_PROGRESS_INLINE &&
	    (h->control_progress == FI_PROGRESS_AUTO || h->data_progress == FI_PROGRESS_AUTO))
		return nodata("FI_PROGRESS_AUTO needs FI_DPDK_RDMA_MODE=rtc or pipeline");
	if (h->av_type != FI_AV_UNSPEC)
		return nodata("domain_attr->av_type: none for FI_EP_MSG");
	if (h->mr_mode != FI_MR_UNSPEC && h->mr_mode != FI_MR_BASIC && (h->mr_mode & DRFI_MR_MODE) != DRFI_MR_MODE)
		return nodata("mr_mode: FI_MR_LOCAL, FI_MR_VIRT_ADDR, FI_MR_ALLOCATED and FI_MR_PROV_KEY are needed");
	if (h->cq_data_size > 4 || h->mr_key_size > 4 || h->mr_iov_limit > 1 || h->auth_key_size != 0)
		return nodata("domain_attr: cq_data_size, mr_key_size, mr_iov_limit or auth keys");
	if (h->caps & ~(FI_REMOTE_COMM))
		return nodata("domain_attr->caps");
	return 0;
}

static int
check_hints(uint32_t version, const struct fi_info *h, const struct drfi_conf *c, const char *domain)
{
	int ret;

	if (h == NULL)
		return 0;
	if (h->caps & ~DRFI_CAPS)
		return nodata("caps: FI_MSG and FI_RMA only (no FI_TAGGED, FI_ATOMIC, FI_LOCAL_COMM, ...)");
	if (h->fabric_attr != NULL && h->fabric_attr->name != NULL &&
	    strcmp(h->fabric_attr->name, DRFI_FABRIC_NAME) != 0)
		return nodata("fabric_attr->name");
	if (FI_VERSION_LT(version, FI_VERSION(1, 5)) && !(h->mode & FI_LOCAL_MR))
		return nodata("mode: FI_LOCAL_MR is needed (API before 1.5)");
	if (h->domain_attr != NULL && h->domain_attr->mr_mode == FI_MR_BASIC && !(h->mode & FI_LOCAL_MR))
		return nodata("mode: FI_MR_BASIC needs FI_LOCAL_MR");
	ret = check_ep(h->ep_attr);
	if (ret == 0)
		ret = check_domain(h->domain_attr, c, domain);
	if (ret == 0)
		ret = check_tx(h->tx_attr);
	if (ret == 0)
		ret = check_rx(h->rx_attr);
	return ret;
}

/* Hints' value @v if given (nonzero), else @def. */
#define OR_DEFAULT(h, field, def) ((h) != NULL && (h)->field != 0 ? (h)->field : (def))

static void
fill(struct fi_info *fi, uint32_t version, const struct fi_info *h, const struct drfi_conf *c, const char *domain)
{
	bool rx_cq_data = h == NULL || (h->mode & FI_RX_CQ_DATA);
	bool legacy_mr = FI_VERSION_LT(version, FI_VERSION(1, 5)) ||
			 (h != NULL && h->domain_attr != NULL && h->domain_attr->mr_mode == FI_MR_BASIC);

	fi->caps = (h != NULL && h->caps != 0 ? h->caps : DRFI_CAPS) | FI_REMOTE_COMM;
	/* remote CQ data (SEND and WRITE with immediate) takes a posted receive: FI_RX_CQ_DATA */
	fi->mode = (rx_cq_data ? FI_RX_CQ_DATA : 0) | (legacy_mr ? FI_LOCAL_MR : 0);

	fi->tx_attr->caps = fi->caps & (DRFI_TX_CAPS | FI_REMOTE_COMM);
	fi->tx_attr->mode = fi->mode;
	fi->tx_attr->op_flags = h != NULL && h->tx_attr != NULL ? h->tx_attr->op_flags : 0;
	fi->tx_attr->msg_order = DRFI_MSG_ORDER;
	fi->tx_attr->comp_order = DRFI_COMP_ORDER;
	fi->tx_attr->inject_size = DRFI_INJECT_SIZE;
	fi->tx_attr->size = OR_DEFAULT(h != NULL ? h->tx_attr : NULL, size, DRFI_TX_SIZE);
	fi->tx_attr->iov_limit = DRFI_IOV_LIMIT;
	fi->tx_attr->rma_iov_limit = 1;

	fi->rx_attr->caps = fi->caps & (DRFI_RX_CAPS | FI_REMOTE_COMM);
	fi->rx_attr->mode = fi->mode;
	fi->rx_attr->op_flags = h != NULL && h->rx_attr != NULL ? h->rx_attr->op_flags : 0;
	fi->rx_attr->msg_order = DRFI_MSG_ORDER;
	fi->rx_attr->comp_order = DRFI_COMP_ORDER;
	fi->rx_attr->size = OR_DEFAULT(h != NULL ? h->rx_attr : NULL, size, DRFI_RX_SIZE);
	fi->rx_attr->iov_limit = DRFI_IOV_LIMIT;

	fi->ep_attr->type = FI_EP_MSG;
	fi->ep_attr->protocol = FI_PROTO_RDMA_CM_IB_RC;
	fi->ep_attr->protocol_version = 1;
	fi->ep_attr->max_msg_size = DRFI_MAX_MSG_SIZE;
	fi->ep_attr->max_order_raw_size = DRFI_MAX_MSG_SIZE;
	fi->ep_attr->max_order_war_size = 0;
	fi->ep_attr->max_order_waw_size = DRFI_MAX_MSG_SIZE;
	fi->ep_attr->tx_ctx_cnt = 1;
	fi->ep_attr->rx_ctx_cnt = 1;

	fi->domain_attr->name = strdup(domain);
	/* FI_THREAD_DOMAIN unless asked: SAFE and FID take the fabric's lock (drfi_lock()) */
	fi->domain_attr->threading = FI_THREAD_DOMAIN;
	if (h != NULL && h->domain_attr != NULL && h->domain_attr->threading != FI_THREAD_UNSPEC)
		fi->domain_attr->threading = h->domain_attr->threading;
	fi->domain_attr->control_progress = c->mode == DR_PROGRESS_INLINE ? FI_PROGRESS_MANUAL : FI_PROGRESS_AUTO;
	fi->domain_attr->data_progress = fi->domain_attr->control_progress;
	if (h != NULL && h->domain_attr != NULL && h->domain_attr->data_progress == FI_PROGRESS_MANUAL)
		fi->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	if (h != NULL && h->domain_attr != NULL && h->domain_attr->control_progress == FI_PROGRESS_MANUAL)
		fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	/* RNR retries without end (rnr_retry 7): a sender waits for the receive, nothing overruns */
	fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
	fi->domain_attr->av_type = FI_AV_UNSPEC;
	fi->domain_attr->mr_mode = legacy_mr ? FI_MR_BASIC : DRFI_MR_MODE;
	fi->domain_attr->mr_key_size = 4;
	fi->domain_attr->cq_data_size = rx_cq_data ? 4 : 0;
	fi->domain_attr->cq_cnt = 1024;
	fi->domain_attr->ep_cnt = 1024;
	fi->domain_attr->tx_ctx_cnt = 1024;
	fi->domain_attr->rx_ctx_cnt = 1024;
	fi->domain_attr->max_ep_tx_ctx = 1;
	fi->domain_attr->max_ep_rx_ctx = 1;
	fi->domain_attr->mr_iov_limit = 1;
	fi->domain_attr->caps = FI_REMOTE_COMM;
	fi->domain_attr->max_err_data = DRFI_CM_DATA_SIZE;
	fi->domain_attr->mr_cnt = 4096;

	fi->fabric_attr->name = strdup(DRFI_FABRIC_NAME);
	fi->fabric_attr->prov_version = DRFI_PROV_VERSION;
}

int
drfi_info_get(uint32_t version, const char *node, const char *service, uint64_t flags, const struct fi_info *hints,
	      struct fi_info **info)
{
	const struct drfi_conf *c = drfi_conf();
	struct sockaddr_storage src, dst;
	struct fi_info *fi;
	char domain[32];
	bool has_dst;
	int ret;

	if (c == NULL)
		return -FI_ENODATA;
	snprintf(domain, sizeof(domain), DRFI_PROV_NAME "%d", c->port);
	ret = check_hints(version, hints, c, domain);
	if (ret == 0)
		ret = addresses(c, node, service, flags, hints, &src, &dst, &has_dst);
	if (ret != 0)
		return ret;
	fi = fi_allocinfo();
	if (fi == NULL)
		return -FI_ENOMEM;
	fill(fi, version, hints, c, domain);
	fi->addr_format = src.ss_family == AF_INET6 ? FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	ret = set_addr(&fi->src_addr, &fi->src_addrlen, &src);
	if (ret == 0 && has_dst)
		ret = set_addr(&fi->dest_addr, &fi->dest_addrlen, &dst);
	if (ret != 0 || fi->domain_attr->name == NULL || fi->fabric_attr->name == NULL) {
		fi_freeinfo(fi);
		return -FI_ENOMEM;
	}
	*info = fi;
	return 0;
}
