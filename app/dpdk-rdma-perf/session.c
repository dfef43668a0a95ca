/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The two OOB steps before the run: the handshake (the client says what to
 * run; the server adopts it or refuses it) and the QP address exchange.
 *
 * The server adopts the client's sizes, iterations or duration, atomic type
 * (-A), and --check (either side asking for it turns it on). It refuses a different test, a
 * different QP count, and a size above its own largest (-s, -a or --sizes):
 * its buffers would be too small, which perftest leaves to a remote access
 * error. With --persist it takes the client's test and QP count too
 * (persist.c), and still bounds the size.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

static void
hello_from_opts(const struct perf_opts *o, struct oob_hello *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->test, sizeof(h->test), "%s", o->test->name);
	h->num_qps = o->num_qps;
	h->flags = (o->check ? OOB_F_CHECK : 0) | (o->duration > 0 ? OOB_F_DURATION : 0) |
		   (o->test->verb == PERF_ATOMIC && o->atomic == PERF_CMP_AND_SWAP ? OOB_F_CMP_SWAP : 0) |
		   ((uint32_t)o->raw_like << OOB_F_RAW_LIKE_SHIFT) |
		   (o->send_imm || o->write_imm ? OOB_F_IMM : 0) |
		   ((uint32_t)o->conn << OOB_F_CONN_SHIFT);
	h->iters = o->iters;
	h->duration_ms = (uint32_t)(o->duration * 1000 + 0.5);
	h->nb_sizes = o->nb_sizes;
	memcpy(h->sizes, o->sizes, sizeof(h->sizes));
}

/* Why the server cannot run what the client asks, or NULL. */
static const char *
refusal(const struct perf *p, const struct oob_hello *h, char *why, size_t len)
{
	const struct perf_opts *o = p->o;
	uint32_t max = 0, conn;

	if (strcmp(h->test, o->test->name) != 0) {
		snprintf(why, len, "test mismatch: the server runs %s, the client asked for %s",
			 o->test->name, h->test);
		return why;
	}
	if (h->num_qps != o->num_qps) {
		snprintf(why, len, "QP count mismatch: the server has -q %u, the client -q %u",
			 o->num_qps, h->num_qps);
		return why;
	}
	if (h->nb_sizes == 0 || h->nb_sizes > PERF_MAX_SIZES) {
		snprintf(why, len, "bad request: %u sizes", h->nb_sizes);
		return why;
	}
	if ((h->flags & OOB_F_DURATION) ? h->duration_ms == 0 :
	    (h->iters == 0 || (o->test->kind == PERF_LAT && h->iters < PERF_MIN_ITERS_LAT) ||
	     (o->test->kind == PERF_LAT && h->iters > PERF_MAX_ITERS_LAT))) {
		snprintf(why, len, "bad request: %" PRIu64 " iterations, %u ms", h->iters,
			 h->duration_ms);
		return why;
	}
	conn = (h->flags & OOB_F_CONN_MASK) >> OOB_F_CONN_SHIFT;
	if (conn > PERF_UD || (o->conn_given && conn != o->conn)) {
		snprintf(why, len, "connection type mismatch: the server has -c %s, the client asked "
			 "for %s", perf_conn_name(o->conn), conn > PERF_UD ? "?" :
			 perf_conn_name((enum perf_conn)conn));
		return why;
	}
	if ((conn == PERF_UD && o->test->verb != PERF_SEND) ||
	    (conn == PERF_UC && perf_verb_fetches(o->test->verb))) {
		snprintf(why, len, "bad request: %s over %s", o->test->name,
			 perf_conn_name((enum perf_conn)conn));
		return why;
	}
	if (!(h->flags & OOB_F_IMM) && (o->send_imm || o->write_imm)) {
		snprintf(why, len, "the server has --%s_with_imm, the client not", o->send_imm ? "send" :
			 "write");
		return why;
	}
	if ((h->flags & OOB_F_IMM) && (o->test->verb == PERF_READ || o->test->verb == PERF_ATOMIC ||
				       (o->test->verb == PERF_WRITE && o->test->kind == PERF_LAT))) {
		snprintf(why, len, "bad request: immediate data for %s", o->test->name);
		return why;
	}
	for (unsigned int i = 0; i < h->nb_sizes; i++) {
		if (h->sizes[i] > DR_MAX_MSG_SIZE ||
		    (h->sizes[i] == 0 && o->test->verb == PERF_WRITE && o->test->kind == PERF_LAT) ||
		    (h->sizes[i] != PERF_ATOMIC_SIZE && o->test->verb == PERF_ATOMIC)) {
			snprintf(why, len, "bad request: size %u", h->sizes[i]);
			return why;
		}
		max = RTE_MAX(max, h->sizes[i]);
	}
	if (max > perf_max_size(o)) {
		snprintf(why, len, "message size %u is above the server's largest, %u bytes "
			 "(start the server with -s %u, --sizes or -a)", max, perf_max_size(o), max);
		return why;
	}
	return NULL;
}

