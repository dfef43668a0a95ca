/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_QP_ATTR_H
#define DR_QP_ATTR_H

/*
 * The QP state machine's rules (IBA vol. 1, 10.3.1 and 11.2.5.3 "Modify QP";
 * ibv_modify_qp(3)): which transitions exist, which attributes each requires
 * and which it accepts, per QP type, and the ranges of the attribute values.
 */

#include <stdbool.h>

#include "dr_verbs.h"

/*
 * Check a dr_modify_qp() request on a QP of type @qpt in state @cur.
 * @next is attr->qp_state when @mask has DR_QP_STATE, else @cur.
 * Returns 0, or -EINVAL when the transition does not exist, a required
 * attribute is missing or an attribute the transition does not take is set.
 */
int dr_qp_attr_check_mask(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next,
			  int mask);

/* Required attributes of @cur -> @next for @qpt (for messages and tests). */
int dr_qp_attr_required(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next);

/* Optional attributes of @cur -> @next for @qpt. */
int dr_qp_attr_optional(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next);

/* True when @cur -> @next exists for @qpt. */
bool dr_qp_transition_valid(enum dr_qp_type qpt, enum dr_qp_state cur, enum dr_qp_state next);

/*
 * Check the values of the attributes selected by @mask: ranges of path_mtu,
 * timeout, retry counts, RNR timer, PSNs, QPN, access flags, port, GID index
 * (< @gid_tbl_len) and that RoCE address vectors are global.
 * Returns 0 or -EINVAL.
 */
int dr_qp_attr_check_values(const struct dr_qp_attr *attr, int mask, unsigned int gid_tbl_len);

/* Name of a QP state ("RESET", "INIT", ...). */
const char *dr_qp_state_name(enum dr_qp_state s);

#endif /* DR_QP_ATTR_H */
