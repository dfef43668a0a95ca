/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The CM's addresses (lib/cm/dr_cm_addr.c): sockaddrs as RoCEv2 GIDs, the
 * source GID chosen for a destination, the IP addressing header of Annex
 * A11.6.1 for both families, and which listener takes which request.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>

#include "dr_cm_addr.h"
#include "dr_test.h"

static union dr_gid
gid_str(const char *s)
{
	union dr_gid g;

	memset(&g, 0, sizeof(g));
	if (inet_pton(AF_INET6, s, g.raw) != 1)
		fprintf(stderr, "bad test address %s\n", s);
	return g;
}

static struct sockaddr_storage
ss_of(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, ip, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
	} else {
		(void)inet_pton(AF_INET6, ip, &in6->sin6_addr);
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
	}
	return ss;
}

static void
test_gid(void)
{
	struct sockaddr_storage a = ss_of("10.0.0.7", 4791), b = ss_of("fd00::7", 18515), c;
	struct sockaddr other = { .sa_family = AF_UNIX };
	union dr_gid g, want;
	uint16_t port;

	CHECK_EQ(dr_cm_addr_gid((struct sockaddr *)&a, &g, &port), 0);
	want = gid_str("::ffff:10.0.0.7");
	CHECK(memcmp(g.raw, want.raw, 16) == 0 && port == 4791);
	CHECK(dr_cm_gid_is_v4(&g) && !dr_cm_gid_is_any(&g) && !dr_cm_gid_is_link_local(&g));
	dr_cm_addr_set(&c, AF_INET, &g, 7);
	CHECK(c.ss_family == AF_INET && dr_cm_addr_port(&c) == 7 &&
	      ((struct sockaddr_in *)&c)->sin_addr.s_addr == ((struct sockaddr_in *)&a)->sin_addr.s_addr);

	CHECK_EQ(dr_cm_addr_gid((struct sockaddr *)&b, &g, &port), 0);
	want = gid_str("fd00::7");
	CHECK(memcmp(g.raw, want.raw, 16) == 0 && port == 18515 && !dr_cm_gid_is_v4(&g));
	dr_cm_addr_set(&c, AF_INET6, &g, 9);
	CHECK(c.ss_family == AF_INET6 && dr_cm_addr_port(&c) == 9 &&
	      memcmp(((struct sockaddr_in6 *)&c)->sin6_addr.s6_addr, want.raw, 16) == 0);

	CHECK_EQ(dr_cm_addr_gid(&other, &g, &port), -EAFNOSUPPORT);
	CHECK_EQ(dr_cm_addr_gid(NULL, &g, &port), -EAFNOSUPPORT);
	g = gid_str("::");
	CHECK(dr_cm_gid_is_any(&g));
	g = gid_str("::ffff:0.0.0.0");
	CHECK(dr_cm_gid_is_any(&g) && dr_cm_gid_is_v4(&g));
	g = gid_str("fe80::1");
	CHECK(dr_cm_gid_is_link_local(&g));
	g = gid_str("febf::1");
	CHECK(dr_cm_gid_is_link_local(&g));
	g = gid_str("fec0::1");
	CHECK(!dr_cm_gid_is_link_local(&g));
}

/* A context's table as dr_context.c makes it: 0 link-local, 1 IPv4, 2.. IPv6. */
static union dr_gid tbl[8];
static uint8_t valid[8];

static int
pick(int family, const char *src, const char *dst)
{
	union dr_gid s = gid_str(src), d;

	if (dst == NULL)
		return dr_cm_addr_sgid_index(tbl, valid, 8, family, &s, NULL);
	d = gid_str(dst);
	return dr_cm_addr_sgid_index(tbl, valid, 8, family, &s, &d);
}

static void
test_sgid(void)
{
	memset(valid, 0, sizeof(valid));
	tbl[0] = gid_str("fe80::200:ff:fe00:1");
	tbl[1] = gid_str("::ffff:10.0.0.1");
	tbl[2] = gid_str("fd00::1");
	tbl[3] = gid_str("fd01::1");
	valid[0] = valid[1] = valid[2] = valid[3] = 1;

	/* a bound address: its own entry, of its family only */
	CHECK_EQ(pick(AF_INET, "::ffff:10.0.0.1", NULL), 1);
	CHECK_EQ(pick(AF_INET6, "fd01::1", "fd00::9"), 3);
	CHECK_EQ(pick(AF_INET6, "fe80::200:ff:fe00:1", NULL), 0);
	CHECK_EQ(pick(AF_INET, "::ffff:10.0.0.9", NULL), -1);
	CHECK_EQ(pick(AF_INET6, "fd00::9", NULL), -1);
	CHECK_EQ(pick(AF_INET, "fd00::1", NULL), -1);
	CHECK_EQ(pick(AF_INET6, "::ffff:10.0.0.1", NULL), -1);

	/* the wildcard: IPv4 */
	CHECK_EQ(pick(AF_INET, "::ffff:0.0.0.0", "::ffff:10.0.0.2"), 1);
	CHECK_EQ(pick(AF_INET, "::ffff:0.0.0.0", NULL), 1);
	/* IPv6: the entry on the destination's /64, else the first global; link-local to link-local */
	CHECK_EQ(pick(AF_INET6, "::", "fd01::2"), 3);
	CHECK_EQ(pick(AF_INET6, "::", "fd00::2"), 2);
	CHECK_EQ(pick(AF_INET6, "::", "2001:db8::2"), 2);
	CHECK_EQ(pick(AF_INET6, "::", "fe80::5"), 0);
	CHECK_EQ(pick(AF_INET6, "::", NULL), 2);

	/* no global IPv6: a global destination has no source, the wildcard listens on link-local */
	valid[2] = valid[3] = 0;
	CHECK_EQ(pick(AF_INET6, "::", "fd00::2"), -1);
	CHECK_EQ(pick(AF_INET6, "::", "fe80::5"), 0);
	CHECK_EQ(pick(AF_INET6, "::", NULL), 0);
	/* no IPv4 address */
	valid[1] = 0;
	CHECK_EQ(pick(AF_INET, "::ffff:0.0.0.0", "::ffff:10.0.0.2"), -1);
}

