/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_APP_CC_H
#define DR_APP_CC_H

/*
 * Congestion control on the command line of every program (through the
 * engine options, dr_app_engine.h; doc/guides/congestion.rst):
 *
 *   --cc none|dcqcn
 *   --cc-param KEY=VALUE[,KEY=VALUE...]
 *       line_rate, min_rate, rate_ai, rate_hai   rates: 10g, 400m, 25000k, 1000000 (bits/s)
 *       alpha_period, rate_period, min_dec_period, cnp_interval
 *                                                times: 55us, 4us, 1ms, 0 (cnp_interval: off)
 *       byte_counter                             bytes: 150000, 150k, 1m (0: off)
 *       g_shift, fast_recovery                   integers
 *       initial_alpha                            a fraction: 1, 0.5
 *
 * DCQCN's keys need line_rate among them (the defaults of the rest follow
 * it: dr_dcqcn_params_default()); cnp_interval alone is the notification
 * point's and goes with any --cc.
 */

#include <stdbool.h>

#include "dr_verbs.h"

/* The options as given. */
struct dr_app_cc {
	struct dr_cc_attr attr;
	const char *params;             /* --cc-param's text (parsed by dr_app_cc_finish()) */
	bool algo_given;
};

/* --cc: 0, or -1 after "@prog: --cc: why". */
int dr_app_cc_algo(struct dr_app_cc *c, const char *prog, const char *arg);

/*
 * Parse --cc-param into @c->attr and check what DCQCN will run with. 0, or
 * -1 after "@prog: --cc-param: why" (the key and what it takes).
 */
int dr_app_cc_finish(struct dr_app_cc *c, const char *prog);

#endif /* DR_APP_CC_H */
