/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-perf <EAL args> -- TEST --ip A.B.C.D [options] [SERVER_ADDR]
 *
 * The session: command line, EAL, device, the OOB handshake (session.c),
 * the test's setup, the QP exchange, then for each size: prepare, barrier,
 * run, results both ways; FIN both ways, so neither side is driving its
 * port when the other closes its own (memif); teardown. A --persist server
 * runs sessions until a signal (persist.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "dr_app.h"
#include "perf.h"

#define LINK_WAIT_S 10.0
#define SERVER_GONE_S 15        /* the client waits this long for the server to close */
#define LINK_DOWN_S 1.0
#define PERSIST_DOWN_S 0.2      /* ... when the server is --persist */
#define LINK_SETTLE_S 3.0

volatile sig_atomic_t perf_stop;


int
perf_api_err(const char *what, int err)
{
	perf_err(what, "%s (errno %d)", strerror(err), err);
	return PERF_FAIL;
}

int
perf_wc_err(const struct dr_wc *wc)
{
	char what[48];

	snprintf(what, sizeof(what), "completion on QP 0x%06x", wc->qp_num);
	perf_err(what, "%s (status %d, opcode %d, vendor error 0x%x, wr_id 0x%" PRIx64 ")",
		 dr_wc_status_str(wc->status), (int)wc->status, (int)wc->opcode, wc->vendor_err,
		 wc->wr_id);
	return PERF_FAIL;
}

int
perf_progress(struct perf *p)
{
	int ret;

	if (dr_app_engine_workers(&p->o->engine)) {
		perf_idle(p);           /* the engine lcores move the transport: let them have the CPU */
		return PERF_OK;
	}
	ret = dr_progress(p->ctx);

	if (ret < 0)
		return perf_api_err("dr_progress", -ret);
	return PERF_OK;
}

void
perf_idle(const struct perf *p)
{
	/* rtc, pipeline: our lcore may share its CPU with the engine's (--idle yield): let them run */
	dr_app_engine_idle(&p->o->engine);
}

void
perf_note_bad(struct perf *p, uint32_t qp, uint64_t iter, uint64_t off, unsigned int expected,
	      unsigned int got)
{
	struct perf_bad *b = &p->res.bad;

	if (b->found)
		return;
	*b = (struct perf_bad){ true, qp, iter, off, expected, got };
}

int
perf_oob_poll(struct perf *p, bool force)
{
	uint64_t now = rte_rdtsc();
	struct oob_msg m;
	int ret;

	if (perf_stop) {
		perf_err("run", "interrupted");
		return PERF_FAIL;
	}
	if (!force && now - p->last_oob_check < p->tsc_hz / 1000)
		return PERF_OK;
	p->last_oob_check = now;
	if (p->perftest)
		return pt_poll(p);
	ret = oob_recv(&p->ob, &m, 0);
	if (ret <= 0)
		return ret == 0 ? PERF_OK : PERF_FAIL;
	if (m.type != OOB_DONE) {
		perf_err("out-of-band exchange", "unexpected %s message during the run",
			 oob_type_name(m.type));
		return PERF_FAIL;
	}
	if (m.u.done.status == OOB_ST_ERROR) {
		perf_err("the peer stopped", "%s", m.u.done.text);
		return PERF_FAIL;
	}
	p->peer_done = m.u.done;
	p->peer_done_seen = true;
	p->peer_done_tsc = rte_rdtsc();
	return PERF_OK;
}

int
perf_wait_peer_done(struct perf *p)
{
	while (!p->peer_done_seen) {
		if (perf_progress(p) != PERF_OK || perf_oob_poll(p, false) != PERF_OK)
			return PERF_FAIL;
	}
	return PERF_OK;
}

/* Does this side only serve the peer's WRs (and print the peer's row)? */
static bool
passive(const struct perf *p)
{
	const struct perf_test *t = p->test;

	/* raw_bw: the receiver's rate is the row (both sides print the server's) */
	if (t->raw)
		return t->kind == PERF_BW ? !p->server : p->server;
	return p->server && ((t->kind == PERF_BW && t->verb != PERF_SEND) ||
			     (t->kind == PERF_LAT && perf_verb_fetches(t->verb)));
}

static int
send_done(struct perf *p, enum oob_status st, const char *text)
{
	struct oob_msg m = { .type = OOB_DONE };
	struct oob_done *d = &m.u.done;

	d->size_index = p->size_index;
	d->status = st;
	d->iters = p->res.iters;
	d->verified = p->res.verified;
	d->bad_qp = p->res.bad.qp;
	d->bad_iter = p->res.bad.iter;
	d->bad_offset = p->res.bad.found ? p->res.bad.offset : UINT64_MAX;
	memcpy(d->vals, p->res.vals, sizeof(d->vals));
	snprintf(d->text, sizeof(d->text), "%s", text);
	p->done_sent = true;
	return oob_send(&p->ob, &m) == 0 ? PERF_OK : PERF_FAIL;
}

/*
 * FIN both ways: after ours, we never drive the port again; after theirs,
 * neither does the peer, and either may close its port.
 */
static void
fin(struct perf *p, int timeout_ms)
{
	struct oob_msg m = { .type = OOB_FIN };

	/* rtc: the workers poll the port on their own; they stop here too (--persist: they serve on) */
	if (p->ctx != NULL && !p->o->persist)
		(void)dr_stop_workers(p->ctx);
	if (p->ob.fd < 0 || oob_send(&p->ob, &m) != 0)
		return;
	while (oob_recv(&p->ob, &m, timeout_ms) == 1)
		if (m.type == OOB_FIN)
			return;
}

/* An error after the handshake: tell the peer, stop in-band. */
static int
abort_run(struct perf *p)
{
	if (p->ob.fd >= 0 && !p->done_sent)
		send_done(p, OOB_ST_ERROR, perf_last_err);
	fin(p, OOB_IO_TIMEOUT_MS);
	return PERF_FAIL;
}

int
perf_barrier(struct perf *p)
{
	struct oob_msg m = { .type = OOB_BARRIER };

	m.u.barrier.size_index = p->size_index;
	m.u.barrier.size = p->size;
	if (oob_send(&p->ob, &m) != 0 || oob_recv(&p->ob, &m, -1) != 1)
		return PERF_FAIL;
	if (m.type == OOB_DONE && m.u.done.status == OOB_ST_ERROR) {
		perf_err("the peer stopped", "%s", m.u.done.text);
		return PERF_FAIL;
	}
	if (m.type != OOB_BARRIER || m.u.barrier.size_index != p->size_index ||
	    m.u.barrier.size != p->size) {
		perf_err("out-of-band exchange", "out of step: %s message where the barrier of "
			 "size %u was expected", oob_type_name(m.type), p->size);
		return PERF_FAIL;
	}
	return PERF_OK;
}

void
perf_print_bad(const struct perf *p)
{
	const struct perf_bad *b = &p->res.bad;

	fprintf(stderr, PERF_PROG ": data check failed: size %u QP %u message %" PRIu64
		" first bad offset %" PRIu64 ": expected 0x%02x, got 0x%02x\n", p->size, b->qp,
		b->iter, b->offset, b->expected, b->got);
}

/* Print the row of this size and the verdicts. @return true when both checks passed. */
static bool
report_size(struct perf *p)
{
	const struct oob_done *d = &p->peer_done;
	const struct perf_bad *b = &p->res.bad;
	bool ok = true;

	if (passive(p))
		perf_print_row(p, d->iters, d->vals);
	else
		perf_print_row(p, p->res.iters, p->res.vals);
	if (b->found) {
		perf_print_bad(p);
		ok = false;
	}
	if (d->status == OOB_ST_MISMATCH) {
		fprintf(stderr, PERF_PROG ": the peer's data check failed: size %u QP %u message %"
			PRIu64 " first bad offset %" PRIu64 "\n", p->size, d->bad_qp, d->bad_iter,
			d->bad_offset);
		ok = false;
	}
	p->verified_total += p->res.verified + d->verified;
	if (perf_unreliable(p) && p->server && !perf_verb_fetches(p->test->verb)) {
		p->lost_total += p->res.lost;
		p->sent_total += d->iters * p->nb_qps;
	}
	return ok;
}

int
perf_run_session(struct perf *p)
{
	const struct perf_test *t = p->test;
	bool ok = true;

	if (t->setup(p) != PERF_OK)
		return abort_run(p);
	if (t->kind == PERF_LAT && p->duration == 0) {
		p->tstamp = calloc(p->iters, sizeof(*p->tstamp));
		if (p->tstamp == NULL) {
			perf_api_err("calloc", ENOMEM);
			return abort_run(p);
		}
	}
	if (perf_exchange_qps(p) != PERF_OK || perf_unrel_sizes(p) != PERF_OK ||
	    perf_connect_qps(p) != PERF_OK)
		return abort_run(p);
	perf_port_wait_link(p, LINK_WAIT_S, true);
	perf_print_header(p);
	perf_print_table_head(p);

	for (unsigned int k = 0; k < p->nb_sizes && ok; k++) {
		p->size_index = k;
		p->size = p->sizes[k];
		memset(&p->res, 0, sizeof(p->res));
		p->peer_done_seen = p->done_sent = false;
		if (perf_prepare_size(p) != PERF_OK || perf_barrier(p) != PERF_OK)
			return abort_run(p);
		if (t->run(p) != PERF_OK)
			return abort_run(p);
		if (send_done(p, p->res.bad.found ? OOB_ST_MISMATCH : OOB_ST_OK, "") != PERF_OK ||
		    perf_wait_peer_done(p) != PERF_OK)
			return abort_run(p);
		ok = report_size(p);
	}
	perf_print_table_end();
	if (perf_unreliable(p) && p->server && (perf_uses_recv(p) || (p->check && t->kind == PERF_BW)))
		/* UC, UD: what the receiver counted (a UC WRITE without --check leaves no trace) */
		printf(" Messages lost   : %" PRIu64 " of %" PRIu64 " (%s: no retransmission)\n",
		       p->lost_total, p->sent_total, perf_conn_name(p->conn));
	if (ok && p->check)
		printf(" Data check: OK, %" PRIu64 " bytes verified\n", p->verified_total);
	fflush(stdout);
	fin(p, OOB_IO_TIMEOUT_MS);
	return ok ? PERF_OK : PERF_FAIL;
}

/*
 * Ports close one after the other, the server's first: memif's interrupt
 * thread handling the peer's connect or disconnect while this thread closes
 * the same port can crash (DPDK 22.11). The server closes its connection
 * only after its port and EAL; the client waits for that, then for its link
 * to go down. A server that ends early (a refused client) first lets the
 * client's port finish connecting.
 */
static void
settle_server(struct perf *p)
{
	if (p->ob.fd >= 0 && p->ctx != NULL)
		perf_port_wait_link(p, LINK_SETTLE_S, false);
}

static void
wait_server_gone(struct perf *p)
{
	if (p->ob.fd < 0)
		return;
	oob_wait_closed(&p->ob, SERVER_GONE_S * 1000);
	/*
	 * A --persist server keeps its port up: its link does not go down. When it
	 * stops (a signal) it closes the connection only after its port, as
	 * without --persist, and the link is down by now or very soon.
	 */
	if (p->ctx != NULL)
		perf_port_wait_down(p, p->peer_persist ? PERSIST_DOWN_S : LINK_DOWN_S);
}

int
main(int argc, char **argv)
{
	struct perf_opts o;
	struct perf p = { .o = &o, .ob = { .fd = -1, .lfd = -1 } };
	int own_argc, eal_argc, ret;
	char **own_argv;

	/* our options first, so that a usage error never starts EAL */
	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = perf_parse_args(own_argc, own_argv, &o);
	if (ret != 0)
		return ret < 0 ? PERF_EXIT_USAGE : PERF_EXIT_OK;

	/* no SA_RESTART: a blocked poll() returns EINTR and the run ends in-band */
	dr_app_stop_on_signals(&perf_stop, false);
	ret = dr_eal_init(eal_argc != 0 ? eal_argc : 1, argv);
	if (ret < 0) {
		perf_err("dr_eal_init", "%s (EAL arguments before \"--\")", strerror(-ret));
		return PERF_EXIT_FAIL;
	}
	if (o.use_hugepages && !rte_eal_has_hugepages()) {
		perf_err("--use_hugepages", "EAL runs without hugepages (--no-huge, or none "
			 "reserved): reserve some and leave --no-huge out");
		rte_eal_cleanup();
		return PERF_EXIT_USAGE;
	}
	p.test = o.test;
	p.server = o.server == NULL;
	p.tsc_hz = rte_get_tsc_hz();

	ret = perf_port_open(&p);
	if (ret == PERF_OK)
		perf_telemetry_init(&p);
	if (ret == PERF_OK && o.persist)
		ret = perf_persist(&p);
	else if (ret == PERF_OK && o.perftest)
		ret = perf_pt_session(&p);
	else if (ret == PERF_OK)
		ret = perf_handshake(&p);
	if (ret == PERF_OK && !o.perftest && !o.persist)
		ret = perf_run_session(&p);

	/* -R: the connections released while the port still carries them */
	perf_cm_close(&p);
	/* nothing drives the port any more (rtc: the workers stop; fin() did it on the usual path) */
	if (p.ctx != NULL)
		(void)dr_stop_workers(p.ctx);
	if (o.counters)
		perf_print_counters(&p);
	p.test->teardown(&p);
	free(p.tstamp);
	if (p.server)
		settle_server(&p);
	else
		wait_server_gone(&p);
	perf_telemetry_fini();
	perf_port_close(&p);
	rte_eal_cleanup();
	/* the server's connection closes last: the client closes its port after */
	oob_close(&p.ob);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perf_err("standard output", "write error");
		return PERF_EXIT_FAIL;
	}
	return ret == PERF_OK && !p.cleanup_failed ? PERF_EXIT_OK : PERF_EXIT_FAIL;
}
