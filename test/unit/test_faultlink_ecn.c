/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-faultlink as a switch's congestion point (app/dpdk-rdma-faultlink
 * ecn.h, hist.h, fdb.h, queue.h): the RED/ECN marking probability at and
 * around kmin and kmax, the CE rewrite of IPv4 (checksum recomputed and
 * compared), IPv6, 802.1Q-tagged and Not-ECT frames, the "ecn" words of the
 * spec, the marking decisions' rate and their reproducibility, the output
 * queue's byte count through push, pop, unpop and drain, the backlog
 * histogram's quantiles, the learning table.
 */

#include <math.h>

#include "dr_test.h"
#include "ecn.h"
#include "fdb.h"
#include "hist.h"
#include "impair.h"
#include "queue.h"

#define HZ 1000000000ull
#define TWO64 18446744073709551616.0

static void
test_ecn_threshold(void)
{
	uint64_t pmax = (uint64_t)(0.2 * TWO64);   /* 20% */
	uint64_t t;

	CHECK_EQ(fl_ecn_threshold(1000, 5000, pmax, 0), 0);
	CHECK_EQ(fl_ecn_threshold(1000, 5000, pmax, 999), 0);
	CHECK_EQ(fl_ecn_threshold(1000, 5000, pmax, 1000), 0);    /* at kmin: never */
	t = fl_ecn_threshold(1000, 5000, pmax, 3000);             /* midway: pmax / 2 */
	CHECK_MSG(fabs(t / TWO64 - 0.1) < 1e-12, "%g", t / TWO64);
	t = fl_ecn_threshold(1000, 5000, pmax, 2000);             /* a quarter: pmax / 4 */
	CHECK_MSG(fabs(t / TWO64 - 0.05) < 1e-12, "%g", t / TWO64);
	CHECK_EQ(fl_ecn_threshold(1000, 5000, pmax, 5000), pmax); /* at kmax: pmax */
	CHECK_EQ(fl_ecn_threshold(1000, 5000, pmax, 5001), UINT64_MAX);   /* above: always */
	CHECK_EQ(fl_ecn_threshold(1000, 5000, pmax, UINT64_MAX), UINT64_MAX);
	/* rising: never down with the backlog */
	for (uint64_t b = 1000, prev = 0; b <= 5001; b += 7) {
		t = fl_ecn_threshold(1000, 5000, pmax, b);
		CHECK(t >= prev);
		prev = t;
	}
	/* kmin == kmax: a step */
	CHECK_EQ(fl_ecn_threshold(4000, 4000, pmax, 4000), 0);
	CHECK_EQ(fl_ecn_threshold(4000, 4000, pmax, 4001), UINT64_MAX);
}

