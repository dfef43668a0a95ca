/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The completer's own state across QP states (dr_qp_impl.h): reset, start
 * at RTS (IBA 9.7.1), the retry counters (re)set by modify_qp, stop at ERR.
 * Its step machine is dr_comp.c.
 */

#include <string.h>

#include "dr_handoff.h"
#include "dr_transport.h"

void
dr_comp_reset(struct dr_qp_impl *qp)
{
	memset(&qp->comp, 0, sizeof(qp->comp));
	/* selective repeat's record of what was resent (dr_ece.c's, the completer's to write): emptied */
	if (qp->sr != NULL)
		memset(qp->sr->resent_psn, 0, sizeof(qp->sr->resent_psn));
	/* rd_freed and rewind_seq are counters the requester follows: they never go back */
	qp->comp_out.acked_psn = 0;
	dr_ho_rnr_wait(qp, false);
}

void
dr_comp_start(struct dr_qp_impl *qp, uint32_t sq_psn)
{
	dr_comp_reset(qp);
	qp->comp.psn = sq_psn;        /* IBA 9.7.1: nothing acknowledged before sq_psn */
	dr_comp_rto_start(qp, sq_psn);
	dr_ho_comp_acked(qp);
}

void
dr_comp_set_retry(struct dr_qp_impl *qp, bool retry_cnt, bool rnr_retry)
{
	if (retry_cnt)
		qp->comp.retry_left = qp->attr.retry_cnt;
	if (rnr_retry)
		qp->comp.rnr_left = qp->attr.rnr_retry;
}

void
dr_comp_stop(struct dr_qp_impl *qp)
{
	/* IBA 10.3.1: in ERR nothing is retried any more */
	qp->comp.timeout_at = 0;
	qp->comp.rnr_at = 0;
	dr_ho_rnr_wait(qp, false);
}
