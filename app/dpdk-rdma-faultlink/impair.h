/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef FL_IMPAIR_H
#define FL_IMPAIR_H

/*
 * What one direction of the fault link does to the frames it carries, and
 * the decisions it makes frame by frame: pure logic, no EAL, no mbufs (the
 * unit tests drive it on a virtual clock). The configuration is in natural
 * units (parsed by fl_spec_parse() from a tc-netem-like string); the
 * runtime form is in TSC cycles and 64-bit thresholds.
 *
 * Reproducibility: every impairment draws from its own random stream,
 * seeded from (seed, direction, impairment), and draws only when it is
 * configured. The n-th frame a direction receives therefore meets the same
 * fate in every run with the same seed and configuration, whatever the
 * other impairments do.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FL_DEFAULT_LIMIT 1000u        /* queue frames, as netem's default limit */
#define FL_MAX_LIMIT (1u << 20)
#define FL_DEFAULT_REORDER_FRAMES 3u
#define FL_DEFAULT_HOLD_NS 1000000u   /* a frame held by count leaves after 1 ms at the latest */
#define FL_MAX_CORRUPT_BITS 64u
#define FL_MAX_TIME_NS 10000000000ull /* delays, jitter and hold times up to 10 s */
#define FL_DEFAULT_ECN_KMIN 5000u     /* DCQCN's (Zhu et al. 2015): Kmin 5 KB, Kmax 200 KB, Pmax 1% */
#define FL_DEFAULT_ECN_KMAX 200000u
#define FL_DEFAULT_ECN_PMAX 0.01
#define FL_MAX_ECN_BYTES (1ull << 40)

enum fl_loss_model {
	FL_LOSS_NONE,
	FL_LOSS_RANDOM,     /* Bernoulli: each frame lost with probability loss */
	FL_LOSS_GEMODEL,    /* Gilbert-Elliott, netem's "loss gemodel p r 1-h 1-k" */
};

/* One direction's impairments as given (fl_spec_parse()). All zero: a plain wire. */
struct fl_impair_conf {
	enum fl_loss_model loss_model;
	double loss;            /* random: P(lost); gemodel: p, P(good -> bad) per frame */
	double ge_r;            /* gemodel: P(bad -> good) per frame */
	double ge_1h;           /* gemodel: P(lost) in the bad state */
	double ge_1k;           /* gemodel: P(lost) in the good state */
	double duplicate;       /* P(a second copy follows the frame) */
	double corrupt;         /* P(the frame gets corrupt_bits random bit flips) */
	uint32_t corrupt_bits;
	double reorder;         /* P(the frame is held back) */
	uint32_t reorder_frames; /* held until this many later frames passed (0: by time only) */
	uint64_t reorder_ns;    /* ... or until this long passed */
	uint64_t delay_ns;      /* every frame delayed by delay_ns +/- jitter_ns (uniform) */
	uint64_t jitter_ns;
	uint64_t rate_bps;      /* serialisation rate in bit/s (0: none) */
	uint32_t overhead;      /* bytes added to each frame's length for the rate */
	uint32_t limit;         /* frames the queue holds; beyond: tail drop */
	bool ecn;               /* RED/ECN marking at the queue (ecn.h) */
	uint64_t ecn_kmin;      /* bytes queued at and below which nothing is marked */
	uint64_t ecn_kmax;      /* bytes queued above which every ECN-capable frame is marked */
	double ecn_pmax;        /* the marking probability at kmax */
};

/* The defaults: nothing impaired, a queue of FL_DEFAULT_LIMIT frames. */
void fl_impair_conf_init(struct fl_impair_conf *c);

/* xoshiro256** state */
struct fl_rng {
	uint64_t s[4];
};

void fl_rng_seed(struct fl_rng *r, uint64_t seed);
uint64_t fl_rng_next(struct fl_rng *r);
/* uniform in [0, n) (n > 0) */
uint64_t fl_rng_below(struct fl_rng *r, uint64_t n);

