/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The rdma_cm-shaped API (include/dr_cm.h) between two contexts over the
 * test wire (test_rc.h), in every engine mode: a listener, an active id
 * resolving its address and route, a connection with private data both
 * ways, a SEND and an RDMA WRITE over the QPs the CM readied, disconnect
 * from the active side, a REJ for a port nobody listens on, a consumer's
 * REJ with its private data, a lost RTU (the first request stands in for
 * it), the same connection over IPv6 GIDs (a wildcard source resolved to
 * the GID on the destination's prefix), an IPv4 request refused by a
 * listener bound to an IPv6 address, an id migrated between channels
 * (rdma_migrate_id(3)), a listener on port 0 (an ephemeral port), and the
 * calls' errors.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <rte_cycles.h>

#include "test_cm.h"

#define PORT 7174

static struct dr_cm_event_channel *chs, *chc;

static int
make_qp(struct dr_cm_id *id, struct rc_side *s, struct dr_cq **cq)
{
	struct dr_qp_init_attr ia = { .qp_type = DR_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 } };

	*cq = dr_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (*cq == NULL)
		return -1;
	ia.send_cq = ia.recv_cq = *cq;
	return dr_cm_create_qp(id, s->pd, &ia);
}

/*
 * An active id on A resolved to B:@port, with a QP: over IPv4 from A's
 * address, over IPv6 from the wildcard (the source GID found for it).
 */
static struct dr_cm_id *
client_of(struct rc_env *e, int family, uint16_t port, struct dr_cq **cq)
{
	struct sockaddr_in src = cm_addr_of(&e->s[0], 0), dst = cm_addr_of(&e->s[1], port);
	struct sockaddr_in6 dst6 = cm_addr6_of(&e->s[1], port);
	const union dr_gid *sgid = family == AF_INET ? &e->s[0].gid : &e->s[0].gid6;
	const union dr_gid *dgid = family == AF_INET ? &e->s[1].gid : &e->s[1].gid6;
	struct dr_cm_id *id = NULL;

	RC_CHECK_EQ(dr_cm_create_id(chc, &id, NULL, DR_CM_PS_TCP), 0);
	if (family == AF_INET)
		RC_CHECK_EQ(dr_cm_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), 0);
	else
		RC_CHECK_EQ(dr_cm_resolve_addr(id, NULL, (struct sockaddr *)&dst6, 2000), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ADDR_RESOLVED));
	RC_CHECK(id->verbs == e->s[0].ctx);
	RC_CHECK_EQ(id->route.src_addr.ss_family, family);
	RC_CHECK_EQ(id->route.sgid_index, family == AF_INET ? 1 : 2);
	RC_CHECK(memcmp(id->route.sgid.raw, sgid->raw, 16) == 0);
	RC_CHECK_EQ(dr_cm_resolve_route(id, 2000), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ROUTE_RESOLVED));
	RC_CHECK(memcmp(id->route.dgid.raw, dgid->raw, 16) == 0);
	RC_CHECK_EQ(make_qp(id, &e->s[0], cq), 0);
	return id;
}

static struct dr_cm_id *
client(struct rc_env *e, uint16_t port, struct dr_cq **cq)
{
	return client_of(e, AF_INET, port, cq);
}

