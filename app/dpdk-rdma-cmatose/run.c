/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* cmatose's test on the dr_cm_ API (cmatose.h): one thread, the CM channel and the nodes' CQs. */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dr_cm.h"
#include "cmatose.h"

enum { SEND_CQ, RECV_CQ };

struct node {
	struct dr_cm_id *id;
	struct dr_cq *cq[2];
	struct dr_mr *mr;
	uint8_t *mem;
	bool connected;
};

struct test {
	const struct cmatose_opts *o;
	struct dr_cm_event_channel *ch;
	struct node *nodes;
	unsigned int conn_index;
	unsigned int connects_left;
	unsigned int disconnects_left;
	struct dr_app_wait wait;
	unsigned int bad;          /* arrivals that failed -V */
};

static uint8_t
pattern(unsigned int b)
{
	return (uint8_t)(b * 13 + 0xA5);
}

/* cmatose's init_node(): a send and a receive CQ, an RC QP through the CM, the message buffer. */
static int
init_node(struct test *t, struct node *n)
{
	unsigned int cqe = t->o->cm.count != 0 ? t->o->cm.count : 1;
	struct dr_qp_init_attr ia;
	int ret;

	for (int i = 0; i < 2; i++) {
		n->cq[i] = dr_create_cq(n->id->verbs, (int)cqe, n, NULL, 0);
		if (n->cq[i] == NULL) {
			printf("cmatose: unable to create CQ\n");
			return -ENOMEM;
		}
	}
	memset(&ia, 0, sizeof(ia));
	ia.cap.max_send_wr = ia.cap.max_recv_wr = cqe;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.qp_context = n;
	ia.sq_sig_all = 1;
	ia.qp_type = DR_QPT_RC;
	ia.send_cq = n->cq[SEND_CQ];
	ia.recv_cq = n->cq[RECV_CQ];
	ret = dr_cm_create_qp(n->id, NULL, &ia);
	if (ret != 0) {
		printf("cmatose: unable to create QP: %s\n", strerror(-ret));
		return ret;
	}
	if (t->o->cm.count == 0)
		return 0;
	n->mem = malloc(t->o->cm.size);
	if (n->mem == NULL)
		return -ENOMEM;
	for (unsigned int b = 0; b < t->o->cm.size; b++)
		n->mem[b] = pattern(b);
	n->mr = dr_reg_mr(n->id->pd, n->mem, t->o->cm.size, DR_ACCESS_LOCAL_WRITE);
	if (n->mr == NULL) {
		printf("cmatose: failed to reg MR\n");
		return -errno;
	}
	return 0;
}

