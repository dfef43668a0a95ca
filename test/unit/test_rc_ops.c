/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * RC transport, clean wire: every opcode at every interesting size, both
 * MTUs, multi-SGE on both sides, inline sends, unsignaled WRs, PSN wrap,
 * atomics, many WRs in flight, the solicited-event bit.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rc.h"

static const enum dr_wr_opcode ops[] = {
	DR_WR_SEND, DR_WR_SEND_WITH_IMM, DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE_WITH_IMM, DR_WR_RDMA_READ,
};

static const char *
op_name(enum dr_wr_opcode op)
{
	return dr_wr_opcode_table[op].name;
}

/* 0, 1, MTU-1, MTU, MTU+1, 3*MTU+5 and 1 MiB of every opcode, data checked byte for byte. */
static void
test_matrix(struct rc_env *e, enum dr_mtu mtu)
{
	struct rc_qp_params p;
	uint32_t m = dr_mtu_bytes(mtu);
	const uint32_t sizes[] = { 0, 1, m - 1, m, m + 1, 3 * m + 5, 1u << 20 };
	unsigned int i, j;
	char tag[96];

	rc_params_default(&p);
	p.mtu = mtu;
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "connect mtu %u", m);
		return;
	}
	for (i = 0; i < RTE_DIM(ops); i++) {
		for (j = 0; j < RTE_DIM(sizes); j++) {
			struct rc_xfer x = {
				.op = ops[i],
				.len = sizes[j],
				.nsge_l = 3,
				.nsge_r = 3,
				.recv_extra = j % 2 ? 0 : 5,
				.seed = 1000 * i + j + m,
			};

			snprintf(tag, sizeof(tag), "mtu %u %s %u bytes", m, op_name(ops[i]), sizes[j]);
			rc_xfer_run(e, &x, tag);
		}
	}
	RC_CHECK(e->frames[RC_A2B] > (2u << 20) / m);  /* the 1 MiB transfers alone */
	if (getenv("DR_TEST_VERBOSE") != NULL)
		printf("mtu %u: %" PRIu64 " frames A->B, %" PRIu64 " B->A\n", m, e->frames[RC_A2B], e->frames[RC_B2A]);
	rc_disconnect(e);
}

/* Inline SEND and WRITE (the data is copied at post time; the buffer may change afterwards). */
static void
test_inline(struct rc_env *e)
{
	struct rc_qp_params p;
	const uint32_t sizes[] = { 0, 1, 100, 255, 256 };
	unsigned int j;
	char tag[64];

	rc_params_default(&p);
	p.max_inline = 256;
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "connect inline");
		return;
	}
	for (j = 0; j < RTE_DIM(sizes); j++) {
		struct rc_xfer x = { .len = sizes[j], .nsge_l = 3, .nsge_r = 2, .flags = DR_SEND_INLINE,
				     .seed = 3000 + j };

		x.op = DR_WR_SEND_WITH_IMM;
		snprintf(tag, sizeof(tag), "inline SEND %u", sizes[j]);
		rc_xfer_run(e, &x, tag);
		x.op = DR_WR_RDMA_WRITE;
		x.seed += 100;
		snprintf(tag, sizeof(tag), "inline WRITE %u", sizes[j]);
		rc_xfer_run(e, &x, tag);
	}
	rc_disconnect(e);
}