/* @id's addresses are @family's, from @src to @dst, its QP's path from @sgid to @dgid. */
static void
check_route(struct dr_cm_id *id, int family, const union dr_gid *sgid, const union dr_gid *dgid)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&id->route.src_addr;
	const struct sockaddr_in6 *d6 = (const struct sockaddr_in6 *)&id->route.dst_addr;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&id->route.src_addr;
	const struct sockaddr_in *d4 = (const struct sockaddr_in *)&id->route.dst_addr;
	struct dr_qp_init_attr ia;
	struct dr_qp_attr a;

	RC_CHECK_EQ(id->route.src_addr.ss_family, family);
	RC_CHECK_EQ(id->route.dst_addr.ss_family, family);
	if (family == AF_INET6)
		RC_CHECK(memcmp(s6->sin6_addr.s6_addr, sgid->raw, 16) == 0 &&
			 memcmp(d6->sin6_addr.s6_addr, dgid->raw, 16) == 0);
	else
		RC_CHECK(memcmp(&s4->sin_addr.s_addr, &sgid->raw[12], 4) == 0 &&
			 memcmp(&d4->sin_addr.s_addr, &dgid->raw[12], 4) == 0);
	RC_CHECK(memcmp(id->route.sgid.raw, sgid->raw, 16) == 0);
	RC_CHECK(memcmp(id->route.dgid.raw, dgid->raw, 16) == 0);
	RC_CHECK_EQ(dr_query_qp(id->qp, &a, DR_QP_AV, &ia), 0);
	RC_CHECK_EQ(a.ah_attr.grh.sgid_index, family == AF_INET ? 1 : 2);
	RC_CHECK(memcmp(a.ah_attr.grh.dgid.raw, dgid->raw, 16) == 0);
}

static void
teardown(struct dr_cm_id *id, struct dr_cq *cq)
{
	dr_cm_destroy_qp(id);
	RC_CHECK_EQ(dr_cm_destroy_id(id), 0);
	RC_CHECK_EQ(dr_destroy_cq(cq), 0);
}

