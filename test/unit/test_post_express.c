/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The express post (dr_post.c, post_send_express(): a WRITE or SEND, with
 * or without immediate, of one SGE, not inline, on an RC or UC QP in RTS;
 * a READ of one SGE on RC)
 * against the general post (send_wr_check(), send_wqe_fill()), on the same
 * WRs: each WR is posted once with A's context on the general path alone,
 * then once with the express path on, the queue put back after each. Both
 * must answer alike (ibv_post_send(3): the return value, *bad_wr) and leave
 * the same WQE, field for field; dr_post_send_express_try() must take every
 * WR the express rules name, and only those (else the comparison would be
 * of the general path with itself). The WRs: a seeded mix of the four
 * opcodes and of READ, atomics, LOCAL_INV; send_flags signaled, solicited,
 * fence, inline, a bit ibv_post_send(3) does not know; 0, 1 or 2 SGEs and a
 * NULL list; L_Keys that are good, of another PD, of a deregistered MR, of
 * no MR, of an MR without LOCAL_WRITE (a READ's buffer needs it); SGEs
 * inside the MR, across its end, of 0 bytes; on RC and UC, with
 * and without sq_sig_all; then a full queue, and a QP out of RTS.
 * Each post finds its slot filled with garbage: both must write every field.
 * Inline mode only: no lcore takes the WQEs while the test looks at them;
 * its worker marked in a round, a post to the empty queue does not either.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dr_worker.h"
#include "test_rc.h"

#define ROUNDS 3000
#define BUF 8192

static uint32_t
xr(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* The WQE fields, compared one by one (the struct's padding is nobody's). */
static int
wqe_diff(const struct dr_send_wqe *a, const struct dr_send_wqe *b, const struct dr_sge *sa,
	 const struct dr_sge *sb)
{
#define SAME(f) do { if (a->f != b->f) return __LINE__; } while (0)
	SAME(wr_id); SAME(opcode); SAME(send_flags); SAME(imm_data); SAME(invalidate_rkey);
	SAME(remote_addr); SAME(rkey); SAME(compare_add); SAME(swap); SAME(length); SAME(mr_gen);
	SAME(num_sge); SAME(inline_data); SAME(ah); SAME(remote_qpn); SAME(remote_qkey); SAME(xrc_srqn);
	SAME(mw); SAME(bind_mr); SAME(bind_len); SAME(bind_access); SAME(state); SAME(status);
	SAME(first_psn); SAME(last_psn); SAME(npkts); SAME(sent_once); SAME(verdict); SAME(comp_status);
	SAME(resp_bytes); SAME(atomic_orig); SAME(rd_slot_held);
#undef SAME
	for (uint16_t i = 0; i < a->num_sge; i++)
		if (sa[i].addr != sb[i].addr || sa[i].length != sb[i].length || sa[i].lkey != sb[i].lkey)
			return 1000 + i;
	return 0;
}

struct posted {
	int rc;
	bool took;                    /* the queue's head moved */
	bool bad_is_wr;
	struct dr_send_wqe wqe;
	struct dr_sge sge[2];
};

/* Post @wr on @s's QP, keep what the queue got, then give the slot back. */
static void
post_and_undo(struct rc_side *s, struct dr_send_wr *wr, struct posted *out)
{
	struct dr_qp_impl *qp = dr_qp_impl(s->qp);
	struct dr_send_wr *bad = NULL;
	uint32_t head = qp->sq.head;
	struct dr_send_wqe *w = dr_sq_wqe(&qp->sq, head);
	struct dr_sge *slot_sge = w->sge;

	memset(out, 0, sizeof(*out));
	/* a slot of garbage (its own SGE array kept): a post writes every field of the WQE it queues */
	memset(w, 0xA5, sizeof(*w));
	w->sge = slot_sge;
	out->rc = dr_post_send(s->qp, wr, &bad);
	out->bad_is_wr = bad == wr;
	out->took = qp->sq.head != head;
	if (out->took) {
		out->wqe = *w;
		memcpy(out->sge, w->sge, sizeof(struct dr_sge) * RTE_MIN(w->num_sge, (uint16_t)2));
		__atomic_store_n(&qp->sq.head, head, __ATOMIC_RELEASE);
	}
}

/* Does the express rule take @wr (the test's own statement of it)? */
static bool
express_rule(const struct dr_qp_impl *qp, const struct dr_send_wr *wr, bool lkey_ok)
{
	bool op = wr->opcode == DR_WR_RDMA_WRITE || wr->opcode == DR_WR_RDMA_WRITE_WITH_IMM ||
		  wr->opcode == DR_WR_SEND || wr->opcode == DR_WR_SEND_WITH_IMM ||
		  (wr->opcode == DR_WR_RDMA_READ && qp->pub.qp_type == DR_QPT_RC);

	return op && (wr->send_flags & ~(unsigned int)(DR_SEND_FENCE | DR_SEND_SIGNALED | DR_SEND_SOLICITED)) == 0 &&
	       wr->num_sge == 1 && wr->sg_list != NULL && lkey_ok &&
	       (qp->pub.qp_type == DR_QPT_RC || qp->pub.qp_type == DR_QPT_UC) &&
	       qp->pub.state == DR_QPS_RTS && qp->sq.head - qp->sq.tail < qp->sq.max_wr;
}

struct stats {
	uint32_t express, general, errors, differ;
};

/* One WR through both paths; compared. */
static void
compare_one(struct rc_env *e, struct dr_send_wr *wr, bool lkey_ok, struct stats *st)
{
	struct dr_qp_impl *qp = dr_qp_impl(e->s[0].qp);
	struct posted g, x;
	int line, took;

	e->s[0].ctx->express = false;
	post_and_undo(&e->s[0], wr, &g);
	e->s[0].ctx->express = true;
	post_and_undo(&e->s[0], wr, &x);
	/* the express post alone: it takes exactly what its rule says */
	took = dr_post_send_express_try(qp, wr);
	if (took == 0)
		__atomic_store_n(&qp->sq.head, qp->sq.head - 1, __ATOMIC_RELEASE);
	RC_CHECK_MSG((took == 0) == express_rule(qp, wr, lkey_ok),
		     "opcode %d flags %#x num_sge %d lkey_ok %d: express took it %d", (int)wr->opcode, wr->send_flags,
		     wr->num_sge, lkey_ok, took == 0);
	if (took == 0)
		st->express++;
	else
		st->general++;
	RC_CHECK_MSG(g.rc == x.rc && g.took == x.took && g.bad_is_wr == x.bad_is_wr,
		     "opcode %d flags %#x num_sge %d: general %d (%d), express on %d (%d)", (int)wr->opcode,
		     wr->send_flags, wr->num_sge, g.rc, g.took, x.rc, x.took);
	if (g.rc != 0)
		st->errors++;
	if (g.took && x.took) {
		line = wqe_diff(&g.wqe, &x.wqe, g.sge, x.sge);
		if (line != 0 && st->differ++ < 10)
			fprintf(stderr, "opcode %d flags %#x: WQEs differ (%d)\n", (int)wr->opcode, wr->send_flags,
				line);
	}
}

static void
mix(struct rc_env *e, struct rc_buf *src, struct rc_buf *other_pd, struct dr_mr *read_only, uint32_t seed,
    struct stats *st)
{
	static const enum dr_wr_opcode ops[] = { DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE_WITH_IMM, DR_WR_SEND,
						 DR_WR_SEND_WITH_IMM, DR_WR_RDMA_READ, DR_WR_ATOMIC_FETCH_AND_ADD,
						 DR_WR_LOCAL_INV, (enum dr_wr_opcode)DR_NUM_WR_OPCODES };
	static const unsigned int flags[] = { 0, DR_SEND_SIGNALED, DR_SEND_SOLICITED, DR_SEND_FENCE,
					      DR_SEND_SIGNALED | DR_SEND_SOLICITED, DR_SEND_INLINE, 1u << 9 };

	for (uint32_t r = 0; r < ROUNDS; r++) {
		struct dr_sge sge[2];
		struct dr_send_wr wr;
		uint32_t key = xr(&seed) % 9, nsge = xr(&seed) % 8, off = xr(&seed) % (BUF + 64);
		uint32_t len = xr(&seed) % 4 == 0 ? 0 : xr(&seed) % 3000;
		bool lkey_ok;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = ((uint64_t)xr(&seed) << 32) | r;
		wr.opcode = ops[xr(&seed) % RTE_DIM(ops)];
		wr.send_flags = flags[xr(&seed) % RTE_DIM(flags)];
		wr.imm_data = rte_cpu_to_be_32(xr(&seed));
		wr.invalidate_rkey = xr(&seed);
		if (wr.opcode == DR_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr = 0x1000u + 8u * (xr(&seed) % 64);
			wr.wr.atomic.rkey = xr(&seed);
			wr.wr.atomic.compare_add = xr(&seed);
			len = 8;
		} else {
			wr.wr.rdma.remote_addr = ((uint64_t)xr(&seed) << 20) | xr(&seed);
			wr.wr.rdma.rkey = xr(&seed);
		}
		for (int i = 0; i < 2; i++) {
			sge[i].addr = (uint64_t)(uintptr_t)src->p + (off + (uint32_t)i * 100u) % BUF;
			sge[i].length = len;
			sge[i].lkey = src->mr->lkey;
		}
		/*
		 * key: 0-4 good, 5 another PD's MR, 6 no MR, 7 across the MR's end,
		 * 8 an MR of the PD without LOCAL_WRITE; off past BUF: after its end
		 */
		if (key == 8)
			sge[0].lkey = read_only->lkey;
		else if (key == 5)
			sge[0].lkey = other_pd->mr->lkey;
		else if (key == 6)
			sge[0].lkey = src->mr->lkey ^ 0x5a5a00u;
		else if (key == 7)
			sge[0].addr = (uint64_t)(uintptr_t)src->p + BUF - len / 2;
		if (off >= BUF)
			sge[0].addr = (uint64_t)(uintptr_t)src->p + BUF;
		/* what IBA 10.6.3.1 says of the first SGE (the express rule takes one SGE only) */
		lkey_ok = len == 0 || (key != 5 && key != 6 && sge[0].addr >= (uint64_t)(uintptr_t)src->p &&
				       sge[0].addr + len <= (uint64_t)(uintptr_t)src->p + BUF &&
				       (key != 8 || wr.opcode != DR_WR_RDMA_READ));
		/* nsge: 0-4 one SGE, 5 none, 6 two, 7 a NULL list of one */
		wr.num_sge = nsge == 5 ? 0 : nsge == 6 ? 2 : 1;
		wr.sg_list = nsge == 7 ? NULL : sge;
		compare_one(e, &wr, lkey_ok, st);
	}
}

/* One connection of @type: the mix, a full queue, a QP out of RTS. */
static void
run(struct rc_env *e, enum dr_qp_type type, int sig_all, uint32_t seed)
{
	struct rc_buf src, other;
	struct dr_mr *read_only;
	struct stats st = { 0 };
	struct rc_qp_params p;
	struct dr_pd *pd2;
	struct dr_qp_impl *qp;
	struct dr_sge sge;
	struct dr_send_wr wr;
	struct dr_qp_attr a;
	uint32_t n = 0;

	rc_params_default(&p);
	p.qp_type = type;
	p.max_sge = 2;
	p.max_inline = 64;
	p.max_wr = 32;
	p.sq_sig_all = sig_all;
	RC_CHECK_EQ(rc_connect(e, &p), 0);
	qp = dr_qp_impl(e->s[0].qp);
	/* as inside a round: a post to the empty queue leaves its WQE alone (dr_engine_post_kick()) */
	qp->wk->in_round = true;
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &src, BUF, DR_ACCESS_LOCAL_WRITE), 0);
	pd2 = dr_alloc_pd(e->s[0].ctx);
	RC_CHECK(pd2 != NULL);
	other.len = BUF;
	other.p = src.p;
	other.mr = dr_reg_mr(pd2, src.p, BUF, DR_ACCESS_LOCAL_WRITE);
	RC_CHECK(other.mr != NULL);
	read_only = dr_reg_mr(e->s[0].pd, src.p, BUF, 0);
	RC_CHECK(read_only != NULL);
	mix(e, &src, &other, read_only, seed, &st);

	/* a full queue: ENOMEM from both (ibv_post_send(3)), nothing taken */
	memset(&wr, 0, sizeof(wr));
	sge = (struct dr_sge){ (uint64_t)(uintptr_t)src.p, 64, src.mr->lkey };
	wr.opcode = DR_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	while (qp->sq.head - qp->sq.tail < qp->sq.max_wr && n++ < 4096) {
		struct dr_send_wr *bad;

		RC_CHECK_EQ(dr_post_send(e->s[0].qp, &wr, &bad), 0);
	}
	compare_one(e, &wr, true, &st);
	RC_CHECK_EQ(dr_post_send_express_try(qp, &wr), -1);
	__atomic_store_n(&qp->sq.head, qp->sq.tail, __ATOMIC_RELEASE);   /* nothing went out: inline mode */

	/* a deregistered MR: its L_Key names nothing now */
	sge.lkey = other.mr->lkey;
	RC_CHECK_EQ(dr_dereg_mr(other.mr), 0);
	compare_one(e, &wr, false, &st);
	sge.lkey = src.mr->lkey;

	/* out of RTS (SQD is not offered: the error state): flushed by the general path, not taken by the express one */
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_ERR;
	RC_CHECK_EQ(dr_modify_qp(e->s[0].qp, &a, DR_QP_STATE), 0);
	compare_one(e, &wr, true, &st);
	qp->wk->in_round = false;

	RC_CHECK_EQ(dr_dealloc_pd(pd2), 0);
	RC_CHECK_EQ(dr_dereg_mr(read_only), 0);
	rc_buf_free(&src);
	rc_disconnect(e);
	RC_CHECK_MSG(st.differ == 0, "%u WQEs differ", st.differ);
	/* both sides of the comparison ran: else it compared the general path with itself */
	RC_CHECK_MSG(st.express > ROUNDS / 20 && st.general > ROUNDS / 4 && st.errors > ROUNDS / 10,
		     "express %u, general %u, errors %u", st.express, st.general, st.errors);
	printf("post_express: %s%s, %u WRs: %u taken by the express post, %u by the general one (%u refused), "
	       "the same WQEs and answers\n", type == DR_QPT_RC ? "RC" : "UC", sig_all ? " sq_sig_all" : "",
	       st.express + st.general, st.express, st.general, st.errors);
}

static void
body(struct rc_env *e)
{
	if (!rc_inline_only("post_express", "its lcores would take the WQEs the test looks at"))
		return;
	run(e, DR_QPT_RC, 0, 11);
	run(e, DR_QPT_RC, 1, 12);
	run(e, DR_QPT_UC, 0, 13);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_post_express", argv[0], 1500, body);
}
