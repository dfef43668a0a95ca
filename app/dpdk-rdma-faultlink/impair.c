/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The per-frame decisions of one direction (impair.h). The loss models are
 * netem's: Bernoulli, and the Gilbert-Elliott chain of netem's "loss
 * gemodel p r 1-h 1-k" (sch_netem.c loss_gilb_ell(): the frame's fate is
 * drawn in the state it arrives in, the chain then steps). Random numbers
 * come from xoshiro256** (Blackman and Vigna), seeded with splitmix64.
 */

#include <string.h>

#include "ecn.h"
#include "impair.h"

enum fl_stream { FL_S_LOSS, FL_S_DUP, FL_S_CORRUPT, FL_S_REORDER, FL_S_JITTER, FL_S_ECN };

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void
fl_rng_seed(struct fl_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
fl_rng_next(struct fl_rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t
fl_rng_below(struct fl_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)fl_rng_next(r) * n) >> 64);
}

/* P in [0, 1] as a threshold on a 64-bit draw; UINT64_MAX stands for "always" */
static uint64_t
threshold(double p)
{
	if (!(p > 0))
		return 0;
	if (p >= 1)
		return UINT64_MAX;
	return (uint64_t)(p * 18446744073709551616.0);
}

/* draws only when the event is possible, so an unconfigured impairment leaves its stream alone */
static inline bool
chance(struct fl_rng *r, uint64_t thr)
{
	if (thr == 0)
		return false;
	return thr == UINT64_MAX || fl_rng_next(r) < thr;
}

static uint64_t
ns_to_cycles(uint64_t ns, uint64_t hz)
{
	return (uint64_t)(((unsigned __int128)ns * hz) / 1000000000u);
}

void
fl_impair_conf_init(struct fl_impair_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->ge_1h = 1.0;
	c->corrupt_bits = 1;
	c->reorder_frames = FL_DEFAULT_REORDER_FRAMES;
	c->reorder_ns = FL_DEFAULT_HOLD_NS;
	c->limit = FL_DEFAULT_LIMIT;
	c->ecn_kmin = FL_DEFAULT_ECN_KMIN;
	c->ecn_kmax = FL_DEFAULT_ECN_KMAX;
	c->ecn_pmax = FL_DEFAULT_ECN_PMAX;
}

static void
seed_stream(struct fl_rng *r, uint64_t seed, unsigned int dir, enum fl_stream s)
{
	fl_rng_seed(r, seed ^ ((uint64_t)dir << 40) ^ ((uint64_t)s << 56));
}

void
fl_impair_init(struct fl_impair *im, const struct fl_impair_conf *c, uint64_t hz, uint64_t seed,
	       unsigned int dir)
{
	memset(im, 0, sizeof(*im));
	im->loss_model = c->loss_model;
	if (c->loss_model != FL_LOSS_NONE)
		im->loss_thr = threshold(c->loss);
	if (c->loss_model == FL_LOSS_GEMODEL) {
		im->ge_r_thr = threshold(c->ge_r);
		im->ge_1h_thr = threshold(c->ge_1h);
		im->ge_1k_thr = threshold(c->ge_1k);
	}
	im->dup_thr = threshold(c->duplicate);
	im->corrupt_thr = c->corrupt_bits != 0 ? threshold(c->corrupt) : 0;
	im->corrupt_bits = c->corrupt_bits;
	im->reorder_thr = threshold(c->reorder);
	im->reorder_frames = c->reorder_frames;
	im->reorder_cyc = ns_to_cycles(c->reorder_ns, hz);
	im->delay_cyc = ns_to_cycles(c->delay_ns, hz);
	im->jitter_cyc = ns_to_cycles(c->jitter_ns, hz);
	if (c->rate_bps != 0)
		im->cyc_per_byte_q32 = (uint64_t)((((unsigned __int128)hz * 8u) << 32) / c->rate_bps);
	im->overhead = c->overhead;
	im->ecn = c->ecn;
	im->ecn_kmin = c->ecn_kmin;
	im->ecn_kmax = c->ecn_kmax;
	im->ecn_pmax_thr = threshold(c->ecn_pmax);
	seed_stream(&im->loss_rng, seed, dir, FL_S_LOSS);
	seed_stream(&im->dup_rng, seed, dir, FL_S_DUP);
	seed_stream(&im->corrupt_rng, seed, dir, FL_S_CORRUPT);
	seed_stream(&im->reorder_rng, seed, dir, FL_S_REORDER);
	seed_stream(&im->jitter_rng, seed, dir, FL_S_JITTER);
	seed_stream(&im->ecn_rng, seed, dir, FL_S_ECN);
}

