/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Whose is a frame (lib/wire/dr_pkt_classify.c, behind dr_rx_burst_input()):
 * RoCEv2 to one of the GIDs (IBA A17.4.2 UDP port 4791, A17.4.5.1 the GID is
 * the IP address), ARP for an IPv4 GID (RFC 826), NS for a GID and NA to one
 * (RFC 4861 4.3, 4.4) are the transport's; everything else, fragments and
 * frames too short for their headers included, is the application's. Every
 * prefix of every frame is classified too: a frame cut anywhere in the
 * headers is the application's, and nothing past its end is read (the
 * prefixes live at the very end of a buffer; ASan in CI would catch a read
 * past it).
 */

#include <stdlib.h>
#include <string.h>

#include "dr_pkt_classify.h"
#include "dr_test.h"

static const uint8_t gid_v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, 2 };
static const uint8_t gid_ll[16] = { 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xFF, 0xFE, 0, 0, 2 };
static const uint8_t gid_ula[16] = { 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
static const uint8_t other_v6[16] = { 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 };

static struct dr_pkt_class_addrs addrs;

static uint32_t
eth(uint8_t *f, uint16_t etype, bool vlan)
{
	memset(f, 0, 14);
	memset(f, 0xFF, 6);
	f[6] = 0x02;
	if (vlan) {
		f[12] = 0x81;
		f[14] = 0x00;
		f[15] = 100;
		f[16] = (uint8_t)(etype >> 8);
		f[17] = (uint8_t)etype;
		return 18;
	}
	f[12] = (uint8_t)(etype >> 8);
	f[13] = (uint8_t)etype;
	return 14;
}

/* IPv4 to 10.0.0.@dst, IHL @ihl words, then a UDP-shaped header with @dport, 12 bytes of BTH. */
static uint32_t
v4(uint8_t *f, bool vlan, uint8_t dst, uint8_t proto, uint16_t frag, uint16_t dport, uint8_t ihl)
{
	uint32_t l3 = eth(f, 0x0800, vlan), hl = ihl * 4u;
	uint8_t *ip = f + l3;

	memset(ip, 0, hl + 8 + 12);
	ip[0] = (uint8_t)(0x40 | ihl);
	ip[6] = (uint8_t)(frag >> 8);
	ip[7] = (uint8_t)frag;
	ip[9] = proto;
	ip[12] = 10;
	ip[15] = 9;
	ip[16] = 10;
	ip[19] = dst;
	ip[hl + 2] = (uint8_t)(dport >> 8);
	ip[hl + 3] = (uint8_t)dport;
	return l3 + hl + 8 + 12;
}

/* IPv6 to @dst, next header @nh; UDP with @dport, or ICMPv6 of @type with @target. */
static uint32_t
v6(uint8_t *f, bool vlan, const uint8_t *dst, uint8_t nh, uint16_t dport, uint8_t type, const uint8_t *target)
{
	uint32_t l3 = eth(f, 0x86DD, vlan);
	uint8_t *ip = f + l3, *l4 = ip + 40;

	memset(ip, 0, 40 + 24);
	ip[0] = 0x60;
	ip[6] = nh;
	memcpy(ip + 24, dst, 16);
	if (nh == 17) {
		l4[2] = (uint8_t)(dport >> 8);
		l4[3] = (uint8_t)dport;
		return l3 + 40 + 8 + 12;
	}
	l4[0] = type;
	if (target != NULL)
		memcpy(l4 + 8, target, 16);
	return l3 + 40 + 24;
}

static uint32_t
arp(uint8_t *f, bool vlan, uint8_t op, uint8_t tpa, uint8_t plen)
{
	uint32_t l3 = eth(f, 0x0806, vlan);
	uint8_t *a = f + l3;

	memset(a, 0, 28);
	a[1] = 1;
	a[2] = 0x08;
	a[4] = 6;
	a[5] = plen;
	a[7] = op;
	a[14] = 10;
	a[17] = 9;
	a[24] = 10;
	a[27] = tpa;
	return l3 + 28;
}

/* @f's class, and every shorter prefix the application's (the prefix at the end of a heap block) */
static void
expect(const char *what, const uint8_t *f, uint32_t len, enum dr_pkt_class want)
{
	uint32_t cut;

	CHECK_MSG(dr_pkt_classify(f, len, &addrs) == want, "%s: class %d, want %d", what,
		  (int)dr_pkt_classify(f, len, &addrs), (int)want);
	for (cut = 0; cut < len; cut++) {
		uint8_t *end = malloc(cut != 0 ? cut : 1);
		enum dr_pkt_class c;

		memcpy(end, f, cut);
		c = dr_pkt_classify(end, cut, &addrs);
		free(end);
		/* what the headers need: a cut frame is no one's until they are whole */
		if (want != DR_PKT_CLASS_OTHER && c != DR_PKT_CLASS_OTHER && c != want)
			CHECK_MSG(false, "%s cut to %u bytes: class %d", what, cut, (int)c);
		if (want == DR_PKT_CLASS_OTHER)
			CHECK_MSG(c == DR_PKT_CLASS_OTHER, "%s cut to %u bytes: class %d", what, cut, (int)c);
	}
}

int
main(void)
{
	uint8_t table[DR_MAX_GIDS][16], valid[DR_MAX_GIDS] = { 0 };
	uint8_t f[128];
	uint32_t len;
	int vlan;

	memset(table, 0, sizeof(table));
	memcpy(table[0], gid_ll, 16);
	memcpy(table[1], gid_v4, 16);
	memcpy(table[2], gid_ula, 16);
	valid[0] = valid[1] = valid[2] = 1;
	memcpy(table[3], other_v6, 16);             /* not valid: not ours */
	dr_pkt_class_addrs_init(&addrs, (const uint8_t (*)[16])table, valid, DR_MAX_GIDS);
	CHECK_EQ(addrs.n_v4, 1);
	CHECK_EQ(addrs.n_v6, 2);

	for (vlan = 0; vlan < 2; vlan++) {
		/* RoCEv2 */
		len = v4(f, vlan, 2, 17, 0, 4791, 5);
		expect("RoCE over IPv4 to us", f, len, DR_PKT_CLASS_ROCE);
		len = v4(f, vlan, 2, 17, 0x4000, 4791, 5);      /* DF is no fragment */
		expect("RoCE over IPv4 with DF", f, len, DR_PKT_CLASS_ROCE);
		len = v4(f, vlan, 2, 17, 0, 4791, 6);            /* options: ours (the transport drops it) */
		expect("RoCE over IPv4 with options", f, len, DR_PKT_CLASS_ROCE);
		len = v4(f, vlan, 3, 17, 0, 4791, 5);
		expect("RoCE over IPv4 to another address", f, len, DR_PKT_CLASS_OTHER);
		len = v4(f, vlan, 2, 17, 0, 4792, 5);
		expect("UDP 4792 to us", f, len, DR_PKT_CLASS_OTHER);
		len = v4(f, vlan, 2, 6, 0, 4791, 5);
		expect("TCP 4791 to us", f, len, DR_PKT_CLASS_OTHER);
		len = v4(f, vlan, 2, 1, 0, 0, 5);
		expect("ICMP to us", f, len, DR_PKT_CLASS_OTHER);
		len = v4(f, vlan, 2, 17, 0x2000, 4791, 5);
		expect("first fragment (MF) to us", f, len, DR_PKT_CLASS_OTHER);
		len = v4(f, vlan, 2, 17, 0x00B9, 4791, 5);
		expect("later fragment to us", f, len, DR_PKT_CLASS_OTHER);
		len = v4(f, vlan, 2, 17, 0, 4791, 4);
		expect("IPv4 header length 16", f, len, DR_PKT_CLASS_OTHER);
		len = v4(f, vlan, 2, 17, 0, 4791, 5);
		f[(vlan ? 18 : 14)] = 0x65;                      /* version 6 under EtherType IPv4 */
		expect("IPv4 EtherType, version 6", f, len, DR_PKT_CLASS_OTHER);
		len = v6(f, vlan, gid_ula, 17, 4791, 0, NULL);
		expect("RoCE over IPv6 to our ULA", f, len, DR_PKT_CLASS_ROCE);
		len = v6(f, vlan, gid_ll, 17, 4791, 0, NULL);
		expect("RoCE over IPv6 to our link-local", f, len, DR_PKT_CLASS_ROCE);
		len = v6(f, vlan, other_v6, 17, 4791, 0, NULL);
		expect("RoCE over IPv6 to an address not valid", f, len, DR_PKT_CLASS_OTHER);
		len = v6(f, vlan, gid_ula, 17, 53, 0, NULL);
		expect("UDP 53 over IPv6 to us", f, len, DR_PKT_CLASS_OTHER);
		len = v6(f, vlan, gid_v4, 17, 4791, 0, NULL);    /* ::ffff:10.0.0.2 as an IPv6 destination */
		expect("IPv6 to the IPv4-mapped GID", f, len, DR_PKT_CLASS_OTHER);
		/* neighbour discovery */
		{
			static const uint8_t snm[16] = { 0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0, 0, 2 };

			len = v6(f, vlan, snm, 58, 0, 135, gid_ula);
			expect("NS for our ULA", f, len, DR_PKT_CLASS_NEIGH);
			len = v6(f, vlan, snm, 58, 0, 135, other_v6);
			expect("NS for another address", f, len, DR_PKT_CLASS_OTHER);
			len = v6(f, vlan, gid_ll, 58, 0, 136, other_v6);
			expect("NA to us", f, len, DR_PKT_CLASS_NEIGH);
			len = v6(f, vlan, snm, 58, 0, 136, gid_ula);
			expect("NA to a multicast group", f, len, DR_PKT_CLASS_OTHER);
			len = v6(f, vlan, gid_ula, 58, 0, 128, NULL);
			expect("echo request to us", f, len, DR_PKT_CLASS_OTHER);
			len = v6(f, vlan, gid_ula, 0, 0, 135, gid_ula);   /* hop-by-hop first: not as RFC 4861 sends */
			expect("NS behind an extension header", f, len, DR_PKT_CLASS_OTHER);
		}
		/* ARP */
		len = arp(f, vlan, 1, 2, 4);
		expect("ARP request for us", f, len, DR_PKT_CLASS_NEIGH);
		len = arp(f, vlan, 2, 2, 4);
		expect("ARP reply to us", f, len, DR_PKT_CLASS_NEIGH);
		len = arp(f, vlan, 1, 3, 4);
		expect("ARP request for another address", f, len, DR_PKT_CLASS_OTHER);
		len = arp(f, vlan, 1, 2, 16);
		expect("ARP with 16-byte protocol addresses", f, len, DR_PKT_CLASS_OTHER);
	}
	/* two tags: only one is looked through */
	len = v4(f + 4, true, 2, 17, 0, 4791, 5);
	eth(f, 0x8100, true);
	f[16] = 0x81;
	f[17] = 0x00;
	expect("QinQ", f, len + 4, DR_PKT_CLASS_OTHER);
	/* garbage: a fixed pattern in every length */
	for (len = 0; len < sizeof(f); len++)
		f[len] = (uint8_t)(len * 37 + 11);
	expect("garbage", f, sizeof(f), DR_PKT_CLASS_OTHER);
	/* no addresses at all: nothing is the transport's */
	memset(valid, 0, sizeof(valid));
	dr_pkt_class_addrs_init(&addrs, (const uint8_t (*)[16])table, valid, DR_MAX_GIDS);
	len = v4(f, false, 2, 17, 0, 4791, 5);
	expect("RoCE with no GIDs", f, len, DR_PKT_CLASS_OTHER);
	return dr_test_report("test_pkt_classify");
}
