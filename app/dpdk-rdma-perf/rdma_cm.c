/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * -R: perftest's rdma_cm mode (perftest 4.5-0.17's -R, which forces -z).
 * Two RC connections through the connection manager, both to the server's
 * -p port (RDMA_PS_TCP), both the client's to make:
 *
 *   the comm connection   carries perftest's exchange instead of TCP: each
 *                         message one signaled SEND of its exact size into
 *                         the peer's one posted 56-byte receive (re-posted
 *                         as soon as it is read); the client writes first
 *                         (rdma_write_keys(), rdma_read_keys(),
 *                         ctx_xchg_data_rdma())
 *   the data connection   the test's QP, made after a first (empty) hand
 *                         shake: the CM readies it (RTR, RTS), nothing of
 *                         the QP's own PSN or attributes is exchanged; a
 *                         second empty hand shake follows
 *
 * The server listens once for both (its first CONNECT_REQUEST is the comm
 * connection, the second the data's). At the end the client disconnects
 * the data connection and waits for DISCONNECTED; the server disconnects
 * without waiting; the comm connection goes last (perftest's goes with its
 * process: its kernel sends the DREQ).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <rte_cycles.h>

#include "perf.h"

#define CM_WAIT_MS 30000          /* a CM event or a comm SEND's completion, at most */
#define CM_CLIENT_TRIES 20        /* a client's connect refused (the server not listening yet) */
#define CM_RETRY_MS 500
#define CM_DISC_WAIT_MS 3000      /* the client's wait for DISCONNECTED at the end */
#define COMM_RECV_LEN 56          /* post_one_recv_wqe(): sizeof(struct pingpong_dest) */
#define COMM_BUF 4096

struct perf_cm {
	struct dr_cm_event_channel *ch;
	struct dr_cm_id *listen;
	struct dr_cm_id *comm;
	struct dr_cm_id *data;
	struct dr_pd *pd;
	struct dr_cq *scq, *rcq;
	struct dr_mr *mr;
	uint8_t *buf;                 /* [0, 4096): receives; [4096, 8192): sends */
	bool data_up;
};

static double
ms_since(uint64_t t0)
{
	return (double)(rte_rdtsc() - t0) * 1000.0 / (double)rte_get_tsc_hz();
}

/* The next CM event of @id (or, @listen, a CONNECT_REQUEST for it): 0, or -1 after a message. */
static int
cm_event(struct perf *p, enum dr_cm_event_type want, struct dr_cm_event **out, int wait_ms)
{
	struct perf_cm *c = p->cm;
	uint64_t t0 = rte_rdtsc();

	for (;;) {
		struct dr_cm_event *ev;
		int ret = dr_cm_get_cm_event(c->ch, &ev);

		if (ret == 0) {
			if (ev->event == want) {
				*out = ev;
				return 0;
			}
			if (ev->event == DR_CM_EVENT_TIMEWAIT_EXIT || ev->event == DR_CM_EVENT_DISCONNECTED ||
			    ev->event == DR_CM_EVENT_ESTABLISHED) {
				/* a server's accepted connection established (nobody waits for it, as perftest's),
				 * or an old connection's end */
				(void)dr_cm_ack_cm_event(ev);
				continue;
			}
			perf_err("rdma_cm", "%s (status %d) while waiting for %s", dr_cm_event_str(ev->event),
				 ev->status, dr_cm_event_str(want));
			*out = ev;
			return -1;
		}
		if (ret != -EAGAIN)
			return perf_api_err("dr_cm_get_cm_event", -ret), -1;
		if (perf_stop) {
			perf_err("rdma_cm", "interrupted while waiting for %s", dr_cm_event_str(want));
			return -1;
		}
		if (ms_since(t0) > wait_ms) {
			perf_err("rdma_cm", "no %s in %d s", dr_cm_event_str(want), wait_ms / 1000);
			return -1;
		}
		if (perf_progress(p) != PERF_OK)
			return -1;
	}
}

/* ---- the comm connection ------------------------------------------------------ */

static int
comm_post_recv(struct perf *p)
{
	struct perf_cm *c = p->cm;
	struct dr_sge sge = { (uintptr_t)c->buf, COMM_RECV_LEN, c->mr->lkey };
	struct dr_recv_wr wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1 }, *bad;
	int ret = dr_post_recv(c->comm->qp, &wr, &bad);

	return ret == 0 ? PERF_OK : perf_api_err("dr_post_recv(comm)", ret);
}

