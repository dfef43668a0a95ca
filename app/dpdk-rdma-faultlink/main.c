/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-faultlink: EAL, the two ports, one direction per lcore when EAL
 * gives two (else the main lcore runs both), the loop until a signal or
 * --duration, the counters at exit (faultlink.h, doc/guides/faultlink.rst).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "dr_app.h"
#include "faultlink.h"

volatile sig_atomic_t fl_stop;

static struct fl_app app;
static uint64_t end_tsc;

static const char *const dir_names[FL_DIRS] = { "a->b", "b->a" };
static const char *const dir_keys[FL_DIRS] = { "a_to_b", "b_to_a" };

/* Enough mbufs for a port's rx ring, the other port's tx ring holding them,
 * the queue of the direction it feeds (twice: duplicates), the hold, bursts
 * in hand and the per-lcore caches. */
static uint32_t
pool_size(const struct fl_opts *o, unsigned int dir)
{
	return 2 * FL_NB_DESC + 2 * o->conf[dir].limit + FL_HOLD_MAX + 4 * FL_MAX_BURST +
	       256 * RTE_MAX(rte_lcore_count(), 2u) + 1024;
}

static int
worker(void *arg)
{
	struct fl_dir *d = arg;

	fl_forward(&d, 1, app.o.idle_us, end_tsc);
	return 0;
}

static void
banner(void)
{
	char spec[512];

	printf(FL_PROG ": seed %" PRIu64 "%s, %s\n", app.o.seed,
	       app.o.roce_only ? ", RoCEv2 frames only" : "",
	       rte_lcore_count() >= 2 ? "one lcore per direction" : "one lcore for both directions");
	for (unsigned int i = 0; i < FL_DIRS; i++) {
		struct fl_dir *d = &app.dir[i];

		if (fl_spec_format(&d->conf, spec, sizeof(spec)) != 0)
			snprintf(spec, sizeof(spec), "?");
		printf("  %s: port %u (%s) -> port %u (%s): %s\n", d->name, d->in->id, d->in->name,
		       d->out->id, d->out->name, spec);
	}
	printf(FL_PROG ": forwarding\n");
	fflush(stdout);
}

static int
setup(void)
{
	int ret;

	if (app.o.sw) {
		ret = fl_switch_setup(&app);
		if (ret == FL_EXIT_OK && (fl_control_register(&app) != 0 ||
					  fl_telemetry_register(&app) != 0))
			fprintf(stderr, FL_PROG ": warning: telemetry commands not registered\n");
		return ret;
	}
	app.nports = app.ndirs = FL_DIRS;

	if (rte_eth_dev_count_avail() < 2) {
		fprintf(stderr, FL_PROG ": needs two DPDK ports, EAL has %u (give them with --vdev)\n",
			rte_eth_dev_count_avail());
		return FL_EXIT_SETUP;
	}
	for (unsigned int i = 0; i < FL_DIRS; i++) {
		if (!rte_eth_dev_is_valid_port(app.o.port[i])) {
			fprintf(stderr, FL_PROG ": --ports: there is no port %u\n", app.o.port[i]);
			return FL_EXIT_USAGE;
		}
	}
	app.hz = rte_get_tsc_hz();
	for (unsigned int i = 0; i < FL_DIRS; i++) {
		ret = fl_port_open(&app.port[i], app.o.port[i], &app.o, pool_size(&app.o, i), NULL);
		if (ret != 0)
			return FL_EXIT_SETUP;
	}
	for (unsigned int i = 0; i < FL_DIRS; i++) {
		struct fl_dir *d = &app.dir[i];

		d->idx = i;
		d->name = dir_names[i];
		d->key = dir_keys[i];
		d->in = &app.port[i];
		d->out = &app.port[1 - i];
		d->conf = app.o.conf[i];
		d->roce_only = app.o.roce_only;
		d->burst = app.o.burst;
		d->hz = app.hz;
		d->seed = app.o.seed;
		fl_impair_init(&d->im, &d->conf, app.hz, app.o.seed, i);
		fl_hold_init(&d->hold);
		if (fl_tq_init(&d->q, d->conf.limit) != 0) {
			fprintf(stderr, FL_PROG ": no memory for a queue of %u frames\n", d->conf.limit);
			return FL_EXIT_SETUP;
		}
	}
	if (fl_control_register(&app) != 0 || fl_telemetry_register(&app) != 0)
		fprintf(stderr, FL_PROG ": warning: telemetry commands not registered\n");
	return FL_EXIT_OK;
}

/* the two-port wire: one direction per lcore when EAL gives two, else both on the main lcore */
static void
run_wire(void)
{
	struct fl_dir *both[FL_DIRS] = { &app.dir[0], &app.dir[1] };
	unsigned int lcore;

	banner();
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore < RTE_MAX_LCORE) {
		/* one direction per lcore: each owns its ports' queues on its side */
		rte_eal_remote_launch(worker, &app.dir[1], lcore);
		fl_forward(both, 1, app.o.idle_us, end_tsc);
		fl_stop = 1;
		rte_eal_mp_wait_lcore();
	} else {
		fl_forward(both, FL_DIRS, app.o.idle_us, end_tsc);
	}
}

/* --switch: one lcore polls every port and drains every egress queue (switch.c) */
static void
run_switch(void)
{
	fl_switch_banner(&app);
	printf(FL_PROG ": forwarding\n");
	fflush(stdout);
	fl_switch_forward(&app, app.o.idle_us, end_tsc);
}

int
main(int argc, char **argv)
{
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = fl_parse_args(own_argc, own_argv, &app.o);
	if (ret != FL_EXIT_OK)
		return ret < 0 ? FL_EXIT_OK : ret;
	dr_app_stop_on_signals(&fl_stop, false);
	if (rte_eal_init(eal_argc > 0 ? eal_argc : 1, argv) < 0) {
		fprintf(stderr, FL_PROG ": EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		return FL_EXIT_SETUP;
	}
	ret = setup();
	/* memif ports: EAL's interrupt thread held between bursts (intr_gate.c) */
	if (ret == FL_EXIT_OK && fl_gate_init(&app) != 0)
		ret = FL_EXIT_SETUP;
	if (ret == FL_EXIT_OK) {
		if (app.o.duration_s > 0)
			end_tsc = rte_rdtsc() + (uint64_t)(app.o.duration_s * (double)app.hz);
		if (app.o.sw)
			run_switch();
		else
			run_wire();
		/* every lcore is out of its loop: the interrupt thread goes, before the ports close */
		fl_gate_fini();
		for (unsigned int i = 0; i < app.ndirs; i++)
			fl_dir_drain(&app.dir[i]);
		fl_stats_print(&app);
	}
	for (unsigned int i = 0; i < app.nports; i++)
		fl_port_close(&app.port[i]);
	for (unsigned int i = 0; i < app.ndirs; i++)
		fl_tq_fini(&app.dir[i].q);
	free(app.fdb);
	rte_eal_cleanup();
	return ret;
}
