/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-faultlink's pure logic (app/dpdk-rdma-faultlink/impair.h,
 * queue.h) on a virtual clock of 1 GHz (one cycle a nanosecond): the random
 * streams and their reproducibility, each loss model's rate and burst
 * shape, duplication, corruption, the delay/jitter/rate due times, tail
 * drop, the reorder hold, the spec grammar and its errors, the RoCEv2
 * classifier.
 */

#include <math.h>

#include "dr_test.h"
#include "impair.h"
#include "queue.h"

#define HZ 1000000000ull
#define N 1000000

static void
conf_from(struct fl_impair_conf *c, const char *spec)
{
	char err[256];

	fl_impair_conf_init(c);
	CHECK_MSG(fl_spec_parse(spec, c, err, sizeof(err)) == 0, "'%s': %s", spec, err);
}

static void
test_rng(void)
{
	struct fl_rng a, b, c;
	int same = 1, differ = 0, in_range = 1;

	fl_rng_seed(&a, 42);
	fl_rng_seed(&b, 42);
	fl_rng_seed(&c, 43);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = fl_rng_next(&a), y = fl_rng_next(&b), z = fl_rng_next(&c);

		same &= x == y;
		differ |= x != z;
		in_range &= fl_rng_below(&a, 7) < 7;
		(void)fl_rng_below(&b, 7);
	}
	CHECK(same);
	CHECK(differ);
	CHECK(in_range);
}

static double
loss_rate(const char *spec, uint64_t seed)
{
	struct fl_impair_conf c;
	struct fl_impair im;
	unsigned int lost = 0;

	conf_from(&c, spec);
	fl_impair_init(&im, &c, HZ, seed, 0);
	for (int i = 0; i < N; i++)
		lost += fl_impair_lose(&im);
	return (double)lost / N;
}

static void
test_loss_random(void)
{
	CHECK(loss_rate("none", 1) == 0);
	CHECK(loss_rate("loss 0%", 1) == 0);
	CHECK(loss_rate("loss 100%", 1) == 1);
	CHECK_MSG(fabs(loss_rate("loss 10%", 1) - 0.10) < 0.002, "%f", loss_rate("loss 10%", 1));
	CHECK_MSG(fabs(loss_rate("loss random 0.5%", 7) - 0.005) < 0.0005, "%f",
		  loss_rate("loss random 0.5%", 7));
}

/* Gilbert-Elliott with 1-h = 100%, 1-k = 0%: loss p/(p+r), bursts of mean 1/r */
static void
test_loss_gemodel(void)
{
	struct fl_impair_conf c;
	struct fl_impair im;
	unsigned int lost = 0, bursts = 0;
	bool prev = false;

	conf_from(&c, "loss gemodel 1% 25%");
	CHECK(c.loss_model == FL_LOSS_GEMODEL);
	CHECK(c.ge_1h == 1.0 && c.ge_1k == 0.0);
	fl_impair_init(&im, &c, HZ, 3, 0);
	for (int i = 0; i < N; i++) {
		bool l = fl_impair_lose(&im);

		lost += l;
		bursts += l && !prev;
		prev = l;
	}
	CHECK_MSG(fabs((double)lost / N - 0.01 / 0.26) < 0.004, "loss %f want %f", (double)lost / N,
		  0.01 / 0.26);
	CHECK_MSG(fabs((double)lost / bursts - 4.0) < 0.3, "mean burst %f want 4", (double)lost / bursts);
	/* r omitted: 100% - p (tc-netem(8)) */
	conf_from(&c, "loss gemodel 20%");
	CHECK(fabs(c.ge_r - 0.8) < 1e-12);
	/* 1-k: losses in the good state too */
	conf_from(&c, "loss gemodel 0% 100% 100% 10%");
	CHECK(fabs(c.ge_1k - 0.1) < 1e-12);
	CHECK_MSG(fabs(loss_rate("loss gemodel 0% 100% 100% 10%", 5) - 0.1) < 0.002, "good-state loss");
}

