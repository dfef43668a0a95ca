/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * RC transport on a bad wire: loss of the first, a middle and the last
 * packet of each opcode, of ACKs, of READ requests and responses, of atomic
 * ACKs; duplicates; reordering; corruption (the ICRC must catch it); loss of
 * every Nth frame on long transfers and across a PSN wrap; many messages in
 * flight. Every byte must arrive exactly once and every completion exactly
 * once (go-back-N, IBA 9.7.5.2; duplicate detection, IBA 9.7.5.1.1).
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

static int
connect_default(struct rc_env *e, struct rc_qp_params *p)
{
	if (rc_connect(e, p) != 0) {
		RC_CHECK_MSG(0, "connect");
		return -1;
	}
	return 0;
}

/* Drop packet @k (0-based) of the data stream of a 4-packet message, for every opcode. */
static void
test_drop_kth(struct rc_env *e, uint32_t k, const char *what)
{
	struct rc_qp_params p;
	unsigned int i;
	char tag[96];

	rc_params_default(&p);
	for (i = 0; i < RTE_DIM(ops); i++) {
		bool read = ops[i] == DR_WR_RDMA_READ;
		struct rc_xfer x = {
			.op = ops[i], .len = 3 * 1024 + 5, .nsge_l = 2, .nsge_r = 3, .seed = 77 + i + k,
			.settle_usec = 40000,
		};

		if (connect_default(e, &p) != 0)
			return;
		/* the data of a READ flows B->A in its responses */
		rc_rule_add(e, read ? RC_B2A : RC_A2B, -1, k, 0, 1, RC_DROP);
		snprintf(tag, sizeof(tag), "drop %s packet of %s", what, op_name(ops[i]));
		rc_xfer_run(e, &x, tag);
		RC_CHECK_MSG(e->dropped[read ? RC_B2A : RC_A2B] == 1, "%s: nothing dropped", tag);
		rc_disconnect(e);
	}
}

/* Lose the READ request itself, then the ACK of a SEND, then several ACKs in a row. */
static void
test_drop_control(struct rc_env *e)
{
	struct rc_qp_params p;
	struct rc_xfer x = { .nsge_l = 1, .nsge_r = 1, .settle_usec = 40000 };

	rc_params_default(&p);
	if (connect_default(e, &p) != 0)
		return;
	rc_rule_add(e, RC_A2B, DR_OPCODE(RC, READ_REQ), 0, 0, 1, RC_DROP);
	x.op = DR_WR_RDMA_READ;
	x.len = 5000;
	x.seed = 501;
	rc_xfer_run(e, &x, "drop READ request");
	RC_CHECK_EQ(e->dropped[RC_A2B], 1);
	rc_disconnect(e);

	if (connect_default(e, &p) != 0)
		return;
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ACK), 0, 0, 1, RC_DROP);
	x.op = DR_WR_SEND;
	x.len = 2000;
	x.seed = 502;
	rc_xfer_run(e, &x, "drop the ACK of a SEND");
	RC_CHECK_EQ(e->dropped[RC_B2A], 1);
	rc_disconnect(e);

	if (connect_default(e, &p) != 0)
		return;
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ACK), 0, 0, 3, RC_DROP);
	x.op = DR_WR_RDMA_WRITE_WITH_IMM;
	x.len = 3000;
	x.seed = 503;
	rc_xfer_run(e, &x, "drop three ACKs of a WRITE with immediate");
	RC_CHECK_EQ(e->dropped[RC_B2A], 3);
	rc_disconnect(e);

	/* a READ response lost in a 1 MiB READ: re-requested from the first missing byte */
	if (connect_default(e, &p) != 0)
		return;
	rc_rule_add(e, RC_B2A, -1, 500, 0, 1, RC_DROP);
	e->logging = true;
	x.op = DR_WR_RDMA_READ;
	x.len = 1u << 20;
	x.seed = 504;
	rc_xfer_run(e, &x, "drop READ response 500 of 1024");
	{
		/*
		 * The retried READ asks for the rest only: its PSN is that of the
		 * lost response. Asked once more only when something else went
		 * missing: a response the rings dropped (a worker starved of CPU,
		 * rtc and pipeline on a loaded host) or the ACK timer's expiry.
		 */
		uint32_t i, reqs = 0, retry_psn = 0;
		struct dr_ctx_stats sa = dr_ctx_stats_sum(e->s[0].ctx), sb = dr_ctx_stats_sum(e->s[1].ctx);
		uint64_t other = sa.ack_timeouts + sa.rx_redirect_full + sb.tx_dropped + sb.tx_nombuf;

		for (i = 0; i < e->nlog; i++) {
			if (e->log[i].dir == RC_A2B && e->log[i].opcode == DR_OPCODE(RC, READ_REQ) && ++reqs == 2)
				retry_psn = e->log[i].psn;
		}
		RC_CHECK_EQ(retry_psn, (p.psn_a + 500) & 0xFFFFFF);
		if (other == 0)
			RC_CHECK_EQ(reqs, 2);
		else
			RC_CHECK(reqs >= 2);
	}
	rc_disconnect(e);
}

