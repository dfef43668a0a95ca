/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * A connected id (RDMA_PS_TCP, an RC QP): its connection is a dr_cm_conn
 * of its context's agent (REQ, REP, RTU, DREQ, DREP: IBA 12.9), and the CM
 * moves its QP through RTR and RTS (on the REP: active; on
 * dr_cm_accept(): passive) and ERR as rdma_cm does; the agent's events
 * become the id's. The REQ and REP carry the QPs' ECE as Linux's ib_cm
 * does, and each QP takes the negotiated options just before its RTR
 * (dr_cm_ece.h): two dpdk-rdma ends get selective repeat by themselves.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <rte_random.h>

#include "dr_cm_ece.h"
#include "dr_cm_id.h"
#include "dr_cm_ip.h"
#include "dr_log.h"
#include "dr_qp_impl.h"

/* What Linux's rdma_cm puts in a RoCE REQ (test/vectors/rdmacm_rping.pcap) */
#define CM_ACK_TIMEOUT 19        /* the path's local ACK timeout */
#define CM_HOP_LIMIT 64
#define CM_MIN_RNR_TIMER 12      /* 0.64 ms: what librdmacm's qp attributes default to */

/* RTR then RTS (IBA 10.3: what the CM exchanged), as rdma_cm's cma_modify_qp_rtr/rts(). */
static int
qp_connect(struct dr_cm_id_impl *id, uint32_t dest_qpn, uint32_t rq_psn, uint32_t sq_psn, uint8_t mtu,
	   uint8_t dest_rd_atomic, uint8_t rd_atomic, uint8_t retry, uint8_t rnr_retry, uint8_t timeout)
{
	struct dr_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTR;
	a.path_mtu = (enum dr_mtu)mtu;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = dest_rd_atomic;
	a.min_rnr_timer = CM_MIN_RNR_TIMER;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = id->pub.route.dgid;
	a.ah_attr.grh.sgid_index = id->pub.route.sgid_index;
	a.ah_attr.grh.hop_limit = CM_HOP_LIMIT;
	ret = dr_modify_qp(id->pub.qp, &a, DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN |
			   DR_QP_RQ_PSN | DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER);
	if (ret != 0)
		return ret;
	a.qp_state = DR_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = timeout;
	a.retry_cnt = retry;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = rd_atomic;
	return dr_modify_qp(id->pub.qp, &a, DR_QP_STATE | DR_QP_SQ_PSN | DR_QP_TIMEOUT | DR_QP_RETRY_CNT |
			    DR_QP_RNR_RETRY | DR_QP_MAX_QP_RD_ATOMIC);
}

/* ---- connecting --------------------------------------------------------------- */

