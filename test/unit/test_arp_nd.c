/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * ARP (RFC 826) and IPv6 Neighbour Discovery (RFC 4861) of the ethdev
 * backend: our requests, replies and advertisements byte for byte against
 * frames made by scapy (test_neigh_vectors.h); answers to scapy-made
 * requests; the learning rules; every truncation, every corrupted ICMPv6
 * byte and each RFC 4861 validity rule rejected; frames that are not ours
 * left alone. Each input is fed flat, in one mbuf and split across two at
 * every offset.
 */

#include <errno.h>

#include "dr_neigh.h"
#include "dr_pkt.h"
#include "dr_test.h"
#include "test_mbuf.h"
#include "test_neigh_vectors.h"

#define RETRY 1000u

static const struct rte_ether_addr me = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr peer = { { 0x02, 0, 0, 0, 0, 0x02 } };
static const struct rte_ether_addr other = { { 0x02, 0, 0, 0, 0, 0x09 } };

/* fe80::ff:fe00:1, fd00::1, fe80::2, fd00::2 */
static const uint8_t me_ll[16] = { 0xFE, 0x80, [11] = 0xFF, [12] = 0xFE, [15] = 0x01 };
static const uint8_t me_ula[16] = { 0xFD, 0x00, [15] = 0x01 };
static const uint8_t peer_ll[16] = { 0xFE, 0x80, [15] = 0x02 };
static const uint8_t peer_ula[16] = { 0xFD, 0x00, [15] = 0x02 };

/* Offsets in an untagged NS/NA frame. */
#define IP6 14
#define ICMP (14 + 40)

static void
self_init(struct dr_neigh_self *s)
{
	memset(s, 0, sizeof(*s));
	s->mac = me;
	s->ipv4 = rte_cpu_to_be_32(0x0A000001);
	memcpy(s->ipv6[0], me_ll, 16);
	memcpy(s->ipv6[1], me_ula, 16);
	s->num_ipv6 = 2;
}

static void
gid4(uint8_t gid[16], uint32_t host_order_addr)
{
	dr_gid_from_ipv4(gid, rte_cpu_to_be_32(host_order_addr));
}

