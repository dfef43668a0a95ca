/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The express path against the general path, on the same frames
 * (doc/guides/speed.rst, "The express path"). A sends a seeded mix of
 * requests to B, whose context takes the common ones on the express path
 * (lib/transport/dr_resp_express.c); the wire also hands every frame it
 * delivers to B to B's twin, a context that takes everything on the general
 * path (test_rc_twin.c). The two must answer with the same frames, byte for
 * byte, and end with the same receive completions, memory, counters (all
 * but rx_express and tx_express) and responder state.
 *
 * Cases:
 *  - a clean mix of WRITE, WRITE with immediate, SEND, SEND with immediate,
 *    READ, FetchAdd and CmpSwap of sizes around the path MTU, inline or not,
 *    solicited or not;
 *  - the same over a faulty wire: frames dropped, duplicated (at once and a
 *    round later), swapped, corrupted (bad ICRC) and marked CE towards B,
 *    ACKs lost towards A;
 *  - mutated frames: random bytes of random frames changed, and for half of
 *    them the ICRC made right again (for a third the IPv4 checksum too), so
 *    that every check after them (length, opcode, PSN, R_Key, address,
 *    partition) meets them; each connection
 *    runs until done or until a mutation moves the QPs to ERR;
 *  - receive WQEs posted late, so that SENDs meet an empty receive queue
 *    (RNR NAKs) and the express path's fall-back to the general one;
 *  - UC over the faulty wire (a loss drops the rest of a message, IBA 9.8);
 *  - frames given another source or destination address, whole (checksum
 *    and ICRC right): not from the connection's peer (rxe check_addr()).
 * Besides the frames, the responder's state of both is compared after
 * every round (test_rc_twin.c).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>

#include "dr_icrc.h"
#include "test_rc.h"

#define MTU_BYTES 1024
#define SRC_BYTES (64u * 1024u)
#define TGT_BYTES (64u * 1024u)
#define RECV_SLOT 4096u
#define RECV_SLOTS 32u
#define OUTSTANDING 32u
#define CASE_USEC (60u * 1000000u)   /* a bound, not a speed: a case needs a fraction of it */

/*
 * B's memory is the twin's too, at the same addresses (a RETH names an
 * address): the twin registers it in its own context and sees its own
 * contents, a shadow swapped in around its rounds (rc_twin_shadow()).
 */
struct xp_bufs {
	struct rc_buf src;            /* A: what it sends, where READs land */
	struct rc_buf tgt;            /* B: the target of WRITE, READ, atomics */
	struct rc_buf rcv;            /* B: receive slots */
	struct dr_mr *twin_tgt, *twin_rcv;   /* the twin's registrations of them */
	uint8_t *shadow_tgt, *shadow_rcv;    /* the twin's contents */
};

struct xp_case {
	const char *name;
	uint32_t wrs;                 /* WRs A posts */
	uint32_t seed;
	bool faults;                  /* wire rules */
	uint32_t mutate_every;        /* mutate about one A-to-B frame in this many (0: none) */
	uint32_t recv_late;           /* receive WQEs posted this many rounds after their SEND (0: before) */
	bool uc;                      /* UC QPs (no READ, no atomics; a loss drops the rest of a message) */
	uint32_t spoof_every;         /* give about one A-to-B frame in this many another IPv4 address */
};

static uint32_t
xp_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static uint32_t mutate_seed, mutate_every, mutations, spoof_every;

