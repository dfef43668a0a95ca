/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The engine options of every program (dr_app_engine.h). */

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_pause.h>

#include "dr_app_engine.h"

void
dr_app_opt_err(const char *prog, const char *opt, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s: %s\n", prog, opt, text);
}

/* A decimal unsigned number in [1, DR_MAX_WORKERS]. */
static int
parse_count(const char *prog, const char *opt, const char *s, uint16_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || *s == '+' || n < 1 ||
	    n > DR_MAX_WORKERS) {
		dr_app_opt_err(prog, opt, "invalid value '%s' (an integer from %u to %u)", s, 1u,
			   (unsigned int)DR_MAX_WORKERS);
		return -1;
	}
	*v = (uint16_t)n;
	return 0;
}

/* --zcopy-min: "off", or payload bytes from 1 to 65535 (larger than any frame's: as off). */
static int
parse_zcopy_min(const char *prog, const char *s, uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (strcmp(s, "off") == 0) {
		*v = UINT32_MAX;
		return 0;
	}
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || *s == '+' || n < 1 || n > UINT16_MAX) {
		dr_app_opt_err(prog, "--zcopy-min", "invalid value '%s' (payload bytes from 1 to %u, or off)",
			   s, (unsigned int)UINT16_MAX);
		return -1;
	}
	*v = (uint32_t)n;
	return 0;
}

/* --inflight: bytes, with a k or m suffix (KiB, MiB), from 16 KiB to 64 MiB. */
static int
parse_inflight(const char *prog, const char *s, uint32_t *v)
{
	unsigned long long n;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if ((*end == 'k' || *end == 'K') && end[1] == '\0')
		shift = 10, end++;
	else if ((*end == 'm' || *end == 'M') && end[1] == '\0')
		shift = 20, end++;
	/* the bound before the shift: nothing wraps */
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || *s == '+' || n > (64ull << 20) >> shift ||
	    (n << shift) < (16u << 10)) {
		dr_app_opt_err(prog, "--inflight", "invalid value '%s' (bytes from 16k to 64m, a k or m suffix "
			   "allowed)", s);
		return -1;
	}
	*v = (uint32_t)(n << shift);
	return 0;
}

static const char *const mode_names[] = {
	[DR_PROGRESS_INLINE] = "inline",
	[DR_PROGRESS_RTC] = "rtc",
	[DR_PROGRESS_PIPELINE] = "pipeline",
};

static const char *const idle_names[] = {
	[DR_IDLE_SPIN] = "spin",
	[DR_IDLE_PAUSE] = "pause",
	[DR_IDLE_YIELD] = "yield",
	[DR_IDLE_SLEEP] = "sleep",
	[DR_IDLE_AUTO] = "auto",
};

