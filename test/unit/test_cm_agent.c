/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The CM agent (lib/cm/dr_cm_agent.c): two agents back to back on a
 * virtual clock, joined by a network the test can make lose, duplicate and
 * cut (seeded), each with a small owner standing in for the rdma_cm layer:
 * listeners accept (or refuse), the active side sends its RTU on the REP,
 * consumers disconnect and release. Routing, duplicates, unmatched
 * messages, stale connections, SIDR, timeouts, and slots all given back.
 */

#include <errno.h>

#include "dr_cm_agent.h"
#include "dr_test.h"

#define NETQ 4096

struct node;

struct pkt {
	struct node *to;
	struct dr_cm_peer from;
	uint8_t mad[DR_MAD_SIZE];
};

static struct pkt net[NETQ];
static unsigned int net_n;
static uint64_t now = 1;
static uint64_t rng = 1;
static unsigned int loss_pct, dup_pct;
static bool cut;                      /* nothing gets through */
static unsigned int strangers;        /* MADs to neither node */

struct node {
	struct dr_cm_agent a;
	struct dr_cm_peer me;
	struct node *peer;
	bool refuse;                      /* the listener refuses REQs */
	uint16_t refuse_reason;
	unsigned int established, rej, timeouts, dreq, drep, tw_exit, mra;
	uint16_t last_rej_reason;
	struct dr_cm_conn *last_conn;     /* last connection made or accepted */
	struct dr_cm_conn *accepted[256]; /* every passive one */
	unsigned int nb_accepted;
	unsigned int sidr_reps, sidr_timeouts;
	uint32_t sidr_qpn;
	uint8_t sidr_status;
	bool sidr_defer;                  /* keep SIDR_REQs, answer later */
	unsigned int sidr_held;
	uint8_t sidr_req[8][DR_MAD_SIZE];
	struct dr_cm_peer sidr_from[8];
};

static struct node A, B;

static unsigned int
rnd(unsigned int n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)((rng >> 33) % n);
}

static void
enqueue(struct node *to, const struct dr_cm_peer *from, const uint8_t *mad)
{
	if (net_n < NETQ) {
		net[net_n].to = to;
		net[net_n].from = *from;
		memcpy(net[net_n].mad, mad, DR_MAD_SIZE);
		net_n++;
	}
}

static void
op_send(void *owner, const struct dr_cm_peer *to, const uint8_t *mad)
{
	struct node *n = owner;

	if (memcmp(to->gid, n->peer->me.gid, 16) != 0) {
		strangers++;
		return;
	}
	if (cut || rnd(100) < loss_pct)
		return;
	enqueue(n->peer, &n->me, mad);
	if (rnd(100) < dup_pct)
		enqueue(n->peer, &n->me, mad);
}

static const struct dr_cm_timing timing = {
	.peer_response_timeout = 12, .local_response_timeout = 12, .packet_lifetime = 10,
	.max_retries = 8, .mra_service_timeout = 14,
};

static void
op_req(void *owner, void *listener, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct node *n = owner;
	struct dr_cm_rep_param rp = { .local_qpn = 0x40, .starting_psn = 1, .rnr_retry_count = 7,
				      .local_ca_guid = n->a.ca_guid };
	struct dr_cm_conn *c;

	CHECK(listener == n);
	if (n->refuse) {
		if (n->refuse_reason != 0)
			dr_cm_agent_reject_req(&n->a, n->refuse_reason);
		return;
	}
	c = dr_cm_agent_accept_req(&n->a, from, mad, &timing, n, now);
	if (c == NULL)
		return;
	n->last_conn = c;
	if (n->nb_accepted < 256)
		n->accepted[n->nb_accepted++] = c;
	CHECK_EQ(dr_cm_conn_accept(c, &rp, now), 0);
}

