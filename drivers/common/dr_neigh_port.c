/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* A backend's ARP / ND on its port (dr_neigh_port.h). */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "dr_neigh_port.h"
#include "dr_pkt.h"

void
dr_neigh_port_init(struct dr_neigh_port *np, uint64_t tsc_hz)
{
	uint64_t hz = tsc_hz != 0 ? tsc_hz : rte_get_tsc_hz();

	dr_neigh_init(&np->neigh, hz / 1000 * DR_NEIGH_RETRY_MS);
	rte_spinlock_init(&np->lock);
	np->tx_nombuf = 0;
}

/* Our addresses as ARP / ND see them: GID 1 (IPv4), the other valid GIDs (IPv6). */
static void
self_of(const struct dr_backend_port *bp, struct dr_neigh_self *self)
{
	memset(self, 0, sizeof(*self));
	self->mac = bp->mac;
	if (bp->gid_valid[1] && dr_gid_is_ipv4(bp->gid[1].raw))
		memcpy(&self->ipv4, bp->gid[1].raw + 12, 4);
	for (unsigned int i = 0; i < DR_MAX_GIDS; i++) {
		if (i == 1 || !bp->gid_valid[i] || dr_gid_is_ipv4(bp->gid[i].raw))
			continue;
		memcpy(self->ipv6[self->num_ipv6++], bp->gid[i].raw, 16);
	}
}

/* Queue a frame built by the neighbour logic. */
static void
send_frame(struct dr_neigh_port *np, struct dr_backend_port *bp, const uint8_t *frame, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(bp->pool);
	char *p;

	if (m == NULL) {
		__atomic_fetch_add(&np->tx_nombuf, 1, __ATOMIC_RELAXED);
		return;
	}
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		__atomic_fetch_add(&np->tx_nombuf, 1, __ATOMIC_RELAXED);
		return;
	}
	memcpy(p, frame, len);
	dr_backend_tx(bp, m);
}

void
dr_neigh_port_input(struct dr_neigh_port *np, struct dr_backend_port *bp, struct rte_mbuf *m)
{
	uint8_t reply[DR_NEIGH_FRAME_MAX];
	struct dr_neigh_self self;
	enum dr_neigh_verdict v;
	uint32_t len;

	self_of(bp, &self);
	rte_spinlock_lock(&np->lock);
	v = dr_neigh_input_mbuf(&np->neigh, &self, m, rte_rdtsc(), reply, &len);
	rte_spinlock_unlock(&np->lock);
	rte_pktmbuf_free(m);
	if (v == DR_NEIGH_REPLY)
		send_frame(np, bp, reply, len);
}

int
dr_neigh_port_resolve(struct dr_neigh_port *np, struct dr_backend_port *bp, const union dr_gid *gid,
		      struct rte_ether_addr *mac)
{
	uint8_t req[DR_NEIGH_FRAME_MAX];
	struct dr_neigh_self self;
	uint32_t len;
	int ret;

	if (gid == NULL || mac == NULL)
		return -EINVAL;
	self_of(bp, &self);
	rte_spinlock_lock(&np->lock);
	ret = dr_neigh_resolve(&np->neigh, &self, gid->raw, rte_rdtsc(), mac, req, &len);
	rte_spinlock_unlock(&np->lock);
	if (ret == -EAGAIN && len != 0)
		send_frame(np, bp, req, len);
	return ret;
}

int
dr_neigh_port_add(struct dr_neigh_port *np, const union dr_gid *gid, const struct rte_ether_addr *mac)
{
	int ret;

	if (gid == NULL || mac == NULL)
		return -EINVAL;
	rte_spinlock_lock(&np->lock);
	ret = dr_neigh_add_static(&np->neigh, gid->raw, mac, rte_rdtsc());
	rte_spinlock_unlock(&np->lock);
	return ret;
}
