/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The neighbour table of the ethdev backend: lookup, static and learned
 * entries and their rules, eviction when full, deletion that keeps every
 * other entry reachable (checked against a shadow copy after each step of a
 * long pseudo-random run), multicast mapping, and resolve(): the request it
 * writes on a miss and its rate limit per address.
 */

#include <errno.h>

#include "dr_neigh.h"
#include "dr_pkt.h"
#include "dr_test.h"

#define RETRY 1000u                /* cycles between requests, for the tests */

static const struct rte_ether_addr me = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr peer = { { 0x02, 0, 0, 0, 0, 0x02 } };
static const struct rte_ether_addr peer2 = { { 0x02, 0, 0, 0, 0, 0x03 } };

static void
gid4(uint8_t gid[16], uint32_t host_order_addr)
{
	dr_gid_from_ipv4(gid, rte_cpu_to_be_32(host_order_addr));
}

static void
gid6(uint8_t gid[16], uint16_t first, uint32_t last)
{
	memset(gid, 0, 16);
	gid[0] = (uint8_t)(first >> 8);
	gid[1] = (uint8_t)first;
	gid[12] = (uint8_t)(last >> 24);
	gid[13] = (uint8_t)(last >> 16);
	gid[14] = (uint8_t)(last >> 8);
	gid[15] = (uint8_t)last;
}