static void
op_event(void *owner, struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad)
{
	struct node *n = owner;

	switch (ev) {
	case DR_CM_EV_REP_RCVD:
		CHECK_EQ(dr_cm_conn_send_rtu(c, NULL, 0, now), 0);
		n->established++;
		break;
	case DR_CM_EV_ESTABLISHED: n->established++; break;
	case DR_CM_EV_REJ_RCVD:
		n->rej++;
		n->last_rej_reason = (uint16_t)dr_mad_get(mad, DR_CM_REJ_REASON);
		break;
	case DR_CM_EV_REQ_TIMEOUT:
	case DR_CM_EV_REP_TIMEOUT:
	case DR_CM_EV_DREQ_TIMEOUT: n->timeouts++; break;
	case DR_CM_EV_MRA_RCVD: n->mra++; break;
	case DR_CM_EV_DREQ_RCVD:
		n->dreq++;
		CHECK_EQ(dr_cm_conn_disconnect(c, NULL, 0, now), 0);
		break;
	case DR_CM_EV_DREP_RCVD: n->drep++; break;
	case DR_CM_EV_TIMEWAIT_EXIT: n->tw_exit++; break;
	}
}

static void
op_sidr_req(void *owner, void *listener, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct node *n = owner;

	(void)listener;
	if (n->sidr_defer) {
		CHECK(n->sidr_held < 8);
		if (n->sidr_held < 8) {
			memcpy(n->sidr_req[n->sidr_held], mad, DR_MAD_SIZE);
			n->sidr_from[n->sidr_held++] = *from;
		}
		return;
	}
	CHECK_EQ(dr_cm_agent_sidr_rep(&n->a, from, mad, DR_CM_SIDR_SUCCESS, 0x123, 0x11111111, NULL, 0), 0);
}

static void
op_sidr_rep(void *owner, void *user, const uint8_t *mad)
{
	struct node *n = owner;

	CHECK(user == n);
	if (mad == NULL) {
		n->sidr_timeouts++;
		return;
	}
	n->sidr_reps++;
	n->sidr_status = (uint8_t)dr_mad_get(mad, DR_CM_SIDR_REP_STATUS);
	n->sidr_qpn = (uint32_t)dr_mad_get(mad, DR_CM_SIDR_REP_QPN);
}

static const struct dr_cm_agent_ops ops = {
	.send = op_send, .req = op_req, .event = op_event, .sidr_req = op_sidr_req, .sidr_rep = op_sidr_rep,
};

static void
setup(uint32_t max_conns, uint32_t seed_a)
{
	memset(&A, 0, sizeof(A));
	memset(&B, 0, sizeof(B));
	net_n = 0;
	cut = false;
	loss_pct = dup_pct = 0;
	A.peer = &B;
	B.peer = &A;
	A.me.gid[15] = 1;
	B.me.gid[15] = 2;
	CHECK_EQ(dr_cm_agent_init(&A.a, max_conns, 4, 4, 0xAAAA, seed_a, &ops, &A), 0);
	CHECK_EQ(dr_cm_agent_init(&B.a, max_conns, 4, 4, 0xBBBB, 0x5EED0000, &ops, &B), 0);
	CHECK_EQ(dr_cm_agent_listen(&B.a, 0x0000000001061C06, &B), 0);
}

static void
teardown(void)
{
	dr_cm_agent_fini(&A.a);
	dr_cm_agent_fini(&B.a);
}

/* Deliver everything queued (and what that sends), then run both agents' timers. */
static void
run(void)
{
	unsigned int i = 0;

	while (i < net_n) {
		struct pkt *p = &net[i++];

		dr_cm_agent_rx(&p->to->a, &p->from, p->mad, DR_MAD_SIZE, now);
	}
	net_n = 0;
	dr_cm_agent_timers(&A.a, now);
	dr_cm_agent_timers(&B.a, now);
}

/* Deliver only what is queued now (what that sends stays queued). */
static void
step(void)
{
	unsigned int n = net_n;

	for (unsigned int i = 0; i < n; i++)
		dr_cm_agent_rx(&net[i].to->a, &net[i].from, net[i].mad, DR_MAD_SIZE, now);
	memmove(net, net + n, (net_n - n) * sizeof(net[0]));
	net_n -= n;
}

