/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * B's twin (test_rc.h, struct rc_env.twin): the general path beside B's
 * express path, on the same frames. A third context opens on a ring port
 * of its own with B's IPv4 and IPv6 addresses and the express path off;
 * its QP is connected to A's QP as B's is (the same QP number and PSNs);
 * the wire hands it a copy of every frame it delivers to B, after its rules
 * (drops, duplicates, corruptions, reordering act on both alike). What the
 * twin sends never reaches A: before each B-to-A carry its frames are
 * compared with B's, byte for byte, and freed.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dr_icrc.h"
#include "dr_pkt.h"
#include "test_rc.h"

#define TWIN_REPORTS 10          /* mismatches printed in full */
#define TWIN_BURST 8192          /* the wire rings' size: a carry never holds more */

static struct rte_mbuf *twin_b[TWIN_BURST], *twin_t[TWIN_BURST];
static uint8_t flat_b[DR_MBUF_DATA_ROOM], flat_t[DR_MBUF_DATA_ROOM];

int
rc_twin_open(struct rc_env *e, uint32_t link_mtu)
{
	struct rte_ether_addr mac_a = e->s[0].ctx->mac;

	if (strcmp(rc_mode_name(), "inline") != 0) {
		fprintf(stderr, "twin: inline mode only (its rounds must be B's)\n");
		return -1;
	}
	if (rc_side_port(&e->twin, "rc_c") != 0)
		return -1;
	e->twin.ctx = rc_side_open(&e->twin, RTE_BE32(0x0A000002), link_mtu, false);
	if (e->twin.ctx == NULL || dr_query_gid(e->twin.ctx, 1, 1, &e->twin.gid) != 0 ||
	    dr_query_gid(e->twin.ctx, 1, 2, &e->twin.gid6) != 0)
		return -1;
	e->twin.pd = dr_alloc_pd(e->twin.ctx);
	if (e->twin.pd == NULL)
		return -1;
	/* A's MAC as B knows it (net_ring's null MAC: the harness's stand-in) */
	if (!rte_is_valid_assigned_ether_addr(&mac_a))
		mac_a = (struct rte_ether_addr){ { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0A } };
	if (dr_add_neighbour(e->twin.ctx, &e->s[0].gid, &mac_a) != 0 ||
	    dr_add_neighbour(e->twin.ctx, &e->s[0].gid6, &mac_a) != 0)
		return -1;
	return 0;
}

int
rc_twin_connect(struct rc_env *e, const struct rc_qp_params *p)
{
	if (rc_qp_up(&e->twin, p, false) != 0 || rc_qp_rtr_rts(&e->twin, &e->s[0], p, false) != 0)
		return -1;
	if (e->twin.qp->qp_num != e->s[1].qp->qp_num) {
		fprintf(stderr, "twin: QP 0x%x where B has 0x%x\n", e->twin.qp->qp_num, e->s[1].qp->qp_num);
		return -1;
	}
	return 0;
}

void
rc_twin_disconnect(struct rc_env *e)
{
	rc_side_qp_destroy(&e->twin, "twin");
}

void
rc_twin_close(struct rc_env *e)
{
	int rc;

	if (e->twin.ctx == NULL)
		return;
	rc_twin_flush(e);
	rc_twin_shadow_free(e);
	if (e->twin.pd != NULL && (rc = dr_dealloc_pd(e->twin.pd)) != 0)
		fprintf(stderr, "twin: dealloc_pd: %s\n", strerror(-rc));
	if ((rc = dr_close_device(e->twin.ctx)) != 0)
		fprintf(stderr, "twin: close_device: %s\n", strerror(-rc));
	e->twin.ctx = NULL;
	e->twin.pd = NULL;
}

struct rte_mbuf *
rc_twin_copy(struct rc_env *e, struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, e->copy_pool, 0, UINT32_MAX);

	if (c == NULL) {
		e->twin_mismatches++;   /* the twin would miss a frame: the comparison means nothing */
		fprintf(stderr, "twin: no mbuf to copy a frame into\n");
	}
	return c;
}

void
rc_twin_put(struct rc_env *e, struct rte_mbuf *m)
{
	if (rte_ring_sp_enqueue(e->twin.rx[e->carry_q], m) != 0) {
		rte_pktmbuf_free(m);
		e->twin_mismatches++;
		fprintf(stderr, "twin: its rx ring is full\n");
	}
}

