/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Build -> parse round trips of every defined opcode over IPv4 and IPv6, with
 * and without an 802.1Q tag, contiguous and chained; and every way
 * dr_pkt_build / dr_pkt_append / dr_pkt_finalize refuse their input.
 */

#include <errno.h>
#include <netinet/in.h>

#include "test_pkt.h"

/* Payload lengths tried on every opcode that carries a payload: every pad count 0..3. */
static const uint32_t paylens[] = { 0, 1, 2, 3, 4, 5, 255, 1024, 4096 };

/* The payload lengths an opcode allows, out of paylens[]; returns how many. */
static unsigned int
opcode_lens(uint8_t op, uint32_t out[RTE_DIM(paylens)])
{
	int fixed = tpkt_fixed_paylen(dr_opcode_table[op].mask);

	if (fixed >= 0) {
		out[0] = (uint32_t)fixed;
		return 1;
	}
	memcpy(out, paylens, sizeof(paylens));
	return RTE_DIM(paylens);
}

static void
report_context(unsigned int failed_before, const char *what, uint8_t op, uint8_t ip_ver,
	       bool vlan, uint32_t paylen)
{
	if (dr_test_failed != failed_before)
		fprintf(stderr, "  ^ %s: %s IPv%u%s payload %u\n", what, dr_opcode_name(op), ip_ver,
			vlan ? " 802.1Q" : "", paylen);
}

/*
 * Every wire field below the transport, at the offsets Annex A17.4 gives:
 * Ethernet [802.1Q] / IPv4 (20 bytes) or IPv6 (40 bytes) / UDP / BTH ... ICRC.
 */
