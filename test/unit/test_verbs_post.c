/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dr_post_send / dr_post_recv on RC QPs (ibv_post_send(3), ibv_post_recv(3)):
 * every refused WR in a 3-WR list [good, bad, good] leaves the first posted,
 * points *bad_wr at the second and returns the errno value; queue overflow;
 * the flush of both queues on ERR; posts to a QP in ERR; CQ overrun through
 * a flush, which moves the CQ's other QPs to ERR.
 */

#include <errno.h>
#include <string.h>

#include "dr_test.h"
#include "test_verbs.h"

static uint8_t buf[4096] __rte_aligned(8);
static uint8_t ro_buf[256] __rte_aligned(8);

struct pv {
	struct dr_qp *qp;
	struct dr_mr *mr;       /* buf: LOCAL_WRITE | REMOTE_* */
	struct dr_mr *ro;       /* ro_buf: no LOCAL_WRITE */
	struct dr_sge sge;      /* 16 bytes of buf */
	struct dr_send_wr good;
	struct dr_recv_wr rgood;
};

/* Post [good, bad, good]: expect @want, *bad_wr on the 2nd, exactly one WR posted. */
static void
send3(struct pv *p, const struct dr_send_wr *bad, int want, int line)
{
	struct dr_qp_impl *q = dr_qp_impl(p->qp);
	struct dr_send_wr wr[3], *bad_wr = NULL;
	uint32_t before = q->sq.head;
	int rc;

	wr[0] = p->good;
	wr[1] = *bad;
	wr[2] = p->good;
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	wr[2].next = NULL;
	rc = dr_post_send(p->qp, wr, &bad_wr);
	CHECK_MSG(rc == want && bad_wr == &wr[1] && q->sq.head - before == 1,
		  "line %d: rc %d (want %d), bad_wr index %d, %u posted", line, rc, want,
		  bad_wr != NULL ? (int)(bad_wr - wr) : -1, q->sq.head - before);
}

static void
recv3(struct pv *p, const struct dr_recv_wr *bad, int want, int line)
{
	struct dr_qp_impl *q = dr_qp_impl(p->qp);
	struct dr_recv_wr wr[3], *bad_wr = NULL;
	uint32_t before = q->rq.head;
	int rc;

	wr[0] = p->rgood;
	wr[1] = *bad;
	wr[2] = p->rgood;
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	wr[2].next = NULL;
	rc = dr_post_recv(p->qp, wr, &bad_wr);
	CHECK_MSG(rc == want && bad_wr == &wr[1] && q->rq.head - before == 1,
		  "line %d: rc %d (want %d), bad_wr index %d, %u posted", line, rc, want,
		  bad_wr != NULL ? (int)(bad_wr - wr) : -1, q->rq.head - before);
}

#define SEND3(p, w, e) send3((p), &(w), (e), __LINE__)
#define RECV3(p, w, e) recv3((p), &(w), (e), __LINE__)

/* Posting before RTS: sends refused in RESET/INIT/RTR, receives in RESET only. */
static void
test_states(struct pv *p)
{
	struct dr_send_wr *bs = NULL;
	struct dr_recv_wr *br = NULL;

	CHECK_EQ(dr_post_send(p->qp, &p->good, &bs), EINVAL);
	CHECK(bs == &p->good);
	CHECK_EQ(dr_post_recv(p->qp, &p->rgood, &br), EINVAL);
	CHECK(br == &p->rgood);
	CHECK_EQ(tv_to_init(p->qp), 0);
	CHECK_EQ(dr_post_send(p->qp, &p->good, &bs), EINVAL);
	CHECK_EQ(dr_post_recv(p->qp, &p->rgood, &br), 0);
	CHECK_EQ(tv_to_rtr(p->qp), 0);
	CHECK_EQ(dr_post_send(p->qp, &p->good, &bs), EINVAL);
	CHECK_EQ(dr_post_recv(p->qp, &p->rgood, &br), 0);
	CHECK_EQ(tv_to_rts(p->qp), 0);
	CHECK_EQ(dr_post_send(p->qp, &p->good, &bs), 0);
}

