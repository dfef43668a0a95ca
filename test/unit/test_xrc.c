/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * XRC over the test wire (test_rc.h; IBA XRC annex, ibv_open_xrcd(3),
 * ibv_create_srq_ex(3), ibv_get_srq_num(3), ibv_create_qp_ex(3)): A's
 * XRC_SEND QP reaches B's XRC_RECV QP, each request naming one of B's XRC
 * SRQs by number; its receives land in that SRQ and complete on that SRQ's
 * CQ, its R_Keys are checked against that SRQ's PD. SEND, WRITE with
 * immediate, READ and atomics; XRC opcodes and XRCETH on the wire; an SRQ
 * of another domain, a basic SRQ or a number that names nothing are
 * invalid requests; the objects' bad flows.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "dr_srq.h"
#include "test_rc.h"

#define ACC (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_ATOMIC)

struct xrc_env {
	struct dr_xrcd *xrcd, *xrcd2;
	struct dr_cq *acq, *cq1, *cq2, *tcq;
	struct dr_srq *srq1, *srq2, *other, *basic;
	struct dr_qp *ini, *tgt;
	struct rc_buf la, lb;
};

static struct dr_srq *
xrc_srq(struct rc_side *s, struct dr_xrcd *xrcd, struct dr_cq *cq)
{
	struct dr_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 2 },
		.comp_mask = DR_SRQ_INIT_ATTR_TYPE | DR_SRQ_INIT_ATTR_PD | DR_SRQ_INIT_ATTR_XRCD | DR_SRQ_INIT_ATTR_CQ,
		.srq_type = DR_SRQT_XRC, .pd = s->pd, .xrcd = xrcd, .cq = cq,
	};

	return dr_create_srq_ex(s->ctx, &a);
}

static int
modify(struct dr_qp *qp, enum dr_qp_state st, const struct rc_side *peer, uint32_t dqpn, int mask)
{
	struct dr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = st;
	a.port_num = 1;
	a.qp_access_flags = ACC;
	a.path_mtu = DR_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0x300;
	a.sq_psn = 0x300;
	a.max_dest_rd_atomic = 4;
	a.max_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = 1;
	return dr_modify_qp(qp, &a, DR_QP_STATE | mask);
}

/* A's initiator to B's target, each through INIT, RTR, RTS with its half's attributes. */
static int
xrc_connect(struct rc_env *e, struct xrc_env *x)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int init = DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS;
	const int rtr = DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN;
	struct dr_qp_init_attr_ex ia = {
		.send_cq = x->acq, .qp_type = DR_QPT_XRC_SEND, .pd = a->pd,
		.comp_mask = DR_QP_INIT_ATTR_PD | DR_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = DR_QP_EX_WITH_SEND | DR_QP_EX_WITH_RDMA_WRITE,
		.cap = { .max_send_wr = 32, .max_send_sge = 2 },
	};
	struct dr_qp_init_attr_ex ib = {
		.qp_type = DR_QPT_XRC_RECV, .xrcd = x->xrcd, .comp_mask = DR_QP_INIT_ATTR_XRCD,
	};

	x->ini = dr_create_qp_ex(a->ctx, &ia);
	x->tgt = dr_create_qp_ex(b->ctx, &ib);
	if (x->ini == NULL || x->tgt == NULL)
		return -1;
	if (modify(x->ini, DR_QPS_INIT, b, 0, init) || modify(x->tgt, DR_QPS_INIT, a, 0, init) ||
	    modify(x->ini, DR_QPS_RTR, b, x->tgt->qp_num, rtr) ||
	    modify(x->tgt, DR_QPS_RTR, a, x->ini->qp_num, rtr | DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER) ||
	    modify(x->ini, DR_QPS_RTS, b, 0, DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_SQ_PSN |
					     DR_QP_MAX_QP_RD_ATOMIC) ||
	    modify(x->tgt, DR_QPS_RTS, a, 0, DR_QP_TIMEOUT | DR_QP_SQ_PSN))
		return -1;
	return 0;
}

