/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The work-request builder of ibv_wr_post(3) over the test wire (test_rc.h):
 * dr_create_qp_ex() and its send_ops_flags rules, every builder and setter
 * (multi-SGE lists checked byte for byte: rdma-core once shipped a bug there
 * that only the builder had), wr_id / wr_flags taken per WR, a batch posted
 * whole or not at all (every kind of error found at wr_complete aborts it),
 * wr_abort, the critical section against dr_post_send(), and batches of both
 * APIs interleaved.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "test_rc.h"

#define ACC (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_ATOMIC | \
	     DR_ACCESS_MW_BIND)
#define ALL_RC_OPS (DR_QP_EX_WITH_RDMA_WRITE | DR_QP_EX_WITH_RDMA_WRITE_WITH_IMM | DR_QP_EX_WITH_SEND | \
		    DR_QP_EX_WITH_SEND_WITH_IMM | DR_QP_EX_WITH_RDMA_READ | DR_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		    DR_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | DR_QP_EX_WITH_LOCAL_INV | DR_QP_EX_WITH_BIND_MW | \
		    DR_QP_EX_WITH_SEND_WITH_INV)

static int
create_errno(struct rc_side *s, uint32_t comp_mask, enum dr_qp_type t, uint64_t ops)
{
	struct dr_cq *cq = dr_create_cq(s->ctx, 8, NULL, NULL, 0);
	struct dr_qp_init_attr_ex ix = {
		.send_cq = cq, .recv_cq = cq, .qp_type = t, .pd = s->pd, .comp_mask = comp_mask,
		.send_ops_flags = ops, .cap = { .max_send_wr = 4, .max_recv_wr = 4 },
	};
	struct dr_qp *qp;
	int err = 0;

	errno = 0;
	qp = dr_create_qp_ex(s->ctx, &ix);
	if (qp == NULL)
		err = errno;
	else
		dr_destroy_qp(qp);
	dr_destroy_cq(cq);
	return err;
}

/* ibv_create_qp_ex(3): the PD is required, unknown bits are EINVAL, what we do not offer EOPNOTSUPP. */
static void
test_create(struct rc_env *e)
{
	struct rc_side *a = &e->s[0];
	const uint32_t pd_ops = DR_QP_INIT_ATTR_PD | DR_QP_INIT_ATTR_SEND_OPS_FLAGS;

	RC_CHECK_EQ(create_errno(a, DR_QP_INIT_ATTR_SEND_OPS_FLAGS, DR_QPT_RC, DR_QP_EX_WITH_SEND), EINVAL);
	RC_CHECK_EQ(create_errno(a, pd_ops | (1u << 20), DR_QPT_RC, DR_QP_EX_WITH_SEND), EINVAL);
	RC_CHECK_EQ(create_errno(a, pd_ops | DR_QP_INIT_ATTR_XRCD, DR_QPT_RC, DR_QP_EX_WITH_SEND), EINVAL);
	RC_CHECK_EQ(create_errno(a, pd_ops | DR_QP_INIT_ATTR_CREATE_FLAGS, DR_QPT_RC, DR_QP_EX_WITH_SEND), EOPNOTSUPP);
	RC_CHECK_EQ(create_errno(a, pd_ops, DR_QPT_RC, 1ull << 40), EINVAL);
	RC_CHECK_EQ(create_errno(a, pd_ops, DR_QPT_RC, DR_QP_EX_WITH_SEND | DR_QP_EX_WITH_TSO), EOPNOTSUPP);
	RC_CHECK_EQ(create_errno(a, pd_ops, DR_QPT_RC, DR_QP_EX_WITH_FLUSH), EOPNOTSUPP);
	RC_CHECK_EQ(create_errno(a, pd_ops, DR_QPT_RC, DR_QP_EX_WITH_ATOMIC_WRITE), EOPNOTSUPP);
	/* what the QP type does not have: READ on UC, WRITE on UD */
	RC_CHECK_EQ(create_errno(a, pd_ops, DR_QPT_UC, DR_QP_EX_WITH_RDMA_READ), EOPNOTSUPP);
	RC_CHECK_EQ(create_errno(a, pd_ops, DR_QPT_UD, DR_QP_EX_WITH_RDMA_WRITE), EOPNOTSUPP);
	RC_CHECK_EQ(create_errno(a, pd_ops, DR_QPT_RC, ALL_RC_OPS), 0);
	RC_CHECK_EQ(create_errno(a, pd_ops, DR_QPT_UD, DR_QP_EX_WITH_SEND | DR_QP_EX_WITH_SEND_WITH_IMM), 0);
	RC_CHECK_EQ(create_errno(a, DR_QP_INIT_ATTR_PD, DR_QPT_RC, 0), 0);
	RC_CHECK(dr_qp_to_qp_ex(NULL) == NULL);
}

