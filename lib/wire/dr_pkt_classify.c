/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Whose is a frame (dr_pkt_classify.h). The transport's are what its
 * receive path would act on, and nothing more, so that the application
 * keeps every frame the transport would only have counted and dropped:
 *
 * - RoCEv2: UDP destination port 4791 (IBA Annex A17.4.2) in an IPv4 packet
 *   that is not a fragment, or an IPv6 packet whose next header is UDP,
 *   addressed to one of the GIDs (A17.4.5.1: the GID is the IP address).
 *   A fragment is never a whole RoCEv2 packet (the ICRC covers the whole of
 *   it; the transport sends none): the application may reassemble it.
 * - ARP (RFC 826) whose target protocol address is an IPv4 GID: requests
 *   the transport answers, replies it learns from.
 * - ICMPv6 neighbour solicitations (RFC 4861 4.3) whose target is a GID,
 *   and advertisements (4.4) sent to a GID. Only when ICMPv6 follows the
 *   IPv6 header directly, as RFC 4861 sends them.
 */

#include <string.h>

#include "dr_pkt_classify.h"

#define ETH_HDR 14
#define VLAN_HDR 4
#define ETYPE_IPV4 0x0800
#define ETYPE_IPV6 0x86DD
#define ETYPE_ARP 0x0806
#define ETYPE_VLAN 0x8100
#define IPPROTO_UDP_ 17
#define IPPROTO_ICMPV6_ 58
#define ROCEV2_PORT 4791
#define ND_NS 135
#define ND_NA 136

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool
is_v4(const struct dr_pkt_class_addrs *a, const uint8_t *addr)
{
	rte_be32_t x;
	unsigned int i;

	memcpy(&x, addr, 4);
	for (i = 0; i < a->n_v4; i++)
		if (a->v4[i] == x)
			return true;
	return false;
}

static bool
is_v6(const struct dr_pkt_class_addrs *a, const uint8_t *addr)
{
	unsigned int i;

	for (i = 0; i < a->n_v6; i++)
		if (memcmp(a->v6[i], addr, 16) == 0)
			return true;
	return false;
}

void
dr_pkt_class_addrs_init(struct dr_pkt_class_addrs *a, const uint8_t (*gid)[16], const uint8_t *valid,
			unsigned int n)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };
	unsigned int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < n && i < DR_MAX_GIDS; i++) {
		if (!valid[i])
			continue;
		if (memcmp(gid[i], mapped, sizeof(mapped)) == 0)
			memcpy(&a->v4[a->n_v4++], gid[i] + 12, 4);
		else
			memcpy(a->v6[a->n_v6++], gid[i], 16);
	}
}

static enum dr_pkt_class
classify_v4(const uint8_t *ip, uint32_t len, const struct dr_pkt_class_addrs *a)
{
	uint32_t ihl;

	if (len < 20 || ip[0] >> 4 != 4)
		return DR_PKT_CLASS_OTHER;
	ihl = (uint32_t)(ip[0] & 0xF) * 4;
	/* a fragment (MF, or an offset): 0x3FFF of the flags and offset word */
	if (ihl < 20 || ip[9] != IPPROTO_UDP_ || (rd16(ip + 6) & 0x3FFF) != 0 || len < ihl + 4)
		return DR_PKT_CLASS_OTHER;
	if (rd16(ip + ihl + 2) != ROCEV2_PORT || !is_v4(a, ip + 16))
		return DR_PKT_CLASS_OTHER;
	return DR_PKT_CLASS_ROCE;
}

static enum dr_pkt_class
classify_v6(const uint8_t *ip, uint32_t len, const struct dr_pkt_class_addrs *a)
{
	const uint8_t *l4 = ip + 40;

	if (len < 40 + 4 || ip[0] >> 4 != 6)
		return DR_PKT_CLASS_OTHER;
	if (ip[6] == IPPROTO_UDP_)
		return rd16(l4 + 2) == ROCEV2_PORT && is_v6(a, ip + 24) ? DR_PKT_CLASS_ROCE : DR_PKT_CLASS_OTHER;
	if (ip[6] != IPPROTO_ICMPV6_)
		return DR_PKT_CLASS_OTHER;
	/* NS: type, code, checksum, reserved, then the target (RFC 4861 4.3) */
	if (l4[0] == ND_NS && len >= 40 + 24 && is_v6(a, l4 + 8))
		return DR_PKT_CLASS_NEIGH;
	if (l4[0] == ND_NA && is_v6(a, ip + 24))
		return DR_PKT_CLASS_NEIGH;
	return DR_PKT_CLASS_OTHER;
}

static enum dr_pkt_class
classify_arp(const uint8_t *arp, uint32_t len, const struct dr_pkt_class_addrs *a)
{
	/* Ethernet and IPv4 addresses: hardware type 1, protocol 0x0800, lengths 6 and 4 */
	if (len < 28 || rd16(arp) != 1 || rd16(arp + 2) != ETYPE_IPV4 || arp[4] != 6 || arp[5] != 4)
		return DR_PKT_CLASS_OTHER;
	return is_v4(a, arp + 24) ? DR_PKT_CLASS_NEIGH : DR_PKT_CLASS_OTHER;
}

enum dr_pkt_class
dr_pkt_classify(const uint8_t *f, uint32_t len, const struct dr_pkt_class_addrs *a)
{
	uint32_t l3 = ETH_HDR;
	uint16_t etype;

	if (len < ETH_HDR)
		return DR_PKT_CLASS_OTHER;
	etype = rd16(f + 12);
	if (etype == ETYPE_VLAN) {
		if (len < ETH_HDR + VLAN_HDR)
			return DR_PKT_CLASS_OTHER;
		etype = rd16(f + 16);
		l3 += VLAN_HDR;
	}
	switch (etype) {
	case ETYPE_IPV4:
		return classify_v4(f + l3, len - l3, a);
	case ETYPE_IPV6:
		return classify_v6(f + l3, len - l3, a);
	case ETYPE_ARP:
		return classify_arp(f + l3, len - l3, a);
	default:
		return DR_PKT_CLASS_OTHER;
	}
}
