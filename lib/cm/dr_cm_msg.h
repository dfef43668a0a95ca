/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_MSG_H
#define DR_CM_MSG_H

/*
 * The Communication Manager's messages (IBA vol. 1, 12.6): management class
 * 0x07, class version 2, method Send, one attribute per message. Each field
 * is named by the row of its IBA table: byte and bit offset from the start
 * of the message data (the 232 bytes after the common MAD header), width.
 * Pure: no EAL, no allocation, no logging.
 */

#include <stdint.h>

#include "dr_mad.h"

/** Management class of the CM (IBA 13.4.4, Table 146). */
#define DR_CM_MGMT_CLASS 0x07
/** Class version of the CM messages here (IBA 12.6: version 2). */
#define DR_CM_CLASS_VERSION 2

/** A field of the CM data: byte and bit offset after the MAD header, width. */
#define DR_CM_FIELD(byte, bit, width) DR_MAD_FIELD(DR_MAD_HDR_SIZE + (byte), bit, width)
/** Byte offset in the MAD of CM data byte @byte (GIDs, private data, ARI). */
#define DR_CM_OFF(byte) (DR_MAD_HDR_SIZE + (byte))

/** AttributeIDs of the CM (IBA 12.6, Table 105). */
enum dr_cm_attr {
	DR_CM_ATTR_CLASS_PORT_INFO = 0x0001,
	DR_CM_ATTR_REQ = 0x0010,
	DR_CM_ATTR_MRA = 0x0011,
	DR_CM_ATTR_REJ = 0x0012,
	DR_CM_ATTR_REP = 0x0013,
	DR_CM_ATTR_RTU = 0x0014,
	DR_CM_ATTR_DREQ = 0x0015,
	DR_CM_ATTR_DREP = 0x0016,
	DR_CM_ATTR_SIDR_REQ = 0x0017,
	DR_CM_ATTR_SIDR_REP = 0x0018,
	DR_CM_ATTR_LAP = 0x0019,
	DR_CM_ATTR_APR = 0x001A,
};

/* REQ (IBA 12.6.5, Table 106) */
#define DR_CM_REQ_LOCAL_COMM_ID DR_CM_FIELD(0, 0, 32)
/* VendorID of enhanced connection establishment (Table 106; Linux's CM_REQ_VENDOR_ID): byte 4 stays reserved */
#define DR_CM_REQ_VENDOR_ID DR_CM_FIELD(5, 0, 24)
#define DR_CM_REQ_SERVICE_ID DR_CM_FIELD(8, 0, 64)
#define DR_CM_REQ_LOCAL_CA_GUID DR_CM_FIELD(16, 0, 64)
#define DR_CM_REQ_LOCAL_QKEY DR_CM_FIELD(28, 0, 32)
#define DR_CM_REQ_LOCAL_QPN DR_CM_FIELD(32, 0, 24)
#define DR_CM_REQ_RESPONDER_RESOURCES DR_CM_FIELD(35, 0, 8)
#define DR_CM_REQ_LOCAL_EECN DR_CM_FIELD(36, 0, 24)
#define DR_CM_REQ_INITIATOR_DEPTH DR_CM_FIELD(39, 0, 8)
#define DR_CM_REQ_REMOTE_EECN DR_CM_FIELD(40, 0, 24)
#define DR_CM_REQ_REMOTE_CM_RESP_TIMEOUT DR_CM_FIELD(43, 0, 5)
#define DR_CM_REQ_TRANSPORT_SERVICE DR_CM_FIELD(43, 5, 2)
#define DR_CM_REQ_E2E_FLOW_CONTROL DR_CM_FIELD(43, 7, 1)
#define DR_CM_REQ_STARTING_PSN DR_CM_FIELD(44, 0, 24)
#define DR_CM_REQ_LOCAL_CM_RESP_TIMEOUT DR_CM_FIELD(47, 0, 5)
#define DR_CM_REQ_RETRY_COUNT DR_CM_FIELD(47, 5, 3)
#define DR_CM_REQ_PKEY DR_CM_FIELD(48, 0, 16)
#define DR_CM_REQ_PATH_MTU DR_CM_FIELD(50, 0, 4)
#define DR_CM_REQ_RDC_EXISTS DR_CM_FIELD(50, 4, 1)
#define DR_CM_REQ_RNR_RETRY_COUNT DR_CM_FIELD(50, 5, 3)
#define DR_CM_REQ_MAX_CM_RETRIES DR_CM_FIELD(51, 0, 4)
#define DR_CM_REQ_SRQ DR_CM_FIELD(51, 4, 1)
#define DR_CM_REQ_EXT_TRANSPORT DR_CM_FIELD(51, 5, 3)
#define DR_CM_REQ_PRI_LOCAL_LID DR_CM_FIELD(52, 0, 16)
#define DR_CM_REQ_PRI_REMOTE_LID DR_CM_FIELD(54, 0, 16)
#define DR_CM_REQ_PRI_LOCAL_GID_OFF DR_CM_OFF(56)   /* 16 bytes */
#define DR_CM_REQ_PRI_REMOTE_GID_OFF DR_CM_OFF(72)  /* 16 bytes */
#define DR_CM_REQ_PRI_FLOW_LABEL DR_CM_FIELD(88, 0, 20)
#define DR_CM_REQ_PRI_PACKET_RATE DR_CM_FIELD(91, 2, 6)
#define DR_CM_REQ_PRI_TRAFFIC_CLASS DR_CM_FIELD(92, 0, 8)
#define DR_CM_REQ_PRI_HOP_LIMIT DR_CM_FIELD(93, 0, 8)
#define DR_CM_REQ_PRI_SL DR_CM_FIELD(94, 0, 4)
#define DR_CM_REQ_PRI_SUBNET_LOCAL DR_CM_FIELD(94, 4, 1)
#define DR_CM_REQ_PRI_LOCAL_ACK_TIMEOUT DR_CM_FIELD(95, 0, 5)
#define DR_CM_REQ_ALT_LOCAL_LID DR_CM_FIELD(96, 0, 16)
#define DR_CM_REQ_ALT_REMOTE_LID DR_CM_FIELD(98, 0, 16)
#define DR_CM_REQ_ALT_LOCAL_GID_OFF DR_CM_OFF(100)
#define DR_CM_REQ_ALT_REMOTE_GID_OFF DR_CM_OFF(116)
#define DR_CM_REQ_ALT_LOCAL_ACK_TIMEOUT DR_CM_FIELD(139, 0, 5)
#define DR_CM_REQ_PDATA_OFF DR_CM_OFF(140)
#define DR_CM_REQ_PDATA_LEN 92