/* Advance the clock to the next timer and run; until nothing is due or @max_steps. */
static void
run_until_quiet(unsigned int max_steps)
{
	run();
	for (unsigned int i = 0; i < max_steps; i++) {
		uint64_t next = dr_cm_agent_next_deadline(&A.a), nb = dr_cm_agent_next_deadline(&B.a);

		if (nb < next)
			next = nb;
		if (next == UINT64_MAX && net_n == 0)
			return;
		if (next != UINT64_MAX && next > now)
			now = next;
		run();
	}
}

static struct dr_cm_conn *
connect_one(uint32_t qpn)
{
	struct dr_cm_req_param rq = {
		.service_id = 0x0000000001061C06, .local_ca_guid = 0xAAAA, .local_qpn = qpn,
		.starting_psn = 5, .retry_count = 7, .pkey = 0xFFFF, .path_mtu = 3, .rnr_retry_count = 7,
		.local_ack_timeout = 10,
	};
	struct dr_cm_conn *c = dr_cm_agent_conn_new(&A.a, &B.me, &timing, &A);

	CHECK(c != NULL);
	if (c != NULL)
		CHECK_EQ(dr_cm_conn_connect(c, &rq, dr_cm_agent_tid(&A.a), now), 0);
	A.last_conn = c;
	return c;
}

static void
test_connect_disconnect(void)
{
	struct dr_cm_conn *c, *p;

	setup(16, 0x12340000);
	c = connect_one(0x11);
	run();
	run();
	CHECK_EQ(A.established, 1);
	CHECK_EQ(B.established, 1);
	p = B.last_conn;
	CHECK(dr_cm_agent_user(p) == &B);
	CHECK(memcmp(dr_cm_agent_peer(p)->gid, A.me.gid, 16) == 0);
	CHECK_EQ(c->remote_id, p->local_id);
	CHECK_EQ(p->remote_id, c->local_id);
	CHECK(c->local_id != 0 && p->local_id != 0);
	CHECK_EQ(A.a.stats.conns, 1);
	CHECK_EQ(dr_cm_conn_disconnect(c, NULL, 0, now), 0);
	run_until_quiet(20);
	CHECK_EQ(B.dreq, 1);
	CHECK_EQ(A.drep, 1);
	CHECK_EQ(A.tw_exit, 1);
	CHECK_EQ(B.tw_exit, 1);
	dr_cm_agent_conn_release(&A.a, c, now);
	dr_cm_agent_conn_release(&B.a, p, now);
	CHECK_EQ(A.a.stats.conns, 1);     /* freed by the next timers pass */
	run();
	CHECK_EQ(A.a.stats.conns, 0);
	CHECK_EQ(B.a.stats.conns, 0);
	CHECK_EQ(A.a.stats.rx_dup + B.a.stats.rx_dup, 0);
	CHECK_EQ(A.a.stats.retransmits + B.a.stats.retransmits, 0);
	teardown();
}

/* No listener: REJ "invalid service ID"; a refusing owner: its reason or "no resources". */
static void
test_rejects(void)
{
	setup(16, 1 << 16);
	CHECK_EQ(dr_cm_agent_unlisten(&B.a, 0x0000000001061C06), 0);
	CHECK_EQ(dr_cm_agent_unlisten(&B.a, 0x0000000001061C06), -ENOENT);
	connect_one(0x11);
	run_until_quiet(5);
	CHECK_EQ(A.rej, 1);
	CHECK_EQ(A.last_rej_reason, DR_CM_REJ_INVALID_SERVICE_ID);
	CHECK_EQ(B.a.stats.rx_unmatched, 1);
	CHECK_EQ(A.last_conn->state, DR_CM_IDLE);

	CHECK_EQ(dr_cm_agent_listen(&B.a, 0x0000000001061C06, &B), 0);
	CHECK_EQ(dr_cm_agent_listen(&B.a, 0x0000000001061C06, &B), -EADDRINUSE);
	B.refuse = true;
	connect_one(0x12);
	run_until_quiet(5);
	CHECK_EQ(A.last_rej_reason, DR_CM_REJ_NO_RESOURCES);
	B.refuse_reason = DR_CM_REJ_CONSUMER_DEFINED;
	connect_one(0x13);
	run_until_quiet(5);
	CHECK_EQ(A.last_rej_reason, DR_CM_REJ_CONSUMER_DEFINED);
	CHECK_EQ(A.rej, 3);
	CHECK_EQ(B.a.stats.conns, 0);
	/* listeners are bounded */
	for (int i = 0; i < 3; i++)
		CHECK_EQ(dr_cm_agent_listen(&B.a, 100 + i, &B), 0);
	CHECK_EQ(dr_cm_agent_listen(&B.a, 200, &B), -ENOSPC);
	teardown();
}

