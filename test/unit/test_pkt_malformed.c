/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The parser against bad input: one test per enum dr_pkt_status, each taking
 * a valid frame and making ONE change (the IPv4 checksum is recomputed unless
 * the checksum is the point), each parsed flat, in one segment and in two.
 * The status texts, and the minimum frame with its Ethernet padding.
 */

#include <netinet/in.h>

#include "test_pkt.h"

/* Statuses some test below produced: every one must be. */
static bool seen[DR_PKT_STATUS_MAX];

static void
expect(const uint8_t *f, uint32_t len, enum dr_pkt_status want, const char *what)
{
	static const char *const how[3] = { "flat", "1 segment", "2 segments" };
	enum dr_pkt_status st[3];
	struct dr_pkt_info pi[3];
	struct rte_mbuf *m[2];
	uint8_t *flat;

	tpkt_parse3(f, len, len / 2, st, pi, &flat, m);
	for (int i = 0; i < 3; i++)
		CHECK_MSG(st[i] == want, "%s (%s): got \"%s\", want \"%s\"", what, how[i],
			  dr_pkt_status_str(st[i]), dr_pkt_status_str(want));
	seen[want] = true;
	free(flat);
	tmbuf_free(m[0]);
	tmbuf_free(m[1]);
}

/* A frame that parses but whose ICRC is @want (IBA 7.8.1, A17.3.3). */
static void
expect_icrc(const uint8_t *f, uint32_t len, enum dr_pkt_status want, const char *what)
{
	enum dr_pkt_status st[3];
	struct dr_pkt_info pi[3];
	struct rte_mbuf *m[2];
	uint8_t *flat;

	tpkt_parse3(f, len, len / 2, st, pi, &flat, m);
	CHECK_MSG(st[0] == DR_PKT_OK && st[1] == DR_PKT_OK && st[2] == DR_PKT_OK, "%s: parse", what);
	if (st[0] == DR_PKT_OK && st[1] == DR_PKT_OK && st[2] == DR_PKT_OK) {
		CHECK_MSG(dr_pkt_check_icrc_buf(flat, &pi[0]) == want, "%s: flat", what);
		CHECK_MSG(dr_pkt_check_icrc(m[0], &pi[1]) == want, "%s: 1 segment", what);
		CHECK_MSG(dr_pkt_check_icrc(m[1], &pi[2]) == want, "%s: 2 segments", what);
		seen[want] = true;
	}
	free(flat);
	tmbuf_free(m[0]);
	tmbuf_free(m[1]);
}

/* The valid frames the tests below start from. */
static struct tpkt_base v4, v6, vl, v4min;

/* A work copy of a base frame in w; IP() and UDP() point into it. */
static uint8_t w[512];

static uint8_t *
work(const struct tpkt_base *b)
{
	memcpy(w, b->f, sizeof(w));
	return w;
}

#define IP(b) (w + (b)->pi.l3_off)
#define UDP(b) (w + (b)->pi.l4_off)

/* Shorten the UDP datagram by @n bytes in the IP and UDP lengths (the frame keeps its bytes). */
static void
shrink_lengths(const struct tpkt_base *b, uint32_t n)
{
	if (b->pi.ip_ver == 4) {
		tpkt_wr16(IP(b) + TPKT_IP4_TOTLEN, (uint16_t)(tpkt_rd16(IP(b) + TPKT_IP4_TOTLEN) - n));
		tpkt_ipv4_fix_csum(IP(b));
	} else {
		tpkt_wr16(IP(b) + TPKT_IP6_PLEN, (uint16_t)(tpkt_rd16(IP(b) + TPKT_IP6_PLEN) - n));
	}
	tpkt_wr16(UDP(b) + TPKT_UDP_LEN, (uint16_t)(tpkt_rd16(UDP(b) + TPKT_UDP_LEN) - n));
}

static void
test_valid(void)
{
	expect(v4.f, v4.len, DR_PKT_OK, "valid IPv4");
	expect(v6.f, v6.len, DR_PKT_OK, "valid IPv6");
	expect(vl.f, vl.len, DR_PKT_OK, "valid 802.1Q");
}

/* Ethernet header (and 802.1Q tag) cut short */
static void
test_trunc_l2(void)
{
	for (uint32_t n = 0; n < RTE_ETHER_HDR_LEN; n++)
		expect(v4.f, n, DR_PKT_ERR_TRUNC_L2, "truncated Ethernet header");
	for (uint32_t n = RTE_ETHER_HDR_LEN; n < RTE_ETHER_HDR_LEN + 4; n++)
		expect(vl.f, n, DR_PKT_ERR_TRUNC_L2, "truncated 802.1Q tag");
}

