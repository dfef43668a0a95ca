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

#include <rte_cycles.h>

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
	double deadline;
	unsigned int bad;          /* arrivals that failed -V */
};

static double
now(void)
{
	return (double)rte_get_timer_cycles() / (double)rte_get_timer_hz();
}

static void
arm(struct test *t)
{
	t->deadline = now() + t->o->timeout_s;
}

static bool
expired(struct test *t, const char *what)
{
	if (cmatose_stop) {
		printf("cmatose: stopped while waiting for %s\n", what);
		return true;
	}
	if (now() > t->deadline) {
		printf("cmatose: no %s in %.0f s\n", what, t->o->timeout_s);
		return true;
	}
	return false;
}

static uint8_t
pattern(unsigned int b)
{
	return (uint8_t)(b * 13 + 0xA5);
}

/* cmatose's init_node(): a send and a receive CQ, an RC QP through the CM, the message buffer. */
static int
init_node(struct test *t, struct node *n)
{
	unsigned int cqe = t->o->count != 0 ? t->o->count : 1;
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
	if (t->o->count == 0)
		return 0;
	n->mem = malloc(t->o->size);
	if (n->mem == NULL)
		return -ENOMEM;
	for (unsigned int b = 0; b < t->o->size; b++)
		n->mem[b] = pattern(b);
	n->mr = dr_reg_mr(n->id->pd, n->mem, t->o->size, DR_ACCESS_LOCAL_WRITE);
	if (n->mr == NULL) {
		printf("cmatose: failed to reg MR\n");
		return -errno;
	}
	return 0;
}