static void
adopt(struct perf *p, const struct oob_hello *h, bool check)
{
	p->nb_sizes = h->nb_sizes;
	memcpy(p->sizes, h->sizes, sizeof(p->sizes));
	p->max_size = 0;
	for (unsigned int i = 0; i < p->nb_sizes; i++)
		p->max_size = RTE_MAX(p->max_size, p->sizes[i]);
	p->iters = h->iters;
	p->duration = (h->flags & OOB_F_DURATION) ? h->duration_ms / 1000.0 : 0;
	p->check = check;
	p->atomic = (h->flags & OOB_F_CMP_SWAP) ? PERF_CMP_AND_SWAP : PERF_FETCH_AND_ADD;
	p->raw_like = (enum perf_verb)((h->flags & OOB_F_RAW_LIKE_MASK) >> OOB_F_RAW_LIKE_SHIFT);
	p->imm = (h->flags & OOB_F_IMM) != 0;
	p->conn = (enum perf_conn)((h->flags & OOB_F_CONN_MASK) >> OOB_F_CONN_SHIFT);
}

int
perf_serve_hello(struct perf *p, struct perf_opts *run)
{
	struct oob_msg m;
	char why[OOB_TEXT_LEN];
	const char *no = NULL;
	bool check;
	int ret;

	ret = oob_recv(&p->ob, &m, OOB_IO_TIMEOUT_MS);
	if (ret != 1) {
		if (ret == 0)
			perf_err("out-of-band exchange", "no HELLO from the client within %d ms",
				 OOB_IO_TIMEOUT_MS);
		return PERF_FAIL;
	}
	if (m.type != OOB_HELLO) {
		perf_err("out-of-band exchange", "the client sent %s instead of HELLO",
			 oob_type_name(m.type));
		return PERF_FAIL;
	}
	/* --persist: the client's test and QP count; the rest is judged as without it */
	if (run != NULL) {
		no = perf_persist_opts(p->o, &m.u.hello, run, why, sizeof(why));
		if (no == NULL) {
			p->o = run;
			p->test = run->test;
		}
	}
	if (no == NULL)
		no = refusal(p, &m.u.hello, why, sizeof(why));
	if (no != NULL) {
		perf_err("refused the client", "%s", why);
		m.type = OOB_REJECT;
		snprintf(m.u.reject.reason, sizeof(m.u.reject.reason), "%s", why);
		oob_send(&p->ob, &m);
		return PERF_FAIL;
	}
	check = p->o->check || (m.u.hello.flags & OOB_F_CHECK);
	adopt(p, &m.u.hello, check);
	m.type = OOB_ACCEPT;
	m.u.accept.flags = (check ? OOB_F_CHECK : 0) | (p->o->persist ? OOB_A_PERSIST : 0);
	return oob_send(&p->ob, &m) == 0 ? PERF_OK : PERF_FAIL;
}

static int
handshake_server(struct perf *p)
{
	perf_print_waiting();
	if (oob_accept(&p->ob, p->o->oob_bind, p->o->tcp_port, &perf_stop) != 0)
		return PERF_FAIL;
	return perf_serve_hello(p, NULL);
}