static struct rte_mbuf *
mbuf_of(const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = tmbuf_new((uint16_t)len);      /* exact: ASan sees any over-read */

	memcpy(rte_pktmbuf_mtod(m, void *), f, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

/* @f in two segments cut at @cut (0 < cut < len). */
static struct rte_mbuf *
mbuf2_of(const uint8_t *f, uint32_t len, uint32_t cut)
{
	struct rte_mbuf *a = mbuf_of(f, cut), *b = mbuf_of(f + cut, len - cut);

	tmbuf_chain(a, b);
	return a;
}

struct outcome {
	enum dr_neigh_verdict v;
	uint32_t len;
	uint8_t reply[DR_NEIGH_FRAME_MAX];
};

/*
 * Feed @f to a fresh copy of @t0 flat, in one mbuf and in two at every cut:
 * every way must give the same verdict, reply and table (the last one is
 * left in @t0 when @keep). Returns the flat outcome.
 */
static struct outcome
feed(struct dr_neigh_table *t0, const struct dr_neigh_self *self, const uint8_t *f, uint32_t len,
     uint64_t now, bool keep)
{
	struct dr_neigh_table *t = malloc(sizeof(*t)), *ref = malloc(sizeof(*ref));
	struct outcome o, x;
	struct rte_mbuf *m;
	unsigned int diffs = 0;

	if (t == NULL || ref == NULL)
		abort();
	*ref = *t0;
	o.v = dr_neigh_input(ref, self, f, len, now, o.reply, &o.len);
	for (uint32_t cut = 0; cut < len; cut++) {
		*t = *t0;
		m = cut == 0 ? mbuf_of(f, len) : mbuf2_of(f, len, cut);
		memset(&x, 0, sizeof(x));
		x.v = dr_neigh_input_mbuf(t, self, m, now, x.reply, &x.len);
		if (x.v != o.v || x.len != o.len || memcmp(x.reply, o.reply, o.len) != 0 ||
		    memcmp(t, ref, sizeof(*t)) != 0)
			diffs++;
		tmbuf_free(m);
	}
	CHECK_MSG(diffs == 0, "%u of %u mbuf layouts differ from the flat frame", diffs, len);
	if (keep)
		*t0 = *ref;
	free(t);
	free(ref);
	return o;
}

static bool
same_bytes(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	if (alen != blen) {
		fprintf(stderr, "length %u, want %u\n", alen, blen);
		return false;
	}
	for (uint32_t i = 0; i < alen; i++) {
		if (a[i] != b[i]) {
			fprintf(stderr, "byte %u: 0x%02x, want 0x%02x\n", i, a[i], b[i]);
			return false;
		}
	}
	return true;
}

static struct dr_neigh_table *
table_new(void)
{
	struct dr_neigh_table *t = malloc(sizeof(*t));

	if (t == NULL)
		abort();
	dr_neigh_init(t, RETRY);
	return t;
}

/* RFC 4443 2.3 as written: 16-bit big-endian words, odd length padded with zero. */
static uint16_t
ref_cksum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *msg, uint32_t len)
{
	uint8_t ph[40] = { 0 };
	uint64_t sum = 0;

	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	ph[32] = (uint8_t)(len >> 24);
	ph[33] = (uint8_t)(len >> 16);
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[39] = 58;
	for (uint32_t i = 0; i < 40; i += 2)
		sum += (uint32_t)(ph[i] << 8 | ph[i + 1]);
	for (uint32_t i = 0; i < len; i += 2)
		sum += (uint32_t)(msg[i] << 8 | (i + 1 < len ? msg[i + 1] : 0));
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Our frames against scapy's. */
static void
test_builders(void)
{
	uint8_t buf[DR_NEIGH_FRAME_MAX];
	struct dr_neigh_self self;
	struct dr_neigh_l2 l2 = { .dst = peer, .src = me };
	uint32_t len;

	self_init(&self);
	len = dr_arp_build_request(buf, &self, rte_cpu_to_be_32(0x0A000002));
	CHECK(same_bytes(buf, len, gold_arp_request, sizeof(gold_arp_request)));
	len = dr_nd_build_ns(buf, &self, me_ll, peer_ll);
	CHECK(same_bytes(buf, len, gold_ns, sizeof(gold_ns)));
	len = dr_nd_build_na(buf, &l2, me_ula, peer_ula, DR_ND_NA_SOLICITED | DR_ND_NA_OVERRIDE);
	CHECK(same_bytes(buf, len, gold_na, sizeof(gold_na)));
	CHECK(len <= DR_NEIGH_FRAME_MAX);
	l2.has_vlan = 1;
	l2.vlan_tci = 0xA123;
	len = dr_nd_build_na(buf, &l2, me_ula, peer_ula, 0);
	CHECK_EQ(len, sizeof(gold_na) + 4);
	CHECK(len <= DR_NEIGH_FRAME_MAX);

	/* scapy's checksums check, flipped bits do not (RFC 4443 2.3) */
	CHECK_EQ(dr_nd_cksum(gold_na + IP6 + 8, gold_na + IP6 + 24, gold_na + ICMP, 32), 0);
	CHECK_EQ(dr_nd_cksum(in_ns_dad + IP6 + 8, in_ns_dad + IP6 + 24, in_ns_dad + ICMP, 24), 0);
	memcpy(buf, gold_ns, sizeof(gold_ns));
	buf[ICMP + 9] ^= 0x10;
	CHECK(dr_nd_cksum(buf + IP6 + 8, buf + IP6 + 24, buf + ICMP, 32) != 0);
	/* against the definition, odd lengths included */
	{
		uint8_t src[16], dst[16], msg[101];
		uint32_t seed = 7, bad = 0;

		for (uint32_t len = 0; len <= sizeof(msg); len++) {
			for (uint32_t i = 0; i < 16; i++) {
				src[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
				dst[i] = (uint8_t)(seed >> 8);
			}
			for (uint32_t i = 0; i < len; i++)
				msg[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
			uint16_t got = dr_nd_cksum(src, dst, msg, len), want = ref_cksum(src, dst, msg, len);
			uint8_t b[2];

			memcpy(b, &got, 2);
			if (b[0] != want >> 8 || b[1] != (want & 0xFF))
				bad++;
		}
		CHECK_MSG(bad == 0, "%u checksums differ from the reference", bad);
	}

	/* source selection: same /64, else the scope's */
	CHECK(dr_nd_source_for(&self, peer_ll) == self.ipv6[0]);
	CHECK(dr_nd_source_for(&self, peer_ula) == self.ipv6[1]);
	{
		uint8_t global[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };

		CHECK(dr_nd_source_for(&self, global) == self.ipv6[1]);
		self.num_ipv6 = 1;
		CHECK(dr_nd_source_for(&self, global) == self.ipv6[0]);
		self.num_ipv6 = 0;
		CHECK(dr_nd_source_for(&self, global) == NULL);
	}
	{
		uint8_t sn[16];
		static const uint8_t want[16] = { 0xFF, 0x02, [11] = 0x01, [12] = 0xFF, [13] = 0x00,
						  [14] = 0x00, [15] = 0x02 };

		dr_nd_solicited_node(sn, peer_ula);
		CHECK(memcmp(sn, want, 16) == 0);
	}
}

static void
test_arp(void)
{
	struct dr_neigh_table *t = table_new();
	const struct dr_neigh_entry *e;
	struct dr_neigh_self self;
	uint8_t f[128], g[16];
	struct outcome o;

	self_init(&self);
	gid4(g, 0x0A000002);

	/* a request for us: answered as scapy would, and the sender learned (merge rule) */
	o = feed(t, &self, in_arp_request, sizeof(in_arp_request), 10, true);
	CHECK_EQ(o.v, DR_NEIGH_REPLY);
	CHECK(same_bytes(o.reply, o.len, gold_arp_reply, sizeof(gold_arp_reply)));
	e = dr_neigh_lookup(t, g);
	CHECK(e != NULL && e->state == DR_NEIGH_LEARNED && rte_is_same_ether_addr(&e->mac, &peer));
	CHECK_EQ(t->stats.arp_rx, 1);
	CHECK_EQ(t->stats.replies, 1);

	/* the same with an 802.1Q tag: the reply keeps it */
	memcpy(f, in_arp_request, 12);
	f[12] = 0x81; f[13] = 0x00; f[14] = 0xA1; f[15] = 0x23;
	memcpy(f + 16, in_arp_request + 12, sizeof(in_arp_request) - 12);
	o = feed(t, &self, f, sizeof(in_arp_request) + 4, 11, false);
	CHECK_EQ(o.v, DR_NEIGH_REPLY);
	CHECK(same_bytes(o.reply, o.len, gold_arp_reply_vlan, sizeof(gold_arp_reply_vlan)));

	/* a reply to us creates the entry */
	dr_neigh_init(t, RETRY);
	o = feed(t, &self, in_arp_reply, sizeof(in_arp_reply), 12, true);
	CHECK_EQ(o.v, DR_NEIGH_DONE);
	CHECK_EQ(o.len, 0);
	CHECK(dr_neigh_lookup(t, g) != NULL);

	/* a request for someone else: nothing learned unless already known, no answer */
	dr_neigh_init(t, RETRY);
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	f[41] = 0x07;                                         /* who has 10.0.0.7 */
	o = feed(t, &self, f, sizeof(in_arp_request), 13, true);
	CHECK_EQ(o.v, DR_NEIGH_DONE);
	CHECK(dr_neigh_lookup(t, g) == NULL);
	CHECK_EQ(t->stats.not_for_us, 1);
	CHECK_EQ(dr_neigh_learn(t, g, &other, true, true, 14), 1);
	o = feed(t, &self, f, sizeof(in_arp_request), 15, true);
	CHECK(rte_is_same_ether_addr(&dr_neigh_lookup(t, g)->mac, &peer));   /* updated */
	/* static entries stay */
	CHECK_EQ(dr_neigh_add_static(t, g, &other, 16), 0);
	o = feed(t, &self, in_arp_request, sizeof(in_arp_request), 17, true);
	CHECK_EQ(o.v, DR_NEIGH_REPLY);
	CHECK(rte_is_same_ether_addr(&dr_neigh_lookup(t, g)->mac, &other));

	/* a probe (sender 0.0.0.0, RFC 5227) for us: answered, nothing learned */
	dr_neigh_init(t, RETRY);
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	memset(f + 28, 0, 4);
	o = feed(t, &self, f, sizeof(in_arp_request), 18, true);
	CHECK_EQ(o.v, DR_NEIGH_REPLY);
	CHECK_EQ(t->count, 0);
	CHECK(memcmp(o.reply + 38, "\0\0\0\0", 4) == 0);       /* target protocol address 0 */

	/* someone claims our address: counted, not learned, not answered */
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	f[31] = 0x01;                                         /* sender 10.0.0.1 */
	o = feed(t, &self, f, sizeof(in_arp_request), 19, true);
	CHECK_EQ(o.v, DR_NEIGH_DONE);
	CHECK_EQ(t->stats.conflict, 1);
	CHECK_EQ(t->count, 0);

	/* no IPv4 address: never answer */
	self.ipv4 = 0;
	o = feed(t, &self, in_arp_request, sizeof(in_arp_request), 20, true);
	CHECK_EQ(o.v, DR_NEIGH_DONE);
	self_init(&self);

	/* not ARP we speak: another hardware type, RARP */
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	f[15] = 6;                                            /* IEEE 802 */
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_request), 21, false).v, DR_NEIGH_DONE);
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	f[21] = 3;                                            /* RARP request */
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_request), 22, false).v, DR_NEIGH_DONE);

	/* malformed: every truncation, bad address lengths, a group sender address */
	for (uint32_t len = 0; len < 42; len++) {
		uint64_t before = t->stats.malformed;

		CHECK_MSG(feed(t, &self, in_arp_request, len, 23, true).v == DR_NEIGH_MALFORMED,
			  "truncated to %u", len);
		CHECK_EQ(t->stats.malformed, before + 1);
	}
	CHECK_EQ(feed(t, &self, in_arp_request, 42, 24, false).v, DR_NEIGH_REPLY);  /* unpadded is fine */
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	f[18] = 8;
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_request), 25, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	f[19] = 16;
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_request), 26, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	f[22] = 0x01;                                         /* sender 01:00:00:00:00:02 */
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_request), 27, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	memset(f + 22, 0, 6);
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_request), 28, false).v, DR_NEIGH_MALFORMED);
	/* a tag with nothing after it */
	memcpy(f, in_arp_request, 12);
	f[12] = 0x81; f[13] = 0x00; f[14] = 0; f[15] = 1;
	CHECK_EQ(feed(t, &self, f, 16, 29, false).v, DR_NEIGH_MALFORMED);
	CHECK_EQ(t->count, 0);
	free(t);
}

