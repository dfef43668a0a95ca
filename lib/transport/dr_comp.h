/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * What the completer's step machine (dr_comp.c) and its completions
 * (dr_comp_cqe.c) share: private to the completer's files.
 */

#ifndef DR_COMP_H
#define DR_COMP_H

#include <stdbool.h>
#include <stdint.h>

#include "dr_handoff.h"
#include "dr_psn.h"
#include "dr_transport.h"

/* Every packet of the WQE went out at least once (a rewind makes it ACTIVE again, not unsent). */
static inline bool
dr_wqe_all_sent(const struct dr_send_wqe *wqe)
{
	enum dr_wqe_state st = dr_wqe_req_state(wqe);

	return st == DR_WQE_SENT || (st == DR_WQE_ACTIVE && dr_wqe_sent_once(wqe));
}

/* comp.psn moves forward only: the requester's send window moves with it. */
static inline void
dr_comp_advance(struct dr_qp_impl *qp, uint32_t next)
{
	if (dr_psn_after(next, qp->comp.psn)) {
		qp->comp.psn = next;
		dr_ho_comp_acked(qp);
	}
}

/*
 * The signaled WQE @wqe at the SQ's tail @t finished well: the tail moves
 * past it and its completion is pushed (dr_comp_cqe.c). false: the CQ
 * overran and the QP went to ERR (IBA 11.4.2.1).
 */
bool dr_comp_complete_at_tail(struct dr_qp_impl *qp, struct dr_send_wqe *wqe, uint32_t t);

#endif /* DR_COMP_H */
