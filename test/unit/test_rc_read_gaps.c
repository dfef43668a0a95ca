/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * A long READ that loses responses (lib/transport/dr_comp_read_hold.c):
 * the responses after a lost one are kept at their offset, and the READ is
 * asked again for each gap only (IBA 9.7.5.1.3: a duplicate READ names the
 * part it wants; a LAST response then ends that part, not the READ), never
 * for the rest of it. Counted on the wire: every response goes out once,
 * plus once more for each one lost, where asking from the first missing
 * byte to the end sent the rest of the READ again per loss (rxe's replay
 * does just that). On the wire's stopped clock: no timer takes part, every
 * gap is found from the responses that came after it. And a response of
 * the wrong length, in order or kept, fails the READ.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dr_transport.h"
#include "test_rc.h"

enum { MTU = 1024, NPKTS = 64, RLEN = NPKTS * MTU - 300 };

/* The READ requests A sent: their PSN, and the offset and length their RETH asks for. */
static struct {
	uint64_t base;              /* the remote address of the READ */
	unsigned int n;
	uint32_t psn[32];
	uint64_t off[32];
	uint32_t len[32];
	uint32_t at[32];            /* frames the wire had logged before it */
} asks;

static bool
see_asks(struct rc_env *e, int dir, uint8_t *frame, const struct dr_pkt_info *pi)
{
	const struct dr_reth *reth;

	RTE_SET_USED(frame);
	if (dir != RC_A2B || pi->opcode != DR_OPCODE(RC, READ_REQ) || asks.n == RTE_DIM(asks.psn))
		return false;
	reth = dr_pkt_reth(pi);
	asks.psn[asks.n] = dr_bth_psn(dr_pkt_bth(pi));
	asks.off[asks.n] = dr_reth_va(reth) - asks.base;
	asks.len[asks.n] = dr_reth_len(reth);
	asks.at[asks.n] = e->nlog;
	asks.n++;
	return false;
}

/* A's READ response at distance @k from @first_psn was delivered among the wire's first @n frames. */
static bool
delivered_before(const struct rc_env *e, uint32_t first_psn, uint32_t k, uint32_t n)
{
	for (uint32_t i = 0; i < n && i < e->nlog; i++)
		if (e->log[i].dir == RC_B2A && e->log[i].action != RC_DROP &&
		    (uint32_t)dr_psn_diff(e->log[i].psn, first_psn) == k)
			return true;
	return false;
}

/*
 * One READ of NPKTS responses into three SGEs of uneven length, the
 * responses at the distances @lost[] from its first one dropped the first
 * time they go out. Every byte checked; on the wire each response once and
 * each lost one once more; each READ asked again starts at a lost response
 * or at one never sent, and asks for no response that had come already.
 */
