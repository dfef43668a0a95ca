/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* A flow's pacer (dr_pacer.h): the rate in cycles per byte. */

#include "dr_pacer.h"

void
dr_pacer_set_rate(struct dr_pacer *p, uint64_t rate, uint64_t hz)
{
	if (rate == 0) {
		p->rate = 0;
		return;
	}
	if (rate < DR_PACER_MIN_RATE)
		rate = DR_PACER_MIN_RATE;
	/* hz * 8 < 2^37 for clocks below 17 GHz: << 20 fits 64 bits */
	p->cpb = ((hz * 8u) << DR_PACER_SHIFT) / rate;
	p->burst = ((uint64_t)DR_PACER_BURST_BYTES * p->cpb) >> DR_PACER_SHIFT;
	p->rate = rate;
}
