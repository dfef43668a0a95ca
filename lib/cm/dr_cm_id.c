/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The rdma_cm-shaped API (include/dr_cm.h): ids, their QPs and addresses,
 * over each context's CM service (dr_cm_svc.h). An id's connection is a
 * dr_cm_conn of its context's agent; the agent's events become the id's,
 * queued on its channel (dr_cm_event.c). Everything of an id bound to a
 * context happens under that context's service lock.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_random.h>

#include "dr_cm_id.h"
#include "dr_cm_ip.h"
#include "dr_context.h"
#include "dr_log.h"

/* What Linux's rdma_cm puts in a RoCE REQ (test/vectors/rdmacm_rping.pcap) */
#define CM_RESPONSE_TIMEOUT 20   /* 4.096 us * 2^20: 4.3 s */
#define CM_MAX_RETRIES 15
#define CM_ACK_TIMEOUT 19        /* the path's local ACK timeout */
#define CM_PACKET_LIFETIME 16
#define CM_MRA_TIMEOUT 24
#define CM_HOP_LIMIT 64
#define CM_MIN_RNR_TIMER 12      /* 0.64 ms: what librdmacm's qp attributes default to */

static const struct dr_cm_timing cm_timing = {
	.peer_response_timeout = CM_RESPONSE_TIMEOUT, .local_response_timeout = CM_RESPONSE_TIMEOUT,
	.packet_lifetime = CM_PACKET_LIFETIME, .max_retries = CM_MAX_RETRIES,
	.mra_service_timeout = CM_MRA_TIMEOUT,
};

struct dr_cm_id_impl *
dr_cm_id_impl(struct dr_cm_id *id)
{
	return (struct dr_cm_id_impl *)id;
}

/* ---- addresses --------------------------------------------------------------- */

static int
v4_of(const struct sockaddr *a, uint32_t *ip, uint16_t *port)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)a;

	if (a == NULL || a->sa_family != AF_INET)
		return -EAFNOSUPPORT;
	*ip = in->sin_addr.s_addr;
	*port = ntohs(in->sin_port);
	return 0;
}

static void
gid_v4(union dr_gid *g, uint32_t ip)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = g->raw[11] = 0xFF;
	memcpy(&g->raw[12], &ip, 4);
}

static void
sin_set(struct sockaddr_storage *ss, uint32_t ip, uint16_t port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = ip;
	in->sin_port = htons(port);
}

/* The open context whose port has IPv4 @ip (network order; 0: the first with one). */
static struct dr_context *
ctx_of_ip(uint32_t ip)
{
	struct dr_context *found = NULL;

	dr_ctx_registry_lock();
	for (uint16_t p = 0; p < RTE_MAX_ETHPORTS && found == NULL; p++) {
		struct dr_context *ctx = dr_ctx_registry_get(p);

		if (ctx != NULL && ctx->attr.ipv4_addr != 0 && (ip == 0 || ctx->attr.ipv4_addr == ip))
			found = ctx;
	}
	dr_ctx_registry_unlock();
	return found;
}

/* Bind @id to @ctx: its CM service started if it is not. */
static int
bind_ctx(struct dr_cm_id_impl *id, struct dr_context *ctx)
{
	int ret;

	if (dr_cm_svc_of(ctx) == NULL) {
		ret = dr_cm_svc_start(ctx, &dr_cm_svc_ops, NULL);
		if (ret != 0 && ret != -EEXIST)
			return ret;
	}
	id->pub.verbs = ctx;
	id->svc = dr_cm_svc_of(ctx);
	id->pub.port_num = 1;
	id->pub.route.sgid_index = 1;
	(void)dr_query_gid(ctx, 1, 1, &id->pub.route.sgid);
	id->pub.route.mtu = (enum dr_mtu)ctx->active_mtu;
	return 0;
}

int
dr_cm_bind_addr(struct dr_cm_id *pub, const struct sockaddr *addr)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	struct dr_context *ctx;
	uint32_t ip;
	uint16_t port;
	int ret = v4_of(addr, &ip, &port);

	if (ret != 0)
		return ret;
	if (pub->verbs != NULL)
		return -EINVAL;
	ctx = ctx_of_ip(ip);
	if (ctx == NULL)
		return -EADDRNOTAVAIL;
	ret = bind_ctx(id, ctx);
	if (ret == 0)
		sin_set(&pub->route.src_addr, ctx->attr.ipv4_addr, port);
	return ret;
}

