/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * IPv6 Neighbour Discovery, the address-resolution part (RFC 4861 7.2):
 * answer Neighbour Solicitations for our IPv6 GIDs (index 0, the link-local
 * address, and 2..) with a Neighbour Advertisement carrying our link-layer
 * address; learn from solicitations and advertisements; build solicitations
 * to the solicited-node multicast address. Messages are validated as RFC 4861
 * 7.1.1 / 7.1.2 say (hop limit 255, code 0, length, ICMPv6 checksum, target
 * not multicast, options of non-zero length) and silently dropped otherwise.
 * Extension headers before ICMPv6 are not followed: such frames are "other".
 */

#include <string.h>

#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "dr_log.h"
#include "dr_neigh.h"

#define IP6_HDR_LEN 40
#define IP6_HOP_LIMIT_ND 255
#define ND_MSG_LEN 24             /* NS and NA without options */
#define ND_LLA_OPT_LEN 8          /* SLLA / TLLA option for Ethernet */

static const uint8_t all_nodes[16] = { 0xFF, 0x02, [15] = 0x01 };

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool
is_unspecified(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

static inline bool
is_multicast(const uint8_t a[16])
{
	return a[0] == 0xFF;
}

static inline bool
is_link_local(const uint8_t a[16])
{
	return a[0] == 0xFE && (a[1] & 0xC0) == 0x80;
}

static bool
is_ours(const struct dr_neigh_self *self, const uint8_t a[16])
{
	for (unsigned int i = 0; i < self->num_ipv6; i++)
		if (memcmp(self->ipv6[i], a, 16) == 0)
			return true;
	return false;
}

uint16_t
dr_nd_cksum(const uint8_t src[16], const uint8_t dst[16], const void *icmp, uint32_t len)
{
	/* RFC 8200 8.1 pseudo-header: source, destination, upper-layer length, zero, next header */
	const uint8_t tail[8] = {
		(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len,
		0, 0, 0, IPPROTO_ICMPV6,
	};
	uint32_t sum;

	sum = __rte_raw_cksum(src, 16, 0);
	sum = __rte_raw_cksum(dst, 16, sum);
	sum = __rte_raw_cksum(tail, sizeof(tail), sum);
	sum = __rte_raw_cksum(icmp, len, sum);
	return (uint16_t)~__rte_raw_cksum_reduce(sum);
}

void
dr_nd_solicited_node(uint8_t out[16], const uint8_t addr[16])
{
	static const uint8_t prefix[13] = { 0xFF, 0x02, [11] = 0x01, [12] = 0xFF };

	memcpy(out, prefix, sizeof(prefix));
	memcpy(out + 13, addr + 13, 3);
}

const uint8_t *
dr_nd_source_for(const struct dr_neigh_self *self, const uint8_t target[16])
{
	const uint8_t *ll = NULL, *global = NULL;

	/* RFC 4861 7.2.2 leaves the choice: an address on the target's /64, else of its scope */
	for (unsigned int i = 0; i < self->num_ipv6; i++) {
		const uint8_t *a = self->ipv6[i];

		if (memcmp(a, target, 8) == 0)
			return a;
		if (is_link_local(a)) {
			if (ll == NULL)
				ll = a;
		} else if (global == NULL) {
			global = a;
		}
	}
	if (is_link_local(target))
		return ll != NULL ? ll : global;
	return global != NULL ? global : ll;
}

/* IPv6 header + ICMPv6 NS/NA with one link-layer address option, checksum filled. */
static uint32_t
build_nd(uint8_t *buf, const struct dr_neigh_l2 *l2, const uint8_t src[16], const uint8_t dst[16],
	 uint8_t type, uint8_t flags, const uint8_t target[16], uint8_t opt_type,
	 const struct rte_ether_addr *lla)
{
	const uint32_t icmp_len = ND_MSG_LEN + ND_LLA_OPT_LEN;
	uint32_t off = dr_neigh_write_l2(buf, &l2->dst, &l2->src, l2->has_vlan, l2->vlan_tci,
					 RTE_ETHER_TYPE_IPV6);
	uint8_t *ip = buf + off, *icmp = ip + IP6_HDR_LEN;
	uint16_t ck;

	memset(ip, 0, IP6_HDR_LEN + icmp_len);
	ip[0] = 0x60;                       /* version 6, traffic class 0, flow label 0 */
	ip[4] = 0;
	ip[5] = (uint8_t)icmp_len;          /* payload length */
	ip[6] = IPPROTO_ICMPV6;
	ip[7] = IP6_HOP_LIMIT_ND;           /* RFC 4861 7.1: receivers check it is 255 */
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	icmp[0] = type;                     /* code 0, checksum 0 for now */
	icmp[4] = flags;                    /* NA: R S O; NS: reserved */
	memcpy(icmp + 8, target, 16);
	icmp[24] = opt_type;
	icmp[25] = 1;                       /* in units of 8 bytes */
	memcpy(icmp + 26, lla->addr_bytes, RTE_ETHER_ADDR_LEN);
	ck = dr_nd_cksum(src, dst, icmp, icmp_len);
	memcpy(icmp + 2, &ck, sizeof(ck));  /* summed in memory order: stored as is */
	return off + IP6_HDR_LEN + icmp_len;
}

uint32_t
dr_nd_build_ns(uint8_t *buf, const struct dr_neigh_self *self, const uint8_t src[16],
	       const uint8_t target[16])
{
	struct dr_neigh_l2 l2 = { .src = self->mac };
	uint8_t dst[16];

	dr_nd_solicited_node(dst, target);
	l2.dst.addr_bytes[0] = 0x33;
	l2.dst.addr_bytes[1] = 0x33;
	memcpy(l2.dst.addr_bytes + 2, dst + 12, 4);
	return build_nd(buf, &l2, src, dst, DR_ND_NS, 0, target, DR_ND_OPT_SLLA, &self->mac);
}

uint32_t
dr_nd_build_na(uint8_t *buf, const struct dr_neigh_l2 *l2, const uint8_t target[16],
	       const uint8_t dst[16], uint8_t flags)
{
	/* the source of a solicited NA is the target itself (RFC 4861 7.2.4) */
	return build_nd(buf, l2, target, dst, DR_ND_NA, flags, target, DR_ND_OPT_TLLA, &l2->src);
}

static enum dr_neigh_verdict
ns_input(struct dr_neigh_table *t, const struct dr_neigh_self *self, const struct dr_neigh_l2 *l2,
	 const uint8_t *src, const uint8_t *dst, const uint8_t *target, const uint8_t *slla,
	 uint64_t now, uint8_t *reply, uint32_t *reply_len)
{
	struct dr_neigh_l2 out = { .src = self->mac, .has_vlan = l2->has_vlan, .vlan_tci = l2->vlan_tci };
	bool dad = is_unspecified(src);
	const uint8_t *to;
	uint8_t flags;

	if (dad) {
		uint8_t sn[16];

		/* RFC 4861 7.1.1: from ::, only to the solicited-node address and without SLLA */
		dr_nd_solicited_node(sn, target);
		if (memcmp(dst, sn, 16) != 0 || slla != NULL) {
			DR_DP_LOG(drv, DEBUG, "nd: NS from :: to the wrong address or with SLLA");
			goto malformed;
		}
	} else if (is_multicast(src)) {
		DR_DP_LOG(drv, DEBUG, "nd: NS from a multicast address");
		goto malformed;
	}
	t->stats.nd_rx++;
	if (!is_ours(self, target)) {
		t->stats.not_for_us++;
		return DR_NEIGH_DONE;
	}
	if (dad) {
		/* someone probes our address for Duplicate Address Detection: defend it (7.2.4) */
		t->stats.conflict++;
		to = all_nodes;
		out.dst.addr_bytes[0] = 0x33;
		out.dst.addr_bytes[1] = 0x33;
		memcpy(out.dst.addr_bytes + 2, all_nodes + 12, 4);
		flags = DR_ND_NA_OVERRIDE;
	} else {
		/* 7.2.3: create or update the sender's entry from its SLLA */
		if (slla != NULL) {
			struct rte_ether_addr mac;

			memcpy(mac.addr_bytes, slla, RTE_ETHER_ADDR_LEN);
			(void)dr_neigh_learn(t, src, &mac, true, true, now);
			out.dst = mac;
		} else {
			/* a unicast NS may omit SLLA: answer the frame's sender */
			out.dst = l2->src;
		}
		to = src;
		flags = DR_ND_NA_SOLICITED | DR_ND_NA_OVERRIDE;
	}
	*reply_len = dr_nd_build_na(reply, &out, target, to, flags);
	t->stats.replies++;
	return DR_NEIGH_REPLY;

malformed:
	t->stats.malformed++;
	return DR_NEIGH_MALFORMED;
}

static enum dr_neigh_verdict
na_input(struct dr_neigh_table *t, const struct dr_neigh_self *self, const uint8_t *dst,
	 uint8_t flags, const uint8_t *target, const uint8_t *tlla, uint64_t now)
{
	struct rte_ether_addr mac;

	/* RFC 4861 7.1.2: an NA to a multicast address is never solicited */
	if (is_multicast(dst) && (flags & DR_ND_NA_SOLICITED)) {
		DR_DP_LOG(drv, DEBUG, "nd: solicited NA to a multicast address");
		t->stats.malformed++;
		return DR_NEIGH_MALFORMED;
	}
	t->stats.nd_rx++;
	if (tlla != NULL)
		memcpy(mac.addr_bytes, tlla, RTE_ETHER_ADDR_LEN);
	if (is_ours(self, target)) {
		/* someone else advertises our address */
		if (tlla != NULL && !rte_is_same_ether_addr(&mac, &self->mac))
			t->stats.conflict++;
		return DR_NEIGH_DONE;
	}
	/* 7.2.5: an NA for an address we have no entry for is discarded */
	if (tlla == NULL || dr_neigh_lookup(t, target) == NULL) {
		t->stats.not_for_us++;
		return DR_NEIGH_DONE;
	}
	/* completes an incomplete entry whatever O says; changes a known MAC only with O */
	(void)dr_neigh_learn(t, target, &mac, false, (flags & DR_ND_NA_OVERRIDE) != 0, now);
	return DR_NEIGH_DONE;
}

enum dr_neigh_verdict
dr_nd_input(struct dr_neigh_table *t, const struct dr_neigh_self *self, const struct dr_neigh_l2 *l2,
	    const uint8_t *f, uint32_t len, uint64_t now, uint8_t *reply, uint32_t *reply_len)
{
	const uint8_t *ip, *icmp, *lla = NULL;
	uint32_t off = l2->l3_off, plen, opt;
	uint8_t type;

	*reply_len = 0;
	if (len < off + IP6_HDR_LEN + 1)
		goto malformed;
	ip = f + off;
	if ((ip[0] >> 4) != 6)
		goto malformed;
	if (ip[6] != IPPROTO_ICMPV6) {
		t->stats.other++;
		return DR_NEIGH_OTHER;
	}
	icmp = ip + IP6_HDR_LEN;
	type = icmp[0];
	if (type != DR_ND_NS && type != DR_ND_NA) {
		t->stats.other++;
		return DR_NEIGH_OTHER;
	}
	/* RFC 4861 7.1.1 / 7.1.2 validity checks, in the order of the RFC */
	plen = rd16(ip + 4);
	if (off + IP6_HDR_LEN + plen > len) {
		DR_DP_LOG(drv, DEBUG, "nd: IPv6 payload length %u beyond the frame", plen);
		goto malformed;
	}
	if (ip[7] != IP6_HOP_LIMIT_ND || plen < ND_MSG_LEN || icmp[1] != 0) {
		DR_DP_LOG(drv, DEBUG, "nd: hop limit %u, length %u, code %u", ip[7], plen, icmp[1]);
		goto malformed;
	}
	if (dr_nd_cksum(ip + 8, ip + 24, icmp, plen) != 0) {
		DR_DP_LOG(drv, DEBUG, "nd: bad ICMPv6 checksum");
		goto malformed;
	}
	if (is_multicast(icmp + 8)) {
		DR_DP_LOG(drv, DEBUG, "nd: multicast target");
		goto malformed;
	}
	for (opt = ND_MSG_LEN; opt < plen; ) {
		uint32_t olen;

		if (plen - opt < 2)
			goto malformed;
		olen = icmp[opt + 1] * 8u;
		if (olen == 0 || olen > plen - opt) {
			DR_DP_LOG(drv, DEBUG, "nd: option of length %u at %u", olen, opt);
			goto malformed;
		}
		/* the first SLLA (NS) / TLLA (NA) of Ethernet size; others are skipped */
		if (lla == NULL && olen == ND_LLA_OPT_LEN &&
		    icmp[opt] == (type == DR_ND_NS ? DR_ND_OPT_SLLA : DR_ND_OPT_TLLA))
			lla = icmp + opt + 2;
		opt += olen;
	}
	if (lla != NULL) {
		struct rte_ether_addr mac;

		memcpy(mac.addr_bytes, lla, RTE_ETHER_ADDR_LEN);
		if (!rte_is_valid_assigned_ether_addr(&mac)) {
			DR_DP_LOG(drv, DEBUG, "nd: link-layer address option is not unicast");
			goto malformed;
		}
	}
	if (type == DR_ND_NS)
		return ns_input(t, self, l2, ip + 8, ip + 24, icmp + 8, lla, now, reply, reply_len);
	return na_input(t, self, ip + 24, icmp[4], icmp + 8, lla, now);

malformed:
	t->stats.malformed++;
	return DR_NEIGH_MALFORMED;
}
