/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The neighbour table of the ethdev backend: GID -> MAC, open addressing
 * with linear probing and backward-shift deletion (no tombstones), at most
 * DR_NEIGH_ENTRIES entries in twice as many slots. Static entries come from
 * add_neighbour() and are never replaced by learning; learned ones come from
 * ARP and ND and do not age (a peer that changes its MAC announces it, and
 * announcements update them); incomplete ones mark an address being resolved
 * and rate-limit its requests. A full table evicts incomplete entries first,
 * then the least recently confirmed learned one.
 *
 * Also here: the receive dispatcher (Ethernet [802.1Q] -> ARP or IPv6) and
 * resolve(), which writes the request when one is due.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dr_log.h"
#include "dr_neigh.h"
#include "dr_pkt.h"

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool
gid_is_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return memcmp(gid, zero, 16) == 0;
}

/* The unspecified address ::, or the IPv4-mapped 0.0.0.0: no one's address. */
static bool
gid_is_unspecified(const uint8_t gid[16])
{
	static const uint8_t zero[4];

	return gid_is_zero(gid) || (dr_gid_is_ipv4(gid) && memcmp(gid + 12, zero, 4) == 0);
}

/* Home slot of a GID: the four words folded, then a murmur3 finaliser. */
static uint32_t
gid_home(const uint8_t gid[16])
{
	uint32_t w[4], h;

	memcpy(w, gid, sizeof(w));
	h = w[0] * 0x9E3779B1u;
	h = (h ^ w[1]) * 0x85EBCA77u;
	h = (h ^ w[2]) * 0xC2B2AE3Du;
	h ^= w[3];
	h ^= h >> 16;
	h *= 0x85EBCA6Bu;
	h ^= h >> 13;
	h *= 0xC2B2AE35u;
	h ^= h >> 16;
	return h % DR_NEIGH_SLOTS;
}

static inline uint32_t
slot_next(uint32_t i)
{
	return i + 1 == DR_NEIGH_SLOTS ? 0 : i + 1;
}

/* Probe distance from slot @a forward to slot @b. */
static inline uint32_t
slot_dist(uint32_t a, uint32_t b)
{
	return (b + DR_NEIGH_SLOTS - a) % DR_NEIGH_SLOTS;
}

/* Slot of @gid, or -1. */
static int
find(const struct dr_neigh_table *t, const uint8_t gid[16])
{
	uint32_t i = gid_home(gid);

	for (uint32_t n = 0; n < DR_NEIGH_SLOTS; n++, i = slot_next(i)) {
		const struct dr_neigh_entry *e = &t->slot[i];

		if (e->state == DR_NEIGH_FREE)
			return -1;
		if (memcmp(e->gid, gid, 16) == 0)
			return (int)i;
	}
	return -1;
}