/* Every request packet delivered twice, then every response. */
static void
test_duplicates(struct rc_env *e)
{
	struct rc_qp_params p;
	unsigned int i, d;
	char tag[96];

	rc_params_default(&p);
	for (d = 0; d < 2; d++) {
		for (i = 0; i < RTE_DIM(ops); i++) {
			struct rc_xfer x = {
				.op = ops[i], .len = 10 * 1024 + 3, .nsge_l = 3, .nsge_r = 2, .seed = 600 + i + 10 * d,
				.settle_usec = 20000,
			};

			uint64_t dup0, stale0;

			if (connect_default(e, &p) != 0)
				return;
			dup0 = dr_ctx_stats_sum(e->s[1].ctx).rx_duplicate;
			stale0 = dr_ctx_stats_sum(e->s[0].ctx).rx_stale_resp;
			rc_rule_add(e, d == 0 ? RC_A2B : RC_B2A, -1, 0, 0, 0, RC_DUP);
			snprintf(tag, sizeof(tag), "duplicate every %s of %s", d == 0 ? "request" : "response",
				 op_name(ops[i]));
			rc_xfer_run(e, &x, tag);
			/* counted where they are dropped: the responder's duplicates, the completer's stale responses */
			if (d == 0)
				RC_CHECK_MSG(dr_ctx_stats_sum(e->s[1].ctx).rx_duplicate > dup0, "%s: no rx_duplicate", tag);
			else
				RC_CHECK_MSG(dr_ctx_stats_sum(e->s[0].ctx).rx_stale_resp > stale0, "%s: no rx_stale_resp",
					     tag);
			rc_disconnect(e);
		}
	}
}

/* Pairs of frames swapped, in each direction. */
static void
test_reorder(struct rc_env *e)
{
	struct rc_qp_params p;
	unsigned int i, d;
	char tag[96];

	rc_params_default(&p);
	for (d = 0; d < 2; d++) {
		for (i = 0; i < RTE_DIM(ops); i++) {
			struct rc_xfer x = {
				.op = ops[i], .len = 20 * 1024 + 1, .nsge_l = 2, .nsge_r = 2, .seed = 700 + i + 10 * d,
				.settle_usec = 40000,
			};

			if (connect_default(e, &p) != 0)
				return;
			rc_rule_add(e, d == 0 ? RC_A2B : RC_B2A, -1, 1, 3, 0, RC_SWAP);
			snprintf(tag, sizeof(tag), "reorder %s of %s", d == 0 ? "requests" : "responses",
				 op_name(ops[i]));
			rc_xfer_run(e, &x, tag);
			rc_disconnect(e);
		}
	}
}