static void
test_connect(struct rc_env *e, struct dr_cm_id *listener, int family, uint16_t port)
{
	static const char hello[] = "hello from A", world[] = "world from B";
	struct dr_cm_conn_param cp = { .private_data = hello, .private_data_len = sizeof(hello),
				       .responder_resources = 4, .initiator_depth = 4, .retry_count = 7,
				       .rnr_retry_count = 7 };
	struct dr_cm_id *cid, *sid;
	struct dr_cq *ccq, *scq;
	struct dr_cm_event *ev;
	struct rc_buf cb, sb;
	struct dr_sge sge;
	struct rc_wcs w;

	cid = client_of(e, family, port, &ccq);
	/* rdma_set_option(3)'s ACK timeout over IPv6 (the REQ carries it); Linux's 19 over IPv4 */
	if (family == AF_INET6) {
		uint8_t t = 14, bad = 32;

		RC_CHECK_EQ(dr_cm_set_option(cid, DR_CM_OPTION_ID, DR_CM_OPTION_ID_ACK_TIMEOUT, &bad, 1), -EINVAL);
		RC_CHECK_EQ(dr_cm_set_option(cid, DR_CM_OPTION_ID, DR_CM_OPTION_ID_ACK_TIMEOUT, &t, 4), -EINVAL);
		RC_CHECK_EQ(dr_cm_set_option(cid, DR_CM_OPTION_ID, 0, &t, 1), -ENOSYS);
		RC_CHECK_EQ(dr_cm_set_option(cid, 1, DR_CM_OPTION_ID_ACK_TIMEOUT, &t, 1), -ENOSYS);
		RC_CHECK_EQ(dr_cm_set_option(NULL, DR_CM_OPTION_ID, DR_CM_OPTION_ID_ACK_TIMEOUT, &t, 1), -EINVAL);
		RC_CHECK_EQ(dr_cm_set_option(cid, DR_CM_OPTION_ID, DR_CM_OPTION_ID_ACK_TIMEOUT, NULL, 1), -EINVAL);
		RC_CHECK_EQ(dr_cm_set_option(cid, DR_CM_OPTION_ID, DR_CM_OPTION_ID_ACK_TIMEOUT, &t, 1), 0);
	}
	RC_CHECK_EQ(dr_cm_connect(cid, &cp), 0);
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev == NULL)
		return;
	RC_CHECK(ev->listen_id == listener);
	RC_CHECK(ev->id != NULL && ev->id != listener && ev->id->verbs == e->s[1].ctx);
	RC_CHECK(ev->param.conn.private_data_len >= sizeof(hello) &&
		 memcmp(ev->param.conn.private_data, hello, sizeof(hello)) == 0);
	RC_CHECK_EQ(ev->param.conn.responder_resources, 4);
	RC_CHECK_EQ(ev->param.conn.qp_num, cid->qp->qp_num);
	sid = ev->id;
	RC_CHECK_EQ(dr_cm_destroy_id(listener), -EBUSY);     /* its event is not acknowledged */
	cm_ack(ev);
	RC_CHECK_EQ(make_qp(sid, &e->s[1], &scq), 0);
	cp.private_data = world;
	cp.private_data_len = sizeof(world);
	if (family == AF_INET6) {
		uint8_t t = 12;          /* the passive end's own, in place of the REQ's */

		RC_CHECK_EQ(dr_cm_set_option(sid, DR_CM_OPTION_ID, DR_CM_OPTION_ID_ACK_TIMEOUT, &t, 1), 0);
	}
	RC_CHECK_EQ(dr_cm_accept(sid, &cp), 0);
	RC_CHECK_EQ(dr_cm_accept(sid, &cp), -EINVAL);        /* once */
	ev = cm_wait_event(e, chc, DR_CM_EVENT_ESTABLISHED);
	if (ev != NULL)
		RC_CHECK(ev->param.conn.private_data_len >= sizeof(world) &&
			 memcmp(ev->param.conn.private_data, world, sizeof(world)) == 0);
	cm_ack(ev);
	cm_ack(cm_wait_event(e, chs, DR_CM_EVENT_ESTABLISHED));
	RC_CHECK_EQ(rc_qp_state(cid->qp), DR_QPS_RTS);
	RC_CHECK_EQ(rc_qp_state(sid->qp), DR_QPS_RTS);
	{
		/* the local ACK timeouts: each end's option, else 19 (the passive end takes the REQ's) */
		struct dr_qp_init_attr ia;
		struct dr_qp_attr qa;

		RC_CHECK_EQ(dr_query_qp(cid->qp, &qa, DR_QP_TIMEOUT, &ia), 0);
		RC_CHECK_EQ(qa.timeout, family == AF_INET6 ? 14 : 19);
		RC_CHECK_EQ(dr_query_qp(sid->qp, &qa, DR_QP_TIMEOUT, &ia), 0);
		RC_CHECK_EQ(qa.timeout, family == AF_INET6 ? 12 : 19);
	}
	/* both ends' addresses from the request's IP header (Annex A11.6.1), the paths between their GIDs */
	check_route(cid, family, family == AF_INET ? &e->s[0].gid : &e->s[0].gid6,
		    family == AF_INET ? &e->s[1].gid : &e->s[1].gid6);
	check_route(sid, family, family == AF_INET ? &e->s[1].gid : &e->s[1].gid6,
		    family == AF_INET ? &e->s[0].gid : &e->s[0].gid6);
	RC_CHECK_EQ(ntohs(dr_cm_get_src_port(sid)), port);
	RC_CHECK_EQ(ntohs(dr_cm_get_dst_port(cid)), port);
	RC_CHECK(dr_cm_get_src_port(cid) != 0);         /* the REQ's header gave it one (A11.6.1) */
	RC_CHECK_EQ(dr_cm_get_dst_port(sid), dr_cm_get_src_port(cid));
	RC_CHECK(dr_cm_get_local_addr(sid) == (struct sockaddr *)&sid->route.src_addr &&
		 dr_cm_get_peer_addr(sid) == (struct sockaddr *)&sid->route.dst_addr);

	/* the QPs the CM readied carry a SEND and an RDMA WRITE, every byte right */
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &cb, 8192, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[1], &sb, 8192, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE), 0);
	rc_fill(cb.p, 8192, 42);
	sge = (struct dr_sge){ (uintptr_t)sb.p, 4096, sb.mr->lkey };
	{
		struct dr_recv_wr rw = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

		RC_CHECK_EQ(dr_post_recv(sid->qp, &rw, &bad), 0);
	}
	{
		struct dr_sge s1 = { (uintptr_t)cb.p, 3000, cb.mr->lkey }, s2 = { (uintptr_t)cb.p + 4096, 4096,
										    cb.mr->lkey };
		struct dr_send_wr sw = { .wr_id = 2, .sg_list = &s1, .num_sge = 1, .opcode = DR_WR_SEND,
					 .send_flags = DR_SEND_SIGNALED }, ww = sw, *bad;

		ww.wr_id = 3;
		ww.sg_list = &s2;
		ww.opcode = DR_WR_RDMA_WRITE;
		ww.wr.rdma.remote_addr = (uintptr_t)sb.p + 4096;
		ww.wr.rdma.rkey = sb.mr->rkey;
		RC_CHECK_EQ(dr_post_send(cid->qp, &sw, &bad), 0);
		RC_CHECK_EQ(dr_post_send(cid->qp, &ww, &bad), 0);
	}
	w.n = 0;
	RC_CHECK(rc_wait_wcs(e, ccq, &w, 2, 3000000));
	RC_CHECK(w.n == 2 && w.wc[0].status == DR_WC_SUCCESS && w.wc[1].status == DR_WC_SUCCESS);
	w.n = 0;
	RC_CHECK(rc_wait_wcs(e, scq, &w, 1, 3000000));
	RC_CHECK(w.n == 1 && w.wc[0].status == DR_WC_SUCCESS && w.wc[0].byte_len == 3000);
	RC_CHECK(memcmp(sb.p, cb.p, 3000) == 0 && memcmp(sb.p + 4096, cb.p + 4096, 4096) == 0);

	/* released from A: B hears DISCONNECTED, answers; A hears it too */
	RC_CHECK_EQ(dr_cm_disconnect(cid), 0);
	cm_ack(cm_wait_event(e, chs, DR_CM_EVENT_DISCONNECTED));
	RC_CHECK_EQ(rc_qp_state(sid->qp), DR_QPS_ERR);
	RC_CHECK_EQ(dr_cm_disconnect(sid), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_DISCONNECTED));
	RC_CHECK_EQ(dr_cm_destroy_id(cid), -EBUSY);          /* its QP first */
	rc_buf_free(&cb);
	rc_buf_free(&sb);
	teardown(cid, ccq);
	teardown(sid, scq);
}

