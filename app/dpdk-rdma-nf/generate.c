/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The peer's frames: IPv4/UDP to the discard port (9) of 10.99.1.<flow>,
 * each carrying its flow and sequence number and bytes that follow from
 * them (the payload from the flow), 128 to 256 bytes long. Whoever holds a
 * frame, or its first NF_RECORD bytes, can tell which it is and whether
 * every byte is right.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "nf.h"

#define GEN_MAGIC 0x44524E46u          /* "DRNF" */
#define GEN_MAX 256
#define OFF_IP 14
#define OFF_UDP (OFF_IP + 20)
#define OFF_PAY (OFF_UDP + 8)

static const uint8_t mac_gen[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t mac_nf[6] = { 0x02, 0, 0, 0, 0, 0x02 };

uint16_t
nf_frame_len(uint32_t flow, uint64_t seq)
{
	return (uint16_t)(128 + (seq * 37 + flow) % 129);
}

/*
 * 0, 1, ... 255, 0, 1, ...: a frame's payload is a slice of it, so that
 * making and checking a frame is a copy and a compare (the generator and
 * the sink must be cheaper than the NF they measure: usertools/dr-nf-bench.py).
 */
static uint8_t ramp[2 * 256];

static void __attribute__((constructor))
ramp_init(void)
{
	for (unsigned int i = 0; i < sizeof(ramp); i++)
		ramp[i] = (uint8_t)i;
}

/* Frame (@flow, @seq) as sent, into @f (GEN_MAX bytes); its length. */
static uint16_t
frame_build(uint8_t *f, uint32_t flow, uint64_t seq)
{
	uint16_t len = nf_frame_len(flow, seq);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + OFF_IP);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f + OFF_UDP);
	uint32_t magic = rte_cpu_to_be_32(GEN_MAGIC), fl = rte_cpu_to_be_32(flow);
	uint64_t sq = rte_cpu_to_be_64(seq);

	memset(f, 0, OFF_PAY);
	memcpy(f, mac_nf, 6);
	memcpy(f + 6, mac_gen, 6);
	f[12] = 0x08;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - OFF_IP));
	ip->packet_id = rte_cpu_to_be_16((uint16_t)seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0A630001);              /* 10.99.0.1 */
	ip->dst_addr = rte_cpu_to_be_32(0x0A630100 | (flow & 0xFF)); /* 10.99.1.<flow> */
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16((uint16_t)(1024 + flow));
	udp->dst_port = rte_cpu_to_be_16(9);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - OFF_UDP));
	memcpy(f + OFF_PAY, &magic, 4);
	memcpy(f + OFF_PAY + 4, &fl, 4);
	memcpy(f + OFF_PAY + 8, &sq, 8);
	/* byte i of the payload after the ids: (flow * 7 + i) mod 256, a slice of the ramp */
	memcpy(f + OFF_PAY + 16, ramp + ((flow * 7 + OFF_PAY + 16) & 0xFF), len - (OFF_PAY + 16));
	return len;
}

int
nf_frame_fill(struct rte_mbuf *m, uint32_t flow, uint64_t seq)
{
	uint8_t f[GEN_MAX];
	uint16_t len = frame_build(f, flow, seq);
	char *d = rte_pktmbuf_append(m, len);

	if (d == NULL)
		return -1;
	memcpy(d, f, len);
	return 0;
}

int
nf_frame_parse(const uint8_t *f, uint32_t len, uint32_t *flow, uint64_t *seq)
{
	uint32_t magic, fl;
	uint64_t sq;

	if (len < OFF_PAY + 16 || f[12] != 0x08 || f[13] != 0x00)
		return -1;
	memcpy(&magic, f + OFF_PAY, 4);
	memcpy(&fl, f + OFF_PAY + 4, 4);
	memcpy(&sq, f + OFF_PAY + 8, 8);
	if (rte_be_to_cpu_32(magic) != GEN_MAGIC)
		return -1;
	*flow = rte_be_to_cpu_32(fl);
	*seq = rte_be_to_cpu_64(sq);
	return 0;
}

bool
nf_frame_check(const uint8_t *f, uint32_t len, bool swapped)
{
	uint8_t want[GEN_MAX];
	uint32_t flow;
	uint64_t seq;

	if (nf_frame_parse(f, len, &flow, &seq) != 0 || len != nf_frame_len(flow, seq))
		return false;
	frame_build(want, flow, seq);
	if (swapped) {
		/* the NF swapped the MACs (l2fwd with MAC swap) */
		memcpy(want, mac_gen, 6);
		memcpy(want + 6, mac_nf, 6);
	}
	return memcmp(f, want, len) == 0;
}

void
nf_frame_head(uint32_t flow, uint64_t seq, uint8_t head[NF_RECORD])
{
	uint8_t f[GEN_MAX];
	uint16_t len = frame_build(f, flow, seq);

	memset(head, 0, NF_RECORD);
	memcpy(head, f, len < NF_RECORD ? len : NF_RECORD);
}
