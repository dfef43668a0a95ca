/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * UD ids of the rdma_cm-shaped API (include/dr_cm.h, RDMA_PS_UDP) between
 * two contexts over the test wire (test_rc.h), in every engine mode:
 * service ID resolution (IBA 12.11) as udaddy uses it: the SIDR_REQ with
 * private data, CONNECT_REQUEST, accept, ESTABLISHED with the service's
 * QPN, Q_Key and address, UD SENDs both ways through the rdma_verbs.h
 * helpers (include/dr_cm_verbs.h); a refusal, a port nobody serves, an id
 * destroyed before it answered, and the calls' errors.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "dr_cm_verbs.h"
#include "test_cm.h"

#define PORT 7174
#define MSG 100

static struct dr_cm_event_channel *chs, *chc;

/* rdma_create_qp(3) on a UD id: the CQs made for it, the QP ready to send. */
static int
make_qp(struct dr_cm_id *id, struct dr_pd *pd)
{
	struct dr_qp_init_attr ia = { .qp_type = DR_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 } };
	int ret = dr_cm_create_qp(id, pd, &ia);

	if (ret == 0) {
		RC_CHECK(id->send_cq != NULL && id->recv_cq != NULL && id->send_cq_channel != NULL);
		RC_CHECK(ia.send_cq == id->send_cq && ia.recv_cq == id->recv_cq);
		RC_CHECK_EQ(rc_qp_state(id->qp), DR_QPS_RTS);
	}
	return ret;
}

/* An id on A resolved to B:@port over @family's addresses, with a QP. */
static struct dr_cm_id *
client_of(struct rc_env *e, int family, uint16_t port)
{
	struct sockaddr_in src = cm_addr_of(&e->s[0], 0), dst = cm_addr_of(&e->s[1], port);
	struct sockaddr_in6 src6 = cm_addr6_of(&e->s[0], 0), dst6 = cm_addr6_of(&e->s[1], port);
	struct dr_cm_id *id = NULL;

	RC_CHECK_EQ(dr_cm_create_id(chc, &id, NULL, DR_CM_PS_UDP), 0);
	RC_CHECK_EQ(id->qp_type, DR_QPT_UD);
	if (family == AF_INET6)
		RC_CHECK_EQ(dr_cm_resolve_addr(id, (struct sockaddr *)&src6, (struct sockaddr *)&dst6, 2000), 0);
	else
		RC_CHECK_EQ(dr_cm_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ADDR_RESOLVED));
	RC_CHECK_EQ(dr_cm_resolve_route(id, 2000), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ROUTE_RESOLVED));
	RC_CHECK_EQ(make_qp(id, e->s[0].pd), 0);
	return id;
}

static struct dr_cm_id *
client(struct rc_env *e, uint16_t port)
{
	return client_of(e, AF_INET, port);
}

static void
teardown(struct dr_cm_id *id)
{
	dr_cm_destroy_qp(id);
	RC_CHECK(id->qp == NULL && id->send_cq == NULL && id->recv_cq == NULL);
	RC_CHECK_EQ(dr_cm_destroy_id(id), 0);
}

/* Wait for one completion on @id's receive (or send) CQ. */
static int
comp(struct rc_env *e, struct dr_cm_id *id, bool recv, struct dr_wc *wc)
{
	for (int i = 0; i < 30000; i++) {
		int n = dr_poll_cq(recv ? id->recv_cq : id->send_cq, 1, wc);

		if (n != 0)
			return n;
		rc_run(e, 100, NULL, NULL);
	}
	return 0;
}

