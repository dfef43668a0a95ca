/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * CRC-32 (the reflected 0x04C11DB7 polynomial of Ethernet and the ICRC) by
 * carry-less multiplication, with a carried register: the engine
 * dr_crc32_update() uses for every run of 16 bytes and more once
 * dr_crc32_enable_folding() found PCLMULQDQ (Intel's "Fast CRC Computation
 * for Generic Polynomials Using PCLMULQDQ", reflected form).
 *
 * The register is xored into the first 16-byte block; blocks are folded
 * forward (four lanes 64 bytes apart while 64 bytes are left, then one),
 * the last 128 bits reduced to 64 and then, by Barrett reduction, to the 32
 * of the new register. The constants are x^n mod P for the fold distances,
 * bit-reflected and shifted by one as PCLMULQDQ's reflected product needs:
 *   k1 = x^(4*128+32), k2 = x^(4*128-32)   four lanes, 512 bits ahead
 *   k3 = x^(128+32),   k4 = x^(128-32)     one lane, 128 bits ahead
 *   k5 = x^64                               128 -> 64 bits
 *   mu = floor(x^64 / P), P                 Barrett
 * Shorter runs, and the tail under 16 bytes, go to the table.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#include "dr_crc32_clmul.h"

#if defined(RTE_ARCH_X86_64)

#include <immintrin.h>

#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

CLMUL_TARGET static inline __m128i
fold(__m128i x, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
					   _mm_clmulepi64_si128(x, k, 0x11)), next);
}

CLMUL_TARGET uint32_t
dr_crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
	const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
	const __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);
	__m128i x1, x2, t;

	/* len >= 16: the caller's rule; a multiple of 16 is taken here */
	x1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
	p += 16;
	len -= 16;
	if (len >= 48) {
		__m128i y2 = _mm_loadu_si128((const __m128i *)p);
		__m128i y3 = _mm_loadu_si128((const __m128i *)(p + 16));
		__m128i y4 = _mm_loadu_si128((const __m128i *)(p + 32));

		p += 48;
		len -= 48;
		while (len >= 64) {
			x1 = fold(x1, k1k2, _mm_loadu_si128((const __m128i *)p));
			y2 = fold(y2, k1k2, _mm_loadu_si128((const __m128i *)(p + 16)));
			y3 = fold(y3, k1k2, _mm_loadu_si128((const __m128i *)(p + 32)));
			y4 = fold(y4, k1k2, _mm_loadu_si128((const __m128i *)(p + 48)));
			p += 64;
			len -= 64;
		}
		x1 = fold(x1, k3k4, y2);
		x1 = fold(x1, k3k4, y3);
		x1 = fold(x1, k3k4, y4);
	}
	while (len >= 16) {
		x1 = fold(x1, k3k4, _mm_loadu_si128((const __m128i *)p));
		p += 16;
		len -= 16;
	}
	/* 128 -> 64 bits */
	x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
	t = _mm_srli_si128(x1, 4);
	x1 = _mm_and_si128(x1, mask32);
	x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k5, 0x00), t);
	/* Barrett: 64 -> 32 bits */
	x2 = _mm_and_si128(x1, mask32);
	x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
	x2 = _mm_and_si128(x2, mask32);
	x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	return (uint32_t)_mm_extract_epi32(x1, 1);
}

bool
dr_crc32_clmul_available(void)
{
	return true;
}

#else

uint32_t
dr_crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	RTE_SET_USED(p);
	RTE_SET_USED(len);
	return crc;
}

bool
dr_crc32_clmul_available(void)
{
	return false;
}

#endif
