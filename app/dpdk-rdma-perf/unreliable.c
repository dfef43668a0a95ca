/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * -c UC and -c UD: what the receiver can know when the transport does not
 * retransmit. A UC responder drops a message that lost a packet (IBA 9.8:
 * no NAK, no retry; the receive is used by the next message); a UD QP
 * delivers each datagram that arrives whole, and a link may drop, double or
 * reorder them (IBA 9.8.x, C9-... UD has no ordering across packets to
 * check). So the receiver counts what came instead of waiting for all, and
 * --check identifies each message before verifying it: by its immediate
 * data (--send_with_imm, the message's number), else by its first bytes
 * against the patterns of the messages around the one expected next. A
 * bitmap per QP (when the iterations are known) tells doubles from new
 * messages; what never came is "lost". UC WRITEs leave no completion: the
 * server verifies every block of every slot is either the message's
 * pattern or untouched (zero), and counts the slots not whole as lost.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define FIND_BACK 64u        /* UD: a message may come this many after its successors */
#define FIND_AHEAD 4096u     /* ... or after this many lost */

int
perf_unrel_setup(struct perf *p)
{
	if (!perf_unreliable(p))
		return PERF_OK;
	/* a lost UC WRITE is told by its untouched slot: every message needs its own */
	if (p->server && p->check && p->test->verb == PERF_WRITE && p->test->kind == PERF_BW &&
	    (p->duration > 0 || p->qps[0].rx_slots < p->iters)) {
		perf_err("--check", "-c UC write tests check every message in a slot of its own: "
			 "-n at most %u at these sizes, and no -D", p->qps[0].rx_slots);
		return PERF_FAIL;
	}
	if (p->duration > 0)
		return PERF_OK;
	for (unsigned int i = 0; i < p->nb_qps; i++) {
		p->qps[i].seen = calloc((p->iters + 63) / 64, sizeof(uint64_t));
		if (p->qps[i].seen == NULL)
			return perf_api_err("calloc", ENOMEM);
	}
	return PERF_OK;
}

void
perf_unrel_free(struct perf *p)
{
	for (unsigned int i = 0; p->qps != NULL && i < p->nb_qps; i++) {
		free(p->qps[i].seen);
		p->qps[i].seen = NULL;
	}
}

void
perf_unrel_reset(struct perf *p, struct perf_qp *q)
{
	q->next_iter = q->unique = q->dups = 0;
	if (q->seen != NULL)
		memset(q->seen, 0, (p->iters + 63) / 64 * sizeof(uint64_t));
}

/* Message @j of @q matches @msg's first bytes (at most 8: one pattern block). */
static bool
starts_as(const struct perf *p, const struct perf_qp *q, const uint8_t *msg, uint64_t j)
{
	unsigned int want, got;

	return perf_check_verify(msg, RTE_MIN(p->size, 8u), perf_seed(p, !p->server, q->index, j),
				 &want, &got) == SIZE_MAX;
}

int
perf_unrel_identify(const struct perf *p, const struct perf_qp *q, const struct dr_wc *wc,
		    const uint8_t *msg, uint64_t *iter)
{
	uint64_t n = p->duration > 0 ? UINT64_MAX : p->iters;

	if (p->imm) {
		/* the low 32 bits of the number: the nearest message with them */
		uint32_t v = rte_be_to_cpu_32(wc->imm_data);
		int32_t d = (int32_t)(v - (uint32_t)q->next_iter);

		if (d < 0 && (uint64_t)-(int64_t)d > q->next_iter)
			return -1;
		*iter = (uint64_t)((int64_t)q->next_iter + d);
		return 0;
	}
	if (p->size == 0) {
		*iter = q->next_iter;            /* nothing to tell them apart: in order */
		return 0;
	}
	/*
	 * The nearest message whose first bytes these are: the expected one,
	 * then one later (losses) and one earlier (late, doubled) in turn. From
	 * 8 bytes on a wrong match is out of reach (64 bits of pattern); a
	 * shorter one may match a neighbour's pattern: the counts move a little,
	 * and a byte that happens to be a neighbour's passes (the ICRC already
	 * stood before it: this check is for what the transport places).
	 */
	for (uint64_t d = 0; d < FIND_AHEAD; d++) {
		uint64_t fwd = q->next_iter + d;

		if (fwd < n && starts_as(p, q, msg, fwd)) {
			*iter = fwd;
			return 0;
		}
		if (d > 0 && d <= FIND_BACK && d <= q->next_iter && q->next_iter - d < n &&
		    starts_as(p, q, msg, q->next_iter - d)) {
			*iter = q->next_iter - d;
			return 0;
		}
		if (fwd >= n && (d > FIND_BACK || d > q->next_iter))
			break;
	}
	return -1;
}

void
perf_unrel_arrived(struct perf_qp *q, uint64_t iter)
{
	if (q->seen != NULL) {
		uint64_t bit = 1ull << (iter % 64);

		if (q->seen[iter / 64] & bit) {
			q->dups++;
			return;
		}
		q->seen[iter / 64] |= bit;
	}
	q->unique++;
	if (iter >= q->next_iter)
		q->next_iter = iter + 1;
}

bool
perf_unrel_in_range(const struct perf *p, uint64_t iter)
{
	return p->duration > 0 || iter < p->iters;
}

uint64_t
perf_unrel_lost(const struct perf *p, uint64_t sent_per_qp)
{
	uint64_t lost = 0;

	for (unsigned int i = 0; i < p->nb_qps; i++)
		lost += sent_per_qp > p->qps[i].unique ? sent_per_qp - p->qps[i].unique : 0;
	return lost;
}

uint64_t
perf_unrel_unique(const struct perf *p)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < p->nb_qps; i++)
		n += p->qps[i].unique;
	return n;
}

