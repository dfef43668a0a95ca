/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The CM's wire layer: MAD bit fields, the common header checks (IBA 13.4),
 * REQ/REP pack and unpack (IBA 12.6, Tables 106 and 110), the ECE they
 * carry (VendorID, AttributeModifier) and its negotiation rules
 * (dr_cm_ece.h), the message checks, the RDMA IP CM service (Annex A11).
 */

#include <errno.h>

#include "dr_cm_ece.h"
#include "dr_cm_ip.h"
#include "dr_cm_msg.h"
#include "dr_cm_param.h"
#include "dr_mad.h"
#include "dr_test.h"

static void
test_fields(void)
{
	uint8_t m[DR_MAD_SIZE];

	/* a 24-bit field at a byte boundary leaves its neighbours alone */
	memset(m, 0xAA, sizeof(m));
	dr_mad_put(m, DR_MAD_FIELD(32, 0, 24), 0x123456);
	CHECK_EQ(m[31], 0xAA);
	CHECK_EQ(m[32], 0x12);
	CHECK_EQ(m[33], 0x34);
	CHECK_EQ(m[34], 0x56);
	CHECK_EQ(m[35], 0xAA);
	CHECK_EQ(dr_mad_get(m, DR_MAD_FIELD(32, 0, 24)), 0x123456);

	/* bit fields inside a byte: 5 bits then 2 then 1 (REQ byte 43) */
	memset(m, 0, sizeof(m));
	dr_mad_put(m, DR_MAD_FIELD(10, 0, 5), 0x14);
	dr_mad_put(m, DR_MAD_FIELD(10, 5, 2), 0x3);
	dr_mad_put(m, DR_MAD_FIELD(10, 7, 1), 0x0);
	CHECK_EQ(m[10], 0xA6);
	dr_mad_put(m, DR_MAD_FIELD(10, 7, 1), 0x1);
	CHECK_EQ(m[10], 0xA7);
	CHECK_EQ(dr_mad_get(m, DR_MAD_FIELD(10, 0, 5)), 0x14);
	CHECK_EQ(dr_mad_get(m, DR_MAD_FIELD(10, 5, 2)), 0x3);

	/* a 20-bit field followed by a 6-bit one at bit 2 of its fourth byte (the flow label, the rate) */
	memset(m, 0xFF, sizeof(m));
	dr_mad_put(m, DR_MAD_FIELD(88, 0, 20), 0xABCDE);
	dr_mad_put(m, DR_MAD_FIELD(91, 2, 6), 0x15);
	CHECK_EQ(m[88], 0xAB);
	CHECK_EQ(m[89], 0xCD);
	CHECK_EQ(m[90], 0xEF);        /* low 4 bits: the reserved field, untouched */
	CHECK_EQ(m[91], 0xD5);
	CHECK_EQ(dr_mad_get(m, DR_MAD_FIELD(88, 0, 20)), 0xABCDE);

	/* 64 bits, aligned and not (SIDR_REP's Service ID is at CM byte 12) */
	memset(m, 0, sizeof(m));
	dr_mad_put(m, DR_MAD_FIELD(8, 0, 64), UINT64_C(0x0102030405060708));
	CHECK_EQ(m[8], 1);
	CHECK_EQ(m[15], 8);
	dr_mad_put(m, DR_MAD_FIELD(36, 0, 64), UINT64_MAX);
	CHECK_EQ(dr_mad_get(m, DR_MAD_FIELD(36, 0, 64)), UINT64_MAX);
	CHECK_EQ(m[35], 0);
	CHECK_EQ(m[44], 0);
	/* a value wider than its field keeps its low bits only */
	dr_mad_put(m, DR_MAD_FIELD(100, 0, 4), 0x1F);
	CHECK_EQ(m[100], 0xF0);
}

