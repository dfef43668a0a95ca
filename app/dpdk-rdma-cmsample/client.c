/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-client [EAL args] -- --ip A.B.C.D -s server [-p port]
 *
 * librdmacm's rdma_client on dr_cm_ (cmsample.h): connect, a message out,
 * a message in, disconnect.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dr_app.h"
#include "dr_app_port.h"
#include "dr_cm.h"
#include "dr_cm_verbs.h"
#include "cmsample.h"

#define PROG "dpdk-rdma-client"

static uint8_t send_msg[CMSAMPLE_MSG];
static uint8_t recv_msg[CMSAMPLE_MSG];

static int
fail(const char *call, int ret)
{
	printf("%s: %s\n", call, strerror(-ret));
	return ret;
}

static int
run(const struct cmsample_opts *o)
{
	struct dr_cm_addrinfo hints, *res;
	struct dr_qp_init_attr attr;
	struct dr_mr *mr, *send_mr = NULL;
	struct dr_qp_attr qp_attr;
	struct dr_cm_id *id;
	int send_flags = 0, ret;
	struct dr_wc wc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = DR_CM_PS_TCP;
	ret = dr_cm_getaddrinfo(o->server, o->port, &hints, &res);
	if (ret != 0)
		return fail("rdma_getaddrinfo", ret);
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.cap.max_inline_data = CMSAMPLE_MSG;
	attr.qp_context = NULL;
	attr.sq_sig_all = 1;
	attr.qp_type = DR_QPT_RC;
	ret = dr_cm_create_ep(&id, res, NULL, &attr);
	dr_cm_freeaddrinfo(res);
	if (ret != 0)
		return fail("rdma_create_ep", ret);
	memset(&qp_attr, 0, sizeof(qp_attr));
	memset(&attr, 0, sizeof(attr));
	ret = dr_query_qp(id->qp, &qp_attr, DR_QP_CAP, &attr);
	if (ret != 0) {
		fail("ibv_query_qp", ret);
		goto out_destroy_ep;
	}
	if (attr.cap.max_inline_data >= CMSAMPLE_MSG)
		send_flags = DR_SEND_INLINE;
	else
		printf("rdma_client: device doesn't support IBV_SEND_INLINE, using sge sends\n");
	mr = dr_cm_reg_msgs(id, recv_msg, CMSAMPLE_MSG);
	if (mr == NULL) {
		ret = fail("rdma_reg_msgs for recv_msg", -errno);
		goto out_destroy_ep;
	}
	if ((send_flags & DR_SEND_INLINE) == 0) {
		send_mr = dr_cm_reg_msgs(id, send_msg, CMSAMPLE_MSG);
		if (send_mr == NULL) {
			ret = fail("rdma_reg_msgs for send_msg", -errno);
			goto out_dereg_recv;
		}
	}
	ret = dr_cm_post_recv(id, NULL, recv_msg, CMSAMPLE_MSG, mr);
	if (ret != 0) {
		fail("rdma_post_recv", ret);
		goto out_dereg_send;
	}
	ret = dr_cm_connect(id, NULL);
	if (ret != 0) {
		fail("rdma_connect", ret);
		goto out_dereg_send;
	}
	printf("rdma_client: connected\n");
	ret = dr_cm_post_send(id, NULL, send_msg, CMSAMPLE_MSG, send_mr, send_flags);
	if (ret != 0) {
		fail("rdma_post_send", ret);
		goto out_disconnect;
	}
	while ((ret = dr_cm_get_send_comp(id, &wc)) == 0)
		;
	if (ret < 0) {
		fail("rdma_get_send_comp", ret);
		goto out_disconnect;
	}
	while ((ret = dr_cm_get_recv_comp(id, &wc)) == 0)
		;
	if (ret < 0)
		fail("rdma_get_recv_comp", ret);
	else
		ret = wc.status == DR_WC_SUCCESS ? 0 : -EIO;
	printf("rdma_client: received %u bytes, status %d\n", wc.byte_len, wc.status);
out_disconnect:
	(void)dr_cm_disconnect(id);
out_dereg_send:
	if ((send_flags & DR_SEND_INLINE) == 0)
		(void)dr_cm_dereg_mr(send_mr);
out_dereg_recv:
	(void)dr_cm_dereg_mr(mr);
out_destroy_ep:
	dr_cm_destroy_ep(id);
	return ret;
}

int
main(int argc, char **argv)
{
	static struct cmsample_opts o = { .prog = PROG };
	struct dr_app_port port;
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = cmsample_parse_args(own_argc, own_argv, true, &o);
	if (ret != 0)
		return ret < 0 ? 2 : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = dr_app_port_open(PROG, eal_argc, argv, o.ipv4, &o.engine, &port);
	if (ret != 0)
		return ret;
	printf("rdma_client: start\n");
	ret = run(&o);
	printf("rdma_client: end %d\n", ret);
	dr_app_port_close(PROG, &port);
	return ret != 0 ? 1 : 0;
}
