/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The CM's wire layer against real rdma_cm traffic: Linux rxe (Debian 12,
 * kernel 6.1, rdma_ucm, librdmacm 44) between two VMs, captured on a tap
 * (test/vectors/rdmacm_*.pcap, the programs' output beside them):
 *
 *   rdmacm_rping.pcap      rping: REQ, REP, RTU, the RC traffic, DREQ, DREP
 *   rdmacm_rping_rej.pcap  rping to a port nobody listens on: REQ, REJ 8
 *   rdmacm_udaddy.pcap     udaddy: SIDR_REQ, SIDR_REP, then UD sends
 *
 * Every MAD passes dr_cm_msg_check(); the REQ and REP unpack to the values
 * rping set and pack again to the same 256 bytes (every field of Tables 106
 * and 110 where Linux puts it); our REJ for an unknown service, DREP for a
 * DREQ and SIDR_REP are byte for byte what Linux sent in the same place.
 * rxe offers no ECE (VendorID 0, AttributeModifier 0): our CM sets nothing
 * on a QP for it, and a REQ or REP of ours with an ECE differs from
 * Linux's in those two fields only.
 */

#include <pcap/pcap.h>

#include "dr_cm_agent.h"
#include "dr_cm_ece.h"
#include "dr_cm_ip.h"
#include "dr_cm_msg.h"
#include "dr_cm_param.h"
#include "dr_pkt.h"
#include "dr_test.h"

#define MAX_MADS 8

/* The first RC request of the capture from each address (the first data each side sent). */
struct first_rc {
	uint8_t sgid[2][16];
	uint32_t psn[2];
	unsigned int n;
};

static struct first_rc first_rc;

struct mad {
	uint8_t b[DR_MAD_SIZE];
	uint8_t sgid[16], dgid[16];
	uint16_t attr;
};

static const char *vdir;

/* The MADs of a capture (UD to QP1), in order. */
static unsigned int
read_mads(const char *name, struct mad *out)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned int n = 0;
	pcap_t *p;

	snprintf(path, sizeof(path), "%s/%s", vdir, name);
	p = pcap_open_offline(path, err);
	CHECK_MSG(p != NULL, "%s: %s", path, err);
	if (p == NULL)
		return 0;
	while (pcap_next_ex(p, &h, &data) == 1) {
		struct dr_pkt_info pi;

		if (dr_pkt_parse_buf(data, h->caplen, &pi) != DR_PKT_OK)
			continue;
		if (dr_bth_qpn(dr_pkt_bth(&pi)) != DR_GSI_QPN) {
			/* an RC request (not an ACK or READ response): the first from each side */
			bool seen = false;

			if ((pi.opcode & 0xE0) != 0 || pi.opcode >= 0x0D)
				continue;
			for (unsigned int k = 0; k < first_rc.n; k++)
				seen |= memcmp(first_rc.sgid[k], pi.sgid, 16) == 0;
			if (!seen && first_rc.n < 2) {
				memcpy(first_rc.sgid[first_rc.n], pi.sgid, 16);
				first_rc.psn[first_rc.n++] = dr_bth_psn(dr_pkt_bth(&pi));
			}
			continue;
		}
		CHECK_EQ(dr_deth_qkey(dr_pkt_deth(&pi)), DR_GSI_QKEY);
		CHECK_EQ(dr_deth_sqp(dr_pkt_deth(&pi)), DR_GSI_QPN);
		CHECK_EQ(pi.paylen, DR_MAD_SIZE);
		if (n < MAX_MADS && pi.paylen == DR_MAD_SIZE) {
			memcpy(out[n].b, data + pi.pay_off, DR_MAD_SIZE);
			memcpy(out[n].sgid, pi.sgid, 16);
			memcpy(out[n].dgid, pi.dgid, 16);
			CHECK_EQ(dr_cm_msg_check(out[n].b, DR_MAD_SIZE, &out[n].attr), DR_CM_MSG_OK);
			n++;
		}
	}
	pcap_close(p);
	return n;
}

