/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * --switch: the fault link as a learning L2 switch of M ports (2..16), each
 * output behind an egress queue with its own impairments (rate, limit, ECN
 * marking, delay, loss ...): where N inputs feed one output, its queue is
 * the congestion point of an incast. Several ports can share one egress
 * queue (--egress-group): one link with one rate and one RED/ECN marker
 * carrying the frames of several stations, each then leaving by its own
 * port.
 *
 * A frame received on port i teaches the table (fdb.h) that its source is
 * behind i. A unicast frame to a known station goes to that station's port
 * (dropped as filtered if that is i); broadcast, multicast and unknown
 * destinations are flooded to every other port, one copy each. The output
 * port is written in m->port; the frame then meets the egress's
 * impairments and queue exactly as a direction's (fwd.c), and leaves by
 * m->port when due. One lcore polls every port and drains every egress
 * queue: each queue has one producer and one consumer, the same lcore, as
 * in the two-port wire; no locks, no allocation but copies (duplicates,
 * floods).
 *
 * Frames are conserved: rx + copies = filtered + enqueued (the switch
 * line), and each egress conserves what it was given as a direction does,
 * rx + duplicated = lost + queue_drop + too_big + tx + left.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "faultlink.h"
#include "fdb.h"

static int
port_index(const struct fl_app *app, uint16_t id)
{
	for (unsigned int i = 0; i < app->nports; i++)
		if (app->port[i].id == id)
			return (int)i;
	return -1;
}

/* the switch's ports: --ports, or every port EAL has (at most FL_MAX_PORTS) */
static int
choose_ports(struct fl_app *app, uint16_t *ids)
{
	const struct fl_opts *o = &app->o;
	unsigned int n = 0;
	uint16_t id;

	if (o->n_sw_ports > 0) {
		for (unsigned int i = 0; i < o->n_sw_ports; i++) {
			if (!rte_eth_dev_is_valid_port(o->sw_port[i])) {
				fprintf(stderr, FL_PROG ": --ports: there is no port %u\n", o->sw_port[i]);
				return FL_EXIT_USAGE;
			}
			ids[n++] = o->sw_port[i];
		}
	} else {
		RTE_ETH_FOREACH_DEV(id) {
			if (n == FL_MAX_PORTS) {
				fprintf(stderr, FL_PROG ": --switch: EAL has more than %u ports (choose with "
					"--ports)\n", FL_MAX_PORTS);
				return FL_EXIT_USAGE;
			}
			ids[n++] = id;
		}
	}
	if (n < 2) {
		fprintf(stderr, FL_PROG ": --switch needs two ports at least, it has %u (give them with "
			"--vdev)\n", n);
		return FL_EXIT_SETUP;
	}
	app->nports = n;
	return FL_EXIT_OK;
}

static const char *
op_name(const struct fl_egress_op *op)
{
	return op->kind == FL_EG_ALL ? "--all" : op->kind == FL_EG_PORT ? "--egress" : "--egress-group";
}

/* "<sep><id>" after the @len characters of @buf: the new length, below @size (cut short) */
static size_t
name_append(char *buf, size_t size, size_t len, char sep, unsigned int id)
{
	int n;

	if (len >= size - 1)
		return size - 1;
	n = snprintf(buf + len, size - len, "%c%u", sep, id);
	if (n < 0)
		return len;
	return RTE_MIN(len + (size_t)n, size - 1);
}