/* A direction's runtime state: thresholds (P * 2^64), cycles, random streams. */
struct fl_impair {
	enum fl_loss_model loss_model;
	bool ge_bad;            /* the Gilbert-Elliott chain is in its bad state */
	uint64_t loss_thr, ge_r_thr, ge_1h_thr, ge_1k_thr;
	uint64_t dup_thr, corrupt_thr, reorder_thr;
	uint32_t corrupt_bits;
	uint32_t reorder_frames;
	uint64_t reorder_cyc;
	uint64_t delay_cyc, jitter_cyc;
	uint64_t cyc_per_byte_q32;  /* rate: cycles per byte << 32 (0: no rate) */
	uint32_t overhead;
	bool ecn;
	uint64_t ecn_kmin, ecn_kmax, ecn_pmax_thr;
	struct fl_rng loss_rng, dup_rng, corrupt_rng, reorder_rng, jitter_rng, ecn_rng;
};

/* The runtime form of @c for a clock of @hz cycles per second, the random
 * streams seeded from @seed and the direction index @dir. */
void fl_impair_init(struct fl_impair *im, const struct fl_impair_conf *c, uint64_t hz, uint64_t seed,
		    unsigned int dir);

/* This frame is lost (the loss model steps once per frame). */
bool fl_impair_lose(struct fl_impair *im);
/* A duplicate of this frame follows it. */
bool fl_impair_duplicate(struct fl_impair *im);
/* How many bits of a @len-byte frame to flip (0: none), their bit offsets
 * (bit 0 is the most significant bit of byte 0) in @bits[FL_MAX_CORRUPT_BITS]. */
unsigned int fl_impair_corrupt(struct fl_impair *im, uint32_t len, uint32_t *bits);
/* This frame is held back (fl_hold). */
bool fl_impair_reorder(struct fl_impair *im);
/* The delay of the next frame: delay +/- jitter, in cycles, never negative. */
uint64_t fl_impair_delay(struct fl_impair *im);
/* Cycles the rate limit takes to send a @len-byte frame (0 without a rate). */
uint64_t fl_impair_tx_cycles(const struct fl_impair *im, uint32_t len);

/* ECN marking is configured and a frame arriving to @backlog bytes queued is
 * to be marked (RED/ECN, ecn.h; draws from its own stream only between kmin
 * and kmax). Whether it can be (ECN-capable) is fl_ecn_mark()'s. */
bool fl_impair_ecn(struct fl_impair *im, uint64_t backlog);

/* A RoCEv2 frame (--roce-only): Ethernet with at most one 802.1Q tag, IPv4 or
 * IPv6 (no extension headers), UDP to port 4791; @p holds @len bytes of it. */
bool fl_frame_is_roce(const uint8_t *p, uint32_t len);

/*
 * Parse a tc-netem-like @spec into @c (doc/guides/faultlink.rst), changing
 * only what it names:
 *   loss [random] P% | loss gemodel P% [R% [1-H% [1-K%]]]
 *   duplicate P%   corrupt P% [bits N]   reorder P% [frames K] [time T]
 *   delay T [J]    rate R [overhead B]   limit N
 *   ecn [kmin SIZE] [kmax SIZE] [pmax P%] | ecn off
 * P% percentages, T/J times with a unit (ns, us, ms, s), R a rate with a
 * unit (bit, kbit, mbit, gbit; bps, kbps, mbps, gbps are bytes/s), SIZE
 * bytes with an optional unit (B, KB, MB, GB powers of 1000; KiB, MiB, GiB
 * powers of 1024).
 * Returns 0, or -EINVAL with the reason in @err.
 */
int fl_spec_parse(const char *spec, struct fl_impair_conf *c, char *err, size_t errlen);

/* @c as a spec string fl_spec_parse() reads back ("none" when nothing is impaired). */
int fl_spec_format(const struct fl_impair_conf *c, char *buf, size_t len);

#endif /* FL_IMPAIR_H */