/* A REQ duplicated by the network makes one connection (the copy is a duplicate). */
static void
test_duplicate_req(void)
{
	setup(16, 2 << 16);
	dup_pct = 100;
	connect_one(0x11);
	run_until_quiet(50);
	CHECK_EQ(B.a.stats.conns, 1);
	CHECK_EQ(A.established, 1);
	CHECK_EQ(B.established, 1);
	CHECK(B.a.stats.rx_dup >= 1);
	teardown();
}

/* 1000 connections one after another, each released: no slot left, no ID confusion. */
static void
test_sequential(void)
{
	unsigned int n = 1000;

	setup(64, 3 << 16);
	for (unsigned int i = 0; i < n; i++) {
		struct dr_cm_conn *c = connect_one(0x100 + i), *p;

		run();
		run();
		p = B.last_conn;
		CHECK_EQ(c->state, DR_CM_ESTABLISHED);
		CHECK_EQ(p->state, DR_CM_ESTABLISHED);
		CHECK_EQ(dr_cm_conn_disconnect(i % 2 ? c : p, NULL, 0, now), 0);
		run();
		run();
		dr_cm_agent_conn_release(&A.a, c, now);
		dr_cm_agent_conn_release(&B.a, p, now);
		now += 1000000;                 /* 1 ms apart: about 13 in time wait (12.6 ms) at once */
		run();
	}
	CHECK_EQ(A.established, n);
	CHECK_EQ(B.established, n);
	run_until_quiet(10000);
	CHECK_EQ(A.a.stats.conns, 0);
	CHECK_EQ(B.a.stats.conns, 0);
	CHECK_EQ(A.a.nb_free, 64);
	CHECK_EQ(A.a.stats.rx_unmatched + B.a.stats.rx_unmatched, 0);
	teardown();
}

/* 100 at once through 20% loss and 10% duplication: all established, all released, nothing left. */
static void
test_concurrent_lossy(void)
{
	struct dr_cm_conn *c[100];

	setup(256, 4 << 16);
	rng = 42;
	loss_pct = 20;
	dup_pct = 10;
	for (unsigned int i = 0; i < 100; i++)
		c[i] = connect_one(0x200 + i);
	run_until_quiet(2000);
	CHECK_EQ(A.established, 100);
	CHECK_EQ(B.established, 100);
	CHECK_EQ(A.timeouts + B.timeouts, 0);
	CHECK(A.a.stats.retransmits + B.a.stats.retransmits > 0);
	for (unsigned int i = 0; i < 100; i++)
		CHECK_EQ(dr_cm_conn_disconnect(c[i], NULL, 0, now), 0);
	run_until_quiet(2000);
	/* every DREQ answered or given up; every side through time wait */
	CHECK_EQ(A.tw_exit, 100);
	CHECK_EQ(B.tw_exit, 100);
	for (unsigned int i = 0; i < 100; i++)
		dr_cm_agent_conn_release(&A.a, c[i], now);
	CHECK_EQ(B.nb_accepted, 100);
	for (unsigned int i = 0; i < B.nb_accepted; i++)
		dr_cm_agent_conn_release(&B.a, B.accepted[i], now);
	run();
	CHECK_EQ(A.a.stats.conns, 0);
	CHECK_EQ(B.a.stats.conns, 0);
	teardown();
}

