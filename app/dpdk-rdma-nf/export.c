/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The network function (--role nf): one loop on one lcore forwards between
 * ports 0 and 1 with MAC swap and runs the transport on port 0. While a
 * collector is connected, the first NF_RECORD bytes of every Nth forwarded
 * frame go into a batch; a full batch (a path MTU of records: one packet)
 * goes to the collector's ring by RDMA WRITE WITH IMMEDIATE (imm: batch
 * number << 8 | records), slot by slot. A receive the collector posts for
 * each slot it has read is the credit: with none, the WRITE waits (RNR)
 * and nothing is overwritten. When every batch buffer is in flight, a
 * sample is dropped and counted; forwarding never waits for the export.
 * The counters (struct nf_counters) are in a region the collector reads.
 * The collector ends a run with a FIN message: the NF sends its partial
 * batch, waits for every WRITE, and answers DONE with its counters.
 *
 * For the benchmark (usertools/dr-nf-bench.py): --no-export forwards only,
 * until a signal; --export-flood sends full batches of tags (nf.h) as fast
 * as the collector's credits allow instead of frames' heads. The loop's busy
 * cycles and the run's rates are printed at the end (struct nf_loop_stats).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_cycles.h>
#include <rte_ether.h>

#include "conn.h"
#include "nf.h"

#define RETRY_S 0.2                    /* between connection attempts */
#define LINGER_S 0.2                   /* after a disconnect: the DREP and the last ACKs go out */

/*
 * What the NF measures of its own loop, printed at its end as one "nf stats:"
 * line (usertools/dr-nf-bench.py reads it): a loop iteration that moved a
 * frame (the program's, the transport's) or a completion is busy, and its
 * TSC cycles count; idle polling does not.
 */
struct nf_loop_stats {
	uint64_t busy_cycles;
	uint64_t busy_loops;
	uint64_t loops;
	uint64_t first_fwd, last_fwd;  /* TSC of the first and the last turn that forwarded */
	double first_batch, last_batch; /* of the first and last completed WRITE */
};

enum exp_state { EXP_IDLE, EXP_CONNECTING, EXP_CONNECTED, EXP_FLUSHING, EXP_DONE_SENT, EXP_ENDED };

struct exporter {
	const struct nf_opts *o;
	struct nf_port *p;
	struct nf_conn c;
	enum exp_state state;
	double retry_at;
	double deadline;                   /* connecting: give up at */
	double linger_until;               /* ended: the loop runs until then */
	struct nf_counters *cnt;
	struct dr_mr *cnt_mr;
	uint8_t *buf;                      /* NF_SLOTS batches */
	struct dr_mr *buf_mr;
	uint16_t fill[NF_SLOTS];           /* records in each batch; in flight while busy */
	bool busy[NF_SLOTS];
	unsigned int in_flight;
	unsigned int cur;                  /* the batch being filled */
	unsigned int per_batch;            /* records a batch takes */
	uint64_t seq;                      /* batches sent */
	unsigned int since;                /* frames forwarded since the last sample */
	struct nf_rep_pdata ring;          /* the collector's */
	struct nf_loop_stats st;
};

static void
print_counters(const struct nf_counters *c, const char *when)
{
	printf("nf %s: rx %lu / %lu, forwarded %lu (%lu not sent), sampled %lu (%lu dropped), records %lu in "
	       "%lu batches, transport frames not sent %lu\n", when, (unsigned long)c->rx[0], (unsigned long)c->rx[1],
	       (unsigned long)c->fwd, (unsigned long)c->tx_dropped, (unsigned long)c->sampled,
	       (unsigned long)c->export_dropped, (unsigned long)c->records, (unsigned long)c->batches,
	       (unsigned long)c->rdma_tx_dropped);
}

/* Send batch @slot (its records) to the collector's ring. */
static void
batch_post(struct exporter *e, unsigned int slot)
{
	uint32_t len = (uint32_t)e->fill[slot] * NF_RECORD;
	struct dr_sge sge = { (uint64_t)(uintptr_t)(e->buf + (size_t)slot * NF_SLOT_BYTES), len, e->buf_mr->lkey };
	struct dr_send_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1, .opcode = DR_WR_RDMA_WRITE_WITH_IMM,
				 .send_flags = DR_SEND_SIGNALED }, *bad;
	int ret;

	wr.imm_data = rte_cpu_to_be_32((uint32_t)(e->seq << 8) | e->fill[slot]);
	wr.wr.rdma.remote_addr = e->ring.ring_addr + (e->seq % e->ring.slots) * e->ring.slot_bytes;
	wr.wr.rdma.rkey = e->ring.ring_rkey;
	ret = dr_post_send(e->c.id->qp, &wr, &bad);
	if (ret != 0) {
		fprintf(stderr, "dpdk-rdma-nf: WRITE WITH IMMEDIATE: %s\n", strerror(ret));
		e->cnt->export_dropped += e->fill[slot];
		e->fill[slot] = 0;
		return;
	}
	e->busy[slot] = true;
	e->in_flight++;
	e->seq++;
}

