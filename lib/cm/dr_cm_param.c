/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* REQ and REP contents to and from the wire (IBA 12.6.5 Table 106, 12.6.8 Table 110). */

#include <errno.h>
#include <string.h>

#include "dr_cm_msg.h"
#include "dr_cm_param.h"

/* Put @v in @f; clear *ok if it does not fit (a caller's value out of its field's range). */
static void
put(uint8_t *mad, struct dr_mad_field f, uint64_t v, bool *ok)
{
	if (f.width < 64 && (v >> f.width) != 0)
		*ok = false;
	dr_mad_put(mad, f, v);
}

static int
put_pdata(uint8_t *mad, uint16_t attr_id, const uint8_t *pdata, unsigned int len)
{
	if (len > dr_cm_pdata_len(attr_id) || (len > 0 && pdata == NULL))
		return -EINVAL;
	if (len > 0)
		memcpy(mad + dr_cm_pdata_off(attr_id), pdata, len);
	return 0;
}

int
dr_cm_req_pack(uint8_t *mad, uint64_t tid, const struct dr_cm_req_param *p)
{
	bool ok = true;

	dr_cm_msg_init(mad, DR_CM_ATTR_REQ, tid);
	put(mad, DR_CM_REQ_LOCAL_COMM_ID, p->local_comm_id, &ok);
	put(mad, DR_CM_REQ_SERVICE_ID, p->service_id, &ok);
	put(mad, DR_CM_REQ_LOCAL_CA_GUID, p->local_ca_guid, &ok);
	put(mad, DR_CM_REQ_LOCAL_QKEY, p->local_qkey, &ok);
	put(mad, DR_CM_REQ_LOCAL_QPN, p->local_qpn, &ok);
	put(mad, DR_CM_REQ_RESPONDER_RESOURCES, p->responder_resources, &ok);
	put(mad, DR_CM_REQ_INITIATOR_DEPTH, p->initiator_depth, &ok);
	put(mad, DR_CM_REQ_REMOTE_CM_RESP_TIMEOUT, p->remote_cm_response_timeout, &ok);
	put(mad, DR_CM_REQ_TRANSPORT_SERVICE, p->transport, &ok);
	put(mad, DR_CM_REQ_E2E_FLOW_CONTROL, p->flow_control, &ok);
	put(mad, DR_CM_REQ_STARTING_PSN, p->starting_psn, &ok);
	put(mad, DR_CM_REQ_LOCAL_CM_RESP_TIMEOUT, p->local_cm_response_timeout, &ok);
	put(mad, DR_CM_REQ_RETRY_COUNT, p->retry_count, &ok);
	put(mad, DR_CM_REQ_PKEY, p->pkey, &ok);
	put(mad, DR_CM_REQ_PATH_MTU, p->path_mtu, &ok);
	put(mad, DR_CM_REQ_RNR_RETRY_COUNT, p->rnr_retry_count, &ok);
	put(mad, DR_CM_REQ_MAX_CM_RETRIES, p->max_cm_retries, &ok);
	put(mad, DR_CM_REQ_SRQ, p->srq, &ok);
	put(mad, DR_CM_REQ_EXT_TRANSPORT, p->ext_transport, &ok);
	put(mad, DR_CM_REQ_PRI_LOCAL_LID, p->local_lid, &ok);
	put(mad, DR_CM_REQ_PRI_REMOTE_LID, p->remote_lid, &ok);
	memcpy(mad + DR_CM_REQ_PRI_LOCAL_GID_OFF, p->local_gid, 16);
	memcpy(mad + DR_CM_REQ_PRI_REMOTE_GID_OFF, p->remote_gid, 16);
	put(mad, DR_CM_REQ_PRI_FLOW_LABEL, p->flow_label, &ok);
	put(mad, DR_CM_REQ_PRI_PACKET_RATE, p->packet_rate, &ok);
	put(mad, DR_CM_REQ_PRI_TRAFFIC_CLASS, p->traffic_class, &ok);
	put(mad, DR_CM_REQ_PRI_HOP_LIMIT, p->hop_limit, &ok);
	put(mad, DR_CM_REQ_PRI_SL, p->sl, &ok);
	put(mad, DR_CM_REQ_PRI_SUBNET_LOCAL, p->subnet_local, &ok);
	put(mad, DR_CM_REQ_PRI_LOCAL_ACK_TIMEOUT, p->local_ack_timeout, &ok);
	/* Table 106: the path MTU is an MTU code (dr_cm_msg_check() refuses others) */
	if (p->path_mtu < 1 || p->path_mtu > 5)
		ok = false;
	if (put_pdata(mad, DR_CM_ATTR_REQ, p->pdata, p->pdata_len) != 0)
		ok = false;
	return ok ? 0 : -EINVAL;
}

