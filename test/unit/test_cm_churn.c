/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Connection churn under traffic, in every engine mode: one connection
 * made through the CM carries a stream of SENDs (each message's bytes
 * derived from its number, checked on arrival, in order), while 40 other
 * connections are made and released one after the other between the same
 * two contexts (REQ, REP, RTU, DREQ, DREP, each id destroyed). The stream
 * must lose, reorder or damage nothing, every churned connection must
 * reach ESTABLISHED and DISCONNECTED on both sides, and nothing is left.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "test_cm.h"

#define PORT 7175
#define CHURN 40
#define MSG 1024
#define DEPTH 16                 /* SENDs in flight, receives posted */

static struct dr_cm_event_channel *chs, *chc;

/* The stream's two ends and their state. */
struct stream {
	struct dr_cm_id *cid, *sid;
	struct dr_cq *ccq, *scq;
	struct rc_buf cb, sb;
	uint64_t sent, completed, received, bad;
};

static int
make_qp(struct dr_cm_id *id, struct rc_side *s, struct dr_cq **cq)
{
	struct dr_qp_init_attr ia = { .qp_type = DR_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH, .max_send_sge = 1, .max_recv_sge = 1 } };

	*cq = dr_create_cq(s->ctx, 2 * DEPTH, NULL, NULL, 0);
	if (*cq == NULL)
		return -1;
	ia.send_cq = ia.recv_cq = *cq;
	return dr_cm_create_qp(id, s->pd, &ia);
}

static uint8_t
byte_of(uint64_t msg, unsigned int i)
{
	return (uint8_t)(msg * 131 + i);
}

/* A connection from A to B:@port, made through the CM; both ids with QPs. */
static bool
connect_pair(struct rc_env *e, struct dr_cm_id **cid, struct dr_cm_id **sid, struct dr_cq **ccq,
	     struct dr_cq **scq, void (*pump)(struct rc_env *e, void *arg), void *arg)
{
	struct sockaddr_in src = cm_addr_of(&e->s[0], 0), dst = cm_addr_of(&e->s[1], PORT);
	struct dr_cm_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
				       .rnr_retry_count = 7 };
	struct dr_cm_event *ev;

	RC_CHECK_EQ(dr_cm_create_id(chc, cid, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_resolve_addr(*cid, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ADDR_RESOLVED));
	RC_CHECK_EQ(dr_cm_resolve_route(*cid, 2000), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ROUTE_RESOLVED));
	RC_CHECK_EQ(make_qp(*cid, &e->s[0], ccq), 0);
	RC_CHECK_EQ(dr_cm_connect(*cid, &cp), 0);
	if (pump != NULL)
		pump(e, arg);
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev == NULL)
		return false;
	*sid = ev->id;
	cm_ack(ev);
	RC_CHECK_EQ(make_qp(*sid, &e->s[1], scq), 0);
	RC_CHECK_EQ(dr_cm_accept(*sid, &cp), 0);
	if (pump != NULL)
		pump(e, arg);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ESTABLISHED));
	cm_ack(cm_wait_event(e, chs, DR_CM_EVENT_ESTABLISHED));
	return true;
}

static void
release_pair(struct rc_env *e, struct dr_cm_id *cid, struct dr_cm_id *sid, struct dr_cq *ccq, struct dr_cq *scq,
	     void (*pump)(struct rc_env *e, void *arg), void *arg)
{
	RC_CHECK_EQ(dr_cm_disconnect(cid), 0);
	if (pump != NULL)
		pump(e, arg);
	cm_ack(cm_wait_event(e, chs, DR_CM_EVENT_DISCONNECTED));
	RC_CHECK_EQ(dr_cm_disconnect(sid), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_DISCONNECTED));
	dr_cm_destroy_qp(cid);
	dr_cm_destroy_qp(sid);
	RC_CHECK_EQ(dr_cm_destroy_id(cid), 0);
	RC_CHECK_EQ(dr_cm_destroy_id(sid), 0);
	RC_CHECK_EQ(dr_destroy_cq(ccq), 0);
	RC_CHECK_EQ(dr_destroy_cq(scq), 0);
}

static void
post_recv(struct stream *st, uint64_t n)
{
	struct dr_sge sge = { (uintptr_t)st->sb.p + (n % DEPTH) * MSG, MSG, st->sb.mr->lkey };
	struct dr_recv_wr rw = { .wr_id = n, .sg_list = &sge, .num_sge = 1 }, *bad;

	RC_CHECK_EQ(dr_post_recv(st->sid->qp, &rw, &bad), 0);
}

