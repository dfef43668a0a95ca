/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_H
#define DR_VERBS_H

/**
 * @file
 * The verbs-shaped API: the objects, work requests, completions and rules of
 * libibverbs (ibv_post_send(3), ibv_post_recv(3), ibv_modify_qp(3),
 * ibv_reg_mr(3), ibv_poll_cq(3)) under the dr_ prefix.
 *
 * Enum values and attribute-mask bits equal their ibv_ counterparts, so a
 * verbs application ports by renaming. Objects are opaque except for the
 * public head of a QP and a CQ, which carries the operation pointers the
 * inline fast-path wrappers call (chosen once, when the object is created). The declarations live in one
 * header per object family (dr_verbs_types.h, dr_verbs_device.h, dr_verbs_pd.h,
 * dr_verbs_cq.h, dr_verbs_srq.h, dr_verbs_qp.h, dr_verbs_cc.h,
 * dr_verbs_counters.h, dr_verbs_io.h); applications include this one.
 *
 * See doc/guides/api.rst for what is implemented so far.
 */

#include "dr_verbs_types.h"
#include "dr_verbs_device.h"
#include "dr_verbs_pd.h"
#include "dr_verbs_cq.h"
#include "dr_verbs_srq.h"
#include "dr_verbs_qp.h"
#include "dr_verbs_cc.h"
#include "dr_verbs_counters.h"
#include "dr_verbs_io.h"

#endif /* DR_VERBS_H */
