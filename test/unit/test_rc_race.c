/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Go-back-N against a full send queue, every WR's data checked: can a WR
 * be lost between the requester resending it and the completer retiring
 * it?
 *
 * After a go-back-N the requester resends WQEs the peer may hold already;
 * an ACK that covers them can come at any moment, and in pipeline mode the
 * completer (its own lcore) may then retire a WQE while the requester (the
 * tx lcore) is still building its resend. With the send queue full the
 * poster reuses the slot at once. A requester that then wrote "sent" into
 * the slot marked the new WR sent without sending it: the WR completed
 * with success, its PSNs never assigned, and the responder never saw it.
 * Now the requester writes nothing into a WQE it resends and checks that
 * the completer has not retired it before the frame goes out (dr_req.c).
 *
 * A small send queue (8) kept full; SEND with immediate of 1 to 3 packets,
 * each payload seeded by its WR; the wire drops requests and ACKs at random
 * and delays and duplicates ACKs, with a 1 ms ACK timeout: go-back-N after
 * go-back-N. Every send completes successfully and in order, and the
 * responder receives every WR, in order, with its immediate, length and
 * bytes: a WR completed but never sent shows as a receive out of order.
 *
 * The moment is a few hundred nanoseconds wide: in pipeline mode a hook
 * (dr_req_resend_hook) holds the requester there, after sending what it
 * resent so far, until the completer retired the WQE and the poster reused
 * its slot (or 20 ms pass), a few dozen times a run. Before the fix the
 * first such case lost its WR.
 */

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>

#include "dr_psn.h"
#include "dr_transport.h"
#include "test_rc.h"

#define RACE_SQ 8
#define RACE_SLOT 3072
#define RACE_SRC_SLOTS 16
#define RACE_HOLDS 40            /* times the hook holds the requester until the slot is reused */
#define RACE_TRIES 400           /* times it tries */

static struct dr_qp_impl *race_qp, *race_peer;    /* the requester's QP, the responder's */
static uint32_t race_tries, race_holds;

static uint32_t
race_len(uint32_t i)
{
	return 1 + (i * 2654435761u >> 8) % RACE_SLOT;
}

/* On the requester's lcore: hold it mid-resend until its WQE was retired and the slot reused. */
static void
race_hook(struct dr_qp_impl *qp)
{
	struct dr_sq *sq = &qp->sq;
	uint32_t idx = qp->req.cur;
	uint64_t until;

	if (qp != race_qp || race_holds >= RACE_HOLDS || race_tries >= RACE_TRIES)
		return;
	/* only a WQE the responder holds already: the ACK to what we resent covers it */
	if (!dr_psn_after(__atomic_load_n(&race_peer->resp.epsn, __ATOMIC_RELAXED), dr_sq_wqe(sq, idx)->last_psn))
		return;
	race_tries++;
	/* what this round resent so far goes out: the responder answers it with an ACK of all it holds */
	dr_wk_tx_flush(dr_qp_wk(qp));
	until = rte_rdtsc() + rte_get_tsc_hz() / 50;
	while (rte_rdtsc() < until) {
		if ((int32_t)(dr_sq_tail(sq) - idx) > 0 && (int32_t)(dr_sq_head(sq) - (idx + sq->size)) > 0) {
			race_holds++;
			return;
		}
		sched_yield();               /* the completer, the wire and the poster may share our CPU */
	}
}

