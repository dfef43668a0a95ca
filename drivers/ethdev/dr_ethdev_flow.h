/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_ETHDEV_FLOW_H
#define DR_ETHDEV_FLOW_H

/*
 * rte_flow steering for the ethdev backend (dr_ethdev_flow.c): where the PMD
 * has rte_flow, the port goes into isolated mode and rules steer RoCEv2
 * (UDP destination port 4791, IPv4 and IPv6) to our rx queues and the ARP
 * and IPv6 neighbour discovery addressed to us to queue 0; the port's other traffic stays with
 * its owner (the kernel, for a bifurcated PMD such as mlx5). Where the PMD
 * has no rte_flow, or refuses a rule, the port is used whole, as without.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_port_addrs.h"

#define DR_ETHDEV_FLOW_RULES (2 + 1 + 2 * DR_PORT_ADDRS_IPV6)

struct rte_flow;

struct dr_ethdev_flows {
	bool isolated;                      /* the port is in isolated mode (with our rules) */
	bool rss;                           /* RoCEv2 is spread by an RSS action over the queues */
	bool probing;                       /* rules are validated, not made */
	struct dr_port_addrs addrs;
	unsigned int n;
	struct rte_flow *rule[DR_ETHDEV_FLOW_RULES];
};

/*
 * On the configured port, its @nq rx queues set up, before it starts: when
 * the PMD validates every rule, isolated mode (INFO, and nothing changed,
 * when it has no rte_flow, refuses a rule or isolation).
 */
void dr_ethdev_flow_isolate(uint16_t port, uint16_t nq, const struct dr_port_addrs *a,
			    struct dr_ethdev_flows *f);
/*
 * After the port started with @nq rx queues: when isolated, the rules; when
 * one cannot be made, none, and the port leaves isolated mode (stopped and
 * started again). 0, or -errno when the port is left isolated with no rules.
 */
int dr_ethdev_flow_steer(uint16_t port, uint16_t nq, struct dr_ethdev_flows *f);
/*
 * A port the application configured and started (dr_flow_steer()): rules,
 * without isolated mode, that steer RoCEv2 to our addresses (UDP 4791) to
 * rx queue @queue, and the ARP and ND for them where the PMD matches those.
 * The number of rules made; -ENOTSUP, none made, when the PMD has no
 * rte_flow or refuses a RoCEv2 rule. dr_ethdev_flow_release() undoes it.
 */
int dr_ethdev_flow_steer_queue(uint16_t port, uint16_t queue, const struct dr_port_addrs *a,
			       struct dr_ethdev_flows *f);
/* Destroy the rules and leave isolated mode if in it (the port stopped, or never isolated). */
void dr_ethdev_flow_release(uint16_t port, struct dr_ethdev_flows *f);

#endif /* DR_ETHDEV_FLOW_H */
