/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Link faults for the af_xdp tests (test_perf_afxdp.py): the XDP program of
 * a net_af_xdp port (its xdp_prog devarg). It hands frames to the AF_XDP
 * socket of their queue, as DPDK's default program does, except that it
 *
 * - drops LOSS_PER_MILLE frames in 1000 (tc netem cannot do this here: the
 *   frames an AF_XDP socket sends skip the qdisc layer);
 * - corrupts CORRUPT_PER_MILLE RoCEv2 frames in 1000 whose UDP payload is
 *   at least CORRUPT_MIN_LEN bytes: it XORs 41 06 71 db 01 into the 5 bytes
 *   before the ICRC. That pattern is the reflected CRC-32 generator
 *   polynomial: the frame's ICRC stays right, so the transport accepts the
 *   frame and only an end-to-end check (--check) can see the damage.
 *
 * clang -O2 -g -target bpf -DLOSS_PER_MILLE=50 -c xdp_faults.bpf.c -o faults.o
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef LOSS_PER_MILLE
#define LOSS_PER_MILLE 0
#endif
#ifndef CORRUPT_PER_MILLE
#define CORRUPT_PER_MILLE 0
#endif
#define CORRUPT_MIN_LEN 64      /* UDP payload: BTH and more; leaves ACKs alone */
#define ROCEV2_PORT 4791
#define MAX_FRAME 16383

/* DPDK's af_xdp PMD puts its socket in the map of this name, at its queue */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, int);
	__type(value, int);
} xsks_map SEC(".maps");

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

SEC("xdp")
int
xdp_faults(struct xdp_md *ctx)
{
	if (LOSS_PER_MILLE > 0 && bpf_get_prandom_u32() % 1000 < LOSS_PER_MILLE)
		return XDP_DROP;
	if (CORRUPT_PER_MILLE > 0 && bpf_get_prandom_u32() % 1000 < CORRUPT_PER_MILLE)
		corrupt(ctx);
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

/* only helpers open to any licence are called; the kernel wants a string */
char _license[] SEC("license") = "Dual BSD/GPL";