static struct rc_buf la, lb;

static bool
connect_ex(struct rc_env *e, uint64_t ops_a)
{
	struct rc_qp_params p;

	rc_params_default(&p);
	p.send_ops[0] = ops_a;
	p.max_wr = 16;
	p.sq_sig_all = 0;             /* wr_flags decide */
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(&e->s[0], &la, 65536, ACC) != 0 ||
	    rc_buf_alloc(&e->s[1], &lb, 65536, ACC) != 0)
		return false;
	rc_fill(la.p, 65536, 3);
	rc_fill(lb.p, 65536, 4);
	return true;
}

static void
disconnect(struct rc_env *e)
{
	rc_buf_free(&la);
	rc_buf_free(&lb);
	rc_disconnect(e);
}

#define LA(off) ((uint64_t)(uintptr_t)(la.p + (off)))
#define LB(off) ((uint64_t)(uintptr_t)(lb.p + (off)))

/* Every builder and setter in one batch; each WR's wr_id and flags, data and completions. */
static void
test_every_builder(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct dr_qp_ex *qx;
	uint64_t v;
	uint8_t inl[3][40];
	struct dr_data_buf bufs[3];
	struct dr_sge three[3], two[2];
	unsigned int i;

	if (!connect_ex(e, ALL_RC_OPS)) {
		RC_CHECK_MSG(0, "builder setup");
		return;
	}
	/* uneven SGEs: 100 + 1 + 2900 bytes, and 700 + 1500 */
	three[0] = (struct dr_sge){ LA(0), 100, 0 };
	three[1] = (struct dr_sge){ LA(1000), 1, 0 };
	three[2] = (struct dr_sge){ LA(2000), 2900, 0 };
	two[0] = (struct dr_sge){ LA(10000), 700, 0 };
	two[1] = (struct dr_sge){ LA(12000), 1500, 0 };
	qx = dr_qp_to_qp_ex(a->qp);
	RC_CHECK(qx != NULL && &qx->qp_base == a->qp);
	RC_CHECK(dr_qp_to_qp_ex(b->qp) == NULL);
	for (i = 0; i < 3; i++)
		three[i].lkey = la.mr->lkey;
	two[0].lkey = two[1].lkey = la.mr->lkey;
	for (i = 0; i < 3; i++) {
		memset(inl[i], 'a' + i, sizeof(inl[i]));
		bufs[i].addr = inl[i];
		bufs[i].length = 10 + i;
	}
	memcpy(lb.p + 60000, &(uint64_t){ 1000 }, 8);
	RC_CHECK_EQ(rc_post_recv(b, 100, &(struct dr_sge){ LB(20000), 8192, lb.mr->lkey }, 1), 0);
	RC_CHECK_EQ(rc_post_recv(b, 101, &(struct dr_sge){ LB(30000), 64, lb.mr->lkey }, 1), 0);
	RC_CHECK_EQ(rc_post_recv(b, 102, NULL, 0), 0);
	RC_CHECK_EQ(rc_post_recv(b, 103, NULL, 0), 0);

	dr_wr_start(qx);
	qx->wr_flags = DR_SEND_SIGNALED;
	qx->wr_id = 1;
	dr_wr_send(qx);
	dr_wr_set_sge_list(qx, 3, three);                  /* 3001 bytes, three SGEs */
	qx->wr_id = 2;
	dr_wr_rdma_write(qx, lb.mr->rkey, LB(40000));
	dr_wr_set_sge(qx, la.mr->lkey, LA(5000), 4000);
	qx->wr_id = 3;
	dr_wr_send_imm(qx, rte_cpu_to_be_32(0x77));
	dr_wr_set_inline_data_list(qx, 3, bufs);           /* 10 + 11 + 12 bytes, copied now */
	memset(inl, 0, sizeof(inl));
	qx->wr_id = 4;
	dr_wr_rdma_write_imm(qx, lb.mr->rkey, LB(50000), rte_cpu_to_be_32(0x88));
	dr_wr_set_inline_data(qx, "inline!", 7);
	qx->wr_id = 5;
	dr_wr_rdma_read(qx, lb.mr->rkey, LB(1000));
	dr_wr_set_sge_list(qx, 2, two);                    /* 2200 bytes into two SGEs */
	qx->wr_id = 6;
	dr_wr_atomic_fetch_add(qx, lb.mr->rkey, LB(60000), 5);
	dr_wr_set_sge(qx, la.mr->lkey, LA(60000), 8);
	qx->wr_id = 7;
	qx->wr_flags = 0;                                  /* unsignaled: no completion */
	dr_wr_atomic_cmp_swp(qx, lb.mr->rkey, LB(60000), 1005, 42);
	dr_wr_set_sge(qx, la.mr->lkey, LA(60008), 8);
	qx->wr_id = 8;
	qx->wr_flags = DR_SEND_SIGNALED;
	dr_wr_send(qx);
	dr_wr_set_sge_list(qx, 0, NULL);                   /* zero-length */
	RC_CHECK_EQ(dr_wr_complete(qx), 0);

	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 7, 3000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 4, 3000000));
	RC_CHECK_EQ(sw.n, 7);
	{
		static const uint64_t ids[] = { 1, 2, 3, 4, 5, 6, 8 };
		static const enum dr_wc_opcode ops[] = { DR_WC_SEND, DR_WC_RDMA_WRITE, DR_WC_SEND, DR_WC_RDMA_WRITE,
							 DR_WC_RDMA_READ, DR_WC_FETCH_ADD, DR_WC_SEND };

		for (i = 0; i < sw.n && i < 7; i++)
			RC_CHECK_MSG(sw.wc[i].wr_id == ids[i] && sw.wc[i].status == DR_WC_SUCCESS &&
				     sw.wc[i].opcode == ops[i], "send completion %u: wr_id %" PRIu64 " %s", i,
				     sw.wc[i].wr_id, dr_wc_status_str(sw.wc[i].status));
	}
	/* the three-SGE SEND arrived whole, in order */
	RC_CHECK(rw.n == 4 && rw.wc[0].wr_id == 100 && rw.wc[0].byte_len == 3001);
	RC_CHECK(rw.wc[3].wr_id == 103 && rw.wc[3].byte_len == 0);
	RC_CHECK(memcmp(lb.p + 20000, la.p, 100) == 0 && lb.p[20100] == la.p[1000] &&
		 memcmp(lb.p + 20101, la.p + 2000, 2900) == 0);
	RC_CHECK(rw.wc[1].wr_id == 101 && rw.wc[1].byte_len == 33 && rte_be_to_cpu_32(rw.wc[1].imm_data) == 0x77);
	RC_CHECK(lb.p[30000] == 'a' && lb.p[30010] == 'b' && lb.p[30021] == 'c' && lb.p[30032] == 'c');
	RC_CHECK(rw.wc[2].wr_id == 102 && rw.wc[2].opcode == DR_WC_RECV_RDMA_WITH_IMM &&
		 rte_be_to_cpu_32(rw.wc[2].imm_data) == 0x88 && memcmp(lb.p + 50000, "inline!", 7) == 0);
	RC_CHECK(memcmp(lb.p + 40000, la.p + 5000, 4000) == 0);
	/* the READ scattered over its two SGEs */
	RC_CHECK(memcmp(la.p + 10000, lb.p + 1000, 700) == 0 && memcmp(la.p + 12000, lb.p + 1700, 1500) == 0);
	memcpy(&v, la.p + 60000, 8);
	RC_CHECK_EQ(v, 1000);
	memcpy(&v, la.p + 60008, 8);
	RC_CHECK_EQ(v, 1005);
	memcpy(&v, lb.p + 60000, 8);
	RC_CHECK_EQ(v, 42);
	disconnect(e);
}

