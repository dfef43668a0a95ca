/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_PACER_H
#define DR_PACER_H

/*
 * A flow's pacer: a token bucket on the TSC (Marvell DAO and hardware NICs
 * keep an inter-packet gap per QP the same way). The bucket is a time, the
 * earliest cycle the next frame may leave: a frame of L bytes moves it L
 * byte-times at the rate; a flow that was idle keeps at most
 * DR_PACER_BURST_BYTES of credit, so it cannot burst after a quiet spell.
 * The caller never waits on it: a flow that is not ready is skipped this
 * round and the worker serves the others (fair across the QPs of a worker,
 * each at its own rate). Pure logic on the caller's clock.
 */

#include <stdbool.h>
#include <stdint.h>

#define DR_PACER_BURST_BYTES 8192u     /* credit an idle flow keeps: a few frames back to back */
#define DR_PACER_MIN_RATE 1000u        /* bits/s: below, a frame's time would overflow */
#define DR_PACER_SHIFT 20              /* cycles per byte in 2^-20 */

struct dr_pacer {
	uint64_t next;          /* TSC cycle from which the next frame may leave */
	uint64_t cpb;           /* cycles per byte at the rate, << DR_PACER_SHIFT */
	uint64_t burst;         /* cycles of credit an idle flow keeps */
	uint64_t rate;          /* bits/s enforced; 0: none (the link's own rate) */
	uint64_t frac;          /* the fraction of a cycle carried over (<< DR_PACER_SHIFT): no drift */
};

/* Enforce @rate bits/s (0: stop pacing) on a clock of @hz cycles a second. */
void dr_pacer_set_rate(struct dr_pacer *p, uint64_t rate, uint64_t hz);

/* May a frame leave at @now? */
static inline bool
dr_pacer_ready(const struct dr_pacer *p, uint64_t now)
{
	return p->rate == 0 || now >= p->next;
}

/* A frame of @bytes left at @now: the next waits its time at the rate. */
static inline void
dr_pacer_sent(struct dr_pacer *p, uint64_t now, uint32_t bytes)
{
	uint64_t base = p->next;

	if (p->rate == 0)
		return;
	if (base + p->burst < now)
		base = now - p->burst;          /* an idle flow keeps a burst's credit, no more */
	p->frac += (uint64_t)bytes * p->cpb;
	p->next = base + (p->frac >> DR_PACER_SHIFT);
	p->frac &= (1ull << DR_PACER_SHIFT) - 1;
}

#endif /* DR_PACER_H */
