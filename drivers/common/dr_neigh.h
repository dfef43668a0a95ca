/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_NEIGH_H
#define DR_NEIGH_H

/*
 * Neighbours of the ethdev backend: the table GID -> MAC, and the ARP
 * (RFC 826) and IPv6 Neighbour Discovery (RFC 4861) packet logic that fills
 * it and answers for our addresses.
 *
 * Everything here is pure: frames are read from flat buffers or mbufs
 * (bounds-checked, never past the data), replies and requests are written
 * into a caller's buffer of DR_NEIGH_FRAME_MAX bytes, time is the caller's
 * TSC value. No EAL, no mempool, no transmission: dr_ethdev.c does that.
 * Nothing here allocates, locks or makes a system call.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dr_config.h"

/* Room for any frame built here (an NA with an 802.1Q tag is 90 bytes). */
#define DR_NEIGH_FRAME_MAX 128
/* Largest frame looked at (ARP and ND messages are far shorter): longer ones are malformed. */
#define DR_NEIGH_RX_MAX 2048
/* Hash slots: twice the entries, so the linear probes stay short. */
#define DR_NEIGH_SLOTS (2 * DR_NEIGH_ENTRIES)

/* ICMPv6 types of Neighbour Discovery (RFC 4861 4.3, 4.4). */
#define DR_ND_NS 135
#define DR_ND_NA 136
/* NA flags (RFC 4861 4.4). */
#define DR_ND_NA_ROUTER 0x80
#define DR_ND_NA_SOLICITED 0x40
#define DR_ND_NA_OVERRIDE 0x20
/* ND options (RFC 4861 4.6.1). */
#define DR_ND_OPT_SLLA 1
#define DR_ND_OPT_TLLA 2

enum dr_neigh_state {
	DR_NEIGH_FREE = 0,
	DR_NEIGH_INCOMPLETE,      /* a request was sent, no answer yet */
	DR_NEIGH_LEARNED,         /* from ARP / ND; updated by later messages */
	DR_NEIGH_STATIC,          /* add_neighbour(): never replaced by learning */
};

struct dr_neigh_entry {
	uint8_t gid[16];          /* IPv4-mapped or IPv6 */
	struct rte_ether_addr mac;
	uint8_t state;            /* enum dr_neigh_state */
	uint64_t req_tsc;         /* INCOMPLETE: when the last request went out */
	uint64_t seen_tsc;        /* when created, learned or confirmed */
};

/* Counters; "malformed" frames were dropped without effect. */
struct dr_neigh_stats {
	uint64_t arp_rx;          /* well-formed ARP frames */
	uint64_t nd_rx;           /* well-formed NS / NA */
	uint64_t malformed;       /* truncated, bad lengths / checksum / fields */
	uint64_t other;           /* neither ARP nor NS/NA: freed */
	uint64_t not_for_us;      /* ARP/ND for other addresses or other MACs */
	uint64_t conflict;        /* someone else claims one of our addresses */
	uint64_t replies;         /* ARP replies and NAs built */
	uint64_t requests;        /* ARP requests and NSs built */
	uint64_t learned;         /* entries created or completed by learning */
	uint64_t updated;         /* entries whose MAC changed */
	uint64_t evicted;         /* entries replaced because the table was full */
	uint64_t full;            /* nothing could be evicted (all static) */
};

struct dr_neigh_table {
	struct dr_neigh_entry slot[DR_NEIGH_SLOTS]; /* open addressing, linear probing */
	uint32_t count;           /* used slots, at most DR_NEIGH_ENTRIES */
	uint64_t retry_cycles;    /* TSC cycles between two requests for one address */
	struct dr_neigh_stats stats;
};

/* Our own addresses, as ARP and ND answer for them. */
struct dr_neigh_self {
	struct rte_ether_addr mac;
	rte_be32_t ipv4;                  /* 0: none */
	uint8_t ipv6[DR_MAX_GIDS][16];    /* link-local first when we have one */
	unsigned int num_ipv6;
};

