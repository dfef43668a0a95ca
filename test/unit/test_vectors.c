/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Golden vectors: captures of Linux rxe (Debian 6.1) talking RoCEv2 to itself
 * (test/vectors/, see the .txt logs beside each pcap). For every frame:
 * parse it, check its ICRC, and rebuild it byte for byte with our own builder
 * from the parsed fields and payload, once contiguous and once with the
 * payload spread over chained segments. The one deliberately corrupted frame
 * (hostpeer_ud.pcap #1) must fail the ICRC check.
 */

#include <pcap/pcap.h>

#include "dr_icrc.h"
#include "dr_pkt.h"
#include "dr_test.h"
#include "test_mbuf.h"

struct vector_file {
	const char *name;
	unsigned int frames;       /* every frame in the capture is RoCEv2 */
	int bad_icrc_frame;        /* 1-based, 0 = none */
};

static const struct vector_file vector_files[] = {
	{ "hostpeer_ud.pcap", 3, 1 },
	{ "opgen_rc.pcap", 38, 0 },
	{ "perftest_send_bw_4k.pcap", 25, 0 },
	{ "perftest_write_lat.pcap", 20, 0 },
	{ "rc_pingpong.pcap", 20, 0 },
	{ "uc_pingpong.pcap", 10, 0 },
	{ "ud_pingpong.pcap", 10, 0 },
};

/* opgen_rc.pcap: the opcode of each frame (rxe-opgen, see opgen_rc.client.txt) */
static const uint8_t opgen_rc_opcodes[38] = {
	0x04, 0x11, 0x05, 0x11, 0x04, 0x11,             /* SEND 64, SEND_IMM 61, SEND 0 */
	0x00, 0x01, 0x02, 0x11,                         /* SEND 3000 */
	0x00, 0x01, 0x03, 0x11,                         /* SEND_IMM 3001 */
	0x0A, 0x11, 0x06, 0x07, 0x08, 0x11,             /* WRITE 64, WRITE 3001 */
	0x0B, 0x11, 0x06, 0x07, 0x09, 0x11,             /* WRITE_IMM 64, WRITE_IMM 3002 */
	0x0C, 0x10, 0x0C, 0x0D, 0x0E, 0x0F,             /* READ 64, READ 3003 */
	0x14, 0x12, 0x13, 0x12, 0x13, 0x12,             /* FETCH_ADD, CMP_SWAP x2 */
};

/* Everything below the transport, read back from a parsed frame. */
static void
route_from_frame(const uint8_t *f, const struct dr_pkt_info *pi, struct dr_pkt_route *rt, uint16_t *ip_id)
{
	const uint8_t *ip = f + pi->l3_off;

	memset(rt, 0, sizeof(*rt));
	memcpy(&rt->dmac, f, 6);
	memcpy(&rt->smac, f + 6, 6);
	rt->has_vlan = pi->has_vlan;
	rt->vlan_tci = pi->vlan_tci;
	rt->ip_ver = pi->ip_ver;
	memcpy(rt->sgid, pi->sgid, 16);
	memcpy(rt->dgid, pi->dgid, 16);
	rt->udp_sport = pi->udp_sport;
	if (pi->ip_ver == 4) {
		rt->tclass = ip[1];
		rt->hop_limit = ip[8];
		rt->ipv4_df = (ip[6] & 0x40) != 0;
		*ip_id = (uint16_t)(ip[4] << 8 | ip[5]);
	} else {
		rt->tclass = (uint8_t)(((ip[0] & 0xF) << 4) | (ip[1] >> 4));
		rt->flow_label = ((uint32_t)(ip[1] & 0xF) << 16) | (uint32_t)(ip[2] << 8) | ip[3];
		rt->hop_limit = ip[7];
		*ip_id = 0;
	}
}

/* Copy every transport field from @src to @dst through the accessors. */
static void
copy_transport(const struct dr_pkt_info *src, const struct dr_pkt_info *dst)
{
	const struct dr_bth *sb = dr_pkt_bth(src);
	struct dr_bth *db = dr_pkt_bth(dst);
	uint32_t m = src->mask;

	CHECK_EQ(dr_bth_pad(db), dr_bth_pad(sb));   /* the builder derives the pad from the length */
	CHECK_EQ(dr_bth_tver(db), dr_bth_tver(sb));
	dr_bth_set_se(db, dr_bth_se(sb));
	dr_bth_set_mig(db, dr_bth_mig(sb));
	dr_bth_set_pkey(db, dr_bth_pkey(sb));
	dr_bth_set_fecn(db, dr_bth_fecn(sb));
	dr_bth_set_becn(db, dr_bth_becn(sb));
	dr_bth_set_resv6a(db, dr_bth_resv6a(sb));
	dr_bth_set_qpn(db, dr_bth_qpn(sb));
	dr_bth_set_ackreq(db, dr_bth_ackreq(sb));
	dr_bth_set_resv7(db, dr_bth_resv7(sb));
	dr_bth_set_psn(db, dr_bth_psn(sb));
	if (m & DR_OPF_RDETH)
		dr_rdeth_set_een(dr_pkt_rdeth(dst), dr_rdeth_een(dr_pkt_rdeth(src)));
	if (m & DR_OPF_DETH) {
		dr_deth_set_qkey(dr_pkt_deth(dst), dr_deth_qkey(dr_pkt_deth(src)));
		dr_deth_set_sqp(dr_pkt_deth(dst), dr_deth_sqp(dr_pkt_deth(src)));
	}
	if (m & DR_OPF_XRCETH)
		dr_xrceth_set_srq(dr_pkt_xrceth(dst), dr_xrceth_srq(dr_pkt_xrceth(src)));
	if (m & DR_OPF_FETH)
		dr_feth_set(dr_pkt_feth(dst), dr_feth_plt(dr_pkt_feth(src)), dr_feth_sel(dr_pkt_feth(src)));
	if (m & DR_OPF_RETH) {
		dr_reth_set_va(dr_pkt_reth(dst), dr_reth_va(dr_pkt_reth(src)));
		dr_reth_set_rkey(dr_pkt_reth(dst), dr_reth_rkey(dr_pkt_reth(src)));
		dr_reth_set_len(dr_pkt_reth(dst), dr_reth_len(dr_pkt_reth(src)));
	}
	if (m & DR_OPF_ATMETH) {
		dr_atmeth_set_va(dr_pkt_atmeth(dst), dr_atmeth_va(dr_pkt_atmeth(src)));
		dr_atmeth_set_rkey(dr_pkt_atmeth(dst), dr_atmeth_rkey(dr_pkt_atmeth(src)));
		dr_atmeth_set_swap_add(dr_pkt_atmeth(dst), dr_atmeth_swap_add(dr_pkt_atmeth(src)));
		dr_atmeth_set_comp(dr_pkt_atmeth(dst), dr_atmeth_comp(dr_pkt_atmeth(src)));
	}
	if (m & DR_OPF_AETH)
		dr_aeth_set(dr_pkt_aeth(dst), dr_aeth_syndrome(dr_pkt_aeth(src)), dr_aeth_msn(dr_pkt_aeth(src)));
	if (m & DR_OPF_ATMACK)
		dr_atmack_set_orig(dr_pkt_atmack(dst), dr_atmack_orig(dr_pkt_atmack(src)));
	if (m & DR_OPF_IMMDT)
		dr_immdt_set_imm(dr_pkt_immdt(dst), dr_immdt_imm(dr_pkt_immdt(src)));
	if (m & DR_OPF_IETH)
		dr_ieth_set_rkey(dr_pkt_ieth(dst), dr_ieth_rkey(dr_pkt_ieth(src)));
}

/*
 * Rebuild @f from @pi with the payload cut into @nseg segments; return the
 * rebuilt frame's length and bytes in @out.
 */
static uint32_t
rebuild(const uint8_t *f, const struct dr_pkt_info *pi, unsigned int nseg, uint8_t *out)
{
	struct dr_pkt_route rt;
	struct dr_pkt_info bi;
	struct rte_mbuf *m = tmbuf_new((uint16_t)(pi->paylen + 256));
	uint32_t done = 0, len;
	uint16_t ip_id;
	int rc;

	route_from_frame(f, pi, &rt, &ip_id);
	rc = dr_pkt_build(m, &rt, ip_id, pi->opcode, pi->paylen, &bi);
	CHECK_EQ(rc, 0);
	if (rc != 0) {
		tmbuf_free(m);
		return 0;
	}
	CHECK_EQ(bi.pay_off, pi->pay_off);
	copy_transport(pi, &bi);
	for (unsigned int s = 0; s < nseg; s++) {
		uint32_t n = (s + 1 == nseg) ? pi->paylen - done : pi->paylen / nseg;
		struct rte_mbuf *seg = s == 0 ? m : tmbuf_new((uint16_t)(n + 8));

		CHECK_EQ(dr_pkt_append(seg, f + pi->pay_off + done, n), 0);
		if (s != 0)
			tmbuf_chain(m, seg);
		done += n;
	}
	CHECK_EQ(dr_pkt_finalize(m, &bi), 0);
	CHECK_EQ(m->nb_segs, nseg);
	len = m->pkt_len;
	tmbuf_linearize(m, out);

	/* the chain parses back to the same packet, ICRC walked across segments */
	struct dr_pkt_info again;
	CHECK_EQ(dr_pkt_parse(m, &again), DR_PKT_OK);
	CHECK_EQ(dr_pkt_check_icrc(m, &again), DR_PKT_OK);
	CHECK_EQ(again.paylen, pi->paylen);
	tmbuf_free(m);
	return len;
}

static void
check_opgen_semantics(unsigned int n, const struct dr_pkt_info *pi)
{
	CHECK_EQ(pi->opcode, opgen_rc_opcodes[n - 1]);
	CHECK_EQ(dr_bth_qpn(dr_pkt_bth(pi)), 0x14);
	CHECK_EQ(pi->udp_sport, 0xC190);        /* rxe: flow label of QPNs 0x14 x 0x14 */
	switch (n) {
	case 1:         /* first request: client PSN 0x000100 (opgen_rc.client.txt) */
		CHECK_EQ(dr_bth_psn(dr_pkt_bth(pi)), 0x100);
		CHECK_EQ(pi->paylen, 64);
		CHECK(dr_bth_ackreq(dr_pkt_bth(pi)));
		break;
	case 3:         /* SEND_WITH_IMM of 61 bytes: pad 3, imm 0x12345602 */
		CHECK_EQ(pi->paylen, 61);
		CHECK_EQ(pi->pad, 3);
		CHECK_EQ(rte_be_to_cpu_32(dr_immdt_imm(dr_pkt_immdt(pi))), 0x12345602);
		break;
	case 5:         /* zero-length SEND: a 58-byte frame */
		CHECK_EQ(pi->paylen, 0);
		CHECK_EQ(pi->frame_len, 58);
		break;
	case 7:         /* SEND 3000 at MTU 1024 */
		CHECK_EQ(pi->paylen, 1024);
		break;
	case 27:
		CHECK_EQ(dr_reth_len(dr_pkt_reth(pi)), 64);
		break;
	case 29:
		CHECK_EQ(dr_reth_len(dr_pkt_reth(pi)), 3003);
		break;
	case 32:        /* READ RESPONSE LAST of 3003 = 1024 + 1024 + 955, pad 1 */
		CHECK_EQ(pi->paylen, 955);
		CHECK_EQ(pi->pad, 1);
		CHECK_EQ(dr_aeth_syn_type(dr_aeth_syndrome(dr_pkt_aeth(pi))), DR_AETH_ACK);
		break;
	case 33:
		CHECK_EQ(dr_atmeth_swap_add(dr_pkt_atmeth(pi)), 5);
		break;
	case 34:        /* "ATOMIC_FETCH_AND_ADD ... orig=100" */
		CHECK_EQ(dr_atmack_orig(dr_pkt_atmack(pi)), 100);
		break;
	case 36:        /* "ATOMIC_CMP_AND_SWP ... orig=105" */
		CHECK_EQ(dr_atmack_orig(dr_pkt_atmack(pi)), 105);
		break;
	case 38:        /* "orig=11259375" = 0xabcdef */
		CHECK_EQ(dr_atmack_orig(dr_pkt_atmack(pi)), 11259375);
		break;
	default:
		break;
	}
}

static void
test_file(const char *dir, const struct vector_file *vf)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned int n = 0;
	pcap_t *p;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, vf->name);
	p = pcap_open_offline(path, err);
	CHECK_MSG(p != NULL, "%s: %s", path, err);
	if (p == NULL)
		return;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		static uint8_t out[16384];
		struct dr_pkt_info pi;
		enum dr_pkt_status st;

		n++;
		CHECK_EQ(h->caplen, h->len);
		st = dr_pkt_parse_buf(data, h->caplen, &pi);
		CHECK_MSG(st == DR_PKT_OK, "%s #%u: %s", vf->name, n, dr_pkt_status_str(st));
		if (st != DR_PKT_OK)
			continue;
		st = dr_pkt_check_icrc_buf(data, &pi);
		CHECK_MSG(st == ((int)n == vf->bad_icrc_frame ? DR_PKT_ERR_ICRC : DR_PKT_OK),
			  "%s #%u: ICRC %s", vf->name, n, dr_pkt_status_str(st));
		if (strcmp(vf->name, "opgen_rc.pcap") == 0)
			check_opgen_semantics(n, &pi);

		for (unsigned int nseg = 1; nseg <= 3; nseg++) {
			uint32_t len = rebuild(data, &pi, nseg, out);

			CHECK_EQ(len, pi.frame_len);
			if ((int)n == vf->bad_icrc_frame) {
				/* ours carries the right ICRC: all but the last 4 bytes equal */
				CHECK(memcmp(out, data, len - DR_ICRC_BYTES) == 0);
				CHECK(memcmp(out + len - 4, data + len - 4, 4) != 0);
			} else {
				CHECK_MSG(memcmp(out, data, len) == 0, "%s #%u: rebuilt frame differs (%u segs)",
					  vf->name, n, nseg);
			}
		}
	}
	CHECK_MSG(rc == PCAP_ERROR_BREAK, "%s: %s", vf->name, pcap_geterr(p));
	CHECK_MSG(n == vf->frames, "%s: %u frames, expected %u", vf->name, n, vf->frames);
	pcap_close(p);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s VECTOR_DIR\n", argv[0]);
		return 2;
	}
	for (unsigned int i = 0; i < RTE_DIM(vector_files); i++)
		test_file(argv[1], &vector_files[i]);
	return dr_test_report("test_vectors");
}
