/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * REQ and REP contents to and from the wire (IBA 12.6.5 Table 106, 12.6.8
 * Table 110): one table per message pairs each field with the member that
 * holds it, and one loop packs or unpacks any of them.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "dr_cm_msg.h"
#include "dr_cm_param.h"

/* A field of a message and the member of the plain structure that holds it. */
struct param_field {
	struct dr_mad_field f;
	uint16_t off;           /* offsetof() the member */
	uint8_t size;           /* sizeof() the member: 1 (bool, uint8_t), 2, 4 or 8 */
};

#define PF(field, type, member) { field, offsetof(type, member), sizeof(((type *)0)->member) }
#define REQ(field, member) PF(DR_CM_REQ_##field, struct dr_cm_req_param, member)
#define REP(field, member) PF(DR_CM_REP_##field, struct dr_cm_rep_param, member)

/* Table 106 (the primary path only: RoCE has no alternate, the rest stays zero) */
static const struct param_field req_fields[] = {
	REQ(LOCAL_COMM_ID, local_comm_id), REQ(VENDOR_ID, vendor_id), REQ(SERVICE_ID, service_id),
	REQ(LOCAL_CA_GUID, local_ca_guid), REQ(LOCAL_QKEY, local_qkey), REQ(LOCAL_QPN, local_qpn),
	REQ(RESPONDER_RESOURCES, responder_resources), REQ(INITIATOR_DEPTH, initiator_depth),
	REQ(REMOTE_CM_RESP_TIMEOUT, remote_cm_response_timeout), REQ(TRANSPORT_SERVICE, transport),
	REQ(E2E_FLOW_CONTROL, flow_control), REQ(STARTING_PSN, starting_psn),
	REQ(LOCAL_CM_RESP_TIMEOUT, local_cm_response_timeout), REQ(RETRY_COUNT, retry_count),
	REQ(PKEY, pkey), REQ(PATH_MTU, path_mtu), REQ(RNR_RETRY_COUNT, rnr_retry_count),
	REQ(MAX_CM_RETRIES, max_cm_retries), REQ(SRQ, srq), REQ(EXT_TRANSPORT, ext_transport),
	REQ(PRI_LOCAL_LID, local_lid), REQ(PRI_REMOTE_LID, remote_lid),
	REQ(PRI_FLOW_LABEL, flow_label), REQ(PRI_PACKET_RATE, packet_rate),
	REQ(PRI_TRAFFIC_CLASS, traffic_class), REQ(PRI_HOP_LIMIT, hop_limit), REQ(PRI_SL, sl),
	REQ(PRI_SUBNET_LOCAL, subnet_local), REQ(PRI_LOCAL_ACK_TIMEOUT, local_ack_timeout),
};

/* Table 110 */
static const struct param_field rep_fields[] = {
	REP(LOCAL_COMM_ID, local_comm_id), REP(REMOTE_COMM_ID, remote_comm_id),
	REP(LOCAL_QKEY, local_qkey), REP(LOCAL_QPN, local_qpn), REP(LOCAL_EECN, local_eecn),
	REP(STARTING_PSN, starting_psn), REP(RESPONDER_RESOURCES, responder_resources),
	REP(INITIATOR_DEPTH, initiator_depth), REP(TARGET_ACK_DELAY, target_ack_delay),
	REP(FAILOVER_ACCEPTED, failover_accepted), REP(E2E_FLOW_CONTROL, flow_control),
	REP(RNR_RETRY_COUNT, rnr_retry_count), REP(SRQ, srq), REP(LOCAL_CA_GUID, local_ca_guid),
};

static uint64_t
member_get(const void *p, const struct param_field *pf)
{
	const uint8_t *m = (const uint8_t *)p + pf->off;
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (pf->size) {
	case 8: memcpy(&v8, m, 8); return v8;
	case 4: memcpy(&v4, m, 4); return v4;
	case 2: memcpy(&v2, m, 2); return v2;
	default: return *m;
	}
}

static void
member_put(void *p, const struct param_field *pf, uint64_t v)
{
	uint8_t *m = (uint8_t *)p + pf->off;
	uint32_t v4 = (uint32_t)v;
	uint16_t v2 = (uint16_t)v;

	switch (pf->size) {
	case 8: memcpy(m, &v, 8); break;
	case 4: memcpy(m, &v4, 4); break;
	case 2: memcpy(m, &v2, 2); break;
	default: *m = (uint8_t)v; break;   /* a bool member holds 0 or 1: its field is one bit */
	}
}

