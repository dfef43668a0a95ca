/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_PKT_H
#define DR_PKT_H

/**
 * @file
 * RoCEv2 frames in rte_mbufs: parse and build of
 * Ethernet [802.1Q] / IPv4 or IPv6 / UDP 4791 / BTH [ext headers] payload pad ICRC
 * (IBA vol. 1 Annex A17), single and multi-segment.
 *
 * Parsing trusts nothing: every length is checked against the frame before it
 * is read, each malformed input is reported with its own enum dr_pkt_status,
 * and lengths come from the IP header, not from the frame (Ethernet padding
 * after a short frame is ignored; a 58-byte zero-length SEND is legal).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dr_hdr.h"
#include "dr_opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name ECN codepoints of the IP traffic class's two low bits (RFC 3168 section 5) */
/**@{*/
#define DR_ECN_MASK    0x3u
#define DR_ECN_NOT_ECT 0x0u  /**< not ECN-capable */
#define DR_ECN_ECT1    0x1u  /**< ECN-capable transport (1) */
#define DR_ECN_ECT0    0x2u  /**< ECN-capable transport (0): what RoCEv2 NICs send */
#define DR_ECN_CE      0x3u  /**< congestion experienced (set by a switch) */
/**@}*/

/** Largest Ethernet + 802.1Q + IPv4-with-options + UDP + transport header region. */
#define DR_PKT_MAX_HDR 192

/**
 * Outcome of parsing a frame, in three groups, in the order of the checks:
 * not RoCEv2 at all; broken before its UDP destination port can be read (so
 * not known to be RoCEv2); and malformed RoCEv2 (port 4791 seen). Whether a
 * frame is RoCEv2 is decided from the bytes the frame has before any length
 * or checksum is trusted, so other traffic (a fragment, a frame cut by a
 * capture's snap length) is never reported as malformed RoCEv2.
 */
enum dr_pkt_status {
	DR_PKT_OK = 0,             /**< a well-formed RoCEv2 packet */
	/* not RoCEv2: hand to other protocol handlers (ARP, ND, ...) */
	DR_PKT_NOT_IP,             /**< EtherType is neither IPv4 nor IPv6 */
	DR_PKT_NOT_UDP,            /**< IP protocol / next header is not UDP */
	DR_PKT_NOT_ROCE_PORT,      /**< UDP destination port is not 4791, or a later IPv4 fragment */
	DR_PKT_NOT_ROCE_MAX = DR_PKT_NOT_ROCE_PORT,
	/* malformed before the UDP port could be read */
	DR_PKT_ERR_TRUNC_L2,       /**< shorter than the Ethernet (+802.1Q) header */
	DR_PKT_ERR_TRUNC_L3,       /**< shorter than the IP header */
	DR_PKT_ERR_IP_VERSION,     /**< IP version disagrees with the EtherType */
	DR_PKT_ERR_IP_HDR_LEN,     /**< IPv4 IHL below 5 */
	DR_PKT_ERR_TRUNC_L4,       /**< frame ends before the UDP destination port */
	/* malformed RoCEv2 */
	DR_PKT_ERR_IP_LEN,         /**< IP length below its header + UDP, or beyond the frame */
	DR_PKT_ERR_IP_FRAG,        /**< a first fragment (RoCEv2 is never fragmented, A17.4.3) */
	DR_PKT_ERR_IP_CSUM,        /**< IPv4 header checksum is wrong */
	DR_PKT_ERR_UDP_LEN,        /**< UDP length disagrees with the IP payload length */
	DR_PKT_ERR_TRUNC_BTH,      /**< UDP payload shorter than BTH + ICRC */
	DR_PKT_ERR_TVER,           /**< BTH.TVer is not 0 (IBA 9.2.6) */
	DR_PKT_ERR_OPCODE,         /**< opcode undefined or unsupported (RD, reserved) */
	DR_PKT_ERR_TRUNC_EXT,      /**< extension headers run past the end of the packet */
	DR_PKT_ERR_PAD,            /**< pad count larger than the payload area */
	DR_PKT_ERR_PAYLOAD_LEN,    /**< payload where the opcode has none, or of the wrong size */
	DR_PKT_ERR_ICRC,           /**< ICRC does not match (IBA 7.8.1, A17.3.3) */
	DR_PKT_STATUS_MAX,
};

