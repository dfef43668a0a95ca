/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Parse of RoCEv2 frames: Ethernet [802.1Q] / IPv4|IPv6 / UDP 4791 / BTH ...
 * (IBA vol. 1 Annex A17.4). Every field is bounds-checked against the bytes
 * the frame really has before it is read; lengths come from the IP header.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "dr_icrc.h"
#include "dr_pkt.h"
#include "dr_pkt_express.h"

static const char *const dr_pkt_status_text[DR_PKT_STATUS_MAX] = {
	[DR_PKT_OK] = "ok",
	[DR_PKT_NOT_IP] = "not IP",
	[DR_PKT_NOT_UDP] = "not UDP",
	[DR_PKT_NOT_ROCE_PORT] = "not UDP port 4791",
	[DR_PKT_ERR_TRUNC_L2] = "truncated Ethernet header",
	[DR_PKT_ERR_TRUNC_L3] = "truncated IP header",
	[DR_PKT_ERR_IP_VERSION] = "IP version disagrees with EtherType",
	[DR_PKT_ERR_IP_HDR_LEN] = "IPv4 header length below 20",
	[DR_PKT_ERR_IP_LEN] = "IP length disagrees with frame or header",
	[DR_PKT_ERR_IP_CSUM] = "bad IPv4 header checksum",
	[DR_PKT_ERR_IP_FRAG] = "IP fragment",
	[DR_PKT_ERR_TRUNC_L4] = "truncated UDP header",
	[DR_PKT_ERR_UDP_LEN] = "UDP length disagrees with IP length",
	[DR_PKT_ERR_TRUNC_BTH] = "truncated BTH",
	[DR_PKT_ERR_TVER] = "bad BTH transport version",
	[DR_PKT_ERR_OPCODE] = "unknown opcode",
	[DR_PKT_ERR_TRUNC_EXT] = "truncated extension header",
	[DR_PKT_ERR_PAD] = "pad count exceeds payload",
	[DR_PKT_ERR_PAYLOAD_LEN] = "payload length not allowed for opcode",
	[DR_PKT_ERR_ICRC] = "bad ICRC",
};

const char *
dr_pkt_status_str(enum dr_pkt_status st)
{
	if ((unsigned int)st >= DR_PKT_STATUS_MAX)
		return "invalid status";
	return dr_pkt_status_text[st];
}

static inline uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

/*
 * Is this RoCEv2 at all? Decided from the bytes the frame really has, before
 * any length or checksum is trusted, so that other traffic (a fragment, a
 * frame cut by a capture's snap length) is never reported as malformed
 * RoCEv2. The UDP header must follow the IP header @l4 bytes into the frame.
 */
static enum dr_pkt_status
classify_udp(const uint8_t *f, uint32_t total, uint32_t l4, uint8_t proto, struct dr_pkt_info *pi)
{
	if (proto != IPPROTO_UDP)
		return DR_PKT_NOT_UDP;
	pi->l4_off = (uint16_t)l4;
	/* source and destination port are the first four bytes of the UDP header */
	if (total < l4 + 4)
		return DR_PKT_ERR_TRUNC_L4;
	if (rd16(f + l4 + 2) != DR_ROCEV2_UDP_PORT)
		return DR_PKT_NOT_ROCE_PORT;
	pi->udp_sport = rd16(f + l4);
	return DR_PKT_OK;
}

static enum dr_pkt_status
parse_ipv4(const uint8_t *f, uint32_t total, struct dr_pkt_info *pi, uint32_t *ip_end)
{
	const uint8_t *ip = f + pi->l3_off;
	uint32_t off = pi->l3_off, ihl, tot;
	enum dr_pkt_status st;
	uint16_t frag;

	pi->ip_ver = 4;
	if (total < off + 20)
		return DR_PKT_ERR_TRUNC_L3;
	if ((ip[0] >> 4) != 4)
		return DR_PKT_ERR_IP_VERSION;
	ihl = (ip[0] & 0xFu) * 4;
	if (ihl < 20)
		return DR_PKT_ERR_IP_HDR_LEN;
	if (total < off + ihl)
		return DR_PKT_ERR_TRUNC_L3;
	pi->tclass = ip[1];
	dr_gid_from_ipv4(pi->sgid, 0);
	memcpy(pi->sgid + 12, ip + 12, 4);
	dr_gid_from_ipv4(pi->dgid, 0);
	memcpy(pi->dgid + 12, ip + 16, 4);
	frag = rd16(ip + 6);
	/* a later fragment carries no UDP header: whatever it is, it is not a RoCEv2 packet */
	if (ip[9] == IPPROTO_UDP && (frag & RTE_IPV4_HDR_OFFSET_MASK))
		return DR_PKT_NOT_ROCE_PORT;
	st = classify_udp(f, total, off + ihl, ip[9], pi);
	if (st != DR_PKT_OK)
		return st;
	/* RoCEv2 from here on: every length and checksum must hold */
	tot = rd16(ip + 2);
	if (tot < ihl + sizeof(struct rte_udp_hdr) || off + tot > total)
		return DR_PKT_ERR_IP_LEN;
	/* RoCEv2 packets are never fragmented (A17.4.3) */
	if (frag & RTE_IPV4_HDR_MF_FLAG)
		return DR_PKT_ERR_IP_FRAG;
	if (rte_raw_cksum(ip, ihl) != 0xFFFF)
		return DR_PKT_ERR_IP_CSUM;
	*ip_end = off + tot;
	return DR_PKT_OK;
}

