/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * fi_getinfo(3) of the dpdk_rdma provider through Debian's libfabric (the
 * provider loaded from FI_PROVIDER_PATH, no EAL: fi_getinfo opens
 * nothing): what it offers, what it refuses (-FI_ENODATA), the addresses
 * of node / service / FI_SOURCE / dest_addr, and ofi_rxm layered on it
 * (FI_EP_RDM with FI_TAGGED).
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "dr_test.h"

#define VERSION FI_VERSION(1, 17)

/* Hints for dpdk_rdma (or @prov), FI_EP_MSG, the modes an application like fi_pingpong gives. */
static struct fi_info *
hints_for(const char *prov)
{
	struct fi_info *h = fi_allocinfo();

	h->fabric_attr->prov_name = strdup(prov);
	h->ep_attr->type = FI_EP_MSG;
	h->caps = FI_MSG | FI_RMA;
	h->mode = FI_CONTEXT | FI_RX_CQ_DATA;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	return h;
}

static int
getinfo(const char *node, const char *service, uint64_t flags, struct fi_info *h, struct fi_info **out)
{
	int ret = fi_getinfo(VERSION, node, service, flags, h, out);

	fi_freeinfo(h);
	return ret;
}

static void
test_offer(void)
{
	struct fi_info *fi = NULL;
	const struct sockaddr_in *src;

	CHECK_EQ(getinfo(NULL, NULL, 0, hints_for("dpdk_rdma"), &fi), 0);
	if (fi == NULL)
		return;
	CHECK(strcmp(fi->fabric_attr->prov_name, "dpdk_rdma") == 0);
	CHECK(strcmp(fi->fabric_attr->name, "RoCEv2") == 0);
	CHECK(strcmp(fi->domain_attr->name, "dpdk_rdma0") == 0);
	CHECK(fi->ep_attr->type == FI_EP_MSG && fi->ep_attr->protocol == FI_PROTO_RDMA_CM_IB_RC);
	CHECK((fi->caps & (FI_MSG | FI_RMA)) == (FI_MSG | FI_RMA) && !(fi->caps & (FI_TAGGED | FI_ATOMIC)));
	CHECK(fi->domain_attr->mr_mode == (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY));
	CHECK(fi->domain_attr->cq_data_size == 4 && (fi->mode & FI_RX_CQ_DATA));
	CHECK(fi->domain_attr->data_progress == FI_PROGRESS_MANUAL);      /* inline mode */
	CHECK(fi->domain_attr->threading == FI_THREAD_DOMAIN);
	CHECK(fi->tx_attr->inject_size == 64 && fi->tx_attr->rma_iov_limit == 1);
	CHECK(fi->addr_format == FI_SOCKADDR_IN && fi->src_addrlen == sizeof(struct sockaddr_in));
	src = fi->src_addr;
	CHECK(src != NULL && src->sin_addr.s_addr == htonl(0x0A000001) && src->sin_port == 0);
	CHECK(fi->dest_addr == NULL && fi->next == NULL);
	fi_freeinfo(fi);
}

