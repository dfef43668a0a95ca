/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The CM connection state machine (lib/cm/dr_cm_conn.c), every step, on a
 * virtual clock: an active side A and a passive side P whose MADs go
 * through a queue the test delivers, drops or duplicates.
 */

#include <errno.h>

#include "dr_cm_conn.h"
#include "dr_test.h"

#define QMAX 64
#define EVMAX 64

struct side {
	struct dr_cm_conn c;
	struct side *peer;
	uint8_t q[QMAX][DR_MAD_SIZE];    /* what it sent, oldest first */
	unsigned int nq;
	unsigned int sent;               /* every send, including dropped ones */
	enum dr_cm_conn_event ev[EVMAX];
	unsigned int nev;
};

static struct side A, P;
static uint64_t now;

static void
on_send(struct dr_cm_conn *c, const uint8_t *mad)
{
	struct side *s = c->priv;

	s->sent++;
	if (s->nq < QMAX)
		memcpy(s->q[s->nq++], mad, DR_MAD_SIZE);
}

static void
on_event(struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad)
{
	struct side *s = c->priv;

	(void)mad;
	if (s->nev < EVMAX)
		s->ev[s->nev++] = ev;
}

static const struct dr_cm_conn_ops ops = { .send = on_send, .event = on_event };

static const struct dr_cm_timing timing = {
	.peer_response_timeout = 20, .local_response_timeout = 20, .packet_lifetime = 16,
	.max_retries = 3, .mra_service_timeout = 22,
};

static void
reset(void)
{
	memset(&A, 0, sizeof(A));
	memset(&P, 0, sizeof(P));
	A.peer = &P;
	P.peer = &A;
	dr_cm_conn_init(&A.c, 0x1111, 0xA, &timing, &ops, &A);
	dr_cm_conn_init(&P.c, 0x2222, 0xB, &timing, &ops, &P);
	now = 1000;
}

/* Attribute of the oldest message @s sent. */
static uint16_t
head_attr(const struct side *s)
{
	return s->nq > 0 ? (uint16_t)dr_mad_get(s->q[0], DR_MAD_ATTR_ID) : 0;
}

static void
pop(struct side *s)
{
	memmove(s->q[0], s->q[1], (size_t)(s->nq - 1) * DR_MAD_SIZE);
	s->nq--;
}

/* Deliver the oldest message @s sent to its peer, as the service would route it. */
static uint16_t
deliver(struct side *s)
{
	uint16_t attr = 0;
	struct side *to = s->peer;

	if (s->nq == 0)
		return 0;
	CHECK_EQ(dr_cm_msg_check(s->q[0], DR_MAD_SIZE, &attr), DR_CM_MSG_OK);
	if (attr == DR_CM_ATTR_REQ && to->c.state == DR_CM_IDLE && !to->c.active)
		dr_cm_conn_req_rcvd(&to->c, s->q[0], now);
	else
		dr_cm_conn_rx(&to->c, attr, s->q[0], now);
	pop(s);
	return attr;
}

static void
drop(struct side *s)
{
	if (s->nq > 0)
		pop(s);
}

static bool
has_event(const struct side *s, enum dr_cm_conn_event ev)
{
	for (unsigned int i = 0; i < s->nev; i++)
		if (s->ev[i] == ev)
			return true;
	return false;
}

static struct dr_cm_req_param
req_param(void)
{
	struct dr_cm_req_param p = {
		.service_id = 0x0000000001061C06, .local_ca_guid = 0xA, .local_qpn = 0x11,
		.responder_resources = 1, .initiator_depth = 1, .transport = DR_CM_TRANSPORT_RC,
		.starting_psn = 100, .retry_count = 7, .pkey = 0xFFFF, .path_mtu = 3,
		.rnr_retry_count = 7, .local_ack_timeout = 14,
	};
	return p;
}

static struct dr_cm_rep_param
rep_param(void)
{
	struct dr_cm_rep_param p = {
		.local_qpn = 0x22, .starting_psn = 200, .responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7, .local_ca_guid = 0xB,
	};
	return p;
}

/* REQ delivered, accepted, REP delivered: A in REP_RCVD, P in REP_SENT. */
static void
to_rep_rcvd(void)
{
	struct dr_cm_req_param rq = req_param();
	struct dr_cm_rep_param rp = rep_param();

	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), 0);
	deliver(&A);
	CHECK_EQ(dr_cm_conn_accept(&P.c, &rp, now), 0);
	deliver(&P);
	CHECK_EQ(A.c.state, DR_CM_REP_RCVD);
}

