/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * DCQCN's reaction point (lib/cc/dr_dcqcn.c) on a virtual clock, against
 * the equations of Zhu et al., SIGCOMM 2015, figure 7: the decrease, alpha's
 * decay, fast recovery, additive and hyper increase, the byte counter, the
 * floor and the ceiling, the minimum time between decreases; then a random
 * run of CNPs, bytes and time against a floating-point model of the paper.
 */

#include <math.h>

#include "dr_dcqcn.h"
#include "dr_test.h"

#define G 1e9
#define US 1000ull
#define LINE (10 * 1000000000ull)

static struct dr_dcqcn_params P;

static double
alpha_of(const struct dr_dcqcn_rp *rp)
{
	return (double)rp->alpha / DR_DCQCN_ONE;
}

static void
test_decrease(void)
{
	struct dr_dcqcn_rp rp;

	dr_dcqcn_init(&rp, &P, 0);
	CHECK_EQ(rp.rc, LINE);
	CHECK_EQ(rp.rt, LINE);
	CHECK_EQ(rp.alpha, DR_DCQCN_ONE);
	CHECK(!dr_dcqcn_limited(&rp, &P));
	/* alpha = 1: RC halves, RT keeps the old RC, alpha = (1 - g) 1 + g = 1 */
	dr_dcqcn_on_cnp(&rp, &P, 10 * US);
	CHECK_EQ(rp.rt, LINE);
	CHECK_EQ(rp.rc, LINE / 2);
	CHECK_EQ(rp.alpha, DR_DCQCN_ONE);
	CHECK_EQ(rp.decreases, 1);
	CHECK(dr_dcqcn_limited(&rp, &P));
	/* a second CNP within min_dec_period (4 us) is counted, does nothing */
	dr_dcqcn_on_cnp(&rp, &P, 12 * US);
	CHECK_EQ(rp.cnps, 2);
	CHECK_EQ(rp.decreases, 1);
	CHECK_EQ(rp.rc, LINE / 2);
	/* past it: RT = RC = LINE/2, RC = LINE/4 */
	dr_dcqcn_on_cnp(&rp, &P, 15 * US);
	CHECK_EQ(rp.rt, LINE / 2);
	CHECK_EQ(rp.rc, LINE / 4);
	CHECK_EQ(rp.decreases, 2);
}

static void
test_alpha(void)
{
	struct dr_dcqcn_rp rp;
	double g = 1.0 / (1 << P.g_shift), want;

	dr_dcqcn_init(&rp, &P, 0);
	dr_dcqcn_on_cnp(&rp, &P, 0);
	/* k periods without a CNP: alpha = (1 - g)^k */
	for (int k = 1; k <= 200; k++) {
		dr_dcqcn_advance(&rp, &P, (uint64_t)k * P.alpha_period_ns);
		want = pow(1 - g, k);
		if (k % 50 == 0)
			CHECK_MSG(fabs(alpha_of(&rp) - want) < 1e-4, "k %d alpha %f want %f", k, alpha_of(&rp), want);
	}
	/* a CNP: alpha = (1 - g) alpha + g, and the cut uses the alpha before it */
	{
		double a = alpha_of(&rp);
		uint64_t rc = rp.rc, now = 200 * P.alpha_period_ns + 1;

		dr_dcqcn_on_cnp(&rp, &P, now);
		CHECK_MSG(fabs((double)rp.rc - rc * (1 - a / 2)) <= 2, "rc %" PRIu64, rp.rc);
		CHECK(fabs(alpha_of(&rp) - ((1 - g) * a + g)) < 1e-5);
	}
	/* a long quiet time takes alpha to 0, without running away */
	dr_dcqcn_advance(&rp, &P, 10ull * 1000 * 1000 * 1000);
	CHECK_EQ(rp.alpha, 0);
}