/* Each port's egress queue: its group's, or its own; the queues' names */
static int
make_egresses(struct fl_app *app)
{
	const struct fl_opts *o = &app->o;
	int group_of[FL_MAX_PORTS];
	unsigned int nd = 0;

	for (unsigned int i = 0; i < app->nports; i++)
		group_of[i] = -1;
	for (unsigned int k = 0; k < o->n_eg; k++) {
		const struct fl_egress_op *op = &o->eg[k];

		for (unsigned int m = 0; m < op->n; m++) {
			int p = port_index(app, op->ports[m]);

			if (p < 0) {
				fprintf(stderr, FL_PROG ": %s %u: port %u is not a port of the switch\n",
					op_name(op), op->ports[m], op->ports[m]);
				return FL_EXIT_USAGE;
			}
			if (op->kind == FL_EG_GROUP)
				group_of[p] = (int)k;
		}
	}
	for (unsigned int i = 0; i < app->nports; i++) {
		struct fl_dir *d;
		size_t nl, kl;
		bool found = false;

		if (group_of[i] >= 0)
			for (unsigned int j = 0; j < i && !found; j++)
				if (group_of[j] == group_of[i]) {
					app->port[i].egress = app->port[j].egress;
					found = true;
				}
		if (found)
			continue;
		d = &app->dir[nd];
		app->port[i].egress = nd++;
		nl = (size_t)snprintf(d->name_buf, sizeof(d->name_buf), "egress%u", app->port[i].id);
		kl = (size_t)snprintf(d->key_buf, sizeof(d->key_buf), "egress%u", app->port[i].id);
		for (unsigned int j = i + 1; group_of[i] >= 0 && j < app->nports; j++)
			if (group_of[j] == group_of[i]) {
				/* snprintf says what it would have written: clamp, or size - nl wraps */
				nl = name_append(d->name_buf, sizeof(d->name_buf), nl, '+', app->port[j].id);
				kl = name_append(d->key_buf, sizeof(d->key_buf), kl, '_', app->port[j].id);
			}
	}
	app->ndirs = nd;
	return FL_EXIT_OK;
}

/* --all, --egress and --egress-group applied in order to the egress queues' impairments */
static int
egress_confs(struct fl_app *app)
{
	const struct fl_opts *o = &app->o;
	char err[256];

	for (unsigned int i = 0; i < app->ndirs; i++)
		fl_impair_conf_init(&app->dir[i].conf);
	for (unsigned int k = 0; k < o->n_eg; k++) {
		const struct fl_egress_op *op = &o->eg[k];

		for (unsigned int i = 0; i < app->ndirs; i++) {
			struct fl_dir *d = &app->dir[i];
			bool hit = op->kind == FL_EG_ALL ||
				   app->port[port_index(app, op->ports[0])].egress == i;

			if (hit && fl_spec_parse(op->spec, &d->conf, err, sizeof(err)) != 0) {
				fprintf(stderr, FL_PROG ": %s '%s': %s\n", op_name(op), op->spec, err);
				return FL_EXIT_USAGE;
			}
		}
	}
	return FL_EXIT_OK;
}

int
fl_switch_setup(struct fl_app *app)
{
	uint16_t ids[FL_MAX_PORTS];
	struct rte_mempool *pool;
	uint64_t nb = 1024 + 4 * FL_MAX_BURST + 256 * (uint64_t)RTE_MAX(rte_lcore_count(), 2u);
	bool afxdp = false;
	int ret;

	ret = choose_ports(app, ids);
	if (ret != FL_EXIT_OK)
		return ret;
	for (unsigned int i = 0; i < app->nports; i++)
		app->port[i].id = ids[i];
	ret = make_egresses(app);
	if (ret == FL_EXIT_OK)
		ret = egress_confs(app);
	if (ret != FL_EXIT_OK)
		return ret;
	/* one pool: a frame from any port can wait in any queue (twice: duplicates and floods) */
	for (unsigned int i = 0; i < app->nports; i++) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(ids[i], &info) == 0 && strcmp(info.driver_name, "net_af_xdp") == 0)
			afxdp = true;
		nb += 2 * FL_NB_DESC;           /* its rx ring, and its tx ring holding them */
	}
	for (unsigned int i = 0; i < app->ndirs; i++)
		nb += 2 * (uint64_t)app->dir[i].conf.limit + FL_HOLD_MAX;
	if (nb > UINT32_MAX / 2) {
		fprintf(stderr, FL_PROG ": the egress limits need more than %u mbufs\n", UINT32_MAX / 2);
		return FL_EXIT_USAGE;
	}
	app->hz = rte_get_tsc_hz();
	pool = fl_pool_create("fl_sw_pool", (uint32_t)nb, &app->o, afxdp);
	if (pool == NULL)
		return FL_EXIT_SETUP;
	for (unsigned int i = 0; i < app->nports; i++) {
		unsigned int eg = app->port[i].egress;

		if (fl_port_open(&app->port[i], ids[i], &app->o, 0, pool) != 0)
			return FL_EXIT_SETUP;
		app->port[i].egress = eg;
		app->by_id[ids[i]] = &app->port[i];
	}
	for (unsigned int i = 0; i < app->ndirs; i++) {
		struct fl_dir *d = &app->dir[i];

		d->idx = i;
		d->name = d->name_buf;
		d->key = d->key_buf;
		d->in = d->out = NULL;
		d->by_id = app->by_id;
		d->roce_only = app->o.roce_only;
		d->burst = app->o.burst;
		d->hz = app->hz;
		d->seed = app->o.seed;
		fl_impair_init(&d->im, &d->conf, app->hz, app->o.seed, i);
		fl_hold_init(&d->hold);
		if (fl_tq_init(&d->q, d->conf.limit) != 0) {
			fprintf(stderr, FL_PROG ": no memory for a queue of %u frames\n", d->conf.limit);
			return FL_EXIT_SETUP;
		}
	}
	app->fdb = calloc(1, sizeof(*app->fdb));
	if (app->fdb == NULL)
		return FL_EXIT_SETUP;
	fl_fdb_init(app->fdb);
	return FL_EXIT_OK;
}

