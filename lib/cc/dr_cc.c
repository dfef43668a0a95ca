/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Congestion control of a context and its QPs (dr_cc.h): settings checked
 * and put on the TSC, the requester's rate machine and pacer.
 */

#include <errno.h>
#include <string.h>

#include "dr_cc.h"

/* @ns nanoseconds in cycles of @hz (at least 1 for a non-zero time) */
static uint64_t
ns_to_cyc(uint64_t ns, uint64_t hz)
{
	uint64_t c;

	if (ns == 0)
		return 0;
	c = (uint64_t)(((__uint128_t)ns * hz) / 1000000000u);
	return c != 0 ? c : 1;
}

int
dr_cc_ctx_init(struct dr_cc_ctx *c, const struct dr_cc_attr *a, uint64_t link_bps, uint64_t hz)
{
	memset(c, 0, sizeof(*c));
	if (a->algo != DR_CC_NONE && a->algo != DR_CC_DCQCN)
		return -EINVAL;
	c->algo = a->algo;
	c->hz = hz;
	if (a->cnp_interval_ns == UINT32_MAX)
		c->cnp_interval = UINT64_MAX;
	else
		c->cnp_interval = ns_to_cyc(a->cnp_interval_ns != 0 ? a->cnp_interval_ns :
					    DR_CC_CNP_INTERVAL_NS_DEFAULT, hz);
	if (a->dcqcn.line_rate == 0)
		dr_dcqcn_params_default(&c->dcqcn, link_bps != 0 ? link_bps : DR_CC_LINE_RATE_DEFAULT);
	else
		c->dcqcn = a->dcqcn;
	if (c->algo == DR_CC_DCQCN && dr_dcqcn_params_check(&c->dcqcn) != 0)
		return -EINVAL;
	c->dcqcn_tsc = c->dcqcn;
	c->dcqcn_tsc.alpha_period_ns = ns_to_cyc(c->dcqcn.alpha_period_ns, hz);
	c->dcqcn_tsc.rate_period_ns = ns_to_cyc(c->dcqcn.rate_period_ns, hz);
	c->dcqcn_tsc.min_dec_period_ns = ns_to_cyc(c->dcqcn.min_dec_period_ns, hz);
	return 0;
}

void
dr_cc_tx_init(struct dr_cc_tx *t, const struct dr_cc_ctx *c, uint32_t cnp_rx, uint64_t now)
{
	memset(t, 0, sizeof(*t));
	t->cnp_taken = cnp_rx;
	dr_dcqcn_init(&t->rp, &c->dcqcn_tsc, now);
}

void
dr_cc_rx_init(struct dr_cc_rx *r)
{
	r->next_cnp = 0;
}

void
dr_cc_tx_update(struct dr_cc_tx *t, const struct dr_cc_ctx *c, uint32_t cnp_rx, uint64_t now)
{
	uint64_t rc = t->rp.rc;

	if (c->algo != DR_CC_DCQCN) {
		t->cnp_taken = cnp_rx;        /* counted by the receive stage, nothing to act on */
		return;
	}
	/* each CNP is one notification; several in a burst meet min_dec_period */
	while (t->cnp_taken != cnp_rx) {
		dr_dcqcn_on_cnp(&t->rp, &c->dcqcn_tsc, now);
		t->cnp_taken++;
	}
	dr_dcqcn_advance(&t->rp, &c->dcqcn_tsc, now);
	if (t->rp.rc != rc || (t->pacer.rate == 0) != !dr_dcqcn_limited(&t->rp, &c->dcqcn_tsc))
		dr_pacer_set_rate(&t->pacer, dr_dcqcn_limited(&t->rp, &c->dcqcn_tsc) ? t->rp.rc : 0, c->hz);
}
