/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef FL_HIST_H
#define FL_HIST_H

/*
 * A log2-bucket histogram of the output queue's backlog in bytes, one
 * sample per frame arriving to the queue: bucket 0 holds 0, bucket i (i >=
 * 1) holds [2^(i-1), 2^i). Written by the queue's lcore only (relaxed
 * stores), read anywhere (relaxed loads): telemetry reads it while it
 * runs. Quantiles are a bucket's upper bound, never above the largest
 * sample: an over-estimate by less than 2x. Pure logic.
 */

#include <stdint.h>

#define FL_HIST_BUCKETS 48u

struct fl_hist {
	uint64_t n;
	uint64_t max;
	uint64_t b[FL_HIST_BUCKETS];
};

static inline unsigned int
fl_hist_bucket(uint64_t v)
{
	unsigned int i = v == 0 ? 0 : 64u - (unsigned int)__builtin_clzll(v);

	return i < FL_HIST_BUCKETS ? i : FL_HIST_BUCKETS - 1;
}

static inline void
fl_hist_add(struct fl_hist *h, uint64_t v)
{
	unsigned int i = fl_hist_bucket(v);

	__atomic_store_n(&h->b[i], h->b[i] + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->n, h->n + 1, __ATOMIC_RELAXED);
	if (v > h->max)
		__atomic_store_n(&h->max, v, __ATOMIC_RELAXED);
}

/* The @q-quantile (0 < q <= 1) as the upper bound of its bucket, clipped at
 * the largest sample; 0 without samples. */
uint64_t fl_hist_quantile(const struct fl_hist *h, double q);

static inline uint64_t
fl_hist_max(const struct fl_hist *h)
{
	return __atomic_load_n(&h->max, __ATOMIC_RELAXED);
}

#endif /* FL_HIST_H */
