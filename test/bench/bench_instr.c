/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The cost of each path of the transport, one at a time: 64-byte RDMA
 * WRITEs and SENDs between two inline contexts on ring ports in one process
 * (test_rc.h's harness), the wire moving frames between the steps so that
 * every step runs one path only:
 *
 *   req_*    post the batch (one WR a call, every 16th signaled, as perftest's
 *            bw tests) and drive A until every request frame is on its tx
 *            ring: post, requester, frame build, tx;
 *   resp_*   drive B until it has taken every request (rx, checks, ICRC,
 *            responder, data placement, ACKs) and, for SENDs, poll its
 *            receive completions;
 *   ack_*    drive A and poll its send CQ until the batch is complete:
 *            rx of the ACKs, completer, CQEs (per ACK frame and per WR).
 *
 * round_idle: A's dr_progress() with its QP connected and nothing to do
 * (nothing posted, nothing on the wire, no timer due): what every turn of a
 * network function's loop pays for the transport beside it
 * (doc/guides/embedding.rst).
 *
 * RDMA READs (of --read-size bytes, 64 by default, up to 64 KiB: several
 * response frames each at MTU 4096) run the same three steps, the roles
 * turned round: req_read is A's READ requests, resp_read B's responder
 * reading its memory into READ responses, ack_read A placing the responses
 * and completing the READs; a batch is max_rd_atomic READs.
 *
 * Alone it prints TSC cycles per operation of each step. Under valgrind
 * --tool=callgrind --collect-atstart=no with --collect STEP it toggles
 * collection around that step only, so callgrind's total is the step's
 * instruction count (test/bench/instr.py runs it for every step and
 * divides). A benchmark: it asserts nothing about speed, only that the
 * batches complete.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <valgrind/callgrind.h>

#include "test_rc.h"

#define BATCH 128u            /* WRs a batch, for messages of at most 1 KiB */
#define SIGNAL_EVERY 16u
#define WARMUP 160u           /* 20480 WRs: every mbuf of the pool touched once (no first-touch faults measured) */
#define BATCHES 64u
#define SPIN_MAX 100000u

enum step { REQ, RESP, ACK, NB_STEPS };
enum op { OP_WRITE, OP_SEND, OP_READ, NB_OPS };

static const char *const step_names[NB_STEPS] = { "req", "resp", "ack" };
static const char *const op_names[NB_OPS] = { "write", "send", "read" };

struct tally {
	uint64_t cycles;
	uint64_t ops;        /* WRs of the step */
	uint64_t frames;     /* ack: ACK frames; else request frames */
};

static struct tally tallies[NB_OPS][NB_STEPS];
static int collect_op = -1, collect_step = -1;   /* --collect OP_STEP */
static uint32_t msg = 64;                        /* --size: bytes a message (one frame: MTU 4096) */
static unsigned int batch = BATCH;               /* a batch's bytes stay within half a QP's send window */
static uint32_t read_msg = 64;                   /* --read-size: bytes a READ */
#define READ_BATCH DR_MAX_RD_ATOMIC              /* READs a batch: all outstanding at once */
#define READ_MAX 65536u

static uint64_t step_t0;
static bool collect_idle;                        /* --collect round_idle */
#define IDLE_ROUNDS 4096u
static struct tally idle_tally;

static void
step_begin(enum op op, enum step st, bool counted)
{
	if (counted && (int)op == collect_op && (int)st == collect_step)
		CALLGRIND_TOGGLE_COLLECT;
	step_t0 = rte_rdtsc();
}

static void
step_end(enum op op, enum step st, bool counted, uint64_t ops, uint64_t frames)
{
	uint64_t dt = rte_rdtsc() - step_t0;

	if (counted && (int)op == collect_op && (int)st == collect_step)
		CALLGRIND_TOGGLE_COLLECT;
	if (!counted)
		return;
	tallies[op][st].cycles += dt;
	tallies[op][st].ops += ops;
	tallies[op][st].frames += frames;
}

static unsigned int
tx_waiting(const struct rc_side *s)
{
	return rte_ring_count(s->tx[0]);
}

/* Drive @s until @n frames wait on its tx ring: 0, or -1 when SPIN_MAX rounds did not put exactly @n there. */
static int
drive_until_tx(struct rc_side *s, unsigned int n)
{
	for (unsigned int spins = 0; tx_waiting(s) < n && spins < SPIN_MAX; spins++)
		dr_progress(s->ctx);
	return tx_waiting(s) == n ? 0 : -1;
}

/* Drive @a and poll its send CQ until @want completions came, every one SUCCESS: 0, or -1. */
static int
drive_until_cqes(struct rc_side *a, unsigned int want)
{
	struct dr_wc wc[32];
	unsigned int got = 0;

	for (unsigned int spins = 0; got < want && spins < SPIN_MAX; spins++) {
		int n;

		dr_progress(a->ctx);
		n = dr_poll_cq(a->scq, 32, wc);
		if (n < 0)
			return -1;
		for (int k = 0; k < n; k++)
			if (wc[k].status != DR_WC_SUCCESS)
				return -1;
		got += (unsigned int)n;
	}
	return got == want ? 0 : -1;
}

/* Frames of one READ's responses (MTU 4096; --read-size is at least 1). */
static unsigned int
read_frames(void)
{
	return (read_msg + 4095) / 4096;
}

/* A batch of READs: A reads B's @src into its @dst. */
static int
read_batch(struct rc_env *e, struct rc_buf *src, struct rc_buf *dst, bool counted)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	unsigned int i, want = READ_BATCH * read_frames();
	int rc;

	step_begin(OP_READ, REQ, counted);
	for (i = 0; i < READ_BATCH; i++) {
		struct dr_sge ls = { (uint64_t)(uintptr_t)(dst->p + (size_t)i * read_msg), read_msg, dst->mr->lkey };
		unsigned int flags = i + 1 == READ_BATCH ? DR_SEND_SIGNALED : 0;

		if (rc_post_send(a, i, DR_WR_RDMA_READ, &ls, 1, flags, (uint64_t)(uintptr_t)(src->p + (size_t)i * read_msg),
				 src->mr->rkey, 0) != 0)
			return -1;
	}
	rc = drive_until_tx(a, READ_BATCH);
	step_end(OP_READ, REQ, counted, READ_BATCH, READ_BATCH);
	if (rc != 0)
		return -1;
	rc_carry(e, RC_A2B);

	/* responder: until every response is on B's tx ring (a few rounds: its budget per QP round) */
	step_begin(OP_READ, RESP, counted);
	rc = drive_until_tx(b, want);
	step_end(OP_READ, RESP, counted, READ_BATCH, want);
	if (rc != 0)
		return -1;
	rc_carry(e, RC_B2A);

	/* requester's completer: places the responses, completes the batch's one signaled READ */
	step_begin(OP_READ, ACK, counted);
	rc = drive_until_cqes(a, 1);
	step_end(OP_READ, ACK, counted, READ_BATCH, want);
	return rc;
}

