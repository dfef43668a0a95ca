/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * One connection's CM state machine (dr_cm_conn.h): establishment (IBA
 * 12.9.6), release (12.9.7), time wait (12.9.8.4), one function per message
 * and per consumer call, each saying which states take it.
 */

#include <errno.h>
#include <string.h>

#include "dr_cm_conn.h"

/* ---- sending ---------------------------------------------------------- */

/* Send c->out (kept for a resend on timeout or duplicate). */
static void
send_out(struct dr_cm_conn *c)
{
	c->out_valid = true;
	c->ops->send(c, c->out);
}

/* Start message @attr_id in c->out, with the two comm IDs every message but REQ carries. */
static void
out_init(struct dr_cm_conn *c, uint16_t attr_id, uint64_t tid)
{
	dr_cm_msg_init(c->out, attr_id, tid);
	/* MRA, REJ, REP, RTU, DREQ, DREP: Local then Remote Communication ID at bytes 0 and 4 */
	dr_mad_put(c->out, DR_CM_FIELD(0, 0, 32), c->local_id);
	dr_mad_put(c->out, DR_CM_FIELD(4, 0, 32), c->remote_id);
}

/* A REJ of message @ref with @reason (Table 108); Timeout carries our CA GUID as ARI (Table 109). */
static void
send_rej(struct dr_cm_conn *c, uint8_t ref, uint16_t reason, const uint8_t *pdata, uint8_t len)
{
	out_init(c, DR_CM_ATTR_REJ, c->tid);
	/* Linux cm_format_rej(): a REQ not yet answered is rejected without our ID */
	if (c->state == DR_CM_REQ_RCVD)
		dr_mad_put(c->out, DR_CM_REJ_LOCAL_COMM_ID, 0);
	dr_mad_put(c->out, DR_CM_REJ_MESSAGE_REJECTED, ref);
	dr_mad_put(c->out, DR_CM_REJ_REASON, reason);
	if (reason == DR_CM_REJ_TIMEOUT) {
		dr_mad_put(c->out, DR_CM_REJ_ARI_LENGTH, 8);
		dr_mad_put(c->out, DR_MAD_FIELD(DR_CM_REJ_ARI_OFF, 0, 64), c->local_ca_guid);
	}
	(void)dr_cm_msg_pdata(c->out, DR_CM_ATTR_REJ, pdata, len);    /* length checked by the caller */
	send_out(c);
}

/* An MRA of message @ref asking for our service timeout (Table 107). */
static void
send_mra(struct dr_cm_conn *c, uint8_t ref)
{
	out_init(c, DR_CM_ATTR_MRA, c->tid);
	dr_mad_put(c->out, DR_CM_MRA_MESSAGE_MRAED, ref);
	dr_mad_put(c->out, DR_CM_MRA_SERVICE_TIMEOUT, c->timing.mra_service_timeout);
	send_out(c);
}

static void
send_drep(struct dr_cm_conn *c, const uint8_t *pdata, uint8_t len)
{
	out_init(c, DR_CM_ATTR_DREP, c->dreq_tid);
	(void)dr_cm_msg_pdata(c->out, DR_CM_ATTR_DREP, pdata, len);
	send_out(c);
}

/* ---- timers and transitions ------------------------------------------ */

/* Wait for an answer to c->out: 2 packet lifetimes + the peer CM's response time (IBA 12.7.x). */
static void
arm_response(struct dr_cm_conn *c, uint64_t now)
{
	c->timeout = 2 * dr_cm_time_ns(c->timing.packet_lifetime) +
		     dr_cm_time_ns(c->timing.peer_response_timeout);
	c->retries_left = c->timing.max_retries;
	c->deadline = now + c->timeout;
}

static void
disarm(struct dr_cm_conn *c)
{
	c->deadline = 0;
}

static void
event(struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad)
{
	if (!c->abandoned)
		c->ops->event(c, ev, mad);
}

/* IBA 12.9.8.4: a released connection waits 2 packet lifetimes + its ACK timeout before reuse. */
static void
enter_timewait(struct dr_cm_conn *c, uint64_t now)
{
	c->state = DR_CM_TIMEWAIT;
	c->deadline = now + 2 * dr_cm_time_ns(c->timing.packet_lifetime) +
		      dr_cm_time_ns(c->timing.ack_timeout);
	if (c->deadline == 0)
		c->deadline = 1;
}

