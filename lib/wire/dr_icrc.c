/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * RoCEv2 ICRC (IBA vol. 1 7.8.1, Annex A17.3.3): a CRC-32 with a carried
 * register, so the masked pseudo-header and each mbuf segment are fed in turn
 * without copying the payload.
 *
 * Two engines behind dr_crc32_update(): a slicing-by-8 table, and, once
 * dr_crc32_enable_folding() has found PCLMULQDQ, carry-less-multiply folding
 * with the same carried register (dr_crc32_clmul.c) for every run of 16 bytes
 * and more: the ICRC of a 64-byte WRITE (the 48-byte pseudo-header and the
 * payload) costs a few dozen instructions instead of several hundred. Long
 * runs fold on 256-bit registers (VPCLMULQDQ, AVX2) and, where the CPU has
 * AVX-512 and the SIMD width allowed is 512, on 512-bit ones. The width is
 * EAL's SIMD limit unless dr_crc32_set_max_simd_bits() (or DR_ICRC_SIMD_BITS,
 * read by dr_open_device()) gave the library's own: nothing here changes a
 * setting of the process's (rte_net_crc_set_alg() would, for every user of
 * rte_net_crc in the application).
 * test/bench/bench_icrc.c measures every engine on the same sizes.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_ip.h>
#include <rte_vect.h>

#include "dr_crc32_clmul.h"
#include "dr_icrc.h"
#include "dr_pkt_express.h"

#define DR_CRC32_POLY 0xEDB88320u

/* runs of this many bytes and more are folded (the tail under 16 goes to the table) */
#define DR_CRC_FOLD_MIN 16
/* ... from this many on on 256-bit registers where the CPU has VPCLMULQDQ and AVX2 */
#define DR_CRC_FOLD256_MIN 256
/* ... and from this many on on 512-bit registers where the CPU has AVX-512F and VPCLMULQDQ */
#define DR_CRC_FOLD512_MIN 1024

static uint32_t crc_tab[8][256];
/* PCLMULQDQ folding is on (dr_crc32_enable_folding()): the express frame's inline ICRC reads it */
bool dr_crc32_folding;
/* ... on 256-bit registers as well: long runs here, the express frame's inline ICRC (dr_pkt_express.h) */
bool dr_crc32_folding256;
static bool crc_fold512;
/* the library's own SIMD width for the CRC (dr_crc32_set_max_simd_bits()); 0: EAL's limit */
static unsigned int crc_simd_bits;

int
dr_crc32_set_max_simd_bits(unsigned int bits)
{
	if (bits != 0 && bits != 128 && bits != 256 && bits != 512)
		return -EINVAL;
	crc_simd_bits = bits;
	return 0;
}

bool
dr_crc32_enable_folding(void)
{
	unsigned int width = crc_simd_bits != 0 ? crc_simd_bits : rte_vect_get_max_simd_bitwidth();

	dr_crc32_folding = dr_crc32_clmul_available() && rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) &&
			   rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1) && width >= RTE_VECT_SIMD_128;
	dr_crc32_folding256 = dr_crc32_folding && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) &&
		      rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ) && width >= RTE_VECT_SIMD_256;
	crc_fold512 = dr_crc32_folding256 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) && width >= RTE_VECT_SIMD_512;
	return dr_crc32_folding;
}

unsigned int
dr_crc32_simd_bits(void)
{
	return crc_fold512 ? 512 : dr_crc32_folding256 ? 256 : dr_crc32_folding ? 128 : 0;
}

void
dr_crc32_disable_folding(void)
{
	dr_crc32_folding = false;
	crc_fold512 = false;
	dr_crc32_folding256 = false;
}

static inline __attribute__((always_inline)) uint32_t
crc32_update_table(uint32_t crc, const uint8_t *p, size_t len);

uint32_t
dr_crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (dr_crc32_folding && len >= DR_CRC_FOLD_MIN) {
		size_t n = len & ~(size_t)15;

		crc = crc_fold512 && n >= DR_CRC_FOLD512_MIN ? dr_crc32_clmul512(crc, p, n) :
		      dr_crc32_folding256 && n >= DR_CRC_FOLD256_MIN ? dr_crc32_clmul256(crc, p, n) :
							       dr_crc32_clmul(crc, p, n);
		p += n;
		len -= n;
	}
	return crc32_update_table(crc, p, len);
}

