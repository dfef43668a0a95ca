/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Responses to nothing sent (IBA 9.7.5.2.x: a response outside the PSNs
 * outstanding is dropped; rxe's completer drops it as a duplicate). A
 * third party on the link that knows the QP numbers and addresses (they
 * are on the wire) but not the PSN a request went out with sends the
 * requester an ACK, a class C NAK, a READ response or an atomic ACK whose
 * PSN lies ahead of every request sent. Taken, an ACK would acknowledge as
 * a coalesced ACK every WQE outstanding - WRITEs the responder never got
 * would complete successfully, and the peers' PSNs would part for good - and
 * a NAK would fail the QP. Each is dropped and counted (rx_stale_resp): the
 * WRITEs the wire lost are sent again and land, and the QP stays in RTS.
 * (Found by test_libfabric_hostile.py's spray: one fi_pingpong run in 16
 * hung with the server's requester acknowledged past the client's ePSN.)
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ip.h>

#include "dr_icrc.h"
#include "dr_psn.h"
#include "test_rc.h"

#define WRS 4
#define MSG 64
#define GHOST_AHEAD 0x10000u        /* PSNs ahead of anything sent (within the 2^23 "after" half) */

static uint8_t ack_frame[256];      /* an ACK of B's, as the wire carried it */
static uint32_t ack_len;

/* The wire's hook: keep a copy of B's first ACK (the template of every ghost). */
static bool
keep_ack(struct rc_env *e, int dir, uint8_t *frame, const struct dr_pkt_info *pi)
{
	RTE_SET_USED(e);
	if (dir == RC_B2A && ack_len == 0 && pi->opcode == DR_OPCODE(RC, ACK) && pi->frame_len <= sizeof(ack_frame)) {
		memcpy(ack_frame, frame, pi->frame_len);
		ack_len = pi->frame_len;
	}
	return false;
}

/*
 * Into A's receive queue: B's ACK made into @opcode with PSN @psn and AETH
 * syndrome @syn (and the 8 bytes of an AtomicAckETH, or @paylen bytes of
 * READ response data), its lengths and ICRC right: a frame A's checks pass
 * up to the completer.
 */
static void
inject(struct rc_env *e, uint8_t opcode, uint32_t psn, uint8_t syn, uint32_t paylen)
{
	const struct dr_opcode_info *info = &dr_opcode_table[opcode];
	uint32_t hdr = info->length, extra = paylen + (-paylen & 3u);
	struct rte_mbuf *m = rte_pktmbuf_alloc(e->copy_pool);
	struct dr_pkt_info pi;
	uint8_t *f;
	uint16_t v;

	RC_CHECK(m != NULL && ack_len != 0);
	if (m == NULL || ack_len == 0)
		return;
	/* Ethernet, IPv4, UDP from B's ACK; the BTH and AETH of it; the rest zeroes */
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(42 + hdr + extra + DR_ICRC_BYTES));
	memset(f, 0, 42 + hdr + extra + DR_ICRC_BYTES);
	memcpy(f, ack_frame, 42 + 16);
	f[42] = opcode;
	f[43] = (uint8_t)((f[43] & 0xCF) | ((-paylen & 3u) << 4));
	f[42 + 9] = (uint8_t)(psn >> 16);
	f[42 + 10] = (uint8_t)(psn >> 8);
	f[42 + 11] = (uint8_t)psn;
	f[42 + 12] = syn;
	v = rte_cpu_to_be_16((uint16_t)(20 + 8 + hdr + extra + DR_ICRC_BYTES));
	memcpy(f + 14 + 2, &v, 2);
	v = rte_cpu_to_be_16((uint16_t)(8 + hdr + extra + DR_ICRC_BYTES));
	memcpy(f + 14 + 20 + 4, &v, 2);
	f[14 + 10] = f[14 + 11] = 0;
	v = rte_ipv4_cksum((const struct rte_ipv4_hdr *)(f + 14));
	memcpy(f + 14 + 10, &v, 2);
	RC_CHECK_EQ(dr_pkt_parse(m, &pi), DR_PKT_OK);
	{
		rte_le32_t icrc = rte_cpu_to_le_32(dr_icrc_compute(m, &pi));

		memcpy(f + pi.frame_len - DR_ICRC_BYTES, &icrc, DR_ICRC_BYTES);
	}
	RC_CHECK_EQ(rte_ring_sp_enqueue(e->s[0].rx[0], m), 0);
}

/* A's responses dropped as answering nothing outstanding, all its workers. */
static uint64_t
stale_count(const struct rc_env *e)
{
	return dr_ctx_stats_sum(e->s[0].ctx).rx_stale_resp;
}

