/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dr_post_send / dr_post_recv of RC, UC and UD QPs, exactly as ibv_post_send(3) and
 * ibv_post_recv(3): walk the list, stop at the first WR that cannot be
 * posted, point *bad_wr at it and return a positive errno value (as the
 * libibverbs providers do); the WRs before it stay posted. Every check that
 * can be made at post time is made here, so the transport only sees WQEs
 * that are well formed.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>

#include "dr_ah.h"
#include "dr_context.h"
#include "dr_log.h"
#include "dr_mw.h"
#include "dr_post.h"
#include "dr_qp_impl.h"
#include "dr_srq.h"
#include "dr_verbs_priv.h"

/*
 * ibv_post_send(3) send_flags we take. IBV_SEND_IP_CSUM asks for checksum
 * offload on UD / raw packet QPs of devices that offer it: we do not
 * (EINVAL, as a provider without the capability).
 */
#define DR_SEND_FLAGS_OK (DR_SEND_FENCE | DR_SEND_SIGNALED | DR_SEND_SOLICITED | DR_SEND_INLINE)

/* A WR posted to a QP in the error state completes at once, flushed (IBA 10.3.1, Error state). */
static void
flush_now(struct dr_qp_impl *qp, struct dr_cq *cq, uint64_t wr_id, enum dr_wc_opcode op)
{
	struct dr_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.status = DR_WC_WR_FLUSH_ERR;
	wc.opcode = op;
	wc.qp_num = qp->pub.qp_num;
	(void)dr_cq_push(dr_cq_impl(cq), &wc);
}

/*
 * Local SGEs (IBA 10.6.3.1, L_Key checks): a non-empty SGE names an MR of the
 * QP's PD by its L_Key, lies inside it, and the MR grants @need.
 */
static inline int
pd_sge_check(struct dr_context *ctx, const struct dr_pd *pd, const struct dr_sge *sge, unsigned int need)
{
	struct dr_mr_impl *mr;

	if (sge->length == 0)
		return 0;
	mr = dr_mr_lookup(ctx, sge->lkey);
	if (mr == NULL || mr->pub.pd != pd)
		return EINVAL;
	if (dr_mr_check_access(&mr->region, sge->addr, sge->length, need) != 0)
		return EINVAL;
	return 0;
}

static inline int
sge_check(const struct dr_qp_impl *qp, const struct dr_sge *sge, unsigned int need)
{
	return pd_sge_check(qp->pub.context, qp->pub.pd, sge, need);
}