int
dr_cm_rc_connect(struct dr_cm_id_impl *id, const struct dr_cm_conn_param *p)
{
	struct dr_cm_id *pub = &id->pub;
	const struct sockaddr_in *dst = (const struct sockaddr_in *)&pub->route.dst_addr;
	uint8_t pdata[DR_CM_REQ_PDATA_LEN] = { 0 };
	struct dr_cm_req_param req;
	struct dr_cm_peer to;
	struct dr_cm_ece ece;
	int ret;

	if (pub->qp == NULL || id->conn != NULL)
		return -EINVAL;
	if (p->private_data_len > DR_CM_REQ_PDATA_LEN - DR_CM_IP_HDR_LEN)
		return -EINVAL;
	dr_cm_id_ip_pdata(id, pdata, p->private_data, p->private_data_len);
	id->local_psn = (uint32_t)rte_rand() & 0xFFFFFF;
	id->param = *p;
	memset(&req, 0, sizeof(req));
	/* the QP's ECE (what it supports, or what the application set on it) in the REQ */
	if (dr_query_ece(pub->qp, &id->ece_offer) != 0)
		memset(&id->ece_offer, 0, sizeof(id->ece_offer));
	ece = dr_cm_ece_offer(&id->ece_offer);
	req.vendor_id = ece.vendor_id;
	req.ece_options = ece.options;
	req.service_id = dr_cm_ip_service_id(pub->ps, ntohs(dst->sin_port));
	req.local_ca_guid = id->svc->agent.ca_guid;
	req.local_qpn = pub->qp->qp_num;
	req.responder_resources = p->responder_resources;
	req.initiator_depth = p->initiator_depth;
	req.transport = DR_CM_TRANSPORT_RC;
	req.flow_control = p->flow_control != 0;
	req.starting_psn = id->local_psn;
	req.retry_count = p->retry_count & 7;
	req.pkey = 0xFFFF;
	req.path_mtu = (uint8_t)pub->route.mtu;
	req.rnr_retry_count = p->rnr_retry_count & 7;
	req.srq = p->srq != 0;
	req.local_lid = req.remote_lid = 0xFFFF;
	memcpy(req.local_gid, pub->route.sgid.raw, 16);
	memcpy(req.remote_gid, pub->route.dgid.raw, 16);
	req.hop_limit = CM_HOP_LIMIT;
	req.local_ack_timeout = id->ack_timeout >= 0 ? (uint8_t)id->ack_timeout : CM_ACK_TIMEOUT;
	req.pdata = pdata;
	req.pdata_len = DR_CM_REQ_PDATA_LEN;
	memcpy(to.gid, pub->route.dgid.raw, 16);
	dr_cm_svc_lock(id->svc);
	id->conn = dr_cm_agent_conn_new(&id->svc->agent, &to, dr_cm_id_timing(), id);
	if (id->conn == NULL) {
		ret = -ENOMEM;
	} else {
		ret = dr_cm_conn_connect(id->conn, &req, dr_cm_agent_tid(&id->svc->agent), dr_cm_svc_now());
		if (ret != 0) {
			dr_cm_agent_conn_release(&id->svc->agent, id->conn, dr_cm_svc_now());
			id->conn = NULL;
		}
	}
	dr_cm_svc_unlock(id->svc);
	return ret;
}

/*
 * Passive, before RTR: the REQ's ECE against the QP's. Ours on both ends:
 * the QP takes the options both offer (librdmacm's init_ece()); anything
 * else sets nothing. *@reply is what the REP answers. 0 or -errno.
 */
static int
accept_ece(struct dr_cm_id_impl *id, struct dr_cm_ece *reply)
{
	const struct dr_cm_ece req = { .vendor_id = id->req.vendor_id, .options = id->req.ece_options };
	struct dr_ece local, take;
	bool took = false;
	int ret = 0;

	if (dr_query_ece(id->pub.qp, &local) == 0 && dr_cm_ece_accept(&req, &local, &take)) {
		ret = dr_set_ece(id->pub.qp, &take);    /* writes back the options the QP took */
		took = ret == 0;
	}
	*reply = dr_cm_ece_reply(&req, took ? &take : NULL);
	DR_LOG(cm, DEBUG, "QP 0x%x: REQ ECE %#x/%#x: %s, REP ECE %#x/%#x", id->pub.qp->qp_num, req.vendor_id,
	       req.options, took ? "options taken" : "nothing set", reply->vendor_id, reply->options);
	return ret;
}