/* MRA (12.6.6, Table 107) */
#define DR_CM_MRA_LOCAL_COMM_ID DR_CM_FIELD(0, 0, 32)
#define DR_CM_MRA_REMOTE_COMM_ID DR_CM_FIELD(4, 0, 32)
#define DR_CM_MRA_MESSAGE_MRAED DR_CM_FIELD(8, 0, 2)
#define DR_CM_MRA_SERVICE_TIMEOUT DR_CM_FIELD(9, 0, 5)
#define DR_CM_MRA_PDATA_OFF DR_CM_OFF(10)
#define DR_CM_MRA_PDATA_LEN 222

/* REJ (12.6.7, Table 108) */
#define DR_CM_REJ_LOCAL_COMM_ID DR_CM_FIELD(0, 0, 32)
#define DR_CM_REJ_REMOTE_COMM_ID DR_CM_FIELD(4, 0, 32)
#define DR_CM_REJ_MESSAGE_REJECTED DR_CM_FIELD(8, 0, 2)
#define DR_CM_REJ_ARI_LENGTH DR_CM_FIELD(9, 0, 7)
#define DR_CM_REJ_REASON DR_CM_FIELD(10, 0, 16)
#define DR_CM_REJ_ARI_OFF DR_CM_OFF(12)
#define DR_CM_REJ_ARI_LEN 72
#define DR_CM_REJ_PDATA_OFF DR_CM_OFF(84)
#define DR_CM_REJ_PDATA_LEN 148

/* REP (12.6.8, Table 110) */
#define DR_CM_REP_LOCAL_COMM_ID DR_CM_FIELD(0, 0, 32)
#define DR_CM_REP_REMOTE_COMM_ID DR_CM_FIELD(4, 0, 32)
#define DR_CM_REP_LOCAL_QKEY DR_CM_FIELD(8, 0, 32)
#define DR_CM_REP_LOCAL_QPN DR_CM_FIELD(12, 0, 24)
/* ECE's VendorID in three bytes, each after a 24-bit field (Table 110; Linux's
 * CM_REP_VENDOR_ID_H, _M, _L in include/rdma/ibta_vol1_c12.h) */