static void
test_rejects(struct rc_env *e)
{
	static const char why[] = "not now";
	struct dr_cm_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7 };
	struct dr_cm_event *ev;
	struct dr_cm_id *cid;
	struct dr_cq *ccq;

	/* nobody listens: the peer's CM says "invalid service ID" (IBA table 109, 8) */
	cid = client(e, PORT + 1, &ccq);
	RC_CHECK_EQ(dr_cm_connect(cid, &cp), 0);
	ev = cm_wait_event(e, chc, DR_CM_EVENT_REJECTED);
	if (ev != NULL)
		RC_CHECK_EQ(ev->status, 8);
	cm_ack(ev);
	teardown(cid, ccq);

	/* the listener's consumer says no, with private data */
	cid = client(e, PORT, &ccq);
	RC_CHECK_EQ(dr_cm_connect(cid, &cp), 0);
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev != NULL) {
		struct dr_cm_id *sid = ev->id;

		cm_ack(ev);
		RC_CHECK_EQ(dr_cm_reject(sid, why, sizeof(why)), 0);
		RC_CHECK_EQ(dr_cm_destroy_id(sid), 0);
	}
	ev = cm_wait_event(e, chc, DR_CM_EVENT_REJECTED);
	if (ev != NULL) {
		RC_CHECK_EQ(ev->status, 28);                    /* consumer reject */
		RC_CHECK(ev->param.conn.private_data_len >= sizeof(why) &&
			 memcmp(ev->param.conn.private_data, why, sizeof(why)) == 0);
	}
	cm_ack(ev);
	RC_CHECK_EQ(rc_qp_state(cid->qp), DR_QPS_ERR);
	teardown(cid, ccq);
}

