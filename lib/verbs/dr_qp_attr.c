/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * QP state transitions and their attributes, as data (IBA vol. 1 10.3.1
 * figure 124 for the transitions, 11.2.5.3 table 91 for the required and
 * optional attributes; ibv_modify_qp(3) lists the same). Every state may go
 * to RESET and to ERR with no attribute; the table holds the others.
 */

#include <errno.h>

#include "dr_psn.h"
#include "dr_qp_attr.h"

/* QP types in the table: RC (and XRC's two halves, from RC's column), UC, UD, raw packet */
enum qp_class {
	QPC_UD,
	QPC_UC,
	QPC_RC,
	QPC_RAW,
	QPC_NUM,
};

struct qp_transition {
	bool valid;
	int req[QPC_NUM];
	int opt[QPC_NUM];
};

#define ALL_CLASSES(m) { [QPC_UD] = (m), [QPC_UC] = (m), [QPC_RC] = (m), [QPC_RAW] = (m) }

/* RTR->RTS, RTS->RTS and SQD->RTS take the same optional attributes (table 91) */
#define TO_RTS_OPTIONAL { \
	[QPC_UD] = DR_QP_CUR_STATE | DR_QP_QKEY, \
	[QPC_UC] = DR_QP_CUR_STATE | DR_QP_ALT_PATH | DR_QP_ACCESS_FLAGS | DR_QP_PATH_MIG_STATE, \
	[QPC_RC] = DR_QP_CUR_STATE | DR_QP_ALT_PATH | DR_QP_ACCESS_FLAGS | DR_QP_PATH_MIG_STATE | \
		   DR_QP_MIN_RNR_TIMER, \
}

static const struct qp_transition qp_transitions[DR_QPS_ERR + 1][DR_QPS_ERR + 1] = {
	[DR_QPS_RESET] = {
		[DR_QPS_RESET] = { .valid = true },
		[DR_QPS_INIT] = {
			.valid = true,
			.req = {
				[QPC_UD] = DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY,
				[QPC_UC] = DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS,
				[QPC_RC] = DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS,
				[QPC_RAW] = DR_QP_PORT,
			},
		},
	},
	[DR_QPS_INIT] = {
		[DR_QPS_INIT] = {
			.valid = true,
			.opt = {
				[QPC_UD] = DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY,
				[QPC_UC] = DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS,
				[QPC_RC] = DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS,
			},
		},
		[DR_QPS_RTR] = {
			.valid = true,
			.req = {
				[QPC_UC] = DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN,
				[QPC_RC] = DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN |
					   DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER,
			},
			.opt = {
				[QPC_UD] = DR_QP_PKEY_INDEX | DR_QP_QKEY,
				[QPC_UC] = DR_QP_ALT_PATH | DR_QP_ACCESS_FLAGS | DR_QP_PKEY_INDEX,
				[QPC_RC] = DR_QP_ALT_PATH | DR_QP_ACCESS_FLAGS | DR_QP_PKEY_INDEX,
			},
		},
	},
	[DR_QPS_RTR] = {
		[DR_QPS_RTS] = {
			.valid = true,
			.req = {
				[QPC_UD] = DR_QP_SQ_PSN,
				[QPC_UC] = DR_QP_SQ_PSN,
				[QPC_RC] = DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_SQ_PSN |
					   DR_QP_MAX_QP_RD_ATOMIC,
			},
			.opt = TO_RTS_OPTIONAL,
		},
	},
	[DR_QPS_RTS] = {
		[DR_QPS_RTS] = {
			.valid = true,
			.opt = TO_RTS_OPTIONAL,
		},
		[DR_QPS_SQD] = {
			.valid = true,
			.opt = ALL_CLASSES(DR_QP_EN_SQD_ASYNC_NOTIFY),
		},
	},
	[DR_QPS_SQD] = {
		[DR_QPS_RTS] = {
			.valid = true,
			.opt = TO_RTS_OPTIONAL,
		},
		[DR_QPS_SQD] = {
			.valid = true,
			.opt = {
				[QPC_UD] = DR_QP_PKEY_INDEX | DR_QP_QKEY,
				[QPC_UC] = DR_QP_AV | DR_QP_ALT_PATH | DR_QP_ACCESS_FLAGS | DR_QP_PKEY_INDEX |
					   DR_QP_PATH_MIG_STATE,
				[QPC_RC] = DR_QP_PORT | DR_QP_AV | DR_QP_TIMEOUT | DR_QP_RETRY_CNT |
					   DR_QP_RNR_RETRY | DR_QP_MAX_QP_RD_ATOMIC |
					   DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_ALT_PATH | DR_QP_ACCESS_FLAGS |
					   DR_QP_PKEY_INDEX | DR_QP_MIN_RNR_TIMER | DR_QP_PATH_MIG_STATE,
			},
		},
	},
	[DR_QPS_SQE] = {
		/* a send queue error leaves UD and UC QPs usable (IBA 10.3.1.3); RC goes to ERR */
		[DR_QPS_RTS] = {
			.valid = true,
			.opt = {
				[QPC_UD] = DR_QP_CUR_STATE | DR_QP_QKEY,
				[QPC_UC] = DR_QP_CUR_STATE | DR_QP_ACCESS_FLAGS,
			},
		},
	},
};

