/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* rping's session on the dr_cm_ API (rping.h): one thread polling the CQ and the CM channel. */

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "dr_cm.h"
#include "dr_app_cm.h"
#include "rping.h"

#define RPING_MSG_FMT "rdma-ping-%d: "
#define SQ_DEPTH 16

/* What each side sends: a buffer's address, R_Key and length, network order (rping's rping_rdma_info). */
struct rping_info {
	uint64_t buf;
	uint32_t rkey;
	uint32_t size;
};

struct rp {
	const struct rping_opts *o;
	struct dr_context *ctx;
	struct dr_cm_event_channel *ch;
	struct dr_cm_id *listen, *id;
	struct dr_pd *pd;
	struct dr_cq *cq;
	struct rping_info recv_buf, send_buf;
	struct dr_mr *recv_mr, *send_mr, *rdma_mr, *start_mr;
	char *rdma_buf, *start_buf;
	bool disconnected;
	double deadline;
};

static double
now(void)
{
	return (double)rte_get_timer_cycles() / (double)rte_get_timer_hz();
}

static void
arm(struct rp *r, double seconds)
{
	r->deadline = now() + seconds;
}

static int
timed_out(struct rp *r, const char *what)
{
	if (rping_stop) {
		fprintf(stderr, RPING_PROG ": stopped while waiting for %s\n", what);
		return 1;
	}
	if (now() > r->deadline) {
		fprintf(stderr, RPING_PROG ": no %s in time\n", what);
		return 1;
	}
	return 0;
}

/* One CM event if there is one: 1 taken (*type), 0 none, -1 an error event (printed as rping does). */
static int
cm_event(struct rp *r, enum dr_cm_event_type *type, struct dr_cm_id **id)
{
	struct dr_cm_event *ev;
	int ret = dr_cm_get_cm_event(r->ch, &ev);

	if (ret == -EAGAIN)
		return 0;
	if (ret != 0) {
		fprintf(stderr, RPING_PROG ": dr_cm_get_cm_event: %s\n", strerror(-ret));
		return -1;
	}
	*type = ev->event;
	if (id != NULL)
		*id = ev->id;
	switch (ev->event) {
	case DR_CM_EVENT_ADDR_ERROR:
	case DR_CM_EVENT_ROUTE_ERROR:
	case DR_CM_EVENT_CONNECT_ERROR:
	case DR_CM_EVENT_UNREACHABLE:
	case DR_CM_EVENT_REJECTED:
		fprintf(stderr, "cma event %s, error %d\n", dr_cm_event_str(ev->event), ev->status);
		ret = -1;
		break;
	case DR_CM_EVENT_DISCONNECTED:
		fprintf(stderr, "%s DISCONNECT EVENT...\n", r->o->server ? "server" : "client");
		r->disconnected = true;
		ret = 1;
		break;
	default:
		ret = 1;
		break;
	}
	(void)dr_cm_ack_cm_event(ev);
	return ret;
}

/* Wait up to @seconds for CM event @want; other events (TIMEWAIT_EXIT, ...) are passed over. */
static int
wait_cm(struct rp *r, enum dr_cm_event_type want, struct dr_cm_id **id, double seconds)
{
	enum dr_cm_event_type t;

	arm(r, seconds);
	for (;;) {
		int ret = cm_event(r, &t, id);

		if (ret < 0)
			return -1;
		if (ret > 0 && t == want)
			return 0;
		if (ret == 0 && timed_out(r, dr_cm_event_str(want)))
			return -1;
		if (ret == 0 && r->ctx != NULL)
			(void)dr_progress(r->ctx);
	}
}

static int
post_recv(struct rp *r)
{
	struct dr_sge s = { (uintptr_t)&r->recv_buf, sizeof(r->recv_buf), r->recv_mr->lkey };
	struct dr_recv_wr w = { .sg_list = &s, .num_sge = 1 }, *bad;

	return dr_post_recv(r->id->qp, &w, &bad);
}