/* A flipped byte in a request, an ACK, a READ response: dropped by the ICRC check, then recovered. */
static void
test_corrupt(struct rc_env *e)
{
	struct rc_qp_params p;
	uint64_t bad_b, bad_a;
	struct rc_xfer x = { .nsge_l = 2, .nsge_r = 2, .settle_usec = 40000 };

	rc_params_default(&p);
	if (connect_default(e, &p) != 0)
		return;
	bad_b = dr_ctx_stats_sum(e->s[1].ctx).rx_bad_icrc;
	rc_rule_add(e, RC_A2B, -1, 2, 0, 1, RC_CORRUPT);
	x.op = DR_WR_SEND;
	x.len = 5 * 1024;
	x.seed = 801;
	rc_xfer_run(e, &x, "corrupt SEND packet 2");
	RC_CHECK_EQ(dr_ctx_stats_sum(e->s[1].ctx).rx_bad_icrc - bad_b, 1);
	rc_disconnect(e);

	if (connect_default(e, &p) != 0)
		return;
	bad_a = dr_ctx_stats_sum(e->s[0].ctx).rx_bad_icrc;
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ACK), 0, 0, 1, RC_CORRUPT);
	x.op = DR_WR_RDMA_WRITE;
	x.seed = 802;
	rc_xfer_run(e, &x, "corrupt the ACK of a WRITE");
	RC_CHECK_EQ(dr_ctx_stats_sum(e->s[0].ctx).rx_bad_icrc - bad_a, 1);
	rc_disconnect(e);

	if (connect_default(e, &p) != 0)
		return;
	bad_a = dr_ctx_stats_sum(e->s[0].ctx).rx_bad_icrc;
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, READ_RESP_MIDDLE), 1, 0, 1, RC_CORRUPT);
	x.op = DR_WR_RDMA_READ;
	x.seed = 803;
	rc_xfer_run(e, &x, "corrupt a READ response");
	RC_CHECK_EQ(dr_ctx_stats_sum(e->s[0].ctx).rx_bad_icrc - bad_a, 1);
	rc_disconnect(e);
}

/* Every Nth frame lost on 1 MiB transfers: in one direction, then in both. */
static void
test_drop_every(struct rc_env *e, enum dr_mtu mtu, uint32_t n, bool both, uint32_t psn)
{
	struct rc_qp_params p;
	unsigned int i;
	char tag[128];

	rc_params_default(&p);
	p.mtu = mtu;
	p.psn_a = psn;
	p.psn_b = psn ^ 0x5A5A5A;
	for (i = 0; i < RTE_DIM(ops); i++) {
		struct rc_xfer x = {
			.op = ops[i], .len = 1u << 20, .nsge_l = 4, .nsge_r = 3, .seed = 900 + i + n,
			.usec = 60000000, .settle_usec = 40000,
		};

		struct rc_rule *r;

		if (connect_default(e, &p) != 0)
			return;
		/* every Nth first transmission of the data direction: each of those is lost once */
		r = rc_rule_add(e, ops[i] == DR_WR_RDMA_READ ? RC_B2A : RC_A2B, -1, 0, n, 0, RC_DROP);
		r->fresh = true;
		if (both) {
			/* and one in N of everything going the other way (ACKs, NAKs, READ requests) */
			r = rc_rule_add(e, ops[i] == DR_WR_RDMA_READ ? RC_A2B : RC_B2A, -1, 0, n, 0, RC_DROP);
			r->random = true;
			r->seed = n + i;
		}
		snprintf(tag, sizeof(tag), "mtu %u psn %#x drop every %u%s of 1 MiB %s", dr_mtu_bytes(mtu), psn, n,
			 both ? " both ways" : "", op_name(ops[i]));
		e->logging = getenv("DR_TEST_WIRELOG") != NULL;
		rc_xfer_run(e, &x, tag);
		if (e->logging)
			rc_wirelog_print(e, 400);
		if (getenv("DR_TEST_VERBOSE") != NULL)
			printf("%s: %" PRIu64 "/%" PRIu64 " frames, %" PRIu64 "/%" PRIu64 " dropped\n", tag,
			       e->frames[0], e->frames[1], e->dropped[0], e->dropped[1]);
		rc_disconnect(e);
	}
}