/*
 * The IPv4 identification is a per-thread counter (dr_qp_pkt.c) that B and
 * the twin share: the twin's frame @t (@len bytes, a copy) takes @ref's,
 * with the header checksum and the ICRC that follow from it.
 */
static void
same_ip_id(uint8_t *t, uint32_t len, const uint8_t *ref, uint32_t ref_len)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(t + RTE_ETHER_HDR_LEN);
	struct dr_pkt_info pi;

	if (len < RTE_ETHER_HDR_LEN + sizeof(*ip) || ref_len < RTE_ETHER_HDR_LEN + sizeof(*ip) ||
	    t[12] != 0x08 || t[13] != 0x00 || dr_pkt_parse_buf(t, len, &pi) != DR_PKT_OK)
		return;
	memcpy(&ip->packet_id, ref + RTE_ETHER_HDR_LEN + 4, sizeof(ip->packet_id));
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (pi.frame_len <= len) {
		rte_le32_t icrc = rte_cpu_to_le_32(dr_icrc_compute_buf(t, &pi));

		memcpy(t + pi.frame_len - DR_ICRC_BYTES, &icrc, DR_ICRC_BYTES);
	}
}

/* The first byte where frames @a (@na bytes) and @b (@nb) differ, or -1. */
static long
first_difference(const uint8_t *a, uint32_t na, const uint8_t *b, uint32_t nb)
{
	uint32_t n = RTE_MIN(na, nb);

	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return na == nb ? -1 : (long)n;
}

static void
describe(const char *who, const uint8_t *f, uint32_t len)
{
	struct dr_pkt_info pi;

	if (dr_pkt_parse_buf(f, len, &pi) == DR_PKT_OK)
		fprintf(stderr, "  %s: %s psn %#x, %u bytes of payload, frame %u bytes\n", who,
			dr_opcode_name(pi.opcode), dr_bth_psn(dr_pkt_bth(&pi)), pi.paylen, len);
	else
		fprintf(stderr, "  %s: a frame of %u bytes that is not RoCEv2\n", who, len);
}

/*
 * The responder's state of B's QP and of the twin's agree, field by field
 * (what is not an address of its own context): after every round, not
 * only at the end, so that state the wire does not show yet is compared.
 */
static void
same_resp_state(struct rc_env *e)
{
	const struct dr_resp_state *b, *t;

	if (e->s[1].qp == NULL || e->twin.qp == NULL)
		return;
	b = &dr_qp_impl(e->s[1].qp)->resp;
	t = &dr_qp_impl(e->twin.qp)->resp;
#define SAME(f) do { \
	if (b->f != t->f && e->twin_mismatches++ < TWIN_REPORTS) \
		fprintf(stderr, "twin: resp." #f " is 0x%" PRIx64 " on B, 0x%" PRIx64 " on its twin\n", \
			(uint64_t)b->f, (uint64_t)t->f); \
} while (0)
	SAME(epsn);
	SAME(msn);
	SAME(in_msg);
	SAME(have_rwqe);
	SAME(rcv_off);
	SAME(write_va);
	SAME(write_resid);
	SAME(write_rkey);
	SAME(ack_pending);
	SAME(ack_psn);
	SAME(ack_syndrome);
	SAME(nak_sent);
	SAME(atomic_ack_pending);
	SAME(dup_ack_psn);
	SAME(res_next);
	SAME(res_active);
	SAME(res_qhead);
	SAME(res_qtail);
	SAME(unacked);
	SAME(pend_head);
	SAME(pend_tail);
	SAME(sr_count);
	SAME(uc_drop);
#undef SAME
	if (dr_qp_impl(e->s[1].qp)->rq.tail != dr_qp_impl(e->twin.qp)->rq.tail && e->twin_mismatches++ < TWIN_REPORTS)
		fprintf(stderr, "twin: the receive queues' tails differ\n");
}

