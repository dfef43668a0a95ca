/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * rte_flow steering of RoCEv2, ARP and ND to our queues in flow-isolated
 * mode (dr_ethdev_flow.h). Written against the rte_flow API only: any PMD
 * with rte_flow isolation, QUEUE and (for several queues) RSS actions can
 * take it (mlx5 is the one it is meant for; see doc/guides/backends.rst for
 * what was and was not run).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "dr_ethdev_flow.h"
#include "dr_log.h"
#include "dr_hdr.h"

static const char *
flow_msg(const struct rte_flow_error *err, int ret)
{
	return err->message != NULL ? err->message : rte_strerror(-ret);
}

/* Make one rule: @pattern to @actions, validated first. 0 or -errno. */
static int
rule_add(uint16_t port, struct dr_ethdev_flows *f, const char *what, const struct rte_flow_item *pattern,
	 const struct rte_flow_action *actions)
{
	static const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_error err;
	struct rte_flow *flow;
	int ret;

	memset(&err, 0, sizeof(err));
	ret = rte_flow_validate(port, &attr, pattern, actions, &err);
	if (ret == 0 && f->probing)
		return 0;
	if (ret == 0) {
		flow = rte_flow_create(port, &attr, pattern, actions, &err);
		if (flow != NULL) {
			f->rule[f->n++] = flow;
			return 0;
		}
		ret = rte_errno > 0 ? -rte_errno : -EIO;
	}
	DR_LOG(drv, INFO, "port %u: rte_flow rule for %s %s: %s", port, what,
	       f->probing ? "not valid" : "refused", flow_msg(&err, ret));
	return ret;
}

/* UDP/4791 over IPv4 and IPv6 to the queues: RSS over them, or queue 0 alone. */
static int
rules_roce(uint16_t port, uint16_t nq, struct dr_ethdev_flows *f, bool rss)
{
	uint16_t queues[RTE_MAX_QUEUES_PER_PORT < 64 ? RTE_MAX_QUEUES_PER_PORT : 64];
	const struct rte_flow_item_udp udp = { .hdr.dst_port = RTE_BE16(DR_ROCEV2_UDP_PORT) };
	const struct rte_flow_item_udp udp_mask = { .hdr.dst_port = RTE_BE16(0xFFFF) };
	const struct rte_flow_action_queue queue0 = { .index = 0 };
	struct rte_flow_action_rss rss_conf = {
		.func = RTE_ETH_HASH_FUNCTION_DEFAULT,
		.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP,
		.queue = queues,
	};
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp, .mask = &udp_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue0 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	int ret;

	if (rss) {
		rss_conf.queue_num = RTE_MIN(nq, (uint16_t)RTE_DIM(queues));
		for (uint16_t q = 0; q < rss_conf.queue_num; q++)
			queues[q] = q;
		actions[0].type = RTE_FLOW_ACTION_TYPE_RSS;
		actions[0].conf = &rss_conf;
	}
	ret = rule_add(port, f, "RoCEv2 over IPv4", pattern, actions);
	if (ret != 0)
		return ret;
	pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV6;
	return rule_add(port, f, "RoCEv2 over IPv6", pattern, actions);
}

/*
 * ARP and ND addressed to us, to @queue (0: worker 0 answers them): ARP whose
 * target is our IPv4 address; neighbour solicitations whose target is one of
 * our IPv6 addresses; neighbour advertisements sent to one of them. What is
 * addressed to the port's other owner (the kernel) stays its own.
 */