static void
self_init(struct dr_neigh_self *s)
{
	memset(s, 0, sizeof(*s));
	s->mac = me;
	s->ipv4 = rte_cpu_to_be_32(0x0A000001);
	gid6(s->ipv6[0], 0xFE80, 0x00FF0001);      /* fe80::ff:1 (any link-local will do) */
	gid6(s->ipv6[1], 0xFD00, 1);                /* fd00::1 */
	s->num_ipv6 = 2;
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

static void
test_static_and_learn(void)
{
	struct dr_neigh_table *t = table_new();
	const struct dr_neigh_entry *e;
	struct rte_ether_addr bad;
	uint8_t g[16], zero[16] = { 0 };

	gid4(g, 0x0A000002);
	CHECK(dr_neigh_lookup(t, g) == NULL);
	/* learning without create makes nothing (RFC 826: update only what is there) */
	CHECK_EQ(dr_neigh_learn(t, g, &peer, false, true, 1), 0);
	CHECK(dr_neigh_lookup(t, g) == NULL);
	CHECK_EQ(dr_neigh_learn(t, g, &peer, true, true, 1), 1);
	e = dr_neigh_lookup(t, g);
	CHECK(e != NULL && e->state == DR_NEIGH_LEARNED && rte_is_same_ether_addr(&e->mac, &peer));
	CHECK_EQ(t->count, 1);
	CHECK_EQ(t->stats.learned, 1);
	/* the same MAC again: a confirmation, nothing changes */
	CHECK_EQ(dr_neigh_learn(t, g, &peer, true, true, 5), 0);
	CHECK_EQ(e->seen_tsc, 5);
	/* a new MAC: only with override */
	CHECK_EQ(dr_neigh_learn(t, g, &peer2, false, false, 6), 0);
	CHECK(rte_is_same_ether_addr(&e->mac, &peer));
	CHECK_EQ(dr_neigh_learn(t, g, &peer2, false, true, 7), 1);
	CHECK(rte_is_same_ether_addr(&e->mac, &peer2));
	CHECK_EQ(t->stats.updated, 1);
	/* static replaces it; learning never changes a static entry */
	CHECK_EQ(dr_neigh_add_static(t, g, &peer, 8), 0);
	CHECK(e->state == DR_NEIGH_STATIC && rte_is_same_ether_addr(&e->mac, &peer));
	CHECK_EQ(dr_neigh_learn(t, g, &peer2, true, true, 9), 0);
	CHECK(rte_is_same_ether_addr(&e->mac, &peer));
	CHECK_EQ(t->count, 1);
	/* a static entry can be replaced by another static one */
	CHECK_EQ(dr_neigh_add_static(t, g, &peer2, 10), 0);
	CHECK(rte_is_same_ether_addr(&dr_neigh_lookup(t, g)->mac, &peer2));

	/* bad input */
	CHECK_EQ(dr_neigh_add_static(t, zero, &peer, 0), -EINVAL);
	gid4(g, 0);
	CHECK_EQ(dr_neigh_add_static(t, g, &peer, 0), -EINVAL);     /* ::ffff:0.0.0.0 */
	gid4(g, 0x0A000003);
	memset(&bad, 0, sizeof(bad));
	CHECK_EQ(dr_neigh_add_static(t, g, &bad, 0), -EINVAL);      /* zero MAC */
	memset(&bad, 0xFF, sizeof(bad));
	CHECK_EQ(dr_neigh_add_static(t, g, &bad, 0), -EINVAL);      /* broadcast */
	bad.addr_bytes[0] = 0x01;
	CHECK_EQ(dr_neigh_learn(t, g, &bad, true, true, 0), -EINVAL); /* multicast */
	CHECK_EQ(dr_neigh_del(t, g), -ENOENT);
	free(t);
}

/* Both families share the table: an IPv4-mapped GID and an IPv6 one differing in the prefix. */
static void
test_families(void)
{
	struct dr_neigh_table *t = table_new();
	uint8_t g4[16], g6[16];

	gid4(g4, 0x0A000002);
	memcpy(g6, g4, 16);
	g6[0] = 0xFD;
	CHECK_EQ(dr_neigh_add_static(t, g4, &peer, 0), 0);
	CHECK_EQ(dr_neigh_add_static(t, g6, &peer2, 0), 0);
	CHECK(rte_is_same_ether_addr(&dr_neigh_lookup(t, g4)->mac, &peer));
	CHECK(rte_is_same_ether_addr(&dr_neigh_lookup(t, g6)->mac, &peer2));
	CHECK_EQ(dr_neigh_del(t, g4), 0);
	CHECK(dr_neigh_lookup(t, g4) == NULL);
	CHECK(dr_neigh_lookup(t, g6) != NULL);
	free(t);
}

/* Shadow of the table: what must be found, and with which MAC. */
struct shadow {
	uint8_t gid[16];
	uint8_t mac_byte;
	bool present;
};

static uint32_t
lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/*
 * Random inserts and deletes over a key space twice the table's size, in a
 * table kept nearly full: after every step each shadow entry must be found
 * with its MAC and each absent one not found (backward-shift deletion must
 * keep every probe run intact).
 */
static void
test_random_del(void)
{
	enum { KEYS = DR_NEIGH_ENTRIES * 2, STEPS = 20000 };
	struct dr_neigh_table *t = table_new();
	struct shadow *sh = calloc(KEYS, sizeof(*sh));
	uint32_t seed = 12345, present = 0, bad = 0;

	if (sh == NULL)
		abort();
	for (uint32_t k = 0; k < KEYS; k++) {
		/* clustered keys: consecutive IPv4 addresses, and IPv6 ones differing in one byte */
		if (k & 1)
			gid4(sh[k].gid, 0x0A000000 + k);
		else
			gid6(sh[k].gid, 0xFD00, k);
		sh[k].mac_byte = (uint8_t)(k * 7 + 1);
	}
	for (uint32_t step = 0; step < STEPS; step++) {
		uint32_t k = lcg(&seed) % KEYS;

		if (sh[k].present) {
			CHECK_EQ(dr_neigh_del(t, sh[k].gid), 0);
			sh[k].present = false;
			present--;
		} else if (present < DR_NEIGH_ENTRIES) {
			struct rte_ether_addr mac = { { 0x02, 0, 0, 0, 0, sh[k].mac_byte } };

			CHECK_EQ(dr_neigh_add_static(t, sh[k].gid, &mac, step), 0);
			sh[k].present = true;
			present++;
		}
		if (t->count != present)
			bad++;
		if (step % 97 == 0 || step == STEPS - 1) {
			for (uint32_t j = 0; j < KEYS; j++) {
				const struct dr_neigh_entry *e = dr_neigh_lookup(t, sh[j].gid);

				if (sh[j].present != (e != NULL) ||
				    (e != NULL && e->mac.addr_bytes[5] != sh[j].mac_byte))
					bad++;
			}
		}
	}
	CHECK_MSG(bad == 0, "%u inconsistencies", bad);
	CHECK_EQ(t->stats.evicted, 0);
	free(sh);
	free(t);
}

/* A full table evicts incomplete entries first, then the least recently confirmed learned one. */
static void
test_evict(void)
{
	struct dr_neigh_table *t = table_new();
	struct dr_neigh_self self;
	uint8_t g[16], req[DR_NEIGH_FRAME_MAX];
	struct rte_ether_addr mac;
	uint32_t len;

	self_init(&self);
	/* entries 0..N-1: learned at time 100 + i; entry 5 confirmed late */
	for (uint32_t i = 0; i < DR_NEIGH_ENTRIES; i++) {
		gid4(g, 0x0A010000 + i);
		CHECK_EQ(dr_neigh_learn(t, g, &peer, true, true, 100 + i), 1);
	}
	CHECK_EQ(t->count, DR_NEIGH_ENTRIES);
	gid4(g, 0x0A010000);
	CHECK_EQ(dr_neigh_learn(t, g, &peer, true, true, 100000), 0);   /* 0 confirmed: now the newest */
	/* one more: the oldest, entry 1, goes */
	gid4(g, 0x0A020000);
	CHECK_EQ(dr_neigh_learn(t, g, &peer, true, true, 200000), 1);
	CHECK_EQ(t->count, DR_NEIGH_ENTRIES);
	CHECK_EQ(t->stats.evicted, 1);
	gid4(g, 0x0A010001);
	CHECK(dr_neigh_lookup(t, g) == NULL);
	gid4(g, 0x0A010000);
	CHECK(dr_neigh_lookup(t, g) != NULL);
	/* an incomplete entry (resolve miss) evicts entry 2 ... */
	gid4(g, 0x0A030000);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 300000, &mac, req, &len), -EAGAIN);
	CHECK(len > 0);
	gid4(g, 0x0A010002);
	CHECK(dr_neigh_lookup(t, g) == NULL);
	/* ... and is the first to go at the next insertion */
	gid4(g, 0x0A040000);
	CHECK_EQ(dr_neigh_learn(t, g, &peer, true, true, 400000), 1);
	gid4(g, 0x0A030000);
	CHECK(dr_neigh_lookup(t, g) == NULL);
	gid4(g, 0x0A010003);
	CHECK(dr_neigh_lookup(t, g) != NULL);
	CHECK_EQ(t->stats.evicted, 3);

	/* all static: nothing can go */
	dr_neigh_init(t, RETRY);
	for (uint32_t i = 0; i < DR_NEIGH_ENTRIES; i++) {
		gid4(g, 0x0A010000 + i);
		CHECK_EQ(dr_neigh_add_static(t, g, &peer, 0), 0);
	}
	gid4(g, 0x0A020000);
	CHECK_EQ(dr_neigh_add_static(t, g, &peer, 0), -ENOSPC);
	CHECK_EQ(dr_neigh_learn(t, g, &peer, true, true, 0), -ENOSPC);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 0, &mac, req, &len), -ENOSPC);
	CHECK_EQ(len, 0);
	CHECK_EQ(t->stats.full, 3);
	/* a static one can still be replaced in place */
	gid4(g, 0x0A010007);
	CHECK_EQ(dr_neigh_add_static(t, g, &peer2, 0), 0);
	free(t);
}

