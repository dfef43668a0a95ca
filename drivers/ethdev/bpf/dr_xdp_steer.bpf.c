/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The bifurcated host on af_xdp: the XDP program of a net_af_xdp port
 * (its xdp_prog devarg) that hands dpdk-rdma only what is its own and
 * passes everything else to the kernel, as an mlx5 port's rte_flow rules in
 * isolated mode do (doc/guides/backends.rst, "The bifurcated host"):
 *
 * - RoCEv2: UDP to port 4791 (IBA Annex A17.2.2) over IPv4 (no options) or
 *   IPv6 (no extension headers), optionally behind one 802.1Q tag;
 * - ARP whose target protocol address is one of our GIDs (requests for our
 *   address, replies to our requests: RFC 826);
 * - ICMPv6 Neighbour Solicitations whose target is one of our GIDs, and
 *   Neighbour Advertisements sent to one of them (RFC 4861 4.3, 4.4).
 *
 * Our GIDs (IPv4-mapped for IPv4, as the GID table holds them) are the keys
 * of dr_gids; the backend (ethdev or xsk) fills it when the port opens and
 * empties it at close (drivers/common/dr_xdp_gids.c). The kernel keeps its
 * own addresses, its ARP and
 * ND, its TCP and everything else on the same interface. XDP_PASS is also
 * what a frame gets when no socket is bound to its queue.
 *
 * Built by meson when clang is found (build/drivers/ethdev/dr_xdp_steer.o,
 * installed in <datadir>/dpdk-rdma/).
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/icmpv6.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define ROCEV2_PORT 4791
#define ND_SOLICIT 135
#define ND_ADVERT 136
#define DR_XDP_MAX_GIDS 64
#define ARP_HRD_ETHER 1		/* linux/if_arp.h would pull in libc's headers */

#include "dr_xdp_xsks.h"   /* xsks_map, the PMD's */

/* our GIDs: 16 bytes, IPv4-mapped for IPv4 (value unused) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DR_XDP_MAX_GIDS);
	__type(key, struct in6_addr);
	__type(value, __u8);
} dr_gids SEC(".maps");

struct vlan_tag {
	__be16 tci;
	__be16 proto;
};

/* ARP for IPv4 over Ethernet (RFC 826) */
struct arp_eth_ipv4 {
	__be16 hrd;
	__be16 pro;
	unsigned char hln;
	unsigned char pln;
	__be16 op;
	unsigned char sha[ETH_ALEN];
	__be32 spa;
	unsigned char tha[ETH_ALEN];
	__be32 tpa;
} __attribute__((packed));

static __always_inline int
ours(const struct in6_addr *gid)
{
	return bpf_map_lookup_elem(&dr_gids, gid) != NULL;
}

static __always_inline int
arp_ours(const struct arp_eth_ipv4 *a)
{
	struct in6_addr gid = { .in6_u.u6_addr32 = { 0, 0, bpf_htonl(0xFFFF), 0 } };

	if (a->hrd != bpf_htons(ARP_HRD_ETHER) || a->pro != bpf_htons(ETH_P_IP) || a->hln != ETH_ALEN ||
	    a->pln != 4)
		return 0;
	gid.in6_u.u6_addr32[3] = a->tpa;
	return ours(&gid);
}

static __always_inline int
ipv4_ours(const struct iphdr *ip, const void *end)
{
	const struct udphdr *udp = (const void *)(ip + 1);

	return ip->ihl == 5 && ip->protocol == IPPROTO_UDP && (const void *)(udp + 1) <= end &&
	       udp->dest == bpf_htons(ROCEV2_PORT);
}

static __always_inline int
ipv6_ours(const struct ipv6hdr *ip6, const void *end)
{
	const void *l4 = ip6 + 1;

	if (ip6->nexthdr == IPPROTO_UDP) {
		const struct udphdr *udp = l4;

		return (const void *)(udp + 1) <= end && udp->dest == bpf_htons(ROCEV2_PORT);
	}
	if (ip6->nexthdr == IPPROTO_ICMPV6) {
		const struct icmp6hdr *icmp = l4;
		const struct in6_addr *target = (const void *)(icmp + 1);

		if ((const void *)(target + 1) > end)
			return 0;
		if (icmp->icmp6_type == ND_SOLICIT)
			return ours(target);
		if (icmp->icmp6_type == ND_ADVERT)
			return ours(&ip6->daddr);
	}
	return 0;
}

SEC("xdp.frags")    /* frames of several buffers too (the xsk backend's jumbo frames) */
int
dr_xdp_steer(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	void *l3 = eth + 1;
	__be16 proto;
	int mine = 0;

	if (l3 > end)
		return XDP_PASS;
	proto = eth->h_proto;
	if (proto == bpf_htons(ETH_P_8021Q)) {
		struct vlan_tag *tag = l3;

		if ((void *)(tag + 1) > end)
			return XDP_PASS;
		proto = tag->proto;
		l3 = tag + 1;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = l3;

		mine = (void *)(ip + 1) <= end && ipv4_ours(ip, end);
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = l3;

		mine = (void *)(ip6 + 1) <= end && ipv6_ours(ip6, end);
	} else if (proto == bpf_htons(ETH_P_ARP)) {
		struct arp_eth_ipv4 *a = l3;

		mine = (void *)(a + 1) <= end && arp_ours(a);
	}
	if (!mine)
		return XDP_PASS;
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

/* only helpers open to any licence are called; the kernel wants a string */
char _license[] SEC("license") = "Dual BSD/GPL";
