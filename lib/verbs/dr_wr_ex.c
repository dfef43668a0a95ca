/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Extended QPs and the work-request builder of ibv_wr_post(3):
 * dr_create_qp_ex() (ibv_create_qp_ex(3) with send_ops_flags) and the
 * wr_* operations of struct dr_qp_ex.
 *
 * A batch is staged in the QP's own arrays (at most max_send_wr WRs, each
 * with max_send_sge SGEs and max_inline_data bytes of inline data, copied
 * when set): each builder starts a WR with the QP's wr_id and wr_flags of
 * the moment, each setter completes the last one. The first error (an
 * operation not enabled at creation, too many SGEs or inline bytes, a setter
 * without a WR, more WRs than the queue holds) is kept; dr_wr_complete()
 * reports it and posts nothing. Otherwise it checks every WR as
 * dr_post_send() does and the room for all of them before queueing any, so
 * the batch is posted whole or not at all.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_malloc.h>

#include "dr_context.h"
#include "dr_control.h"
#include "dr_log.h"
#include "dr_post.h"
#include "dr_qp_impl.h"
#include "dr_verbs_priv.h"

/* The operations a QP type offers through the builder (ibv_wr_post(3); the WR opcode table). */
#define DR_QP_EX_OFFERED (DR_QP_EX_WITH_RDMA_WRITE | DR_QP_EX_WITH_RDMA_WRITE_WITH_IMM | DR_QP_EX_WITH_SEND | \
			  DR_QP_EX_WITH_SEND_WITH_IMM | DR_QP_EX_WITH_RDMA_READ | \
			  DR_QP_EX_WITH_ATOMIC_CMP_AND_SWP | DR_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			  DR_QP_EX_WITH_LOCAL_INV | DR_QP_EX_WITH_BIND_MW | DR_QP_EX_WITH_SEND_WITH_INV)
#define DR_QP_EX_KNOWN (DR_QP_EX_OFFERED | DR_QP_EX_WITH_TSO | DR_QP_EX_WITH_FLUSH | DR_QP_EX_WITH_ATOMIC_WRITE)

struct dr_wr_batch {
	uint64_t ops;                  /* send_ops_flags given at creation */
	bool open;                     /* between wr_start and wr_complete / wr_abort */
	int err;                       /* first error of the batch (positive errno) */
	uint32_t n;                    /* WRs staged */
	uint32_t max;                  /* max_send_wr */
	uint32_t max_sge;
	uint32_t max_inline;
	struct dr_send_wr *wr;         /* max */
	struct dr_sge *sge;            /* max * max_sge */
	uint8_t *inl;                  /* max * max_inline */
	uint16_t *flags;               /* max: the checks' results, for the commit */
	uint64_t *len;                 /* max */
};

/* The send_ops_flags bit of a WR opcode. */
static uint64_t
op_flag(enum dr_wr_opcode op)
{
	switch (op) {
	case DR_WR_RDMA_WRITE: return DR_QP_EX_WITH_RDMA_WRITE;
	case DR_WR_RDMA_WRITE_WITH_IMM: return DR_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	case DR_WR_SEND: return DR_QP_EX_WITH_SEND;
	case DR_WR_SEND_WITH_IMM: return DR_QP_EX_WITH_SEND_WITH_IMM;
	case DR_WR_RDMA_READ: return DR_QP_EX_WITH_RDMA_READ;
	case DR_WR_ATOMIC_CMP_AND_SWP: return DR_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
	case DR_WR_ATOMIC_FETCH_AND_ADD: return DR_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	case DR_WR_LOCAL_INV: return DR_QP_EX_WITH_LOCAL_INV;
	case DR_WR_BIND_MW: return DR_QP_EX_WITH_BIND_MW;
	case DR_WR_SEND_WITH_INV: return DR_QP_EX_WITH_SEND_WITH_INV;
	case DR_WR_TSO: return DR_QP_EX_WITH_TSO;
	case DR_WR_FLUSH: return DR_QP_EX_WITH_FLUSH;
	case DR_WR_ATOMIC_WRITE: return DR_QP_EX_WITH_ATOMIC_WRITE;
	default: return 0;
	}
}