static void
check_wire(const uint8_t *f, const struct dr_pkt_info *pi, uint8_t op, uint8_t ip_ver,
	   bool vlan, uint32_t paylen)
{
	const uint32_t l2 = RTE_ETHER_HDR_LEN + (vlan ? 4 : 0);
	const uint32_t l3len = ip_ver == 4 ? 20 : 40;
	const uint32_t pad = -paylen & 3u;     /* IBA 9.2: PadCnt fills the payload to 4 bytes */
	const uint32_t udp_len = 8 + dr_opcode_table[op].length + paylen + pad + DR_ICRC_BYTES;
	struct dr_pkt_route rt;
	const uint8_t *ip = f + l2, *udp = ip + l3len;

	tpkt_route(&rt, ip_ver, vlan);
	CHECK_EQ(pi->l3_off, l2);
	CHECK_EQ(pi->l4_off, l2 + l3len);
	CHECK_EQ(pi->bth_off, l2 + l3len + 8);
	CHECK_EQ(pi->pay_off, pi->bth_off + dr_opcode_table[op].length);
	CHECK_EQ(pi->paylen, paylen);
	CHECK_EQ(pi->pad, pad);
	CHECK_EQ(pi->frame_len, l2 + l3len + udp_len);
	CHECK_EQ(pi->ip_ver, ip_ver);
	CHECK_EQ(pi->has_vlan, vlan);
	CHECK_EQ(pi->vlan_tci, vlan ? TPKT_VLAN_TCI : 0);
	CHECK_EQ(pi->udp_sport, rt.udp_sport);
	CHECK(memcmp(pi->sgid, rt.sgid, 16) == 0);
	CHECK(memcmp(pi->dgid, rt.dgid, 16) == 0);

	CHECK(memcmp(f, &rt.dmac, 6) == 0);
	CHECK(memcmp(f + 6, &rt.smac, 6) == 0);
	if (vlan) {
		CHECK_EQ(tpkt_rd16(f + 12), RTE_ETHER_TYPE_VLAN);
		CHECK_EQ(tpkt_rd16(f + 14), TPKT_VLAN_TCI);
	}
	CHECK_EQ(tpkt_rd16(f + l2 - 2), ip_ver == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);

	if (ip_ver == 4) {
		CHECK_EQ(ip[0], 0x45);
		CHECK_EQ(ip[TPKT_IP4_TOS], rt.tclass);
		/* total length: IP header + the whole UDP datagram, ICRC included (A17.4) */
		CHECK_EQ(tpkt_rd16(ip + TPKT_IP4_TOTLEN), l3len + udp_len);
		CHECK_EQ(tpkt_rd16(ip + TPKT_IP4_ID), TPKT_IP_ID);
		/* never fragmented (A17.4.3): DF as the route asks, MF clear, offset 0 */
		CHECK_EQ(tpkt_rd16(ip + TPKT_IP4_FRAG), 0x4000);
		CHECK_EQ(ip[TPKT_IP4_TTL], rt.hop_limit);
		CHECK_EQ(ip[TPKT_IP4_PROTO], IPPROTO_UDP);
		CHECK_EQ(tpkt_rd16(ip + TPKT_IP4_CSUM), tpkt_ipv4_csum(ip, 20));
		CHECK(memcmp(ip + 12, rt.sgid + 12, 4) == 0);
		CHECK(memcmp(ip + 16, rt.dgid + 12, 4) == 0);
	} else {
		uint32_t vtc = (uint32_t)tpkt_rd16(ip) << 16 | tpkt_rd16(ip + 2);

		CHECK_EQ(vtc >> 28, 6);
		CHECK_EQ((vtc >> 20) & 0xFF, rt.tclass);
		CHECK_EQ(vtc & 0xFFFFF, rt.flow_label);
		/* payload length: the whole UDP datagram (A17.4) */
		CHECK_EQ(tpkt_rd16(ip + TPKT_IP6_PLEN), udp_len);
		CHECK_EQ(ip[TPKT_IP6_NH], IPPROTO_UDP);
		CHECK_EQ(ip[TPKT_IP6_HLIM], rt.hop_limit);
		CHECK(memcmp(ip + 8, rt.sgid, 16) == 0);
		CHECK(memcmp(ip + 24, rt.dgid, 16) == 0);
	}

	CHECK_EQ(tpkt_rd16(udp), rt.udp_sport);
	CHECK_EQ(tpkt_rd16(udp + TPKT_UDP_DPORT), DR_ROCEV2_UDP_PORT);   /* A17.2.1 */
	CHECK_EQ(tpkt_rd16(udp + TPKT_UDP_LEN), udp_len);
	CHECK_EQ(tpkt_rd16(udp + TPKT_UDP_CSUM), 0);                      /* A17.4.4 */

	for (uint32_t i = 0; i < paylen; i++)
		if (f[pi->pay_off + i] != tpkt_pay_byte(i, op)) {
			CHECK_MSG(false, "payload byte %u", i);
			break;
		}
	for (uint32_t i = 0; i < pad; i++)
		CHECK_EQ(f[pi->pay_off + paylen + i], 0);   /* IBA 9.2: pad bytes are zero */
}

static void
round_trip(uint8_t op, uint8_t ip_ver, bool vlan, uint32_t paylen)
{
	static uint8_t f[TPKT_MAX_FRAME];
	unsigned int failed = dr_test_failed;
	struct rte_mbuf *m = tmbuf_new(TPKT_ROOM);
	struct dr_pkt_info built, pm, pb;

	CHECK_EQ(tpkt_build(m, op, ip_ver, vlan, paylen, &built), 0);
	if (dr_test_failed == failed) {
		CHECK_EQ(m->pkt_len, built.frame_len);
		tmbuf_linearize(m, f);
		CHECK_EQ(dr_pkt_parse(m, &pm), DR_PKT_OK);
		CHECK_EQ(dr_pkt_parse_buf(f, m->pkt_len, &pb), DR_PKT_OK);
		CHECK_EQ(tpkt_info_diff(&pm, &pb), 0);
		CHECK_EQ(tpkt_info_diff(&built, &pb), 0);
		check_wire(f, &pb, op, ip_ver, vlan, paylen);
		tpkt_check_fields(&pm);
		tpkt_check_fields(&pb);
		CHECK_EQ(dr_pkt_check_icrc(m, &pm), DR_PKT_OK);
		CHECK_EQ(dr_pkt_check_icrc_buf(f, &pb), DR_PKT_OK);
	}
	report_context(failed, "round trip", op, ip_ver, vlan, paylen);
	tmbuf_free(m);
}

