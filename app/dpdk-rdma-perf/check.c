/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* --check: pattern fill and verification (the rules are in check.h). */

#include "check.h"

#define GOLDEN 0x9e3779b97f4a7c15ull

static inline uint64_t
splitmix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t
perf_check_seed(uint32_t qp, uint32_t size_index, uint64_t iter)
{
	return splitmix64(splitmix64(splitmix64(qp ^ GOLDEN) + size_index) + iter);
}

/* the 8 pattern bytes of block @p blk, little-endian order of the word, low bits set */
static inline uint64_t
block(uint64_t seed, size_t blk)
{
	return splitmix64(seed + (uint64_t)blk * GOLDEN) | 0x0101010101010101ull;
}

void
perf_check_fill(uint8_t *buf, size_t len, uint64_t seed)
{
	size_t blk = 0, off = 0;

	for (; off + 8 <= len; off += 8, blk++) {
		uint64_t w = block(seed, blk);

		for (unsigned int i = 0; i < 8; i++)
			buf[off + i] = (uint8_t)(w >> (8 * i));
	}
	if (off < len) {
		uint64_t w = block(seed, blk);

		for (unsigned int i = 0; off + i < len; i++)
			buf[off + i] = (uint8_t)(w >> (8 * i));
	}
}

size_t
perf_check_verify(const uint8_t *buf, size_t len, uint64_t seed,
		  unsigned int *expected, unsigned int *got)
{
	return perf_check_verify_at(buf, 0, len, seed, expected, got);
}

size_t
perf_check_verify_at(const uint8_t *buf, size_t off, size_t len, uint64_t seed,
		     unsigned int *expected, unsigned int *got)
{
	for (size_t o = off, blk = off / 8; o < off + len; o += 8, blk++) {
		uint64_t w = block(seed, blk);
		size_t n = off + len - o < 8 ? off + len - o : 8;

		for (size_t i = 0; i < n; i++) {
			uint8_t want = (uint8_t)(w >> (8 * i));

			if (buf[o + i] != want) {
				*expected = want;
				*got = buf[o + i];
				return o + i;
			}
		}
	}
	return SIZE_MAX;
}