static void
enter_idle(struct dr_cm_conn *c)
{
	c->state = DR_CM_IDLE;
	disarm(c);
}

/* ---- consumer calls ---------------------------------------------------- */

void
dr_cm_conn_init(struct dr_cm_conn *c, uint32_t local_id, uint64_t local_ca_guid,
		const struct dr_cm_timing *timing, const struct dr_cm_conn_ops *ops, void *priv)
{
	memset(c, 0, sizeof(*c));
	c->state = DR_CM_IDLE;
	c->local_id = local_id;
	c->local_ca_guid = local_ca_guid;
	c->timing = *timing;
	c->ops = ops;
	c->priv = priv;
}

int
dr_cm_conn_connect(struct dr_cm_conn *c, const struct dr_cm_req_param *p, uint64_t tid, uint64_t now)
{
	struct dr_cm_req_param req = *p;

	if (c->state != DR_CM_IDLE)
		return -EISCONN;
	req.local_comm_id = c->local_id;
	req.remote_cm_response_timeout = c->timing.peer_response_timeout;
	req.local_cm_response_timeout = c->timing.local_response_timeout;
	req.max_cm_retries = c->timing.max_retries;
	if (dr_cm_req_pack(c->out, tid, &req) != 0)
		return -EINVAL;
	c->active = true;
	c->tid = tid;
	c->local_qpn = p->local_qpn;
	c->timing.ack_timeout = p->local_ack_timeout;
	c->state = DR_CM_REQ_SENT;
	send_out(c);
	arm_response(c, now);
	return 0;
}

void
dr_cm_conn_req_rcvd(struct dr_cm_conn *c, const uint8_t *mad, uint64_t now)
{
	struct dr_cm_req_param req;

	(void)now;
	dr_cm_req_unpack(mad, &req);
	c->active = false;
	c->tid = dr_mad_get(mad, DR_MAD_TID);
	c->remote_id = req.local_comm_id;
	c->remote_ca_guid = req.local_ca_guid;
	c->remote_qpn = req.local_qpn;
	/* the active side says how long it takes to answer our REP, and how often to try */
	c->timing.peer_response_timeout = req.local_cm_response_timeout;
	c->timing.max_retries = req.max_cm_retries;
	c->timing.ack_timeout = req.local_ack_timeout;
	c->state = DR_CM_REQ_RCVD;
}

int
dr_cm_conn_accept(struct dr_cm_conn *c, struct dr_cm_rep_param *p, uint64_t now)
{
	if (c->state != DR_CM_REQ_RCVD && c->state != DR_CM_MRA_REQ_SENT)
		return -EINVAL;
	p->local_comm_id = c->local_id;
	p->remote_comm_id = c->remote_id;
	if (dr_cm_rep_pack(c->out, c->tid, p) != 0) {
		c->out_valid = false;   /* the REP was not sent: a duplicate REQ must not resend it */
		return -EINVAL;
	}
	c->local_qpn = p->local_qpn;
	c->state = DR_CM_REP_SENT;
	send_out(c);
	arm_response(c, now);
	return 0;
}

int
dr_cm_conn_send_rtu(struct dr_cm_conn *c, const uint8_t *pdata, uint8_t len, uint64_t now)
{
	(void)now;
	if (c->state != DR_CM_REP_RCVD || len > DR_CM_RTU_PDATA_LEN || (len > 0 && pdata == NULL))
		return -EINVAL;
	out_init(c, DR_CM_ATTR_RTU, c->tid);
	(void)dr_cm_msg_pdata(c->out, DR_CM_ATTR_RTU, pdata, len);
	send_out(c);           /* kept: a duplicate REP gets it again */
	c->state = DR_CM_ESTABLISHED;
	return 0;
}

