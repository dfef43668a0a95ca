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
 * (and on wider registers further ahead: dr_crc32_clmul256(), ..512())
 *   k5 = x^64                               128 -> 64 bits
 *   mu = floor(x^64 / P), P                 Barrett
 * Shorter runs, and the tail under 16 bytes, go to the table.
 * dr_crc32_clmul_copy() stores every block it loads to a destination as
 * well: a copy and its CRC in one pass over the data.
 */

#include <stdbool.h>
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

/* The next 16 bytes at @p + @off; with @copy also stored at @dst + @off (one pass over the data). */
CLMUL_TARGET static inline __attribute__((always_inline)) __m128i
take16(const uint8_t *p, uint8_t *dst, size_t off, bool copy)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(p + off));

	if (copy)
		_mm_storeu_si128((__m128i *)(dst + off), v);
	return v;
}

/*
 * From the folded register @x1 (the data before @p): the 16-byte blocks of
 * the @len bytes left (copied to @dst when @copy), then 128 -> 32 bits.
 */
CLMUL_TARGET static inline __attribute__((always_inline)) uint32_t
crc_fold_from(__m128i x1, const uint8_t *p, size_t len, uint8_t *dst, bool copy)
{
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
	const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
	const __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);
	__m128i x2, t;

	/* two blocks a turn: the loop's own count, add and branch once per 32 bytes */
	while (len >= 32) {
		x1 = fold(x1, k3k4, take16(p, dst, 0, copy));
		x1 = fold(x1, k3k4, take16(p, dst, 16, copy));
		p += 32;
		if (copy)
			dst += 32;   /* never offset a NULL @dst (C11 6.5.6p8) */
		len -= 32;
	}
	if (len >= 16)
		x1 = fold(x1, k3k4, take16(p, dst, 0, copy));
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

/* The fold of the file's comment over @len bytes (a multiple of 16, at least 16), copying them when @copy. */
CLMUL_TARGET static inline __attribute__((always_inline)) uint32_t
crc_fold(uint32_t crc, const uint8_t *p, size_t len, uint8_t *dst, bool copy)
{
	const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	__m128i x1;

	x1 = _mm_xor_si128(take16(p, dst, 0, copy), _mm_cvtsi32_si128((int)crc));
	p += 16;
	if (copy)
		dst += 16;   /* never offset a NULL @dst (C11 6.5.6p8) */
	len -= 16;
	if (len >= 48) {
		__m128i y2 = take16(p, dst, 0, copy);
		__m128i y3 = take16(p, dst, 16, copy);
		__m128i y4 = take16(p, dst, 32, copy);

		p += 48;
		if (copy)
			dst += 48;   /* never offset a NULL @dst (C11 6.5.6p8) */
		len -= 48;
		while (len >= 64) {
			x1 = fold(x1, k1k2, take16(p, dst, 0, copy));
			y2 = fold(y2, k1k2, take16(p, dst, 16, copy));
			y3 = fold(y3, k1k2, take16(p, dst, 32, copy));
			y4 = fold(y4, k1k2, take16(p, dst, 48, copy));
			p += 64;
			if (copy)
				dst += 64;   /* never offset a NULL @dst (C11 6.5.6p8) */
			len -= 64;
		}
		x1 = fold(x1, k3k4, y2);
		x1 = fold(x1, k3k4, y3);
		x1 = fold(x1, k3k4, y4);
	}
	return crc_fold_from(x1, p, len, dst, copy);
}

CLMUL_TARGET uint32_t
dr_crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	/* len >= 16: the caller's rule; a multiple of 16 is taken here */
	return crc_fold(crc, p, len, NULL, false);
}

CLMUL_TARGET uint32_t
dr_crc32_clmul_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	return crc_fold(crc, p, len, dst, true);
}

/*
 * The register over 48 bytes at @p with the bits of @or_mask set (a masked
 * header, built in registers rather than in a copy), then over the @n bytes
 * at @rest (a multiple of 16, 0 allowed), reduced to 32 bits.
 */
