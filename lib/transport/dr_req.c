/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The requester (IBA vol. 1, 9.7.1 - 9.7.4 for RC; 9.8 for UC; 9.8.x and
 * 10.2.5 for UD): turns send WQEs into request packets, in order, from
 * req.cur. UC and UD are unacknowledged: a WQE is done once its last packet
 * is out (the completer then completes it), and nothing is kept for a retry.
 *
 * Per WQE it goes through these steps, each a function below:
 *   NEXT_WQE      the WQE at req.cur, if the QP state lets it start (RTS; SQD
 *                 only finishes what was started, IBA 10.3.1 "SQ Drain")
 *   CHECK_FENCE   a fenced WQE waits until every earlier READ / atomic has
 *                 completed (IBA 10.8.3.3, ibv_post_send(3) IBV_SEND_FENCE)
 *   CHECK_RD_ATOMIC  at most max_rd_atomic READ / atomic requests outstanding
 *                 (IBA 9.7.4.1.x, "initiator depth")
 *   CHECK_WINDOW  at most qp->window PSNs unacknowledged (IBA 9.7.1: the
 *                 requester must never have more than 2^23 outstanding)
 *   SEND_PKT      build one packet: opcode by position (IBA 9.7.2 / table 38),
 *                 RETH on the first WRITE packet and on READ requests (9.3.4),
 *                 ImmDt on the last packet (9.3.8), SE on the last (9.2.3),
 *                 AckReq on the last and every DR_ACKREQ_EVERY packets (9.2.4);
 *                 a READ request consumes one PSN per response packet: the
 *                 next request's PSN is the READ's PSN + the number of its
 *                 responses (IBA 9.7.4.1.3)
 *   ERROR         a local error (bad L_Key, unsupported operation) ends the WQE
 *
 * READ and atomic requests are built in dr_req_rd_atomic.c; the pieces both
 * files use (local errors, BTH flags, the resend guard, queueing) are in
 * dr_req.h. A new one-packet SEND or WRITE takes the express step
 * (req_express_ready(), req_express_send()) in place of the checks and
 * SEND_PKT; a run of them goes out in one pass (req_express_run()).
 *
 * UD (SEND_UD):  one packet with a DETH (the WR's Q_Key, or the QP's when its
 *                high-order bit is set, C10-15), along the WR's AH to its QPN;
 *                a message above the path MTU is dropped and completes with
 *                success (C10-93.1.1; rxe does the same).
 *
 * The requester never keeps a packet for retransmission: the completer asks
 * for a go-back-N (IBA 9.7.5.2.x, dr_ho_rewind()), the requester rewinds at
 * its next run (dr_req_rewind(), dr_req_state.c) and the packets are built again from the WQEs.
 *
 * Its state (qp->req, the WQE's state / PSNs / sent_once, qp->req_out) is
 * written here only; what it learns from the completer comes through the
 * hand-offs of dr_handoff.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dr_ah.h"
#include "dr_log.h"
#include "dr_mw.h"
#include "dr_handoff.h"
#include "dr_psn.h"
#include "dr_req.h"
#include "dr_transport.h"

enum dr_req_verdict {
	REQ_GO,        /* send a packet of this WQE */
	REQ_WAIT,      /* nothing to send now: stop this round */
	REQ_SKIP,      /* this WQE needs no packet: look at the next one */
};

/* Step NEXT_WQE: the WQE at req.cur, or NULL when there is none to work on. */
static struct dr_send_wqe *
req_next_wqe(struct dr_qp_impl *qp)
{
	struct dr_sq *sq = &qp->sq;
	uint32_t head = dr_sq_head(sq);
	struct dr_send_wqe *wqe;

	/* the queue was flushed or reset behind our back: restart from its tail */
	uint32_t tail = dr_sq_tail(sq);

	if ((uint32_t)(head - qp->req.cur) > (uint32_t)(head - tail)) {
		qp->req.cur = tail;
		qp->req.offset = 0;
	}
	if (tail == head)     /* everything completed: every slot was given back */
		qp->req.rd_taken = __atomic_load_n(&qp->comp_out.rd_freed, __ATOMIC_ACQUIRE);
	if (qp->req.cur == head)
		return NULL;
	wqe = dr_sq_wqe(sq, qp->req.cur);
	/* IBA 10.3.1 (SQD): no new WQE starts, the ones already started finish */
	if (qp->pub.state == DR_QPS_SQD && wqe->state == DR_WQE_POSTED)
		return NULL;
	return wqe;
}

/* Step CHECK_FENCE (IBA 10.8.3.3; ibv_post_send(3) IBV_SEND_FENCE). */
static enum dr_req_verdict
req_check_fence(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	if (!(wqe->send_flags & DR_SEND_FENCE) || wqe->state != DR_WQE_POSTED) {
		qp->req.wait_fence = false;
		return REQ_GO;
	}
	/* every earlier READ / atomic has completed when none is outstanding */
	qp->req.wait_fence = dr_ho_rd_outstanding(qp) != 0;
	return qp->req.wait_fence ? REQ_WAIT : REQ_GO;
}

/* Step CHECK_RD_ATOMIC: initiator depth (IBA 9.7.4.1.x; attr.max_rd_atomic). */
static enum dr_req_verdict
req_check_rd_atomic(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	uint32_t depth = qp->attr.max_rd_atomic != 0 ? qp->attr.max_rd_atomic : 1;

	if (!dr_wqe_is_rd_atomic(wqe) || wqe->state != DR_WQE_POSTED)
		return REQ_GO;   /* a retransmitted READ already holds its slot */
	return dr_ho_rd_outstanding(qp) < depth ? REQ_GO : REQ_WAIT;
}

/* Step CHECK_WINDOW: bound the unacknowledged PSNs (IBA 9.7.1; rxe: RXE_MAX_UNACKED_PSNS). */
static enum dr_req_verdict
req_check_window(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	int32_t out = dr_psn_diff(qp->req.psn, dr_ho_acked_psn(qp));

	if (!dr_qp_reliable(qp))
		return REQ_GO;         /* UC / UD: nothing waits for an acknowledgement */
	if (out < 0)
		return REQ_WAIT;       /* cannot happen: comp.psn never passes req.psn */
	if (out >= (int32_t)qp->window)
		return REQ_WAIT;
	if (wqe->opcode == DR_WR_RDMA_READ && out > 0) {
		/* a READ takes all its response PSNs at once: keep far below 2^23 (IBA 9.7.1) */
		uint32_t n = dr_msg_pkts(wqe->length - dr_wqe_resp_bytes(wqe), qp->mtu);

		if ((uint64_t)out + n >= DR_PSN_HALF / 2)
			return REQ_WAIT;
	}
	return REQ_GO;
}

void (*dr_req_resend_hook)(struct dr_qp_impl *qp);

/* Position of the packet that carries bytes [offset, offset + paylen) of a @len-byte message. */
static enum dr_pkt_pos
pkt_pos(uint32_t offset, uint32_t paylen, uint32_t len)
{
	bool first = offset == 0, last = offset + paylen >= len;

	return first ? (last ? DR_POS_ONLY : DR_POS_FIRST) : (last ? DR_POS_LAST : DR_POS_MIDDLE);
}

/*
 * The frame of one-packet SEND / RDMA WRITE @wqe at @psn along @tc, built
 * whole (dr_qp_pkt_only()): SE on a solicited SEND or WRITE with immediate
 * (IBA 9.2.3), AckReq on RC (9.2.4: the last packet). NULL: not built that
 * way (the general builder's).
 */
static inline struct rte_mbuf *
req_pkt_only(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, const struct dr_send_wqe *wqe, uint8_t opcode,
	     uint32_t psn)
{
	uint32_t mask = dr_opcode_table[opcode].mask;

	return dr_qp_pkt_only(qp, tc, wqe, opcode, psn, dr_wqe_bth_se(wqe, mask), (mask & DR_OPF_RELIABLE) != 0);
}

/* The PSNs of a SEND / RDMA WRITE of @npkts packets from @psn (IBA 9.7.2). */
static inline void
req_wqe_psns(struct dr_send_wqe *wqe, uint32_t psn, uint32_t npkts)
{
	wqe->first_psn = psn;
	wqe->npkts = npkts;
	wqe->last_psn = dr_psn_add(psn, npkts - 1);
}

/* A new SEND / RDMA WRITE of @npkts packets starts at @psn: its PSNs, not yet sent in full. */
static inline void
req_wqe_start(struct dr_send_wqe *wqe, uint32_t psn, uint32_t npkts)
{
	req_wqe_psns(wqe, psn, npkts);
	dr_wqe_set_sent_once(wqe, false);
}

/* Its last packet went out the first time: the completer's (UC: done, nothing acknowledges it, IBA 9.8.x). */
static inline void
req_wqe_sent(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	dr_wqe_set_sent_once(wqe, true);
	dr_wqe_set_state(wqe, dr_qp_reliable(qp) ? DR_WQE_SENT : DR_WQE_DONE);
}

/*
 * Packet @idx of SEND / RDMA WRITE @wqe (bytes idx * MTU on) at @psn along
 * @tc (IBA 9.7.2, 9.4.1, 9.4.2): opcode by position, RETH on the first,
 * ImmDt / IETH on the last, SE on the last of a solicited one, AckReq as
 * the rules say or when @ackreq. 0, -EINVAL (no opcode for it), -EFAULT /
 * -EACCES (its L_Key), or another -errno (no mbuf, no room: retried).
 */
static int
req_segment_packet(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, const struct dr_send_wqe *wqe,
		   uint32_t idx, uint32_t psn, bool ackreq)
{
	uint32_t mtu = qp->mtu, off = idx * mtu;
	uint32_t paylen = RTE_MIN(mtu, wqe->length - off);
	enum dr_pkt_pos pos = pkt_pos(off, paylen, wqe->length);
	bool last = pos == DR_POS_LAST || pos == DR_POS_ONLY;
	struct dr_pkt_info pi;
	struct rte_mbuf *m;
	uint32_t mask;
	int opcode, rc;

	opcode = qp->pkt_op[wqe->opcode][pos];   /* the post checked the WR opcode */
	if (opcode < 0)
		return -EINVAL;
	if (pos == DR_POS_ONLY && qp->pub.context->express) {
		/* one packet, one flat payload, IPv4: the frame in one pass (dr_qp_pkt_only()) */
		m = req_pkt_only(qp, tc, wqe, (uint8_t)opcode, psn);
		if (m != NULL) {
			dr_qp_wk(qp)->stats.tx_express++;
			return dr_req_queue(qp, tc, m);
		}
	}
	m = dr_qp_pkt_start(qp, tc, (uint8_t)opcode, paylen, psn, &pi);
	if (m == NULL)
		return -ENOBUFS;
	mask = pi.mask;
	if (mask & DR_OPF_XRCETH)
		dr_xrceth_set_srq(dr_pkt_xrceth(&pi), wqe->xrc_srqn);
	if (mask & DR_OPF_RETH) {
		struct dr_reth *reth = dr_pkt_reth(&pi);

		dr_reth_set_va(reth, wqe->remote_addr);
		dr_reth_set_rkey(reth, wqe->rkey);
		dr_reth_set_len(reth, wqe->length);
	}
	if (mask & DR_OPF_IMMDT)
		dr_immdt_set_imm(dr_pkt_immdt(&pi), wqe->imm_data);
	if (mask & DR_OPF_IETH)
		dr_ieth_set_rkey(dr_pkt_ieth(&pi), wqe->invalidate_rkey);
	/*
	 * SE only on the last packet of a SEND or WRITE with immediate (IBA 9.2.3);
	 * AckReq on RC only (9.2.4: nothing acknowledges UC; rxe sends UC with 0)
	 */
	dr_req_fill_bth(&pi, last && dr_wqe_bth_se(wqe, mask) != 0,
		     (mask & DR_OPF_RELIABLE) && (ackreq || last || (idx + 1) % DR_ACKREQ_EVERY == 0));
	rc = dr_qp_pkt_add_payload(qp, m, wqe, off, paylen);
	if (unlikely(rc != 0)) {
		rte_pktmbuf_free(m);
		return rc;
	}
	rc = dr_req_xmit(qp, tc, m, &pi);
	return rc == 0 || rc == -ESTALE ? rc : -ENOBUFS;
}

/* Step SEND_PKT for SEND / RDMA WRITE, one MTU-sized segment (IBA 9.7.2, 9.4.1, 9.4.2). */
static int
req_send_segment(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	uint32_t mtu = qp->mtu, off = qp->req.offset;
	uint32_t paylen = RTE_MIN(mtu, wqe->length - off);
	bool last = off + paylen >= wqe->length;
	bool resend = dr_req_resending(qp);
	int rc;

	if (wqe->state == DR_WQE_POSTED)
		req_wqe_start(wqe, qp->req.psn, dr_msg_pkts(wqe->length, mtu));
	rc = req_segment_packet(qp, &qp->req.tmpl, wqe, off >> rte_bsf32(mtu), qp->req.psn, false);
	if (unlikely(rc != 0)) {
		/* a resend writes nothing into its WQE (dr_req_state.resend_end): it sent it once already */
		if (resend)
			return rc == -ESTALE || dr_req_wqe_still_ours(qp) ? rc : -ESTALE;
		if (rc == -EINVAL)
			dr_req_error(qp, wqe, DR_WC_LOC_QP_OP_ERR);
		else if (rc == -EFAULT || rc == -EACCES)
			dr_req_error(qp, wqe, DR_WC_LOC_PROT_ERR);   /* IBA 10.6.3.1: L_Key check failed */
		/* else no mbuf, no room, or the frame did not finish: not the WR's fault; retried */
		return rc;
	}
	qp->req.psn = dr_psn_add(qp->req.psn, 1);
	if (last) {
		if (!resend)
			req_wqe_sent(qp, wqe);
		qp->req.cur++;
		qp->req.offset = 0;
	} else {
		if (!resend)
			dr_wqe_set_state(wqe, DR_WQE_ACTIVE);
		qp->req.offset = off + paylen;
	}
	return 0;
}

int
dr_req_keepalive(struct dr_qp_impl *qp, uint32_t psn)
{
	struct dr_pkt_info pi;
	struct dr_reth *reth;
	struct rte_mbuf *m;

	/* IBA 9.7.4.1.x: a zero-length WRITE; its R_Key and VA are not checked (length 0) */
	m = dr_qp_pkt_start(qp, &qp->comp.tmpl, dr_qp_rel_opcode(qp, DR_OP_WRITE_ONLY), 0, psn, &pi);
	if (m == NULL)
		return -ENOBUFS;
	if (pi.mask & DR_OPF_XRCETH)
		dr_xrceth_set_srq(dr_pkt_xrceth(&pi), 0);
	reth = dr_pkt_reth(&pi);
	dr_reth_set_va(reth, 0);
	dr_reth_set_rkey(reth, 0);
	dr_reth_set_len(reth, 0);
	dr_req_fill_bth(&pi, false, true);
	return dr_req_xmit(qp, &qp->comp.tmpl, m, &pi);
}

int
dr_req_resend(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe, uint32_t psn)
{
	int32_t idx = dr_psn_diff(psn, wqe->first_psn);

	if (idx < 0 || (uint32_t)idx >= wqe->npkts)
		return -EINVAL;
	switch (wqe->opcode) {
	case DR_WR_SEND:
	case DR_WR_SEND_WITH_IMM:
	case DR_WR_SEND_WITH_INV:
	case DR_WR_RDMA_WRITE:
	case DR_WR_RDMA_WRITE_WITH_IMM:
		return req_segment_packet(qp, &qp->comp.tmpl, wqe, (uint32_t)idx, psn, true);
	case DR_WR_RDMA_READ:
		/* the request itself, not one of the response PSNs it took */
		if (idx != 0 || dr_wqe_resp_bytes(wqe) != 0)
			return -EINVAL;
		return dr_req_read_packet(qp, &qp->comp.tmpl, wqe, psn, 0, wqe->length);
	case DR_WR_ATOMIC_CMP_AND_SWP:
	case DR_WR_ATOMIC_FETCH_AND_ADD:
		return dr_req_atomic_packet(qp, &qp->comp.tmpl, wqe, psn);
	default:
		return -EINVAL;
	}
}

/*
 * Step SEND_PKT for a local operation (BIND_MW, LOCAL_INV; IBA 10.6.7.2,
 * 10.7.2.x): executed when the requester reaches it, after every earlier
 * WQE went out; it takes no PSN and completes in order with the others.
 */
static int
req_local_op(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	enum dr_wc_status st = wqe->opcode == DR_WR_BIND_MW ? dr_mw_bind_exec(qp, wqe) :
			       dr_mw_local_inv_exec(qp, wqe->invalidate_rkey);

	dr_send_wqe_release(wqe);
	if (st != DR_WC_SUCCESS) {
		dr_req_error(qp, wqe, st);       /* the completer reports it, then the QP goes to ERR */
		return -EINVAL;
	}
	dr_wqe_set_sent_once(wqe, true);
	wqe->first_psn = wqe->last_psn = dr_psn_sub(qp->req.psn, 1);
	wqe->npkts = 0;
	dr_wqe_set_state(wqe, DR_WQE_DONE);
	qp->req.cur++;
	qp->req.offset = 0;
	return 0;
}

/* A UD WQE is finished: it went out, or was dropped as IBA allows. */
static void
req_ud_done(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	dr_send_wqe_release(wqe);
	dr_wqe_set_sent_once(wqe, true);
	dr_wqe_set_state(wqe, DR_WQE_DONE);   /* nothing is outstanding on UD */
	qp->req.cur++;
	qp->req.offset = 0;
}

/* Step SEND_PKT for a UD SEND (IBA 9.8.x, DETH 9.3.x; 10.2.5 Q_Keys). */
static int
req_send_ud(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	struct dr_context *ctx = qp->pub.context;
	struct dr_pkt_info pi;
	struct dr_deth *deth;
	struct rte_mbuf *m;
	int opcode, rc;

	/* C10-93.1.1: a message longer than the path MTU is not sent, the WR completes with success */
	if (wqe->length > qp->mtu) {
		dr_qp_wk(qp)->stats.tx_ud_oversize++;
		DR_DP_LOG(req, DEBUG, "qp %u: UD message of %u bytes above the %u-byte MTU dropped",
			  qp->pub.qp_num, wqe->length, qp->mtu);
		req_ud_done(qp, wqe);
		return 0;
	}
	rc = dr_ah_resolve(ctx, wqe->ah);
	if (rc == -EAGAIN)
		return rc;                 /* ARP / ND under way: next round */
	if (rc != 0) {
		/* no neighbour: the datagram is lost, as an unreliable service may lose it */
		dr_qp_wk(qp)->stats.tx_ud_unreachable++;
		req_ud_done(qp, wqe);
		return 0;
	}
	opcode = dr_wr_pkt_opcode(DR_QPT_UD, wqe->opcode, DR_POS_ONLY);
	if (opcode < 0) {
		dr_req_error(qp, wqe, DR_WC_LOC_QP_OP_ERR);
		return -EINVAL;
	}
	m = dr_qp_pkt_start_ud(qp, &wqe->ah->route, wqe->remote_qpn, (uint8_t)opcode, wqe->length, qp->req.psn,
			       &pi);
	if (m == NULL)
		return -ENOBUFS;
	deth = dr_pkt_deth(&pi);
	dr_deth_set_qkey(deth, wqe->remote_qkey);
	dr_deth_set_sqp(deth, qp->pub.qp_num);
	if (pi.mask & DR_OPF_IMMDT)
		dr_immdt_set_imm(dr_pkt_immdt(&pi), wqe->imm_data);
	dr_req_fill_bth(&pi, (wqe->send_flags & DR_SEND_SOLICITED) != 0, false);
	rc = dr_qp_pkt_add_payload(qp, m, wqe, 0, wqe->length);
	if (unlikely(rc != 0)) {
		rte_pktmbuf_free(m);
		if (rc == -ENOSPC || rc == -ENOBUFS)
			return rc;
		dr_req_error(qp, wqe, DR_WC_LOC_PROT_ERR);   /* IBA 10.6.3.1: L_Key check failed */
		return rc;
	}
	rc = dr_req_xmit(qp, &qp->req.tmpl, m, &pi);
	if (rc != 0)
		return rc;
	qp->req.psn = dr_psn_add(qp->req.psn, 1);
	req_ud_done(qp, wqe);
	return 0;
}

/* Step SEND_PKT: dispatch on the WR opcode. */
static int
req_send_pkt(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	if (qp->pub.qp_type == DR_QPT_UD)
		return req_send_ud(qp, wqe);
	switch (wqe->opcode) {
	case DR_WR_BIND_MW:
	case DR_WR_LOCAL_INV:
		return req_local_op(qp, wqe);
	case DR_WR_SEND:
	case DR_WR_SEND_WITH_IMM:
	case DR_WR_SEND_WITH_INV:
	case DR_WR_RDMA_WRITE:
	case DR_WR_RDMA_WRITE_WITH_IMM:
		return req_send_segment(qp, wqe);
	case DR_WR_RDMA_READ:
		return dr_req_send_read(qp, wqe);
	case DR_WR_ATOMIC_CMP_AND_SWP:
	case DR_WR_ATOMIC_FETCH_AND_ADD:
		return dr_req_send_atomic(qp, wqe);
	default:
		/* local operations, FLUSH, ATOMIC WRITE: not offered by this transport */
		dr_req_error(qp, wqe, DR_WC_LOC_QP_OP_ERR);
		return -EOPNOTSUPP;
	}
}

/* Step CHECK_*: may this WQE send a packet now? */
static enum dr_req_verdict
req_checks(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	enum dr_req_verdict v;

	if (dr_wqe_failed(wqe))
		return REQ_WAIT;       /* the completer ends the QP when it reaches this WQE */
	if (dr_wqe_done(wqe))
		return REQ_SKIP;       /* acknowledged already (a READ answered ahead during a retry) */
	switch (wqe->state) {
	case DR_WQE_POSTED:
	case DR_WQE_ACTIVE:
		break;
	case DR_WQE_ERROR:
		return REQ_WAIT;       /* the completer ends the QP when it reaches this WQE */
	case DR_WQE_SENT:
		if (dr_req_resending(qp))
			break;         /* go-back-N: sent before, sent again (IBA 9.7.5.2.x) */
		return REQ_SKIP;
	default:
		return REQ_SKIP;       /* DONE: nothing acknowledges it */
	}
	v = req_check_fence(qp, wqe);
	if (v != REQ_GO)
		return v;
	v = req_check_rd_atomic(qp, wqe);
	if (v != REQ_GO)
		return v;
	return req_check_window(qp, wqe);
}

/*
 * The requester's express step (doc/guides/speed.rst, "The express path"):
 * a SEND or RDMA WRITE, with or without immediate, of one packet, not
 * fenced, new (POSTED, not a go-back-N resend), inside the send window:
 * what req_checks(), req_send_segment() and req_segment_packet() would do
 * for it, in one pass, the frame built whole (dr_qp_pkt_only()).
 * req_express_ready(): its packet opcode, or -1 when it is not one of
 * those (the general steps take it, and wait for a full window).
 */
#define REQ_EXPRESS_OPS (1u << DR_WR_RDMA_WRITE | 1u << DR_WR_SEND | 1u << DR_WR_RDMA_WRITE_WITH_IMM | \
			 1u << DR_WR_SEND_WITH_IMM)