/* The n-th frame's fate depends on (seed, direction, impairment) only. */
static void
test_reproducible(void)
{
	struct fl_impair_conf a, b;
	struct fl_impair ia, ib, ic;
	uint32_t bits[FL_MAX_CORRUPT_BITS];
	int same = 1, differ = 0;

	conf_from(&a, "loss 10%");
	conf_from(&b, "loss 10% duplicate 50% corrupt 50% reorder 50% delay 1ms 500us");
	fl_impair_init(&ia, &a, HZ, 9, 0);
	fl_impair_init(&ib, &b, HZ, 9, 0);
	fl_impair_init(&ic, &a, HZ, 9, 1);   /* the other direction */
	for (int i = 0; i < 10000; i++) {
		bool la = fl_impair_lose(&ia), lb = fl_impair_lose(&ib), lc = fl_impair_lose(&ic);

		(void)fl_impair_duplicate(&ib);
		(void)fl_impair_corrupt(&ib, 100, bits);
		(void)fl_impair_reorder(&ib);
		(void)fl_impair_delay(&ib);
		same &= la == lb;
		differ |= la != lc;
	}
	CHECK(same);
	CHECK(differ);
}

static void
test_duplicate_corrupt(void)
{
	struct fl_impair_conf c;
	struct fl_impair im;
	uint32_t bits[FL_MAX_CORRUPT_BITS];
	unsigned int dups = 0, hit = 0, in_range = 1, n;

	conf_from(&c, "duplicate 1% corrupt 2% bits 3");
	fl_impair_init(&im, &c, HZ, 11, 0);
	for (int i = 0; i < N; i++) {
		dups += fl_impair_duplicate(&im);
		n = fl_impair_corrupt(&im, 60, bits);
		if (n != 0) {
			hit++;
			CHECK_EQ(n, 3);
			for (unsigned int j = 0; j < n; j++)
				in_range &= bits[j] < 60 * 8;
		}
	}
	CHECK_MSG(fabs((double)dups / N - 0.01) < 0.0006, "dup %f", (double)dups / N);
	CHECK_MSG(fabs((double)hit / N - 0.02) < 0.0008, "corrupt %f", (double)hit / N);
	CHECK(in_range);
	/* every bit of a frame can be hit: a 1-byte frame's 8 bits all come up */
	conf_from(&c, "corrupt 100%");
	fl_impair_init(&im, &c, HZ, 1, 0);
	unsigned int seen = 0;
	for (int i = 0; i < 1000; i++) {
		CHECK_EQ(fl_impair_corrupt(&im, 1, bits), 1);
		seen |= 1u << bits[0];
	}
	CHECK_EQ(seen, 0xff);
	CHECK_EQ(fl_impair_corrupt(&im, 0, bits), 0);
}

static void
test_delay_rate(void)
{
	struct fl_impair_conf c;
	struct fl_impair im;
	uint64_t lo = UINT64_MAX, hi = 0, sum = 0, d;

	conf_from(&c, "delay 100us");
	fl_impair_init(&im, &c, HZ, 1, 0);
	CHECK_EQ(fl_impair_delay(&im), 100000);
	conf_from(&c, "delay 100us 20us");
	fl_impair_init(&im, &c, HZ, 1, 0);
	for (int i = 0; i < N; i++) {
		d = fl_impair_delay(&im);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		sum += d;
	}
	CHECK(lo >= 80000 && lo < 80100);
	CHECK(hi <= 120000 && hi > 119900);
	CHECK_MSG(fabs((double)sum / N - 100000) < 100, "mean %f", (double)sum / N);
	/* jitter larger than the delay: never below 0 */
	conf_from(&c, "delay 10us 50us");
	fl_impair_init(&im, &c, HZ, 1, 0);
	for (int i = 0; i < 1000; i++)
		CHECK(fl_impair_delay(&im) <= 60000);
	/* 1 Gbit/s at 1 GHz: 8 cycles a byte; overhead bytes count */
	conf_from(&c, "rate 1gbit");
	fl_impair_init(&im, &c, HZ, 1, 0);
	CHECK_EQ(fl_impair_tx_cycles(&im, 1000), 8000);
	conf_from(&c, "rate 100mbps overhead 24");
	fl_impair_init(&im, &c, HZ, 1, 0);
	CHECK_EQ(fl_impair_tx_cycles(&im, 1476), 1500 * 10);   /* 800 Mbit/s: 10 ns a byte */
	conf_from(&c, "none");
	fl_impair_init(&im, &c, HZ, 1, 0);
	CHECK_EQ(fl_impair_tx_cycles(&im, 1000), 0);
}