/*
 * Wait for a completion of @want (a receive: DR_WC_RECV); send completions on
 * the way are passed over, a receive is posted again. 0, 1 when the peer
 * disconnected first, -1 on an error.
 */
static int
wait_wc(struct rp *r, enum dr_wc_opcode want)
{
	enum dr_cm_event_type t;
	struct dr_wc wc;

	arm(r, r->o->timeout_s);
	for (;;) {
		int n = dr_poll_cq(r->cq, 1, &wc);

		if (n < 0) {
			fprintf(stderr, RPING_PROG ": dr_poll_cq: %s\n", strerror(-n));
			return -1;
		}
		if (n == 1) {
			if (wc.status != DR_WC_SUCCESS) {
				/* flushed: the peer's DREQ moved our QP to ERR; its event says so */
				while (wc.status == DR_WC_WR_FLUSH_ERR && !r->disconnected &&
				       cm_event(r, &t, NULL) > 0)
					;
				if (wc.status == DR_WC_WR_FLUSH_ERR && r->disconnected)
					return 1;
				fprintf(stderr, "cq completion failed status %d\n", wc.status);
				return -1;
			}
			if (wc.opcode == DR_WC_RECV) {
				if (wc.byte_len != sizeof(r->recv_buf)) {
					fprintf(stderr, "Received bogus data, size %u\n", wc.byte_len);
					return -1;
				}
				if (post_recv(r) != 0)
					return -1;
			}
			if (wc.opcode == want)
				return 0;
			continue;
		}
		n = cm_event(r, &t, NULL);
		if (n < 0)
			return -1;
		if (r->disconnected)
			return 1;
		if (timed_out(r, "a completion"))
			return -1;
	}
}

static int
post_info(struct rp *r, const char *buf, const struct dr_mr *mr)
{
	struct dr_sge s = { (uintptr_t)&r->send_buf, sizeof(r->send_buf), r->send_mr->lkey };
	struct dr_send_wr w = { .sg_list = &s, .num_sge = 1, .opcode = DR_WR_SEND,
				.send_flags = DR_SEND_SIGNALED }, *bad;

	if (buf != NULL) {
		r->send_buf.buf = htobe64((uintptr_t)buf);
		r->send_buf.rkey = htobe32(mr->rkey);
		r->send_buf.size = htobe32(r->o->size);
	}
	return dr_post_send(r->id->qp, &w, &bad);
}

static int
post_rdma(struct rp *r, enum dr_wr_opcode op, uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct dr_sge s = { (uintptr_t)r->rdma_buf, len, r->rdma_mr->lkey };
	struct dr_send_wr w = { .sg_list = &s, .num_sge = 1, .opcode = op, .send_flags = DR_SEND_SIGNALED },
			  *bad;

	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	return dr_post_send(r->id->qp, &w, &bad);
}

/* The QP, the CQ and the four buffers of rping's rping_setup_qp() and rping_setup_buffers(). */
static int
setup(struct rp *r)
{
	const int remote = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_WRITE;
	struct dr_qp_init_attr ia = { .qp_type = DR_QPT_RC,
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 } };

	r->pd = dr_alloc_pd(r->id->verbs);
	r->cq = dr_create_cq(r->id->verbs, SQ_DEPTH * 2, r, NULL, 0);
	r->rdma_buf = calloc(1, r->o->size);
	r->start_buf = calloc(1, r->o->size);
	if (r->pd == NULL || r->cq == NULL || r->rdma_buf == NULL || r->start_buf == NULL)
		return -1;
	ia.send_cq = ia.recv_cq = r->cq;
	if (dr_cm_create_qp(r->id, r->pd, &ia) != 0)
		return -1;
	r->recv_mr = dr_reg_mr(r->pd, &r->recv_buf, sizeof(r->recv_buf), DR_ACCESS_LOCAL_WRITE);
	r->send_mr = dr_reg_mr(r->pd, &r->send_buf, sizeof(r->send_buf), 0);
	r->rdma_mr = dr_reg_mr(r->pd, r->rdma_buf, r->o->size, remote);
	r->start_mr = dr_reg_mr(r->pd, r->start_buf, r->o->size, remote);
	if (r->recv_mr == NULL || r->send_mr == NULL || r->rdma_mr == NULL || r->start_mr == NULL)
		return -1;
	return post_recv(r) == 0 ? 0 : -1;
}