/* The WQE's own part of the test: its packet opcode, or -1 (not one of those, fenced, longer than an MTU). */
static inline int
req_express_op(const struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	if ((unsigned int)wqe->opcode >= 32 || !(REQ_EXPRESS_OPS >> wqe->opcode & 1u) ||
	    (wqe->send_flags & DR_SEND_FENCE) || wqe->length > qp->mtu)
		return -1;
	return qp->pkt_op[wqe->opcode][DR_POS_ONLY];
}

static inline int
req_express_ready(const struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	int op = req_express_op(qp, wqe);

	if (op < 0 || dr_req_resending(qp))
		return -1;
	/* CHECK_WINDOW (IBA 9.7.1) */
	if (dr_qp_reliable(qp) && dr_psn_diff(qp->req.psn, dr_ho_acked_psn(qp)) >= (int32_t)qp->window)
		return -1;
	return op;
}

/*
 * Send @wqe, ready with packet opcode @opcode: 0, or 1 when its frame
 * cannot be built whole (another route, several SGEs, an L_Key to check
 * again, no mbuf): the general steps build it, or report what is wrong.
 */
static int
req_express_send(struct dr_qp_impl *qp, struct dr_worker *wk, struct dr_send_wqe *wqe, uint8_t opcode)
{
	struct rte_mbuf *m;

	req_wqe_start(wqe, qp->req.psn, 1);
	m = req_pkt_only(qp, &qp->req.tmpl, wqe, opcode, qp->req.psn);
	if (m == NULL)
		return 1;
	wk->stats.tx_express++;
	dr_wk_tx(wk, m);
	qp->req.psn = dr_psn_add(qp->req.psn, 1);
	req_wqe_sent(qp, wqe);
	qp->req.cur++;
	qp->req.offset = 0;
	return 0;
}