static void
test_mad_hdr(void)
{
	uint8_t m[DR_MAD_SIZE];

	dr_cm_msg_init(m, DR_CM_ATTR_RTU, UINT64_C(0x1122334455667788));
	/* IBA 13.4.3: BaseVersion 1, class 0x07, version 2, Send, the TID, the attribute */
	CHECK_EQ(m[0], 1);
	CHECK_EQ(m[1], 0x07);
	CHECK_EQ(m[2], 2);
	CHECK_EQ(m[3], 0x03);
	CHECK_EQ(m[8], 0x11);
	CHECK_EQ(m[15], 0x88);
	CHECK_EQ(m[16], 0x00);
	CHECK_EQ(m[17], 0x14);
	CHECK_EQ(dr_mad_check(m, DR_MAD_SIZE, 0x07, 2, DR_MAD_METHOD_SEND), DR_MAD_OK);
	CHECK_EQ(dr_mad_check(m, DR_MAD_SIZE - 1, 0x07, 2, 3), DR_MAD_SHORT);
	CHECK_EQ(dr_mad_check(m, DR_MAD_SIZE, 0x03, 2, 3), DR_MAD_OTHER_CLASS);
	CHECK_EQ(dr_mad_check(m, DR_MAD_SIZE, 0x07, 1, 3), DR_MAD_BAD_CLASS_VERSION);
	CHECK_EQ(dr_mad_check(m, DR_MAD_SIZE, 0x07, 2, DR_MAD_METHOD_GET), DR_MAD_BAD_METHOD);
	m[0] = 2;
	CHECK_EQ(dr_mad_check(m, DR_MAD_SIZE, 0x07, 2, 3), DR_MAD_BAD_BASE_VERSION);
	CHECK(strcmp(dr_mad_status_str(DR_MAD_SHORT), "?") != 0);
}

static struct dr_cm_req_param
sample_req(const uint8_t *pdata, uint8_t len)
{
	struct dr_cm_req_param p = {
		.local_comm_id = 0xDEADBEEF, .service_id = dr_cm_ip_service_id(DR_CM_PS_TCP, 7174),
		.local_ca_guid = UINT64_C(0x525400fffe123456), .local_qpn = 0x000011,
		.responder_resources = 1, .initiator_depth = 1, .remote_cm_response_timeout = 20,
		.transport = DR_CM_TRANSPORT_RC, .flow_control = true, .starting_psn = 0xABCDEF,
		.local_cm_response_timeout = 20, .retry_count = 7, .pkey = 0xFFFF, .path_mtu = 3,
		.rnr_retry_count = 7, .max_cm_retries = 15, .srq = false,
		.local_lid = 0xFFFF, .remote_lid = 0xFFFF, .flow_label = 0x12345, .packet_rate = 3,
		.traffic_class = 0, .hop_limit = 64, .sl = 0, .subnet_local = false,
		.local_ack_timeout = 18, .pdata = pdata, .pdata_len = len,
	};

	p.local_gid[10] = p.local_gid[11] = 0xFF;
	p.local_gid[12] = 10;
	p.local_gid[15] = 1;
	memcpy(p.remote_gid, p.local_gid, 16);
	p.remote_gid[15] = 2;
	return p;
}