/* REQ -> REP -> RTU, nothing lost. */
static void
establish(void)
{
	struct dr_cm_req_param rq = req_param();
	struct dr_cm_rep_param rp = rep_param();

	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 0x77, now), 0);
	CHECK_EQ(A.c.state, DR_CM_REQ_SENT);
	CHECK_EQ(deliver(&A), DR_CM_ATTR_REQ);
	CHECK_EQ(P.c.state, DR_CM_REQ_RCVD);
	CHECK_EQ(P.c.remote_id, 0x1111);
	CHECK_EQ(P.c.remote_qpn, 0x11);
	CHECK_EQ(P.c.remote_ca_guid, 0xA);
	CHECK_EQ(P.c.tid, 0x77);
	CHECK_EQ(dr_cm_conn_accept(&P.c, &rp, now), 0);
	CHECK_EQ(P.c.state, DR_CM_REP_SENT);
	CHECK_EQ(deliver(&P), DR_CM_ATTR_REP);
	CHECK_EQ(A.c.state, DR_CM_REP_RCVD);
	CHECK(has_event(&A, DR_CM_EV_REP_RCVD));
	CHECK_EQ(A.c.remote_id, 0x2222);
	CHECK_EQ(A.c.remote_qpn, 0x22);
	CHECK_EQ(A.c.deadline, 0);
	CHECK_EQ(dr_cm_conn_send_rtu(&A.c, NULL, 0, now), 0);
	CHECK_EQ(A.c.state, DR_CM_ESTABLISHED);
	CHECK_EQ(deliver(&A), DR_CM_ATTR_RTU);
	CHECK_EQ(P.c.state, DR_CM_ESTABLISHED);
	CHECK(has_event(&P, DR_CM_EV_ESTABLISHED));
	CHECK_EQ(P.c.deadline, 0);
}

static void
test_establish(void)
{
	reset();
	establish();
	/* the REP echoes the REQ's TID and carries both IDs (Table 110) */
	CHECK_EQ(A.nq + P.nq, 0);
	CHECK_EQ(A.sent, 2);
	CHECK_EQ(P.sent, 1);
	CHECK_EQ(A.c.retransmits + P.c.retransmits, 0);
}

/* A lost REQ is sent again at its timeout, the same bytes; a lost REP too. */
static void
test_req_rep_retry(void)
{
	struct dr_cm_req_param rq = req_param();
	struct dr_cm_rep_param rp = rep_param();
	uint8_t first[DR_MAD_SIZE];
	uint64_t t0 = now;

	reset();
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), 0);
	memcpy(first, A.q[0], DR_MAD_SIZE);
	drop(&A);
	/* 2 PLT + the peer's response time (IBA 12.7.x) */
	CHECK_EQ(A.c.deadline, t0 + 2 * dr_cm_time_ns(16) + dr_cm_time_ns(20));
	dr_cm_conn_timer(&A.c, A.c.deadline - 1);
	CHECK_EQ(A.sent, 1);
	now = A.c.deadline;
	dr_cm_conn_timer(&A.c, now);
	CHECK_EQ(A.sent, 2);
	CHECK_EQ(A.c.retransmits, 1);
	CHECK(memcmp(first, A.q[0], DR_MAD_SIZE) == 0);
	deliver(&A);
	CHECK_EQ(dr_cm_conn_accept(&P.c, &rp, now), 0);
	drop(&P);
	now = P.c.deadline;
	dr_cm_conn_timer(&P.c, now);
	CHECK_EQ(P.c.retransmits, 1);
	CHECK_EQ(deliver(&P), DR_CM_ATTR_REP);
	CHECK_EQ(A.c.state, DR_CM_REP_RCVD);
}