/* 20 unsignaled WRITEs and one signaled SEND: one completion; an unsignaled slot is reused. */
static void
test_unsignaled(struct rc_env *e)
{
	enum { N = 20, LEN = 3000 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	unsigned int i, round;

	rc_params_default(&p);
	p.sq_sig_all = 0;
	p.max_wr = N + 1;             /* each round fills the queue: slots of unsignaled WRs must come back */
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, N * LEN, acc) != 0 ||
	    rc_buf_alloc(b, &dst, N * LEN + 64, acc) != 0) {
		RC_CHECK_MSG(0, "unsignaled setup");
		return;
	}
	for (round = 0; round < 3; round++) {
		struct dr_sge rs = { (uint64_t)(uintptr_t)(dst.p + N * LEN), 64, dst.mr->lkey };
		struct dr_sge ss = { (uint64_t)(uintptr_t)src.p, 8, src.mr->lkey };

		rc_fill(src.p, N * LEN, 50 + round);
		memset(dst.p, 0, N * LEN);
		RC_CHECK_EQ(rc_post_recv(b, 100 + round, &rs, 1), 0);
		for (i = 0; i < N; i++) {
			struct dr_sge ls = { (uint64_t)(uintptr_t)(src.p + i * LEN), LEN, src.mr->lkey };

			RC_CHECK_EQ(rc_post_send(a, i, DR_WR_RDMA_WRITE, &ls, 1, 0,
						 (uint64_t)(uintptr_t)(dst.p + i * LEN), dst.mr->rkey, 0), 0);
		}
		RC_CHECK_EQ(rc_post_send(a, 1000 + round, DR_WR_SEND, &ss, 1, DR_SEND_SIGNALED, 0, 0, 0), 0);
		RC_CHECK(rc_wait_wcs(e, a->scq, &sw, round + 1, 2000000));
		RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, round + 1, 2000000));
		rc_run(e, 2000, NULL, NULL);
		rc_poll(a->scq, &sw);
		RC_CHECK_EQ(sw.n, round + 1);
		RC_CHECK(sw.n == round + 1 && sw.wc[round].wr_id == 1000 + round &&
			 sw.wc[round].status == DR_WC_SUCCESS);
		RC_CHECK(memcmp(src.p, dst.p, N * LEN) == 0);
	}
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/* CmpSwap (hit and miss) and FetchAdd (IBA 9.4.5). */
static void
test_atomics(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			DR_ACCESS_REMOTE_ATOMIC;
	struct rc_qp_params p;
	struct rc_buf lb, rb;
	struct rc_wcs sw = { .n = 0 };
	struct dr_send_wr wr[3], *bad;
	struct dr_sge s[3];
	uint64_t v;
	int i;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &lb, 24, acc) != 0 || rc_buf_alloc(b, &rb, 16, acc) != 0) {
		RC_CHECK_MSG(0, "atomics setup");
		return;
	}
	v = 0x1111;
	memcpy(rb.p, &v, 8);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		s[i] = (struct dr_sge){ (uint64_t)(uintptr_t)(lb.p + 8 * i), 8, lb.mr->lkey };
		wr[i].wr_id = (uint64_t)i;
		wr[i].sg_list = &s[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = DR_SEND_SIGNALED;
		wr[i].wr.atomic.remote_addr = (uint64_t)(uintptr_t)rb.p;
		wr[i].wr.atomic.rkey = rb.mr->rkey;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	wr[0].opcode = DR_WR_ATOMIC_CMP_AND_SWP;     /* 0x1111 == 0x1111: swap to 0x2222 */
	wr[0].wr.atomic.compare_add = 0x1111;
	wr[0].wr.atomic.swap = 0x2222;
	wr[1].opcode = DR_WR_ATOMIC_CMP_AND_SWP;     /* 0x2222 != 0x1111: no swap */
	wr[1].wr.atomic.compare_add = 0x1111;
	wr[1].wr.atomic.swap = 0x3333;
	wr[2].opcode = DR_WR_ATOMIC_FETCH_AND_ADD;   /* 0x2222 + 0x10 */
	wr[2].wr.atomic.compare_add = 0x10;
	RC_CHECK_EQ(dr_post_send(a->qp, wr, &bad), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 3, 2000000));
	RC_CHECK_EQ(sw.n, 3);
	for (i = 0; i < (int)sw.n; i++)
		RC_CHECK(sw.wc[i].status == DR_WC_SUCCESS && sw.wc[i].wr_id == (uint64_t)i);
	RC_CHECK(sw.n == 3 && sw.wc[0].opcode == DR_WC_COMP_SWAP && sw.wc[2].opcode == DR_WC_FETCH_ADD);
	memcpy(&v, lb.p, 8);
	RC_CHECK_EQ(v, 0x1111);
	memcpy(&v, lb.p + 8, 8);
	RC_CHECK_EQ(v, 0x2222);
	memcpy(&v, lb.p + 16, 8);
	RC_CHECK_EQ(v, 0x2222);
	memcpy(&v, rb.p, 8);
	RC_CHECK_EQ(v, 0x2232);
	rc_buf_free(&lb);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

