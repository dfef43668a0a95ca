/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Keepalive of an idle RC QP (lib/transport/dr_comp_keepalive.c,
 * dr_context_attr.keepalive_ms; reliability.rst "Keepalive"), step by
 * step on a stopped clock (rc_clock_freeze()) that the test moves by
 * exactly the time it names (rc_clock_advance()) before each round:
 *
 *  - a live peer: one probe per silent interval, a zero-length RDMA WRITE
 *    at the newest PSN sent, which the responder acknowledges again as a
 *    duplicate (IBA 9.7.5.1.1 C9-105) without executing it; the QP stays
 *    in RTS; requests from the peer count as hearing it;
 *  - nothing is probed while requests are outstanding (the local ACK timer
 *    watches the peer then);
 *  - a dead peer: after keepalive_probes unanswered probes the QP goes to
 *    ERR, its posted receive is flushed (WR_FLUSH_ERR) and
 *    DR_EVENT_QP_FATAL is raised.
 *
 * Inline mode (the test's rounds are the engine's).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "dr_transport.h"
#include "dr_verbs_priv.h"
#include "test_rc.h"

#define KA_MS 10u
#define KA_PROBES 3u

struct ka_case {
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_qp_impl *qa;
};

/* Connect, keepalive on A's context (10 ms, 3 probes), one WRITE done; the clock stopped. */
static int
ka_setup(struct rc_env *e, struct ka_case *c)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 };
	struct dr_sge sge;

	rc_params_default(&c->p);
	c->p.sr[0] = c->p.sr[1] = false;
	if (rc_connect(e, &c->p) != 0)
		return -1;
	if (rc_buf_alloc(a, &c->src, 256, DR_ACCESS_LOCAL_WRITE) != 0)
		return -1;
	if (rc_buf_alloc(b, &c->dst, 256, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
		rc_buf_free(&c->src);
		return -1;
	}
	c->qa = dr_qp_impl(a->qp);
	rc_fill(c->src.p, 256, 3);
	sge = (struct dr_sge){ (uint64_t)(uintptr_t)c->src.p, 256, c->src.mr->lkey };
	if (rc_post_send(a, 1, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED, (uint64_t)(uintptr_t)c->dst.p,
			 c->dst.mr->rkey, 0) != 0 || !rc_wait_wcs(e, a->scq, &sw, 1, 2000000) ||
	    sw.wc[0].status != DR_WC_SUCCESS)
		return -1;
	rc_clock_freeze(true);
	a->ctx->keepalive_ticks = rc_ms(KA_MS);
	a->ctx->keepalive_probes = KA_PROBES;
	rc_round(e);                          /* the completer looked once: the silence counts from now */
	return 0;
}

static void
ka_teardown(struct rc_env *e, struct ka_case *c)
{
	e->s[0].ctx->keepalive_ticks = 0;
	rc_clock_freeze(false);
	rc_rules_clear(e);
	rc_buf_free(&c->src);
	rc_buf_free(&c->dst);
	rc_disconnect(e);
}

/* How long until A's keepalive is due: an interval after it last heard its peer (A's run clock). */
static uint64_t
until_due(struct rc_env *e, const struct ka_case *c)
{
	uint64_t heard = c->qa->comp.heard_at;
	uint64_t now = e->s[0].ctx->wk[0].clock.now;

	return heard + rc_ms(KA_MS) > now ? heard + rc_ms(KA_MS) - now : 0;
}

/* Let @ticks pass, then one round. */
static void
step(struct rc_env *e, uint64_t ticks)
{
	rc_clock_advance(ticks);
	rc_round(e);
}

/* A live peer answers every probe; the QP stays up, B executes nothing. */
static void
test_live_peer(struct rc_env *e)
{
	struct rc_side *b = &e->s[1];
	uint64_t dup0, frames0;
	struct ka_case c;
	unsigned int k, n = 0;

	if (ka_setup(e, &c) != 0) {
		RC_CHECK_MSG(0, "keepalive setup");
		return;
	}
	e->logging = true;
	e->nlog = 0;
	for (k = 0; k < 5; k++) {
		dup0 = dr_ctx_stats_sum(b->ctx).rx_duplicate;
		frames0 = e->frames[RC_A2B];
		RC_CHECK(until_due(e, &c) > 1);
		step(e, until_due(e, &c) - 1);           /* silent for just under the interval */
		RC_CHECK_EQ(rc_counter(&c.qa->cnt.keepalives), k);
		step(e, 1);                              /* the interval: the probe, B's ACK */
		RC_CHECK_EQ(rc_counter(&c.qa->cnt.keepalives), k + 1u);
		rc_round(e);                             /* A takes the ACK */
		RC_CHECK_EQ(e->frames[RC_A2B], frames0 + 1);
		RC_CHECK_EQ(dr_ctx_stats_sum(b->ctx).rx_duplicate, dup0 + 1);
		RC_CHECK_MSG(c.qa->comp.ka_unanswered == 0 || c.qa->comp.ka_sent_at == 0, "probe %u unanswered",
			     k + 1);
	}
	/* the probes on the wire: zero-length RDMA WRITE ONLY at the newest PSN sent, AckReq */
	for (uint32_t i = 0; i < e->nlog; i++) {
		const struct rc_log_entry *l = &e->log[i];

		if (l->dir != RC_A2B)
			continue;
		RC_CHECK_EQ(l->opcode, DR_OPCODE(RC, WRITE_ONLY));
		RC_CHECK_EQ(l->paylen, 0);
		RC_CHECK(l->ackreq);
		RC_CHECK_EQ(l->psn, c.p.psn_a & 0xFFFFFF);    /* the WRITE's PSN: acknowledged already */
		n++;
	}
	RC_CHECK_EQ(n, 5);
	RC_CHECK_EQ(e->s[0].qp->state, DR_QPS_RTS);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.retries), 0);
	/* requests from the peer are hearing it too: B writes to A every 5 ms, A probes nothing */
	e->logging = false;
	{
		struct rc_buf bsrc, adst;
		struct dr_sge sge;
		uint64_t ka0 = rc_counter(&c.qa->cnt.keepalives);

		if (rc_buf_alloc(b, &bsrc, 64, DR_ACCESS_LOCAL_WRITE) != 0 ||
		    rc_buf_alloc(&e->s[0], &adst, 64, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
			RC_CHECK_MSG(0, "buffers");
		} else {
			sge = (struct dr_sge){ (uint64_t)(uintptr_t)bsrc.p, 64, bsrc.mr->lkey };
			for (k = 0; k < 8; k++) {
				RC_CHECK_EQ(rc_post_send(b, 50 + k, DR_WR_RDMA_WRITE, &sge, 1, 0,
							 (uint64_t)(uintptr_t)adst.p, adst.mr->rkey, 0), 0);
				step(e, rc_ms(KA_MS) / 2);
				rc_round(e);
			}
			RC_CHECK_EQ(rc_counter(&c.qa->cnt.keepalives), ka0);
			rc_buf_free(&bsrc);
			rc_buf_free(&adst);
		}
	}
	ka_teardown(e, &c);
}