/** First status that implies UDP destination port 4791 was seen. */
#define DR_PKT_ROCE_ERR_MIN DR_PKT_ERR_IP_LEN

/** Short text of a status ("ok", "truncated BTH", ...). */
const char *dr_pkt_status_str(enum dr_pkt_status st);

/** True when @p st says the frame is malformed (RoCEv2 or not yet known). */
static inline bool
dr_pkt_status_is_error(enum dr_pkt_status st)
{
	return st > DR_PKT_NOT_ROCE_MAX;
}

/** True when @p st says the frame is RoCEv2 (UDP port 4791), well-formed or not. */
static inline bool
dr_pkt_status_is_roce(enum dr_pkt_status st)
{
	return st == DR_PKT_OK || st >= DR_PKT_ROCE_ERR_MIN;
}

/**
 * A parsed (or being built) RoCEv2 packet. Offsets are from the start of the
 * frame. Header pointers point into the mbuf's first segment when the whole
 * header region is there, else into @c raw, a private copy: a copy of the
 * struct made by assignment keeps pointing at the original's @c raw.
 *
 * After a parse that did not return DR_PKT_OK, fields are filled as far as
 * the checks got: @c frame always; @c has_vlan, @c vlan_tci, @c l3_off
 * unless DR_PKT_ERR_TRUNC_L2; @c ip_ver from DR_PKT_ERR_TRUNC_L3 on (not for
 * DR_PKT_NOT_IP); @c sgid, @c dgid and @c tclass from DR_PKT_NOT_UDP on (the IP header is
 * present); @c l4_off and @c udp_sport once the port was seen (every status
 * dr_pkt_status_is_roce() accepts); @c bth_off and @c frame_len from
 * DR_PKT_ERR_TRUNC_BTH on; @c hdr and @c opcode from DR_PKT_ERR_TVER on;
 * @c mask from DR_PKT_ERR_TRUNC_EXT on; @c pad from DR_PKT_ERR_PAD on;
 * @c pay_off and @c paylen with DR_PKT_ERR_PAYLOAD_LEN and DR_PKT_ERR_ICRC.
 */
struct dr_pkt_info {
	const uint8_t *frame;   /**< start of the frame's header region */
	uint8_t *hdr;           /**< the BTH */
	uint32_t mask;          /**< dr_opcode_table[opcode].mask */
	uint8_t opcode;         /**< BTH.OpCode */
	uint8_t pad;            /**< BTH.PadCnt */
	uint8_t ip_ver;         /**< 4 or 6 */
	uint8_t has_vlan;       /**< 1 when an 802.1Q tag is present */
	uint16_t vlan_tci;      /**< the tag's TCI, host order */
	uint8_t tclass;         /**< IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN (DR_ECN_*) */
	uint16_t l3_off;        /**< IP header */
	uint16_t l4_off;        /**< UDP header */
	uint16_t bth_off;       /**< BTH */
	uint16_t udp_sport;     /**< UDP source port, host order */
	uint32_t pay_off;       /**< first payload byte */
	uint32_t paylen;        /**< payload bytes, pad and ICRC excluded */
	uint32_t frame_len;     /**< bytes up to the end of the ICRC (IP length + l3_off) */
	uint8_t sgid[16];       /**< source address as a GID (IPv4-mapped for IPv4) */
	uint8_t dgid[16];       /**< destination address as a GID */
	uint8_t raw[DR_PKT_MAX_HDR]; /**< header copy when the mbuf splits the headers */
};

/** Pointer to header @p t of @p pi (valid only when the opcode carries it). */
static inline void *
dr_pkt_hdr(const struct dr_pkt_info *pi, enum dr_hdr_type t)
{
	return pi->hdr + dr_opcode_table[pi->opcode].offset[t];
}