/* BTH.SE on the last packet of a solicited SEND only; AckReq on the last and every 64th packet. */
static void
test_bth_flags(struct rc_env *e)
{
	struct rc_qp_params p;
	struct rc_xfer x = { .op = DR_WR_SEND, .len = 130 * 1024, .nsge_l = 1, .nsge_r = 1,
			     .flags = DR_SEND_SOLICITED, .seed = 4000 };
	unsigned int i, se = 0, ackreq = 0, n = 0;
	bool se_last = false;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0)
		return;
	e->logging = true;
	rc_xfer_run(e, &x, "solicited 130-packet SEND");
	for (i = 0; i < e->nlog; i++) {
		const struct rc_log_entry *l = &e->log[i];

		if (l->dir != RC_A2B)
			continue;
		n++;
		se += l->se;
		ackreq += l->ackreq;
		if (l->opcode == DR_OPCODE(RC, SEND_LAST))
			se_last = l->se && l->ackreq;
	}
	RC_CHECK_EQ(n, 130);
	RC_CHECK_EQ(se, 1);
	RC_CHECK(se_last);
	RC_CHECK_EQ(ackreq, 3);        /* packets 64, 128 and the last */
	rc_disconnect(e);
}

/* PSN wrap on a clean wire: sq_psn just below 2^24 on both sides, every opcode, 1 MiB. */
static void
test_psn_wrap(struct rc_env *e)
{
	struct rc_qp_params p;
	unsigned int i;
	char tag[64];

	rc_params_default(&p);
	p.psn_a = 0xFFFFF0;
	p.psn_b = 0xFFFFFE;
	if (rc_connect(e, &p) != 0)
		return;
	for (i = 0; i < RTE_DIM(ops); i++) {
		struct rc_xfer x = { .op = ops[i], .len = 1u << 20, .nsge_l = 2, .nsge_r = 2, .seed = 5000 + i };

		snprintf(tag, sizeof(tag), "PSN wrap %s", op_name(ops[i]));
		rc_xfer_run(e, &x, tag);
	}
	RC_CHECK(rc_qp_state(e->s[0].qp) == DR_QPS_RTS);
	rc_disconnect(e);
}

