/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Congestion control end to end (test_rc.h's two contexts, in every
 * progress mode), both contexts with DCQCN on:
 *   - ECN: every frame of a connected QP carries ECT(0) (RFC 3168; what
 *     RoCE NICs send with DCQCN on), and no CNP goes without congestion;
 *   - the notification point: frames the wire marks CE make the responder
 *     send CNPs (IBA Annex A17.9.3: opcode 0x81, BECN, PSN 0, to the QP
 *     that sent them, 16 reserved bytes, Not-ECT), at most one per QP per
 *     50 us; the requester takes each (ICRC right) and cuts its rate;
 *   - the reaction point's pacer: with the rate held at the floor, a
 *     transfer takes at least its bytes' time at that rate (a lower bound,
 *     not a speed), and every byte arrives;
 *   - a CNP built by hand as a peer's NIC sends it is taken the same way;
 *     one with a bad ICRC, or from an address that is not the peer's, is
 *     dropped and counted, and changes nothing.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "dr_cc.h"
#include "test_rc.h"

#define LINE_RATE 100000000ull        /* 100 Mb/s: DCQCN's ceiling */
#define FLOOR 10000000ull             /* 10 Mb/s: its floor */

static struct dr_qp_impl *
impl(struct dr_qp *qp)
{
	return (struct dr_qp_impl *)qp;
}

static uint64_t
now_us(void)
{
	return rte_get_tsc_cycles() / (rte_get_tsc_hz() / 1000000u);
}

/* The parameters of these tests: no increase before 10 s, every CNP cuts (min_dec_period 0). */
static void
cc_setup(void)
{
	rc_cc_attr.algo = DR_CC_DCQCN;
	dr_dcqcn_params_default(&rc_cc_attr.dcqcn, LINE_RATE);
	rc_cc_attr.dcqcn.min_rate = FLOOR;
	rc_cc_attr.dcqcn.rate_ai = 1000000;
	rc_cc_attr.dcqcn.rate_hai = 1000000;
	rc_cc_attr.dcqcn.alpha_period_ns = 10000000000ull;
	rc_cc_attr.dcqcn.rate_period_ns = 10000000000ull;
	rc_cc_attr.dcqcn.byte_counter = 0;
	rc_cc_attr.dcqcn.min_dec_period_ns = 0;
}

static void
test_ect(struct rc_env *e)
{
	struct rc_qp_params p;
	struct rc_xfer x = { .op = DR_WR_RDMA_WRITE, .len = 20000, .nsge_l = 1, .seed = 1 };
	unsigned int ect = 0, other = 0;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "ect: connect");
		return;
	}
	e->logging = true;
	e->nlog = 0;
	RC_CHECK_EQ(rc_xfer_run(e, &x, "ect write"), 0);
	x.op = DR_WR_RDMA_READ;
	RC_CHECK_EQ(rc_xfer_run(e, &x, "ect read"), 0);
	e->logging = false;
	for (uint32_t i = 0; i < e->nlog; i++) {
		if ((e->log[i].tclass & DR_ECN_MASK) == DR_ECN_ECT0)
			ect++;
		else
			other++;
		RC_CHECK(e->log[i].opcode != DR_OPCODE_CNP);
	}
	RC_CHECK_MSG(ect > 20 && other == 0, "%u frames ECT(0), %u not", ect, other);
	RC_CHECK_EQ(dr_ctx_stats_sum(e->s[1].ctx).tx_cnp, 0);
	rc_disconnect(e);
}