/* The wire's tamper hook: change a few bytes of one A-to-B frame in mutate_every; half get a right ICRC. */
static bool
mutate(struct rc_env *e, int dir, uint8_t *frame, const struct dr_pkt_info *pi)
{
	uint32_t len = pi->frame_len, n, i;
	struct dr_pkt_info mpi;

	RTE_SET_USED(e);
	if (dir == RC_A2B && spoof_every != 0 && xp_rand(&mutate_seed) % spoof_every == 0 && frame[12] == 0x08 &&
	    frame[13] == 0x00 && dr_pkt_parse_buf(frame, len, &mpi) == DR_PKT_OK && mpi.frame_len <= len) {
		/* a peer's frame from another address (or to one), whole: checksum and ICRC right (rx_check_addr()) */
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + RTE_ETHER_HDR_LEN);
		rte_le32_t icrc;

		if (xp_rand(&mutate_seed) % 2 == 0)
			ip->src_addr ^= rte_cpu_to_be_32(0x40);
		else
			ip->dst_addr ^= rte_cpu_to_be_32(0x40);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		icrc = rte_cpu_to_le_32(dr_icrc_compute_buf(frame, &mpi));
		memcpy(frame + mpi.frame_len - DR_ICRC_BYTES, &icrc, DR_ICRC_BYTES);
		mutations++;
		return false;
	}
	if (dir != RC_A2B || mutate_every == 0 || xp_rand(&mutate_seed) % mutate_every != 0)
		return false;
	n = 1 + xp_rand(&mutate_seed) % 3;
	for (i = 0; i < n; i++) {
		/* mostly the headers (Ethernet to RETH: 70 bytes), sometimes anywhere */
		uint32_t pos = xp_rand(&mutate_seed) % (xp_rand(&mutate_seed) % 4 != 0 ? RTE_MIN(len, 70u) : len);

		frame[pos] ^= (uint8_t)(1u << (xp_rand(&mutate_seed) % 8));
	}
	mutations++;
	/* a third of them with the IPv4 checksum made right too: an address, a length, a protocol changed */
	if (xp_rand(&mutate_seed) % 3 == 0 && frame[12] == 0x08 && frame[13] == 0x00) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + RTE_ETHER_HDR_LEN);

		if ((ip->version_ihl & 0x0F) == 5) {
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
	}
	if (xp_rand(&mutate_seed) % 2 == 0 && dr_pkt_parse_buf(frame, len, &mpi) == DR_PKT_OK &&
	    mpi.frame_len <= len) {
		rte_le32_t icrc = rte_cpu_to_le_32(dr_icrc_compute_buf(frame, &mpi));

		memcpy(frame + mpi.frame_len - DR_ICRC_BYTES, &icrc, DR_ICRC_BYTES);
	}
	return false;       /* the ICRC is ours to set (or to leave wrong) */
}

static int
bufs_alloc(struct rc_env *e, struct xp_bufs *b)
{
	int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_ATOMIC;

	memset(b, 0, sizeof(*b));
	if (rc_buf_alloc(&e->s[0], &b->src, SRC_BYTES, acc) != 0)
		return -1;
	rc_fill(b->src.p, SRC_BYTES, 7);
	/* in the same order on both: the same keys */
	if (rc_buf_alloc(&e->s[1], &b->tgt, TGT_BYTES, acc) != 0 ||
	    rc_buf_alloc(&e->s[1], &b->rcv, (size_t)RECV_SLOT * RECV_SLOTS, acc) != 0)
		return -1;
	rc_fill(b->tgt.p, TGT_BYTES, 9);
	b->twin_tgt = dr_reg_mr(e->twin.pd, b->tgt.p, TGT_BYTES, acc);
	b->twin_rcv = dr_reg_mr(e->twin.pd, b->rcv.p, (size_t)RECV_SLOT * RECV_SLOTS, acc);
	b->shadow_tgt = rc_twin_shadow(e, b->tgt.p, TGT_BYTES);
	b->shadow_rcv = rc_twin_shadow(e, b->rcv.p, (size_t)RECV_SLOT * RECV_SLOTS);
	if (b->twin_tgt == NULL || b->twin_rcv == NULL || b->shadow_tgt == NULL || b->shadow_rcv == NULL)
		return -1;
	if (b->tgt.mr->rkey != b->twin_tgt->rkey || b->rcv.mr->lkey != b->twin_rcv->lkey) {
		fprintf(stderr, "twin: its keys are not B's\n");
		return -1;
	}
	return 0;
}

static void
bufs_free(struct rc_env *e, struct xp_bufs *b)
{
	if (b->twin_tgt != NULL)
		RC_CHECK_EQ(dr_dereg_mr(b->twin_tgt), 0);
	if (b->twin_rcv != NULL)
		RC_CHECK_EQ(dr_dereg_mr(b->twin_rcv), 0);
	rc_twin_shadow_free(e);
	rc_buf_free(&b->src);
	rc_buf_free(&b->tgt);
	rc_buf_free(&b->rcv);
}

/* One receive WQE on B and the same on the twin. */
static int
post_recv_both(struct rc_env *e, struct xp_bufs *b, uint64_t id)
{
	struct dr_sge sge = {
		.addr = (uint64_t)(uintptr_t)(b->rcv.p + (id % RECV_SLOTS) * RECV_SLOT),
		.length = RECV_SLOT, .lkey = b->rcv.mr->lkey,
	};

	return rc_post_recv(&e->s[1], id, &sge, 1) != 0 || rc_post_recv(&e->twin, id, &sge, 1) != 0 ? -1 : 0;
}