static int
xsend(struct xrc_env *x, uint64_t id, enum dr_wr_opcode op, uint32_t srqn, uint32_t loff, uint32_t len,
      uint64_t raddr, uint32_t rkey)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(x->la.p + loff), len, x->la.mr->lkey };
	struct dr_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = DR_SEND_SIGNALED;
	wr.imm_data = rte_cpu_to_be_32(0x1000 + (uint32_t)id);
	wr.qp_type.xrc.remote_srqn = srqn;
	if (op == DR_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 7;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return dr_post_send(x->ini, &wr, &bad);
}

static int
srq_post(struct dr_srq *srq, uint64_t id, struct rc_buf *b, uint32_t off, uint32_t len)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(b->p + off), len, b->mr->lkey };
	struct dr_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return dr_post_srq_recv(srq, &wr, &bad);
}

static bool
setup(struct rc_env *e, struct xrc_env *x)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct dr_xrcd_init_attr xa = { .comp_mask = DR_XRCD_INIT_ATTR_FD | DR_XRCD_INIT_ATTR_OFLAGS, .fd = -1,
					.oflags = O_CREAT };

	memset(x, 0, sizeof(*x));
	x->xrcd = dr_open_xrcd(b->ctx, &xa);
	x->xrcd2 = dr_open_xrcd(b->ctx, &xa);
	x->acq = dr_create_cq(a->ctx, 64, NULL, NULL, 0);
	x->cq1 = dr_create_cq(b->ctx, 64, NULL, NULL, 0);
	x->cq2 = dr_create_cq(b->ctx, 64, NULL, NULL, 0);
	if (x->xrcd == NULL || x->xrcd2 == NULL || x->acq == NULL || x->cq1 == NULL || x->cq2 == NULL)
		return false;
	x->srq1 = xrc_srq(b, x->xrcd, x->cq1);
	x->srq2 = xrc_srq(b, x->xrcd, x->cq2);
	x->other = xrc_srq(b, x->xrcd2, x->cq2);
	x->basic = dr_create_srq(b->pd, &(struct dr_srq_init_attr){ .attr = { .max_wr = 4, .max_sge = 1 } });
	if (x->srq1 == NULL || x->srq2 == NULL || x->other == NULL || x->basic == NULL)
		return false;
	if (rc_buf_alloc(a, &x->la, 65536, ACC) != 0 || rc_buf_alloc(b, &x->lb, 65536, ACC) != 0)
		return false;
	rc_fill(x->la.p, 65536, 5);
	rc_fill(x->lb.p, 65536, 6);
	return xrc_connect(e, x) == 0;
}

static void
teardown(struct rc_env *e, struct xrc_env *x)
{
	rc_run(e, 2000, NULL, NULL);
	dr_destroy_qp(x->ini);
	RC_CHECK_EQ(dr_close_xrcd(x->xrcd), -EBUSY);        /* its SRQs and target QP */
	dr_destroy_qp(x->tgt);
	dr_destroy_srq(x->srq1);
	dr_destroy_srq(x->srq2);
	dr_destroy_srq(x->other);
	dr_destroy_srq(x->basic);
	RC_CHECK_EQ(dr_close_xrcd(x->xrcd), 0);
	RC_CHECK_EQ(dr_close_xrcd(x->xrcd2), 0);
	dr_destroy_cq(x->acq);
	dr_destroy_cq(x->cq1);
	dr_destroy_cq(x->cq2);
	rc_buf_free(&x->la);
	rc_buf_free(&x->lb);
	rc_disconnect(e);
}