/*
 * The same packet with its headers alone in the first segment and the
 * payload spread over @nseg chained segments; the last has room for exactly
 * pad + ICRC. It must be byte-identical to the contiguous build.
 */
static void
chained_payload(uint8_t op, uint8_t ip_ver, bool vlan, uint32_t paylen, unsigned int nseg)
{
	static uint8_t f[TPKT_MAX_FRAME], ref[TPKT_MAX_FRAME];
	static uint8_t pay[TPKT_MAX_FRAME];
	unsigned int failed = dr_test_failed;
	struct rte_mbuf *head = tmbuf_new(DR_PKT_MAX_HDR);
	struct dr_pkt_info pi, pm, pb;
	struct dr_pkt_route rt;
	uint32_t ref_len;

	tpkt_route(&rt, ip_ver, vlan);
	CHECK_EQ(dr_pkt_build(head, &rt, TPKT_IP_ID, op, paylen, &pi), 0);
	tpkt_set_fields(&pi);
	tpkt_fill_payload(pay, paylen, op);
	for (unsigned int s = 0; s < nseg; s++) {
		uint32_t a = paylen * s / nseg, b = paylen * (s + 1) / nseg;
		uint32_t tail = s == nseg - 1 ? pi.pad + DR_ICRC_BYTES : 0;
		struct rte_mbuf *seg = tmbuf_new((uint16_t)(b - a + tail));

		CHECK_EQ(dr_pkt_append(seg, pay + a, b - a), 0);
		tmbuf_chain(head, seg);
	}
	CHECK_EQ(dr_pkt_finalize(head, &pi), 0);
	CHECK_EQ(head->nb_segs, nseg + 1);

	ref_len = tpkt_frame(ref, op, ip_ver, vlan, paylen);
	CHECK_EQ(head->pkt_len, ref_len);
	tmbuf_linearize(head, f);
	CHECK(memcmp(f, ref, ref_len) == 0);
	CHECK_EQ(dr_pkt_parse(head, &pm), DR_PKT_OK);
	CHECK_EQ(dr_pkt_parse_buf(f, head->pkt_len, &pb), DR_PKT_OK);
	CHECK_EQ(tpkt_info_diff(&pm, &pb), 0);
	tpkt_check_fields(&pm);
	CHECK_EQ(dr_pkt_check_icrc(head, &pm), DR_PKT_OK);
	report_context(failed, "chained payload", op, ip_ver, vlan, paylen);
	tmbuf_free(head);
}

static void
test_round_trips(void)
{
	unsigned int packets = 0;

	for (unsigned int op = 0; op < 256; op++) {
		uint32_t lens[RTE_DIM(paylens)];
		unsigned int n;

		if (!dr_opcode_valid((uint8_t)op))
			continue;
		n = opcode_lens((uint8_t)op, lens);
		for (uint8_t v = 4; v <= 6; v += 2)
			for (int vlan = 0; vlan <= 1; vlan++)
				for (unsigned int i = 0; i < n; i++) {
					round_trip((uint8_t)op, v, vlan, lens[i]);
					for (unsigned int s = 2; s <= 4; s++)
						chained_payload((uint8_t)op, v, vlan, lens[i], s);
					packets++;
				}
	}
	/* 64 opcodes x 4 encapsulations: 50 with 9 lengths, CNP, ATOMIC WRITE and SACK with 1, 11 without payload */
	CHECK_EQ(packets, 4 * (50 * RTE_DIM(paylens) + 3 + 11));
}

/*
 * Headers split between two segments at every offset from 1 to the end of
 * the transport headers: dr_pkt_parse must agree with dr_pkt_parse_buf on
 * the flat frame, and the ICRC must check through the chain walk.
 */