/* Many messages of many sizes in flight on a lossy wire: each arrives once, in order, intact. */
static void
test_pipeline(struct rc_env *e)
{
	enum { NMSG = 48 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	uint32_t len[NMSG], off[NMSG], total = 0;
	unsigned int i;
	struct rc_rule *r;
	bool in_order = true, data_ok = true;

	rc_params_default(&p);
	p.psn_a = 0xFFFF80;          /* and across the PSN wrap */
	if (connect_default(e, &p) != 0)
		return;
	for (i = 0; i < NMSG; i++) {
		len[i] = (i * 7919u) % 9000u;
		off[i] = total;
		total += len[i];
	}
	if (rc_buf_alloc(a, &src, total, acc) != 0 || rc_buf_alloc(b, &dst, total + 64 * NMSG, acc) != 0) {
		RC_CHECK_MSG(0, "pipeline buffers");
		return;
	}
	rc_fill(src.p, total, 4242);
	/*
	 * Every 11th first transmission, and at random one in 30 retransmissions
	 * and one in 5 responses. (A periodic rule on retransmissions too can
	 * lock step with go-back-N: when the frames of one retry cycle are a
	 * multiple of the period, the same PSN is lost on every retry.)
	 */
	r = rc_rule_add(e, RC_A2B, -1, 3, 11, 0, RC_DROP);
	r->fresh = true;
	r = rc_rule_add(e, RC_A2B, -1, 0, 30, 0, RC_DROP);
	r->random = true;
	r->seed = 99;
	r = rc_rule_add(e, RC_B2A, -1, 0, 5, 0, RC_DROP);
	r->random = true;
	r->seed = 77;
	for (i = 0; i < NMSG; i++) {
		struct dr_sge rs = { (uint64_t)(uintptr_t)(dst.p + off[i] + 64 * i), len[i] + 64, dst.mr->lkey };
		struct dr_sge ls = { (uint64_t)(uintptr_t)(src.p + off[i]), len[i], src.mr->lkey };

		RC_CHECK_EQ(rc_post_recv(b, i, &rs, 1), 0);
		RC_CHECK_EQ(rc_post_send(a, i, i % 2 ? DR_WR_SEND_WITH_IMM : DR_WR_SEND, &ls, 1, 0, 0, 0,
					 rte_cpu_to_be_32(i)), 0);
	}
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, NMSG, 30000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, NMSG, 30000000));
	rc_run(e, 40000, NULL, NULL);
	rc_poll(a->scq, &sw);
	rc_poll(b->rcq, &rw);
	RC_CHECK_EQ(sw.n, NMSG);
	RC_CHECK_EQ(rw.n, NMSG);
	for (i = 0; i < rw.n && i < NMSG; i++) {
		in_order = in_order && rw.wc[i].wr_id == i && sw.wc[i].wr_id == i && rw.wc[i].byte_len == len[i] &&
			   rw.wc[i].status == DR_WC_SUCCESS && sw.wc[i].status == DR_WC_SUCCESS;
		data_ok = data_ok && memcmp(dst.p + off[i] + 64 * i, src.p + off[i], len[i]) == 0;
	}
	RC_CHECK(in_order);
	RC_CHECK(data_ok);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