void
dr_cm_req_unpack(const uint8_t *mad, struct dr_cm_req_param *p)
{
	memset(p, 0, sizeof(*p));
	p->local_comm_id = (uint32_t)dr_mad_get(mad, DR_CM_REQ_LOCAL_COMM_ID);
	p->service_id = dr_mad_get(mad, DR_CM_REQ_SERVICE_ID);
	p->local_ca_guid = dr_mad_get(mad, DR_CM_REQ_LOCAL_CA_GUID);
	p->local_qkey = (uint32_t)dr_mad_get(mad, DR_CM_REQ_LOCAL_QKEY);
	p->local_qpn = (uint32_t)dr_mad_get(mad, DR_CM_REQ_LOCAL_QPN);
	p->responder_resources = (uint8_t)dr_mad_get(mad, DR_CM_REQ_RESPONDER_RESOURCES);
	p->initiator_depth = (uint8_t)dr_mad_get(mad, DR_CM_REQ_INITIATOR_DEPTH);
	p->remote_cm_response_timeout = (uint8_t)dr_mad_get(mad, DR_CM_REQ_REMOTE_CM_RESP_TIMEOUT);
	p->transport = (uint8_t)dr_mad_get(mad, DR_CM_REQ_TRANSPORT_SERVICE);
	p->flow_control = dr_mad_get(mad, DR_CM_REQ_E2E_FLOW_CONTROL) != 0;
	p->starting_psn = (uint32_t)dr_mad_get(mad, DR_CM_REQ_STARTING_PSN);
	p->local_cm_response_timeout = (uint8_t)dr_mad_get(mad, DR_CM_REQ_LOCAL_CM_RESP_TIMEOUT);
	p->retry_count = (uint8_t)dr_mad_get(mad, DR_CM_REQ_RETRY_COUNT);
	p->pkey = (uint16_t)dr_mad_get(mad, DR_CM_REQ_PKEY);
	p->path_mtu = (uint8_t)dr_mad_get(mad, DR_CM_REQ_PATH_MTU);
	p->rnr_retry_count = (uint8_t)dr_mad_get(mad, DR_CM_REQ_RNR_RETRY_COUNT);
	p->max_cm_retries = (uint8_t)dr_mad_get(mad, DR_CM_REQ_MAX_CM_RETRIES);
	p->srq = dr_mad_get(mad, DR_CM_REQ_SRQ) != 0;
	p->ext_transport = (uint8_t)dr_mad_get(mad, DR_CM_REQ_EXT_TRANSPORT);
	p->local_lid = (uint16_t)dr_mad_get(mad, DR_CM_REQ_PRI_LOCAL_LID);
	p->remote_lid = (uint16_t)dr_mad_get(mad, DR_CM_REQ_PRI_REMOTE_LID);
	memcpy(p->local_gid, mad + DR_CM_REQ_PRI_LOCAL_GID_OFF, 16);
	memcpy(p->remote_gid, mad + DR_CM_REQ_PRI_REMOTE_GID_OFF, 16);
	p->flow_label = (uint32_t)dr_mad_get(mad, DR_CM_REQ_PRI_FLOW_LABEL);
	p->packet_rate = (uint8_t)dr_mad_get(mad, DR_CM_REQ_PRI_PACKET_RATE);
	p->traffic_class = (uint8_t)dr_mad_get(mad, DR_CM_REQ_PRI_TRAFFIC_CLASS);
	p->hop_limit = (uint8_t)dr_mad_get(mad, DR_CM_REQ_PRI_HOP_LIMIT);
	p->sl = (uint8_t)dr_mad_get(mad, DR_CM_REQ_PRI_SL);
	p->subnet_local = dr_mad_get(mad, DR_CM_REQ_PRI_SUBNET_LOCAL) != 0;
	p->local_ack_timeout = (uint8_t)dr_mad_get(mad, DR_CM_REQ_PRI_LOCAL_ACK_TIMEOUT);
	p->pdata = mad + DR_CM_REQ_PDATA_OFF;
	p->pdata_len = DR_CM_REQ_PDATA_LEN;
}