/* Every operation through one XRC connection into two SRQs; each SRQ's CQ gets its own completions. */
static void
test_xrc_ops(struct rc_env *e)
{
	struct rc_wcs sw = { .n = 0 }, w1 = { .n = 0 }, w2 = { .n = 0 };
	uint32_t n1, n2;
	struct xrc_env x;
	uint64_t v;

	if (!setup(e, &x)) {
		RC_CHECK_MSG(0, "XRC setup");
		return;
	}
	RC_CHECK_EQ(dr_get_srq_num(x.srq1, &n1), 0);
	RC_CHECK_EQ(dr_get_srq_num(x.srq2, &n2), 0);
	RC_CHECK(n1 != n2);
	RC_CHECK_EQ(dr_get_srq_num(x.basic, &n1), -EINVAL);     /* only XRC SRQs have a number */
	RC_CHECK_EQ(dr_get_srq_num(x.srq1, &n1), 0);
	RC_CHECK_EQ(srq_post(x.srq1, 11, &x.lb, 0, 8192), 0);
	RC_CHECK_EQ(srq_post(x.srq2, 21, &x.lb, 8192, 8192), 0);
	RC_CHECK_EQ(srq_post(x.srq2, 22, &x.lb, 16384, 64), 0);
	memset(x.lb.p + 40000, 0, 8);
	RC_CHECK_EQ(xsend(&x, 1, DR_WR_SEND, n1, 0, 3000, 0, 0), 0);
	RC_CHECK_EQ(xsend(&x, 2, DR_WR_SEND_WITH_IMM, n2, 4000, 2500, 0, 0), 0);
	RC_CHECK_EQ(xsend(&x, 3, DR_WR_RDMA_WRITE_WITH_IMM, n2, 8000, 100, (uint64_t)(uintptr_t)(x.lb.p + 30000),
			  x.lb.mr->rkey), 0);
	RC_CHECK_EQ(xsend(&x, 4, DR_WR_RDMA_READ, n1, 20000, 5000, (uint64_t)(uintptr_t)(x.lb.p + 50000),
			  x.lb.mr->rkey), 0);
	RC_CHECK_EQ(xsend(&x, 5, DR_WR_ATOMIC_FETCH_AND_ADD, n1, 30000, 8, (uint64_t)(uintptr_t)(x.lb.p + 40000),
			  x.lb.mr->rkey), 0);
	e->logging = true;
	RC_CHECK(rc_wait_wcs(e, x.acq, &sw, 5, 3000000));
	RC_CHECK(rc_wait_wcs(e, x.cq1, &w1, 1, 2000000));
	RC_CHECK(rc_wait_wcs(e, x.cq2, &w2, 2, 2000000));
	for (unsigned int i = 0; i < sw.n; i++)
		RC_CHECK_MSG(sw.wc[i].status == DR_WC_SUCCESS && sw.wc[i].wr_id == i + 1, "completion %u: %s", i,
			     dr_wc_status_str(sw.wc[i].status));
	RC_CHECK(w1.n == 1 && w1.wc[0].wr_id == 11 && w1.wc[0].byte_len == 3000 && w1.wc[0].qp_num == x.tgt->qp_num &&
		 w1.wc[0].src_qp == x.ini->qp_num);
	RC_CHECK(memcmp(x.lb.p, x.la.p, 3000) == 0);
	RC_CHECK(w2.n == 2 && w2.wc[0].wr_id == 21 && w2.wc[0].byte_len == 2500 &&
		 rte_be_to_cpu_32(w2.wc[0].imm_data) == 0x1002 && w2.wc[1].wr_id == 22 &&
		 w2.wc[1].opcode == DR_WC_RECV_RDMA_WITH_IMM && rte_be_to_cpu_32(w2.wc[1].imm_data) == 0x1003);
	RC_CHECK(memcmp(x.lb.p + 8192, x.la.p + 4000, 2500) == 0 && memcmp(x.lb.p + 30000, x.la.p + 8000, 100) == 0);
	RC_CHECK(memcmp(x.la.p + 20000, x.lb.p + 50000, 5000) == 0);
	memcpy(&v, x.lb.p + 40000, 8);
	RC_CHECK_EQ(v, 7);
	/* the wire: XRC opcodes, requests with an XRCETH (the log keeps opcodes) */
	{
		bool xrc_only = true, saw_read_resp = false;

		for (uint32_t i = 0; i < e->nlog; i++) {
			xrc_only &= (e->log[i].opcode & DR_OPCODE_TRANSPORT_MASK) == DR_TRANSPORT_XRC;
			saw_read_resp |= e->log[i].opcode == DR_OPCODE(XRC, READ_RESP_LAST);
		}
		RC_CHECK(xrc_only && saw_read_resp && e->nlog > 0);
	}
	/* the builder names the SRQ with wr_set_xrc_srqn (ibv_wr_post(3)) */
	{
		struct dr_qp_ex *qx = dr_qp_to_qp_ex(x.ini);
		struct rc_wcs bw = { .n = 0 }, b2 = { .n = 0 };

		RC_CHECK(qx != NULL);
		RC_CHECK_EQ(srq_post(x.srq2, 23, &x.lb, 20000, 64), 0);
		dr_wr_start(qx);
		qx->wr_id = 9;
		qx->wr_flags = DR_SEND_SIGNALED;
		dr_wr_send(qx);
		dr_wr_set_xrc_srqn(qx, n2);
		dr_wr_set_sge(qx, x.la.mr->lkey, (uint64_t)(uintptr_t)x.la.p, 40);
		RC_CHECK_EQ(dr_wr_complete(qx), 0);
		RC_CHECK(rc_wait_wcs(e, x.acq, &bw, 1, 2000000) && bw.wc[0].wr_id == 9 &&
			 bw.wc[0].status == DR_WC_SUCCESS);
		RC_CHECK(rc_wait_wcs(e, x.cq2, &b2, 1, 2000000) && b2.wc[0].wr_id == 23 && b2.wc[0].byte_len == 40);
	}
	teardown(e, &x);
}

