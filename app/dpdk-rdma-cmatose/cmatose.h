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

#include "dr_app_cm.h"

#define CMATOSE_PROG "dpdk-rdma-cmatose"
#define CMATOSE_MAX_CONN 512

struct cmatose_opts {
	struct dr_app_cm_opts cm;  /* -s -b -c -C -S -V --ip --timeout, the engine's */
	uint16_t port;             /* -p (7471) */
	unsigned int rounds;       /* --rounds (1) */
};

extern volatile sig_atomic_t cmatose_stop;

/* options.c: 0, 1 (help printed), -1 (usage error printed) */
int cmatose_parse_args(int argc, char **argv, void *opts);

/* run.c: the test on an open context; its return status (0 done) */
int cmatose_run(struct dr_context *ctx, const void *opts);

#endif /* DR_CMATOSE_H */