/* No answer to the REQ after every retry: REJ(Timeout) with our GUID, IDLE, REQ_TIMEOUT. */
static void
test_req_timeout(void)
{
	struct dr_cm_req_param rq = req_param();

	reset();
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), 0);
	for (int i = 0; i < 3; i++) {
		now = A.c.deadline;
		dr_cm_conn_timer(&A.c, now);
		CHECK_EQ(A.c.state, DR_CM_REQ_SENT);
	}
	CHECK_EQ(A.sent, 4);                /* the REQ and max_retries resends */
	now = A.c.deadline;
	dr_cm_conn_timer(&A.c, now);
	CHECK_EQ(A.c.state, DR_CM_IDLE);
	CHECK(has_event(&A, DR_CM_EV_REQ_TIMEOUT));
	CHECK_EQ(A.sent, 5);
	CHECK_EQ(dr_mad_get(A.q[4], DR_MAD_ATTR_ID), DR_CM_ATTR_REJ);
	CHECK_EQ(dr_mad_get(A.q[4], DR_CM_REJ_REASON), DR_CM_REJ_TIMEOUT);
	CHECK_EQ(dr_mad_get(A.q[4], DR_CM_REJ_ARI_LENGTH), 8);
	CHECK_EQ(dr_mad_get(A.q[4], DR_MAD_FIELD(DR_CM_REJ_ARI_OFF, 0, 64)), 0xA);
	CHECK_EQ(A.c.deadline, 0);
}

/* A REQ again while the consumer decides: MRA (then the same MRA); the active side waits longer. */
static void
test_mra(void)
{
	struct dr_cm_req_param rq = req_param();
	struct dr_cm_rep_param rp = rep_param();
	uint64_t before;

	reset();
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), 0);
	memcpy(A.q[1], A.q[0], DR_MAD_SIZE);   /* the network duplicates the REQ */
	A.nq = 2;
	deliver(&A);
	CHECK_EQ(P.c.state, DR_CM_REQ_RCVD);
	CHECK_EQ(P.sent, 0);
	deliver(&A);
	CHECK_EQ(P.c.state, DR_CM_MRA_REQ_SENT);
	CHECK_EQ(head_attr(&P), DR_CM_ATTR_MRA);
	CHECK_EQ(dr_mad_get(P.q[0], DR_CM_MRA_MESSAGE_MRAED), DR_CM_REF_REQ);
	CHECK_EQ(dr_mad_get(P.q[0], DR_CM_MRA_SERVICE_TIMEOUT), 22);
	CHECK_EQ(dr_mad_get(P.q[0], DR_CM_MRA_REMOTE_COMM_ID), 0x1111);
	before = A.c.deadline;
	deliver(&P);
	CHECK_EQ(A.c.state, DR_CM_MRA_REQ_RCVD);
	CHECK(has_event(&A, DR_CM_EV_MRA_RCVD));
	CHECK_EQ(A.c.deadline, now + dr_cm_time_ns(16) + dr_cm_time_ns(22));
	CHECK(A.c.deadline > before);
	/* a third copy: the MRA again, byte for byte */
	dr_cm_conn_rx(&P.c, DR_CM_ATTR_REQ, A.q[0], now);   /* (A's queue is empty: resend by hand) */
	CHECK_EQ(P.sent, 2);
	drop(&P);
	/* the consumer accepts from MRA_REQ_SENT */
	CHECK_EQ(dr_cm_conn_accept(&P.c, &rp, now), 0);
	CHECK_EQ(deliver(&P), DR_CM_ATTR_REP);
	CHECK_EQ(A.c.state, DR_CM_REP_RCVD);
	/* an MRA for a message we did not send is a duplicate */
	CHECK_EQ(A.c.dups, 0);
	P.q[0][0] = 0;
	dr_cm_msg_init(P.q[0], DR_CM_ATTR_MRA, 1);
	dr_mad_put(P.q[0], DR_CM_MRA_MESSAGE_MRAED, DR_CM_REF_REP);
	dr_cm_conn_rx(&A.c, DR_CM_ATTR_MRA, P.q[0], now);
	CHECK_EQ(A.c.dups, 1);
	CHECK_EQ(A.c.state, DR_CM_REP_RCVD);
}