static void
test_req(void)
{
	uint8_t pd[DR_CM_REQ_PDATA_LEN + 1], m[DR_MAD_SIZE];
	struct dr_cm_req_param p, q;
	uint16_t attr = 0;

	for (unsigned int i = 0; i < sizeof(pd); i++)
		pd[i] = (uint8_t)(i + 1);
	p = sample_req(pd, 56);
	CHECK_EQ(dr_cm_req_pack(m, 42, &p), 0);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_OK);
	CHECK_EQ(attr, DR_CM_ATTR_REQ);
	/* where Table 106 puts them (MAD offsets: CM data starts at 24) */
	CHECK_EQ(m[24], 0xDE);
	CHECK_EQ(m[24 + 8 + 4], 0x01);       /* Service ID 0x0000000001061C06 */
	CHECK_EQ(m[24 + 8 + 5], 0x06);
	CHECK_EQ(m[24 + 8 + 6], 0x1C);
	CHECK_EQ(m[24 + 32], 0x00);          /* QPN 0x000011 then responder resources 1 */
	CHECK_EQ(m[24 + 34], 0x11);
	CHECK_EQ(m[24 + 35], 0x01);
	CHECK_EQ(m[24 + 43], (20 << 3) | (0 << 1) | 1);
	CHECK_EQ(m[24 + 47], (20 << 3) | 7);
	CHECK_EQ(m[24 + 50], (3 << 4) | 7);
	CHECK_EQ(m[24 + 51], 15 << 4);
	CHECK_EQ(m[24 + 95], 18 << 3);
	CHECK_EQ(m[24 + 140], 1);
	CHECK_EQ(m[24 + 140 + 55], 56);
	CHECK_EQ(m[24 + 140 + 56], 0);       /* zero padded */
	dr_cm_req_unpack(m, &q);
	CHECK_EQ(q.local_comm_id, p.local_comm_id);
	CHECK_EQ(q.service_id, p.service_id);
	CHECK_EQ(q.local_ca_guid, p.local_ca_guid);
	CHECK_EQ(q.local_qpn, p.local_qpn);
	CHECK_EQ(q.starting_psn, p.starting_psn);
	CHECK_EQ(q.flow_label, p.flow_label);
	CHECK_EQ(q.packet_rate, p.packet_rate);
	CHECK_EQ(q.hop_limit, 64);
	CHECK_EQ(q.path_mtu, 3);
	CHECK_EQ(q.max_cm_retries, 15);
	CHECK_EQ(q.rnr_retry_count, 7);
	CHECK_EQ(q.retry_count, 7);
	CHECK_EQ(q.local_ack_timeout, 18);
	CHECK(q.flow_control && !q.srq);
	CHECK(memcmp(q.local_gid, p.local_gid, 16) == 0 && memcmp(q.remote_gid, p.remote_gid, 16) == 0);
	CHECK_EQ(q.pdata_len, DR_CM_REQ_PDATA_LEN);
	CHECK(memcmp(q.pdata, pd, 56) == 0);

	/* values that do not fit, private data too long, a bad MTU: -EINVAL */
	p = sample_req(pd, DR_CM_REQ_PDATA_LEN + 1);
	CHECK_EQ(dr_cm_req_pack(m, 1, &p), -EINVAL);
	p = sample_req(pd, 0);
	p.local_qpn = 0x1000000;
	CHECK_EQ(dr_cm_req_pack(m, 1, &p), -EINVAL);
	p = sample_req(pd, 0);
	p.retry_count = 8;
	CHECK_EQ(dr_cm_req_pack(m, 1, &p), -EINVAL);
	p = sample_req(pd, 0);
	p.path_mtu = 6;
	CHECK_EQ(dr_cm_req_pack(m, 1, &p), -EINVAL);
	p = sample_req(NULL, 4);
	CHECK_EQ(dr_cm_req_pack(m, 1, &p), -EINVAL);

	/* a REQ whose MTU field is not an MTU code is malformed (Table 106) */
	p = sample_req(pd, 0);
	CHECK_EQ(dr_cm_req_pack(m, 1, &p), 0);
	dr_mad_put(m, DR_CM_REQ_PATH_MTU, 0);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_BAD_FIELD);
}