uint32_t
dr_crc32_update_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	const uint8_t *p = src;
	uint8_t *d = dst;

	if (dr_crc32_folding && len >= DR_CRC_FOLD_MIN) {
		size_t n = len & ~(size_t)15;

		crc = crc_fold512 && n >= DR_CRC_FOLD512_MIN ? dr_crc32_clmul512_copy(crc, d, p, n) :
		      dr_crc32_folding256 && n >= DR_CRC_FOLD256_MIN ? dr_crc32_clmul256_copy(crc, d, p, n) :
							       dr_crc32_clmul_copy(crc, d, p, n);
		p += n;
		d += n;
		len -= n;
	}
	memcpy(d, p, len);
	return crc32_update_table(crc, p, len);
}

RTE_INIT(dr_crc32_tables_init)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ DR_CRC32_POLY : c >> 1;
		crc_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xFF];
}

static inline __attribute__((always_inline)) uint32_t
crc32_update_table(uint32_t crc, const uint8_t *p, size_t len)
{

	while (len >= 8) {
		uint32_t lo, hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo = rte_le_to_cpu_32(lo) ^ crc;
		hi = rte_le_to_cpu_32(hi);
		crc = crc_tab[7][lo & 0xFF] ^ crc_tab[6][(lo >> 8) & 0xFF] ^
		      crc_tab[5][(lo >> 16) & 0xFF] ^ crc_tab[4][lo >> 24] ^
		      crc_tab[3][hi & 0xFF] ^ crc_tab[2][(hi >> 8) & 0xFF] ^
		      crc_tab[1][(hi >> 16) & 0xFF] ^ crc_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xFF];
	return crc;
}

/*
 * The invariant pseudo-header: 8 bytes of ones for the LRH, then IP, UDP and
 * BTH with their variant fields set to ones (A17.3.3; IPv4 options, if any,
 * are covered as they are).
 */
static inline __attribute__((always_inline)) uint32_t
icrc_pseudo_header(const struct dr_pkt_info *pi)
{
	/* the LRH's ones and the masked headers in one run (48 bytes for IPv4: 3 folds) */
	uint8_t buf[8 + DR_PKT_MAX_HDR];
	uint8_t *h = buf + 8;
	uint32_t len = (uint32_t)pi->bth_off + DR_BTH_BYTES - pi->l3_off;
	uint32_t udp = pi->l4_off - pi->l3_off;

	memset(buf, 0xFF, 8);
	memcpy(h, pi->frame + pi->l3_off, len);
	if (pi->ip_ver == 4) {
		h[1] = 0xFF;                     /* TOS */
		h[8] = 0xFF;                     /* TTL */
		h[10] = h[11] = 0xFF;            /* header checksum */
	} else {
		h[0] |= 0x0F;                    /* traffic class, high nibble */
		h[1] = h[2] = h[3] = 0xFF;       /* traffic class low nibble, flow label */
		h[7] = 0xFF;                     /* hop limit */
	}
	h[udp + 6] = h[udp + 7] = 0xFF;          /* UDP checksum */
	h[udp + 8 + 4] = 0xFF;                   /* BTH resv8a: FECN, BECN, resv6a */
	return dr_crc32_update(DR_CRC32_INIT, buf, 8 + len);
}

uint32_t
dr_icrc_compute_buf(const void *frame, const struct dr_pkt_info *pi)
{
	uint32_t start = (uint32_t)pi->bth_off + DR_BTH_BYTES;
	uint32_t crc = icrc_pseudo_header(pi);

	crc = dr_crc32_update(crc, (const uint8_t *)frame + start, pi->frame_len - DR_ICRC_BYTES - start);
	return ~crc;
}

/*
 * The register over @n bytes at @p, frame offset @foff: the part inside the
 * payload also copied to @dst (its payload offset), the rest only read.
 */