static void
test_atomic_ack_loss(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			DR_ACCESS_REMOTE_ATOMIC;
	struct rc_qp_params p;
	struct rc_buf lb, rb;
	struct rc_wcs sw = { .n = 0 };
	struct dr_send_wr wr, *bad;
	struct dr_sge s;
	uint64_t v;

	rc_params_default(&p);
	if (connect_default(e, &p) != 0)
		return;
	if (rc_buf_alloc(a, &lb, 8, acc) != 0 || rc_buf_alloc(b, &rb, 64, acc) != 0)
		return;
	v = 1000;
	memcpy(rb.p + 8, &v, 8);
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ATOMIC_ACK), 0, 0, 2, RC_DROP);
	s.addr = (uint64_t)(uintptr_t)lb.p;
	s.length = 8;
	s.lkey = lb.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = DR_WR_ATOMIC_FETCH_AND_ADD;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = DR_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)(rb.p + 8);
	wr.wr.atomic.rkey = rb.mr->rkey;
	wr.wr.atomic.compare_add = 5;
	RC_CHECK_EQ(dr_post_send(a->qp, &wr, &bad), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 5000000));
	rc_run(e, 40000, NULL, NULL);
	rc_poll(a->scq, &sw);
	RC_CHECK_EQ(sw.n, 1);
	RC_CHECK_EQ(sw.wc[0].status, DR_WC_SUCCESS);
	RC_CHECK_EQ(sw.wc[0].opcode, DR_WC_FETCH_ADD);
	memcpy(&v, lb.p, 8);
	RC_CHECK_EQ(v, 1000);          /* the original value */
	memcpy(&v, rb.p + 8, 8);
	RC_CHECK_EQ(v, 1005);          /* added exactly once */
	RC_CHECK_EQ(e->dropped[RC_B2A], 2);
	rc_buf_free(&lb);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

/*
 * A mix of every operation, many in flight, on a wire that loses 1 in @n
 * frames both ways at random (retransmissions included), duplicates and
 * reorders some: every completion once, in order, every byte right, every
 * FetchAdd applied once.
 */
/* The wire log of a random mix and its WRs (DR_TEST_WIRELOG). */
static void
wirelog_mix(const struct rc_env *e, const enum dr_wr_opcode *op, const uint32_t *len, unsigned int n)
{
	rc_wirelog_print(e, UINT32_MAX);
	for (unsigned int i = 0; i < n; i++)
		printf("wr %u %s len %u\n", i, op_name(op[i]), len[i]);
	fflush(stdout);
}