/*
 * IBA 12.9.6: the RTU lost on the wire, the passive side takes the
 * connection as established at the first request its QP receives (the
 * COMM_EST event), not after the REP's timeout (4.3 s) and resend.
 */
static void
test_lost_rtu(struct rc_env *e, struct dr_cm_id *listener)
{
	struct dr_cm_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
				       .rnr_retry_count = 7 };
	struct dr_cm_id *cid, *sid = NULL;
	struct dr_cm_event *ev;
	struct dr_cq *ccq, *scq;
	struct rc_buf cb, sb;
	struct rc_wcs w;
	uint64_t t0;

	(void)listener;
	cid = client(e, PORT, &ccq);
	rc_rule_add(e, RC_A2B, 0x64, 1, 1, 1, RC_DROP);          /* UD SEND_ONLY: the REQ passes, the RTU not */
	RC_CHECK_EQ(dr_cm_connect(cid, &cp), 0);
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev == NULL)
		return;
	sid = ev->id;
	cm_ack(ev);
	RC_CHECK_EQ(make_qp(sid, &e->s[1], &scq), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &cb, 64, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[1], &sb, 64, DR_ACCESS_LOCAL_WRITE), 0);
	{
		struct dr_sge sge = { (uintptr_t)sb.p, 64, sb.mr->lkey };
		struct dr_recv_wr rw = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

		RC_CHECK_EQ(dr_post_recv(sid->qp, &rw, &bad), 0);
	}
	RC_CHECK_EQ(dr_cm_accept(sid, &cp), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ESTABLISHED));
	rc_run(e, 20000, NULL, NULL);
	RC_CHECK_EQ(dr_cm_get_cm_event(chs, &ev), -EAGAIN);     /* no RTU: B still waits */
	{
		struct dr_sge sge = { (uintptr_t)cb.p, 64, cb.mr->lkey };
		struct dr_send_wr sw = { .wr_id = 2, .sg_list = &sge, .num_sge = 1, .opcode = DR_WR_SEND,
					 .send_flags = DR_SEND_SIGNALED }, *bad;

		RC_CHECK_EQ(dr_post_send(cid->qp, &sw, &bad), 0);
	}
	t0 = rte_rdtsc();
	w.n = 0;
	RC_CHECK(rc_wait_wcs(e, scq, &w, 1, 2000000));
	cm_ack(cm_wait_event(e, chs, DR_CM_EVENT_ESTABLISHED));
	RC_CHECK_MSG(rte_rdtsc() - t0 < 2 * rte_get_tsc_hz(), "ESTABLISHED came %.1f s after the data",
		     (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz());
	rc_rules_clear(e);
	RC_CHECK_EQ(dr_cm_notify(sid, DR_EVENT_COMM_EST), 0);     /* rdma_notify(3): nothing more to do */
	RC_CHECK_EQ(dr_cm_disconnect(cid), 0);
	cm_ack(cm_wait_event(e, chs, DR_CM_EVENT_DISCONNECTED));
	RC_CHECK_EQ(dr_cm_disconnect(sid), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_DISCONNECTED));
	rc_buf_free(&cb);
	rc_buf_free(&sb);
	teardown(cid, ccq);
	teardown(sid, scq);
}

/*
 * IPv6: a listener bound to B's IPv6 address takes a connection from A's
 * (wildcard source, resolved to A's GID on B's prefix: index 2), and
 * refuses an IPv4 request to its port with REJ 28 (rdma_cm's
 * cma_match_private_data() finds no listener, ib_cm rejects as the
 * consumer).
 */