static void
test_cnp(struct rc_env *e)
{
	struct rc_xfer x = { .op = DR_WR_RDMA_WRITE, .len = 256 * 1024, .nsge_l = 2, .seed = 2, .usec = 20000000 };
	struct dr_ctx_stats a0, b0, a1, b1;
	struct rc_qp_params p;
	uint32_t qpn_a, cnps = 0, bad = 0;
	uint64_t t0, us;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "cnp: connect");
		return;
	}
	qpn_a = e->s[0].qp->qp_num;
	a0 = dr_ctx_stats_sum(e->s[0].ctx);
	b0 = dr_ctx_stats_sum(e->s[1].ctx);
	/* a congested switch: every request from A marked CE */
	rc_rules_clear(e);
	rc_rule_add(e, RC_A2B, -1, 0, 1, 0, RC_MARK_CE);
	e->logging = true;
	e->nlog = 0;
	t0 = now_us();
	RC_CHECK_EQ(rc_xfer_run(e, &x, "cnp write"), 0);
	us = now_us() - t0;
	e->logging = false;
	rc_rules_clear(e);
	for (uint32_t i = 0; i < e->nlog; i++) {
		const struct rc_log_entry *l = &e->log[i];

		if (l->dir != RC_B2A || l->opcode != DR_OPCODE_CNP)
			continue;
		cnps++;
		/* A17.9.3: to the QP whose packets were marked, BECN set, PSN 0, 16 bytes; never ECN-capable */
		if (l->dqpn != qpn_a || !l->becn || l->psn != 0 || l->paylen != DR_CNP_PAYLOAD_BYTES ||
		    (l->tclass & DR_ECN_MASK) != DR_ECN_NOT_ECT)
			bad++;
	}
	a1 = dr_ctx_stats_sum(e->s[0].ctx);
	b1 = dr_ctx_stats_sum(e->s[1].ctx);
	RC_CHECK_MSG(cnps >= 1 && bad == 0, "%u CNPs, %u malformed", cnps, bad);
	/* at most one per 50 us (the first at once) */
	RC_CHECK_MSG(cnps <= us / 50 + 1, "%u CNPs in %" PRIu64 " us", cnps, us);
	RC_CHECK_EQ(b1.tx_cnp - b0.tx_cnp, cnps);
	RC_CHECK(b1.rx_ecn_ce - b0.rx_ecn_ce >= 256);      /* every WRITE packet (1024 bytes) */
	/* A took every one (ICRC, address and QP checks passed) */
	RC_CHECK_EQ(a1.rx_cnp - a0.rx_cnp, cnps);
	RC_CHECK_EQ(a1.rx_bad_icrc, a0.rx_bad_icrc);
	/*
	 * and its requester cut the rate: the rate machine takes CNPs when the
	 * QP has something to send (with engine lcores the whole window may be
	 * out before the first CNP is back), so send again
	 */
	x.len = 16 * 1024;
	RC_CHECK_EQ(rc_xfer_run(e, &x, "cnp write again"), 0);
	RC_CHECK(impl(e->s[0].qp)->cc_tx.rp.decreases >= 1);
	RC_CHECK(impl(e->s[0].qp)->cc_tx.rp.rc < LINE_RATE);
	RC_CHECK(impl(e->s[0].qp)->cc_tx.paced > 0);
	/* B's requester was not told anything */
	RC_CHECK_EQ(impl(e->s[1].qp)->cc_tx.rp.decreases, 0);
	rc_disconnect(e);
}

/* A CNP to @qp_a from @from's route (a peer's NIC would build it so); 0 or -1. */
static int
inject_cnp(struct rc_env *e, const struct dr_pkt_route *from, uint32_t qpn, bool corrupt)
{
	static const uint8_t zero[DR_CNP_PAYLOAD_BYTES];
	struct rte_mbuf *m = rte_pktmbuf_alloc(e->copy_pool);
	struct dr_pkt_info pi;

	if (m == NULL || dr_pkt_build(m, from, 0, DR_OPCODE_CNP, DR_CNP_PAYLOAD_BYTES, &pi) != 0)
		goto fail;
	dr_bth_set_qpn(dr_pkt_bth(&pi), qpn);
	dr_bth_set_becn(dr_pkt_bth(&pi), true);
	if (dr_pkt_append(m, zero, sizeof(zero)) != 0 || dr_pkt_finalize(m, &pi) != 0)
		goto fail;
	if (corrupt)
		*rte_pktmbuf_mtod_offset(m, uint8_t *, pi.pay_off) ^= 1;
	if (rte_ring_sp_enqueue(e->s[0].rx[0], m) != 0)
		goto fail;
	return 0;
fail:
	rte_pktmbuf_free(m);
	return -1;
}

