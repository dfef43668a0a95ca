/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* --cc and --cc-param (dr_app_cc.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dr_app_cc.h"
#include "dr_app_engine.h"   /* dr_app_opt_err() */

#define CC_OPT "--cc-param"

int
dr_app_cc_algo(struct dr_app_cc *c, const char *prog, const char *arg)
{
	if (strcmp(arg, "none") == 0)
		c->attr.algo = DR_CC_NONE;
	else if (strcmp(arg, "dcqcn") == 0)
		c->attr.algo = DR_CC_DCQCN;
	else {
		dr_app_opt_err(prog, "--cc", "unknown algorithm '%s' (none or dcqcn)", arg);
		return -1;
	}
	c->algo_given = true;
	return 0;
}

/* A unit suffix of @s after the number: its multiplier, or 0 when unknown. */
struct unit {
	const char *name;
	double mult;
};

static const struct unit rate_units[] = {
	{ "", 1 }, { "k", 1e3 }, { "m", 1e6 }, { "g", 1e9 }, { NULL, 0 } };
static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { NULL, 0 } };
static const struct unit byte_units[] = {
	{ "", 1 }, { "k", 1e3 }, { "m", 1e6 }, { NULL, 0 } };

/* "12.5m" with @units: the value in base units, -1 when it is not one. "0" needs no unit. */
static double
num_unit(const char *s, const struct unit *units)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || v < 0 || *s == '-' || *s == '+')
		return -1;
	if (v == 0 && *end == '\0')
		return 0;
	for (const struct unit *u = units; u->name != NULL; u++)
		if (strcmp(end, u->name) == 0)
			return v * u->mult;
	return -1;
}

enum kind { RATE, TIME, BYTES, INT, FRACTION };

struct key {
	const char *name;
	enum kind kind;
	size_t off;                     /* in struct dr_dcqcn_params; SIZE_MAX: cnp_interval_ns */
	bool u32;
};

#define P(f) offsetof(struct dr_dcqcn_params, f)
#define U32(f) (sizeof(((struct dr_dcqcn_params *)0)->f) == 4)
static const struct key keys[] = {
	{ "line_rate", RATE, P(line_rate), U32(line_rate) },
	{ "min_rate", RATE, P(min_rate), U32(min_rate) },
	{ "rate_ai", RATE, P(rate_ai), U32(rate_ai) },
	{ "rate_hai", RATE, P(rate_hai), U32(rate_hai) },
	{ "alpha_period", TIME, P(alpha_period_ns), U32(alpha_period_ns) },
	{ "rate_period", TIME, P(rate_period_ns), U32(rate_period_ns) },
	{ "min_dec_period", TIME, P(min_dec_period_ns), U32(min_dec_period_ns) },
	{ "byte_counter", BYTES, P(byte_counter), U32(byte_counter) },
	{ "g_shift", INT, P(g_shift), U32(g_shift) },
	{ "fast_recovery", INT, P(fast_recovery), U32(fast_recovery) },
	{ "initial_alpha", FRACTION, P(initial_alpha), U32(initial_alpha) },
	{ "cnp_interval", TIME, SIZE_MAX, true },
};

static const char *const what[] = {
	[RATE] = "a rate in bits/s with an optional k, m or g (e.g. 400m)",
	[TIME] = "a time with a unit: ns, us, ms or s (e.g. 55us)",
	[BYTES] = "bytes with an optional k or m (e.g. 150k)",
	[INT] = "a whole number",
	[FRACTION] = "a fraction from 0 to 1",
};

