/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The peer (--role peer): the other end of both of the NF's links. Once the
 * NF is connected to its collector (collect.c) it sends --count frames on
 * its port 0, flow after flow round-robin (generate.c), never more than
 * --window beyond what came back, and checks every frame its port 1
 * receives: the generator's bytes with the MACs swapped, each flow's in
 * order. When all came back (or none came for a second), it ends the run
 * (FIN, DONE, the READ of the NF's counters) and prints one line that says
 * what was checked; it returns 0 only when every frame and every record was
 * right and the counters the NF sent and the ones read agree.
 *
 * For the benchmark (usertools/dr-nf-bench.py): --duration generates for a
 * time, --rate paces it, --window 0 does not wait for frames to come back
 * (then frames the NF could not take are lost and counted, not an error),
 * --no-collect runs without the collector (the NF's --no-export); the run's
 * rates are printed as one "peer stats:" line.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "collect.h"
#include "nf.h"

#define QUIET_S 1.0                    /* nothing came back for this long: the rest is lost */

struct sink {
	uint64_t received;
	uint64_t bad;                      /* not a frame the generator sent, MACs swapped */
	uint64_t out_of_order;             /* a flow's frame behind one already seen */
	uint64_t foreign;                  /* frames that are not the generator's */
	uint64_t *next;                    /* each flow's next sequence number */
	double last_rx;                    /* the quiet rule's clock */
	double first_frame, last_frame;    /* nf_now() of the first and the last frame received */
};

/* What the generator has sent, and when. */
struct gen {
	uint64_t sent;
	double start, until;               /* generating since, and (--duration) until */
	double last;                       /* the last burst sent */
};

/* --duration's time is up (started and past it). */
static bool
time_up(const struct nf_opts *o, const struct gen *g, double now)
{
	return o->duration_s > 0 && g->start > 0 && now >= g->until;
}

/* Nothing more to generate: --count sent, or the time up. */
static bool
gen_done(const struct nf_opts *o, const struct gen *g, double now)
{
	return g->sent >= o->count || time_up(o, g, now);
}

/*
 * Send up to a burst of the next frames on port 0 (queue 0): within the
 * window (0: none) and the pace (--rate); what the port does not take is
 * sent later.
 */
static void
generate(const struct nf_opts *o, struct nf_port *p, struct gen *gs, uint64_t received)
{
	struct rte_mbuf *pkts[NF_BURST];
	uint64_t *g = &gs->sent, room = o->count - *g, ahead = *g - received, n64;
	double now = nf_now();
	uint16_t n, i, sent;

	if (gs->start == 0) {
		gs->start = now;
		gs->until = now + o->duration_s;
	}
	if ((o->window != 0 && ahead >= o->window) || gen_done(o, gs, now))   /* gen_done: room 0 too */
		return;
	n64 = RTE_MIN(room, (uint64_t)NF_BURST);
	if (o->window != 0)
		n64 = RTE_MIN(n64, o->window - ahead);
	if (o->rate_pps > 0) {
		double due = (now - gs->start) * o->rate_pps - (double)*g;   /* frames the pace allows by now */

		if (due < 1)
			return;
		n64 = RTE_MIN(n64, (uint64_t)due);
	}
	n = (uint16_t)n64;
	if (rte_pktmbuf_alloc_bulk(p->pool, pkts, n) != 0)
		return;
	for (i = 0; i < n; i++) {
		uint64_t k = *g + i;

		if (nf_frame_fill(pkts[i], (uint32_t)(k % o->flows), k / o->flows) != 0) {
			rte_pktmbuf_free_bulk(pkts, n);
			return;
		}
	}
	sent = rte_eth_tx_burst(0, 0, pkts, n);
	if (sent < n)
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);   /* made again next time */
	*g += sent;
	if (sent > 0)
		gs->last = now;
}

static void
sink(const struct nf_opts *o, struct nf_port *p, struct sink *s)
{
	struct rte_mbuf *pkts[NF_BURST];
	uint16_t n, i;

	n = nf_rx(p, 1, pkts, NF_BURST);
	for (i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(pkts[i]), flow;
		uint64_t seq;

		if (nf_frame_parse(f, len, &flow, &seq) != 0) {
			s->foreign++;              /* not the generator's (the link's own traffic) */
			continue;
		}
		if (pkts[i]->nb_segs != 1 || flow >= o->flows || !nf_frame_check(f, len, true)) {
			s->bad++;
			continue;
		}
		if (seq < s->next[flow])
			s->out_of_order++;
		else
			s->next[flow] = seq + 1;
		s->received++;
	}
	if (n > 0) {
		s->last_rx = nf_now();
		s->last_frame = s->last_rx;
		if (s->first_frame == 0)
			s->first_frame = s->last_rx;
		rte_pktmbuf_free_bulk(pkts, n);
	}
	/* port 0: the transport's are taken; the NF's other direction carries nothing of ours */
	n = nf_rx(p, 0, pkts, NF_BURST);
	if (n > 0) {
		s->foreign += n;
		rte_pktmbuf_free_bulk(pkts, n);
	}
}

/* The "peer stats:" line: what was offered and what came back, and the export's rate at the collector. */
static void
print_stats(const struct collector *k, const struct sink *s, const struct gen *g)
{
	double gen_s = g->last > g->start ? g->last - g->start : 0, rx_s = s->last_frame - s->first_frame;
	double exp_s = k != NULL ? k->last_batch - k->first_batch : 0;

	printf("peer stats: generated %" PRIu64 " in %.3f s = %.3f Mpps; received %" PRIu64 " in %.3f s = %.3f Mpps, "
	       "lost %" PRIu64 "; collector %" PRIu64 " records in %" PRIu64 " batches in %.3f s = %.1f MB/s\n",
	       g->sent, gen_s, gen_s > 0 ? (double)g->sent / gen_s / 1e6 : 0.0, s->received, rx_s,
	       rx_s > 0 ? (double)s->received / rx_s / 1e6 : 0.0, g->sent - RTE_MIN(g->sent, s->received + s->bad),
	       k != NULL ? k->records : 0, k != NULL ? k->batches : 0, exp_s,
	       exp_s > 0 && k != NULL ? (double)k->records * NF_RECORD / exp_s / 1e6 : 0.0);
	nf_ports_print_stats("peer");
}

/*
 * Every frame that came back right and in order per flow; with a window,
 * every frame generated (--count of them, unless --duration); with the
 * collector, every record right and the NF's counters agreeing.
 */
static int
report(const struct nf_opts *o, const struct collector *k, const struct sink *s, const struct gen *g)
{
	const struct nf_counters *d = k != NULL ? &k->done : NULL, *r = k != NULL ? k->read_back : NULL;
	bool read_ok = k == NULL || (r->magic == NF_COUNTERS_MAGIC && r->records == d->records &&
				     r->sampled == d->sampled && r->fwd >= d->fwd);
	bool all_back = o->window == 0 || (s->received == g->sent && (o->duration_s > 0 || g->sent == o->count));
	bool ok = all_back && s->bad == 0 && s->out_of_order == 0 && read_ok &&
		  (k == NULL || (k->bad_records == 0 && k->misplaced == 0 && k->bad_batches == 0 &&
				 k->records == d->records && d->records + d->export_dropped == d->sampled));

	print_stats(k, s, g);
	printf("peer: generated %" PRIu64 ", received %" PRIu64 " (%" PRIu64 " bad, %" PRIu64 " out of order, %"
	       PRIu64 " foreign)", g->sent, s->received, s->bad, s->out_of_order, s->foreign);
	if (k != NULL)
		printf("; records %" PRIu64 " in %" PRIu64 " batches (%" PRIu64 " bad, %" PRIu64 " misplaced, %" PRIu64
		       " bad batches); nf: forwarded %" PRIu64 ", sampled %" PRIu64 ", records %" PRIu64
		       ", export dropped %" PRIu64 ", transport frames not sent %" PRIu64 "; counters read %s",
		       k->records, k->batches, k->bad_records, k->misplaced, k->bad_batches, d->fwd, d->sampled,
		       d->records, d->export_dropped, d->rdma_tx_dropped, read_ok ? "agree" : "DISAGREE");
	printf(": %s\n", ok ? "ok" : "FAILED");
	fflush(stdout);
	return ok ? 0 : -1;
}

/*
 * The run is over: everything generated came back; or, all generated or
 * the window full, nothing came for QUIET_S (the rest is lost).
 */
static bool
run_over(const struct nf_opts *o, const struct sink *s, const struct gen *g, double now)
{
	bool done = o->duration_s > 0 ? time_up(o, g, now) : g->sent >= o->count;

	return (done && s->received + s->bad >= g->sent) ||
	       ((done || (o->window != 0 && g->sent - s->received >= o->window)) && now - s->last_rx > QUIET_S);
}

int
nf_peer_run(const struct nf_opts *o, struct nf_port *p, volatile sig_atomic_t *stop)
{
	struct collector k, *kp = o->no_collect ? NULL : &k;
	struct sink s = { 0 };
	struct gen g = { 0 };
	double deadline;
	int rc = 0;

	s.next = calloc(o->flows, sizeof(*s.next));
	if (s.next == NULL || (kp != NULL && nf_collect_init(&k, o, p->ctx) != 0)) {
		free(s.next);
		if (kp != NULL)
			nf_collect_fini(&k);
		return -1;
	}
	if (kp != NULL)
		printf("peer: collector listening on port %u; generating once the NF connects\n", NF_CM_PORT);
	else if (nf_links_up(o->timeout_s) != 0) {
		fprintf(stderr, "dpdk-rdma-nf: peer: the links are not up after %.0f s\n", o->timeout_s);
		rc = -1;
	}
	fflush(stdout);
	deadline = nf_now() + o->timeout_s;
	while (rc == 0 && !*stop && (kp == NULL || k.state != COLL_ENDED)) {
		bool running = kp == NULL || k.state == COLL_CONNECTED;
		double now;

		if (running)
			generate(o, p, &g, s.received);
		sink(o, p, &s);
		nf_transport_run(p);
		if (kp != NULL && (rc = nf_collect_poll(&k)) != 0)
			break;
		now = nf_now();
		if (running && s.last_rx == 0)
			s.last_rx = now;           /* the run starts: the quiet rule counts from here */
		if (running && run_over(o, &s, &g, now)) {
			if (kp == NULL)
				break;
			rc = nf_collect_fin(&k);
			deadline = now + o->timeout_s;
		}
		if (kp != NULL && (k.state == COLL_LISTENING || k.state >= COLL_FIN_SENT)) {
			if (now > deadline) {
				fprintf(stderr, "dpdk-rdma-nf: peer: %s for %.0f s\n", k.state == COLL_LISTENING ?
					"no NF connected" : "the NF did not end the run", o->timeout_s);
				rc = -1;
			}
		} else {
			deadline = now + o->timeout_s;   /* running: frames move, or the quiet rule ends it */
		}
	}
	if (rc == 0 && !*stop)
		rc = report(o, kp, &s, &g);
	if (kp != NULL)
		nf_collect_fini(&k);
	free(s.next);
	return rc;
}