static void
ghosts(struct rc_env *e, const char *what, uint8_t opcode, uint8_t syn, uint32_t paylen)
{
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct rc_wcs w = { .n = 0 };
	struct dr_sge sge;
	uint64_t stale0;
	int i;

	rc_params_default(&p);
	p.timeout = 14;                          /* 67 ms of the wire's clock */
	RC_CHECK_EQ(rc_connect(e, &p), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &src, WRS * MSG, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[1], &dst, (WRS + 1) * MSG, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE), 0);
	rc_fill(src.p, WRS * MSG, 41);
	/* one WRITE through, for B's ACK: the ghosts' template */
	ack_len = 0;
	e->tamper = keep_ack;
	rc_sges(&src, 0, MSG, 1, &sge);
	RC_CHECK_EQ(rc_post_send(&e->s[0], 100, DR_WR_RDMA_WRITE, &sge, 1, 0,
				 (uint64_t)(uintptr_t)(dst.p + WRS * MSG), dst.mr->rkey, 0), 0);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &w, 1, 5000000));
	e->tamper = NULL;
	RC_CHECK(ack_len != 0);
	/* the wire loses every request from now on; A has WRS WRITEs outstanding */
	rc_rule_add(e, RC_A2B, -1, 0, 1, 0, RC_DROP);
	for (i = 0; i < WRS; i++) {
		rc_sges(&src, (size_t)i * MSG, MSG, 1, &sge);
		RC_CHECK_EQ(rc_post_send(&e->s[0], (uint64_t)i, DR_WR_RDMA_WRITE, &sge, 1, 0,
					 (uint64_t)(uintptr_t)(dst.p + (size_t)i * MSG), dst.mr->rkey, 0), 0);
	}
	for (i = 0; i < 20; i++)
		rc_round(e);
	stale0 = stale_count(e);
	/* the ghosts: ahead of every PSN sent */
	for (i = 0; i < 8; i++)
		inject(e, opcode, (p.psn_a + GHOST_AHEAD + (uint32_t)i * 977) & DR_PSN_MASK, syn, paylen);
	w.n = 0;
	for (i = 0; i < 50; i++) {
		rc_round(e);
		rc_poll(e->s[0].scq, &w);
	}
	RC_CHECK_MSG(w.n == 0, "%s: %u WRs completed on a ghost (the first: status %d)", what, w.n,
		     w.n ? w.wc[0].status : 0);
	RC_CHECK_MSG(rc_qp_state(e->s[0].qp) == DR_QPS_RTS, "%s: the QP left RTS", what);
	/* the wire works again: the WRITEs are sent again (timeout) and land */
	rc_rules_clear(e);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &w, WRS, 10000000));
	RC_CHECK_EQ(w.n, WRS);
	for (unsigned int k = 0; k < w.n; k++)
		RC_CHECK_EQ(w.wc[k].status, DR_WC_SUCCESS);
	RC_CHECK_MSG(memcmp(dst.p, src.p, WRS * MSG) == 0, "%s: the WRITEs did not land", what);
	RC_CHECK_MSG(stale_count(e) - stale0 >= 8, "%s: %" PRIu64 " responses counted stale", what,
		     stale_count(e) - stale0);
	printf("%s: 8 ghosts dropped, %d WRITEs sent again and checked\n", what, WRS);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

static void
body(struct rc_env *e)
{
	ghosts(e, "ghost ACK", DR_OPCODE(RC, ACK), dr_aeth_syn_make(DR_AETH_ACK, DR_AETH_CREDIT_INVALID), 0);
	ghosts(e, "ghost NAK (remote access)", DR_OPCODE(RC, ACK), dr_aeth_syn_make(DR_AETH_NAK, DR_NAK_REM_ACCESS_ERR), 0);
	ghosts(e, "ghost PSN sequence NAK", DR_OPCODE(RC, ACK), dr_aeth_syn_make(DR_AETH_NAK, DR_NAK_PSN_SEQ_ERR), 0);
	ghosts(e, "ghost atomic ACK", DR_OPCODE(RC, ATOMIC_ACK), dr_aeth_syn_make(DR_AETH_ACK, DR_AETH_CREDIT_INVALID), 0);
	ghosts(e, "ghost READ response", DR_OPCODE(RC, READ_RESP_ONLY),
	       dr_aeth_syn_make(DR_AETH_ACK, DR_AETH_CREDIT_INVALID), 64);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_ghost", argv[0], 1500, body);
}
