/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Memory windows and invalidation over the test wire (test_rc.h), as
 * ibv_alloc_mw(3), ibv_bind_mw(3), ibv_inc_rkey(3) and ibv_post_send(3)
 * describe them: B binds windows on its MR through its own QP, A reaches B's
 * memory through the window's R_Key only inside the window and with its
 * rights; type 1 windows bound with dr_bind_mw() (the key steps at every
 * bind, a zero length unbinds), type 2 with BIND_MW WRs, invalidated by
 * LOCAL_INV and by A's SEND_WITH_INV; the bind rules (IBA 10.6.7.2; rxe's
 * rxe_check_bind_mw()) each failing with DR_WC_MW_BIND_ERR.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "test_rc.h"

#define ACC_MR (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_MW_BIND)
#define ACC_QP (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_ATOMIC)
#define MR_LEN 8192

static int
bind_wr(struct rc_side *s, uint64_t id, struct dr_mw *mw, uint32_t rkey, struct dr_mr *mr, uint64_t addr,
	uint64_t len, unsigned int access)
{
	struct dr_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = DR_WR_BIND_MW;
	wr.send_flags = DR_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	return dr_post_send(s->qp, &wr, &bad);
}

static int
local_inv(struct rc_side *s, uint64_t id, uint32_t rkey)
{
	struct dr_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = DR_WR_LOCAL_INV;
	wr.send_flags = DR_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	return dr_post_send(s->qp, &wr, &bad);
}

/* The one completion of @cq: its status (-1 if none came). */
static int
one_wc(struct rc_env *e, struct dr_cq *cq, struct dr_wc *out)
{
	struct rc_wcs w = { .n = 0 };

	if (!rc_wait_wcs(e, cq, &w, 1, 2000000))
		return -1;
	*out = w.wc[0];
	return (int)w.wc[0].status;
}

/* A's RDMA @op of @len bytes at @raddr with @rkey: its completion status. */
static int
remote(struct rc_env *e, enum dr_wr_opcode op, struct rc_buf *lb, uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct rc_side *a = &e->s[0];
	struct dr_sge sge = { (uint64_t)(uintptr_t)lb->p, len, lb->mr->lkey };
	struct dr_wc wc = { 0 };

	if (rc_post_send(a, 7, op, &sge, 1, DR_SEND_SIGNALED, raddr, rkey, 0) != 0)
		return -2;
	return one_wc(e, a->scq, &wc);
}

struct mw_env {
	struct rc_buf la;       /* A's buffer */
	struct rc_buf mb;       /* B's MR, MW_BIND */
	uint64_t base;          /* its address */
};

static bool
setup(struct rc_env *e, struct mw_env *m)
{
	struct rc_qp_params p;

	rc_params_default(&p);
	p.access_a = p.access_b = ACC_QP;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(&e->s[0], &m->la, MR_LEN, ACC_QP) != 0 ||
	    rc_buf_alloc(&e->s[1], &m->mb, MR_LEN, ACC_MR) != 0)
		return false;
	m->base = (uint64_t)(uintptr_t)m->mb.p;
	rc_fill(m->la.p, MR_LEN, 1);
	memset(m->mb.p, 0, MR_LEN);
	return true;
}

static void
teardown(struct rc_env *e, struct mw_env *m)
{
	/* the QPs first: a type 2 window bound through one is invalidated, its MR free to go */
	rc_disconnect(e);
	rc_buf_free(&m->la);
	rc_buf_free(&m->mb);
}

