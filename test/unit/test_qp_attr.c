/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* QP state transitions and their attributes (IBA 10.3.1, 11.2.5.3 table 91; ibv_modify_qp(3)). */

#include <errno.h>

#include "dr_qp_attr.h"
#include "dr_test.h"

#define RC_INIT (DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS)
#define RC_RTR (DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN | \
		DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER)
#define RC_RTS (DR_QP_STATE | DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_SQ_PSN | \
		DR_QP_MAX_QP_RD_ATOMIC)

static void
test_rc_path(void)
{
	/* the path every RC application takes (ibv_rc_pingpong's masks) */
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RESET, DR_QPS_INIT, RC_INIT), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_INIT, DR_QPS_RTR, RC_RTR), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RTR, DR_QPS_RTS, RC_RTS), 0);

	/* each required attribute, left out, is an error */
	for (int bit = 0; bit < 26; bit++) {
		int b = 1 << bit;

		if (RC_INIT & b & ~DR_QP_STATE)
			CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RESET, DR_QPS_INIT, RC_INIT & ~b), -EINVAL);
		if (RC_RTR & b & ~DR_QP_STATE)
			CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_INIT, DR_QPS_RTR, RC_RTR & ~b), -EINVAL);
		if (RC_RTS & b & ~DR_QP_STATE)
			CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RTR, DR_QPS_RTS, RC_RTS & ~b), -EINVAL);
	}
	/* attributes a transition does not take are errors too */
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RESET, DR_QPS_INIT, RC_INIT | DR_QP_QKEY), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_INIT, DR_QPS_RTR, RC_RTR | DR_QP_SQ_PSN), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RTR, DR_QPS_RTS, RC_RTS | DR_QP_PATH_MTU), -EINVAL);
	/* optional ones are accepted */
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_INIT, DR_QPS_RTR, RC_RTR | DR_QP_ACCESS_FLAGS), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RTR, DR_QPS_RTS, RC_RTS | DR_QP_MIN_RNR_TIMER), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RTS, DR_QPS_RTS, DR_QP_MIN_RNR_TIMER), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RTS, DR_QPS_SQD, DR_QP_STATE | DR_QP_EN_SQD_ASYNC_NOTIFY), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_SQD, DR_QPS_SQD, DR_QP_TIMEOUT | DR_QP_AV), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_SQD, DR_QPS_RTS, DR_QP_STATE), 0);
}

static void
test_other_types(void)
{
	/* UD: Q_Key at INIT, nothing at RTR, SQ PSN at RTS (ibv_ud_pingpong) */
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UD, DR_QPS_RESET, DR_QPS_INIT,
				       DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UD, DR_QPS_RESET, DR_QPS_INIT,
				       DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UD, DR_QPS_INIT, DR_QPS_RTR, DR_QP_STATE), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UD, DR_QPS_INIT, DR_QPS_RTR, DR_QP_STATE | DR_QP_AV), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UD, DR_QPS_RTR, DR_QPS_RTS, DR_QP_STATE | DR_QP_SQ_PSN), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UD, DR_QPS_RTR, DR_QPS_RTS, DR_QP_STATE), -EINVAL);
	/* UC: no RD atomics, no RNR, no retry */
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UC, DR_QPS_INIT, DR_QPS_RTR,
				       DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UC, DR_QPS_INIT, DR_QPS_RTR, RC_RTR), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UC, DR_QPS_RTR, DR_QPS_RTS, DR_QP_STATE | DR_QP_SQ_PSN), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_UC, DR_QPS_RTR, DR_QPS_RTS, RC_RTS), -EINVAL);
	/* SQE -> RTS for UD and UC only (IBA 10.3.1.3) */
	CHECK(dr_qp_transition_valid(DR_QPT_UD, DR_QPS_SQE, DR_QPS_RTS));
	CHECK(dr_qp_transition_valid(DR_QPT_UC, DR_QPS_SQE, DR_QPS_RTS));
	CHECK(!dr_qp_transition_valid(DR_QPT_RC, DR_QPS_SQE, DR_QPS_RTS));
	/* raw packet: only the port */
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RAW_PACKET, DR_QPS_RESET, DR_QPS_INIT, DR_QP_STATE | DR_QP_PORT), 0);
	/* XRC (table 91's XRC columns, ib_modify_qp_is_ok()): the initiator has no responder attributes... */
	CHECK(dr_qp_transition_valid(DR_QPT_XRC_SEND, DR_QPS_RESET, DR_QPS_INIT));
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_XRC_SEND, DR_QPS_RESET, DR_QPS_INIT,
				       DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_XRC_SEND, DR_QPS_INIT, DR_QPS_RTR, RC_RTR), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_XRC_SEND, DR_QPS_INIT, DR_QPS_RTR,
				       DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_XRC_SEND, DR_QPS_RTR, DR_QPS_RTS, RC_RTS), 0);
	/* ... the target none of the requester's */
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_XRC_RECV, DR_QPS_INIT, DR_QPS_RTR, RC_RTR), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_XRC_RECV, DR_QPS_RTR, DR_QPS_RTS, RC_RTS), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_XRC_RECV, DR_QPS_RTR, DR_QPS_RTS,
				       DR_QP_STATE | DR_QP_TIMEOUT | DR_QP_SQ_PSN), 0);
	CHECK(!dr_qp_transition_valid(DR_QPT_XRC_RECV, DR_QPS_SQE, DR_QPS_RTS));
	CHECK(!dr_qp_transition_valid((enum dr_qp_type)77, DR_QPS_RESET, DR_QPS_INIT));
}