/* perftest's comm QP: RC, one send and one receive, CQs of one, a page for each way */
static int
comm_qp(struct perf *p, struct dr_cm_id *id)
{
	struct perf_cm *c = p->cm;
	struct dr_qp_init_attr ia = {
		.qp_type = DR_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int ret;

	c->pd = dr_alloc_pd(p->ctx);
	c->buf = calloc(2, COMM_BUF);
	if (c->pd == NULL || c->buf == NULL)
		return perf_api_err("comm resources", ENOMEM);
	c->mr = dr_reg_mr(c->pd, c->buf, 2 * COMM_BUF, DR_ACCESS_LOCAL_WRITE);
	c->scq = dr_create_cq(p->ctx, 1, NULL, NULL, 0);
	c->rcq = dr_create_cq(p->ctx, 1, NULL, NULL, 0);
	if (c->mr == NULL || c->scq == NULL || c->rcq == NULL)
		return perf_api_err("comm resources", errno);
	ia.send_cq = c->scq;
	ia.recv_cq = c->rcq;
	ret = dr_cm_create_qp(id, c->pd, &ia);
	if (ret != 0)
		return perf_api_err("dr_cm_create_qp(comm)", -ret);
	c->comm = id;
	return comm_post_recv(p);
}

/* librdmacm's parameters of perftest's comm connection: no READs, retries 7 */
static const struct dr_cm_conn_param comm_param = { .retry_count = 7, .rnr_retry_count = 7 };

static int
resolve(struct perf *p, struct dr_cm_id *id)
{
	struct sockaddr_storage dst;
	struct sockaddr_in *in = (struct sockaddr_in *)&dst;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&dst;
	struct dr_cm_event *ev;
	int ret;

	/* IPv4 or IPv6: the source is the address of ours that reaches it (rdma_resolve_addr(3)) */
	memset(&dst, 0, sizeof(dst));
	if (inet_pton(AF_INET, p->o->server, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(p->o->tcp_port);
	} else if (inet_pton(AF_INET6, p->o->server, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p->o->tcp_port);
	} else {
		perf_err("-R", "the server '%s' is not an IP address (the CM resolves no names)", p->o->server);
		return -1;
	}
	ret = dr_cm_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000);
	if (ret != 0)
		return perf_api_err("dr_cm_resolve_addr", -ret), -1;
	if (cm_event(p, DR_CM_EVENT_ADDR_RESOLVED, &ev, CM_WAIT_MS) != 0)
		return -1;
	(void)dr_cm_ack_cm_event(ev);
	ret = dr_cm_resolve_route(id, 2000);
	if (ret != 0)
		return perf_api_err("dr_cm_resolve_route", -ret), -1;
	if (cm_event(p, DR_CM_EVENT_ROUTE_RESOLVED, &ev, CM_WAIT_MS) != 0)
		return -1;
	(void)dr_cm_ack_cm_event(ev);
	return 0;
}

/*
 * One attempt at a client's connection: an id, its QP (@make_qp),
 * rdma_connect, ESTABLISHED. PERF_OK (*@out the id), PERF_FAIL, or
 * -EAGAIN: refused (the server not listening yet), *@out the id for the
 * caller to free before it tries again.
 */
static int
client_connect(struct perf *p, const struct dr_cm_conn_param *cp, int (*make_qp)(struct perf *, struct dr_cm_id *),
	       struct dr_cm_id **out)
{
	struct dr_cm_event *ev = NULL;
	struct dr_cm_id *id;
	int ret = dr_cm_create_id(p->cm->ch, &id, p, DR_CM_PS_TCP);

	if (ret != 0)
		return perf_api_err("dr_cm_create_id", -ret);
	if (resolve(p, id) != 0 || make_qp(p, id) != PERF_OK)
		return PERF_FAIL;
	ret = dr_cm_connect(id, (struct dr_cm_conn_param *)cp);
	if (ret != 0)
		return perf_api_err("dr_cm_connect", -ret);
	*out = id;
	if (cm_event(p, DR_CM_EVENT_ESTABLISHED, &ev, CM_WAIT_MS * 3) == 0) {
		(void)dr_cm_ack_cm_event(ev);
		return PERF_OK;
	}
	if (ev == NULL)
		return PERF_FAIL;
	ret = ev->event == DR_CM_EVENT_REJECTED ? -EAGAIN : PERF_FAIL;
	(void)dr_cm_ack_cm_event(ev);
	return ret;
}

/* A fresh perf_cm: its channel, non-blocking. */
static int
cm_open(struct perf *p)
{
	struct perf_cm *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return perf_api_err("calloc", ENOMEM);
	p->cm = c;
	c->ch = dr_cm_create_event_channel();
	if (c->ch == NULL || fcntl(c->ch->fd, F_SETFL, O_NONBLOCK) != 0)
		return perf_api_err("dr_cm_create_event_channel", errno);
	return PERF_OK;
}

static int
refused(void)
{
	perf_err("rdma_cm", "the server refused %d connects (is it listening on -p?)", CM_CLIENT_TRIES);
	return PERF_FAIL;
}

int
perf_cm_comm_connect(struct perf *p)
{
	struct perf_cm *c;
	int ret;

	if (cm_open(p) != PERF_OK)
		return PERF_FAIL;
	c = p->cm;
	if (p->server) {
		/* the wildcard, IPv6's where the port has an IPv6 address (it takes IPv4 requests too) */
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(p->o->tcp_port),
					 .sin_addr.s_addr = p->o->ipv4 };
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(p->o->tcp_port) };
		const struct sockaddr *bind_to = p->o->num_ipv6 > 0 ? (const struct sockaddr *)&a6 :
								      (const struct sockaddr *)&a;
		struct dr_cm_event *ev;

		ret = dr_cm_create_id(c->ch, &c->listen, p, DR_CM_PS_TCP);
		if (ret == 0)
			ret = dr_cm_bind_addr(c->listen, bind_to);
		if (ret == 0)
			ret = dr_cm_listen(c->listen, 1);
		if (ret != 0)
			return perf_api_err("rdma_cm listen", -ret);
		perf_print_waiting();
		/* rdma_server_connect(): the first request is the comm connection */
		if (cm_event(p, DR_CM_EVENT_CONNECT_REQUEST, &ev, INT32_MAX) != 0)
			return PERF_FAIL;
		if (comm_qp(p, ev->id) != PERF_OK) {
			(void)dr_cm_ack_cm_event(ev);
			return PERF_FAIL;
		}
		(void)dr_cm_ack_cm_event(ev);
		ret = dr_cm_accept(c->comm, (struct dr_cm_conn_param *)&comm_param);
		return ret == 0 ? PERF_OK : perf_api_err("dr_cm_accept(comm)", -ret);
	}
	for (unsigned int i = 0; i < CM_CLIENT_TRIES; i++) {
		struct dr_cm_id *id = NULL;

		ret = client_connect(p, &comm_param, comm_qp, &id);
		if (ret != -EAGAIN)
			return ret;
		/* refused: the comm QP and its resources go, the id too, and again */
		perf_cm_close(p);
		if (cm_open(p) != PERF_OK)
			return PERF_FAIL;
		rte_delay_us_sleep(CM_RETRY_MS * 1000);
	}
	return refused();
}