static void
test_tqueue(void)
{
	struct fl_tq q;
	void *out[8];
	uintptr_t i;

	CHECK(fl_tq_init(&q, 0) != 0);
	CHECK(fl_tq_init(&q, FL_MAX_LIMIT + 1) != 0);
	CHECK(fl_tq_init(&q, 3) == 0);
	/* delay: due at arrival + delay; a shorter delay never overtakes (jitter keeps order) */
	CHECK(fl_tq_push(&q, (void *)1, 100, 1000, 500, 0));
	CHECK(fl_tq_push(&q, (void *)2, 100, 1010, 100, 0));   /* would be 1110: stays behind, 1500 */
	CHECK(fl_tq_push(&q, (void *)3, 100, 1020, 600, 0));
	CHECK(!fl_tq_push(&q, (void *)4, 100, 1030, 0, 0));    /* limit 3: tail drop */
	CHECK_EQ(fl_tq_count(&q), 3);
	CHECK_EQ(fl_tq_next_due(&q), 1500);
	CHECK_EQ(fl_tq_pop_due(&q, 1499, out, 8), 0);
	CHECK_EQ(fl_tq_pop_due(&q, 1500, out, 8), 2);
	CHECK(out[0] == (void *)1 && out[1] == (void *)2);
	fl_tq_unpop(&q, 1);                                /* the port took one */
	CHECK_EQ(fl_tq_count(&q), 2);
	CHECK_EQ(fl_tq_pop_due(&q, 2000, out, 8), 2);
	CHECK(out[0] == (void *)2 && out[1] == (void *)3);
	CHECK_EQ(fl_tq_next_due(&q), UINT64_MAX);
	CHECK(fl_tq_drain_one(&q) == NULL);
	fl_tq_fini(&q);

	/* rate: back-to-back frames leave one serialisation time apart */
	CHECK(fl_tq_init(&q, 100) == 0);
	for (i = 1; i <= 10; i++)
		CHECK(fl_tq_push(&q, (void *)i, 100, 0, 0, 1000));
	for (i = 1; i <= 10; i++) {
		CHECK_EQ(fl_tq_next_due(&q), i * 1000);
		CHECK_EQ(fl_tq_pop_due(&q, i * 1000, out, 8), 1);
	}
	/* an idle link: the next frame pays its own time only */
	CHECK(fl_tq_push(&q, (void *)11, 100, 50000, 0, 1000));
	CHECK_EQ(fl_tq_next_due(&q), 51000);
	CHECK(fl_tq_drain_one(&q) == (void *)11);
	/* wrap around the ring many times */
	for (i = 0; i < 1000; i++) {
		CHECK(fl_tq_push(&q, (void *)(i + 1), 100, 100000 + i, 0, 0));
		CHECK_EQ(fl_tq_pop_due(&q, 200000, out, 8), 1);
		if (out[0] != (void *)(i + 1))
			CHECK(out[0] == (void *)(i + 1));
	}
	fl_tq_fini(&q);
}

