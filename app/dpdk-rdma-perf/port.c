/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The device: pick it (-d or the first DPDK port), open it with
 * configure_port=1 (the library configures and starts the port), read what
 * the OOB exchange sends (MAC, GID, MTU), and wait for the link.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "dr_app.h"
#include "perf.h"

#define PORT_LINK_POLL_US 10000
#define PORT_SETTLE_US 50000

static struct dr_device *
find_device(struct perf *p, int n)
{
	const char *want = p->o->ib_dev;

	if (want == NULL)
		return p->dev_list[0];
	for (int i = 0; i < n; i++)
		if (strcmp(dr_get_device_name(p->dev_list[i]), want) == 0)
			return p->dev_list[i];
	perf_err("-d/--ib-dev", "no device '%s'; there are:", want);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "  %s\n", dr_get_device_name(p->dev_list[i]));
	return NULL;
}

int
perf_port_open(struct perf *p)
{
	const struct perf_opts *o = p->o;
	struct dr_context_attr attr;
	struct dr_port_attr pa;
	uint32_t active;
	int n = 0, ret;

	dr_app_context_attr(&attr, o->ipv4, o->ipv6, o->num_ipv6, o->link_mtu);
	dr_app_engine_attr(&o->engine, &attr);
	p->dev_list = dr_get_device_list(&n);
	if (p->dev_list == NULL)
		return perf_api_err("dr_get_device_list", errno);
	if (n == 0) {
		perf_err("device", "no DPDK port (give one to EAL, e.g. --vdev=net_memif0,...)");
		return PERF_FAIL;
	}
	p->dev = find_device(p, n);
	if (p->dev == NULL)
		return PERF_FAIL;
	p->port_id = dr_get_device_port(p->dev);

	/* the library's own pool: it sizes the mbufs for the PMD (af_xdp: one UMEM page) */
	p->ctx = dr_open_device(p->dev, &attr);
	if (p->ctx == NULL)
		return perf_api_err("dr_open_device", errno);
	ret = dr_query_device(p->ctx, &p->dev_attr);
	if (ret != 0)
		return perf_api_err("dr_query_device", -ret);
	ret = dr_query_port(p->ctx, o->ib_port, &pa);
	if (ret != 0)
		return perf_api_err("dr_query_port", -ret);
	ret = dr_query_gid(p->ctx, o->ib_port, o->gid_index, &p->gid);
	if (ret == -EINVAL) {
		perf_err("-x/--gid-index", "%d is not in the GID table (%d entries; 0: the "
			 "link-local IPv6 GID, 1: the IPv4 GID of --ip, 2...: --ipv6)", o->gid_index,
			 pa.gid_tbl_len);
		return PERF_FAIL;
	}
	if (ret != 0)
		return perf_api_err("dr_query_gid", -ret);
	if (p->gid.global.subnet_prefix == 0 && p->gid.global.interface_id == 0) {
		/* ibv_query_gid(3) gives zeros for an unused entry of the table */
		perf_err("-x/--gid-index", "GID %d is empty (0: the link-local IPv6 GID, 1: the "
			 "IPv4 GID of --ip, 2...: the IPv6 addresses of the context)", o->gid_index);
		return PERF_FAIL;
	}
	/* the API has no MAC query: the ethdev has it (node_guid is its EUI-64) */
	ret = rte_eth_macaddr_get(p->port_id, &p->mac);
	if (ret != 0)
		return perf_api_err("rte_eth_macaddr_get", -ret);

	active = dr_mtu_bytes(pa.active_mtu);
	if (active == 0) {
		perf_err("dr_query_port", "no valid active MTU (%d)", (int)pa.active_mtu);
		return PERF_FAIL;
	}
	p->mtu = active;
	if (o->mtu != 0) {
		if (o->mtu > active)
			/* perftest's rule: the active MTU caps -m */
			fprintf(stderr, " Requested mtu is higher than active mtu\n"
				" Changing to active mtu - %u\n", active);
		else
			p->mtu = o->mtu;
	}
	return PERF_OK;
}

void
perf_port_wait_link(struct perf *p, double timeout_s, bool warn)
{
	uint64_t end = rte_get_timer_cycles() + (uint64_t)(timeout_s * rte_get_timer_hz());
	struct rte_eth_link link;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p->port_id, &link) != 0)
			return;   /* the PMD cannot tell: the transport will */
		if (link.link_status == RTE_ETH_LINK_UP || perf_stop)
			return;
		if (rte_get_timer_cycles() >= end)
			break;
		usleep(PORT_LINK_POLL_US);
	}
	if (warn)
		fprintf(stderr, PERF_PROG ": warning: the link of port %u is still down after "
			"%.0f s\n", p->port_id, timeout_s);
}

void
perf_port_wait_down(struct perf *p, double timeout_s)
{
	uint64_t end = rte_get_timer_cycles() + (uint64_t)(timeout_s * rte_get_timer_hz());
	struct rte_eth_link link;

	do {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p->port_id, &link) != 0 ||
		    link.link_status == RTE_ETH_LINK_DOWN)
			break;
		usleep(PORT_LINK_POLL_US);
	} while (rte_get_timer_cycles() < end);
	/* let the PMD's control thread finish with the peer's disconnect */
	usleep(PORT_SETTLE_US);
}

void
perf_port_close(struct perf *p)
{
	if (p->ctx != NULL) {
		int ret = dr_close_device(p->ctx);

		if (ret != 0) {
			perf_err("dr_close_device", "%s", strerror(-ret));
			p->cleanup_failed = true;
		}
		p->ctx = NULL;
	}
	if (p->dev_list != NULL)
		dr_free_device_list(p->dev_list);
	p->dev_list = NULL;
	p->dev = NULL;
}