static enum dr_pkt_status
parse_ipv6(const uint8_t *f, uint32_t total, struct dr_pkt_info *pi, uint32_t *ip_end)
{
	const uint8_t *ip = f + pi->l3_off;
	uint32_t off = pi->l3_off, plen;
	enum dr_pkt_status st;

	pi->ip_ver = 6;
	if (total < off + 40)
		return DR_PKT_ERR_TRUNC_L3;
	if ((ip[0] >> 4) != 6)
		return DR_PKT_ERR_IP_VERSION;
	pi->tclass = (uint8_t)((ip[0] & 0xFu) << 4 | ip[1] >> 4);
	memcpy(pi->sgid, ip + 8, 16);
	memcpy(pi->dgid, ip + 24, 16);
	/* extension headers are not used by RoCEv2 (A17.4.5.2): UDP must be the next header */
	st = classify_udp(f, total, off + 40, ip[6], pi);
	if (st != DR_PKT_OK)
		return st;
	plen = rd16(ip + 4);
	if (plen < sizeof(struct rte_udp_hdr) || off + 40 + plen > total)
		return DR_PKT_ERR_IP_LEN;
	*ip_end = off + 40 + plen;
	return DR_PKT_OK;
}

/* BTH, extension headers, pad and payload of a UDP datagram ending at @ip_end. */
static enum dr_pkt_status
parse_transport(const uint8_t *f, uint32_t avail, uint32_t ip_end, struct dr_pkt_info *pi)
{
	const struct dr_opcode_info *info;
	uint32_t off = pi->bth_off, area;

	if (ip_end - off < DR_BTH_BYTES + DR_ICRC_BYTES)
		return DR_PKT_ERR_TRUNC_BTH;
	pi->hdr = (uint8_t *)(uintptr_t)(f + off);
	pi->opcode = dr_bth_opcode(dr_pkt_bth(pi));
	if (dr_bth_tver(dr_pkt_bth(pi)) != DR_BTH_TVER)
		return DR_PKT_ERR_TVER;
	info = &dr_opcode_table[pi->opcode];
	if (info->name == NULL)
		return DR_PKT_ERR_OPCODE;
	pi->mask = info->mask;
	if (ip_end - off < (uint32_t)info->length + DR_ICRC_BYTES || off + info->length > avail)
		return DR_PKT_ERR_TRUNC_EXT;

	area = ip_end - off - info->length - DR_ICRC_BYTES;
	pi->pad = dr_bth_pad(dr_pkt_bth(pi));
	if (pi->pad > area)
		return DR_PKT_ERR_PAD;
	pi->pay_off = off + info->length;
	pi->paylen = area - pi->pad;
	/* ACKs and requests without data carry no payload (IBA 9.4) */
	if (!(info->mask & DR_OPF_PAYLOAD) && area != 0)
		return DR_PKT_ERR_PAYLOAD_LEN;
	/* a CNP carries 16 reserved bytes (A17.9.3) */
	if ((info->mask & DR_OPF_CNP) && area != DR_CNP_PAYLOAD_BYTES)
		return DR_PKT_ERR_PAYLOAD_LEN;
	/* dpdk-rdma's SACK carries exactly its map (struct dr_sack) */
	if (pi->opcode == DR_OPCODE_SACK && area != DR_SACK_PAYLOAD_BYTES)
		return DR_PKT_ERR_PAYLOAD_LEN;
	/* an ATOMIC WRITE carries exactly the 8 bytes it places (IBA 1.5, 9.4.10) */
	if ((info->mask & DR_OPF_ATOMIC_WRITE) && area != sizeof(uint64_t))
		return DR_PKT_ERR_PAYLOAD_LEN;
	return DR_PKT_OK;
}