static void
test_full_sq_late_acks(struct rc_env *e, uint32_t nwr, uint32_t seed)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf src, dst, want;
	struct rc_rule *r;
	uint32_t posted = 0, sent_done = 0, recv_posted = 0, recv_done = 0;
	uint64_t end;
	bool ok = true;
	char tag[64];
	int k;

	snprintf(tag, sizeof(tag), "full SQ, late ACKs, seed %u", seed);
	rc_params_default(&p);
	p.mtu = DR_MTU_1024;
	p.max_wr = RACE_SQ;
	p.timeout = 8;                    /* 1.05 ms of the wire's time */
	p.retry_cnt = 7;
	p.psn_a = 0xFFFFFF - 40 * seed;   /* the PSNs wrap during the run */
	if (rc_connect(e, &p) != 0 ||
	    rc_buf_alloc(a, &src, RACE_SRC_SLOTS * RACE_SLOT, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &dst, RACE_SQ * RACE_SLOT, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &want, RACE_SLOT, DR_ACCESS_LOCAL_WRITE) != 0) {
		RC_CHECK_MSG(0, "%s: setup", tag);
		return;
	}
	for (k = 0; k < 2; k++) {
		/* requests and ACKs lost; ACKs held and delivered late, requests reordered */
		r = rc_rule_add(e, k, -1, 0, 12, 0, RC_DROP);
		r->random = true;
		r->seed = seed * 31 + (uint32_t)k;
		r = rc_rule_add(e, k, -1, 0, 4, 0, k == RC_B2A ? RC_DELAY : RC_SWAP);
		r->random = true;
		r->seed = seed * 37 + (uint32_t)k;
	}
	r = rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ACK), 0, 5, 0, RC_DUP);
	r->random = true;
	r->seed = seed * 41;
	race_tries = race_holds = 0;
	race_peer = dr_qp_impl(b->qp);
	if (strcmp(rc_mode_name(), "pipeline") == 0)
		__atomic_store_n(&race_qp, dr_qp_impl(a->qp), __ATOMIC_RELEASE);
	end = rte_get_timer_cycles() + 120 * rte_get_timer_hz();
	while (ok && (sent_done < nwr || recv_done < nwr) && rte_get_timer_cycles() < end) {
		struct dr_wc wc[RACE_SQ];
		int n, i;

		/* the responder's receive queue stocked, each receive into its slot */
		while (recv_posted < nwr && recv_posted - recv_done < RACE_SQ) {
			struct dr_sge sge = { (uint64_t)(uintptr_t)(dst.p + (recv_posted % RACE_SQ) * RACE_SLOT),
					      RACE_SLOT, dst.mr->lkey };

			if (rc_post_recv(b, recv_posted, &sge, 1) != 0)
				break;
			recv_posted++;
		}
		/* the send queue kept full: a retired slot is reused at once */
		while (posted < nwr) {
			uint8_t *s = src.p + (posted % RACE_SRC_SLOTS) * RACE_SLOT;
			struct dr_sge sge = { (uint64_t)(uintptr_t)s, race_len(posted), src.mr->lkey };

			rc_fill(s, race_len(posted), seed * 100003u + posted);
			if (rc_post_send(a, posted, DR_WR_SEND_WITH_IMM, &sge, 1, DR_SEND_SIGNALED, 0, 0,
					 rte_cpu_to_be_32(posted)) != 0)
				break;
			posted++;
		}
		rc_round(e);
		n = dr_poll_cq(a->scq, RACE_SQ, wc);
		for (i = 0; i < n && ok; i++, sent_done++) {
			if (wc[i].wr_id != sent_done || wc[i].status != DR_WC_SUCCESS) {
				RC_CHECK_MSG(0, "%s: send completion %u: wr_id %" PRIu64 " %s", tag, sent_done,
					     wc[i].wr_id, dr_wc_status_str(wc[i].status));
				ok = false;
			}
		}
		n = dr_poll_cq(b->rcq, RACE_SQ, wc);
		for (i = 0; i < n && ok; i++, recv_done++) {
			uint32_t len = race_len(recv_done);

			rc_fill(want.p, len, seed * 100003u + recv_done);
			if (wc[i].wr_id != recv_done || wc[i].status != DR_WC_SUCCESS || wc[i].byte_len != len ||
			    !(wc[i].wc_flags & DR_WC_WITH_IMM) || rte_be_to_cpu_32(wc[i].imm_data) != recv_done ||
			    memcmp(dst.p + (recv_done % RACE_SQ) * RACE_SLOT, want.p, len) != 0) {
				RC_CHECK_MSG(0, "%s: receive %u: wr_id %" PRIu64 " %s, %u bytes, imm %u (want %u bytes, "
					     "imm %u, its data)", tag, recv_done, wc[i].wr_id,
					     dr_wc_status_str(wc[i].status), wc[i].byte_len,
					     rte_be_to_cpu_32(wc[i].imm_data), len, recv_done);
				ok = false;
			}
		}
	}
	__atomic_store_n(&race_qp, NULL, __ATOMIC_RELEASE);
	RC_CHECK_MSG(ok && sent_done == nwr && recv_done == nwr, "%s: %u/%u sends, %u/%u receives completed", tag,
		     sent_done, nwr, recv_done, nwr);
	if (!ok || sent_done != nwr || recv_done != nwr)
		rc_print_counters(e, tag);
	if (!ok || getenv("DR_TEST_VERBOSE") != NULL)
		printf("%s: %u WRs, %" PRIu64 " go-back-N retries, %" PRIu64 " timeouts; the requester held "
		       "mid-resend until its slot was reused %u times (%u tries)\n", tag, nwr,
		       dr_qp_impl(a->qp)->cnt.retries, dr_qp_impl(a->qp)->cnt.ack_timeouts, race_holds, race_tries);
	rc_rules_clear(e);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_buf_free(&want);
	rc_disconnect(e);
}

static void
run(struct rc_env *e)
{
	uint32_t seed;

	dr_req_resend_hook = race_hook;
	for (seed = 1; seed <= 3; seed++)
		test_full_sq_late_acks(e, 1500, seed);
	dr_req_resend_hook = NULL;
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_race", argv[0], 4200, run);
}