/*
 * The express step over a run (doc/guides/speed.rst, "The express path"):
 * the new one-packet SENDs and WRITEs from req.cur on, while they are
 * consecutive, each what req_express_ready() and req_express_send() would
 * do for it, with what those look up per WQE - the queue's head, the state
 * (SQD starts nothing new, IBA 10.3.1), the window (IBA 9.7.1: the
 * acknowledged PSN read once; it only moves forward meanwhile), the room
 * in the worker's staging - taken once for the run. At most @max frames;
 * for a QP without congestion control (its gate is the general loop's),
 * not resending. Stops at the first WQE it does not take whole; the caller
 * gives that one to the general steps. The number of WQEs sent.
 */
#define REQ_EXPRESS_RUN_MAX DR_MAX_PKTS_PER_QP_ROUND   /* WQEs one pass takes: its ops[] on the stack */

static unsigned int
req_express_run(struct dr_qp_impl *qp, struct dr_worker *wk, unsigned int max)
{
	struct dr_sq *sq = &qp->sq;
	uint32_t cur = qp->req.cur, psn = qp->req.psn, bytes = 0;
	bool reliable = dr_qp_reliable(qp);
	enum dr_wqe_state sent = reliable ? DR_WQE_SENT : DR_WQE_DONE;   /* req_wqe_sent()'s, once */
	unsigned int n, k, lim = RTE_MIN(max, dr_sq_head(sq) - cur);
	uint8_t ops[REQ_EXPRESS_RUN_MAX];

	if (qp->pub.state == DR_QPS_SQD)
		return 0;
	lim = RTE_MIN(lim, dr_tx_room(wk));
	if (reliable) {
		int32_t out = dr_psn_diff(psn, dr_ho_acked_psn(qp));

		lim = out >= (int32_t)qp->window ? 0 : RTE_MIN(lim, qp->window - (uint32_t)out);
	}
	lim = RTE_MIN(lim, (unsigned int)REQ_EXPRESS_RUN_MAX);
	/* the run: new WQEs of the express kinds, their packet opcodes */
	for (n = 0; n < lim; n++) {
		const struct dr_send_wqe *wqe = dr_sq_wqe(sq, cur + n);
		int op;

		if (wqe->state != DR_WQE_POSTED)
			break;
		op = req_express_op(qp, wqe);
		if (op < 0)
			break;
		ops[n] = (uint8_t)op;
	}
	/* their frames, straight into the worker's staging (lim is within its room) */
	n = dr_qp_pkt_only_burst(qp, &qp->req.tmpl, cur, ops, n, psn, dr_wk_tx_slots(wk), &bytes);
	for (k = 0; k < n; k++) {
		struct dr_send_wqe *wqe = dr_sq_wqe(sq, cur + k);

		req_wqe_psns(wqe, psn, 1);        /* built and sent at once: sent_once straight to true */
		dr_wqe_set_sent_once(wqe, true);
		dr_wqe_set_state(wqe, sent);
		psn = dr_psn_add(psn, 1);
	}
	dr_wk_tx_commit(wk, n, bytes);
	qp->req.psn = psn;
	qp->req.cur = cur + n;
	if (n != 0)
		qp->req.offset = 0;
	wk->stats.tx_express += n;
	return n;
}