static int
rules_neigh(uint16_t port, uint16_t queue, const struct dr_port_addrs *a, struct dr_ethdev_flows *f)
{
	const struct rte_flow_item_arp_eth_ipv4 arp = { .tpa = a->ipv4 };
	const struct rte_flow_item_arp_eth_ipv4 arp_mask = { .tpa = RTE_BE32(UINT32_MAX) };
	struct rte_flow_item_icmp6_nd_ns ns;
	struct rte_flow_item_icmp6_nd_ns ns_mask;
	struct rte_flow_item_ipv6 ip6, ip6_mask;
	const struct rte_flow_action_queue to_queue = { .index = queue };
	const struct rte_flow_item pattern_arp[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_ARP_ETH_IPV4, .spec = &arp, .mask = &arp_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pattern_ns[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6 },
		{ .type = RTE_FLOW_ITEM_TYPE_ICMP6_ND_NS, .spec = &ns, .mask = &ns_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pattern_na[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &ip6, .mask = &ip6_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_ICMP6_ND_NA },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &to_queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	int ret = 0;

	if (a->ipv4 != 0)
		ret = rule_add(port, f, "ARP", pattern_arp, actions);
	memset(&ns_mask, 0, sizeof(ns_mask));
	memset(&ip6_mask, 0, sizeof(ip6_mask));
	memset(ns_mask.target_addr, 0xFF, sizeof(ns_mask.target_addr));
	memset(ip6_mask.hdr.dst_addr, 0xFF, sizeof(ip6_mask.hdr.dst_addr));
	for (unsigned int i = 0; i < a->num_ipv6 && ret == 0; i++) {
		memset(&ns, 0, sizeof(ns));
		memset(&ip6, 0, sizeof(ip6));
		memcpy(ns.target_addr, a->ipv6[i], 16);
		memcpy(ip6.hdr.dst_addr, a->ipv6[i], 16);
		ret = rule_add(port, f, "IPv6 neighbour solicitations", pattern_ns, actions);
		if (ret == 0)
			ret = rule_add(port, f, "IPv6 neighbour advertisements", pattern_na, actions);
	}
	return ret;
}

/*
 * Can the PMD take our rules? Validated (not made) on the configured,
 * stopped port: RoCEv2 (RSS over @nq queues, else to queue 0), ARP, ND.
 */
static int
rules_valid(uint16_t port, uint16_t nq, const struct dr_port_addrs *a, struct dr_ethdev_flows *f)
{
	int ret;

	f->probing = true;
	f->rss = nq > 1;
	ret = rules_roce(port, nq, f, f->rss);
	if (ret != 0 && f->rss) {
		f->rss = false;
		ret = rules_roce(port, nq, f, false);
	}
	if (ret == 0)
		ret = rules_neigh(port, 0, a, f);
	f->probing = false;
	return ret;
}

void
dr_ethdev_flow_isolate(uint16_t port, uint16_t nq, const struct dr_port_addrs *a,
		       struct dr_ethdev_flows *f)
{
	struct rte_flow_error err;
	int ret;

	memset(f, 0, sizeof(*f));
	f->addrs = *a;
	ret = rules_valid(port, nq, a, f);
	if (ret != 0) {
		DR_LOG(drv, INFO, "port %u: no rte_flow steering (%s): every frame of the port comes to us",
		       port, rte_strerror(-ret));
		f->rss = false;
		return;
	}
	memset(&err, 0, sizeof(err));
	ret = rte_flow_isolate(port, 1, &err);
	if (ret != 0) {
		DR_LOG(drv, INFO, "port %u: no rte_flow isolated mode (%s): every frame of the port comes to us",
		       port, flow_msg(&err, ret));
		f->rss = false;
		return;
	}
	f->isolated = true;
	DR_LOG(drv, INFO, "port %u: rte_flow isolated mode", port);
}

/* Destroy the rules made last until @keep are left. */
static void
rules_destroy(uint16_t port, struct dr_ethdev_flows *f, unsigned int keep)
{
	struct rte_flow_error err;

	while (f->n > keep) {
		memset(&err, 0, sizeof(err));
		(void)rte_flow_destroy(port, f->rule[--f->n], &err);
	}
}

/* Leave isolated mode on a started port (stopped for it). 0 or -errno. */
static int
unisolate_started(uint16_t port, struct dr_ethdev_flows *f)
{
	struct rte_flow_error err;
	int ret;

	ret = rte_eth_dev_stop(port);
	if (ret == 0) {
		memset(&err, 0, sizeof(err));
		ret = rte_flow_isolate(port, 0, &err);
		if (ret != 0)
			DR_LOG(drv, ERR, "port %u: isolated with no rule, cannot leave isolated mode: %s",
			       port, flow_msg(&err, ret));
	}
	if (ret == 0) {
		f->isolated = false;
		ret = rte_eth_dev_start(port);
	}
	return ret;
}

int
dr_ethdev_flow_steer(uint16_t port, uint16_t nq, struct dr_ethdev_flows *f)
{
	int ret;

	if (!f->isolated)
		return 0;
	/* the RSS action where it validated (dr_ethdev_flow_isolate()), else all to queue 0 */
	ret = rules_roce(port, nq, f, f->rss);
	if (ret == 0)
		ret = rules_neigh(port, 0, &f->addrs, f);
	if (ret == 0) {
		DR_LOG(drv, INFO, "port %u: rte_flow steers RoCEv2 to %s, ARP and ND for us to queue 0 (%u rules)",
		       port, f->rss ? "RSS over our queues" : "queue 0", f->n);
		return 0;
	}
	rules_destroy(port, f, 0);
	f->rss = false;
	DR_LOG(drv, INFO, "port %u: leaving rte_flow isolated mode: every frame of the port comes to us", port);
	return unisolate_started(port, f);
}

void
dr_ethdev_flow_release(uint16_t port, struct dr_ethdev_flows *f)
{
	struct rte_flow_error err;

	rules_destroy(port, f, 0);
	if (f->isolated) {
		memset(&err, 0, sizeof(err));
		(void)rte_flow_isolate(port, 0, &err);
		f->isolated = false;
	}
}

/*
 * RoCEv2 to one of our addresses: UDP destination port 4791 over IPv4 to
 * a->ipv4, over IPv6 to each of a->ipv6, to @queue.
 */
static int
rules_roce_ours(uint16_t port, uint16_t queue, const struct dr_port_addrs *a, struct dr_ethdev_flows *f)
{
	const struct rte_flow_item_udp udp = { .hdr.dst_port = RTE_BE16(DR_ROCEV2_UDP_PORT) };
	const struct rte_flow_item_udp udp_mask = { .hdr.dst_port = RTE_BE16(0xFFFF) };
	const struct rte_flow_item_ipv4 ip4 = { .hdr.dst_addr = a->ipv4 };
	const struct rte_flow_item_ipv4 ip4_mask = { .hdr.dst_addr = RTE_BE32(UINT32_MAX) };
	struct rte_flow_item_ipv6 ip6, ip6_mask;
	const struct rte_flow_action_queue to_queue = { .index = queue };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip4, .mask = &ip4_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp, .mask = &udp_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &to_queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	int ret = 0;

	if (a->ipv4 != 0)
		ret = rule_add(port, f, "RoCEv2 to our IPv4 address", pattern, actions);
	memset(&ip6_mask, 0, sizeof(ip6_mask));
	memset(ip6_mask.hdr.dst_addr, 0xFF, sizeof(ip6_mask.hdr.dst_addr));
	pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV6;
	pattern[1].spec = &ip6;
	pattern[1].mask = &ip6_mask;
	for (unsigned int i = 0; i < a->num_ipv6 && ret == 0; i++) {
		memset(&ip6, 0, sizeof(ip6));
		memcpy(ip6.hdr.dst_addr, a->ipv6[i], 16);
		ret = rule_add(port, f, "RoCEv2 to our IPv6 address", pattern, actions);
	}
	return ret;
}

int
dr_ethdev_flow_steer_queue(uint16_t port, uint16_t queue, const struct dr_port_addrs *a,
			   struct dr_ethdev_flows *f)
{
	unsigned int roce;
	int ret;

	memset(f, 0, sizeof(*f));
	f->addrs = *a;
	ret = rules_roce_ours(port, queue, a, f);
	if (ret != 0) {
		rules_destroy(port, f, 0);
		DR_LOG(drv, INFO, "port %u: no rte_flow steering of RoCEv2 to queue %u: %s", port, queue,
		       rte_strerror(-ret));
		return -ENOTSUP;
	}
	roce = f->n;
	ret = rules_neigh(port, queue, a, f);
	if (ret != 0) {
		/* ARP / ND stay where the port puts them: the application hands them in with its own */
		rules_destroy(port, f, roce);
		DR_LOG(drv, INFO, "port %u: RoCEv2 steered to queue %u, ARP / ND not (%s)", port, queue,
		       rte_strerror(-ret));
	} else {
		DR_LOG(drv, INFO, "port %u: RoCEv2, ARP and ND for us steered to queue %u (%u rules)", port, queue,
		       f->n);
	}
	return (int)f->n;
}