/* SQ entries in use (posted and not completed). */
static uint32_t
sq_used(struct dr_qp *qp)
{
	struct dr_qp_impl *q = dr_qp_impl(qp);

	return q->sq.head - q->sq.tail;
}

/* One batch of a good SEND, then @bad, then another SEND: complete says @want and posts nothing. */
static void
batch_refused(struct rc_env *e, const char *why, int want, void (*bad)(struct dr_qp_ex *qx))
{
	struct rc_side *a = &e->s[0];
	struct dr_qp_ex *qx = dr_qp_to_qp_ex(a->qp);
	struct rc_wcs sw = { .n = 0 };
	uint32_t before = sq_used(a->qp);

	dr_wr_start(qx);
	qx->wr_flags = DR_SEND_SIGNALED;
	dr_wr_rdma_write(qx, lb.mr->rkey, LB(0));
	dr_wr_set_sge(qx, la.mr->lkey, LA(0), 64);
	bad(qx);
	dr_wr_rdma_write(qx, lb.mr->rkey, LB(0));
	dr_wr_set_sge(qx, la.mr->lkey, LA(0), 64);
	RC_CHECK_MSG(dr_wr_complete(qx) == want, "%s", why);
	RC_CHECK_MSG(sq_used(a->qp) == before, "%s: something was posted", why);
	rc_run(e, 2000, NULL, NULL);
	RC_CHECK_MSG(rc_poll(a->scq, &sw) == 0, "%s: %u completions", why, sw.n);
	RC_CHECK_EQ(rc_qp_state(a->qp), DR_QPS_RTS);
}