/* Empty slot @i: later entries of its probe run move back (Knuth 6.4, Algorithm R). */
static void
del_at(struct dr_neigh_table *t, uint32_t i)
{
	uint32_t j = i;

	for (;;) {
		j = slot_next(j);
		if (t->slot[j].state == DR_NEIGH_FREE)
			break;
		/* the entry at j may fill the hole unless its home lies in (i, j] */
		if (slot_dist(gid_home(t->slot[j].gid), j) >= slot_dist(i, j)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	memset(&t->slot[i], 0, sizeof(t->slot[i]));
	t->count--;
}

/* Make room by evicting: incomplete entries first, then the least recently confirmed. */
static int
evict(struct dr_neigh_table *t)
{
	int victim = -1;
	uint8_t vstate = 0;
	uint64_t vtsc = 0;

	for (uint32_t i = 0; i < DR_NEIGH_SLOTS; i++) {
		const struct dr_neigh_entry *e = &t->slot[i];
		uint64_t tsc;

		if (e->state != DR_NEIGH_INCOMPLETE && e->state != DR_NEIGH_LEARNED)
			continue;
		tsc = e->state == DR_NEIGH_INCOMPLETE ? e->req_tsc : e->seen_tsc;
		if (victim < 0 || (e->state == DR_NEIGH_INCOMPLETE && vstate == DR_NEIGH_LEARNED) ||
		    (e->state == vstate && tsc < vtsc)) {
			victim = (int)i;
			vstate = e->state;
			vtsc = tsc;
		}
	}
	if (victim < 0) {
		t->stats.full++;
		return -ENOSPC;
	}
	t->stats.evicted++;
	del_at(t, (uint32_t)victim);
	return 0;
}

/* A new entry for @gid (known to be absent), state FREE, gid set; NULL when full of static entries. */
static struct dr_neigh_entry *
insert(struct dr_neigh_table *t, const uint8_t gid[16])
{
	uint32_t i;

	if (t->count >= DR_NEIGH_ENTRIES && evict(t) != 0)
		return NULL;
	i = gid_home(gid);
	while (t->slot[i].state != DR_NEIGH_FREE)
		i = slot_next(i);
	memcpy(t->slot[i].gid, gid, 16);
	t->count++;
	return &t->slot[i];
}

void
dr_neigh_init(struct dr_neigh_table *t, uint64_t retry_cycles)
{
	memset(t, 0, sizeof(*t));
	t->retry_cycles = retry_cycles;
}

const struct dr_neigh_entry *
dr_neigh_lookup(const struct dr_neigh_table *t, const uint8_t gid[16])
{
	int i = find(t, gid);

	return i < 0 ? NULL : &t->slot[i];
}

int
dr_neigh_del(struct dr_neigh_table *t, const uint8_t gid[16])
{
	int i = find(t, gid);

	if (i < 0)
		return -ENOENT;
	del_at(t, (uint32_t)i);
	return 0;
}

int
dr_neigh_add_static(struct dr_neigh_table *t, const uint8_t gid[16], const struct rte_ether_addr *mac,
		    uint64_t now)
{
	struct dr_neigh_entry *e;
	int i;

	if (gid_is_unspecified(gid) || !rte_is_valid_assigned_ether_addr(mac))
		return -EINVAL;
	i = find(t, gid);
	if (i >= 0) {
		e = &t->slot[i];
	} else {
		e = insert(t, gid);
		if (e == NULL)
			return -ENOSPC;
	}
	e->mac = *mac;
	e->state = DR_NEIGH_STATIC;
	e->req_tsc = 0;
	e->seen_tsc = now;
	return 0;
}

int
dr_neigh_learn(struct dr_neigh_table *t, const uint8_t gid[16], const struct rte_ether_addr *mac,
	       bool create, bool override, uint64_t now)
{
	struct dr_neigh_entry *e;
	int i;

	if (gid_is_unspecified(gid) || !rte_is_valid_assigned_ether_addr(mac))
		return -EINVAL;
	i = find(t, gid);
	if (i >= 0) {
		e = &t->slot[i];
		switch (e->state) {
		case DR_NEIGH_STATIC:
			return 0;
		case DR_NEIGH_INCOMPLETE:
			break;
		default:
			if (rte_is_same_ether_addr(&e->mac, mac)) {
				e->seen_tsc = now;
				return 0;
			}
			if (!override)
				return 0;
			e->mac = *mac;
			e->seen_tsc = now;
			t->stats.updated++;
			return 1;
		}
	} else {
		if (!create)
			return 0;
		e = insert(t, gid);
		if (e == NULL)
			return -ENOSPC;
	}
	e->mac = *mac;
	e->state = DR_NEIGH_LEARNED;
	e->req_tsc = 0;
	e->seen_tsc = now;
	t->stats.learned++;
	return 1;
}

bool
dr_neigh_mcast_mac(const uint8_t gid[16], struct rte_ether_addr *mac)
{
	if (dr_gid_is_ipv4(gid)) {
		static const uint8_t bcast[4] = { 0xFF, 0xFF, 0xFF, 0xFF };

		if (memcmp(gid + 12, bcast, 4) == 0) {
			memset(mac->addr_bytes, 0xFF, RTE_ETHER_ADDR_LEN);
			return true;
		}
		if ((gid[12] & 0xF0) != 0xE0)
			return false;
		/* RFC 1112 6.4: 01:00:5e + the low 23 bits of the group */
		mac->addr_bytes[0] = 0x01;
		mac->addr_bytes[1] = 0x00;
		mac->addr_bytes[2] = 0x5E;
		mac->addr_bytes[3] = gid[13] & 0x7F;
		mac->addr_bytes[4] = gid[14];
		mac->addr_bytes[5] = gid[15];
		return true;
	}
	if (gid[0] != 0xFF)
		return false;
	/* RFC 2464 7: 33:33 + the last four bytes */
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(mac->addr_bytes + 2, gid + 12, 4);
	return true;
}

int
dr_neigh_resolve(struct dr_neigh_table *t, const struct dr_neigh_self *self, const uint8_t gid[16],
		 uint64_t now, struct rte_ether_addr *mac, uint8_t *req, uint32_t *req_len)
{
	const uint8_t *src6 = NULL;
	struct dr_neigh_entry *e;
	int i;

	*req_len = 0;
	if (gid_is_unspecified(gid))
		return -EINVAL;
	if (dr_neigh_mcast_mac(gid, mac))
		return 0;
	i = find(t, gid);
	if (i >= 0 && t->slot[i].state != DR_NEIGH_INCOMPLETE) {
		*mac = t->slot[i].mac;
		return 0;
	}
	/* a miss: we need an address of the family to ask from */
	if (dr_gid_is_ipv4(gid)) {
		if (self->ipv4 == 0)
			return -EADDRNOTAVAIL;
	} else {
		src6 = dr_nd_source_for(self, gid);
		if (src6 == NULL)
			return -EADDRNOTAVAIL;
	}
	if (i >= 0) {
		e = &t->slot[i];
		if (now - e->req_tsc < t->retry_cycles)
			return -EAGAIN;
	} else {
		e = insert(t, gid);
		if (e == NULL)
			return -ENOSPC;
		e->state = DR_NEIGH_INCOMPLETE;
		e->seen_tsc = now;
	}
	e->req_tsc = now;
	if (src6 == NULL) {
		rte_be32_t tpa;

		memcpy(&tpa, gid + 12, 4);
		*req_len = dr_arp_build_request(req, self, tpa);
	} else {
		*req_len = dr_nd_build_ns(req, self, src6, gid);
	}
	t->stats.requests++;
	return -EAGAIN;
}

uint32_t
dr_neigh_write_l2(uint8_t *buf, const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
		  bool has_vlan, uint16_t vlan_tci, uint16_t ether_type)
{
	uint32_t off = 12;

	memcpy(buf, dst->addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(buf + 6, src->addr_bytes, RTE_ETHER_ADDR_LEN);
	if (has_vlan) {
		buf[12] = RTE_ETHER_TYPE_VLAN >> 8;
		buf[13] = RTE_ETHER_TYPE_VLAN & 0xFF;
		buf[14] = (uint8_t)(vlan_tci >> 8);
		buf[15] = (uint8_t)vlan_tci;
		off = 16;
	}
	buf[off] = (uint8_t)(ether_type >> 8);
	buf[off + 1] = (uint8_t)ether_type;
	return off + 2;
}

enum dr_neigh_verdict
dr_neigh_input(struct dr_neigh_table *t, const struct dr_neigh_self *self, const uint8_t *f, uint32_t len,
	       uint64_t now, uint8_t *reply, uint32_t *reply_len)
{
	struct dr_neigh_l2 l2;

	*reply_len = 0;
	if (len < RTE_ETHER_HDR_LEN)
		goto malformed;
	memset(&l2, 0, sizeof(l2));
	memcpy(l2.dst.addr_bytes, f, RTE_ETHER_ADDR_LEN);
	memcpy(l2.src.addr_bytes, f + 6, RTE_ETHER_ADDR_LEN);
	l2.ether_type = rd16(f + 12);
	l2.l3_off = RTE_ETHER_HDR_LEN;
	if (l2.ether_type == RTE_ETHER_TYPE_VLAN) {
		if (len < RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)
			goto malformed;
		l2.has_vlan = 1;
		l2.vlan_tci = rd16(f + 14);
		l2.ether_type = rd16(f + 16);
		l2.l3_off += RTE_VLAN_HLEN;
	}
	if (l2.ether_type != RTE_ETHER_TYPE_ARP && l2.ether_type != RTE_ETHER_TYPE_IPV6) {
		t->stats.other++;
		return DR_NEIGH_OTHER;
	}
	/*
	 * Unicast to another MAC: seen only in promiscuous mode. (A source MAC
	 * equal to ours is no sign of a looped-back frame: net_tap gives the
	 * kernel's interface the port's MAC.)
	 */
	if (!rte_is_multicast_ether_addr(&l2.dst) && !rte_is_same_ether_addr(&l2.dst, &self->mac)) {
		t->stats.not_for_us++;
		return DR_NEIGH_DONE;
	}
	if (l2.ether_type == RTE_ETHER_TYPE_ARP)
		return dr_arp_input(t, self, &l2, f, len, now, reply, reply_len);
	return dr_nd_input(t, self, &l2, f, len, now, reply, reply_len);

malformed:
	t->stats.malformed++;
	DR_DP_LOG(drv, DEBUG, "neigh: frame of %u bytes too short for Ethernet", len);
	return DR_NEIGH_MALFORMED;
}

enum dr_neigh_verdict
dr_neigh_input_mbuf(struct dr_neigh_table *t, const struct dr_neigh_self *self, const struct rte_mbuf *m,
		    uint64_t now, uint8_t *reply, uint32_t *reply_len)
{
	uint8_t copy[DR_NEIGH_RX_MAX];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *f;

	/*
	 * A frame in one segment is read in place whatever its length; a chain
	 * is copied, up to DR_NEIGH_RX_MAX bytes (more than any ARP or ND
	 * message: longer NS/NA then fail their length check).
	 */
	if (len > rte_pktmbuf_data_len(m) && len > sizeof(copy))
		len = sizeof(copy);
	f = rte_pktmbuf_read(m, 0, len, copy);
	if (f == NULL) {
		*reply_len = 0;
		t->stats.malformed++;
		return DR_NEIGH_MALFORMED;
	}
	return dr_neigh_input(t, self, f, len, now, reply, reply_len);
}
