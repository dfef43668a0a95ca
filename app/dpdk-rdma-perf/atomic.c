/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The atomic tests' operands and their --check (atomic_bw, atomic_lat).
 *
 * The responder's region is a row of 8-byte words, one per slot (a cache
 * line apart, as perftest's increase_rem_addr() walks them). Message i of
 * a QP goes to word w = i % W, its visit j = i / W of that word; W is the
 * number of words (the responder's slots; perftest's atomic_lat hits one).
 * Word w of QP q holds value(q, w, 0) before the run, and after j visits:
 *
 *   FETCH_AND_ADD  value(q, w, 0) + j * add(q, w)
 *   CMP_AND_SWAP   value(q, w, j): visit j compares with value(q, w, j)
 *                  and swaps in value(q, w, j + 1), so every swap happens
 *
 * so the original value each message returns, and the word at the end of
 * the run, are known to both sides: the requester checks every original
 * value, the responder every word once the requester is done.
 *
 * With --perftest-compat the operands are perftest's (FETCH_AND_ADD adds 1,
 * CMP_AND_SWAP compares with 0 and swaps in 0: ATOMIC_ADD_VALUE,
 * ATOMIC_SWAP_VALUE). Our words start at 0, so a perftest client leaves
 * word w at its visits (FETCH_AND_ADD) or 0. A perftest server's words hold
 * random bytes (ctx_init() fills its buffer with rand()): our client takes
 * the first original value of each word as its start, and then expects
 * start + j (FETCH_AND_ADD) or start (CMP_AND_SWAP: 0 swapped for 0, or a
 * failed compare) from visit j.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define ATOMIC_SEED_TAG (1u << 17)   /* apart from the data pattern's seeds */
#define PT_ADD_VALUE 1               /* perftest's ATOMIC_ADD_VALUE */

static uint64_t
value(const struct perf *p, uint32_t qp, uint32_t w, uint64_t visit)
{
	return perf_check_seed(qp | ATOMIC_SEED_TAG, p->size_index, (uint64_t)w << 40 | visit);
}

static uint64_t
add(const struct perf *p, uint32_t qp, uint32_t w)
{
	if (p->perftest)
		return PT_ADD_VALUE;
	/* odd, so never 0 */
	return perf_check_seed(qp | ATOMIC_SEED_TAG, p->size_index, ~(uint64_t)w) | 1;
}

/* Word @p w of QP @p q after @p visits operations. */
static uint64_t
word_after(const struct perf *p, const struct perf_qp *q, uint32_t w, uint64_t visits)
{
	if (p->perftest) {
		uint64_t start = p->server ? 0 : q->atomic_start[w];

		return start + (p->atomic == PERF_FETCH_AND_ADD ? visits * PT_ADD_VALUE : 0);
	}
	if (p->atomic == PERF_FETCH_AND_ADD)
		return value(p, q->index, w, 0) + visits * add(p, q->index, w);
	return value(p, q->index, w, visits);
}

uint32_t
perf_atomic_words(const struct perf *p, const struct perf_qp *q)
{
	if (!p->server)
		return RTE_MAX(q->remote.slots, 1u);
	/* perftest's atomic_lat posts the same WR each time: its first word */
	if (p->perftest && p->test->kind == PERF_LAT)
		return 1;
	return RTE_MAX(q->rx_slots, 1u);
}

void
perf_atomic_wr(const struct perf *p, const struct perf_qp *q, uint64_t i, struct dr_send_wr *wr)
{
	const uint32_t n = perf_atomic_words(p, q), w = (uint32_t)(i % n);
	const uint64_t j = i / n;

	wr->wr.atomic.remote_addr = q->remote.vaddr + (uint64_t)w * q->remote.slot_size;
	wr->wr.atomic.rkey = q->remote.rkey;
	if (p->atomic == PERF_FETCH_AND_ADD) {
		wr->opcode = DR_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.compare_add = add(p, q->index, w);
		wr->wr.atomic.swap = 0;
	} else if (p->perftest) {
		wr->opcode = DR_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.compare_add = 0;
		wr->wr.atomic.swap = 0;
	} else {
		wr->opcode = DR_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.compare_add = value(p, q->index, w, j);
		wr->wr.atomic.swap = value(p, q->index, w, j + 1);
	}
}

/* Compare the word at @p got with @p want, byte by byte as the other checks report. */
static void
check_word(struct perf *p, uint32_t qp, uint64_t iter, const uint8_t *got, uint64_t want)
{
	uint8_t b[sizeof(want)];

	memcpy(b, &want, sizeof(b));
	for (unsigned int k = 0; k < sizeof(b); k++) {
		if (got[k] != b[k]) {
			perf_note_bad(p, qp, iter, k, b[k], got[k]);
			break;
		}
	}
	p->res.verified += sizeof(want);
}

void
perf_atomic_verify_orig(struct perf *p, struct perf_qp *q, uint64_t i, const uint8_t *local)
{
	const uint32_t n = perf_atomic_words(p, q), w = (uint32_t)(i % n);

	if (p->perftest && !p->server && i < n) {
		/* a perftest server's word: its first value is the start */
		memcpy(&q->atomic_start[w], local, sizeof(q->atomic_start[w]));
		p->res.verified += sizeof(q->atomic_start[w]);
		return;
	}
	check_word(p, q->index, i, local, word_after(p, q, w, i / n));
}

int
perf_atomic_prepare(struct perf *p)
{
	for (unsigned int qi = 0; qi < p->nb_qps; qi++) {
		struct perf_qp *q = &p->qps[qi];

		if (!p->server && p->perftest && q->atomic_start == NULL) {
			q->atomic_start = calloc(perf_atomic_words(p, q), sizeof(*q->atomic_start));
			if (q->atomic_start == NULL)
				return perf_api_err("calloc", ENOMEM);
		}
		/* the responder's words before the run: 0 in perftest's exchange, as its client's */
		for (uint32_t w = 0; w < q->rx_slots; w++) {
			uint64_t v = p->perftest ? 0 : value(p, qi, w, 0);

			memcpy(q->rx + (size_t)w * p->slot_size, &v, sizeof(v));
		}
	}
	return PERF_OK;
}

void
perf_atomic_verify_words(struct perf *p, uint64_t msgs)
{
	for (unsigned int qi = 0; qi < p->nb_qps; qi++) {
		const struct perf_qp *q = &p->qps[qi];
		const uint32_t n = perf_atomic_words(p, q);

		for (uint32_t w = 0; w < n; w++) {
			uint64_t visits = msgs / n + (w < msgs % n ? 1 : 0);
			/* a mismatch names the last message that went to the word */
			uint64_t last = visits > 0 ? w + (visits - 1) * n : w;

			check_word(p, qi, last, q->rx + (size_t)w * p->slot_size,
				   word_after(p, q, w, visits));
		}
	}
}