static uint16_t
ip_csum(const uint8_t *h, unsigned int len)
{
	uint32_t s = 0;

	for (unsigned int i = 0; i < len; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Ethernet [802.1Q] IPv4 UDP/4791 with @tos, its header checksum right; the IP offset */
static unsigned int
ipv4_frame(uint8_t *f, uint8_t tos, bool vlan)
{
	unsigned int l3 = vlan ? 18 : 14;
	uint16_t c;

	memset(f, 0, 128);
	for (int i = 0; i < 12; i++)
		f[i] = (uint8_t)(0x10 + i);
	if (vlan) {
		f[12] = 0x81, f[13] = 0x00, f[14] = 0x00, f[15] = 0x05;
		f[16] = 0x08, f[17] = 0x00;
	} else {
		f[12] = 0x08, f[13] = 0x00;
	}
	f[l3] = 0x45, f[l3 + 1] = tos, f[l3 + 3] = 60, f[l3 + 4] = 0x12, f[l3 + 5] = 0x34;
	f[l3 + 6] = 0x40, f[l3 + 8] = 64, f[l3 + 9] = 17;
	f[l3 + 12] = 192, f[l3 + 13] = 0, f[l3 + 14] = 2, f[l3 + 15] = 1;
	f[l3 + 16] = 192, f[l3 + 17] = 0, f[l3 + 18] = 2, f[l3 + 19] = 2;
	c = ip_csum(f + l3, 20);
	f[l3 + 10] = (uint8_t)(c >> 8), f[l3 + 11] = (uint8_t)c;
	f[l3 + 22] = 0x12, f[l3 + 23] = 0xB7;
	return l3;
}

static void
test_ecn_mark(void)
{
	uint8_t f[128], g[128];
	unsigned int l3;
	/* every TOS with each ECN codepoint: the checksum stays right (verified from scratch) */
	for (unsigned int tos = 0; tos < 256; tos++) {
		for (int vlan = 0; vlan < 2; vlan++) {
			enum fl_ecn_result r;

			l3 = ipv4_frame(f, (uint8_t)tos, vlan);
			memcpy(g, f, sizeof(f));
			r = fl_ecn_mark(f, 14 + 4 * vlan + 40);
			if ((tos & 3) == 0) {
				CHECK_EQ(r, FL_ECN_NOT_ECT);
				CHECK(memcmp(f, g, sizeof(f)) == 0);
			} else if ((tos & 3) == 3) {
				CHECK_EQ(r, FL_ECN_ALREADY_CE);
				CHECK(memcmp(f, g, sizeof(f)) == 0);
			} else {
				CHECK_EQ(r, FL_ECN_MARKED);
				CHECK_EQ(f[l3 + 1], tos | 3);
				CHECK_EQ(ip_csum(f + l3, 20), 0);   /* a valid header sums to 0 */
				g[l3 + 1] = f[l3 + 1], g[l3 + 10] = f[l3 + 10], g[l3 + 11] = f[l3 + 11];
				CHECK(memcmp(f, g, sizeof(f)) == 0);   /* nothing else touched */
			}
		}
	}
	/* the checksum's ones'-complement corner: a header whose sum wraps */
	l3 = ipv4_frame(f, 0xFE, false);
	f[l3 + 12] = 0xFF, f[l3 + 13] = 0xFF, f[l3 + 14] = 0xFF, f[l3 + 15] = 0xFF;
	f[l3 + 10] = f[l3 + 11] = 0;
	{
		uint16_t c = ip_csum(f + l3, 20);

		f[l3 + 10] = (uint8_t)(c >> 8), f[l3 + 11] = (uint8_t)c;
	}
	CHECK_EQ(fl_ecn_mark(f, 64), FL_ECN_MARKED);
	CHECK_EQ(ip_csum(f + l3, 20), 0);
	/* IPv6: traffic class 0xB8 | ECT(0) -> 0xBB, CE; flow label and the rest untouched */
	memset(f, 0, sizeof(f));
	f[12] = 0x86, f[13] = 0xDD;
	f[14] = 0x6B, f[15] = 0xA1, f[16] = 0x23, f[17] = 0x45;   /* tc 0xBA (ECT(0)), flow 0x12345 */
	f[20] = 17;
	memcpy(g, f, sizeof(f));
	CHECK_EQ(fl_ecn_mark(f, 14 + 48), FL_ECN_MARKED);
	CHECK_EQ(f[14], 0x6B);
	CHECK_EQ(f[15], 0xB1);      /* traffic class 0xBB: CE */
	g[15] = f[15];
	CHECK(memcmp(f, g, sizeof(f)) == 0);
	CHECK_EQ(fl_ecn_mark(f, 14 + 48), FL_ECN_ALREADY_CE);
	f[15] = 0x81;               /* traffic class 0xB8: Not-ECT */
	CHECK_EQ(fl_ecn_mark(f, 14 + 48), FL_ECN_NOT_ECT);
	CHECK_EQ(f[15], 0x81);
	/* VLAN-tagged IPv6, ECT(1) */
	memset(f, 0, sizeof(f));
	f[12] = 0x81, f[13] = 0x00, f[16] = 0x86, f[17] = 0xDD;
	f[18] = 0x60, f[19] = 0x10;  /* tc 0x01: ECT(1) */
	CHECK_EQ(fl_ecn_mark(f, 18 + 40), FL_ECN_MARKED);
	CHECK_EQ(f[19], 0x30);
	/* QinQ then IPv4 */
	l3 = ipv4_frame(g, 0x02, true) + 4;
	memcpy(f, g, 12);
	f[12] = 0x88, f[13] = 0xA8, f[14] = 0, f[15] = 7;
	memcpy(f + 16, g + 12, sizeof(f) - 16);
	CHECK_EQ(fl_ecn_mark(f, 80), FL_ECN_MARKED);
	CHECK_EQ(f[l3 + 1], 0x03);
	CHECK_EQ(ip_csum(f + l3, 20), 0);
	/* not IP, short frames, wrong version: left alone */
	l3 = ipv4_frame(f, 0x02, false);
	memcpy(g, f, sizeof(f));
	CHECK_EQ(fl_ecn_mark(f, 14 + 19), FL_ECN_NOT_ECT);
	CHECK_EQ(fl_ecn_mark(f, 10), FL_ECN_NOT_ECT);
	f[14] = 0x55;
	CHECK_EQ(fl_ecn_mark(f, 64), FL_ECN_NOT_ECT);
	f[14] = 0x45, f[12] = 0x08, f[13] = 0x06;   /* ARP */
	CHECK_EQ(fl_ecn_mark(f, 64), FL_ECN_NOT_ECT);
	f[12] = 0x81, f[13] = 0x00;                 /* a tag and nothing after it */
	CHECK_EQ(fl_ecn_mark(f, 16), FL_ECN_NOT_ECT);
	f[12] = 0x08, f[13] = 0x00;
	CHECK(memcmp(f, g, sizeof(f)) == 0);
}

static void
test_ecn_spec(void)
{
	struct fl_impair_conf c, back;
	char err[256], buf[512];
	static const char *const bad[] = {
		"ecn kmin", "ecn kmin 10XB", "ecn kmin -5KB", "ecn kmax 1.5B", "ecn pmax 2",
		"ecn pmax 101%", "ecn kmin 300KB kmax 100KB", "ecn kmin 2TiB", "ecn kmin 1KB kmin 2KB",
	};

	fl_impair_conf_init(&c);
	CHECK(fl_spec_parse("rate 100mbit ecn kmin 10KB kmax 100KiB pmax 20%", &c, err, sizeof(err)) == 0);
	CHECK(c.ecn && c.ecn_kmin == 10000 && c.ecn_kmax == 102400 && fabs(c.ecn_pmax - 0.2) < 1e-12);
	CHECK(fl_spec_format(&c, buf, sizeof(buf)) == 0);
	CHECK_MSG(strcmp(buf, "rate 100000000bit ecn kmin 10000B kmax 102400B pmax 20% limit 1000") == 0,
		  "%s", buf);
	fl_impair_conf_init(&back);
	CHECK(fl_spec_parse(buf, &back, err, sizeof(err)) == 0);
	CHECK(back.ecn && back.ecn_kmin == c.ecn_kmin && back.ecn_kmax == c.ecn_kmax &&
	      fabs(back.ecn_pmax - c.ecn_pmax) < 1e-12);
	/* defaults: DCQCN's, any order, plain bytes, units case-insensitive */
	fl_impair_conf_init(&c);
	CHECK(fl_spec_parse("ecn", &c, err, sizeof(err)) == 0);
	CHECK(c.ecn && c.ecn_kmin == 5000 && c.ecn_kmax == 200000 && fabs(c.ecn_pmax - 0.01) < 1e-12);
	CHECK(fl_spec_parse("ecn pmax 5% kmax 2MB kmin 1500", &c, err, sizeof(err)) == 0);
	CHECK(c.ecn_kmin == 1500 && c.ecn_kmax == 2000000 && fabs(c.ecn_pmax - 0.05) < 1e-12);
	CHECK(fl_spec_parse("ecn kmin 1kib kmax 1mib", &c, err, sizeof(err)) == 0);
	CHECK(c.ecn_kmin == 1024 && c.ecn_kmax == 1048576);
	CHECK(fl_spec_parse("loss 1%", &c, err, sizeof(err)) == 0 && c.ecn);   /* changes what it names */
	CHECK(fl_spec_parse("ecn off", &c, err, sizeof(err)) == 0 && !c.ecn);
	CHECK(fl_spec_parse("ecn kmin 1B kmax 1B", &c, err, sizeof(err)) == 0 && c.ecn);
	CHECK(fl_spec_parse("none", &c, err, sizeof(err)) == 0 && !c.ecn);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fl_impair_conf_init(&c);
		back = c;
		err[0] = '\0';
		CHECK_MSG(fl_spec_parse(bad[i], &c, err, sizeof(err)) != 0, "'%s' accepted", bad[i]);
		CHECK_MSG(strstr(err, "ecn") != NULL || strstr(err, "unknown word") != NULL,
			  "'%s': %s", bad[i], err);
		CHECK(memcmp(&c, &back, sizeof(c)) == 0);
	}
}

static double
mark_rate(const char *spec, uint64_t backlog, uint64_t seed)
{
	struct fl_impair_conf c;
	struct fl_impair im;
	char err[256];
	unsigned int n = 0;

	fl_impair_conf_init(&c);
	CHECK_MSG(fl_spec_parse(spec, &c, err, sizeof(err)) == 0, "%s", err);
	fl_impair_init(&im, &c, HZ, seed, 0);
	for (int i = 0; i < 200000; i++)
		n += fl_impair_ecn(&im, backlog);
	return n / 200000.0;
}

static void
test_ecn_decision(void)
{
	const char *s = "ecn kmin 10KB kmax 50KB pmax 10%";
	struct fl_impair_conf c;
	struct fl_impair a, b, other;
	char err[256];
	int same = 1;

	CHECK(mark_rate("none", 1 << 30, 1) == 0);            /* not configured: never */
	CHECK(mark_rate(s, 0, 1) == 0);
	CHECK(mark_rate(s, 10000, 1) == 0);
	CHECK_MSG(fabs(mark_rate(s, 30000, 1) - 0.05) < 0.003, "%f", mark_rate(s, 30000, 1));
	CHECK_MSG(fabs(mark_rate(s, 50000, 2) - 0.10) < 0.004, "%f", mark_rate(s, 50000, 2));
	CHECK(mark_rate(s, 50001, 1) == 1);
	/* its own stream: the same seed marks the same frames, whatever else is configured */
	fl_impair_conf_init(&c);
	CHECK(fl_spec_parse(s, &c, err, sizeof(err)) == 0);
	fl_impair_init(&a, &c, HZ, 9, 0);
	CHECK(fl_spec_parse("loss 50% duplicate 10%", &c, err, sizeof(err)) == 0);
	fl_impair_init(&b, &c, HZ, 9, 0);
	fl_impair_init(&other, &c, HZ, 9, 1);
	for (int i = 0; i < 10000; i++) {
		(void)fl_impair_lose(&b);
		same &= fl_impair_ecn(&a, 30000) == fl_impair_ecn(&b, 30000);
	}
	CHECK(same);
	same = 1;
	for (int i = 0; i < 10000; i++)
		same &= fl_impair_ecn(&a, 30000) == fl_impair_ecn(&other, 30000);
	CHECK(!same);   /* another queue, another stream */
}

static void
test_tq_bytes(void)
{
	struct fl_tq q;
	void *out[8];

	CHECK(fl_tq_init(&q, 4) == 0);
	CHECK_EQ(fl_tq_bytes(&q), 0);
	CHECK(fl_tq_push(&q, (void *)1, 100, 0, 0, 10));
	CHECK(fl_tq_push(&q, (void *)2, 200, 0, 0, 10));
	CHECK(fl_tq_push(&q, (void *)3, 300, 0, 0, 10));
	CHECK(fl_tq_push(&q, (void *)4, 400, 0, 0, 10));
	CHECK(fl_tq_full(&q));
	CHECK(!fl_tq_push(&q, (void *)5, 500, 0, 0, 10));    /* tail drop: not counted */
	CHECK_EQ(fl_tq_bytes(&q), 1000);
	CHECK_EQ(fl_tq_pop_due(&q, 30, out, 8), 3);
	CHECK_EQ(fl_tq_bytes(&q), 400);
	fl_tq_unpop(&q, 2);                                  /* 2 and 3 back at the head */
	CHECK_EQ(fl_tq_bytes(&q), 900);
	CHECK(!fl_tq_full(&q));
	CHECK(fl_tq_drain_one(&q) == (void *)2);
	CHECK_EQ(fl_tq_bytes(&q), 700);
	/* around the ring: the count follows */
	for (uintptr_t i = 0; i < 100; i++) {
		CHECK(fl_tq_push(&q, (void *)(i + 10), (uint32_t)i, 1000, 0, 0));
		CHECK_EQ(fl_tq_pop_due(&q, 2000, out, 1), 1);
	}
	while (fl_tq_drain_one(&q) != NULL)
		;
	CHECK_EQ(fl_tq_bytes(&q), 0);
	fl_tq_fini(&q);
}

static void
test_hist(void)
{
	struct fl_hist h;

	memset(&h, 0, sizeof(h));
	CHECK_EQ(fl_hist_quantile(&h, 0.5), 0);
	CHECK_EQ(fl_hist_max(&h), 0);
	CHECK_EQ(fl_hist_bucket(0), 0);
	CHECK_EQ(fl_hist_bucket(1), 1);
	CHECK_EQ(fl_hist_bucket(2), 2);
	CHECK_EQ(fl_hist_bucket(3), 2);
	CHECK_EQ(fl_hist_bucket(1024), 11);
	CHECK_EQ(fl_hist_bucket(UINT64_MAX), FL_HIST_BUCKETS - 1);
	/* 50 zeros, 40 of 1000, 9 of 100000, one of 3000000 */
	for (int i = 0; i < 50; i++)
		fl_hist_add(&h, 0);
	for (int i = 0; i < 40; i++)
		fl_hist_add(&h, 1000);
	for (int i = 0; i < 9; i++)
		fl_hist_add(&h, 100000);
	fl_hist_add(&h, 3000000);
	CHECK_EQ(h.n, 100);
	CHECK_EQ(fl_hist_quantile(&h, 0.5), 0);
	CHECK_EQ(fl_hist_quantile(&h, 0.51), 1023);        /* 1000's bucket: [512, 1024) */
	CHECK_EQ(fl_hist_quantile(&h, 0.9), 1023);
	CHECK_EQ(fl_hist_quantile(&h, 0.99), 131071);      /* [65536, 131072) */
	CHECK_EQ(fl_hist_quantile(&h, 1.0), 3000000);      /* clipped at the largest sample */
	CHECK_EQ(fl_hist_max(&h), 3000000);
	memset(&h, 0, sizeof(h));
	fl_hist_add(&h, 700);
	CHECK_EQ(fl_hist_quantile(&h, 0.5), 700);          /* never above the largest sample */
}

static void
test_fdb(void)
{
	static struct fl_fdb t;
	uint8_t a[6] = { 0x02, 0, 0, 0, 0, 1 }, b[6] = { 0x02, 0, 0, 0, 0, 2 };
	uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, mc[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
	uint8_t zero[6] = { 0 }, m[6] = { 0x02, 0x42, 0, 0, 0, 0 };
	unsigned int learned = 0;

	fl_fdb_init(&t);
	CHECK_EQ(fl_fdb_lookup(&t, a), (uint64_t)-1);
	CHECK_EQ(fl_fdb_learn(&t, a, 3), FL_FDB_NEW);
	CHECK_EQ(fl_fdb_learn(&t, a, 3), FL_FDB_KNOWN);
	CHECK_EQ(fl_fdb_lookup(&t, a), 3);
	CHECK_EQ(fl_fdb_lookup(&t, b), (uint64_t)-1);
	CHECK_EQ(fl_fdb_learn(&t, a, 5), FL_FDB_MOVED);
	CHECK_EQ(fl_fdb_lookup(&t, a), 5);
	CHECK_EQ(fl_fdb_learn(&t, bc, 1), FL_FDB_GROUP);
	CHECK_EQ(fl_fdb_learn(&t, mc, 1), FL_FDB_GROUP);
	CHECK(fl_mac_is_group(bc) && fl_mac_is_group(mc) && !fl_mac_is_group(a));
	CHECK_EQ(fl_fdb_learn(&t, zero, 0), FL_FDB_NEW);   /* 00:00:00:00:00:00 is not an empty slot */
	CHECK_EQ(fl_fdb_lookup(&t, zero), 0);
	/* fill it: past FL_FDB_MAX stations nothing new is learned, the known stay */
	for (uint32_t i = 0; i < FL_FDB_SIZE; i++) {
		m[2] = (uint8_t)(i >> 24), m[3] = (uint8_t)(i >> 16), m[4] = (uint8_t)(i >> 8);
		m[5] = (uint8_t)i;
		learned += fl_fdb_learn(&t, m, (uint16_t)(i % 16)) == FL_FDB_NEW;
	}
	CHECK_EQ(learned + 2, FL_FDB_MAX);
	CHECK_EQ(fl_fdb_learn(&t, b, 1), FL_FDB_FULL);
	CHECK_EQ(fl_fdb_lookup(&t, b), (uint64_t)-1);
	CHECK_EQ(fl_fdb_lookup(&t, a), 5);
	for (uint32_t i = 0; i < learned; i++) {
		m[2] = (uint8_t)(i >> 24), m[3] = (uint8_t)(i >> 16), m[4] = (uint8_t)(i >> 8);
		m[5] = (uint8_t)i;
		if (fl_fdb_lookup(&t, m) != (int)(i % 16))
			CHECK_EQ(fl_fdb_lookup(&t, m), i % 16);
	}
}

int
main(void)
{
	test_ecn_threshold();
	test_ecn_mark();
	test_ecn_spec();
	test_ecn_decision();
	test_tq_bytes();
	test_hist();
	test_fdb();
	return dr_test_report("faultlink_ecn");
}
