/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef FL_QUEUE_H
#define FL_QUEUE_H

/*
 * Where frames wait inside a direction, pure logic over opaque frame
 * pointers (the unit tests use integers, the forwarder mbufs):
 *
 * - fl_tq, the output queue: a FIFO in which each frame carries the time it
 *   may leave, computed as netem does (sch_netem.c netem_enqueue()): its
 *   arrival plus its delay, no earlier than the frame ahead of it, plus its
 *   serialisation time at the rate. Jitter therefore never reorders (reorder
 *   does, on purpose), and the rate makes a queue that tail-drops past its
 *   limit. One producer and one consumer, the same lcore: the N->1 ports of
 *   a software switch will feed one fl_tq from several inputs in turn.
 * - fl_hold, the reorder stage: frames set aside until a number of later
 *   frames have gone ahead of them, or a time has passed.
 */

#include <stdbool.h>
#include <stdint.h>

struct fl_tq_entry {
	void *pkt;
	uint64_t due;            /* TSC cycle at which it may be sent */
	uint32_t len;            /* its bytes, for the backlog */
};

struct fl_tq {
	struct fl_tq_entry *e;   /* a power-of-two ring >= limit */
	uint32_t mask;
	uint32_t head, tail;     /* free-running */
	uint32_t limit;
	uint64_t last_due;       /* due of the last frame admitted */
	uint64_t bytes;          /* the backlog: bytes of the frames in the queue */
};

/* A queue of @limit frames (1..FL_MAX_LIMIT); 0 or -ENOMEM / -EINVAL. Not on the fast path. */
int fl_tq_init(struct fl_tq *q, uint32_t limit);
void fl_tq_fini(struct fl_tq *q);

static inline uint32_t
fl_tq_count(const struct fl_tq *q)
{
	return q->tail - q->head;
}

/* The queue holds limit frames: the next one would be dropped. */
static inline bool
fl_tq_full(const struct fl_tq *q)
{
	return fl_tq_count(q) >= q->limit;
}

/* Bytes in the queue (the frames admitted and not yet taken off). */
static inline uint64_t
fl_tq_bytes(const struct fl_tq *q)
{
	return q->bytes;
}

/*
 * Admit @pkt of @len bytes arriving at @now with @delay cycles of delay and
 * @tx cycles of serialisation: due = max(now + delay, last due) + tx. false:
 * the queue is full (tail drop, nothing changed).
 */
static inline bool
fl_tq_push(struct fl_tq *q, void *pkt, uint32_t len, uint64_t now, uint64_t delay, uint64_t tx)
{
	uint64_t due = now + delay;

	if (fl_tq_full(q))
		return false;
	if (due < q->last_due)
		due = q->last_due;
	due += tx;
	q->last_due = due;
	q->e[q->tail & q->mask] = (struct fl_tq_entry){ .pkt = pkt, .due = due, .len = len };
	q->tail++;
	q->bytes += len;
	return true;
}

/* Up to @max frames due at @now into @out, in order, taken off the queue. */
static inline unsigned int
fl_tq_pop_due(struct fl_tq *q, uint64_t now, void **out, unsigned int max)
{
	unsigned int n = 0;

	while (n < max && q->head != q->tail && q->e[q->head & q->mask].due <= now) {
		q->bytes -= q->e[q->head & q->mask].len;
		out[n++] = q->e[q->head++ & q->mask].pkt;
	}
	return n;
}

/* Put back the last @n frames fl_tq_pop_due() gave (the port took only some). */
static inline void
fl_tq_unpop(struct fl_tq *q, unsigned int n)
{
	while (n-- > 0)
		q->bytes += q->e[--q->head & q->mask].len;
}

/* When the head frame is due (UINT64_MAX: empty). */
static inline uint64_t
fl_tq_next_due(const struct fl_tq *q)
{
	return q->head != q->tail ? q->e[q->head & q->mask].due : UINT64_MAX;
}

/* Take any frame off regardless of time (shutdown); NULL when empty. */
static inline void *
fl_tq_drain_one(struct fl_tq *q)
{
	if (q->head == q->tail)
		return NULL;
	q->bytes -= q->e[q->head & q->mask].len;
	return q->e[q->head++ & q->mask].pkt;
}

#define FL_HOLD_MAX 256u

struct fl_hold_entry {
	void *pkt;
	uint32_t left;           /* later frames still to pass (0: by time only) */
	uint64_t deadline;       /* TSC cycle at which it leaves anyway */
};

struct fl_hold {
	struct fl_hold_entry e[FL_HOLD_MAX];   /* in the order they were held */
	uint32_t n;
};

static inline void
fl_hold_init(struct fl_hold *h)
{
	h->n = 0;
}

/* Hold @pkt until @frames later frames passed (0: no count) or @deadline. false: full. */
bool fl_hold_put(struct fl_hold *h, void *pkt, uint32_t frames, uint64_t deadline);

/* A frame went ahead of everything held: each count goes down by one. */
void fl_hold_passed(struct fl_hold *h);

/* Up to @max held frames whose count reached 0 or whose deadline is <= @now, in the
 * order they were held, into @out and off the hold. */
unsigned int fl_hold_release(struct fl_hold *h, uint64_t now, void **out, unsigned int max);

/* The earliest deadline of a held frame (UINT64_MAX: none held). */
uint64_t fl_hold_next_deadline(const struct fl_hold *h);

#endif /* FL_QUEUE_H */