static void
test_ip_hdr(void)
{
	struct sockaddr_storage s4 = ss_of("10.0.0.1", 0xC123), d4 = ss_of("10.0.0.2", 7471);
	struct sockaddr_storage s6 = ss_of("fd00::1", 0xC456), d6 = ss_of("fd00::2", 7471);
	static const uint8_t zero[12];
	struct dr_cm_ip_hdr h, back;
	uint8_t pd[DR_CM_IP_HDR_LEN];
	union dr_gid g;

	/* IPv4 (rdma_cm's union cma_ip_addr): the address in the last word, the rest zero */
	dr_cm_addr_ip_hdr(&h, &s4, &d4);
	CHECK(h.ip_version == 4 && h.src_port == 0xC123);
	CHECK(memcmp(h.src_addr, zero, 12) == 0 && memcmp(h.dst_addr, zero, 12) == 0);
	CHECK(memcmp(&h.src_addr[12], &((struct sockaddr_in *)&s4)->sin_addr, 4) == 0);
	dr_cm_ip_hdr_pack(&h, pd);
	CHECK(pd[0] == 0 && pd[1] == 0x40 && pd[2] == 0xC1 && pd[3] == 0x23);
	dr_cm_addr_hdr_gid(&h, h.dst_addr, &g);
	CHECK(memcmp(g.raw, gid_str("::ffff:10.0.0.2").raw, 16) == 0);

	/* IPv6: all 16 bytes, IPV 6 */
	dr_cm_addr_ip_hdr(&h, &s6, &d6);
	dr_cm_ip_hdr_pack(&h, pd);
	CHECK(pd[1] == 0x60 && pd[2] == 0xC4 && pd[3] == 0x56);
	CHECK(memcmp(pd + 4, gid_str("fd00::1").raw, 16) == 0 && memcmp(pd + 20, gid_str("fd00::2").raw, 16) == 0);
	CHECK_EQ(dr_cm_ip_hdr_unpack(pd, &back), 0);
	CHECK(back.ip_version == 6 && back.src_port == 0xC456);
	dr_cm_addr_hdr_gid(&back, back.src_addr, &g);
	CHECK(memcmp(g.raw, gid_str("fd00::1").raw, 16) == 0);
}

static void
test_listens(void)
{
	struct sockaddr_storage any4 = ss_of("0.0.0.0", 7471), any6 = ss_of("::", 7471);
	struct sockaddr_storage b4 = ss_of("10.0.0.2", 7471), b6 = ss_of("fd00::2", 7471);
	struct sockaddr_storage s4 = ss_of("10.0.0.1", 1), s6 = ss_of("fd00::1", 1);
	struct sockaddr_storage d4o = ss_of("10.0.0.3", 7471), d6o = ss_of("fd00::3", 7471);
	struct dr_cm_ip_hdr r4, r6, r4o, r6o;

	dr_cm_addr_ip_hdr(&r4, &s4, &b4);
	dr_cm_addr_ip_hdr(&r6, &s6, &b6);
	dr_cm_addr_ip_hdr(&r4o, &s4, &d4o);
	dr_cm_addr_ip_hdr(&r6o, &s6, &d6o);
	/* an IPv4 wildcard: IPv4 only; an IPv6 wildcard: both (no AFONLY) */
	CHECK(dr_cm_addr_listens(&any4, &r4) && !dr_cm_addr_listens(&any4, &r6));
	CHECK(dr_cm_addr_listens(&any6, &r4) && dr_cm_addr_listens(&any6, &r6));
	/* a bound address: requests to it */
	CHECK(dr_cm_addr_listens(&b4, &r4) && !dr_cm_addr_listens(&b4, &r4o) && !dr_cm_addr_listens(&b4, &r6));
	CHECK(dr_cm_addr_listens(&b6, &r6) && !dr_cm_addr_listens(&b6, &r6o) && !dr_cm_addr_listens(&b6, &r4));
}

int
main(void)
{
	test_gid();
	test_sgid();
	test_ip_hdr();
	test_listens();
	return dr_test_report("cm_addr");
}
