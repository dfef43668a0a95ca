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
	double last_rx;
};

/* Send up to a burst of the next frames on port 0 (queue 0); what the port does not take is sent later. */
static void
generate(const struct nf_opts *o, struct nf_port *p, uint64_t *g, uint64_t received)
{
	struct rte_mbuf *pkts[NF_BURST];
	uint64_t room = o->count - *g, ahead = *g - received;
	uint16_t n, i, sent;

	if (ahead >= o->window || room == 0)
		return;
	n = (uint16_t)RTE_MIN(RTE_MIN(room, (uint64_t)NF_BURST), o->window - ahead);
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
		rte_pktmbuf_free_bulk(pkts, n);
	}
	/* port 0: the transport's are taken; the NF's other direction carries nothing of ours */
	n = nf_rx(p, 0, pkts, NF_BURST);
	if (n > 0) {
		s->foreign += n;
		rte_pktmbuf_free_bulk(pkts, n);
	}
}

static int
report(const struct nf_opts *o, const struct collector *k, const struct sink *s, uint64_t generated)
{
	const struct nf_counters *d = &k->done, *r = k->read_back;
	bool read_ok = r->magic == NF_COUNTERS_MAGIC && r->records == d->records && r->sampled == d->sampled &&
		       r->fwd >= d->fwd;
	bool ok = s->received == generated && generated == o->count && s->bad == 0 && s->out_of_order == 0 &&
		  k->bad_records == 0 && k->misplaced == 0 && k->bad_batches == 0 && k->records == d->records &&
		  read_ok && d->records + d->export_dropped == d->sampled;

	printf("peer: generated %" PRIu64 ", received %" PRIu64 " (%" PRIu64 " bad, %" PRIu64 " out of order, %"
	       PRIu64 " foreign); "
	       "records %" PRIu64 " in %" PRIu64 " batches (%" PRIu64 " bad, %" PRIu64 " misplaced, %" PRIu64
	       " bad batches); nf: forwarded %" PRIu64 ", sampled %" PRIu64 ", records %" PRIu64 ", export dropped %"
	       PRIu64 ", transport frames not sent %" PRIu64 "; counters read %s: %s\n",
	       generated, s->received, s->bad, s->out_of_order, s->foreign, k->records, k->batches, k->bad_records, k->misplaced,
	       k->bad_batches, d->fwd, d->sampled, d->records, d->export_dropped, d->rdma_tx_dropped,
	       read_ok ? "agree" : "DISAGREE", ok ? "ok" : "FAILED");
	fflush(stdout);
	return ok ? 0 : -1;
}

int
nf_peer_run(const struct nf_opts *o, struct nf_port *p, volatile sig_atomic_t *stop)
{
	struct collector k;
	struct sink s = { 0 };
	uint64_t g = 0;
	double deadline;
	int rc;

	s.next = calloc(o->flows, sizeof(*s.next));
	if (s.next == NULL || nf_collect_init(&k, o, p->ctx) != 0) {
		free(s.next);
		nf_collect_fini(&k);
		return -1;
	}
	printf("peer: collector listening on port %u; generating %" PRIu64 " frames of %u flows once the NF "
	       "connects\n", NF_CM_PORT, o->count, o->flows);
	fflush(stdout);
	deadline = nf_now() + o->timeout_s;
	for (rc = 0; rc == 0 && !*stop && k.state != COLL_ENDED;) {
		if (k.state == COLL_CONNECTED && g < o->count)
			generate(o, p, &g, s.received);
		sink(o, p, &s);
		nf_transport_run(p);
		rc = nf_collect_poll(&k);
		if (rc != 0)
			break;
		if (k.state == COLL_CONNECTED && s.last_rx == 0)
			s.last_rx = nf_now();      /* the run starts: the quiet rule counts from here */
		/* all came back; or nothing for a while, with all sent or the window full: the rest is lost */
		if (k.state == COLL_CONNECTED &&
		    ((g == o->count && s.received + s.bad >= g) ||
		     ((g == o->count || g - s.received >= o->window) && nf_now() - s.last_rx > QUIET_S))) {
			rc = nf_collect_fin(&k);
			deadline = nf_now() + o->timeout_s;
		}
		if (k.state == COLL_LISTENING || k.state >= COLL_FIN_SENT) {
			if (nf_now() > deadline) {
				fprintf(stderr, "dpdk-rdma-nf: peer: %s for %.0f s\n", k.state == COLL_LISTENING ?
					"no NF connected" : "the NF did not end the run", o->timeout_s);
				rc = -1;
			}
		} else {
			deadline = nf_now() + o->timeout_s;   /* connected: frames move, or the quiet rule ends it */
		}
	}
	if (rc == 0 && k.state == COLL_ENDED)
		rc = report(o, &k, &s, g);
	nf_collect_fini(&k);
	free(s.next);
	return rc;
}