int
dr_cm_rc_accept(struct dr_cm_id_impl *id, const struct dr_cm_conn_param *p)
{
	struct dr_cm_id *pub = &id->pub;
	struct dr_cm_rep_param rep;
	struct dr_cm_ece ece;
	uint8_t mtu;
	int ret;

	if (id->conn == NULL || pub->qp == NULL || id->conn->active || p->private_data_len > DR_CM_REP_PDATA_LEN)
		return -EINVAL;
	dr_cm_svc_lock(id->svc);
	if (id->conn->state != DR_CM_REQ_RCVD && id->conn->state != DR_CM_MRA_REQ_SENT) {
		dr_cm_svc_unlock(id->svc);
		return -EINVAL;
	}
	id->local_psn = (uint32_t)rte_rand() & 0xFFFFFF;
	mtu = RTE_MIN(id->req.path_mtu, (uint8_t)pub->route.mtu);
	dr_qp_comm_est_arm(pub->qp);    /* its first request stands in for a lost RTU (dr_cm_rc_tick()) */
	ret = accept_ece(id, &ece);
	/* the REQ's Starting PSN is the one we send with, the REP's the one we expect (see on_rep()) */
	if (ret == 0)
		ret = qp_connect(id, id->req.local_qpn, id->local_psn, id->req.starting_psn, mtu,
				 p->responder_resources, RTE_MIN(p->initiator_depth, id->req.responder_resources),
				 id->req.retry_count, id->req.rnr_retry_count,
				 /* ours when set (dr_cm_set_option()), as Linux's rdma_cm: else the REQ's */
				 id->ack_timeout >= 0 ? (uint8_t)id->ack_timeout : id->req.local_ack_timeout);
	if (ret == 0) {
		memset(&rep, 0, sizeof(rep));
		rep.vendor_id = ece.vendor_id;
		rep.ece_options = ece.options;
		rep.local_qpn = pub->qp->qp_num;
		rep.starting_psn = id->local_psn;
		rep.responder_resources = p->responder_resources;
		rep.initiator_depth = p->initiator_depth;
		rep.target_ack_delay = 15;
		rep.flow_control = p->flow_control != 0;
		rep.rnr_retry_count = p->rnr_retry_count & 7;
		rep.srq = p->srq != 0;
		rep.local_ca_guid = id->svc->agent.ca_guid;
		rep.pdata = p->private_data;
		rep.pdata_len = p->private_data_len;
		ret = dr_cm_conn_accept(id->conn, &rep, dr_cm_svc_now());
	}
	if (ret == 0 && !id->rtu_wait) {
		id->next_rtu = id->svc->rtu_waiters;
		id->svc->rtu_waiters = id;
		id->rtu_wait = true;
	}
	dr_cm_svc_unlock(id->svc);
	return ret;
}

int
dr_cm_rc_reject(struct dr_cm_id_impl *id, const void *pdata, uint8_t len)
{
	int ret;

	if (id->conn == NULL)
		return -EINVAL;
	dr_cm_svc_lock(id->svc);
	ret = dr_cm_conn_reject(id->conn, DR_CM_REJ_CONSUMER_DEFINED, pdata, len, dr_cm_svc_now());
	dr_cm_svc_unlock(id->svc);
	return ret;
}

int
dr_cm_rc_disconnect(struct dr_cm_id_impl *id)
{
	int ret;

	if (id->conn == NULL)
		return -EINVAL;
	dr_cm_id_qp_error(id);
	dr_cm_svc_lock(id->svc);
	ret = dr_cm_conn_disconnect(id->conn, NULL, 0, dr_cm_svc_now());
	dr_cm_svc_unlock(id->svc);
	return ret;
}

/* ---- the agent's calls, with the service locked -------------------------------- */

/* A REQ for listener @l: a new id, CONNECT_REQUEST (rdma_cm's cma_ib_req_handler()). */
void
dr_cm_rc_on_req(struct dr_cm_svc *s, void *listener, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct dr_cm_id_impl *l = listener, *id;
	struct dr_cm_conn_param cp;
	struct dr_cm_req_param req;

	dr_cm_req_unpack(mad, &req);
	if (req.transport != DR_CM_TRANSPORT_RC) {
		dr_cm_agent_reject_req(&s->agent, DR_CM_REJ_INVALID_TRANSPORT_TYPE);
		return;
	}
	if (l->pub.ps != DR_CM_PS_TCP) {
		/* a Service ID of another port space (rdma_cm: cma_check_req_qp_type() fails) */
		dr_cm_agent_reject_req(&s->agent, DR_CM_REJ_CONSUMER_DEFINED);
		return;
	}
	id = dr_cm_id_passive(s, l, from, req.pdata);
	if (id == NULL) {
		dr_cm_agent_reject_req(&s->agent, DR_CM_REJ_CONSUMER_DEFINED);
		return;
	}
	id->req = req;
	id->conn = dr_cm_agent_accept_req(&s->agent, from, mad, dr_cm_id_timing(), id, dr_cm_svc_now());
	if (id->conn == NULL) {
		dr_cm_id_free(id);
		return;          /* "no resources" */
	}
	/* ib_cm's view: what the peer offers, turned to ours */
	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = req.initiator_depth;
	cp.initiator_depth = req.responder_resources;
	cp.flow_control = req.flow_control;
	cp.retry_count = req.retry_count;
	cp.rnr_retry_count = req.rnr_retry_count;
	cp.srq = req.srq;
	cp.qp_num = req.local_qpn;
	dr_cm_event_post(id, DR_CM_EVENT_CONNECT_REQUEST, 0, &cp, DR_CM_REQ_PDATA_LEN - DR_CM_IP_HDR_LEN,
			 req.pdata + DR_CM_IP_HDR_LEN, l);
}