/* What became of a received frame. */
enum dr_neigh_verdict {
	DR_NEIGH_DONE = 0,        /* used or ignored (counted): free it */
	DR_NEIGH_REPLY,           /* a reply was written: send it, free the frame */
	DR_NEIGH_MALFORMED,       /* dropped and counted */
	DR_NEIGH_OTHER,           /* neither ARP nor ND (counted): free it */
};

/* Ethernet framing of a received frame. */
struct dr_neigh_l2 {
	struct rte_ether_addr dst;
	struct rte_ether_addr src;
	uint8_t has_vlan;
	uint16_t vlan_tci;        /* host order; replies carry the same tag */
	uint16_t ether_type;      /* host order, after the tag */
	uint32_t l3_off;
};

/* ------------------------------------------------------------------ */
/* The table (dr_neigh.c)                                              */
/* ------------------------------------------------------------------ */

/* Empty the table; requests for one address at most every @retry_cycles. */
void dr_neigh_init(struct dr_neigh_table *t, uint64_t retry_cycles);

/* Entry of @gid (any state), NULL if none. */
const struct dr_neigh_entry *dr_neigh_lookup(const struct dr_neigh_table *t, const uint8_t gid[16]);

/*
 * Add or replace a static entry. Returns 0, -EINVAL (zero GID, or a MAC that
 * is zero or a group address) or -ENOSPC (every entry is static).
 */
int dr_neigh_add_static(struct dr_neigh_table *t, const uint8_t gid[16],
			const struct rte_ether_addr *mac, uint64_t now);

/*
 * Learn that @gid is at @mac. An existing entry is completed or updated
 * (a static one is never changed; a learned one only when @override); a new
 * one is made only when @create. Returns 1 when an entry was created,
 * completed or changed, 0 when nothing changed, -ENOSPC when the table is
 * full of static entries, -EINVAL for a zero GID or bad MAC.
 */
int dr_neigh_learn(struct dr_neigh_table *t, const uint8_t gid[16], const struct rte_ether_addr *mac,
		   bool create, bool override, uint64_t now);

/* Remove the entry of @gid. Returns 0 or -ENOENT. */
int dr_neigh_del(struct dr_neigh_table *t, const uint8_t gid[16]);

/*
 * MAC of @gid. Multicast (and IPv4 limited broadcast) addresses map to their
 * group MAC with no table entry. On a hit: 0 and *mac. On a miss: -EAGAIN;
 * when no request for @gid went out in the last retry_cycles, an ARP request
 * (IPv4-mapped @gid) or a Neighbour Solicitation to the solicited-node
 * address (IPv6) is written to @req (DR_NEIGH_FRAME_MAX bytes) and its length
 * to *req_len, else *req_len is 0. Errors: -EINVAL (zero or unspecified GID),
 * -EADDRNOTAVAIL (we have no address of that family to ask from), -ENOSPC
 * (table full of static entries).
 */
int dr_neigh_resolve(struct dr_neigh_table *t, const struct dr_neigh_self *self, const uint8_t gid[16],
		     uint64_t now, struct rte_ether_addr *mac, uint8_t *req, uint32_t *req_len);

/*
 * Handle a received frame that is not RoCEv2: ARP and NS/NA are parsed,
 * learned from, and answered when they ask for one of our addresses (the
 * reply goes to @reply, DR_NEIGH_FRAME_MAX bytes, length in *reply_len).
 * The flat form reads @len bytes at @f; the mbuf form reads the chain.
 */
enum dr_neigh_verdict dr_neigh_input(struct dr_neigh_table *t, const struct dr_neigh_self *self,
				     const uint8_t *f, uint32_t len, uint64_t now,
				     uint8_t *reply, uint32_t *reply_len);
enum dr_neigh_verdict dr_neigh_input_mbuf(struct dr_neigh_table *t, const struct dr_neigh_self *self,
					  const struct rte_mbuf *m, uint64_t now,
					  uint8_t *reply, uint32_t *reply_len);