static void
test_rep(void)
{
	uint8_t pd[8] = { 9, 8, 7, 6, 5, 4, 3, 2 }, m[DR_MAD_SIZE];
	struct dr_cm_rep_param p = {
		.local_comm_id = 0x01020304, .remote_comm_id = 0x0A0B0C0D, .local_qpn = 0xFEDCBA,
		.starting_psn = 0x000001, .responder_resources = 4, .initiator_depth = 2,
		.target_ack_delay = 31, .failover_accepted = 0, .flow_control = true,
		.rnr_retry_count = 7, .srq = true, .local_ca_guid = 7, .pdata = pd, .pdata_len = 8,
	}, q;
	uint16_t attr;

	CHECK_EQ(dr_cm_rep_pack(m, 5, &p), 0);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_OK);
	CHECK_EQ(attr, DR_CM_ATTR_REP);
	CHECK_EQ(m[24 + 26], (31 << 3) | 1);
	CHECK_EQ(m[24 + 27], (7 << 5) | (1 << 4));
	dr_cm_rep_unpack(m, &q);
	CHECK_EQ(q.local_comm_id, p.local_comm_id);
	CHECK_EQ(q.remote_comm_id, p.remote_comm_id);
	CHECK_EQ(q.local_qpn, p.local_qpn);
	CHECK_EQ(q.target_ack_delay, 31);
	CHECK_EQ(q.rnr_retry_count, 7);
	CHECK(q.srq && q.flow_control);
	CHECK_EQ(q.local_ca_guid, 7);
	CHECK(memcmp(q.pdata, pd, 8) == 0);
	p.rnr_retry_count = 8;
	CHECK_EQ(dr_cm_rep_pack(m, 5, &p), -EINVAL);
}

/*
 * ECE on the wire as Linux's ib_cm puts it: the REQ's VendorID in CM bytes
 * 5-7 (byte 4 reserved), the REP's in bytes 15, 19 and 23 (high, middle,
 * low: each after a 24-bit field), the options in the MAD header's
 * AttributeModifier (MAD bytes 20-23, cm_format_mad_ece_hdr()).
 */
static void
test_ece_wire(void)
{
	uint8_t pd[4] = { 1, 2, 3, 4 }, m[DR_MAD_SIZE];
	struct dr_cm_req_param p = sample_req(pd, 4), q;
	struct dr_cm_rep_param r = { .local_comm_id = 0x01020304, .remote_comm_id = 0x0A0B0C0D,
				     .local_qpn = 0xFEDCBA, .local_eecn = 0x123456, .starting_psn = 0x654321,
				     .rnr_retry_count = 7, .local_ca_guid = 7 }, t;
	uint16_t attr;

	/* no ECE (what rxe sends): both fields zero, the rest as before */
	CHECK_EQ(dr_cm_req_pack(m, 42, &p), 0);
	CHECK_EQ(dr_mad_get(m, DR_MAD_ATTR_MOD), 0);
	CHECK(m[24 + 4] == 0 && m[24 + 5] == 0 && m[24 + 6] == 0 && m[24 + 7] == 0);

	p.vendor_id = 0xABCDEF;
	p.ece_options = 0x80000001u;
	CHECK_EQ(dr_cm_req_pack(m, 42, &p), 0);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_OK);
	CHECK(m[20] == 0x80 && m[21] == 0 && m[22] == 0 && m[23] == 0x01);
	CHECK_EQ(m[24 + 3], 0xEF);            /* the comm ID's last byte */
	CHECK_EQ(m[24 + 4], 0x00);            /* reserved */
	CHECK(m[24 + 5] == 0xAB && m[24 + 6] == 0xCD && m[24 + 7] == 0xEF);
	CHECK_EQ(m[24 + 8], 0x00);            /* the Service ID's first byte */
	dr_cm_req_unpack(m, &q);
	CHECK_EQ(q.vendor_id, 0xABCDEF);
	CHECK_EQ(q.ece_options, 0x80000001u);
	CHECK_EQ(q.local_comm_id, p.local_comm_id);
	CHECK_EQ(q.service_id, p.service_id);
	/* dpdk-rdma's vendor travels as its low 24 bits */
	p.vendor_id = dr_cm_ece_wire_vendor(DR_ECE_VENDOR_ID);
	p.ece_options = DR_ECE_OPT_SELECTIVE_REPEAT;
	CHECK_EQ(dr_cm_req_pack(m, 42, &p), 0);
	CHECK(m[24 + 5] == 0x52 && m[24 + 6] == 0 && m[24 + 7] == 0 && m[23] == 1);
	p.vendor_id = 0x1000000;              /* wider than the field */
	CHECK_EQ(dr_cm_req_pack(m, 42, &p), -EINVAL);

	CHECK_EQ(dr_cm_rep_pack(m, 5, &r), 0);
	CHECK_EQ(dr_mad_get(m, DR_MAD_ATTR_MOD), 0);
	CHECK(m[24 + 15] == 0 && m[24 + 19] == 0 && m[24 + 23] == 0);
	r.vendor_id = 0xABCDEF;
	r.ece_options = 0x00000003u;
	CHECK_EQ(dr_cm_rep_pack(m, 5, &r), 0);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_OK);
	CHECK(m[20] == 0 && m[21] == 0 && m[22] == 0 && m[23] == 0x03);
	CHECK(m[24 + 12] == 0xFE && m[24 + 13] == 0xDC && m[24 + 14] == 0xBA && m[24 + 15] == 0xAB);
	CHECK(m[24 + 16] == 0x12 && m[24 + 17] == 0x34 && m[24 + 18] == 0x56 && m[24 + 19] == 0xCD);
	CHECK(m[24 + 20] == 0x65 && m[24 + 21] == 0x43 && m[24 + 22] == 0x21 && m[24 + 23] == 0xEF);
	dr_cm_rep_unpack(m, &t);
	CHECK_EQ(t.vendor_id, 0xABCDEF);
	CHECK_EQ(t.ece_options, 3);
	CHECK_EQ(t.local_qpn, 0xFEDCBA);
	CHECK_EQ(t.local_eecn, 0x123456);
	CHECK_EQ(t.starting_psn, 0x654321);
	r.vendor_id = 0x1000000;
	CHECK_EQ(dr_cm_rep_pack(m, 5, &r), -EINVAL);
}

