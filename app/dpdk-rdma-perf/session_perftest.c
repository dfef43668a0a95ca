/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The session with --perftest-compat: the steps of perftest 4.5-0.17's
 * main() of each test, so that its ib_* tools can be either side.
 *
 * perftest's server learns nothing from its client: both sides must be
 * given the same test, -s or -a, -n and -q (and -A). So do we: each side
 * runs its own options (one size or -a's 2 ... 2^23, iterations; no -D or
 * --sizes, and --check only for the atomic tests, where each side checks
 * perftest's operands on its own: the original values a client gets, the
 * words a server ends with).
 *
 * The hand shakes (108-byte address messages) before the run, N the QPs:
 *   write_bw, read_bw, atomic_bw    N addresses, connect, N again, 1 after RTR
 *   send_bw, send_lat               N addresses, connect, 1, N again, receives, 1
 *   write_lat, read_lat, atomic_lat 1, N addresses, connect, N again, 1
 * and after it:
 *   write_bw, read_bw, atomic_bw    1, the client's report (the server prints
 *                                   it), close
 *   send_bw, send_lat               close (both print their own row)
 *   read_lat, atomic_lat            close (the server closes right away; only
 *                                   the client prints a row)
 *   write_lat             nothing: both print their row, drive the transport
 *                         for LINGER_MS (the peer's last ACK) and exit
 * where close is a hand shake then "done". The client's first message
 * after its run tells a server that the run is over (pt_poll()).
 *
 * -R (perftest's rdma_cm mode, rdma_cm.c): the same messages on a comm
 * connection of the CM instead of TCP, an empty hand shake before and after
 * the data connection (made by the CM after the preamble), no connect step
 * of ours, and a close without "done".
 *
 * -a (perftest's RUN_ALL), size after size, nothing between two sizes but:
 *   write_bw, read_bw     the client runs and prints each size; the server
 *                         waits once and prints the client's last report
 *   send_bw               receives, 1, run, row, 1 for each size
 *   send_lat              receives, 1, run, row for each size
 *   write_lat             run, row for each size (the polled byte of a larger
 *                         size was never written: nothing to clear between)
 *   read_lat              the client runs and prints each size, the server
 *                         waits once
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "perf.h"

#define LINK_WAIT_S 10.0
#define LINGER_MS 500

/* Our options are the run: a perftest peer sends none. */
static void
adopt_own(struct perf *p)
{
	const struct perf_opts *o = p->o;

	p->nb_sizes = o->nb_sizes;          /* one, or -a's (options.c) */
	p->max_size = 0;
	for (unsigned int i = 0; i < o->nb_sizes; i++) {
		p->sizes[i] = o->sizes[i];
		p->max_size = RTE_MAX(p->max_size, o->sizes[i]);
	}
	p->iters = o->iters;
	p->duration = 0;
	p->check = o->check;    /* the atomic tests only (options.c) */
	p->atomic = o->atomic;
}

static int
connect_oob(struct perf *p)
{
	if (p->o->rdma_cm)
		return perf_cm_comm_connect(p);      /* -R: the exchange over the CM's comm connection */
	if (p->server) {
		perf_print_waiting();
		return oob_accept(&p->ob, p->o->oob_bind, p->o->tcp_port, &perf_stop) == 0 ?
			PERF_OK : PERF_FAIL;
	}
	return oob_connect(&p->ob, p->o->server, p->o->tcp_port, &perf_stop) == 0 ?
		PERF_OK : PERF_FAIL;
}

/* N hand shakes, one per QP; @p parse: they carry the peer's addresses. */
static int
per_qp(struct perf *p, bool parse)
{
	for (unsigned int i = 0; i < p->nb_qps; i++)
		if (pt_hand_shake(p, i, parse) != PERF_OK)
			return PERF_FAIL;
	return PERF_OK;
}

/* Everything up to the run, in the test's order. */
static int
before_run(struct perf *p)
{
	const struct perf_test *t = p->test;
	const bool send = t->verb == PERF_SEND, lat1 = t->kind == PERF_LAT && !send;

	if (lat1 && pt_hand_shake(p, 0, false) != PERF_OK)
		return PERF_FAIL;
	if (per_qp(p, true) != PERF_OK)
		return PERF_FAIL;
	p->path_mtu = RTE_MIN(p->mtu, p->pt_peer_mtu);
	/* -R: the CM readied the QPs (RTR, RTS) from its own exchange */
	if (!p->o->rdma_cm && perf_connect_qps(p) != PERF_OK)
		return PERF_FAIL;
	if (send && pt_hand_shake(p, 0, false) != PERF_OK)
		return PERF_FAIL;
	if (per_qp(p, false) != PERF_OK)
		return PERF_FAIL;
	perf_port_wait_link(p, LINK_WAIT_S, true);
	perf_print_header(p);
	perf_print_table_head(p);
	/* receives posted, the polled byte cleared, before the last one */
	p->size_index = 0;
	p->size = p->sizes[0];
	memset(&p->res, 0, sizeof(p->res));
	p->peer_done_seen = p->done_sent = false;
	if (perf_prepare_size(p) != PERF_OK)
		return PERF_FAIL;
	return pt_hand_shake(p, 0, false);
}

/*
 * write_lat ends without a message: the peer may still wait for the ACK of
 * its last WRITE, or retransmit it (a guest under TCG). Keep the transport
 * going a little, as ibv_rc_pingpong's port does.
 */
static int
linger(struct perf *p)
{
	const uint64_t end = rte_rdtsc() + p->tsc_hz / 1000 * LINGER_MS;

	while (rte_rdtsc() < end && !perf_stop)
		if (perf_progress(p) != PERF_OK)
			return PERF_FAIL;
	return PERF_OK;
}

/*
 * Sides that do not run the sizes: perftest's write_bw / read_bw server
 * (the client's WRITEs and READs need nothing of it) and read_lat /
 * atomic_lat server wait once, for the client's message after its last size.
 */
static bool
waits_once(const struct perf *p)
{
	const struct perf_test *t = p->test;

	return p->server && (t->kind == PERF_BW ? t->verb != PERF_SEND : perf_verb_fetches(t->verb));
}

/* The next of -a's sizes: its receives or polled byte ready, then send's hand shake. */
static int
next_size(struct perf *p, unsigned int k)
{
	p->size_index = k;
	p->size = p->sizes[k];
	memset(&p->res, 0, sizeof(p->res));
	p->peer_done_seen = p->done_sent = false;
	if (perf_prepare_size(p) != PERF_OK)
		return PERF_FAIL;
	return p->test->verb == PERF_SEND ? pt_hand_shake(p, 0, false) : PERF_OK;
}

/* A size's row, where the test prints one, and send_bw -a's hand shake after it. */
static int
size_done(struct perf *p)
{
	const struct perf_test *t = p->test;
	/* perftest's bw rows count the messages of all QPs */
	const uint64_t ours = p->res.iters * (t->kind == PERF_BW ? p->nb_qps : 1);

	if (!waits_once(p))
		perf_print_row(p, ours, p->res.vals);
	if (p->o->all && t->kind == PERF_BW && t->verb == PERF_SEND)
		return pt_hand_shake(p, 0, false);
	return PERF_OK;
}

/* After the last size: the client's report for a waiting server, and the close. */
static int
after_run(struct perf *p)
{
	const struct perf_test *t = p->test;
	double vals[OOB_NB_VALS] = { 0 };
	uint64_t iters = 0, size = p->size;

	if (t->kind == PERF_BW && t->verb != PERF_SEND) {
		if (pt_hand_shake(p, 0, false) != PERF_OK ||
		    pt_xchg_bw_reports(p, vals, &iters, &size) != PERF_OK)
			return PERF_FAIL;
		if (p->server) {
			p->size = (uint32_t)size;     /* the client's last size (-a: 2^23) */
			perf_print_row(p, iters, vals);
		}
		return pt_close(p);
	}
	if (t->kind == PERF_LAT && t->verb == PERF_WRITE)
		return linger(p);
	return pt_close(p);
}

/* Every size in turn (one unless -a), or the one wait of a side that waits. */
static int
run_sizes(struct perf *p)
{
	const struct perf_test *t = p->test;
	const unsigned int n = waits_once(p) ? 1 : p->nb_sizes;
	int ret;

	for (unsigned int k = 0; k < n; k++) {
		if (k > 0 && next_size(p, k) != PERF_OK)
			return PERF_FAIL;
		/* a perftest client's first message after its run ends a server's */
		p->pt_expect_key = p->server && !(t->kind == PERF_LAT && t->verb == PERF_WRITE);
		ret = t->run(p);
		p->pt_expect_key = false;
		if (ret != PERF_OK || size_done(p) != PERF_OK)
			return PERF_FAIL;
		if (p->check && p->res.bad.found)
			return PERF_OK;           /* perf_pt_session() reports it */
	}
	return PERF_OK;
}

int
perf_pt_session(struct perf *p)
{
	const struct perf_test *t = p->test;

	p->perftest = true;
	adopt_own(p);
	if (connect_oob(p) != PERF_OK || pt_preamble(p) != PERF_OK)
		return PERF_FAIL;
	if (t->setup(p) != PERF_OK)
		return PERF_FAIL;
	/* -R: create_rdma_cm_connection(): an empty hand shake, the data connection, another */
	if (p->o->rdma_cm && (pt_barrier(p) != PERF_OK || perf_cm_data_connect(p) != PERF_OK ||
			      pt_barrier(p) != PERF_OK))
		return PERF_FAIL;
	if (t->kind == PERF_LAT) {
		p->tstamp = calloc(p->iters, sizeof(*p->tstamp));
		if (p->tstamp == NULL)
			return perf_api_err("calloc", ENOMEM);
	}
	if (before_run(p) != PERF_OK || run_sizes(p) != PERF_OK || after_run(p) != PERF_OK)
		return PERF_FAIL;
	perf_print_table_end();
	if (p->check && p->res.bad.found) {
		perf_print_bad(p);
		return PERF_FAIL;
	}
	if (p->check)
		printf(" Data check: OK, %" PRIu64 " bytes verified\n", p->res.verified);
	fflush(stdout);
	return PERF_OK;
}