/* The consumer rejects the REQ: REJ without our ID (Linux), reason and private data; the active side idles. */
static void
test_reject(void)
{
	struct dr_cm_req_param rq = req_param();
	uint8_t pd[4] = { 1, 2, 3, 4 }, big[DR_CM_REJ_PDATA_LEN + 1] = { 0 };

	reset();
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), 0);
	deliver(&A);
	CHECK_EQ(dr_cm_conn_reject(&P.c, DR_CM_REJ_CONSUMER_DEFINED, big, sizeof(big), now), -EINVAL);
	CHECK_EQ(P.c.state, DR_CM_REQ_RCVD);
	CHECK_EQ(dr_cm_conn_reject(&P.c, DR_CM_REJ_CONSUMER_DEFINED, pd, 4, now), 0);
	CHECK_EQ(P.c.state, DR_CM_IDLE);
	CHECK_EQ(dr_mad_get(P.q[0], DR_CM_REJ_LOCAL_COMM_ID), 0);
	CHECK_EQ(dr_mad_get(P.q[0], DR_CM_REJ_REMOTE_COMM_ID), 0x1111);
	CHECK_EQ(dr_mad_get(P.q[0], DR_CM_REJ_MESSAGE_REJECTED), DR_CM_REF_REQ);
	CHECK_EQ(P.q[0][DR_CM_REJ_PDATA_OFF + 3], 4);
	deliver(&P);
	CHECK_EQ(A.c.state, DR_CM_IDLE);
	CHECK(has_event(&A, DR_CM_EV_REJ_RCVD));
	CHECK_EQ(A.c.deadline, 0);
	/* a REJ again is a duplicate */
	dr_cm_conn_rx(&A.c, DR_CM_ATTR_REJ, P.c.out, now);
	CHECK_EQ(A.c.dups, 1);

	/* the active side rejects the REP (its QP could not be readied) */
	reset();
	to_rep_rcvd();
	CHECK_EQ(dr_cm_conn_reject(&A.c, DR_CM_REJ_NO_RESOURCES, NULL, 0, now), 0);
	CHECK_EQ(dr_mad_get(A.q[0], DR_CM_REJ_MESSAGE_REJECTED), DR_CM_REF_REP);
	CHECK_EQ(dr_mad_get(A.q[0], DR_CM_REJ_LOCAL_COMM_ID), 0x1111);
	deliver(&A);
	CHECK_EQ(P.c.state, DR_CM_IDLE);
	CHECK(has_event(&P, DR_CM_EV_REJ_RCVD));
	CHECK_EQ(P.c.deadline, 0);
	/* a stale-connection REJ leaves the rejected side in time wait (Linux cm_rej_handler) */
	reset();
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), 0);
	deliver(&A);
	CHECK_EQ(dr_cm_conn_reject(&P.c, DR_CM_REJ_STALE_CONN, NULL, 0, now), 0);
	deliver(&P);
	CHECK_EQ(A.c.state, DR_CM_TIMEWAIT);
}

/* RTU lost: duplicate REP gets the RTU again; or the first data packet establishes (COMM_EST). */
static void
test_rtu_lost(void)
{
	reset();
	to_rep_rcvd();
	CHECK_EQ(dr_cm_conn_send_rtu(&A.c, NULL, 0, now), 0);
	drop(&A);
	now = P.c.deadline;
	dr_cm_conn_timer(&P.c, now);       /* REP again */
	CHECK_EQ(deliver(&P), DR_CM_ATTR_REP);
	CHECK_EQ(A.c.dups, 1);
	CHECK_EQ(head_attr(&A), DR_CM_ATTR_RTU);
	deliver(&A);
	CHECK_EQ(P.c.state, DR_CM_ESTABLISHED);

	reset();
	to_rep_rcvd();
	dr_cm_conn_send_rtu(&A.c, NULL, 0, now);
	drop(&A);
	dr_cm_conn_comm_est(&P.c, now);
	CHECK_EQ(P.c.state, DR_CM_ESTABLISHED);
	CHECK(has_event(&P, DR_CM_EV_ESTABLISHED));
	CHECK_EQ(P.c.deadline, 0);
	/* COMM_EST anywhere else changes nothing */
	P.nev = 0;
	dr_cm_conn_comm_est(&P.c, now);
	CHECK_EQ(P.nev, 0);
}

/* No RTU after every retry of the REP: REJ(Timeout), IDLE, REP_TIMEOUT. */
static void
test_rep_timeout(void)
{
	struct dr_cm_req_param rq = req_param();
	struct dr_cm_rep_param rp = rep_param();

	reset();
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), 0);
	deliver(&A);
	CHECK_EQ(dr_cm_conn_accept(&P.c, &rp, now), 0);
	/* the passive side waits as the REQ said: the active side's response time and retries */
	CHECK_EQ(P.c.timing.max_retries, 3);
	for (int i = 0; i <= 3; i++) {
		now = P.c.deadline;
		dr_cm_conn_timer(&P.c, now);
	}
	CHECK_EQ(P.c.state, DR_CM_IDLE);
	CHECK(has_event(&P, DR_CM_EV_REP_TIMEOUT));
	CHECK_EQ(P.sent, 5);
	CHECK_EQ(dr_mad_get(P.q[4], DR_CM_REJ_REASON), DR_CM_REJ_TIMEOUT);
}