static void
test_increase_stages(void)
{
	struct dr_dcqcn_rp rp;
	uint64_t rt, rc, now = 0;

	dr_dcqcn_init(&rp, &P, 0);
	dr_dcqcn_on_cnp(&rp, &P, 0);            /* RT = 10G, RC = 5G */
	rt = rp.rt;
	rc = rp.rc;
	/* timer events 1..F-1: fast recovery, RC = (RT + RC) / 2, RT unchanged */
	for (uint32_t t = 1; t < P.fast_recovery; t++) {
		now += P.rate_period_ns;
		dr_dcqcn_advance(&rp, &P, now);
		rc = (rt + rc + 1) / 2;
		CHECK_EQ(rp.t_count, t);
		CHECK_EQ(rp.rt, rt);
		CHECK_EQ(rp.rc, rc);
	}
	/* event F (BC 0): additive increase, RT += R_AI */
	now += P.rate_period_ns;
	dr_dcqcn_advance(&rp, &P, now);
	rt = rt + P.rate_ai > LINE ? LINE : rt + P.rate_ai;
	CHECK_EQ(rp.rt, rt);
	CHECK_EQ(rp.rc, (rt + rc + 1) / 2);

	/* hyper increase: both counts above F; from a low rate so it shows */
	dr_dcqcn_init(&rp, &P, 0);
	for (int i = 0; i < 6; i++)
		dr_dcqcn_on_cnp(&rp, &P, (uint64_t)i * 5 * US);   /* 10G / 2^6 = 156 Mb/s */
	now = 25 * US;
	rt = rp.rt;
	rc = rp.rc;
	CHECK(rc < 200 * 1000000ull);
	/* F + 1 byte-counter events: fast recovery F - 1 times, then additive twice (BC = F, F + 1 > F but T = 0) */
	dr_dcqcn_on_sent(&rp, &P, (P.fast_recovery + 1) * P.byte_counter);
	CHECK_EQ(rp.b_count, P.fast_recovery + 1);
	CHECK_EQ(rp.rt, rt + 2 * P.rate_ai);
	rt = rp.rt;
	/* F + 1 timer events too: T = 1..F additive (min(T, BC) <= F), T = F + 1 hyper by (F + 1 - F) R_HAI */
	for (uint32_t t = 1; t <= P.fast_recovery + 1; t++) {
		now += P.rate_period_ns;
		dr_dcqcn_advance(&rp, &P, now);
		if (t <= P.fast_recovery)
			rt += P.rate_ai;
		else
			rt += P.rate_hai;
		CHECK_MSG(rp.rt == rt, "t %u rt %" PRIu64 " want %" PRIu64, t, rp.rt, rt);
	}
	/* one more byte event: BC = F + 2, T = F + 1: hyper by 1 R_HAI; then T = F + 2: by 2 R_HAI */
	dr_dcqcn_on_sent(&rp, &P, P.byte_counter);
	CHECK_EQ(rp.rt, rt + P.rate_hai);
	rt += P.rate_hai;
	now += P.rate_period_ns;
	dr_dcqcn_advance(&rp, &P, now);
	CHECK_EQ(rp.rt, rt + 2 * P.rate_hai);
}

static void
test_bounds(void)
{
	struct dr_dcqcn_rp rp;

	/* the floor: CNPs far apart never take RC below min_rate */
	dr_dcqcn_init(&rp, &P, 0);
	for (int i = 0; i < 100; i++)
		dr_dcqcn_on_cnp(&rp, &P, (uint64_t)i * 5 * US);
	CHECK_EQ(rp.rc, P.min_rate);
	/* the ceiling: time alone brings it back to exactly line rate, then the machine rests */
	dr_dcqcn_advance(&rp, &P, 1000ull * 1000 * 1000);
	CHECK_EQ(rp.rc, LINE);
	CHECK_EQ(rp.rt, LINE);
	CHECK(!dr_dcqcn_limited(&rp, &P));
	dr_dcqcn_on_sent(&rp, &P, 100 * P.byte_counter);
	CHECK_EQ(rp.rc, LINE);
	CHECK_EQ(rp.bytes, 0);
	/* byte counter off: bytes move nothing */
	{
		struct dr_dcqcn_params q = P;

		q.byte_counter = 0;
		dr_dcqcn_init(&rp, &q, 0);
		dr_dcqcn_on_cnp(&rp, &q, 0);
		dr_dcqcn_on_sent(&rp, &q, 1ull << 30);
		CHECK_EQ(rp.rc, LINE / 2);
	}
}

static void
test_params(void)
{
	struct dr_dcqcn_params q;

	CHECK_EQ(dr_dcqcn_params_check(&P), 0);
	q = P; q.line_rate = 0;
	CHECK(dr_dcqcn_params_check(&q) < 0);
	q = P; q.min_rate = LINE + 1;
	CHECK(dr_dcqcn_params_check(&q) < 0);
	q = P; q.g_shift = 0;
	CHECK(dr_dcqcn_params_check(&q) < 0);
	q = P; q.alpha_period_ns = 0;
	CHECK(dr_dcqcn_params_check(&q) < 0);
	q = P; q.rate_period_ns = 0;
	CHECK(dr_dcqcn_params_check(&q) < 0);
	q = P; q.fast_recovery = 0;
	CHECK(dr_dcqcn_params_check(&q) < 0);
	q = P; q.initial_alpha = DR_DCQCN_ONE + 1;
	CHECK(dr_dcqcn_params_check(&q) < 0);
	q = P; q.line_rate = DR_DCQCN_MAX_RATE + 1;
	CHECK(dr_dcqcn_params_check(&q) < 0);
	dr_dcqcn_params_default(&q, 1000000);       /* a 1 Mb/s link: the floor no higher */
	CHECK_EQ(q.min_rate, 1000000);
}

