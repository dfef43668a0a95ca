/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_IO_APP_H
#define DR_IO_APP_H

/*
 * DR_IO_APP (dr_verbs_io.h): the application owns the port and moves the
 * frames. Two rings stand for the port's queue pair: what
 * dr_rx_burst_input() took, which the worker of rx queue 0 receives from,
 * and what the workers transmit, which dr_tx_drain() empties.
 */

#include <stdint.h>

#include <rte_ring.h>

#include "dr_pkt_classify.h"

struct dr_context;

struct dr_io_app {
	struct rte_ring *rx;                /* multi-producer (any lcore), single consumer (the worker) */
	struct rte_ring *tx;                /* multi-producer, single consumer (dr_tx_drain()) */
	struct dr_pkt_class_addrs addrs;    /* the GIDs at open */
	/* dr_rx_burst_input()'s: atomics, its callers run at once */
	uint64_t rx_input, rx_roce, rx_neigh, rx_steered, rx_ring_full;
	uint64_t tx_staged, tx_ring_full;   /* the transmitting worker's (atomics: control calls too) */
	uint64_t tx_drained;                /* dr_tx_drain()'s caller's */
};

/*
 * Make the rings of @ctx (attr.io == DR_IO_APP, its GID table filled) and
 * point the workers' receive and transmit at them. 0 or -errno.
 */
int dr_io_app_init(struct dr_context *ctx);

/* Free the rings and the frames still in them (the workers stopped). No-op without them. */
void dr_io_app_fini(struct dr_context *ctx);

#endif /* DR_IO_APP_H */