/* Ethernet [+ 802.1Q] header at @buf; returns its length (14 or 18). */
uint32_t dr_neigh_write_l2(uint8_t *buf, const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
			   bool has_vlan, uint16_t vlan_tci, uint16_t ether_type);

/* Group MAC of a multicast / broadcast GID (RFC 1112 6.4, RFC 2464 7); false when unicast. */
bool dr_neigh_mcast_mac(const uint8_t gid[16], struct rte_ether_addr *mac);

/* ------------------------------------------------------------------ */
/* ARP (dr_arp.c)                                                      */
/* ------------------------------------------------------------------ */

/* Bytes of an ARP frame as sent: padded to the Ethernet minimum (60, 64 tagged). */
#define DR_ARP_FRAME_LEN 60

/*
 * An Ethernet/IPv4 ARP frame of opcode @op (RFC 826) at @buf, framed by @l2
 * (dst, src, tag). Returns its length, zero-padded to the minimum Ethernet frame.
 */
uint32_t dr_arp_build(uint8_t *buf, const struct dr_neigh_l2 *l2, uint16_t op,
		      const struct rte_ether_addr *sha, rte_be32_t spa,
		      const struct rte_ether_addr *tha, rte_be32_t tpa);

/* Broadcast ARP request for @tpa from @self. Returns its length. */
uint32_t dr_arp_build_request(uint8_t *buf, const struct dr_neigh_self *self, rte_be32_t tpa);

/* An ARP frame whose Ethernet header @l2 was parsed (see dr_neigh_input()). */
enum dr_neigh_verdict dr_arp_input(struct dr_neigh_table *t, const struct dr_neigh_self *self,
				   const struct dr_neigh_l2 *l2, const uint8_t *f, uint32_t len,
				   uint64_t now, uint8_t *reply, uint32_t *reply_len);

/* ------------------------------------------------------------------ */
/* IPv6 Neighbour Discovery (dr_nd.c)                                  */
/* ------------------------------------------------------------------ */

/*
 * ICMPv6 checksum (RFC 4443 2.3) of the @len-byte message @icmp from @src to
 * @dst: the value to store with the checksum field zero, or 0 when checking
 * a message whose stored checksum is right.
 */
uint16_t dr_nd_cksum(const uint8_t src[16], const uint8_t dst[16], const void *icmp, uint32_t len);

/* Solicited-node multicast address ff02::1:ffXX:XXXX of @addr (RFC 4291 2.7.1). */
void dr_nd_solicited_node(uint8_t out[16], const uint8_t addr[16]);

/* Source address we send an NS for @target from; NULL when we have no IPv6 address. */
const uint8_t *dr_nd_source_for(const struct dr_neigh_self *self, const uint8_t target[16]);

/* Neighbour Solicitation for @target to its solicited-node address, with our SLLA. */
uint32_t dr_nd_build_ns(uint8_t *buf, const struct dr_neigh_self *self, const uint8_t src[16],
			const uint8_t target[16]);

/*
 * Neighbour Advertisement for our @target to @dst, framed by @l2 (dst, src,
 * tag), with the Target Link-Layer Address option l2->src and flags DR_ND_NA_*.
 */
uint32_t dr_nd_build_na(uint8_t *buf, const struct dr_neigh_l2 *l2, const uint8_t target[16],
			const uint8_t dst[16], uint8_t flags);

/* An IPv6 frame whose Ethernet header @l2 was parsed: NS and NA, else DR_NEIGH_OTHER. */
enum dr_neigh_verdict dr_nd_input(struct dr_neigh_table *t, const struct dr_neigh_self *self,
				  const struct dr_neigh_l2 *l2, const uint8_t *f, uint32_t len,
				  uint64_t now, uint8_t *reply, uint32_t *reply_len);

#endif /* DR_NEIGH_H */