static void
test_send_checks(struct tv *t, struct pv *p)
{
	struct dr_context *ctx = t->ctx;
	struct dr_sge sg[3], big[2];
	struct dr_send_wr w;
	struct dr_pd *pd2 = dr_alloc_pd(ctx);
	struct dr_mr *other = pd2 != NULL ? dr_reg_mr(pd2, buf, sizeof(buf), DR_ACCESS_LOCAL_WRITE) : NULL;
	struct dr_mr *stale = dr_reg_mr(t->pd, buf, sizeof(buf), DR_ACCESS_LOCAL_WRITE);
	struct dr_mr *huge = dr_reg_mr(t->pd, (void *)0x100000, 3ull << 30, 0);  /* never touched */
	uint32_t stale_key = stale != NULL ? stale->lkey : 0;

	CHECK(pd2 != NULL && other != NULL && stale != NULL && huge != NULL);
	if (pd2 == NULL || other == NULL || stale == NULL || huge == NULL)
		return;
	CHECK_EQ(dr_dereg_mr(stale), 0);

	/* opcode (ibv_post_send(3): the QP type limits the opcodes) */
	w = p->good;
	w.opcode = (enum dr_wr_opcode)99;
	SEND3(p, w, EINVAL);
	w.opcode = DR_WR_TSO;                   /* UD / raw packet only */
	SEND3(p, w, EINVAL);
	w.opcode = DR_WR_BIND_MW;               /* no window (test_mw.c covers binds and LOCAL_INV) */
	SEND3(p, w, EINVAL);
	w.opcode = DR_WR_FLUSH;
	SEND3(p, w, EOPNOTSUPP);
	w.opcode = DR_WR_ATOMIC_WRITE;
	SEND3(p, w, EOPNOTSUPP);
	/* send_flags */
	w = p->good;
	w.send_flags = 1u << 7;
	SEND3(p, w, EINVAL);
	w.send_flags = DR_SEND_IP_CSUM;         /* UD / raw packet only */
	SEND3(p, w, EINVAL);
	/* num_sge: 0 .. max_send_sge (2) */
	w = p->good;
	sg[0] = sg[1] = sg[2] = p->sge;
	w.sg_list = sg;
	w.num_sge = 3;
	SEND3(p, w, EINVAL);
	w.num_sge = -1;
	SEND3(p, w, EINVAL);
	/* inline: SEND / WRITE only, at most max_inline_data (64) */
	w = p->good;
	w.opcode = DR_WR_RDMA_READ;
	w.send_flags = DR_SEND_INLINE;
	SEND3(p, w, EINVAL);
	w.opcode = DR_WR_SEND;
	sg[0].length = 40;
	sg[1].length = 25;
	w.sg_list = sg;
	w.num_sge = 2;
	SEND3(p, w, EINVAL);
	/* SGEs: L_Key of an MR of this PD, inside it, rights for READ / atomics */
	w = p->good;
	w.sg_list = sg;
	w.num_sge = 1;
	sg[0] = p->sge;
	sg[0].lkey = 0xDEAD00;
	SEND3(p, w, EINVAL);
	sg[0].lkey = other->lkey;
	SEND3(p, w, EINVAL);
	sg[0].lkey = stale_key;
	SEND3(p, w, EINVAL);
	sg[0] = p->sge;
	sg[0].addr = (uintptr_t)buf + sizeof(buf) - 8;
	SEND3(p, w, EINVAL);
	sg[0].addr = (uintptr_t)ro_buf;
	sg[0].lkey = p->ro->lkey;
	w.opcode = DR_WR_RDMA_READ;
	SEND3(p, w, EINVAL);
	sg[0].length = 8;
	w.opcode = DR_WR_ATOMIC_FETCH_AND_ADD;
	w.wr.atomic.remote_addr = 0x1000;
	SEND3(p, w, EINVAL);
	/* message size: at most max_msg_sz (1 GiB) */
	w = p->good;
	big[0].addr = 0x100000;
	big[0].length = 0x30000000;
	big[0].lkey = huge->lkey;
	big[1] = big[0];
	big[1].addr += big[0].length;
	w.sg_list = big;
	w.num_sge = 2;
	SEND3(p, w, EINVAL);
	/* atomics: one 8-byte SGE (a misaligned remote address is the responder's: test_rc_errors) */
	w = p->good;
	w.opcode = DR_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.remote_addr = 0x1000;
	sg[0] = p->sge;
	sg[0].length = 4;
	w.sg_list = sg;
	w.num_sge = 1;
	SEND3(p, w, EINVAL);
	sg[0].length = 8;
	sg[1] = sg[0];
	w.num_sge = 2;
	SEND3(p, w, EINVAL);

	CHECK_EQ(dr_dereg_mr(huge), 0);
	CHECK_EQ(dr_dereg_mr(other), 0);
	CHECK_EQ(dr_dealloc_pd(pd2), 0);
}