/* --export-flood: every free batch filled with tags and sent; 0 when none was free. */
static unsigned int
flood(struct exporter *e)
{
	unsigned int posted = 0;

	while (!e->busy[e->cur] && e->state == EXP_CONNECTED) {
		unsigned int slot = e->cur, i;
		uint8_t *b = e->buf + (size_t)slot * NF_SLOT_BYTES;

		for (i = 0; i < e->per_batch; i++) {
			uint64_t tag = rte_cpu_to_le_64(nf_flood_tag(e->seq, i));

			memcpy(b + (size_t)i * NF_RECORD, &tag, sizeof(tag));   /* the rest stays zero */
		}
		e->fill[slot] = (uint16_t)e->per_batch;
		e->cnt->sampled += e->per_batch;
		batch_post(e, slot);
		if (!e->busy[slot])
			break;                     /* not posted (counted as dropped) */
		e->cur = (slot + 1) % NF_SLOTS;
		posted++;
	}
	return posted;
}

/* Frame @m was forwarded: one in N has its head exported. */
static void
sample(struct exporter *e, const struct rte_mbuf *m)
{
	unsigned int slot = e->cur;
	uint8_t *rec;
	uint32_t len;

	if (++e->since < e->o->sample)
		return;
	e->since = 0;
	e->cnt->sampled++;
	if (e->busy[slot]) {
		e->cnt->export_dropped++;          /* every batch in flight: the export keeps up or loses */
		return;
	}
	rec = e->buf + (size_t)slot * NF_SLOT_BYTES + (size_t)e->fill[slot] * NF_RECORD;
	len = rte_pktmbuf_data_len(m) < NF_RECORD ? rte_pktmbuf_data_len(m) : NF_RECORD;
	memcpy(rec, rte_pktmbuf_mtod(m, const uint8_t *), len);
	memset(rec + len, 0, NF_RECORD - len);
	if (++e->fill[slot] == e->per_batch) {
		batch_post(e, slot);
		e->cur = (slot + 1) % NF_SLOTS;
	}
}

/* Forward what each port received out of the other, MACs swapped; the frames received. */
static unsigned int
forward(struct exporter *e)
{
	struct rte_mbuf *pkts[NF_BURST];
	bool exporting = e->state == EXP_CONNECTED && !e->o->export_flood;
	unsigned int got = 0;
	uint16_t port, n, i, sent;

	for (port = 0; port < 2; port++) {
		n = nf_rx(e->p, port, pkts, NF_BURST);
		if (n == 0)
			continue;
		e->cnt->rx[port] += n;
		for (i = 0; i < n; i++) {
			struct rte_ether_hdr *eh = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
			struct rte_ether_addr t;

			if (exporting)
				sample(e, pkts[i]);
			t = eh->dst_addr;
			eh->dst_addr = eh->src_addr;
			eh->src_addr = t;
		}
		sent = nf_tx(e->p, (uint16_t)(port ^ 1), pkts, n);
		e->cnt->fwd += sent;
		e->cnt->tx_dropped += n - sent;
		got += n;
	}
	return got;
}

static void
connect_start(struct exporter *e)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr.s_addr = e->o->ip };
	struct dr_cm_id *id;
	int ret;

	ret = dr_cm_create_id(e->c.ch, &id, e, DR_CM_PS_TCP);
	if (ret == 0)
		ret = dr_cm_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&e->o->collector, 2000);
	if (ret != 0) {
		fprintf(stderr, "dpdk-rdma-nf: resolving the collector: %s\n", strerror(-ret));
		e->retry_at = nf_now() + RETRY_S;
		return;
	}
	e->c.id = id;
	e->state = EXP_CONNECTING;
}

