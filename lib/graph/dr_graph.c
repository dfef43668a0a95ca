/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Attaching contexts to the graph nodes (include/dr_graph.h): one context
 * per port, read by dr_rx and by each port's dr_tx clone as they run, set
 * and cleared by the control side before and after the graphs walk.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_graph.h>

#include "dr_context.h"
#include "dr_graph.h"
#include "dr_graph_priv.h"
#include "dr_log.h"

static struct dr_context *graph_ports[RTE_MAX_ETHPORTS];
static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;

struct dr_context *
dr_graph_ctx_of_port(uint16_t port)
{
	return port < RTE_MAX_ETHPORTS ? __atomic_load_n(&graph_ports[port], __ATOMIC_ACQUIRE) : NULL;
}

/* The port's "dr_tx-<port>" node: made by cloning "dr_tx", or the one an earlier attach made. */
static rte_node_t
tx_node_of(uint16_t port)
{
	char name[RTE_NODE_NAMESIZE], suffix[8];
	rte_node_t id;

	snprintf(name, sizeof(name), "%s-%u", DR_NODE_TX_NAME, port);
	id = rte_node_from_name(name);
	if (id != RTE_NODE_ID_INVALID)
		return id;
	snprintf(suffix, sizeof(suffix), "%u", port);
	return rte_node_clone(rte_node_from_name(DR_NODE_TX_NAME), suffix);
}

int
dr_graph_attach(struct dr_context *ctx, const char *tx_next, uint32_t *tx_node)
{
	rte_node_t id;
	int rc = 0;

	if (ctx == NULL || tx_next == NULL || ctx->attr.io != DR_IO_APP || ctx->attr.mode != DR_PROGRESS_INLINE)
		return -EINVAL;
	if (rte_node_from_name(tx_next) == RTE_NODE_ID_INVALID) {
		DR_LOG(ctx, INFO, "dr_graph_attach: no node named \"%s\"", tx_next);
		return -ENOENT;
	}
	pthread_mutex_lock(&graph_lock);
	if (graph_ports[ctx->port_id] != NULL) {
		rc = -EEXIST;
		goto out;
	}
	id = tx_node_of(ctx->port_id);
	if (id == RTE_NODE_ID_INVALID) {
		rc = rte_errno > 0 ? -rte_errno : -ENOMEM;
		goto out;
	}
	if (rte_node_edge_update(id, 0, &tx_next, 1) == RTE_EDGE_ID_INVALID) {
		rc = rte_errno > 0 ? -rte_errno : -EINVAL;
		goto out;
	}
	ctx->graph_detach = dr_graph_detach;
	__atomic_store_n(&graph_ports[ctx->port_id], ctx, __ATOMIC_RELEASE);
	if (tx_node != NULL)
		*tx_node = id;
	DR_LOG(ctx, INFO, "port %u: graph nodes %s and %s-%u (to %s)", ctx->port_id, DR_NODE_RX_NAME,
	       DR_NODE_TX_NAME, ctx->port_id, tx_next);
out:
	pthread_mutex_unlock(&graph_lock);
	return rc;
}

int
dr_graph_detach(struct dr_context *ctx)
{
	int rc = -ENOENT;

	if (ctx == NULL)
		return -EINVAL;
	pthread_mutex_lock(&graph_lock);
	if (graph_ports[ctx->port_id] == ctx) {
		__atomic_store_n(&graph_ports[ctx->port_id], NULL, __ATOMIC_RELEASE);
		rc = 0;
	}
	pthread_mutex_unlock(&graph_lock);
	return rc;
}