static void
test_hold(void)
{
	struct fl_hold h;
	void *out[FL_HOLD_MAX];

	fl_hold_init(&h);
	CHECK_EQ(fl_hold_next_deadline(&h), UINT64_MAX);
	/* by count: leaves once 3 later frames passed */
	CHECK(fl_hold_put(&h, (void *)1, 3, 1000000));
	CHECK(fl_hold_put(&h, (void *)2, 1, 1000000));
	fl_hold_passed(&h);
	CHECK_EQ(fl_hold_release(&h, 10, out, 8), 1);
	CHECK(out[0] == (void *)2);
	fl_hold_passed(&h);
	CHECK_EQ(fl_hold_release(&h, 10, out, 8), 0);
	fl_hold_passed(&h);
	CHECK_EQ(fl_hold_release(&h, 10, out, 8), 1);
	CHECK(out[0] == (void *)1);
	/* by time: the count never runs out, the deadline does */
	CHECK(fl_hold_put(&h, (void *)3, 0, 500));
	CHECK(fl_hold_put(&h, (void *)4, 100, 400));
	CHECK_EQ(fl_hold_next_deadline(&h), 400);
	for (int i = 0; i < 10; i++)
		fl_hold_passed(&h);
	CHECK_EQ(fl_hold_release(&h, 399, out, 8), 0);
	CHECK_EQ(fl_hold_release(&h, 500, out, 8), 2);
	CHECK(out[0] == (void *)3 && out[1] == (void *)4);   /* in the order held */
	/* full */
	for (unsigned int i = 0; i < FL_HOLD_MAX; i++)
		CHECK(fl_hold_put(&h, (void *)(uintptr_t)(i + 1), 0, 100));
	CHECK(!fl_hold_put(&h, (void *)9999, 0, 100));
	/* release at most max at a time, the rest stays */
	CHECK_EQ(fl_hold_release(&h, 100, out, 10), 10);
	CHECK_EQ(h.n, FL_HOLD_MAX - 10);
	CHECK_EQ(fl_hold_release(&h, 100, out, FL_HOLD_MAX), FL_HOLD_MAX - 10);
	CHECK(out[0] == (void *)11);
}

static void
test_spec(void)
{
	struct fl_impair_conf c, back;
	char err[256], buf[512];
	static const char *const good[] = {
		"none", "loss 10%", "loss random 0.1%", "loss gemodel 1% 10% 70% 0.1%",
		"duplicate 1%", "corrupt 0.5%", "corrupt 1% bits 4", "reorder 5%",
		"reorder 5% frames 10", "reorder 5% time 200us", "reorder 5% time 2ms frames 7",
		"delay 10ms", "delay 100us 10us", "delay 1s", "rate 100mbit", "rate 10gbit overhead 24",
		"limit 50000", "loss 10% reorder 5% duplicate 1% corrupt 0.5% delay 50us 5us rate 1gbit limit 200",
		"loss 10%, delay 1ms",
	};
	static const char *const bad[] = {
		"", "   ", "loss", "loss 10", "loss 101%", "loss -1%", "loss x%", "loss gemodel",
		"duplicate", "duplicate 1", "corrupt 1% bits 0", "corrupt 1% bits 65", "reorder",
		"reorder 5% frames 0", "reorder 5% time 0us", "reorder 5% frames", "delay", "delay 10",
		"delay 10xs", "delay 11s", "delay -5ms", "rate 100", "rate 10bit", "rate fast",
		"rate 1gbit overhead", "limit 0", "limit 2000000", "limit", "foo", "loss 1% bar",
		"delay 1ms 2ms 3ms",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		fl_impair_conf_init(&c);
		CHECK_MSG(fl_spec_parse(good[i], &c, err, sizeof(err)) == 0, "'%s': %s", good[i], err);
		/* format reads back to the same configuration */
		CHECK(fl_spec_format(&c, buf, sizeof(buf)) == 0);
		fl_impair_conf_init(&back);
		CHECK_MSG(fl_spec_parse(buf, &back, err, sizeof(err)) == 0, "'%s' -> '%s': %s", good[i], buf,
			  err);
		CHECK_MSG(back.loss_model == c.loss_model && fabs(back.loss - c.loss) < 1e-9 &&
			  fabs(back.duplicate - c.duplicate) < 1e-9 && back.corrupt_bits == c.corrupt_bits &&
			  back.reorder_frames == c.reorder_frames && back.reorder_ns == c.reorder_ns &&
			  back.delay_ns == c.delay_ns && back.jitter_ns == c.jitter_ns &&
			  back.rate_bps == c.rate_bps && back.overhead == c.overhead && back.limit == c.limit,
			  "'%s' -> '%s' does not read back", good[i], buf);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		conf_from(&c, "loss 3%");
		back = c;
		err[0] = '\0';
		CHECK_MSG(fl_spec_parse(bad[i], &c, err, sizeof(err)) != 0, "'%s' accepted", bad[i]);
		CHECK_MSG(err[0] != '\0', "'%s': no reason given", bad[i]);
		CHECK_MSG(memcmp(&c, &back, sizeof(c)) == 0, "'%s' changed the configuration", bad[i]);
	}
	/* values */
	conf_from(&c, "loss 10% reorder 5% time 200us delay 1ms 100us rate 1gbit overhead 24 limit 7");
	CHECK(c.loss_model == FL_LOSS_RANDOM && fabs(c.loss - 0.1) < 1e-12);
	CHECK(fabs(c.reorder - 0.05) < 1e-12 && c.reorder_frames == 0 && c.reorder_ns == 200000);
	CHECK(c.delay_ns == 1000000 && c.jitter_ns == 100000);
	CHECK(c.rate_bps == 1000000000ull && c.overhead == 24 && c.limit == 7);
	conf_from(&c, "reorder 5%");
	CHECK(c.reorder_frames == FL_DEFAULT_REORDER_FRAMES && c.reorder_ns == FL_DEFAULT_HOLD_NS);
	/* a later spec changes only what it names; none resets */
	conf_from(&c, "loss 10% delay 1ms");
	CHECK(fl_spec_parse("duplicate 2%", &c, err, sizeof(err)) == 0);
	CHECK(c.loss_model == FL_LOSS_RANDOM && c.delay_ns == 1000000 && fabs(c.duplicate - 0.02) < 1e-12);
	CHECK(fl_spec_parse("none", &c, err, sizeof(err)) == 0);
	CHECK(c.loss_model == FL_LOSS_NONE && c.delay_ns == 0 && c.duplicate == 0);
	CHECK(fl_spec_format(&c, buf, sizeof(buf)) == 0);
	CHECK(strcmp(buf, "none limit 1000") == 0);
	CHECK(fl_spec_format(&c, buf, 4) != 0);
}

