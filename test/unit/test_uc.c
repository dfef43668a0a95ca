/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * UC end to end over the test wire (test_rc.h): every UC operation at the
 * sizes that change the packet sequence, nothing ever acknowledged, and the
 * IBA 9.8 rules for what goes wrong: a lost packet drops its message (the
 * next FIRST / ONLY starts over in the same receive WQE), a missing receive
 * WQE, a bad R_Key or a missing right drop the message silently, a receive
 * WQE too small completes in error and moves the QP to ERR.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "test_rc.h"

static const uint32_t mtu_b = 1024;

static void
uc_params(struct rc_qp_params *p)
{
	rc_params_default(p);
	p->qp_type = DR_QPT_UC;
	p->access_a = p->access_b = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE;
}

/* No frame went B -> A: UC has no ACKs (IBA 9.8). */
static bool
no_responses(const struct rc_env *e)
{
	return e->frames[RC_B2A] == 0;
}

/* Every operation and size; data, completions and the absence of ACKs checked. */
static void
test_ops(struct rc_env *e)
{
	static const enum dr_wr_opcode ops[] = {
		DR_WR_SEND, DR_WR_SEND_WITH_IMM, DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE_WITH_IMM,
	};
	const uint32_t sizes[] = { 0, 1, mtu_b - 1, mtu_b, mtu_b + 1, 3 * mtu_b + 5, 65536 };
	struct rc_qp_params p;
	unsigned int i, j;
	char tag[96];

	uc_params(&p);
	p.psn_a = 0xFFFFFE;          /* across the PSN wrap */
	for (i = 0; i < RTE_DIM(ops); i++) {
		for (j = 0; j < RTE_DIM(sizes); j++) {
			struct rc_xfer x = {
				.op = ops[i], .len = sizes[j], .nsge_l = sizes[j] > 3 ? 3 : 1,
				.nsge_r = sizes[j] > 2 ? 2 : 1, .seed = i * 31 + j,
			};

			if (rc_connect(e, &p) != 0) {
				RC_CHECK_MSG(0, "UC connect");
				return;
			}
			snprintf(tag, sizeof(tag), "UC op %d, %u bytes", (int)ops[i], sizes[j]);
			rc_xfer_run(e, &x, tag);
			RC_CHECK_MSG(no_responses(e), "%s: %" PRIu64 " frames B->A", tag, e->frames[RC_B2A]);
			rc_disconnect(e);
		}
	}
	/* inline SEND */
	if (rc_connect(e, &p) == 0) {
		struct rc_xfer x = { .op = DR_WR_SEND, .len = 200, .nsge_l = 2, .nsge_r = 1,
				     .flags = DR_SEND_INLINE, .seed = 77 };

		rc_xfer_run(e, &x, "UC inline SEND");
		rc_disconnect(e);
	}
}

/* Post a receive of @len bytes at @b + @off. */
static int
recv_at(struct rc_side *s, uint64_t id, struct rc_buf *b, uint32_t off, uint32_t len)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(b->p + off), len, b->mr->lkey };

	return rc_post_recv(s, id, &sge, 1);
}

static int
send_from(struct rc_side *s, uint64_t id, enum dr_wr_opcode op, struct rc_buf *b, uint32_t off, uint32_t len,
	  uint64_t raddr, uint32_t rkey, uint32_t imm)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(b->p + off), len, b->mr->lkey };

	return rc_post_send(s, id, op, &sge, 1, DR_SEND_SIGNALED, raddr, rkey, rte_cpu_to_be_32(imm));
}

/*
 * A lost middle packet of a SEND: the message is dropped, the requester
 * completes it with success anyway, and the next message lands in the same
 * receive WQE (its wr_id, its buffer from offset 0).
 */