/* What a posted WR becomes: the WQE the transport reads. */
static void
test_wqe(struct pv *p)
{
	struct dr_qp_impl *q = dr_qp_impl(p->qp);
	struct dr_send_wqe *wqe;
	struct dr_send_wr w, *bad;
	struct dr_sge sg[2];
	uint8_t src[64];

	/* RDMA WRITE, two SGEs; sq_sig_all adds SIGNALED */
	w = p->good;
	sg[0] = p->sge;
	sg[1] = p->sge;
	sg[1].addr += 100;
	sg[1].length = 30;
	w.sg_list = sg;
	w.num_sge = 2;
	w.opcode = DR_WR_RDMA_WRITE;
	w.wr.rdma.remote_addr = 0xABCD0000;
	w.wr.rdma.rkey = 0x4242;
	w.wr_id = 0x77;
	CHECK_EQ(dr_post_send(p->qp, &w, &bad), 0);
	wqe = dr_sq_wqe(&q->sq, q->sq.head - 1);
	CHECK(wqe->wr_id == 0x77 && wqe->opcode == DR_WR_RDMA_WRITE && wqe->state == DR_WQE_POSTED);
	CHECK(wqe->remote_addr == 0xABCD0000 && wqe->rkey == 0x4242 && wqe->length == 46);
	CHECK(wqe->num_sge == 2 && wqe->inline_data == NULL);
	CHECK(memcmp(wqe->sge, sg, sizeof(sg)) == 0);
	CHECK(wqe->send_flags & DR_SEND_SIGNALED);
	/* inline: copied at post time, no SGE, no MR needed */
	memset(src, 0x5A, sizeof(src));
	sg[0].addr = (uintptr_t)src;
	sg[0].length = sizeof(src);
	sg[0].lkey = 0;
	w = p->good;
	w.sg_list = sg;
	w.num_sge = 1;
	w.send_flags = DR_SEND_INLINE | DR_SEND_SOLICITED;
	w.opcode = DR_WR_SEND_WITH_IMM;
	w.imm_data = RTE_BE32(0x01020304);
	CHECK_EQ(dr_post_send(p->qp, &w, &bad), 0);
	memset(src, 0, sizeof(src));
	wqe = dr_sq_wqe(&q->sq, q->sq.head - 1);
	CHECK(wqe->inline_data != NULL && wqe->num_sge == 0 && wqe->length == 64);
	CHECK(wqe->inline_data != NULL && wqe->inline_data[0] == 0x5A && wqe->inline_data[63] == 0x5A);
	CHECK(wqe->imm_data == RTE_BE32(0x01020304) && (wqe->send_flags & DR_SEND_SOLICITED));
	/* atomic fields */
	w = p->good;
	sg[0] = p->sge;
	sg[0].length = 8;
	w.sg_list = sg;
	w.num_sge = 1;
	w.opcode = DR_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.remote_addr = 0x2000;
	w.wr.atomic.rkey = 7;
	w.wr.atomic.compare_add = 11;
	w.wr.atomic.swap = 12;
	CHECK_EQ(dr_post_send(p->qp, &w, &bad), 0);
	wqe = dr_sq_wqe(&q->sq, q->sq.head - 1);
	CHECK(wqe->remote_addr == 0x2000 && wqe->rkey == 7 && wqe->compare_add == 11 && wqe->swap == 12);
	/* a zero-length SGE names no memory: its key is not looked up; a read-only MR can be sent from */
	sg[0].length = 0;
	sg[0].lkey = 0xBAD;
	sg[1].addr = (uintptr_t)ro_buf;
	sg[1].length = 16;
	sg[1].lkey = p->ro->lkey;
	w = p->good;
	w.sg_list = sg;
	w.num_sge = 2;
	CHECK_EQ(dr_post_send(p->qp, &w, &bad), 0);
}