/* DREQ -> DREP, both sides through time wait to IDLE. */
static void
test_disconnect(void)
{
	uint8_t pd[3] = { 7, 7, 7 };

	reset();
	establish();
	CHECK_EQ(dr_cm_conn_disconnect(&A.c, pd, 3, now), 0);
	CHECK_EQ(A.c.state, DR_CM_DREQ_SENT);
	CHECK_EQ(dr_mad_get(A.q[0], DR_CM_DREQ_REMOTE_QPN), 0x22);
	CHECK_EQ(dr_mad_get(A.q[0], DR_CM_DREQ_REMOTE_COMM_ID), 0x2222);
	CHECK_EQ(deliver(&A), DR_CM_ATTR_DREQ);
	CHECK_EQ(P.c.state, DR_CM_DREQ_RCVD);
	CHECK(has_event(&P, DR_CM_EV_DREQ_RCVD));
	/* a DREQ again while the consumer has not answered: nothing yet */
	dr_cm_conn_rx(&P.c, DR_CM_ATTR_DREQ, A.c.out, now);
	CHECK_EQ(P.sent, 1);
	CHECK_EQ(dr_cm_conn_disconnect(&P.c, NULL, 0, now), 0);
	CHECK_EQ(P.c.state, DR_CM_TIMEWAIT);
	CHECK_EQ(dr_mad_get(P.q[0], DR_MAD_TID), dr_mad_get(A.c.out, DR_MAD_TID));
	CHECK_EQ(deliver(&P), DR_CM_ATTR_DREP);
	CHECK_EQ(A.c.state, DR_CM_TIMEWAIT);
	CHECK(has_event(&A, DR_CM_EV_DREP_RCVD));
	/* time wait: 2 PLT + the ACK timeout of the path */
	CHECK_EQ(A.c.deadline, now + 2 * dr_cm_time_ns(16) + dr_cm_time_ns(14));
	CHECK_EQ(dr_cm_conn_disconnect(&A.c, NULL, 0, now), -EINVAL);
	now = A.c.deadline;
	dr_cm_conn_timer(&A.c, now);
	dr_cm_conn_timer(&P.c, now);
	CHECK(dr_cm_conn_idle(&A.c) && dr_cm_conn_idle(&P.c));
	CHECK(has_event(&A, DR_CM_EV_TIMEWAIT_EXIT) && has_event(&P, DR_CM_EV_TIMEWAIT_EXIT));
}

/* DREP lost: the DREQ comes again in time wait and gets the DREP again; a lost DREQ is resent. */
static void
test_drep_lost(void)
{
	reset();
	establish();
	dr_cm_conn_disconnect(&A.c, NULL, 0, now);
	drop(&A);
	now = A.c.deadline;
	dr_cm_conn_timer(&A.c, now);
	CHECK_EQ(A.c.retransmits, 1);
	deliver(&A);
	dr_cm_conn_disconnect(&P.c, NULL, 0, now);
	drop(&P);
	now = A.c.deadline;
	dr_cm_conn_timer(&A.c, now);
	CHECK_EQ(deliver(&A), DR_CM_ATTR_DREQ);
	CHECK_EQ(P.sent, 3);          /* REP, DREP, DREP again */
	CHECK(memcmp(P.q[0], P.c.out, DR_MAD_SIZE) == 0);
	CHECK_EQ(deliver(&P), DR_CM_ATTR_DREP);
	CHECK_EQ(A.c.state, DR_CM_TIMEWAIT);
}

/* No DREP ever: after every retry the connection goes to time wait all the same. */
static void
test_dreq_timeout(void)
{
	reset();
	establish();
	dr_cm_conn_disconnect(&A.c, NULL, 0, now);
	for (int i = 0; i <= 3; i++) {
		now = A.c.deadline;
		dr_cm_conn_timer(&A.c, now);
	}
	CHECK_EQ(A.c.state, DR_CM_TIMEWAIT);
	CHECK(has_event(&A, DR_CM_EV_DREQ_TIMEOUT));
	CHECK_EQ(A.sent, 2 + 4);
}

