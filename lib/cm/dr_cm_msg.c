/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The CM messages: names, where their private data lies, the checks of IBA 12.6. */

#include <errno.h>
#include <string.h>

#include "dr_cm_msg.h"

/* One row per CM attribute: its name and private data (IBA 12.6, Tables 106-120). */
struct cm_attr_desc {
	uint16_t attr_id;
	const char *name;
	uint16_t pdata_off;     /* in the MAD */
	uint16_t pdata_len;
	bool taken;             /* this CM takes it */
};

static const struct cm_attr_desc cm_attrs[] = {
	{ DR_CM_ATTR_CLASS_PORT_INFO, "ClassPortInfo", 0, 0, false },
	{ DR_CM_ATTR_REQ, "REQ", DR_CM_REQ_PDATA_OFF, DR_CM_REQ_PDATA_LEN, true },
	{ DR_CM_ATTR_MRA, "MRA", DR_CM_MRA_PDATA_OFF, DR_CM_MRA_PDATA_LEN, true },
	{ DR_CM_ATTR_REJ, "REJ", DR_CM_REJ_PDATA_OFF, DR_CM_REJ_PDATA_LEN, true },
	{ DR_CM_ATTR_REP, "REP", DR_CM_REP_PDATA_OFF, DR_CM_REP_PDATA_LEN, true },
	{ DR_CM_ATTR_RTU, "RTU", DR_CM_RTU_PDATA_OFF, DR_CM_RTU_PDATA_LEN, true },
	{ DR_CM_ATTR_DREQ, "DREQ", DR_CM_DREQ_PDATA_OFF, DR_CM_DREQ_PDATA_LEN, true },
	{ DR_CM_ATTR_DREP, "DREP", DR_CM_DREP_PDATA_OFF, DR_CM_DREP_PDATA_LEN, true },
	{ DR_CM_ATTR_SIDR_REQ, "SIDR_REQ", DR_CM_SIDR_REQ_PDATA_OFF, DR_CM_SIDR_REQ_PDATA_LEN, true },
	{ DR_CM_ATTR_SIDR_REP, "SIDR_REP", DR_CM_SIDR_REP_PDATA_OFF, DR_CM_SIDR_REP_PDATA_LEN, true },
	/* alternate paths: RoCE has one path (Annex A16/A17 carry no APM) */
	{ DR_CM_ATTR_LAP, "LAP", 0, 0, false },
	{ DR_CM_ATTR_APR, "APR", 0, 0, false },
};

static const struct cm_attr_desc *
attr_desc(uint16_t attr_id)
{
	for (size_t i = 0; i < sizeof(cm_attrs) / sizeof(cm_attrs[0]); i++)
		if (cm_attrs[i].attr_id == attr_id)
			return &cm_attrs[i];
	return NULL;
}

const char *
dr_cm_attr_str(uint16_t attr_id)
{
	const struct cm_attr_desc *d = attr_desc(attr_id);

	return d != NULL ? d->name : "?";
}

unsigned int
dr_cm_pdata_off(uint16_t attr_id)
{
	const struct cm_attr_desc *d = attr_desc(attr_id);

	return d != NULL ? d->pdata_off : 0;
}

unsigned int
dr_cm_pdata_len(uint16_t attr_id)
{
	const struct cm_attr_desc *d = attr_desc(attr_id);

	return d != NULL ? d->pdata_len : 0;
}

const char *
dr_cm_rej_reason_str(uint16_t reason)
{
	static const char *const names[] = {
		[DR_CM_REJ_NO_QP] = "no QP available",
		[DR_CM_REJ_NO_EEC] = "no EEC available",
		[DR_CM_REJ_NO_RESOURCES] = "no resources available",
		[DR_CM_REJ_TIMEOUT] = "timeout",
		[DR_CM_REJ_UNSUPPORTED_REQ] = "unsupported request",
		[DR_CM_REJ_INVALID_COMM_ID] = "invalid communication ID",
		[DR_CM_REJ_INVALID_COMM_INSTANCE] = "invalid communication instance",
		[DR_CM_REJ_INVALID_SERVICE_ID] = "invalid service ID",
		[DR_CM_REJ_INVALID_TRANSPORT_TYPE] = "invalid transport service type",
		[DR_CM_REJ_STALE_CONN] = "stale connection",
		[DR_CM_REJ_RDC_NOT_EXIST] = "RDC does not exist",
		[DR_CM_REJ_INVALID_GID] = "primary remote port GID rejected",
		[DR_CM_REJ_INVALID_LID] = "primary remote port LID rejected",
		[DR_CM_REJ_INVALID_SL] = "invalid primary SL",
		[DR_CM_REJ_INVALID_TRAFFIC_CLASS] = "invalid primary traffic class",
		[DR_CM_REJ_INVALID_HOP_LIMIT] = "invalid primary hop limit",
		[DR_CM_REJ_INVALID_PACKET_RATE] = "invalid primary packet rate",
		[DR_CM_REJ_INVALID_ALT_GID] = "alternate remote port GID rejected",
		[DR_CM_REJ_INVALID_ALT_LID] = "alternate remote port LID rejected",
		[DR_CM_REJ_INVALID_ALT_SL] = "invalid alternate SL",
		[DR_CM_REJ_INVALID_ALT_TRAFFIC_CLASS] = "invalid alternate traffic class",
		[DR_CM_REJ_INVALID_ALT_HOP_LIMIT] = "invalid alternate hop limit",
		[DR_CM_REJ_INVALID_ALT_PACKET_RATE] = "invalid alternate packet rate",
		[DR_CM_REJ_PORT_CM_REDIRECT] = "port and CM redirection",
		[DR_CM_REJ_PORT_REDIRECT] = "port redirection",
		[DR_CM_REJ_INVALID_MTU] = "invalid path MTU",
		[DR_CM_REJ_INSUFFICIENT_RESP_RESOURCES] = "insufficient responder resources",
		[DR_CM_REJ_CONSUMER_DEFINED] = "consumer reject",
		[DR_CM_REJ_INVALID_RNR_RETRY] = "RNR retry count reject",
		[DR_CM_REJ_DUPLICATE_LOCAL_COMM_ID] = "duplicate local communication ID",
		[DR_CM_REJ_INVALID_CLASS_VERSION] = "unsupported class version",
		[DR_CM_REJ_INVALID_FLOW_LABEL] = "invalid primary flow label",
		[DR_CM_REJ_INVALID_ALT_FLOW_LABEL] = "invalid alternate flow label",
		[DR_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED] = "vendor option not supported",
	};

	if (reason < sizeof(names) / sizeof(names[0]) && names[reason] != NULL)
		return names[reason];
	return "?";
}

