/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The RC completer (IBA vol. 1, 9.7.5.2 and 9.7.6): matches responses (ACK,
 * NAK, READ responses, atomic ACKs) to send WQEs in order, places READ data
 * and atomic results, drives the retries and the local ACK and RNR timers,
 * and turns finished WQEs into completions.
 *
 * A response goes through these steps (one function each, as rxe_comp.c):
 *   GET_WQE      the oldest WQE that has been sent and is not DONE
 *   CHECK_PSN    a response beyond the WQE's last PSN acknowledges it
 *                (coalesced ACK, IBA 9.7.5.1.x / 9.7.5.2.1) - unless it is a
 *                READ or atomic whose responses are missing: implicit NAK,
 *                retransmit (IBA 9.7.5.2.x); a response before comp.psn is a
 *                duplicate and is dropped (IBA 9.7.5.2.x "ghost" responses)
 *   CHECK_ACK    by opcode and AETH syndrome (IBA 9.7.5.2.1 - 9.7.5.2.8,
 *                table 44): ACK, RNR NAK, PSN sequence NAK, error NAKs
 *   READ         place a READ response's payload (IBA 9.7.5.2.x: in
 *                PSN order, FIRST/MIDDLE carry exactly one MTU)
 *   ATOMIC       store the atomic ACK's original value (IBA 9.4.5)
 *   WRITE_SEND   an ACK for a SEND / WRITE packet
 *   COMPLETE_WQE mark a WQE DONE and look at the next one
 *   UPDATE       progress: re-arm the ACK timer, reset the retry counters
 *   RETRY        go-back-N after a NAK / implicit NAK (retry_cnt, once per
 *                episode as rxe's started_retry)
 *   REREAD       a READ missed a response: ask again for its missing part
 *                only; READ responses of later READs are kept meanwhile
 *                when they come in order within their READ (read-ahead)
 *   RNR          wait the NAK's RNR timer (IBA 9.7.5.2.8, table 45), then retry
 *   ERROR        complete the WQE with an error, QP to ERR (IBA 10.8.3.x)
 * Finished WQEs become completions in dr_comp_cqe.c.
 *
 * Its state (qp->comp, a WQE's verdict / resp_bytes, qp->comp_out, the SQ's
 * tail) is written here only. It tells the requester what it needs through
 * the hand-offs of dr_handoff.h: the acknowledged PSN, verdicts, freed
 * READ / atomic slots, go-back-N requests and the RNR wait.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dr_comp.h"
#include "dr_handoff.h"
#include "dr_log.h"
#include "dr_psn.h"
#include "dr_transport.h"

enum dr_comp_step {
	COMP_GET_WQE,
	COMP_CHECK_PSN,
	COMP_CHECK_ACK,
	COMP_READ,
	COMP_ATOMIC,
	COMP_WRITE_SEND,
	COMP_COMPLETE_WQE,
	COMP_UPDATE,
	COMP_RETRY,
	COMP_REREAD,
	COMP_RNR,
	COMP_ERROR,
	COMP_DONE,
};

/* What one response carries, and where the walk stands. */
struct comp_ctx {
	struct rte_mbuf *m;
	struct dr_pkt_info *pi;
	uint32_t psn;
	uint8_t syn;               /* AETH syndrome, when the opcode has an AETH */
	uint32_t idx;              /* SQ index of the WQE looked at */
	struct dr_send_wqe *wqe;
	enum dr_wc_status status;  /* for COMP_ERROR */
	uint64_t now;              /* the worker's run clock (dr_run_clock.h), taken when needed */
	bool placed;               /* a READ response's payload is in place already (dr_comp_place.c) */
	bool progressed;           /* COMPLETE_WQE acknowledged WQEs: comp_progress_made() owed (comp_flush_progress()) */
	bool ask_next;             /* READ: the gap asked for is all in, the READ is not: ask the next one (UPDATE) */
};

/* Local ACK timeout of the QP in TSC ticks, cached per attr.timeout value (dr_transport.h). */
uint64_t
dr_comp_timeout_ticks(struct dr_qp_impl *qp)
{
	if (qp->comp.timeout_for != qp->attr.timeout ||
	    (qp->comp.timeout_ticks == 0) != (qp->attr.timeout == 0)) {
		qp->comp.timeout_ticks = dr_ack_timeout_ticks(qp->attr.timeout, dr_qp_tsc_hz(qp));
		qp->comp.timeout_for = qp->attr.timeout;
	}
	return qp->comp.timeout_ticks;
}

/* Arm the local ACK timer if it is not running (requests are outstanding). */
static void
comp_arm_timer(struct dr_qp_impl *qp, uint64_t now)
{
	uint64_t t = dr_comp_timeout_ticks(qp);

	if (t != 0 && qp->comp.timeout_at == 0)
		qp->comp.timeout_at = now + t;
}

static inline uint64_t
comp_now(const struct dr_qp_impl *qp, struct comp_ctx *c)
{
	if (c->now == 0)
		c->now = dr_qp_wk(qp)->clock.now;   /* this round's run clock (dr_run_clock.h) */
	return c->now;
}

/* The local ACK timer runs again from now (0: the QP's timeout is infinite). */
static void
comp_timer_restart(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	uint64_t t = dr_comp_timeout_ticks(qp);

	qp->comp.timeout_at = t != 0 ? comp_now(qp, c) + t : 0;
}

/* A retry episode starts: false (and RETRY_EXC_ERR) when retry_cnt is spent (IBA 9.7.6.1.x). */
static bool
comp_spend_retry(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	if (qp->comp.retry_left == 0) {
		c->status = DR_WC_RETRY_EXC_ERR;
		return false;
	}
	qp->comp.retry_left--;
	qp->comp.started_retry = true;
	qp->comp.read_ooo = 0;
	return true;
}

/* Acknowledged progress (rxe reset_retry_counters()): counters back to their attributes, timer restarted. */
static void
comp_progress_made(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.started_retry = false;
	qp->comp.read_ooo = 0;
	if (qp->comp.psn == dr_ho_sent_psn(qp))
		qp->comp.timeout_at = 0;      /* nothing outstanding */
	else
		comp_timer_restart(qp, c);
}

/*
 * The progress of the WQEs a coalesced ACK completed (COMPLETE_WQE), made
 * once for the run of them, before any step that reads what it resets.
 */
static inline void
comp_flush_progress(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	if (c->progressed) {
		c->progressed = false;
		comp_progress_made(qp, c);
	}
}

/* Step GET_WQE: the oldest sent WQE not yet DONE. */
static enum dr_comp_step
comp_get_wqe(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	struct dr_sq *sq = &qp->sq;

	for (; c->idx != dr_sq_head(sq); c->idx++) {
		struct dr_send_wqe *wqe = dr_sq_wqe(sq, c->idx);

		if (dr_wqe_done(wqe)) {
			/*
			 * A response at or before the PSNs of a WQE answered in full
			 * already (a READ whose responses were placed ahead,
			 * comp_read_ahead(), then replayed after a retry) is a
			 * duplicate: it says nothing of the WQEs after it (IBA
			 * 9.7.5.2.x, rxe check_psn(): duplicates are dropped). It
			 * may still have acknowledged the WQEs before it (COMPLETE_WQE).
			 */
			if (dr_wqe_sent_once(wqe) && !dr_psn_after(c->psn, wqe->last_psn))
				break;
			continue;
		}
		if (dr_wqe_req_state(wqe) == DR_WQE_POSTED || dr_wqe_failed(wqe))
			break;      /* nothing sent it could answer / the error completes first */
		c->wqe = wqe;
		return COMP_CHECK_PSN;
	}
	dr_qp_wk(qp)->stats.rx_stale_resp++;
	return COMP_DONE;
}

static void comp_read_ahead(struct dr_qp_impl *qp, struct comp_ctx *c);

/* Step CHECK_PSN (IBA 9.7.5.2.x; rxe check_psn()). */
static enum dr_comp_step
comp_check_psn(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	struct dr_send_wqe *wqe = c->wqe;
	uint32_t expect;

	if (dr_psn_after(c->psn, wqe->last_psn)) {
		if (!dr_wqe_all_sent(wqe))
			return COMP_DONE;       /* it cannot be answered before it is all sent */
		/* a READ/atomic with no data yet, and a later response: implicit NAK (IBA 9.7.5.2.x) */
		if (dr_wqe_is_rd_atomic(wqe)) {
			if (!(c->pi->mask & DR_OPF_READ))
				return COMP_RETRY;
			comp_read_ahead(qp, c);
			return wqe->opcode == DR_WR_RDMA_READ ? COMP_REREAD : COMP_RETRY;
		}
		return COMP_COMPLETE_WQE;  /* coalesced ACK: everything up to the PSN arrived */
	}
	/*
	 * The PSN expected next: comp.psn, or for a READ that took its first
	 * responses ahead of an older WQE (comp_read_ahead()), the one after
	 * them: those already placed are duplicates now (a replay of the READ
	 * asked again before they came), not data for the next offset.
	 */
	expect = qp->comp.psn;
	if (wqe->opcode == DR_WR_RDMA_READ && wqe->resp_bytes != 0 &&
	    dr_psn_after(dr_read_next_psn(qp, wqe), expect))
		expect = dr_read_next_psn(qp, wqe);
	if (dr_psn_before(c->psn, expect)) {
		dr_qp_wk(qp)->stats.rx_stale_resp++;
		return COMP_DONE;          /* duplicate or stale response: dropped */
	}
	if (dr_psn_after(c->psn, expect) && dr_wqe_is_rd_atomic(wqe)) {
		comp_flush_progress(qp, c);     /* read_ooo below */
		/* a response of this READ is missing: lost, or overtaken; ask again after a few */
		if (!(c->pi->mask & DR_OPF_READ))
			return COMP_RETRY;
		/* those after it are kept: only the gap is asked for (dr_comp_read_hold.c) */
		if (wqe->opcode == DR_WR_RDMA_READ) {
			c->status = dr_read_hold_put(qp, wqe, c->psn, c->m, c->pi);
			if (c->status != DR_WC_SUCCESS)
				return COMP_ERROR;
		}
		if (++qp->comp.read_ooo >= DR_READ_OOO_RETRY)
			return wqe->opcode == DR_WR_RDMA_READ ? COMP_REREAD : COMP_RETRY;
		return COMP_DONE;
	}
	return COMP_CHECK_ACK;
}

/* NAK codes to completion status (IBA table 44; rxe check_ack()). */
static enum dr_wc_status
nak_status(uint8_t code)
{
	switch (code) {
	case DR_NAK_INVALID_REQ: return DR_WC_REM_INV_REQ_ERR;
	case DR_NAK_REM_ACCESS_ERR: return DR_WC_REM_ACCESS_ERR;
	case DR_NAK_REM_OP_ERR: return DR_WC_REM_OP_ERR;
	default: return DR_WC_REM_OP_ERR;   /* unknown code: rxe reports a remote operational error */
	}
}

/* Step CHECK_ACK (IBA 9.7.5.2.1 - 9.7.5.2.8). */
static enum dr_comp_step
comp_check_ack(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	struct dr_send_wqe *wqe = c->wqe;
	uint32_t mask = c->pi->mask;

	if (mask & DR_OPF_READ) {
		if (wqe->opcode != DR_WR_RDMA_READ ||
		    ((mask & DR_OPF_AETH) && dr_aeth_syn_type(c->syn) != DR_AETH_ACK)) {
			c->status = DR_WC_BAD_RESP_ERR;
			return COMP_ERROR;
		}
		return COMP_READ;
	}
	if (mask & DR_OPF_ATMACK) {
		if ((wqe->opcode != DR_WR_ATOMIC_CMP_AND_SWP && wqe->opcode != DR_WR_ATOMIC_FETCH_AND_ADD) ||
		    dr_aeth_syn_type(c->syn) != DR_AETH_ACK) {
			c->status = DR_WC_BAD_RESP_ERR;
			return COMP_ERROR;
		}
		return COMP_ATOMIC;
	}
	if (!(mask & DR_OPF_ACK))
		return COMP_DONE;
	switch (dr_aeth_syn_type(c->syn)) {
	case DR_AETH_ACK:
		/* an ACK at a READ/atomic's PSN without its data: the data was lost (implicit NAK) */
		return dr_wqe_is_rd_atomic(wqe) ? COMP_RETRY : COMP_WRITE_SEND;
	case DR_AETH_RNR_NAK:
		return COMP_RNR;
	case DR_AETH_NAK:
		if (dr_aeth_syn_value(c->syn) == DR_NAK_PSN_SEQ_ERR) {
			/* IBA 9.7.5.2.2: the NAK acknowledges every PSN before its own */
			if (qp->comp.rnr_at != 0)
				return COMP_DONE;  /* a side effect of the RNR NAK being handled */
			if (dr_psn_after(c->psn, qp->comp.psn)) {
				dr_comp_advance(qp, c->psn);
				comp_progress_made(qp, c);
			}
			return COMP_RETRY;
		}
		c->status = nak_status(dr_aeth_syn_value(c->syn));
		return COMP_ERROR;
	default:
		return COMP_DONE;        /* reserved syndrome: ignored */
	}
}

/*
 * Place one READ response into @wqe at its next offset (IBA 9.7.4.1.3:
 * each carries one PMTU but the last, which carries the rest, in a LAST or
 * an ONLY; a LAST before it ends the answer to a part asked again, IBA
 * 9.7.5.1.3), then take the responses held after it (the oldest READ,
 * dr_comp_read_hold.c); the last byte makes the WQE DONE. DR_WC_SUCCESS or
 * the completion status of a bad response.
 */
static enum dr_wc_status
read_place(struct dr_qp_impl *qp, struct dr_send_wqe *wqe, struct comp_ctx *c, bool ahead)
{
	uint32_t paylen = c->pi->paylen, rest = wqe->length - wqe->resp_bytes;
	bool last = c->pi->mask & DR_OPF_LAST;
	int rc;

	if (paylen != RTE_MIN(rest, qp->mtu) || (paylen == rest && !last))
		return DR_WC_BAD_RESP_ERR;
	rc = c->placed ? 0 : dr_qp_sge_scatter(qp, wqe->sge, wqe->num_sge, wqe->resp_bytes, c->m,
						c->pi->pay_off, paylen);
	if (rc != 0)
		return rc == -EMSGSIZE ? DR_WC_LOC_LEN_ERR : DR_WC_LOC_PROT_ERR;
	dr_wqe_set_resp_bytes(wqe, wqe->resp_bytes + paylen);
	if (!ahead && unlikely(qp->comp.read_hold.n != 0))
		dr_wqe_set_resp_bytes(wqe, wqe->resp_bytes + dr_read_hold_take(qp, wqe));
	if (wqe->resp_bytes == wqe->length) {
		dr_wqe_set_verdict(wqe, DR_WQE_DONE, DR_WC_SUCCESS);
		/*
		 * Ahead of an older READ/atomic it keeps its initiator-depth slot until
		 * it completes in order: the responder's resources hold the last
		 * max_rd_atomic requests, and the older one may still be replayed from
		 * its own (IBA 9.7.4.1.x; a new READ now would recycle it).
		 */
		if (ahead)
			wqe->rd_slot_held = true;
		else
			dr_ho_rd_free(qp);
	}
	return DR_WC_SUCCESS;
}

/*
 * A READ response beyond the oldest pending WQE: it belongs to a later READ.
 * When that READ's data so far came in order and this is its next packet,
 * keep it (responses are idempotent and named by PSN), so the retry that
 * follows has to ask again only for what was lost, not for every READ in
 * flight. Anything else is left to the retry.
 */
static void
comp_read_ahead(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	struct dr_sq *sq = &qp->sq;
	uint32_t i;

	for (i = c->idx + 1; i != dr_sq_head(sq); i++) {
		struct dr_send_wqe *w = dr_sq_wqe(sq, i);

		if (dr_wqe_done(w)) {
			if (!dr_wqe_sent_once(w) || !dr_psn_after(c->psn, w->last_psn))
				return;            /* a duplicate of a READ done already */
			continue;
		}
		if (dr_wqe_req_state(w) == DR_WQE_POSTED || dr_wqe_failed(w) || !dr_wqe_all_sent(w) ||
		    dr_psn_before(c->psn, w->first_psn))
			return;
		if (dr_psn_after(c->psn, w->last_psn))
			continue;
		if (w->opcode == DR_WR_RDMA_READ && c->psn == dr_read_next_psn(qp, w))
			(void)read_place(qp, w, c, true);
		return;
	}
}

/* Step READ: place one READ response of the oldest WQE (IBA 9.7.5.2.x; rxe do_read()). */
static enum dr_comp_step
comp_read(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	struct dr_send_wqe *wqe = c->wqe;

	c->status = read_place(qp, wqe, c, false);
	if (c->status != DR_WC_SUCCESS)
		return COMP_ERROR;
	if (dr_wqe_done(wqe)) {
		dr_comp_advance(qp, dr_psn_add(wqe->last_psn, 1));
	} else {
		/* past the responses held, if it took any */
		dr_comp_advance(qp, dr_read_next_psn(qp, wqe));
		c->ask_next = unlikely(qp->comp.read_hold.asked) && dr_read_hold_answered(qp, wqe);
	}
	return COMP_UPDATE;
}

/* Step ATOMIC: the original value goes to the WQE's 8-byte buffer (IBA 9.4.5; rxe do_atomic()). */
static enum dr_comp_step
comp_atomic(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	struct dr_send_wqe *wqe = c->wqe;
	uint64_t orig = dr_atmack_orig(dr_pkt_atmack(c->pi));
	int rc;

	rc = dr_qp_sge_write(qp, wqe->sge, wqe->num_sge, 0, &orig, sizeof(orig));
	if (rc != 0) {
		c->status = rc == -EMSGSIZE ? DR_WC_LOC_LEN_ERR : DR_WC_LOC_PROT_ERR;
		return COMP_ERROR;
	}
	wqe->atomic_orig = orig;
	dr_wqe_set_resp_bytes(wqe, sizeof(orig));
	dr_wqe_set_verdict(wqe, DR_WQE_DONE, DR_WC_SUCCESS);
	dr_ho_rd_free(qp);
	dr_comp_advance(qp, dr_psn_add(c->psn, 1));
	return COMP_UPDATE;
}

/* Step WRITE_SEND: an ACK for a SEND / WRITE packet at or before its last PSN. */
static enum dr_comp_step
comp_write_send(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	struct dr_send_wqe *wqe = c->wqe;

	dr_comp_advance(qp, dr_psn_add(c->psn, 1));
	if (c->psn == wqe->last_psn && dr_wqe_all_sent(wqe))
		dr_wqe_set_verdict(wqe, DR_WQE_DONE, DR_WC_SUCCESS);
	return COMP_UPDATE;
}

/* Step COMPLETE_WQE: a later response acknowledged this SEND / WRITE as a whole. */
static enum dr_comp_step
comp_complete_wqe(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	dr_wqe_set_verdict(c->wqe, DR_WQE_DONE, DR_WC_SUCCESS);
	dr_comp_advance(qp, dr_psn_add(c->wqe->last_psn, 1));
	c->progressed = true;          /* comp_flush_progress(): once for the run of them */
	c->idx++;
	return COMP_GET_WQE;
}

/* Step UPDATE. */
static enum dr_comp_step
comp_update(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	comp_progress_made(qp, c);
	/* the responder sent the part asked for, the rest is still missing: ask it now (REREAD) */
	return c->ask_next ? COMP_REREAD : COMP_DONE;
}

/* Start a go-back-N retry, counting it against retry_cnt (IBA 9.7.6.1.x; rxe COMPST_ERROR_RETRY). */
static enum dr_comp_step
comp_retry(struct dr_qp_impl *qp, struct comp_ctx *c, bool timeout)
{
	/* one retry per episode, unless the timer says the first one got lost too (rxe) */
	if (qp->comp.started_retry && !timeout)
		return COMP_DONE;
	/* nothing outstanding: nothing to retry */
	if (dr_ho_sent_psn(qp) == qp->comp.psn)
		return COMP_DONE;
	if (!comp_spend_retry(qp, c))
		return COMP_ERROR;
	dr_qp_wk(qp)->stats.retries++;
	qp->cnt.retries++;
	dr_comp_rewind(qp);
	comp_timer_restart(qp, c);
	return COMP_DONE;
}

/*
 * Step REREAD: the oldest WQE is a READ that missed a response (a later one
 * came), or whose part asked again is in but not the rest: ask again for
 * its first gap only (up to the first response held,
 * dr_comp_read_hold.c), and let the READs behind it go on - their
 * responses are still coming, or were kept by comp_read_ahead(). Counted
 * against retry_cnt, once per episode as RETRY (each gap answered is
 * progress); the local ACK timer still ends in a go-back-N (comp_retry()).
 */
static enum dr_comp_step
comp_reread(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	if (qp->comp.started_retry)
		return COMP_DONE;
	if (!comp_spend_retry(qp, c))
		return COMP_ERROR;
	if (dr_read_hold_ask(qp, c->wqe) != 0)
		dr_comp_rewind(qp);         /* no mbuf or room now: the whole sequence, as a retry */
	comp_timer_restart(qp, c);
	return COMP_DONE;
}

/* Step RNR (IBA 9.7.5.2.8): wait, then retransmit from the NAK'd PSN. */
static enum dr_comp_step
comp_rnr(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	uint64_t wait;

	if (qp->comp.rnr_at != 0)
		return COMP_DONE;       /* already waiting */
	if (qp->comp.rnr_left == 0) {
		c->status = DR_WC_RNR_RETRY_EXC_ERR;
		return COMP_ERROR;
	}
	if (qp->comp.rnr_left != 7)    /* 7 = retry forever (IBA 9.7.5.2.8) */
		qp->comp.rnr_left--;
	/* the RNR NAK acknowledges every PSN before its own */
	dr_comp_advance(qp, c->psn);
	wait = (uint64_t)dr_rnr_timer_usec(dr_aeth_syn_value(c->syn)) * dr_qp_tsc_hz(qp) / 1000000u;
	qp->comp.rnr_at = comp_now(qp, c) + (wait != 0 ? wait : 1);
	__atomic_store_n(&qp->cnt.rnr_wait_ticks, qp->cnt.rnr_wait_ticks + wait, __ATOMIC_RELAXED);
	dr_ho_rnr_wait(qp, true);       /* the requester sends nothing meanwhile */
	qp->comp.timeout_at = 0;        /* the ACK timer waits for the retransmission */
	qp->comp.started_retry = false;
	DR_DP_LOG(comp, DEBUG, "qp %u: RNR NAK psn %#x, waiting %u us", qp->pub.qp_num, c->psn,
		  dr_rnr_timer_usec(dr_aeth_syn_value(c->syn)));
	return COMP_DONE;
}

/* Step ERROR: the WQE completes with c->status (dr_comp_progress() then moves the QP to ERR). */
static enum dr_comp_step
comp_error(struct dr_qp_impl *qp, struct comp_ctx *c)
{
	DR_DP_LOG(comp, DEBUG, "qp %u: wr_id %" PRIu64 " psn %#x: %s", qp->pub.qp_num, c->wqe->wr_id, c->psn,
		  dr_wc_status_str(c->status));
	dr_wqe_set_verdict(c->wqe, DR_WQE_ERROR, c->status);
	qp->comp.timeout_at = 0;
	qp->comp.rnr_at = 0;
	dr_ho_rnr_wait(qp, false);
	return COMP_DONE;
}

/* Count a NAK received, by kind (telemetry). */
static void
comp_count_nak(struct dr_qp_impl *qp, uint8_t syn)
{
	if (dr_aeth_syn_type(syn) == DR_AETH_RNR_NAK) {
		dr_qp_wk(qp)->stats.naks_rnr_rx++;
		qp->cnt.rnr_naks_rx++;
		return;
	}
	if (dr_aeth_syn_type(syn) != DR_AETH_NAK)
		return;
	if (dr_aeth_syn_value(syn) == DR_NAK_PSN_SEQ_ERR)
		dr_qp_wk(qp)->stats.naks_seq_rx++;
	else
		dr_qp_wk(qp)->stats.naks_err_rx++;
	qp->cnt.naks_rx++;
}

void
dr_comp_rx_placed(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi, bool placed)
{
	struct comp_ctx c = {
		.m = m,
		.pi = pi,
		.psn = dr_bth_psn(dr_pkt_bth(pi)),
		.idx = qp->sq.tail,
		.placed = placed,
	};
	enum dr_comp_step step = COMP_GET_WQE;

	/* IBA 10.3.1: responses are processed in RTS and SQD only */
	if (!dr_qp_can_send(qp)) {
		dr_qp_wk(qp)->stats.rx_bad_state++;
		rte_pktmbuf_free(m);
		return;
	}
	if (pi->mask & DR_OPF_AETH)
		c.syn = dr_aeth_syndrome(dr_pkt_aeth(pi));
	if (dr_qp_reliable(qp)) {
		dr_comp_rtt_watch(qp);        /* a request sent since the timer last looked: timed */
		/*
		 * A response to nothing sent: its PSN at or past the newest request
		 * ever sent (comp.sent_max, kept by dr_comp_rtt_watch()). IBA
		 * 9.7.5.2.x drops a response outside the PSNs outstanding (rxe: a
		 * duplicate); taken, its PSN would acknowledge every WQE
		 * outstanding as a coalesced ACK, or fail the QP on a NAK: what a
		 * third party that knows the QPN but not the PSN could do.
		 */
		if (unlikely(!dr_psn_before(c.psn, qp->comp.sent_max))) {
			dr_qp_wk(qp)->stats.rx_stale_resp++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	if ((pi->mask & DR_OPF_ACK) && dr_aeth_syn_type(c.syn) != DR_AETH_ACK)
		comp_count_nak(qp, c.syn);
	/* an ACK / NAK (READ responses and atomic ACKs rarely coalesce): the WQEs it covers in one pass */
	if ((pi->mask & DR_OPF_ACK) && dr_qp_reliable(qp)) {
		uint32_t idx = dr_comp_ack_run(qp, c.idx, c.psn);

		if (idx != c.idx) {
			c.idx = idx;
			c.progressed = true;   /* comp_flush_progress(): once for the run */
		}
	}
	while (step != COMP_DONE) {
		/* GET_WQE, CHECK_PSN and COMPLETE_WQE walk a coalesced ACK's WQEs; the rest read the progress */
		if (step != COMP_GET_WQE && step != COMP_CHECK_PSN && step != COMP_COMPLETE_WQE)
			comp_flush_progress(qp, &c);
		switch (step) {
		case COMP_GET_WQE: step = comp_get_wqe(qp, &c); break;
		case COMP_CHECK_PSN: step = comp_check_psn(qp, &c); break;
		case COMP_CHECK_ACK: step = comp_check_ack(qp, &c); break;
		case COMP_READ: step = comp_read(qp, &c); break;
		case COMP_ATOMIC: step = comp_atomic(qp, &c); break;
		case COMP_WRITE_SEND: step = comp_write_send(qp, &c); break;
		case COMP_COMPLETE_WQE: step = comp_complete_wqe(qp, &c); break;
		case COMP_UPDATE: step = comp_update(qp, &c); break;
		case COMP_RETRY: step = comp_retry(qp, &c, false); break;
		case COMP_REREAD: step = comp_reread(qp, &c); break;
		case COMP_RNR: step = comp_rnr(qp, &c); break;
		case COMP_ERROR: step = comp_error(qp, &c); break;
		default: step = COMP_DONE; break;
		}
	}
	comp_flush_progress(qp, &c);
	/*
	 * A response came while requests are outstanding: the local ACK timer
	 * starts again, whatever the response did (rxe's completer re-arms it
	 * each time it has run, COMPST_EXIT). A responder that is still
	 * streaming a long READ reply after one of its packets was lost is
	 * alive: its later, out-of-order responses keep the timer from
	 * expiring, and so from spending a retry on each timeout, until the
	 * stream ends and the missing part is asked for again.
	 */
	if (qp->comp.timeout_at != 0 && dr_qp_can_send(qp))
		comp_timer_restart(qp, &c);
	/* the round trip, and progress restarts the retransmission timer (dr_comp_rto.c) */
	if (dr_qp_reliable(qp) && dr_qp_can_send(qp)) {
		dr_comp_rto_acked(qp, comp_now(qp, &c));
		qp->comp.heard_at = comp_now(qp, &c);   /* the peer is alive (dr_comp_keepalive.c) */
	}
	/* selective repeat: the responder spoke; a SACK's map, after its ACK (dr_comp_sr.c) */
	if (dr_qp_sr(qp) && dr_qp_can_send(qp)) {
		dr_comp_sr_acked(qp, comp_now(qp, &c));
		if (pi->opcode == DR_OPCODE_SACK)
			dr_comp_sr_rx(qp, pi);
	}
	rte_pktmbuf_free(m);
	dr_comp_progress(qp);
}

void
dr_comp_rx(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	dr_comp_rx_placed(qp, m, pi, false);
}

struct dr_send_wqe *
dr_comp_oldest_pending(struct dr_qp_impl *qp)
{
	uint32_t i;

	for (i = qp->sq.tail; i != dr_sq_head(&qp->sq); i++) {
		struct dr_send_wqe *wqe = dr_sq_wqe(&qp->sq, i);

		if (!dr_wqe_done(wqe))
			return dr_wqe_req_state(wqe) == DR_WQE_POSTED ? NULL : wqe;
	}
	return NULL;
}

void
dr_comp_timers(struct dr_qp_impl *qp, uint64_t now)
{
	struct comp_ctx c = { .now = now };
	struct dr_send_wqe *wqe;

	if (!dr_qp_can_send(qp))
		return;
	/* IBA 9.7.5.2.8: the RNR wait is over, retransmit from the NAK'd PSN */
	if (qp->comp.rnr_at != 0) {
		if (now < qp->comp.rnr_at)
			return;           /* the ACK timer does not run during the wait */
		qp->comp.rnr_at = 0;
		qp->comp.rto_at = 0;          /* the retransmission timer's wait starts again */
		dr_ho_rnr_wait(qp, false);
		dr_comp_rewind(qp);
	}
	/* the requester sent something: the ACK timer runs (IBA 9.7.6.1.3) */
	if (qp->comp.timeout_at == 0 && dr_qp_reliable(qp) && dr_ho_sent_psn(qp) != qp->comp.psn)
		comp_arm_timer(qp, now);
	/* and the adaptive one, which recovers a loss in a round trip or so (dr_comp_rto.c) */
	if (dr_qp_reliable(qp))
		dr_comp_rto_timer(qp, now, qp->comp.timeout_at != 0 && now >= qp->comp.timeout_at);
	/* nothing outstanding: is the peer still there? (dr_comp_keepalive.c) */
	if (unlikely(qp->pub.context->keepalive_ticks != 0) && dr_qp_reliable(qp) &&
	    dr_comp_keepalive(qp, now))
		return;
	/* selective repeat: a lost tail or lost resends, found before the ACK timer (dr_comp_sr.c) */
	if (dr_qp_sr(qp))
		dr_comp_sr_timer(qp, now);
	if (qp->comp.timeout_at == 0 || now < qp->comp.timeout_at)
		return;
	/* IBA 9.7.6.1.3: local ACK timeout */
	wqe = dr_comp_oldest_pending(qp);
	if (wqe == NULL || dr_ho_sent_psn(qp) == qp->comp.psn) {
		qp->comp.timeout_at = 0;      /* everything sent was answered */
		return;
	}
	/*
	 * The go-back-N asked for last has not gone out yet (the requester's
	 * lcore had no turn): nothing sent since has gone unanswered, the timer
	 * measures the wait for an answer (IBA 9.7.6.1.3), so it runs again and
	 * no retry is spent.
	 */
	if (dr_ho_rewind_pending(qp)) {
		comp_timer_restart(qp, &c);
		return;
	}
	c.wqe = wqe;
	dr_qp_wk(qp)->stats.ack_timeouts++;
	qp->cnt.ack_timeouts++;
	if (dr_comp_timeout_ticks(qp) > qp->cnt.max_ack_timeout_ticks)
		__atomic_store_n(&qp->cnt.max_ack_timeout_ticks, dr_comp_timeout_ticks(qp), __ATOMIC_RELAXED);
	DR_DP_LOG(comp, DEBUG, "qp %u: local ACK timeout at psn %#x, %u retries left", qp->pub.qp_num,
		  qp->comp.psn, qp->comp.retry_left);
	if (comp_retry(qp, &c, true) == COMP_ERROR) {
		comp_error(qp, &c);
		dr_comp_progress(qp);
	}
}
