/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Link faults for the af_xdp tests (test_perf_afxdp.py): the XDP program of
 * a net_af_xdp port (its xdp_prog devarg). It hands frames to the AF_XDP
 * socket of their queue, as DPDK's default program does, except that it
 *
 * - drops LOSS_PER_MILLE frames in 1000 (tc netem cannot do this here: the
 *   frames an AF_XDP socket sends skip the qdisc layer); with LOSS_ROCE_ONLY
 *   only RoCEv2 frames (UDP port 4791 over IPv4 or IPv6) are dropped, so
 *   ARP and ND get through (the rxe interop test, test_loss_rxe.py), and
 *   with LOSS_KEEP_ACKS also RC ACKs (BTH opcode 0x11): ibv_rc_pingpong
 *   has no closing handshake, so a lost last ACK leaves its sender
 *   retrying against a QP its peer has destroyed;
 * - corrupts CORRUPT_PER_MILLE RoCEv2 frames in 1000 whose UDP payload is
 *   at least CORRUPT_MIN_LEN bytes: it XORs 41 06 71 db 01 into the 5 bytes
 *   before the ICRC. That pattern is the reflected CRC-32 generator
 *   polynomial: the frame's ICRC stays right, so the transport accepts the
 *   frame and only an end-to-end check (--check) can see the damage.
 *
 * clang -O2 -g -target bpf -DLOSS_PER_MILLE=50 [-DLOSS_ROCE_ONLY=1 [-DLOSS_KEEP_ACKS=1]] -c xdp_faults.bpf.c -o faults.o
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef LOSS_PER_MILLE
#define LOSS_PER_MILLE 0
#endif
#ifndef LOSS_ROCE_ONLY
#define LOSS_ROCE_ONLY 0
#endif
#ifndef LOSS_KEEP_ACKS
#define LOSS_KEEP_ACKS 0
#endif
#define BTH_OP_RC_ACK 0x11
#ifndef CORRUPT_PER_MILLE
#define CORRUPT_PER_MILLE 0
#endif
#define CORRUPT_MIN_LEN 64      /* UDP payload: BTH and more; leaves ACKs alone */
#define ROCEV2_PORT 4791
#define MAX_FRAME 16383

#include "../../drivers/ethdev/bpf/dr_xdp_xsks.h"   /* xsks_map, the PMD's */

static __always_inline void
corrupt(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	unsigned char *p;
	__u32 off;

	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) || ip->ihl != 5 ||
	    ip->protocol != IPPROTO_UDP || udp->dest != bpf_htons(ROCEV2_PORT))
		return;
	if (bpf_ntohs(udp->len) < sizeof(*udp) + CORRUPT_MIN_LEN)
		return;
	/* the 5 bytes before the ICRC: udp payload end - 4 - 5 */
	off = sizeof(*eth) + sizeof(*ip) + bpf_ntohs(udp->len) - 9;
	if (off > MAX_FRAME)
		return;
	p = data + off;
	if ((void *)(p + 5) > end)
		return;
	p[0] ^= 0x41;
	p[1] ^= 0x06;
	p[2] ^= 0x71;
	p[3] ^= 0xdb;
	p[4] ^= 0x01;
}

/* The BTH opcode of UDP to port 4791 over IPv4 (no options) or IPv6 (no
 * extension headers), or -1 for another frame. */
static __always_inline int
roce_opcode(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct udphdr *udp;

	if ((void *)(eth + 1) > end)
		return -1;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end || ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
			return -1;
		udp = (void *)(ip + 1);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return -1;
		udp = (void *)(ip6 + 1);
	} else {
		return -1;
	}
	if ((void *)(udp + 1) + 1 > end || udp->dest != bpf_htons(ROCEV2_PORT))
		return -1;
	return *(unsigned char *)(udp + 1);
}

static __always_inline int
may_lose(struct xdp_md *ctx)
{
	int op;

	if (!LOSS_ROCE_ONLY && !LOSS_KEEP_ACKS)
		return 1;
	op = roce_opcode(ctx);
	return op >= 0 && !(LOSS_KEEP_ACKS && op == BTH_OP_RC_ACK);
}

SEC("xdp.frags")    /* multi-buffer frames too (the xsk backend at MTU 9000) */
int
xdp_faults(struct xdp_md *ctx)
{
	if (LOSS_PER_MILLE > 0 && may_lose(ctx) &&
	    bpf_get_prandom_u32() % 1000 < LOSS_PER_MILLE)
		return XDP_DROP;
	if (CORRUPT_PER_MILLE > 0 && bpf_get_prandom_u32() % 1000 < CORRUPT_PER_MILLE)
		corrupt(ctx);
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

/* only helpers open to any licence are called; the kernel wants a string */
char _license[] SEC("license") = "Dual BSD/GPL";
