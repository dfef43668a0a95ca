/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_UDADDY_H
#define DR_UDADDY_H

/*
 * dpdk-rdma-udaddy: librdmacm's udaddy (rdma-core's examples/udaddy.c) on
 * dpdk-rdma's dr_cm_ API, so rxe's udaddy is its peer. UD QPs found
 * through service ID resolution (RDMA_PS_UDP, port 7174):
 *
 *   client: per connection, resolve address and route, a UD QP with
 *           -C receives posted, rdma_connect (SIDR_REQ); ESTABLISHED gives
 *           the server's QPN, Q_Key and an address handle
 *   client sends -C messages of -S bytes (SEND with immediate: its QPN)
 *   server, having accepted -c requests, receives them, makes the reply
 *           address from the first completion (its GRH, the immediate's
 *           QPN) and sends -C replies back
 *
 * Ours fills what it sends (byte i of message m: m + i) and with -V checks
 * what it receives (a peer of ours only: udaddy sends what malloc gave).
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "dr_app_engine.h"

#define UDADDY_PROG "dpdk-rdma-udaddy"
#define UDADDY_MAX_CONN 64

struct udaddy_opts {
	uint32_t dst;              /* -s: the server (client mode); 0: server mode */
	uint32_t src;              /* -b: bind address (default --ip) */
	unsigned int connections;  /* -c (1) */
	unsigned int count;        /* -C (10) */
	unsigned int size;         /* -S (100) */
	uint16_t port;             /* --port (7174, udaddy's) */
	bool validate;             /* -V */
	uint32_t ipv4;             /* --ip */
	double timeout_s;          /* --timeout (30) */
	struct dr_app_engine engine;
};

extern volatile sig_atomic_t udaddy_stop;

/* options.c: 0, 1 (help printed), -1 (usage error printed) */
int udaddy_parse_args(int argc, char **argv, struct udaddy_opts *o);

/* run.c: the test on an open context; its return status (0 done) */
int udaddy_run(struct dr_context *ctx, const struct udaddy_opts *o);

#endif /* DR_UDADDY_H */