static void
test_recv_checks(struct pv *p)
{
	struct dr_recv_wr w;
	struct dr_sge sg[3];

	w = p->rgood;
	sg[0] = sg[1] = sg[2] = p->sge;
	w.sg_list = sg;
	w.num_sge = 3;                          /* max_recv_sge is 2 */
	RECV3(p, w, EINVAL);
	w.num_sge = -1;
	RECV3(p, w, EINVAL);
	w.num_sge = 1;
	sg[0].lkey = 0xDEAD00;
	RECV3(p, w, EINVAL);
	sg[0].addr = (uintptr_t)ro_buf;         /* data is written there: LOCAL_WRITE needed */
	sg[0].lkey = p->ro->lkey;
	RECV3(p, w, EINVAL);
	sg[0] = p->sge;
	sg[0].length = sizeof(buf) + 1;
	RECV3(p, w, EINVAL);
}

/* Count completions of @cq: all WR_FLUSH_ERR of @qpn, wr_ids @first, @first + 1, ... */
static unsigned int
poll_flushed(struct dr_cq *cq, uint32_t qpn, uint64_t first, const enum dr_wc_opcode *ops)
{
	struct dr_wc wc[16];
	int n = dr_poll_cq(cq, 16, wc), i;

	for (i = 0; i < n; i++) {
		CHECK_EQ(wc[i].status, DR_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[i].wr_id, first + (uint64_t)i);
		CHECK_EQ(wc[i].qp_num, qpn);
		if (ops != NULL)
			CHECK_EQ(wc[i].opcode, ops[i]);
	}
	return n < 0 ? 0 : (unsigned int)n;
}

