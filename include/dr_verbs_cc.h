/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_CC_H
#define DR_VERBS_CC_H

/**
 * @file
 * Congestion control of a context (doc/guides/congestion.rst): ECN on the
 * wire, the notification point (CNPs, IBA vol. 1 Annex A17.9) and DCQCN's
 * reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015) with a pacer per QP.
 *
 * Part of the verbs-shaped API; include dr_verbs.h, which includes every part.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** alpha = 1.0 in dr_dcqcn_params.initial_alpha (alpha is kept in units of 2^-20). */
#define DR_DCQCN_ALPHA_ONE (1u << 20)

/** The reaction point's algorithm (dr_cc_attr.algo). */
enum dr_cc_algo {
	/** No rate control; frames carry the traffic class the AV gives (ECN bits included). */
	DR_CC_NONE = 0,
	/** DCQCN: RC, UC and XRC frames carry ECT(0); CNPs cut the QP's rate, the requester is paced. */
	DR_CC_DCQCN = 1,
};

/**
 * DCQCN's parameters, one set per context (congestion.rst lists each with
 * the paper's and the vendors' defaults). Times are nanoseconds, rates
 * bits per second.
 */
struct dr_dcqcn_params {
	uint64_t line_rate;          /**< the start and the ceiling (at most 2^43) */
	uint64_t min_rate;           /**< the floor */
	uint32_t g_shift;            /**< g = 1 / 2^g_shift (paper: 1/256, 8), 1..20 */
	uint32_t initial_alpha;      /**< alpha of a new flow, in 1/DR_DCQCN_ALPHA_ONE (paper: 1.0) */
	uint64_t alpha_period_ns;    /**< alpha timer (paper: 55 us) */
	uint64_t rate_period_ns;     /**< rate-increase timer T (paper: 55 us) */
	uint64_t byte_counter;       /**< bytes per byte-counter event B (150 KB; 0: off) */
	uint32_t fast_recovery;      /**< F, the fast-recovery steps (5) */
	uint64_t rate_ai;            /**< R_AI, the additive increase (400 Mb/s) */
	uint64_t rate_hai;           /**< R_HAI, the hyper increase (800 Mb/s) */
	uint64_t min_dec_period_ns;  /**< at most one decrease per this (4 us; 0: every CNP) */
};

/** Congestion control of a context: dr_context_attr.cc. All zero: none, CNPs answered. */
struct dr_cc_attr {
	enum dr_cc_algo algo;        /**< the reaction point */
	/** DR_CC_DCQCN: its parameters; line_rate 0 = dr_dcqcn_params_default() at the
	 *  port's link speed (10 Gb/s when the port does not report one). */
	struct dr_dcqcn_params dcqcn;
	/** The notification point, whatever @c algo: at least this long between two
	 *  CNPs of one QP (0 = DR_CC_CNP_INTERVAL_NS_DEFAULT); UINT32_MAX = send none. */
	uint32_t cnp_interval_ns;
};

/** Default of dr_cc_attr.cnp_interval_ns: one CNP per QP per 50 us (Marvell DAO, NVIDIA min_time_between_cnps 4 us). */
#define DR_CC_CNP_INTERVAL_NS_DEFAULT 50000u

/**
 * Fill @p p with the defaults at @p line_rate bits/s: the paper's g, alpha
 * and timers, Marvell DAO's byte counter and increases (congestion.rst).
 */
void dr_dcqcn_params_default(struct dr_dcqcn_params *p, uint64_t line_rate);

/**
 * Check DCQCN parameters.
 * @return 0, or -EINVAL when they cannot run (a zero line rate or period,
 *         min_rate above line_rate, g_shift outside 1..20, an increase above
 *         line rate, initial_alpha above 1.0).
 */
int dr_dcqcn_params_check(const struct dr_dcqcn_params *p);

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_CC_H */