static void
test_ipv6(struct rc_env *e)
{
	struct sockaddr_in6 b6 = cm_addr6_of(&e->s[1], PORT + 2);
	struct dr_cm_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7 };
	struct dr_cm_id *l6 = NULL, *cid;
	struct dr_cm_event *ev;
	struct dr_cq *ccq;

	RC_CHECK_EQ(dr_cm_create_id(chs, &l6, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_bind_addr(l6, (struct sockaddr *)&b6), 0);
	RC_CHECK(l6->verbs == e->s[1].ctx && l6->route.sgid_index == 2);
	RC_CHECK_EQ(dr_cm_listen(l6, 8), 0);
	test_connect(e, l6, AF_INET6, PORT + 2);

	cid = client(e, PORT + 2, &ccq);
	RC_CHECK_EQ(dr_cm_connect(cid, &cp), 0);
	ev = cm_wait_event(e, chc, DR_CM_EVENT_REJECTED);
	if (ev != NULL)
		RC_CHECK_EQ(ev->status, 28);
	cm_ack(ev);
	teardown(cid, ccq);
	RC_CHECK_EQ(dr_cm_destroy_id(l6), 0);
}

/* rdma_listen(3) on port 0: the CM picks a free port (0xC000 up), rdma_get_src_port() tells it, a REQ to it comes. */
static void
test_any_port(struct rc_env *e)
{
	struct sockaddr_in b = cm_addr_of(&e->s[1], 0);
	struct dr_cm_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7 };
	struct dr_cm_id *l = NULL, *cid;
	struct dr_cm_event *ev;
	struct dr_cq *ccq;
	uint16_t port;

	RC_CHECK_EQ(dr_cm_create_id(chs, &l, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_bind_addr(l, (struct sockaddr *)&b), 0);
	RC_CHECK_EQ(dr_cm_get_src_port(l), 0);
	RC_CHECK_EQ(dr_cm_listen(l, 1), 0);
	port = ntohs(dr_cm_get_src_port(l));
	RC_CHECK_MSG(port >= 0xC000, "port %u", port);
	cid = client(e, port, &ccq);
	RC_CHECK_EQ(dr_cm_connect(cid, &cp), 0);
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev != NULL) {
		struct dr_cm_id *sid = ev->id;

		RC_CHECK(ev->listen_id == l && ntohs(dr_cm_get_src_port(sid)) == port);
		cm_ack(ev);
		RC_CHECK_EQ(dr_cm_reject(sid, NULL, 0), 0);
		RC_CHECK_EQ(dr_cm_destroy_id(sid), 0);
	}
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_REJECTED));
	teardown(cid, ccq);
	RC_CHECK_EQ(dr_cm_destroy_id(l), 0);
}

/* rdma_migrate_id(3): a queued event moves with its id; a taken one not acknowledged holds it. */
static void
test_migrate(struct rc_env *e)
{
	struct sockaddr_in src = cm_addr_of(&e->s[0], 0), dst = cm_addr_of(&e->s[1], PORT);
	struct dr_cm_event *ev;
	struct dr_cm_id *id;

	RC_CHECK_EQ(dr_cm_create_id(chc, &id, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 1), 0);
	RC_CHECK_EQ(dr_cm_migrate_id(id, chs), 0);
	RC_CHECK(id->channel == chs);
	RC_CHECK_EQ(dr_cm_get_cm_event(chc, &ev), -EAGAIN);    /* it went with its id */
	ev = cm_wait_event(e, chs, DR_CM_EVENT_ADDR_RESOLVED);
	RC_CHECK(ev != NULL && ev->id == id);
	RC_CHECK_EQ(dr_cm_migrate_id(id, chc), -EBUSY);        /* taken, not acknowledged */
	cm_ack(ev);
	/* to no channel: synchronous, its calls wait for their events */
	RC_CHECK_EQ(dr_cm_migrate_id(id, NULL), 0);
	RC_CHECK(id->channel == NULL);
	RC_CHECK_EQ(dr_cm_resolve_route(id, 1), 0);
	RC_CHECK(id->event != NULL && id->event->event == DR_CM_EVENT_ROUTE_RESOLVED);
	RC_CHECK_EQ(dr_cm_migrate_id(id, chc), 0);            /* its last event acknowledged on the way */
	RC_CHECK(id->channel == chc && id->event == NULL);
	RC_CHECK_EQ(dr_cm_migrate_id(NULL, chc), -EINVAL);
	RC_CHECK_EQ(dr_cm_destroy_id(id), 0);
}