/* The field checks of each message: IBA's ranges, not this CM's policy. */
static bool
req_fields_ok(const uint8_t *mad)
{
	/* Table 106: Path Packet Payload MTU is an IBA MTU code, 256 (1) to 4096 (5) */
	uint64_t mtu = dr_mad_get(mad, DR_CM_REQ_PATH_MTU);

	return mtu >= 1 && mtu <= 5;
}

static bool
mra_fields_ok(const uint8_t *mad)
{
	/* Table 107: 0 REQ, 1 REP, 2 LAP; 3 is reserved */
	return dr_mad_get(mad, DR_CM_MRA_MESSAGE_MRAED) <= DR_CM_REF_OTHER;
}

static bool
rej_fields_ok(const uint8_t *mad)
{
	/* Table 108: 0 REQ, 1 REP, 2 no message; ARI is at most 72 bytes */
	return dr_mad_get(mad, DR_CM_REJ_MESSAGE_REJECTED) <= DR_CM_REF_OTHER &&
	       dr_mad_get(mad, DR_CM_REJ_ARI_LENGTH) <= DR_CM_REJ_ARI_LEN;
}

static bool
sidr_rep_fields_ok(const uint8_t *mad)
{
	/* Table 120: Additional Information is at most 72 bytes */
	return dr_mad_get(mad, DR_CM_SIDR_REP_ADD_INFO_LENGTH) <= 72;
}

enum dr_cm_msg_status
dr_cm_msg_check(const uint8_t *mad, size_t len, uint16_t *attr_id)
{
	const struct cm_attr_desc *d;
	uint16_t id;
	bool ok;

	if (dr_mad_check(mad, len, DR_CM_MGMT_CLASS, DR_CM_CLASS_VERSION, DR_MAD_METHOD_SEND) != DR_MAD_OK)
		return DR_CM_MSG_BAD_MAD;
	id = (uint16_t)dr_mad_get(mad, DR_MAD_ATTR_ID);
	d = attr_desc(id);
	if (d == NULL)
		return DR_CM_MSG_UNKNOWN_ATTR;
	if (!d->taken)
		return DR_CM_MSG_UNSUPPORTED;
	switch (id) {
	case DR_CM_ATTR_REQ: ok = req_fields_ok(mad); break;
	case DR_CM_ATTR_MRA: ok = mra_fields_ok(mad); break;
	case DR_CM_ATTR_REJ: ok = rej_fields_ok(mad); break;
	case DR_CM_ATTR_SIDR_REP: ok = sidr_rep_fields_ok(mad); break;
	default: ok = true; break;
	}
	if (!ok)
		return DR_CM_MSG_BAD_FIELD;
	*attr_id = id;
	return DR_CM_MSG_OK;
}

const char *
dr_cm_msg_status_str(enum dr_cm_msg_status st)
{
	static const char *const names[] = {
		[DR_CM_MSG_OK] = "ok",
		[DR_CM_MSG_BAD_MAD] = "bad MAD header",
		[DR_CM_MSG_UNKNOWN_ATTR] = "unknown CM attribute",
		[DR_CM_MSG_UNSUPPORTED] = "CM message not supported",
		[DR_CM_MSG_BAD_FIELD] = "field out of range",
	};

	return (unsigned int)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

int
dr_cm_msg_pdata(uint8_t *mad, uint16_t attr_id, const uint8_t *pdata, unsigned int len)
{
	if (len > dr_cm_pdata_len(attr_id) || (len > 0 && pdata == NULL))
		return -EINVAL;
	if (len > 0)
		memcpy(mad + dr_cm_pdata_off(attr_id), pdata, len);
	return 0;
}

void
dr_cm_msg_init(uint8_t *mad, uint16_t attr_id, uint64_t tid)
{
	memset(mad, 0, DR_MAD_SIZE);
	dr_mad_init_hdr(mad, DR_CM_MGMT_CLASS, DR_CM_CLASS_VERSION, DR_MAD_METHOD_SEND, tid, attr_id, 0);
}