/* The index of @s in @names (@n of them), or -1. */
static int
lookup(const char *const *names, unsigned int n, const char *s)
{
	for (unsigned int i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

int
dr_app_engine_opt(struct dr_app_engine *e, const char *prog, int c, const char *arg)
{
	int i;

	switch (c) {
	case DR_APP_OPT_MODE:
		i = lookup(mode_names, RTE_DIM(mode_names), arg);
		if (i < 0) {
			dr_app_opt_err(prog, "--mode", "unknown mode '%s' (inline, rtc or pipeline)", arg);
			return -1;
		}
		e->mode = (enum dr_progress_mode)i;
		e->mode_given = true;
		return 0;
	case DR_APP_OPT_WORKERS:
		return parse_count(prog, "--workers", arg, &e->workers);
	case DR_APP_OPT_QUEUES:
		return parse_count(prog, "--queues", arg, &e->queues);
	case DR_APP_OPT_IDLE:
		i = lookup(idle_names, RTE_DIM(idle_names), arg);
		if (i < 0) {
			dr_app_opt_err(prog, "--idle", "unknown policy '%s' (spin, pause, yield, sleep or auto)", arg);
			return -1;
		}
		e->idle = (enum dr_idle_policy)i;
		e->idle_given = true;
		return 0;
	case DR_APP_OPT_ZCOPY_MIN:
		return parse_zcopy_min(prog, arg, &e->zcopy_min);
	case DR_APP_OPT_INFLIGHT:
		return parse_inflight(prog, arg, &e->inflight);
	case DR_APP_OPT_CC:
		return dr_app_cc_algo(&e->cc, prog, arg);
	case DR_APP_OPT_BACKEND:
		if (arg[0] == '\0') {
			dr_app_opt_err(prog, "--backend", "a backend's name (ethdev, xsk)");
			return -1;
		}
		e->backend = arg;
		return 0;
	case DR_APP_OPT_CC_PARAM:
		e->cc.params = arg;             /* parsed once --cc is known (dr_app_engine_finish()) */
		return 0;
	default:
		dr_app_opt_err(prog, "usage", "option %d is not an engine option", c);
		return -1;
	}
}

int
dr_app_engine_finish(struct dr_app_engine *e, const char *prog)
{
	if (e->mode == DR_PROGRESS_INLINE && (e->workers != 0 || e->idle_given || e->queues != 0)) {
		dr_app_opt_err(prog, e->workers != 0 ? "--workers" : e->queues != 0 ? "--queues" : "--idle",
			   "only with --mode rtc or pipeline%s",
			   e->mode_given ? "" : " (the default mode is inline)");
		return -1;
	}
	if (e->mode != DR_PROGRESS_INLINE && e->workers == 0)
		e->workers = 1;
	if (e->mode == DR_PROGRESS_PIPELINE && e->workers > DR_MAX_WORKERS / 3) {
		dr_app_opt_err(prog, "--workers", "%u pipeline groups: at most %u (3 lcores each)",
			   e->workers, DR_MAX_WORKERS / 3);
		return -1;
	}
	if (dr_app_cc_finish(&e->cc, prog) != 0)
		return -1;
	if (e->queues > e->workers) {
		dr_app_opt_err(prog, "--queues", "%u queue pairs for %u workers (at most one each)",
			   e->queues, e->workers);
		return -1;
	}
	return 0;
}

void
dr_app_engine_attr(const struct dr_app_engine *e, struct dr_context_attr *attr)
{
	attr->mode = e->mode;
	attr->nb_workers = e->workers;      /* the first idle EAL worker lcores */
	attr->idle = e->idle;
	attr->nb_queues = e->queues;
	attr->tx_zcopy_min = e->zcopy_min;
	attr->inflight_bytes = e->inflight;
	attr->cc = e->cc.attr;
	attr->backend = e->backend;
}

void
dr_app_engine_idle(const struct dr_app_engine *e)
{
	if (e->mode == DR_PROGRESS_INLINE)
		return;
	/* sleep: the lcores nap when idle for long; this thread waits on what it measures, yielding to them */
	if (e->idle == DR_IDLE_YIELD || e->idle == DR_IDLE_SLEEP || e->idle == DR_IDLE_AUTO)
		sched_yield();
	else if (e->idle == DR_IDLE_PAUSE)
		rte_pause();
}

/* One line of the usage text: @opt (NULL: a continuation) at column 6, @text at @col. */
static void
usage_line(FILE *out, int col, const char *opt, const char *text)
{
	if (opt != NULL)
		fprintf(out, "      %-*s%s\n", col - 6, opt, text);
	else
		fprintf(out, "%*s%s\n", col, "", text);
}

void
dr_app_engine_usage(FILE *out, int col)
{
	char most[64];

	snprintf(most, sizeof(most), "(default 1; at most %u lcores in all)",
		 (unsigned int)DR_MAX_WORKERS);
	usage_line(out, col, "--mode M", "who drives the transport: inline (this thread, the");
	usage_line(out, col, NULL, "default), rtc (run-to-completion worker lcores) or");
	usage_line(out, col, NULL, "pipeline (groups of rx, tx and completion lcores)");
	usage_line(out, col, "--workers N", "rtc: worker lcores; pipeline: groups of 3 lcores;");
	usage_line(out, col, NULL, "taken from EAL's -l / --lcores after the main lcore");
	usage_line(out, col, NULL, most);
	usage_line(out, col, "--idle P", "rtc, pipeline: what an idle lcore does: spin (default,");
	usage_line(out, col, NULL, "for isolated cores), pause, yield (lcores sharing a CPU),");
	usage_line(out, col, NULL, "sleep (spin 200 us, then nap: CPUs shared with other work),");
	usage_line(out, col, NULL, "or auto (spin; sleep's naps while the lcore is preempted)");
	usage_line(out, col, "--queues N", "rtc, pipeline: port queue pairs, one per worker (group)");
	usage_line(out, col, NULL, "from the first (default: one each with RSS, else 1; a");
	usage_line(out, col, NULL, "memif link needs the same number on both sides)");
	usage_line(out, col, "--zcopy-min B", "zero-copy transmit: payloads of at least B bytes");
	usage_line(out, col, NULL, "(1..65535) go out attached from the MR, not copied;");
	usage_line(out, col, NULL, "off: always copy (default 2048; software PMDs only)");
	usage_line(out, col, "--inflight B", "a reliable QP's send window in bytes (16k..64m; default");
	usage_line(out, col, NULL, "256 packets of the path MTU): its bandwidth-delay product");
	usage_line(out, col, "--cc A", "congestion control: none (default) or dcqcn (ECT(0) on");
	usage_line(out, col, NULL, "our frames, each QP paced by DCQCN's rate from CNPs)");
	usage_line(out, col, "--cc-param K=V,...", "line_rate, min_rate, rate_ai, rate_hai (400m, 10g),");
	usage_line(out, col, NULL, "alpha_period, rate_period, min_dec_period (55us),");
	usage_line(out, col, NULL, "byte_counter (150k), g_shift, fast_recovery,");
	usage_line(out, col, NULL, "initial_alpha (0..1), cnp_interval (50us; 0: no CNPs)");
	usage_line(out, col, "--backend NAME", "what drives the port: ethdev (default: any PMD) or xsk");
	usage_line(out, col, NULL, "(a net_af_xdp port's interface through AF_XDP sockets of");
	usage_line(out, col, NULL, "our own, multi-buffer: path MTU 4096; needs xdp_prog=)");
}