static void
test_errors(struct rc_env *e)
{
	struct sockaddr_in nowhere = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0xC0000263) };
	struct sockaddr_in6 nowhere6 = { .sin6_family = AF_INET6, .sin6_addr.s6_addr = { 0x20, 0x01, 0x0D, 0xB8, [15] = 1 } };
	struct sockaddr_in b4 = cm_addr_of(&e->s[1], PORT);
	struct sockaddr_in6 b6 = cm_addr6_of(&e->s[1], PORT);
	struct sockaddr unix_addr = { .sa_family = AF_UNIX };
	struct dr_cm_conn_param cp = { 0 };
	struct dr_cm_id *id;

	RC_CHECK_EQ(dr_cm_create_id(chc, &id, NULL, DR_CM_PS_IB), -EPROTONOSUPPORT);
	RC_CHECK_EQ(dr_cm_create_id(chc, NULL, NULL, DR_CM_PS_TCP), -EINVAL);
	/* no channel: a synchronous id (rdma_create_id(3)) */
	RC_CHECK_EQ(dr_cm_create_id(NULL, &id, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK(id->channel == NULL && id->event == NULL);
	RC_CHECK_EQ(dr_cm_destroy_id(id), 0);
	RC_CHECK_EQ(dr_cm_create_id(chc, &id, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_bind_addr(id, (struct sockaddr *)&nowhere), -EADDRNOTAVAIL);
	RC_CHECK_EQ(dr_cm_bind_addr(id, (struct sockaddr *)&nowhere6), -EADDRNOTAVAIL);
	RC_CHECK_EQ(dr_cm_bind_addr(id, &unix_addr), -EAFNOSUPPORT);
	RC_CHECK_EQ(dr_cm_resolve_addr(id, (struct sockaddr *)&b4, (struct sockaddr *)&b6, 1), -EINVAL);
	RC_CHECK_EQ(dr_cm_resolve_addr(id, NULL, &unix_addr, 1), -EAFNOSUPPORT);
	RC_CHECK(dr_cm_get_local_addr(NULL) == NULL && dr_cm_get_src_port(NULL) == 0);
	RC_CHECK_EQ(dr_cm_connect(id, &cp), -EINVAL);         /* no address, no QP */
	RC_CHECK_EQ(dr_cm_listen(id, 1), -EINVAL);            /* not bound */
	RC_CHECK_EQ(dr_cm_get_request(id, &id), -EINVAL);     /* not a synchronous listener */
	RC_CHECK_EQ(dr_cm_resolve_route(id, 1), -EINVAL);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chc), -EBUSY);
	RC_CHECK_EQ(dr_cm_destroy_id(id), 0);
	(void)e;
}

static void
run(struct rc_env *e)
{
	struct sockaddr_in b = cm_addr_of(&e->s[1], PORT);
	struct dr_cm_id *listener = NULL;

	chs = dr_cm_create_event_channel();
	chc = dr_cm_create_event_channel();
	RC_CHECK(chs != NULL && chc != NULL);
	RC_CHECK_EQ(fcntl(chs->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(fcntl(chc->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(dr_cm_create_id(chs, &listener, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_bind_addr(listener, (struct sockaddr *)&b), 0);
	RC_CHECK(listener->verbs == e->s[1].ctx);
	RC_CHECK_EQ(dr_cm_listen(listener, 8), 0);
	test_connect(e, listener, AF_INET, PORT);
	test_rejects(e);
	test_lost_rtu(e, listener);
	test_ipv6(e);
	test_migrate(e);
	test_any_port(e);
	test_errors(e);
	RC_CHECK_EQ(dr_cm_destroy_id(listener), 0);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chs), 0);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chc), 0);
	RC_CHECK(strcmp(dr_cm_event_str(DR_CM_EVENT_TIMEWAIT_EXIT), "RDMA_CM_EVENT_TIMEWAIT_EXIT") == 0);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_cm_api", argv[0], 1500, run);
}
