/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CMSAMPLE_H
#define DR_CMSAMPLE_H

/*
 * dpdk-rdma-server and dpdk-rdma-client: librdmacm's rdma_server and
 * rdma_client (rdma-core's examples) on dpdk-rdma's dr_cm_ API, so rxe's
 * are their peers. Synchronous ids end to end: rdma_getaddrinfo,
 * rdma_create_ep, rdma_listen / rdma_get_request / rdma_accept on the
 * server, rdma_connect on the client; each side posts a 16-byte receive,
 * the client sends 16 bytes, the server answers with 16, both disconnect.
 * The rdma_verbs.h helpers (include/dr_cm_verbs.h) do the posting and the
 * waiting.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_app.h"
#include "dr_app_engine.h"
#include "dr_app_port.h"
#include "dr_cm.h"

#define CMSAMPLE_MSG 16

struct cmsample_opts {
	const char *prog;
	const char *server;        /* -s: the server's address (client), the address to bind (server) */
	const char *port;          /* -p (7471) */
	struct dr_app_ips ips;     /* --ip, --ipv6 */
	struct dr_app_engine engine;
};

/* options.c: 0, 1 (help printed), -1 (usage error printed); @client: -s is needed */
int cmsample_parse_args(int argc, char **argv, bool client, struct cmsample_opts *o);

/* msgs.c: the two messages of a connection, and what both tools do alike */
struct cmsample_msgs {
	uint8_t send[CMSAMPLE_MSG];
	uint8_t recv[CMSAMPLE_MSG];
	struct dr_mr *mr, *send_mr;   /* send_mr: none when the QP takes 16 bytes inline */
	int send_flags;
};

/* "<call>: <reason>" on stdout, as the tools' perror(); @ret back. */
int cmsample_fail(const char *call, int ret);
/* The QP both tools ask rdma_create_ep() for. */
void cmsample_qp_attr(struct dr_qp_init_attr *a);
/* Inline or not (the QP's caps), the MRs, the receive posted: 0 or -errno (said). */
int cmsample_msgs_ready(struct dr_cm_id *id, const char *who, struct cmsample_msgs *m);
/* The message out, and its completion waited for (rdma_get_send_comp). */
int cmsample_send(struct dr_cm_id *id, struct cmsample_msgs *m);
/* The message in (rdma_get_recv_comp), said as "<who>: received N bytes, status S". */
int cmsample_recv(struct dr_cm_id *id, const char *who);
void cmsample_msgs_free(struct cmsample_msgs *m);
/* EAL and the port around @run; "<who>: start" and "<who>: end N" as the tools print. */
int cmsample_main(int argc, char **argv, bool client, const char *prog, const char *who,
		  int (*run)(const struct cmsample_opts *o));

#endif /* DR_CMSAMPLE_H */
