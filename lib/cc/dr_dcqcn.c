/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * DCQCN's reaction point (dr_dcqcn.h): the paper's rate machine, integer
 * arithmetic, timers caught up from the clock the caller passes.
 */

#include <errno.h>

#include "dr_dcqcn.h"

#define MBPS 1000000ull
#define MAX_CATCH_UP 100000u          /* timer events handled one by one before jumping */

void
dr_dcqcn_params_default(struct dr_dcqcn_params *p, uint64_t line_rate)
{
	p->line_rate = line_rate;
	p->min_rate = 10 * MBPS < line_rate ? 10 * MBPS : line_rate;
	p->g_shift = 8;                         /* g = 1/256 */
	p->initial_alpha = DR_DCQCN_ONE;
	p->alpha_period_ns = 55000;
	p->rate_period_ns = 55000;
	p->byte_counter = 150000;
	p->fast_recovery = 5;
	p->rate_ai = 400 * MBPS;
	p->rate_hai = 800 * MBPS;
	p->min_dec_period_ns = 4000;
}

int
dr_dcqcn_params_check(const struct dr_dcqcn_params *p)
{
	if (p->line_rate == 0 || p->line_rate > DR_DCQCN_MAX_RATE || p->min_rate == 0 || p->min_rate > p->line_rate)
		return -EINVAL;
	if (p->g_shift == 0 || p->g_shift > 20 || p->initial_alpha > DR_DCQCN_ONE)
		return -EINVAL;
	if (p->alpha_period_ns == 0 || p->rate_period_ns == 0 || p->fast_recovery == 0)
		return -EINVAL;
	if (p->rate_ai > p->line_rate || p->rate_hai > p->line_rate)
		return -EINVAL;
	return 0;
}

void
dr_dcqcn_init(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p, uint64_t now)
{
	*rp = (struct dr_dcqcn_rp){
		.rc = p->line_rate,
		.rt = p->line_rate,
		.alpha = p->initial_alpha,
		.next_alpha_ns = now + p->alpha_period_ns,
		.next_rate_ns = now + p->rate_period_ns,
	};
}

/* One increase event (after T or BC moved): fast recovery, additive or hyper increase. */
static void
increase(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p)
{
	uint32_t hi = rp->t_count > rp->b_count ? rp->t_count : rp->b_count;
	uint32_t lo = rp->t_count < rp->b_count ? rp->t_count : rp->b_count;

	if (hi < p->fast_recovery) {
		/* fast recovery: RT stays, RC halves the distance to it */
	} else if (lo > p->fast_recovery) {
		rp->rt += (uint64_t)(lo - p->fast_recovery) * p->rate_hai;
	} else {
		rp->rt += p->rate_ai;
	}
	if (rp->rt > p->line_rate)
		rp->rt = p->line_rate;
	rp->rc = (rp->rt + rp->rc + 1) / 2;   /* rounded up: RC reaches RT */
}

void
dr_dcqcn_advance(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p, uint64_t now)
{
	unsigned int n;

	/* alpha = (1 - g) alpha per period without a CNP; at 0 the rest are no-ops */
	for (n = 0; rp->next_alpha_ns <= now && rp->alpha != 0 && n < MAX_CATCH_UP; n++) {
		/* g alpha rounded to nearest (no drift), at least 1: alpha reaches 0 */
		uint32_t d = (rp->alpha + (1u << (p->g_shift - 1))) >> p->g_shift;

		rp->alpha -= d > 0 ? d : 1;
		rp->next_alpha_ns += p->alpha_period_ns;
	}
	if (rp->next_alpha_ns <= now)
		rp->next_alpha_ns = now + p->alpha_period_ns - (now - rp->next_alpha_ns) % p->alpha_period_ns;
	/* timer increase events, while below line rate */
	for (n = 0; rp->next_rate_ns <= now && dr_dcqcn_limited(rp, p) && n < MAX_CATCH_UP; n++) {
		rp->t_count++;
		increase(rp, p);
		rp->next_rate_ns += p->rate_period_ns;
	}
	if (rp->next_rate_ns <= now)
		rp->next_rate_ns = now + p->rate_period_ns - (now - rp->next_rate_ns) % p->rate_period_ns;
}

void
dr_dcqcn_on_cnp(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p, uint64_t now)
{
	uint64_t cut;

	dr_dcqcn_advance(rp, p, now);
	rp->cnps++;
	if (rp->decreased && now - rp->last_dec_ns < p->min_dec_period_ns)
		return;
	/* RT = RC; RC = RC (1 - alpha / 2); alpha = (1 - g) alpha + g */
	rp->rt = rp->rc;
	cut = rp->rc * rp->alpha / (2u * DR_DCQCN_ONE);       /* rc < 2^43, alpha <= 2^20 */
	rp->rc = rp->rc - cut < p->min_rate ? p->min_rate : rp->rc - cut;
	rp->alpha = rp->alpha - ((rp->alpha + (1u << (p->g_shift - 1))) >> p->g_shift) +
		    (DR_DCQCN_ONE >> p->g_shift);
	if (rp->alpha > DR_DCQCN_ONE)
		rp->alpha = DR_DCQCN_ONE;
	/* the timers, the byte counter and the stage counts start again */
	rp->t_count = 0;
	rp->b_count = 0;
	rp->bytes = 0;
	rp->next_alpha_ns = now + p->alpha_period_ns;
	rp->next_rate_ns = now + p->rate_period_ns;
	rp->last_dec_ns = now;
	rp->decreased = true;
	rp->decreases++;
}

void
dr_dcqcn_on_sent(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p, uint64_t bytes)
{
	if (p->byte_counter == 0)
		return;
	if (!dr_dcqcn_limited(rp, p)) {
		rp->bytes = 0;
		return;
	}
	rp->bytes += bytes;
	while (rp->bytes >= p->byte_counter && dr_dcqcn_limited(rp, p)) {
		rp->bytes -= p->byte_counter;
		rp->b_count++;
		increase(rp, p);
	}
}