CLMUL_TARGET uint32_t
dr_crc32_clmul_masked48(uint32_t crc, const uint8_t *p, const uint8_t *or_mask, const uint8_t *rest, size_t n)
{
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	__m128i x1;

	x1 = _mm_or_si128(_mm_loadu_si128((const __m128i *)p), _mm_loadu_si128((const __m128i *)or_mask));
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
	x1 = fold(x1, k3k4, _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + 16)),
					 _mm_loadu_si128((const __m128i *)(or_mask + 16))));
	x1 = fold(x1, k3k4, _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + 32)),
					 _mm_loadu_si128((const __m128i *)(or_mask + 32))));
	return crc_fold_from(x1, rest, n, NULL, false);
}

/*
 * The same fold on 256-bit registers (VPCLMULQDQ on AVX2 registers, within
 * EAL's default 256-bit SIMD limit): four registers of two lanes each, eight
 * lanes 128 bytes apart, folded 1024 bits ahead with
 *   k = x^(8*128+32), x^(8*128-32)
 * then the eight lanes folded one into the next with k3/k4 and the rest
 * done as above. Twice the bytes per instruction of the 128-bit fold.
 */
#define CLMUL256_TARGET __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.1")))

CLMUL256_TARGET static inline __attribute__((always_inline)) __m256i
fold256(__m256i x, __m256i k, __m256i next)
{
	return _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00),
						 _mm256_clmulepi64_epi128(x, k, 0x11)), next);
}

CLMUL256_TARGET static inline __attribute__((always_inline)) __m256i
take32(const uint8_t *p, uint8_t *dst, size_t off, bool copy)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(p + off));

	if (copy)
		_mm256_storeu_si256((__m256i *)(dst + off), v);
	return v;
}

/* @len >= 128: whole 128-byte blocks by the 256-bit fold, then crc_fold()'s tail and reduction. */
CLMUL256_TARGET static inline __attribute__((always_inline)) uint32_t
crc_fold256(uint32_t crc, const uint8_t *p, size_t len, uint8_t *dst, bool copy)
{
	const __m256i k8 = _mm256_set_epi64x(0x014a7fe880, 0x01e88ef372, 0x014a7fe880, 0x01e88ef372);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	__m256i a0, a1, a2, a3;
	__m128i x, lane[8];
	size_t head = len & ~(size_t)127;

	a0 = _mm256_xor_si256(take32(p, dst, 0, copy), _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)crc)));
	a1 = take32(p, dst, 32, copy);
	a2 = take32(p, dst, 64, copy);
	a3 = take32(p, dst, 96, copy);
	for (size_t off = 128; off < head; off += 128) {
		a0 = fold256(a0, k8, take32(p, dst, off, copy));
		a1 = fold256(a1, k8, take32(p, dst, off + 32, copy));
		a2 = fold256(a2, k8, take32(p, dst, off + 64, copy));
		a3 = fold256(a3, k8, take32(p, dst, off + 96, copy));
	}
	lane[0] = _mm256_castsi256_si128(a0);
	lane[1] = _mm256_extracti128_si256(a0, 1);
	lane[2] = _mm256_castsi256_si128(a1);
	lane[3] = _mm256_extracti128_si256(a1, 1);
	lane[4] = _mm256_castsi256_si128(a2);
	lane[5] = _mm256_extracti128_si256(a2, 1);
	lane[6] = _mm256_castsi256_si128(a3);
	lane[7] = _mm256_extracti128_si256(a3, 1);
	x = lane[0];
	for (int i = 1; i < 8; i++)
		x = fold(x, k3k4, lane[i]);
	/* the register as crc_fold() would hold it after the last block: reduce it with the tail */
	return crc_fold_from(x, p + head, len - head, copy ? dst + head : NULL, copy);
}

/*
 * dr_crc32_clmul_masked48() on 256-bit registers, for the short frame:
 * two lanes 32 bytes apart folded 256 bits ahead with
 *   k = x^(2*128+32), x^(2*128-32)
 * the masked header's first 32 bytes one register, its last 16 and the
 * first 16 of @rest the next, then @rest 32 bytes a turn; the two lanes
 * folded into one and the rest (16 bytes or none) done as above. Half the
 * multiplications and loads of the 128-bit fold for a 64-byte WRITE.
 */