/* Keep DEPTH SENDs in flight; check what arrived, in order; repost. */
static void
pump(struct rc_env *e, void *arg)
{
	struct stream *st = arg;
	struct dr_wc wc[DEPTH];
	int n;

	(void)e;
	while (st->sent - st->completed < DEPTH && st->sent - st->received < DEPTH) {
		uint8_t *p = st->cb.p + (st->sent % DEPTH) * MSG;
		struct dr_sge sge = { (uintptr_t)p, MSG, st->cb.mr->lkey };
		struct dr_send_wr sw = { .wr_id = st->sent, .sg_list = &sge, .num_sge = 1, .opcode = DR_WR_SEND,
					 .send_flags = DR_SEND_SIGNALED }, *bad;

		for (unsigned int i = 0; i < MSG; i++)
			p[i] = byte_of(st->sent, i);
		RC_CHECK_EQ(dr_post_send(st->cid->qp, &sw, &bad), 0);
		st->sent++;
	}
	while ((n = dr_poll_cq(st->ccq, DEPTH, wc)) > 0)
		for (int k = 0; k < n; k++) {
			RC_CHECK(wc[k].status == DR_WC_SUCCESS && wc[k].wr_id == st->completed);
			st->completed++;
		}
	while ((n = dr_poll_cq(st->scq, DEPTH, wc)) > 0)
		for (int k = 0; k < n; k++) {
			const uint8_t *p = st->sb.p + (st->received % DEPTH) * MSG;

			if (wc[k].status != DR_WC_SUCCESS || wc[k].wr_id != st->received || wc[k].byte_len != MSG)
				st->bad++;
			else
				for (unsigned int i = 0; i < MSG; i++)
					if (p[i] != byte_of(st->received, i)) {
						st->bad++;
						break;
					}
			post_recv(st, st->received + DEPTH);
			st->received++;
		}
	rc_run(e, 50, NULL, NULL);
}

static void
run(struct rc_env *e)
{
	struct sockaddr_in b = cm_addr_of(&e->s[1], PORT);
	struct dr_cm_id *listener = NULL;
	struct stream st;
	uint64_t before;

	memset(&st, 0, sizeof(st));
	chs = dr_cm_create_event_channel();
	chc = dr_cm_create_event_channel();
	RC_CHECK(chs != NULL && chc != NULL);
	RC_CHECK_EQ(fcntl(chs->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(fcntl(chc->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(dr_cm_create_id(chs, &listener, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_bind_addr(listener, (struct sockaddr *)&b), 0);
	RC_CHECK_EQ(dr_cm_listen(listener, 8), 0);

	/* the stream's connection, its receives posted before it carries anything */
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &st.cb, DEPTH * MSG, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[1], &st.sb, DEPTH * MSG, DR_ACCESS_LOCAL_WRITE), 0);
	if (!connect_pair(e, &st.cid, &st.sid, &st.ccq, &st.scq, NULL, NULL))
		return;
	for (uint64_t n = 0; n < DEPTH; n++)
		post_recv(&st, n);

	/* the churn, the stream pumped between every step */
	for (int i = 0; i < CHURN; i++) {
		struct dr_cm_id *cid = NULL, *sid = NULL;
		struct dr_cq *ccq = NULL, *scq = NULL;

		before = st.received;
		if (!connect_pair(e, &cid, &sid, &ccq, &scq, pump, &st))
			break;
		for (int k = 0; k < 20; k++)
			pump(e, &st);
		release_pair(e, cid, sid, ccq, scq, pump, &st);
		RC_CHECK_MSG(st.received > before, "the stream stood still during churn round %d", i);
	}
	/* the stream drains: every message arrived once, in order, intact */
	for (int k = 0; k < 20000 && (st.completed < st.sent || st.received < st.sent); k++) {
		rc_run(e, 50, NULL, NULL);        /* no new sends: only reap */
		{
			struct dr_wc wc[DEPTH];
			int n;

			while ((n = dr_poll_cq(st.ccq, DEPTH, wc)) > 0)
				st.completed += (uint64_t)n;
			while ((n = dr_poll_cq(st.scq, DEPTH, wc)) > 0)
				for (int j = 0; j < n; j++) {
					if (wc[j].status != DR_WC_SUCCESS || wc[j].wr_id != st.received)
						st.bad++;
					st.received++;
				}
		}
	}
	RC_CHECK_EQ(st.bad, 0);
	RC_CHECK_MSG(st.received == st.sent && st.completed == st.sent && st.sent > CHURN * 20,
		     "sent %lu, completed %lu, received %lu", (unsigned long)st.sent, (unsigned long)st.completed,
		     (unsigned long)st.received);
	release_pair(e, st.cid, st.sid, st.ccq, st.scq, NULL, NULL);
	rc_buf_free(&st.cb);
	rc_buf_free(&st.sb);
	RC_CHECK_EQ(dr_cm_destroy_id(listener), 0);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chs), 0);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chc), 0);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_cm_churn", argv[0], 1500, run);
}
