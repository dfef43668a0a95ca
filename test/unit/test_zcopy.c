/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The payload paths that skip a pass over the data. Zero-copy transmit
 * (dr_context_attr.tx_zcopy_min): frames whose payload
 * is at least the threshold and lies in one registered SGE (SEND, WRITE) or
 * one region (READ responses) carry it attached from the memory. Checked
 * here: which frames attach (exactly the ones the rule names, counted by
 * tx_zcopy), the bytes on the other side, a corrupted frame retransmitted
 * intact (the sender's memory is never written), SGE lists that split a
 * packet, and dr_dereg_mr() refusing (-EBUSY) while the port holds frames
 * sent from the region, then succeeding once they are gone. Run with
 * DR_TEST_ZCOPY_MIN unset (the default threshold), 1 (every payload) and
 * 4294967295 (never), in every mode. One-pass receive (dr_resp_place.c):
 * WRITE and SEND MIDDLE and LAST packets placed as their ICRC is checked, counted by
 * rx_placed, and READ responses the same way at the requester
 * (dr_comp_place.c; not in pipeline mode, where the rx lcore hands responses
 * on); damaged ones dropped with nothing else changed, their bytes rewritten
 * by the retransmission.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "test_rc.h"

/* Frames of a @len-byte message at @mtu whose payload reaches @min (what attaches with one SGE). */
static uint64_t
attached_frames(uint32_t len, uint32_t mtu, uint32_t min)
{
	uint64_t n = 0;

	for (uint32_t off = 0; off < len; off += mtu)
		n += RTE_MIN(mtu, len - off) >= min;
	return n;
}

static uint64_t
zcopy_of(struct rc_side *s)
{
	return dr_ctx_stats_sum(s->ctx).tx_zcopy;
}

/*
 * Retransmissions of A's requester so far: a go-back-N, a probe (the
 * retransmission timer acts on a wire that stalled with the test's thread,
 * dr_comp_rto.c) sends data frames again, attached again.
 */
static uint64_t
resends_of(struct rc_env *e)
{
	struct dr_qp_counters qc;

	if (dr_query_qp_counters(e->s[0].qp, &qc) != 0)
		return 0;
	return qc.retries + qc.rereads + qc.rto_expiries + qc.tlp_probes + qc.ack_timeouts;
}

/* WRITE, SEND and READ across the threshold: the data, and exactly the frames that attach. */
static void
test_sizes(struct rc_env *e)
{
	static const enum dr_wr_opcode ops[] = { DR_WR_RDMA_WRITE, DR_WR_SEND, DR_WR_RDMA_READ };
	static const uint32_t lens[] = { 64, 2047, 2048, 4096, 9000, 65536 };
	struct rc_qp_params p;

	rc_params_default(&p);
	p.mtu = DR_MTU_4096;
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "connect");
		return;
	}
	for (unsigned int o = 0; o < RTE_DIM(ops); o++) {
		for (unsigned int l = 0; l < RTE_DIM(lens); l++) {
			bool read = ops[o] == DR_WR_RDMA_READ;
			struct rc_side *data_tx = read ? &e->s[1] : &e->s[0];
			struct rc_xfer x = { .op = ops[o], .len = lens[l], .nsge_l = 1, .nsge_r = 1,
					     .seed = 7 + o * 10 + l };
			uint64_t z0 = zcopy_of(data_tx), r0 = resends_of(e), want;
			char tag[64];

			snprintf(tag, sizeof(tag), "%s %u B", dr_wr_opcode_table[ops[o]].name, lens[l]);
			RC_CHECK_MSG(rc_xfer_run(e, &x, tag) == 0, "%s", tag);
			want = attached_frames(lens[l], 4096, data_tx->ctx->tx_zcopy_min);
			if (resends_of(e) == r0)
				RC_CHECK_EQ(zcopy_of(data_tx) - z0, want);
			else
				RC_CHECK_MSG(zcopy_of(data_tx) - z0 >= want, "%s: %" PRIu64 " attached, resent",
					     tag, zcopy_of(data_tx) - z0);
		}
	}
	rc_disconnect(e);
}