void
fl_switch_banner(const struct fl_app *app)
{
	char spec[512];

	printf(FL_PROG ": switch of %u ports, seed %" PRIu64 "%s, one lcore\n", app->nports, app->o.seed,
	       app->o.roce_only ? ", RoCEv2 frames only" : "");
	for (unsigned int i = 0; i < app->ndirs; i++) {
		const struct fl_dir *d = &app->dir[i];

		if (fl_spec_format(&d->conf, spec, sizeof(spec)) != 0)
			snprintf(spec, sizeof(spec), "?");
		printf("  %s: to", d->name);
		for (unsigned int j = 0; j < app->nports; j++)
			if (app->port[j].egress == i)
				printf(" port %u (%s)", app->port[j].id, app->port[j].name);
		printf(": %s\n", spec);
	}
}

/* into port @j's egress queue, to leave by port @j */
static inline void
to_port(struct fl_app *app, unsigned int j, struct rte_mbuf *m, uint64_t now)
{
	m->port = app->port[j].id;
	FL_ADD(&app->sw, enqueued, 1);
	fl_dir_ingress(&app->dir[app->port[j].egress], m, now);
}

static void
flood(struct fl_app *app, unsigned int in, struct rte_mbuf *m, uint64_t now)
{
	int last = -1;

	for (unsigned int j = 0; j < app->nports; j++)
		if (j != in)
			last = (int)j;
	FL_ADD(&app->port[in].c, flooded, 1);
	for (unsigned int j = 0; j < app->nports; j++) {
		struct rte_mbuf *c;

		if (j == in || (int)j == last)
			continue;
		c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		if (c == NULL) {
			FL_ADD(&app->sw, nombuf, 1);
			continue;
		}
		FL_ADD(&app->sw, copies, 1);
		to_port(app, j, c, now);
	}
	to_port(app, (unsigned int)last, m, now);
}

static void
filter(struct fl_app *app, unsigned int in, struct rte_mbuf *m)
{
	FL_ADD(&app->port[in].c, filtered, 1);
	FL_ADD(&app->sw, filtered, 1);
	rte_pktmbuf_free(m);
}

static void
switch_frame(struct fl_app *app, unsigned int in, struct rte_mbuf *m, uint64_t now)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	int out;

	FL_ADD(&app->sw, rx, 1);
	FL_ADD(&app->port[in].c, rx, 1);
	FL_ADD(&app->port[in].c, rx_bytes, m->pkt_len);
	if (m->data_len < 14) {           /* a runt: no addresses to switch on */
		filter(app, in, m);
		return;
	}
	switch (fl_fdb_learn(app->fdb, eth + 6, (uint16_t)in)) {
	case FL_FDB_NEW:
		FL_ADD(&app->sw, learned, 1);
		break;
	case FL_FDB_MOVED:
		FL_ADD(&app->sw, moved, 1);
		break;
	case FL_FDB_FULL:
		FL_ADD(&app->sw, fdb_full, 1);
		break;
	default:
		break;
	}
	out = fl_mac_is_group(eth) ? -1 : fl_fdb_lookup(app->fdb, eth);
	if (out < 0)
		flood(app, in, m, now);
	else if ((unsigned int)out == in)
		filter(app, in, m);
	else
		to_port(app, (unsigned int)out, m, now);
}