static int
post_recvs(struct test *t, struct node *n)
{
	struct dr_sge sge = { (uintptr_t)n->mem, t->o->cm.size, 0 };
	struct dr_recv_wr wr = { .wr_id = (uintptr_t)n, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (t->o->cm.count == 0)
		return 0;
	sge.lkey = n->mr->lkey;
	for (unsigned int i = 0; i < t->o->cm.count; i++) {
		int ret = dr_post_recv(n->id->qp, &wr, &bad);

		if (ret != 0) {
			printf("failed to post receives: %d\n", ret);
			return -ret;
		}
	}
	return 0;
}

static int
post_sends(struct test *t, struct node *n)
{
	struct dr_sge sge = { (uintptr_t)n->mem, t->o->cm.size, 0 };
	struct dr_send_wr wr, *bad;

	if (!n->connected || t->o->cm.count == 0)
		return 0;
	sge.lkey = n->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = DR_WR_SEND;
	for (unsigned int i = 0; i < t->o->cm.count; i++) {
		int ret = dr_post_send(n->id->qp, &wr, &bad);

		if (ret != 0) {
			printf("failed to post sends: %d\n", ret);
			return -ret;
		}
	}
	return 0;
}

/* -V: every message is the pattern (one buffer per connection, as cmatose's, so each arrival leaves it) */
static void
check(struct test *t, struct node *n, const struct dr_wc *wc)
{
	if (!t->o->cm.validate || wc->opcode != DR_WC_RECV)
		return;
	if (wc->byte_len != t->o->cm.size) {
		printf("cmatose: a receive of %u bytes, not %u\n", wc->byte_len, t->o->cm.size);
		t->bad++;
		return;
	}
	for (unsigned int b = 0; b < t->o->cm.size; b++)
		if (n->mem[b] != pattern(b)) {
			printf("cmatose: byte %u is 0x%02x, not 0x%02x\n", b, n->mem[b], pattern(b));
			t->bad++;
			return;
		}
}

/* cmatose's poll_cqs(): -C completions of CQ @which on every connected node. */
static int
poll_cqs(struct test *t, int which)
{
	dr_app_wait_arm(&t->wait);
	for (unsigned int i = 0; i < t->o->cm.connections; i++) {
		struct node *n = &t->nodes[i];
		unsigned int done = 0;

		if (!n->connected)
			continue;
		while (done < t->o->cm.count) {
			struct dr_wc wc[8];
			int ret = dr_poll_cq(n->cq[which], 8, wc);

			if (ret < 0) {
				printf("cmatose: failed polling CQ: %d\n", ret);
				return ret;
			}
			for (int k = 0; k < ret; k++) {
				if (wc[k].status != DR_WC_SUCCESS) {
					printf("cmatose: completion status %d\n", wc[k].status);
					return -EIO;
				}
				check(t, n, &wc[k]);
			}
			done += (unsigned int)ret;
			if (ret == 0 && dr_app_wait_over(&t->wait, "completions"))
				return -ETIMEDOUT;
		}
	}
	return 0;
}

/* ---- the CM's events -------------------------------------------------------------- */

static int
route_handler(struct test *t, struct node *n)
{
	struct dr_cm_conn_param cp;
	int ret = init_node(t, n);

	if (ret == 0)
		ret = post_recvs(t, n);
	if (ret == 0) {
		memset(&cp, 0, sizeof(cp));
		cp.responder_resources = 1;
		cp.initiator_depth = 1;
		cp.retry_count = 5;
		ret = dr_cm_connect(n->id, &cp);
		if (ret != 0)
			printf("cmatose: failure connecting: %s\n", strerror(-ret));
	}
	if (ret != 0)
		t->connects_left--;
	return ret;
}

static int
connect_handler(struct test *t, struct dr_cm_id *id)
{
	struct node *n;
	int ret;

	if (t->conn_index == t->o->cm.connections) {
		ret = -ENOMEM;
		goto refuse;
	}
	n = &t->nodes[t->conn_index++];
	n->id = id;
	id->context = n;
	ret = init_node(t, n);
	if (ret == 0)
		ret = post_recvs(t, n);
	if (ret == 0) {
		ret = dr_cm_accept(id, NULL);
		if (ret != 0)
			printf("cmatose: failure accepting: %s\n", strerror(-ret));
	}
	if (ret == 0)
		return 0;
	t->connects_left--;
refuse:
	printf("cmatose: failing connection request\n");
	(void)dr_cm_reject(id, NULL, 0);
	return ret;
}

static int
on_route(void *arg, struct dr_cm_id *id)
{
	return route_handler(arg, id->context);
}

static int
on_request(void *arg, struct dr_cm_id *id)
{
	return connect_handler(arg, id);
}

static int
on_established(void *arg, struct dr_cm_event *ev)
{
	struct test *t = arg;
	struct node *n = ev->id->context;

	n->connected = true;
	t->connects_left--;
	t->disconnects_left++;
	return 0;
}

static void
on_disconnected(void *arg, struct dr_cm_id *id)
{
	struct test *t = arg;

	(void)dr_cm_disconnect(id);     /* the DREP of the peer's DREQ (ours: nothing more) */
	t->disconnects_left--;
}

static void
on_failed(void *arg)
{
	struct test *t = arg;

	t->connects_left--;
}

static const struct dr_app_cm_calls calls = {
	.prog = "cmatose", .route = on_route, .request = on_request, .established = on_established,
	.disconnected = on_disconnected, .failed = on_failed,
};

/* Take events until *@left is 0: connections (or disconnections) all in. */
static int
events_until(struct test *t, unsigned int *left, const char *what)
{
	return dr_app_cm_events(t->ch, left, &t->wait, what, &calls, t);
}

static void
destroy_node(struct node *n)
{
	if (n->id == NULL)
		return;
	if (n->mr != NULL)
		(void)dr_dereg_mr(n->mr);
	dr_cm_destroy_qp(n->id);
	for (int i = 0; i < 2; i++)
		if (n->cq[i] != NULL)
			(void)dr_destroy_cq(n->cq[i]);
	free(n->mem);
	if (dr_cm_destroy_id(n->id) != 0)
		printf("cmatose: an id could not be destroyed\n");
	memset(n, 0, sizeof(*n));
}

/* ---- the two sides ------------------------------------------------------------------- */

static int
server_round(struct test *t)
{
	int ret = events_until(t, &t->connects_left, "connection");

	if (ret == 0 && t->o->cm.count != 0) {
		printf("initiating data transfers\n");
		for (unsigned int i = 0; i < t->o->cm.connections && ret == 0; i++)
			ret = post_sends(t, &t->nodes[i]);
		if (ret == 0) {
			printf("completing sends\n");
			ret = poll_cqs(t, SEND_CQ);
		}
		if (ret == 0) {
			printf("receiving data transfers\n");
			ret = poll_cqs(t, RECV_CQ);
		}
		if (ret == 0)
			printf("data transfers complete\n");
	}
	if (ret != 0)
		return ret;
	printf("cmatose: disconnecting\n");
	for (unsigned int i = 0; i < t->o->cm.connections; i++) {
		if (!t->nodes[i].connected)
			continue;
		t->nodes[i].connected = false;
		(void)dr_cm_disconnect(t->nodes[i].id);
	}
	ret = events_until(t, &t->disconnects_left, "disconnection");
	printf("disconnected\n");
	return ret;
}

static int
client_round(struct test *t)
{
	/* -b, or none: the source that reaches the server (rdma_resolve_addr(3)) */
	const struct sockaddr *src = t->o->cm.src.ss_family != AF_UNSPEC ? (const struct sockaddr *)&t->o->cm.src : NULL;
	struct sockaddr_storage dst = dr_app_cm_with_port(&t->o->cm.dst, t->o->port);
	int ret = 0, ret2;

	printf("cmatose: connecting\n");
	for (unsigned int i = 0; i < t->o->cm.connections && ret == 0; i++) {
		struct node *n = &t->nodes[i];

		ret = dr_cm_create_id(t->ch, &n->id, n, DR_CM_PS_TCP);
		if (ret == 0)
			ret = dr_cm_resolve_addr(n->id, src, (struct sockaddr *)&dst, 2000);
		if (ret != 0) {
			printf("cmatose: failure getting addr: %s\n", strerror(-ret));
			return ret;
		}
	}
	ret = events_until(t, &t->connects_left, "connection");
	if (ret == 0 && t->o->cm.count != 0) {
		printf("receiving data transfers\n");
		ret = poll_cqs(t, RECV_CQ);
		if (ret == 0) {
			printf("sending replies\n");
			for (unsigned int i = 0; i < t->o->cm.connections && ret == 0; i++)
				ret = post_sends(t, &t->nodes[i]);
		}
		if (ret == 0)
			printf("data transfers complete\n");
	}
	ret2 = events_until(t, &t->disconnects_left, "disconnection");
	return ret != 0 ? ret : ret2;
}

int
cmatose_run(struct dr_context *ctx, const void *opts)
{
	const struct cmatose_opts *o = opts;
	static struct test t;
	struct dr_cm_id *listen_id = NULL;
	int ret = 0;

	(void)ctx;
	memset(&t, 0, sizeof(t));
	t.o = o;
	t.wait = (struct dr_app_wait){ .timeout_s = o->cm.timeout_s, .stop = &cmatose_stop, .prog = "cmatose" };
	t.nodes = calloc(o->cm.connections, sizeof(*t.nodes));
	t.ch = dr_cm_create_event_channel();
	if (t.nodes == NULL || t.ch == NULL || fcntl(t.ch->fd, F_SETFL, O_NONBLOCK) != 0) {
		perror("cmatose: set-up");
		free(t.nodes);
		return 1;
	}
	printf("cmatose: starting %s\n", o->cm.dst.ss_family != AF_UNSPEC ? "client" : "server");
	if (o->cm.dst.ss_family == AF_UNSPEC) {
		listen_id = dr_app_cm_listen(t.ch, DR_CM_PS_TCP, &o->cm.src, o->port, &t, "cmatose");
		if (listen_id == NULL)
			ret = -EINVAL;
	}
	for (unsigned int r = 0; r < o->rounds && ret == 0; r++) {
		t.conn_index = 0;
		t.connects_left = o->cm.connections;
		t.disconnects_left = 0;
		ret = o->cm.dst.ss_family != AF_UNSPEC ? client_round(&t) : server_round(&t);
		for (unsigned int i = 0; i < o->cm.connections; i++)
			destroy_node(&t.nodes[i]);
		if (o->rounds > 1 && (r + 1) % 100 == 0)
			printf("cmatose: %u rounds done\n", r + 1);
	}
	if (ret == 0 && t.bad != 0)
		ret = -EIO;
	if (listen_id != NULL)
		(void)dr_cm_destroy_id(listen_id);
	printf("test complete\n");
	(void)dr_cm_destroy_event_channel(t.ch);
	free(t.nodes);
	printf("return status %d\n", ret);
	return ret;
}