/* Active: the REP. RTR, RTS, the RTU, ESTABLISHED (rdma_cm's cma_rep_recv()). */
static void
on_rep(struct dr_cm_id_impl *id, struct dr_cm_conn *c, const uint8_t *mad)
{
	struct dr_cm_rep_param rep;
	struct dr_cm_conn_param cp;
	struct dr_cm_ece ece;
	struct dr_ece take;
	int ret = 0;

	dr_cm_rep_unpack(mad, &rep);
	/* the REP's ECE, if it is ours, before RTR (librdmacm's ucma_process_conn_resp_ece()) */
	ece = (struct dr_cm_ece){ .vendor_id = rep.vendor_id, .options = rep.ece_options };
	if (dr_cm_ece_confirm(&ece, &id->ece_offer, &take))
		ret = dr_set_ece(id->pub.qp, &take);
	DR_LOG(cm, DEBUG, "QP 0x%x: REP ECE %#x/%#x: %s", id->pub.qp->qp_num, ece.vendor_id, ece.options,
	       dr_cm_ece_ours(ece.vendor_id) ? "taken" : "not ours, nothing set");
	/*
	 * A message's Starting PSN is the first its receiver sends (Linux ib_cm:
	 * the REQ's becomes the passive side's sq_psn, the REP's the active
	 * side's; test_cm_vectors checks it on rping's capture): we expect ours,
	 * we send with the REP's.
	 */
	if (ret == 0)
		ret = qp_connect(id, rep.local_qpn, id->local_psn, rep.starting_psn, (uint8_t)id->pub.route.mtu,
				 id->param.responder_resources,
				 RTE_MIN(id->param.initiator_depth, rep.responder_resources),
				 id->param.retry_count & 7, rep.rnr_retry_count,
				 id->ack_timeout >= 0 ? (uint8_t)id->ack_timeout : CM_ACK_TIMEOUT);
	if (ret != 0) {
		DR_LOG(cm, INFO, "REP: the QP could not be readied: %s", strerror(-ret));
		(void)dr_cm_conn_reject(c, DR_CM_REJ_NO_RESOURCES, NULL, 0, dr_cm_svc_now());
		dr_cm_event_post(id, DR_CM_EVENT_CONNECT_ERROR, ret, NULL, 0, NULL, NULL);
		return;
	}
	(void)dr_cm_conn_send_rtu(c, NULL, 0, dr_cm_svc_now());
	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = rep.initiator_depth;
	cp.initiator_depth = rep.responder_resources;
	cp.flow_control = rep.flow_control;
	cp.rnr_retry_count = rep.rnr_retry_count;
	cp.srq = rep.srq;
	cp.qp_num = rep.local_qpn;
	dr_cm_event_post(id, DR_CM_EVENT_ESTABLISHED, 0, &cp, DR_CM_REP_PDATA_LEN, rep.pdata, NULL);
}