/*
 * The negotiation (dr_cm_ece.h, as librdmacm's init_ece() and
 * ucma_process_conn_resp_ece() decide): the REQ offers the active QP's
 * ECE; the passive QP takes the options both offer when the REQ is ours,
 * and the REP answers them; the active QP takes the REP's when it is ours.
 * Vendor 0 (rxe) or another vendor: nothing set on either side.
 */
static void
negotiate(uint32_t a_opts, uint32_t b_opts, uint32_t req_vendor_override, bool *a_took, uint32_t *a_opt,
	  bool *b_took, uint32_t *b_opt, struct dr_cm_ece *rep_out)
{
	const struct dr_ece a = { .vendor_id = DR_ECE_VENDOR_ID, .options = a_opts };
	const struct dr_ece b = { .vendor_id = DR_ECE_VENDOR_ID, .options = b_opts };
	struct dr_cm_ece req = dr_cm_ece_offer(&a), rep;
	struct dr_ece tb = { 0 }, ta = { 0 };

	if (req_vendor_override != UINT32_MAX)
		req.vendor_id = req_vendor_override;
	*b_took = dr_cm_ece_accept(&req, &b, &tb);
	*b_opt = *b_took ? tb.options : 0;
	rep = dr_cm_ece_reply(&req, *b_took ? &tb : NULL);
	*a_took = dr_cm_ece_confirm(&rep, &a, &ta);
	*a_opt = *a_took ? ta.options : 0;
	*rep_out = rep;
}

