/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CMATOSE_H
#define DR_CMATOSE_H

/*
 * dpdk-rdma-cmatose: librdmacm's cmatose (rdma-core's examples/cmatose.c,
 * installed as ucmatose) on dpdk-rdma's dr_cm_ API, so rxe's ucmatose is
 * its peer. RC connections through the CM (RDMA_PS_TCP, port 7471):
 *
 *   client: per connection, resolve address and route, an RC QP with -C
 *           receives posted, rdma_connect (retry count 5, one READ each way)
 *   server: accepts -c requests (receives posted first); once all are
 *           ESTABLISHED it sends -C messages of -S bytes on each and waits
 *           for their completions, then for the client's -C replies
 *   client receives, replies with -C messages
 *   server disconnects every connection; both wait for DISCONNECTED
 *
 * Ours adds -V (fill what it sends, check what it receives: a peer of
 * ours only) and --rounds N (the whole exchange N times over, each with new
 * ids: sequential connection churn), for the process-level tests.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "dr_app_engine.h"

#define CMATOSE_PROG "dpdk-rdma-cmatose"
#define CMATOSE_MAX_CONN 512

struct cmatose_opts {
	uint32_t dst;              /* -s: the server (client mode); 0: server mode */
	uint32_t src;              /* -b: bind address (default --ip) */
	unsigned int connections;  /* -c (1) */
	unsigned int count;        /* -C (10) */
	unsigned int size;         /* -S (100) */
	uint16_t port;             /* -p (7471) */
	bool validate;             /* -V */
	unsigned int rounds;       /* --rounds (1) */
	uint32_t ipv4;             /* --ip */
	double timeout_s;          /* --timeout (30): every wait */
	struct dr_app_engine engine;
};

extern volatile sig_atomic_t cmatose_stop;

/* options.c: 0, 1 (help printed), -1 (usage error printed) */
int cmatose_parse_args(int argc, char **argv, struct cmatose_opts *o);

/* run.c: the test on an open context; its return status (0 done) */
int cmatose_run(struct dr_context *ctx, const struct cmatose_opts *o);

#endif /* DR_CMATOSE_H */