static void
read_with_gaps(struct rc_env *e, const char *what, const uint32_t *lost, unsigned int nlost)
{
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf la, rb;
	struct dr_sge sge[3];
	uint64_t sent, dropped, frames0, dropped0;
	uint32_t first_psn = 0;
	struct dr_qp_impl *qa;
	unsigned int i, k;

	rc_params_default(&p);
	p.mtu = DR_MTU_1024;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, RLEN, acc) != 0 || rc_buf_alloc(b, &rb, RLEN, acc) != 0) {
		RC_CHECK_MSG(0, "%s: setup", what);
		return;
	}
	qa = dr_qp_impl(a->qp);
	rc_fill(rb.p, RLEN, 17 + nlost);
	memset(la.p, 0, RLEN);
	/* three SGEs whose edges fall inside responses */
	RC_CHECK_EQ(rc_sges(&la, 0, RLEN, 3, sge), 3);
	/* a rule sees the frames the rules before it let pass: the i earlier losses are not among them */
	for (i = 0; i < nlost; i++) {
		struct rc_rule *r = rc_rule_add(e, RC_B2A, -1, lost[i] - i, 0, 1, RC_DROP);

		r->fresh = true;        /* the first transmission of that PSN only */
	}
	memset(&asks, 0, sizeof(asks));
	asks.base = (uint64_t)(uintptr_t)rb.p;
	e->tamper = see_asks;
	e->logging = true;
	e->nlog = 0;
	/* the wire's own counts of what B sent (every one a READ response) and what it dropped */
	frames0 = e->frames[RC_B2A];
	dropped0 = e->dropped[RC_B2A];
	rc_clock_freeze(true);
	RC_CHECK_EQ(rc_post_send(a, 9, DR_WR_RDMA_READ, sge, 3, DR_SEND_SIGNALED, (uint64_t)(uintptr_t)rb.p,
				 rb.mr->rkey, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 5000000));
	rc_clock_freeze(false);
	e->tamper = NULL;
	RC_CHECK_MSG(sw.n == 1 && sw.wc[0].wr_id == 9 && sw.wc[0].status == DR_WC_SUCCESS, "%s: %s", what,
		     sw.n == 1 ? dr_wc_status_str(sw.wc[0].status) : "no completion");
	RC_CHECK_MSG(memcmp(la.p, rb.p, RLEN) == 0, "%s: the READ's data", what);
	sent = e->frames[RC_B2A] - frames0;
	dropped = e->dropped[RC_B2A] - dropped0;
	RC_CHECK_MSG(dropped == nlost && sent == NPKTS + nlost,
		     "%s: %" PRIu64 " responses on the wire, %" PRIu64 " dropped (want %u and %u)", what, sent,
		     dropped, NPKTS + nlost, nlost);
	/* what A asked again: only what it had not received */
	if (asks.n > 0)
		first_psn = asks.psn[0];
	RC_CHECK(asks.n >= 2 && asks.off[0] == 0 && asks.len[0] == RLEN);
	for (i = 1; i < asks.n; i++) {
		uint32_t k0 = (uint32_t)dr_psn_diff(asks.psn[i], first_psn);

		RC_CHECK_MSG(k0 < NPKTS && asks.off[i] == (uint64_t)k0 * MTU && asks.len[i] != 0 &&
			     asks.len[i] <= RLEN - asks.off[i], "%s: ask %u at psn +%u for %u bytes at %" PRIu64,
			     what, i, k0, asks.len[i], asks.off[i]);
		/* (a FIFO wire: what was delivered before an ask was at A when it asked) */
		for (k = k0; k < NPKTS && (uint64_t)k * MTU < asks.off[i] + asks.len[i]; k++)
			RC_CHECK_MSG(!delivered_before(e, first_psn, k, asks.at[i]),
				     "%s: ask %u (psn +%u, %u bytes) asks for response +%u, which had come", what, i,
				     k0, asks.len[i], k);
	}
	RC_CHECK_EQ(rc_counter(&qa->cnt.rereads), asks.n - 1);
	RC_CHECK_EQ(rc_counter(&qa->cnt.ack_timeouts), 0);
	RC_CHECK_EQ(qa->comp.read_hold.n, 0);
	if (getenv("DR_TEST_WIRELOG") != NULL)
		rc_wirelog_print(e, UINT32_MAX);
	e->logging = false;
	rc_rules_clear(e);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

/*
 * IBA 9.7.4.1.3: every READ response carries one path MTU but the last. A
 * responder whose path MTU is twice the requester's breaks it: in order
 * (@drop_first false) the first response, or kept after a lost one (true)
 * the second, is a bad response (DR_WC_BAD_RESP_ERR), never placed at an
 * offset its length does not fit.
 */