static bool
cnps_in(struct rc_env *e, void *arg)
{
	return dr_ctx_stats_sum(e->s[0].ctx).rx_cnp >= *(uint64_t *)arg;
}

static void
test_pacing(struct rc_env *e)
{
	struct rc_xfer x = { .op = DR_WR_RDMA_WRITE, .len = 128 * 1024, .nsge_l = 1, .seed = 3, .usec = 20000000 };
	struct dr_ctx_stats a0, a1;
	struct dr_pkt_route stranger;
	struct rc_qp_params p;
	uint64_t t0, us, want;
	uint32_t qpn_a;
	int i;

	rc_params_default(&p);
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "pacing: connect");
		return;
	}
	qpn_a = e->s[0].qp->qp_num;
	a0 = dr_ctx_stats_sum(e->s[0].ctx);
	/* the peer's NIC says "congestion" 8 times: 100 Mb/s halves down to the floor (10 Mb/s) */
	for (i = 0; i < 8; i++)
		RC_CHECK_EQ(inject_cnp(e, &impl(e->s[1].qp)->route, qpn_a, false), 0);
	want = a0.rx_cnp + 8;
	RC_CHECK(rc_run(e, 2000000, cnps_in, &want));
	/* one with a bad ICRC, one from a stranger's address: dropped, counted, nothing changes */
	RC_CHECK_EQ(inject_cnp(e, &impl(e->s[1].qp)->route, qpn_a, true), 0);
	stranger = impl(e->s[1].qp)->route;
	stranger.sgid[15] ^= 0x40;
	RC_CHECK_EQ(inject_cnp(e, &stranger, qpn_a, false), 0);
	RC_CHECK(RC_WAIT_STAT(e, 0, rx_bad_icrc, a0.rx_bad_icrc + 1));
	RC_CHECK(RC_WAIT_STAT(e, 0, rx_bad_addr, a0.rx_bad_addr + 1));
	rc_run(e, 20000, NULL, NULL);                   /* and no CNP counted of them */
	a1 = dr_ctx_stats_sum(e->s[0].ctx);
	RC_CHECK_EQ(a1.rx_cnp - a0.rx_cnp, 8);
	RC_CHECK_EQ(a1.rx_bad_icrc - a0.rx_bad_icrc, 1);
	RC_CHECK_EQ(a1.rx_bad_addr - a0.rx_bad_addr, 1);
	/* the requester takes them when it has something to send: now */
	t0 = now_us();
	RC_CHECK_EQ(rc_xfer_run(e, &x, "paced write"), 0);
	us = now_us() - t0;
	RC_CHECK_EQ(impl(e->s[0].qp)->cc_tx.rp.rc, FLOOR);
	RC_CHECK_EQ(impl(e->s[0].qp)->cc_tx.pacer.rate, FLOOR);
	/* the bytes on the wire (headers too) at 10 Mb/s, less the burst an idle flow may send */
	want = ((uint64_t)x.len - DR_PACER_BURST_BYTES) * 8 * 1000000 / FLOOR;
	RC_CHECK_MSG(us >= want, "128 KiB at 10 Mb/s in %" PRIu64 " us, at least %" PRIu64 " us", us, want);
	rc_disconnect(e);
}

static void
run(struct rc_env *e)
{
	test_ect(e);
	test_cnp(e);
	test_pacing(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	cc_setup();
	return rc_main("test_cc_rc", argv[0], 1500, run);
}