/* Both sides disconnect at once: each answers the other's DREQ and is done (IBA 12.9.7). */
static void
test_crossing_dreq(void)
{
	reset();
	establish();
	CHECK_EQ(dr_cm_conn_disconnect(&A.c, NULL, 0, now), 0);
	CHECK_EQ(dr_cm_conn_disconnect(&P.c, NULL, 0, now), 0);
	deliver(&A);
	deliver(&P);
	CHECK_EQ(A.c.state, DR_CM_TIMEWAIT);
	CHECK_EQ(P.c.state, DR_CM_TIMEWAIT);
	CHECK(has_event(&A, DR_CM_EV_DREP_RCVD) && has_event(&P, DR_CM_EV_DREP_RCVD));
	CHECK_EQ(head_attr(&A), DR_CM_ATTR_DREP);
	CHECK_EQ(head_attr(&P), DR_CM_ATTR_DREP);
	deliver(&A);
	deliver(&P);
	CHECK_EQ(A.c.dups, 1);
	CHECK_EQ(P.c.dups, 1);
	CHECK_EQ(A.c.state, DR_CM_TIMEWAIT);
}

/* The peer disconnects before our RTU arrived (it was lost): DREQ_RCVD from REP_SENT. */
static void
test_dreq_before_rtu(void)
{
	reset();
	to_rep_rcvd();
	dr_cm_conn_send_rtu(&A.c, NULL, 0, now);
	drop(&A);
	dr_cm_conn_disconnect(&A.c, NULL, 0, now);
	deliver(&A);
	CHECK_EQ(P.c.state, DR_CM_DREQ_RCVD);
	CHECK_EQ(P.c.deadline, 0);
}

/* A REQ for a connection in time wait is stale (IBA 12.9.8.3.1). */
static void
test_stale_req(void)
{
	uint8_t req[DR_MAD_SIZE];

	reset();
	establish();
	memcpy(req, A.c.out, DR_MAD_SIZE);   /* the RTU: build a REQ of A's instead */
	{
		struct dr_cm_req_param rq = req_param();

		rq.local_comm_id = 0x1111;
		rq.remote_cm_response_timeout = rq.local_cm_response_timeout = 20;
		CHECK_EQ(dr_cm_req_pack(req, 9, &rq), 0);
	}
	dr_cm_conn_disconnect(&A.c, NULL, 0, now);
	deliver(&A);
	dr_cm_conn_disconnect(&P.c, NULL, 0, now);
	deliver(&P);
	CHECK_EQ(P.c.state, DR_CM_TIMEWAIT);
	dr_cm_conn_rx(&P.c, DR_CM_ATTR_REQ, req, now);
	CHECK_EQ(head_attr(&P), DR_CM_ATTR_REJ);
	CHECK_EQ(dr_mad_get(P.q[0], DR_CM_REJ_REASON), DR_CM_REJ_STALE_CONN);
	/* in ESTABLISHED a REQ again changes nothing (Linux cm_dup_req_handler) */
	reset();
	establish();
	dr_cm_conn_rx(&P.c, DR_CM_ATTR_REQ, req, now);
	CHECK_EQ(P.nq, 0);
	CHECK_EQ(P.c.state, DR_CM_ESTABLISHED);
}

