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
 * The oldest READ's responses after a lost one (dr_comp_read_hold.c).
 * Hold the response at @psn of @wqe, beyond its first missing one: placed
 * at its offset. DR_WC_SUCCESS (held, or not one to hold: too far, held
 * already) or the completion status of a bad response.
 */
enum dr_wc_status dr_read_hold_put(struct dr_qp_impl *qp, struct dr_send_wqe *wqe, uint32_t psn,
				   const struct rte_mbuf *m, const struct dr_pkt_info *pi);
/* The held responses that follow @wqe's bytes in order now: taken; the bytes they add. */
uint32_t dr_read_hold_take(struct dr_qp_impl *qp, struct dr_send_wqe *wqe);
/*
 * The bytes to ask @wqe for again from its first missing one: up to the
 * first response held after it, else to its end, at most qp->window
 * packets. Remembered as asked.
 */
uint32_t dr_read_hold_gap(struct dr_qp_impl *qp, struct dr_send_wqe *wqe);
/* Ask READ @wqe again for its first gap (dr_read_hold_gap()), counted in rereads: 0 or -errno. */
int dr_read_hold_ask(struct dr_qp_impl *qp, struct dr_send_wqe *wqe);
/* What the last gap asked of @wqe is all in (and @wqe is not): the next gap may be asked. */
bool dr_read_hold_answered(const struct dr_qp_impl *qp, const struct dr_send_wqe *wqe);
/* A go-back-N from comp.psn (dr_ho_rewind()): it asks for all the rest, no gap is asked any more. */
void dr_comp_rewind(struct dr_qp_impl *qp);
/* The oldest WQE that is not DONE (the one comp.psn and a timeout wait for), or NULL; dr_comp.c. */
struct dr_send_wqe *dr_comp_oldest_pending(struct dr_qp_impl *qp);
/*
 * The oldest WQE awaited is a READ sent in full: ask it again for its first
 * gap (dr_read_hold_gap()) instead of a go-back-N. true when that went out.
 */
bool dr_comp_reread_oldest(struct dr_qp_impl *qp);

/*
 * The WQEs from SQ index @from that a coalesced ACK of PSN @psn
 * acknowledges as a whole, walked in one pass (dr_comp_ack_run.c): the
 * index of the first it leaves to the completer's steps (@from: none).
 * comp.psn has moved past them; the progress (retry counters, timer) is
 * the caller's to make.
 */
uint32_t dr_comp_ack_run(struct dr_qp_impl *qp, uint32_t from, uint32_t psn);

/*
 * The signaled WQE @wqe at the SQ's tail @t finished well: the tail moves
 * past it and its completion is pushed (dr_comp_cqe.c). false: the CQ
 * overran and the QP went to ERR (IBA 11.4.2.1).
 */
bool dr_comp_complete_at_tail(struct dr_qp_impl *qp, struct dr_send_wqe *wqe, uint32_t t);

#endif /* DR_COMP_H */