static void
test_resolve(struct rc_env *e, struct dr_cm_id *listener, int family, uint16_t port)
{
	const union dr_gid *a_gid = family == AF_INET ? &e->s[0].gid : &e->s[0].gid6;
	const union dr_gid *b_gid = family == AF_INET ? &e->s[1].gid : &e->s[1].gid6;
	static const char hello[] = "udaddy from A", world[] = "service B";
	struct dr_cm_conn_param cp = { .private_data = hello, .private_data_len = sizeof(hello) };
	uint8_t cbuf[DR_GRH_LEN + MSG], sbuf[DR_GRH_LEN + MSG];
	struct dr_mr *cmr, *smr;
	struct dr_cm_id *cid, *sid;
	struct dr_cm_event *ev;
	struct dr_ah *ah = NULL, *back = NULL;
	uint32_t qpn = 0, qkey = 0;
	struct dr_wc wc;

	cid = client_of(e, family, port);
	cmr = dr_cm_reg_msgs(cid, cbuf, sizeof(cbuf));
	RC_CHECK(cmr != NULL);
	RC_CHECK_EQ(dr_cm_connect(cid, &cp), 0);
	RC_CHECK_EQ(dr_cm_connect(cid, &cp), -EINVAL);      /* one request at a time */
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev == NULL)
		return;
	RC_CHECK(ev->listen_id == listener && ev->id != listener);
	RC_CHECK_EQ(ev->param.ud.private_data_len, 216 - 36);    /* IBA table 119 less Annex A11's header */
	RC_CHECK(memcmp(ev->param.ud.private_data, hello, sizeof(hello)) == 0);
	sid = ev->id;
	RC_CHECK_EQ(sid->ps, DR_CM_PS_UDP);
	/* the requester's address from the SIDR_REQ's IP header (A11.6.1), of its family */
	RC_CHECK_EQ(sid->route.dst_addr.ss_family, family);
	if (family == AF_INET)
		RC_CHECK(((struct sockaddr_in *)&sid->route.dst_addr)->sin_addr.s_addr ==
			 cm_addr_of(&e->s[0], 0).sin_addr.s_addr);
	else
		RC_CHECK(memcmp(((struct sockaddr_in6 *)&sid->route.dst_addr)->sin6_addr.s6_addr, a_gid->raw, 16) == 0);
	RC_CHECK(memcmp(sid->route.sgid.raw, b_gid->raw, 16) == 0);
	cm_ack(ev);
	RC_CHECK_EQ(make_qp(sid, e->s[1].pd), 0);
	smr = dr_cm_reg_msgs(sid, sbuf, sizeof(sbuf));
	RC_CHECK(smr != NULL);
	for (int i = 0; i < 4; i++)
		RC_CHECK_EQ(dr_cm_post_recv(sid, (void *)(uintptr_t)(i + 1), sbuf, sizeof(sbuf), smr), 0);
	cp.private_data = world;
	cp.private_data_len = sizeof(world);
	RC_CHECK_EQ(dr_cm_accept(sid, &cp), 0);
	RC_CHECK_EQ(dr_cm_accept(sid, &cp), -EINVAL);        /* answered once */
	ev = cm_wait_event(e, chc, DR_CM_EVENT_ESTABLISHED);
	if (ev != NULL) {
		RC_CHECK_EQ(ev->param.ud.qp_num, sid->qp->qp_num);
		RC_CHECK_EQ(ev->param.ud.qkey, DR_UDP_QKEY);
		RC_CHECK(memcmp(ev->param.ud.ah_attr.grh.dgid.raw, b_gid->raw, 16) == 0);
		RC_CHECK_EQ(ev->param.ud.ah_attr.grh.sgid_index, family == AF_INET ? 1 : 2);
		RC_CHECK(ev->param.ud.private_data_len == 136 &&
			 memcmp(ev->param.ud.private_data, world, sizeof(world)) == 0);
		qpn = ev->param.ud.qp_num;
		qkey = ev->param.ud.qkey;
		ah = dr_create_ah(cid->pd, &ev->param.ud.ah_attr);
		RC_CHECK(ah != NULL);
	}
	cm_ack(ev);
	if (ah == NULL)
		return;

	/* udaddy's exchange: A sends, B answers through an AH made from the completion */
	RC_CHECK_EQ(dr_cm_post_recv(cid, (void *)7, cbuf, sizeof(cbuf), cmr), 0);
	memset(cbuf, 'a', sizeof(cbuf));
	RC_CHECK_EQ(qkey, DR_UDP_QKEY);
	RC_CHECK_EQ(dr_cm_post_ud_send(cid, (void *)5, cbuf + DR_GRH_LEN, MSG, cmr, DR_SEND_SIGNALED, ah, qpn), 0);
	RC_CHECK_EQ(comp(e, sid, true, &wc), 1);
	RC_CHECK(wc.status == DR_WC_SUCCESS && wc.byte_len == DR_GRH_LEN + MSG && wc.src_qp == cid->qp->qp_num);
	RC_CHECK(sbuf[DR_GRH_LEN] == 'a' && sbuf[DR_GRH_LEN + MSG - 1] == 'a');
	back = dr_create_ah_from_wc(sid->pd, &wc, (struct dr_grh *)sbuf, 1);
	RC_CHECK(back != NULL);
	RC_CHECK_EQ(dr_cm_get_send_comp(cid, &wc), 1);       /* there already: no wait */
	RC_CHECK(wc.wr_id == 5 && wc.status == DR_WC_SUCCESS);
	if (back == NULL)
		return;
	memset(sbuf + DR_GRH_LEN, 'b', MSG);
	RC_CHECK_EQ(dr_cm_post_ud_send(sid, (void *)6, sbuf + DR_GRH_LEN, MSG, smr, DR_SEND_SIGNALED, back,
				       cid->qp->qp_num), 0);
	RC_CHECK_EQ(comp(e, cid, true, &wc), 1);
	RC_CHECK(wc.status == DR_WC_SUCCESS && wc.wr_id == 7 && wc.byte_len == DR_GRH_LEN + MSG);
	RC_CHECK(cbuf[DR_GRH_LEN] == 'b' && cbuf[DR_GRH_LEN + MSG - 1] == 'b');
	RC_CHECK_EQ(dr_cm_disconnect(cid), -EINVAL);         /* rdma_disconnect(3): connected QPs only */
	RC_CHECK_EQ(dr_destroy_ah(back), 0);
	RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	RC_CHECK_EQ(dr_cm_dereg_mr(cmr), 0);
	RC_CHECK_EQ(dr_cm_dereg_mr(smr), 0);
	teardown(cid);
	teardown(sid);
}