/* The consumer goes away in each state: what goes out, no event after it. */
static void
test_abandon(void)
{
	struct dr_cm_req_param rq = req_param();
	struct dr_cm_rep_param rp = rep_param();

	/* REQ_SENT: REJ(Timeout), IDLE */
	reset();
	dr_cm_conn_connect(&A.c, &rq, 1, now);
	drop(&A);
	dr_cm_conn_abandon(&A.c, now);
	CHECK_EQ(head_attr(&A), DR_CM_ATTR_REJ);
	CHECK_EQ(dr_mad_get(A.q[0], DR_CM_REJ_REASON), DR_CM_REJ_TIMEOUT);
	CHECK(dr_cm_conn_idle(&A.c));
	CHECK_EQ(A.c.deadline, 0);

	/* REQ_RCVD: REJ(consumer), IDLE */
	reset();
	dr_cm_conn_connect(&A.c, &rq, 1, now);
	deliver(&A);
	dr_cm_conn_abandon(&P.c, now);
	CHECK_EQ(dr_mad_get(P.q[0], DR_CM_REJ_REASON), DR_CM_REJ_CONSUMER_DEFINED);
	CHECK(dr_cm_conn_idle(&P.c));
	deliver(&P);
	CHECK_EQ(A.c.state, DR_CM_IDLE);

	/* REP_SENT: REJ, IDLE; the active side sees REJ_RCVD */
	reset();
	dr_cm_conn_connect(&A.c, &rq, 1, now);
	deliver(&A);
	dr_cm_conn_accept(&P.c, &rp, now);
	drop(&P);
	dr_cm_conn_abandon(&P.c, now);
	CHECK(dr_cm_conn_idle(&P.c));
	CHECK_EQ(P.c.deadline, 0);

	/* ESTABLISHED: one DREQ, time wait at once, no event; the peer's DREQ_RCVD */
	reset();
	establish();
	A.nev = 0;
	dr_cm_conn_abandon(&A.c, now);
	CHECK_EQ(A.c.state, DR_CM_TIMEWAIT);
	CHECK_EQ(head_attr(&A), DR_CM_ATTR_DREQ);
	deliver(&A);
	CHECK_EQ(P.c.state, DR_CM_DREQ_RCVD);
	dr_cm_conn_disconnect(&P.c, NULL, 0, now);
	deliver(&P);                       /* a DREP in time wait: a duplicate */
	now = A.c.deadline;
	dr_cm_conn_timer(&A.c, now);
	CHECK(dr_cm_conn_idle(&A.c));
	CHECK_EQ(A.nev, 0);

	/* DREQ_RCVD: the DREP the consumer never sent */
	reset();
	establish();
	dr_cm_conn_disconnect(&A.c, NULL, 0, now);
	deliver(&A);
	dr_cm_conn_abandon(&P.c, now);
	CHECK_EQ(P.c.state, DR_CM_TIMEWAIT);
	CHECK_EQ(deliver(&P), DR_CM_ATTR_DREP);
	CHECK_EQ(A.c.state, DR_CM_TIMEWAIT);

	/* an abandoned ESTABLISHED side that gets a DREQ answers it itself */
	reset();
	establish();
	P.c.abandoned = true;
	dr_cm_conn_disconnect(&A.c, NULL, 0, now);
	deliver(&A);
	CHECK_EQ(P.c.state, DR_CM_TIMEWAIT);
	CHECK_EQ(head_attr(&P), DR_CM_ATTR_DREP);
}

/* Calls out of their state, and values that do not fit: -EINVAL / -EISCONN, nothing sent. */
static void
test_bad_calls(void)
{
	struct dr_cm_req_param rq = req_param();
	struct dr_cm_rep_param rp = rep_param();
	uint8_t big[DR_CM_DREQ_PDATA_LEN + 1] = { 0 };

	reset();
	CHECK_EQ(dr_cm_conn_accept(&A.c, &rp, now), -EINVAL);
	CHECK_EQ(dr_cm_conn_send_rtu(&A.c, NULL, 0, now), -EINVAL);
	CHECK_EQ(dr_cm_conn_disconnect(&A.c, NULL, 0, now), -EINVAL);
	CHECK_EQ(dr_cm_conn_reject(&A.c, 28, NULL, 0, now), -EINVAL);
	rq.path_mtu = 0;
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), -EINVAL);
	CHECK_EQ(A.c.state, DR_CM_IDLE);
	CHECK_EQ(A.sent, 0);
	rq = req_param();
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), 0);
	CHECK_EQ(dr_cm_conn_connect(&A.c, &rq, 1, now), -EISCONN);
	deliver(&A);
	rp.rnr_retry_count = 9;
	CHECK_EQ(dr_cm_conn_accept(&P.c, &rp, now), -EINVAL);
	CHECK_EQ(P.c.state, DR_CM_REQ_RCVD);
	CHECK_EQ(P.sent, 0);
	/* the REP never went out: a REQ again gets an MRA, not that REP */
	dr_cm_conn_rx(&P.c, DR_CM_ATTR_REQ, A.c.out, now);
	CHECK_EQ(head_attr(&P), DR_CM_ATTR_MRA);
	rp = rep_param();
	CHECK_EQ(dr_cm_conn_accept(&P.c, &rp, now), 0);
	drop(&P);
	deliver(&P);
	CHECK_EQ(dr_cm_conn_send_rtu(&A.c, big, DR_CM_RTU_PDATA_LEN + 1, now), -EINVAL);
	CHECK_EQ(dr_cm_conn_send_rtu(&A.c, NULL, 0, now), 0);
	CHECK_EQ(dr_cm_conn_disconnect(&A.c, big, sizeof(big), now), -EINVAL);
	CHECK_EQ(A.c.state, DR_CM_ESTABLISHED);
	/* messages no state takes are counted as duplicates */
	dr_cm_conn_rx(&A.c, DR_CM_ATTR_DREP, A.c.out, now);
	dr_cm_conn_rx(&A.c, DR_CM_ATTR_RTU, A.c.out, now);
	dr_cm_conn_rx(&A.c, DR_CM_ATTR_SIDR_REQ, A.c.out, now);
	CHECK_EQ(A.c.dups, 3);
	CHECK_EQ(A.c.state, DR_CM_ESTABLISHED);
}