static void
test_ece_rules(void)
{
	const uint32_t sr = DR_ECE_OPT_SELECTIVE_REPEAT, ours = dr_cm_ece_wire_vendor(DR_ECE_VENDOR_ID);
	const struct dr_ece a = { .vendor_id = DR_ECE_VENDOR_ID, .options = sr };
	struct dr_cm_ece req, rep;
	struct dr_ece take;
	uint32_t ao, bo;
	bool at, bt;

	CHECK_EQ(ours, 0x520000);
	CHECK(dr_cm_ece_ours(ours) && !dr_cm_ece_ours(0) && !dr_cm_ece_ours(0x0002C9));
	CHECK(!dr_cm_ece_ours(DR_ECE_VENDOR_ID));           /* 32 bits never come off the wire */
	req = dr_cm_ece_offer(&a);
	CHECK(req.vendor_id == ours && req.options == sr);
	req = dr_cm_ece_offer(&(struct dr_ece){ .vendor_id = 0, .options = sr });
	CHECK(req.vendor_id == 0 && req.options == 0);     /* no vendor: nothing offered */

	/* ours + ours: selective repeat on both QPs, the REP says so */
	negotiate(sr, sr, UINT32_MAX, &at, &ao, &bt, &bo, &rep);
	CHECK(at && bt && ao == sr && bo == sr);
	CHECK(rep.vendor_id == ours && rep.options == sr);
	/* one side without it (the application set options 0): both take none */
	negotiate(0, sr, UINT32_MAX, &at, &ao, &bt, &bo, &rep);
	CHECK(at && bt && ao == 0 && bo == 0 && rep.options == 0);
	negotiate(sr, 0, UINT32_MAX, &at, &ao, &bt, &bo, &rep);
	CHECK(at && bt && ao == 0 && bo == 0 && rep.options == 0);
	/* the passive side knows only what it supports: unknown bits are not echoed */
	negotiate(0xFFFFFFFFu, sr, UINT32_MAX, &at, &ao, &bt, &bo, &rep);
	CHECK(bt && bo == sr && rep.options == sr && at && ao == sr);
	/* ours + vendor 0 (an rxe/Linux active side without ECE): nothing set, the REP as today (0, 0) */
	negotiate(sr, sr, 0, &at, &ao, &bt, &bo, &rep);
	CHECK(!bt && !at && rep.vendor_id == 0 && rep.options == 0);
	/* another vendor's REQ: nothing set; its ID echoed with no option (librdmacm's REP) */
	negotiate(sr, sr, 0x0002C9, &at, &ao, &bt, &bo, &rep);
	CHECK(!bt && !at && rep.vendor_id == 0x0002C9 && rep.options == 0);

	/* the active side against answers it may get */
	rep = (struct dr_cm_ece){ 0, 0 };                   /* a passive peer without ECE */
	CHECK(!dr_cm_ece_confirm(&rep, &a, &take));
	rep = (struct dr_cm_ece){ 0x0002C9, sr };           /* another vendor's */
	CHECK(!dr_cm_ece_confirm(&rep, &a, &take));
	rep = (struct dr_cm_ece){ ours, 0 };                /* librdmacm on rxe: our ID echoed, no option */
	CHECK(dr_cm_ece_confirm(&rep, &a, &take) && take.vendor_id == DR_ECE_VENDOR_ID && take.options == 0);
	rep = (struct dr_cm_ece){ ours, 0xFFFFFFFFu };      /* an answer wider than the offer */
	CHECK(dr_cm_ece_confirm(&rep, &(struct dr_ece){ .vendor_id = DR_ECE_VENDOR_ID, .options = 0 }, &take) &&
	      take.options == 0);
}

static void
test_msg_check(void)
{
	uint8_t m[DR_MAD_SIZE];
	uint16_t attr;

	dr_cm_msg_init(m, 0x0099, 1);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_UNKNOWN_ATTR);
	dr_cm_msg_init(m, DR_CM_ATTR_LAP, 1);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_UNSUPPORTED);
	dr_cm_msg_init(m, DR_CM_ATTR_CLASS_PORT_INFO, 1);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_UNSUPPORTED);
	dr_cm_msg_init(m, DR_CM_ATTR_MRA, 1);
	dr_mad_put(m, DR_CM_MRA_MESSAGE_MRAED, 3);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_BAD_FIELD);
	dr_cm_msg_init(m, DR_CM_ATTR_REJ, 1);
	dr_mad_put(m, DR_CM_REJ_ARI_LENGTH, 73);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_BAD_FIELD);
	dr_mad_put(m, DR_CM_REJ_ARI_LENGTH, 72);
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_OK);
	dr_cm_msg_init(m, DR_CM_ATTR_DREQ, 1);
	m[3] = DR_MAD_METHOD_GET_RESP;
	CHECK_EQ(dr_cm_msg_check(m, sizeof(m), &attr), DR_CM_MSG_BAD_MAD);
	CHECK_EQ(dr_cm_msg_check(m, 100, &attr), DR_CM_MSG_BAD_MAD);

	/* every message's private data ends at the end of the MAD (Tables 106-120) */
	static const uint16_t ids[] = { DR_CM_ATTR_REQ, DR_CM_ATTR_MRA, DR_CM_ATTR_REJ, DR_CM_ATTR_REP,
					DR_CM_ATTR_RTU, DR_CM_ATTR_DREQ, DR_CM_ATTR_DREP,
					DR_CM_ATTR_SIDR_REQ, DR_CM_ATTR_SIDR_REP };
	for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		CHECK_MSG(dr_cm_pdata_off(ids[i]) + dr_cm_pdata_len(ids[i]) == DR_MAD_SIZE, "%s",
			  dr_cm_attr_str(ids[i]));
		CHECK(strcmp(dr_cm_attr_str(ids[i]), "?") != 0);
	}
	CHECK_EQ(dr_cm_pdata_len(0x0099), 0);
	CHECK(strcmp(dr_cm_rej_reason_str(DR_CM_REJ_CONSUMER_DEFINED), "consumer reject") == 0);
	CHECK(strcmp(dr_cm_rej_reason_str(34), "?") == 0);
	CHECK(strcmp(dr_cm_rej_reason_str(9999), "?") == 0);
}

