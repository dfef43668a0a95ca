/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* What the target and the client both do with QPs: connect them, wait for a completion. */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>

#include "dr_app_sock.h"
#include "hostile.h"

#define HT_REMOTE_ALL (DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_ATOMIC)

void
ht_gid_v4(union dr_gid *gid, uint32_t ipv4)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xFF;
	gid->raw[11] = 0xFF;
	memcpy(&gid->raw[12], &ipv4, 4);
}

int
ht_connect_qp(struct dr_qp *qp, enum dr_qp_type type, const union dr_gid *dgid, uint32_t dqpn,
	      uint32_t rq_psn, uint32_t sq_psn, unsigned int path_mtu)
{
	bool rc = type == DR_QPT_RC;
	struct dr_qp_init_attr ia;
	struct dr_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = dr_query_qp(qp, &a, DR_QP_STATE, &ia);
	if (ret != 0)
		return ret;
	if (a.qp_state != DR_QPS_RESET) {
		memset(&a, 0, sizeof(a));
		a.qp_state = DR_QPS_RESET;
		ret = dr_modify_qp(qp, &a, DR_QP_STATE);
		if (ret != 0)
			return ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = rc ? HT_REMOTE_ALL : DR_ACCESS_REMOTE_WRITE;
	ret = dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTR;
	a.path_mtu = (enum dr_mtu)path_mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid = *dgid;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;
	ret = dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN |
			   DR_QP_RQ_PSN | (rc ? DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER : 0));
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;              /* 67 ms */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	return dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_SQ_PSN |
			    (rc ? DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_MAX_QP_RD_ATOMIC : 0));
}

int
ht_wait_wc(const struct ht_opts *o, struct dr_cq *cq, struct dr_wc *wc, double deadline)
{
	for (;;) {
		int n = dr_poll_cq(cq, 1, wc);

		if (n != 0)
			return n;
		if (dr_app_now() > deadline)
			return 0;
		dr_app_engine_idle(&o->engine);
	}
}
