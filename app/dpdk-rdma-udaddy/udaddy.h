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

#include "dr_app_cm.h"

#define UDADDY_PROG "dpdk-rdma-udaddy"
#define UDADDY_MAX_CONN 64

struct udaddy_opts {
	struct dr_app_cm_opts cm;  /* -s -b -c -C -S -V --ip --timeout, the engine's */
	uint16_t port;             /* --port (7174, udaddy's) */
};

extern volatile sig_atomic_t udaddy_stop;

/* options.c: 0, 1 (help printed), -1 (usage error printed) */
int udaddy_parse_args(int argc, char **argv, void *opts);

/* run.c: the test on an open context; its return status (0 done) */
int udaddy_run(struct dr_context *ctx, const void *opts);

#endif /* DR_UDADDY_H */