/* not IP: ARP, bare and behind a tag */
static void
test_not_ip(void)
{
	tpkt_wr16(work(&v4) + 12, RTE_ETHER_TYPE_ARP);
	expect(w, v4.len, DR_PKT_NOT_IP, "ARP");
	tpkt_wr16(work(&vl) + 16, RTE_ETHER_TYPE_ARP);
	expect(w, vl.len, DR_PKT_NOT_IP, "ARP behind 802.1Q");
}

/* IP header cut short; IHL pointing past the frame */
static void
test_trunc_l3(void)
{
	expect(v4.f, v4.pi.l3_off + 19, DR_PKT_ERR_TRUNC_L3, "truncated IPv4 header");
	expect(v6.f, v6.pi.l3_off + 39, DR_PKT_ERR_TRUNC_L3, "truncated IPv6 header");
	work(&v4min)[v4min.pi.l3_off] = 0x4F;           /* 60-byte header in a 58-byte frame */
	tpkt_ipv4_fix_csum(IP(&v4min));
	expect(w, v4min.len, DR_PKT_ERR_TRUNC_L3, "IHL beyond the frame");
}

/* the version nibble must agree with the EtherType (RFC 791, RFC 8200) */
static void
test_ip_version(void)
{
	work(&v4)[v4.pi.l3_off] = 0x65;
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_ERR_IP_VERSION, "IPv6 version behind the IPv4 EtherType");
	work(&v6)[v6.pi.l3_off] = (uint8_t)((v6.f[v6.pi.l3_off] & 0x0F) | 0x40);
	expect(w, v6.len, DR_PKT_ERR_IP_VERSION, "IPv4 version behind the IPv6 EtherType");
}

/* IHL below 5 (RFC 791) */
static void
test_ip_hdr_len(void)
{
	work(&v4)[v4.pi.l3_off] = 0x44;
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_ERR_IP_HDR_LEN, "IHL 4");
}

/* IP length beyond the frame, or below the IP header */
static void
test_ip_len(void)
{
	work(&v4);
	tpkt_wr16(IP(&v4) + TPKT_IP4_TOTLEN, (uint16_t)(v4.len - v4.pi.l3_off + 1));
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_ERR_IP_LEN, "IPv4 total length beyond the frame");
	work(&v4);
	tpkt_wr16(IP(&v4) + TPKT_IP4_TOTLEN, 19);
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_ERR_IP_LEN, "IPv4 total length below the header");
	work(&v6);
	tpkt_wr16(IP(&v6) + TPKT_IP6_PLEN, (uint16_t)(v6.len - v6.pi.l4_off + 1));
	expect(w, v6.len, DR_PKT_ERR_IP_LEN, "IPv6 payload length beyond the frame");
}

/* IPv4 header checksum (RFC 791): wrong value; a field the ICRC masks changed without it */
static void
test_ip_csum(void)
{
	work(&v4)[v4.pi.l3_off + TPKT_IP4_CSUM + 1] ^= 0x01;
	expect(w, v4.len, DR_PKT_ERR_IP_CSUM, "bad IPv4 checksum");
	work(&v4)[v4.pi.l3_off + TPKT_IP4_TTL]--;
	expect(w, v4.len, DR_PKT_ERR_IP_CSUM, "TTL changed, checksum not");
}

/*
 * RoCEv2 is never fragmented (A17.4.3): a first fragment (MF) to port 4791 is
 * malformed RoCEv2; a later fragment carries no UDP header, so whatever it is,
 * it is not a RoCEv2 packet; DF is optional.
 */
static void
test_ip_frag(void)
{
	work(&v4);
	tpkt_wr16(IP(&v4) + TPKT_IP4_FRAG, 0x2000);
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_ERR_IP_FRAG, "IPv4 MF");
	work(&v4);
	tpkt_wr16(IP(&v4) + TPKT_IP4_FRAG, 0x4001);
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_NOT_ROCE_PORT, "IPv4 fragment offset 8");
	work(&v4);
	tpkt_wr16(IP(&v4) + TPKT_IP4_FRAG, 0x0000);
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_OK, "IPv4 without DF");
}

