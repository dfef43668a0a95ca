/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_BACKEND_H
#define DR_BACKEND_H

/*
 * The driver SDK: what a backend (drivers/) gives the transport. One const
 * ops struct per backend, chosen when a context opens; the fast path calls
 * rx_burst / tx_burst through it. Not installed: backends are built into
 * the library.
 */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dr_verbs.h"

struct dr_context;

struct dr_backend_ops {
	const char *name;
	/*
	 * Bind to ctx->port_id: configure and start the port when
	 * ctx->attr.configure_port (one rx and one tx queue per rtc worker or
	 * pipeline group, ctx->nb_groups, as far as the PMD has them), read MAC
	 * and MTU, enable the offloads the PMD has. Sets ctx->mac, ctx->link_mtu, ctx->be_priv,
	 * and ctx->rx_queue / tx_queue (the first queues) and ctx->nb_rxq /
	 * nb_txq (how many from there the workers may use, >= 1). Returns 0 or
	 * -errno.
	 */
	int (*open)(struct dr_context *ctx);
	/*
	 * Optional: the largest mbuf data room the port can receive into, for
	 * the pool the context creates when the application gives none
	 * (0 or NULL: no limit). Called before open.
	 */
	uint16_t (*max_data_room)(uint16_t port_id);
	/* Undo open (stop and close the port when open configured it). */
	void (*close)(struct dr_context *ctx);
	/* Receive up to n frames from rx queue @queue (one worker's: no other thread uses it). */
	uint16_t (*rx_burst)(struct dr_context *ctx, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
	/* Transmit up to n frames on tx queue @queue; the ones not taken stay the caller's. */
	uint16_t (*tx_burst)(struct dr_context *ctx, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
	/*
	 * A received frame that is not RoCEv2 (dr_pkt_parse() said DR_PKT_NOT_*):
	 * answer ARP / neighbour solicitations for our addresses, learn from
	 * replies. Takes ownership of m. Called by worker 0 only.
	 */
	void (*rx_other)(struct dr_context *ctx, struct rte_mbuf *m);
	/*
	 * MAC of the neighbour with address gid (IPv4-mapped or IPv6).
	 * Returns 0, or -EAGAIN while resolution is under way (a request was
	 * sent, rate-limited; retry later), or -errno. Called by any worker and
	 * by the control side: the backend makes its table safe for that.
	 */
	int (*resolve)(struct dr_context *ctx, const union dr_gid *gid, struct rte_ether_addr *mac);
	/* Add a static neighbour. */
	int (*add_neighbour)(struct dr_context *ctx, const union dr_gid *gid, const struct rte_ether_addr *mac);
};

/* The generic ethdev backend (drivers/ethdev): any PMD. */
extern const struct dr_backend_ops dr_ethdev_backend;

/* Backend by name (NULL = default); NULL if unknown. */
const struct dr_backend_ops *dr_backend_find(const char *name);

#endif /* DR_BACKEND_H */