static void
check_ip_hdr(const uint8_t *pdata, const struct mad *m)
{
	struct dr_cm_ip_hdr h;

	CHECK_EQ(dr_cm_ip_hdr_unpack(pdata, &h), 0);
	CHECK_EQ(h.ip_version, 4);
	CHECK(h.src_port != 0);
	/* IPv4 in the last four bytes, the twelve before them zero (not ::ffff:) */
	CHECK(memcmp(h.src_addr + 12, m->sgid + 12, 4) == 0 && memcmp(h.dst_addr + 12, m->dgid + 12, 4) == 0);
	for (int i = 0; i < 12; i++)
		CHECK(h.src_addr[i] == 0 && h.dst_addr[i] == 0);
}

/* @a and @b differ in the bytes of @fields only (and may in each). */
static bool
differ_only_in(const uint8_t *a, const uint8_t *b, const struct dr_mad_field *fields, unsigned int n)
{
	for (unsigned int i = 0; i < DR_MAD_SIZE; i++) {
		bool in = false;

		for (unsigned int k = 0; k < n; k++)
			in |= i >= fields[k].bit / 8u && i <= (fields[k].bit + fields[k].width - 1u) / 8u;
		if (!in && a[i] != b[i])
			return false;
	}
	return true;
}

/*
 * rping's REQ and REP carry no ECE (rxe has none: ibv_query_ece() fails,
 * librdmacm sends VendorID 0, options 0), so neither of our sides would
 * set anything on its QP; ours with dpdk-rdma's ECE are Linux's message
 * with VendorID and AttributeModifier changed, nothing else.
 */
static void
check_ece(const struct mad *reqm, struct dr_cm_req_param req, const struct mad *repm,
	  struct dr_cm_rep_param rep)
{
	static const struct dr_mad_field req_ece[] = { DR_CM_REQ_VENDOR_ID, DR_MAD_ATTR_MOD };
	static const struct dr_mad_field rep_ece[] = { DR_CM_REP_VENDOR_ID_H, DR_CM_REP_VENDOR_ID_M,
						       DR_CM_REP_VENDOR_ID_L, DR_MAD_ATTR_MOD };
	const struct dr_ece ours = { .vendor_id = DR_ECE_VENDOR_ID, .options = DR_ECE_OPT_SELECTIVE_REPEAT };
	const struct dr_cm_ece req_ece_got = { req.vendor_id, req.ece_options };
	const struct dr_cm_ece rep_ece_got = { rep.vendor_id, rep.ece_options };
	struct dr_cm_ece offer = dr_cm_ece_offer(&ours), answer;
	uint8_t again[DR_MAD_SIZE];
	struct dr_ece take;

	CHECK_EQ(req.vendor_id, 0);
	CHECK_EQ(req.ece_options, 0);
	CHECK_EQ(rep.vendor_id, 0);
	CHECK_EQ(rep.ece_options, 0);
	CHECK(!dr_cm_ece_accept(&req_ece_got, &ours, &take));
	CHECK(!dr_cm_ece_confirm(&rep_ece_got, &ours, &take));
	answer = dr_cm_ece_reply(&req_ece_got, NULL);
	CHECK(answer.vendor_id == 0 && answer.options == 0);   /* our REP to rping's REQ: no ECE, as rxe's */

	req.vendor_id = offer.vendor_id;
	req.ece_options = offer.options;
	CHECK_EQ(dr_cm_req_pack(again, dr_mad_get(reqm->b, DR_MAD_TID), &req), 0);
	CHECK(memcmp(again, reqm->b, DR_MAD_SIZE) != 0);
	CHECK(differ_only_in(again, reqm->b, req_ece, RTE_DIM(req_ece)));
	rep.vendor_id = offer.vendor_id;
	rep.ece_options = offer.options;
	CHECK_EQ(dr_cm_rep_pack(again, dr_mad_get(repm->b, DR_MAD_TID), &rep), 0);
	CHECK(memcmp(again, repm->b, DR_MAD_SIZE) != 0);
	CHECK(differ_only_in(again, repm->b, rep_ece, RTE_DIM(rep_ece)));
}

