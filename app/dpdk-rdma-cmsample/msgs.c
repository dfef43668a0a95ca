/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* What rdma_server and rdma_client do alike (cmsample.h): the QP's attributes, the 16-byte messages. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dr_cm_verbs.h"
#include "cmsample.h"

int
cmsample_fail(const char *call, int ret)
{
	printf("%s: %s\n", call, strerror(-ret));
	return ret;
}

void
cmsample_qp_attr(struct dr_qp_init_attr *a)
{
	/* both tools': one WR each way, 16 bytes inline, every send signaled */
	memset(a, 0, sizeof(*a));
	a->cap.max_send_wr = a->cap.max_recv_wr = 1;
	a->cap.max_send_sge = a->cap.max_recv_sge = 1;
	a->cap.max_inline_data = CMSAMPLE_MSG;
	a->sq_sig_all = 1;
	a->qp_type = DR_QPT_RC;
}

int
cmsample_msgs_ready(struct dr_cm_id *id, const char *who, struct cmsample_msgs *m)
{
	struct dr_qp_init_attr attr;
	struct dr_qp_attr qp_attr;
	int ret;

	memset(m, 0, sizeof(*m));
	memset(&qp_attr, 0, sizeof(qp_attr));
	memset(&attr, 0, sizeof(attr));
	ret = dr_query_qp(id->qp, &qp_attr, DR_QP_CAP, &attr);
	if (ret != 0)
		return cmsample_fail("ibv_query_qp", ret);
	if (attr.cap.max_inline_data >= CMSAMPLE_MSG)
		m->send_flags = DR_SEND_INLINE;
	else
		printf("%s: device doesn't support IBV_SEND_INLINE, using sge sends\n", who);
	m->mr = dr_cm_reg_msgs(id, m->recv, CMSAMPLE_MSG);
	if (m->mr == NULL)
		return cmsample_fail("rdma_reg_msgs for recv_msg", -errno);
	if ((m->send_flags & DR_SEND_INLINE) == 0) {
		m->send_mr = dr_cm_reg_msgs(id, m->send, CMSAMPLE_MSG);
		if (m->send_mr == NULL)
			return cmsample_fail("rdma_reg_msgs for send_msg", -errno);
	}
	ret = dr_cm_post_recv(id, NULL, m->recv, CMSAMPLE_MSG, m->mr);
	return ret == 0 ? 0 : cmsample_fail("rdma_post_recv", ret);
}

int
cmsample_send(struct dr_cm_id *id, struct cmsample_msgs *m)
{
	struct dr_wc wc;
	int ret = dr_cm_post_send(id, NULL, m->send, CMSAMPLE_MSG, m->send_mr, m->send_flags);

	if (ret != 0)
		return cmsample_fail("rdma_post_send", ret);
	while ((ret = dr_cm_get_send_comp(id, &wc)) == 0)
		;
	if (ret < 0)
		return cmsample_fail("rdma_get_send_comp", ret);
	return wc.status == DR_WC_SUCCESS ? 0 : -EIO;
}

int
cmsample_recv(struct dr_cm_id *id, const char *who)
{
	struct dr_wc wc;
	int ret;

	while ((ret = dr_cm_get_recv_comp(id, &wc)) == 0)
		;
	if (ret < 0)
		return cmsample_fail("rdma_get_recv_comp", ret);
	printf("%s: received %u bytes, status %d\n", who, wc.byte_len, wc.status);
	return wc.status == DR_WC_SUCCESS ? 0 : -EIO;
}

void
cmsample_msgs_free(struct cmsample_msgs *m)
{
	if (m->send_mr != NULL)
		(void)dr_cm_dereg_mr(m->send_mr);
	if (m->mr != NULL)
		(void)dr_cm_dereg_mr(m->mr);
	m->mr = m->send_mr = NULL;
}

int
cmsample_main(int argc, char **argv, bool client, const char *prog, const char *who,
	      int (*run)(const struct cmsample_opts *o))
{
	static struct cmsample_opts o;
	struct dr_app_port port;
	int own_argc, eal_argc, ret;
	char **own_argv;

	o.prog = prog;
	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = cmsample_parse_args(own_argc, own_argv, client, &o);
	if (ret != 0)
		return ret < 0 ? 2 : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = dr_app_port_open(prog, eal_argc, argv, &o.ips, &o.engine, &port);
	if (ret != 0)
		return ret;
	printf("%s: start\n", who);
	ret = run(&o);
	printf("%s: end %d\n", who, ret);
	dr_app_port_close(prog, &port);
	return ret != 0 ? 1 : 0;
}