/* The peer vanishes mid-handshake: the survivor times out cleanly and frees everything. */
static void
test_peer_vanishes(void)
{
	struct dr_cm_conn *c;

	/* before answering the REQ: the active side gives up (REQ_TIMEOUT) */
	setup(16, 5 << 16);
	cut = true;
	c = connect_one(0x11);
	run_until_quiet(100);
	CHECK_EQ(A.timeouts, 1);
	CHECK_EQ(c->state, DR_CM_IDLE);
	CHECK_EQ(A.a.stats.retransmits, timing.max_retries);
	dr_cm_agent_conn_release(&A.a, c, now);
	run();
	CHECK_EQ(A.a.stats.conns, 0);
	teardown();

	/* after the REP went out: the passive side gives up (REP_TIMEOUT) */
	setup(16, 6 << 16);
	c = connect_one(0x11);
	step();                            /* REQ delivered, REP queued */
	cut = true;
	net_n = 0;                         /* the REP is lost, and the active side is gone */
	run_until_quiet(100);
	CHECK_EQ(B.timeouts, 1);
	CHECK_EQ(B.last_conn->state, DR_CM_IDLE);
	dr_cm_agent_conn_release(&B.a, B.last_conn, now);
	run();
	CHECK_EQ(B.a.stats.conns, 0);
	teardown();
}

/* The active side restarts and connects the same QP again: REJ stale, the old one is released (DREQ). */
static void
test_stale(void)
{
	struct dr_cm_conn *old;

	setup(16, 7 << 16);
	connect_one(0x11);
	run();
	run();
	old = B.last_conn;
	CHECK_EQ(old->state, DR_CM_ESTABLISHED);
	/* A forgets everything (a new agent, new IDs) and comes back with the same QPN */
	dr_cm_agent_fini(&A.a);
	CHECK_EQ(dr_cm_agent_init(&A.a, 16, 4, 4, 0xAAAA, 0x77770000, &ops, &A), 0);
	connect_one(0x11);
	step();                            /* the REQ: REJ and DREQ queued */
	step();
	CHECK_EQ(A.rej, 1);
	CHECK_EQ(A.last_rej_reason, DR_CM_REJ_STALE_CONN);
	CHECK_EQ(old->state, DR_CM_DREQ_SENT);
	run_until_quiet(100);
	/* A has no connection of that ID: its agent answers the DREQ with a DREP anyway */
	CHECK_EQ(old->state, DR_CM_IDLE);
	CHECK_EQ(B.drep, 1);
	CHECK(A.a.stats.rx_unmatched >= 1);
	teardown();
}

/* Messages for no connection, or claiming one from the wrong address; garbage. */
static void
test_unmatched(void)
{
	struct dr_cm_peer evil = { .gid = { [15] = 9 } };
	uint8_t m[DR_MAD_SIZE];
	struct dr_cm_conn *c;

	setup(16, 8 << 16);
	c = connect_one(0x11);
	run();
	run();
	/* a DREQ naming A's real comm ID, but from another address: not A's peer, not obeyed */
	dr_cm_msg_init(m, DR_CM_ATTR_DREQ, 1);
	dr_mad_put(m, DR_CM_DREQ_LOCAL_COMM_ID, c->remote_id);
	dr_mad_put(m, DR_CM_DREQ_REMOTE_COMM_ID, c->local_id);
	strangers = 0;
	dr_cm_agent_rx(&A.a, &evil, m, sizeof(m), now);
	CHECK_EQ(c->state, DR_CM_ESTABLISHED);
	CHECK_EQ(A.a.stats.rx_unmatched, 1);
	CHECK_EQ(A.a.stats.tx, 3);          /* REQ, RTU, the DREP answering the stranger */
	CHECK_EQ(strangers, 1);
	/* a REP for nobody: REJ "invalid communication ID" */
	dr_cm_msg_init(m, DR_CM_ATTR_REP, 1);
	dr_mad_put(m, DR_CM_REP_REMOTE_COMM_ID, 0x12345678);
	dr_cm_agent_rx(&A.a, &B.me, m, sizeof(m), now);
	CHECK_EQ(net_n, 1);
	CHECK_EQ(dr_mad_get(net[0].mad, DR_CM_REJ_REASON), DR_CM_REJ_INVALID_COMM_ID);
	net_n = 0;
	/* an RTU or MRA for nobody: counted, not answered */
	dr_cm_msg_init(m, DR_CM_ATTR_RTU, 1);
	dr_cm_agent_rx(&A.a, &B.me, m, sizeof(m), now);
	CHECK_EQ(net_n, 0);
	CHECK_EQ(A.a.stats.rx_unmatched, 3);
	/* not CM MADs: counted as bad */
	memset(m, 0, sizeof(m));
	dr_cm_agent_rx(&A.a, &B.me, m, sizeof(m), now);
	dr_cm_msg_init(m, DR_CM_ATTR_LAP, 1);
	dr_cm_agent_rx(&A.a, &B.me, m, sizeof(m), now);
	dr_cm_agent_rx(&A.a, &B.me, m, 100, now);
	CHECK_EQ(A.a.stats.rx_bad, 3);
	CHECK_EQ(c->state, DR_CM_ESTABLISHED);
	teardown();
}