#define DR_CM_REP_VENDOR_ID_H DR_CM_FIELD(15, 0, 8)
#define DR_CM_REP_LOCAL_EECN DR_CM_FIELD(16, 0, 24)
#define DR_CM_REP_VENDOR_ID_M DR_CM_FIELD(19, 0, 8)
#define DR_CM_REP_STARTING_PSN DR_CM_FIELD(20, 0, 24)
#define DR_CM_REP_VENDOR_ID_L DR_CM_FIELD(23, 0, 8)
#define DR_CM_REP_RESPONDER_RESOURCES DR_CM_FIELD(24, 0, 8)
#define DR_CM_REP_INITIATOR_DEPTH DR_CM_FIELD(25, 0, 8)
#define DR_CM_REP_TARGET_ACK_DELAY DR_CM_FIELD(26, 0, 5)
#define DR_CM_REP_FAILOVER_ACCEPTED DR_CM_FIELD(26, 5, 2)
#define DR_CM_REP_E2E_FLOW_CONTROL DR_CM_FIELD(26, 7, 1)
#define DR_CM_REP_RNR_RETRY_COUNT DR_CM_FIELD(27, 0, 3)
#define DR_CM_REP_SRQ DR_CM_FIELD(27, 3, 1)
#define DR_CM_REP_LOCAL_CA_GUID DR_CM_FIELD(28, 0, 64)
#define DR_CM_REP_PDATA_OFF DR_CM_OFF(36)
#define DR_CM_REP_PDATA_LEN 196

/* RTU (12.6.9, Table 111) */
#define DR_CM_RTU_LOCAL_COMM_ID DR_CM_FIELD(0, 0, 32)
#define DR_CM_RTU_REMOTE_COMM_ID DR_CM_FIELD(4, 0, 32)
#define DR_CM_RTU_PDATA_OFF DR_CM_OFF(8)
#define DR_CM_RTU_PDATA_LEN 224

/* DREQ (12.6.10, Table 112) */
#define DR_CM_DREQ_LOCAL_COMM_ID DR_CM_FIELD(0, 0, 32)
#define DR_CM_DREQ_REMOTE_COMM_ID DR_CM_FIELD(4, 0, 32)
#define DR_CM_DREQ_REMOTE_QPN DR_CM_FIELD(8, 0, 24)
#define DR_CM_DREQ_PDATA_OFF DR_CM_OFF(12)
#define DR_CM_DREQ_PDATA_LEN 220

/* DREP (12.6.11, Table 113) */
#define DR_CM_DREP_LOCAL_COMM_ID DR_CM_FIELD(0, 0, 32)
#define DR_CM_DREP_REMOTE_COMM_ID DR_CM_FIELD(4, 0, 32)
#define DR_CM_DREP_PDATA_OFF DR_CM_OFF(8)
#define DR_CM_DREP_PDATA_LEN 224

/* SIDR_REQ (12.11.1, Table 119) */
#define DR_CM_SIDR_REQ_REQUEST_ID DR_CM_FIELD(0, 0, 32)
#define DR_CM_SIDR_REQ_PKEY DR_CM_FIELD(4, 0, 16)
#define DR_CM_SIDR_REQ_SERVICE_ID DR_CM_FIELD(8, 0, 64)
#define DR_CM_SIDR_REQ_PDATA_OFF DR_CM_OFF(16)
#define DR_CM_SIDR_REQ_PDATA_LEN 216

/* SIDR_REP (12.11.2, Table 120) */
#define DR_CM_SIDR_REP_REQUEST_ID DR_CM_FIELD(0, 0, 32)
#define DR_CM_SIDR_REP_STATUS DR_CM_FIELD(4, 0, 8)
#define DR_CM_SIDR_REP_ADD_INFO_LENGTH DR_CM_FIELD(5, 0, 8)
#define DR_CM_SIDR_REP_QPN DR_CM_FIELD(8, 0, 24)
#define DR_CM_SIDR_REP_SERVICE_ID DR_CM_FIELD(12, 0, 64)
#define DR_CM_SIDR_REP_QKEY DR_CM_FIELD(20, 0, 32)
#define DR_CM_SIDR_REP_ADD_INFO_OFF DR_CM_OFF(24)
#define DR_CM_SIDR_REP_PDATA_OFF DR_CM_OFF(96)
#define DR_CM_SIDR_REP_PDATA_LEN 136

/** MRA's and REJ's "message MRAed/rejected" (Tables 107, 108). */
enum dr_cm_msg_ref {
	DR_CM_REF_REQ = 0,
	DR_CM_REF_REP = 1,
	DR_CM_REF_OTHER = 2,    /* MRA: LAP; REJ: no message (e.g. a timeout) */
};

/** Transport service types of the REQ (Table 106). */
enum dr_cm_transport {
	DR_CM_TRANSPORT_RC = 0,
	DR_CM_TRANSPORT_UC = 1,
	DR_CM_TRANSPORT_RD = 2,
	DR_CM_TRANSPORT_EXT = 3,   /* the extended transport type says which (XRC = 1) */
};

