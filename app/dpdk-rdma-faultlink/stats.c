/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The counters of each direction: one line per direction at exit
 * ("a->b rx=... lost=... q_p50=..."), and DPDK telemetry while it runs:
 *   /faultlink/stats    {"a_to_b": {counters}, "b_to_a": {...}}
 *   /faultlink/config   the seed, the ports, each direction's impairments
 * With --switch, one line per port ("port2 rx=... tx=..."), per egress
 * queue ("egress2+3 rx=... ecn_marked=... q_p99=...", the counters of a
 * direction) and for the switch ("switch rx=... copies=..."); telemetry
 * the same under the keys port2, egress2_3 and switch.
 * (dpdk-telemetry.py -f PREFIX). Telemetry runs on its own thread: it reads
 * the counters with relaxed loads, the forwarding lcores never wait for it.
 */

#include <inttypes.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "faultlink.h"

static struct fl_app *tel_app;

/* Frames in the queue or the hold: every frame received or copied ends in one
 * of lost, queue_drop, too_big, tx or left, or is still on its way. Read
 * while the lcore runs, the counters are not one snapshot: clipped at 0. */
static uint64_t
fl_in_flight(const struct fl_counters *c)
{
	uint64_t in = FL_GET(c, rx) + FL_GET(c, duplicated);
	uint64_t out = FL_GET(c, lost) + FL_GET(c, queue_drop) + FL_GET(c, too_big) + FL_GET(c, tx) +
		       FL_GET(c, left);

	return in > out ? in - out : 0;
}

/* the backlog percentiles, in bytes */
#define FL_BACKLOG_NAMES X(q_p50, 0.5) X(q_p90, 0.9) X(q_p99, 0.99)

void
fl_stats_print(const struct fl_app *app)
{
	for (unsigned int i = 0; app->o.sw && i < app->nports; i++) {
		const struct fl_port_counters *c = &app->port[i].c;

		printf("port%u", app->port[i].id);
#define X(f) printf(" " #f "=%" PRIu64, FL_GET(c, f));
		FL_PORT_COUNTER_NAMES
#undef X
		printf("\n");
	}
	for (unsigned int i = 0; i < app->ndirs; i++) {
		const struct fl_counters *c = &app->dir[i].c;
		const struct fl_hist *h = &app->dir[i].backlog;

		printf("%s", app->dir[i].name);
#define X(f) printf(" " #f "=%" PRIu64, FL_GET(c, f));
		FL_COUNTER_NAMES
#undef X
#define X(f, q) printf(" " #f "=%" PRIu64, fl_hist_quantile(h, q));
		FL_BACKLOG_NAMES
#undef X
		printf(" q_max=%" PRIu64 "\n", fl_hist_max(h));
	}
	if (app->o.sw) {
		printf("switch");
#define X(f) printf(" " #f "=%" PRIu64, FL_GET(&app->sw, f));
		FL_SW_COUNTER_NAMES
#undef X
		printf("\n");
	}
	fflush(stdout);
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < tel_app->ndirs; i++) {
		const struct fl_counters *c = &tel_app->dir[i].c;
		const struct fl_hist *h = &tel_app->dir[i].backlog;
		struct rte_tel_data *sub = rte_tel_data_alloc();

		if (sub == NULL)
			return -1;
		rte_tel_data_start_dict(sub);
#define X(f) rte_tel_data_add_dict_u64(sub, #f, FL_GET(c, f));
		FL_COUNTER_NAMES
#undef X
		rte_tel_data_add_dict_u64(sub, "in_flight", fl_in_flight(c));
#define X(f, q) rte_tel_data_add_dict_u64(sub, #f, fl_hist_quantile(h, q));
		FL_BACKLOG_NAMES
#undef X
		rte_tel_data_add_dict_u64(sub, "q_max", fl_hist_max(h));
		rte_tel_data_add_dict_container(d, tel_app->dir[i].key, sub, 0);
	}
	for (unsigned int i = 0; tel_app->o.sw && i < tel_app->nports; i++) {
		const struct fl_port_counters *c = &tel_app->port[i].c;
		struct rte_tel_data *sub = rte_tel_data_alloc();
		char key[32];

		if (sub == NULL)
			return -1;
		rte_tel_data_start_dict(sub);
#define X(f) rte_tel_data_add_dict_u64(sub, #f, FL_GET(c, f));
		FL_PORT_COUNTER_NAMES
#undef X
		snprintf(key, sizeof(key), "port%u", tel_app->port[i].id);
		rte_tel_data_add_dict_container(d, key, sub, 0);
	}
	if (tel_app->o.sw) {
		struct rte_tel_data *sub = rte_tel_data_alloc();

		if (sub == NULL)
			return -1;
		rte_tel_data_start_dict(sub);
#define X(f) rte_tel_data_add_dict_u64(sub, #f, FL_GET(&tel_app->sw, f));
		FL_SW_COUNTER_NAMES
#undef X
		rte_tel_data_add_dict_container(d, "switch", sub, 0);
	}
	return 0;
}

static int
tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char spec[512];

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "seed", tel_app->o.seed);
	if (tel_app->o.sw) {
		rte_tel_data_add_dict_u64(d, "ports", tel_app->nports);
	} else {
		rte_tel_data_add_dict_u64(d, "port_a", tel_app->port[0].id);
		rte_tel_data_add_dict_u64(d, "port_b", tel_app->port[1].id);
	}
	rte_tel_data_add_dict_string(d, "roce_only", tel_app->o.roce_only ? "yes" : "no");
	for (unsigned int i = 0; i < tel_app->ndirs; i++) {
		if (fl_spec_format(&tel_app->dir[i].shown, spec, sizeof(spec)) != 0)
			spec[0] = '\0';
		rte_tel_data_add_dict_string(d, tel_app->dir[i].key, spec);
	}
	return 0;
}

int
fl_telemetry_register(struct fl_app *app)
{
	int ret;

	tel_app = app;
	ret = rte_telemetry_register_cmd("/faultlink/stats", tel_stats,
					 "Counters of each direction. No parameters");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/faultlink/config", tel_config,
						 "Seed, ports and impairments of each direction. No parameters");
	return ret;
}