void
rc_twin_check(struct rc_env *e)
{
	same_resp_state(e);
	for (unsigned int q = 0; q < rc_queues(); q++) {
		unsigned int nb = rte_ring_sc_dequeue_burst(e->s[1].tx[q], (void **)twin_b, TWIN_BURST, NULL);
		unsigned int nt = rte_ring_sc_dequeue_burst(e->twin.tx[q], (void **)twin_t, TWIN_BURST, NULL);

		if (nb != nt) {
			if (e->twin_mismatches++ < TWIN_REPORTS)
				fprintf(stderr, "twin: B (express path) sent %u frames, the general path %u\n", nb, nt);
		}
		for (unsigned int i = 0; i < RTE_MIN(nb, nt); i++) {
			const uint8_t *a = rte_pktmbuf_read(twin_b[i], 0, twin_b[i]->pkt_len, flat_b);
			const uint8_t *b = twin_t[i]->pkt_len <= sizeof(flat_t) &&
					   rte_pktmbuf_read(twin_t[i], 0, twin_t[i]->pkt_len, flat_t) != NULL ? flat_t : NULL;
			long d;

			if (b == flat_t && b != NULL && twin_t[i]->nb_segs == 1)
				memcpy(flat_t, rte_pktmbuf_mtod(twin_t[i], uint8_t *), twin_t[i]->pkt_len);
			if (a != NULL && b != NULL)
				same_ip_id(flat_t, twin_t[i]->pkt_len, a, twin_b[i]->pkt_len);
			d = a == NULL || b == NULL ? 0 : first_difference(a, twin_b[i]->pkt_len, b, twin_t[i]->pkt_len);

			e->twin_frames++;
			if (d < 0)
				continue;
			if (e->twin_mismatches++ < TWIN_REPORTS && a != NULL && b != NULL) {
				fprintf(stderr, "twin: frame %" PRIu64 " differs from byte %ld on\n", e->twin_frames, d);
				describe("B, express path", a, twin_b[i]->pkt_len);
				describe("general path", b, twin_t[i]->pkt_len);
			}
		}
		for (unsigned int i = 0; i < nt; i++)
			rte_pktmbuf_free(twin_t[i]);
		/* B's go on to A: back into its (emptied) tx ring, in order */
		if (rte_ring_sp_enqueue_bulk(e->s[1].tx[q], (void **)twin_b, nb, NULL) != nb) {
			fprintf(stderr, "twin: B's frames could not go back to its tx ring\n");
			rte_pktmbuf_free_bulk(twin_b, nb);
		}
	}
}

void
rc_twin_flush(struct rc_env *e)
{
	struct rte_mbuf *m;

	if (e->twin.ctx == NULL)
		return;
	for (unsigned int q = 0; q < rc_queues(); q++) {
		while (rte_ring_sc_dequeue(e->twin.tx[q], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (rte_ring_sc_dequeue(e->twin.rx[q], (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
}

uint8_t *
rc_twin_shadow(struct rc_env *e, void *addr, size_t len)
{
	unsigned int i = e->ntwin_mem;

	if (i >= RTE_DIM(e->twin_mem))
		return NULL;
	e->twin_mem[i].shadow = malloc(len != 0 ? len : 1);
	if (e->twin_mem[i].shadow == NULL)
		return NULL;
	memcpy(e->twin_mem[i].shadow, addr, len);
	e->twin_mem[i].addr = addr;
	e->twin_mem[i].len = len;
	e->ntwin_mem++;
	return e->twin_mem[i].shadow;
}

void
rc_twin_shadow_free(struct rc_env *e)
{
	while (e->ntwin_mem > 0)
		free(e->twin_mem[--e->ntwin_mem].shadow);
}

/* Exchange the contents of B's memory and the twin's shadows. */
static void
twin_swap(struct rc_env *e)
{
	for (unsigned int i = 0; i < e->ntwin_mem; i++) {
		uint64_t *a = (uint64_t *)(void *)e->twin_mem[i].addr, *b = (uint64_t *)(void *)e->twin_mem[i].shadow;
		size_t n = e->twin_mem[i].len / sizeof(uint64_t);

		for (size_t k = 0; k < n; k++) {
			uint64_t t = a[k];

			a[k] = b[k];
			b[k] = t;
		}
	}
}

void
rc_twin_round(struct rc_env *e)
{
	twin_swap(e);
	dr_progress(e->twin.ctx);
	twin_swap(e);
}
