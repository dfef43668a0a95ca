/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_PARAM_H
#define DR_CM_PARAM_H

/*
 * The contents of the REQ and REP (IBA 12.6.5, 12.6.8) as plain values, and
 * their pack and unpack. One path (RoCE has no alternate path: Annex A16/A17
 * leave APM out), so the alternate fields are written zero and not read.
 * Both carry enhanced connection establishment as Linux's ib_cm does
 * (cm_format_req(), cm_format_rep(), cm_format_mad_ece_hdr()): the vendor
 * in the message's VendorID, the options in the MAD header's
 * AttributeModifier (0 and 0: nothing offered, what rxe sends).
 * Pure: no EAL, no allocation, no logging.
 */

#include <stdbool.h>
#include <stdint.h>

/** A REQ's contents (Table 106). */
struct dr_cm_req_param {
	uint32_t local_comm_id;
	uint32_t vendor_id;              /**< ECE: VendorID, 24 bits (0: no ECE) */
	uint32_t ece_options;            /**< ECE: the options, the MAD's AttributeModifier */
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;             /**< UD/RD only; 0 for RC/UC */
	uint32_t local_qpn;
	uint8_t responder_resources;     /**< RDMA READs/atomics it takes at once */
	uint8_t initiator_depth;         /**< RDMA READs/atomics it issues at once */
	uint8_t remote_cm_response_timeout;  /**< 4.096 us * 2^t: how long the passive CM may take */
	uint8_t transport;               /**< enum dr_cm_transport */
	bool flow_control;               /**< end-to-end flow control */
	uint32_t starting_psn;           /**< the first PSN the passive side sends (our receive PSN) */
	uint8_t local_cm_response_timeout;   /**< how long this CM takes to answer a REP */
	uint8_t retry_count;             /**< transport retries (0..7) */
	uint16_t pkey;
	uint8_t path_mtu;                /**< IBA MTU code: 1 (256) .. 5 (4096) */
	uint8_t rnr_retry_count;         /**< 0..7, 7 = infinite */
	uint8_t max_cm_retries;          /**< 0..15 */
	bool srq;
	uint8_t ext_transport;           /**< with transport 3: 1 = XRC */
	uint16_t local_lid, remote_lid;  /**< RoCE: 0xFFFF (permissive) as Linux sends */
	uint8_t local_gid[16], remote_gid[16];
	uint32_t flow_label;             /**< 20 bits */
	uint8_t packet_rate;             /**< 6 bits, IBA rate code */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;                      /**< 4 bits */
	bool subnet_local;
	uint8_t local_ack_timeout;       /**< 5 bits: 4.096 us * 2^t */
	const uint8_t *pdata;            /**< private data (DR_CM_REQ_PDATA_LEN bytes at most) */
	uint8_t pdata_len;
};

/** A REP's contents (Table 110). */
struct dr_cm_rep_param {
	uint32_t local_comm_id;
	uint32_t vendor_id;              /**< ECE: VendorID, 24 bits (H, M, L bytes of Table 110) */
	uint32_t ece_options;            /**< ECE: the options, the MAD's AttributeModifier */
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;
	uint32_t local_eecn;
	uint32_t starting_psn;           /**< the first PSN the active side sends (our receive PSN) */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;        /**< 5 bits */
	uint8_t failover_accepted;       /**< 2 bits: 0 accepted (no alternate path asked) */
	bool flow_control;
	uint8_t rnr_retry_count;         /**< 3 bits */
	bool srq;
	uint64_t local_ca_guid;
	const uint8_t *pdata;
	uint8_t pdata_len;
};

/**
 * Write a REQ of @p into @mad (DR_MAD_SIZE bytes): header with @tid, every
 * field, the private data zero-padded. -EINVAL if a value does not fit its
 * field or the private data is too long (nothing useful is written then).
 */
int dr_cm_req_pack(uint8_t *mad, uint64_t tid, const struct dr_cm_req_param *p);

/** Read the REQ in @mad (checked by dr_cm_msg_check()); pdata points into @mad, all 92 bytes. */
void dr_cm_req_unpack(const uint8_t *mad, struct dr_cm_req_param *p);

/** Write a REP; as dr_cm_req_pack(). */
int dr_cm_rep_pack(uint8_t *mad, uint64_t tid, const struct dr_cm_rep_param *p);

/** Read the REP in @mad; pdata points into @mad, all 196 bytes. */
void dr_cm_rep_unpack(const uint8_t *mad, struct dr_cm_rep_param *p);

#endif /* DR_CM_PARAM_H */