static uint32_t
crc_span_copy(uint32_t crc, const uint8_t *p, uint32_t foff, uint32_t n, const struct dr_pkt_info *pi,
	      uint8_t *dst)
{
	uint32_t pay_end = (uint32_t)pi->pay_off + pi->paylen;

	if (foff < pi->pay_off) {                         /* extension headers */
		uint32_t k = RTE_MIN(n, (uint32_t)pi->pay_off - foff);

		crc = dr_crc32_update(crc, p, k);
		p += k;
		foff += k;
		n -= k;
	}
	if (n > 0 && foff < pay_end) {                    /* payload */
		uint32_t k = RTE_MIN(n, pay_end - foff);

		crc = dr_crc32_update_copy(crc, dst + (foff - pi->pay_off), p, k);
		p += k;
		n -= k;
	}
	return n > 0 ? dr_crc32_update(crc, p, n) : crc;  /* pad */
}

/*
 * The ICRC over the mbuf chain: the pseudo-header, then every byte after the
 * BTH up to the ICRC; with @dst the payload is also copied there in the same
 * pass (crc_span_copy()), without it (a constant NULL: inlined away) only read.
 */
static inline __attribute__((always_inline)) uint32_t
icrc_walk(const struct rte_mbuf *m, const struct dr_pkt_info *pi, uint8_t *dst)
{
	uint32_t off = (uint32_t)pi->bth_off + DR_BTH_BYTES, foff = off;
	uint32_t left = pi->frame_len - DR_ICRC_BYTES - off;
	uint32_t crc = icrc_pseudo_header(pi);

	/* skip whole segments before the first byte after the BTH */
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && left > 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, left);
		const uint8_t *p = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);

		crc = dst != NULL ? crc_span_copy(crc, p, foff, n, pi, dst) : dr_crc32_update(crc, p, n);
		foff += n;
		left -= n;
		off = 0;
		m = m->next;
	}
	return ~crc;
}

uint32_t
dr_icrc_compute_copy(const struct rte_mbuf *m, const struct dr_pkt_info *pi, void *dst)
{
	return icrc_walk(m, pi, dst);
}

uint32_t
dr_icrc_compute(const struct rte_mbuf *m, const struct dr_pkt_info *pi)
{
	return icrc_walk(m, pi, NULL);
}

/*
 * The ICRC's pseudo-header of an express frame, as an OR mask over the 48
 * bytes from 8 before the IPv4 header to the end of the BTH (A17.3.3): the
 * LRH's 8 bytes of ones (Ethernet bytes stand in for them), TOS, TTL, the
 * header checksum, the UDP checksum and the BTH's resv8a set to ones.
 */
const uint8_t dr_icrc_xp_mask[DR_ICRC_XP_HDR] __rte_aligned(16) = {
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,   /* LRH */
	[8 + 1] = 0xFF,                                    /* TOS */
	[8 + 8] = 0xFF,                                    /* TTL */
	[8 + 10] = 0xFF, [8 + 11] = 0xFF,                  /* header checksum */
	[8 + 20 + 6] = 0xFF, [8 + 20 + 7] = 0xFF,          /* UDP checksum */
	[8 + 28 + 4] = 0xFF,                               /* BTH resv8a: FECN, BECN, resv6a */
};

/* dr_icrc_flat_v4() of any run after the BTH, and without folding */
uint32_t
dr_icrc_flat_v4_any(const uint8_t *frame, uint32_t n)
{
	const uint8_t *hdr = frame + DR_XP_L3_OFF - 8, *rest = frame + DR_XP_BTH_OFF + DR_BTH_BYTES;
	uint32_t crc;

	if (dr_crc32_folding) {
		/* a short frame folds on from the header, one lane; a long one is reduced
		 * first, then folded four lanes at a time by dr_crc32_update() */
		uint32_t n16 = n < 256 ? n & ~15u : 0;

		crc = dr_crc32_clmul_masked48(DR_CRC32_INIT, hdr, dr_icrc_xp_mask, rest, n16);
		if (n != n16)
			crc = n - n16 < 16 ? crc32_update_table(crc, rest + n16, n - n16) :
					     dr_crc32_update(crc, rest + n16, n - n16);
	} else {
		uint8_t buf[sizeof(dr_icrc_xp_mask)];

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = hdr[i] | dr_icrc_xp_mask[i];
		crc = dr_crc32_update(crc32_update_table(DR_CRC32_INIT, buf, sizeof(buf)), rest, n);
	}
	return ~crc;
}