static void
test_random_mixed(struct rc_env *e, uint32_t n, uint32_t seed, enum dr_mtu mtu)
{
	enum { NWR = 96, SLOT = 20000 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			DR_ACCESS_REMOTE_ATOMIC;
	struct rc_qp_params p;
	struct rc_buf la, lb, ctr;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	enum dr_wr_opcode op[NWR];
	uint32_t len[NWR], x = seed, nrecv = 0, nadd = 0;
	struct rc_rule *r;
	unsigned int i, k;
	unsigned int failed_before = rc_failed;
	bool ok = true;
	char tag[80];

	snprintf(tag, sizeof(tag), "random mix, 1/%u lost, seed %u, mtu %u", n, seed, dr_mtu_bytes(mtu));
	rc_params_default(&p);
	p.mtu = mtu;
	p.max_wr = NWR;
	p.timeout = 10;               /* 4.2 ms: tail losses are recovered by the timer */
	p.psn_a = 0xFFFFFF - seed % 300;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, NWR * SLOT, acc) != 0 ||
	    rc_buf_alloc(b, &lb, NWR * SLOT, acc) != 0 || rc_buf_alloc(b, &ctr, 8, acc) != 0) {
		RC_CHECK_MSG(0, "%s: setup", tag);
		return;
	}
	rc_fill(la.p, NWR * SLOT, seed);
	rc_fill(lb.p, NWR * SLOT, seed + 1);
	memset(ctr.p, 0, 8);
	for (k = 0; k < 2; k++) {
		r = rc_rule_add(e, (int)k, -1, 0, n, 0, RC_DROP);
		r->random = true;
		r->seed = seed * 7 + k;
		r = rc_rule_add(e, (int)k, -1, 0, 3 * n, 0, RC_DUP);
		r->random = true;
		r->seed = seed * 11 + k;
		r = rc_rule_add(e, (int)k, -1, 0, 3 * n, 0, RC_SWAP);
		r->random = true;
		r->seed = seed * 13 + k;
	}
	for (i = 0; i < NWR; i++) {
		static const enum dr_wr_opcode mix[] = {
			DR_WR_SEND, DR_WR_SEND_WITH_IMM, DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE_WITH_IMM, DR_WR_RDMA_READ,
			DR_WR_ATOMIC_FETCH_AND_ADD,
		};
		struct dr_sge ls = { (uint64_t)(uintptr_t)(la.p + i * SLOT), 0, la.mr->lkey };
		struct dr_sge rs = { (uint64_t)(uintptr_t)(lb.p + i * SLOT), SLOT, lb.mr->lkey };
		struct dr_send_wr wr, *bad;

		x = x * 1103515245u + 12345u;
		op[i] = mix[(x >> 16) % RTE_DIM(mix)];
		x = x * 1103515245u + 12345u;
		len[i] = (x >> 8) % SLOT;
		ls.length = len[i];
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = op[i];
		wr.sg_list = &ls;
		wr.num_sge = 1;
		wr.send_flags = DR_SEND_SIGNALED;
		wr.imm_data = rte_cpu_to_be_32(i);
		if (op[i] == DR_WR_ATOMIC_FETCH_AND_ADD) {
			ls.length = 8;
			len[i] = 8;
			wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)ctr.p;
			wr.wr.atomic.rkey = ctr.mr->rkey;
			wr.wr.atomic.compare_add = i + 1;
			nadd += i + 1;
		} else {
			wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(lb.p + i * SLOT);
			wr.wr.rdma.rkey = lb.mr->rkey;
		}
		if (op[i] == DR_WR_SEND || op[i] == DR_WR_SEND_WITH_IMM || op[i] == DR_WR_RDMA_WRITE_WITH_IMM) {
			RC_CHECK_EQ(rc_post_recv(b, i, op[i] == DR_WR_RDMA_WRITE_WITH_IMM ? NULL : &rs,
						 op[i] == DR_WR_RDMA_WRITE_WITH_IMM ? 0 : 1), 0);
			nrecv++;
		}
		RC_CHECK_EQ(dr_post_send(a->qp, &wr, &bad), 0);
	}
	/* DR_TEST_WIRELOG: the frames of every case; DR_TEST_WIRELOG=fail: of a failing case only */
	e->logging = getenv("DR_TEST_WIRELOG") != NULL;
	RC_CHECK_MSG(rc_wait_wcs(e, a->scq, &sw, NWR, 60000000), "%s: %u of %u completions", tag, sw.n, NWR);
	if (e->logging && strcmp(getenv("DR_TEST_WIRELOG"), "fail") != 0)
		wirelog_mix(e, op, len, NWR);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, nrecv, 10000000));
	rc_rules_clear(e);
	rc_run(e, 20000, NULL, NULL);
	rc_poll(a->scq, &sw);
	rc_poll(b->rcq, &rw);
	RC_CHECK_MSG(sw.n == NWR && rw.n == nrecv, "%s: %u/%u send, %u/%u receive completions", tag, sw.n, NWR,
		     rw.n, nrecv);
	for (i = 0; i < sw.n && i < NWR; i++) {
		const uint8_t *src = op[i] == DR_WR_RDMA_READ ? lb.p + i * SLOT : la.p + i * SLOT;
		const uint8_t *dst = op[i] == DR_WR_RDMA_READ ? la.p + i * SLOT : lb.p + i * SLOT;

		if (sw.wc[i].wr_id != i || sw.wc[i].status != DR_WC_SUCCESS) {
			RC_CHECK_MSG(0, "%s: completion %u: wr_id %" PRIu64 " %s", tag, i, sw.wc[i].wr_id,
				     dr_wc_status_str(sw.wc[i].status));
			ok = false;
			break;
		}
		if (op[i] != DR_WR_ATOMIC_FETCH_AND_ADD && memcmp(src, dst, len[i]) != 0) {
			RC_CHECK_MSG(0, "%s: data of wr %u (%s, %u bytes)", tag, i, op_name(op[i]), len[i]);
			ok = false;
		}
	}
	for (i = 0, k = 0; i < rw.n; i++) {
		/* receive completions in posting order, each with its length */
		while (k < NWR && op[k] != DR_WR_SEND && op[k] != DR_WR_SEND_WITH_IMM &&
		       op[k] != DR_WR_RDMA_WRITE_WITH_IMM)
			k++;
		if (k >= NWR || rw.wc[i].wr_id != k || rw.wc[i].byte_len != len[k] ||
		    rw.wc[i].status != DR_WC_SUCCESS) {
			RC_CHECK_MSG(0, "%s: receive completion %u", tag, i);
			ok = false;
			break;
		}
		k++;
	}
	{
		uint64_t v;

		memcpy(&v, ctr.p, 8);
		RC_CHECK_MSG(v == nadd, "%s: FetchAdd total %" PRIu64 ", want %u", tag, v, nadd);
	}
	RC_CHECK(ok);
	if (rc_failed != failed_before)
		rc_print_counters(e, tag);
	if (e->logging && strcmp(getenv("DR_TEST_WIRELOG"), "fail") == 0 && rc_failed != failed_before)
		wirelog_mix(e, op, len, NWR);
	if (getenv("DR_TEST_VERBOSE") != NULL)
		printf("%s: %" PRIu64 "/%" PRIu64 " frames, %" PRIu64 "/%" PRIu64 " dropped\n", tag, e->frames[0],
		       e->frames[1], e->dropped[0], e->dropped[1]);
	rc_buf_free(&la);
	rc_buf_free(&lb);
	rc_buf_free(&ctr);
	rc_disconnect(e);
}

