/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Quantiles of the backlog histogram (hist.h). */

#include "hist.h"

uint64_t
fl_hist_quantile(const struct fl_hist *h, double q)
{
	uint64_t counts[FL_HIST_BUCKETS], n = 0, rank, seen = 0, max = fl_hist_max(h), upper;

	/* one pass of loads: the total is what the buckets hold now */
	for (unsigned int i = 0; i < FL_HIST_BUCKETS; i++) {
		counts[i] = __atomic_load_n(&h->b[i], __ATOMIC_RELAXED);
		n += counts[i];
	}
	if (n == 0)
		return 0;
	if (!(q > 0))
		q = 0;
	if (q > 1)
		q = 1;
	rank = (uint64_t)(q * (double)n + 0.999999);   /* the rank-th sample, 1-based */
	if (rank == 0)
		rank = 1;
	if (rank > n)
		rank = n;
	for (unsigned int i = 0; i < FL_HIST_BUCKETS; i++) {
		seen += counts[i];
		if (seen >= rank) {
			upper = i == 0 ? 0 : (i >= 64 ? UINT64_MAX : (1ull << i) - 1);
			return upper < max ? upper : max;
		}
	}
	return max;
}