/* The paper's machine in doubles, event for event. */
struct model {
	double rc, rt, alpha;
	unsigned int t, bc;
	double bytes;
	uint64_t next_alpha, next_rate, last_dec;
	int decreased;
};

static void
m_increase(struct model *m)
{
	unsigned int hi = m->t > m->bc ? m->t : m->bc, lo = m->t < m->bc ? m->t : m->bc;

	if (hi < P.fast_recovery)
		;
	else if (lo > P.fast_recovery)
		m->rt += (double)(lo - P.fast_recovery) * P.rate_hai;
	else
		m->rt += P.rate_ai;
	m->rt = fmin(m->rt, LINE);
	m->rc = ceil((m->rt + m->rc) / 2);      /* rates in whole bits/s, as the machine's */
}

static int
m_limited(const struct model *m)
{
	return m->rc < LINE || m->rt < LINE;
}

static void
m_advance(struct model *m, uint64_t now)
{
	double g = 1.0 / (1 << P.g_shift);

	while (m->next_alpha <= now) {
		m->alpha *= 1 - g;
		m->next_alpha += P.alpha_period_ns;
	}
	while (m->next_rate <= now) {
		if (m_limited(m)) {
			m->t++;
			m_increase(m);
		}
		m->next_rate += P.rate_period_ns;
	}
}

static void
test_against_model(void)
{
	struct dr_dcqcn_rp rp;
	struct model m = { LINE, LINE, 1.0, 0, 0, 0, 0, 0, 0, 0 };
	double g = 1.0 / (1 << P.g_shift), worst = 0;
	uint64_t now = 0, seed = 88172645463325252ull;

	m.next_alpha = P.alpha_period_ns;
	m.next_rate = P.rate_period_ns;
	dr_dcqcn_init(&rp, &P, 0);
	for (int i = 0; i < 20000; i++) {
		uint64_t r;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		r = seed;
		now += 1 + r % (30 * US);
		if (r % 7 == 0) {                     /* a CNP */
			m_advance(&m, now);
			dr_dcqcn_on_cnp(&rp, &P, now);
			if (!(m.decreased && now - m.last_dec < P.min_dec_period_ns)) {
				m.rt = m.rc;
				m.rc = fmax(m.rc * (1 - m.alpha / 2), P.min_rate);
				m.alpha = (1 - g) * m.alpha + g;
				m.t = m.bc = 0;
				m.bytes = 0;
				m.next_alpha = now + P.alpha_period_ns;
				m.next_rate = now + P.rate_period_ns;
				m.last_dec = now;
				m.decreased = 1;
			}
		} else {                              /* time passes, bytes go out */
			uint64_t bytes = (r >> 16) % 100000;

			m_advance(&m, now);
			dr_dcqcn_advance(&rp, &P, now);
			if (m_limited(&m)) {
				m.bytes += bytes;
				while (m.bytes >= P.byte_counter && m_limited(&m)) {
					m.bytes -= P.byte_counter;
					m.bc++;
					m_increase(&m);
				}
			} else {
				m.bytes = 0;
			}
			dr_dcqcn_on_sent(&rp, &P, bytes);
		}
		worst = fmax(worst, fabs((double)rp.rc - m.rc) / m.rc);
		CHECK_EQ(rp.t_count, m.t);
		CHECK_EQ(rp.b_count, m.bc);
		if (fabs((double)rp.rc - m.rc) / m.rc > 1e-3) {
			CHECK_MSG(0, "step %d: rc %" PRIu64 " model %.0f, rt %" PRIu64 " model %.0f, alpha %f model %f", i, rp.rc,
				  m.rc, rp.rt, m.rt, alpha_of(&rp), m.alpha);
			break;
		}
	}
	printf("20000 random events: RC within %.2e of the model (relative), %" PRIu64 " decreases\n", worst,
	       rp.decreases);
	CHECK(rp.decreases > 1000);
}

int
main(void)
{
	dr_dcqcn_params_default(&P, LINE);
	test_params();
	test_decrease();
	test_alpha();
	test_increase_stages();
	test_bounds();
	test_against_model();
	return dr_test_report("dcqcn");
}