static void
test_lost_send_packet(struct rc_env *e, uint32_t kth, const char *what)
{
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf src, dst;
	const uint32_t len1 = 4 * mtu_b, len2 = 2 * mtu_b + 100;
	char tag[64];

	snprintf(tag, sizeof(tag), "UC SEND, %s packet lost", what);
	uc_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, len1 + len2, acc) != 0 ||
	    rc_buf_alloc(b, &dst, 2 * 8192, acc) != 0) {
		RC_CHECK_MSG(0, "%s: setup", tag);
		return;
	}
	rc_fill(src.p, len1 + len2, 5);
	memset(dst.p, 0, 2 * 8192);
	RC_CHECK_EQ(recv_at(b, 1, &dst, 0, 8192), 0);
	RC_CHECK_EQ(recv_at(b, 2, &dst, 8192, 8192), 0);
	rc_rule_add(e, RC_A2B, -1, kth, 0, 1, RC_DROP);
	RC_CHECK_EQ(send_from(a, 10, DR_WR_SEND, &src, 0, len1, 0, 0, 0), 0);
	RC_CHECK_EQ(send_from(a, 11, DR_WR_SEND_WITH_IMM, &src, len1, len2, 0, 0, 0xabc), 0);
	RC_CHECK_MSG(rc_wait_wcs(e, a->scq, &sw, 2, 2000000), "%s: send completions %u", tag, sw.n);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	rc_run(e, 5000, NULL, NULL);                    /* and no second one */
	rc_poll(b->rcq, &rw);
	RC_CHECK_EQ(sw.n, 2);
	RC_CHECK(sw.n == 2 && sw.wc[0].status == DR_WC_SUCCESS && sw.wc[1].status == DR_WC_SUCCESS);
	RC_CHECK_MSG(rw.n == 1, "%s: %u receive completions", tag, rw.n);
	if (rw.n >= 1) {
		/* the first WQE took the second message */
		RC_CHECK_EQ(rw.wc[0].wr_id, 1);
		RC_CHECK_EQ(rw.wc[0].status, DR_WC_SUCCESS);
		RC_CHECK_EQ(rw.wc[0].byte_len, len2);
		RC_CHECK(rw.wc[0].wc_flags & DR_WC_WITH_IMM);
		RC_CHECK_EQ(rte_be_to_cpu_32(rw.wc[0].imm_data), 0xabc);
		RC_CHECK(memcmp(dst.p, src.p + len1, len2) == 0);
	}
	RC_CHECK_EQ(dr_ctx_stats_sum(e->s[1].ctx).rx_dropped, 4 - kth - 1);   /* the packets after the lost one */
	RC_CHECK(no_responses(e));
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
	dr_ctx_stats_reset(e->s[1].ctx);
}

