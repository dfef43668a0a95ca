/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The requester's express build (dr_qp_pkt_only(): a one-packet SEND or
 * WRITE with one flat payload, written in one pass) against the general
 * builder (dr_qp_pkt_start(), the header setters, dr_qp_pkt_add_payload(),
 * dr_pkt_finalize()), on the same WRs: A posts a seeded sequence of WRs
 * twice on one connection, first with A's context taking the general
 * builder only, then with the express build on; every frame A sends is kept
 * from the wire and the two sequences must be the same, byte for byte, but
 * for the PSNs (the second run's start where the first ended) and the IPv4
 * identification (a counter of the thread). The WRs: WRITE, WRITE with immediate,
 * SEND, SEND with immediate, solicited or not, READ, of 0 bytes to two
 * packets, inline, in one SGE, split over two SGEs, and above the zero-copy
 * threshold: each of the builders' choices, and frames of both builders in
 * one sequence.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dr_icrc.h"
#include "dr_pkt_express.h"
#include "test_rc.h"

#define WRS 600
#define BATCH 16
#define MAX_FRAMES 2048
#define FRAME_MAX 1200             /* MTU 1024 frames, copied whole */
#define MAX_INLINE 256

struct kept {
	uint32_t n;
	uint16_t len[MAX_FRAMES];
	uint8_t f[MAX_FRAMES][FRAME_MAX];
};

static struct kept phase[2];
static struct kept *keeping;

/* The wire's hook: every frame A sends, as carried. */
static bool
keep(struct rc_env *e, int dir, uint8_t *frame, const struct dr_pkt_info *pi)
{
	RTE_SET_USED(e);
	if (dir == RC_A2B && keeping != NULL && keeping->n < MAX_FRAMES && pi->frame_len <= FRAME_MAX) {
		memcpy(keeping->f[keeping->n], frame, pi->frame_len);
		keeping->len[keeping->n++] = (uint16_t)pi->frame_len;
	}
	return false;
}

static uint32_t
xr(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* A's frames built whole (dr_qp_pkt_only()), all its workers. */
static uint64_t
tx_express(const struct rc_env *e)
{
	return dr_ctx_stats_sum(e->s[0].ctx).tx_express;
}

struct bufs {
	struct rc_buf src, dst, rcv;
	struct rc_buf rd;             /* where A's READs land (src stays as it was) */
};

/* One phase: post the WRs of @seed on the connection, keep A's frames. */
static void
run_phase(struct rc_env *e, struct bufs *bf, bool express, uint32_t seed, struct kept *k)
{
	static const uint32_t sizes[] = { 0, 1, 3, 60, 64, 200, 256, 257, 1000, 1023, 1024, 1025, 2048 };
	struct rc_buf src = bf->src, dst = bf->dst, rcv = bf->rcv, rd = bf->rd;
	struct rc_wcs w;
	uint32_t posted = 0;

	/*
	 * Time stands still (rc_clock_freeze()): the phases compare what the
	 * builders make of the same WRs, and a retransmission timer that a
	 * busy machine lets expire in one phase and not in the other would put
	 * a resent frame into one sequence only. Nothing is lost on this wire:
	 * no timer is needed.
	 */
	rc_clock_freeze(true);
	e->s[0].ctx->express = express;
	k->n = 0;
	keeping = k;
	e->tamper = keep;
	while (posted < WRS) {
		for (uint32_t i = 0; i < BATCH; i++) {
			static const enum dr_wr_opcode ops[] = { DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE_WITH_IMM, DR_WR_SEND,
								 DR_WR_SEND_WITH_IMM, DR_WR_RDMA_READ };
			enum dr_wr_opcode op = ops[xr(&seed) % RTE_DIM(ops)];
			uint32_t len = sizes[xr(&seed) % RTE_DIM(sizes)], how = xr(&seed) % 4;
			bool to_rq = op == DR_WR_SEND || op == DR_WR_SEND_WITH_IMM || op == DR_WR_RDMA_WRITE_WITH_IMM;
			unsigned int flags = xr(&seed) % 3 == 0 ? DR_SEND_SOLICITED : 0;
			struct dr_sge sge[2];
			int nsge = len == 0 ? 0 : how == 2 && len > 1 ? 2 : 1;

			if (to_rq) {
				struct dr_sge r = { .addr = (uint64_t)(uintptr_t)(rcv.p + i * 4096), .length = 4096,
						    .lkey = rcv.mr->lkey };

				RC_CHECK_EQ(rc_post_recv(&e->s[1], posted, &r, 1), 0);
			}
			/* how: 0 inline (where it fits), 1 one SGE, 2 two SGEs, 3 one SGE (another offset) */
			if (how == 0 && len <= MAX_INLINE && op != DR_WR_RDMA_READ)
				flags |= DR_SEND_INLINE;
			if (nsge != 0)
				rc_sges(op == DR_WR_RDMA_READ ? &rd : &src, how == 3 ? 4096 + 8 : 16, len, nsge, sge);
			RC_CHECK_EQ(rc_post_send(&e->s[0], posted, op, sge, nsge, flags,
						 (uint64_t)(uintptr_t)(dst.p + 64), dst.mr->rkey,
						 rte_cpu_to_be_32(posted * 7)), 0);
			posted++;
		}
		w.n = 0;
		RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &w, BATCH, 5000000));
		for (unsigned int i = 0; i < w.n; i++)
			RC_CHECK_EQ(w.wc[i].status, DR_WC_SUCCESS);
		w.n = 0;
		while (rc_poll(e->s[1].rcq, &w) > 0 && w.n < 256)
			;
	}
	e->tamper = NULL;
	keeping = NULL;
	e->s[0].ctx->express = true;
	rc_clock_freeze(false);
}