static int
qp_class(enum dr_qp_type qpt)
{
	switch (qpt) {
	case DR_QPT_RC:
		return QPC_RC;
	case DR_QPT_UC:
		return QPC_UC;
	case DR_QPT_UD:
		return QPC_UD;
	case DR_QPT_RAW_PACKET:
		return QPC_RAW;
	case DR_QPT_XRC_SEND:
	case DR_QPT_XRC_RECV:
		return QPC_RC;          /* RC's transitions; xrc_adjust() gives their own attributes */
	default:
		return -1;
	}
}

/*
 * XRC's two halves (IBA 11.2.5.3 table 91 XRC columns; ib_modify_qp_is_ok()'s
 * XRC_INI / XRC_TGT entries): the initiator (XRC_SEND) has no responder, so
 * INIT->RTR takes no max_dest_rd_atomic / min_rnr_timer; the target
 * (XRC_RECV) sends nothing but responses, so RTR->RTS needs only the timeout
 * and the SQ PSN. Other transitions are RC's.
 */
static void
xrc_adjust(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next, int *req, int *opt)
{
	const int resp_only = DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER;
	const int req_only = DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_MAX_QP_RD_ATOMIC;

	if (qpt == DR_QPT_XRC_SEND && cur == DR_QPS_INIT && next == DR_QPS_RTR) {
		*req &= ~resp_only;
		*opt &= ~resp_only;
	} else if (qpt == DR_QPT_XRC_RECV && cur == DR_QPS_RTR && next == DR_QPS_RTS) {
		*req &= ~req_only;
		*opt &= ~req_only;
	} else if (qpt == DR_QPT_XRC_SEND && next == DR_QPS_RTS) {
		*opt &= ~DR_QP_MIN_RNR_TIMER;
	} else if (qpt == DR_QPT_XRC_RECV && (next == DR_QPS_RTS || next == DR_QPS_SQD)) {
		*opt &= ~req_only;
	}
}

static const struct qp_transition *
transition(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next, int *cls)
{
	*cls = qp_class(qpt);
	if (*cls < 0 || (unsigned int)cur > DR_QPS_ERR || (unsigned int)next > DR_QPS_ERR)
		return NULL;
	return &qp_transitions[cur][next];
}

bool
dr_qp_transition_valid(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next)
{
	int cls;
	const struct qp_transition *t = transition(qpt, cur, next, &cls);

	if (t == NULL)
		return false;
	/* any state may be reset or moved to the error state (IBA 10.3.1) */
	if (next == DR_QPS_RESET || next == DR_QPS_ERR)
		return true;
	/* SQE -> RTS exists for UD and UC only */
	if (cur == DR_QPS_SQE && cls != QPC_UD && cls != QPC_UC)
		return false;
	return t->valid;
}

int
dr_qp_attr_required(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next)
{
	int cls, req, opt;
	const struct qp_transition *t = transition(qpt, cur, next, &cls);

	if (t == NULL)
		return 0;
	req = t->req[cls];
	opt = t->opt[cls];
	xrc_adjust(qpt, cur, next, &req, &opt);
	return req;
}