/* Put the right ICMPv6 checksum back after an edit elsewhere in an untagged NS/NA. */
static void
fix_cksum(uint8_t *f)
{
	uint32_t plen = (uint32_t)(f[IP6 + 4] << 8 | f[IP6 + 5]);
	uint16_t ck;

	f[ICMP + 2] = 0;
	f[ICMP + 3] = 0;
	ck = dr_nd_cksum(f + IP6 + 8, f + IP6 + 24, f + ICMP, plen);
	memcpy(f + ICMP + 2, &ck, 2);
}

static void
test_nd(void)
{
	struct dr_neigh_table *t = table_new();
	uint8_t f[256], req[DR_NEIGH_FRAME_MAX];
	const struct dr_neigh_entry *e;
	struct dr_neigh_self self;
	struct rte_ether_addr mac;
	struct outcome o;
	uint32_t len;

	self_init(&self);

	/* an NS for fd00::1: the NA scapy expects, and the sender learned from its SLLA */
	o = feed(t, &self, in_ns, sizeof(in_ns), 10, true);
	CHECK_EQ(o.v, DR_NEIGH_REPLY);
	CHECK(same_bytes(o.reply, o.len, gold_na, sizeof(gold_na)));
	e = dr_neigh_lookup(t, peer_ula);
	CHECK(e != NULL && e->state == DR_NEIGH_LEARNED && rte_is_same_ether_addr(&e->mac, &peer));
	CHECK_EQ(t->stats.nd_rx, 1);

	/* a unicast NS without SLLA: answered to the frame's source MAC, nothing learned */
	dr_neigh_init(t, RETRY);
	memcpy(f, in_ns, sizeof(in_ns));
	memcpy(f, me.addr_bytes, 6);
	memcpy(f + IP6 + 24, me_ula, 16);
	f[IP6 + 5] = 24;
	fix_cksum(f);
	o = feed(t, &self, f, sizeof(in_ns) - 8, 11, true);
	CHECK_EQ(o.v, DR_NEIGH_REPLY);
	CHECK(same_bytes(o.reply, o.len, gold_na, sizeof(gold_na)));
	CHECK_EQ(t->count, 0);

	/* Duplicate Address Detection of our link-local address: defended to all-nodes */
	o = feed(t, &self, in_ns_dad, sizeof(in_ns_dad), 12, true);
	CHECK_EQ(o.v, DR_NEIGH_REPLY);
	CHECK(same_bytes(o.reply, o.len, gold_na_dad, sizeof(gold_na_dad)));
	CHECK_EQ(t->stats.conflict, 1);
	CHECK_EQ(t->count, 0);

	/* an NS for an address not ours: nothing */
	memcpy(f, in_ns, sizeof(in_ns));
	f[ICMP + 8 + 15] = 0x05;
	fix_cksum(f);
	o = feed(t, &self, f, sizeof(in_ns), 13, true);
	CHECK_EQ(o.v, DR_NEIGH_DONE);
	CHECK_EQ(t->count, 0);

	/* with an 802.1Q tag: the NA keeps it */
	memcpy(f, in_ns, 12);
	f[12] = 0x81; f[13] = 0x00; f[14] = 0x00; f[15] = 0x07;
	memcpy(f + 16, in_ns + 12, sizeof(in_ns) - 12);
	o = feed(t, &self, f, sizeof(in_ns) + 4, 14, false);
	CHECK_EQ(o.v, DR_NEIGH_REPLY);
	CHECK_EQ(o.len, sizeof(gold_na) + 4);
	CHECK(o.reply[12] == 0x81 && o.reply[15] == 0x07);
	CHECK(memcmp(o.reply + 16, gold_na + 12, sizeof(gold_na) - 12) == 0);

	/* an NA: learned only for an address we asked for (RFC 4861 7.2.5) */
	dr_neigh_init(t, RETRY);
	o = feed(t, &self, in_na, sizeof(in_na), 20, true);
	CHECK_EQ(o.v, DR_NEIGH_DONE);
	CHECK(dr_neigh_lookup(t, peer_ll) == NULL);
	CHECK_EQ(dr_neigh_resolve(t, &self, peer_ll, 21, &mac, req, &len), -EAGAIN);
	CHECK(same_bytes(req, len, gold_ns, sizeof(gold_ns)));
	o = feed(t, &self, in_na, sizeof(in_na), 22, true);
	CHECK_EQ(dr_neigh_resolve(t, &self, peer_ll, 23, &mac, req, &len), 0);
	CHECK(rte_is_same_ether_addr(&mac, &peer));
	/* an NA without Override does not move a known entry; with it, it does */
	memcpy(f, in_na, sizeof(in_na));
	f[ICMP + 4] = DR_ND_NA_SOLICITED;
	f[ICMP + 24 + 7] = 0x09;
	fix_cksum(f);
	feed(t, &self, f, sizeof(in_na), 24, true);
	CHECK(rte_is_same_ether_addr(&dr_neigh_lookup(t, peer_ll)->mac, &peer));
	f[ICMP + 4] = DR_ND_NA_SOLICITED | DR_ND_NA_OVERRIDE;
	fix_cksum(f);
	feed(t, &self, f, sizeof(in_na), 25, true);
	CHECK(rte_is_same_ether_addr(&dr_neigh_lookup(t, peer_ll)->mac, &other));
	/* an NA for our own address from another MAC: a conflict */
	memcpy(f, in_na, sizeof(in_na));
	memcpy(f + ICMP + 8, me_ll, 16);
	fix_cksum(f);
	t->stats.conflict = 0;
	CHECK_EQ(feed(t, &self, f, sizeof(in_na), 26, true).v, DR_NEIGH_DONE);
	CHECK_EQ(t->stats.conflict, 1);

	/* every truncation is malformed */
	for (len = 0; len < sizeof(in_ns); len++)
		CHECK_MSG(feed(t, &self, in_ns, len, 30, false).v == DR_NEIGH_MALFORMED, "truncated to %u", len);
	/* every corrupted ICMPv6 byte but the type fails the checksum */
	for (uint32_t i = ICMP + 1; i < sizeof(in_ns); i++) {
		memcpy(f, in_ns, sizeof(in_ns));
		f[i] ^= 0x20;
		CHECK_MSG(feed(t, &self, f, sizeof(in_ns), 31, false).v == DR_NEIGH_MALFORMED, "byte %u", i);
	}
	/* and so do corrupted addresses (pseudo-header) and a wrong payload length */
	for (uint32_t i = IP6 + 8; i < IP6 + 40; i += 5) {
		memcpy(f, in_ns, sizeof(in_ns));
		f[i] ^= 0x01;
		CHECK_MSG(feed(t, &self, f, sizeof(in_ns), 32, false).v == DR_NEIGH_MALFORMED,
			  "address byte %u", i);
	}
	memcpy(f, in_ns, sizeof(in_ns));
	f[IP6 + 5] = 24;                                      /* a shorter payload length, padding after */
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 33, false).v, DR_NEIGH_MALFORMED);
	fix_cksum(f);                                         /* right for 24 bytes: valid, the SLLA is padding */
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 33, false).v, DR_NEIGH_REPLY);
	/* RFC 4861 7.1.1 / 7.1.2 rules, checksum right each time */
	memcpy(f, in_ns, sizeof(in_ns));
	f[IP6 + 7] = 64;                                      /* hop limit */
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 34, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_ns, sizeof(in_ns));
	f[ICMP + 1] = 1;                                      /* code */
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 35, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_ns, sizeof(in_ns));
	f[ICMP + 8] = 0xFF;                                   /* multicast target */
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 36, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_ns, sizeof(in_ns));
	f[ICMP + 25] = 0;                                     /* option of length 0 */
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 37, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_ns, sizeof(in_ns));
	f[ICMP + 25] = 2;                                     /* option past the end */
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 38, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_ns, sizeof(in_ns));
	f[IP6 + 5] = 23;                                      /* below the 24-byte message */
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 39, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_ns, sizeof(in_ns));
	f[ICMP + 26] = 0x01;                                  /* SLLA is a group address */
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 40, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_ns, sizeof(in_ns));
	f[IP6 + 8] = 0xFF;                                    /* multicast source */
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 41, false).v, DR_NEIGH_MALFORMED);
	/* DAD: to an address other than the solicited-node one, or with an SLLA */
	memcpy(f, in_ns_dad, sizeof(in_ns_dad));
	f[IP6 + 24 + 15] = 0x02;
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns_dad), 42, false).v, DR_NEIGH_MALFORMED);
	memcpy(f, in_ns, sizeof(in_ns));
	memset(f + IP6 + 8, 0, 16);
	memcpy(f + ICMP + 8, me_ll, 16);
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 43, false).v, DR_NEIGH_MALFORMED);
	/* a solicited NA to a multicast address */
	memcpy(f, in_na, sizeof(in_na));
	memcpy(f + IP6 + 24, "\xff\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_na), 44, false).v, DR_NEIGH_MALFORMED);
	f[ICMP + 4] = DR_ND_NA_OVERRIDE;                      /* unsolicited: fine */
	fix_cksum(f);
	CHECK_EQ(feed(t, &self, f, sizeof(in_na), 45, false).v, DR_NEIGH_DONE);
	free(t);
}