static void
test_transitions(void)
{
	static const enum dr_qp_type types[] = { DR_QPT_RC, DR_QPT_UC, DR_QPT_UD, DR_QPT_RAW_PACKET };
	/* IBA figure 124, without RESET/ERR targets (always valid) */
	static const bool edge[DR_QPS_ERR + 1][DR_QPS_ERR + 1] = {
		[DR_QPS_RESET] = { [DR_QPS_RESET] = true, [DR_QPS_INIT] = true },
		[DR_QPS_INIT] = { [DR_QPS_INIT] = true, [DR_QPS_RTR] = true },
		[DR_QPS_RTR] = { [DR_QPS_RTS] = true },
		[DR_QPS_RTS] = { [DR_QPS_RTS] = true, [DR_QPS_SQD] = true },
		[DR_QPS_SQD] = { [DR_QPS_RTS] = true, [DR_QPS_SQD] = true },
		[DR_QPS_SQE] = { [DR_QPS_RTS] = true },
	};

	for (unsigned int t = 0; t < RTE_DIM(types); t++)
		for (int c = DR_QPS_RESET; c <= DR_QPS_ERR; c++)
			for (int n = DR_QPS_RESET; n <= DR_QPS_ERR; n++) {
				bool want = n == DR_QPS_RESET || n == DR_QPS_ERR || edge[c][n];

				if (c == DR_QPS_SQE && n == DR_QPS_RTS && types[t] == DR_QPT_RC)
					want = false;
				if (c == DR_QPS_SQE && n == DR_QPS_RTS && types[t] == DR_QPT_RAW_PACKET)
					want = false;
				CHECK_MSG(dr_qp_transition_valid(types[t], c, n) == want, "type %d %s -> %s",
					  types[t], dr_qp_state_name(c), dr_qp_state_name(n));
			}
	/* to RESET and to ERR: no attribute besides the state */
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RTS, DR_QPS_ERR, DR_QP_STATE), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_ERR, DR_QPS_RESET, DR_QP_STATE), 0);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RTS, DR_QPS_ERR, DR_QP_STATE | DR_QP_TIMEOUT), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, DR_QPS_RESET, DR_QPS_RTS, RC_RTS), -EINVAL);
	CHECK_EQ(dr_qp_attr_check_mask(DR_QPT_RC, (enum dr_qp_state)9, DR_QPS_RTS, RC_RTS), -EINVAL);
	CHECK(strcmp(dr_qp_state_name(DR_QPS_RTS), "RTS") == 0);
	CHECK(strcmp(dr_qp_state_name((enum dr_qp_state)42), "INVALID") == 0);
}

static void
test_values(void)
{
	struct dr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.path_mtu = DR_MTU_1024;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	CHECK_EQ(dr_qp_attr_check_values(&a, RC_RTR | DR_QP_PORT, 2), 0);
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_AV, 1), -EINVAL);      /* GID index out of the table */
	a.ah_attr.is_global = 0;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_AV, 2), -EINVAL);      /* RoCE needs a GRH */
	a.ah_attr.is_global = 1;
	a.path_mtu = (enum dr_mtu)6;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_PATH_MTU, 2), -EINVAL);
	a.path_mtu = DR_MTU_4096;
	CHECK_EQ(dr_mtu_bytes(a.path_mtu), 4096);
	CHECK_EQ(dr_mtu_bytes(DR_MTU_256), 256);
	a.port_num = 2;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_PORT, 2), -EINVAL);
	a.port_num = 1;
	a.timeout = 32;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_TIMEOUT, 2), -EINVAL);
	a.timeout = 31;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_TIMEOUT, 2), 0);
	a.retry_cnt = 8;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_RETRY_CNT, 2), -EINVAL);
	a.rnr_retry = 8;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_RNR_RETRY, 2), -EINVAL);
	a.min_rnr_timer = 32;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_MIN_RNR_TIMER, 2), -EINVAL);
	a.sq_psn = 0x1000000;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_SQ_PSN, 2), -EINVAL);
	a.rq_psn = 0xFFFFFF;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_RQ_PSN, 2), 0);
	a.dest_qp_num = 0x1000000;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_DEST_QPN, 2), -EINVAL);
	a.qp_access_flags = DR_ACCESS_REMOTE_WRITE | DR_ACCESS_MW_BIND;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_ACCESS_FLAGS, 2), -EINVAL);
	a.qp_access_flags = DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_ATOMIC;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_ACCESS_FLAGS, 2), 0);
	a.pkey_index = 1;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_PKEY_INDEX, 2), -EINVAL);
	a.ah_attr.grh.flow_label = 0x100000;
	CHECK_EQ(dr_qp_attr_check_values(&a, DR_QP_AV, 2), -EINVAL);
	CHECK(strcmp(dr_wc_status_str(DR_WC_RETRY_EXC_ERR), "transport retry counter exceeded") == 0);
	CHECK(strcmp(dr_wc_status_str((enum dr_wc_status)99), "unknown") == 0);
}

int
main(void)
{
	test_rc_path();
	test_other_types();
	test_transitions();
	test_values();
	return dr_test_report("test_qp_attr");
}