/* One WR of the mix from A; a SEND-type one needs a receive WQE (*needs_recv). */
static int
post_one(struct rc_env *e, struct xp_bufs *b, uint32_t *seed, uint64_t id, bool uc, bool *needs_recv)
{
	static const uint32_t sizes[] = { 0, 1, 60, 64, 100, 1000, MTU_BYTES, MTU_BYTES + 1, 2500 };
	static const enum dr_wr_opcode ops[] = {
		DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE_WITH_IMM,
		DR_WR_SEND, DR_WR_SEND, DR_WR_SEND, DR_WR_SEND_WITH_IMM, DR_WR_RDMA_READ, DR_WR_RDMA_READ,
		DR_WR_ATOMIC_FETCH_AND_ADD, DR_WR_ATOMIC_CMP_AND_SWP,
	};
	enum dr_wr_opcode op = ops[xp_rand(seed) % (uc ? 8 : RTE_DIM(ops))];     /* UC: the first 8 */
	bool atomic = op == DR_WR_ATOMIC_FETCH_AND_ADD || op == DR_WR_ATOMIC_CMP_AND_SWP;
	uint32_t len = atomic ? 8 : sizes[xp_rand(seed) % RTE_DIM(sizes)];
	uint32_t loff = (xp_rand(seed) % (SRC_BYTES - 4096)) & ~7u;
	uint32_t roff = (xp_rand(seed) % (TGT_BYTES - 4096)) & ~7u;
	unsigned int flags = 0;
	struct dr_sge sge = { .addr = (uint64_t)(uintptr_t)(b->src.p + loff), .length = len,
			      .lkey = b->src.mr->lkey };

	if ((op == DR_WR_SEND || op == DR_WR_RDMA_WRITE) && len <= 256 && xp_rand(seed) % 2 == 0)
		flags |= DR_SEND_INLINE;
	if ((op == DR_WR_SEND || op == DR_WR_SEND_WITH_IMM) && xp_rand(seed) % 4 == 0)
		flags |= DR_SEND_SOLICITED;
	*needs_recv = op == DR_WR_SEND || op == DR_WR_SEND_WITH_IMM || op == DR_WR_RDMA_WRITE_WITH_IMM;
	return rc_post_send(&e->s[0], id, op, &sge, len != 0 ? 1 : 0, flags,
			    (uint64_t)(uintptr_t)(b->tgt.p + roff), b->tgt.mr->rkey,
			    rte_cpu_to_be_32((uint32_t)id));
}

static bool
same_wc(const struct dr_wc *a, const struct dr_wc *b)
{
	return a->wr_id == b->wr_id && a->status == b->status && a->opcode == b->opcode &&
	       a->byte_len == b->byte_len && a->imm_data == b->imm_data && a->wc_flags == b->wc_flags &&
	       a->qp_num == b->qp_num && a->src_qp == b->src_qp && a->invalidated_rkey == b->invalidated_rkey;
}