static int
one_batch(struct rc_env *e, enum op op, struct rc_buf *src, struct rc_buf *dst, bool counted)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	unsigned int i, spins, acks;
	struct dr_wc wc[32];
	int rc;

	if (op == OP_READ)
		return read_batch(e, src, dst, counted);
	if (op == OP_SEND) {
		for (i = 0; i < batch; i++) {
			struct dr_sge rs = { (uint64_t)(uintptr_t)(dst->p + (size_t)i * msg), msg, dst->mr->lkey };

			if (rc_post_recv(b, i, &rs, 1) != 0)
				return -1;
		}
	}
	/* requester */
	step_begin(op, REQ, counted);
	for (i = 0; i < batch; i++) {
		struct dr_sge ls = { (uint64_t)(uintptr_t)(src->p + (size_t)i * msg), msg, src->mr->lkey };
		unsigned int flags = (i + 1) % SIGNAL_EVERY == 0 ? DR_SEND_SIGNALED : 0;

		if (rc_post_send(a, i, op == OP_WRITE ? DR_WR_RDMA_WRITE : DR_WR_SEND, &ls, 1, flags,
				 (uint64_t)(uintptr_t)(dst->p + (size_t)i * msg), dst->mr->rkey, 0) != 0)
			return -1;
	}
	rc = drive_until_tx(a, batch);
	step_end(op, REQ, counted, batch, batch);
	if (rc != 0)
		return -1;
	rc_carry(e, RC_A2B);

	/* responder */
	step_begin(op, RESP, counted);
	for (spins = 0; rte_ring_count(b->rx[0]) != 0 && spins < SPIN_MAX; spins++)
		dr_progress(b->ctx);
	dr_progress(b->ctx);
	if (op == OP_SEND) {
		unsigned int recvd = 0;

		for (spins = 0; recvd < batch && spins < SPIN_MAX; spins++) {
			int n = dr_poll_cq(b->rcq, 32, wc);

			if (n < 0)
				return -1;
			recvd += (unsigned int)n;
		}
		if (recvd != batch)
			return -1;
	}
	step_end(op, RESP, counted, batch, batch);
	acks = tx_waiting(b);
	if (acks == 0)
		return -1;
	rc_carry(e, RC_B2A);

	/* completer */
	step_begin(op, ACK, counted);
	rc = drive_until_cqes(a, batch / SIGNAL_EVERY);   /* every SIGNAL_EVERY-th WR signaled */
	step_end(op, ACK, counted, batch, acks);
	return rc;
}