/* Every rule of ibv_post_send(3) a WR must meet; returns 0 or a positive errno. */
static int
send_wr_check(const struct dr_qp_impl *qp, const struct dr_send_wr *wr, uint16_t *flags, uint64_t *len)
{
	uint64_t total = 0;
	unsigned int need;
	uint16_t f;
	int i, rc;

	/* opcode: "the QP type limits the opcodes" (ibv_post_send(3); IBA 10.7.2 table) */
	if ((unsigned int)wr->opcode >= DR_NUM_WR_OPCODES)
		return EINVAL;
	f = dr_wr_opcode_table[wr->opcode].mask[qp->pub.qp_type];   /* dr_wr_opcode_flags(), both in range */
	if (!(f & DR_WRF_ALLOWED))
		return EINVAL;
	/* FLUSH and ATOMIC_WRITE (IBA 1.5 placement operations): not offered */
	if (f & (DR_WRF_FLUSH | DR_WRF_ATOMIC_WRITE))
		return EOPNOTSUPP;
	/* BIND_MW (ibv_bind_mw(3)): a window of this context, rights a window can grant, an MR when it has a length */
	if (wr->opcode == DR_WR_BIND_MW) {
		const struct dr_mw_bind_info *bi = &wr->bind_mw.bind_info;

		if (wr->bind_mw.mw == NULL || wr->bind_mw.mw->context != qp->pub.context ||
		    (bi->mw_access_flags & ~(unsigned int)(DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_WRITE |
							   DR_ACCESS_REMOTE_ATOMIC | DR_ACCESS_ZERO_BASED)) ||
		    (bi->length != 0 && (bi->mr == NULL || bi->mr->context != qp->pub.context)))
			return EINVAL;
		*flags = f;
		*len = 0;
		return 0;
	}
	/* send_flags: enum ibv_send_flags bits that apply to this QP type */
	if (wr->send_flags & ~DR_SEND_FLAGS_OK)
		return EINVAL;
	/* num_sge: at most the max_send_sge granted at creation (ibv_create_qp(3) cap) */
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	if (wr->num_sge > 0 && wr->sg_list == NULL)
		return EINVAL;
	if (wr->send_flags & DR_SEND_INLINE) {
		/* IBV_SEND_INLINE: SEND and RDMA WRITE only, at most max_inline_data bytes; lkeys not checked */
		if (!(f & DR_WRF_INLINE))
			return EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length != 0 && wr->sg_list[i].addr == 0)
				return EINVAL;
			total += wr->sg_list[i].length;
		}
		if (total > qp->sq.max_inline)
			return EINVAL;
	} else {
		/* RDMA READ and atomics write the local buffer: LOCAL_WRITE (IBA 10.6.3.1; rxe copy_data()) */
		need = (f & (DR_WRF_READ | DR_WRF_ATOMIC)) ? DR_ACCESS_LOCAL_WRITE : 0;
		for (i = 0; i < wr->num_sge; i++) {
			rc = sge_check(qp, &wr->sg_list[i], need);
			if (rc != 0)
				return rc;
			total += wr->sg_list[i].length;
		}
	}
	/* a message is at most max_msg_sz (ibv_query_port(3)) */
	if (total > DR_MAX_MSG_SIZE)
		return EINVAL;
	/* XRC_SEND: a 24-bit SRQ number of the target (ibv_post_send(3) qp_type.xrc.remote_srqn) */
	if (qp->pub.qp_type == DR_QPT_XRC_SEND && wr->qp_type.xrc.remote_srqn > DR_24BIT_MASK)
		return EINVAL;
	/* UD: an address handle of the QP's PD (IBA 10.2.2.x), a 24-bit QPN (ibv_post_send(3) wr.ud) */
	if (f & DR_WRF_NEEDS_AH) {
		const struct dr_ah *ah = wr->wr.ud.ah;

		if (ah == NULL || ah->context != qp->pub.context || ah->pd != qp->pub.pd ||
		    wr->wr.ud.remote_qpn > DR_24BIT_MASK)
			return EINVAL;
	}
	/*
	 * atomics: one 8-byte local buffer (ibv_post_send(3)). A remote address
	 * that is not 8-byte aligned is the responder's to refuse: it NAKs with
	 * invalid request (IBA 9.4.5; rxe), the WR completes REM_INV_REQ_ERR.
	 */
	if ((f & DR_WRF_ATOMIC) && (wr->num_sge != 1 || wr->sg_list[0].length != 8))
		return EINVAL;
	*flags = f;
	*len = total;
	return 0;
}