/** REJ reasons (IBA 12.6.7.2, Table 109). */
enum dr_cm_rej_reason {
	DR_CM_REJ_NO_QP = 1,
	DR_CM_REJ_NO_EEC = 2,
	DR_CM_REJ_NO_RESOURCES = 3,
	DR_CM_REJ_TIMEOUT = 4,
	DR_CM_REJ_UNSUPPORTED_REQ = 5,
	DR_CM_REJ_INVALID_COMM_ID = 6,
	DR_CM_REJ_INVALID_COMM_INSTANCE = 7,
	DR_CM_REJ_INVALID_SERVICE_ID = 8,
	DR_CM_REJ_INVALID_TRANSPORT_TYPE = 9,
	DR_CM_REJ_STALE_CONN = 10,
	DR_CM_REJ_RDC_NOT_EXIST = 11,
	DR_CM_REJ_INVALID_GID = 12,
	DR_CM_REJ_INVALID_LID = 13,
	DR_CM_REJ_INVALID_SL = 14,
	DR_CM_REJ_INVALID_TRAFFIC_CLASS = 15,
	DR_CM_REJ_INVALID_HOP_LIMIT = 16,
	DR_CM_REJ_INVALID_PACKET_RATE = 17,
	DR_CM_REJ_INVALID_ALT_GID = 18,
	DR_CM_REJ_INVALID_ALT_LID = 19,
	DR_CM_REJ_INVALID_ALT_SL = 20,
	DR_CM_REJ_INVALID_ALT_TRAFFIC_CLASS = 21,
	DR_CM_REJ_INVALID_ALT_HOP_LIMIT = 22,
	DR_CM_REJ_INVALID_ALT_PACKET_RATE = 23,
	DR_CM_REJ_PORT_CM_REDIRECT = 24,
	DR_CM_REJ_PORT_REDIRECT = 25,
	DR_CM_REJ_INVALID_MTU = 26,
	DR_CM_REJ_INSUFFICIENT_RESP_RESOURCES = 27,
	DR_CM_REJ_CONSUMER_DEFINED = 28,
	DR_CM_REJ_INVALID_RNR_RETRY = 29,
	DR_CM_REJ_DUPLICATE_LOCAL_COMM_ID = 30,
	DR_CM_REJ_INVALID_CLASS_VERSION = 31,
	DR_CM_REJ_INVALID_FLOW_LABEL = 32,
	DR_CM_REJ_INVALID_ALT_FLOW_LABEL = 33,
	DR_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED = 35,
};

/** SIDR_REP status (IBA 12.11.2, Table 121). */
enum dr_cm_sidr_status {
	DR_CM_SIDR_SUCCESS = 0,
	DR_CM_SIDR_UNSUPPORTED = 1,    /* service ID not supported */
	DR_CM_SIDR_REJECT = 2,         /* rejected by the service provider */
	DR_CM_SIDR_NO_QP = 3,
	DR_CM_SIDR_REDIRECT = 4,
	DR_CM_SIDR_UNSUPPORTED_VERSION = 5,
};

/** The name of CM attribute @attr_id ("REQ", ...; "?" for others). */
const char *dr_cm_attr_str(uint16_t attr_id);

/** The name of REJ reason @reason (Table 109; "?" for others). */
const char *dr_cm_rej_reason_str(uint16_t reason);

/** Where the private data of message @attr_id lies: offset in the MAD (0: no such message). */
unsigned int dr_cm_pdata_off(uint16_t attr_id);
/** Its length in bytes (0: no such message). */
unsigned int dr_cm_pdata_len(uint16_t attr_id);

/** What dr_cm_msg_check() found wrong in a CM message. */
enum dr_cm_msg_status {
	DR_CM_MSG_OK = 0,
	DR_CM_MSG_BAD_MAD,          /* the common header (dr_mad_check()) */
	DR_CM_MSG_UNKNOWN_ATTR,     /* an attribute the CM has not (Table 105) */
	DR_CM_MSG_UNSUPPORTED,      /* a message this CM does not take: ClassPortInfo, LAP, APR */
	DR_CM_MSG_BAD_FIELD,        /* a field outside its range (the message's table) */
};

/**
 * Check the CM message in @mad (@len bytes, the UD payload of a packet to
 * QP1): the common header (class 0x07, version 2, method Send), a known
 * attribute, every field IBA ranges. On success *attr_id is the message.
 */
enum dr_cm_msg_status dr_cm_msg_check(const uint8_t *mad, size_t len, uint16_t *attr_id);

/** A short name of @st for logs. */
const char *dr_cm_msg_status_str(enum dr_cm_msg_status st);

/**
 * Copy @len bytes of private data into message @attr_id in @mad (where its
 * table puts them). 0, or -EINVAL (longer than the message takes, or no
 * @pdata for a non-zero @len): nothing written then.
 */
int dr_cm_msg_pdata(uint8_t *mad, uint16_t attr_id, const uint8_t *pdata, unsigned int len);

/** Start CM message @attr_id in @mad: all DR_MAD_SIZE bytes zeroed, the header filled. */
void dr_cm_msg_init(uint8_t *mad, uint16_t attr_id, uint64_t tid);

#endif /* DR_CM_MSG_H */