/* Type 1: dr_bind_mw(), the window's bounds and rights, the key stepping, unbinding. */
static void
test_type1(struct rc_env *e)
{
	struct rc_side *b = &e->s[1];
	struct mw_env m;
	struct dr_mw *mw, *mw2;
	struct dr_mw_bind bind;
	struct dr_wc wc = { 0 };
	uint32_t key0, key1;

	if (!setup(e, &m)) {
		RC_CHECK_MSG(0, "type 1 setup");
		return;
	}
	RC_CHECK(dr_alloc_mw(b->pd, (enum dr_mw_type)3) == NULL && errno == EINVAL);
	mw = dr_alloc_mw(b->pd, DR_MW_TYPE_1);
	mw2 = dr_alloc_mw(b->pd, DR_MW_TYPE_2);
	RC_CHECK(mw != NULL && mw2 != NULL);
	if (mw == NULL || mw2 == NULL)
		return;
	RC_CHECK(mw->type == DR_MW_TYPE_1 && mw->pd == b->pd && mw2->type == DR_MW_TYPE_2);
	RC_CHECK_EQ(dr_dealloc_pd(b->pd), -EBUSY);
	key0 = mw->rkey;
	RC_CHECK(key0 != m.mb.mr->rkey && dr_mr_key_index(key0) != dr_mr_key_index(mw2->rkey));
	/* unbound: its key reaches nothing */
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_WRITE, &m.la, m.base, key0, 16), DR_WC_REM_ACCESS_ERR);
	teardown(e, &m);

	if (!setup(e, &m))
		return;
	memset(&bind, 0, sizeof(bind));
	bind.wr_id = 55;
	bind.send_flags = DR_SEND_SIGNALED;
	bind.bind_info.mr = m.mb.mr;
	bind.bind_info.addr = m.base + 1024;
	bind.bind_info.length = 2048;
	bind.bind_info.mw_access_flags = DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ;
	/* dr_bind_mw() is for type 1 windows; rights a window cannot grant are refused at post */
	RC_CHECK_EQ(dr_bind_mw(b->qp, mw2, &bind), EINVAL);
	bind.bind_info.mw_access_flags |= DR_ACCESS_LOCAL_WRITE;
	RC_CHECK_EQ(dr_bind_mw(b->qp, mw, &bind), EINVAL);
	bind.bind_info.mw_access_flags &= ~(unsigned int)DR_ACCESS_LOCAL_WRITE;
	RC_CHECK_EQ(dr_bind_mw(b->qp, mw, &bind), 0);
	key1 = mw->rkey;
	RC_CHECK_EQ(key1, dr_inc_rkey(key0));              /* the new key, at once (as the providers) */
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK(wc.wr_id == 55 && wc.opcode == DR_WC_BIND_MW);
	/* inside the window: WRITE and READ land where the window is */
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_WRITE, &m.la, m.base + 1024, key1, 2048), DR_WC_SUCCESS);
	RC_CHECK(memcmp(m.mb.p + 1024, m.la.p, 2048) == 0 && m.mb.p[1023] == 0 && m.mb.p[3072] == 0);
	memset(m.la.p, 0, 64);
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_READ, &m.la, m.base + 3000, key1, 64), DR_WC_SUCCESS);
	RC_CHECK(memcmp(m.la.p, m.mb.p + 3000, 64) == 0);
	/* the MR cannot go while a window is bound to it */
	RC_CHECK_EQ(dr_dereg_mr(m.mb.mr), -EBUSY);
	/* unbind (length 0): the key steps again, the old one reaches nothing */
	bind.bind_info.length = 0;
	bind.bind_info.mr = NULL;
	RC_CHECK_EQ(dr_bind_mw(b->qp, mw, &bind), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK_EQ(mw->rkey, dr_inc_rkey(key1));
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_WRITE, &m.la, m.base + 1024, key1, 16), DR_WC_REM_ACCESS_ERR);
	teardown(e, &m);

	/* beyond the window's end (inside the MR): remote access error */
	if (!setup(e, &m))
		return;
	bind.bind_info.mr = m.mb.mr;
	bind.bind_info.addr = m.base + 1024;            /* this setup's buffer */
	bind.bind_info.length = 2048;
	bind.bind_info.mw_access_flags = DR_ACCESS_REMOTE_READ;
	RC_CHECK_EQ(dr_bind_mw(b->qp, mw, &bind), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_READ, &m.la, m.base + 3000, mw->rkey, 100), DR_WC_REM_ACCESS_ERR);
	/* a bound window may be deallocated: that unbinds it (the MR is free to go) */
	RC_CHECK_EQ(dr_dealloc_mw(mw), 0);
	teardown(e, &m);

	/* a right the window lacks: remote access error */
	if (!setup(e, &m))
		return;
	mw = dr_alloc_mw(b->pd, DR_MW_TYPE_1);
	bind.bind_info.mr = m.mb.mr;
	bind.bind_info.addr = m.base;
	bind.bind_info.length = 4096;
	RC_CHECK_EQ(dr_bind_mw(b->qp, mw, &bind), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_WRITE, &m.la, m.base, mw->rkey, 16), DR_WC_REM_ACCESS_ERR);
	RC_CHECK_EQ(dr_dealloc_mw(mw), 0);
	teardown(e, &m);
	RC_CHECK_EQ(dr_dealloc_mw(mw2), 0);
	RC_CHECK_EQ(dr_dealloc_mw(NULL), -EINVAL);
}