/* One KEY=VALUE into @c (line_rate's defaults already in place). 0 or -1 after saying why. */
static int
apply(struct dr_app_cc *c, const char *prog, const char *kv)
{
	const char *eq = strchr(kv, '=');
	const struct key *k = NULL;
	const char *val;
	double v;
	uint64_t n;

	for (size_t i = 0; eq != NULL && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].name) == (size_t)(eq - kv) && strncmp(kv, keys[i].name, (size_t)(eq - kv)) == 0)
			k = &keys[i];
	if (k == NULL) {
		dr_app_opt_err(prog, CC_OPT, "'%s': not KEY=VALUE of a known key (line_rate, min_rate, rate_ai, rate_hai, "
		       "alpha_period, rate_period, min_dec_period, byte_counter, g_shift, fast_recovery, "
		       "initial_alpha, cnp_interval)", kv);
		return -1;
	}
	val = eq + 1;
	switch (k->kind) {
	case RATE: v = num_unit(val, rate_units); break;
	case TIME: v = num_unit(val, time_units); break;
	case BYTES: v = num_unit(val, byte_units); break;
	case FRACTION: v = num_unit(val, rate_units); v = v > 1 ? -1 : v * DR_DCQCN_ALPHA_ONE; break;
	default: {
		char *end;

		errno = 0;
		v = (double)strtoull(val, &end, 10);
		if (errno != 0 || end == val || *end != '\0' || *val == '-' || *val == '+')
			v = -1;
	}
	}
	if (v < 0 || v > 1.8e19 || (k->u32 && v > UINT32_MAX - 1.0)) {
		dr_app_opt_err(prog, CC_OPT, "%s: '%s' is not %s", k->name, val, what[k->kind]);
		return -1;
	}
	n = (uint64_t)(v + 0.5);
	if (k->off == SIZE_MAX) {
		/* 0: no CNPs at all (the library's "0" is its default) */
		c->attr.cnp_interval_ns = n == 0 ? UINT32_MAX : (uint32_t)n;
		return 0;
	}
	if (k->u32)
		*(uint32_t *)((char *)&c->attr.dcqcn + k->off) = (uint32_t)n;
	else
		*(uint64_t *)((char *)&c->attr.dcqcn + k->off) = n;
	return 0;
}

int
dr_app_cc_finish(struct dr_app_cc *c, const char *prog)
{
	char buf[512], *save = NULL, *kv;
	bool dcqcn_keys = false, line_rate = false;
	uint64_t lr;

	if (c->params == NULL)
		return 0;
	if (strlen(c->params) >= sizeof(buf)) {
		dr_app_opt_err(prog, CC_OPT, "longer than %zu characters", sizeof(buf) - 1);
		return -1;
	}
	/* line_rate first: the defaults of the other keys follow it */
	snprintf(buf, sizeof(buf), "%s", c->params);
	for (kv = strtok_r(buf, ",", &save); kv != NULL; kv = strtok_r(NULL, ",", &save)) {
		if (strncmp(kv, "cnp_interval=", 13) != 0)
			dcqcn_keys = true;
		if (strncmp(kv, "line_rate=", 10) == 0) {
			if (apply(c, prog, kv) != 0)
				return -1;
			line_rate = true;
		}
	}
	if (dcqcn_keys && c->attr.algo != DR_CC_DCQCN) {
		dr_app_opt_err(prog, CC_OPT, "DCQCN's keys need --cc dcqcn");
		return -1;
	}
	if (dcqcn_keys && !line_rate) {
		dr_app_opt_err(prog, CC_OPT, "give line_rate with DCQCN's other keys (their defaults follow it)");
		return -1;
	}
	if (line_rate) {
		lr = c->attr.dcqcn.line_rate;
		if (lr == 0) {
			dr_app_opt_err(prog, CC_OPT, "line_rate: 0 is not a rate");
			return -1;
		}
		dr_dcqcn_params_default(&c->attr.dcqcn, lr);
	}
	snprintf(buf, sizeof(buf), "%s", c->params);
	for (kv = strtok_r(buf, ",", &save); kv != NULL; kv = strtok_r(NULL, ",", &save))
		if (apply(c, prog, kv) != 0)
			return -1;
	if (line_rate && dr_dcqcn_params_check(&c->attr.dcqcn) != 0) {
		dr_app_opt_err(prog, CC_OPT, "'%s': DCQCN cannot run with these (a zero period or fast_recovery, min_rate "
		       "above line_rate, g_shift outside 1..20, an increase above line_rate)", c->params);
		return -1;
	}
	return 0;
}