int
dr_cm_conn_reject(struct dr_cm_conn *c, uint16_t reason, const uint8_t *pdata, uint8_t len, uint64_t now)
{
	uint8_t ref;

	(void)now;
	/* Table 108 (as Linux cm_format_rej()): the REQ before our REP, the REP we got, else none */
	switch (c->state) {
	case DR_CM_REQ_RCVD:
	case DR_CM_MRA_REQ_SENT:
		ref = DR_CM_REF_REQ;
		break;
	case DR_CM_REP_RCVD:
		ref = DR_CM_REF_REP;
		break;
	case DR_CM_REP_SENT:
	case DR_CM_MRA_REP_RCVD:
		ref = DR_CM_REF_OTHER;
		break;
	default:
		return -EINVAL;
	}
	if (len > DR_CM_REJ_PDATA_LEN || (len > 0 && pdata == NULL))
		return -EINVAL;
	send_rej(c, ref, reason, pdata, len);
	enter_idle(c);
	return 0;
}

int
dr_cm_conn_disconnect(struct dr_cm_conn *c, const uint8_t *pdata, uint8_t len, uint64_t now)
{
	if (c->state == DR_CM_ESTABLISHED) {
		if (len > DR_CM_DREQ_PDATA_LEN || (len > 0 && pdata == NULL))
			return -EINVAL;
		c->dreq_tid = c->tid + 1;
		out_init(c, DR_CM_ATTR_DREQ, c->dreq_tid);
		dr_mad_put(c->out, DR_CM_DREQ_REMOTE_QPN, c->remote_qpn);
		(void)dr_cm_msg_pdata(c->out, DR_CM_ATTR_DREQ, pdata, len);
		c->state = DR_CM_DREQ_SENT;
		send_out(c);
		arm_response(c, now);
		return 0;
	}
	if (c->state == DR_CM_DREQ_RCVD) {
		if (len > DR_CM_DREP_PDATA_LEN || (len > 0 && pdata == NULL))
			return -EINVAL;
		send_drep(c, pdata, len);
		enter_timewait(c, now);
		return 0;
	}
	return -EINVAL;
}

void
dr_cm_conn_comm_est(struct dr_cm_conn *c, uint64_t now)
{
	(void)now;
	/* IBA 11.6.3 / 12.9.6: the Communication Established event stands in for a lost RTU */
	if (c->state != DR_CM_REP_SENT && c->state != DR_CM_MRA_REP_RCVD)
		return;
	disarm(c);
	c->state = DR_CM_ESTABLISHED;
	event(c, DR_CM_EV_ESTABLISHED, NULL);
}

void
dr_cm_conn_abandon(struct dr_cm_conn *c, uint64_t now)
{
	c->abandoned = true;
	switch (c->state) {
	case DR_CM_REQ_SENT:
	case DR_CM_MRA_REQ_RCVD:
		/* Linux cm_destroy_id(): the REQ is withdrawn as if it timed out */
		send_rej(c, DR_CM_REF_OTHER, DR_CM_REJ_TIMEOUT, NULL, 0);
		enter_idle(c);
		break;
	case DR_CM_REQ_RCVD:
	case DR_CM_MRA_REQ_SENT:
	case DR_CM_REP_SENT:
	case DR_CM_MRA_REP_RCVD:
	case DR_CM_REP_RCVD:
		(void)dr_cm_conn_reject(c, DR_CM_REJ_CONSUMER_DEFINED, NULL, 0, now);
		break;
	case DR_CM_ESTABLISHED:
		/* one DREQ, then time wait without waiting for its DREP */
		(void)dr_cm_conn_disconnect(c, NULL, 0, now);
		enter_timewait(c, now);
		break;
	case DR_CM_DREQ_SENT:
		enter_timewait(c, now);
		break;
	case DR_CM_DREQ_RCVD:
		(void)dr_cm_conn_disconnect(c, NULL, 0, now);
		break;
	case DR_CM_TIMEWAIT:
	case DR_CM_IDLE:
	default:
		break;
	}
}

/* ---- messages ---------------------------------------------------------- */

