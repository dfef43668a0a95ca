/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The connection manager of a context (lib/cm/dr_cm_svc.c) over the test
 * wire (test_rc.h), in every engine mode: QP1 and the agent driven from
 * dr_progress() inline and by the service's thread in rtc and pipeline
 * mode. A connection established (REQ, REP, RTU), released (DREQ, DREP,
 * time wait), one refused for want of a listener (REJ "invalid service
 * ID"), the REQ resent through a wire that drops the first one, and the
 * service stopped by dr_close_device()'s hook with a connection still up.
 */

#include <errno.h>
#include <string.h>

#include "dr_cm_ip.h"
#include "dr_cm_svc.h"
#include "test_rc.h"

#define SID 0x0000000001060000ull   /* RDMA_PS_TCP, port 0 */

struct side {
	struct rc_side *rc;
	struct dr_cm_conn *conn;
	unsigned int ev[DR_CM_EV_TIMEWAIT_EXIT + 1];
	uint16_t rej_reason;
	unsigned int reqs;
};

static struct side sides[2];

static const struct dr_cm_timing timing = {
	.peer_response_timeout = 14, .local_response_timeout = 14, .packet_lifetime = 10,
	.max_retries = 5, .mra_service_timeout = 16,
};

static void
on_req(struct dr_cm_svc *s, void *listener, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct side *me = s->owner;
	struct dr_cm_rep_param rp = { .local_qpn = 0x42, .starting_psn = 7, .rnr_retry_count = 7,
				      .local_ca_guid = s->agent.ca_guid };

	RC_CHECK(listener == me);
	me->reqs++;
	me->conn = dr_cm_agent_accept_req(&s->agent, from, mad, &timing, me, dr_cm_svc_now());
	RC_CHECK(me->conn != NULL);
	if (me->conn != NULL)
		RC_CHECK_EQ(dr_cm_conn_accept(me->conn, &rp, dr_cm_svc_now()), 0);
}

static void
on_event(struct dr_cm_svc *s, struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad)
{
	struct side *me = s->owner;

	me->ev[ev]++;
	if (ev == DR_CM_EV_REP_RCVD)
		RC_CHECK_EQ(dr_cm_conn_send_rtu(c, NULL, 0, dr_cm_svc_now()), 0);
	if (ev == DR_CM_EV_DREQ_RCVD)
		RC_CHECK_EQ(dr_cm_conn_disconnect(c, NULL, 0, dr_cm_svc_now()), 0);
	if (ev == DR_CM_EV_REJ_RCVD)
		me->rej_reason = (uint16_t)dr_mad_get(mad, DR_CM_REJ_REASON);
}

static const struct dr_cm_svc_ops ops = { .req = on_req, .event = on_event };

struct want {
	int side;
	enum dr_cm_conn_event ev;
	unsigned int n;
};

static bool
have(struct rc_env *e, void *arg)
{
	const struct want *w = arg;
	struct dr_cm_svc *s = dr_cm_svc_of(e->s[w->side].ctx);
	bool ok;

	dr_cm_svc_lock(s);
	ok = sides[w->side].ev[w->ev] >= w->n;
	dr_cm_svc_unlock(s);
	return ok;
}

static struct dr_cm_conn *
connect_to(struct rc_env *e, uint64_t sid)
{
	struct dr_cm_svc *a = dr_cm_svc_of(e->s[0].ctx);
	struct dr_cm_req_param rq = {
		.service_id = sid, .local_ca_guid = a->agent.ca_guid, .local_qpn = 0x21,
		.starting_psn = 3, .retry_count = 7, .pkey = 0xFFFF, .path_mtu = 3, .rnr_retry_count = 7,
		.local_ack_timeout = 10, .hop_limit = 64,
	};
	struct dr_cm_peer to;
	struct dr_cm_conn *c;

	memcpy(to.gid, e->s[1].gid.raw, 16);
	memcpy(rq.local_gid, e->s[0].gid.raw, 16);
	memcpy(rq.remote_gid, e->s[1].gid.raw, 16);
	dr_cm_svc_lock(a);
	c = dr_cm_agent_conn_new(&a->agent, &to, &timing, &sides[0]);
	RC_CHECK(c != NULL);
	if (c != NULL)
		RC_CHECK_EQ(dr_cm_conn_connect(c, &rq, dr_cm_agent_tid(&a->agent), dr_cm_svc_now()), 0);
	sides[0].conn = c;
	dr_cm_svc_unlock(a);
	return c;
}

static void
run(struct rc_env *e)
{
	struct dr_cm_svc *a, *b;
	struct want w;

	for (int i = 0; i < 2; i++) {
		sides[i].rc = &e->s[i];
		RC_CHECK_EQ(dr_cm_svc_start(e->s[i].ctx, &ops, &sides[i]), 0);
	}
	RC_CHECK_EQ(dr_cm_svc_start(e->s[0].ctx, &ops, &sides[0]), -EEXIST);
	a = dr_cm_svc_of(e->s[0].ctx);
	b = dr_cm_svc_of(e->s[1].ctx);
	RC_CHECK(a->agent.ca_guid != 0 && a->agent.ca_guid != b->agent.ca_guid);

	/* no listener: REJ "invalid service ID" */
	connect_to(e, SID | 1);
	w = (struct want){ 0, DR_CM_EV_REJ_RCVD, 1 };
	RC_CHECK(rc_run(e, 3000000, have, &w));
	RC_CHECK_EQ(sides[0].rej_reason, DR_CM_REJ_INVALID_SERVICE_ID);

	/* a listener; the first REQ lost on the wire: resent, then REP, RTU */
	dr_cm_svc_lock(b);
	RC_CHECK_EQ(dr_cm_agent_listen(&b->agent, SID | 2, &sides[1]), 0);
	dr_cm_svc_unlock(b);
	rc_rule_add(e, RC_A2B, -1, 0, 1, 1, RC_DROP);
	connect_to(e, SID | 2);
	w = (struct want){ 1, DR_CM_EV_ESTABLISHED, 1 };
	RC_CHECK(rc_run(e, 5000000, have, &w));
	rc_rules_clear(e);
	RC_CHECK_EQ(sides[1].reqs, 1);
	RC_CHECK_EQ(sides[0].ev[DR_CM_EV_REP_RCVD], 1);
	dr_cm_svc_lock(a);
	RC_CHECK(a->agent.stats.retransmits >= 1);
	RC_CHECK_EQ(sides[0].conn->state, DR_CM_ESTABLISHED);
	RC_CHECK_EQ(sides[0].conn->remote_qpn, 0x42);
	dr_cm_svc_unlock(a);
	RC_CHECK_EQ(a->gsi.qp->qp_num, DR_GSI_QPN);

	/* released: DREQ, DREP, both sides through time wait */
	dr_cm_svc_lock(a);
	RC_CHECK_EQ(dr_cm_conn_disconnect(sides[0].conn, NULL, 0, dr_cm_svc_now()), 0);
	dr_cm_svc_unlock(a);
	w = (struct want){ 0, DR_CM_EV_TIMEWAIT_EXIT, 1 };
	RC_CHECK(rc_run(e, 5000000, have, &w));
	w = (struct want){ 1, DR_CM_EV_TIMEWAIT_EXIT, 1 };
	RC_CHECK(rc_run(e, 5000000, have, &w));
	RC_CHECK_EQ(sides[1].ev[DR_CM_EV_DREQ_RCVD], 1);
	RC_CHECK_EQ(sides[0].ev[DR_CM_EV_DREP_RCVD], 1);

	/* one more, left established: dr_close_device() stops the service (rc_env_fini) */
	connect_to(e, SID | 2);
	w = (struct want){ 1, DR_CM_EV_ESTABLISHED, 2 };
	RC_CHECK(rc_run(e, 5000000, have, &w));
	dr_cm_svc_stop(e->s[1].ctx);
	RC_CHECK(dr_cm_svc_of(e->s[1].ctx) == NULL);
	RC_CHECK(dr_qp_lookup(e->s[1].ctx, DR_GSI_QPN) == NULL);
	/* A's stays up for the close hook */
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_cm_svc", argv[0], 1500, run);
}