static void bad_too_many_sges(struct dr_qp_ex *qx)
{
	struct dr_sge s[5] = { { LA(0), 1, la.mr->lkey } };

	dr_wr_send(qx);
	dr_wr_set_sge_list(qx, 5, s);
}
static void bad_inline_too_big(struct dr_qp_ex *qx)
{
	static uint8_t big[1024];

	dr_wr_send(qx);
	dr_wr_set_inline_data(qx, big, sizeof(big));
}
static void bad_setter_first(struct dr_qp_ex *qx)
{
	dr_wr_abort(qx);
	dr_wr_start(qx);
	dr_wr_set_sge(qx, la.mr->lkey, LA(0), 8);
}
static void bad_not_enabled(struct dr_qp_ex *qx) { dr_wr_send_inv(qx, 5); }
static void bad_tso(struct dr_qp_ex *qx) { dr_wr_send_tso(qx, NULL, 0, 0); }
static void bad_xrc(struct dr_qp_ex *qx)
{
	dr_wr_send(qx);
	dr_wr_set_xrc_srqn(qx, 3);
}
static void bad_lkey(struct dr_qp_ex *qx)
{
	dr_wr_send(qx);
	dr_wr_set_sge(qx, la.mr->lkey ^ 0x7700, LA(0), 8);
}
static void bad_inline_read(struct dr_qp_ex *qx)
{
	dr_wr_rdma_read(qx, lb.mr->rkey, LB(0));
	dr_wr_set_inline_data(qx, "x", 1);                 /* inline is for SEND / WRITE only */
}
static void bad_too_many_wrs(struct dr_qp_ex *qx)
{
	for (int i = 0; i < 20; i++)
		dr_wr_send(qx);
}

/* Each error of a batch aborts all of it; abort posts nothing; the critical section. */
static void
test_batch_errors(struct rc_env *e)
{
	struct rc_side *a = &e->s[0];
	struct dr_qp_ex *qx;
	struct dr_send_wr wr, *bad = NULL;
	struct dr_sge sge;
	struct rc_wcs sw = { .n = 0 };

	if (!connect_ex(e, ALL_RC_OPS & ~(uint64_t)DR_QP_EX_WITH_SEND_WITH_INV)) {
		RC_CHECK_MSG(0, "batch setup");
		return;
	}
	qx = dr_qp_to_qp_ex(a->qp);
	batch_refused(e, "too many SGEs", EINVAL, bad_too_many_sges);
	batch_refused(e, "inline above max_inline_data", EINVAL, bad_inline_too_big);
	batch_refused(e, "a setter before any builder", EINVAL, bad_setter_first);
	batch_refused(e, "an operation not in send_ops_flags", EOPNOTSUPP, bad_not_enabled);
	batch_refused(e, "TSO", EOPNOTSUPP, bad_tso);
	batch_refused(e, "xrc_srqn on RC (XRC_SEND only)", EINVAL, bad_xrc);
	batch_refused(e, "a bad lkey (dr_post_send()'s check)", EINVAL, bad_lkey);
	batch_refused(e, "inline READ", EINVAL, bad_inline_read);
	batch_refused(e, "more WRs than max_send_wr", ENOMEM, bad_too_many_wrs);
	RC_CHECK_EQ(dr_wr_complete(qx), EINVAL);           /* no batch open */

	/* abort: nothing posted */
	dr_wr_start(qx);
	dr_wr_send(qx);
	dr_wr_abort(qx);
	RC_CHECK_EQ(sq_used(a->qp), 0);

	/* the critical section: dr_post_send() inside it is EBUSY, outside it the two interleave */
	sge = (struct dr_sge){ LA(0), 16, la.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = DR_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = DR_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = LB(0);
	wr.wr.rdma.rkey = lb.mr->rkey;
	wr.wr_id = 10;
	RC_CHECK_EQ(dr_post_send(a->qp, &wr, &bad), 0);
	dr_wr_start(qx);
	qx->wr_id = 11;
	qx->wr_flags = DR_SEND_SIGNALED;
	dr_wr_rdma_write(qx, lb.mr->rkey, LB(100));
	dr_wr_set_sge(qx, la.mr->lkey, LA(100), 16);
	wr.wr_id = 99;
	RC_CHECK_EQ(dr_post_send(a->qp, &wr, &bad), EBUSY);
	RC_CHECK(bad == &wr);
	qx->wr_id = 12;
	dr_wr_rdma_write(qx, lb.mr->rkey, LB(200));
	dr_wr_set_sge(qx, la.mr->lkey, LA(200), 16);
	RC_CHECK_EQ(dr_wr_complete(qx), 0);
	wr.wr_id = 13;
	RC_CHECK_EQ(dr_post_send(a->qp, &wr, &bad), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 4, 2000000));
	RC_CHECK(sw.n == 4 && sw.wc[0].wr_id == 10 && sw.wc[1].wr_id == 11 && sw.wc[2].wr_id == 12 &&
		 sw.wc[3].wr_id == 13);
	disconnect(e);
}