/* A lost WRITE packet: the rest of the WRITE is dropped, the next WRITE with immediate lands. */
static void
test_lost_write_packet(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf src, dst;
	const uint32_t len = 3 * mtu_b;

	uc_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 2 * len, acc) != 0 ||
	    rc_buf_alloc(b, &dst, 2 * len, acc) != 0) {
		RC_CHECK_MSG(0, "UC WRITE loss: setup");
		return;
	}
	rc_fill(src.p, 2 * len, 9);
	memset(dst.p, 0, 2 * len);
	RC_CHECK_EQ(rc_post_recv(b, 7, NULL, 0), 0);
	rc_rule_add(e, RC_A2B, -1, 1, 0, 1, RC_DROP);      /* the WRITE's middle packet */
	RC_CHECK_EQ(send_from(a, 1, DR_WR_RDMA_WRITE, &src, 0, len, (uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0), 0);
	RC_CHECK_EQ(send_from(a, 2, DR_WR_RDMA_WRITE_WITH_IMM, &src, len, len,
			      (uint64_t)(uintptr_t)(dst.p + len), dst.mr->rkey, 0x55), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 2, 2000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	RC_CHECK(sw.n == 2 && sw.wc[0].status == DR_WC_SUCCESS && sw.wc[1].status == DR_WC_SUCCESS);
	if (rw.n == 1) {
		RC_CHECK_EQ(rw.wc[0].wr_id, 7);
		RC_CHECK_EQ(rw.wc[0].opcode, DR_WC_RECV_RDMA_WITH_IMM);
		RC_CHECK_EQ(rw.wc[0].byte_len, len);
	}
	/* the first packet of the first WRITE landed, its last did not; the second WRITE is whole */
	RC_CHECK(memcmp(dst.p, src.p, mtu_b) == 0);
	RC_CHECK(dst.p[2 * mtu_b] == 0 && dst.p[len - 1] == 0);
	RC_CHECK(memcmp(dst.p + len, src.p + len, len) == 0);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
	dr_ctx_stats_reset(e->s[1].ctx);
}

/*
 * Bad requests are dropped without a word (no NAK exists on UC), the QP
 * stays usable: no receive WQE, a bad R_Key, WRITE without REMOTE_WRITE.
 */
static void
test_silent_drops(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf src, dst;
	uint64_t raddr;

	uc_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, acc) != 0 ||
	    rc_buf_alloc(b, &dst, 4096, acc) != 0) {
		RC_CHECK_MSG(0, "UC drops: setup");
		return;
	}
	raddr = (uint64_t)(uintptr_t)dst.p;
	rc_fill(src.p, 4096, 3);
	memset(dst.p, 0, 4096);
	/* no receive WQE: the SEND is dropped (IBA 9.8: no RNR on UC) */
	RC_CHECK_EQ(send_from(a, 1, DR_WR_SEND, &src, 0, 100, 0, 0, 0), 0);
	/* a bad R_Key */
	RC_CHECK_EQ(send_from(a, 2, DR_WR_RDMA_WRITE, &src, 0, 2000, raddr, dst.mr->rkey ^ 0x100, 0), 0);
	/* outside the region */
	RC_CHECK_EQ(send_from(a, 3, DR_WR_RDMA_WRITE, &src, 0, 100, raddr + 4090, dst.mr->rkey, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 3, 2000000));
	RC_CHECK(RC_WAIT_STAT(e, 1, rx_dropped, 1 + 2 + 1));
	rc_run(e, 5000, NULL, NULL);                    /* and nothing else */
	RC_CHECK_EQ(rc_poll(b->rcq, &rw), 0);
	RC_CHECK_EQ(dr_ctx_stats_sum(b->ctx).rx_dropped, 1 + 2 + 1);
	RC_CHECK_EQ(rc_qp_state(b->qp), DR_QPS_RTS);
	RC_CHECK_EQ(rc_qp_state(a->qp), DR_QPS_RTS);
	RC_CHECK(dst.p[0] == 0 && dst.p[4095] == 0);
	/* and it still works */
	RC_CHECK_EQ(recv_at(b, 9, &dst, 0, 4096), 0);
	RC_CHECK_EQ(send_from(a, 4, DR_WR_SEND, &src, 0, 3000, 0, 0, 0), 0);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	RC_CHECK(rw.n == 1 && rw.wc[0].wr_id == 9 && rw.wc[0].byte_len == 3000 && rw.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(dst.p, src.p, 3000) == 0);
	RC_CHECK(no_responses(e));
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
	dr_ctx_stats_reset(b->ctx);

	/* WRITE to a QP without REMOTE_WRITE: dropped */
	uc_params(&p);
	p.access_b = DR_ACCESS_LOCAL_WRITE;
	sw.n = rw.n = 0;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, acc) != 0 ||
	    rc_buf_alloc(b, &dst, 4096, acc) != 0) {
		RC_CHECK_MSG(0, "UC no rights: setup");
		return;
	}
	memset(dst.p, 0, 4096);
	rc_fill(src.p, 4096, 4);
	RC_CHECK_EQ(send_from(a, 1, DR_WR_RDMA_WRITE, &src, 0, 64, (uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
	RC_CHECK(RC_WAIT_STAT(e, 1, rx_dropped, 1));
	RC_CHECK_EQ(dr_ctx_stats_sum(b->ctx).rx_dropped, 1);
	RC_CHECK_EQ(dst.p[0], 0);
	RC_CHECK_EQ(rc_qp_state(b->qp), DR_QPS_RTS);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
	dr_ctx_stats_reset(b->ctx);
}

/* A receive WQE too small: it completes with LOC_LEN_ERR and the QP goes to ERR (class D). */
static void
test_recv_too_small(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf src, dst;

	uc_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, acc) != 0 ||
	    rc_buf_alloc(b, &dst, 4096, acc) != 0) {
		RC_CHECK_MSG(0, "UC too small: setup");
		return;
	}
	RC_CHECK_EQ(recv_at(b, 1, &dst, 0, 1000), 0);
	RC_CHECK_EQ(recv_at(b, 2, &dst, 1000, 1000), 0);
	RC_CHECK_EQ(send_from(a, 1, DR_WR_SEND, &src, 0, 2500, 0, 0, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 2, 2000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	if (rw.n == 2) {
		RC_CHECK_EQ(rw.wc[0].wr_id, 1);
		RC_CHECK_EQ(rw.wc[0].status, DR_WC_LOC_LEN_ERR);
		RC_CHECK_EQ(rw.wc[1].wr_id, 2);
		RC_CHECK_EQ(rw.wc[1].status, DR_WC_WR_FLUSH_ERR);
	}
	RC_CHECK_EQ(rc_qp_state(b->qp), DR_QPS_ERR);
	RC_CHECK_EQ(rc_qp_state(a->qp), DR_QPS_RTS);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/* READ and atomics do not exist on UC (IBA 9.8; ibv_post_send(3)): EINVAL at post time. */
static void
test_post_rules(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE;
	struct rc_side *a = &e->s[0];
	struct rc_qp_params p;
	struct rc_buf src;

	uc_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, acc) != 0) {
		RC_CHECK_MSG(0, "UC post rules: setup");
		return;
	}
	RC_CHECK_EQ(send_from(a, 1, DR_WR_RDMA_READ, &src, 0, 8, 0x1000, 1, 0), EINVAL);
	RC_CHECK_EQ(send_from(a, 2, DR_WR_ATOMIC_FETCH_AND_ADD, &src, 0, 8, 0x1000, 1, 0), EINVAL);
	RC_CHECK_EQ(send_from(a, 3, DR_WR_ATOMIC_CMP_AND_SWP, &src, 0, 8, 0x1000, 1, 0), EINVAL);
	rc_buf_free(&src);
	rc_disconnect(e);
}

/* The tests, in order, on one environment (rc_main()). */
static void
run(struct rc_env *e)
{
	test_ops(e);
	test_lost_send_packet(e, 1, "the second");
	test_lost_send_packet(e, 3, "the last");
	test_lost_write_packet(e);
	test_silent_drops(e);
	test_recv_too_small(e);
	test_post_rules(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_uc", argv[0], 4200, run);
}
