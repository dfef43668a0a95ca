/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The completer's walk of a coalesced ACK (IBA 9.7.5.1.x / 9.7.5.2.1): the
 * SENDs and WRITEs it acknowledges, in one pass. Called by dr_comp.c for
 * every response with an AETH before its steps.
 */

#include <string.h>

#include "dr_comp.h"
#include "dr_psn.h"
#include "dr_transport.h"

/*
 * No verdict yet and not a READ or an atomic: both bytes zero, read as one
 * word (side by side in struct dr_send_wqe; verdict is this thread's own,
 * rd_atomic the post's, published before the state the caller acquired).
 */
static inline bool
ack_run_plain(const struct dr_send_wqe *wqe)
{
	uint16_t v;

	memcpy(&v, (const uint8_t *)wqe + offsetof(struct dr_send_wqe, verdict), sizeof(v));
	return v == 0;
}

/*
 * The run of a coalesced ACK (IBA 9.7.5.1.x / 9.7.5.2.1): from SQ index
 * @from, the SENDs and WRITEs sent in full whose last PSN is before the
 * response's @psn are acknowledged as a whole, what GET_WQE, CHECK_PSN and
 * COMPLETE_WQE would do for each of them, in one pass (O(1) per WQE: a PSN
 * compare and its verdict): comp.psn moved once past the last of them; the
 * caller takes the returned index and makes the progress once
 * (dr_comp.c's comp_flush_progress()). The unsignaled ones at the SQ's
 * tail leave the queue in the same pass (the tail moved once, after the
 * last read of them), the rest are marked DONE for dr_comp_progress(),
 * which completes them in order. It stops at the first WQE that is
 * anything else (done already, failed, unsent or partly sent, a READ or an
 * atomic, the one the PSN falls in): the steps take it from there. Not a
 * path beside the steps but their walk: every response with an AETH and no
 * payload goes through it, in every mode.
 */
uint32_t
dr_comp_ack_run(struct dr_qp_impl *qp, uint32_t from, uint32_t psn)
{
	struct dr_sq *sq = &qp->sq;
	/* the ring and the PSN in registers: the stores below would reload them */
	struct dr_send_wqe *const ring = sq->wqe;
	const uint32_t mask = sq->size - 1;
	/* from the tail, the WQEs leave the queue as they are acknowledged; else they are marked */
	const bool at_tail = from == sq->tail;
	uint32_t head = dr_sq_head(sq), idx = from, next = 0;

	/* the ring's slots in runs that do not wrap: within one, a pointer add per WQE
	 * (the index is the run's start plus the pointer's distance, counted on exit) */
	while (idx != head) {
		struct dr_send_wqe *const first = &ring[idx & mask];
		struct dr_send_wqe *const stop = first + RTE_MIN(head - idx, sq->size - (idx & mask));
		struct dr_send_wqe *wqe;

		for (wqe = first; wqe != stop; wqe++) {
			uint32_t last;

			/* the state first: its acquire orders the reads of what the requester wrote before it */
			if (dr_wqe_req_state(wqe) != DR_WQE_SENT)
				break;
			last = wqe->last_psn;
			if (!dr_psn_after(psn, last) || !ack_run_plain(wqe))
				break;
			next = last;          /* read before the slot is freed: the poster may reuse it at once */
			if (!at_tail) {
				dr_wqe_set_done(wqe);
				continue;
			}
			/* it leaves the queue now, silently or with its completion (dr_comp_progress()'s rules) */
			if ((wqe->send_flags & DR_SEND_SIGNALED) &&
			    !dr_comp_complete_at_tail(qp, wqe, idx + (uint32_t)(wqe - first))) {
				/* the CQ overran, the QP failed: this one has left, the flush takes the rest */
				idx += (uint32_t)(wqe - first) + 1;
				goto walked;
			}
		}
		idx += (uint32_t)(wqe - first);
		if (wqe != stop)
			break;
	}
walked:
	if (idx == from)
		return idx;
	/* after every read of the WQEs it frees: the poster may reuse their slots at once */
	if (at_tail && sq->tail != idx)
		dr_sq_tail_set(sq, idx);
	dr_comp_advance(qp, dr_psn_add(next, 1));
	return idx;
}