static void
split_headers(uint8_t op, uint8_t ip_ver, bool vlan, uint32_t paylen)
{
	static uint8_t f[TPKT_MAX_FRAME];
	unsigned int failed = dr_test_failed;
	uint32_t len = tpkt_frame(f, op, ip_ver, vlan, paylen);
	struct dr_pkt_info pb, pm;

	CHECK_EQ(dr_pkt_parse_buf(f, len, &pb), DR_PKT_OK);
	for (uint32_t k = 1; k <= pb.pay_off; k++) {
		struct rte_mbuf *m = tpkt_chain(f, len, &k, 1);

		CHECK_EQ(dr_pkt_parse(m, &pm), DR_PKT_OK);
		CHECK_EQ(tpkt_info_diff(&pm, &pb), 0);
		CHECK(pm.frame == pm.raw);      /* headers straddle: parsed from the private copy */
		CHECK_EQ(dr_pkt_check_icrc(m, &pm), DR_PKT_OK);
		tmbuf_free(m);
	}
	report_context(failed, "headers split", op, ip_ver, vlan, paylen);
}

/* The extreme chain: one byte per segment, the whole frame. */
static void
one_byte_segments(uint8_t op, uint8_t ip_ver, bool vlan, uint32_t paylen)
{
	static uint8_t f[TPKT_MAX_FRAME];
	static uint32_t cuts[TPKT_MAX_FRAME];
	unsigned int failed = dr_test_failed;
	uint32_t len = tpkt_frame(f, op, ip_ver, vlan, paylen);
	struct dr_pkt_info pb, pm;
	struct rte_mbuf *m;

	for (uint32_t i = 0; i + 1 < len; i++)
		cuts[i] = i + 1;
	m = tpkt_chain(f, len, cuts, len - 1);
	CHECK_EQ(m->nb_segs, len);
	CHECK_EQ(dr_pkt_parse_buf(f, len, &pb), DR_PKT_OK);
	CHECK_EQ(dr_pkt_parse(m, &pm), DR_PKT_OK);
	CHECK_EQ(tpkt_info_diff(&pm, &pb), 0);
	CHECK_EQ(dr_pkt_check_icrc(m, &pm), DR_PKT_OK);
	report_context(failed, "one-byte segments", op, ip_ver, vlan, paylen);
	tmbuf_free(m);
}

static void
test_split_headers(void)
{
	split_headers(DR_OPCODE(RC, SEND_ONLY), 4, false, 0);          /* the 58-byte minimum */
	split_headers(DR_OPCODE(RC, SEND_ONLY), 4, false, 5);
	split_headers(DR_OPCODE(UD, SEND_ONLY_IMM), 4, true, 33);
	split_headers(DR_OPCODE(RC, CMP_SWAP), 6, false, 0);
	split_headers(DR_OPCODE(XRC, ATOMIC_ACK), 4, true, 0);
	split_headers(DR_OPCODE(XRC, WRITE_ONLY_IMM), 6, true, 4096);  /* longest headers */
	split_headers(DR_OPCODE(RC, FLUSH), 6, true, 0);
	split_headers(DR_OPCODE_CNP, 6, false, DR_CNP_PAYLOAD_BYTES);
	one_byte_segments(DR_OPCODE(RC, SEND_ONLY), 4, false, 0);
	one_byte_segments(DR_OPCODE(XRC, WRITE_ONLY_IMM), 6, true, 37);
}