/* Both sides send at once on one QP pair: each QP is requester and responder. */
static void
test_bidirectional(struct rc_env *e)
{
	enum { N = 40, LEN = 6000 };
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_qp_params p;
	struct rc_buf src[2], dst[2];
	struct rc_wcs sw[2] = { { .n = 0 }, { .n = 0 } }, rw[2] = { { .n = 0 }, { .n = 0 } };
	unsigned int i, k;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0)
		return;
	for (k = 0; k < 2; k++) {
		if (rc_buf_alloc(&e->s[k], &src[k], N * LEN, acc) != 0 ||
		    rc_buf_alloc(&e->s[k], &dst[k], N * LEN, acc) != 0)
			return;
		rc_fill(src[k].p, N * LEN, 60 + k);
	}
	for (i = 0; i < N; i++) {
		for (k = 0; k < 2; k++) {
			struct rc_side *me = &e->s[k];
			struct rc_buf *peer_dst = &dst[1 - k];
			struct dr_sge ls = { (uint64_t)(uintptr_t)(src[k].p + i * LEN), LEN, src[k].mr->lkey };
			struct dr_sge rs = { (uint64_t)(uintptr_t)(dst[k].p + i * LEN), LEN, dst[k].mr->lkey };

			if (i % 2 == 0) {
				RC_CHECK_EQ(rc_post_recv(&e->s[1 - k], i, NULL, 0), 0);
				uint64_t ra = (uint64_t)(uintptr_t)(peer_dst->p + i * LEN);

				RC_CHECK_EQ(rc_post_send(me, i, DR_WR_RDMA_WRITE_WITH_IMM, &ls, 1, 0, ra,
							 peer_dst->mr->rkey, rte_cpu_to_be_32(i)), 0);
			} else {
				/* READ the peer's source into our destination */
				uint64_t ra = (uint64_t)(uintptr_t)(src[1 - k].p + i * LEN);

				RC_CHECK_EQ(rc_post_send(me, i, DR_WR_RDMA_READ, &rs, 1, 0, ra, src[1 - k].mr->rkey, 0),
					    0);
			}
		}
	}
	for (k = 0; k < 2; k++) {
		RC_CHECK(rc_wait_wcs(e, e->s[k].scq, &sw[k], N, 3000000));
		RC_CHECK(rc_wait_wcs(e, e->s[k].rcq, &rw[k], N / 2, 3000000));
	}
	for (k = 0; k < 2; k++) {
		bool ok = sw[k].n == N && rw[k].n == N / 2;

		for (i = 0; ok && i < N; i++)
			ok = sw[k].wc[i].wr_id == i && sw[k].wc[i].status == DR_WC_SUCCESS;
		RC_CHECK_MSG(ok, "side %u: %u/%u completions", k, sw[k].n, rw[k].n);
		/* even slots written by the peer, odd slots read from the peer: all equal the peer's source */
		RC_CHECK(memcmp(dst[k].p, src[1 - k].p, N * LEN) == 0);
	}
	for (k = 0; k < 2; k++) {
		rc_buf_free(&src[k]);
		rc_buf_free(&dst[k]);
	}
	rc_disconnect(e);
}

/*
 * Coalesced ACKs across the send queue's end (IBA 9.7.5.1.x, and how the
 * completer walks them: dr_comp.c, comp_ack_run()): rounds of 7 WRs on a
 * queue of 8 slots, so that the run one ACK acknowledges starts at every
 * slot and crosses the ring's end; every third WR and the last signaled;
 * in every third round a READ, in every fourth a FetchAdd, in the middle,
 * where the run must stop (their responses complete them and carry data):
 * every other READ response and atomic ACK is lost, so that the ACK of the
 * WRITEs behind one comes first and must leave it outstanding (9.7.5.1.x:
 * the READ is retried; the atomic replayed from the responder's cache, 9.4.5,
 * not added twice). Every completion in order, every byte placed, the QP
 * still in RTS.
 */
enum { ACK_RUN_N = 7, ACK_RUN_MID = 3 };

/* test_ack_run_wrap()'s WR @i of round @round: a WRITE, or in the middle a READ or a FetchAdd. */
static enum dr_wr_opcode
ack_run_op(unsigned int round, unsigned int i)
{
	if (i == ACK_RUN_MID && round % 3 == 0)
		return DR_WR_RDMA_READ;
	if (i == ACK_RUN_MID && round % 4 == 1)
		return DR_WR_ATOMIC_FETCH_AND_ADD;
	return DR_WR_RDMA_WRITE;
}

/* ... and whether it is signaled: every third and the last. */
static bool
ack_run_signaled(unsigned int i)
{
	return i % 3 == 2 || i == ACK_RUN_N - 1;
}

