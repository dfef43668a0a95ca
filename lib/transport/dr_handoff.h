/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_HANDOFF_H
#define DR_HANDOFF_H

/*
 * The named hand-offs between a QP's stages. Each stage's state is set up,
 * reset and written by its own file only (dr_req.c, dr_resp.c, dr_comp.c);
 * what one stage must tell another crosses here, through a field with one
 * writer, stored with release and loaded with acquire, so that it holds
 * whichever lcores run the stages (one worker today; an rx, a tx and a
 * completion lcore in a pipeline). There are no locks and no read-modify-
 * write atomics: every field below is a single-writer value or counter.
 *
 *   requester -> completer
 *     sent PSN         dr_ho_req_sent() / dr_ho_sent_psn(): the PSN after the
 *                      newest request sent. Published after the WQE fields it
 *                      covers (first_psn, last_psn, npkts, sent_once, state),
 *                      so a completer that loaded it may read those. The
 *                      completer arms its ACK timer when it sees PSNs
 *                      outstanding (IBA 9.7.6.1.3). With it, when it went
 *                      out (dr_ho_sent_at(): the round trip's start).
 *     WQE progress     dr_wqe_set_state() / dr_wqe_req_state(): POSTED ->
 *                      ACTIVE -> SENT of a reliable WQE; DONE of a UC, UD or
 *                      local WQE (nothing acknowledges those); ERROR of a
 *                      local error. Written on the first transmission only:
 *                      a SENT WQE is the completer's to retire at any time,
 *                      so a go-back-N resends it without writing into it and
 *                      checks, before the frame goes, that the completer has
 *                      not retired it and the poster reused its slot
 *                      (dr_req.h: dr_req_resending(), dr_req_wqe_still_ours()).
 *   completer -> requester
 *     acked PSN        dr_ho_comp_acked() / dr_ho_acked_psn(): the oldest PSN
 *                      not yet acknowledged, for the send window (IBA 9.7.1).
 *     verdicts         dr_wqe_set_verdict() / dr_wqe_done() / dr_wqe_failed():
 *                      a reliable WQE acknowledged (DONE) or failed (ERROR),
 *                      written by the completer only; a rewind skips them.
 *     READ bytes       wqe->resp_bytes: bytes of a READ placed in order
 *                      (monotonic; a stale value only asks for more again).
 *     credits          dr_ho_rd_free() / dr_ho_rd_outstanding(): READ / atomic
 *                      slots given back (initiator depth, IBA 9.7.4.1.x); the
 *                      requester counts what it took, the completer what it
 *                      freed: outstanding = taken - freed.
 *     go back          dr_ho_rewind() / dr_ho_rewind_due(): retransmit from
 *                      the acked PSN (go-back-N, IBA 9.7.5.2.x; after an RNR
 *                      wait, 9.7.5.2.8). The requester rewinds itself at its
 *                      next run: a request, not a write into its state. It
 *                      answers with the request it acted on (req_out,
 *                      dr_ho_rewind_pending()): a local ACK timeout that
 *                      comes before the retransmission went out is not a
 *                      retry that failed.
 *     RNR wait         dr_ho_rnr_wait() / dr_ho_rnr_waiting(): nothing goes
 *                      out while an RNR NAK's timer runs (IBA 9.7.5.2.8).
 *
 * The responder hands nothing to the other two: its ACKs, NAKs and READ
 * responses are packets, and the completer learns from the peer's.
 *
 * Slow-path changes (modify_qp, the move to ERR, destroy) run while no stage
 * of the QP runs (on its worker, dr_engine_call()); they call each stage's
 * own start / stop functions (dr_req_start(), dr_comp_stop(), ...).
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_qp_impl.h"

/* ---- requester -> completer ---- */

static inline void
dr_ho_req_sent(struct dr_qp_impl *qp, uint64_t now)
{
	__atomic_store_n(&qp->req_out.sent_at, now, __ATOMIC_RELAXED);
	__atomic_store_n(&qp->req_out.sent_psn, qp->req.psn, __ATOMIC_RELEASE);
}

/* When the sent PSN last moved (the requester's run clock): after dr_ho_sent_psn(), as new as it. */
static inline uint64_t
dr_ho_sent_at(const struct dr_qp_impl *qp)
{
	return __atomic_load_n(&qp->req_out.sent_at, __ATOMIC_RELAXED);
}

static inline uint32_t
dr_ho_sent_psn(const struct dr_qp_impl *qp)
{
	return __atomic_load_n(&qp->req_out.sent_psn, __ATOMIC_ACQUIRE);
}

/* The requester's progress on a WQE (its own field). */
static inline void
dr_wqe_set_state(struct dr_send_wqe *wqe, enum dr_wqe_state st)
{
	__atomic_store_n(&wqe->state, st, __ATOMIC_RELEASE);
}

static inline enum dr_wqe_state
dr_wqe_req_state(const struct dr_send_wqe *wqe)
{
	return __atomic_load_n(&wqe->state, __ATOMIC_ACQUIRE);
}

/* Every packet of the WQE went out once (the requester's; the completer reads it after the state). */
static inline void
dr_wqe_set_sent_once(struct dr_send_wqe *wqe, bool v)
{
	__atomic_store_n(&wqe->sent_once, v, __ATOMIC_RELAXED);
}