static void
send_wqe_fill(struct dr_qp_impl *qp, struct dr_send_wqe *wqe, uint32_t slot, const struct dr_send_wr *wr,
	      uint16_t f, uint32_t len, uint32_t mr_gen)
{
	struct dr_sq *sq = &qp->sq;
	int i;

	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->rd_atomic = dr_wr_is_rd_atomic(wr->opcode);
	wqe->send_flags = wr->send_flags | (qp->sq_sig_all ? DR_SEND_SIGNALED : 0);
	wqe->imm_data = (f & DR_WRF_IMM) ? wr->imm_data : 0;
	wqe->invalidate_rkey = ((f & DR_WRF_INV) || wr->opcode == DR_WR_LOCAL_INV) ? wr->invalidate_rkey : 0;
	wqe->remote_addr = 0;
	wqe->rkey = 0;
	wqe->compare_add = 0;
	wqe->swap = 0;
	if (f & DR_WRF_ATOMIC) {
		wqe->remote_addr = wr->wr.atomic.remote_addr;
		wqe->rkey = wr->wr.atomic.rkey;
		wqe->compare_add = wr->wr.atomic.compare_add;
		wqe->swap = wr->wr.atomic.swap;
	} else if (f & (DR_WRF_WRITE | DR_WRF_READ)) {
		wqe->remote_addr = wr->wr.rdma.remote_addr;
		wqe->rkey = wr->wr.rdma.rkey;
	}
	wqe->ah = NULL;
	wqe->remote_qpn = 0;
	wqe->remote_qkey = 0;
	wqe->xrc_srqn = qp->pub.qp_type == DR_QPT_XRC_SEND ? wr->qp_type.xrc.remote_srqn : 0;
	wqe->mw = NULL;
	wqe->bind_mr = NULL;
	wqe->bind_len = 0;
	wqe->bind_access = 0;
	if (wr->opcode == DR_WR_BIND_MW) {
		/* executed when the requester reaches it; the window is held until then */
		wqe->mw = dr_mw_impl(wr->bind_mw.mw);
		__atomic_fetch_add(&wqe->mw->inflight, 1, __ATOMIC_RELAXED);
		wqe->rkey = wr->bind_mw.rkey;
		wqe->remote_addr = wr->bind_mw.bind_info.addr;
		wqe->bind_mr = wr->bind_mw.bind_info.mr != NULL ? dr_mr_impl(wr->bind_mw.bind_info.mr) : NULL;
		wqe->bind_len = wr->bind_mw.bind_info.length;
		wqe->bind_access = wr->bind_mw.bind_info.mw_access_flags;
	}
	if (f & DR_WRF_NEEDS_AH) {
		/* C10-15: the high-order bit of the WR's Q_Key selects the QP's own */
		wqe->ah = dr_ah_impl(wr->wr.ud.ah);
		__atomic_fetch_add(&wqe->ah->inflight, 1, __ATOMIC_RELAXED);
		wqe->remote_qpn = wr->wr.ud.remote_qpn;
		wqe->remote_qkey = (wr->wr.ud.remote_qkey & DR_QKEY_USE_QP) ? qp->attr.qkey : wr->wr.ud.remote_qkey;
	}
	wqe->length = len;
	wqe->mr_gen = mr_gen;
	if (wr->send_flags & DR_SEND_INLINE) {
		/* the data is copied now: the caller may reuse its buffers on return */
		uint8_t *dst = sq->inline_buf != NULL ? sq->inline_buf + (size_t)slot * sq->max_inline : NULL;
		uint32_t off = 0;

		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length == 0)
				continue;
			memcpy(dst + off, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		wqe->inline_data = dst;
		wqe->num_sge = 0;       /* no SGE: the data is inline_data[0 .. length) */
	} else {
		for (i = 0; i < wr->num_sge; i++)
			wqe->sge[i] = wr->sg_list[i];
		wqe->inline_data = NULL;
		wqe->num_sge = (uint16_t)wr->num_sge;
	}
	wqe->state = DR_WQE_POSTED;
	wqe->status = DR_WC_SUCCESS;
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->npkts = 0;
	wqe->sent_once = false;       /* the slot's last WQE's, not this one's */
	wqe->resp_bytes = 0;
	wqe->atomic_orig = 0;
	wqe->rd_slot_held = false;
	wqe->verdict = 0;
	wqe->comp_status = DR_WC_SUCCESS;
}

int
dr_post_send_check(struct dr_qp_impl *qp, const struct dr_send_wr *wr, uint16_t *flags, uint64_t *len)
{
	enum dr_qp_state st = __atomic_load_n(&qp->pub.state, __ATOMIC_ACQUIRE);

	/* IBA 10.3.1: send WRs are taken in RTS and SQD (queued while draining), not before RTS */
	if (st == DR_QPS_RESET || st == DR_QPS_INIT || st == DR_QPS_RTR)
		return EINVAL;
	return send_wr_check(qp, wr, flags, len);
}

