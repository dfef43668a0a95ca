/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The session with --perftest-compat: the steps of perftest 4.5-0.17's
 * main() of each test, so that its ib_* tools can be either side.
 *
 * perftest's server learns nothing from its client: both sides must be
 * given the same test, -s, -n and -q (and -A). So do we: each side runs its
 * own options (one size, iterations; no -D, -a or --sizes, and --check only
 * for the atomic tests, where each side checks perftest's operands on its
 * own: the original values a client gets, the words a server ends with).
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

	p->nb_sizes = 1;
	p->sizes[0] = o->sizes[0];
	p->max_size = o->sizes[0];
	p->iters = o->iters;
	p->duration = 0;
	p->check = o->check;    /* the atomic tests only (options.c) */
	p->atomic = o->atomic;
}

static int
connect_oob(struct perf *p)
{
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
	if (perf_connect_qps(p) != PERF_OK)
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

/* After the run: the results and the close, in the test's order; prints the row. */
static int
after_run(struct perf *p)
{
	const struct perf_test *t = p->test;
	double vals[OOB_NB_VALS] = { 0 };
	uint64_t iters = 0;

	/* perftest's bw rows count the messages of all QPs */
	const uint64_t ours = p->res.iters * (t->kind == PERF_BW ? p->nb_qps : 1);

	if (t->kind == PERF_BW && t->verb != PERF_SEND) {
		if (pt_hand_shake(p, 0, false) != PERF_OK ||
		    pt_xchg_bw_reports(p, vals, &iters) != PERF_OK)
			return PERF_FAIL;
		if (p->server)
			perf_print_row(p, iters, vals);
		else
			perf_print_row(p, ours, p->res.vals);
		return pt_close(p);
	}
	if (!(p->server && t->kind == PERF_LAT && perf_verb_fetches(t->verb)))
		perf_print_row(p, ours, p->res.vals);
	if (t->kind == PERF_LAT && t->verb == PERF_WRITE)
		return linger(p);
	return pt_close(p);
}

int
perf_pt_session(struct perf *p)
{
	const struct perf_test *t = p->test;
	int ret;

	p->perftest = true;
	adopt_own(p);
	if (connect_oob(p) != PERF_OK || pt_preamble(p) != PERF_OK)
		return PERF_FAIL;
	if (t->setup(p) != PERF_OK)
		return PERF_FAIL;
	if (t->kind == PERF_LAT) {
		p->tstamp = calloc(p->iters, sizeof(*p->tstamp));
		if (p->tstamp == NULL)
			return perf_api_err("calloc", ENOMEM);
	}
	if (before_run(p) != PERF_OK)
		return PERF_FAIL;
	/* a perftest client's first message after its run ends a server's */
	p->pt_expect_key = p->server && !(t->kind == PERF_LAT && t->verb == PERF_WRITE);
	ret = t->run(p);
	p->pt_expect_key = false;
	if (ret != PERF_OK || after_run(p) != PERF_OK)
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
