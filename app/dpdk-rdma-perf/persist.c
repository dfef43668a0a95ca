/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * --persist: a server that serves clients one after another until SIGINT or
 * SIGTERM. EAL, the port, the context and the engine's lcores stay; each
 * client runs the test, QP count, QP type, sizes and iterations it asks
 * (the server's own -s, -a or --sizes still bound the size: its TEST only
 * sets that bound), and everything of a run - PD, MR, buffer, CQs, QPs,
 * AHs - is made for it and destroyed after it, as without --persist. A
 * client that is refused, fails or vanishes ends its run, not the server:
 * the run's objects are destroyed, the failure is said on stderr, the next
 * client is taken. The workers are not stopped after a run (fin() leaves
 * them), so a peer that closes its port while they poll must not be a
 * net_memif peer of this port in DPDK 22.11 (doc/guides/backends.rst):
 * inline mode polls only during a run, and usertools/dr-soak.py puts the
 * fault link between the two.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define PERSIST_SETTLE_S 3.0     /* a refused client's port may still be connecting */

const char *
perf_persist_opts(const struct perf_opts *srv, const struct oob_hello *h, struct perf_opts *run,
		  char *why, size_t len)
{
	const struct perf_test *t;

	if (memchr(h->test, '\0', sizeof(h->test)) == NULL ||
	    (t = perf_test_find(h->test)) == NULL) {
		snprintf(why, len, "bad request: unknown test '%.*s'", (int)sizeof(h->test), h->test);
		return why;
	}
	if (t->raw) {
		snprintf(why, len, "%s: a --persist server serves the transport's tests only",
			 t->name);
		return why;
	}
	if (h->num_qps == 0 || h->num_qps > DR_MAX_QP || (t->kind == PERF_LAT && h->num_qps > 1)) {
		snprintf(why, len, "bad request: %s with %u QPs", t->name, h->num_qps);
		return why;
	}
	*run = *srv;
	run->test = t;
	run->num_qps = h->num_qps;
	/* the server's own -t, else the test's default (options_rules.c) */
	if (!srv->tx_given)
		run->tx_depth = t->kind == PERF_LAT ? PERF_DEF_TX_LAT : PERF_DEF_TX_BW;
	/* the client's immediate data and -A (adopted); -c, -o: the server's if it gave them */
	run->send_imm = run->write_imm = false;
	if (!perf_verb_fetches(t->verb))
		run->out_reads = 0;
	return NULL;
}

/* Forget the last run; keep the port, the context and the listening socket. */
static void
reset_run(struct perf *p, const struct perf_opts *srv)
{
	struct perf keep = *p;

	memset(p, 0, sizeof(*p));
	p->o = srv;
	p->test = srv->test;
	p->server = true;
	p->tsc_hz = keep.tsc_hz;
	p->dev_list = keep.dev_list;
	p->dev = keep.dev;
	p->ctx = keep.ctx;
	p->port_id = keep.port_id;
	p->mac = keep.mac;
	p->gid = keep.gid;
	p->mtu = keep.mtu;
	p->dev_attr = keep.dev_attr;
	p->ob = keep.ob;
}

/* One client: its handshake, its run, its objects destroyed. */
static int
serve_one(struct perf *p, const struct perf_opts *srv, uint64_t n)
{
	char what[64] = "handshake";
	int ret;

	reset_run(p, srv);
	ret = perf_serve_hello(p, &p->run_o);
	if (ret != PERF_OK) {
		perf_port_wait_link(p, PERSIST_SETTLE_S, false);
	} else {
		snprintf(what, sizeof(what), "%s -c %s -q %u", p->test->name, perf_conn_name(p->conn),
			 p->o->num_qps);
		ret = perf_run_session(p);
	}
	p->test->teardown(p);
	free(p->tstamp);
	p->tstamp = NULL;
	/* stopping: the connection closes after the port (main()), so the client waits for that */
	if (!perf_stop)
		oob_close_conn(&p->ob);
	fprintf(stderr, PERF_PROG ": persist: run %" PRIu64 " (%s): %s\n", n, what,
		ret == PERF_OK ? "ok" : "failed");
	fflush(stdout);
	return ret;
}

int
perf_persist(struct perf *p)
{
	const struct perf_opts *srv = p->o;
	uint64_t runs = 0, failed = 0;
	int ret = PERF_OK;

	if (oob_listen(&p->ob, srv->oob_bind, srv->tcp_port, &perf_stop) != 0)
		return PERF_FAIL;
	while (!perf_stop && !p->cleanup_failed) {
		perf_print_waiting();
		ret = oob_accept_next(&p->ob);
		if (ret <= 0)
			break;
		if (serve_one(p, srv, ++runs) != PERF_OK)
			failed++;
	}
	p->o = srv;
	p->test = srv->test;
	fprintf(stderr, PERF_PROG ": persist: %s after %" PRIu64 " runs, %" PRIu64 " failed\n",
		p->cleanup_failed ? "stopped (an object could not be destroyed)" :
		ret < 0 ? "stopped (the listening socket failed)" : "stopped by a signal", runs,
		failed);
	return ret < 0 ? PERF_FAIL : PERF_OK;
}