void
dr_cm_rc_on_event(struct dr_cm_svc *s, struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad)
{
	struct dr_cm_id_impl *id = dr_cm_agent_user(c);

	(void)s;
	if (id == NULL)
		return;
	switch (ev) {
	case DR_CM_EV_REP_RCVD:
		on_rep(id, c, mad);
		break;
	case DR_CM_EV_ESTABLISHED:
		dr_cm_event_post(id, DR_CM_EVENT_ESTABLISHED, 0, NULL, 0, NULL, NULL);
		break;
	case DR_CM_EV_REJ_RCVD:
		dr_cm_event_post(id, DR_CM_EVENT_REJECTED, (int)dr_mad_get(mad, DR_CM_REJ_REASON), NULL,
				 DR_CM_REJ_PDATA_LEN, mad + DR_CM_REJ_PDATA_OFF, NULL);
		dr_cm_id_qp_error(id);
		break;
	case DR_CM_EV_REQ_TIMEOUT:
	case DR_CM_EV_REP_TIMEOUT:
		dr_cm_event_post(id, DR_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0, NULL, NULL);
		dr_cm_id_qp_error(id);
		break;
	case DR_CM_EV_DREQ_RCVD:
		/*
		 * rdma_cm: DISCONNECTED, the QP to ERR; the DREP when the application
		 * disconnects. The event first: a completion flushed by the ERR finds
		 * it queued (the flush may reach the CQ from a worker at once).
		 */
		dr_cm_event_post(id, DR_CM_EVENT_DISCONNECTED, 0, NULL, DR_CM_DREQ_PDATA_LEN,
				 mad + DR_CM_DREQ_PDATA_OFF, NULL);
		dr_cm_id_qp_error(id);
		break;
	case DR_CM_EV_DREP_RCVD:
	case DR_CM_EV_DREQ_TIMEOUT:
		dr_cm_event_post(id, DR_CM_EVENT_DISCONNECTED, 0, NULL, 0, NULL, NULL);
		break;
	case DR_CM_EV_TIMEWAIT_EXIT:
		dr_cm_event_post(id, DR_CM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0, NULL, NULL);
		break;
	case DR_CM_EV_MRA_RCVD:
	default:
		break;
	}
}

/* ---- the RTU, or the first request in its place ---------------------------------- */

void
dr_cm_rc_unwait_locked(struct dr_cm_id_impl *id)
{
	struct dr_cm_id_impl **pp;

	if (!id->rtu_wait || id->svc == NULL)
		return;
	for (pp = (struct dr_cm_id_impl **)&id->svc->rtu_waiters; *pp != NULL; pp = &(*pp)->next_rtu)
		if (*pp == id) {
			*pp = id->next_rtu;
			break;
		}
	id->rtu_wait = false;
	id->next_rtu = NULL;
}

/*
 * IBA 12.9.6 (and 11.6.3): a passive side whose QP has received a request
 * while it waits for the RTU takes the connection as established, as
 * ib_cm does on the COMM_EST event (ib_cm_notify()): a lost RTU costs no
 * REP timeout. Connections past REP_SENT (the RTU came, or a REJ) leave
 * the list.
 */
void
dr_cm_rc_tick(struct dr_cm_svc *s, uint64_t now)
{
	struct dr_cm_id_impl **pp = (struct dr_cm_id_impl **)&s->rtu_waiters;

	while (*pp != NULL) {
		struct dr_cm_id_impl *id = *pp;
		struct dr_cm_conn *c = id->conn;
		bool waiting = c != NULL && (c->state == DR_CM_REP_SENT || c->state == DR_CM_MRA_REP_RCVD);

		if (waiting && (id->pub.qp == NULL || !dr_qp_comm_est_seen(id->pub.qp))) {
			pp = &id->next_rtu;
			continue;
		}
		*pp = id->next_rtu;
		id->rtu_wait = false;
		id->next_rtu = NULL;
		if (waiting)
			dr_cm_conn_comm_est(c, now);   /* ESTABLISHED (dr_cm_rc_on_event()) */
	}
}