CLMUL256_TARGET uint32_t
dr_crc32_clmul256_masked48(uint32_t crc, const uint8_t *p, const uint8_t *or_mask, const uint8_t *rest, size_t n)
{
	const __m256i k4 = _mm256_set_epi64x(0x015a546366, 0x00f1da05aa, 0x015a546366, 0x00f1da05aa);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	__m128i third = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + 32)),
				     _mm_loadu_si128((const __m128i *)(or_mask + 32)));
	__m256i y = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)p),
				    _mm256_loadu_si256((const __m256i *)or_mask));
	__m128i x;

	y = _mm256_xor_si256(y, _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)crc)));
	if (n == 0) {
		x = fold(_mm256_castsi256_si128(y), k3k4, _mm256_extracti128_si256(y, 1));
		return crc_fold_from(fold(x, k3k4, third), rest, 0, NULL, false);
	}
	y = fold256(y, k4, _mm256_inserti128_si256(_mm256_castsi128_si256(third),
						   _mm_loadu_si128((const __m128i *)rest), 1));
	rest += 16;
	n -= 16;
	while (n >= 32) {
		y = fold256(y, k4, _mm256_loadu_si256((const __m256i *)rest));
		rest += 32;
		n -= 32;
	}
	x = fold(_mm256_castsi256_si128(y), k3k4, _mm256_extracti128_si256(y, 1));
	return crc_fold_from(x, rest, n, NULL, false);
}

CLMUL256_TARGET uint32_t
dr_crc32_clmul256(uint32_t crc, const uint8_t *p, size_t len)
{
	return crc_fold256(crc, p, len, NULL, false);
}

CLMUL256_TARGET uint32_t
dr_crc32_clmul256_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	return crc_fold256(crc, p, len, dst, true);
}

/*
 * The same fold on 512-bit registers (AVX-512F and VPCLMULQDQ; dr_icrc.c
 * chooses it, never EAL's SIMD limit for it): four registers of four lanes
 * each, sixteen lanes 256 bytes apart, folded 2048 bits ahead with
 *   k = x^(16*128+32), x^(16*128-32)   (DR_CRC_K2048_LO, DR_CRC_K2048_HI)
 * then the sixteen lanes folded one into the next with k3/k4 and the rest
 * done as above. test_icrc.c checks the constants and the lane order on
 * any CPU (the same fold on sixteen 128-bit lanes), and this code itself
 * where the CPU has AVX-512.
 */
#define CLMUL512_TARGET __attribute__((target("avx512f,vpclmulqdq,avx2,pclmul,sse4.1")))

CLMUL512_TARGET static inline __attribute__((always_inline)) __m512i
fold512(__m512i x, __m512i k, __m512i next)
{
	return _mm512_xor_si512(_mm512_xor_si512(_mm512_clmulepi64_epi128(x, k, 0x00),
						 _mm512_clmulepi64_epi128(x, k, 0x11)), next);
}

CLMUL512_TARGET static inline __attribute__((always_inline)) __m512i
take64(const uint8_t *p, uint8_t *dst, size_t off, bool copy)
{
	__m512i v = _mm512_loadu_si512((const void *)(p + off));

	if (copy)
		_mm512_storeu_si512((void *)(dst + off), v);
	return v;
}

/* The register @x folded on over the four lanes of @a, in stream order. */
CLMUL512_TARGET static inline __attribute__((always_inline)) __m128i
fold_lanes512(__m128i x, __m128i k3k4, __m512i a)
{
	x = fold(x, k3k4, _mm512_extracti32x4_epi32(a, 1));
	x = fold(x, k3k4, _mm512_extracti32x4_epi32(a, 2));
	return fold(x, k3k4, _mm512_extracti32x4_epi32(a, 3));
}

