/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_GRAPH_PRIV_H
#define DR_GRAPH_PRIV_H

/* The contexts attached to the graph nodes, by port (dr_graph.c). */

#include <stdint.h>

struct dr_context;

/* The context attached for @port, or NULL (any thread: the nodes read it as they run). */
struct dr_context *dr_graph_ctx_of_port(uint16_t port);

#endif /* DR_GRAPH_PRIV_H */