static void
test_mcast(void)
{
	struct rte_ether_addr mac;
	uint8_t g[16];

	gid4(g, 0xE0000001);                            /* 224.0.0.1 */
	CHECK(dr_neigh_mcast_mac(g, &mac));
	CHECK(memcmp(mac.addr_bytes, "\x01\x00\x5e\x00\x00\x01", 6) == 0);
	gid4(g, 0xEFFF8102);                            /* 239.255.129.2: the 24th bit is dropped */
	CHECK(dr_neigh_mcast_mac(g, &mac));
	CHECK(memcmp(mac.addr_bytes, "\x01\x00\x5e\x7f\x81\x02", 6) == 0);
	gid4(g, 0xFFFFFFFF);
	CHECK(dr_neigh_mcast_mac(g, &mac) && rte_is_broadcast_ether_addr(&mac));
	gid4(g, 0x0A000001);
	CHECK(!dr_neigh_mcast_mac(g, &mac));
	gid6(g, 0xFF02, 0x01FF1234);                    /* ff02::1:ff12:3456 style */
	CHECK(dr_neigh_mcast_mac(g, &mac));
	CHECK(memcmp(mac.addr_bytes, "\x33\x33\x01\xff\x12\x34", 6) == 0);
	gid6(g, 0xFD00, 1);
	CHECK(!dr_neigh_mcast_mac(g, &mac));
}

