/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dr_flow_steer() (dr_verbs_io.h): the transport's frames steered to one rx
 * queue of a port the application configured, by its backend (rte_flow
 * rules without isolated mode, an XDP program's map), so that a network
 * function can separate them in hardware instead of with
 * dr_rx_burst_input()'s classifier. A library inside an application never
 * isolates a port it does not own: rte_flow_isolate() is port-wide and
 * decided before the port is configured.
 */

#include <errno.h>

#include "dr_backend.h"
#include "dr_context.h"
#include "dr_log.h"

int
dr_flow_steer(struct dr_context *ctx, uint16_t queue)
{
	if (ctx == NULL)
		return -EINVAL;
	if (ctx->attr.configure_port) {
		DR_LOG(ctx, INFO, "dr_flow_steer: the context configured its port and steers it already");
		return -EINVAL;
	}
	if (ctx->be->flow_steer == NULL) {
		DR_LOG(ctx, INFO, "dr_flow_steer: backend %s cannot steer", ctx->be->name);
		return -ENOTSUP;
	}
	return ctx->be->flow_steer(&ctx->bport, queue);
}
