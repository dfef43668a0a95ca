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

#include <stdint.h>

#include "dr_app_engine.h"

#define CMSAMPLE_MSG 16

struct cmsample_opts {
	const char *prog;
	const char *server;        /* -s (client): the server's address */
	const char *port;          /* -p (7471) */
	uint32_t ipv4;             /* --ip */
	struct dr_app_engine engine;
};

/* options.c: 0, 1 (help printed), -1 (usage error printed); @client: -s is needed */
int cmsample_parse_args(int argc, char **argv, bool client, struct cmsample_opts *o);

#endif /* DR_CMSAMPLE_H */