static int
connect_qp(struct exporter *e)
{
	struct nf_req_pdata req = { .counters_addr = (uint64_t)(uintptr_t)e->cnt, .counters_rkey = e->cnt_mr->rkey,
				    .record_bytes = NF_RECORD, .flags = e->o->export_flood ? NF_REQ_FLOOD : 0 };
	struct dr_cm_conn_param cp = { .private_data = &req, .private_data_len = sizeof(req),
				       .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
				       .rnr_retry_count = 7 };
	int ret;

	if (nf_conn_qp(&e->c, e->c.id, NF_SLOTS + 8) != 0)
		return -1;
	ret = dr_cm_connect(e->c.id, &cp);
	if (ret != 0)
		fprintf(stderr, "dpdk-rdma-nf: dr_cm_connect: %s\n", strerror(-ret));
	return ret;
}

/* The collector's ring from its REP; exporting from now on. */
static int
established(struct exporter *e, const struct dr_cm_event *ev)
{
	uint32_t mtu = dr_mtu_bytes(e->c.id->route.mtu);

	if (ev->param.conn.private_data_len < sizeof(e->ring)) {
		fprintf(stderr, "dpdk-rdma-nf: the collector's REP has no ring\n");
		return -1;
	}
	memcpy(&e->ring, ev->param.conn.private_data, sizeof(e->ring));
	if (e->ring.slots == 0 || e->ring.slot_bytes < NF_RECORD) {
		fprintf(stderr, "dpdk-rdma-nf: the collector's ring: %u slots of %u bytes\n", e->ring.slots,
			e->ring.slot_bytes);
		return -1;
	}
	e->per_batch = RTE_MIN(RTE_MIN(mtu, (uint32_t)NF_SLOT_BYTES), e->ring.slot_bytes) / NF_RECORD;
	memset(e->fill, 0, sizeof(e->fill));
	e->cur = 0;
	e->seq = 0;
	e->since = 0;
	e->state = EXP_CONNECTED;
	if (e->o->export_flood)
		printf("nf: exporting to the collector, %u records of %u bytes per batch, as fast as it takes them\n",
		       e->per_batch, NF_RECORD);
	else
		printf("nf: exporting to the collector, %u records of %u bytes per batch, one frame in %u\n",
		       e->per_batch, NF_RECORD, e->o->sample);
	fflush(stdout);
	return 0;
}

static int
cm_events(struct exporter *e)
{
	struct dr_cm_event *ev;
	int rc = 0;

	while (dr_cm_get_cm_event(e->c.ch, &ev) == 0) {
		enum dr_cm_event_type t = ev->event;
		bool again = false;

		switch (t) {
		case DR_CM_EVENT_ADDR_RESOLVED:
			if (dr_cm_resolve_route(ev->id, 2000) != 0)
				again = true;
			break;
		case DR_CM_EVENT_ROUTE_RESOLVED:
			if (connect_qp(e) != 0)
				again = true;
			break;
		case DR_CM_EVENT_ESTABLISHED:
			rc = established(e, ev);
			break;
		case DR_CM_EVENT_DISCONNECTED:
			/* the collector's DREQ: answered (DREP), and the loop runs on until it is out */
			(void)dr_cm_disconnect(ev->id);
			e->state = EXP_ENDED;
			e->linger_until = nf_now() + LINGER_S;
			break;
		default:                   /* refused, unreachable, no answer: the collector is not there yet */
			again = true;
			break;
		}
		(void)dr_cm_ack_cm_event(ev);
		if (rc != 0)
			return rc;
		if (again && e->state == EXP_CONNECTING) {
			nf_conn_drop(&e->c);
			e->state = EXP_IDLE;
			e->retry_at = nf_now() + RETRY_S;
		} else if (again) {
			fprintf(stderr, "dpdk-rdma-nf: %s while exporting\n", dr_cm_event_str(t));
			return -1;
		}
	}
	return 0;
}

