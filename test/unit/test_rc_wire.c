/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The wire of the RC transport tests (test_rc.h): frames carried from one
 * context's tx rings to the other's rx rings, queue to queue, through the
 * rules that drop, duplicate, corrupt, swap or delay chosen ones; a chain
 * goes on as one flat copy, as a link carries bytes.
 */

#include <stdio.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dr_icrc.h"
#include "dr_psn.h"
#include "test_rc.h"

/*
 * The random rules' draws: a 32-bit state stepped by the golden ratio and
 * hashed (the finaliser of MurmurHash3). An LCG taken modulo a small number
 * is not random enough here: a go-back-N resends the same window round
 * after round, and the LCG gave the first frame of each round the same
 * fate (a QP that lost its oldest FETCH_ADD 6 rounds of 8 and ran out of
 * retries).
 */
static uint32_t
rc_rand(uint32_t *state)
{
	uint32_t z = (*state += 0x9E3779B9u);

	z = (z ^ (z >> 16)) * 0x85EBCA6Bu;
	z = (z ^ (z >> 13)) * 0xC2B2AE35u;
	return z ^ (z >> 16);
}

void
rc_wire_flush(struct rc_env *e)
{
	struct rte_mbuf *m;
	int i;

	for (i = 0; i < 2; i++) {
		/* DR_TEST_IO=app: what the NF has not sent yet is on the wire too */
		while (rc_io_app && e->s[i].ctx != NULL && dr_tx_drain(e->s[i].ctx, &m, 1) == 1)
			rte_pktmbuf_free(m);
		for (unsigned int q = 0; q < rc_queues(); q++) {
			while (rte_ring_sc_dequeue(e->s[i].tx[q], (void **)&m) == 0)
				rte_pktmbuf_free(m);
			while (rte_ring_sc_dequeue(e->s[i].rx[q], (void **)&m) == 0)
				rte_pktmbuf_free(m);
		}
		if (e->held[i] != NULL) {
			rte_pktmbuf_free(e->held[i]);
			e->held[i] = NULL;
		}
		while (e->ndelayed[i] > 0)
			rte_pktmbuf_free(e->delayed[i][--e->ndelayed[i]]);
		while (e->neck[i].n > 0) {
			rte_pktmbuf_free(e->neck[i].q[e->neck[i].head]);
			e->neck[i].head = (e->neck[i].head + 1) % RC_NECK_MAX;
			e->neck[i].n--;
		}
	}
	rc_twin_flush(e);
}

void
rc_rules_clear(struct rc_env *e)
{
	memset(e->rules, 0, sizeof(e->rules));
	e->nrules = 0;
}

struct rc_rule *
rc_rule_add(struct rc_env *e, int dir, int opcode, uint32_t skip, uint32_t every, uint32_t count,
	    enum rc_action action)
{
	struct rc_rule *r;

	if (e->nrules >= RC_MAX_RULES)
		return NULL;
	r = &e->rules[e->nrules++];
	memset(r, 0, sizeof(*r));
	r->dir = dir;
	r->opcode = opcode;
	r->skip = skip;
	r->every = every;
	r->count = count;
	r->action = action;
	return r;
}

/*
 * ECN CE (RFC 3168 section 5) in the frame's IP header, as a switch marks
 * it: the ICRC does not cover the field (A17.3.3); an IPv4 header checksum
 * is computed again.
 */
static void
mark_ce(struct rte_mbuf *m, const struct dr_pkt_info *pi)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, pi->l3_off);

	if (pi->ip_ver == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;

		h->type_of_service |= DR_ECN_CE;
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	} else {
		ip[1] |= DR_ECN_CE << 4;        /* the traffic class's low bits: byte 1, bits 5..4 */
	}
}

/* The first rule that acts on this frame decides. */
static enum rc_action
wire_decide(struct rc_env *e, int dir, const struct dr_pkt_info *pi, bool roce)
{
	uint32_t psn = roce ? dr_bth_psn(dr_pkt_bth(pi)) : 0;
	bool fresh = false;
	unsigned int i;

	if (roce) {
		/* a first transmission: beyond every PSN seen so far in this direction */
		fresh = !e->any_psn[dir] || dr_psn_after(psn, e->max_psn[dir]);
		if (fresh) {
			e->max_psn[dir] = psn;
			e->any_psn[dir] = true;
		}
	}
	for (i = 0; i < e->nrules; i++) {
		struct rc_rule *r = &e->rules[i];
		uint32_t k;

		if (r->dir != RC_ANY && r->dir != dir)
			continue;
		if (!roce || (r->opcode >= 0 && r->opcode != pi->opcode))
			continue;
		if (r->fresh && !fresh)
			continue;
		k = r->seen++;
		if (k < r->skip)
			continue;
		if (r->count != 0 && r->done >= r->count)
			continue;
		if (r->random) {
			if (rc_rand(&r->seed) % (r->every != 0 ? r->every : 1) != 0)
				continue;
		} else if (r->every > 1 && (k - r->skip) % r->every != r->every - 1) {
			continue;
		}
		r->done++;
		return r->action;
	}
	return RC_PASS;
}