/* ENOMEM at exactly max_wr + 1; then ERR flushes every WR, signaled or not, in order. */
static void
test_overflow_flush(struct tv *t, struct pv *p)
{
	static const enum dr_wc_opcode ops[] = { DR_WC_SEND, DR_WC_RDMA_WRITE, DR_WC_RDMA_READ, DR_WC_FETCH_ADD };
	struct dr_cq *scq = dr_create_cq(t->ctx, 16, NULL, NULL, 0);
	struct dr_cq *rcq = dr_create_cq(t->ctx, 16, NULL, NULL, 0);
	struct dr_qp *qp = scq && rcq ? tv_create_qp(t, scq, rcq, 4, 0) : NULL;
	struct dr_send_wr w[5], *bs = NULL;
	struct dr_recv_wr r[5], *br = NULL;
	struct dr_qp_attr a;
	struct dr_sge sg8 = p->sge;
	int i;

	CHECK(qp != NULL);
	if (qp == NULL)
		return;
	CHECK(tv_to_init(qp) == 0 && tv_to_rtr(qp) == 0 && tv_to_rts(qp) == 0);
	sg8.length = 8;
	for (i = 0; i < 5; i++) {
		w[i] = p->good;
		w[i].wr_id = 10 + i;
		w[i].send_flags = 0;            /* unsignaled: flushed all the same */
		w[i].next = i < 4 ? &w[i + 1] : NULL;
		r[i] = p->rgood;
		r[i].wr_id = 20 + i;
		r[i].next = i < 4 ? &r[i + 1] : NULL;
	}
	w[1].opcode = DR_WR_RDMA_WRITE;
	w[2].opcode = DR_WR_RDMA_READ;
	w[3].opcode = DR_WR_ATOMIC_FETCH_AND_ADD;
	w[3].sg_list = &sg8;
	w[3].wr.atomic.remote_addr = 0x8000;
	CHECK_EQ(dr_post_send(qp, w, &bs), ENOMEM);
	CHECK(bs == &w[4]);
	CHECK_EQ(dr_post_recv(qp, r, &br), ENOMEM);
	CHECK(br == &r[4]);

	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_ERR;
	CHECK_EQ(dr_modify_qp(qp, &a, DR_QP_STATE), 0);
	CHECK_EQ(poll_flushed(scq, qp->qp_num, 10, ops), 4);
	CHECK_EQ(poll_flushed(rcq, qp->qp_num, 20, NULL), 4);
	CHECK_EQ(dr_qp_impl(qp)->sq.head, dr_qp_impl(qp)->sq.tail);
	CHECK_EQ(dr_qp_impl(qp)->rq.head, dr_qp_impl(qp)->rq.tail);

	/* posting in ERR: checked, then completed at once as flushed */
	w[0].next = NULL;
	r[0].next = NULL;
	CHECK_EQ(dr_post_send(qp, w, &bs), 0);
	CHECK_EQ(poll_flushed(scq, qp->qp_num, 10, ops), 1);
	CHECK_EQ(dr_post_recv(qp, r, &br), 0);
	CHECK_EQ(poll_flushed(rcq, qp->qp_num, 20, NULL), 1);
	w[0].opcode = DR_WR_TSO;
	CHECK_EQ(dr_post_send(qp, w, &bs), EINVAL);
	CHECK_EQ(poll_flushed(scq, qp->qp_num, 10, NULL), 0);

	CHECK_EQ(dr_destroy_qp(qp), 0);
	CHECK_EQ(dr_destroy_cq(scq), 0);
	CHECK_EQ(dr_destroy_cq(rcq), 0);
}