/* A REQ again (the passive side's; the service found it by the peer's comm ID and CA GUID). */
static void
rx_req(struct dr_cm_conn *c, const uint8_t *mad)
{
	(void)mad;
	c->dups++;
	switch (c->state) {
	case DR_CM_REQ_RCVD:
		/* IBA 12.6.6: acknowledge a REQ retried while the consumer decides (Linux: MRA on the duplicate) */
		send_mra(c, DR_CM_REF_REQ);
		c->state = DR_CM_MRA_REQ_SENT;
		break;
	case DR_CM_MRA_REQ_SENT:
		if (c->out_valid)
			c->ops->send(c, c->out);
		break;
	case DR_CM_TIMEWAIT:
		/* IBA 12.9.8.3.1: a REQ for a connection in time wait is stale */
		send_rej(c, DR_CM_REF_REQ, DR_CM_REJ_STALE_CONN, NULL, 0);
		break;
	default:
		break;           /* REP_SENT: the REP timer resends it */
	}
}

static void
rx_mra(struct dr_cm_conn *c, const uint8_t *mad, uint64_t now)
{
	uint8_t ref = (uint8_t)dr_mad_get(mad, DR_CM_MRA_MESSAGE_MRAED);
	uint8_t st = (uint8_t)dr_mad_get(mad, DR_CM_MRA_SERVICE_TIMEOUT);

	if (c->state == DR_CM_REQ_SENT && ref == DR_CM_REF_REQ)
		c->state = DR_CM_MRA_REQ_RCVD;
	else if (c->state == DR_CM_REP_SENT && ref == DR_CM_REF_REP)
		c->state = DR_CM_MRA_REP_RCVD;
	else {
		c->dups++;
		return;
	}
	/* IBA 12.6.6: wait the service timeout it asks plus a packet lifetime, then retry as before */
	c->timeout = dr_cm_time_ns(c->timing.packet_lifetime) + dr_cm_time_ns(st);
	c->deadline = now + c->timeout;
	event(c, DR_CM_EV_MRA_RCVD, mad);
}

static void
rx_rej(struct dr_cm_conn *c, const uint8_t *mad, uint64_t now)
{
	uint16_t reason = (uint16_t)dr_mad_get(mad, DR_CM_REJ_REASON);

	switch (c->state) {
	case DR_CM_REQ_SENT:
	case DR_CM_MRA_REQ_RCVD:
	case DR_CM_REQ_RCVD:
	case DR_CM_MRA_REQ_SENT:
	case DR_CM_REP_SENT:
	case DR_CM_MRA_REP_RCVD:
	case DR_CM_REP_RCVD:
		/* Linux cm_rej_handler(): a stale connection waits out its time; the rest is idle */
		if (reason == DR_CM_REJ_STALE_CONN)
			enter_timewait(c, now);
		else
			enter_idle(c);
		event(c, DR_CM_EV_REJ_RCVD, mad);
		break;
	case DR_CM_ESTABLISHED:
		enter_timewait(c, now);
		event(c, DR_CM_EV_REJ_RCVD, mad);
		break;
	default:
		c->dups++;
		break;
	}
}

static void
rx_rep(struct dr_cm_conn *c, const uint8_t *mad)
{
	struct dr_cm_rep_param rep;

	switch (c->state) {
	case DR_CM_REQ_SENT:
	case DR_CM_MRA_REQ_RCVD:
		dr_cm_rep_unpack(mad, &rep);
		c->remote_id = rep.local_comm_id;
		c->remote_qpn = rep.local_qpn;
		c->remote_ca_guid = rep.local_ca_guid;
		disarm(c);
		c->state = DR_CM_REP_RCVD;
		event(c, DR_CM_EV_REP_RCVD, mad);
		break;
	case DR_CM_ESTABLISHED:
		/* IBA 12.9.6.1: a REP again means our RTU was lost: send it again */
		c->dups++;
		if (c->active && c->out_valid && dr_mad_get(c->out, DR_MAD_ATTR_ID) == DR_CM_ATTR_RTU)
			c->ops->send(c, c->out);
		break;
	default:
		c->dups++;
		break;
	}
}

static void
rx_rtu(struct dr_cm_conn *c, const uint8_t *mad)
{
	if (c->state != DR_CM_REP_SENT && c->state != DR_CM_MRA_REP_RCVD) {
		c->dups++;
		return;
	}
	disarm(c);
	c->state = DR_CM_ESTABLISHED;
	event(c, DR_CM_EV_ESTABLISHED, mad);
}

