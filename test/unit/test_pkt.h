/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_TEST_PKT_H
#define DR_TEST_PKT_H

/*
 * Helpers shared by the packet-layer tests: a route, distinctive values for
 * every transport header field (set and read back through the accessors),
 * frames built into heap mbufs or flat buffers, byte chains cut at chosen
 * offsets, and the IPv4 header checksum recomputed after an edit.
 */

#include <stdbool.h>

#include "dr_icrc.h"
#include "dr_pkt.h"
#include "dr_test.h"
#include "test_mbuf.h"

/** Data room of a test mbuf: the largest test payload (4096) plus headers, pad, ICRC. */
#define TPKT_ROOM 8192
/** Largest test frame. */
#define TPKT_MAX_FRAME TPKT_ROOM

/* Wire offsets inside the IPv4, IPv6 and UDP headers (RFC 791, 8200, 768). */
#define TPKT_IP4_TOS 1
#define TPKT_IP4_TOTLEN 2
#define TPKT_IP4_ID 4
#define TPKT_IP4_FRAG 6
#define TPKT_IP4_TTL 8
#define TPKT_IP4_PROTO 9
#define TPKT_IP4_CSUM 10
#define TPKT_IP6_PLEN 4
#define TPKT_IP6_NH 6
#define TPKT_IP6_HLIM 7
#define TPKT_UDP_DPORT 2
#define TPKT_UDP_LEN 4
#define TPKT_UDP_CSUM 6

/* Distinctive values for every field: no two share a byte pattern. */
#define TPKT_PKEY 0x8A5Cu
#define TPKT_QPN 0x12AB34u
#define TPKT_RESV6A 0x2Au
#define TPKT_PSN 0xFEDCBAu
#define TPKT_RESV7 0x55u
#define TPKT_QKEY 0x80010203u
#define TPKT_SQP 0x00C0DEu
#define TPKT_XRCSRQ 0x0BEEF1u
#define TPKT_FETH_PLT 2u
#define TPKT_FETH_SEL 1u
#define TPKT_RETH_VA 0x0123456789ABCDEFull
#define TPKT_RETH_RKEY 0xCAFEBABEu
#define TPKT_RETH_LEN 0x00100004u
#define TPKT_ATM_VA 0x1122334455667788ull
#define TPKT_ATM_RKEY 0x99AABBCCu
#define TPKT_ATM_SWAP 0xDEADBEEFFEEDFACEull
#define TPKT_ATM_COMP 0x0F1E2D3C4B5A6978ull
#define TPKT_AETH_SYN 0x62u     /* NAK, remote access error */
#define TPKT_AETH_MSN 0x5A5A5Au
#define TPKT_ATMACK 0x8877665544332211ull
#define TPKT_IMM 0xDEADBEEFu
#define TPKT_IETH_RKEY 0x13579BDFu
#define TPKT_IP_ID 0x4D2Eu
#define TPKT_VLAN_TCI 0xA123u   /* PCP 5, DEI 0, VID 0x123 */

static inline uint16_t
tpkt_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
tpkt_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A fixed-seed PRNG (splitmix64): the tests are reproducible. */
static inline uint64_t
tpkt_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* RFC 1071 checksum of an IPv4 header, written independently of the library. */
static inline uint16_t
tpkt_ipv4_csum(const uint8_t *ip, unsigned int ihl)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < ihl; i += 2)
		if (i != TPKT_IP4_CSUM)
			sum += tpkt_rd16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Recompute the header checksum of the IPv4 header at @ip after an edit. */
static inline void
tpkt_ipv4_fix_csum(uint8_t *ip)
{
	tpkt_wr16(ip + TPKT_IP4_CSUM, tpkt_ipv4_csum(ip, (ip[0] & 0xFu) * 4));
}

/*
 * The one payload length an opcode allows, or -1 when any length goes:
 * none where the opcode has no payload (IBA 9.3, table 38), 16 reserved bytes
 * on a CNP (A17.9.3), the 8 bytes an ATOMIC WRITE places (IBA 1.5, 9.4.10),
 * the map of dpdk-rdma's SACK (the one ACK with a payload, struct dr_sack).
 */
static inline int
tpkt_fixed_paylen(uint32_t mask)
{
	if (!(mask & DR_OPF_PAYLOAD))
		return 0;
	if (mask & DR_OPF_CNP)
		return DR_CNP_PAYLOAD_BYTES;
	if (mask & DR_OPF_ATOMIC_WRITE)
		return (int)sizeof(uint64_t);
	if (mask & DR_OPF_ACK)
		return DR_SACK_PAYLOAD_BYTES;
	return -1;
}

