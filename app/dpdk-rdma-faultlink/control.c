/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Changing a direction's impairments while the link runs, as "tc qdisc
 * change" does for netem:
 *
 *   /faultlink/set,a_to_b loss 5% delay 1ms     (or b_to_a, or both)
 *
 * (dpdk-telemetry.py -f PREFIX). The specification changes only what it
 * names, as --ab/--ba/--both do; the answer is each direction's
 * specification after the change, or {"error": why}. The telemetry thread
 * publishes the new configuration through the direction's sequence lock
 * (struct fl_change); the direction's lcore takes it between two passes
 * (fl_dir_take_change()): the impairments' random streams go on where they
 * were, the queue keeps its frames and takes the new limit (at most the
 * capacity it was made with: the queue is not reallocated), held frames
 * keep their release rule. The "changes" counter says how many it took.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

#include "faultlink.h"

static struct fl_app *ctl_app;

void
fl_dir_take_change(struct fl_dir *d)
{
	uint32_t s = __atomic_load_n(&d->change.seq, __ATOMIC_ACQUIRE);
	struct fl_rng rngs[6];
	struct fl_impair_conf c;
	bool ge_bad;

	if (s == d->change_seen || (s & 1))
		return;
	c = d->change.conf;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&d->change.seq, __ATOMIC_RELAXED) != s)
		return;                 /* written meanwhile: next pass */
	rngs[0] = d->im.loss_rng;
	rngs[1] = d->im.dup_rng;
	rngs[2] = d->im.corrupt_rng;
	rngs[3] = d->im.reorder_rng;
	rngs[4] = d->im.jitter_rng;
	rngs[5] = d->im.ecn_rng;
	ge_bad = d->im.ge_bad;
	fl_impair_init(&d->im, &c, d->hz, d->seed, d->idx);
	d->im.loss_rng = rngs[0];
	d->im.dup_rng = rngs[1];
	d->im.corrupt_rng = rngs[2];
	d->im.reorder_rng = rngs[3];
	d->im.jitter_rng = rngs[4];
	d->im.ecn_rng = rngs[5];
	d->im.ge_bad = c.loss_model == FL_LOSS_GEMODEL && ge_bad;
	d->conf = c;
	d->q.limit = c.limit;
	d->change_seen = s;
	FL_ADD(&d->c, changes, 1);
}

/* Telemetry thread: publish @c for @d's lcore. */
static void
publish(struct fl_dir *d, const struct fl_impair_conf *c)
{
	uint32_t s = d->change.seq;

	__atomic_store_n(&d->change.seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	d->change.conf = *c;
	__atomic_store_n(&d->change.seq, s + 2, __ATOMIC_RELEASE);
	d->shown = *c;
}

/* {"error": msg}: nothing was changed */
static int
answer_error(struct rte_tel_data *t, const char *msg)
{
	rte_tel_data_start_dict(t);
	rte_tel_data_add_dict_string(t, "error", msg);
	return 0;
}

static int
tel_set(const char *cmd, const char *params, struct rte_tel_data *t)
{
	struct fl_impair_conf conf[FL_MAX_DIRS];
	char key[80], err[256], spec[512], msg[1024];
	const char *rest;
	bool which[FL_MAX_DIRS] = { false }, any = false;
	const bool sw = ctl_app->o.sw;
	size_t n;

	(void)cmd;
	if (params == NULL || params[0] == '\0')
		return answer_error(t, sw ? "give an egress queue (egressN, ..., all) and the "
				    "impairments, e.g. /faultlink/set,all ecn kmin 10KB kmax 100KB" :
				    "give a direction (a_to_b, b_to_a, both) and the impairments, "
				    "e.g. /faultlink/set,both loss 5%");
	n = strcspn(params, " \t");
	if (n >= sizeof(key))
		n = sizeof(key) - 1;
	memcpy(key, params, n);
	key[n] = '\0';
	rest = params + strspn(params + n, " \t") + n;
	for (unsigned int i = 0; i < ctl_app->ndirs; i++) {
		which[i] = strcmp(key, sw ? "all" : "both") == 0 || strcmp(key, ctl_app->dir[i].key) == 0;
		any |= which[i];
	}
	if (!any) {
		snprintf(msg, sizeof(msg), sw ? "unknown egress queue '%s' (egressN as /faultlink/config "
			 "names them, all)" : "unknown direction '%s' (a_to_b, b_to_a, both)", key);
		return answer_error(t, msg);
	}
	for (unsigned int i = 0; i < ctl_app->ndirs; i++) {
		const struct fl_dir *d = &ctl_app->dir[i];

		if (!which[i])
			continue;
		conf[i] = d->shown;
		if (fl_spec_parse(rest, &conf[i], err, sizeof(err)) != 0) {
			snprintf(msg, sizeof(msg), "'%.400s': %s", rest, err);
			return answer_error(t, msg);
		}
		if (conf[i].limit > d->q.mask + 1) {
			snprintf(msg, sizeof(msg), "limit above the queue's capacity, %u frames (%s; "
				 "give a larger limit at start)", d->q.mask + 1, d->key);
			return answer_error(t, msg);
		}
	}
	rte_tel_data_start_dict(t);
	for (unsigned int i = 0; i < ctl_app->ndirs; i++) {
		if (which[i])
			publish(&ctl_app->dir[i], &conf[i]);
		if (fl_spec_format(&ctl_app->dir[i].shown, spec, sizeof(spec)) != 0)
			spec[0] = '\0';
		rte_tel_data_add_dict_string(t, ctl_app->dir[i].key, spec);
	}
	return 0;
}

int
fl_control_register(struct fl_app *app)
{
	ctl_app = app;
	for (unsigned int i = 0; i < app->ndirs; i++)
		app->dir[i].shown = app->dir[i].conf;
	return rte_telemetry_register_cmd("/faultlink/set", tel_set,
					  "Change impairments as --ab/--ba/--both or --egress/--all. "
					  "Parameters: a_to_b|b_to_a|both|egressN|all SPEC");
}