int
dr_qp_attr_optional(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next)
{
	int cls, req, opt;
	const struct qp_transition *t = transition(qpt, cur, next, &cls);

	if (t == NULL)
		return 0;
	req = t->req[cls];
	opt = t->opt[cls];
	xrc_adjust(qpt, cur, next, &req, &opt);
	return opt;
}

int
dr_qp_attr_check_mask(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next, int mask)
{
	int req, allowed;

	if (!dr_qp_transition_valid(qpt, cur, next))
		return -EINVAL;
	req = dr_qp_attr_required(qpt, cur, next);
	allowed = req | dr_qp_attr_optional(qpt, cur, next) | DR_QP_STATE;
	if ((mask & req) != req)
		return -EINVAL;
	if (mask & ~allowed)
		return -EINVAL;
	return 0;
}

#define DR_QP_ACCESS_ALL (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | \
			  DR_ACCESS_REMOTE_ATOMIC | DR_ACCESS_FLUSH_GLOBAL | DR_ACCESS_FLUSH_PERSISTENT)

static bool
ah_valid(const struct dr_ah_attr *ah, unsigned int gid_tbl_len)
{
	/* RoCEv2 addresses are always global (A17.4.5): a GRH-less AV cannot be routed */
	return ah->is_global && ah->grh.sgid_index < gid_tbl_len &&
	       ah->grh.flow_label <= 0xFFFFF && ah->port_num == 1;
}

int
dr_qp_attr_check_values(const struct dr_qp_attr *attr, int mask, unsigned int gid_tbl_len)
{
	if ((mask & DR_QP_STATE) && (unsigned int)attr->qp_state > DR_QPS_ERR)
		return -EINVAL;
	if ((mask & DR_QP_CUR_STATE) && (unsigned int)attr->cur_qp_state > DR_QPS_ERR)
		return -EINVAL;
	if ((mask & DR_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & DR_QP_PKEY_INDEX) && attr->pkey_index != 0)
		return -EINVAL;     /* one P_Key: the default partition */
	if ((mask & DR_QP_ACCESS_FLAGS) && (attr->qp_access_flags & ~DR_QP_ACCESS_ALL))
		return -EINVAL;
	if ((mask & DR_QP_PATH_MTU) && dr_mtu_bytes(attr->path_mtu) == 0)
		return -EINVAL;
	if ((mask & DR_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & DR_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & DR_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & DR_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;     /* IBA table 45: five-bit code */
	if ((mask & DR_QP_RQ_PSN) && attr->rq_psn > DR_PSN_MASK)
		return -EINVAL;
	if ((mask & DR_QP_SQ_PSN) && attr->sq_psn > DR_PSN_MASK)
		return -EINVAL;
	if ((mask & DR_QP_DEST_QPN) && attr->dest_qp_num > DR_PSN_MASK)
		return -EINVAL;     /* QPNs are 24-bit too */
	if ((mask & DR_QP_AV) && !ah_valid(&attr->ah_attr, gid_tbl_len))
		return -EINVAL;
	if ((mask & DR_QP_ALT_PATH) && !ah_valid(&attr->alt_ah_attr, gid_tbl_len))
		return -EINVAL;
	if ((mask & DR_QP_PATH_MIG_STATE) && (unsigned int)attr->path_mig_state > DR_MIG_ARMED)
		return -EINVAL;
	return 0;
}

const char *
dr_qp_state_name(enum dr_qp_state s)
{
	static const char *const names[] = {
		[DR_QPS_RESET] = "RESET", [DR_QPS_INIT] = "INIT", [DR_QPS_RTR] = "RTR",
		[DR_QPS_RTS] = "RTS", [DR_QPS_SQD] = "SQD", [DR_QPS_SQE] = "SQE",
		[DR_QPS_ERR] = "ERR", [DR_QPS_UNKNOWN] = "UNKNOWN",
	};

	return (unsigned int)s <= DR_QPS_UNKNOWN ? names[s] : "INVALID";
}