static inline struct dr_qp_impl *
ex_qp(struct dr_qp_ex *ex)
{
	return dr_qp_impl(&ex->qp_base);
}

/* Keep the batch's first error. */
static void
batch_fail(struct dr_wr_batch *b, int err, const char *why)
{
	if (b->err == 0) {
		b->err = err;
		DR_DP_LOG(qp, DEBUG, "wr builder: %s: %s", why, strerror(err));
	}
}

/* Start a WR of @op: the QP's wr_id and wr_flags of the moment. NULL when it cannot be. */
static struct dr_send_wr *
begin(struct dr_qp_ex *ex, enum dr_wr_opcode op)
{
	struct dr_wr_batch *b = ex_qp(ex)->batch;
	struct dr_send_wr *wr;

	if (!b->open) {
		DR_DP_LOG(qp, DEBUG, "wr builder: a WR outside dr_wr_start() / dr_wr_complete(): ignored");
		return NULL;
	}
	if (!(b->ops & op_flag(op))) {
		batch_fail(b, EOPNOTSUPP, "operation not enabled by send_ops_flags");
		return NULL;
	}
	if (b->n == b->max) {
		batch_fail(b, ENOMEM, "more WRs than the send queue holds");
		return NULL;
	}
	wr = &b->wr[b->n];
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ex->wr_id;
	wr->send_flags = ex->wr_flags;
	wr->opcode = op;
	wr->sg_list = &b->sge[(size_t)b->n * b->max_sge];
	b->n++;
	return wr;
}

/* The WR the setters complete (the last one started). */
static struct dr_send_wr *
current(struct dr_qp_ex *ex)
{
	struct dr_wr_batch *b = ex_qp(ex)->batch;

	if (!b->open)
		return NULL;
	if (b->n == 0) {
		batch_fail(b, EINVAL, "a setter before any WR builder");
		return NULL;
	}
	return &b->wr[b->n - 1];
}

static void
wr_rdma(struct dr_qp_ex *ex, enum dr_wr_opcode op, uint32_t rkey, uint64_t remote_addr, rte_be32_t imm)
{
	struct dr_send_wr *wr = begin(ex, op);

	if (wr == NULL)
		return;
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm;
}

static void
wr_atomic(struct dr_qp_ex *ex, enum dr_wr_opcode op, uint32_t rkey, uint64_t remote_addr, uint64_t cmp_add,
	  uint64_t swap)
{
	struct dr_send_wr *wr = begin(ex, op);

	if (wr == NULL)
		return;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = cmp_add;
	wr->wr.atomic.swap = swap;
}

static void
ex_atomic_cmp_swp(struct dr_qp_ex *ex, uint32_t rkey, uint64_t remote_addr, uint64_t compare, uint64_t swap)
{
	wr_atomic(ex, DR_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap);
}

