/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The responder's express path (doc/guides/speed.rst, "The express path"):
 * the common request - an RC or UC SEND ONLY or RDMA WRITE ONLY, with or
 * without immediate, or an RC RDMA READ request, at the expected PSN, to a
 * QP that is taking requests and has nothing else under way - executed
 * straight from the frame's fixed offsets (dr_pkt_express.h),
 * without the step machine of dr_resp.c, a struct dr_pkt_info or a second
 * R_Key lookup.
 *
 * It takes a request only where every step of the general path (the checks
 * of dr_engine.c's rx_one(), then dr_resp_rx_placed() and dr_resp_handle())
 * would pass, and leaves behind exactly the state, memory, completions and
 * counters those steps leave. Everything else - a duplicate or a PSN gap,
 * an R_Key or length the general path NAKs, no receive WQE, an ECN mark, a
 * bad ICRC, a QP answering READs or holding requests - returns false
 * before anything is changed, and the general path handles the frame from
 * its start: the general path stays the oracle, and the differential test
 * (test/unit/test_express.c) runs the same frames through both.
 *
 * What makes the short cut safe where it skips work:
 *  - The IPv4 header checksum, lengths, transport version and partition are
 *    checked as the general parse checks them (dr_pkt_xp_parse()).
 *  - The source and destination addresses are compared as IPv4 addresses
 *    against the connection's IPv4-mapped GIDs: the same comparison as
 *    rx_check_addr()'s on 16-byte GIDs, without building them.
 *  - A WRITE ONLY names its region once: the general path looks the R_Key
 *    up again for the payload (resp_exec_write()), with the same key,
 *    address and length in the same thread, and finds the same region. An
 *    R_Key of a memory window is left to the general path.
 *  - The ICRC is checked before any byte is placed (IBA 7.8.1: a packet
 *    with a bad one is dropped): the general path then counts it.
 */

#include <string.h>

#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "dr_mw.h"
#include "dr_pkt_express.h"
#include "dr_resp_ack.h"
#include "dr_resp_express.h"
#include "dr_resp_read.h"
#include "dr_srq.h"
#include "dr_transport.h"

/* The frame comes from the connection's peer to its GID (rx_check_addr(), on IPv4 addresses). */
static inline bool
xp_from_peer(const struct dr_qp_impl *qp, const struct dr_pkt_xp *x)
{
	uint64_t addrs;

	memcpy(&addrs, x->frame + DR_XP_L3_OFF + 12, sizeof(addrs));   /* source, destination */
	return qp->xp_peer_v4 && addrs == qp->xp_peer_addrs;
}

/*
 * The QP takes a request at once (dr_resp_rx_placed()), outside a message
 * (resp_chk_op_seq(): an ONLY packet opens and closes one), with no receive
 * WQE taken and nothing held: no READ being answered or queued, no request
 * waiting behind one, none held by selective repeat. A READ request may
 * come while READs are answered, where the general path executes it at
 * once too (resp_read_queueable(): nothing else waits, a resource free).
 */
static inline bool
xp_qp_ready(const struct dr_qp_impl *qp, const struct dr_pkt_xp *x)
{
	const struct dr_resp_state *rs = &qp->resp;
	enum dr_qp_type t = qp->pub.qp_type;

	return ((t == DR_QPT_RC && (x->opcode & DR_OPCODE_TRANSPORT_MASK) == DR_TRANSPORT_RC) ||
		(t == DR_QPT_UC && (x->opcode & DR_OPCODE_TRANSPORT_MASK) == DR_TRANSPORT_UC && !rs->uc_drop)) &&
	       dr_qp_can_receive(qp) && !qp->comm_est_armed &&
	       (!dr_resp_busy(qp) ||
		((x->opcode & DR_OPCODE_OP_MASK) == DR_OP_READ_REQ && dr_resp_read_room(qp))) &&
	       rs->sr_count == 0 && rs->in_msg == DR_RESP_MSG_NONE && !rs->have_rwqe && x->psn == rs->epsn;
}

/*
 * RDMA WRITE ONLY (with immediate: @ext DR_RETH_BYTES + 4): checked
 * (resp_chk_op_valid(), resp_chk_length(), resp_chk_rkey()) and placed; a
 * zero-length one names no region (rxe, IBA 9.4.x). *@byte_len: the bytes
 * written.
 */
static bool
xp_write_only(struct dr_qp_impl *qp, const struct dr_pkt_xp *x, uint32_t ext, uint32_t *byte_len)
{
	const struct dr_reth *reth = (const struct dr_reth *)(x->bth + DR_BTH_BYTES);
	struct dr_resp_state *rs = &qp->resp;
	struct dr_mr_impl *mr = NULL;
	uint32_t paylen, rkey;
	uint64_t va;

	if (x->area < ext || x->pad > x->area - ext)
		return false;
	paylen = x->area - ext - x->pad;
	if (paylen > qp->mtu || dr_reth_len(reth) != paylen || !(qp->attr.qp_access_flags & DR_ACCESS_REMOTE_WRITE))
		return false;
	va = dr_reth_va(reth);
	rkey = dr_reth_rkey(reth);
	/* an MR of the QP's (a window's R_Key: the general path's), its bounds and rights (IBA 10.6.3.2) */
	if (paylen != 0) {
		mr = dr_rkey_mr(qp, rkey);
		if (mr == NULL || dr_mr_check_access(&mr->region, va, paylen, DR_ACCESS_REMOTE_WRITE) != 0)
			return false;
	}
	if (!dr_icrc_xp_ok(x))
		return false;
	if (paylen != 0)
		rte_memcpy((uint8_t *)mr->pub.addr + (va - mr->region.iova), x->bth + DR_BTH_BYTES + ext, paylen);
	/* what resp_exec_write() leaves of a message it opened and closed */
	rs->write_mr = mr;
	rs->write_rkey = mr != NULL ? rkey : 0;
	rs->write_va = va + paylen;
	rs->write_resid = 0;
	rs->rcv_off = paylen;
	*byte_len = paylen;
	return true;
}

/* SEND ONLY (with immediate: @ext 4) into the receive WQE at the RQ's tail: checked (resp_chk_length()) and scattered. */
static bool
xp_send_only(struct dr_qp_impl *qp, const struct dr_pkt_xp *x, uint32_t ext, uint32_t *byte_len)
{
	const struct dr_recv_wqe *rwqe = dr_rq_wqe(&qp->rq, qp->rq.tail);
	uint32_t paylen;

	if (x->area < ext || x->pad > x->area - ext)
		return false;
	paylen = x->area - ext - x->pad;
	if (paylen > qp->mtu || paylen > rwqe->length || !dr_icrc_xp_ok(x))
		return false;
	/*
	 * One SGE, its L_Key, PD, bounds and LOCAL_WRITE checked by the post
	 * (dr_rq_post_one(), the QP's own RQ) and no MR deregistered since
	 * (ctx->mr_gen): copied without a second check. Else scattered with
	 * the checks; a bad SGE: the general path scatters again, fails the
	 * same way and NAKs.
	 */
	if (rwqe->num_sge == 1 && rwqe->mr_gen == dr_post_mr_gen(qp))
		rte_memcpy((void *)(uintptr_t)rwqe->sge[0].addr, x->bth + DR_BTH_BYTES + ext, paylen);
	else if (dr_qp_sge_write(qp, rwqe->sge, rwqe->num_sge, 0, x->bth + DR_BTH_BYTES + ext, paylen) != 0)
		return false;
	*byte_len = paylen;
	return true;
}

/*
 * RDMA READ request of an RC QP (IBA 9.7.5.1.3): checked as resp_chk_op_valid(),
 * resp_chk_resource(), resp_chk_length() and resp_chk_rkey() check it (a
 * well-formed request only: a RETH and nothing after it) and executed by
 * dr_resp_read_exec(), as resp_exec_read() executes it: a responder
 * resource, active at once or queued behind the READs under way, its PSNs
 * taken. Its responses go out from dr_resp_progress() as the general
 * path's do, from the same resource.
 */
static bool
xp_read(struct dr_qp_impl *qp, const struct dr_pkt_xp *x)
{
	const struct dr_reth *reth = (const struct dr_reth *)(x->bth + DR_BTH_BYTES);
	uint32_t len;
	uint64_t va;

	if (qp->pub.qp_type != DR_QPT_RC || x->area != DR_RETH_BYTES || x->pad != 0 ||
	    !(qp->attr.qp_access_flags & DR_ACCESS_REMOTE_READ) || qp->attr.max_dest_rd_atomic == 0)
		return false;
	len = dr_reth_len(reth);
	va = dr_reth_va(reth);
	if (len > DR_RETH_MAX_LEN)
		return false;
	/* an MR of the QP's (a window's R_Key: the general path's), its bounds and rights (IBA 10.6.3.2) */
	if (len != 0) {
		struct dr_mr_impl *mr = dr_rkey_mr(qp, dr_reth_rkey(reth));

		if (mr == NULL || dr_mr_check_access(&mr->region, va, len, DR_ACCESS_REMOTE_READ) != 0)
			return false;
	}
	if (!dr_icrc_xp_ok(x))
		return false;
	/* resp_chk_psn(): in sequence; resp_exec_read() */
	qp->resp.nak_sent = false;
	dr_resp_read_exec(qp, x->psn, va, dr_reth_rkey(reth), len);
	return true;
}

bool
dr_resp_express(struct dr_qp_impl *qp, const struct dr_pkt_xp *x)
{
	struct dr_resp_state *rs = &qp->resp;
	uint8_t op = x->opcode & DR_OPCODE_OP_MASK;
	uint32_t byte_len = 0, ext;
	bool rwr = true, ok;

	/* ECN CE asks for a CNP (rx_one()): the general path's; so is a frame not from the peer (rx_bad_addr) */
	if ((x->tos & DR_ECN_MASK) == DR_ECN_CE || !xp_qp_ready(qp, x) || !xp_from_peer(qp, x))
		return false;
	switch (op) {
	case DR_OP_WRITE_ONLY:
		rwr = false;
		/* fall through */
	case DR_OP_WRITE_ONLY_IMM:
		ext = DR_RETH_BYTES + (rwr ? 4 : 0);
		break;
	case DR_OP_SEND_ONLY:
	case DR_OP_SEND_ONLY_IMM:
		ext = op == DR_OP_SEND_ONLY_IMM ? 4 : 0;
		break;
	case DR_OP_READ_REQ:
		return xp_read(qp, x);
	default:
		return false;
	}
	/* a receive WQE of the QP's own (resp_chk_resource(); none: RNR, or UC's drop, the general path's) */
	if (rwr && (qp->srq != NULL || !dr_rwqe_available(qp)))
		return false;
	ok = op == DR_OP_WRITE_ONLY || op == DR_OP_WRITE_ONLY_IMM ? xp_write_only(qp, x, ext, &byte_len) :
								     xp_send_only(qp, x, ext, &byte_len);
	if (!ok)
		return false;
	/* resp_chk_psn(): in sequence; resp_execute(): the message is done (IBA 9.7.5.1.6) */
	rs->nak_sent = false;
	rs->msn = (rs->msn + 1) & DR_24BIT_MASK;
	rs->epsn = dr_psn_add(x->psn, 1);
	rs->dup_ack_psn = x->psn;
	if (rwr) {
		/* resp_complete(): the receive completion, solicited by BTH.SE (IBA 9.2.3) */
		const struct dr_recv_wqe *rwqe = dr_rq_wqe(&qp->rq, qp->rq.tail);
		struct dr_wc wc;

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = rwqe->wr_id;
		wc.status = DR_WC_SUCCESS;
		wc.opcode = op == DR_OP_WRITE_ONLY_IMM ? DR_WC_RECV_RDMA_WITH_IMM : DR_WC_RECV;
		wc.qp_num = qp->pub.qp_num;
		wc.src_qp = qp->attr.dest_qp_num;
		/* rxe: the bytes received, or for WRITE with immediate the length written */
		wc.byte_len = byte_len;
		if (op == DR_OP_WRITE_ONLY_IMM || op == DR_OP_SEND_ONLY_IMM) {
			memcpy(&wc.imm_data, x->bth + DR_BTH_BYTES + ext - 4, sizeof(wc.imm_data));
			wc.wc_flags |= DR_WC_WITH_IMM;
		}
		/* the WQE is taken and completed (resp_post_recv_wc()): the message is over */
		dr_rwqe_done(qp);
		rs->rcv_off = 0;
		if (dr_cq_push_se(dr_cq_impl(dr_resp_recv_cq(qp)), &wc, dr_xp_se(x)) != 0) {
			dr_qp_fail(qp, false);   /* receive CQ overrun: IBA 11.4.2.1 */
			return true;
		}
	}
	/* resp_acknowledge() (IBA 9.7.5.1.6): an ACK owed when asked, or every DR_RESP_ACK_EVERY requests */
	if (qp->pub.qp_type == DR_QPT_RC) {
		rs->unacked++;
		if (rs->ack_pending || dr_xp_ackreq(x) || rs->unacked >= DR_RESP_ACK_EVERY)
			dr_resp_owe(qp, DR_RESP_SYN_ACK, x->psn);
	}
	return true;
}