/** @name Typed header pointers of a packet */
/**@{*/
static inline struct dr_bth *dr_pkt_bth(const struct dr_pkt_info *pi) { return (struct dr_bth *)pi->hdr; }
static inline struct dr_deth *dr_pkt_deth(const struct dr_pkt_info *pi) { return (struct dr_deth *)dr_pkt_hdr(pi, DR_HDR_DETH); }
static inline struct dr_rdeth *dr_pkt_rdeth(const struct dr_pkt_info *pi) { return (struct dr_rdeth *)dr_pkt_hdr(pi, DR_HDR_RDETH); }
static inline struct dr_xrceth *dr_pkt_xrceth(const struct dr_pkt_info *pi) { return (struct dr_xrceth *)dr_pkt_hdr(pi, DR_HDR_XRCETH); }
static inline struct dr_feth *dr_pkt_feth(const struct dr_pkt_info *pi) { return (struct dr_feth *)dr_pkt_hdr(pi, DR_HDR_FETH); }
static inline struct dr_reth *dr_pkt_reth(const struct dr_pkt_info *pi) { return (struct dr_reth *)dr_pkt_hdr(pi, DR_HDR_RETH); }
static inline struct dr_atmeth *dr_pkt_atmeth(const struct dr_pkt_info *pi) { return (struct dr_atmeth *)dr_pkt_hdr(pi, DR_HDR_ATMETH); }
static inline struct dr_aeth *dr_pkt_aeth(const struct dr_pkt_info *pi) { return (struct dr_aeth *)dr_pkt_hdr(pi, DR_HDR_AETH); }
static inline struct dr_atmack *dr_pkt_atmack(const struct dr_pkt_info *pi) { return (struct dr_atmack *)dr_pkt_hdr(pi, DR_HDR_ATMACK); }
static inline struct dr_immdt *dr_pkt_immdt(const struct dr_pkt_info *pi) { return (struct dr_immdt *)dr_pkt_hdr(pi, DR_HDR_IMMDT); }
static inline struct dr_ieth *dr_pkt_ieth(const struct dr_pkt_info *pi) { return (struct dr_ieth *)dr_pkt_hdr(pi, DR_HDR_IETH); }
/**@}*/

/**
 * Parse a frame held in @p m (one or more segments).
 *
 * Fills @p pi and returns DR_PKT_OK, a DR_PKT_NOT_* value for frames that
 * are not RoCEv2, or a DR_PKT_ERR_* reason. Reads nothing outside the mbuf
 * chain. Does not check the ICRC: see dr_pkt_check_icrc().
 */
enum dr_pkt_status dr_pkt_parse(const struct rte_mbuf *m, struct dr_pkt_info *pi);

/**
 * Parse a contiguous frame of @p len bytes at @p frame (same rules as
 * dr_pkt_parse()). @p pi points into @p frame afterwards.
 */
enum dr_pkt_status dr_pkt_parse_buf(const void *frame, uint32_t len, struct dr_pkt_info *pi);

/**
 * Check the ICRC of a frame parsed with dr_pkt_parse().
 * @return DR_PKT_OK or DR_PKT_ERR_ICRC.
 */
enum dr_pkt_status dr_pkt_check_icrc(const struct rte_mbuf *m, const struct dr_pkt_info *pi);

/** As dr_pkt_check_icrc(), for a contiguous frame parsed with dr_pkt_parse_buf(). */
enum dr_pkt_status dr_pkt_check_icrc_buf(const void *frame, const struct dr_pkt_info *pi);

/**
 * dr_pkt_check_icrc() that copies the payload (@p pi->paylen bytes) to
 * @p dst in the same pass over it: a receiver places and verifies with one
 * read of the data instead of two. The bytes are copied whatever the
 * verdict: on DR_PKT_ERR_ICRC @p dst holds damaged data, so a caller only
 * copies where a valid packet would have put the same bytes (its own
 * expected place, rewritten when the packet is sent again).
 * @return DR_PKT_OK or DR_PKT_ERR_ICRC.
 */