/* not UDP: TCP; an IPv6 extension header (none in RoCEv2, A17.4.5.2) */
static void
test_not_udp(void)
{
	work(&v4)[v4.pi.l3_off + TPKT_IP4_PROTO] = IPPROTO_TCP;
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_NOT_UDP, "TCP over IPv4");
	work(&v6)[v6.pi.l3_off + TPKT_IP6_NH] = IPPROTO_TCP;
	expect(w, v6.len, DR_PKT_NOT_UDP, "TCP over IPv6");
	work(&v6)[v6.pi.l3_off + TPKT_IP6_NH] = IPPROTO_HOPOPTS;
	expect(w, v6.len, DR_PKT_NOT_UDP, "IPv6 hop-by-hop header");
}

/*
 * The frame ends before the UDP destination port: it is broken but not known
 * to be RoCEv2. When the frame has the UDP header but
 * the IP length says it has not, the port is 4791 and the IP length is wrong
 * (RFC 768: a UDP datagram has at least its 8-byte header).
 */
static void
test_trunc_l4(void)
{
	expect(work(&v4), v4.pi.l4_off + 3u, DR_PKT_ERR_TRUNC_L4, "IPv4 frame ends in UDP header");
	expect(work(&v6), v6.pi.l4_off + 1u, DR_PKT_ERR_TRUNC_L4, "IPv6 frame ends in UDP header");
	/* the port is there: RoCEv2, whose IP length runs past the frame */
	expect(work(&v6), v6.pi.l4_off + 4u, DR_PKT_ERR_IP_LEN, "IPv6 frame cut after the UDP ports");
	work(&v4);
	tpkt_wr16(IP(&v4) + TPKT_IP4_TOTLEN, 20 + 7);
	tpkt_ipv4_fix_csum(IP(&v4));
	expect(w, v4.len, DR_PKT_ERR_IP_LEN, "IPv4 payload of 7 bytes");
	work(&v6);
	tpkt_wr16(IP(&v6) + TPKT_IP6_PLEN, 0);
	expect(w, v6.len, DR_PKT_ERR_IP_LEN, "IPv6 payload of 0 bytes");
}

/* UDP destination port: RoCEv2 is 4791 only (A17.2.1); 4790 is VXLAN-GPE */
static void
test_not_roce_port(void)
{
	tpkt_wr16(work(&v4) + v4.pi.l4_off + TPKT_UDP_DPORT, 4790);
	expect(w, v4.len, DR_PKT_NOT_ROCE_PORT, "UDP port 4790");
}

/* UDP length must equal the IP payload length (RFC 768, A17.4) */
static void
test_udp_len(void)
{
	work(&v4);
	tpkt_wr16(UDP(&v4) + TPKT_UDP_LEN, (uint16_t)(tpkt_rd16(UDP(&v4) + TPKT_UDP_LEN) - 4));
	expect(w, v4.len, DR_PKT_ERR_UDP_LEN, "UDP length 4 short");
	work(&v6);
	tpkt_wr16(UDP(&v6) + TPKT_UDP_LEN, (uint16_t)(tpkt_rd16(UDP(&v6) + TPKT_UDP_LEN) + 1));
	expect(w, v6.len, DR_PKT_ERR_UDP_LEN, "UDP length 1 long");
}

/* UDP payload shorter than BTH + ICRC, 16 bytes (IBA 9.2, 7.8.1) */
static void
test_trunc_bth(void)
{
	work(&v4min);
	shrink_lengths(&v4min, 1);
	expect(w, v4min.len, DR_PKT_ERR_TRUNC_BTH, "UDP payload of 15 bytes");
	work(&v6);
	shrink_lengths(&v6, v6.len - v6.pi.bth_off);
	expect(w, v6.len, DR_PKT_ERR_TRUNC_BTH, "UDP payload of 0 bytes");
}

/* BTH.TVer must be 0 (IBA 9.2) */
static void
test_tver(void)
{
	work(&v4)[v4.pi.bth_off + 1] |= 0x01;
	expect(w, v4.len, DR_PKT_ERR_TVER, "TVer 1");
}

/* opcodes: reserved, RD (unsupported), undefined (IBA table 38) */
static void
test_opcode(void)
{
	work(&v4)[v4.pi.bth_off] = 0x15;
	expect(w, v4.len, DR_PKT_ERR_OPCODE, "opcode 0x15");
	work(&v4)[v4.pi.bth_off] = 0x40;
	expect(w, v4.len, DR_PKT_ERR_OPCODE, "opcode 0x40 (RD SEND FIRST)");
	work(&v4)[v4.pi.bth_off] = 0xFF;
	expect(w, v4.len, DR_PKT_ERR_OPCODE, "opcode 0xFF");
}

