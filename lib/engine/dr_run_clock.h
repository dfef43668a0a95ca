/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The run clock of an engine thread: the time base of the transport's
 * retransmission timers (the local ACK timer, IBA 9.7.6.1.3, the RNR wait,
 * selective repeat's probes and RTT samples).
 *
 * It advances with the TSC while the thread runs and by at most @cap ticks
 * across one gap between two of its rounds. A gap longer than that is a
 * stall of our own (the scheduler gave the CPU to another task, the
 * application did not call dr_progress() for a while): no frame was looked
 * at meanwhile, so a timer that would have expired in it measures nothing
 * about the network. Charging it as a loss spends a retry that the peer
 * never caused (on a CPU shared with a nice 19 busy loop in another
 * session, CFS takes the CPU away for several milliseconds at a time).
 * With the clock, such a timer expires only after the thread has run, and
 * looked at its port, for the timer's whole length.
 *
 * An inline context's "thread" is the application's, which calls
 * dr_progress() when it likes: there a gap is the application's choice,
 * the frames that came meanwhile wait in the port's queue and are taken
 * before the timers look (dr_progress(): rx first), and a loss must still
 * be recovered in real time. Its clock keeps every gap (@keep_gaps) and
 * only counts the long ones as stalls.
 *
 * Pure: no EAL, no clock read of its own; the caller passes the TSC.
 */

#ifndef DR_RUN_CLOCK_H
#define DR_RUN_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct dr_run_clock {
	uint64_t now;           /* the run clock, in TSC ticks */
	uint64_t last_tsc;      /* the TSC of the last advance (0: never advanced) */
	uint64_t cap;           /* the longest gap counted whole, in ticks (0: every gap counts) */
	bool keep_gaps;         /* count longer gaps whole too (only as stalls in the counters) */
	uint64_t stalls;        /* gaps longer than @cap */
	uint64_t stall_ticks;   /* the time those gaps left out of the clock */
	uint64_t max_gap;       /* the longest gap seen, in ticks */
};

/* Start @c at @tsc; gaps longer than @cap ticks are stalls, left out unless @keep_gaps. */
static inline void
dr_run_clock_init(struct dr_run_clock *c, uint64_t tsc, uint64_t cap, bool keep_gaps)
{
	*c = (struct dr_run_clock){ .now = tsc, .last_tsc = tsc, .cap = cap, .keep_gaps = keep_gaps };
}

/* The thread's round begins at TSC @tsc: advance the clock and return it. */
static inline uint64_t
dr_run_clock_advance(struct dr_run_clock *c, uint64_t tsc)
{
	uint64_t gap;

	if (c->last_tsc == 0 || tsc <= c->last_tsc) {
		if (c->last_tsc == 0)
			c->now = tsc;   /* never initialised: start at the TSC */
		c->last_tsc = c->last_tsc == 0 ? tsc : c->last_tsc;
		return c->now;
	}
	gap = tsc - c->last_tsc;
	c->last_tsc = tsc;
	if (gap > c->max_gap)
		c->max_gap = gap;
	if (c->cap != 0 && gap > c->cap) {
		c->stalls++;
		c->stall_ticks += gap - c->cap;
		if (!c->keep_gaps)
			gap = c->cap;
	}
	c->now += gap;
	return c->now;
}

#endif /* DR_RUN_CLOCK_H */