/* The QP's completions; @work: how many. */
static int
completions(struct exporter *e, unsigned int *work)
{
	struct dr_wc wc[NF_BURST];
	int n, i;

	n = dr_poll_cq(e->c.cq, NF_BURST, wc);
	if (n > 0)
		*work += (unsigned int)n;
	for (i = 0; i < n; i++) {
		if (wc[i].status == DR_WC_WR_FLUSH_ERR && e->state >= EXP_DONE_SENT)
			continue;                  /* the collector disconnected: the receives left are flushed */
		if (wc[i].status != DR_WC_SUCCESS) {
			fprintf(stderr, "dpdk-rdma-nf: completion of wr %lu (state %d): %s\n", (unsigned long)wc[i].wr_id,
				(int)e->state, dr_wc_status_str(wc[i].status));
			for (int j = i + 1; j < n; j++)
				fprintf(stderr, "  then wr %lu: %s\n", (unsigned long)wc[j].wr_id, dr_wc_status_str(wc[j].status));
			return -1;
		}
		if (wc[i].wr_id < NF_SLOTS) {
			unsigned int slot = (unsigned int)wc[i].wr_id;

			e->cnt->records += e->fill[slot];
			e->cnt->batches++;
			e->st.last_batch = nf_now();
			if (e->st.first_batch == 0)
				e->st.first_batch = e->st.last_batch;
			e->fill[slot] = 0;
			e->busy[slot] = false;
			e->in_flight--;
		} else if (wc[i].opcode == DR_WC_RECV) {
			unsigned int k = (unsigned int)(wc[i].wr_id - NF_WR_RECV);

			if (e->c.msgs[k].type == NF_MSG_FIN && e->state == EXP_CONNECTED) {
				e->state = EXP_FLUSHING;       /* no more samples; the last batch goes */
				if (e->fill[e->cur] != 0 && !e->busy[e->cur])
					batch_post(e, e->cur);
			}
			if (nf_conn_recv(&e->c, k) != 0)
				return -1;
		}
	}
	if (n < 0)
		return -1;
	if (e->state == EXP_FLUSHING && e->in_flight == 0) {
		struct nf_msg m = { .type = NF_MSG_DONE };

		e->cnt->rdma_tx_dropped = e->p->rdma_tx_dropped;
		m.c = *e->cnt;
		if (nf_conn_send(&e->c, &m) != 0)
			return -1;
		e->state = EXP_DONE_SENT;
		print_counters(e->cnt, "at FIN");
	}
	return 0;
}

