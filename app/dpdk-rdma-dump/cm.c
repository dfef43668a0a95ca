/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * CM MADs (IBA 12.6) in the UD SENDs to QP1: which message, its
 * transaction and communication IDs, and what identifies the connection
 * (Service ID, QPN, starting PSN, REJ reason, SIDR status), for both
 * output formats. The fields are lib/cm's (dr_cm_msg.h).
 */

#include <string.h>

#include "dr_cm_msg.h"
#include "dr_config.h"
#include "dump.h"

bool
dump_cm_is_mad(const struct dr_pkt_info *pi)
{
	return (pi->mask & DR_OPF_DETH) && dr_bth_qpn(dr_pkt_bth(pi)) == DR_GSI_QPN && pi->paylen >= DR_MAD_SIZE;
}

bool
dump_cm_decode(const uint8_t *mad, struct dump_cm *cm)
{
	uint16_t attr;

	memset(cm, 0, sizeof(*cm));
	if (mad == NULL || dr_mad_get(mad, DR_MAD_MGMT_CLASS) != DR_CM_MGMT_CLASS)
		return false;
	attr = (uint16_t)dr_mad_get(mad, DR_MAD_ATTR_ID);
	cm->msg = dr_cm_attr_str(attr);
	cm->tid = dr_mad_get(mad, DR_MAD_TID);
	switch (attr) {
	case DR_CM_ATTR_REQ:
		cm->fields = DUMP_CM_LCID | DUMP_CM_SID | DUMP_CM_QPN | DUMP_CM_PSN;
		cm->lcid = (uint32_t)dr_mad_get(mad, DR_CM_REQ_LOCAL_COMM_ID);
		cm->sid = dr_mad_get(mad, DR_CM_REQ_SERVICE_ID);
		cm->qpn = (uint32_t)dr_mad_get(mad, DR_CM_REQ_LOCAL_QPN);
		cm->psn = (uint32_t)dr_mad_get(mad, DR_CM_REQ_STARTING_PSN);
		break;
	case DR_CM_ATTR_REP:
		cm->fields = DUMP_CM_LCID | DUMP_CM_RCID | DUMP_CM_QPN | DUMP_CM_PSN;
		cm->lcid = (uint32_t)dr_mad_get(mad, DR_CM_REP_LOCAL_COMM_ID);
		cm->rcid = (uint32_t)dr_mad_get(mad, DR_CM_REP_REMOTE_COMM_ID);
		cm->qpn = (uint32_t)dr_mad_get(mad, DR_CM_REP_LOCAL_QPN);
		cm->psn = (uint32_t)dr_mad_get(mad, DR_CM_REP_STARTING_PSN);
		break;
	case DR_CM_ATTR_REJ:
		cm->fields = DUMP_CM_LCID | DUMP_CM_RCID | DUMP_CM_REASON;
		cm->lcid = (uint32_t)dr_mad_get(mad, DR_CM_REJ_LOCAL_COMM_ID);
		cm->rcid = (uint32_t)dr_mad_get(mad, DR_CM_REJ_REMOTE_COMM_ID);
		cm->reason = (uint16_t)dr_mad_get(mad, DR_CM_REJ_REASON);
		cm->reason_str = dr_cm_rej_reason_str(cm->reason);
		break;
	case DR_CM_ATTR_MRA:
	case DR_CM_ATTR_RTU:
	case DR_CM_ATTR_DREQ:
	case DR_CM_ATTR_DREP:
		/* IBA Tables 107, 111, 112, 113: the two comm IDs first, the same in each */
		cm->fields = DUMP_CM_LCID | DUMP_CM_RCID;
		cm->lcid = (uint32_t)dr_mad_get(mad, DR_CM_RTU_LOCAL_COMM_ID);
		cm->rcid = (uint32_t)dr_mad_get(mad, DR_CM_RTU_REMOTE_COMM_ID);
		break;
	case DR_CM_ATTR_SIDR_REQ:
		cm->fields = DUMP_CM_LCID | DUMP_CM_SID;
		cm->lcid = (uint32_t)dr_mad_get(mad, DR_CM_SIDR_REQ_REQUEST_ID);
		cm->sid = dr_mad_get(mad, DR_CM_SIDR_REQ_SERVICE_ID);
		break;
	case DR_CM_ATTR_SIDR_REP:
		cm->fields = DUMP_CM_LCID | DUMP_CM_SID | DUMP_CM_QPN | DUMP_CM_STATUS;
		cm->lcid = (uint32_t)dr_mad_get(mad, DR_CM_SIDR_REP_REQUEST_ID);
		cm->sid = dr_mad_get(mad, DR_CM_SIDR_REP_SERVICE_ID);
		cm->qpn = (uint32_t)dr_mad_get(mad, DR_CM_SIDR_REP_QPN);
		cm->status = (uint8_t)dr_mad_get(mad, DR_CM_SIDR_REP_STATUS);
		break;
	default:
		break;
	}
	return true;
}