/* Requests naming no SRQ of the target's domain: invalid request, the target goes to ERR. */
static void
xrc_refused(struct rc_env *e, const char *why, int which)
{
	struct rc_wcs sw = { .n = 0 };
	struct xrc_env x;
	uint32_t n = 0;

	if (!setup(e, &x)) {
		RC_CHECK_MSG(0, "%s: setup", why);
		return;
	}
	if (which == 0)
		dr_get_srq_num(x.other, &n);              /* another domain's */
	else if (which == 1)
		n = dr_srq_impl(x.basic)->num;             /* a basic SRQ */
	else
		n = 0xABCDE;                               /* nothing */
	RC_CHECK_EQ(srq_post(x.other, 1, &x.lb, 0, 64), 0);
	RC_CHECK_EQ(xsend(&x, 1, DR_WR_SEND, n, 0, 10, 0, 0), 0);
	RC_CHECK(rc_wait_wcs(e, x.acq, &sw, 1, 2000000));
	RC_CHECK_MSG(sw.n == 1 && sw.wc[0].status == DR_WC_REM_INV_REQ_ERR, "%s: %s", why,
		     sw.n ? dr_wc_status_str(sw.wc[0].status) : "-");
	RC_CHECK_EQ(rc_qp_state(x.tgt), DR_QPS_ERR);
	teardown(e, &x);
}