static void
test_ack_run_wrap(struct rc_env *e)
{
	enum { N = ACK_RUN_N, LEN = 64, ROUNDS = 24, MID = ACK_RUN_MID };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			DR_ACCESS_REMOTE_ATOMIC;
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct rc_wcs sw = { .n = 0 };
	unsigned int round, i, want = 0, bad_order = 0, bad_data = 0;
	uint64_t adds = 0, v;

	rc_params_default(&p);
	p.sq_sig_all = 0;
	p.max_wr = N;
	/* A: N source slots, then the READ's landing slot and the FetchAdd's result; B: N slots and the counter */
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, (N + 2) * LEN, acc) != 0 ||
	    rc_buf_alloc(b, &dst, (N + 1) * LEN, acc) != 0) {
		RC_CHECK_MSG(0, "ack run setup");
		return;
	}
	memset(dst.p + N * LEN, 0, 8);
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, READ_RESP_ONLY), 0, 2, 0, RC_DROP);
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ATOMIC_ACK), 0, 2, 0, RC_DROP);
	for (round = 0; round < ROUNDS; round++) {
		unsigned int first = sw.n;

		rc_fill(src.p, N * LEN, 900 + round);
		memset(dst.p, 0, N * LEN);
		for (i = 0; i < N; i++) {
			unsigned int flags = ack_run_signaled(i) ? DR_SEND_SIGNALED : 0;
			enum dr_wr_opcode op = ack_run_op(round, i);
			struct dr_sge ls = { (uint64_t)(uintptr_t)(src.p + i * LEN), LEN, src.mr->lkey };
			uint64_t id = (uint64_t)round << 8 | i;
			int rc;

			if (op == DR_WR_RDMA_READ) {
				/* a READ of B's slot MID-1, written earlier in this round, into A's landing slot */
				ls.addr = (uint64_t)(uintptr_t)(src.p + N * LEN);
				rc = rc_post_send(a, id, DR_WR_RDMA_READ, &ls, 1, flags,
						  (uint64_t)(uintptr_t)(dst.p + (MID - 1) * LEN), dst.mr->rkey, 0);
			} else if (op == DR_WR_ATOMIC_FETCH_AND_ADD) {
				struct dr_send_wr wr = { 0 }, *bw;

				ls = (struct dr_sge){ (uint64_t)(uintptr_t)(src.p + (N + 1) * LEN), 8, src.mr->lkey };
				wr.wr_id = id;
				wr.sg_list = &ls;
				wr.num_sge = 1;
				wr.opcode = op;
				wr.send_flags = flags;
				wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)(dst.p + N * LEN);
				wr.wr.atomic.rkey = dst.mr->rkey;
				wr.wr.atomic.compare_add = round + 1;
				adds += round + 1;
				rc = dr_post_send(a->qp, &wr, &bw);
			} else {
				rc = rc_post_send(a, id, DR_WR_RDMA_WRITE, &ls, 1, flags,
						  (uint64_t)(uintptr_t)(dst.p + i * LEN), dst.mr->rkey, 0);
			}
			RC_CHECK_EQ(rc, 0);
			want += flags != 0;
		}
		RC_CHECK(rc_wait_wcs(e, a->scq, &sw, want, 2000000));
		RC_CHECK_EQ(sw.n, want);
		/* the signaled ones in the order posted (ibv_post_send(3)), each a success */
		for (i = 0; i < N && first < sw.n; i++) {
			if (!ack_run_signaled(i))
				continue;
			bad_order += sw.wc[first].wr_id != ((uint64_t)round << 8 | i) ||
				     sw.wc[first].status != DR_WC_SUCCESS;
			first++;
		}
		for (i = 0; i < N; i++)
			if (ack_run_op(round, i) == DR_WR_RDMA_WRITE)
				bad_data += memcmp(src.p + i * LEN, dst.p + i * LEN, LEN) != 0;
		if (ack_run_op(round, MID) == DR_WR_RDMA_READ)
			bad_data += memcmp(src.p + N * LEN, src.p + (MID - 1) * LEN, LEN) != 0;
	}
	RC_CHECK_EQ(bad_order, 0);
	RC_CHECK_EQ(bad_data, 0);
	memcpy(&v, dst.p + N * LEN, 8);
	RC_CHECK_EQ(v, adds);
	RC_CHECK_EQ(a->qp->state, DR_QPS_RTS);
	RC_CHECK(e->dropped[RC_B2A] >= ROUNDS / 6);     /* the losses happened */
	rc_rules_clear(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/* The tests, in order, on one environment (rc_main()). */
static void
run(struct rc_env *e)
{
	test_matrix(e, DR_MTU_1024);
	test_matrix(e, DR_MTU_4096);
	test_inline(e);
	test_unsignaled(e);
	test_ack_run_wrap(e);
	test_atomics(e);
	test_bth_flags(e);
	test_psn_wrap(e);
	test_bidirectional(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_ops", argv[0], 4200, run);
}