int
dr_post_send_commit(struct dr_qp_impl *qp, const struct dr_send_wr *wr, uint16_t f, uint64_t len, uint32_t mr_gen)
{
	struct dr_sq *sq = &qp->sq;
	enum dr_qp_state st = __atomic_load_n(&qp->pub.state, __ATOMIC_ACQUIRE);
	uint32_t head;

	/* inline: we are the CQ's producer, flush now; else the worker flushes it (dr_qp_flush_posted()) */
	if ((st == DR_QPS_ERR || st == DR_QPS_SQE) && qp->pub.context->attr.mode == DR_PROGRESS_INLINE) {
		flush_now(qp, qp->pub.send_cq, wr->wr_id, dr_wr_wc_opcode(wr->opcode));
		return 0;
	}
	/* ibv_post_send(3): ENOMEM when the send queue is full */
	head = sq->head;
	if (head - __atomic_load_n(&sq->tail, __ATOMIC_ACQUIRE) >= sq->max_wr)
		return ENOMEM;
	send_wqe_fill(qp, dr_sq_wqe(sq, head), head & (sq->size - 1), wr, f, (uint32_t)len, mr_gen);
	__atomic_store_n(&sq->head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

/* The opcodes and send_flags the express post takes (post_send_express()). */
#define EXPRESS_OPS (1u << DR_WR_RDMA_WRITE | 1u << DR_WR_RDMA_WRITE_WITH_IMM | 1u << DR_WR_SEND | \
		     1u << DR_WR_SEND_WITH_IMM)
#define EXPRESS_IMM_OPS (1u << DR_WR_RDMA_WRITE_WITH_IMM | 1u << DR_WR_SEND_WITH_IMM)
#define EXPRESS_RDMA_OPS (1u << DR_WR_RDMA_WRITE | 1u << DR_WR_RDMA_WRITE_WITH_IMM | 1u << DR_WR_RDMA_READ)
#define EXPRESS_FLAGS (DR_SEND_FENCE | DR_SEND_SIGNALED | DR_SEND_SOLICITED)

uint32_t
dr_post_express_ops(enum dr_qp_type t, uint32_t max_send_sge)
{
	_Static_assert(DR_NUM_WR_OPCODES <= 32, "a bit per WR opcode in 32");
	if (max_send_sge == 0 || (t != DR_QPT_RC && t != DR_QPT_UC))
		return 0;
	return EXPRESS_OPS | (t == DR_QPT_RC ? 1u << DR_WR_RDMA_READ : 0);
}

/*
 * The common WR in one pass (doc/guides/speed.rst, "The express path"): a
 * WRITE or SEND, with or without immediate, of one SGE, not inline, on an
 * RC or UC QP in RTS, or a READ of one SGE on an RC QP (qp->xp_post_ops).
 * Its checks are send_wr_check()'s for that case (IBA 10.6.3.1's L_Key
 * check once: index, key, PD, range, and LOCAL_WRITE for the READ's
 * buffer, which its responses write), its WQE send_wqe_fill()'s, field for
 * field, every field written (test_post_express.c fills the slot with
 * garbage first). -1 for any other WR, and for one
 * whose check fails or that finds the queue full: the general path takes
 * it and gives the error.
 */
static inline __attribute__((always_inline)) int
post_send_express(struct dr_qp_impl *qp, const struct dr_send_wr *wr, uint32_t mr_gen)
{
	const struct dr_sge *sge = wr->sg_list;
	struct dr_sq *sq = &qp->sq;
	unsigned int op = (unsigned int)wr->opcode;
	struct dr_send_wqe *wqe;
	uint32_t head;

	/* the opcode, the QP's type and its SGEs in one test (qp->xp_post_ops) */
	if (op >= 32 || !(qp->xp_post_ops >> op & 1u) || (wr->send_flags & ~(unsigned int)EXPRESS_FLAGS) != 0 ||
	    wr->num_sge != 1 || sge == NULL || sge->length > DR_MAX_MSG_SIZE ||
	    __atomic_load_n(&qp->pub.state, __ATOMIC_ACQUIRE) != DR_QPS_RTS)
		return -1;
	if (sge_check(qp, sge, op == DR_WR_RDMA_READ ? DR_ACCESS_LOCAL_WRITE : 0) != 0)
		return -1;
	head = sq->head;
	if (head - __atomic_load_n(&sq->tail, __ATOMIC_ACQUIRE) >= sq->max_wr)
		return -1;
	wqe = dr_sq_wqe(sq, head);
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags | (qp->sq_sig_all ? DR_SEND_SIGNALED : 0);
	wqe->imm_data = EXPRESS_IMM_OPS >> op & 1u ? wr->imm_data : 0;
	wqe->remote_addr = EXPRESS_RDMA_OPS >> op & 1u ? wr->wr.rdma.remote_addr : 0;
	wqe->rkey = EXPRESS_RDMA_OPS >> op & 1u ? wr->wr.rdma.rkey : 0;
	wqe->length = sge->length;
	wqe->mr_gen = mr_gen;
	wqe->num_sge = 1;
	wqe->sge[0] = *sge;                   /* the slot's own SGE array */
	/* no inline data, AH, window, atomic operands, XRC SRQ: the general path's WRs */
	memset((uint8_t *)wqe + DR_SEND_WQE_GENERAL_OFF, 0, DR_SEND_WQE_GENERAL_LEN);
	memset((uint8_t *)wqe + DR_SEND_WQE_GENERAL2_OFF, 0, DR_SEND_WQE_GENERAL2_LEN);
	/* the stages' fields: none yet (the slot's last WQE's); POSTED */
	memset((uint8_t *)wqe + DR_SEND_WQE_STAGES_OFF, 0, DR_SEND_WQE_STAGES_LEN);
	wqe->rd_atomic = op == DR_WR_RDMA_READ;
	__atomic_store_n(&sq->head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

int
dr_post_send_express_try(struct dr_qp_impl *qp, const struct dr_send_wr *wr)
{
	return post_send_express(qp, wr, dr_post_mr_gen(qp));
}

static int
post_one_send(struct dr_qp_impl *qp, const struct dr_send_wr *wr)
{
	uint32_t gen = dr_post_mr_gen(qp);   /* before the L_Keys are checked */
	uint64_t len;
	uint16_t f;
	int rc;

	if (likely(qp->pub.context->express) && post_send_express(qp, wr, gen) == 0)
		return 0;
	rc = dr_post_send_check(qp, wr, &f, &len);
	return rc != 0 ? rc : dr_post_send_commit(qp, wr, f, len, gen);
}

static int
qp_post_send(struct dr_qp *pub, struct dr_send_wr *wr, struct dr_send_wr **bad_wr)
{
	struct dr_qp_impl *qp = dr_qp_impl(pub);
	struct dr_send_wr *unused;
	uint32_t head0;
	int rc;

	if (bad_wr == NULL)
		bad_wr = &unused;
	/* ibv_wr_post(3): the builder's batch is a critical section of the send queue */
	if (dr_wr_batch_open(qp)) {
		*bad_wr = wr;
		return EBUSY;
	}
	head0 = qp->sq.head;
	for (struct dr_send_wr *first = wr; wr != NULL; wr = wr->next) {
		rc = post_one_send(qp, wr);
		if (rc != 0) {
			*bad_wr = wr;
			DR_DP_LOG(qp, DEBUG, "post_send: QP 0x%x wr_id 0x%" PRIx64 " opcode %d refused: %s",
				  pub->qp_num, wr->wr_id, (int)wr->opcode, strerror(rc));
			if (wr != first)
				dr_post_send_done(qp, head0);   /* those before it are posted */
			return rc;
		}
	}
	dr_post_send_done(qp, head0);
	return 0;
}

int
dr_rq_post_one(struct dr_context *ctx, struct dr_pd *pd, struct dr_rq *rq, const struct dr_recv_wr *wr)
{
	/* before the L_Keys are checked: a deregistration after it makes the placement check again */
	uint32_t gen = __atomic_load_n(&ctx->mr_gen, __ATOMIC_ACQUIRE);
	struct dr_recv_wqe *wqe;
	uint64_t total = 0;
	uint32_t head;
	int i, rc;

	/* num_sge: at most the max_recv_sge / max_sge granted (ibv_post_recv(3), ibv_post_srq_recv(3)) */
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge)
		return EINVAL;
	if (wr->num_sge > 0 && wr->sg_list == NULL)
		return EINVAL;
	/* incoming data is written there: each SGE needs LOCAL_WRITE (IBA 10.6.3.1) */
	for (i = 0; i < wr->num_sge; i++) {
		rc = pd_sge_check(ctx, pd, &wr->sg_list[i], DR_ACCESS_LOCAL_WRITE);
		if (rc != 0)
			return rc;
		total += wr->sg_list[i].length;
	}
	/* ENOMEM when the queue is full */
	head = rq->head;
	if (head - __atomic_load_n(&rq->tail, __ATOMIC_ACQUIRE) >= rq->max_wr)
		return ENOMEM;
	wqe = dr_rq_wqe(rq, head);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = (uint16_t)wr->num_sge;
	if (wr->num_sge > 0)
		memcpy(wqe->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(*wqe->sge));
	/* a buffer larger than any message is fine: only the first max_msg_sz bytes can be used */
	wqe->length = (uint32_t)RTE_MIN(total, (uint64_t)UINT32_MAX);
	wqe->mr_gen = gen;
	__atomic_store_n(&rq->head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

static int
post_one_recv(struct dr_qp_impl *qp, const struct dr_recv_wr *wr)
{
	enum dr_qp_state st = __atomic_load_n(&qp->pub.state, __ATOMIC_ACQUIRE);
	int i, rc;

	/* IBA 10.3.1: receive WRs are taken in every state but RESET; a QP on an SRQ takes none (rxe),
	 * nor do XRC QPs (the initiator receives nothing, the target delivers into XRC SRQs) */
	if (st == DR_QPS_RESET || qp->srq != NULL || qp->pub.qp_type == DR_QPT_XRC_SEND ||
	    qp->pub.qp_type == DR_QPT_XRC_RECV)
		return EINVAL;
	if (st == DR_QPS_ERR) {
		/* checked as any WR, then completed at once */
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->rq.max_sge ||
		    (wr->num_sge > 0 && wr->sg_list == NULL))
			return EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			rc = sge_check(qp, &wr->sg_list[i], DR_ACCESS_LOCAL_WRITE);
			if (rc != 0)
				return rc;
		}
		if (qp->pub.context->attr.mode == DR_PROGRESS_INLINE) {
			flush_now(qp, qp->pub.recv_cq, wr->wr_id, DR_WC_RECV);
			return 0;
		}
		/* queued: the worker flushes it (dr_qp_flush_posted()) */
	}
	return dr_rq_post_one(qp->pub.context, qp->pub.pd, &qp->rq, wr);
}

static int
qp_post_recv(struct dr_qp *pub, struct dr_recv_wr *wr, struct dr_recv_wr **bad_wr)
{
	struct dr_qp_impl *qp = dr_qp_impl(pub);
	struct dr_recv_wr *unused;
	int rc;

	if (bad_wr == NULL)
		bad_wr = &unused;
	for (; wr != NULL; wr = wr->next) {
		rc = post_one_recv(qp, wr);
		if (rc != 0) {
			*bad_wr = wr;
			DR_DP_LOG(qp, DEBUG, "post_recv: QP 0x%x wr_id 0x%" PRIx64 " refused: %s",
				  pub->qp_num, wr->wr_id, strerror(rc));
			return rc;
		}
	}
	return 0;
}

const struct dr_qp_ops dr_qp_post_ops = {
	.post_send = qp_post_send,
	.post_recv = qp_post_recv,
};

void
dr_send_wqe_release(struct dr_send_wqe *wqe)
{
	if (wqe->ah != NULL) {
		__atomic_fetch_sub(&wqe->ah->inflight, 1, __ATOMIC_RELEASE);
		wqe->ah = NULL;
	}
	if (wqe->mw != NULL) {
		__atomic_fetch_sub(&wqe->mw->inflight, 1, __ATOMIC_RELEASE);
		wqe->mw = NULL;
	}
}

int
dr_post_ud_send(struct dr_qp *qp, void *context, void *addr, size_t length, struct dr_mr *mr, int flags,
		struct dr_ah *ah, uint32_t remote_qpn)
{
	struct dr_sge sge;
	struct dr_send_wr wr, *bad;

	if (qp == NULL || qp->qp_type != DR_QPT_UD || length > UINT32_MAX)
		return EINVAL;
	/* rdma_post_ud_send(): one SGE, the MR's L_Key (none for inline data) */
	sge.addr = (uint64_t)(uintptr_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr != NULL ? mr->lkey : 0;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)(uintptr_t)context;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = DR_WR_SEND;
	wr.send_flags = (unsigned int)flags;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = DR_UDP_QKEY;
	return dr_post_send(qp, &wr, &bad);
}
