/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The completer's last stage: send WQEs the step machine (dr_comp.c) marked
 * DONE or failed leave the send queue in order and become completions
 * (IBA 10.7.3.1 and 11.4.2; rxe_comp.c's do_complete()). Unsignaled
 * successful WRs free their slot silently; an error completes even an
 * unsignaled WR and moves the QP to ERR; a full CQ is a CQ overrun.
 */

#include <string.h>

#include "dr_comp.h"
#include "dr_transport.h"
#include "dr_verbs_priv.h"

/* Fill the completion of a send WQE (rxe make_send_cqe()). */
static void
comp_make_wc(const struct dr_qp_impl *qp, const struct dr_send_wqe *wqe, enum dr_wc_status status,
	     struct dr_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wqe->wr_id;
	wc->status = status;
	wc->opcode = dr_wr_wc_opcode(wqe->opcode);
	wc->byte_len = wqe->length;
	wc->qp_num = qp->pub.qp_num;
	if (wqe->opcode == DR_WR_SEND_WITH_IMM || wqe->opcode == DR_WR_RDMA_WRITE_WITH_IMM)
		wc->wc_flags = DR_WC_WITH_IMM;
}

/*
 * The oldest WQE is a READ that took part of its responses in order ahead
 * of an older WQE: its next response is the expected PSN.
 */
static void
comp_advance_prefix(struct dr_qp_impl *qp)
{
	struct dr_sq *sq = &qp->sq;
	struct dr_send_wqe *w;

	if (sq->tail == dr_sq_head(sq))
		return;
	w = dr_sq_wqe(sq, sq->tail);
	if (w->opcode == DR_WR_RDMA_READ && dr_wqe_all_sent(w) && w->resp_bytes != 0)
		dr_comp_advance(qp, dr_read_next_psn(qp, w));
}

bool
dr_comp_complete_at_tail(struct dr_qp_impl *qp, struct dr_send_wqe *wqe, uint32_t t)
{
	struct dr_wc wc;

	comp_make_wc(qp, wqe, DR_WC_SUCCESS, &wc);
	dr_sq_tail_set(&qp->sq, t + 1);
	if (likely(dr_cq_push(dr_cq_impl(qp->pub.send_cq), &wc) == 0))
		return true;
	/* CQ overrun: IBA 11.4.2.1, the QP goes to ERR (rxe class G) */
	if (dr_qp_reliable(qp) && dr_wqe_sent_once(wqe))
		dr_comp_advance(qp, dr_psn_add(wqe->last_psn, 1));
	dr_qp_fail(qp, false);
	return false;
}

/*
 * From @t, the run of unsignaled WRs that finished well (acknowledged, or a
 * UC / UD / local WQE that went out) and hold no READ slot: they leave the
 * queue silently (ibv_post_send(3)), in one tight pass with the ring in
 * registers. Returns the first WQE past the run; *@sent: the last of the run
 * that went out in full (its PSN acknowledges the run), or NULL.
 */
static inline uint32_t
comp_silent_run(const struct dr_sq *sq, uint32_t t, uint32_t head, const struct dr_send_wqe **sent)
{
	const struct dr_send_wqe *ring = sq->wqe, *last = NULL;
	const uint32_t mask = sq->size - 1;

	for (; t != head; t++) {
		const struct dr_send_wqe *wqe = &ring[t & mask];

		if ((__atomic_load_n(&wqe->verdict, __ATOMIC_ACQUIRE) != DR_WQE_DONE &&
		     dr_wqe_req_state(wqe) != DR_WQE_DONE) ||
		    (wqe->send_flags & DR_SEND_SIGNALED) != 0 || wqe->rd_slot_held)
			break;
		if (dr_wqe_sent_once(wqe))
			last = wqe;
	}
	*sent = last;
	return t;
}

/*
 * The done and failed WQEs at the SQ's tail leave it in order. The tail
 * moves before each completion is pushed (the wc is a copy: a WR posted
 * right after the poll must not find the queue full) and once after a run
 * of silent ones; comp.psn moves once for the run.
 */
int
dr_comp_progress(struct dr_qp_impl *qp)
{
	struct dr_sq *sq = &qp->sq;
	struct dr_cq_impl *cq = dr_cq_impl(qp->pub.send_cq);
	bool reliable = dr_qp_reliable(qp), acked = false;
	uint32_t t = sq->tail, head = dr_sq_head(sq), acked_next = 0;
	int n = 0;

	for (; t != head; t++) {
		const struct dr_send_wqe *sent;
		struct dr_send_wqe *wqe;
		struct dr_wc wc;

		t = comp_silent_run(sq, t, head, &sent);
		if (reliable && sent != NULL) {
			acked_next = dr_psn_add(sent->last_psn, 1);
			acked = true;
		}
		if (t == head)
			break;
		wqe = dr_sq_wqe(sq, t);
		if (dr_wqe_done(wqe)) {
			/* a READ done ahead of an older one (comp_read_ahead()) is acknowledged now */
			if (reliable && dr_wqe_sent_once(wqe)) {
				acked_next = dr_psn_add(wqe->last_psn, 1);
				acked = true;
			}
			if (wqe->rd_slot_held) {
				wqe->rd_slot_held = false;
				dr_ho_rd_free(qp);
			}
			/* unsignaled successful WRs free their slot silently (ibv_post_send(3)) */
			if (!(wqe->send_flags & DR_SEND_SIGNALED))
				continue;
			if (!dr_comp_complete_at_tail(qp, wqe, t)) {
				if (acked)
					dr_comp_advance(qp, acked_next);
				return n;
			}
			n++;
			continue;
		}
		if (dr_wqe_failed(wqe)) {
			/* IBA 10.7.3.1: an error completes even an unsignaled WR */
			comp_make_wc(qp, wqe, dr_wqe_fail_status(wqe), &wc);
			dr_sq_tail_set(sq, t + 1);
			if (dr_cq_push(cq, &wc) == 0)
				n++;
			if (acked)
				dr_comp_advance(qp, acked_next);
			dr_qp_fail(qp, false);
			return n;
		}
		break;
	}
	if (t != sq->tail)
		dr_sq_tail_set(sq, t);
	if (acked)
		dr_comp_advance(qp, acked_next);
	if (reliable)
		comp_advance_prefix(qp);
	return n;
}
