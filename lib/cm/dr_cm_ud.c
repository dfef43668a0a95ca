/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * A UD id (RDMA_PS_UDP): Service ID Resolution (IBA 12.11) as rdma_cm
 * does it (cma_resolve_ib_udp(), cma_sidr_rep_handler(),
 * cma_send_sidr_rep()). The active side's dr_cm_connect() sends a
 * SIDR_REQ (the IP addressing header of Annex A11.6.1, then the
 * application's private data); the answer becomes ESTABLISHED with the
 * service's QPN, Q_Key and an address to reach it, or UNREACHABLE. The
 * passive side hears CONNECT_REQUEST; dr_cm_accept() answers with its
 * QP's number and DR_UDP_QKEY, dr_cm_reject() (or destroying the id)
 * with "rejected". A UD id's QP is ready at dr_cm_create_qp().
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "dr_cm_addr.h"
#include "dr_cm_id.h"
#include "dr_cm_ip.h"
#include "dr_cm_msg.h"
#include "dr_log.h"

#define SIDR_HOP_LIMIT 64

int
dr_cm_ud_qp_ready(struct dr_cm_id_impl *id)
{
	struct dr_qp_attr a;
	int ret;

	/* librdmacm's ucma_init_ud_qp(): INIT with the port space's Q_Key, RTR, RTS with PSN 0 */
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = DR_UDP_QKEY;
	ret = dr_modify_qp(id->pub.qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY);
	if (ret != 0)
		return ret;
	a.qp_state = DR_QPS_RTR;
	ret = dr_modify_qp(id->pub.qp, &a, DR_QP_STATE);
	if (ret != 0)
		return ret;
	a.qp_state = DR_QPS_RTS;
	a.sq_psn = 0;
	return dr_modify_qp(id->pub.qp, &a, DR_QP_STATE | DR_QP_SQ_PSN);
}

/* ---- the active side ------------------------------------------------------------ */

int
dr_cm_ud_connect(struct dr_cm_id_impl *id, const struct dr_cm_conn_param *p)
{
	uint8_t pdata[DR_CM_SIDR_REQ_PDATA_LEN] = { 0 };
	const struct dr_cm_timing *t = dr_cm_id_timing();
	struct dr_cm_peer to;
	int ret;

	if (id->sidr_asking || id->sidr_owed)
		return -EINVAL;
	if (p->private_data_len > DR_CM_SIDR_REQ_PDATA_LEN - DR_CM_IP_HDR_LEN)
		return -EINVAL;
	dr_cm_id_ip_pdata(id, pdata, p->private_data, p->private_data_len);
	memcpy(to.gid, id->pub.route.dgid.raw, 16);
	dr_cm_svc_lock(id->svc);
	/* rdma_cm's SIDR (cma_resolve_ib_udp()): a try every 2^(timeout - 8) ms (4.1 s), 15 more */
	ret = dr_cm_agent_sidr_req(&id->svc->agent, &to, dr_cm_ip_service_id(id->pub.ps, dr_cm_addr_port(&id->pub.route.dst_addr)),
				   pdata, DR_CM_IP_HDR_LEN + p->private_data_len,
				   (1ull << (t->peer_response_timeout - 8)) * 1000000ull, t->max_retries, id,
				   dr_cm_svc_now());
	if (ret == 0)
		id->sidr_asking = true;
	dr_cm_svc_unlock(id->svc);
	return ret;
}

/* The SIDR_REP to our request, or NULL after the last try (rdma_cm's cma_sidr_rep_handler()). */
void
dr_cm_ud_on_sidr_rep(struct dr_cm_svc *s, void *user, const uint8_t *mad)
{
	struct dr_cm_id_impl *id = user;
	struct dr_cm_ud_param ud;
	uint8_t status;

	(void)s;
	id->sidr_asking = false;
	if (mad == NULL) {
		dr_cm_event_post_ud(id, DR_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0, NULL, NULL);
		return;
	}
	status = (uint8_t)dr_mad_get(mad, DR_CM_SIDR_REP_STATUS);
	if (status != DR_CM_SIDR_SUCCESS) {
		/* IBA table 121: the status is the event's, as rdma_cm reports it */
		dr_cm_event_post_ud(id, DR_CM_EVENT_UNREACHABLE, status, NULL, 0, NULL, NULL);
		return;
	}
	memset(&ud, 0, sizeof(ud));
	ud.qp_num = (uint32_t)dr_mad_get(mad, DR_CM_SIDR_REP_QPN);
	ud.qkey = (uint32_t)dr_mad_get(mad, DR_CM_SIDR_REP_QKEY);
	if (ud.qkey != DR_UDP_QKEY) {
		/* rdma_cm's cma_set_qkey(): the port space's Q_Key or nothing */
		DR_LOG(cm, INFO, "SIDR_REP: Q_Key 0x%08x, not the UDP port space's", ud.qkey);
		dr_cm_event_post_ud(id, DR_CM_EVENT_UNREACHABLE, -EINVAL, NULL, 0, NULL, NULL);
		return;
	}
	ud.ah_attr.is_global = 1;
	ud.ah_attr.port_num = 1;
	ud.ah_attr.grh.dgid = id->pub.route.dgid;
	ud.ah_attr.grh.sgid_index = id->pub.route.sgid_index;
	ud.ah_attr.grh.hop_limit = SIDR_HOP_LIMIT;
	dr_cm_event_post_ud(id, DR_CM_EVENT_ESTABLISHED, 0, &ud, DR_CM_SIDR_REP_PDATA_LEN,
			    mad + DR_CM_SIDR_REP_PDATA_OFF, NULL);
}

/* ---- the passive side ------------------------------------------------------------ */

/* A SIDR_REQ for listener @l: a new id, CONNECT_REQUEST (rdma_cm's cma_ib_req_handler()). */
void
dr_cm_ud_on_sidr_req(struct dr_cm_svc *s, void *listener, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct dr_cm_id_impl *l = listener, *id = NULL;
	const uint8_t *pdata = mad + DR_CM_SIDR_REQ_PDATA_OFF;

	/* a Service ID of another port space: rdma_cm's cma_check_req_qp_type() fails, ib_cm rejects */
	if (l->pub.ps == DR_CM_PS_UDP)
		id = dr_cm_id_passive(s, l, from, pdata);
	if (id == NULL) {
		(void)dr_cm_agent_sidr_rep(&s->agent, from, mad, DR_CM_SIDR_REJECT, 0, 0, NULL, 0);
		return;
	}
	id->sidr_owed = true;
	id->sidr_peer = *from;
	memcpy(id->sidr_req, mad, DR_MAD_SIZE);
	dr_cm_event_post_ud(id, DR_CM_EVENT_CONNECT_REQUEST, 0, NULL, DR_CM_SIDR_REQ_PDATA_LEN - DR_CM_IP_HDR_LEN,
			    pdata + DR_CM_IP_HDR_LEN, l);
}

static int
answer(struct dr_cm_id_impl *id, uint8_t status, uint32_t qpn, const void *pdata, uint8_t len)
{
	int ret;

	if (!id->sidr_owed)
		return -EINVAL;
	if (len > DR_CM_SIDR_REP_PDATA_LEN)
		return -EINVAL;
	dr_cm_svc_lock(id->svc);
	ret = dr_cm_agent_sidr_rep(&id->svc->agent, &id->sidr_peer, id->sidr_req, status, qpn, DR_UDP_QKEY, pdata,
				   len);
	if (ret == 0)
		id->sidr_owed = false;
	dr_cm_svc_unlock(id->svc);
	return ret;
}

int
dr_cm_ud_accept(struct dr_cm_id_impl *id, const struct dr_cm_conn_param *p)
{
	/* rdma_accept(3) on a UD id: the QP's number, or the one the application names */
	uint32_t qpn = id->pub.qp != NULL ? id->pub.qp->qp_num : p->qp_num;

	if (qpn == 0)
		return -EINVAL;
	return answer(id, DR_CM_SIDR_SUCCESS, qpn, p->private_data, p->private_data_len);
}

int
dr_cm_ud_reject(struct dr_cm_id_impl *id, const void *pdata, uint8_t len)
{
	return answer(id, DR_CM_SIDR_REJECT, 0, pdata, len);
}

void
dr_cm_ud_release_locked(struct dr_cm_id_impl *id)
{
	if (id->sidr_asking) {
		dr_cm_agent_sidr_cancel(&id->svc->agent, id);
		id->sidr_asking = false;
	}
	if (id->sidr_owed) {
		/* ib_cm's destroy in SIDR_REQ_RCVD: the requester hears "rejected" now, not a timeout later */
		(void)dr_cm_agent_sidr_rep(&id->svc->agent, &id->sidr_peer, id->sidr_req, DR_CM_SIDR_REJECT, 0, 0,
					   NULL, 0);
		id->sidr_owed = false;
	}
}