/* Requests outstanding: no probe, whatever the silence (the ACK timer's business). */
static void
test_no_probe_while_outstanding(struct rc_env *e)
{
	struct rc_wcs sw = { .n = 0 };
	struct ka_case c;
	struct dr_sge sge;

	if (ka_setup(e, &c) != 0) {
		RC_CHECK_MSG(0, "keepalive setup");
		return;
	}
	rc_rule_add(e, RC_B2A, -1, 0, 0, 0, RC_DROP);      /* no ACK comes: a WRITE stays outstanding */
	sge = (struct dr_sge){ (uint64_t)(uintptr_t)c.src.p, 256, c.src.mr->lkey };
	RC_CHECK_EQ(rc_post_send(&e->s[0], 2, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)c.dst.p, c.dst.mr->rkey, 0), 0);
	rc_round(e);
	rc_round(e);
	for (int k = 0; k < 4; k++)
		step(e, rc_ms(KA_MS));                      /* its tail-loss probe and RTOs go unanswered too */
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.keepalives), 0);
	RC_CHECK(rc_counter(&c.qa->cnt.rto_expiries) >= 1);
	rc_rules_clear(e);
	rc_clock_freeze(false);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &sw, 1, 3000000));   /* its probe or RTO recovers it */
	RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	ka_teardown(e, &c);
}

/* A dead peer: three probes unanswered, then the QP fails; its receive is flushed, the event raised. */
static void
test_dead_peer(struct rc_env *e)
{
	struct rc_side *a = &e->s[0];
	struct rc_wcs rw = { .n = 0 };
	struct dr_async_event ev;
	struct ka_case c;
	unsigned int k;

	if (ka_setup(e, &c) != 0) {
		RC_CHECK_MSG(0, "keepalive setup");
		return;
	}
	RC_CHECK_EQ(rc_post_recv(a, 77, NULL, 0), 0);     /* A waits for its peer's SEND */
	rc_rule_add(e, RC_A2B, -1, 0, 0, 0, RC_DROP);      /* the peer is gone */
	step(e, until_due(e, &c));
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.keepalives), 1);
	for (k = 1; k < KA_PROBES; k++) {
		step(e, rc_ms(KA_MS));
		RC_CHECK_EQ(rc_counter(&c.qa->cnt.keepalives), k + 1u);
		RC_CHECK_EQ(a->qp->state, DR_QPS_RTS);
	}
	step(e, rc_ms(KA_MS) - 1);
	RC_CHECK_EQ(a->qp->state, DR_QPS_RTS);
	step(e, 1);                                        /* (probes + 1) intervals of silence */
	rc_round(e);
	RC_CHECK_EQ(a->qp->state, DR_QPS_ERR);
	RC_CHECK_EQ(rc_counter(&c.qa->cnt.keepalives), KA_PROBES);
	RC_CHECK(rc_wait_wcs(e, a->rcq, &rw, 1, 1000000));
	RC_CHECK(rw.n == 1 && rw.wc[0].wr_id == 77 && rw.wc[0].status == DR_WC_WR_FLUSH_ERR);
	RC_CHECK_EQ(dr_get_async_event(a->ctx, &ev), 0);
	RC_CHECK(ev.event_type == DR_EVENT_QP_FATAL && ev.element.qp == a->qp);
	dr_ack_async_event(&ev);
	ka_teardown(e, &c);
}

static void
run(struct rc_env *e)
{
	if (!rc_inline_only("test_rc_keepalive", "the test plays the completer's timer"))
		return;
	test_live_peer(e);
	test_no_probe_while_outstanding(e);
	test_dead_peer(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_keepalive", argv[0], 4300, run);
}