static void
ex_atomic_fetch_add(struct dr_qp_ex *ex, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
	wr_atomic(ex, DR_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

static void
ex_bind_mw(struct dr_qp_ex *ex, struct dr_mw *mw, uint32_t rkey, const struct dr_mw_bind_info *bind_info)
{
	struct dr_send_wr *wr = begin(ex, DR_WR_BIND_MW);

	if (wr == NULL)
		return;
	if (bind_info == NULL) {
		batch_fail(ex_qp(ex)->batch, EINVAL, "BIND_MW without bind information");
		return;
	}
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

static void
ex_local_inv(struct dr_qp_ex *ex, uint32_t invalidate_rkey)
{
	struct dr_send_wr *wr = begin(ex, DR_WR_LOCAL_INV);

	if (wr != NULL)
		wr->invalidate_rkey = invalidate_rkey;
}

static void
ex_rdma_read(struct dr_qp_ex *ex, uint32_t rkey, uint64_t remote_addr)
{
	wr_rdma(ex, DR_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void
ex_rdma_write(struct dr_qp_ex *ex, uint32_t rkey, uint64_t remote_addr)
{
	wr_rdma(ex, DR_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void
ex_rdma_write_imm(struct dr_qp_ex *ex, uint32_t rkey, uint64_t remote_addr, rte_be32_t imm)
{
	wr_rdma(ex, DR_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr, imm);
}

static void
ex_send(struct dr_qp_ex *ex)
{
	(void)begin(ex, DR_WR_SEND);
}

static void
ex_send_imm(struct dr_qp_ex *ex, rte_be32_t imm)
{
	struct dr_send_wr *wr = begin(ex, DR_WR_SEND_WITH_IMM);

	if (wr != NULL)
		wr->imm_data = imm;
}

static void
ex_send_inv(struct dr_qp_ex *ex, uint32_t invalidate_rkey)
{
	struct dr_send_wr *wr = begin(ex, DR_WR_SEND_WITH_INV);

	if (wr != NULL)
		wr->invalidate_rkey = invalidate_rkey;
}

static void
ex_send_tso(struct dr_qp_ex *ex, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	RTE_SET_USED(hdr);
	RTE_SET_USED(hdr_sz);
	RTE_SET_USED(mss);
	(void)begin(ex, DR_WR_TSO);       /* never enabled: EOPNOTSUPP */
}

static void
ex_set_ud_addr(struct dr_qp_ex *ex, struct dr_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct dr_send_wr *wr = current(ex);

	if (wr == NULL)
		return;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

static void
ex_set_xrc_srqn(struct dr_qp_ex *ex, uint32_t remote_srqn)
{
	struct dr_send_wr *wr = current(ex);

	if (wr == NULL)
		return;
	/* only XRC_SEND QPs name an SRQ at the target */
	if (ex_qp(ex)->pub.qp_type != DR_QPT_XRC_SEND) {
		batch_fail(ex_qp(ex)->batch, EINVAL, "xrc_srqn on a QP that is not XRC_SEND");
		return;
	}
	wr->qp_type.xrc.remote_srqn = remote_srqn;
}

static void
ex_set_sge_list(struct dr_qp_ex *ex, size_t num_sge, const struct dr_sge *sg_list)
{
	struct dr_wr_batch *b = ex_qp(ex)->batch;
	struct dr_send_wr *wr = current(ex);

	if (wr == NULL)
		return;
	if (num_sge > b->max_sge || (num_sge > 0 && sg_list == NULL)) {
		batch_fail(b, EINVAL, "more SGEs than max_send_sge");
		return;
	}
	if (num_sge > 0)
		memcpy(wr->sg_list, sg_list, num_sge * sizeof(*sg_list));
	wr->num_sge = (int)num_sge;
	wr->send_flags &= ~(unsigned int)DR_SEND_INLINE;
}

static void
ex_set_sge(struct dr_qp_ex *ex, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct dr_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	ex_set_sge_list(ex, 1, &sge);
}

static void
ex_set_inline_data_list(struct dr_qp_ex *ex, size_t num_buf, const struct dr_data_buf *buf_list)
{
	struct dr_wr_batch *b = ex_qp(ex)->batch;
	struct dr_send_wr *wr = current(ex);
	uint8_t *dst;
	size_t i, total = 0;

	if (wr == NULL)
		return;
	for (i = 0; i < num_buf; i++)
		total += buf_list[i].length;
	if (total > b->max_inline) {
		batch_fail(b, EINVAL, "more inline data than max_inline_data");
		return;
	}
	/* copied now: the caller may reuse its buffers on return (as the providers do) */
	dst = b->inl + (size_t)(wr - b->wr) * b->max_inline;
	for (i = 0, total = 0; i < num_buf; i++) {
		if (buf_list[i].length != 0)
			memcpy(dst + total, buf_list[i].addr, buf_list[i].length);
		total += buf_list[i].length;
	}
	wr->sg_list[0].addr = (uint64_t)(uintptr_t)dst;
	wr->sg_list[0].length = (uint32_t)total;
	wr->sg_list[0].lkey = 0;
	wr->num_sge = total != 0 ? 1 : 0;
	wr->send_flags |= DR_SEND_INLINE;
}

static void
ex_set_inline_data(struct dr_qp_ex *ex, void *addr, size_t length)
{
	struct dr_data_buf buf = { .addr = addr, .length = length };

	ex_set_inline_data_list(ex, 1, &buf);
}

static void
ex_start(struct dr_qp_ex *ex)
{
	struct dr_wr_batch *b = ex_qp(ex)->batch;

	b->open = true;
	b->err = 0;
	b->n = 0;
}

static void
ex_abort(struct dr_qp_ex *ex)
{
	struct dr_wr_batch *b = ex_qp(ex)->batch;

	b->open = false;
	b->err = 0;
	b->n = 0;
}

static int
ex_complete(struct dr_qp_ex *ex)
{
	struct dr_qp_impl *qp = ex_qp(ex);
	struct dr_wr_batch *b = qp->batch;
	uint16_t *f = b->flags;
	uint64_t *len = b->len;
	struct dr_sq *sq = &qp->sq;
	uint32_t i, n = b->n;
	enum dr_qp_state st;
	uint32_t gen, head0;
	int rc;

	if (!b->open)
		return EINVAL;
	rc = b->err;
	gen = dr_post_mr_gen(qp);   /* before the L_Keys are checked */
	head0 = sq->head;
	/* every WR as dr_post_send() checks it, then the room for all: the batch is posted whole or not */
	for (i = 0; rc == 0 && i < n; i++) {
		rc = dr_post_send_check(qp, &b->wr[i], &f[i], &len[i]);
		if (rc != 0)
			DR_DP_LOG(qp, DEBUG, "QP 0x%x: wr_complete: WR %u (wr_id 0x%" PRIx64 ", opcode %d) refused",
				  qp->pub.qp_num, i, b->wr[i].wr_id, (int)b->wr[i].opcode);
	}
	/* inline, a QP in ERR / SQE completes them at once; else they are queued for its worker */
	st = __atomic_load_n(&qp->pub.state, __ATOMIC_ACQUIRE);
	if (rc == 0 &&
	    (qp->pub.context->attr.mode != DR_PROGRESS_INLINE || (st != DR_QPS_ERR && st != DR_QPS_SQE)) &&
	    sq->max_wr - (sq->head - __atomic_load_n(&sq->tail, __ATOMIC_ACQUIRE)) < n)
		rc = ENOMEM;
	for (i = 0; rc == 0 && i < n; i++)
		rc = dr_post_send_commit(qp, &b->wr[i], f[i], len[i], gen);   /* cannot fail now */
	if (rc == 0 && n > 0)
		dr_post_send_done(qp, head0);
	if (rc != 0)
		DR_DP_LOG(qp, DEBUG, "QP 0x%x: wr_complete: batch of %u WRs not posted: %s", qp->pub.qp_num, n,
			  strerror(rc));
	ex_abort(ex);
	return rc;
}

uint64_t
dr_wr_batch_mem(const struct dr_qp_impl *qp)
{
	const struct dr_wr_batch *b = qp->batch;

	if (b == NULL)
		return 0;
	return dr_malloc_cost(sizeof(*b)) + dr_malloc_cost(b->max * sizeof(*b->wr)) +
	       dr_malloc_cost((size_t)b->max * b->max_sge * sizeof(*b->sge)) +
	       dr_malloc_cost((size_t)b->max * b->max_inline) +
	       dr_malloc_cost(b->max * sizeof(*b->flags)) + dr_malloc_cost(b->max * sizeof(*b->len));
}

bool
dr_wr_batch_open(const struct dr_qp_impl *qp)
{
	return qp->batch != NULL && qp->batch->open;
}

int
dr_wr_batch_init(struct dr_qp_impl *qp, uint64_t ops)
{
	struct dr_wr_batch *b;
	struct dr_qp_ex *ex = &qp->ex;

	b = rte_zmalloc("dr_wr_batch", sizeof(*b), 0);
	if (b == NULL)
		return -ENOMEM;
	b->ops = ops;
	b->max = qp->sq.max_wr;
	b->max_sge = qp->sq.max_sge;
	b->max_inline = RTE_MAX(qp->sq.max_inline, 1u);
	b->wr = rte_zmalloc("dr_wr_batch_wr", b->max * sizeof(*b->wr), 0);
	b->sge = rte_zmalloc("dr_wr_batch_sge", (size_t)b->max * b->max_sge * sizeof(*b->sge), 0);
	b->inl = rte_zmalloc("dr_wr_batch_inl", (size_t)b->max * b->max_inline, 0);
	b->flags = rte_zmalloc("dr_wr_batch_f", b->max * sizeof(*b->flags), 0);
	b->len = rte_zmalloc("dr_wr_batch_len", b->max * sizeof(*b->len), 0);
	qp->batch = b;
	if (b->wr == NULL || b->sge == NULL || b->inl == NULL || b->flags == NULL || b->len == NULL) {
		dr_wr_batch_free(qp);
		return -ENOMEM;
	}
	ex->comp_mask = 0;
	ex->wr_id = 0;
	ex->wr_flags = 0;
	ex->wr_atomic_cmp_swp = ex_atomic_cmp_swp;
	ex->wr_atomic_fetch_add = ex_atomic_fetch_add;
	ex->wr_bind_mw = ex_bind_mw;
	ex->wr_local_inv = ex_local_inv;
	ex->wr_rdma_read = ex_rdma_read;
	ex->wr_rdma_write = ex_rdma_write;
	ex->wr_rdma_write_imm = ex_rdma_write_imm;
	ex->wr_send = ex_send;
	ex->wr_send_imm = ex_send_imm;
	ex->wr_send_inv = ex_send_inv;
	ex->wr_send_tso = ex_send_tso;
	ex->wr_set_ud_addr = ex_set_ud_addr;
	ex->wr_set_xrc_srqn = ex_set_xrc_srqn;
	ex->wr_set_inline_data = ex_set_inline_data;
	ex->wr_set_inline_data_list = ex_set_inline_data_list;
	ex->wr_set_sge = ex_set_sge;
	ex->wr_set_sge_list = ex_set_sge_list;
	ex->wr_start = ex_start;
	ex->wr_complete = ex_complete;
	ex->wr_abort = ex_abort;
	return 0;
}

void
dr_wr_batch_free(struct dr_qp_impl *qp)
{
	struct dr_wr_batch *b = qp->batch;

	if (b == NULL)
		return;
	rte_free(b->wr);
	rte_free(b->sge);
	rte_free(b->inl);
	rte_free(b->flags);
	rte_free(b->len);
	rte_free(b);
	qp->batch = NULL;
}

struct dr_qp_ex *
dr_qp_to_qp_ex(struct dr_qp *qp)
{
	return qp != NULL && dr_qp_impl(qp)->batch != NULL ? &dr_qp_impl(qp)->ex : NULL;
}

/* The operations a QP type can carry at all (the WR opcode table). */
static uint64_t
ops_of_type(enum dr_qp_type t)
{
	uint64_t ops = 0;
	int op;

	for (op = 0; op < DR_NUM_WR_OPCODES; op++)
		if (dr_wr_opcode_flags(t, (enum dr_wr_opcode)op) & DR_WRF_ALLOWED)
			ops |= op_flag((enum dr_wr_opcode)op);
	return ops;
}

static struct dr_qp *
create_qp_ex_ctl(struct dr_context *ctx, struct dr_qp_init_attr_ex *ia)
{
	const uint32_t known = DR_QP_INIT_ATTR_PD | DR_QP_INIT_ATTR_XRCD | DR_QP_INIT_ATTR_CREATE_FLAGS |
			       DR_QP_INIT_ATTR_MAX_TSO_HEADER | DR_QP_INIT_ATTR_IND_TABLE |
			       DR_QP_INIT_ATTR_RX_HASH | DR_QP_INIT_ATTR_SEND_OPS_FLAGS;
	struct dr_qp_init_attr a;
	struct dr_qp *pub;
	uint64_t ops = 0;
	int rc;

	bool tgt;

	if (ctx == NULL || ia == NULL || (ia->comp_mask & ~known)) {
		errno = EINVAL;
		return NULL;
	}
	/* ibv_create_qp_ex(3): a PD, but an XRC target has its domain instead */
	tgt = ia->qp_type == DR_QPT_XRC_RECV;
	/* a domain is an XRC target's only */
	if (!tgt && (ia->comp_mask & DR_QP_INIT_ATTR_XRCD)) {
		errno = EINVAL;
		return NULL;
	}
	if (tgt ? !(ia->comp_mask & DR_QP_INIT_ATTR_XRCD) || ia->xrcd == NULL :
		  !(ia->comp_mask & DR_QP_INIT_ATTR_PD) || ia->pd == NULL || ia->pd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	if (ia->comp_mask & (DR_QP_INIT_ATTR_CREATE_FLAGS | DR_QP_INIT_ATTR_MAX_TSO_HEADER |
			     DR_QP_INIT_ATTR_IND_TABLE | DR_QP_INIT_ATTR_RX_HASH)) {
		DR_LOG(qp, INFO, "create_qp_ex: comp_mask 0x%x asks for what we do not offer", ia->comp_mask);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (ia->comp_mask & DR_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ops = ia->send_ops_flags;
		if (ops & ~(uint64_t)DR_QP_EX_KNOWN) {
			errno = EINVAL;
			return NULL;
		}
		/* ibv_create_qp_ex(3): an operation the provider cannot do for this QP type fails the creation */
		if (ops & ~(ops_of_type(ia->qp_type) & DR_QP_EX_OFFERED)) {
			DR_LOG(qp, INFO, "create_qp_ex: send_ops_flags 0x%" PRIx64 " not offered on QP type %d",
			       ops & ~(ops_of_type(ia->qp_type) & DR_QP_EX_OFFERED), (int)ia->qp_type);
			errno = EOPNOTSUPP;
			return NULL;
		}
	}
	memset(&a, 0, sizeof(a));
	a.qp_context = ia->qp_context;
	a.send_cq = ia->send_cq;
	a.recv_cq = ia->recv_cq;
	a.srq = ia->srq;
	a.cap = ia->cap;
	a.qp_type = ia->qp_type;
	a.sq_sig_all = ia->sq_sig_all;
	pub = dr_qp_create(ctx, tgt ? NULL : ia->pd, &a, tgt ? ia->xrcd : NULL);
	if (pub == NULL)
		return NULL;
	ia->cap = a.cap;
	if (ia->comp_mask & DR_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		rc = dr_wr_batch_init(dr_qp_impl(pub), ops);
		if (rc != 0) {
			dr_destroy_qp(pub);
			errno = -rc;
			return NULL;
		}
	}
	return pub;
}

/* dr_create_qp_ex() as a control command (dr_control.h) */
struct create_qp_ex_args {
	struct dr_context *ctx;
	struct dr_qp_init_attr_ex *ia;
	struct dr_qp *ret;
};

static int
create_qp_ex_call(void *arg)
{
	struct create_qp_ex_args *a = arg;

	a->ret = create_qp_ex_ctl(a->ctx, a->ia);
	return 0;
}

struct dr_qp *
dr_create_qp_ex(struct dr_context *ctx, struct dr_qp_init_attr_ex *ia)
{
	struct create_qp_ex_args a = { .ctx = ctx, .ia = ia };

	if (ctx == NULL)
		return create_qp_ex_ctl(ctx, ia);
	(void)dr_ctl_run(ctx, create_qp_ex_call, &a);
	return a.ret;
}