static void
test_resolve(void)
{
	struct dr_neigh_table *t = table_new();
	uint8_t g[16], g6[16], req[DR_NEIGH_FRAME_MAX];
	const struct dr_neigh_entry *e;
	struct dr_neigh_self self;
	struct rte_ether_addr mac;
	uint32_t len = 99;

	self_init(&self);
	gid4(g, 0x0A000002);
	/* a miss: request now (at time 0 too), then not again before RETRY cycles */
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 0, &mac, req, &len), -EAGAIN);
	CHECK_EQ(len, DR_ARP_FRAME_LEN);
	CHECK(rte_is_broadcast_ether_addr((const struct rte_ether_addr *)req));
	CHECK_EQ(req[12], 0x08);
	CHECK_EQ(req[13], 0x06);
	e = dr_neigh_lookup(t, g);
	CHECK(e != NULL && e->state == DR_NEIGH_INCOMPLETE);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, RETRY - 1, &mac, req, &len), -EAGAIN);
	CHECK_EQ(len, 0);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, RETRY, &mac, req, &len), -EAGAIN);
	CHECK_EQ(len, DR_ARP_FRAME_LEN);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 2 * RETRY - 1, &mac, req, &len), -EAGAIN);
	CHECK_EQ(len, 0);
	CHECK_EQ(t->stats.requests, 2);
	/* the rate limit is per address: another one asks at once */
	gid6(g6, 0xFD00, 2);
	CHECK_EQ(dr_neigh_resolve(t, &self, g6, RETRY + 1, &mac, req, &len), -EAGAIN);
	CHECK_EQ(len, 86);
	CHECK_EQ(req[12], 0x86);
	CHECK_EQ(req[13], 0xDD);
	/* the answer completes the entry whatever override says */
	CHECK_EQ(dr_neigh_learn(t, g, &peer, false, false, 5000), 1);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 5001, &mac, req, &len), 0);
	CHECK_EQ(len, 0);
	CHECK(rte_is_same_ether_addr(&mac, &peer));
	/* static entries resolve at once */
	gid4(g, 0x0A000003);
	CHECK_EQ(dr_neigh_add_static(t, g, &peer2, 0), 0);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 0, &mac, req, &len), 0);
	CHECK(rte_is_same_ether_addr(&mac, &peer2));
	/* multicast needs no entry */
	gid4(g, 0xE0000001);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 0, &mac, req, &len), 0);
	CHECK(rte_is_multicast_ether_addr(&mac));
	CHECK(dr_neigh_lookup(t, g) == NULL);
	/* errors */
	memset(g, 0, 16);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 0, &mac, req, &len), -EINVAL);
	gid4(g, 0);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 0, &mac, req, &len), -EINVAL);
	self.ipv4 = 0;
	gid4(g, 0x0A000009);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 0, &mac, req, &len), -EADDRNOTAVAIL);
	CHECK(dr_neigh_lookup(t, g) == NULL);
	self.num_ipv6 = 0;
	gid6(g, 0xFD00, 9);
	CHECK_EQ(dr_neigh_resolve(t, &self, g, 0, &mac, req, &len), -EADDRNOTAVAIL);
	CHECK_EQ(len, 0);
	free(t);
}

int
main(void)
{
	test_static_and_learn();
	test_families();
	test_random_del();
	test_evict();
	test_mcast();
	test_resolve();
	return dr_test_report("neigh");
}