/* extension headers past the end of the UDP payload (IBA 9.3) */
static void
test_trunc_ext(void)
{
	struct tpkt_base wr, xcs;

	tpkt_base_make(&wr, DR_OPCODE(RC, WRITE_ONLY), 4, false, 0);
	tpkt_base_make(&xcs, DR_OPCODE(XRC, CMP_SWAP), 6, true, 0);
	work(&wr);
	shrink_lengths(&wr, DR_RETH_BYTES - 10);
	expect(w, wr.len, DR_PKT_ERR_TRUNC_EXT, "RDMA WRITE ONLY ending 10 bytes into its RETH");
	work(&xcs);
	shrink_lengths(&xcs, DR_ATMETH_BYTES + 2);
	expect(w, xcs.len, DR_PKT_ERR_TRUNC_EXT, "XRC CmpSwap ending inside its XRCETH");
}

/* PadCnt larger than the payload area (IBA 9.2) */
static void
test_pad(void)
{
	work(&v4min)[v4min.pi.bth_off + 1] |= 1 << DR_BTH_PAD_SHIFT;
	expect(w, v4min.len, DR_PKT_ERR_PAD, "pad 1 on an empty payload");
}

/*
 * payload where the opcode has none (IBA table 38); a CNP of the wrong size
 * (A17.9.3); an ATOMIC WRITE that does not carry exactly 8 bytes (IBA 1.5, 9.4.10)
 */
static void
test_payload_len(void)
{
	struct tpkt_base s8, s12, s16, s20, w4, w8, w12;

	tpkt_base_make(&s8, DR_OPCODE(RC, SEND_ONLY), 4, false, 8);
	tpkt_base_make(&s12, DR_OPCODE(RC, SEND_ONLY), 4, false, 12);
	tpkt_base_make(&s16, DR_OPCODE(RC, SEND_ONLY), 4, false, 16);
	tpkt_base_make(&s20, DR_OPCODE(RC, SEND_ONLY), 4, false, 20);
	tpkt_base_make(&w4, DR_OPCODE(RC, WRITE_ONLY), 6, false, 4);
	work(&s8)[s8.pi.bth_off] = DR_OPCODE(RC, ACK);   /* AETH + 4 bytes */
	expect(w, s8.len, DR_PKT_ERR_PAYLOAD_LEN, "ACK with 4 bytes of payload");
	work(&w4)[w4.pi.bth_off] = DR_OPCODE(RC, READ_REQ);
	expect(w, w4.len, DR_PKT_ERR_PAYLOAD_LEN, "READ request with 4 bytes of payload");
	work(&s12)[s12.pi.bth_off] = DR_OPCODE_CNP;
	expect(w, s12.len, DR_PKT_ERR_PAYLOAD_LEN, "CNP with 12 bytes");
	work(&s20)[s20.pi.bth_off] = DR_OPCODE_CNP;
	expect(w, s20.len, DR_PKT_ERR_PAYLOAD_LEN, "CNP with 20 bytes");
	work(&s16)[s16.pi.bth_off] = DR_OPCODE_CNP;
	expect(w, s16.len, DR_PKT_OK, "CNP with 16 bytes");
	/* RDMA WRITE ONLY and ATOMIC WRITE share BTH + RETH */
	tpkt_base_make(&w8, DR_OPCODE(RC, WRITE_ONLY), 4, false, 8);
	tpkt_base_make(&w12, DR_OPCODE(RC, WRITE_ONLY), 4, false, 12);
	work(&w4)[w4.pi.bth_off] = DR_OPCODE(RC, ATOMIC_WRITE);
	expect(w, w4.len, DR_PKT_ERR_PAYLOAD_LEN, "ATOMIC WRITE with 4 bytes");
	work(&w12)[w12.pi.bth_off] = DR_OPCODE(RC, ATOMIC_WRITE);
	expect(w, w12.len, DR_PKT_ERR_PAYLOAD_LEN, "ATOMIC WRITE with 12 bytes");
	work(&w8)[w8.pi.bth_off] = DR_OPCODE(RC, ATOMIC_WRITE);
	expect(w, w8.len, DR_PKT_OK, "ATOMIC WRITE with 8 bytes");
}

