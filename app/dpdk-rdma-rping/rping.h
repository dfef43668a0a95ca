/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_RPING_H
#define DR_RPING_H

/*
 * dpdk-rdma-rping: librdmacm's rping (rdma-core's examples/rping.c) on
 * dpdk-rdma's dr_cm_ API, speaking its protocol, so rxe's rping is its peer:
 *
 *   client sends source rkey/addr/len       (SEND, 16 bytes, network order)
 *   server RDMA READs the "ping" data from the source
 *   server sends "go ahead"
 *   client sends sink rkey/addr/len
 *   server RDMA WRITEs the "pong" data to the sink
 *   server sends "go ahead"; again, -C times (0: until stopped)
 *
 * The client disconnects at the end; the server disconnects when it hears
 * DISCONNECTED. One thread: it polls the CQ and the CM channel (inline
 * mode: that drives the transport and the CM).
 */

#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "dr_app_engine.h"
#include "dr_app_port.h"

#define RPING_PROG "dpdk-rdma-rping"
#define RPING_MAX_SIZE (64 * 1024 - 1)
#define RPING_MIN_SIZE 24         /* "rdma-ping-%d: " with the largest count, and a NUL */

struct rping_opts {
	bool server;               /* -s; -c: client */
	struct sockaddr_storage addr;  /* -a (and -p): the server's address, IPv4 or IPv6 */
	uint16_t port;             /* -p (7174) */
	struct sockaddr_storage src;  /* -I: the client's source (AF_UNSPEC: the one that reaches -a) */
	unsigned int count;        /* -C (0: forever) */
	unsigned int size;         /* -S (64) */
	bool verbose;              /* -v */
	bool validate;             /* -V */
	struct dr_app_ips ips;     /* --ip, --ipv6: our port's addresses */
	double timeout_s;          /* --timeout: every wait (default 30) */
	struct dr_app_engine engine;
};

extern volatile sig_atomic_t rping_stop;

/* options.c: 0, 1 (help printed), -1 (usage error printed) */
int rping_parse_args(int argc, char **argv, void *opts);

/* run.c: the session on an open context; 0 or 1 */
int rping_run(struct dr_context *ctx, const void *opts);

#endif /* DR_RPING_H */