static void
test_addresses(void)
{
	struct fi_info *fi = NULL, *h;
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(7471) };

	/* node: the destination */
	CHECK_EQ(getinfo("10.0.0.2", "18515", 0, hints_for("dpdk_rdma"), &fi), 0);
	if (fi != NULL) {
		const struct sockaddr_in *d = fi->dest_addr;

		CHECK(d != NULL && d->sin_addr.s_addr == htonl(0x0A000002) && ntohs(d->sin_port) == 18515);
		fi_freeinfo(fi);
	}
	/* FI_SOURCE: node and service are ours */
	CHECK_EQ(getinfo(NULL, "18515", FI_SOURCE, hints_for("dpdk_rdma"), &fi), 0);
	if (fi != NULL) {
		const struct sockaddr_in *s = fi->src_addr;

		CHECK(s->sin_addr.s_addr == htonl(0x0A000001) && ntohs(s->sin_port) == 18515 && fi->dest_addr == NULL);
		fi_freeinfo(fi);
	}
	/* hints->dest_addr (fi_pingpong passes the server's fi_getname() so) */
	h = hints_for("dpdk_rdma");
	dst.sin_addr.s_addr = htonl(0x0A000002);
	h->addr_format = FI_SOCKADDR_IN;
	h->dest_addr = malloc(sizeof(dst));
	memcpy(h->dest_addr, &dst, sizeof(dst));
	h->dest_addrlen = sizeof(dst);
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), 0);
	if (fi != NULL) {
		CHECK(memcmp(fi->dest_addr, &dst, sizeof(dst)) == 0);
		fi_freeinfo(fi);
	}
	/* an IPv6 destination: no IPv6 address configured, nothing to offer */
	h = hints_for("dpdk_rdma");
	h->addr_format = FI_SOCKADDR_IN6;
	CHECK_EQ(getinfo("fd00::2", "1", 0, h, &fi), -FI_ENODATA);
	CHECK_EQ(getinfo("10.0.0.2", "not-a-port", 0, hints_for("dpdk_rdma"), &fi), -FI_ENODATA);
}

static void
test_refusals(void)
{
	struct fi_info *fi = NULL, *h;

	/* FI_EP_RDM: not ours, so libfabric layers ofi_rxm on us by itself */
	h = hints_for("dpdk_rdma");
	h->ep_attr->type = FI_EP_RDM;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), 0);
	if (fi != NULL) {
		CHECK(strcmp(fi->fabric_attr->prov_name, "dpdk_rdma;ofi_rxm") == 0);
		fi_freeinfo(fi);
	}
	h = hints_for("dpdk_rdma");
	h->ep_attr->type = FI_EP_DGRAM;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h = hints_for("dpdk_rdma");
	h->caps |= FI_TAGGED;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h = hints_for("dpdk_rdma");
	h->caps |= FI_ATOMIC;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h = hints_for("dpdk_rdma");
	h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;   /* no FI_MR_LOCAL */
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h = hints_for("dpdk_rdma");
	h->tx_attr->inject_size = 4096;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h = hints_for("dpdk_rdma");
	h->domain_attr->data_progress = FI_PROGRESS_AUTO;   /* inline mode: manual only */
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h = hints_for("dpdk_rdma");
	h->rx_attr->op_flags = FI_MULTI_RECV;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h = hints_for("dpdk_rdma");
	h->domain_attr->name = strdup("mlx5_0");
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), -FI_ENODATA);
	/* FI_THREAD_SAFE is given (the provider's lock), as ofi_rxm asks */
	h = hints_for("dpdk_rdma");
	h->domain_attr->threading = FI_THREAD_SAFE;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), 0);
	if (fi != NULL) {
		CHECK(fi->domain_attr->threading == FI_THREAD_SAFE);
		fi_freeinfo(fi);
	}
	/* no FI_RX_CQ_DATA in the mode: no remote CQ data offered */
	h = hints_for("dpdk_rdma");
	h->mode = FI_CONTEXT;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), 0);
	if (fi != NULL) {
		CHECK(fi->domain_attr->cq_data_size == 0 && !(fi->mode & FI_RX_CQ_DATA));
		fi_freeinfo(fi);
	}
}

static void
test_rxm(void)
{
	struct fi_info *fi = NULL, *h = hints_for("dpdk_rdma;ofi_rxm");

	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_MSG | FI_TAGGED;
	CHECK_EQ(getinfo(NULL, NULL, 0, h, &fi), 0);
	if (fi == NULL)
		return;
	CHECK(strcmp(fi->fabric_attr->prov_name, "dpdk_rdma;ofi_rxm") == 0);
	CHECK(fi->ep_attr->type == FI_EP_RDM && (fi->caps & FI_TAGGED));
	fi_freeinfo(fi);
}

int
main(void)
{
	/* the build's provider, and this port's address; no EAL is started by fi_getinfo() */
	setenv("FI_DPDK_RDMA_IP", "10.0.0.1", 1);
	test_offer();
	test_addresses();
	test_refusals();
	test_rxm();
	return dr_test_report("fi_info");
}
