/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_PKT_EXPRESS_H
#define DR_PKT_EXPRESS_H

/*
 * The express path's view of a received frame (doc/guides/speed.rst, "The
 * express path"): the common RoCEv2 frame - untagged Ethernet, IPv4 without
 * options, not fragmented, UDP to port 4791, in one segment - read at fixed
 * offsets into a few fields, with no struct dr_pkt_info and no GIDs built.
 *
 * dr_pkt_xp_parse() takes a frame only where the general parse
 * (dr_pkt_parse.c) takes it too and finds the same lengths: the same
 * IPv4 header checksum, IP and UDP lengths, BTH transport version and
 * partition. Anything else - a VLAN tag, IPv6, IP options, a chain, a
 * length or checksum the general parse refuses - is the general path's,
 * which classifies and counts it. The extension headers of the opcode are
 * the caller's to check (it takes only a few opcodes).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dr_crc32_clmul.h"
#include "dr_hdr.h"
#include "dr_icrc.h"
#include "dr_pkt.h"

/* Ethernet, IPv4 (IHL 5), UDP: where the BTH starts in an express frame. */
#define DR_XP_L3_OFF RTE_ETHER_HDR_LEN
#define DR_XP_BTH_OFF (RTE_ETHER_HDR_LEN + 20 + 8)

struct dr_pkt_xp {
	const uint8_t *frame;   /* the Ethernet header */
	const uint8_t *bth;     /* frame + DR_XP_BTH_OFF */
	uint32_t area;          /* bytes between the BTH and the ICRC: extension headers, payload, pad */
	uint32_t qpn;           /* BTH DestQP */
	uint32_t psn;           /* BTH PSN */
	uint8_t opcode;
	uint8_t pad;            /* BTH PadCnt */
	uint8_t tos;            /* IPv4 TOS: DSCP << 2 | ECN */
};

/* Four bytes at @p as a big-endian number. */
static inline uint32_t
dr_xp_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_32(v);
}

/* The IPv4 header's one's-complement sum is all ones (what rte_raw_cksum() == 0xFFFF checks). */
static inline bool
dr_xp_ipv4_sum_ok(const uint8_t *ip)
{
	uint32_t w[5];
	uint64_t s;

	memcpy(w, ip, sizeof(w));
	s = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	s = (s & 0xFFFFFFFFu) + (s >> 32);
	s = (s & 0xFFFFu) + (s >> 16);
	s = (s & 0xFFFFu) + (s >> 16);
	s = (s & 0xFFFFu) + (s >> 16);
	return s == 0xFFFFu;
}

/*
 * Read @m as an express frame into @x: true when it is one (the general
 * parse would take it, with these lengths), false when it is the general
 * path's.
 */
static inline bool
dr_pkt_xp_parse(const struct rte_mbuf *m, struct dr_pkt_xp *x)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = f + DR_XP_L3_OFF, *bth = f + DR_XP_BTH_OFF;
	uint32_t tot;

	if (unlikely(m->nb_segs != 1 || m->data_len < DR_XP_BTH_OFF + DR_BTH_BYTES + DR_ICRC_BYTES))
		return false;
	/* EtherType IPv4, version 4 with IHL 5 (bytes 12-14) */
	if ((dr_xp_rd32(f + 12) & 0xFFFFFF00u) != ((uint32_t)RTE_ETHER_TYPE_IPV4 << 16 | 0x45u << 8))
		return false;
	/* neither MF nor a fragment offset, UDP (IP bytes 6-9: flags and offset, TTL, protocol) */
	if ((dr_xp_rd32(ip + 6) & 0x3FFF00FFu) != IPPROTO_UDP)
		return false;
	tot = dr_xp_rd32(ip) & 0xFFFFu;
	/* UDP to 4791, its length the IP payload's (IP bytes 22-25) */
	if (tot < 20 + 8 + DR_BTH_BYTES + DR_ICRC_BYTES || DR_XP_L3_OFF + tot > m->data_len ||
	    dr_xp_rd32(ip + 22) != ((uint32_t)DR_ROCEV2_UDP_PORT << 16 | (tot - 20)) || !dr_xp_ipv4_sum_ok(ip))
		return false;
	/* BTH: transport version 0, the default partition (membership bit ignored; IBA 9.6.1.1) */
	if ((dr_xp_rd32(bth) & 0x000F7FFFu) != (DR_DEFAULT_PKEY & 0x7FFFu))
		return false;
	x->frame = f;
	x->bth = bth;
	x->area = tot - 20 - 8 - DR_BTH_BYTES - DR_ICRC_BYTES;
	x->opcode = bth[0];
	x->pad = (bth[1] >> 4) & 0x3u;
	x->qpn = dr_xp_rd32(bth + 4) & 0xFFFFFFu;
	x->psn = dr_xp_rd32(bth + 8) & 0xFFFFFFu;
	x->tos = ip[1];
	return true;
}