enum dr_pkt_status dr_pkt_copy_check_icrc(const struct rte_mbuf *m, const struct dr_pkt_info *pi, void *dst);

/** Where a packet goes: everything below the transport, fixed per QP/AH. */
struct dr_pkt_route {
	struct rte_ether_addr dmac;  /**< destination MAC */
	struct rte_ether_addr smac;  /**< source MAC */
	uint8_t has_vlan;            /**< insert an 802.1Q tag */
	uint16_t vlan_tci;           /**< its TCI (PCP, DEI, VID), host order */
	uint8_t ip_ver;              /**< 4 or 6 */
	uint8_t sgid[16];            /**< source GID (IPv4-mapped for IPv4) */
	uint8_t dgid[16];            /**< destination GID */
	uint8_t tclass;              /**< IPv4 TOS / IPv6 traffic class (DSCP | ECN) */
	uint8_t hop_limit;           /**< IPv4 TTL / IPv6 hop limit */
	uint8_t ipv4_df;             /**< set IPv4 Don't Fragment */
	uint32_t flow_label;         /**< IPv6 flow label (20 bits) */
	uint16_t udp_sport;          /**< UDP source port, host order */
};

/**
 * Write the headers of a RoCEv2 packet into the empty mbuf @p m.
 *
 * Writes Ethernet, optional 802.1Q, IPv4 or IPv6, UDP and the transport
 * headers of @p opcode (BTH: opcode, PadCnt from @p paylen, TVer 0, P_Key
 * 0xFFFF; every other field and every extension header zero), and sets the
 * IP and UDP lengths for a payload of @p paylen bytes. The caller then sets
 * the transport fields through @p pi, appends exactly @p paylen payload bytes
 * (dr_pkt_append() or chained segments) and calls dr_pkt_finalize().
 *
 * @return 0, -EINVAL (undefined opcode, bad route, payload on an opcode that
 *         has none, length overflow) or -ENOSPC (not enough room in @p m).
 */
int dr_pkt_build(struct rte_mbuf *m, const struct dr_pkt_route *rt, uint16_t ip_id,
		 uint8_t opcode, uint32_t paylen, struct dr_pkt_info *pi);

/** Bytes of the Ethernet (with 802.1Q), IPv6 and UDP headers: a template's largest. */
#define DR_PKT_TMPL_MAX 66

/**
 * The headers below the transport of one route, prebuilt by
 * dr_pkt_tmpl_init(): Ethernet, the optional 802.1Q tag, IPv4 or IPv6 and
 * UDP with every field that does not change between its packets, and the
 * IPv4 checksum of those fields. dr_pkt_build_tmpl() then writes a packet's
 * headers with one copy and three patched fields (lengths, IPv4
 * identification and checksum) instead of assembling them.
 */
struct dr_pkt_tmpl {
	uint8_t hdr[DR_PKT_TMPL_MAX]; /**< the headers, lengths, identification and checksum zero */
	uint8_t len;                  /**< bytes of @c hdr in use (up to the end of UDP) */
	uint8_t l3_off;               /**< IP header */
	uint8_t l4_off;               /**< UDP header */
	uint8_t ip_ver;               /**< 4 or 6 */
	uint8_t has_vlan;             /**< an 802.1Q tag */
	uint16_t vlan_tci;            /**< its TCI, host order */
	uint16_t udp_sport;           /**< UDP source port, host order */
	uint32_t ip_sum;              /**< IPv4: the 16-bit one's complement sum of the fixed fields */
	uint8_t sgid[16];             /**< the route's source GID */
	uint8_t dgid[16];             /**< and destination GID */
};

/**
 * Prebuild the headers of route @p rt into @p t.
 * @return 0, or -EINVAL for a route dr_pkt_build() refuses.
 */
int dr_pkt_tmpl_init(struct dr_pkt_tmpl *t, const struct dr_pkt_route *rt);

/**
 * dr_pkt_build() from a template: the same bytes and the same @p pi as
 * dr_pkt_build() with the route @p t was made from.
 * @return 0, -EINVAL (undefined opcode, payload on an opcode that has none,
 *         length overflow) or -ENOSPC (not enough room in @p m).
 */