static void
rx_dreq(struct dr_cm_conn *c, const uint8_t *mad, uint64_t now)
{
	uint64_t tid = dr_mad_get(mad, DR_MAD_TID);

	switch (c->state) {
	case DR_CM_REP_SENT:
	case DR_CM_MRA_REP_RCVD:
		/* the RTU was lost and the peer is already leaving (Linux cm_dreq_handler()) */
	case DR_CM_ESTABLISHED:
		disarm(c);
		c->dreq_tid = tid;
		c->state = DR_CM_DREQ_RCVD;
		event(c, DR_CM_EV_DREQ_RCVD, mad);
		if (c->abandoned)      /* nobody left to answer: do it now */
			(void)dr_cm_conn_disconnect(c, NULL, 0, now);
		break;
	case DR_CM_DREQ_SENT:
		/* IBA 12.9.7: DREQs crossed: answer it, and ours counts as done */
		c->dreq_tid = tid;
		send_drep(c, NULL, 0);
		enter_timewait(c, now);
		event(c, DR_CM_EV_DREP_RCVD, mad);
		break;
	case DR_CM_TIMEWAIT:
		/* our DREP was lost: answer again */
		c->dups++;
		if (c->out_valid && dr_mad_get(c->out, DR_MAD_ATTR_ID) == DR_CM_ATTR_DREP) {
			c->ops->send(c, c->out);
		} else {
			c->dreq_tid = tid;
			send_drep(c, NULL, 0);
		}
		break;
	default:
		c->dups++;
		break;
	}
}

static void
rx_drep(struct dr_cm_conn *c, const uint8_t *mad, uint64_t now)
{
	if (c->state != DR_CM_DREQ_SENT) {
		c->dups++;
		return;
	}
	enter_timewait(c, now);
	event(c, DR_CM_EV_DREP_RCVD, mad);
}

void
dr_cm_conn_rx(struct dr_cm_conn *c, uint16_t attr_id, const uint8_t *mad, uint64_t now)
{
	switch (attr_id) {
	case DR_CM_ATTR_REQ: rx_req(c, mad); break;
	case DR_CM_ATTR_MRA: rx_mra(c, mad, now); break;
	case DR_CM_ATTR_REJ: rx_rej(c, mad, now); break;
	case DR_CM_ATTR_REP: rx_rep(c, mad); break;
	case DR_CM_ATTR_RTU: rx_rtu(c, mad); break;
	case DR_CM_ATTR_DREQ: rx_dreq(c, mad, now); break;
	case DR_CM_ATTR_DREP: rx_drep(c, mad, now); break;
	default: c->dups++; break;
	}
}

void
dr_cm_conn_timer(struct dr_cm_conn *c, uint64_t now)
{
	if (c->deadline == 0 || now < c->deadline)
		return;
	disarm(c);
	switch (c->state) {
	case DR_CM_REQ_SENT:
	case DR_CM_MRA_REQ_RCVD:
	case DR_CM_REP_SENT:
	case DR_CM_MRA_REP_RCVD:
	case DR_CM_DREQ_SENT:
		if (c->retries_left > 0) {
			/* IBA 12.9.6: resend the unanswered message, up to Max CM Retries times */
			c->retries_left--;
			c->retransmits++;
			c->ops->send(c, c->out);
			c->deadline = now + c->timeout;
			return;
		}
		if (c->state == DR_CM_DREQ_SENT) {
			/* IBA 12.9.7: no DREP: the connection is released anyway */
			enter_timewait(c, now);
			event(c, DR_CM_EV_DREQ_TIMEOUT, NULL);
		} else if (c->active) {
			send_rej(c, DR_CM_REF_OTHER, DR_CM_REJ_TIMEOUT, NULL, 0);
			enter_idle(c);
			event(c, DR_CM_EV_REQ_TIMEOUT, NULL);
		} else {
			send_rej(c, DR_CM_REF_OTHER, DR_CM_REJ_TIMEOUT, NULL, 0);
			enter_idle(c);
			event(c, DR_CM_EV_REP_TIMEOUT, NULL);
		}
		break;
	case DR_CM_TIMEWAIT:
		enter_idle(c);
		event(c, DR_CM_EV_TIMEWAIT_EXIT, NULL);
		break;
	default:
		break;
	}
}