/* @len >= 256: whole 256-byte blocks by the 512-bit fold, then crc_fold()'s tail and reduction. */
CLMUL512_TARGET static inline __attribute__((always_inline)) uint32_t
crc_fold512(uint32_t crc, const uint8_t *p, size_t len, uint8_t *dst, bool copy)
{
	const __m512i k16 = _mm512_set_epi64(DR_CRC_K2048_HI, DR_CRC_K2048_LO, DR_CRC_K2048_HI, DR_CRC_K2048_LO,
					     DR_CRC_K2048_HI, DR_CRC_K2048_LO, DR_CRC_K2048_HI, DR_CRC_K2048_LO);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	__m512i a0, a1, a2, a3;
	__m128i x;
	size_t head = len & ~(size_t)255;

	a0 = _mm512_xor_si512(take64(p, dst, 0, copy), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)crc)));
	a1 = take64(p, dst, 64, copy);
	a2 = take64(p, dst, 128, copy);
	a3 = take64(p, dst, 192, copy);
	for (size_t off = 256; off < head; off += 256) {
		a0 = fold512(a0, k16, take64(p, dst, off, copy));
		a1 = fold512(a1, k16, take64(p, dst, off + 64, copy));
		a2 = fold512(a2, k16, take64(p, dst, off + 128, copy));
		a3 = fold512(a3, k16, take64(p, dst, off + 192, copy));
	}
	/* lanes 0..15 in stream order: a0's four, then a1's, a2's, a3's */
	x = fold_lanes512(_mm512_castsi512_si128(a0), k3k4, a0);
	x = fold_lanes512(fold(x, k3k4, _mm512_castsi512_si128(a1)), k3k4, a1);
	x = fold_lanes512(fold(x, k3k4, _mm512_castsi512_si128(a2)), k3k4, a2);
	x = fold_lanes512(fold(x, k3k4, _mm512_castsi512_si128(a3)), k3k4, a3);
	return crc_fold_from(x, p + head, len - head, copy ? dst + head : NULL, copy);
}

CLMUL512_TARGET uint32_t
dr_crc32_clmul512(uint32_t crc, const uint8_t *p, size_t len)
{
	return crc_fold512(crc, p, len, NULL, false);
}

CLMUL512_TARGET uint32_t
dr_crc32_clmul512_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	return crc_fold512(crc, p, len, dst, true);
}

bool
dr_crc32_clmul_available(void)
{
	return true;
}

#else

uint32_t
dr_crc32_clmul_masked48(uint32_t crc, const uint8_t *p, const uint8_t *or_mask, const uint8_t *rest, size_t n)
{
	RTE_SET_USED(p);
	RTE_SET_USED(or_mask);
	RTE_SET_USED(rest);
	RTE_SET_USED(n);
	return crc;
}

uint32_t
dr_crc32_clmul256(uint32_t crc, const uint8_t *p, size_t len)
{
	RTE_SET_USED(p);
	RTE_SET_USED(len);
	return crc;
}

uint32_t
dr_crc32_clmul256_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	RTE_SET_USED(dst);
	RTE_SET_USED(p);
	RTE_SET_USED(len);
	return crc;
}

uint32_t
dr_crc32_clmul256_masked48(uint32_t crc, const uint8_t *p, const uint8_t *or_mask, const uint8_t *rest, size_t n)
{
	RTE_SET_USED(p);
	RTE_SET_USED(or_mask);
	RTE_SET_USED(rest);
	RTE_SET_USED(n);
	return crc;
}

uint32_t
dr_crc32_clmul512(uint32_t crc, const uint8_t *p, size_t len)
{
	RTE_SET_USED(p);
	RTE_SET_USED(len);
	return crc;
}

uint32_t
dr_crc32_clmul512_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	RTE_SET_USED(dst);
	RTE_SET_USED(p);
	RTE_SET_USED(len);
	return crc;
}

uint32_t
dr_crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	RTE_SET_USED(p);
	RTE_SET_USED(len);
	return crc;
}

uint32_t
dr_crc32_clmul_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	RTE_SET_USED(dst);
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