int
dr_cm_rep_pack(uint8_t *mad, uint64_t tid, const struct dr_cm_rep_param *p)
{
	bool ok = true;

	dr_cm_msg_init(mad, DR_CM_ATTR_REP, tid);
	put(mad, DR_CM_REP_LOCAL_COMM_ID, p->local_comm_id, &ok);
	put(mad, DR_CM_REP_REMOTE_COMM_ID, p->remote_comm_id, &ok);
	put(mad, DR_CM_REP_LOCAL_QKEY, p->local_qkey, &ok);
	put(mad, DR_CM_REP_LOCAL_QPN, p->local_qpn, &ok);
	put(mad, DR_CM_REP_LOCAL_EECN, p->local_eecn, &ok);
	put(mad, DR_CM_REP_STARTING_PSN, p->starting_psn, &ok);
	put(mad, DR_CM_REP_RESPONDER_RESOURCES, p->responder_resources, &ok);
	put(mad, DR_CM_REP_INITIATOR_DEPTH, p->initiator_depth, &ok);
	put(mad, DR_CM_REP_TARGET_ACK_DELAY, p->target_ack_delay, &ok);
	put(mad, DR_CM_REP_FAILOVER_ACCEPTED, p->failover_accepted, &ok);
	put(mad, DR_CM_REP_E2E_FLOW_CONTROL, p->flow_control, &ok);
	put(mad, DR_CM_REP_RNR_RETRY_COUNT, p->rnr_retry_count, &ok);
	put(mad, DR_CM_REP_SRQ, p->srq, &ok);
	put(mad, DR_CM_REP_LOCAL_CA_GUID, p->local_ca_guid, &ok);
	if (put_pdata(mad, DR_CM_ATTR_REP, p->pdata, p->pdata_len) != 0)
		ok = false;
	return ok ? 0 : -EINVAL;
}

void
dr_cm_rep_unpack(const uint8_t *mad, struct dr_cm_rep_param *p)
{
	memset(p, 0, sizeof(*p));
	p->local_comm_id = (uint32_t)dr_mad_get(mad, DR_CM_REP_LOCAL_COMM_ID);
	p->remote_comm_id = (uint32_t)dr_mad_get(mad, DR_CM_REP_REMOTE_COMM_ID);
	p->local_qkey = (uint32_t)dr_mad_get(mad, DR_CM_REP_LOCAL_QKEY);
	p->local_qpn = (uint32_t)dr_mad_get(mad, DR_CM_REP_LOCAL_QPN);
	p->local_eecn = (uint32_t)dr_mad_get(mad, DR_CM_REP_LOCAL_EECN);
	p->starting_psn = (uint32_t)dr_mad_get(mad, DR_CM_REP_STARTING_PSN);
	p->responder_resources = (uint8_t)dr_mad_get(mad, DR_CM_REP_RESPONDER_RESOURCES);
	p->initiator_depth = (uint8_t)dr_mad_get(mad, DR_CM_REP_INITIATOR_DEPTH);
	p->target_ack_delay = (uint8_t)dr_mad_get(mad, DR_CM_REP_TARGET_ACK_DELAY);
	p->failover_accepted = (uint8_t)dr_mad_get(mad, DR_CM_REP_FAILOVER_ACCEPTED);
	p->flow_control = dr_mad_get(mad, DR_CM_REP_E2E_FLOW_CONTROL) != 0;
	p->rnr_retry_count = (uint8_t)dr_mad_get(mad, DR_CM_REP_RNR_RETRY_COUNT);
	p->srq = dr_mad_get(mad, DR_CM_REP_SRQ) != 0;
	p->local_ca_guid = dr_mad_get(mad, DR_CM_REP_LOCAL_CA_GUID);
	p->pdata = mad + DR_CM_REP_PDATA_OFF;
	p->pdata_len = DR_CM_REP_PDATA_LEN;
}