int
perf_cm_write(struct perf *p, const void *b, size_t len)
{
	struct perf_cm *c = p->cm;
	struct dr_sge sge = { (uintptr_t)c->buf + COMM_BUF, (uint32_t)len, c->mr->lkey };
	struct dr_send_wr wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1, .opcode = DR_WR_SEND,
				 .send_flags = DR_SEND_SIGNALED }, *bad;
	uint64_t t0 = rte_rdtsc();
	struct dr_wc wc;
	int ret;

	if (len > COMM_BUF)
		return perf_api_err("comm SEND", EMSGSIZE), -1;
	memcpy(c->buf + COMM_BUF, b, len);
	ret = dr_post_send(c->comm->qp, &wr, &bad);
	if (ret != 0)
		return perf_api_err("dr_post_send(comm)", ret), -1;
	while ((ret = dr_poll_cq(c->scq, 1, &wc)) == 0) {
		if (perf_stop || ms_since(t0) > CM_WAIT_MS) {
			perf_err("rdma_cm", "the comm SEND did not complete");
			return -1;
		}
		if (perf_progress(p) != PERF_OK)
			return -1;
	}
	if (ret < 0 || wc.status != DR_WC_SUCCESS) {
		perf_err("rdma_cm", "comm SEND: %s", ret < 0 ? "poll failed" : dr_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

int
perf_cm_read(struct perf *p, void *b, size_t len, int wait_ms)
{
	struct perf_cm *c = p->cm;
	uint64_t t0 = rte_rdtsc();
	struct dr_wc wc;
	int ret;

	while ((ret = dr_poll_cq(c->rcq, 1, &wc)) == 0) {
		if (wait_ms <= 0 || ms_since(t0) > wait_ms || perf_stop)
			return 0;
		if (perf_progress(p) != PERF_OK)
			return -1;
	}
	if (ret < 0 || wc.status != DR_WC_SUCCESS) {
		perf_err("rdma_cm", "comm receive: %s", ret < 0 ? "poll failed" : dr_wc_status_str(wc.status));
		return -1;
	}
	/* perftest reads the size it expects, whatever arrived (rdma_read_keys()) */
	memcpy(b, c->buf, RTE_MIN(len, (size_t)COMM_RECV_LEN));
	if (len > COMM_RECV_LEN)
		memset((uint8_t *)b + COMM_RECV_LEN, 0, len - COMM_RECV_LEN);
	return comm_post_recv(p) == PERF_OK ? 1 : -1;
}

/* ---- the data connection ------------------------------------------------------- */

/* perftest's data conn_param: READs (read and atomic tests) or none, retries 7 */
static void
data_param(const struct perf *p, struct dr_cm_conn_param *cp)
{
	memset(cp, 0, sizeof(*cp));
	if (perf_verb_fetches(p->test->verb))
		cp->responder_resources = cp->initiator_depth = p->out_reads;
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
}

static int
data_qp(struct perf *p, struct dr_cm_id *id)
{
	struct dr_ece none = { .vendor_id = DR_ECE_VENDOR_ID, .options = 0 };
	int ret = perf_cm_make_qp(p, &p->qps[0], id);

	/* -u: rdma_set_option(3)'s RDMA_OPTION_ID_ACK_TIMEOUT, before connect or accept */
	if (ret == PERF_OK && p->o->qp_timeout_given) {
		uint8_t t = p->o->qp_timeout;
		int r = dr_cm_set_option(id, DR_CM_OPTION_ID, DR_CM_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t));

		if (r != 0)
			return perf_api_err("dr_cm_set_option(ACK_TIMEOUT)", -r);
	}
	/*
	 * The CM offers and answers the QP's ECE (dr_query_ece()): selective
	 * repeat between two dpdk-rdma-perf. --go-back-n: the QP holds no
	 * option, so its REQ offers none and its REP answers none.
	 */
	if (ret == PERF_OK && p->o->go_back_n) {
		int r = dr_set_ece(id->qp, &none);

		if (r != 0)
			return perf_api_err("dr_set_ece", -r);
	}
	return ret;
}

int
perf_cm_data_connect(struct perf *p)
{
	struct perf_cm *c = p->cm;
	struct dr_cm_conn_param cp;
	int ret;

	data_param(p, &cp);
	if (p->server) {
		struct dr_cm_event *ev;

		/* rdma_cm_server_connection(): the second request, accepted; no wait for ESTABLISHED */
		if (cm_event(p, DR_CM_EVENT_CONNECT_REQUEST, &ev, CM_WAIT_MS) != 0)
			return PERF_FAIL;
		c->data = ev->id;
		(void)dr_cm_ack_cm_event(ev);
		if (data_qp(p, c->data) != PERF_OK)
			return PERF_FAIL;
		ret = dr_cm_accept(c->data, &cp);
		if (ret != 0)
			return perf_api_err("dr_cm_accept(data)", -ret);
		c->data_up = true;
		return PERF_OK;
	}
	for (unsigned int i = 0; i < CM_CLIENT_TRIES; i++) {
		struct dr_cm_id *id = NULL;

		ret = client_connect(p, &cp, data_qp, &id);
		if (ret != -EAGAIN) {
			c->data = id;
			c->data_up = ret == PERF_OK;
			return ret;
		}
		dr_cm_destroy_qp(id);
		p->qps[0].qp = NULL;
		(void)dr_cm_destroy_id(id);
		rte_delay_us_sleep(CM_RETRY_MS * 1000);
	}
	return refused();
}

/* ---- the end ------------------------------------------------------------------------ */

/* The id @pid and its QP go (the test's QP pointer with it, @qp). */
static void
drop_id(struct perf *p, struct dr_cm_id **pid, struct dr_qp **qp)
{
	struct dr_cm_id *id = *pid;

	if (id == NULL)
		return;
	dr_cm_destroy_qp(id);
	if (qp != NULL && id->qp == NULL)
		*qp = NULL;
	if (id->qp != NULL || dr_cm_destroy_id(id) != 0) {
		perf_err("rdma_cm", "an id could not be destroyed");
		p->cleanup_failed = true;
	}
	*pid = NULL;
}

void
perf_cm_close(struct perf *p)
{
	struct perf_cm *c = p->cm;

	if (c == NULL)
		return;
	if (c->data != NULL && c->data_up) {
		/* rdma_cm_disconnect_nodes(): the client waits for DISCONNECTED, the server does not */
		struct dr_cm_event *ev;

		if (dr_cm_disconnect(c->data) == 0 && !p->server &&
		    cm_event(p, DR_CM_EVENT_DISCONNECTED, &ev, CM_DISC_WAIT_MS) == 0)
			(void)dr_cm_ack_cm_event(ev);
	}
	if (c->comm != NULL)
		(void)dr_cm_disconnect(c->comm);
	drop_id(p, &c->data, p->qps != NULL ? &p->qps[0].qp : NULL);
	drop_id(p, &c->comm, NULL);
	if (c->listen != NULL && dr_cm_destroy_id(c->listen) != 0)
		p->cleanup_failed = true;
	if (c->rcq != NULL)
		(void)dr_destroy_cq(c->rcq);
	if (c->scq != NULL)
		(void)dr_destroy_cq(c->scq);
	if (c->mr != NULL)
		(void)dr_dereg_mr(c->mr);
	if (c->pd != NULL)
		(void)dr_dealloc_pd(c->pd);
	free(c->buf);
	if (c->ch != NULL && dr_cm_destroy_event_channel(c->ch) != 0)
		p->cleanup_failed = true;
	free(c);
	p->cm = NULL;
}