/*
 * A frame's IPv4 header from template @t (at @ip, copied): its total length
 * @tot and identification @id, host order, and the header checksum that
 * follows from the template's sum of the fixed fields (dr_pkt_tmpl_init()).
 */
static inline void
dr_pkt_tmpl_ipv4_set(uint8_t *ip, const struct dr_pkt_tmpl *t, uint16_t tot, uint16_t id)
{
	uint16_t be_tot = rte_cpu_to_be_16(tot), be_id = rte_cpu_to_be_16(id), ck;
	uint32_t sum = t->ip_sum + be_tot + be_id;

	memcpy(ip + 2, &be_tot, 2);
	memcpy(ip + 4, &be_id, 2);
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	ck = (uint16_t)~sum;
	memcpy(ip + 10, &ck, 2);
}

/* BTH.AckReq and BTH.SE of an express frame. */
static inline bool dr_xp_ackreq(const struct dr_pkt_xp *x) { return x->bth[8] & 0x80u; }
static inline bool dr_xp_se(const struct dr_pkt_xp *x) { return x->bth[1] & 0x80u; }

/* bytes of an express frame's masked pseudo-header: 8 for the LRH, IPv4, UDP, BTH */
#define DR_ICRC_XP_HDR 48

/* The OR mask of the express pseudo-header (its variant fields set to ones, A17.3.3). */
extern const uint8_t dr_icrc_xp_mask[DR_ICRC_XP_HDR];

/* dr_icrc_flat_v4() of any @n (the general case, out of line). */
uint32_t dr_icrc_flat_v4_any(const uint8_t *frame, uint32_t n);

/*
 * The ICRC (IBA 7.8.1, Annex A17.3.3) of a frame laid out as an express
 * frame - untagged Ethernet, IPv4 with IHL 5, UDP, BTH - contiguous at
 * @frame, with @n bytes between the BTH and the ICRC: the masked
 * pseudo-header folded from the frame's own bytes in registers, then the
 * rest, one reduction. The value dr_icrc_compute() gives such a frame.
 * Inline for the common frame (a 64-byte WRITE or SEND: whole 16-byte
 * blocks after the BTH, fewer than 256 bytes): one call into the fold.
 */
static inline uint32_t
dr_icrc_flat_v4(const uint8_t *frame, uint32_t n)
{
	if (likely(dr_crc32_folding && (n & ~(uint32_t)0xF0) == 0))
		return ~(dr_crc32_folding256 ?
			 dr_crc32_clmul256_masked48(DR_CRC32_INIT, frame + DR_XP_L3_OFF - 8, dr_icrc_xp_mask,
						    frame + DR_XP_BTH_OFF + DR_BTH_BYTES, n) :
			 dr_crc32_clmul_masked48(DR_CRC32_INIT, frame + DR_XP_L3_OFF - 8, dr_icrc_xp_mask,
						 frame + DR_XP_BTH_OFF + DR_BTH_BYTES, n));
	return dr_icrc_flat_v4_any(frame, n);
}

/* A frame dr_icrc_flat_v4() takes: one segment from its start, untagged IPv4 without options. */
static inline bool
dr_pkt_flat_v4(const struct rte_mbuf *m, const struct dr_pkt_info *pi)
{
	return m->nb_segs == 1 && pi->ip_ver == 4 && pi->l3_off == DR_XP_L3_OFF && pi->bth_off == DR_XP_BTH_OFF &&
	       pi->frame == rte_pktmbuf_mtod(m, const uint8_t *) && pi->frame_len <= m->data_len;
}

/* The ICRC of a frame dr_pkt_flat_v4() takes (its @pi). */
static inline uint32_t
dr_pkt_flat_v4_icrc(const struct dr_pkt_info *pi)
{
	return dr_icrc_flat_v4(pi->frame, pi->frame_len - DR_XP_BTH_OFF - DR_BTH_BYTES - DR_ICRC_BYTES);
}

/* The ICRC of an express frame is right (IBA 7.8.1, Annex A17.3.3): dr_icrc_flat_v4() of its area. */
static inline bool
dr_icrc_xp_ok(const struct dr_pkt_xp *x)
{
	uint32_t got;

	memcpy(&got, x->bth + DR_BTH_BYTES + x->area, sizeof(got));
	return rte_le_to_cpu_32(got) == dr_icrc_flat_v4(x->frame, x->area);
}

#endif /* DR_PKT_EXPRESS_H */