/* SGE lists: a packet inside one SGE attaches, one across SGEs is gathered by copy; the bytes are right. */
static void
test_sge_lists(struct rc_env *e)
{
	struct rc_qp_params p;

	rc_params_default(&p);
	p.mtu = DR_MTU_1024;
	p.max_sge = 4;
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "connect");
		return;
	}
	for (int nsge = 2; nsge <= 4; nsge++) {
		struct rc_xfer w = { .op = DR_WR_RDMA_WRITE, .len = 20000, .nsge_l = nsge, .nsge_r = 1,
				     .seed = 40 + nsge };
		struct rc_xfer s = { .op = DR_WR_SEND, .len = 12345, .nsge_l = nsge, .nsge_r = nsge,
				     .seed = 50 + nsge };

		RC_CHECK(rc_xfer_run(e, &w, "write, SGE list") == 0);
		RC_CHECK(rc_xfer_run(e, &s, "send, SGE list") == 0);
	}
	rc_disconnect(e);
}

/* A corrupted zero-copy frame: dropped by the ICRC check, resent from the memory, which stays intact. */
static void
test_corrupt(struct rc_env *e)
{
	struct rc_qp_params p;
	struct rc_xfer w = { .op = DR_WR_RDMA_WRITE, .len = 16384, .nsge_l = 1, .seed = 60 };
	struct rc_xfer r = { .op = DR_WR_RDMA_READ, .len = 16384, .nsge_l = 1, .seed = 61 };

	rc_params_default(&p);
	p.mtu = DR_MTU_4096;
	p.timeout = 8;
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "connect");
		return;
	}
	rc_rule_add(e, RC_A2B, -1, 1, 0, 1, RC_CORRUPT);      /* the second frame of the WRITE */
	RC_CHECK(rc_xfer_run(e, &w, "write, one frame corrupted") == 0);
	rc_rules_clear(e);
	rc_rule_add(e, RC_B2A, -1, 2, 0, 1, RC_CORRUPT);      /* a READ response */
	RC_CHECK(rc_xfer_run(e, &r, "read, one response corrupted") == 0);
	rc_rules_clear(e);
	rc_disconnect(e);
}

/* The frames of A's WRITE handed to its port (ring), not carried. */
static void
send_uncarried(struct rc_env *e)
{
	if (strcmp(rc_mode_name(), "inline") == 0) {
		for (int i = 0; i < 4; i++)
			dr_progress(e->s[0].ctx);
	} else {
		rc_sleep_us(20000);
	}
}

/* dr_dereg_mr() while the port holds frames sent zero-copy from the region: -EBUSY, the region stays. */
static void
test_dereg_waits(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 };
	struct rc_buf src, dst;
	struct rc_qp_params p;
	struct dr_sge ls;
	bool zcopy;
	int rc;

	rc_params_default(&p);
	p.mtu = DR_MTU_4096;
	p.timeout = 20;               /* 4.3 s: no retry while dereg_mr waits its second */
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 65536, acc) != 0 ||
	    rc_buf_alloc(b, &dst, 65536, acc) != 0) {
		RC_CHECK_MSG(0, "dereg setup");
		return;
	}
	zcopy = a->ctx->tx_zcopy_min <= 4096;
	rc_fill(src.p, src.len, 70);
	ls = (struct dr_sge){ (uint64_t)(uintptr_t)src.p, 65536, src.mr->lkey };
	RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_RDMA_WRITE, &ls, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0), 0);
	send_uncarried(e);
	rc = dr_dereg_mr(src.mr);
	if (zcopy) {
		/* the ring holds the frames until the wire carries them: the region must stay */
		RC_CHECK_EQ(rc, -EBUSY);
		RC_CHECK(dr_mr_lookup(a->ctx, src.mr->lkey) != NULL);
		RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
		RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
		RC_CHECK(memcmp(src.p, dst.p, 65536) == 0);
		rc_run(e, 2000, NULL, NULL);
		RC_CHECK_EQ(dr_dereg_mr(src.mr), 0);
	} else {
		/* copied frames hold nothing of it */
		RC_CHECK_EQ(rc, 0);
		RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
		RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	}
	src.mr = NULL;
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/*
 * One 20000-byte @op at MTU 4096 (FIRST, MIDDLE x 3, LAST) whose data arrive
 * at @rx over @dir: its MIDDLE / LAST packets (payload >= 512) are placed in
 * one pass (the FIRST is checked first: four placed); then, with the second
 * MIDDLE and the LAST damaged, both dropped and the bytes right in the end,
 * at least @placed_after placed in one pass.
 */