/*
 * Requests that arrive while a READ is answered wait for it (IBA 9.7.5.1.3:
 * responses in PSN order), but never more than the worker's share of the
 * pool: past it they are dropped and retransmitted, so held requests cannot
 * take the mbufs the READ's responses need (a deadlock: 16k QPs reading at
 * once exhausted the pool this way). New READs behind a READ are queued as
 * resources, holding nothing. Here B may hold one request: a 16 KiB READ,
 * then two more READs (queued), then eight SENDs (one held, the rest
 * dropped and sent again): everything completes, in order, the data right.
 */
#define HC_SENDS 8
#define HC_RLEN 16384
static void
test_held_cap(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct dr_worker *bw;
	struct rc_qp_params p;
	struct rc_buf la, rb, ls, rs;
	uint64_t dropped0;
	uint32_t cap, i;

	rc_params_default(&p);
	p.max_rd_atomic = p.max_dest_rd_atomic = 4;
	p.max_wr = 16;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, 3 * HC_RLEN, acc) != 0 ||
	    rc_buf_alloc(b, &rb, 3 * HC_RLEN, acc) != 0 || rc_buf_alloc(a, &ls, HC_SENDS * 1024, acc) != 0 ||
	    rc_buf_alloc(b, &rs, HC_SENDS * 1024, acc) != 0) {
		RC_CHECK_MSG(0, "held cap setup");
		return;
	}
	bw = dr_qp_impl(b->qp)->wk;
	cap = bw->resp_held_max;
	__atomic_store_n(&bw->resp_held_max, 1, __ATOMIC_RELAXED);
	dropped0 = dr_ctx_stats_sum(b->ctx).rx_dropped;
	rc_fill(rb.p, rb.len, 91);
	rc_fill(ls.p, ls.len, 92);
	memset(la.p, 0, la.len);
	memset(rs.p, 0, rs.len);
	for (i = 0; i < HC_SENDS; i++) {
		struct dr_sge sge = { (uint64_t)(uintptr_t)(rs.p + i * 1024), 1024, rs.mr->lkey };

		RC_CHECK_EQ(rc_post_recv(b, 100 + i, &sge, 1), 0);
	}
	for (i = 0; i < 3; i++) {
		struct dr_sge sge = { (uint64_t)(uintptr_t)(la.p + i * HC_RLEN), HC_RLEN, la.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, i, DR_WR_RDMA_READ, &sge, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)(rb.p + i * HC_RLEN), rb.mr->rkey, 0), 0);
	}
	for (i = 0; i < HC_SENDS; i++) {
		struct dr_sge sge = { (uint64_t)(uintptr_t)(ls.p + i * 1024), 1024, ls.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, 3 + i, DR_WR_SEND, &sge, 1, DR_SEND_SIGNALED, 0, 0, 0), 0);
	}
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 3 + HC_SENDS, 5000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, HC_SENDS, 5000000));
	for (i = 0; i < sw.n; i++)
		RC_CHECK_MSG(sw.wc[i].wr_id == i && sw.wc[i].status == DR_WC_SUCCESS, "send wc %u: wr_id %" PRIu64
			     " %s", i, sw.wc[i].wr_id, dr_wc_status_str(sw.wc[i].status));
	for (i = 0; i < rw.n; i++)
		RC_CHECK(rw.wc[i].wr_id == 100 + i && rw.wc[i].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(la.p, rb.p, la.len) == 0);
	RC_CHECK(memcmp(rs.p, ls.p, rs.len) == 0);
	/*
	 * SENDs were dropped behind the READs (nothing else drops here) and came
	 * again: inline, where one round takes the READs and the SENDs together;
	 * engine lcores may answer the READs before the SENDs arrive
	 */
	if (strcmp(rc_mode_name(), "inline") == 0)
		RC_CHECK_MSG(dr_ctx_stats_sum(b->ctx).rx_dropped > dropped0, "no request was dropped at the cap");
	RC_CHECK_EQ(bw->resp_held, 0);
	__atomic_store_n(&bw->resp_held_max, cap, __ATOMIC_RELAXED);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_buf_free(&ls);
	rc_buf_free(&rs);
	rc_disconnect(e);
}