static void
teardown(struct rp *r)
{
	if (r->id != NULL)
		dr_cm_destroy_qp(r->id);
	if (r->recv_mr != NULL)
		(void)dr_dereg_mr(r->recv_mr);
	if (r->send_mr != NULL)
		(void)dr_dereg_mr(r->send_mr);
	if (r->rdma_mr != NULL)
		(void)dr_dereg_mr(r->rdma_mr);
	if (r->start_mr != NULL)
		(void)dr_dereg_mr(r->start_mr);
	if (r->cq != NULL)
		(void)dr_destroy_cq(r->cq);
	if (r->pd != NULL)
		(void)dr_dealloc_pd(r->pd);
	free(r->rdma_buf);
	free(r->start_buf);
	if (r->id != NULL && dr_cm_destroy_id(r->id) != 0)
		fprintf(stderr, RPING_PROG ": dr_cm_destroy_id failed\n");
	if (r->listen != NULL)
		(void)dr_cm_destroy_id(r->listen);
	if (r->ch != NULL)
		(void)dr_cm_destroy_event_channel(r->ch);
}

/* rping_test_client(): the ping-pong, -C times */
static int
client_loop(struct rp *r)
{
	int start = 65;

	for (unsigned int ping = 0; !rping_stop && (r->o->count == 0 || ping < r->o->count); ping++) {
		unsigned char c = (unsigned char)start;
		int cc = snprintf(r->start_buf, r->o->size, RPING_MSG_FMT, (int)ping);

		for (unsigned int i = (unsigned int)cc; i < r->o->size; i++) {
			r->start_buf[i] = (char)c;
			if (++c > 122)
				c = 65;
		}
		if (++start > 122)
			start = 65;
		r->start_buf[r->o->size - 1] = 0;
		/* the source; the server READs it and says go ahead */
		if (post_info(r, r->start_buf, r->start_mr) != 0 || wait_wc(r, DR_WC_RECV) != 0)
			return -1;
		/* the sink; the server WRITEs it and says go ahead */
		if (post_info(r, r->rdma_buf, r->rdma_mr) != 0 || wait_wc(r, DR_WC_RECV) != 0)
			return -1;
		if (r->o->validate && memcmp(r->start_buf, r->rdma_buf, r->o->size) != 0) {
			fprintf(stderr, "data mismatch!\n");
			return -1;
		}
		if (r->o->verbose)
			printf("ping data: %s\n", r->rdma_buf);
	}
	return 0;
}

/* rping_test_server(): until the client disconnects */
static int
server_loop(struct rp *r)
{
	for (;;) {
		int ret = wait_wc(r, DR_WC_RECV);

		if (ret != 0)
			return ret > 0 ? 0 : -1;
		if (post_rdma(r, DR_WR_RDMA_READ, be64toh(r->recv_buf.buf), be32toh(r->recv_buf.rkey),
			      RTE_MIN(be32toh(r->recv_buf.size), r->o->size)) != 0 ||
		    wait_wc(r, DR_WC_RDMA_READ) != 0)
			return -1;
		if (r->o->verbose)
			printf("server ping data: %s\n", r->rdma_buf);
		if (post_info(r, NULL, NULL) != 0)
			return -1;
		ret = wait_wc(r, DR_WC_RECV);
		if (ret != 0)
			return ret > 0 ? 0 : -1;
		if (post_rdma(r, DR_WR_RDMA_WRITE, be64toh(r->recv_buf.buf), be32toh(r->recv_buf.rkey),
			      (uint32_t)strnlen(r->rdma_buf, r->o->size - 1) + 1) != 0 ||
		    wait_wc(r, DR_WC_RDMA_WRITE) != 0 || post_info(r, NULL, NULL) != 0)
			return -1;
	}
}