/* Frames that are none of our business. */
static void
test_other(void)
{
	struct dr_neigh_table *t = table_new();
	struct dr_neigh_self self;
	uint8_t f[128];

	self_init(&self);
	/* IPv4, an unknown EtherType */
	memcpy(f, in_arp_request, sizeof(in_arp_request));
	f[13] = 0x00;
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_request), 1, true).v, DR_NEIGH_OTHER);
	f[12] = 0x88;
	f[13] = 0xB5;
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_request), 1, true).v, DR_NEIGH_OTHER);
	/* IPv6 UDP, ICMPv6 echo request */
	memcpy(f, in_ns, sizeof(in_ns));
	f[IP6 + 6] = 17;
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 1, true).v, DR_NEIGH_OTHER);
	memcpy(f, in_ns, sizeof(in_ns));
	f[ICMP] = 128;
	CHECK_EQ(feed(t, &self, f, sizeof(in_ns), 1, true).v, DR_NEIGH_OTHER);
	CHECK_EQ(t->stats.other, 4);
	/* to another unicast MAC (promiscuous) */
	memcpy(f, in_arp_reply, sizeof(in_arp_reply));
	memcpy(f, other.addr_bytes, 6);
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_reply), 1, true).v, DR_NEIGH_DONE);
	CHECK_EQ(t->stats.not_for_us, 1);
	/* our own request back: no conflict, nothing learned */
	CHECK_EQ(feed(t, &self, gold_arp_request, sizeof(gold_arp_request), 1, true).v, DR_NEIGH_DONE);
	CHECK_EQ(t->stats.conflict, 0);
	/* net_tap: the kernel's interface has our MAC; its answers count */
	memcpy(f, in_arp_reply, sizeof(in_arp_reply));
	memcpy(f + 6, me.addr_bytes, 6);
	memcpy(f + 22, me.addr_bytes, 6);
	CHECK_EQ(feed(t, &self, f, sizeof(in_arp_reply), 1, true).v, DR_NEIGH_DONE);
	{
		uint8_t g[16];

		gid4(g, 0x0A000002);
		CHECK(dr_neigh_lookup(t, g) != NULL &&
		      rte_is_same_ether_addr(&dr_neigh_lookup(t, g)->mac, &me));
	}
	CHECK_EQ(t->count, 1);
	CHECK_EQ(t->stats.malformed, 0);
	free(t);
}