static int
exporter_init(struct exporter *e, const struct nf_opts *o, struct nf_port *p)
{
	memset(e, 0, sizeof(*e));
	e->o = o;
	e->p = p;
	if (nf_conn_init(&e->c, p->ctx) != 0)
		return -1;
	e->cnt = calloc(1, sizeof(*e->cnt));
	e->buf = calloc(NF_SLOTS, NF_SLOT_BYTES);
	if (e->cnt == NULL || e->buf == NULL)
		return -1;
	e->cnt->magic = NF_COUNTERS_MAGIC;
	e->cnt_mr = dr_reg_mr(e->c.pd, e->cnt, sizeof(*e->cnt), DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ);
	e->buf_mr = dr_reg_mr(e->c.pd, e->buf, (size_t)NF_SLOTS * NF_SLOT_BYTES, DR_ACCESS_LOCAL_WRITE);
	if (e->cnt_mr == NULL || e->buf_mr == NULL) {
		fprintf(stderr, "dpdk-rdma-nf: dr_reg_mr: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void
exporter_fini(struct exporter *e)
{
	nf_conn_drop(&e->c);
	if (e->cnt_mr != NULL)
		(void)dr_dereg_mr(e->cnt_mr);
	if (e->buf_mr != NULL)
		(void)dr_dereg_mr(e->buf_mr);
	nf_conn_fini(&e->c);
	free(e->cnt);
	free(e->buf);
}

/* --io graph: nf_fwd offers every forwarded frame (graph.c) */
static void
graph_sample(void *arg, const struct rte_mbuf *m)
{
	struct exporter *e = arg;

	if (e->state == EXP_CONNECTED && !e->o->export_flood)
		sample(e, m);
}

/*
 * The "nf stats:" line: forwarding (frames, rate between the first and the
 * last burst, busy cycles per frame), the export (WRITEs, records, rate),
 * the transport's recovery counters; then each port's rte_eth_stats.
 */
static void
print_stats(const struct exporter *e)
{
	const struct nf_loop_stats *st = &e->st;
	const struct nf_counters *c = e->cnt;
	struct dr_context_counters dc = { 0 };
	double fwd_s = (double)(st->last_fwd - st->first_fwd) / (double)rte_get_tsc_hz(), exp_s = st->last_batch - st->first_batch;
	uint64_t moved = c->fwd + c->batches;

	(void)dr_query_context_counters(e->p->ctx, &dc);
	printf("nf stats: forwarded %" PRIu64 " in %.3f s = %.3f Mpps; busy %.1f cycles per frame moved (%" PRIu64
	       " busy cycles, %" PRIu64 " of %" PRIu64 " loops busy, %.1f frames forwarded per busy loop, tsc %.3f GHz);"
	       " export %" PRIu64 " writes, %"
	       PRIu64 " records in %.3f s = %.1f MB/s, %" PRIu64 " samples dropped; transport retries %" PRIu64
	       " rto %" PRIu64 " tlp %" PRIu64 " sr_resends %" PRIu64 " rnr_naks %" PRIu64 " frames not sent %" PRIu64
	       "\n", c->fwd, fwd_s, fwd_s > 0 ? (double)c->fwd / fwd_s / 1e6 : 0.0,
	       moved > 0 ? (double)st->busy_cycles / (double)moved : 0.0, st->busy_cycles, st->busy_loops, st->loops,
	       st->busy_loops > 0 ? (double)c->fwd / (double)st->busy_loops : 0.0, (double)rte_get_tsc_hz() / 1e9, c->batches, c->records, exp_s,
	       exp_s > 0 ? (double)c->records * NF_RECORD / exp_s / 1e6 : 0.0, c->export_dropped, dc.retries,
	       dc.rto_expiries, dc.tlp_probes, dc.sr_resends, dc.naks_rnr_rx, e->p->rdma_tx_dropped);
	nf_ports_print_stats("nf");
	fflush(stdout);
}

int
nf_run(const struct nf_opts *o, struct nf_port *p, volatile sig_atomic_t *stop)
{
	struct exporter e;
	int rc = 0;

	if (exporter_init(&e, o, p) != 0) {
		exporter_fini(&e);
		return -1;
	}
	if (o->io == NF_IO_GRAPH) {
		struct nf_fwd_hook h = { .sample = graph_sample, .arg = &e, .cnt = e.cnt };

		if (nf_graph_start(p, &h) != 0) {
			nf_graph_stop(p);
			exporter_fini(&e);
			return -1;
		}
	}
	e.deadline = nf_now() + o->timeout_s;
	printf("nf: forwarding between ports 0 and 1, --io %s; %s\n",
	       o->io == NF_IO_APP ? "app" : o->io == NF_IO_QUEUE ? "queue" : "graph",
	       o->no_export ? "no export" : "collector connecting");
	fflush(stdout);
	while (!*stop && rc == 0) {
		uint64_t t0 = rte_rdtsc(), fwd0 = e.cnt->fwd;
		unsigned int work = 0;

		if (o->io == NF_IO_GRAPH) {
			uint64_t rx0 = e.cnt->rx[0] + e.cnt->rx[1];

			nf_graph_walk();           /* forwarding and the transport's round, node by node */
			work += (unsigned int)(e.cnt->rx[0] + e.cnt->rx[1] - rx0);
		} else {
			work += forward(&e);
			work += (unsigned int)nf_transport_run(p);
		}
		if (e.cnt->fwd != fwd0) {
			e.st.last_fwd = t0;
			if (e.st.first_fwd == 0)
				e.st.first_fwd = t0;
		}
		if (o->export_flood)
			work += flood(&e);
		if (o->no_export)
			goto account;
		if (e.state == EXP_IDLE && nf_now() >= e.retry_at) {
			if (nf_now() > e.deadline) {
				fprintf(stderr, "dpdk-rdma-nf: no collector answered in %.0f s\n", o->timeout_s);
				rc = -1;
				break;
			}
			connect_start(&e);
		}
		/* exporting: paced; connecting: at once, since sampling starts with
		 * ESTABLISHED, before the collector's first frame comes back */
		if (nf_conn_cm_due(&e.c, e.state == EXP_CONNECTED, t0))
			rc = cm_events(&e);
		if (rc == 0 && e.c.id != NULL && e.c.id->qp != NULL)
			rc = completions(&e, &work);
		if (e.state == EXP_ENDED && nf_now() >= e.linger_until) {
			print_counters(e.cnt, "at the end");
			nf_conn_drop(&e.c);
			if (o->once)
				break;
			e.state = EXP_IDLE;
			e.deadline = nf_now() + o->timeout_s;
		}
account:
		e.st.loops++;
		if (work != 0) {
			e.st.busy_loops++;
			e.st.busy_cycles += rte_rdtsc() - t0;
		}
	}
	print_stats(&e);
	if (o->io == NF_IO_GRAPH)
		nf_graph_stop(p);
	exporter_fini(&e);
	return rc;
}