static int
run_client(struct rp *r)
{
	const struct sockaddr *src = r->o->src.ss_family != AF_UNSPEC ? (const struct sockaddr *)&r->o->src : NULL;
	struct dr_cm_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
				       .rnr_retry_count = 7 };
	int ret;

	if (dr_cm_create_id(r->ch, &r->id, r, DR_CM_PS_TCP) != 0 ||
	    dr_cm_resolve_addr(r->id, src, (const struct sockaddr *)&r->o->addr, 2000) != 0 ||
	    wait_cm(r, DR_CM_EVENT_ADDR_RESOLVED, NULL, r->o->timeout_s) != 0 || dr_cm_resolve_route(r->id, 2000) != 0 ||
	    wait_cm(r, DR_CM_EVENT_ROUTE_RESOLVED, NULL, r->o->timeout_s) != 0)
		return -1;
	if (setup(r) != 0 || dr_cm_connect(r->id, &cp) != 0 || wait_cm(r, DR_CM_EVENT_ESTABLISHED, NULL, r->o->timeout_s) != 0)
		return -1;
	ret = client_loop(r);
	if (ret != 0)
		fprintf(stderr, "rping client failed: %d\n", ret);
	if (dr_cm_disconnect(r->id) == 0 && !r->disconnected)
		(void)wait_cm(r, DR_CM_EVENT_DISCONNECTED, NULL, r->o->timeout_s);
	return ret;
}

static int
run_server(struct rp *r)
{
	struct dr_cm_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .rnr_retry_count = 7 };
	char name[INET6_ADDRSTRLEN];
	int ret;

	dr_app_cm_addr_str(&r->o->addr, name, sizeof(name));
	if (dr_cm_create_id(r->ch, &r->listen, r, DR_CM_PS_TCP) != 0 ||
	    dr_cm_bind_addr(r->listen, (const struct sockaddr *)&r->o->addr) != 0 ||
	    dr_cm_listen(r->listen, 3) != 0) {
		fprintf(stderr, RPING_PROG ": cannot listen on %s port %u\n", name, r->o->port);
		return -1;
	}
	printf("server listening on %s port %u\n", name, r->o->port);
	fflush(stdout);
	/* a server waits for its client as long as it takes (a signal stops it) */
	if (wait_cm(r, DR_CM_EVENT_CONNECT_REQUEST, &r->id, 1e9) != 0)
		return -1;
	if (setup(r) != 0 || dr_cm_accept(r->id, &cp) != 0 || wait_cm(r, DR_CM_EVENT_ESTABLISHED, NULL, r->o->timeout_s) != 0)
		return -1;
	ret = server_loop(r);
	if (ret != 0)
		fprintf(stderr, "rping server failed: %d\n", ret);
	(void)dr_cm_disconnect(r->id);
	return ret;
}

int
rping_run(struct dr_context *ctx, const void *opts)
{
	const struct rping_opts *o = opts;
	struct rp r = { .o = o, .ctx = ctx };
	int ret;

	r.ch = dr_cm_create_event_channel();
	if (r.ch == NULL || fcntl(r.ch->fd, F_SETFL, O_NONBLOCK) != 0)
		return 1;
	ret = o->server ? run_server(&r) : run_client(&r);
	/* let the last answers (DREP, ACKs) go out */
	for (double end = now() + 0.2; now() < end;)
		(void)dr_progress(ctx);
	teardown(&r);
	return ret == 0 ? 0 : 1;
}
