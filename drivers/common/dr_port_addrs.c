/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* A context's addresses on its port (dr_port_addrs.h). */

#include <string.h>

#include "dr_port_addrs.h"

void
dr_port_addrs_of(const struct dr_backend_port *bp, const struct rte_ether_addr *mac, struct dr_port_addrs *a)
{
	uint8_t *ll;

	memset(a, 0, sizeof(*a));
	a->ipv4 = bp->attr->ipv4_addr;
	if (mac != NULL && !rte_is_zero_ether_addr(mac)) {
		/* fe80::/64 with the interface identifier of the MAC (U/L bit flipped, ff:fe inserted) */
		ll = a->ipv6[a->num_ipv6++];
		ll[0] = 0xFE;
		ll[1] = 0x80;
		ll[8] = mac->addr_bytes[0] ^ 0x02;
		memcpy(ll + 9, mac->addr_bytes + 1, 2);
		ll[11] = 0xFF;
		ll[12] = 0xFE;
		memcpy(ll + 13, mac->addr_bytes + 3, 3);
	}
	for (unsigned int i = 0; i < bp->attr->num_ipv6 && a->num_ipv6 < DR_PORT_ADDRS_IPV6; i++)
		memcpy(a->ipv6[a->num_ipv6++], bp->attr->ipv6_addr[i], 16);
}