static void
test_rping(void)
{
	struct mad m[MAX_MADS];
	struct dr_cm_req_param req;
	struct dr_cm_rep_param rep;
	uint8_t again[DR_MAD_SIZE];
	uint16_t ps = 0, port = 0;
	unsigned int n = read_mads("rdmacm_rping.pcap", m);
	static const uint16_t want[] = { DR_CM_ATTR_REQ, DR_CM_ATTR_REP, DR_CM_ATTR_RTU, DR_CM_ATTR_DREQ,
					 DR_CM_ATTR_DREP };

	CHECK_EQ(n, 5);
	if (n != 5)
		return;
	for (unsigned int i = 0; i < n; i++)
		CHECK_MSG(m[i].attr == want[i], "MAD %u: %s", i, dr_cm_attr_str(m[i].attr));

	/* the REQ as rping's rdma_connect() made it (librdmacm, kernel 6.1 rdma_cm/ib_cm) */
	dr_cm_req_unpack(m[0].b, &req);
	CHECK(dr_cm_ip_service_parse(req.service_id, &ps, &port));
	CHECK_EQ(ps, DR_CM_PS_TCP);
	CHECK_EQ(port, 7174);
	CHECK_EQ(req.local_qpn, 0x11);
	CHECK_EQ(req.transport, DR_CM_TRANSPORT_RC);
	CHECK_EQ(req.responder_resources, 1);
	CHECK_EQ(req.initiator_depth, 1);
	CHECK_EQ(req.remote_cm_response_timeout, 20);
	CHECK_EQ(req.local_cm_response_timeout, 20);
	CHECK_EQ(req.max_cm_retries, 15);
	CHECK_EQ(req.retry_count, 7);
	CHECK_EQ(req.rnr_retry_count, 7);
	CHECK_EQ(req.path_mtu, 3);                 /* 1024: the 1500-byte link's */
	CHECK_EQ(req.pkey, 0xFFFF);
	CHECK_EQ(req.local_lid, 0xFFFF);           /* RoCE: permissive LIDs */
	CHECK_EQ(req.remote_lid, 0xFFFF);
	CHECK_EQ(req.hop_limit, 64);
	CHECK_EQ(req.local_ack_timeout, 19);       /* packet life time 18 + 1 */
	CHECK(!req.srq && !req.flow_control);
	CHECK(memcmp(req.local_gid, m[0].sgid, 16) == 0 && memcmp(req.remote_gid, m[0].dgid, 16) == 0);
	check_ip_hdr(req.pdata, &m[0]);
	/* and back: the same 256 bytes (nothing of Table 106 is lost or misplaced) */
	req.pdata_len = DR_CM_REQ_PDATA_LEN;
	CHECK_EQ(dr_cm_req_pack(again, dr_mad_get(m[0].b, DR_MAD_TID), &req), 0);
	CHECK(memcmp(again, m[0].b, DR_MAD_SIZE) == 0);

	dr_cm_rep_unpack(m[1].b, &rep);
	CHECK_EQ(rep.remote_comm_id, req.local_comm_id);
	CHECK_EQ(rep.local_qpn, 0x11);
	CHECK_EQ(rep.responder_resources, 1);
	CHECK_EQ(rep.initiator_depth, 1);
	CHECK_EQ(rep.rnr_retry_count, 7);
	CHECK(rep.local_ca_guid != req.local_ca_guid);
	rep.pdata_len = DR_CM_REP_PDATA_LEN;
	CHECK_EQ(dr_cm_rep_pack(again, dr_mad_get(m[1].b, DR_MAD_TID), &rep), 0);
	CHECK(memcmp(again, m[1].b, DR_MAD_SIZE) == 0);
	check_ece(&m[0], req, &m[1], rep);

	/*
	 * A message's Starting PSN is the first its receiver sends: the client
	 * (the REQ's sender) sent its first request with the REP's, the server
	 * with the REQ's (Linux ib_cm; our dr_cm_id.c readies QPs so)
	 */
	CHECK_EQ(first_rc.n, 2);
	for (unsigned int k = 0; k < first_rc.n; k++) {
		bool client = memcmp(first_rc.sgid[k], m[0].sgid, 16) == 0;

		CHECK_EQ(first_rc.psn[k], client ? rep.starting_psn : req.starting_psn);
	}

	/* RTU, DREQ (the passive side's QPN), DREP: the two IDs each way */
	CHECK_EQ(dr_mad_get(m[2].b, DR_CM_RTU_LOCAL_COMM_ID), req.local_comm_id);
	CHECK_EQ(dr_mad_get(m[2].b, DR_CM_RTU_REMOTE_COMM_ID), rep.local_comm_id);
	CHECK_EQ(dr_mad_get(m[3].b, DR_CM_DREQ_REMOTE_QPN), rep.local_qpn);
	/* our DREP for that DREQ is Linux's, byte for byte */
	dr_cm_drep_unmatched(again, m[3].b);
	CHECK(memcmp(again, m[4].b, DR_MAD_SIZE) == 0);
}