/* B and its twin agree: receive completions, memory, counters, responder state. */
static void
compare_sides(struct rc_env *e, struct xp_bufs *b, const char *tag)
{
	struct dr_ctx_stats sb = e->s[1].ctx->wk[0].stats, st = e->twin.ctx->wk[0].stats;
	const struct dr_qp_impl *qb = dr_qp_impl(e->s[1].qp), *qt = dr_qp_impl(e->twin.qp);
	struct rc_wcs wb, wt;
	unsigned int i;

	wb.n = wt.n = 0;
	while (rc_poll(e->s[1].rcq, &wb) > 0 && wb.n < RTE_DIM(wb.wc) - 16)
		;
	while (rc_poll(e->twin.rcq, &wt) > 0 && wt.n < RTE_DIM(wt.wc) - 16)
		;
	RC_CHECK_MSG(wb.n == wt.n, "%s: %u receive completions on B, %u on its twin", tag, wb.n, wt.n);
	for (i = 0; i < RTE_MIN(wb.n, wt.n); i++)
		RC_CHECK_MSG(same_wc(&wb.wc[i], &wt.wc[i]), "%s: receive completion %u: wr_id %#" PRIx64
			     " status %d len %u on B, wr_id %#" PRIx64 " status %d len %u on its twin", tag, i,
			     wb.wc[i].wr_id, wb.wc[i].status, wb.wc[i].byte_len, wt.wc[i].wr_id, wt.wc[i].status,
			     wt.wc[i].byte_len);
	RC_CHECK_MSG(memcmp(b->tgt.p, b->shadow_tgt, TGT_BYTES) == 0, "%s: target memory differs", tag);
	RC_CHECK_MSG(memcmp(b->rcv.p, b->shadow_rcv, (size_t)RECV_SLOT * RECV_SLOTS) == 0,
		     "%s: receive memory differs", tag);
	/* which path took a frame, counted by the path: the only counters that differ */
	sb.rx_express = st.rx_express = 0;
	sb.tx_express = st.tx_express = 0;
	if (memcmp(&sb, &st, sizeof(sb)) != 0) {
		const uint64_t *x = (const uint64_t *)&sb, *y = (const uint64_t *)&st;

		for (i = 0; i < sizeof(sb) / sizeof(uint64_t); i++)
			if (x[i] != y[i])
				fprintf(stderr, "%s: counter %u of struct dr_ctx_stats: %" PRIu64 " on B, %" PRIu64
					" on its twin\n", tag, i, x[i], y[i]);
		RC_CHECK_MSG(false, "%s: the contexts' counters differ", tag);
	}
	RC_CHECK_MSG(memcmp(&qb->cnt, &qt->cnt, sizeof(qb->cnt)) == 0, "%s: the QPs' counters differ", tag);
	RC_CHECK_MSG(qb->resp.epsn == qt->resp.epsn && qb->resp.msn == qt->resp.msn &&
		     qb->pub.state == qt->pub.state, "%s: ePSN %#x / %#x, MSN %#x / %#x, state %d / %d", tag,
		     qb->resp.epsn, qt->resp.epsn, qb->resp.msn, qt->resp.msn, qb->pub.state, qt->pub.state);
	RC_CHECK_MSG(e->twin_mismatches == 0, "%s: %" PRIu64 " of %" PRIu64 " frames B sent differ from its "
		     "twin's", tag, e->twin_mismatches, e->twin_frames);
}

/* One connection: A posts c->wrs WRs (or until its QP fails); then B and the twin are compared. */
static uint32_t
run_connection(struct rc_env *e, struct xp_bufs *b, const struct xp_case *c, uint32_t *seed, uint32_t wrs,
	       uint64_t *id, const char *tag)
{
	uint64_t end = rte_get_timer_cycles() + (uint64_t)CASE_USEC * rte_get_timer_hz() / 1000000u;
	uint64_t late[OUTSTANDING * 2], round = 0;
	uint32_t posted = 0, done = 0, nlate = 0, failed = 0;
	struct rc_qp_params p;
	struct rc_wcs w;

	rc_params_default(&p);
	p.qp_type = c->uc ? DR_QPT_UC : DR_QPT_RC;
	p.mtu = DR_MTU_1024;
	p.max_wr = 256;
	p.max_sge = 1;
	p.timeout = 14;                /* 67 ms of the wire's clock: losses are found by NAK mostly */
	if (rc_connect(e, &p) != 0 || rc_twin_connect(e, &p) != 0) {
		RC_CHECK_MSG(false, "%s: connect failed", tag);
		return 0;
	}
	while (done < wrs && rte_get_timer_cycles() < end) {
		while (posted < wrs && posted - done < OUTSTANDING && failed == 0) {
			bool needs_recv;

			if (post_one(e, b, seed, *id, c->uc, &needs_recv) != 0) {
				failed++;      /* the QP went to ERR: what is posted is flushed */
				break;
			}
			if (needs_recv) {
				if (c->recv_late == 0 || xp_rand(seed) % 2 == 0)
					RC_CHECK_EQ(post_recv_both(e, b, *id), 0);
				else
					late[nlate++] = round + c->recv_late;
			}
			(*id)++;
			posted++;
		}
		rc_round(e);
		round++;
		/* receive WQEs posted late, oldest first (their ids: any, completions carry them) */
		while (nlate > 0 && late[0] <= round) {
			RC_CHECK_EQ(post_recv_both(e, b, (*id)++ | (1ull << 40)), 0);
			memmove(late, late + 1, --nlate * sizeof(late[0]));
		}
		w.n = 0;
		while (rc_poll(e->s[0].scq, &w) > 0 && w.n < RTE_DIM(w.wc) - 16)
			;
		for (unsigned int i = 0; i < w.n; i++)
			if (w.wc[i].status != DR_WC_SUCCESS && failed++ == 0 && c->mutate_every == 0)
				fprintf(stderr, "%s: WR %#" PRIx64 ": status %d\n", tag, w.wc[i].wr_id, w.wc[i].status);
		done += w.n;
		if (failed != 0 && posted == done)
			break;
	}
	RC_CHECK_MSG(done == posted, "%s: %u of %u WRs completed", tag, done, posted);
	if (c->mutate_every == 0)
		RC_CHECK_MSG(failed == 0, "%s: %u WRs failed", tag, failed);
	/* the last ACKs, duplicates and NAKs: both sides quiet */
	for (int i = 0; i < 200; i++)
		rc_round(e);
	compare_sides(e, b, tag);
	rc_disconnect(e);
	return posted;
}

