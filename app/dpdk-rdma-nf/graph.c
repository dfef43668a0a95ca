/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * --io graph: the NF as an rte_graph application with the transport's two
 * nodes (include/dr_graph.h). One graph, walked by the NF's lcore:
 *
 *   nf_rx-0 -> dr_rx -> nf_fwd -> nf_tx-1        (port 0's frames)
 *   nf_rx-1 ----------> nf_fwd -> nf_tx-0        (port 1's)
 *   dr_tx-0 -> nf_rtx-0                          (the transport's frames)
 *
 * nf_fwd swaps the MACs, offers the frame to the exporter's sample hook and
 * sends it out of the other port; nf_tx counts what the port took and what
 * it did not (forwarded frames), nf_rtx the same for the transport's.
 */

#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "dr_graph.h"
#include "nf.h"

#define GRAPH_NAME "dpdk_rdma_nf"

static struct nf_fwd_hook hook;
static struct nf_port *graph_port;     /* rdma_tx_dropped */

struct port_ctx {
	uint16_t port;
};

static int
port_init(const struct rte_graph *graph, struct rte_node *node)
{
	unsigned int port = UINT16_MAX;

	RTE_SET_USED(graph);
	(void)(sscanf(node->name, "nf_rx-%u", &port) == 1 || sscanf(node->name, "nf_tx-%u", &port) == 1 ||
	       sscanf(node->name, "nf_rtx-%u", &port) == 1);
	((struct port_ctx *)node->ctx)->port = (uint16_t)port;
	return 0;
}

/* A port's rx queue 0; each frame's port as the PMD set it. */
static uint16_t
rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	uint16_t port = ((struct port_ctx *)node->ctx)->port, n;
	void **to;

	RTE_SET_USED(objs);
	RTE_SET_USED(nb);
	if (port > 1)
		return 0;
	to = rte_node_next_stream_get(graph, node, 0, RTE_GRAPH_BURST_SIZE);
	n = rte_eth_rx_burst(port, 0, (struct rte_mbuf **)to, RTE_GRAPH_BURST_SIZE);
	for (uint16_t i = 0; i < n; i++)
		((struct rte_mbuf *)to[i])->port = port;   /* dr_rx keys on it (some PMDs leave it) */
	rte_node_next_stream_put(graph, node, 0, n);
	return n;
}

/* Edges of nf_fwd: out of port 0, out of port 1. */
static uint16_t
fwd_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	uint16_t i;

	for (i = 0; i < nb; i++) {
		struct rte_mbuf *m = objs[i];
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		struct rte_ether_addr t;
		uint16_t in = m->port > 1 ? 0 : m->port;

		hook.cnt->rx[in]++;
		hook.sample(hook.arg, m);
		t = eh->dst_addr;
		eh->dst_addr = eh->src_addr;
		eh->src_addr = t;
		rte_node_enqueue_x1(graph, node, in ^ 1, m);
	}
	return nb;
}

static uint16_t
tx_common(struct rte_node *node, void **objs, uint16_t nb, uint64_t *sent_cnt, uint64_t *dropped)
{
	uint16_t port = ((struct port_ctx *)node->ctx)->port, sent = 0;

	if (port <= 1)
		sent = rte_eth_tx_burst(port, 0, (struct rte_mbuf **)objs, nb);
	if (sent < nb)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs + sent, nb - sent);
	if (sent_cnt != NULL)
		*sent_cnt += sent;
	*dropped += nb - sent;
	return nb;
}

static uint16_t
tx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	RTE_SET_USED(graph);
	return tx_common(node, objs, nb, &hook.cnt->fwd, &hook.cnt->tx_dropped);
}

/* The transport's frames: one it does not get out is a loss RC recovers. */
static uint16_t
rtx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	RTE_SET_USED(graph);
	return tx_common(node, objs, nb, NULL, &graph_port->rdma_tx_dropped);
}

