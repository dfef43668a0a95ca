/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_APP_ENGINE_H
#define DR_APP_ENGINE_H

/*
 * The engine options every dpdk-rdma program takes the same way: --mode
 * inline|rtc|pipeline, --workers N, --idle spin|pause|yield, --queues N
 * (doc/guides/api.rst, "Progress modes and threads"), and --zcopy-min
 * BYTES|off (zero-copy transmit, doc/guides/speed.rst), --inflight BYTES (a
 * reliable QP's send window, dr_context_attr.inflight_bytes), --cc and --cc-param
 * (congestion control, dr_app_cc.h), --backend NAME (the backend that drives
 * the port, dr_context_attr.backend). A program adds
 * DR_APP_ENGINE_LONG_OPTS to its getopt_long() table, hands the
 * DR_APP_OPT_* values to dr_app_engine_opt(), calls dr_app_engine_finish()
 * once every option is read, dr_app_engine_attr() on its context's
 * attributes, and dr_app_engine_idle() where its own loop found nothing to do.
 */

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dr_app_cc.h"
#include "dr_verbs.h"

/* getopt_long() values of the engine options: above any program's own */
enum {
	DR_APP_OPT_MODE = 0x1000,
	DR_APP_OPT_WORKERS,
	DR_APP_OPT_IDLE,
	DR_APP_OPT_QUEUES,
	DR_APP_OPT_ZCOPY_MIN,
	DR_APP_OPT_CC,
	DR_APP_OPT_CC_PARAM,
	DR_APP_OPT_INFLIGHT,
	DR_APP_OPT_BACKEND,
	DR_APP_OPT_LAST = DR_APP_OPT_BACKEND,
};

/* The entries of a struct option table (comma-separated, no trailing comma). */
#define DR_APP_ENGINE_LONG_OPTS \
	{ "mode", required_argument, NULL, DR_APP_OPT_MODE }, \
	{ "workers", required_argument, NULL, DR_APP_OPT_WORKERS }, \
	{ "idle", required_argument, NULL, DR_APP_OPT_IDLE }, \
	{ "queues", required_argument, NULL, DR_APP_OPT_QUEUES }, \
	{ "zcopy-min", required_argument, NULL, DR_APP_OPT_ZCOPY_MIN }, \
	{ "cc", required_argument, NULL, DR_APP_OPT_CC }, \
	{ "cc-param", required_argument, NULL, DR_APP_OPT_CC_PARAM }, \
	{ "inflight", required_argument, NULL, DR_APP_OPT_INFLIGHT }, \
	{ "backend", required_argument, NULL, DR_APP_OPT_BACKEND }

/* The options as given; after dr_app_engine_finish(), what the context gets. */
struct dr_app_engine {
	enum dr_progress_mode mode;     /* --mode: inline (default), rtc or pipeline */
	uint16_t workers;               /* --workers: rtc worker lcores, pipeline groups (default 1) */
	enum dr_idle_policy idle;       /* --idle: spin (default), pause, yield, sleep, auto */
	uint16_t queues;                /* --queues: port queue pairs (0: the library's choice) */
	uint32_t zcopy_min;             /* --zcopy-min: tx_zcopy_min (0: the library's default,
					 * UINT32_MAX: off) */
	uint32_t inflight;              /* --inflight: inflight_bytes (0: the library's default) */
	struct dr_app_cc cc;            /* --cc, --cc-param (dr_app_cc.h) */
	const char *backend;            /* --backend: the backend's name (NULL: the port's default) */
	bool mode_given;
	bool idle_given;
};

/* "@prog: @opt: <fmt...>" on stderr: how every option error of these programs reads. */
void dr_app_opt_err(const char *prog, const char *opt, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * One engine option: @c a DR_APP_OPT_* value, @arg its argument. Returns 0,
 * or -1 after "@prog: OPTION: why" on stderr.
 */
int dr_app_engine_opt(struct dr_app_engine *e, const char *prog, int c, const char *arg);

/*
 * The checks that need every option (--workers, --idle and --queues only
 * with an engine mode, the pipeline's group count, at most a queue pair per
 * worker) and the default of --workers (1). Returns 0, or -1 after
 * "@prog: OPTION: why" on stderr.
 */
int dr_app_engine_finish(struct dr_app_engine *e, const char *prog);

/* mode, nb_workers (the first idle EAL worker lcores), idle, nb_queues, tx_zcopy_min, inflight_bytes, cc
 * and backend of @attr. */
void dr_app_engine_attr(const struct dr_app_engine *e, struct dr_context_attr *attr);

/*
 * A program's own loop found nothing to do. rtc, pipeline: its lcore may
 * share a CPU with the engine's (--idle yield: sched_yield(); pause: a CPU
 * pause); inline, spin: nothing (the loop itself is the transport, or the
 * cores are isolated).
 */
void dr_app_engine_idle(const struct dr_app_engine *e);

/* Is the transport run by worker lcores (rtc, pipeline)? */
static inline bool
dr_app_engine_workers(const struct dr_app_engine *e)
{
	return e->mode != DR_PROGRESS_INLINE;
}

/*
 * The usage lines of the options, each option's text starting at column
 * @col (the program's own layout; at least 20).
 */
void dr_app_engine_usage(FILE *out, int col);

#endif /* DR_APP_ENGINE_H */