static void
run_case(struct rc_env *e, const struct xp_case *c)
{
	uint64_t express0 = e->s[1].ctx->wk[0].stats.rx_express, id = 1;
	uint32_t seed = c->seed, posted = 0;
	struct xp_bufs b;
	char tag[96];

	if (bufs_alloc(e, &b) != 0) {
		RC_CHECK_MSG(false, "%s: buffers", c->name);
		bufs_free(e, &b);
		return;
	}
	e->twin_frames = e->twin_mismatches = 0;
	mutate_seed = c->seed ^ 0x5EED;
	mutate_every = c->mutate_every;
	spoof_every = c->spoof_every;
	mutations = 0;
	e->tamper = c->mutate_every != 0 || c->spoof_every != 0 ? mutate : NULL;
	for (int k = 0; posted < c->wrs && k < 64; k++) {
		if (c->faults) {
			rc_rule_add(e, RC_A2B, -1, 0, 40, 0, RC_DROP)->random = true;
			rc_rule_add(e, RC_A2B, -1, 0, 40, 0, RC_DUP)->random = true;
			rc_rule_add(e, RC_A2B, -1, 0, 20, 0, RC_DUP_LATE)->random = true;
			rc_rule_add(e, RC_A2B, -1, 0, 40, 0, RC_SWAP)->random = true;
			rc_rule_add(e, RC_A2B, -1, 0, 40, 0, RC_CORRUPT)->random = true;
			rc_rule_add(e, RC_A2B, -1, 0, 40, 0, RC_MARK_CE)->random = true;
			rc_rule_add(e, RC_B2A, -1, 0, 20, 0, RC_DROP)->random = true;
			for (unsigned int i = 0; i < e->nrules; i++)
				e->rules[i].seed = c->seed + i;
		}
		snprintf(tag, sizeof(tag), "%s, connection %d", c->name, k);
		posted += run_connection(e, &b, c, &seed, c->wrs - posted, &id, tag);
	}
	e->tamper = NULL;
	printf("%s: %u WRs, %" PRIu64 " frames of B compared with its twin's, %" PRIu64 " requests on the "
	       "express path, %u frames mutated\n", c->name, posted, e->twin_frames,
	       e->s[1].ctx->wk[0].stats.rx_express - express0, mutations);
	/* else this compared nothing */
	RC_CHECK_MSG(e->s[1].ctx->wk[0].stats.rx_express - express0 > 0, "%s: no request took the express path",
		     c->name);
	RC_CHECK_MSG(e->twin_frames > 0, "%s: nothing compared", c->name);
	bufs_free(e, &b);
}

static void
body(struct rc_env *e)
{
	static const struct xp_case cases[] = {
		{ .name = "clean mix", .wrs = 1500, .seed = 1 },
		{ .name = "faulty wire", .wrs = 1500, .seed = 2, .faults = true },
		{ .name = "mutated frames", .wrs = 3000, .seed = 3, .mutate_every = 24 },
		{ .name = "receive WQEs late", .wrs = 600, .seed = 4, .recv_late = 3 },
		{ .name = "UC over a faulty wire", .wrs = 1500, .seed = 5, .faults = true, .uc = true },
		{ .name = "frames from and to other addresses", .wrs = 1500, .seed = 6, .spoof_every = 10 },
	};

	if (rc_twin_open(e, 1500) != 0) {
		RC_CHECK_MSG(false, "the twin context did not open");
		return;
	}
	for (unsigned int i = 0; i < RTE_DIM(cases); i++)
		run_case(e, &cases[i]);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	/* a CNP for every CE mark: its pacing runs on real time, which passes between B and its twin */
	rc_cc_attr.cnp_interval_ns = 1;
	return rc_main("express", argv[0], 1500, body);
}