int
dr_cm_resolve_addr(struct dr_cm_id *pub, const struct sockaddr *src, const struct sockaddr *dst, int timeout_ms)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	uint32_t ip;
	uint16_t port;
	int ret;

	(void)timeout_ms;       /* the neighbour is resolved by the first frame to it */
	ret = v4_of(dst, &ip, &port);
	if (ret != 0)
		return ret;
	if (pub->verbs == NULL) {
		struct sockaddr_in any = { .sin_family = AF_INET };

		if (src == NULL) {
			struct dr_context *ctx = ctx_of_ip(0);

			if (ctx == NULL)
				return -EADDRNOTAVAIL;
			any.sin_addr.s_addr = ctx->attr.ipv4_addr;
			src = (const struct sockaddr *)&any;
		}
		ret = dr_cm_bind_addr(pub, src);
		if (ret != 0)
			return ret;
	}
	sin_set(&pub->route.dst_addr, ip, port);
	gid_v4(&pub->route.dgid, ip);
	dr_cm_event_post(id, DR_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0, NULL, NULL);
	return 0;
}

int
dr_cm_resolve_route(struct dr_cm_id *pub, int timeout_ms)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);

	(void)timeout_ms;       /* one path: the GIDs and the context's active MTU */
	if (pub->verbs == NULL || pub->route.dst_addr.ss_family != AF_INET)
		return -EINVAL;
	dr_cm_event_post(id, DR_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0, NULL, NULL);
	return 0;
}

/* ---- QPs --------------------------------------------------------------------- */

int
dr_cm_create_qp(struct dr_cm_id *pub, struct dr_pd *pd, struct dr_qp_init_attr *ia)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	struct dr_qp_attr a;
	struct dr_qp *qp;
	int ret;

	if (pub->verbs == NULL || pub->qp != NULL || ia == NULL || ia->qp_type != DR_QPT_RC)
		return -EINVAL;
	if (pd == NULL) {
		if (id->own_pd == NULL && (id->own_pd = dr_alloc_pd(pub->verbs)) == NULL)
			return -errno;
		pd = id->own_pd;
	}
	if (pd->context != pub->verbs)
		return -EINVAL;
	qp = dr_create_qp(pd, ia);
	if (qp == NULL)
		return -errno;
	/* rdma_create_qp(3): INIT at once, the rights rdma_cm gives a connected QP */
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			    DR_ACCESS_REMOTE_ATOMIC;
	ret = dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS);
	if (ret != 0) {
		(void)dr_destroy_qp(qp);
		return ret;
	}
	pub->qp = qp;
	pub->pd = pd;
	return 0;
}

void
dr_cm_destroy_qp(struct dr_cm_id *pub)
{
	if (pub->qp != NULL && dr_destroy_qp(pub->qp) == 0)
		pub->qp = NULL;
}

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

static void
qp_error(struct dr_cm_id_impl *id)
{
	struct dr_qp_attr a = { .qp_state = DR_QPS_ERR };

	if (id->pub.qp != NULL)
		(void)dr_modify_qp(id->pub.qp, &a, DR_QP_STATE);
}

/* ---- connecting --------------------------------------------------------------- */

int
dr_cm_listen(struct dr_cm_id *pub, int backlog)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	const struct sockaddr_in *src = (const struct sockaddr_in *)&pub->route.src_addr;
	int ret;

	(void)backlog;
	if (pub->verbs == NULL || id->listening || id->conn != NULL)
		return -EINVAL;
	id->service_id = dr_cm_ip_service_id(pub->ps, ntohs(src->sin_port));
	dr_cm_svc_lock(id->svc);
	ret = dr_cm_agent_listen(&id->svc->agent, id->service_id, id);
	dr_cm_svc_unlock(id->svc);
	if (ret == 0)
		id->listening = true;
	return ret;
}