static void
test_rej(void)
{
	struct mad m[MAX_MADS];
	uint8_t ours[DR_MAD_SIZE];
	unsigned int n = read_mads("rdmacm_rping_rej.pcap", m);

	CHECK_EQ(n, 2);
	if (n != 2)
		return;
	CHECK_EQ(m[0].attr, DR_CM_ATTR_REQ);
	CHECK_EQ(m[1].attr, DR_CM_ATTR_REJ);
	CHECK_EQ(dr_mad_get(m[1].b, DR_CM_REJ_REASON), DR_CM_REJ_INVALID_SERVICE_ID);
	/* the REJ our agent sends when nobody listens is the one Linux sent */
	dr_cm_rej_unmatched(ours, m[0].b, DR_CM_ATTR_REQ, DR_CM_REJ_INVALID_SERVICE_ID);
	CHECK(memcmp(ours, m[1].b, DR_MAD_SIZE) == 0);
}

static uint8_t sent[DR_MAD_SIZE];

static void
capture_send(void *owner, const struct dr_cm_peer *to, const uint8_t *mad)
{
	(void)owner;
	(void)to;
	memcpy(sent, mad, DR_MAD_SIZE);
}

static void
test_sidr(void)
{
	static const struct dr_cm_agent_ops ops = { .send = capture_send };
	struct mad m[MAX_MADS];
	struct dr_cm_agent a;
	struct dr_cm_peer peer;
	uint16_t ps = 0, port = 0;
	unsigned int n = read_mads("rdmacm_udaddy.pcap", m);

	CHECK_EQ(n, 2);
	if (n != 2)
		return;
	CHECK_EQ(m[0].attr, DR_CM_ATTR_SIDR_REQ);
	CHECK_EQ(m[1].attr, DR_CM_ATTR_SIDR_REP);
	CHECK(dr_cm_ip_service_parse(dr_mad_get(m[0].b, DR_CM_SIDR_REQ_SERVICE_ID), &ps, &port));
	CHECK_EQ(ps, DR_CM_PS_UDP);
	CHECK_EQ(port, 7174);
	CHECK_EQ(dr_mad_get(m[0].b, DR_CM_SIDR_REQ_PKEY), 0xFFFF);
	check_ip_hdr(m[0].b + DR_CM_SIDR_REQ_PDATA_OFF, &m[0]);
	CHECK_EQ(dr_mad_get(m[1].b, DR_CM_SIDR_REP_STATUS), DR_CM_SIDR_SUCCESS);
	CHECK_EQ(dr_mad_get(m[1].b, DR_CM_SIDR_REP_QKEY), 0x01234567);   /* udaddy's */
	/* our answer with the same QPN and Q_Key is Linux's, byte for byte */
	CHECK_EQ(dr_cm_agent_init(&a, 4, 1, 1, 1, 0, &ops, NULL), 0);
	memcpy(peer.gid, m[0].sgid, 16);
	CHECK_EQ(dr_cm_agent_sidr_rep(&a, &peer, m[0].b, DR_CM_SIDR_SUCCESS,
				      (uint32_t)dr_mad_get(m[1].b, DR_CM_SIDR_REP_QPN), 0x01234567, NULL, 0), 0);
	CHECK(memcmp(sent, m[1].b, DR_MAD_SIZE) == 0);
	dr_cm_agent_fini(&a);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
		return 2;
	}
	vdir = argv[1];
	test_rping();
	test_rej();
	test_sidr();
	return dr_test_report("cm_vectors");
}
