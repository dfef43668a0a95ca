/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The rules that tie the options together once all are read (options.c
 * parses them): which tests take which options (atomic, raw, immediate
 * data, perftest's exchange), the defaults that depend on the test, the
 * limits of the latency tests. Each refusal names the option and why; the
 * program exits 2.
 */

#include <stdio.h>

#include "perf.h"

/* The atomic tests' rules: 8-byte messages (perftest: "Message size cannot be changed"). */
static int
finish_atomic(struct perf_opts *o, bool all, bool atomic_given, bool outs_given)
{
	if (o->test->verb != PERF_ATOMIC) {
		if (atomic_given) {
			perf_err("-A/--atomic_type", "only for the atomic tests (atomic_bw, atomic_lat)");
			return -1;
		}
		if (outs_given && !perf_verb_fetches(o->test->verb)) {
			perf_err("-o/--outs", "only for the read and atomic tests");
			return -1;
		}
		return 0;
	}
	if (all) {
		perf_err("-a/--all", "not for the atomic tests: their messages are %u bytes",
			 PERF_ATOMIC_SIZE);
		return -1;
	}
	for (unsigned int i = 0; i < o->nb_sizes; i++) {
		if (o->sizes[i] != PERF_ATOMIC_SIZE) {
			perf_err("-s/--size", "the atomic tests move %u bytes, not %u (as perftest, "
				 "the size cannot be changed)", PERF_ATOMIC_SIZE, o->sizes[i]);
			return -1;
		}
	}
	return 0;
}

uint32_t
perf_max_size(const struct perf_opts *o)
{
	uint32_t m = 0;

	for (unsigned int i = 0; i < o->nb_sizes; i++)
		m = RTE_MAX(m, o->sizes[i]);
	return m;
}

/* The raw tests' rules: the bare link has no data check, no duration mode, one flow. */
int
perf_opts_finish_raw(struct perf_opts *o, bool raw_like_given)
{
	if (!o->test->raw) {
		if (raw_like_given) {
			perf_err("--raw-like", "only for the raw tests (raw_bw, raw_lat)");
			return -1;
		}
		return 0;
	}
	if (!raw_like_given)
		o->raw_like = PERF_WRITE;
	if (o->check || (o->duration > 0 && o->test->kind == PERF_LAT) || o->perftest ||
	    o->num_qps > 1) {
		perf_err(o->check ? "--check" : o->perftest ? "--perftest-compat" :
			 o->num_qps > 1 ? "-q/--qp" : "-D/--duration",
			 "not for the raw tests: they time frames on one flow (raw_lat: -n of "
			 "them), with no transport to check or to speak perftest's exchange");
		return -1;
	}
	return 0;
}

/* --send_with_imm / --write_with_imm: the tests they apply to (perftest's rule), ours only. */
static int
finish_imm(const struct perf_opts *o)
{
	if (o->send_imm && o->test->verb != PERF_SEND) {
		perf_err("--send_with_imm", "only for the send tests (send_bw, send_lat)");
		return -1;
	}
	if (o->write_imm && (o->test->verb != PERF_WRITE || o->test->raw)) {
		perf_err("--write_with_imm", "only for the write tests (write_bw)");
		return -1;
	}
	if (o->write_imm && o->test->kind == PERF_LAT) {
		perf_err("--write_with_imm", "not for write_lat yet: its ping-pong polls the last "
			 "byte of each message (write_bw takes it)");
		return -1;
	}
	if ((o->send_imm || o->write_imm) && o->perftest) {
		perf_err(o->send_imm ? "--send_with_imm" : "--write_with_imm",
			 "not with --perftest-compat (its exchange is not implemented for them)");
		return -1;
	}
	return 0;
}

/* -c: perftest's rules (UD: send tests; UC: send and write tests), ours (not the raw tests). */
static int
finish_conn(const struct perf_opts *o)
{
	if (!o->conn_given)
		return 0;
	if (o->test->raw) {
		perf_err("-c/--connection", "not for the raw tests (no QP carries their frames)");
		return -1;
	}
	if (o->conn == PERF_UD && o->test->verb != PERF_SEND) {
		perf_err("-c/--connection", "UD: only the send tests (send_bw, send_lat), as perftest");
		return -1;
	}
	if (o->conn == PERF_UC && perf_verb_fetches(o->test->verb)) {
		perf_err("-c/--connection", "UC: only the send and write tests (a UC QP has no READ "
			 "and no atomics)");
		return -1;
	}
	if (o->conn != PERF_RC && o->perftest) {
		perf_err("-c/--connection", "%s not yet with --perftest-compat", perf_conn_name(o->conn));
		return -1;
	}
	return 0;
}

/*
 * --persist: a server's option. Not with perftest's exchange (a perftest
 * client says nothing of what it runs), nor the raw tests (they stop the
 * engine's workers and take their lcore: nothing could run after them).
 */
static int
finish_persist(const struct perf_opts *o)
{
	if (!o->persist)
		return 0;
	if (o->server != NULL) {
		perf_err("--persist", "only for the server (the client runs once and exits)");
		return -1;
	}
	if (o->perftest) {
		perf_err("--persist", "not with --perftest-compat: a perftest client does not say "
			 "what it runs, so each needs a server started for it");
		return -1;
	}
	if (o->test->raw) {
		perf_err("--persist", "not for the raw tests: they take the engine's lcores for "
			 "themselves (give a transport test: it only sets the largest size served)");
		return -1;
	}
	return 0;
}

/* Defaults and the checks that need every option. */
int
perf_opts_finish(struct perf_opts *o, bool have_ip, bool tx_given, bool all, bool size_opt,
		 bool sizes_opt, bool atomic_given, bool outs_given)
{
	const bool lat = o->test->kind == PERF_LAT;

	if (!have_ip) {
		perf_err("--ip", "required: our IPv4 address (it gives GID index 1)");
		return -1;
	}
	if ((all ? 1 : 0) + (size_opt ? 1 : 0) + (sizes_opt ? 1 : 0) > 1) {
		perf_err("-s/-a/--sizes", "give only one of them");
		return -1;
	}
	if (finish_atomic(o, all, atomic_given, outs_given) != 0)
		return -1;
	o->all = all;
	if (all) {
		o->nb_sizes = 0;
		for (unsigned int s = PERF_ALL_MIN_SHIFT; s <= PERF_ALL_MAX_SHIFT; s++)
			o->sizes[o->nb_sizes++] = 1u << s;
	} else if (!o->size_given) {
		o->sizes[0] = o->test->verb == PERF_ATOMIC ? PERF_ATOMIC_SIZE :
			      lat ? PERF_DEF_SIZE_LAT : PERF_DEF_SIZE_BW;
		o->nb_sizes = 1;
	}
	if (o->test->verb == PERF_WRITE && lat) {
		for (unsigned int i = 0; i < o->nb_sizes; i++) {
			if (o->sizes[i] == 0) {
				perf_err("-s", "write_lat needs messages of 1 byte at least "
					 "(each side polls the last byte)");
				return -1;
			}
		}
	}
	if (o->iters_given && o->duration > 0) {
		perf_err("-D/--duration", "cannot be combined with -n/--iters");
		return -1;
	}
	if (!o->iters_given)
		o->iters = o->test->verb == PERF_ATOMIC ? PERF_DEF_ITERS_ATOMIC :
			   lat ? PERF_DEF_ITERS_LAT : PERF_DEF_ITERS_BW;
	if (lat && o->iters < PERF_MIN_ITERS_LAT) {
		perf_err("-n/--iters", "latency tests need %u iterations at least "
			 "(the 2 largest samples are dropped)", PERF_MIN_ITERS_LAT);
		return -1;
	}
	if (lat && o->iters > PERF_MAX_ITERS_LAT) {
		perf_err("-n/--iters", "latency tests keep one timestamp per iteration: "
			 "%llu at most", (unsigned long long)PERF_MAX_ITERS_LAT);
		return -1;
	}
	if (lat && o->num_qps > 1) {
		perf_err("-q/--qp", "multiple QPs only available on bw tests");
		return -1;
	}
	if (!tx_given)
		o->tx_depth = lat ? PERF_DEF_TX_LAT : PERF_DEF_TX_BW;
	if (o->server != NULL && o->oob_bind != NULL) {
		perf_err("--oob-bind", "only for the server (the client connects to %s)", o->server);
		return -1;
	}
	if (o->perftest && ((o->nb_sizes != 1 && !o->all) || o->duration > 0 ||
			    (o->check && o->test->verb != PERF_ATOMIC))) {
		perf_err("--perftest-compat", "one size (-s) or perftest's -a, no -D or --sizes, "
			 "and --check only for the atomic tests: perftest's exchange has none of them");
		return -1;
	}
	if (o->rdma_cm && (o->test->raw || o->num_qps != 1 || (o->conn_given && o->conn != PERF_RC))) {
		perf_err("-R/--rdma_cm", "one RC QP (no -q above 1, no -c UD or UC yet, no raw test)");
		return -1;
	}
	if (finish_imm(o) != 0 || finish_conn(o) != 0 || finish_persist(o) != 0)
		return -1;
	if (o->oob_bind == NULL)
		o->oob_bind = "127.0.0.1";
	return 0;
}