static struct rte_node_register node_rx = {
	.name = "nf_rx", .flags = RTE_NODE_SOURCE_F, .process = rx_process, .init = port_init,
	.nb_edges = 1, .next_nodes = { "nf_fwd" },
};
static struct rte_node_register node_fwd = {
	.name = "nf_fwd", .process = fwd_process, .nb_edges = 2, .next_nodes = { "nf_tx-0", "nf_tx-1" },
};
static struct rte_node_register node_tx = {
	.name = "nf_tx", .process = tx_process, .init = port_init, .nb_edges = 0,
};
static struct rte_node_register node_rtx = {
	.name = "nf_rtx", .process = rtx_process, .init = port_init, .nb_edges = 0,
};
RTE_NODE_REGISTER(node_rx);
RTE_NODE_REGISTER(node_fwd);
RTE_NODE_REGISTER(node_tx);
RTE_NODE_REGISTER(node_rtx);

static rte_graph_t graph_id = RTE_GRAPH_ID_INVALID;
static struct rte_graph *graph;

int
nf_graph_start(struct nf_port *p, const struct nf_fwd_hook *h)
{
	static const char *patterns[] = { "nf_rx-0", "nf_rx-1", DR_NODE_RX_NAME, "nf_fwd", "nf_tx-0", "nf_tx-1",
					  DR_NODE_TX_NAME "-0", "nf_rtx-0" };
	struct rte_graph_param prm = { .socket_id = SOCKET_ID_ANY, .nb_node_patterns = RTE_DIM(patterns),
				       .node_patterns = patterns };
	const char *fwd = "nf_fwd";
	int ret;

	hook = *h;
	graph_port = p;
	for (unsigned int port = 0; port < 2; port++) {
		char n[8];

		snprintf(n, sizeof(n), "%u", port);
		if (rte_node_clone(rte_node_from_name("nf_rx"), n) == RTE_NODE_ID_INVALID ||
		    rte_node_clone(rte_node_from_name("nf_tx"), n) == RTE_NODE_ID_INVALID) {
			fprintf(stderr, "dpdk-rdma-nf: graph nodes of port %u\n", port);
			return -1;
		}
	}
	if (rte_node_clone(rte_node_from_name("nf_rtx"), "0") == RTE_NODE_ID_INVALID)
		return -1;
	/* port 0's frames through dr_rx first; the transport's out through nf_rtx-0 */
	if (rte_node_edge_update(rte_node_from_name("nf_rx-0"), 0, (const char *[]){ DR_NODE_RX_NAME }, 1) ==
	    RTE_EDGE_ID_INVALID ||
	    rte_node_edge_update(rte_node_from_name(DR_NODE_RX_NAME), DR_NODE_RX_NEXT, &fwd, 1) == RTE_EDGE_ID_INVALID)
		return -1;
	ret = dr_graph_attach(p->ctx, "nf_rtx-0", NULL);
	if (ret != 0) {
		fprintf(stderr, "dpdk-rdma-nf: dr_graph_attach: %s\n", strerror(-ret));
		return -1;
	}
	graph_id = rte_graph_create(GRAPH_NAME, &prm);
	graph = graph_id != RTE_GRAPH_ID_INVALID ? rte_graph_lookup(GRAPH_NAME) : NULL;
	if (graph == NULL) {
		fprintf(stderr, "dpdk-rdma-nf: rte_graph_create: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	printf("dpdk-rdma-nf: graph %s: nf_rx-0 -> dr_rx -> nf_fwd -> nf_tx-1, nf_rx-1 -> nf_fwd -> nf_tx-0, "
	       "dr_tx-0 -> nf_rtx-0\n", GRAPH_NAME);
	return 0;
}

void
nf_graph_walk(void)
{
	rte_graph_walk(graph);
}

void
nf_graph_stop(struct nf_port *p)
{
	if (graph_id != RTE_GRAPH_ID_INVALID)
		(void)rte_graph_destroy(graph_id);
	graph_id = RTE_GRAPH_ID_INVALID;
	graph = NULL;
	if (p->ctx != NULL)
		(void)dr_graph_detach(p->ctx);
}