/*
 * @t (a frame of the express phase) with @ref's IPv4 identification and its
 * PSN @delta back, its checksum and ICRC to match.
 */
static void
same_ip_id(uint8_t *t, uint32_t len, const uint8_t *ref, uint32_t delta)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(t + RTE_ETHER_HDR_LEN);
	struct dr_pkt_info pi;
	rte_le32_t icrc;

	memcpy(&ip->packet_id, ref + RTE_ETHER_HDR_LEN + 4, 2);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (dr_pkt_parse_buf(t, len, &pi) != DR_PKT_OK)
		return;
	dr_bth_set_psn(dr_pkt_bth(&pi), (dr_bth_psn(dr_pkt_bth(&pi)) - delta) & DR_24BIT_MASK);
	icrc = rte_cpu_to_le_32(dr_icrc_compute_buf(t, &pi));
	memcpy(t + pi.frame_len - DR_ICRC_BYTES, &icrc, DR_ICRC_BYTES);
}

/*
 * A run of express WRITEs when A's pool has fewer mbufs than the run
 * (dr_qp_pkt_only_burst() gets them in one bulk, else one at a time), and
 * then none at all: nothing is lost or sent twice, every WRITE completes
 * in order with success and its bytes arrive, once mbufs are back.
 * Inline mode: the pool's lcore cache is the calling thread's.
 */
static void
scarce_mbufs(struct rc_env *e, struct bufs *bf)
{
	struct rte_mempool *pool = e->s[0].ctx->pool;
	struct rte_mbuf **held;
	unsigned int nheld = 0, spare;
	uint64_t x0 = tx_express(e);

	if (!rc_inline_only("scarce_mbufs", "mbuf exhaustion is per lcore cache"))
		return;
	held = calloc(pool->size, sizeof(*held));
	RC_CHECK(held != NULL);
	if (held == NULL)
		return;
	rc_fill(bf->dst.p, 8192, 6);
	for (spare = 0; spare <= 3; spare += 3) {
		uint32_t first = spare == 0 ? 0 : BATCH;
		struct rc_wcs w = { .n = 0 };

		/* every mbuf of A's pool taken, but @spare (fewer than a run needs) */
		while (nheld < pool->size && (held[nheld] = rte_pktmbuf_alloc(pool)) != NULL)
			nheld++;
		for (; spare != 0 && nheld != 0 && rte_mempool_avail_count(pool) < spare; nheld--)
			rte_pktmbuf_free(held[nheld - 1]);
		for (uint32_t i = 0; i < BATCH; i++) {
			struct dr_sge sge = { (uint64_t)(uintptr_t)(bf->src.p + (first + i) * 64), 64, bf->src.mr->lkey };

			RC_CHECK_EQ(rc_post_send(&e->s[0], first + i, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED,
						 (uint64_t)(uintptr_t)(bf->dst.p + (first + i) * 64), bf->dst.mr->rkey,
						 0), 0);
		}
		if (spare == 0) {
			/* none: no frame, no error; then the mbufs come back */
			rc_run(e, 20000, NULL, NULL);
			RC_CHECK_EQ(rc_poll(e->s[0].scq, &w), 0);
			while (nheld != 0)
				rte_pktmbuf_free(held[--nheld]);
		}
		RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &w, BATCH, 5000000));
		RC_CHECK_EQ(w.n, BATCH);
		for (unsigned int i = 0; i < w.n; i++) {
			RC_CHECK_EQ(w.wc[i].status, DR_WC_SUCCESS);
			RC_CHECK_EQ(w.wc[i].wr_id, first + i);
		}
		while (nheld != 0)
			rte_pktmbuf_free(held[--nheld]);
	}
	free(held);
	RC_CHECK(memcmp(bf->dst.p, bf->src.p, 2 * BATCH * 64) == 0);
	RC_CHECK(tx_express(e) - x0 >= 2 * BATCH);
	printf("req_express: %u WRITEs with no mbuf, then with 3 for a run of %u: all completed, in order\n",
	       BATCH, BATCH);
}