/* ---- answers without a connection -------------------------------------- */

void
dr_cm_rej_unmatched(uint8_t *out, const uint8_t *mad, uint16_t attr_id, uint16_t reason)
{
	uint8_t ref = attr_id == DR_CM_ATTR_REQ ? DR_CM_REF_REQ :
		      attr_id == DR_CM_ATTR_REP ? DR_CM_REF_REP : DR_CM_REF_OTHER;

	/* Linux cm_issue_rej(): the IDs swapped, the TID kept */
	dr_cm_msg_init(out, DR_CM_ATTR_REJ, dr_mad_get(mad, DR_MAD_TID));
	dr_mad_put(out, DR_CM_REJ_LOCAL_COMM_ID, attr_id == DR_CM_ATTR_REQ ? 0 :
		   dr_mad_get(mad, DR_CM_FIELD(4, 0, 32)));
	dr_mad_put(out, DR_CM_REJ_REMOTE_COMM_ID, dr_mad_get(mad, DR_CM_FIELD(0, 0, 32)));
	dr_mad_put(out, DR_CM_REJ_MESSAGE_REJECTED, ref);
	dr_mad_put(out, DR_CM_REJ_REASON, reason);
}

void
dr_cm_drep_unmatched(uint8_t *out, const uint8_t *mad)
{
	/* IBA 12.9.7: a DREQ for no connection is answered all the same */
	dr_cm_msg_init(out, DR_CM_ATTR_DREP, dr_mad_get(mad, DR_MAD_TID));
	dr_mad_put(out, DR_CM_DREP_LOCAL_COMM_ID, dr_mad_get(mad, DR_CM_DREQ_REMOTE_COMM_ID));
	dr_mad_put(out, DR_CM_DREP_REMOTE_COMM_ID, dr_mad_get(mad, DR_CM_DREQ_LOCAL_COMM_ID));
}

/* ---- names ------------------------------------------------------------- */

const char *
dr_cm_state_str(enum dr_cm_state st)
{
	static const char *const names[] = {
		[DR_CM_IDLE] = "IDLE",
		[DR_CM_REQ_SENT] = "REQ_SENT",
		[DR_CM_MRA_REQ_RCVD] = "MRA_REQ_RCVD",
		[DR_CM_REQ_RCVD] = "REQ_RCVD",
		[DR_CM_MRA_REQ_SENT] = "MRA_REQ_SENT",
		[DR_CM_REP_SENT] = "REP_SENT",
		[DR_CM_MRA_REP_RCVD] = "MRA_REP_RCVD",
		[DR_CM_REP_RCVD] = "REP_RCVD",
		[DR_CM_ESTABLISHED] = "ESTABLISHED",
		[DR_CM_DREQ_SENT] = "DREQ_SENT",
		[DR_CM_DREQ_RCVD] = "DREQ_RCVD",
		[DR_CM_TIMEWAIT] = "TIMEWAIT",
	};

	return (unsigned int)st < DR_CM_STATE_COUNT ? names[st] : "?";
}

const char *
dr_cm_conn_event_str(enum dr_cm_conn_event ev)
{
	static const char *const names[] = {
		[DR_CM_EV_REP_RCVD] = "REP_RCVD",
		[DR_CM_EV_ESTABLISHED] = "ESTABLISHED",
		[DR_CM_EV_REJ_RCVD] = "REJ_RCVD",
		[DR_CM_EV_REQ_TIMEOUT] = "REQ_TIMEOUT",
		[DR_CM_EV_REP_TIMEOUT] = "REP_TIMEOUT",
		[DR_CM_EV_MRA_RCVD] = "MRA_RCVD",
		[DR_CM_EV_DREQ_RCVD] = "DREQ_RCVD",
		[DR_CM_EV_DREP_RCVD] = "DREP_RCVD",
		[DR_CM_EV_DREQ_TIMEOUT] = "DREQ_TIMEOUT",
		[DR_CM_EV_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
	};

	return (unsigned int)ev < sizeof(names) / sizeof(names[0]) ? names[ev] : "?";
}