static int
handshake_client(struct perf *p)
{
	struct oob_hello h;
	struct oob_msg m;

	if (oob_connect(&p->ob, p->o->server, p->o->tcp_port, &perf_stop) != 0)
		return PERF_FAIL;
	hello_from_opts(p->o, &h);
	m.type = OOB_HELLO;
	m.u.hello = h;
	if (oob_send(&p->ob, &m) != 0 || oob_recv(&p->ob, &m, -1) != 1)
		return PERF_FAIL;
	if (m.type == OOB_REJECT) {
		perf_err("the server refused the run", "%s", m.u.reject.reason);
		return PERF_FAIL;
	}
	if (m.type != OOB_ACCEPT) {
		perf_err("out-of-band exchange", "the server sent %s instead of ACCEPT",
			 oob_type_name(m.type));
		return PERF_FAIL;
	}
	adopt(p, &h, (m.u.accept.flags & OOB_F_CHECK) != 0);
	p->peer_persist = (m.u.accept.flags & OOB_A_PERSIST) != 0;
	return PERF_OK;
}

int
perf_handshake(struct perf *p)
{
	return p->server ? handshake_server(p) : handshake_client(p);
}

/* Our OOB_QP of every QP, in one write. */
static int
send_qps(struct perf *p)
{
	const size_t max = OOB_HDR_LEN + OOB_MAX_PAYLOAD;
	uint8_t *buf = malloc((size_t)p->nb_qps * max);
	size_t len = 0;
	struct oob_msg m;
	int ret;

	if (buf == NULL)
		return perf_api_err("malloc", ENOMEM);
	for (unsigned int i = 0; i < p->nb_qps; i++) {
		const struct perf_qp *q = &p->qps[i];
		struct oob_qp *a = &m.u.qp;

		memset(&m, 0, sizeof(m));
		m.type = OOB_QP;
		a->qpn = q->qp->qp_num;
		a->psn = q->psn;
		a->rkey = p->mr->rkey;
		a->mtu = p->mtu;
		a->vaddr = (uintptr_t)q->rx;
		memcpy(a->gid, p->gid.raw, sizeof(a->gid));
		memcpy(a->mac, p->mac.addr_bytes, sizeof(a->mac));
		a->slots = q->rx_slots;
		a->slot_size = p->slot_size;
		a->out_reads = p->out_reads;
		/* ECE (ibv_query_ece(3)): what the QP offers; nothing with --go-back-n */
		if (!p->o->go_back_n) {
			struct dr_ece ece;

			if (dr_query_ece(q->qp, &ece) == 0) {
				a->ece_vendor = ece.vendor_id;
				a->ece_options = ece.options;
			}
		}
		len += oob_encode(&m, buf + len);
	}
	ret = oob_write_raw(&p->ob, buf, len);
	free(buf);
	return ret == 0 ? PERF_OK : PERF_FAIL;
}

/* The peer's OOB_QP of every QP. */
static int
recv_qps(struct perf *p)
{
	struct oob_msg m;

	for (unsigned int i = 0; i < p->nb_qps; i++) {
		if (oob_recv(&p->ob, &m, -1) != 1)
			return PERF_FAIL;
		if (m.type == OOB_DONE && m.u.done.status == OOB_ST_ERROR) {
			perf_err("the peer stopped", "%s", m.u.done.text);
			return PERF_FAIL;
		}
		if (m.type != OOB_QP) {
			perf_err("out-of-band exchange", "the peer sent %s instead of QP %u",
				 oob_type_name(m.type), i);
			return PERF_FAIL;
		}
		if (m.u.qp.mtu < 256 || m.u.qp.mtu > 4096 || !rte_is_power_of_2(m.u.qp.mtu)) {
			perf_err("out-of-band exchange", "the peer's MTU %u is not an IB MTU",
				 m.u.qp.mtu);
			return PERF_FAIL;
		}
		p->qps[i].remote = m.u.qp;
		p->path_mtu = RTE_MIN(p->path_mtu, m.u.qp.mtu);
	}
	return PERF_OK;
}

/*
 * The client sends its QPs first and the server answers with its own once
 * it has read them all: with thousands of QPs (-q 16384: over 1 MB each way)
 * two writers that read only afterwards would both block on full socket
 * buffers.
 */
int
perf_exchange_qps(struct perf *p)
{
	p->path_mtu = p->mtu;
	if (p->server)
		return recv_qps(p) == PERF_OK ? send_qps(p) : PERF_FAIL;
	return send_qps(p) == PERF_OK ? recv_qps(p) : PERF_FAIL;
}
