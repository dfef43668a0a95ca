/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The source node "dr_tx" and its clones "dr_tx-<port>" (include/dr_graph.h):
 * each walk of its graph runs the port's context one round (dr_progress(),
 * the graph's lcore being its progress thread) and sends the frames it
 * built to edge 0, the node dr_graph_attach() named. The parent "dr_tx"
 * and a clone whose context is detached do nothing.
 */

#include <stdio.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "dr_graph.h"
#include "dr_graph_priv.h"
#include "dr_verbs.h"

struct tx_node_ctx {
	uint16_t port;            /* UINT16_MAX: the parent */
};

static int
tx_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct tx_node_ctx *c = (struct tx_node_ctx *)node->ctx;
	unsigned int port;

	RTE_SET_USED(graph);
	RTE_BUILD_BUG_ON(sizeof(*c) > RTE_NODE_CTX_SZ);
	c->port = UINT16_MAX;
	if (sscanf(node->name, DR_NODE_TX_NAME "-%u", &port) == 1 && port < RTE_MAX_ETHPORTS)
		c->port = (uint16_t)port;
	return 0;
}

static uint16_t
tx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	const struct tx_node_ctx *c = (const struct tx_node_ctx *)node->ctx;
	struct dr_context *ctx = c->port != UINT16_MAX ? dr_graph_ctx_of_port(c->port) : NULL;
	void **to;
	uint16_t n;

	RTE_SET_USED(objs);
	RTE_SET_USED(nb);
	if (ctx == NULL)
		return 0;
	(void)dr_progress(ctx);
	to = rte_node_next_stream_get(graph, node, 0, RTE_GRAPH_BURST_SIZE);
	n = dr_tx_drain(ctx, (struct rte_mbuf **)to, RTE_GRAPH_BURST_SIZE);
	rte_node_next_stream_put(graph, node, 0, n);
	return n;
}

static struct rte_node_register dr_node_tx = {
	.name = DR_NODE_TX_NAME,
	.flags = RTE_NODE_SOURCE_F,
	.process = tx_process,
	.init = tx_init,
	.nb_edges = 1,
	.next_nodes = { "pkt_drop" },
};

RTE_NODE_REGISTER(dr_node_tx);