static inline void
tpkt_route(struct dr_pkt_route *rt, uint8_t ip_ver, bool vlan)
{
	static const struct rte_ether_addr dmac = { { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } };
	static const struct rte_ether_addr smac = { { 0x02, 0x66, 0x77, 0x88, 0x99, 0xAA } };
	static const uint8_t sgid6[16] = { 0xFD, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC,
					   0xDE, 0xF0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x01 };
	static const uint8_t dgid6[16] = { 0xFD, 0x00, 0x65, 0x43, 0x21, 0x0F, 0xED, 0xCB,
					   0xA9, 0x87, 0x66, 0x77, 0x88, 0x99, 0xAA, 0x02 };

	memset(rt, 0, sizeof(*rt));
	rt->dmac = dmac;
	rt->smac = smac;
	rt->has_vlan = vlan;
	rt->vlan_tci = TPKT_VLAN_TCI;   /* left set when untagged: it must not leak into the frame */
	rt->ip_ver = ip_ver;
	if (ip_ver == 6) {
		memcpy(rt->sgid, sgid6, 16);
		memcpy(rt->dgid, dgid6, 16);
	} else {
		dr_gid_from_ipv4(rt->sgid, RTE_BE32(0xC0A8010A));   /* 192.168.1.10 */
		dr_gid_from_ipv4(rt->dgid, RTE_BE32(0xC0A80114));   /* 192.168.1.20 */
	}
	rt->tclass = 0x6A;          /* DSCP 26, ECT(0) */
	rt->hop_limit = 0x3C;
	rt->ipv4_df = 1;
	rt->flow_label = 0xABCDE;
	rt->udp_sport = 0xC1A5;
}

/*
 * Set every BTH and extension-header field the opcode carries (IBA 9.2, 9.3;
 * no supported opcode has an RDETH: RD is not supported).
 */
static inline void
tpkt_set_fields(const struct dr_pkt_info *pi)
{
	struct dr_bth *bth = dr_pkt_bth(pi);

	dr_bth_set_se(bth, true);
	dr_bth_set_mig(bth, true);
	dr_bth_set_pkey(bth, TPKT_PKEY);
	dr_bth_set_fecn(bth, true);
	dr_bth_set_becn(bth, true);
	dr_bth_set_resv6a(bth, TPKT_RESV6A);
	dr_bth_set_qpn(bth, TPKT_QPN);
	dr_bth_set_ackreq(bth, true);
	dr_bth_set_resv7(bth, TPKT_RESV7);
	dr_bth_set_psn(bth, TPKT_PSN);
	if (pi->mask & DR_OPF_DETH) {
		dr_deth_set_qkey(dr_pkt_deth(pi), TPKT_QKEY);
		dr_deth_set_sqp(dr_pkt_deth(pi), TPKT_SQP);
	}
	if (pi->mask & DR_OPF_XRCETH)
		dr_xrceth_set_srq(dr_pkt_xrceth(pi), TPKT_XRCSRQ);
	if (pi->mask & DR_OPF_FETH)
		dr_feth_set(dr_pkt_feth(pi), TPKT_FETH_PLT, TPKT_FETH_SEL);
	if (pi->mask & DR_OPF_RETH) {
		dr_reth_set_va(dr_pkt_reth(pi), TPKT_RETH_VA);
		dr_reth_set_rkey(dr_pkt_reth(pi), TPKT_RETH_RKEY);
		dr_reth_set_len(dr_pkt_reth(pi), TPKT_RETH_LEN);
	}
	if (pi->mask & DR_OPF_ATMETH) {
		dr_atmeth_set_va(dr_pkt_atmeth(pi), TPKT_ATM_VA);
		dr_atmeth_set_rkey(dr_pkt_atmeth(pi), TPKT_ATM_RKEY);
		dr_atmeth_set_swap_add(dr_pkt_atmeth(pi), TPKT_ATM_SWAP);
		dr_atmeth_set_comp(dr_pkt_atmeth(pi), TPKT_ATM_COMP);
	}
	if (pi->mask & DR_OPF_AETH)
		dr_aeth_set(dr_pkt_aeth(pi), TPKT_AETH_SYN, TPKT_AETH_MSN);
	if (pi->mask & DR_OPF_ATMACK)
		dr_atmack_set_orig(dr_pkt_atmack(pi), TPKT_ATMACK);
	if (pi->mask & DR_OPF_IMMDT)
		dr_immdt_set_imm(dr_pkt_immdt(pi), RTE_BE32(TPKT_IMM));
	if (pi->mask & DR_OPF_IETH)
		dr_ieth_set_rkey(dr_pkt_ieth(pi), TPKT_IETH_RKEY);
}