/* dr_pkt_build refuses what it cannot encode, and writes nothing when it does. */
static void
test_build_errors(void)
{
	const uint32_t send_hdr = RTE_ETHER_HDR_LEN + 20 + 8 + DR_BTH_BYTES;
	struct rte_mbuf *m = tmbuf_new(TPKT_ROOM), *small;
	struct dr_pkt_route rt;
	struct dr_pkt_info pi;

	tpkt_route(&rt, 4, false);
	/* undefined opcodes: reserved 0x15, RD 0x40 (unsupported), 0xFF (IBA table 38) */
	CHECK_EQ(dr_pkt_build(m, &rt, 0, 0x15, 0, &pi), -EINVAL);
	CHECK_EQ(dr_pkt_build(m, &rt, 0, 0x40, 0, &pi), -EINVAL);
	CHECK_EQ(dr_pkt_build(m, &rt, 0, 0xFF, 0, &pi), -EINVAL);
	/* an ACK carries an AETH and no payload (IBA 9.3.6, table 38) */
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, ACK), 4, &pi), -EINVAL);
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, READ_REQ), 1, &pi), -EINVAL);
	/* IPv4 carries IPv4-mapped GIDs only (::ffff:a.b.c.d, A17.4) */
	rt.sgid[0] = 0xFD;
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 0, &pi), -EINVAL);
	tpkt_route(&rt, 4, false);
	rt.dgid[10] = 0;
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 0, &pi), -EINVAL);
	/* IP version 4 or 6, nothing else */
	tpkt_route(&rt, 4, false);
	rt.ip_ver = 5;
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 0, &pi), -EINVAL);
	rt.ip_ver = 0;
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 0, &pi), -EINVAL);
	/* lengths beyond the 16-bit IP total length */
	tpkt_route(&rt, 4, false);
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 65500, &pi), -EINVAL);
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 70000, &pi), -EINVAL);
	CHECK_EQ(m->pkt_len, 0);
	/* the mbuf must be empty */
	CHECK_EQ(dr_pkt_append(m, "x", 1), 0);
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 0, &pi), -EINVAL);
	CHECK_EQ(m->pkt_len, 1);
	tmbuf_free(m);

	/* too small for the headers; exactly large enough */
	small = tmbuf_new((uint16_t)(send_hdr - 1));
	CHECK_EQ(dr_pkt_build(small, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 0, &pi), -ENOSPC);
	CHECK_EQ(small->pkt_len, 0);
	tmbuf_free(small);
	small = tmbuf_new((uint16_t)send_hdr);
	CHECK_EQ(dr_pkt_build(small, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 0, &pi), 0);
	tmbuf_free(small);

	/* finalize: the payload appended must be the announced length */
	m = tmbuf_new(TPKT_ROOM);
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 8, &pi), 0);
	CHECK_EQ(dr_pkt_append(m, "1234567", 7), 0);
	CHECK_EQ(dr_pkt_finalize(m, &pi), -EINVAL);
	CHECK_EQ(dr_pkt_append(m, "89", 2), 0);
	CHECK_EQ(dr_pkt_finalize(m, &pi), -EINVAL);
	tmbuf_free(m);

	/* finalize: the last segment needs room for pad (3) + ICRC (4) */
	small = tmbuf_new((uint16_t)(send_hdr + 5 + 3 + DR_ICRC_BYTES - 1));
	CHECK_EQ(dr_pkt_build(small, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 5, &pi), 0);
	CHECK_EQ(dr_pkt_append(small, "12345", 5), 0);
	CHECK_EQ(dr_pkt_finalize(small, &pi), -ENOSPC);
	CHECK_EQ(small->pkt_len, send_hdr + 5);
	tmbuf_free(small);
	small = tmbuf_new((uint16_t)(send_hdr + 5 + 3 + DR_ICRC_BYTES));
	CHECK_EQ(dr_pkt_build(small, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 5, &pi), 0);
	CHECK_EQ(dr_pkt_append(small, "12345", 5), 0);
	CHECK_EQ(dr_pkt_finalize(small, &pi), 0);
	tmbuf_free(small);
	/* ... and it is the last segment that counts, not the first */
	m = tmbuf_new(TPKT_ROOM);
	CHECK_EQ(dr_pkt_build(m, &rt, 0, DR_OPCODE(RC, SEND_ONLY), 5, &pi), 0);
	small = tmbuf_new(5);
	CHECK_EQ(dr_pkt_append(small, "12345", 5), 0);
	tmbuf_chain(m, small);
	CHECK_EQ(dr_pkt_finalize(m, &pi), -ENOSPC);
	tmbuf_free(m);

	/* append: within the last segment's tailroom only */
	small = tmbuf_new(10);
	CHECK_EQ(dr_pkt_append(small, "01234567890", 11), -ENOSPC);
	CHECK_EQ(small->pkt_len, 0);
	CHECK_EQ(dr_pkt_append(small, "0123456789", 10), 0);
	CHECK_EQ(dr_pkt_append(small, "0", 1), -ENOSPC);
	CHECK_EQ(small->pkt_len, 10);
	CHECK_EQ(dr_pkt_append(small, "", 70000), -ENOSPC);
	tmbuf_free(small);
}

