/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_GRAPH_H
#define DR_GRAPH_H

/**
 * @file
 * The transport as two rte_graph nodes, for a graph application (DPDK's
 * graph library; doc/guides/embedding.rst, "In a graph"). Its contexts are
 * DR_IO_APP contexts (dr_verbs_io.h) in DR_PROGRESS_INLINE mode, attached
 * before the graphs are created:
 *
 * - "dr_rx" takes the frames of every attached context's port
 *   (dr_rx_burst_input(); a frame's port is its mbuf's port field, which
 *   PMDs set on receive) and sends the rest, in order, to its edge
 *   DR_NODE_RX_NEXT, which the application points at its own next node
 *   with rte_node_edge_update() (until then: "pkt_drop"). Frames of a port
 *   no context is attached to go there untouched.
 * - "dr_tx-<port>", a clone of the source node "dr_tx" made by
 *   dr_graph_attach(), runs the context's progress (the graph's lcore is
 *   its progress thread) and sends the frames it built to the node the
 *   application named (e.g. "ethdev_tx-<port>").
 *
 * Adding RDMA to a graph is then: the port's rx node's edge to "dr_rx",
 * "dr_rx"'s edge to where the rx node went before, and "dr_tx-<port>" in
 * the graph's node patterns.
 */

#include <stdint.h>

#include "dr_verbs_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DR_NODE_RX_NAME "dr_rx"  /**< the receive node */
#define DR_NODE_TX_NAME "dr_tx"  /**< the transmit node, cloned per context as "dr_tx-<port>" */

/** dr_rx's one edge: the frames that are not the transport's, to the
 *  application's node ("pkt_drop" until it says which). dr_rx drops
 *  nothing itself: a frame of the transport's its full receive ring cannot
 *  take is counted there (dr_io_stats.rx_ring_full). */
#define DR_NODE_RX_NEXT 0

/**
 * Attach a DR_IO_APP, DR_PROGRESS_INLINE context to the nodes, before the
 * graphs that use them are created (rte_graph_create()): dr_rx offers it
 * the frames of its port, and the node "dr_tx-<port>" (made now, or
 * reused when the port had one) runs it and sends its frames to
 * @p tx_next. One context per port. dr_close_device() detaches it.
 * @param tx_node set to the id of "dr_tx-<port>" (may be NULL).
 * @return 0; -EINVAL when @p ctx is NULL, not DR_IO_APP or not inline, or
 *         @p tx_next is NULL; -ENOENT when no node is named @p tx_next;
 *         -EEXIST when a context of the port is attached already; -errno
 *         from the graph library.
 */
int dr_graph_attach(struct dr_context *ctx, const char *tx_next, uint32_t *tx_node);

/**
 * Detach @p ctx: dr_rx passes its port's frames on untouched, and its
 * "dr_tx-<port>" node does nothing. Call it once the graphs that run its
 * node stopped walking.
 * @return 0, -EINVAL when @p ctx is NULL, -ENOENT when it is not attached.
 */
int dr_graph_detach(struct dr_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* DR_GRAPH_H */
