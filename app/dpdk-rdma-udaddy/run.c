/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* udaddy's test on the dr_cm_ API (udaddy.h): one thread, the CM channel and the nodes' CQs. */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dr_cm.h"
#include "udaddy.h"

struct node {
	struct dr_cm_id *id;
	struct dr_cq *cq;
	struct dr_mr *mr;
	uint8_t *mem;              /* a GRH, then the message */
	struct dr_ah *ah;
	uint32_t remote_qpn;
	uint32_t remote_qkey;
	bool connected;
	unsigned int seq;          /* messages checked */
};

struct test {
	const struct udaddy_opts *o;
	struct dr_context *ctx;
	struct dr_cm_event_channel *ch;
	struct node nodes[UDADDY_MAX_CONN];
	unsigned int conn_index;
	unsigned int connects_left;
	struct dr_app_wait wait;
	int bad;                   /* messages that failed -V */
};

/* udaddy's init_node(): a CQ, a UD QP through the CM, the message buffer. */
static int
init_node(struct test *t, struct node *n)
{
	struct dr_qp_init_attr ia;
	struct dr_port_attr pa;
	int cqe = t->o->cm.count != 0 ? (int)t->o->cm.count * 2 : 2, ret;

	if (dr_query_port(n->id->verbs, n->id->port_num, &pa) == 0 && t->o->cm.count != 0 &&
	    t->o->cm.size > (1u << (pa.active_mtu + 7))) {
		printf("udaddy: message_size %u is larger than active mtu %u\n", t->o->cm.size, 1u << (pa.active_mtu + 7));
		return -EINVAL;
	}
	n->cq = dr_create_cq(n->id->verbs, cqe, n, NULL, 0);
	if (n->cq == NULL) {
		printf("udaddy: unable to create CQ\n");
		return -ENOMEM;
	}
	memset(&ia, 0, sizeof(ia));
	ia.cap.max_send_wr = ia.cap.max_recv_wr = t->o->cm.count != 0 ? t->o->cm.count : 1;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.qp_context = n;
	ia.qp_type = DR_QPT_UD;
	ia.send_cq = ia.recv_cq = n->cq;
	ret = dr_cm_create_qp(n->id, NULL, &ia);
	if (ret != 0) {
		printf("udaddy: unable to create QP: %s\n", strerror(-ret));
		return ret;
	}
	if (t->o->cm.count == 0)
		return 0;
	n->mem = calloc(1, DR_GRH_LEN + t->o->cm.size);
	if (n->mem == NULL)
		return -ENOMEM;
	n->mr = dr_reg_mr(n->id->pd, n->mem, DR_GRH_LEN + t->o->cm.size, DR_ACCESS_LOCAL_WRITE);
	if (n->mr == NULL) {
		printf("udaddy: failed to reg MR\n");
		return -errno;
	}
	return 0;
}