bool
fl_impair_lose(struct fl_impair *im)
{
	bool lost;

	switch (im->loss_model) {
	case FL_LOSS_RANDOM:
		return chance(&im->loss_rng, im->loss_thr);
	case FL_LOSS_GEMODEL:
		/* netem loss_gilb_ell(): the fate in the current state, then the step */
		if (im->ge_bad) {
			lost = chance(&im->loss_rng, im->ge_1h_thr);
			if (chance(&im->loss_rng, im->ge_r_thr))
				im->ge_bad = false;
		} else {
			lost = chance(&im->loss_rng, im->ge_1k_thr);
			if (chance(&im->loss_rng, im->loss_thr))
				im->ge_bad = true;
		}
		return lost;
	case FL_LOSS_NONE:
	default:
		return false;
	}
}

bool
fl_impair_duplicate(struct fl_impair *im)
{
	return chance(&im->dup_rng, im->dup_thr);
}

unsigned int
fl_impair_corrupt(struct fl_impair *im, uint32_t len, uint32_t *bits)
{
	unsigned int n;

	if (!chance(&im->corrupt_rng, im->corrupt_thr) || len == 0)
		return 0;
	n = im->corrupt_bits < FL_MAX_CORRUPT_BITS ? im->corrupt_bits : FL_MAX_CORRUPT_BITS;
	for (unsigned int i = 0; i < n; i++)
		bits[i] = (uint32_t)fl_rng_below(&im->corrupt_rng, (uint64_t)len * 8u);
	return n;
}

bool
fl_impair_reorder(struct fl_impair *im)
{
	return chance(&im->reorder_rng, im->reorder_thr);
}

uint64_t
fl_impair_delay(struct fl_impair *im)
{
	uint64_t j;

	if (im->jitter_cyc == 0)
		return im->delay_cyc;
	/* uniform in [delay - jitter, delay + jitter], clipped at 0 */
	j = fl_rng_below(&im->jitter_rng, 2 * im->jitter_cyc + 1);
	if (im->delay_cyc + j < im->jitter_cyc)
		return 0;
	return im->delay_cyc + j - im->jitter_cyc;
}

uint64_t
fl_impair_tx_cycles(const struct fl_impair *im, uint32_t len)
{
	if (im->cyc_per_byte_q32 == 0)
		return 0;
	return (uint64_t)(((unsigned __int128)(len + im->overhead) * im->cyc_per_byte_q32) >> 32);
}

bool
fl_impair_ecn(struct fl_impair *im, uint64_t backlog)
{
	if (!im->ecn)
		return false;
	return chance(&im->ecn_rng, fl_ecn_threshold(im->ecn_kmin, im->ecn_kmax, im->ecn_pmax_thr,
						      backlog));
}

bool
fl_frame_is_roce(const uint8_t *p, uint32_t len)
{
	uint32_t l3 = 14, l4;
	uint16_t type;

	if (len < l3)
		return false;
	type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == 0x8100) {           /* 802.1Q */
		if (len < 18)
			return false;
		type = (uint16_t)(p[16] << 8 | p[17]);
		l3 = 18;
	}
	if (type == 0x0800) {
		if (len < l3 + 20 || (p[l3] >> 4) != 4 || p[l3 + 9] != 17)
			return false;
		l4 = l3 + (uint32_t)(p[l3] & 0xf) * 4;
	} else if (type == 0x86DD) {
		if (len < l3 + 40 || (p[l3] >> 4) != 6 || p[l3 + 6] != 17)
			return false;
		l4 = l3 + 40;
	} else {
		return false;
	}
	return len >= l4 + 8 && p[l4 + 2] == 0x12 && p[l4 + 3] == 0xB7;   /* 4791 */
}
