/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_PORT_ADDRS_H
#define DR_PORT_ADDRS_H

/*
 * A context's own addresses on its port, as the backends' steering sees
 * them (rte_flow rules, an XDP program's dr_gids map): what RoCEv2, ARP and
 * neighbour discovery are sent to.
 */

#include <rte_byteorder.h>
#include <rte_ether.h>

#include "dr_backend.h"

/* at most 3 IPv6: the link-local one of the MAC + 2 configured */
#define DR_PORT_ADDRS_IPV6 3

struct dr_port_addrs {
	rte_be32_t ipv4;                    /* 0: none */
	uint8_t ipv6[DR_PORT_ADDRS_IPV6][16];
	unsigned int num_ipv6;
};

/*
 * @bp's addresses: attr's IPv4 and IPv6 addresses and, when @mac is not
 * zero, the link-local address made from it (RFC 4291 2.5.1, modified EUI-64).
 */
void dr_port_addrs_of(const struct dr_backend_port *bp, const struct rte_ether_addr *mac, struct dr_port_addrs *a);

#endif /* DR_PORT_ADDRS_H */