/*
 * Refusals (rdma_cm's cma_sidr_rep_handler(): UNREACHABLE with the SIDR_REP
 * status): the consumer's reject ("rejected", 2), a port nobody serves
 * ("service ID not supported", 1), a CONNECT_REQUEST's id destroyed
 * unanswered (ib_cm: "rejected" at once), and an active id destroyed with
 * its request out (no event after).
 */
static void
test_refusals(struct rc_env *e)
{
	struct dr_cm_event *ev;
	struct dr_cm_id *cid;

	cid = client(e, PORT);
	RC_CHECK_EQ(dr_cm_connect(cid, NULL), 0);
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev != NULL) {
		struct dr_cm_id *sid = ev->id;

		cm_ack(ev);
		RC_CHECK_EQ(dr_cm_reject(sid, "no", 3), 0);
		RC_CHECK_EQ(dr_cm_reject(sid, "no", 3), -EINVAL);
		RC_CHECK_EQ(dr_cm_destroy_id(sid), 0);
	}
	ev = cm_wait_event(e, chc, DR_CM_EVENT_UNREACHABLE);
	if (ev != NULL)
		RC_CHECK_EQ(ev->status, 2);
	cm_ack(ev);

	RC_CHECK_EQ(dr_cm_connect(cid, NULL), 0);           /* again: this time destroyed unanswered */
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev != NULL) {
		struct dr_cm_id *sid = ev->id;

		cm_ack(ev);
		RC_CHECK_EQ(dr_cm_destroy_id(sid), 0);
	}
	ev = cm_wait_event(e, chc, DR_CM_EVENT_UNREACHABLE);
	if (ev != NULL)
		RC_CHECK_EQ(ev->status, 2);
	cm_ack(ev);
	teardown(cid);

	cid = client(e, PORT + 1);
	RC_CHECK_EQ(dr_cm_connect(cid, NULL), 0);
	ev = cm_wait_event(e, chc, DR_CM_EVENT_UNREACHABLE);
	if (ev != NULL)
		RC_CHECK_EQ(ev->status, 1);
	cm_ack(ev);
	teardown(cid);

	/* destroyed while asking: the request is forgotten, the answer finds no one */
	cid = client(e, PORT);
	RC_CHECK_EQ(dr_cm_connect(cid, NULL), 0);
	dr_cm_destroy_qp(cid);
	RC_CHECK_EQ(dr_cm_destroy_id(cid), 0);
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev != NULL) {
		struct dr_cm_id *sid = ev->id;

		cm_ack(ev);
		RC_CHECK_EQ(make_qp(sid, e->s[1].pd), 0);
		RC_CHECK_EQ(dr_cm_accept(sid, NULL), 0);
		rc_run(e, 20000, NULL, NULL);
		teardown(sid);
	}
	RC_CHECK_EQ(dr_cm_get_cm_event(chc, &ev), -EAGAIN);
}

