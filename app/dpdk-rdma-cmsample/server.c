/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-server [EAL args] -- --ip A.B.C.D [-p port]
 *
 * librdmacm's rdma_server on dr_cm_ (cmsample.h): one connection, a
 * message in, a message out.
 */

#include <string.h>

#include "cmsample.h"

#define WHO "rdma_server"

static int
run(const struct cmsample_opts *o)
{
	struct dr_cm_addrinfo hints, *res;
	struct dr_qp_init_attr init_attr;
	struct dr_cm_id *listen_id, *id;
	struct cmsample_msgs m;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = DR_CM_RAI_PASSIVE;
	hints.ai_port_space = DR_CM_PS_TCP;
	/* no -s: the wildcard, IPv6's (which takes IPv4 requests too) where the port has an IPv6 address */
	if (o->server == NULL && o->ips.num_ipv6 > 0)
		hints.ai_family = AF_INET6;
	ret = dr_cm_getaddrinfo(o->server, o->port, &hints, &res);
	if (ret != 0)
		return cmsample_fail("rdma_getaddrinfo", ret);
	cmsample_qp_attr(&init_attr);
	ret = dr_cm_create_ep(&listen_id, res, NULL, &init_attr);
	dr_cm_freeaddrinfo(res);
	if (ret != 0)
		return cmsample_fail("rdma_create_ep", ret);
	ret = dr_cm_listen(listen_id, 0);
	if (ret != 0) {
		cmsample_fail("rdma_listen", ret);
		goto out_destroy_listen_ep;
	}
	printf(WHO ": listening\n");
	ret = dr_cm_get_request(listen_id, &id);
	if (ret != 0) {
		cmsample_fail("rdma_get_request", ret);
		goto out_destroy_listen_ep;
	}
	ret = cmsample_msgs_ready(id, WHO, &m);
	if (ret == 0) {
		ret = dr_cm_accept(id, NULL);
		if (ret != 0)
			cmsample_fail("rdma_accept", ret);
	}
	if (ret == 0)
		ret = cmsample_recv(id, WHO);
	if (ret == 0)
		ret = cmsample_send(id, &m);
	(void)dr_cm_disconnect(id);
	cmsample_msgs_free(&m);
	dr_cm_destroy_ep(id);
out_destroy_listen_ep:
	dr_cm_destroy_ep(listen_id);
	return ret;
}

int
main(int argc, char **argv)
{
	return cmsample_main(argc, argv, false, "dpdk-rdma-server", WHO, run);
}