/* The objects' rules: domains, XRC SRQs, the two QP halves, posting. */
static void
test_xrc_objects(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct dr_xrcd_init_attr xa = { .comp_mask = DR_XRCD_INIT_ATTR_FD, .fd = 3 };
	struct dr_srq_init_attr_ex sa;
	struct dr_qp_init_attr_ex qa;
	struct dr_xrcd *xrcd;
	struct dr_cq *cq;
	struct xrc_env x;

	/* a domain shared through a file is not offered; O_CREAT is needed without one */
	RC_CHECK(dr_open_xrcd(b->ctx, &xa) == NULL && errno == EOPNOTSUPP);
	xa.fd = -1;
	xa.comp_mask |= DR_XRCD_INIT_ATTR_OFLAGS;
	xa.oflags = 0;
	RC_CHECK(dr_open_xrcd(b->ctx, &xa) == NULL && errno == EINVAL);
	xa.oflags = O_CREAT;
	xrcd = dr_open_xrcd(b->ctx, &xa);
	RC_CHECK(xrcd != NULL);
	cq = dr_create_cq(b->ctx, 8, NULL, NULL, 0);
	/* XRC SRQs need a domain and a CQ; tag matching is not offered */
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 4;
	sa.comp_mask = DR_SRQ_INIT_ATTR_TYPE | DR_SRQ_INIT_ATTR_PD;
	sa.srq_type = DR_SRQT_XRC;
	sa.pd = b->pd;
	RC_CHECK(dr_create_srq_ex(b->ctx, &sa) == NULL && errno == EINVAL);
	sa.srq_type = DR_SRQT_TM;
	RC_CHECK(dr_create_srq_ex(b->ctx, &sa) == NULL && errno == EOPNOTSUPP);
	sa.comp_mask = DR_SRQ_INIT_ATTR_TYPE;
	sa.srq_type = DR_SRQT_BASIC;
	RC_CHECK(dr_create_srq_ex(b->ctx, &sa) == NULL && errno == EINVAL);     /* no PD */
	/* an XRC target needs its domain; an initiator no SRQ; dr_create_qp() makes no target */
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = DR_QPT_XRC_RECV;
	qa.comp_mask = DR_QP_INIT_ATTR_PD;
	qa.pd = b->pd;
	RC_CHECK(dr_create_qp_ex(b->ctx, &qa) == NULL && errno == EINVAL);
	RC_CHECK(dr_create_qp(b->pd, &(struct dr_qp_init_attr){ .qp_type = DR_QPT_XRC_RECV }) == NULL &&
		 errno == EINVAL);
	qa.qp_type = DR_QPT_XRC_SEND;
	qa.send_cq = cq;
	qa.srq = dr_create_srq(b->pd, &(struct dr_srq_init_attr){ .attr = { .max_wr = 2 } });
	RC_CHECK(dr_create_qp_ex(b->ctx, &qa) == NULL && errno == EINVAL);
	RC_CHECK_EQ(dr_destroy_srq(qa.srq), 0);
	/* the target takes no send WRs, neither half receive WRs */
	if (setup(e, &x)) {
		struct dr_send_wr wr = { .opcode = DR_WR_SEND }, *bad;

		RC_CHECK_EQ(dr_post_send(x.tgt, &wr, &bad), EINVAL);
		RC_CHECK_EQ(rc_post_recv(&(struct rc_side){ .qp = x.tgt }, 1, NULL, 0), EINVAL);
		RC_CHECK_EQ(rc_post_recv(&(struct rc_side){ .qp = x.ini }, 1, NULL, 0), EINVAL);
		RC_CHECK_EQ(xsend(&x, 1, DR_WR_SEND, 1u << 24, 0, 8, 0, 0), EINVAL);     /* 24-bit SRQ number */
		/* an XRC SRQ is no ordinary QP's SRQ */
		RC_CHECK(dr_create_qp(a->pd, &(struct dr_qp_init_attr){ .send_cq = x.acq, .recv_cq = x.acq,
			.qp_type = DR_QPT_RC, .srq = x.srq1, .cap = { .max_send_wr = 1 } }) == NULL);
		teardown(e, &x);
	}
	RC_CHECK_EQ(dr_destroy_cq(cq), 0);
	RC_CHECK_EQ(dr_close_xrcd(xrcd), 0);
}

static void
run(struct rc_env *e)
{
	test_xrc_ops(e);
	xrc_refused(e, "an SRQ of another domain", 0);
	xrc_refused(e, "a basic SRQ", 1);
	xrc_refused(e, "no SRQ", 2);
	test_xrc_objects(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_xrc", argv[0], 4200, run);
}
