/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Selective repeat (dr_set_ece(), DR_ECE_OPT_SELECTIVE_REPEAT;
 * doc/guides/reliability.rst): the ECE calls as ibv_query_ece(3) /
 * ibv_set_ece(3) say; with both sides on, a lost request costs one
 * resent frame, not the window after it (the responder keeps what follows
 * a gap, its SACK names the gap); with one side only, or neither, IBA's
 * go-back-N as before (a responder without it never sends a SACK; one
 * that took it alone does, and the requester takes it as an ACK). The whole loss and
 * recovery suites also run with it on (DR_TEST_SR=1, test/unit/meson.build).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rc.h"

static const enum dr_wr_opcode ops[] = {
	DR_WR_SEND, DR_WR_SEND_WITH_IMM, DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE_WITH_IMM,
};

/* Frames of opcode @op the wire carried in direction @dir (its log). */
static unsigned int
logged(const struct rc_env *e, int dir, int op)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < e->nlog; i++)
		n += e->log[i].dir == dir && (op < 0 || e->log[i].opcode == op);
	return n;
}

/* ibv_query_ece(3) / ibv_set_ece(3) rules. */
static void
test_ece_api(struct rc_env *e)
{
	struct rc_qp_params p;
	struct dr_ece ece;

	rc_params_default(&p);
	p.sr[0] = p.sr[1] = false;
	if (rc_connect(e, &p) != 0) {
		RC_CHECK_MSG(0, "connect");
		return;
	}
	RC_CHECK_EQ(dr_query_ece(NULL, &ece), -EINVAL);
	RC_CHECK_EQ(dr_query_ece(e->s[0].qp, NULL), -EINVAL);
	RC_CHECK_EQ(dr_set_ece(NULL, &ece), -EINVAL);
	/* before any set: every option an RC QP supports */
	RC_CHECK_EQ(dr_query_ece(e->s[0].qp, &ece), 0);
	RC_CHECK_EQ(ece.vendor_id, DR_ECE_VENDOR_ID);
	RC_CHECK_EQ(ece.options, DR_ECE_OPT_SELECTIVE_REPEAT);
	RC_CHECK_EQ(ece.comp_mask, 0);
	/* ibv_set_ece(3): before RTR only; this QP is in RTS */
	RC_CHECK_EQ(dr_set_ece(e->s[0].qp, &ece), -EINVAL);
	RC_CHECK(!dr_qp_sr(dr_qp_impl(e->s[0].qp)));
	rc_disconnect(e);

	/* in INIT: accepted; unknown bits and another vendor's options are dropped; comp_mask refused */
	p.qp_type = DR_QPT_RC;
	p.sr[0] = p.sr[1] = false;
	if (rc_connect(e, &p) != 0)
		return;
	{
		struct dr_pd *pd = e->s[0].pd;
		struct dr_qp_init_attr ia = {
			.send_cq = e->s[0].scq, .recv_cq = e->s[0].rcq, .qp_type = DR_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct dr_qp *qp = dr_create_qp(pd, &ia), *uc;
		struct dr_ece mine = { .vendor_id = DR_ECE_VENDOR_ID, .options = 0xFFFFFFFFu };

		RC_CHECK(qp != NULL);
		if (qp == NULL)
			goto out;
		RC_CHECK_EQ(dr_set_ece(qp, &mine), 0);          /* RESET */
		RC_CHECK_EQ(mine.options, DR_ECE_OPT_SELECTIVE_REPEAT);
		RC_CHECK(dr_qp_sr(dr_qp_impl(qp)));
		RC_CHECK_EQ(dr_query_ece(qp, &ece), 0);
		RC_CHECK_EQ(ece.options, DR_ECE_OPT_SELECTIVE_REPEAT);
		mine.vendor_id = 0x0002C9;                      /* another vendor's OUI */
		mine.options = DR_ECE_OPT_SELECTIVE_REPEAT;
		RC_CHECK_EQ(dr_set_ece(qp, &mine), 0);
		RC_CHECK_EQ(mine.options, 0);
		RC_CHECK(!dr_qp_sr(dr_qp_impl(qp)));
		mine.vendor_id = DR_ECE_VENDOR_ID;
		mine.comp_mask = 1;
		RC_CHECK_EQ(dr_set_ece(qp, &mine), -EINVAL);
		RC_CHECK_EQ(dr_destroy_qp(qp), 0);
		/* UC and UD offer nothing */
		ia.qp_type = DR_QPT_UC;
		uc = dr_create_qp(pd, &ia);
		RC_CHECK(uc != NULL);
		if (uc != NULL) {
			RC_CHECK_EQ(dr_query_ece(uc, &ece), 0);
			RC_CHECK_EQ(ece.options, 0);
			mine.comp_mask = 0;
			mine.options = DR_ECE_OPT_SELECTIVE_REPEAT;
			RC_CHECK_EQ(dr_set_ece(uc, &mine), 0);
			RC_CHECK_EQ(mine.options, 0);
			RC_CHECK_EQ(dr_destroy_qp(uc), 0);
		}
	}
out:
	rc_disconnect(e);
}

/*
 * Packet @k of a 16-packet message lost once: with selective repeat on both
 * sides, the requester sends exactly one frame more than the message has
 * (the lost one again), the responder answers with a SACK and no PSN
 * sequence NAK; without, go-back-N resends from the lost one on.
 */
static void
test_one_loss(struct rc_env *e, bool sr_a, bool sr_b)
{
	const uint32_t npkts = 16, k = 5;
	bool inline_mode = getenv("DR_TEST_MODE") == NULL || strcmp(getenv("DR_TEST_MODE"), "inline") == 0;
	struct rc_qp_params p;
	char tag[96];

	rc_params_default(&p);
	p.sr[0] = sr_a;
	p.sr[1] = sr_b;
	for (unsigned int i = 0; i < RTE_DIM(ops); i++) {
		struct rc_xfer x = {
			.op = ops[i], .len = npkts * 1024, .nsge_l = 2, .nsge_r = 3, .seed = 300 + i,
			.settle_usec = 20000,
		};
		bool both = sr_a && sr_b;
		unsigned int data, sacks, naks = 0;

		if (rc_connect(e, &p) != 0) {
			RC_CHECK_MSG(0, "connect");
			return;
		}
		RC_CHECK_EQ(dr_qp_sr(dr_qp_impl(e->s[0].qp)), sr_a);
		RC_CHECK_EQ(dr_qp_sr(dr_qp_impl(e->s[1].qp)), sr_b);
		rc_rule_add(e, RC_A2B, -1, k, 0, 1, RC_DROP);
		e->logging = true;
		snprintf(tag, sizeof(tag), "one loss, SR %d/%d, %s", sr_a, sr_b, dr_wr_opcode_table[ops[i]].name);
		rc_xfer_run(e, &x, tag);
		data = logged(e, RC_A2B, -1);
		sacks = logged(e, RC_B2A, DR_OPCODE_SACK);
		for (uint32_t j = 0; j < e->nlog; j++)
			naks += e->log[j].dir == RC_B2A && e->log[j].opcode == DR_OPCODE(RC, ACK) &&
				dr_aeth_syn_type(e->log[j].syn) == DR_AETH_NAK;
		if (both) {
			/*
			 * inline (one thread, deterministic): exactly the lost one again;
			 * with worker lcores on this 2-CPU machine a round can stall past
			 * the recovery timeout, and a probe or a second resend goes out
			 */
			if (inline_mode)
				RC_CHECK_MSG(data == npkts + 1, "%s: %u frames for %u packets", tag, data, npkts);
			else
				RC_CHECK_MSG(data >= npkts + 1 && data <= npkts + 4, "%s: %u frames for %u packets",
					     tag, data, npkts);
			RC_CHECK_MSG(sacks >= 1 && naks == 0, "%s: %u SACKs, %u NAKs", tag, sacks, naks);
		} else {
			/*
			 * go-back-N: the lost packet and every one after it again (inline:
			 * all 16 were out before the NAK came; with worker lcores at least
			 * the one whose arrival made the NAK). A responder with selective
			 * repeat alone (below) NAKs nothing: the RTO sends the lost one
			 * again alone (F-RTO), the rest was held, and all is acknowledged
			 */
			if (sr_b)
				RC_CHECK_MSG(data >= npkts + 1, "%s: %u frames for %u packets", tag, data, npkts);
			else
				RC_CHECK_MSG(data >= (inline_mode ? 2 * npkts - k : npkts + 2),
					     "%s: %u frames for %u packets", tag, data, npkts);
			/*
			 * a responder that took the ECE on its own (an application error:
			 * ibv_set_ece(3) on both sides) SACKs; the requester takes them
			 * as ACKs and recovers by its timer: still every byte once
			 */
			if (!sr_b)
				RC_CHECK_MSG(sacks == 0, "%s: %u SACKs from a responder without it", tag, sacks);
		}
		rc_disconnect(e);
	}
}

/*
 * Every 7th first transmission lost on 1 MiB of each opcode, and a random
 * loss of the SACKs and ACKs coming back: every byte arrives once (rc_xfer_run's
 * checks) and what is resent stays near what was lost.
 */
static void
test_many_losses(struct rc_env *e)
{
	static const enum dr_wr_opcode all[] = {
		DR_WR_SEND, DR_WR_RDMA_WRITE, DR_WR_RDMA_WRITE_WITH_IMM, DR_WR_RDMA_READ,
	};
	bool inline_mode = getenv("DR_TEST_MODE") == NULL || strcmp(getenv("DR_TEST_MODE"), "inline") == 0;
	struct rc_qp_params p;
	char tag[96];

	rc_params_default(&p);
	p.sr[0] = p.sr[1] = true;
	for (unsigned int i = 0; i < RTE_DIM(all); i++) {
		bool read = all[i] == DR_WR_RDMA_READ;
		struct rc_xfer x = {
			.op = all[i], .len = 1u << 20, .nsge_l = 4, .nsge_r = 3, .seed = 500 + i,
			.usec = 60000000, .settle_usec = 20000,
		};
		uint64_t needed = (1u << 20) / 1024;
		struct rc_rule *r;

		if (rc_connect(e, &p) != 0) {
			RC_CHECK_MSG(0, "connect");
			return;
		}
		r = rc_rule_add(e, read ? RC_B2A : RC_A2B, -1, 0, 7, 0, RC_DROP);
		r->fresh = true;
		r = rc_rule_add(e, read ? RC_A2B : RC_B2A, -1, 0, 10, 0, RC_DROP);
		r->random = true;
		r->seed = 11 + i;
		snprintf(tag, sizeof(tag), "SR: every 7th lost, 1 MiB %s", dr_wr_opcode_table[all[i]].name);
		rc_xfer_run(e, &x, tag);
		if (!read) {
			/*
			 * one resend per loss (needed / 7), a few more for resends lost
			 * again; a tail loss that only the ACK timer finds costs its
			 * go-back-N, at most the window (the BDP cap). With worker
			 * lcores sharing this machine's 2 CPUs a stalled round lets an
			 * RTO pass before the SACK is read: up to one more resend a loss.
			 */
			const struct dr_qp_impl *qa = dr_qp_impl(e->s[0].qp);
			uint64_t sent = e->frames[RC_A2B], lost = e->dropped[RC_A2B];
			uint64_t bound = needed + lost + (inline_mode ? lost / 8 : lost) +
					 qa->cnt.ack_timeouts * qa->window;

			RC_CHECK_MSG(sent <= bound, "%s: %" PRIu64 " frames sent for %" PRIu64 " (%" PRIu64
				     " lost, %" PRIu64 " timeouts)", tag, sent, needed, lost, qa->cnt.ack_timeouts);
			RC_CHECK_MSG(qa->cnt.sr_resends + qa->cnt.ack_timeouts * qa->window >= lost, "%s: %" PRIu64 " resent alone for %" PRIu64 " lost",
				     tag, qa->cnt.sr_resends, lost);
		}
		if (getenv("DR_TEST_VERBOSE") != NULL)
			printf("%s: %" PRIu64 "/%" PRIu64 " frames, %" PRIu64 "/%" PRIu64 " dropped\n", tag,
			       e->frames[0], e->frames[1], e->dropped[0], e->dropped[1]);
		rc_disconnect(e);
	}
}

static void
body(struct rc_env *e)
{
	test_ece_api(e);
	test_one_loss(e, true, true);
	test_one_loss(e, true, false);
	test_one_loss(e, false, true);
	test_one_loss(e, false, false);
	test_many_losses(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("rc_sr", argv[0], 1500, body);
}