static int
post_recvs(struct test *t, struct node *n)
{
	struct dr_sge sge = { (uintptr_t)n->mem, DR_GRH_LEN + t->o->cm.size, 0 };
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

static uint8_t
pattern(unsigned int b)
{
	return (uint8_t)(b * 7 + 0x5A);
}

/* udaddy's post_sends(): SEND with immediate (our QPN) to the peer's QPN and Q_Key. */
static int
post_sends(struct test *t, struct node *n, unsigned int flags)
{
	struct dr_sge sge = { (uintptr_t)n->mem + DR_GRH_LEN, t->o->cm.size, 0 };
	struct dr_send_wr wr, *bad;

	if (!n->connected || t->o->cm.count == 0)
		return 0;
	sge.lkey = n->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = DR_WR_SEND_WITH_IMM;
	wr.send_flags = flags;
	wr.imm_data = htonl(n->id->qp->qp_num);
	wr.wr.ud.ah = n->ah;
	wr.wr.ud.remote_qpn = n->remote_qpn;
	wr.wr.ud.remote_qkey = n->remote_qkey;
	/* ours carries a pattern the peer may check (-V): every message the same, as the buffer is */
	for (unsigned int b = 0; b < t->o->cm.size; b++)
		n->mem[DR_GRH_LEN + b] = pattern(b);
	for (unsigned int i = 0; i < t->o->cm.count; i++) {
		int ret = dr_post_send(n->id->qp, &wr, &bad);

		if (ret != 0) {
			printf("failed to post sends: %d\n", ret);
			return -ret;
		}
	}
	return 0;
}

/* udaddy's create_reply_ah(): the way back from the first completion, the QPN from its immediate. */
static int
reply_ah(struct node *n, const struct dr_wc *wc)
{
	n->ah = dr_create_ah_from_wc(n->id->pd, wc, (const struct dr_grh *)n->mem, n->id->port_num);
	if (n->ah == NULL) {
		printf("udaddy: failure creating reply address: %s\n", strerror(errno));
		return -1;
	}
	n->remote_qpn = ntohl(wc->imm_data);
	n->remote_qkey = DR_UDP_QKEY;   /* our QP's (udaddy: ibv_query_qp(IBV_QP_QKEY)) */
	return 0;
}

static void
check(struct test *t, struct node *n, const struct dr_wc *wc)
{
	if (!t->o->cm.validate || wc->opcode != DR_WC_RECV)
		return;
	/* one buffer for every receive (udaddy's), every message the same: each arrival leaves the pattern */
	if (wc->status != DR_WC_SUCCESS || wc->byte_len != DR_GRH_LEN + t->o->cm.size ||
	    ntohl(wc->imm_data) != n->remote_qpn) {
		printf("udaddy: receive %u: status %d, %u bytes, immediate 0x%x\n", n->seq, wc->status, wc->byte_len,
		       ntohl(wc->imm_data));
		t->bad++;
	} else {
		for (unsigned int b = 0; b < t->o->cm.size; b++)
			if (n->mem[DR_GRH_LEN + b] != pattern(b)) {
				printf("udaddy: receive %u: byte %u is 0x%02x, not 0x%02x\n", n->seq, b,
				       n->mem[DR_GRH_LEN + b], pattern(b));
				t->bad++;
				break;
			}
	}
	n->seq++;
}

/* udaddy's poll_cqs(): -C completions on every connected node. */
static int
poll_cqs(struct test *t, bool make_ah)
{
	dr_app_wait_arm(&t->wait);
	for (unsigned int i = 0; i < t->o->cm.connections; i++) {
		struct node *n = &t->nodes[i];
		unsigned int done = 0;

		if (!n->connected)
			continue;
		while (done < t->o->cm.count) {
			struct dr_wc wc[8];
			int ret = dr_poll_cq(n->cq, 8, wc);

			if (ret < 0) {
				printf("udaddy: failed polling CQ: %d\n", ret);
				return ret;
			}
			if (ret > 0 && make_ah && n->ah == NULL && reply_ah(n, &wc[0]) != 0)
				return -EIO;
			for (int k = 0; k < ret; k++) {
				if (wc[k].status != DR_WC_SUCCESS) {
					printf("udaddy: completion status %d\n", wc[k].status);
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
	int ret = init_node(t, n);

	if (ret == 0)
		ret = post_recvs(t, n);
	if (ret == 0) {
		ret = dr_cm_connect(n->id, NULL);
		if (ret != 0)
			printf("udaddy: failure connecting: %s\n", strerror(-ret));
	}
	if (ret != 0)
		t->connects_left--;
	return ret;
}

static int
connect_handler(struct test *t, struct dr_cm_id *id)
{
	struct dr_cm_conn_param cp;
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
		memset(&cp, 0, sizeof(cp));
		cp.qp_num = id->qp->qp_num;
		ret = dr_cm_accept(id, &cp);
		if (ret != 0)
			printf("udaddy: failure accepting: %s\n", strerror(-ret));
	}
	if (ret == 0) {
		n->connected = true;
		t->connects_left--;
		return 0;
	}
	t->connects_left--;
refuse:
	printf("udaddy: failing connection request\n");
	(void)dr_cm_reject(id, NULL, 0);
	return ret;
}

static int
resolved_handler(struct test *t, struct node *n, const struct dr_cm_event *ev)
{
	struct dr_ah_attr a = ev->param.ud.ah_attr;

	n->remote_qpn = ev->param.ud.qp_num;
	n->remote_qkey = ev->param.ud.qkey;
	n->ah = dr_create_ah(n->id->pd, &a);
	t->connects_left--;
	if (n->ah == NULL) {
		printf("udaddy: failure creating address handle\n");
		return -1;
	}
	n->connected = true;
	return 0;
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
	return resolved_handler(arg, ev->id->context, ev);
}

static void
on_failed(void *arg)
{
	struct test *t = arg;

	t->connects_left--;
}

static const struct dr_app_cm_calls calls = {
	.prog = "udaddy", .route = on_route, .request = on_request, .established = on_established,
	.failed = on_failed,
};

static int
connect_events(struct test *t)
{
	return dr_app_cm_events(t->ch, &t->connects_left, &t->wait, "connection", &calls, t);
}

/* ---- the two sides ------------------------------------------------------------------- */

static int
run_server(struct test *t)
{
	struct dr_cm_id *listen_id;
	int ret;

	printf("udaddy: starting server\n");
	listen_id = dr_app_cm_listen(t->ch, DR_CM_PS_UDP, &t->o->cm.src, t->o->port, t, "udaddy");
	if (listen_id == NULL)
		return -EINVAL;
	ret = connect_events(t);
	if (ret == 0 && t->o->cm.count != 0) {
		printf("receiving data transfers\n");
		ret = poll_cqs(t, true);
		if (ret == 0) {
			printf("sending replies\n");
			for (unsigned int i = 0; i < t->o->cm.connections && ret == 0; i++)
				ret = post_sends(t, &t->nodes[i], DR_SEND_SIGNALED);
		}
		if (ret == 0)
			ret = poll_cqs(t, false);
		if (ret == 0)
			printf("data transfers complete\n");
	}
	(void)dr_cm_destroy_id(listen_id);
	return ret;
}

static int
run_client(struct test *t)
{
	/* -b, or none: the source that reaches the server (rdma_resolve_addr(3)) */
	const struct sockaddr *src = t->o->cm.src.ss_family != AF_UNSPEC ? (const struct sockaddr *)&t->o->cm.src : NULL;
	struct sockaddr_storage dst = dr_app_cm_with_port(&t->o->cm.dst, t->o->port);
	int ret;

	printf("udaddy: starting client\n");
	printf("udaddy: connecting\n");
	for (unsigned int i = 0; i < t->o->cm.connections; i++) {
		ret = dr_cm_resolve_addr(t->nodes[i].id, src, (struct sockaddr *)&dst, 2000);
		if (ret != 0) {
			printf("udaddy: failure getting addr: %s\n", strerror(-ret));
			return ret;
		}
	}
	ret = connect_events(t);
	if (ret == 0 && t->o->cm.count != 0) {
		printf("initiating data transfers\n");
		for (unsigned int i = 0; i < t->o->cm.connections && ret == 0; i++)
			ret = post_sends(t, &t->nodes[i], 0);
		if (ret == 0) {
			printf("receiving data transfers\n");
			ret = poll_cqs(t, false);
		}
		if (ret == 0)
			printf("data transfers complete\n");
	}
	return ret;
}

static void
destroy_node(struct node *n)
{
	if (n->id == NULL)
		return;
	if (n->ah != NULL)
		(void)dr_destroy_ah(n->ah);
	if (n->mr != NULL)
		(void)dr_dereg_mr(n->mr);
	dr_cm_destroy_qp(n->id);
	if (n->cq != NULL)
		(void)dr_destroy_cq(n->cq);
	free(n->mem);
	(void)dr_cm_destroy_id(n->id);
}

int
udaddy_run(struct dr_context *ctx, const void *opts)
{
	const struct udaddy_opts *o = opts;
	static struct test t;
	int ret = 0;

	memset(&t, 0, sizeof(t));
	t.o = o;
	t.wait = (struct dr_app_wait){ .timeout_s = o->cm.timeout_s, .stop = &udaddy_stop, .prog = "udaddy" };
	t.ctx = ctx;
	t.connects_left = o->cm.connections;
	t.ch = dr_cm_create_event_channel();
	if (t.ch == NULL || fcntl(t.ch->fd, F_SETFL, O_NONBLOCK) != 0) {
		perror("failed to create event channel");
		return 1;
	}
	if (o->cm.dst.ss_family != AF_UNSPEC)
		for (unsigned int i = 0; i < o->cm.connections && ret == 0; i++) {
			ret = dr_cm_create_id(t.ch, &t.nodes[i].id, &t.nodes[i], DR_CM_PS_UDP);
			if (ret != 0)
				printf("udaddy: create id failed: %s\n", strerror(-ret));
		}
	if (ret == 0)
		ret = o->cm.dst.ss_family != AF_UNSPEC ? run_client(&t) : run_server(&t);
	if (ret == 0 && t.bad != 0)
		ret = -EIO;
	printf("test complete\n");
	for (unsigned int i = 0; i < o->cm.connections; i++)
		destroy_node(&t.nodes[i]);
	(void)dr_cm_destroy_event_channel(t.ch);
	printf("return status %d\n", ret);
	return ret;
}