/* Read every field tpkt_set_fields() wrote back through the accessors. */
static inline void
tpkt_check_fields(const struct dr_pkt_info *pi)
{
	const struct dr_bth *bth = dr_pkt_bth(pi);

	CHECK_EQ(dr_bth_opcode(bth), pi->opcode);
	CHECK(dr_bth_se(bth));
	CHECK(dr_bth_mig(bth));
	CHECK_EQ(dr_bth_pad(bth), pi->pad);
	CHECK_EQ(dr_bth_tver(bth), DR_BTH_TVER);
	CHECK_EQ(dr_bth_pkey(bth), TPKT_PKEY);
	CHECK(dr_bth_fecn(bth));
	CHECK(dr_bth_becn(bth));
	CHECK_EQ(dr_bth_resv6a(bth), TPKT_RESV6A);
	CHECK_EQ(dr_bth_qpn(bth), TPKT_QPN);
	CHECK(dr_bth_ackreq(bth));
	CHECK_EQ(dr_bth_resv7(bth), TPKT_RESV7);
	CHECK_EQ(dr_bth_psn(bth), TPKT_PSN);
	if (pi->mask & DR_OPF_DETH) {
		CHECK_EQ(dr_deth_qkey(dr_pkt_deth(pi)), TPKT_QKEY);
		CHECK_EQ(dr_deth_sqp(dr_pkt_deth(pi)), TPKT_SQP);
	}
	if (pi->mask & DR_OPF_XRCETH)
		CHECK_EQ(dr_xrceth_srq(dr_pkt_xrceth(pi)), TPKT_XRCSRQ);
	if (pi->mask & DR_OPF_FETH) {
		CHECK_EQ(dr_feth_plt(dr_pkt_feth(pi)), TPKT_FETH_PLT);
		CHECK_EQ(dr_feth_sel(dr_pkt_feth(pi)), TPKT_FETH_SEL);
	}
	if (pi->mask & DR_OPF_RETH) {
		CHECK_EQ(dr_reth_va(dr_pkt_reth(pi)), TPKT_RETH_VA);
		CHECK_EQ(dr_reth_rkey(dr_pkt_reth(pi)), TPKT_RETH_RKEY);
		CHECK_EQ(dr_reth_len(dr_pkt_reth(pi)), TPKT_RETH_LEN);
	}
	if (pi->mask & DR_OPF_ATMETH) {
		CHECK_EQ(dr_atmeth_va(dr_pkt_atmeth(pi)), TPKT_ATM_VA);
		CHECK_EQ(dr_atmeth_rkey(dr_pkt_atmeth(pi)), TPKT_ATM_RKEY);
		CHECK_EQ(dr_atmeth_swap_add(dr_pkt_atmeth(pi)), TPKT_ATM_SWAP);
		CHECK_EQ(dr_atmeth_comp(dr_pkt_atmeth(pi)), TPKT_ATM_COMP);
	}
	if (pi->mask & DR_OPF_AETH) {
		CHECK_EQ(dr_aeth_syndrome(dr_pkt_aeth(pi)), TPKT_AETH_SYN);
		CHECK_EQ(dr_aeth_msn(dr_pkt_aeth(pi)), TPKT_AETH_MSN);
	}
	if (pi->mask & DR_OPF_ATMACK)
		CHECK_EQ(dr_atmack_orig(dr_pkt_atmack(pi)), TPKT_ATMACK);
	if (pi->mask & DR_OPF_IMMDT)
		CHECK_EQ(dr_immdt_imm(dr_pkt_immdt(pi)), RTE_BE32(TPKT_IMM));
	if (pi->mask & DR_OPF_IETH)
		CHECK_EQ(dr_ieth_rkey(dr_pkt_ieth(pi)), TPKT_IETH_RKEY);
}

/* Payload byte @i of a packet: a pattern that differs per position and per @seed. */
static inline uint8_t
tpkt_pay_byte(uint32_t i, uint32_t seed)
{
	return (uint8_t)(i * 7u + (i >> 8) * 13u + seed * 29u + 1u);
}

static inline void
tpkt_fill_payload(uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = tpkt_pay_byte(i, seed);
}

/*
 * Build a complete packet into the empty mbuf @m: headers, every field set,
 * @paylen pattern bytes appended to @m itself, pad and ICRC.
 * Returns 0 or the first failing call's -errno.
 */
static inline int
tpkt_build(struct rte_mbuf *m, uint8_t opcode, uint8_t ip_ver, bool vlan, uint32_t paylen,
	   struct dr_pkt_info *pi)
{
	uint8_t pay[TPKT_ROOM];
	struct dr_pkt_route rt;
	int rc;