/* UD through the builder: wr_set_ud_addr, and a WR without it refused at complete. */
static void
test_ud(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct dr_ah_attr av;
	struct dr_qp_ex *qx;
	struct dr_ah *ah;

	rc_params_default(&p);
	p.qp_type = DR_QPT_UD;
	p.send_ops[0] = DR_QP_EX_WITH_SEND | DR_QP_EX_WITH_SEND_WITH_IMM;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, 4096, ACC) != 0 || rc_buf_alloc(b, &lb, 4096, ACC) != 0) {
		RC_CHECK_MSG(0, "UD builder setup");
		return;
	}
	memset(&av, 0, sizeof(av));
	av.is_global = 1;
	av.grh.dgid = b->gid;
	av.grh.sgid_index = 1;
	ah = dr_create_ah(a->pd, &av);
	qx = dr_qp_to_qp_ex(a->qp);
	rc_fill(la.p, 4096, 9);
	RC_CHECK_EQ(rc_post_recv(b, 1, &(struct dr_sge){ LB(0), 2048, lb.mr->lkey }, 1), 0);
	dr_wr_start(qx);
	qx->wr_flags = DR_SEND_SIGNALED;
	dr_wr_send(qx);                                    /* no address: refused */
	dr_wr_set_sge(qx, la.mr->lkey, LA(0), 100);
	RC_CHECK_EQ(dr_wr_complete(qx), EINVAL);
	dr_wr_start(qx);
	qx->wr_id = 5;
	dr_wr_send_imm(qx, rte_cpu_to_be_32(9));
	dr_wr_set_ud_addr(qx, ah, b->qp->qp_num, p.qkey);
	dr_wr_set_sge(qx, la.mr->lkey, LA(0), 100);
	RC_CHECK_EQ(dr_wr_complete(qx), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000) && sw.wc[0].wr_id == 5);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	RC_CHECK(rw.n == 1 && rw.wc[0].byte_len == DR_GRH_LEN + 100 && memcmp(lb.p + DR_GRH_LEN, la.p, 100) == 0);
	RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	disconnect(e);
}

/* BIND_MW and LOCAL_INV through the builder. */
static void
test_mw(struct rc_env *e)
{
	struct rc_side *a = &e->s[0];
	struct rc_wcs sw = { .n = 0 };
	struct dr_mw_bind_info bi;
	struct dr_qp_ex *qx;
	struct dr_mw *mw;
	uint32_t k;

	if (!connect_ex(e, ALL_RC_OPS))
		return;
	qx = dr_qp_to_qp_ex(a->qp);
	mw = dr_alloc_mw(a->pd, DR_MW_TYPE_2);
	k = dr_inc_rkey(mw->rkey);
	bi = (struct dr_mw_bind_info){ la.mr, LA(0), 4096, DR_ACCESS_REMOTE_READ };
	dr_wr_start(qx);
	qx->wr_flags = DR_SEND_SIGNALED;
	qx->wr_id = 1;
	dr_wr_bind_mw(qx, mw, k, &bi);
	qx->wr_id = 2;
	dr_wr_local_inv(qx, k);
	RC_CHECK_EQ(dr_wr_complete(qx), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 2, 2000000));
	RC_CHECK(sw.n == 2 && sw.wc[0].opcode == DR_WC_BIND_MW && sw.wc[0].status == DR_WC_SUCCESS &&
		 sw.wc[1].opcode == DR_WC_LOCAL_INV && sw.wc[1].status == DR_WC_SUCCESS);
	RC_CHECK_EQ(dr_dealloc_mw(mw), 0);
	disconnect(e);
}

static void
run(struct rc_env *e)
{
	test_create(e);
	test_every_builder(e);
	test_batch_errors(e);
	test_ud(e);
	test_mw(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_wr_ex", argv[0], 4200, run);
}
