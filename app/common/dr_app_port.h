/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_APP_PORT_H
#define DR_APP_PORT_H

/*
 * What the connection manager's programs (rping, udaddy, rdma_server and
 * rdma_client on dr_cm_) do around their session: EAL from the arguments
 * before "--", the first DPDK port opened as a context with --ip and the
 * engine options, and all of it closed again.
 */

#include <stdint.h>

#include "dr_app_engine.h"
#include "dr_verbs.h"

/* The port's addresses: --ip (GID index 1) and up to two --ipv6 (GID 2, 3). */
struct dr_app_ips {
	uint32_t ipv4;             /* network order; 0: none */
	uint8_t ipv6[2][16];
	unsigned int num_ipv6;
};

struct dr_app_port {
	struct dr_device **list;
	struct dr_context *ctx;
};

/*
 * EAL (@eal_argc of @argv; 0: none but the program's name), then the first
 * port as a context with the addresses @ips in @engine's mode. 0, or 2
 * after printing why to stderr, prefixed by @prog (EAL cleaned up).
 */
int dr_app_port_open(const char *prog, int eal_argc, char **argv, const struct dr_app_ips *ips,
		     const struct dr_app_engine *engine, struct dr_app_port *p);

/* Workers stopped, the context closed, EAL cleaned up. */
void dr_app_port_close(const char *prog, struct dr_app_port *p);

#endif /* DR_APP_PORT_H */
