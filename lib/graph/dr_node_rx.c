/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The node "dr_rx" (include/dr_graph.h): each run of frames of one port
 * goes to the port's context through dr_rx_burst_input(); what comes back,
 * and the frames of ports with no context, go on to DR_NODE_RX_NEXT in the
 * order they came.
 */

#include <string.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_mbuf.h>

#include "dr_graph.h"
#include "dr_graph_priv.h"
#include "dr_verbs_io.h"

static uint16_t
rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t i = 0, out = 0;

	while (i < nb) {
		uint16_t port = pkts[i]->port, j = i + 1, kept;
		struct dr_context *ctx;

		while (j < nb && pkts[j]->port == port)
			j++;
		ctx = dr_graph_ctx_of_port(port);
		kept = ctx != NULL ? dr_rx_burst_input(ctx, pkts + i, (uint16_t)(j - i), 0) : (uint16_t)(j - i);
		if (out != i)
			memmove(pkts + out, pkts + i, kept * sizeof(*pkts));
		out = (uint16_t)(out + kept);
		i = j;
	}
	if (out != 0)
		rte_node_enqueue(graph, node, DR_NODE_RX_NEXT, objs, out);
	return nb;
}

static struct rte_node_register dr_node_rx = {
	.name = DR_NODE_RX_NAME,
	.process = rx_process,
	.nb_edges = 1,
	.next_nodes = { [DR_NODE_RX_NEXT] = "pkt_drop" },
};

RTE_NODE_REGISTER(dr_node_rx);