static bool
link_down(uint16_t port)
{
	struct rte_eth_link link;

	return rte_eth_link_get_nowait(port, &link) == 0 && link.link_status == RTE_ETH_LINK_DOWN;
}

/* Frames now due out of @d, each by its own port: a run of frames for one
 * port in one burst; a port that takes only part stops the queue (the
 * frames wait at its head, in order, as on one link). A port whose link is
 * down (a memif port without its peer) takes nothing, and would stop the
 * queue for good, the other ports of its group with it: what is for it is
 * dropped (lost, link_down), as a switch drops what is for a dead port. */
static unsigned int
drain(struct fl_app *app, struct fl_dir *d, uint64_t now)
{
	struct rte_mbuf *pkts[FL_MAX_BURST];
	uint32_t len[FL_MAX_BURST];
	unsigned int n, i = 0, j, sent, work = 0;

	n = fl_tq_pop_due(&d->q, now, (void **)pkts, d->burst);
	/* the lengths before the bursts: the PMD may free what it took at once (memif does) */
	for (unsigned int k = 0; k < n; k++)
		len[k] = pkts[k]->pkt_len;
	while (i < n) {
		uint16_t port = pkts[i]->port;
		struct fl_port *p = app->by_id[port];
		uint64_t bytes = 0;

		for (j = i + 1; j < n && pkts[j]->port == port; j++)
			;
		sent = rte_eth_tx_burst(port, 0, &pkts[i], (uint16_t)(j - i));
		for (unsigned int k = i; k < i + sent; k++)
			bytes += len[k];
		FL_ADD(&d->c, tx_bytes, bytes);
		FL_ADD(&p->c, tx_bytes, bytes);
		FL_ADD(&d->c, tx, sent);
		FL_ADD(&p->c, tx, sent);
		work += sent;
		if (sent < j - i) {
			unsigned int rest = j - i - sent;

			if (!link_down(port)) {
				fl_tq_unpop(&d->q, n - i - sent);   /* the port is full */
				break;
			}
			rte_pktmbuf_free_bulk(&pkts[i + sent], rest);
			FL_ADD(&d->c, lost, rest);
			FL_ADD(&d->c, link_down, rest);
			work += rest;
		}
		i = j;
	}
	return work;
}

void
fl_switch_forward(struct fl_app *app, uint32_t idle_us, uint64_t end_tsc)
{
	struct rte_mbuf *pkts[FL_MAX_BURST];
	uint64_t now, next;
	unsigned int work, n;

	while (!fl_stop) {
		now = rte_rdtsc();
		if (end_tsc != 0 && now >= end_tsc)
			break;
		work = 0;
		next = UINT64_MAX;
		if (!fl_gate_enter())   /* EAL's interrupt thread parked: memif's rings stay mapped */
			break;
		for (unsigned int i = 0; i < app->ndirs; i++) {
			fl_dir_take_change(&app->dir[i]);
			if (app->dir[i].hold.n > 0)
				work += fl_dir_release_held(&app->dir[i], now);
		}
		for (unsigned int i = 0; i < app->nports; i++) {
			n = rte_eth_rx_burst(app->port[i].id, 0, pkts, (uint16_t)app->o.burst);
			for (unsigned int k = 0; k < n; k++)
				switch_frame(app, i, pkts[k], now);
			work += n;
		}
		for (unsigned int i = 0; i < app->ndirs; i++) {
			work += drain(app, &app->dir[i], now);
			next = RTE_MIN(next, fl_dir_next_event(&app->dir[i]));
		}
		fl_gate_leave();
		fl_gate_tick(now);
		if (work != 0 || idle_us == 0)
			continue;
		fl_idle_wait(idle_us, next, now, app->hz);
	}
}
