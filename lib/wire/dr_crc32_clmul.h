/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CRC32_CLMUL_H
#define DR_CRC32_CLMUL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Run the CRC-32 register @crc over the first (@len & ~15) bytes of @p by
 * carry-less multiplication (@len >= 16; the caller checked PCLMULQDQ and
 * runs the rest with the table). dr_crc32_clmul.c.
 */
uint32_t dr_crc32_clmul(uint32_t crc, const uint8_t *p, size_t len);
/* The same, storing the @len bytes to @dst as it reads them. */
uint32_t dr_crc32_clmul_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len);
/*
 * Both on 256-bit registers (VPCLMULQDQ with AVX2; the caller checked both
 * flags and EAL's SIMD limit): @len >= 128, (@len & ~15) bytes taken.
 */
uint32_t dr_crc32_clmul256(uint32_t crc, const uint8_t *p, size_t len);
uint32_t dr_crc32_clmul256_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len);
uint32_t dr_crc32_clmul512(uint32_t crc, const uint8_t *p, size_t len);
uint32_t dr_crc32_clmul512_copy(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len);

/*
 * The 512-bit fold's constants (sixteen lanes, 2048 bits ahead): x^(2048+32)
 * and x^(2048-32) mod P, bit-reflected and shifted by one as the others
 * (dr_crc32_clmul.c); test_icrc.c folds with them on 128-bit lanes.
 */
#define DR_CRC_K2048_LO 0x011542778aLL
#define DR_CRC_K2048_HI 0x01322d1430LL

/*
 * The register over 48 bytes at @p with the bits of @or_mask set, then over
 * @n more bytes at @rest (a multiple of 16): a masked header without a copy.
 */
uint32_t dr_crc32_clmul_masked48(uint32_t crc, const uint8_t *p, const uint8_t *or_mask, const uint8_t *rest,
				 size_t n);
uint32_t dr_crc32_clmul256_masked48(uint32_t crc, const uint8_t *p, const uint8_t *or_mask, const uint8_t *rest,
				    size_t n);

/* Built for a CPU family that has the instruction (the run-time flag is checked apart). */
bool dr_crc32_clmul_available(void);

/* dr_crc32_update() folds with PCLMULQDQ (set by dr_crc32_enable_folding(), dr_icrc.c) */
extern bool dr_crc32_folding;
/* ... on 256-bit registers as well (VPCLMULQDQ, AVX2, the width allows): the short frame's fold too */
extern bool dr_crc32_folding256;

#endif /* DR_CRC32_CLMUL_H */