static int
send_inv(struct rc_side *a, struct rc_buf *lb, uint32_t len, uint32_t rkey)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)lb->p, len, lb->mr->lkey };
	struct dr_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = DR_WR_SEND_WITH_INV;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = DR_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	return dr_post_send(a->qp, &wr, &bad);
}

/* Type 2: BIND_MW WRs, zero-based windows, LOCAL_INV, SEND_WITH_INV, the QP the window is bound through. */
static void
test_type2(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs rw = { .n = 0 };
	struct mw_env m;
	struct dr_mw *mw;
	struct dr_wc wc = { 0 };
	uint32_t k1, k2;

	if (!setup(e, &m)) {
		RC_CHECK_MSG(0, "type 2 setup");
		return;
	}
	mw = dr_alloc_mw(b->pd, DR_MW_TYPE_2);
	k1 = dr_inc_rkey(mw->rkey);
	/* zero-based: the window's first byte is address 0 */
	RC_CHECK_EQ(bind_wr(b, 1, mw, k1, m.mb.mr, m.base + 4096, 1024,
			    DR_ACCESS_REMOTE_WRITE | DR_ACCESS_ZERO_BASED), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK(wc.opcode == DR_WC_BIND_MW && mw->rkey == k1);
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_WRITE, &m.la, 100, k1, 200), DR_WC_SUCCESS);
	RC_CHECK(memcmp(m.mb.p + 4096 + 100, m.la.p, 200) == 0);
	/* a bound type 2 window is not bound again (from the free state only) */
	RC_CHECK_EQ(bind_wr(b, 2, mw, dr_inc_rkey(k1), m.mb.mr, m.base, 64, DR_ACCESS_REMOTE_READ), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_MW_BIND_ERR);
	teardown(e, &m);
	/* destroying the QP it was bound through invalidated it */
	if (!setup(e, &m))
		return;
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_WRITE, &m.la, 100, k1, 8), DR_WC_REM_ACCESS_ERR);
	teardown(e, &m);

	/* LOCAL_INV frees it, a new bind with the next key works, A's SEND_WITH_INV invalidates it */
	if (!setup(e, &m))
		return;
	RC_CHECK_EQ(bind_wr(b, 3, mw, dr_inc_rkey(mw->rkey), m.mb.mr, m.base, MR_LEN,
			    DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK_EQ(local_inv(b, 4, mw->rkey), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK_EQ(wc.opcode, DR_WC_LOCAL_INV);
	k2 = dr_inc_rkey(mw->rkey);
	RC_CHECK_EQ(bind_wr(b, 5, mw, k2, m.mb.mr, m.base, MR_LEN, DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_WRITE, &m.la, m.base + 8, k2, 8), DR_WC_SUCCESS);
	RC_CHECK_EQ(rc_post_recv(b, 40, &(struct dr_sge){ (uint64_t)(uintptr_t)m.mb.p, 64, m.mb.mr->lkey }, 1), 0);
	RC_CHECK_EQ(send_inv(a, &m.la, 32, k2), 0);
	RC_CHECK_EQ(one_wc(e, a->scq, &wc), DR_WC_SUCCESS);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	RC_CHECK(rw.n == 1 && rw.wc[0].status == DR_WC_SUCCESS && rw.wc[0].opcode == DR_WC_RECV &&
		 (rw.wc[0].wc_flags & DR_WC_WITH_INV) && rw.wc[0].invalidated_rkey == k2 && rw.wc[0].byte_len == 32);
	RC_CHECK_EQ(remote(e, DR_WR_RDMA_WRITE, &m.la, m.base + 8, k2, 8), DR_WC_REM_ACCESS_ERR);
	teardown(e, &m);

	/* SEND_WITH_INV of a key that names no window (an MR's: not invalidatable): invalid request */
	if (!setup(e, &m))
		return;
	rw.n = 0;
	RC_CHECK_EQ(rc_post_recv(b, 41, &(struct dr_sge){ (uint64_t)(uintptr_t)m.mb.p, 64, m.mb.mr->lkey }, 1), 0);
	RC_CHECK_EQ(send_inv(a, &m.la, 8, m.mb.mr->rkey), 0);
	RC_CHECK_EQ(one_wc(e, a->scq, &wc), DR_WC_REM_INV_REQ_ERR);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	RC_CHECK(rw.n == 1 && rw.wc[0].status == DR_WC_REM_INV_REQ_ERR);
	RC_CHECK_EQ(rc_qp_state(b->qp), DR_QPS_ERR);
	teardown(e, &m);
	/* LOCAL_INV of an MR's key: LOC_QP_OP_ERR (rxe) */
	if (!setup(e, &m))
		return;
	RC_CHECK_EQ(local_inv(b, 6, m.mb.mr->rkey), 0);
	RC_CHECK_EQ(one_wc(e, b->scq, &wc), DR_WC_LOC_QP_OP_ERR);
	teardown(e, &m);
	RC_CHECK_EQ(dr_dealloc_mw(mw), 0);
}

/* Each rule of a bind, failing with MW_BIND_ERR (and the QP to ERR), on a fresh connection. */
static void
bind_refused(struct rc_env *e, const char *why, enum dr_mw_type type, int mr_access, uint64_t off, uint64_t len,
	     unsigned int access, bool other_pd, bool bad_key)
{
	struct rc_side *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf mb;
	struct dr_pd *pd2 = NULL;
	struct dr_mw *mw;
	struct dr_wc wc = { 0 };
	int rc;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(b, &mb, MR_LEN, mr_access) != 0) {
		RC_CHECK_MSG(0, "%s: setup", why);
		return;
	}
	if (other_pd)
		pd2 = dr_alloc_pd(b->ctx);
	mw = dr_alloc_mw(other_pd ? pd2 : b->pd, type);
	if (type == DR_MW_TYPE_1)
		rc = dr_bind_mw(b->qp, mw, &(struct dr_mw_bind){ .send_flags = DR_SEND_SIGNALED,
			.bind_info = { mb.mr, (uint64_t)(uintptr_t)mb.p + off, len, access } });
	else
		rc = bind_wr(b, 9, mw, bad_key ? mw->rkey + 0x100 : dr_inc_rkey(mw->rkey), mb.mr,
			     (uint64_t)(uintptr_t)mb.p + off, len, access);
	RC_CHECK_MSG(rc == 0, "%s: post %d", why, rc);
	RC_CHECK_MSG(one_wc(e, b->scq, &wc) == DR_WC_MW_BIND_ERR, "%s: status %s", why,
		     dr_wc_status_str(wc.status));
	RC_CHECK_MSG(rc_qp_state(b->qp) == DR_QPS_ERR, "%s: QP state %d", why, rc_qp_state(b->qp));
	RC_CHECK_EQ(dr_dealloc_mw(mw), 0);
	if (pd2 != NULL)
		RC_CHECK_EQ(dr_dealloc_pd(pd2), 0);
	rc_buf_free(&mb);
	rc_disconnect(e);
}

static void
test_bind_rules(struct rc_env *e)
{
	bind_refused(e, "MR without MW_BIND", DR_MW_TYPE_1, DR_ACCESS_LOCAL_WRITE, 0, 64, DR_ACCESS_REMOTE_READ,
		     false, false);
	bind_refused(e, "remote write on an MR without local write", DR_MW_TYPE_2,
		     DR_ACCESS_MW_BIND | DR_ACCESS_REMOTE_READ, 0, 64, DR_ACCESS_REMOTE_WRITE, false, false);
	bind_refused(e, "window past the MR's end", DR_MW_TYPE_2, ACC_MR, MR_LEN - 10, 64, DR_ACCESS_REMOTE_READ,
		     false, false);
	bind_refused(e, "window of another PD", DR_MW_TYPE_2, ACC_MR, 0, 64, DR_ACCESS_REMOTE_READ, true, false);
	bind_refused(e, "zero-based type 1", DR_MW_TYPE_1, ACC_MR, 0, 64,
		     DR_ACCESS_REMOTE_READ | DR_ACCESS_ZERO_BASED, false, false);
	bind_refused(e, "type 2 key of another index", DR_MW_TYPE_2, ACC_MR, 0, 64, DR_ACCESS_REMOTE_READ, false,
		     true);
}

/* Post-time rules and lifetimes: UD QPs take no binds, a posted bind holds its window. */
static void
test_post_rules(struct rc_env *e)
{
	struct rc_side *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf mb;
	struct dr_mw *mw;
	struct dr_qp_attr qa;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(b, &mb, MR_LEN, ACC_MR) != 0)
		return;
	mw = dr_alloc_mw(b->pd, DR_MW_TYPE_2);
	RC_CHECK_EQ(bind_wr(b, 1, NULL, 0, mb.mr, (uint64_t)(uintptr_t)mb.p, 64, DR_ACCESS_REMOTE_READ), EINVAL);
	RC_CHECK_EQ(bind_wr(b, 1, mw, dr_inc_rkey(mw->rkey), NULL, 0, 64, DR_ACCESS_REMOTE_READ), EINVAL);
	RC_CHECK_EQ(bind_wr(b, 1, mw, dr_inc_rkey(mw->rkey), mb.mr, (uint64_t)(uintptr_t)mb.p, 64,
			    DR_ACCESS_MW_BIND), EINVAL);
	/* held while posted and not executed (SQD: nothing starts) */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = DR_QPS_SQD;
	RC_CHECK_EQ(dr_modify_qp(b->qp, &qa, DR_QP_STATE), 0);
	RC_CHECK_EQ(bind_wr(b, 2, mw, dr_inc_rkey(mw->rkey), mb.mr, (uint64_t)(uintptr_t)mb.p, 64,
			    DR_ACCESS_REMOTE_READ), 0);
	rc_run(e, 2000, NULL, NULL);
	RC_CHECK_EQ(dr_dealloc_mw(mw), -EBUSY);
	qa.qp_state = DR_QPS_ERR;
	RC_CHECK_EQ(dr_modify_qp(b->qp, &qa, DR_QP_STATE), 0);
	RC_CHECK_EQ(dr_dealloc_mw(mw), 0);
	rc_buf_free(&mb);
	rc_disconnect(e);

	/* UD: no windows (ibv_bind_mw(3): RC, UC, XRC) */
	p.qp_type = DR_QPT_UD;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(b, &mb, MR_LEN, ACC_MR) != 0)
		return;
	mw = dr_alloc_mw(b->pd, DR_MW_TYPE_1);
	RC_CHECK_EQ(dr_bind_mw(b->qp, mw, &(struct dr_mw_bind){ .bind_info = { mb.mr, (uint64_t)(uintptr_t)mb.p, 64,
		DR_ACCESS_REMOTE_READ } }), EINVAL);
	RC_CHECK_EQ(dr_dealloc_mw(mw), 0);
	rc_buf_free(&mb);
	rc_disconnect(e);
}

/* The tests, in order, on one environment (rc_main()). */
static void
run(struct rc_env *e)
{
	test_type1(e);
	test_type2(e);
	test_bind_rules(e);
	test_post_rules(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_mw", argv[0], 4200, run);
}