/* Answers without a connection: REJ of a REQ (IDs swapped, TID kept), DREP of a DREQ. */
static void
test_unmatched(void)
{
	struct dr_cm_req_param rq = req_param();
	uint8_t req[DR_MAD_SIZE], out[DR_MAD_SIZE], dreq[DR_MAD_SIZE];
	uint16_t attr;

	rq.local_comm_id = 0x5555;
	CHECK_EQ(dr_cm_req_pack(req, 0xABC, &rq), 0);
	dr_cm_rej_unmatched(out, req, DR_CM_ATTR_REQ, DR_CM_REJ_INVALID_SERVICE_ID);
	CHECK_EQ(dr_cm_msg_check(out, DR_MAD_SIZE, &attr), DR_CM_MSG_OK);
	CHECK_EQ(attr, DR_CM_ATTR_REJ);
	CHECK_EQ(dr_mad_get(out, DR_MAD_TID), 0xABC);
	CHECK_EQ(dr_mad_get(out, DR_CM_REJ_LOCAL_COMM_ID), 0);
	CHECK_EQ(dr_mad_get(out, DR_CM_REJ_REMOTE_COMM_ID), 0x5555);
	CHECK_EQ(dr_mad_get(out, DR_CM_REJ_REASON), DR_CM_REJ_INVALID_SERVICE_ID);
	CHECK_EQ(dr_mad_get(out, DR_CM_REJ_MESSAGE_REJECTED), DR_CM_REF_REQ);

	dr_cm_msg_init(dreq, DR_CM_ATTR_DREQ, 0xDEF);
	dr_mad_put(dreq, DR_CM_DREQ_LOCAL_COMM_ID, 0x10);
	dr_mad_put(dreq, DR_CM_DREQ_REMOTE_COMM_ID, 0x20);
	dr_cm_drep_unmatched(out, dreq);
	CHECK_EQ(dr_mad_get(out, DR_MAD_ATTR_ID), DR_CM_ATTR_DREP);
	CHECK_EQ(dr_mad_get(out, DR_MAD_TID), 0xDEF);
	CHECK_EQ(dr_mad_get(out, DR_CM_DREP_LOCAL_COMM_ID), 0x20);
	CHECK_EQ(dr_mad_get(out, DR_CM_DREP_REMOTE_COMM_ID), 0x10);

	CHECK(strcmp(dr_cm_state_str(DR_CM_MRA_REP_RCVD), "MRA_REP_RCVD") == 0);
	CHECK(strcmp(dr_cm_state_str(DR_CM_STATE_COUNT), "?") == 0);
	CHECK(strcmp(dr_cm_conn_event_str(DR_CM_EV_TIMEWAIT_EXIT), "TIMEWAIT_EXIT") == 0);
}

int
main(void)
{
	test_establish();
	test_req_rep_retry();
	test_req_timeout();
	test_mra();
	test_reject();
	test_rtu_lost();
	test_rep_timeout();
	test_disconnect();
	test_drep_lost();
	test_dreq_timeout();
	test_crossing_dreq();
	test_dreq_before_rtu();
	test_stale_req();
	test_abandon();
	test_bad_calls();
	test_unmatched();
	return dr_test_report("cm_conn");
}