static void
body(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf src, dst, rsrc, rdst;

	rc_params_default(&p);
	p.max_wr = 2 * batch;
	/* one frame a message; READs of more than 1 KiB go in frames of 4 KiB */
	p.mtu = msg > 1024 || read_msg > 1024 ? DR_MTU_4096 : DR_MTU_1024;
	p.max_rd_atomic = p.max_dest_rd_atomic = READ_BATCH;
	p.sq_sig_all = 0;               /* every SIGNAL_EVERY-th WR is signaled, as perftest's bw tests */
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, batch * msg, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &dst, batch * msg, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0 ||
	    rc_buf_alloc(b, &rsrc, READ_BATCH * read_msg, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ) != 0 ||
	    rc_buf_alloc(a, &rdst, READ_BATCH * read_msg, DR_ACCESS_LOCAL_WRITE) != 0) {
		RC_CHECK_MSG(0, "bench_instr: set-up");
		return;
	}
	rc_fill(src.p, src.len, 1);
	rc_fill(rsrc.p, rsrc.len, 2);
	for (int op = 0; op < NB_OPS; op++) {
		for (unsigned int k = 0; k < WARMUP + BATCHES; k++) {
			bool rd = op == OP_READ;

			if (one_batch(e, (enum op)op, rd ? &rsrc : &src, rd ? &rdst : &dst, k >= WARMUP) != 0) {
				RC_CHECK_MSG(0, "bench_instr: %s batch %u did not complete", op_names[op], k);
				goto out;
			}
		}
	}
	if (memcmp(rsrc.p, rdst.p, rsrc.len) != 0)
		RC_CHECK_MSG(0, "bench_instr: the READs brought other bytes");
	/* idle rounds: every batch completed and acknowledged, the wire empty */
	for (unsigned int k = 0; k < 2 * IDLE_ROUNDS; k++) {
		bool counted = k >= IDLE_ROUNDS;
		uint64_t t0;

		if (counted && collect_idle && k == IDLE_ROUNDS)
			CALLGRIND_TOGGLE_COLLECT;
		t0 = rte_rdtsc();
		if (dr_progress(a->ctx) != 0) {
			RC_CHECK_MSG(0, "bench_instr: an idle round found work");
			goto out;
		}
		if (counted)
			idle_tally.cycles += rte_rdtsc() - t0;
	}
	if (collect_idle)
		CALLGRIND_TOGGLE_COLLECT;
	idle_tally.ops = idle_tally.frames = IDLE_ROUNDS;
	if (tx_waiting(a) != 0 || tx_waiting(b) != 0)
		RC_CHECK_MSG(0, "bench_instr: an idle round sent a frame");
	printf("bench_instr: %u-byte messages, batches of %u, %u measured, every %uth WR signaled, "
	       "inline, ring ports, zero-copy from %u bytes; %u-byte READs, batches of %u\n", msg, batch, BATCHES,
	       SIGNAL_EVERY, a->ctx->tx_zcopy_min, read_msg, READ_BATCH);
	printf("%-12s %10s %10s %14s %14s\n", "step", "ops", "frames", "cycles/op", "cycles/frame");
	for (int op = 0; op < NB_OPS; op++) {
		for (int st = 0; st < NB_STEPS; st++) {
			const struct tally *t = &tallies[op][st];

			printf("%s_%-8s %10" PRIu64 " %10" PRIu64 " %14.1f %14.1f\n", step_names[st], op_names[op],
			       t->ops, t->frames, (double)t->cycles / (double)t->ops,
			       (double)t->cycles / (double)t->frames);
		}
	}
	printf("%-12s %10" PRIu64 " %10" PRIu64 " %14.1f %14.1f\n", "round_idle", idle_tally.ops, idle_tally.frames,
	       (double)idle_tally.cycles / (double)idle_tally.ops, (double)idle_tally.cycles / (double)idle_tally.frames);
out:
	rc_disconnect(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_buf_free(&rsrc);
	rc_buf_free(&rdst);
}

int
main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--size") == 0) {
			msg = (uint32_t)strtoul(argv[i + 1], NULL, 10);
			if (msg < 1 || msg > 4096) {
				fprintf(stderr, "bench_instr: --size: 1 to 4096 bytes\n");
				return 2;
			}
			/* one packet each (MTU 4096): half the send window, whole multiples of SIGNAL_EVERY */
			batch = RTE_MIN(BATCH, DR_INFLIGHT_PKTS_DEFAULT / 2 / SIGNAL_EVERY * SIGNAL_EVERY);
			continue;
		}
		if (strcmp(argv[i], "--read-size") == 0) {
			read_msg = (uint32_t)strtoul(argv[i + 1], NULL, 10);
			if (read_msg < 1 || read_msg > READ_MAX) {
				fprintf(stderr, "bench_instr: --read-size: 1 to %u bytes\n", READ_MAX);
				return 2;
			}
			continue;
		}
		if (strcmp(argv[i], "--collect") != 0)
			continue;
		if (strcmp(argv[i + 1], "round_idle") == 0) {
			collect_idle = true;
			continue;
		}
		for (int op = 0; op < NB_OPS; op++) {
			for (int st = 0; st < NB_STEPS; st++) {
				char name[32];

				snprintf(name, sizeof(name), "%s_%s", step_names[st], op_names[op]);
				if (strcmp(argv[i + 1], name) == 0) {
					collect_op = op;
					collect_step = st;
				}
			}
		}
		if (collect_op < 0) {
			fprintf(stderr, "bench_instr: --collect: one of req_write, resp_write, ack_write, "
				"req_send, resp_send, ack_send, req_read, resp_read, ack_read, round_idle\n");
			return 2;
		}
	}
	return rc_main("bench_instr", argv[0], 4200, body);
}
