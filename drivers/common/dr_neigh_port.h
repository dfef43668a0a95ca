/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_NEIGH_PORT_H
#define DR_NEIGH_PORT_H

/*
 * A backend's ARP / ND (dr_neigh_port.c): the glue between the pure
 * neighbour logic (dr_neigh.c, dr_arp.c, dr_nd.c) and a port, which every
 * backend that carries Ethernet uses as its rx_other, resolve and
 * add_neighbour ops. It takes the table's lock (resolve() runs on any
 * worker and on the control side), allocates the mbufs of the frames the
 * logic builds from the port's pool and queues them with dr_backend_tx().
 */

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "dr_backend.h"
#include "dr_neigh.h"

struct dr_neigh_port {
	struct dr_neigh_table neigh;
	rte_spinlock_t lock;
	uint64_t tx_nombuf;       /* no mbuf for an ARP/ND frame */
};

/* An empty table whose resolutions retry every DR_NEIGH_RETRY_MS (@tsc_hz: 0, the TSC's). */
void dr_neigh_port_init(struct dr_neigh_port *np, uint64_t tsc_hz);
/* rx_other: learn from / answer the ARP or ND frame @m of @bp's port; takes @m. */
void dr_neigh_port_input(struct dr_neigh_port *np, struct dr_backend_port *bp, struct rte_mbuf *m);
/* resolve: the MAC of @gid, or -EAGAIN while a request (rate-limited) is out, or -errno. */
int dr_neigh_port_resolve(struct dr_neigh_port *np, struct dr_backend_port *bp, const union dr_gid *gid,
			  struct rte_ether_addr *mac);
/* add_neighbour: a static entry. 0 or -errno. */
int dr_neigh_port_add(struct dr_neigh_port *np, const union dr_gid *gid, const struct rte_ether_addr *mac);

#endif /* DR_NEIGH_PORT_H */
