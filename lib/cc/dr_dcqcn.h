/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_DCQCN_H
#define DR_DCQCN_H

/*
 * DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale
 * RDMA Deployments", SIGCOMM 2015, section 3.1 and figure 7): the rate of one
 * flow (a QP) as congestion notifications (CNPs, IBA Annex A17.9) and time
 * and bytes without them move it. Pure logic on a clock the caller gives
 * (nanoseconds): no EAL, no allocation, no logging; the tx stage enforces
 * the rate it computes (doc/guides/congestion.rst).
 *
 *   CNP:            RT = RC; RC = RC (1 - alpha / 2); alpha = (1 - g) alpha + g;
 *                   the timer, the byte counter and both stage counts restart
 *   alpha timer:    every alpha_period without a CNP, alpha = (1 - g) alpha
 *   increase event: every rate_period without a CNP (T += 1), every
 *                   byte_counter bytes sent (BC += 1), then
 *                     max(T, BC) < F:  fast recovery     RC = (RT + RC) / 2
 *                     min(T, BC) > F:  hyper increase    RT += (min(T, BC) - F) R_HAI
 *                     otherwise:       additive increase RT += R_AI
 *                   and after either increase RC = (RT + RC) / 2
 *
 * Rates are bits per second, never above the line rate nor below min_rate;
 * alpha is a fraction in units of 1 / DR_DCQCN_ONE.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_verbs_cc.h"   /* struct dr_dcqcn_params */

#define DR_DCQCN_MAX_RATE (1ull << 43)  /* bits/s (8.8 Tb/s): rate * alpha fits 64 bits */
#define DR_DCQCN_ONE DR_DCQCN_ALPHA_ONE /* alpha = 1.0 (2^20: g = 1/256 of small alphas still counts) */

/** One flow's rate state. */
struct dr_dcqcn_rp {
	uint64_t rc;                 /**< current rate, bits/s: what the pacer enforces */
	uint64_t rt;                 /**< target rate, bits/s */
	uint32_t alpha;              /**< 1/DR_DCQCN_ONE units */
	uint32_t t_count;            /**< timer events since the last decrease (T) */
	uint32_t b_count;            /**< byte-counter events since the last decrease (BC) */
	uint64_t bytes;              /**< sent since the last byte-counter event */
	uint64_t next_alpha_ns;      /**< when alpha decays next */
	uint64_t next_rate_ns;       /**< when the timer's next increase event is due */
	uint64_t last_dec_ns;        /**< the last decrease */
	bool decreased;              /**< a decrease happened (last_dec_ns valid) */
	uint64_t cnps;               /**< CNPs taken */
	uint64_t decreases;          /**< CNPs that cut the rate */
};

/* dr_dcqcn_params_default() and dr_dcqcn_params_check(): dr_verbs_cc.h */

/** A flow at line rate, alpha initial_alpha, timers from @p now. */
void dr_dcqcn_init(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p, uint64_t now);
/** A CNP for the flow at @p now: the decrease (unless one came within min_dec_period). */
void dr_dcqcn_on_cnp(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p, uint64_t now);
/** @p bytes sent: byte-counter increase events. */
void dr_dcqcn_on_sent(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p, uint64_t bytes);
/** Time passes to @p now: alpha decays, timer increase events, as many as are due. */
void dr_dcqcn_advance(struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p, uint64_t now);
/** True while the flow is below line rate (the machine has work to do). */
static inline bool
dr_dcqcn_limited(const struct dr_dcqcn_rp *rp, const struct dr_dcqcn_params *p)
{
	return rp->rc < p->line_rate || rp->rt < p->line_rate;
}

#endif /* DR_DCQCN_H */
