/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The RC and UC responder (IBA vol. 1, 9.7.5.1; 9.8 for UC): checks each
 * request in the order of the spec, executes it, and acknowledges (RC).
 *
 *   CHK_PSN       in sequence / duplicate / out of sequence (9.7.5.1.1)
 *   CHK_OP_SEQ    MIDDLE/LAST continue a FIRST of the same family; FIRST/ONLY
 *                 never inside an open message (9.7.5.1.2)
 *   CHK_OP_VALID  the QP's remote access flags permit the operation (9.7.5.1.2,
 *                 ibv_modify_qp(3) qp_access_flags), the operation is supported
 *   CHK_RESOURCE  a receive WQE for SEND / WRITE with immediate, else RNR NAK
 *                 (9.7.5.1.x, 9.7.5.2.8); a responder resource for READ/atomic
 *   CHK_LENGTH    payload sizes by position (9.7.5.1.x: FIRST/MIDDLE == PMTU,
 *                 LAST 1..PMTU, ONLY 0..PMTU), message within the receive WQE
 *                 or the RETH length
 *   CHK_RKEY      R_Key, PD, bounds and rights of the target region (9.7.5.1.3,
 *                 10.6.3.2, C9-88); a zero-length RDMA names no region (rxe)
 *   EXECUTE       place the payload, start READ responses, do the atomic
 *   COMPLETE      receive completion for SEND / WRITE with immediate (9.7.5.1.5)
 *   ACKNOWLEDGE   advance the expected PSN and the MSN (9.7.5.1.6), owe an ACK
 *
 * Error steps, one per NAK class (IBA 9.7.5.1.x, table 43/44; the classes of
 * rxe_resp.c):
 *   DUPLICATE     re-ACK SEND/WRITE (C9-105), replay READ from its resource,
 *                 resend the saved atomic ACK (never re-execute, 9.7.5.1.4)
 *   ERR_PSN_SEQ   class B: one PSN sequence error NAK, drop (9.7.5.2.2)
 *   ERR_RNR       class B: RNR NAK with min_rnr_timer, PSN not advanced
 *   ERR_CLASS_C   invalid request / remote access / remote operational error:
 *                 NAK, complete the receive WQE in error if one was taken, QP
 *                 to ERR (rxe do_class_ac_error() + rxe_qp_error())
 *
 * UC (IBA 9.8.x; rxe's drop_msg): the same checks and execution, but nothing
 * is acknowledged and nothing is NAKed. A packet out of sequence, an
 * operation the QP does not allow, a missing receive WQE or a bad R_Key
 * drop the rest of the message (DROP); the next FIRST or ONLY packet, at any
 * PSN, starts over, reusing a receive WQE the dropped message had begun to
 * fill. Errors of the receive WQE itself (too small, bad L_Key) complete it
 * in error and move the QP to ERR, as for RC.
 *
 * ACKs are coalesced: a request with AckReq (or every DR_RESP_ACK_EVERY
 * requests) leaves one ACK owed, carrying the newest executed PSN; it goes out
 * in dr_resp_progress(), once per round. Credits are 0x1F ("invalid", as rxe's
 * AETH_ACK_UNLIMITED): there is no end-to-end credit flow control.
 *
 * READ responses go out in PSN order, so requests that arrive while a READ is
 * being answered wait in resp.pend and are handled after it (rxe keeps them in
 * its packet queue the same way).
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_mbuf.h>

#include "dr_log.h"
#include "dr_mw.h"
#include "dr_psn.h"
#include "dr_resp.h"
#include "dr_resp_ack.h"
#include "dr_resp_read.h"
#include "dr_resp_sr.h"
#include "dr_srq.h"
#include "dr_transport.h"

enum dr_resp_step {
	RESP_CHK_PSN,
	RESP_CHK_XRC,
	RESP_CHK_OP_SEQ,
	RESP_CHK_OP_VALID,
	RESP_CHK_RESOURCE,
	RESP_CHK_LENGTH,
	RESP_CHK_RKEY,
	RESP_EXECUTE,
	RESP_COMPLETE,
	RESP_ACKNOWLEDGE,
	RESP_DUPLICATE,
	RESP_ERR_PSN_SEQ,
	RESP_ERR_RNR,
	RESP_ERR_CLASS_C,
	RESP_DROP,
	RESP_DONE,
};

/* The request being handled. */
struct resp_ctx {
	struct rte_mbuf *m;
	struct dr_pkt_info *pi;
	uint32_t mask;
	uint32_t psn;
	uint32_t paylen;
	/* target of an RDMA / atomic request, from CHK_RKEY (tgt.mr NULL: none, zero-length) */
	struct dr_rkey_target tgt;
	uint64_t va;
	uint32_t len;
	/* class C error: NAK code and the receive WQE's status */
	uint8_t nak;
	enum dr_wc_status status;
	bool placed;                  /* the payload is in place already (dr_resp_place.c) */
};

/* Step CHK_PSN of UC (IBA 9.8.x: no duplicates and no NAKs on UC; rxe check_psn()). */
static enum dr_resp_step
resp_uc_chk_psn(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	if (c->psn == qp->resp.epsn && !qp->resp.uc_drop)
		return RESP_CHK_OP_SEQ;
	if (!(c->mask & DR_OPF_FIRST))
		return RESP_DROP;         /* a packet of the message was lost: the rest goes too */
	/* a new message, at whatever PSN: the one in progress is abandoned */
	qp->resp.uc_drop = false;
	qp->resp.in_msg = DR_RESP_MSG_NONE;
	qp->resp.rcv_off = 0;
	qp->resp.epsn = c->psn;
	return RESP_CHK_OP_SEQ;
}

/* Step CHK_PSN (IBA 9.7.5.1.1; rxe check_psn()). */
static enum dr_resp_step
resp_chk_psn(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	int32_t diff = dr_psn_diff(c->psn, qp->resp.epsn);

	if (qp->pub.qp_type == DR_QPT_UC)
		return resp_uc_chk_psn(qp, c);

	if (diff > 0) {
		/* selective repeat: kept for its turn, the requester told what is missing (dr_resp_sr.c) */
		if (dr_qp_sr(qp)) {
			if (dr_resp_sr_hold(qp, c->m, c->psn))
				c->m = NULL;
			return RESP_DONE;
		}
		/* out of sequence: one NAK per sequence error, later packets dropped silently */
		if (qp->resp.nak_sent)
			return RESP_DONE;
		qp->resp.nak_sent = true;
		return RESP_ERR_PSN_SEQ;
	}
	if (diff < 0) {
		dr_qp_wk(qp)->stats.rx_duplicate++;
		return RESP_DUPLICATE;    /* within the 2^23 PSNs before epsn */
	}
	qp->resp.nak_sent = false;
	return RESP_CHK_XRC;
}

/*
 * Step CHK_XRC (XRC targets; IBA XRC annex): the XRCETH names an XRC SRQ of
 * the QP's domain, which gives the receive WQEs, the PD the R_Keys are
 * checked against and the CQ; a message keeps its SRQ. Anything else is an
 * invalid request.
 */
static enum dr_resp_step
resp_chk_xrc(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	struct dr_srq_impl *srq;

	if (qp->pub.qp_type != DR_QPT_XRC_RECV)
		return RESP_CHK_OP_SEQ;
	srq = dr_srq_lookup(qp->pub.context, dr_xrceth_srq(dr_pkt_xrceth(c->pi)));
	if (srq == NULL || srq->type != DR_SRQT_XRC || srq->xrcd != qp->xrcd ||
	    (qp->resp.in_msg != DR_RESP_MSG_NONE && srq != qp->srq)) {
		c->nak = DR_NAK_INVALID_REQ;
		c->status = DR_WC_REM_INV_REQ_ERR;
		return RESP_ERR_CLASS_C;
	}
	qp->srq = srq;
	qp->pub.pd = srq->pub.pd;
	return RESP_CHK_OP_SEQ;
}

/* Step CHK_OP_SEQ (IBA 9.7.5.1.2; rxe check_op_seq(): a missing FIRST or LAST is class C). */
static enum dr_resp_step
resp_chk_op_seq(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	uint32_t mask = c->mask;
	bool cont = !(mask & DR_OPF_FIRST) && (mask & (DR_OPF_MIDDLE | DR_OPF_LAST));
	bool ok;

	switch (qp->resp.in_msg) {
	case DR_RESP_MSG_SEND:
		ok = cont && (mask & DR_OPF_SEND);
		break;
	case DR_RESP_MSG_WRITE:
		ok = cont && (mask & DR_OPF_WRITE);
		break;
	default:
		ok = !cont;
		break;
	}
	if (ok)
		return RESP_CHK_OP_VALID;
	c->nak = DR_NAK_INVALID_REQ;
	c->status = DR_WC_REM_INV_REQ_ERR;
	return RESP_ERR_CLASS_C;
}

/* Step CHK_OP_VALID (IBA 9.7.5.1.2; rxe check_op_valid(): class C, invalid request). */
static enum dr_resp_step
resp_chk_op_valid(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	unsigned int acc = qp->attr.qp_access_flags;
	uint32_t mask = c->mask;

	if (((mask & DR_OPF_READ) && !(acc & DR_ACCESS_REMOTE_READ)) ||
	    ((mask & DR_OPF_WRITE) && !(acc & DR_ACCESS_REMOTE_WRITE)) ||
	    ((mask & DR_OPF_ATOMIC) && !(acc & DR_ACCESS_REMOTE_ATOMIC)) ||
	    /* not executed by this responder (IBA 1.5 placement operations) */
	    (mask & (DR_OPF_FLUSH | DR_OPF_ATOMIC_WRITE))) {
		c->nak = DR_NAK_INVALID_REQ;
		c->status = DR_WC_REM_INV_REQ_ERR;
		return RESP_ERR_CLASS_C;
	}
	return RESP_CHK_RESOURCE;
}

/* Step CHK_RESOURCE (IBA 9.7.5.1.x; rxe check_resource()). */
static enum dr_resp_step
resp_chk_resource(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	if (c->mask & (DR_OPF_READ | DR_OPF_ATOMIC)) {
		/* the requester keeps within max_dest_rd_atomic; resources are recycled (rxe) */
		if (qp->attr.max_dest_rd_atomic == 0) {
			c->nak = DR_NAK_INVALID_REQ;
			c->status = DR_WC_REM_INV_REQ_ERR;
			return RESP_ERR_CLASS_C;
		}
		return RESP_CHK_LENGTH;
	}
	if ((c->mask & DR_OPF_RWR) && !qp->resp.have_rwqe) {
		if (!dr_rwqe_available(qp))  /* IBA 9.7.5.2.8: receiver not ready; UC: dropped */
			return qp->pub.qp_type == DR_QPT_UC ? RESP_DROP : RESP_ERR_RNR;
		dr_rwqe_take(qp);
		qp->resp.have_rwqe = true;
	}
	return RESP_CHK_LENGTH;
}

/* Step CHK_LENGTH (IBA 9.7.5.1.x, packet payload lengths by position; rxe check_length() / check_rkey()). */
static enum dr_resp_step
resp_chk_length(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	uint32_t mask = c->mask, pay = c->paylen, mtu = qp->mtu;
	bool first = mask & DR_OPF_FIRST, last = mask & DR_OPF_LAST;
	bool ok = true;

	if (first && last)
		ok = pay <= mtu;                          /* ONLY: 0..PMTU */
	else if (first || (mask & DR_OPF_MIDDLE))
		ok = pay == mtu;                          /* FIRST, MIDDLE: exactly PMTU */
	else if (last)
		ok = pay > 0 && pay <= mtu;               /* LAST: 1..PMTU */
	if (ok && (mask & DR_OPF_RETH) && dr_reth_len(dr_pkt_reth(c->pi)) > DR_RETH_MAX_LEN)
		ok = false;
	if (ok && (mask & DR_OPF_WRITE)) {
		/* the packets must add up to the RETH's DMA length exactly */
		uint32_t resid = (mask & DR_OPF_RETH) ? dr_reth_len(dr_pkt_reth(c->pi)) : qp->resp.write_resid;

		ok = last ? pay == resid : pay < resid;
	}
	if (!ok) {
		c->nak = DR_NAK_INVALID_REQ;
		c->status = DR_WC_REM_INV_REQ_ERR;
		return RESP_ERR_CLASS_C;
	}
	if (mask & DR_OPF_SEND) {
		const struct dr_recv_wqe *rwqe = dr_rwqe_cur(qp);
		uint32_t off = first ? 0 : qp->resp.rcv_off;

		/* the message does not fit the receive WQE: the receiver sees a local length error,
		 * the requester an invalid request NAK (IBA 9.7.5.1.x; ibv_poll_cq(3) LOC_LEN_ERR) */
		if ((uint64_t)off + pay > rwqe->length) {
			c->nak = DR_NAK_INVALID_REQ;
			c->status = DR_WC_LOC_LEN_ERR;
			return RESP_ERR_CLASS_C;
		}
	}
	return RESP_CHK_RKEY;
}

/* Step CHK_RKEY (IBA 9.7.5.1.3, 10.6.3.2, C9-88; rxe check_rkey(): class C, remote access error). */
static enum dr_resp_step
resp_chk_rkey(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	uint32_t mask = c->mask, rkey;

	if (mask & DR_OPF_RETH) {
		const struct dr_reth *reth = dr_pkt_reth(c->pi);

		c->va = dr_reth_va(reth);
		c->len = dr_reth_len(reth);
		rkey = dr_reth_rkey(reth);
		if (c->len == 0)
			return RESP_EXECUTE;   /* a zero-byte RDMA names no region (rxe, IBA 9.4.x) */
	} else if (mask & DR_OPF_ATMETH) {
		const struct dr_atmeth *ae = dr_pkt_atmeth(c->pi);

		c->va = dr_atmeth_va(ae);
		c->len = sizeof(uint64_t);
		rkey = dr_atmeth_rkey(ae);
	} else {
		return RESP_EXECUTE;           /* SEND, or a WRITE MIDDLE/LAST (checked at its FIRST) */
	}
	if (!dr_resp_target(qp, rkey, c->va, c->len, dr_mr_remote_rights(mask), &c->tgt)) {
		c->nak = DR_NAK_REM_ACCESS_ERR;
		c->status = DR_WC_REM_ACCESS_ERR;
		return RESP_ERR_CLASS_C;
	}
	/* IBA 9.4.5: atomics need an 8-byte aligned address (rxe: invalid request) */
	if ((mask & DR_OPF_ATOMIC) && !dr_atomic_aligned(c->va)) {
		c->nak = DR_NAK_INVALID_REQ;
		c->status = DR_WC_REM_INV_REQ_ERR;
		return RESP_ERR_CLASS_C;
	}
	return RESP_EXECUTE;
}

/* EXECUTE of a SEND packet: into the receive WQE (IBA 9.7.5.1.5). */
static enum dr_resp_step
resp_exec_send(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	const struct dr_recv_wqe *rwqe = dr_rwqe_cur(qp);
	int rc;

	if (c->mask & DR_OPF_FIRST)
		qp->resp.rcv_off = 0;
	rc = c->placed ? 0 : dr_qp_sge_scatter(qp, rwqe->sge, rwqe->num_sge, qp->resp.rcv_off, c->m,
						c->pi->pay_off, c->paylen);
	if (rc != 0) {
		/* the receive WQE's buffers are bad: class A/C, remote operational error (rxe ERR_MALFORMED_WQE) */
		c->nak = rc == -EMSGSIZE ? DR_NAK_INVALID_REQ : DR_NAK_REM_OP_ERR;
		c->status = rc == -EMSGSIZE ? DR_WC_LOC_LEN_ERR : DR_WC_LOC_PROT_ERR;
		return RESP_ERR_CLASS_C;
	}
	qp->resp.rcv_off += c->paylen;
	qp->resp.in_msg = (c->mask & DR_OPF_LAST) ? DR_RESP_MSG_NONE : DR_RESP_MSG_SEND;
	return RESP_DONE;
}

/* EXECUTE of a WRITE packet: into the region of the RETH (IBA 9.7.5.1.3). */
static enum dr_resp_step
resp_exec_write(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	struct dr_resp_state *rs = &qp->resp;

	if (c->mask & DR_OPF_FIRST) {
		rs->rcv_off = 0;
		rs->write_mr = c->tgt.mr;
		rs->write_rkey = c->tgt.mr != NULL ? dr_reth_rkey(dr_pkt_reth(c->pi)) : 0;
		rs->write_va = c->va;
		rs->write_resid = c->len;
	}
	if (c->paylen != 0) {
		/* the region (or window) may have gone since the FIRST packet: look it up again (rxe recheck) */
		struct dr_rkey_target t;

		if (!dr_resp_target(qp, rs->write_rkey, rs->write_va, c->paylen, DR_ACCESS_REMOTE_WRITE, &t) ||
		    t.mr != rs->write_mr) {
			c->nak = DR_NAK_REM_ACCESS_ERR;
			c->status = DR_WC_REM_ACCESS_ERR;
			return RESP_ERR_CLASS_C;
		}
		if (!c->placed)
			dr_mbuf_copy_out(c->m, c->pi->pay_off, c->paylen, dr_rkey_host(&t, rs->write_va));
	}
	rs->write_va += c->paylen;
	rs->write_resid -= c->paylen;
	rs->rcv_off += c->paylen;
	rs->in_msg = (c->mask & DR_OPF_LAST) ? DR_RESP_MSG_NONE : DR_RESP_MSG_WRITE;
	return RESP_DONE;
}

/* EXECUTE of a READ request: a resource, responses from dr_resp_progress() (IBA 9.7.5.1.3, 9.7.4.1.3). */
static enum dr_resp_step
resp_exec_read(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	dr_resp_read_exec(qp, c->psn, c->va, dr_reth_rkey(dr_pkt_reth(c->pi)), c->len);
	return RESP_DONE;
}

/* EXECUTE of CmpSwap / FetchAdd (IBA 9.4.5; the result is kept for duplicates, 9.7.5.1.4). */
static enum dr_resp_step
resp_exec_atomic(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	const struct dr_atmeth *ae = dr_pkt_atmeth(c->pi);
	uint64_t *p = (uint64_t *)(void *)dr_rkey_host(&c->tgt, c->va);
	struct dr_resp_res *res;
	uint64_t orig;
	int idx;

	if ((c->pi->opcode & DR_OPCODE_OP_MASK) == DR_OP_CMP_SWAP) {
		orig = dr_atmeth_comp(ae);
		/* on failure orig receives the current value; on success it already equals it */
		__atomic_compare_exchange_n(p, &orig, dr_atmeth_swap_add(ae), false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, dr_atmeth_swap_add(ae), __ATOMIC_SEQ_CST);
	}
	res = dr_resp_new_res(qp, &idx);
	res->is_read = false;
	res->first_psn = res->last_psn = c->psn;
	res->va = c->va;
	res->rkey = dr_atmeth_rkey(ae);
	res->length = sizeof(uint64_t);
	res->atomic_orig = orig;
	qp->resp.msn = (qp->resp.msn + 1) & DR_24BIT_MASK;
	qp->resp.epsn = dr_psn_add(c->psn, 1);
	qp->resp.dup_ack_psn = c->psn;
	/* the atomic ACK acknowledges everything before it; if it is lost the retried request gets it again */
	qp->resp.ack_pending = false;
	qp->resp.unacked = 0;
	dr_resp_send_atomic_ack(qp, c->psn, orig);
	return RESP_DONE;
}

/* Step EXECUTE (rxe execute()). */
static enum dr_resp_step
resp_execute(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	enum dr_resp_step next;

	if (c->mask & DR_OPF_SEND)
		next = resp_exec_send(qp, c);
	else if (c->mask & DR_OPF_WRITE)
		next = resp_exec_write(qp, c);
	else if (c->mask & DR_OPF_READ)
		return resp_exec_read(qp, c);
	else if (c->mask & DR_OPF_ATOMIC)
		return resp_exec_atomic(qp, c);
	else
		return RESP_DONE;
	if (next != RESP_DONE)
		return next;
	/* IBA 9.7.5.1.6: the MSN counts completed messages */
	if (c->mask & DR_OPF_LAST)
		qp->resp.msn = (qp->resp.msn + 1) & DR_24BIT_MASK;
	qp->resp.epsn = dr_psn_add(c->psn, 1);
	qp->resp.dup_ack_psn = c->psn;
	return (c->mask & DR_OPF_COMP) ? RESP_COMPLETE : RESP_ACKNOWLEDGE;
}

/* Post a receive completion for the WQE at the RQ's tail and free it. Returns 0 or -EOVERFLOW. */
static int
resp_post_recv_wc(struct dr_qp_impl *qp, struct resp_ctx *c, enum dr_wc_status status)
{
	const struct dr_recv_wqe *rwqe = dr_rwqe_cur(qp);
	struct dr_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rwqe->wr_id;
	wc.status = status;
	wc.qp_num = qp->pub.qp_num;
	wc.src_qp = qp->attr.dest_qp_num;
	if (status == DR_WC_SUCCESS) {
		bool write = c->mask & DR_OPF_WRITE;

		wc.opcode = write ? DR_WC_RECV_RDMA_WITH_IMM : DR_WC_RECV;
		/* rxe: the bytes received, or for WRITE with immediate the length written */
		wc.byte_len = qp->resp.rcv_off;
		if (c->mask & DR_OPF_IMMDT) {
			wc.imm_data = dr_immdt_imm(dr_pkt_immdt(c->pi));
			wc.wc_flags |= DR_WC_WITH_IMM;
		}
		if (c->mask & DR_OPF_IETH) {
			wc.invalidated_rkey = dr_ieth_rkey(dr_pkt_ieth(c->pi));
			wc.wc_flags |= DR_WC_WITH_INV;
		}
	} else {
		wc.opcode = DR_WC_RECV;
	}
	dr_rwqe_done(qp);
	qp->resp.have_rwqe = false;
	qp->resp.rcv_off = 0;
	/* BTH.SE of the message's last packet makes it a solicited completion (IBA 9.2.3) */
	return dr_cq_push_se(dr_cq_impl(dr_resp_recv_cq(qp)), &wc, dr_bth_se(dr_pkt_bth(c->pi)));
}

/* Step COMPLETE (IBA 9.7.5.1.5; rxe do_complete()). */
static enum dr_resp_step
resp_complete(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	/*
	 * SEND with invalidate (IBA 9.4.1.x, 10.6.7.3): the R_Key the IETH
	 * names - a type 2 window bound through this QP - is invalidated as the
	 * message completes; one that cannot be is an invalid request (rxe).
	 */
	if ((c->mask & DR_OPF_IETH) && dr_mw_remote_invalidate(qp, dr_ieth_rkey(dr_pkt_ieth(c->pi))) != 0) {
		c->nak = DR_NAK_INVALID_REQ;
		c->status = DR_WC_REM_INV_REQ_ERR;
		return RESP_ERR_CLASS_C;
	}
	if (resp_post_recv_wc(qp, c, DR_WC_SUCCESS) != 0) {
		/* receive CQ overrun: IBA 11.4.2.1, the QP goes to ERR (rxe class G) */
		dr_qp_fail(qp, false);
		return RESP_DONE;
	}
	return RESP_ACKNOWLEDGE;
}

/* Step ACKNOWLEDGE (IBA 9.7.5.1.6): owe an ACK for the newest PSN when asked or every N requests. */
static enum dr_resp_step
resp_acknowledge(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	if (!dr_qp_reliable(qp))
		return RESP_DONE;         /* UC: unacknowledged */
	qp->resp.unacked++;
	if (qp->resp.ack_pending || dr_bth_ackreq(dr_pkt_bth(c->pi)) || qp->resp.unacked >= DR_RESP_ACK_EVERY)
		dr_resp_owe(qp, DR_RESP_SYN_ACK, c->psn);
	return RESP_DONE;
}

/* Step DUPLICATE (IBA 9.7.5.1.1 C9-105, 9.7.5.1.3, 9.7.5.1.4; rxe duplicate_request()). */
static enum dr_resp_step
resp_duplicate(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	struct dr_resp_res *res;
	int idx;

	if (c->mask & (DR_OPF_SEND | DR_OPF_WRITE)) {
		/*
		 * C9-105: ACK again, with the current MSN and the PSN of the newest
		 * request that was not a READ: an ACK at a READ's PSN would tell the
		 * requester that READ's responses were lost (rxe commit "fix for
		 * duplicate request processing and ack psns"). An owed NAK stays owed.
		 */
		if (!qp->resp.ack_pending)
			dr_resp_owe(qp, DR_RESP_SYN_ACK, qp->resp.dup_ack_psn);
		return RESP_DONE;
	}
	res = dr_resp_find_res(qp, c->psn, &idx);
	if (res == NULL) {
		DR_DP_LOG(resp, DEBUG, "qp %u: duplicate psn %#x: no resource holds it, dropped", qp->pub.qp_num, c->psn);
		return RESP_DONE;              /* too old: class D, silently dropped (rxe) */
	}
	if (c->mask & DR_OPF_READ) {
		const struct dr_reth *reth = dr_pkt_reth(c->pi);
		uint64_t va = dr_reth_va(reth);
		uint32_t len = dr_reth_len(reth);

		/* the retried READ must be the original or a tail of it (rxe) */
		if (!res->is_read || dr_reth_rkey(reth) != res->rkey || va < res->va ||
		    va - res->va > res->length || len > res->length - (va - res->va)) {
			DR_DP_LOG(resp, DEBUG, "qp %u: duplicate READ psn %#x: not a part of the READ at psn %#x, dropped",
				  qp->pub.qp_num, c->psn, res->first_psn);
			return RESP_DONE;
		}
		DR_DP_LOG(resp, DEBUG, "qp %u: duplicate READ psn %#x: answered again from byte %" PRIu64 ", %u bytes",
			  qp->pub.qp_num, c->psn, va - res->va, len);
		res->start = res->sent = (uint32_t)(va - res->va);
		res->end = res->start + len;
		res->next_psn = c->psn;
		qp->resp.res_active = idx;
		qp->resp.ack_pending = false;
		return RESP_DONE;
	}
	if ((c->mask & DR_OPF_ATOMIC) && !res->is_read && res->first_psn == c->psn)
		dr_resp_send_atomic_ack(qp, c->psn, res->atomic_orig);
	return RESP_DONE;
}

/* Step ERR_PSN_SEQ (IBA 9.7.5.2.2, class B): NAK with the expected PSN, drop. */
static enum dr_resp_step
resp_err_psn_seq(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	RTE_SET_USED(c);
	dr_resp_owe(qp, dr_aeth_syn_make(DR_AETH_NAK, DR_NAK_PSN_SEQ_ERR), qp->resp.epsn);
	return RESP_DONE;
}

/* Step ERR_RNR (IBA 9.7.5.2.8, class B): RNR NAK with our min_rnr_timer, PSN not advanced. */
static enum dr_resp_step
resp_err_rnr(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	dr_resp_owe(qp, dr_aeth_syn_make(DR_AETH_RNR_NAK, qp->attr.min_rnr_timer), c->psn);
	/* the packets behind it are dropped without a PSN NAK until the retry arrives */
	qp->resp.nak_sent = true;
	return RESP_DONE;
}

/* Step DROP (UC, IBA 9.8.x; rxe drop_msg): this packet and the rest of its message are dropped. */
static enum dr_resp_step
resp_drop(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	DR_DP_LOG(resp, DEBUG, "qp %u: %s psn %#x dropped (expected %#x)", qp->pub.qp_num,
		  dr_opcode_name(c->pi->opcode), c->psn, qp->resp.epsn);
	dr_qp_wk(qp)->stats.rx_dropped++;
	qp->resp.uc_drop = true;
	qp->resp.in_msg = DR_RESP_MSG_NONE;
	return RESP_DONE;
}

/* Errors of the receive WQE itself (it completes in error, class D on UC), not of the request. */
static inline bool
status_is_local(enum dr_wc_status st)
{
	return st == DR_WC_LOC_LEN_ERR || st == DR_WC_LOC_PROT_ERR;
}

/* Step ERR_CLASS_C (IBA 9.7.5.1.x; rxe do_class_ac_error() + do_complete() + rxe_qp_error()). */
static enum dr_resp_step
resp_err_class_c(struct dr_qp_impl *qp, struct resp_ctx *c)
{
	uint8_t syn = dr_aeth_syn_make(DR_AETH_NAK, c->nak);
	bool rc = dr_qp_reliable(qp);

	/* UC: a bad request is dropped with the rest of its message (rxe), no NAK exists */
	if (!rc && !status_is_local(c->status))
		return RESP_DROP;
	DR_DP_LOG(resp, DEBUG, "qp %u: %s psn %#x: NAK %u, QP to ERR", qp->pub.qp_num,
		  dr_opcode_name(c->pi->opcode), c->psn, c->nak);
	qp->resp.ack_pending = false;
	if (rc && dr_resp_send_ack(qp, dr_qp_rel_opcode(qp, DR_OP_ACK), syn, c->psn, 0) != 0) {
		/* no MAC, mbuf or room yet: the QP goes to ERR, the NAK still goes out (dr_resp_progress()) */
		qp->resp.final_nak_pending = true;
		qp->resp.final_nak_syndrome = syn;
		qp->resp.final_nak_psn = c->psn;
	}
	if (qp->resp.have_rwqe)
		resp_post_recv_wc(qp, c, c->status);
	qp->resp.in_msg = DR_RESP_MSG_NONE;
	dr_resp_drain(qp);
	/* the affiliated asynchronous error of the responder (IBA 11.6.3.1; ibv_get_async_event(3)) */
	dr_async_raise(qp->pub.context, c->nak == DR_NAK_INVALID_REQ ? DR_EVENT_QP_REQ_ERR :
			c->nak == DR_NAK_REM_ACCESS_ERR ? DR_EVENT_QP_ACCESS_ERR : DR_EVENT_QP_FATAL, &qp->pub);
	dr_qp_fail(qp, true);          /* finished send WQEs complete before the flush */
	return RESP_DONE;
}

void
dr_resp_handle(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi, bool placed)
{
	struct resp_ctx c = {
		.m = m,
		.pi = pi,
		.mask = pi->mask,
		.psn = dr_bth_psn(dr_pkt_bth(pi)),
		.paylen = pi->paylen,
		.placed = placed,
	};
	enum dr_resp_step step = RESP_CHK_PSN;

	while (step != RESP_DONE) {
		switch (step) {
		case RESP_CHK_PSN: step = resp_chk_psn(qp, &c); break;
		case RESP_CHK_XRC: step = resp_chk_xrc(qp, &c); break;
		case RESP_CHK_OP_SEQ: step = resp_chk_op_seq(qp, &c); break;
		case RESP_CHK_OP_VALID: step = resp_chk_op_valid(qp, &c); break;
		case RESP_CHK_RESOURCE: step = resp_chk_resource(qp, &c); break;
		case RESP_CHK_LENGTH: step = resp_chk_length(qp, &c); break;
		case RESP_CHK_RKEY: step = resp_chk_rkey(qp, &c); break;
		case RESP_EXECUTE: step = resp_execute(qp, &c); break;
		case RESP_COMPLETE: step = resp_complete(qp, &c); break;
		case RESP_ACKNOWLEDGE: step = resp_acknowledge(qp, &c); break;
		case RESP_DUPLICATE: step = resp_duplicate(qp, &c); break;
		case RESP_ERR_PSN_SEQ: step = resp_err_psn_seq(qp, &c); break;
		case RESP_ERR_RNR: step = resp_err_rnr(qp, &c); break;
		case RESP_ERR_CLASS_C: step = resp_err_class_c(qp, &c); break;
		case RESP_DROP: step = resp_drop(qp, &c); break;
		default: step = RESP_DONE; break;
		}
	}
	rte_pktmbuf_free(c.m);        /* NULL when held (selective repeat) */
}

void
dr_resp_nak_read_access(struct dr_qp_impl *qp)
{
	struct dr_resp_res *res = &qp->resp.res[qp->resp.res_active];
	struct dr_pkt_info pi = { .opcode = dr_qp_rel_opcode(qp, DR_OP_READ_REQ), .mask = 0 };
	struct resp_ctx c = { .nak = DR_NAK_REM_ACCESS_ERR, .status = DR_WC_REM_ACCESS_ERR,
			      .psn = res->next_psn, .pi = &pi };

	qp->resp.res_active = -1;
	resp_err_class_c(qp, &c);
}

void
dr_resp_handle_held(struct dr_qp_impl *qp, struct rte_mbuf *m)
{
	struct dr_pkt_info pi;

	if (dr_pkt_parse(m, &pi) != DR_PKT_OK) {      /* parsed once already: cannot fail */
		rte_pktmbuf_free(m);
		return;
	}
	dr_resp_handle(qp, m, &pi, false);
}
