/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The output queue's storage and the reorder hold (queue.h). */

#include <errno.h>
#include <stdlib.h>

#include "impair.h"
#include "queue.h"

int
fl_tq_init(struct fl_tq *q, uint32_t limit)
{
	uint32_t cap = 1;

	q->e = NULL;
	if (limit == 0 || limit > FL_MAX_LIMIT)
		return -EINVAL;
	while (cap < limit)
		cap <<= 1;
	q->e = calloc(cap, sizeof(*q->e));
	if (q->e == NULL)
		return -ENOMEM;
	q->mask = cap - 1;
	q->head = q->tail = 0;
	q->limit = limit;
	q->last_due = 0;
	q->bytes = 0;
	return 0;
}

void
fl_tq_fini(struct fl_tq *q)
{
	free(q->e);
	q->e = NULL;
}

bool
fl_hold_put(struct fl_hold *h, void *pkt, uint32_t frames, uint64_t deadline)
{
	if (h->n == FL_HOLD_MAX)
		return false;
	h->e[h->n++] = (struct fl_hold_entry){ .pkt = pkt, .left = frames, .deadline = deadline };
	return true;
}

void
fl_hold_passed(struct fl_hold *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (h->e[i].left > 1)
			h->e[i].left--;
		else if (h->e[i].left == 1) {
			h->e[i].left = 0;
			h->e[i].deadline = 0;   /* due now */
		}
}

unsigned int
fl_hold_release(struct fl_hold *h, uint64_t now, void **out, unsigned int max)
{
	unsigned int n = 0;
	uint32_t keep = 0;

	for (uint32_t i = 0; i < h->n; i++) {
		if (n < max && h->e[i].deadline <= now)
			out[n++] = h->e[i].pkt;
		else
			h->e[keep++] = h->e[i];
	}
	h->n = keep;
	return n;
}

uint64_t
fl_hold_next_deadline(const struct fl_hold *h)
{
	uint64_t d = UINT64_MAX;

	for (uint32_t i = 0; i < h->n; i++)
		if (h->e[i].deadline < d)
			d = h->e[i].deadline;
	return d;
}