/*
 * Message @attr_id of the fields @t of @p, its AttributeModifier @attr_mod
 * (ECE's options: Linux's cm_format_mad_ece_hdr()), then its private data:
 * 0, or -EINVAL when a value overflows its field.
 */
static int
pack(uint8_t *mad, uint16_t attr_id, uint64_t tid, uint32_t attr_mod, const struct param_field *t, size_t n,
     const void *p, const uint8_t *pdata, unsigned int len)
{
	int ret = 0;

	dr_cm_msg_init(mad, attr_id, tid);
	dr_mad_put(mad, DR_MAD_ATTR_MOD, attr_mod);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = member_get(p, &t[i]);

		if (t[i].f.width < 64 && (v >> t[i].f.width) != 0)
			ret = -EINVAL;
		dr_mad_put(mad, t[i].f, v);
	}
	if (dr_cm_msg_pdata(mad, attr_id, pdata, len) != 0)
		return -EINVAL;
	return ret;
}

static void
unpack(const uint8_t *mad, const struct param_field *t, size_t n, void *p)
{
	for (size_t i = 0; i < n; i++)
		member_put(p, &t[i], dr_mad_get(mad, t[i].f));
}

int
dr_cm_req_pack(uint8_t *mad, uint64_t tid, const struct dr_cm_req_param *p)
{
	int ret = pack(mad, DR_CM_ATTR_REQ, tid, p->ece_options, req_fields,
		       sizeof(req_fields) / sizeof(req_fields[0]), p, p->pdata, p->pdata_len);

	memcpy(mad + DR_CM_REQ_PRI_LOCAL_GID_OFF, p->local_gid, 16);
	memcpy(mad + DR_CM_REQ_PRI_REMOTE_GID_OFF, p->remote_gid, 16);
	/* Table 106: the path MTU is an MTU code (dr_cm_msg_check() refuses others) */
	if (p->path_mtu < 1 || p->path_mtu > 5)
		return -EINVAL;
	return ret;
}

void
dr_cm_req_unpack(const uint8_t *mad, struct dr_cm_req_param *p)
{
	memset(p, 0, sizeof(*p));
	unpack(mad, req_fields, sizeof(req_fields) / sizeof(req_fields[0]), p);
	p->ece_options = (uint32_t)dr_mad_get(mad, DR_MAD_ATTR_MOD);
	memcpy(p->local_gid, mad + DR_CM_REQ_PRI_LOCAL_GID_OFF, 16);
	memcpy(p->remote_gid, mad + DR_CM_REQ_PRI_REMOTE_GID_OFF, 16);
	p->pdata = mad + DR_CM_REQ_PDATA_OFF;
	p->pdata_len = DR_CM_REQ_PDATA_LEN;
}

int
dr_cm_rep_pack(uint8_t *mad, uint64_t tid, const struct dr_cm_rep_param *p)
{
	int ret = pack(mad, DR_CM_ATTR_REP, tid, p->ece_options, rep_fields,
		       sizeof(rep_fields) / sizeof(rep_fields[0]), p, p->pdata, p->pdata_len);

	/* Table 110: the VendorID's high, middle and low bytes, apart (Linux's cm_format_rep()) */
	dr_mad_put(mad, DR_CM_REP_VENDOR_ID_H, p->vendor_id >> 16);
	dr_mad_put(mad, DR_CM_REP_VENDOR_ID_M, p->vendor_id >> 8);
	dr_mad_put(mad, DR_CM_REP_VENDOR_ID_L, p->vendor_id);
	return (p->vendor_id >> 24) != 0 ? -EINVAL : ret;
}

void
dr_cm_rep_unpack(const uint8_t *mad, struct dr_cm_rep_param *p)
{
	memset(p, 0, sizeof(*p));
	unpack(mad, rep_fields, sizeof(rep_fields) / sizeof(rep_fields[0]), p);
	p->vendor_id = (uint32_t)(dr_mad_get(mad, DR_CM_REP_VENDOR_ID_H) << 16 |
				  dr_mad_get(mad, DR_CM_REP_VENDOR_ID_M) << 8 | dr_mad_get(mad, DR_CM_REP_VENDOR_ID_L));
	p->ece_options = (uint32_t)dr_mad_get(mad, DR_MAD_ATTR_MOD);
	p->pdata = mad + DR_CM_REP_PDATA_OFF;
	p->pdata_len = DR_CM_REP_PDATA_LEN;
}