/*
 * @f holds @avail contiguous bytes of a frame of @total bytes
 * (avail == total, or avail >= every header a RoCEv2 frame can have).
 */
static enum dr_pkt_status
parse_frame(const uint8_t *f, uint32_t avail, uint32_t total, struct dr_pkt_info *pi)
{
	uint32_t off = RTE_ETHER_HDR_LEN, ip_end = 0, udp_len;
	enum dr_pkt_status st;
	uint16_t etype;

	pi->frame = f;
	if (total < RTE_ETHER_HDR_LEN)
		return DR_PKT_ERR_TRUNC_L2;
	etype = rd16(f + 12);
	pi->has_vlan = 0;
	pi->vlan_tci = 0;
	if (etype == RTE_ETHER_TYPE_VLAN) {
		if (total < RTE_ETHER_HDR_LEN + 4)
			return DR_PKT_ERR_TRUNC_L2;
		pi->has_vlan = 1;
		pi->vlan_tci = rd16(f + 14);
		etype = rd16(f + 16);
		off += 4;
	}
	pi->l3_off = (uint16_t)off;

	if (etype == RTE_ETHER_TYPE_IPV4)
		st = parse_ipv4(f, total, pi, &ip_end);
	else if (etype == RTE_ETHER_TYPE_IPV6)
		st = parse_ipv6(f, total, pi, &ip_end);
	else
		st = DR_PKT_NOT_IP;
	if (st != DR_PKT_OK)
		return st;

	udp_len = rd16(f + pi->l4_off + 4);
	if (udp_len != ip_end - pi->l4_off)
		return DR_PKT_ERR_UDP_LEN;
	pi->bth_off = (uint16_t)(pi->l4_off + sizeof(struct rte_udp_hdr));
	pi->frame_len = ip_end;
	return parse_transport(f, avail, ip_end, pi);
}

enum dr_pkt_status
dr_pkt_parse_buf(const void *frame, uint32_t len, struct dr_pkt_info *pi)
{
	return parse_frame(frame, len, len, pi);
}

enum dr_pkt_status
dr_pkt_parse(const struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	uint32_t want = RTE_MIN(m->pkt_len, (uint32_t)DR_PKT_MAX_HDR);
	const uint8_t *f;

	if (m->data_len >= want) {
		f = rte_pktmbuf_mtod(m, const uint8_t *);
		return parse_frame(f, m->data_len, m->pkt_len, pi);
	}
	/* the headers straddle segments: parse a private copy of them */
	f = rte_pktmbuf_read(m, 0, want, pi->raw);
	if (f == NULL)
		return DR_PKT_ERR_TRUNC_L2;
	return parse_frame(f, want, m->pkt_len, pi);
}

static enum dr_pkt_status
icrc_compare(uint32_t computed, const uint8_t *wire)
{
	uint32_t got;

	memcpy(&got, wire, sizeof(got));
	return rte_le_to_cpu_32(got) == computed ? DR_PKT_OK : DR_PKT_ERR_ICRC;
}

enum dr_pkt_status
dr_pkt_check_icrc_buf(const void *frame, const struct dr_pkt_info *pi)
{
	const uint8_t *f = frame;

	return icrc_compare(dr_icrc_compute_buf(frame, pi), f + pi->frame_len - DR_ICRC_BYTES);
}

enum dr_pkt_status
dr_pkt_check_icrc(const struct rte_mbuf *m, const struct dr_pkt_info *pi)
{
	uint8_t buf[DR_ICRC_BYTES];
	const uint8_t *wire = rte_pktmbuf_read(m, pi->frame_len - DR_ICRC_BYTES, DR_ICRC_BYTES, buf);

	if (wire == NULL)
		return DR_PKT_ERR_ICRC;
	return icrc_compare(dr_pkt_flat_v4(m, pi) ? dr_pkt_flat_v4_icrc(pi) : dr_icrc_compute(m, pi), wire);
}

enum dr_pkt_status
dr_pkt_copy_check_icrc(const struct rte_mbuf *m, const struct dr_pkt_info *pi, void *dst)
{
	uint8_t buf[DR_ICRC_BYTES];
	const uint8_t *wire = rte_pktmbuf_read(m, pi->frame_len - DR_ICRC_BYTES, DR_ICRC_BYTES, buf);

	if (wire == NULL)
		return DR_PKT_ERR_ICRC;
	return icrc_compare(dr_icrc_compute_copy(m, pi, dst), wire);
}
