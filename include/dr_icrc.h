/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_ICRC_H
#define DR_ICRC_H

/**
 * @file
 * The RoCEv2 invariant CRC (IBA vol. 1, 7.8.1; Annex A17.3.3).
 *
 * The ICRC is the Ethernet CRC-32 (reflected polynomial 0xEDB88320, initial
 * value all ones, final complement) over: 8 bytes of ones standing for the
 * absent LRH, the IP header with its variant fields set to ones (IPv4: TOS,
 * TTL, header checksum; IPv6: traffic class, flow label, hop limit), the UDP
 * header with its checksum set to ones, the BTH with its reserved byte 4
 * (FECN/BECN/resv6a) set to ones, then every byte after the BTH up to the
 * ICRC. It is sent least significant byte first.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "dr_pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Initial CRC register value. */
#define DR_CRC32_INIT 0xFFFFFFFFu

/**
 * Run the CRC-32 register @p crc over @p len bytes (no initial or final
 * complement: start from DR_CRC32_INIT, complement the result at the end).
 */
uint32_t dr_crc32_update(uint32_t crc, const void *buf, size_t len);

/**
 * dr_crc32_update() over @p len bytes at @p src that also copies them to
 * @p dst, in one pass over the data where folding is in use.
 */
uint32_t dr_crc32_update_copy(uint32_t crc, void *dst, const void *src, size_t len);

/**
 * Let dr_crc32_update() fold every run of 16 bytes and more by carry-less
 * multiplication (PCLMULQDQ, the register carried as with the table) when
 * the CPU has PCLMULQDQ and SSE4.1 and the SIMD width allowed (below) is 128
 * bits or more; long runs on 256-bit registers where the CPU has AVX2 and
 * VPCLMULQDQ and the width is 256 or more, on 512-bit ones where it also
 * has AVX-512F and the width is 512. The width is the library's own
 * (dr_crc32_set_max_simd_bits()) when one was set, else EAL's SIMD limit
 * (rte_vect_get_max_simd_bitwidth(), 256 by default). The library's state,
 * for all its contexts; no setting of the process's is changed. Call after
 * rte_eal_init(); dr_open_device() does. Results are identical either way.
 * @return true when folding is in use.
 */
bool dr_crc32_enable_folding(void);

/**
 * The library's own SIMD width for the CRC, in place of EAL's SIMD limit:
 * 128, 256 or 512 bits, or 0 to follow EAL's limit again (the default).
 * A width of 512 lets the CRC use AVX-512 where the CPU has it without
 * raising EAL's limit for the whole process (--force-max-simd-bitwidth).
 * Takes effect at the next dr_crc32_enable_folding(). dr_open_device()
 * sets it from the environment variable DR_ICRC_SIMD_BITS when that is set.
 * @return 0, or -EINVAL for any other width.
 */
int dr_crc32_set_max_simd_bits(unsigned int bits);

/**
 * The widest registers the CRC folds on now: 512, 256 or 128 bits, or 0
 * (the table alone).
 */
unsigned int dr_crc32_simd_bits(void);

/** Go back to the table CRC only (for tests and benchmarks). */
void dr_crc32_disable_folding(void);

/** The plain Ethernet CRC-32 of a buffer (as zlib's crc32(0, buf, len)). */
static inline uint32_t
dr_crc32(const void *buf, size_t len)
{
	return ~dr_crc32_update(DR_CRC32_INIT, buf, len);
}

/**
 * ICRC of the packet @p pi describes, held in the mbuf chain @p m, computed
 * over everything before its last four bytes. Returned in host order; the
 * wire carries rte_cpu_to_le_32() of it.
 */
uint32_t dr_icrc_compute(const struct rte_mbuf *m, const struct dr_pkt_info *pi);

/** As dr_icrc_compute(), for a contiguous frame. */
uint32_t dr_icrc_compute_buf(const void *frame, const struct dr_pkt_info *pi);

/**
 * dr_icrc_compute() that also copies the packet's payload (@p pi->paylen
 * bytes from @p pi->pay_off) to @p dst, reading it once.
 */
uint32_t dr_icrc_compute_copy(const struct rte_mbuf *m, const struct dr_pkt_info *pi, void *dst);

#ifdef __cplusplus
}
#endif

#endif /* DR_ICRC_H */