static inline bool
dr_wqe_sent_once(const struct dr_send_wqe *wqe)
{
	return __atomic_load_n(&wqe->sent_once, __ATOMIC_RELAXED);
}

/* ---- completer -> requester ---- */

static inline void
dr_ho_comp_acked(struct dr_qp_impl *qp)
{
	__atomic_store_n(&qp->comp_out.acked_psn, qp->comp.psn, __ATOMIC_RELEASE);
}

static inline uint32_t
dr_ho_acked_psn(const struct dr_qp_impl *qp)
{
	return __atomic_load_n(&qp->comp_out.acked_psn, __ATOMIC_ACQUIRE);
}

/* The completer's verdict on a reliable WQE (DR_WQE_DONE or DR_WQE_ERROR, with @status). */
static inline void
dr_wqe_set_verdict(struct dr_send_wqe *wqe, enum dr_wqe_state v, enum dr_wc_status status)
{
	wqe->comp_status = status;
	__atomic_store_n(&wqe->verdict, (uint8_t)v, __ATOMIC_RELEASE);
}

/* Acknowledged as a whole: the verdict alone (comp_status is read for an ERROR only). */
static inline void
dr_wqe_set_done(struct dr_send_wqe *wqe)
{
	__atomic_store_n(&wqe->verdict, (uint8_t)DR_WQE_DONE, __ATOMIC_RELEASE);
}

/* Finished well: acknowledged (completer), or a UC / UD / local WQE that went out (requester). */
static inline bool
dr_wqe_done(const struct dr_send_wqe *wqe)
{
	return __atomic_load_n(&wqe->verdict, __ATOMIC_ACQUIRE) == DR_WQE_DONE ||
	       dr_wqe_req_state(wqe) == DR_WQE_DONE;
}

/* Failed: a completer verdict or a local error of the requester. */
static inline bool
dr_wqe_failed(const struct dr_send_wqe *wqe)
{
	return __atomic_load_n(&wqe->verdict, __ATOMIC_ACQUIRE) == DR_WQE_ERROR ||
	       dr_wqe_req_state(wqe) == DR_WQE_ERROR;
}

/* The status of a failed WQE. */
static inline enum dr_wc_status
dr_wqe_fail_status(const struct dr_send_wqe *wqe)
{
	return __atomic_load_n(&wqe->verdict, __ATOMIC_ACQUIRE) == DR_WQE_ERROR ? wqe->comp_status : wqe->status;
}

/* Bytes of a READ placed in order (the completer's; monotonic until the WQE completes). */
static inline void
dr_wqe_set_resp_bytes(struct dr_send_wqe *wqe, uint32_t n)
{
	__atomic_store_n(&wqe->resp_bytes, n, __ATOMIC_RELAXED);
}

static inline void
dr_ho_rd_free(struct dr_qp_impl *qp)
{
	__atomic_store_n(&qp->comp_out.rd_freed, qp->comp_out.rd_freed + 1, __ATOMIC_RELEASE);
}

/* READ / atomic requests outstanding: taken by the requester, not yet freed by the completer. */
static inline uint32_t
dr_ho_rd_outstanding(const struct dr_qp_impl *qp)
{
	int32_t n = (int32_t)(qp->req.rd_taken - __atomic_load_n(&qp->comp_out.rd_freed, __ATOMIC_ACQUIRE));

	return n > 0 ? (uint32_t)n : 0;
}

static inline void
dr_ho_rewind(struct dr_qp_impl *qp)
{
	__atomic_store_n(&qp->comp_out.rewind_seq, qp->comp_out.rewind_seq + 1, __ATOMIC_RELEASE);
}

/*
 * A go-back-N is due: true once per dr_ho_rewind() (the requester's view
 * moves on, and it says so: dr_ho_rewind_pending()).
 */
static inline bool
dr_ho_rewind_due(struct dr_qp_impl *qp)
{
	uint32_t seq = __atomic_load_n(&qp->comp_out.rewind_seq, __ATOMIC_ACQUIRE);

	if (seq == qp->req.rewind_seen)
		return false;
	qp->req.rewind_seen = seq;
	__atomic_store_n(&qp->req_out.rewind_done, seq, __ATOMIC_RELEASE);
	return true;
}

/*
 * Completer: its last go-back-N request has not been acted on yet (the
 * requester has not run since: its lcore had no turn, in pipeline mode).
 */
static inline bool
dr_ho_rewind_pending(const struct dr_qp_impl *qp)
{
	return __atomic_load_n(&qp->req_out.rewind_done, __ATOMIC_ACQUIRE) != qp->comp_out.rewind_seq;
}

static inline void
dr_ho_rnr_wait(struct dr_qp_impl *qp, bool waiting)
{
	__atomic_store_n(&qp->comp_out.rnr_wait, waiting, __ATOMIC_RELEASE);
}

static inline bool
dr_ho_rnr_waiting(const struct dr_qp_impl *qp)
{
	return __atomic_load_n(&qp->comp_out.rnr_wait, __ATOMIC_ACQUIRE);
}

#endif /* DR_HANDOFF_H */