static void
read_wrong_length(struct rc_env *e, bool drop_first)
{
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const char *what = drop_first ? "a kept response too long" : "a response too long";
	struct rc_wcs sw = { .n = 0 };
	struct rc_qp_params p, pb;
	struct rc_buf la, rb;
	struct dr_sge sge;

	rc_params_default(&p);
	p.mtu = DR_MTU_1024;
	pb = p;
	pb.mtu = DR_MTU_2048;
	if (rc_qp_up(a, &p, true) != 0 || rc_qp_up(b, &p, false) != 0 || rc_qp_rtr_rts(a, b, &p, true) != 0 ||
	    rc_qp_rtr_rts(b, a, &pb, false) != 0 || rc_buf_alloc(a, &la, 8192, acc) != 0 ||
	    rc_buf_alloc(b, &rb, 8192, acc) != 0) {
		RC_CHECK_MSG(0, "%s: setup", what);
		return;
	}
	rc_fill(rb.p, 8192, 3);
	memset(la.p, 0, 8192);
	if (drop_first)
		rc_rule_add(e, RC_B2A, -1, 0, 0, 1, RC_DROP);
	sge = (struct dr_sge){ (uint64_t)(uintptr_t)la.p, 8192, la.mr->lkey };
	RC_CHECK_EQ(rc_post_send(a, 4, DR_WR_RDMA_READ, &sge, 1, DR_SEND_SIGNALED, (uint64_t)(uintptr_t)rb.p,
				 rb.mr->rkey, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 5000000));
	RC_CHECK_MSG(sw.n == 1 && sw.wc[0].wr_id == 4 && sw.wc[0].status == DR_WC_BAD_RESP_ERR, "%s: %s", what,
		     sw.n == 1 ? dr_wc_status_str(sw.wc[0].status) : "no completion");
	RC_CHECK_EQ(rc_qp_state(a->qp), DR_QPS_ERR);
	/* nothing was placed: the bad one was refused whole, and the QP took nothing after it */
	for (size_t i = 0; i < 8192; i++)
		if (la.p[i] != 0) {
			RC_CHECK_MSG(0, "%s: byte %zu placed", what, i);
			break;
		}
	rc_rules_clear(e);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

/*
 * A READ longer than the send window whose request is lost, then one of
 * its responses near the window's end. Nothing of the READ came: the
 * responder may not have it, so the READ is asked again whole, as it was
 * sent, and the responder's resource spans all of it (IBA 9.7.5.1.3). The
 * lost response after that is asked for alone and fits in it. Asked for a
 * window's worth instead, the responder executed that part as a READ of its
 * own, the next part as another, and the ask for the lost response, which
 * crosses the end of one, fitted none: dropped each time until the retries
 * ran out (RETRY_EXC_ERR, seen in dr-soak.py's 10%-loss rounds).
 */
static void
read_request_lost(struct rc_env *e)
{
	enum { LONG_PKTS = 600, LONG_LEN = LONG_PKTS * MTU };
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf la, rb;
	struct dr_sge sge;
	struct dr_qp_impl *qa;
	struct rc_rule *r;

	rc_params_default(&p);
	p.mtu = DR_MTU_1024;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, LONG_LEN, acc) != 0 ||
	    rc_buf_alloc(b, &rb, LONG_LEN, acc) != 0) {
		RC_CHECK_MSG(0, "request lost: setup");
		return;
	}
	qa = dr_qp_impl(a->qp);
	RC_CHECK_MSG(qa->window < LONG_PKTS - 100, "request lost: the window (%u) must be shorter than the READ",
		     qa->window);
	rc_fill(rb.p, LONG_LEN, 29);
	memset(la.p, 0, LONG_LEN);
	/* the READ request, the first time; then the last response of the window after the first */
	rc_rule_add(e, RC_A2B, DR_OPCODE(RC, READ_REQ), 0, 0, 1, RC_DROP);
	r = rc_rule_add(e, RC_B2A, -1, 2 * qa->window - 1, 0, 1, RC_DROP);
	r->fresh = true;
	memset(&asks, 0, sizeof(asks));
	asks.base = (uint64_t)(uintptr_t)rb.p;
	e->tamper = see_asks;
	sge = (struct dr_sge){ (uint64_t)(uintptr_t)la.p, LONG_LEN, la.mr->lkey };
	RC_CHECK_EQ(rc_post_send(a, 12, DR_WR_RDMA_READ, &sge, 1, DR_SEND_SIGNALED, (uint64_t)(uintptr_t)rb.p,
				 rb.mr->rkey, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 20000000));
	e->tamper = NULL;
	RC_CHECK_MSG(sw.n == 1 && sw.wc[0].wr_id == 12 && sw.wc[0].status == DR_WC_SUCCESS, "request lost: %s",
		     sw.n == 1 ? dr_wc_status_str(sw.wc[0].status) : "no completion");
	RC_CHECK_MSG(memcmp(la.p, rb.p, LONG_LEN) == 0, "request lost: the READ's data");
	/* the request (dropped), the same again whole, then the lost response alone */
	RC_CHECK_MSG(asks.n >= 3, "request lost: %u READ requests", asks.n);
	RC_CHECK_MSG(asks.n >= 2 && asks.psn[1] == asks.psn[0] && asks.off[1] == 0 && asks.len[1] == LONG_LEN,
		     "request lost: asked again at psn +%d for %u bytes at %" PRIu64 " (want all %u from 0)",
		     asks.n >= 2 ? dr_psn_diff(asks.psn[1], asks.psn[0]) : -1, asks.len[1], asks.off[1],
		     (unsigned int)LONG_LEN);
	RC_CHECK_MSG(asks.n >= 3 && dr_psn_diff(asks.psn[2], asks.psn[0]) == (int32_t)(2 * qa->window - 1) &&
		     asks.len[2] == MTU, "request lost: the lost response asked for at psn +%d, %u bytes",
		     asks.n >= 3 ? dr_psn_diff(asks.psn[2], asks.psn[0]) : -1, asks.len[2]);
	RC_CHECK_EQ(rc_counter(&qa->cnt.retries), 0);
	rc_rules_clear(e);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

static void
run(struct rc_env *e)
{
	static const uint32_t two_gaps[] = { 5, 6, 40 };
	static const uint32_t gap_and_last[] = { 5, NPKTS - 1 };
	static const uint32_t first_and_many[] = { 0, 9, 10, 11, 30, 50 };

	/* two gaps, the first of two responses: each asked for alone */
	read_with_gaps(e, "two gaps", two_gaps, RTE_DIM(two_gaps));
	/* a gap and the LAST: once the gap's answer is in, the rest is asked for at once, no timer */
	read_with_gaps(e, "a gap and the last", gap_and_last, RTE_DIM(gap_and_last));
	/* the FIRST lost, and several gaps */
	read_with_gaps(e, "first and many", first_and_many, RTE_DIM(first_and_many));
	read_wrong_length(e, false);
	read_wrong_length(e, true);
	/* the request lost: asked again whole, so the responder's resource spans the READ */
	read_request_lost(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_read_gaps", argv[0], 4200, run);
}