/*
 * Random damage to every vector (bytes changed, lengths cut or extended):
 * nothing is read outside the frame (exact-size heap copies, for ASan),
 * flat and two-segment parsing agree, replies fit DR_NEIGH_FRAME_MAX.
 */
static void
test_fuzz(void)
{
	static const struct {
		const uint8_t *f;
		uint32_t len;
	} vec[] = {
		{ in_arp_request, sizeof(in_arp_request) }, { in_arp_reply, sizeof(in_arp_reply) },
		{ in_ns, sizeof(in_ns) }, { in_ns_dad, sizeof(in_ns_dad) }, { in_na, sizeof(in_na) },
		{ gold_na, sizeof(gold_na) }, { gold_arp_reply_vlan, sizeof(gold_arp_reply_vlan) },
	};
	struct dr_neigh_table *t = table_new(), *t2 = table_new();
	uint8_t reply[DR_NEIGH_FRAME_MAX], reply2[DR_NEIGH_FRAME_MAX];
	unsigned int disagree = 0, too_long = 0;
	struct dr_neigh_self self;
	uint32_t seed = 99;

	self_init(&self);
	for (uint32_t iter = 0; iter < 200000; iter++) {
		uint32_t v = (seed = seed * 1103515245u + 12345u) >> 16, r1, r2, cut;
		uint32_t vlen = vec[v % RTE_DIM(vec)].len, len = vlen;
		const uint8_t *src = vec[v % RTE_DIM(vec)].f;
		enum dr_neigh_verdict a, b;
		struct rte_mbuf *m;
		uint8_t *f;

		v = (seed = seed * 1103515245u + 12345u) >> 16;
		if (v % 4 == 0)
			len = v / 4 % (vlen + 16);          /* cut short, or zero-extended */
		f = calloc(1, len != 0 ? len : 1);
		if (f == NULL)
			abort();
		memcpy(f, src, RTE_MIN(len, vlen));
		for (uint32_t k = v % 3; k < 3 && len > 0; k++) {
			v = (seed = seed * 1103515245u + 12345u) >> 16;
			f[v % len] = (uint8_t)(v >> 8);
		}
		if (iter % 1024 == 0) {
			dr_neigh_init(t, RETRY);
			dr_neigh_init(t2, RETRY);
		}
		a = dr_neigh_input(t, &self, f, len, iter, reply, &r1);
		cut = len > 1 ? 1 + v % (len - 1) : 0;
		m = cut == 0 ? mbuf_of(f, len) : mbuf2_of(f, len, cut);
		b = dr_neigh_input_mbuf(t2, &self, m, iter, reply2, &r2);
		if (a != b || r1 != r2 || memcmp(reply, reply2, r1) != 0)
			disagree++;
		if (r1 > DR_NEIGH_FRAME_MAX || (a == DR_NEIGH_REPLY) != (r1 != 0))
			too_long++;
		tmbuf_free(m);
		free(f);
	}
	CHECK_MSG(disagree == 0, "%u frames parsed differently flat and in segments", disagree);
	CHECK_EQ(too_long, 0);
	free(t);
	free(t2);
}

int
main(void)
{
	test_builders();
	test_arp();
	test_nd();
	test_other();
	test_fuzz();
	return dr_test_report("arp_nd");
}
