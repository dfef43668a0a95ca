/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_IO_H
#define DR_VERBS_IO_H

/**
 * @file
 * The transport inside an application that owns the port: a DPDK network
 * function (a forwarder, a load balancer, a storage target) that has
 * initialised EAL, configured and started its port and runs its own lcore
 * loops, and wants RDMA on the same port (doc/guides/embedding.rst). No
 * ibverbs counterpart: hardware steers RoCE to its own queues; here the
 * application's loop does, in the shape of DPDK's GRO and IP reassembly
 * libraries, which the application's loop feeds too.
 *
 * Open the context with dr_context_attr.io = DR_IO_APP on the device of the
 * port (dr_device_from_port() finds it even when the application owns the
 * port with rte_eth_dev_owner_set()). Then, in the application's loop:
 *
 * @code
 * n = rte_eth_rx_burst(port, q, pkts, 32);
 * n = dr_rx_burst_input(ctx, pkts, n, 0);    // the rest is the application's
 * forward(pkts, n);
 * dr_progress(ctx);                          // inline mode; lcores run by themselves
 * n = dr_tx_drain(ctx, out, 32);
 * sent = rte_eth_tx_burst(port, q, out, n);
 * rte_pktmbuf_free_bulk(out + sent, n - sent);   // a loss: the transport retransmits
 * @endcode
 *
 * Threads: dr_rx_burst_input() may be called from any number of threads at
 * once (frames of every rx queue of the port reach the transport through
 * one multi-producer ring); dr_tx_drain() from one thread at a time. The
 * other calls follow the context's progress mode (dr_verbs_device.h).
 */

#include <stdint.h>

#include "dr_verbs_types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/**
 * The device of DPDK port @p port_id, whether or not dr_get_device_list()
 * lists it (a port owned with rte_eth_dev_owner_set() is not listed, as
 * RTE_ETH_FOREACH_DEV skips it). The device belongs to the library and
 * stays valid until the process ends; dr_free_device_list() is not called
 * on it.
 * @return the device, or NULL with errno ENODEV when no backend drives the
 *         port (no such port).
 */
struct dr_device *dr_device_from_port(uint16_t port_id);

/** dr_rx_burst_input() flag: every frame given is the transport's (the
 *  port's steering already separated them): none is classified or returned. */
#define DR_RX_INPUT_STEERED (1u << 0)

/**
 * Hand received frames to a DR_IO_APP context. The transport takes its own:
 * RoCEv2 packets (UDP port 4791, not fragments) addressed to one of its
 * GIDs, ARP for its IPv4 addresses, neighbour solicitations for its IPv6
 * ones and advertisements sent to them; it frees them when it is done, to
 * the pools they came from. The others are returned untouched: moved to
 * the front of @p pkts in the order they came, never freed. A frame taken
 * when the transport's receive ring is full is dropped and counted
 * (dr_io_stats.rx_ring_full), as a port drops what its queue cannot hold:
 * a reliable peer retransmits it.
 *
 * The transport may hold a frame it took for a while (an out-of-order
 * packet, a READ response waiting for its turn); the pool it came from
 * must have room for that (doc/guides/embedding.rst, "Pools").
 *
 * Thread-safe: any lcore of the application may call it, with frames from
 * any rx queue.
 * @param flags 0, or DR_RX_INPUT_STEERED.
 * @return the number of frames returned to the caller (at the front of
 *         @p pkts); @p n with errno EINVAL, nothing taken, when @p ctx is
 *         NULL or not a DR_IO_APP context, @p pkts is NULL or @p flags has
 *         an unknown bit.
 */
uint16_t dr_rx_burst_input(struct dr_context *ctx, struct rte_mbuf **pkts, uint16_t n, unsigned int flags);

/**
 * Take up to @p max frames a DR_IO_APP context built (data, ACKs, ARP and
 * neighbour replies and requests), oldest first, for the application to
 * transmit on the port. They are the caller's from then on: a frame it
 * does not send must be freed, and is a loss to the transport (a reliable
 * QP sends it again). Until drained, frames wait in a ring of
 * dr_context_attr.io_ring_size; when it is full, the transport keeps what
 * it built and stops building (dr_io_stats.tx_ring_full counts it).
 *
 * One thread at a time.
 * @return the number of frames stored in @p pkts; 0 with errno EINVAL when
 *         @p ctx is NULL or not a DR_IO_APP context or @p pkts is NULL.
 */
uint16_t dr_tx_drain(struct dr_context *ctx, struct rte_mbuf **pkts, uint16_t max);

/**
 * Steer the transport's frames on a port the application configured and
 * started (dr_context_attr.configure_port = 0, either I/O mode) to its rx
 * queue @p queue, where the port can: rte_flow rules, made without
 * isolated mode (rte_flow_isolate() is port-wide: a library must not
 * decide it for the application), for RoCEv2 (UDP 4791) to each of the
 * context's addresses and, where the PMD matches them, ARP for its IPv4
 * address and neighbour solicitations and advertisements for its IPv6
 * ones. On net_af_xdp, whose XDP program has the dr_gids map
 * (drivers/ethdev/bpf/dr_xdp_steer.bpf.c, the port's xdp_prog devarg),
 * the context's addresses go in the map instead: the program sends those
 * frames to the socket of the queue they arrive on, and the rest to the
 * kernel. A second call replaces what the first made; dr_close_device()
 * removes it. ARP and ND that were not steered arrive with the
 * application's frames: hand every queue's frames to dr_rx_burst_input()
 * (flags 0), and the steered queue's with DR_RX_INPUT_STEERED only when
 * every rule was made (doc/guides/embedding.rst, "Steering").
 * Control path: not from the data path's threads while they run.
 * @return the number of rules made (map entries on net_af_xdp), at least
 *         1; -ENOTSUP, nothing made, where the port cannot steer (net_memif,
 *         net_ring, net_af_packet, a PMD without rte_flow or refusing a
 *         RoCEv2 rule, an af_xdp program without the map); -EINVAL when
 *         @p ctx is NULL, opened with configure_port (it steers the port
 *         it configured already) or @p queue is not an rx queue of the port;
 *         another -errno from the PMD.
 */
int dr_flow_steer(struct dr_context *ctx, uint16_t queue);

/** What the application and a DR_IO_APP context handed each other. */
struct dr_io_stats {
	uint64_t rx_input;         /**< frames given to dr_rx_burst_input() */
	uint64_t rx_roce;          /**< ... taken: RoCEv2 packets to the context's GIDs */
	uint64_t rx_neigh;         /**< ... taken: ARP and neighbour discovery for them */
	uint64_t rx_steered;       /**< ... taken unclassified (DR_RX_INPUT_STEERED) */
	uint64_t rx_ring_full;     /**< ... taken and dropped: the receive ring was full */
	uint64_t tx_staged;        /**< frames the transport put in the transmit ring */
	uint64_t tx_ring_full;     /**< times the ring took fewer frames than it was offered */
	uint64_t tx_drained;       /**< frames dr_tx_drain() gave the application */
	uint32_t rx_waiting;       /**< frames in the receive ring now */
	uint32_t tx_waiting;       /**< frames in the transmit ring now */
};

/**
 * Read the counters of a DR_IO_APP context (a snapshot: threads that run
 * may move fields between two reads). Never reset.
 * @return 0, -EINVAL when @p ctx or @p st is NULL or @p ctx is not a
 *         DR_IO_APP context.
 */
int dr_io_stats_get(struct dr_context *ctx, struct dr_io_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_IO_H */