/* A flush that overruns its CQ: -EOVERFLOW, and the CQ's other QP is moved to ERR. */
static void
test_overrun(struct tv *t, struct pv *p)
{
	struct dr_cq *tiny = dr_create_cq(t->ctx, 1, NULL, NULL, 0);  /* holds 2 */
	struct dr_cq *rcq = dr_create_cq(t->ctx, 8, NULL, NULL, 0);
	struct dr_qp *qa = tiny && rcq ? tv_create_qp(t, tiny, rcq, 4, 1) : NULL;
	struct dr_qp *qb = qa ? tv_create_qp(t, tiny, rcq, 4, 0) : NULL;
	struct dr_send_wr w[3], *bs;
	struct dr_recv_wr r = p->rgood, *br;
	struct dr_qp_attr a;
	struct dr_wc wc[4];
	int i;

	CHECK(qb != NULL);
	if (qb == NULL)
		return;
	CHECK(tv_to_init(qa) == 0 && tv_to_rtr(qa) == 0 && tv_to_rts(qa) == 0);
	CHECK_EQ(tv_to_init(qb), 0);
	for (i = 0; i < 3; i++) {
		w[i] = p->good;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	CHECK_EQ(dr_post_send(qa, w, &bs), 0);
	r.wr_id = 77;
	CHECK_EQ(dr_post_recv(qb, &r, &br), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_ERR;
	CHECK_EQ(dr_modify_qp(qa, &a, DR_QP_STATE), 0);
	CHECK(dr_cq_impl(tiny)->overrun);
	CHECK_EQ(dr_poll_cq(tiny, 4, wc), -EOVERFLOW);
	CHECK_EQ(qb->state, DR_QPS_ERR);
	CHECK_EQ(poll_flushed(rcq, qb->qp_num, 77, NULL), 1);
	CHECK_EQ(dr_destroy_qp(qa), 0);
	CHECK_EQ(dr_destroy_qp(qb), 0);
	{
		struct dr_async_event ev;

		CHECK_EQ(dr_get_async_event(tiny->context, &ev), 0);
		CHECK(ev.event_type == DR_EVENT_CQ_ERR && ev.element.cq == tiny);
		dr_ack_async_event(&ev);
	}
	CHECK_EQ(dr_destroy_cq(tiny), 0);
	CHECK_EQ(dr_destroy_cq(rcq), 0);
}

void
tv_post_tests(struct tv *t, struct tv_count *c)
{
	struct dr_cq *scq = dr_create_cq(t->ctx, 256, NULL, NULL, 0);
	struct dr_cq *rcq = dr_create_cq(t->ctx, 256, NULL, NULL, 0);
	struct dr_qp_attr a;
	struct pv p;
	unsigned int nsend, nrecv;

	memset(&p, 0, sizeof(p));
	p.mr = dr_reg_mr(t->pd, buf, sizeof(buf), DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE |
			 DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_ATOMIC);
	p.ro = dr_reg_mr(t->pd, ro_buf, sizeof(ro_buf), DR_ACCESS_REMOTE_READ);
	p.qp = scq && rcq ? tv_create_qp(t, scq, rcq, 64, 1) : NULL;
	CHECK(p.mr != NULL && p.ro != NULL && p.qp != NULL);
	if (p.mr == NULL || p.ro == NULL || p.qp == NULL)
		goto out;
	p.sge.addr = (uintptr_t)buf;
	p.sge.length = 16;
	p.sge.lkey = p.mr->lkey;
	p.good.wr_id = 1;
	p.good.sg_list = &p.sge;
	p.good.num_sge = 1;
	p.good.opcode = DR_WR_SEND;
	p.good.send_flags = DR_SEND_SIGNALED;
	p.rgood.wr_id = 2;
	p.rgood.sg_list = &p.sge;
	p.rgood.num_sge = 1;

	test_states(&p);
	test_send_checks(t, &p);
	test_wqe(&p);
	test_recv_checks(&p);
	/* no progress ran while the QP was in RTS: every WR posted is still queued, and flushed */
	nsend = dr_qp_impl(p.qp)->sq.head - dr_qp_impl(p.qp)->sq.tail;
	nrecv = dr_qp_impl(p.qp)->rq.head - dr_qp_impl(p.qp)->rq.tail;
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_ERR;
	CHECK_EQ(dr_modify_qp(p.qp, &a, DR_QP_STATE), 0);
	CHECK_EQ(dr_cq_count(dr_cq_impl(scq)), nsend);
	CHECK_EQ(dr_cq_count(dr_cq_impl(rcq)), nrecv);
	CHECK_EQ(dr_destroy_qp(p.qp), 0);
	test_overflow_flush(t, &p);
	test_overrun(t, &p);
out:
	if (p.mr != NULL)
		CHECK_EQ(dr_dereg_mr(p.mr), 0);
	if (p.ro != NULL)
		CHECK_EQ(dr_dereg_mr(p.ro), 0);
	if (scq != NULL)
		CHECK_EQ(dr_destroy_cq(scq), 0);
	if (rcq != NULL)
		CHECK_EQ(dr_destroy_cq(rcq), 0);
	c->passed += dr_test_passed;
	c->failed += dr_test_failed;
}