	tpkt_route(&rt, ip_ver, vlan);
	rc = dr_pkt_build(m, &rt, TPKT_IP_ID, opcode, paylen, pi);
	if (rc != 0)
		return rc;
	tpkt_set_fields(pi);
	tpkt_fill_payload(pay, paylen, opcode);
	rc = dr_pkt_append(m, pay, paylen);
	return rc != 0 ? rc : dr_pkt_finalize(m, pi);
}

/* Build a packet as tpkt_build() does and copy it to @out; returns its length (0 on failure). */
static inline uint32_t
tpkt_frame(uint8_t *out, uint8_t opcode, uint8_t ip_ver, bool vlan, uint32_t paylen)
{
	struct rte_mbuf *m = tmbuf_new(TPKT_ROOM);
	struct dr_pkt_info pi;
	uint32_t len = 0;

	if (tpkt_build(m, opcode, ip_ver, vlan, paylen, &pi) == 0) {
		len = m->pkt_len;
		tmbuf_linearize(m, out);
	}
	tmbuf_free(m);
	return len;
}

/*
 * A chain holding the @len bytes at @f, cut at the increasing offsets
 * @cuts[0..ncuts-1]. Each segment's data room is exactly its data, so a read
 * past the end of any segment leaves the allocation (ASan sees it).
 */
static inline struct rte_mbuf *
tpkt_chain(const uint8_t *f, uint32_t len, const uint32_t *cuts, unsigned int ncuts)
{
	struct rte_mbuf *head = NULL;
	uint32_t start = 0;

	for (unsigned int i = 0; i <= ncuts; i++) {
		uint32_t end = i < ncuts ? cuts[i] : len;
		struct rte_mbuf *s = tmbuf_new((uint16_t)(end - start));

		memcpy(rte_pktmbuf_append(s, (uint16_t)(end - start)), f + start, end - start);
		if (head == NULL)
			head = s;
		else
			tmbuf_chain(head, s);
		start = end;
	}
	return head;
}

/* A valid frame to start a test from, and its parse. */
struct tpkt_base {
	uint8_t f[512];
	uint32_t len;
	struct dr_pkt_info pi;
};

static inline void
tpkt_base_make(struct tpkt_base *b, uint8_t op, uint8_t ip_ver, bool vlan, uint32_t paylen)
{
	b->len = tpkt_frame(b->f, op, ip_ver, vlan, paylen);
	CHECK(b->len > 0 && b->len <= sizeof(b->f));
	CHECK_EQ(dr_pkt_parse_buf(b->f, b->len, &b->pi), DR_PKT_OK);
}

/*
 * Parse @len bytes at @f three ways: a heap buffer of exactly @len bytes
 * (*@flat), one segment (@m[0]) and two segments cut at @cut (@m[1]).
 * The caller frees *@flat and both chains.
 */
static inline void
tpkt_parse3(const uint8_t *f, uint32_t len, uint32_t cut, enum dr_pkt_status st[3],
	    struct dr_pkt_info pi[3], uint8_t **flat, struct rte_mbuf *m[2])
{
	*flat = malloc(len ? len : 1);
	memcpy(*flat, f, len);
	m[0] = tpkt_chain(f, len, NULL, 0);
	m[1] = tpkt_chain(f, len, &cut, 1);
	st[0] = dr_pkt_parse_buf(*flat, len, &pi[0]);
	st[1] = dr_pkt_parse(m[0], &pi[1]);
	st[2] = dr_pkt_parse(m[1], &pi[2]);
}

/* The fields two parses of the same frame must agree on; returns the number of differences. */
static inline unsigned int
tpkt_info_diff(const struct dr_pkt_info *a, const struct dr_pkt_info *b)
{
	unsigned int d = 0;

	d += a->opcode != b->opcode;
	d += a->mask != b->mask;
	d += a->pad != b->pad;
	d += a->paylen != b->paylen;
	d += a->pay_off != b->pay_off;
	d += a->frame_len != b->frame_len;
	d += a->l3_off != b->l3_off;
	d += a->l4_off != b->l4_off;
	d += a->bth_off != b->bth_off;
	d += a->udp_sport != b->udp_sport;
	d += a->ip_ver != b->ip_ver;
	d += a->has_vlan != b->has_vlan;
	d += a->vlan_tci != b->vlan_tci;
	d += memcmp(a->sgid, b->sgid, 16) != 0;
	d += memcmp(a->dgid, b->dgid, 16) != 0;
	if (d == 0)
		d += memcmp(a->hdr, b->hdr, dr_opcode_table[a->opcode].length) != 0;
	return d;
}

#endif /* DR_TEST_PKT_H */