static void
body(struct rc_env *e)
{
	uint32_t differ = 0, delta = 0;
	struct rc_qp_params p;
	uint64_t x0, x1, x2;
	struct bufs bf;

	rc_params_default(&p);
	p.max_inline = MAX_INLINE;
	p.max_sge = 2;
	RC_CHECK_EQ(rc_connect(e, &p), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &bf.src, 8192, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &bf.rd, 8192, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[1], &bf.dst, 8192, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE |
							    DR_ACCESS_REMOTE_READ), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[1], &bf.rcv, (size_t)BATCH * 4096, DR_ACCESS_LOCAL_WRITE), 0);
	rc_fill(bf.src.p, 8192, 5);
	rc_fill(bf.dst.p, 8192, 6);
	x0 = tx_express(e);
	run_phase(e, &bf, false, 77, &phase[0]);
	x1 = tx_express(e);
	run_phase(e, &bf, true, 77, &phase[1]);
	x2 = tx_express(e);
	scarce_mbufs(e, &bf);
	rc_buf_free(&bf.src);
	rc_buf_free(&bf.rd);
	rc_buf_free(&bf.dst);
	rc_buf_free(&bf.rcv);
	rc_disconnect(e);
	/* the general builder alone, then both: else this compared nothing */
	RC_CHECK_EQ(x1 - x0, 0);
	RC_CHECK_MSG(x2 - x1 >= WRS / 4 && x2 - x1 < phase[1].n, "%" PRIu64 " of %u frames built whole",
		     x2 - x1, phase[1].n);
	if (phase[0].n != 0 && phase[1].n != 0)
		delta = dr_xp_rd32(phase[1].f[0] + DR_XP_BTH_OFF + 8) - dr_xp_rd32(phase[0].f[0] + DR_XP_BTH_OFF + 8);
	RC_CHECK_MSG(phase[0].n == phase[1].n, "%u frames on the general builder, %u with the express build",
		     phase[0].n, phase[1].n);
	RC_CHECK(phase[0].n >= WRS && phase[0].n < MAX_FRAMES);
	for (uint32_t i = 0; i < RTE_MIN(phase[0].n, phase[1].n); i++) {
		struct dr_pkt_info pi;

		if (phase[0].len[i] != phase[1].len[i]) {
			differ++;
			continue;
		}
		same_ip_id(phase[1].f[i], phase[1].len[i], phase[0].f[i], delta);
		if (memcmp(phase[0].f[i], phase[1].f[i], phase[0].len[i]) != 0 && differ++ < 10 &&
		    dr_pkt_parse_buf(phase[0].f[i], phase[0].len[i], &pi) == DR_PKT_OK)
		{
			uint32_t at = 0;

			while (at < phase[0].len[i] && phase[0].f[i][at] == phase[1].f[i][at])
				at++;
			fprintf(stderr, "frame %u (%s psn %#x, %u bytes of payload) differs from byte %u on\n", i,
				dr_opcode_name(pi.opcode), dr_bth_psn(dr_pkt_bth(&pi)), pi.paylen, at);
		}
	}
	RC_CHECK_MSG(differ == 0, "%u frames differ", differ);
	printf("req_express: %u frames of A compared, the same from both builders (%" PRIu64 " of them built "
	       "whole)\n", phase[0].n, x2 - x1);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_req_express", argv[0], 1500, body);
}
