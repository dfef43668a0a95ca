/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_IDX_H
#define DR_IDX_H

/*
 * Free indices of an object table, taken and given back in O(1) by the
 * control side (the only writer of the tables; no locking here).
 *
 *   dr_idx_fifo  the oldest free index first: an index given back comes out
 *                again only after every index that was free before it. QPNs
 *                use it, so that a destroyed QP's number is not reused at once
 *                (packets still in flight for the old QP must not reach a new
 *                one: IBA 9.6.1.x drops them as "no such QP" instead; rxe
 *                allocates its QPNs round robin for the same reason).
 *   dr_idx_stack the newest free index first, from 0 up: the MR keys, whose
 *                8-bit variant changes at every reuse of a slot (dr_mr.c).
 *
 * The array of @size entries is the caller's (allocated with the table).
 */

#include <stdint.h>

struct dr_idx_fifo {
	uint32_t *slot;                /* size entries: the free indices from head, in order */
	uint32_t size;
	uint32_t head;                 /* position of the oldest free index */
	uint32_t count;                /* free indices */
};

static inline void
dr_idx_fifo_init(struct dr_idx_fifo *f, uint32_t *slot, uint32_t size)
{
	f->slot = slot;
	f->size = size;
	f->head = 0;
	f->count = size;
	for (uint32_t i = 0; i < size; i++)
		slot[i] = i;
}

/* The oldest free index, or -1 when none is. */
static inline int64_t
dr_idx_fifo_take(struct dr_idx_fifo *f)
{
	uint32_t idx;

	if (f->count == 0)
		return -1;
	idx = f->slot[f->head];
	f->head = f->head + 1 == f->size ? 0 : f->head + 1;
	f->count--;
	return idx;
}

/* Give @idx back (it was taken): it becomes the newest free index. */
static inline void
dr_idx_fifo_put(struct dr_idx_fifo *f, uint32_t idx)
{
	uint32_t pos = f->head + f->count;

	if (pos >= f->size)
		pos -= f->size;
	f->slot[pos] = idx;
	f->count++;
}

struct dr_idx_stack {
	uint32_t *slot;                /* size entries: slot[0 .. top) are free, the newest on top */
	uint32_t size;
	uint32_t top;
};

static inline void
dr_idx_stack_init(struct dr_idx_stack *s, uint32_t *slot, uint32_t size)
{
	s->slot = slot;
	s->size = size;
	s->top = size;
	for (uint32_t i = 0; i < size; i++)
		slot[i] = size - 1 - i;     /* index 0 on top */
}

/* The newest free index, or -1 when none is. */
static inline int64_t
dr_idx_stack_take(struct dr_idx_stack *s)
{
	return s->top == 0 ? -1 : (int64_t)s->slot[--s->top];
}

/* Give @idx back (it was taken). */
static inline void
dr_idx_stack_put(struct dr_idx_stack *s, uint32_t idx)
{
	s->slot[s->top++] = idx;
}

#endif /* DR_IDX_H */