int dr_pkt_build_tmpl(struct rte_mbuf *m, const struct dr_pkt_tmpl *t, uint16_t ip_id,
		      uint8_t opcode, uint32_t paylen, struct dr_pkt_info *pi);

/**
 * Copy @p len bytes to the end of the last segment of @p m.
 * @return 0 or -ENOSPC.
 */
int dr_pkt_append(struct rte_mbuf *m, const void *data, uint32_t len);

/**
 * Chain @p len bytes at @p data after the frame @p m without copying them
 * (zero-copy payload): an mbuf of @p mp attached to that memory as an
 * external buffer (rte_pktmbuf_attach_extbuf(); its shared info lives in the
 * mbuf's own data room, which an attached mbuf leaves unused), then an empty
 * mbuf of @p mp that dr_pkt_finalize() writes the pad and ICRC into. When
 * the payload mbuf is freed (by the PMD, once it has read the frame),
 * @p free_cb(@p data, @p opaque) runs: the memory must stay mapped and
 * unchanged until then. Its IOVA is its virtual address in IOVA-as-VA mode
 * and RTE_BAD_IOVA otherwise: for ports that read frames with the CPU
 * (software PMDs), or memory the device has mapped at its VA
 * (rte_dev_dma_map()).
 * @return 0; -EINVAL when @p len is 0 or above UINT16_MAX, @p free_cb is
 *         NULL, or the data room of @p mp cannot hold the shared info;
 *         -ENOBUFS when @p mp has no mbufs (@p m is unchanged).
 */
int dr_pkt_attach(struct rte_mbuf *m, struct rte_mempool *mp, void *data, uint32_t len,
		  rte_mbuf_extbuf_free_callback_t free_cb, void *opaque);

/**
 * Finish a packet started with dr_pkt_build(): append the pad bytes (zero)
 * and the ICRC to the last segment (after dr_pkt_attach(), its empty tail mbuf) (dr_pkt_build() already wrote the IPv4
 * header checksum: the caller changes transport fields only).
 * @return 0, -EINVAL when the payload appended is not the announced length,
 *         or -ENOSPC when the last segment has no room for pad + ICRC.
 */
int dr_pkt_finalize(struct rte_mbuf *m, struct dr_pkt_info *pi);

/** @name GIDs and RoCEv2 UDP source ports */
/**@{*/
/** Make the IPv4-mapped GID ::ffff:a.b.c.d of an IPv4 address (network order). */
static inline void
dr_gid_from_ipv4(uint8_t gid[16], rte_be32_t addr)
{
	memset(gid, 0, 10);
	gid[10] = 0xFF;
	gid[11] = 0xFF;
	memcpy(gid + 12, &addr, 4);
}

/** True when @p gid is IPv4-mapped (::ffff:0:0/96). */
static inline bool
dr_gid_is_ipv4(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };

	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

/**
 * Flow label of a connected QP pair when the application gave none: the
 * rule of Linux's rdma_calc_flow_label(), so our RC/UC ports match rxe's.
 */
static inline uint32_t
dr_flow_label_from_qpns(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return (uint32_t)(v & 0xFFFFF);
}

/** UDP source port from a flow label (folds 20 bits into 14; A17.2.1 range). */
static inline uint16_t
dr_udp_sport_from_flow_label(uint32_t fl)
{
	uint32_t lo = fl & 0x3FFF;

	lo ^= (fl & 0xFC000) >> 14;
	return (uint16_t)(DR_ROCEV2_SPORT_MIN | lo);
}

/** UDP source port of a UD QP: 0xC000 + the 14-bit golden-ratio hash of its QPN (as rxe). */
static inline uint16_t
dr_udp_sport_from_qpn(uint32_t qpn)
{
	return (uint16_t)(DR_ROCEV2_SPORT_MIN | ((qpn * 0x61C88647u) >> 18));
}
/**@}*/

#ifdef __cplusplus
}
#endif

#endif /* DR_PKT_H */