int
dr_cm_connect(struct dr_cm_id *pub, struct dr_cm_conn_param *p)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	const struct sockaddr_in *src = (const struct sockaddr_in *)&pub->route.src_addr;
	const struct sockaddr_in *dst = (const struct sockaddr_in *)&pub->route.dst_addr;
	uint8_t pdata[DR_CM_REQ_PDATA_LEN] = { 0 };
	struct dr_cm_ip_hdr h = { .ip_version = 4 };
	struct dr_cm_req_param req;
	struct dr_cm_peer to;
	int ret;

	if (pub->verbs == NULL || pub->qp == NULL || p == NULL || id->conn != NULL || id->listening ||
	    pub->route.dst_addr.ss_family != AF_INET)
		return -EINVAL;
	if (p->private_data_len > DR_CM_REQ_PDATA_LEN - DR_CM_IP_HDR_LEN ||
	    (p->private_data_len > 0 && p->private_data == NULL))
		return -EINVAL;
	/* Annex A11.6.1: the IP addressing header, then the application's bytes */
	h.src_port = ntohs(src->sin_port) != 0 ? ntohs(src->sin_port) :
		     (uint16_t)(0xC000 | (rte_rand() & 0x3FFF));
	memcpy(&h.src_addr[12], &src->sin_addr.s_addr, 4);
	memcpy(&h.dst_addr[12], &dst->sin_addr.s_addr, 4);
	dr_cm_ip_hdr_pack(&h, pdata);
	if (p->private_data_len > 0)
		memcpy(pdata + DR_CM_IP_HDR_LEN, p->private_data, p->private_data_len);
	id->local_psn = (uint32_t)rte_rand() & 0xFFFFFF;
	id->param = *p;
	memset(&req, 0, sizeof(req));
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
	req.local_ack_timeout = CM_ACK_TIMEOUT;
	req.pdata = pdata;
	req.pdata_len = DR_CM_REQ_PDATA_LEN;
	memcpy(to.gid, pub->route.dgid.raw, 16);
	dr_cm_svc_lock(id->svc);
	id->conn = dr_cm_agent_conn_new(&id->svc->agent, &to, &cm_timing, id);
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

int
dr_cm_accept(struct dr_cm_id *pub, struct dr_cm_conn_param *p)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	struct dr_cm_rep_param rep;
	uint8_t mtu;
	int ret;

	if (id->conn == NULL || pub->qp == NULL || p == NULL || id->conn->active ||
	    p->private_data_len > DR_CM_REP_PDATA_LEN || (p->private_data_len > 0 && p->private_data == NULL))
		return -EINVAL;
	dr_cm_svc_lock(id->svc);
	if (id->conn->state != DR_CM_REQ_RCVD && id->conn->state != DR_CM_MRA_REQ_SENT) {
		dr_cm_svc_unlock(id->svc);
		return -EINVAL;
	}
	id->local_psn = (uint32_t)rte_rand() & 0xFFFFFF;
	mtu = RTE_MIN(id->req.path_mtu, (uint8_t)pub->route.mtu);
	/* the REQ's Starting PSN is the one we send with, the REP's the one we expect (see on_rep()) */
	ret = qp_connect(id, id->req.local_qpn, id->local_psn, id->req.starting_psn, mtu,
			 p->responder_resources, RTE_MIN(p->initiator_depth, id->req.responder_resources),
			 id->req.retry_count, id->req.rnr_retry_count, id->req.local_ack_timeout);
	if (ret == 0) {
		memset(&rep, 0, sizeof(rep));
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
	dr_cm_svc_unlock(id->svc);
	return ret;
}

int
dr_cm_reject(struct dr_cm_id *pub, const void *pdata, uint8_t len)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	int ret;

	if (id->conn == NULL)
		return -EINVAL;
	dr_cm_svc_lock(id->svc);
	ret = dr_cm_conn_reject(id->conn, DR_CM_REJ_CONSUMER_DEFINED, pdata, len, dr_cm_svc_now());
	dr_cm_svc_unlock(id->svc);
	return ret;
}

int
dr_cm_disconnect(struct dr_cm_id *pub)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	int ret;

	if (id->conn == NULL)
		return -EINVAL;
	qp_error(id);
	dr_cm_svc_lock(id->svc);
	ret = dr_cm_conn_disconnect(id->conn, NULL, 0, dr_cm_svc_now());
	dr_cm_svc_unlock(id->svc);
	return ret;
}

/* ---- the agent's calls, with the service locked -------------------------------- */