uint64_t
perf_unrel_verify_writes(struct perf *p, uint64_t n)
{
	static const uint8_t zero[8];
	uint64_t cut = 0;

	for (unsigned int qi = 0; qi < p->nb_qps; qi++) {
		struct perf_qp *q = &p->qps[qi];

		for (uint64_t i = 0; i < n && i < q->rx_slots; i++) {
			const uint8_t *slot = q->rx + i * p->slot_size;
			uint64_t seed = perf_seed(p, false, qi, i);
			bool whole = true;

			for (uint32_t off = 0; off < p->size; off += 8) {
				uint32_t len = RTE_MIN(8u, p->size - off);
				unsigned int want, got;
				size_t bad;

				if (memcmp(slot + off, zero, len) == 0) {
					whole = false;            /* never written: that packet was lost */
					continue;
				}
				bad = perf_check_verify_at(slot, off, len, seed, &want, &got);
				if (bad != SIZE_MAX)
					perf_note_bad(p, qi, i, bad, want, got);
			}
			if (!whole)
				cut++;
			p->res.verified += p->size;
		}
	}
	return cut;
}

int
perf_unrel_sizes(struct perf *p)
{
	unsigned int k = 0;
	bool changed = false;

	if (p->conn != PERF_UD)
		return PERF_OK;
	/* perftest: a UD message is at most the MTU, a larger size becomes the MTU (both sides alike) */
	for (unsigned int i = 0; i < p->nb_sizes; i++) {
		uint32_t s = RTE_MIN(p->sizes[i], p->path_mtu);
		bool seen = false;

		changed |= s != p->sizes[i];
		for (unsigned int j = 0; j < k; j++)
			seen |= p->sizes[j] == s;
		if (!seen)
			p->sizes[k++] = s;
	}
	if (changed)
		printf(" Max msg size in UD is MTU %u\n Changing to this MTU\n", p->path_mtu);
	p->nb_sizes = k;
	return PERF_OK;
}