/*
 * Congestion control's gate (lib/cc/dr_cc.h): may the QP send a frame now?
 * Without DCQCN, or at line rate, one branch; the rate machine runs here,
 * on the requester's lcore, taking the CNPs its receive stage counted.
 */
static inline bool
req_cc_ready(struct dr_qp_impl *qp, const struct dr_cc_ctx *cc, uint64_t *now)
{
	uint32_t cnps;

	if (likely(cc->algo == DR_CC_NONE))
		return true;
	cnps = dr_cc_cnp_seen(&qp->cc_rx);
	if (likely(cnps == qp->cc_tx.cnp_taken && qp->cc_tx.pacer.rate == 0 &&
		   !dr_dcqcn_limited(&qp->cc_tx.rp, &cc->dcqcn_tsc)))
		return true;
	*now = rte_rdtsc();
	return dr_cc_tx_ready(&qp->cc_tx, cc, cnps, *now);
}

int
dr_req_progress(struct dr_qp_impl *qp)
{
	const struct dr_cc_ctx *cc = &qp->pub.context->cc;
	struct dr_worker *wk = dr_qp_wk(qp);
	uint32_t psn0 = qp->req.psn;
	uint64_t now = 0;
	bool blocked = false, express = qp->pub.context->express && qp->pub.qp_type != DR_QPT_UD;
	int n = 0;

	/*
	 * CNPs are taken every round, whether or not the QP can send now: a
	 * requester waiting on its window would otherwise take a burst of them
	 * at once, late, as one decrease (min_dec_period), and the rate
	 * machine's timers would raise the rate meanwhile
	 */
	if (unlikely(cc->algo != DR_CC_NONE) && dr_cc_cnp_seen(&qp->cc_rx) != qp->cc_tx.cnp_taken)
		dr_cc_tx_update(&qp->cc_tx, cc, dr_cc_cnp_seen(&qp->cc_rx), rte_rdtsc());
	qp->req.blocked = false;
	if (!dr_qp_can_send(qp) || dr_ho_rnr_waiting(qp))
		return 0;              /* IBA 9.7.5.2.8: nothing goes out during an RNR wait */
	if (!dr_req_resending(qp))
		qp->req.resend_end = qp->req.cur;   /* kept near cur: the indices wrap */
	/*
	 * The completer asked for a go-back-N; or responses of the old stream
	 * kept arriving after a rewind and moved the acknowledged PSN past
	 * req.psn: rewind from there (go-back-N restarts at the oldest PSN
	 * still unacknowledged, never before it).
	 */
	if (dr_ho_rewind_due(qp) || dr_psn_before(qp->req.psn, dr_ho_acked_psn(qp)))
		dr_req_rewind(qp);
	while (n < DR_MAX_PKTS_PER_QP_ROUND) {
		struct dr_send_wqe *wqe = req_next_wqe(qp);
		enum dr_req_verdict v;
		uint64_t bytes0;
		int op;

		if (wqe == NULL)
			break;
		/* a run of new one-packet SENDs and WRITEs at once; the WQE that ends it the general loop's */
		if (express && wqe->state == DR_WQE_POSTED && (unsigned int)wqe->opcode < 32 &&
		    (REQ_EXPRESS_OPS >> wqe->opcode & 1u) && likely(cc->algo == DR_CC_NONE) && !dr_req_resending(qp)) {
			unsigned int k = req_express_run(qp, wk, DR_MAX_PKTS_PER_QP_ROUND - n);

			if (k != 0) {
				n += (int)k;
				continue;
			}
		}
		/* the express step's checks, or the general ones */
		op = express && wqe->state == DR_WQE_POSTED ? req_express_ready(qp, wqe) : -1;
		v = op >= 0 ? REQ_GO : req_checks(qp, wqe);
		if (v == REQ_SKIP) {
			/* a READ completed ahead during a retry: the next request's PSN is after its responses */
			if (dr_wqe_done(wqe) && dr_psn_after(dr_psn_add(wqe->last_psn, 1), qp->req.psn))
				qp->req.psn = dr_psn_add(wqe->last_psn, 1);
			qp->req.cur++;
			qp->req.offset = 0;
			continue;
		}
		if (v == REQ_WAIT)
			break;
		if (dr_tx_room(wk) == 0 || !req_cc_ready(qp, cc, &now)) {
			blocked = true;
			break;         /* a QP waiting for its rate leaves the round to the others */
		}
		bytes0 = wk->tx_staged_bytes;
		/* a frame the express step does not build whole: the general step's, as are its errors */
		if ((op < 0 || req_express_send(qp, wk, wqe, (uint8_t)op) != 0) && req_send_pkt(qp, wqe) != 0) {
			blocked = true;
			break;         /* no mbuf / MAC yet: next round; local error: completer ends it */
		}
		if (qp->cc_tx.pacer.rate != 0)
			dr_cc_tx_sent(&qp->cc_tx, cc, now, (uint32_t)(wk->tx_staged_bytes - bytes0));
		n++;
	}
	qp->req.blocked = blocked || n == DR_MAX_PKTS_PER_QP_ROUND;
	/* the completer learns what went out (and arms its ACK timer, IBA 9.7.6.1.3) */
	if (qp->req.psn != psn0)
		dr_ho_req_sent(qp, wk->clock.now);
	return n;
}
