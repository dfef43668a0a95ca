/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * RoCEv2 ICRC (IBA vol. 1 7.8.1, Annex A17.3.3): a slicing-by-8 CRC-32 with a
 * carried register, so the masked pseudo-header and each mbuf segment are
 * fed in turn without copying the payload. test/bench/bench_icrc.c measures
 * it against DPDK's rte_net_crc (which cannot carry a register across
 * buffers) on the same sizes.
 */

#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>

#include "dr_icrc.h"

#define DR_CRC32_POLY 0xEDB88320u

static uint32_t crc_tab[8][256];

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

uint32_t
dr_crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

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
static uint32_t
icrc_pseudo_header(const struct dr_pkt_info *pi)
{
	static const uint8_t lrh_ones[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	uint8_t h[DR_PKT_MAX_HDR];
	uint32_t len = (uint32_t)pi->bth_off + DR_BTH_BYTES - pi->l3_off;
	uint32_t udp = pi->l4_off - pi->l3_off;
	uint32_t crc;

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

	crc = dr_crc32_update(DR_CRC32_INIT, lrh_ones, sizeof(lrh_ones));
	return dr_crc32_update(crc, h, len);
}

uint32_t
dr_icrc_compute_buf(const void *frame, const struct dr_pkt_info *pi)
{
	uint32_t start = (uint32_t)pi->bth_off + DR_BTH_BYTES;
	uint32_t crc = icrc_pseudo_header(pi);

	crc = dr_crc32_update(crc, (const uint8_t *)frame + start, pi->frame_len - DR_ICRC_BYTES - start);
	return ~crc;
}

uint32_t
dr_icrc_compute(const struct rte_mbuf *m, const struct dr_pkt_info *pi)
{
	uint32_t off = (uint32_t)pi->bth_off + DR_BTH_BYTES;
	uint32_t left = pi->frame_len - DR_ICRC_BYTES - off;
	uint32_t crc = icrc_pseudo_header(pi);

	/* skip whole segments before the first byte after the BTH */
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && left > 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, left);

		crc = dr_crc32_update(crc, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		left -= n;
		off = 0;
		m = m->next;
	}
	return ~crc;
}