static void
one_pass_case(struct rc_env *e, struct rc_side *rx, enum rc_dir dir, enum dr_wr_opcode op, uint8_t middle,
	      uint8_t last, uint32_t seed, uint64_t placed_after, const char *name)
{
	struct rc_xfer x = { .op = op, .len = 20000, .nsge_l = 1, .nsge_r = 1, .seed = seed };
	uint64_t placed0 = dr_ctx_stats_sum(rx->ctx).rx_placed, bad0;
	char tag[64];

	snprintf(tag, sizeof(tag), "%s, one pass", name);
	RC_CHECK(rc_xfer_run(e, &x, tag) == 0);
	RC_CHECK_EQ(dr_ctx_stats_sum(rx->ctx).rx_placed - placed0, 4);
	placed0 = dr_ctx_stats_sum(rx->ctx).rx_placed;
	bad0 = dr_ctx_stats_sum(rx->ctx).rx_bad_icrc;
	rc_rule_add(e, dir, middle, 1, 0, 1, RC_CORRUPT);
	rc_rule_add(e, dir, last, 0, 0, 1, RC_CORRUPT);
	x.seed = seed + 1;
	snprintf(tag, sizeof(tag), "%s, one pass, two frames damaged", name);
	RC_CHECK(rc_xfer_run(e, &x, tag) == 0);
	rc_rules_clear(e);
	RC_CHECK_EQ(dr_ctx_stats_sum(rx->ctx).rx_bad_icrc - bad0, 2);
	RC_CHECK(dr_ctx_stats_sum(rx->ctx).rx_placed - placed0 >= placed_after);
}

/* WRITE and SEND MIDDLE / LAST, READ response MIDDLE / LAST (payload >= 512) placed in one pass; damaged ones. */
static void
test_one_pass_receive(struct rc_env *e)
{
	struct rc_qp_params p;

	rc_params_default(&p);
	p.mtu = DR_MTU_4096;
	p.timeout = 8;
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "connect");
		return;
	}
	/* go-back-N resends from the damaged MIDDLE: the first MIDDLE and three more placed */
	one_pass_case(e, &e->s[1], RC_A2B, DR_WR_RDMA_WRITE, DR_OPCODE(RC, WRITE_MIDDLE),
		      DR_OPCODE(RC, WRITE_LAST), 80, 4, "write");
	/* SEND MIDDLE / LAST into the receive WQE's SGE, the same way */
	one_pass_case(e, &e->s[1], RC_A2B, DR_WR_SEND, DR_OPCODE(RC, SEND_MIDDLE), DR_OPCODE(RC, SEND_LAST),
		      84, 4, "send");
	/*
	 * READ responses at the requester, where its completer runs on the receiving
	 * lcore: the first MIDDLE; the third, after the damaged one, is kept but
	 * not in one pass (it comes out of order: checked first, then placed,
	 * dr_comp_read_hold.c); the READ asked again from the damaged one (FIRST,
	 * the kept MIDDLE again, dropped, LAST): the LAST
	 */
	if (strcmp(rc_mode_name(), "pipeline") != 0)
		one_pass_case(e, &e->s[0], RC_B2A, DR_WR_RDMA_READ, DR_OPCODE(RC, READ_RESP_MIDDLE),
			      DR_OPCODE(RC, READ_RESP_LAST), 82, 2, "read");
	rc_disconnect(e);
}

static void
run(struct rc_env *e)
{
	test_sizes(e);
	test_sge_lists(e);
	test_corrupt(e);
	test_dereg_waits(e);
	test_one_pass_receive(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_zcopy", argv[0], 4200, run);
}