/*
 * A route's prebuilt headers (dr_pkt_tmpl_init + dr_pkt_build_tmpl) give the
 * bytes and the packet info dr_pkt_build gives, for every opcode, payload
 * length, IP version, tag and IPv4 identification (the checksum patched
 * per packet).
 */
static void
test_template_equals_build(void)
{
	static const uint16_t ids[] = { 0, 1, 0x00FF, 0xFF00, 0xFFFF, 0x1234 };
	unsigned int bad = 0, runs = 0;

	for (uint8_t ip_ver = 4; ip_ver <= 6; ip_ver += 2) {
		for (int vlan = 0; vlan <= 1; vlan++) {
			struct dr_pkt_route rt;
			struct dr_pkt_tmpl t;

			tpkt_route(&rt, ip_ver, vlan);
			CHECK_EQ(dr_pkt_tmpl_init(&t, &rt), 0);
			for (unsigned int op = 0; op < 256; op++) {
				uint32_t lens[RTE_DIM(paylens)];
				unsigned int nl;

				if (!dr_opcode_valid((uint8_t)op))
					continue;
				nl = opcode_lens((uint8_t)op, lens);
				for (unsigned int k = 0; k < nl; k++) {
					uint16_t id = ids[(op + k) % RTE_DIM(ids)];
					struct rte_mbuf *a = tmbuf_new(8192), *b = tmbuf_new(8192);
					struct dr_pkt_info pa, pb;
					int ra = dr_pkt_build(a, &rt, id, (uint8_t)op, lens[k], &pa);
					int rb = dr_pkt_build_tmpl(b, &t, id, (uint8_t)op, lens[k], &pb);

					runs++;
					bad += ra != rb || a->pkt_len != b->pkt_len ||
					       memcmp(rte_pktmbuf_mtod(a, void *), rte_pktmbuf_mtod(b, void *),
						      a->pkt_len) != 0 ||
					       pa.l3_off != pb.l3_off || pa.l4_off != pb.l4_off ||
					       pa.bth_off != pb.bth_off || pa.pay_off != pb.pay_off ||
					       pa.frame_len != pb.frame_len || pa.pad != pb.pad ||
					       pa.mask != pb.mask || pa.udp_sport != pb.udp_sport ||
					       pa.has_vlan != pb.has_vlan || pa.vlan_tci != pb.vlan_tci ||
					       memcmp(pa.sgid, pb.sgid, 16) != 0 || memcmp(pa.dgid, pb.dgid, 16) != 0;
					tmbuf_free(a);
					tmbuf_free(b);
				}
			}
		}
	}
	CHECK(runs > 100);
	CHECK_EQ(bad, 0);
	{
		struct dr_pkt_route rt;
		struct dr_pkt_tmpl t;
		struct rte_mbuf *m = tmbuf_new(256);
		struct dr_pkt_info pi;

		tpkt_route(&rt, 5, false);
		CHECK_EQ(dr_pkt_tmpl_init(&t, &rt), -EINVAL);       /* a route build refuses */
		tpkt_route(&rt, 4, false);
		CHECK_EQ(dr_pkt_tmpl_init(&t, &rt), 0);
		CHECK_EQ(dr_pkt_build_tmpl(m, &t, 0, 0x15, 0, &pi), -EINVAL);   /* undefined opcode */
		CHECK_EQ(dr_pkt_build_tmpl(m, &t, 0, DR_OPCODE(RC, ACK), 4, &pi), -EINVAL);
		CHECK_EQ(m->pkt_len, 0);
		tmbuf_free(m);
		m = tmbuf_new(20);
		CHECK_EQ(dr_pkt_build_tmpl(m, &t, 0, DR_OPCODE(RC, SEND_ONLY), 0, &pi), -ENOSPC);
		tmbuf_free(m);
	}
}

int
main(void)
{
	test_round_trips();
	test_split_headers();
	test_build_errors();
	test_template_equals_build();
	return dr_test_report("test_pkt_build");
}