/* ICRC (IBA 7.8.1): one payload bit flipped; one bit of the ICRC itself flipped */
static void
test_icrc(void)
{
	expect_icrc(v4.f, v4.len, DR_PKT_OK, "valid ICRC");
	work(&v4)[v4.pi.pay_off + 2] ^= 0x10;
	expect_icrc(w, v4.len, DR_PKT_ERR_ICRC, "payload bit flipped");
	work(&v6)[v6.len - 1] ^= 0x80;
	expect_icrc(w, v6.len, DR_PKT_ERR_ICRC, "ICRC bit flipped");
}

static void
test_malformed(void)
{
	tpkt_base_make(&v4, DR_OPCODE(RC, SEND_ONLY), 4, false, 5);
	tpkt_base_make(&v6, DR_OPCODE(RC, SEND_ONLY), 6, false, 5);
	tpkt_base_make(&vl, DR_OPCODE(RC, SEND_ONLY), 4, true, 5);
	tpkt_base_make(&v4min, DR_OPCODE(RC, SEND_ONLY), 4, false, 0);
	test_valid();
	test_trunc_l2();
	test_not_ip();
	test_trunc_l3();
	test_ip_version();
	test_ip_hdr_len();
	test_ip_len();
	test_ip_csum();
	test_ip_frag();
	test_not_udp();
	test_trunc_l4();
	test_not_roce_port();
	test_udp_len();
	test_trunc_bth();
	test_tver();
	test_opcode();
	test_trunc_ext();
	test_pad();
	test_payload_len();
	test_icrc();
	for (int s = 0; s < DR_PKT_STATUS_MAX; s++)
		CHECK_MSG(seen[s], "no test produced \"%s\"", dr_pkt_status_str(s));
}

static void
test_status_text(void)
{
	for (int s = 0; s < DR_PKT_STATUS_MAX; s++) {
		const char *t = dr_pkt_status_str(s);

		CHECK(t != NULL && t[0] != '\0');
		CHECK_EQ(dr_pkt_status_is_error(s), s >= DR_PKT_ERR_TRUNC_L2);
		/* RoCEv2 known: only once the UDP port 4791 was read */
		CHECK_EQ(dr_pkt_status_is_roce(s), s == DR_PKT_OK || s >= DR_PKT_ERR_IP_LEN);
		for (int o = 0; o < s; o++)
			CHECK_MSG(strcmp(t, dr_pkt_status_str(o)) != 0, "%d and %d share \"%s\"", s, o, t);
		CHECK(strcmp(t, dr_pkt_status_str(DR_PKT_STATUS_MAX)) != 0);
	}
	CHECK(!dr_pkt_status_is_error(DR_PKT_OK));
	CHECK(!dr_pkt_status_is_error(DR_PKT_NOT_IP));
	CHECK(!dr_pkt_status_is_error(DR_PKT_NOT_UDP));
	CHECK(!dr_pkt_status_is_error(DR_PKT_NOT_ROCE_PORT));
	CHECK(dr_pkt_status_is_error(DR_PKT_ERR_ICRC));
	CHECK(dr_pkt_status_str(DR_PKT_STATUS_MAX) != NULL);
	CHECK(dr_pkt_status_str((enum dr_pkt_status)-1) != NULL);
}

/*
 * The smallest RoCEv2 frame: RC SEND ONLY, no payload, 58 bytes. Sent on
 * Ethernet it is padded to 60 (before the FCS); lengths come from IP, so
 * the padding is ignored and the ICRC still checks.
 */
static void
test_min_frame(void)
{
	uint8_t f[64];
	struct dr_pkt_info pi;
	uint32_t len = tpkt_frame(f, DR_OPCODE(RC, SEND_ONLY), 4, false, 0);

	CHECK_EQ(len, 58);
	CHECK_EQ(dr_pkt_parse_buf(f, len, &pi), DR_PKT_OK);
	CHECK_EQ(pi.frame_len, 58);
	CHECK_EQ(pi.paylen, 0);
	expect_icrc(f, len, DR_PKT_OK, "58-byte frame");
	f[58] = 0x00;
	f[59] = 0xA5;
	CHECK_EQ(dr_pkt_parse_buf(f, 60, &pi), DR_PKT_OK);
	CHECK_EQ(pi.frame_len, 58);
	CHECK_EQ(pi.paylen, 0);
	expect_icrc(f, 60, DR_PKT_OK, "58-byte frame with 2 bytes of Ethernet padding");
}

int
main(void)
{
	test_status_text();
	test_malformed();
	test_min_frame();
	return dr_test_report("test_pkt_malformed");
}