static void
test_ip(void)
{
	struct dr_cm_ip_hdr h = { .ip_version = 4, .src_port = 0xC001 }, g;
	uint8_t pd[DR_CM_IP_HDR_LEN];
	uint16_t ps, port;

	/* A11.2.1: 0x0000000001 | port space | port; rdma_cm's RDMA_PS_TCP is 0x0106 */
	CHECK_EQ(dr_cm_ip_service_id(DR_CM_PS_TCP, 7174), UINT64_C(0x0000000001061C06));
	CHECK_EQ(dr_cm_ip_service_id(DR_CM_PS_UDP, 1), UINT64_C(0x0000000001110001));
	CHECK(dr_cm_ip_service_parse(UINT64_C(0x0000000001061C06), &ps, &port));
	CHECK_EQ(ps, DR_CM_PS_TCP);
	CHECK_EQ(port, 7174);
	CHECK(!dr_cm_ip_service_parse(UINT64_C(0x0000000002061C06), &ps, &port));
	CHECK(!dr_cm_ip_service_parse(UINT64_C(0x1000000001061C06), &ps, &port));

	h.src_addr[12] = 10;
	h.src_addr[15] = 1;
	h.dst_addr[12] = 10;
	h.dst_addr[15] = 2;
	dr_cm_ip_hdr_pack(&h, pd);
	CHECK_EQ(pd[0], 0x00);
	CHECK_EQ(pd[1], 0x40);
	CHECK_EQ(pd[2], 0xC0);
	CHECK_EQ(pd[3], 0x01);
	CHECK_EQ(pd[4 + 12], 10);       /* IPv4 in the last four bytes, the rest zero */
	CHECK_EQ(pd[4 + 11], 0);
	CHECK_EQ(pd[20 + 15], 2);
	CHECK_EQ(dr_cm_ip_hdr_unpack(pd, &g), 0);
	CHECK_EQ(g.ip_version, 4);
	CHECK_EQ(g.src_port, 0xC001);
	CHECK(memcmp(g.src_addr, h.src_addr, 16) == 0 && memcmp(g.dst_addr, h.dst_addr, 16) == 0);
	pd[1] = 0x50;
	CHECK_EQ(dr_cm_ip_hdr_unpack(pd, &g), -EPROTO);
	pd[1] = 0x60;
	CHECK_EQ(dr_cm_ip_hdr_unpack(pd, &g), 0);
	pd[0] = 0x10;
	CHECK_EQ(dr_cm_ip_hdr_unpack(pd, &g), -EPROTO);
}

int
main(void)
{
	test_fields();
	test_mad_hdr();
	test_req();
	test_rep();
	test_ece_wire();
	test_ece_rules();
	test_msg_check();
	test_ip();
	return dr_test_report("cm_msg");
}