static void
test_errors(struct rc_env *e)
{
	struct dr_qp_init_attr rc = { .qp_type = DR_QPT_RC, .cap = { .max_send_wr = 1, .max_recv_wr = 1,
								      .max_send_sge = 1, .max_recv_sge = 1 } };
	char big[200] = { 0 };
	struct dr_cm_conn_param cp = { .private_data = big, .private_data_len = sizeof(big) };
	struct dr_cm_id *id = client(e, PORT);

	RC_CHECK_EQ(dr_cm_connect(id, &cp), -EINVAL);       /* 180 bytes at most after the IP header */
	dr_cm_destroy_qp(id);
	RC_CHECK_EQ(dr_cm_create_qp(id, NULL, &rc), -EINVAL);   /* a UD id's QP is UD */
	RC_CHECK_EQ(dr_cm_post_send(id, NULL, big, 1, NULL, 0), -EINVAL);   /* no QP */
	RC_CHECK_EQ(dr_cm_get_send_comp(id, NULL), -EINVAL);
	RC_CHECK(dr_cm_reg_msgs(NULL, big, 1) == NULL && errno == EINVAL);
	RC_CHECK_EQ(dr_cm_accept(id, NULL), -EINVAL);       /* nothing to answer */
	RC_CHECK_EQ(dr_cm_destroy_id(id), 0);
}

static void
run(struct rc_env *e)
{
	struct sockaddr_in b = cm_addr_of(&e->s[1], PORT);
	struct sockaddr_in6 b6 = cm_addr6_of(&e->s[1], PORT + 2);
	struct dr_cm_id *listener = NULL, *l6 = NULL;

	chs = dr_cm_create_event_channel();
	chc = dr_cm_create_event_channel();
	RC_CHECK(chs != NULL && chc != NULL);
	RC_CHECK_EQ(fcntl(chs->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(fcntl(chc->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(dr_cm_create_id(chs, &listener, NULL, DR_CM_PS_UDP), 0);
	RC_CHECK_EQ(dr_cm_bind_addr(listener, (struct sockaddr *)&b), 0);
	RC_CHECK_EQ(dr_cm_listen(listener, 8), 0);
	test_resolve(e, listener, AF_INET, PORT);
	/* the same over IPv6 GIDs: a listener on B's IPv6 address */
	RC_CHECK_EQ(dr_cm_create_id(chs, &l6, NULL, DR_CM_PS_UDP), 0);
	RC_CHECK_EQ(dr_cm_bind_addr(l6, (struct sockaddr *)&b6), 0);
	RC_CHECK_EQ(dr_cm_listen(l6, 8), 0);
	test_resolve(e, l6, AF_INET6, PORT + 2);
	RC_CHECK_EQ(dr_cm_destroy_id(l6), 0);
	test_refusals(e);
	test_errors(e);
	RC_CHECK_EQ(dr_cm_destroy_id(listener), 0);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chs), 0);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chc), 0);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_cm_api_ud", argv[0], 1500, run);
}
