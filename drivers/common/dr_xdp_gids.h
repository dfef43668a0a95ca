/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_XDP_GIDS_H
#define DR_XDP_GIDS_H

/*
 * The bifurcated host on an XDP socket (dr_xdp_gids.c), for the backends
 * that bind one (ethdev's net_af_xdp ports, the xsk backend): when the XDP
 * program attached to the port's kernel interface has a map named dr_gids
 * (our drivers/ethdev/bpf/dr_xdp_steer.bpf.c, the xdp_prog devarg), our
 * addresses go into it, so the program hands us RoCEv2 and
 * the ARP / ND addressed to us and passes the rest to the kernel. Any other
 * program (DPDK's default one: every frame to the socket) is left as it is.
 * Needs libbpf at build time; without it nothing is filled and the log
 * says so.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_port_addrs.h"

#define DR_XDP_GIDS_MAP "dr_gids"
#define DR_XDP_GIDS_MAX (1 + DR_PORT_ADDRS_IPV6)

struct dr_xdp_gids {
	int map_fd;                               /* -1: no steering map filled */
	unsigned int n;                           /* GIDs we put in it */
	uint8_t gid[DR_XDP_GIDS_MAX][16];
};

/*
 * After the port started: on the kernel interface @ifindex (0: none), fill
 * the steering map of its XDP program with @a's addresses (IPv4-mapped for
 * IPv4, as the GID table). 1 when the map was filled, 0 when the interface
 * has no XDP program or no such map (nothing done), or -errno.
 */
int dr_xdp_gids_fill(uint16_t port, uint32_t ifindex, const struct dr_port_addrs *a, struct dr_xdp_gids *x);
/* Take our addresses out of the map again, close it (at close, before the port goes). */
void dr_xdp_gids_release(struct dr_xdp_gids *x);

#endif /* DR_XDP_GIDS_H */