/* SIDR: an answer with the QPN; no listener: "not supported"; no answer at all: a timeout. */
static void
test_sidr(void)
{
	setup(16, 9 << 16);
	CHECK_EQ(dr_cm_agent_sidr_req(&A.a, &B.me, 0x0000000001061C06, NULL, 0, 1000000, 2, &A, now), 0);
	run_until_quiet(10);
	CHECK_EQ(A.sidr_reps, 1);
	CHECK_EQ(A.sidr_status, DR_CM_SIDR_SUCCESS);
	CHECK_EQ(A.sidr_qpn, 0x123);
	CHECK_EQ(dr_cm_agent_sidr_req(&A.a, &B.me, 0x0000000001110001, NULL, 0, 1000000, 2, &A, now), 0);
	run_until_quiet(10);
	CHECK_EQ(A.sidr_reps, 2);
	CHECK_EQ(A.sidr_status, DR_CM_SIDR_UNSUPPORTED);
	cut = true;
	CHECK_EQ(dr_cm_agent_sidr_req(&A.a, &B.me, 0x0000000001061C06, NULL, 0, 1000000, 2, &A, now), 0);
	run_until_quiet(10);
	CHECK_EQ(A.sidr_timeouts, 1);
	CHECK_EQ(A.a.stats.retransmits, 2);
	/* cancelled: no callback */
	CHECK_EQ(dr_cm_agent_sidr_req(&A.a, &B.me, 0x0000000001061C06, NULL, 0, 1000000, 2, &A, now), 0);
	dr_cm_agent_sidr_cancel(&A.a, &A);
	run_until_quiet(10);
	CHECK_EQ(A.sidr_timeouts, 1);
	/* bounded, and private data checked */
	for (int i = 0; i < 4; i++)
		CHECK_EQ(dr_cm_agent_sidr_req(&A.a, &B.me, 1, NULL, 0, 1000000, 0, &A, now), 0);
	CHECK_EQ(dr_cm_agent_sidr_req(&A.a, &B.me, 1, NULL, 0, 1000000, 0, &A, now), -ENOSPC);
	CHECK_EQ(dr_cm_agent_sidr_req(&A.a, &B.me, 1, NULL, 4, 1000000, 0, &A, now), -EINVAL);
	teardown();
}

/*
 * The service side of SIDR (IBA 12.11): a request its owner has not answered
 * yet is given to it once, whatever the requester resends; past max_sidr
 * unanswered ones the agent refuses ("rejected"); the owner's late answer
 * reaches the requester.
 */
