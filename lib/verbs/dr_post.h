/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * What both send post calls (dr_post_send(), the dr_wr_* builder's
 * dr_wr_complete()) do around the WRs they queue.
 */

#ifndef DR_POST_H
#define DR_POST_H

#include <stdbool.h>

#include "dr_engine.h"
#include "dr_engine_sched.h"
#include "dr_qp_impl.h"

/*
 * WRs were posted to @qp: the engine learns it. In inline mode, on RC and
 * UC (qp->post_kick), when the send queue was empty before them (every
 * earlier WR completed; @head0: its head before this post call; in inline
 * mode nothing completes meanwhile) they leave now (dr_engine_post_kick()).
 */
static inline void
dr_post_send_done(struct dr_qp_impl *qp, uint32_t head0)
{
	dr_sched_doorbell(qp);
	if (qp->post_kick && dr_sq_tail(&qp->sq) == head0)
		dr_engine_post_kick(qp);
}

/*
 * The WR opcodes (a bit each) the express post takes on a QP of type @t
 * whose WRs may carry @max_send_sge SGEs: WRITE and SEND, with or without
 * immediate, on RC and UC, and READ on RC; none on other QPs, nor when no
 * WR may carry an SGE (qp->xp_post_ops, set at creation).
 */
uint32_t dr_post_express_ops(enum dr_qp_type t, uint32_t max_send_sge);

#endif /* DR_POST_H */