/* The tests, in order, on one environment (rc_main()). */
static void
run(struct rc_env *e)
{
	if (getenv("DR_TEST_MIX") != NULL) {
		/* one case of the mix: "N,SEED,MTU" (1 in N lost; MTU 1024 or 4096), e.g. "8,4,1024" */
		unsigned int n = 8, sd = 1, mtu = 1024;

		if (sscanf(getenv("DR_TEST_MIX"), "%u,%u,%u", &n, &sd, &mtu) < 2 || n < 2) {
			RC_CHECK_MSG(0, "DR_TEST_MIX=%s: N,SEED[,MTU]", getenv("DR_TEST_MIX"));
			return;
		}
		test_random_mixed(e, n, sd, mtu == 4096 ? DR_MTU_4096 : DR_MTU_1024);
		return;
	}
	if (getenv("DR_TEST_SEEDS") != NULL) {
		/* soak: many seeds of the mixed test (not part of the regular run) */
		uint32_t sd, nseeds = (uint32_t)atoi(getenv("DR_TEST_SEEDS"));

		for (sd = 1; sd <= nseeds; sd++)
			test_random_mixed(e, 8 + sd % 40, sd, sd % 3 == 0 ? DR_MTU_4096 : DR_MTU_1024);
		return;
	}
	test_drop_kth(e, 0, "the first");
	test_drop_kth(e, 1, "a middle");
	test_drop_kth(e, 3, "the last");
	test_drop_control(e);
	test_duplicates(e);
	test_reorder(e);
	test_corrupt(e);
	test_drop_every(e, DR_MTU_1024, 7, false, 0x100);
	test_drop_every(e, DR_MTU_4096, 5, true, 0x100);
	test_drop_every(e, DR_MTU_1024, 13, true, 0xFFFF00);   /* across the PSN wrap */
	test_pipeline(e);
	test_atomic_ack_loss(e);
	test_held_cap(e);
	test_random_mixed(e, 50, 1, DR_MTU_1024);
	test_random_mixed(e, 20, 2, DR_MTU_1024);
	test_random_mixed(e, 10, 3, DR_MTU_4096);
	test_random_mixed(e, 8, 4, DR_MTU_1024);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_loss", argv[0], 4200, run);
}
