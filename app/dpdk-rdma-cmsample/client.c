/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-client [EAL args] -- --ip A.B.C.D -s server [-p port]
 *
 * librdmacm's rdma_client on dr_cm_ (cmsample.h): connect, a message out,
 * a message in, disconnect.
 */

#include <string.h>

#include "cmsample.h"

#define WHO "rdma_client"

static int
run(const struct cmsample_opts *o)
{
	struct dr_cm_addrinfo hints, *res;
	struct dr_qp_init_attr attr;
	struct cmsample_msgs m;
	struct dr_cm_id *id;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = DR_CM_PS_TCP;
	ret = dr_cm_getaddrinfo(o->server, o->port, &hints, &res);
	if (ret != 0)
		return cmsample_fail("rdma_getaddrinfo", ret);
	cmsample_qp_attr(&attr);
	ret = dr_cm_create_ep(&id, res, NULL, &attr);
	dr_cm_freeaddrinfo(res);
	if (ret != 0)
		return cmsample_fail("rdma_create_ep", ret);
	ret = cmsample_msgs_ready(id, WHO, &m);
	if (ret == 0) {
		ret = dr_cm_connect(id, NULL);
		if (ret != 0)
			cmsample_fail("rdma_connect", ret);
		else
			printf(WHO ": connected\n");
	}
	if (ret == 0)
		ret = cmsample_send(id, &m);
	if (ret == 0)
		ret = cmsample_recv(id, WHO);
	(void)dr_cm_disconnect(id);
	cmsample_msgs_free(&m);
	dr_cm_destroy_ep(id);
	return ret;
}

int
main(int argc, char **argv)
{
	return cmsample_main(argc, argv, true, "dpdk-rdma-client", WHO, run);
}