static void
test_sidr_service(void)
{
	setup(16, 10 << 16);
	B.sidr_defer = true;
	CHECK_EQ(dr_cm_agent_sidr_req(&A.a, &B.me, 0x0000000001061C06, NULL, 0, 1000000, 3, &A, now), 0);
	run();
	for (int i = 0; i < 3; i++) {
		now += 1000000;                    /* A resends: B's owner hears it once */
		run();
		run();
	}
	CHECK_EQ(B.sidr_held, 1);
	CHECK_EQ(B.a.stats.rx_dup, 3);
	CHECK_EQ(A.sidr_reps, 0);
	CHECK_EQ(dr_cm_agent_sidr_rep(&B.a, &B.sidr_from[0], B.sidr_req[0], DR_CM_SIDR_SUCCESS, 0x77, 0x01234567,
				      NULL, 0), 0);
	run();
	CHECK_EQ(A.sidr_reps, 1);
	CHECK_EQ(A.sidr_status, DR_CM_SIDR_SUCCESS);
	CHECK_EQ(A.sidr_qpn, 0x77);
	/* a flood of new requests: 4 held (max_sidr), the rest refused at once, bounded */
	B.sidr_held = 0;
	for (uint32_t i = 0; i < 6; i++) {
		uint8_t mad[DR_MAD_SIZE];

		dr_cm_msg_init(mad, DR_CM_ATTR_SIDR_REQ, 0x900 + i);
		dr_mad_put(mad, DR_CM_SIDR_REQ_REQUEST_ID, 0x500 + i);
		dr_mad_put(mad, DR_CM_SIDR_REQ_SERVICE_ID, 0x0000000001061C06);
		dr_cm_agent_rx(&B.a, &A.me, mad, DR_MAD_SIZE, now);
	}
	CHECK_EQ(B.sidr_held, 4);
	CHECK_EQ(B.a.stats.busy, 2);
	CHECK_EQ(net_n, 2);                         /* the two refusals */
	CHECK_EQ(dr_mad_get(net[0].mad, DR_CM_SIDR_REP_STATUS), DR_CM_SIDR_REJECT);
	net_n = 0;
	/* one answered: room for one more */
	CHECK_EQ(dr_cm_agent_sidr_rep(&B.a, &B.sidr_from[0], B.sidr_req[0], DR_CM_SIDR_REJECT, 0, 0, NULL, 0), 0);
	{
		uint8_t mad[DR_MAD_SIZE];

		dr_cm_msg_init(mad, DR_CM_ATTR_SIDR_REQ, 0x9FF);
		dr_mad_put(mad, DR_CM_SIDR_REQ_REQUEST_ID, 0x5FF);
		dr_mad_put(mad, DR_CM_SIDR_REQ_SERVICE_ID, 0x0000000001061C06);
		dr_cm_agent_rx(&B.a, &A.me, mad, DR_MAD_SIZE, now);
	}
	CHECK_EQ(B.sidr_held, 5);
	CHECK_EQ(B.a.stats.busy, 2);
	net_n = 0;
	teardown();
}

/* Bad set-up arguments; every slot taken. */
static void
test_limits(void)
{
	struct dr_cm_agent a;

	CHECK_EQ(dr_cm_agent_init(&a, 0, 1, 1, 1, 1, &ops, NULL), -EINVAL);
	CHECK_EQ(dr_cm_agent_init(&a, 65537, 1, 1, 1, 1, &ops, NULL), -EINVAL);
	CHECK_EQ(dr_cm_agent_init(&a, 1, 1, 1, 1, 1, NULL, NULL), -EINVAL);
	setup(2, 10 << 16);
	CHECK(connect_one(1) != NULL);
	CHECK(connect_one(2) != NULL);
	CHECK(dr_cm_agent_conn_new(&A.a, &B.me, &timing, &A) == NULL);
	teardown();
}

int
main(void)
{
	test_connect_disconnect();
	test_rejects();
	test_duplicate_req();
	test_sequential();
	test_concurrent_lossy();
	test_peer_vanishes();
	test_stale();
	test_unmatched();
	test_sidr();
	test_sidr_service();
	test_limits();
	return dr_test_report("cm_agent");
}