static void
test_is_roce(void)
{
	uint8_t f[128];

	memset(f, 0, sizeof(f));
	f[12] = 0x08, f[13] = 0x00;                 /* IPv4 */
	f[14] = 0x45, f[23] = 17;                   /* UDP */
	f[36] = 0x12, f[37] = 0xB7;                 /* dst 4791 */
	CHECK(fl_frame_is_roce(f, 64));
	CHECK(!fl_frame_is_roce(f, 14 + 20 + 7));   /* truncated UDP header */
	f[37] = 0xB8;
	CHECK(!fl_frame_is_roce(f, 64));
	f[37] = 0xB7;
	f[23] = 6;                                  /* TCP */
	CHECK(!fl_frame_is_roce(f, 64));
	f[23] = 17;
	f[14] = 0x46;                               /* IP options: UDP 4 bytes later */
	CHECK(!fl_frame_is_roce(f, 64));
	f[40] = 0x12, f[41] = 0xB7;
	CHECK(fl_frame_is_roce(f, 64));
	memset(f, 0, sizeof(f));                    /* 802.1Q + IPv6 */
	f[12] = 0x81, f[13] = 0x00, f[16] = 0x86, f[17] = 0xDD;
	f[18] = 0x60, f[24] = 17;
	f[18 + 40 + 2] = 0x12, f[18 + 40 + 3] = 0xB7;
	CHECK(fl_frame_is_roce(f, 18 + 48));
	CHECK(!fl_frame_is_roce(f, 18 + 47));
	f[13] = 0x01;                               /* not a VLAN tag: unknown type */
	CHECK(!fl_frame_is_roce(f, 18 + 48));
	memset(f, 0, sizeof(f));
	f[12] = 0x08, f[13] = 0x06;                 /* ARP */
	CHECK(!fl_frame_is_roce(f, 60));
	CHECK(!fl_frame_is_roce(f, 10));
}

int
main(void)
{
	test_rng();
	test_loss_random();
	test_loss_gemodel();
	test_reproducible();
	test_duplicate_corrupt();
	test_delay_rate();
	test_tqueue();
	test_hold();
	test_spec();
	test_is_roce();
	return dr_test_report("faultlink");
}