static int
post_recvs(struct test *t, struct node *n)
{
	struct dr_sge sge = { (uintptr_t)n->mem, t->o->size, 0 };
	struct dr_recv_wr wr = { .wr_id = (uintptr_t)n, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (t->o->count == 0)
		return 0;
	sge.lkey = n->mr->lkey;
	for (unsigned int i = 0; i < t->o->count; i++) {
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
	struct dr_sge sge = { (uintptr_t)n->mem, t->o->size, 0 };
	struct dr_send_wr wr, *bad;

	if (!n->connected || t->o->count == 0)
		return 0;
	sge.lkey = n->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = DR_WR_SEND;
	for (unsigned int i = 0; i < t->o->count; i++) {
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
	if (!t->o->validate || wc->opcode != DR_WC_RECV)
		return;
	if (wc->byte_len != t->o->size) {
		printf("cmatose: a receive of %u bytes, not %u\n", wc->byte_len, t->o->size);
		t->bad++;
		return;
	}
	for (unsigned int b = 0; b < t->o->size; b++)
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
	arm(t);
	for (unsigned int i = 0; i < t->o->connections; i++) {
		struct node *n = &t->nodes[i];
		unsigned int done = 0;

		if (!n->connected)
			continue;
		while (done < t->o->count) {
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
			if (ret == 0 && expired(t, "completions"))
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

	if (t->conn_index == t->o->connections) {
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
cm_handler(struct test *t, struct dr_cm_event *ev)
{
	struct node *n = ev->id->context;
	int ret = 0;

	switch (ev->event) {
	case DR_CM_EVENT_ADDR_RESOLVED:
		ret = dr_cm_resolve_route(ev->id, 2000);
		if (ret != 0) {
			printf("cmatose: resolve route failed: %s\n", strerror(-ret));
			t->connects_left--;
		}
		break;
	case DR_CM_EVENT_ROUTE_RESOLVED:
		ret = route_handler(t, n);
		break;
	case DR_CM_EVENT_CONNECT_REQUEST:
		ret = connect_handler(t, ev->id);
		break;
	case DR_CM_EVENT_ESTABLISHED:
		n->connected = true;
		t->connects_left--;
		t->disconnects_left++;
		break;
	case DR_CM_EVENT_ADDR_ERROR:
	case DR_CM_EVENT_ROUTE_ERROR:
	case DR_CM_EVENT_CONNECT_ERROR:
	case DR_CM_EVENT_UNREACHABLE:
	case DR_CM_EVENT_REJECTED:
		printf("cmatose: event: %s, error: %d\n", dr_cm_event_str(ev->event), ev->status);
		t->connects_left--;
		ret = ev->status != 0 ? ev->status : -1;
		break;
	case DR_CM_EVENT_DISCONNECTED:
		(void)dr_cm_disconnect(ev->id);     /* the DREP of the peer's DREQ (ours: nothing more) */
		t->disconnects_left--;
		break;
	default:
		break;
	}
	return ret;
}

/* Take events until *@left is 0: connections (or disconnections) all in. */
static int
events_until(struct test *t, unsigned int *left, const char *what)
{
	int ret = 0;

	arm(t);
	while (*left > 0 && ret == 0) {
		struct dr_cm_event *ev;

		ret = dr_cm_get_cm_event(t->ch, &ev);
		if (ret == -EAGAIN) {
			ret = expired(t, what) ? -ETIMEDOUT : 0;
			continue;
		}
		if (ret != 0) {
			printf("cmatose: failure in rdma_get_cm_event: %s\n", strerror(-ret));
			break;
		}
		ret = cm_handler(t, ev);
		(void)dr_cm_ack_cm_event(ev);
	}
	return ret;
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

	if (ret == 0 && t->o->count != 0) {
		printf("initiating data transfers\n");
		for (unsigned int i = 0; i < t->o->connections && ret == 0; i++)
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
	for (unsigned int i = 0; i < t->o->connections; i++) {
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
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr.s_addr = t->o->src };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(t->o->port),
				   .sin_addr.s_addr = t->o->dst };
	int ret = 0, ret2;

	printf("cmatose: connecting\n");
	for (unsigned int i = 0; i < t->o->connections && ret == 0; i++) {
		struct node *n = &t->nodes[i];

		ret = dr_cm_create_id(t->ch, &n->id, n, DR_CM_PS_TCP);
		if (ret == 0)
			ret = dr_cm_resolve_addr(n->id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000);
		if (ret != 0) {
			printf("cmatose: failure getting addr: %s\n", strerror(-ret));
			return ret;
		}
	}
	ret = events_until(t, &t->connects_left, "connection");
	if (ret == 0 && t->o->count != 0) {
		printf("receiving data transfers\n");
		ret = poll_cqs(t, RECV_CQ);
		if (ret == 0) {
			printf("sending replies\n");
			for (unsigned int i = 0; i < t->o->connections && ret == 0; i++)
				ret = post_sends(t, &t->nodes[i]);
		}
		if (ret == 0)
			printf("data transfers complete\n");
	}
	ret2 = events_until(t, &t->disconnects_left, "disconnection");
	return ret != 0 ? ret : ret2;
}

static struct dr_cm_id *
listen_on(struct test *t)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(t->o->port),
				 .sin_addr.s_addr = t->o->src };
	struct dr_cm_id *id;
	int ret = dr_cm_create_id(t->ch, &id, t, DR_CM_PS_TCP);

	if (ret != 0) {
		printf("cmatose: listen request failed: %s\n", strerror(-ret));
		return NULL;
	}
	ret = dr_cm_bind_addr(id, (struct sockaddr *)&a);
	if (ret != 0)
		printf("cmatose: bind address failed: %s\n", strerror(-ret));
	if (ret == 0) {
		ret = dr_cm_listen(id, 0);
		if (ret != 0)
			printf("cmatose: failure trying to listen: %s\n", strerror(-ret));
	}
	if (ret != 0) {
		(void)dr_cm_destroy_id(id);
		return NULL;
	}
	return id;
}

int
cmatose_run(struct dr_context *ctx, const struct cmatose_opts *o)
{
	static struct test t;
	struct dr_cm_id *listen_id = NULL;
	int ret = 0;

	(void)ctx;
	memset(&t, 0, sizeof(t));
	t.o = o;
	t.nodes = calloc(o->connections, sizeof(*t.nodes));
	t.ch = dr_cm_create_event_channel();
	if (t.nodes == NULL || t.ch == NULL || fcntl(t.ch->fd, F_SETFL, O_NONBLOCK) != 0) {
		perror("cmatose: set-up");
		free(t.nodes);
		return 1;
	}
	printf("cmatose: starting %s\n", o->dst != 0 ? "client" : "server");
	if (o->dst == 0) {
		listen_id = listen_on(&t);
		if (listen_id == NULL)
			ret = -EINVAL;
	}
	for (unsigned int r = 0; r < o->rounds && ret == 0; r++) {
		t.conn_index = 0;
		t.connects_left = o->connections;
		t.disconnects_left = 0;
		ret = o->dst != 0 ? client_round(&t) : server_round(&t);
		for (unsigned int i = 0; i < o->connections; i++)
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