/* A REQ for listener @l: a new id, CONNECT_REQUEST (rdma_cm's cma_ib_req_handler()). */
static void
on_req(struct dr_cm_svc *s, void *listener, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct dr_cm_id_impl *l = listener, *id;
	struct dr_cm_conn_param cp;
	struct dr_cm_ip_hdr h;
	struct dr_cm_req_param req;
	uint32_t sip, dip;

	dr_cm_req_unpack(mad, &req);
	if (req.transport != DR_CM_TRANSPORT_RC) {
		dr_cm_agent_reject_req(&s->agent, DR_CM_REJ_INVALID_TRANSPORT_TYPE);
		return;
	}
	if (dr_cm_ip_hdr_unpack(req.pdata, &h) != 0 || h.ip_version != 4) {
		dr_cm_agent_reject_req(&s->agent, DR_CM_REJ_CONSUMER_DEFINED);
		return;
	}
	id = dr_cm_id_new(l->ch, l->pub.context, l->pub.ps);
	if (id == NULL)
		return;          /* "no resources" */
	if (bind_ctx(id, s->ctx) != 0) {
		dr_cm_id_free(id);
		return;
	}
	memcpy(&sip, &h.src_addr[12], 4);
	memcpy(&dip, &h.dst_addr[12], 4);
	sin_set(&id->pub.route.src_addr, dip, ntohs(((struct sockaddr_in *)&l->pub.route.src_addr)->sin_port));
	sin_set(&id->pub.route.dst_addr, sip, h.src_port);
	memcpy(id->pub.route.dgid.raw, from->gid, 16);
	id->req = req;
	id->conn = dr_cm_agent_accept_req(&s->agent, from, mad, &cm_timing, id, dr_cm_svc_now());
	if (id->conn == NULL) {
		dr_cm_id_free(id);
		return;
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
	int ret;

	dr_cm_rep_unpack(mad, &rep);
	/*
	 * A message's Starting PSN is the first its receiver sends (Linux ib_cm:
	 * the REQ's becomes the passive side's sq_psn, the REP's the active
	 * side's; test_cm_vectors checks it on rping's capture): we expect ours,
	 * we send with the REP's.
	 */
	ret = qp_connect(id, rep.local_qpn, id->local_psn, rep.starting_psn, (uint8_t)id->pub.route.mtu,
			 id->param.responder_resources, RTE_MIN(id->param.initiator_depth, rep.responder_resources),
			 id->param.retry_count & 7, rep.rnr_retry_count, CM_ACK_TIMEOUT);
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

static void
on_event(struct dr_cm_svc *s, struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad)
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
		qp_error(id);
		break;
	case DR_CM_EV_REQ_TIMEOUT:
	case DR_CM_EV_REP_TIMEOUT:
		dr_cm_event_post(id, DR_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0, NULL, NULL);
		qp_error(id);
		break;
	case DR_CM_EV_DREQ_RCVD:
		/*
		 * rdma_cm: DISCONNECTED, the QP to ERR; the DREP when the application
		 * disconnects. The event first: a completion flushed by the ERR finds
		 * it queued (the flush may reach the CQ from a worker at once).
		 */
		dr_cm_event_post(id, DR_CM_EVENT_DISCONNECTED, 0, NULL, DR_CM_DREQ_PDATA_LEN,
				 mad + DR_CM_DREQ_PDATA_OFF, NULL);
		qp_error(id);
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

const struct dr_cm_svc_ops dr_cm_svc_ops = { .req = on_req, .event = on_event };

/* ---- ids ------------------------------------------------------------------------ */

int
dr_cm_create_id(struct dr_cm_event_channel *ch, struct dr_cm_id **out, void *context, uint16_t ps)
{
	struct dr_cm_id_impl *id;

	if (ch == NULL || out == NULL)
		return -EINVAL;
	if (ps != DR_CM_PS_TCP)
		return -EPROTONOSUPPORT;   /* this version: connected QPs (doc/guides/cm.rst) */
	id = dr_cm_id_new(dr_cm_channel_impl(ch), context, ps);
	if (id == NULL)
		return -ENOMEM;
	*out = &id->pub;
	return 0;
}

int
dr_cm_destroy_id(struct dr_cm_id *pub)
{
	struct dr_cm_id_impl *id;

	if (pub == NULL)
		return -EINVAL;
	id = dr_cm_id_impl(pub);
	if (pub->qp != NULL || dr_cm_event_pending(id))
		return -EBUSY;
	if (id->svc != NULL) {
		dr_cm_svc_lock(id->svc);
		if (id->listening)
			(void)dr_cm_agent_unlisten(&id->svc->agent, id->service_id);
		if (id->conn != NULL)
			dr_cm_agent_conn_release(&id->svc->agent, id->conn, dr_cm_svc_now());
		dr_cm_svc_unlock(id->svc);
	}
	dr_cm_event_forget(id);
	if (id->own_pd != NULL)
		(void)dr_dealloc_pd(id->own_pd);
	dr_cm_id_free(id);
	return 0;
}