void
rc_bottleneck(struct rc_env *e, enum rc_dir dir, uint64_t gap_us, unsigned int depth)
{
	e->neck[dir].gap = rte_get_tsc_hz() / 1000000u * gap_us;
	e->neck[dir].depth = RTE_MIN(depth, (unsigned int)RC_NECK_MAX);
	e->neck[dir].next_at = 0;
	e->neck_drops[dir] = 0;
}

/* To the peer's rx queue of the tx queue being carried (held frames: of the one they go with). */
static void
wire_deliver(struct rc_env *e, int dir, struct rte_mbuf *m)
{
	struct rte_ring *dst = e->s[dir == RC_A2B ? 1 : 0].rx[e->carry_q];
	struct rte_mbuf *copy = dir == RC_A2B && e->twin.ctx != NULL ? rc_twin_copy(e, m) : NULL;

	if (rte_ring_sp_enqueue(dst, m) != 0) {
		rte_pktmbuf_free(m);    /* a full link drops, as a real one would */
		rte_pktmbuf_free(copy);
		return;
	}
	if (copy != NULL)
		rc_twin_put(e, copy);   /* B's oracle gets the same frame (test_rc_twin.c) */
}

/* A frame the rules let through: delivered, or into the direction's bottleneck (drop-tail). */
static void
wire_put(struct rc_env *e, int dir, struct rte_mbuf *m)
{
	struct rc_neck *nk = &e->neck[dir];

	if (nk->gap == 0) {
		wire_deliver(e, dir, m);
		return;
	}
	if (nk->n >= nk->depth) {
		e->dropped[dir]++;
		e->neck_drops[dir]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (nk->n == 0)                 /* an idle bottleneck serves its first frame a gap from now */
		nk->next_at = RTE_MAX(nk->next_at, rc_clock_now() + nk->gap);
	nk->q[(nk->head + nk->n) % RC_NECK_MAX] = m;
	nk->n++;
}

/* The frames whose time came leave the bottleneck, oldest first. */
static void
neck_release(struct rc_env *e, int dir)
{
	struct rc_neck *nk = &e->neck[dir];
	uint64_t now = rc_clock_now();

	while (nk->n > 0 && now >= nk->next_at) {
		struct rte_mbuf *m = nk->q[nk->head];

		nk->head = (nk->head + 1) % RC_NECK_MAX;
		nk->n--;
		nk->next_at += nk->gap;
		e->carry_q = 0;
		wire_deliver(e, dir, m);
	}
}

/*
 * Carry every frame waiting in the source's tx rings to the destination's rx
 * rings, queue q to queue q. Held and delayed frames go out with the queue
 * being carried then (queue 0 when they start or end a carry).
 */
static void
wire_carry(struct rc_env *e, int dir)
{
	struct rc_side *src = &e->s[dir == RC_A2B ? 0 : 1];
	struct rte_mbuf *delayed[RTE_DIM(e->delayed[0])];
	unsigned int ndelayed = e->ndelayed[dir], i, q;
	struct rte_mbuf *m;
	bool carried = false;

	if (rc_io_app)
		rc_nf_tx(e, dir == RC_A2B ? 0 : 1);     /* the source's NF sends what its context built */
	neck_release(e, dir);
	/* the frames RC_DELAY held in the last carry go first (taken now: this carry may delay others) */
	memcpy(delayed, e->delayed[dir], ndelayed * sizeof(delayed[0]));
	e->ndelayed[dir] = 0;
	e->carry_q = 0;
	for (i = 0; i < ndelayed; i++)
		wire_put(e, dir, delayed[i]);
	for (q = 0; q < rc_queues(); q++) {
		e->carry_q = q;
		while (rte_ring_sc_dequeue(src->tx[q], (void **)&m) == 0) {
			struct dr_pkt_info pi;
			bool roce;

			/*
			 * A chain (headers, a payload attached zero-copy from the
			 * sender's memory, ICRC) goes on as the bytes a link
			 * carries: one flat copy, the sender's mbufs freed as a
			 * PMD frees them once sent (a corrupting rule then flips
			 * a byte of the frame, never of the sender's memory)
			 */
			if (m->nb_segs > 1) {
				struct rte_mbuf *flat = rte_pktmbuf_copy(m, e->copy_pool, 0, UINT32_MAX);

				rte_pktmbuf_free(m);
				if (flat == NULL) {
					e->dropped[dir]++;
					continue;
				}
				m = flat;
			}
			roce = dr_pkt_parse(m, &pi) == DR_PKT_OK;
			if (roce && e->tamper != NULL &&
			    e->tamper(e, dir, rte_pktmbuf_mtod(m, uint8_t *), &pi)) {
				/* a flat frame (above): its ICRC over the new bytes, as the wire carries it */
				rte_le32_t icrc = rte_cpu_to_le_32(dr_icrc_compute(m, &pi));

				memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, pi.frame_len - DR_ICRC_BYTES), &icrc,
				       DR_ICRC_BYTES);
			}
			enum rc_action act = wire_decide(e, dir, &pi, roce);

			e->frames[dir]++;
			if (e->logging && roce && e->nlog < RC_MAX_LOG) {
				struct rc_log_entry *l = &e->log[e->nlog++];

				l->dir = (uint8_t)dir;
				l->opcode = pi.opcode;
				l->action = (uint8_t)act;
				l->psn = dr_bth_psn(dr_pkt_bth(&pi));
				l->paylen = pi.paylen;
				l->se = dr_bth_se(dr_pkt_bth(&pi));
				l->ackreq = dr_bth_ackreq(dr_pkt_bth(&pi));
				l->syn = (pi.mask & DR_OPF_AETH) ? dr_aeth_syndrome(dr_pkt_aeth(&pi)) : 0;
				l->tclass = pi.tclass;
				l->becn = dr_bth_becn(dr_pkt_bth(&pi));
				l->dqpn = dr_bth_qpn(dr_pkt_bth(&pi));
			}
			switch (act) {
			case RC_DROP:
				e->dropped[dir]++;
				rte_pktmbuf_free(m);
				continue;
			case RC_DUP: {
				struct rte_mbuf *c = rte_pktmbuf_copy(m, e->copy_pool, 0, UINT32_MAX);

				wire_put(e, dir, m);
				if (c != NULL)
					wire_put(e, dir, c);
				break;
			}
			case RC_CORRUPT: {
				/* the last byte before the ICRC: payload, pad or an extension header */
				uint8_t *b = rte_pktmbuf_mtod_offset(m, uint8_t *, pi.frame_len - DR_ICRC_BYTES - 1);

				*b ^= 0x5A;
				wire_put(e, dir, m);
				break;
			}
			case RC_DUP_LATE: {
				struct rte_mbuf *c = rte_pktmbuf_copy(m, e->copy_pool, 0, UINT32_MAX);

				if (c != NULL && e->ndelayed[dir] < RTE_DIM(e->delayed[dir]))
					e->delayed[dir][e->ndelayed[dir]++] = c;
				else
					rte_pktmbuf_free(c);
				wire_put(e, dir, m);
				break;
			}
			case RC_MARK_CE:
				mark_ce(m, &pi);
				wire_put(e, dir, m);
				break;
			case RC_DELAY:
				if (e->ndelayed[dir] < RTE_DIM(e->delayed[dir])) {
					e->delayed[dir][e->ndelayed[dir]++] = m;
					continue;
				}
				wire_put(e, dir, m);     /* no room to hold it: as if passed */
				break;
			case RC_SWAP:
				if (e->held[dir] == NULL) {
					e->held[dir] = m;
					continue;      /* goes after the next one */
				}
				/* fall through */
			default:
				wire_put(e, dir, m);
				break;
			}
			carried = true;
			if (e->held[dir] != NULL && e->held[dir] != m) {
				wire_put(e, dir, e->held[dir]);
				e->held[dir] = NULL;
			}
		}
	}
	e->carry_q = 0;
	/* a held frame with nothing behind it goes at the end of the next round */
	if (!carried && e->held[dir] != NULL) {
		wire_put(e, dir, e->held[dir]);
		e->held[dir] = NULL;
	}
	if (rc_io_app)
		rc_nf_rx(e, dir == RC_A2B ? 1 : 0);     /* the destination's NF hands them over */
}

void
rc_carry(struct rc_env *e, enum rc_dir dir)
{
	if (dir == RC_B2A && e->twin.ctx != NULL)
		rc_twin_check(e);       /* what B sends, against what its oracle sends */
	wire_carry(e, dir);
}

void
rc_wirelog_print(const struct rc_env *e, uint32_t max)
{
	for (uint32_t j = 0; j < e->nlog && j < max; j++)
		printf("%s %-32s psn %#x len %u act %u syn %#x\n", e->log[j].dir ? "B>A" : "A>B",
		       dr_opcode_name(e->log[j].opcode), e->log[j].psn, e->log[j].paylen, e->log[j].action,
		       e->log[j].syn);
}
