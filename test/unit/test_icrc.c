/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The CRC-32 engine and the RoCEv2 ICRC (IBA vol. 1 7.8.1, Annex A17.3.3):
 * known answers, register carried across any split, an independent
 * bit-at-a-time reference over the masked pseudo-header, and for one IPv4
 * and one IPv6 frame every single-bit flip: the variant fields must not
 * change the ICRC, every other covered bit must; the one-pass copy and check
 * (dr_crc32_update_copy(), dr_pkt_copy_check_icrc()). All of it runs with
 * the table engine, then with folding on each register width the CPU has
 * (128, 256, 512 bits); the SIMD width the library chooses
 * (dr_crc32_set_max_simd_bits()); the 512-bit fold's constants and lane
 * order on 128-bit lanes, on any CPU with PCLMULQDQ.
 */

#include <errno.h>

#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "dr_crc32_clmul.h"
#include "dr_pkt_express.h"
#include "test_pkt.h"

/* Bit-at-a-time reflected CRC-32 (poly 0xEDB88320), the definition itself. */
static uint32_t
ref_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1u));
	}
	return crc;
}

/*
 * Bits of the byte at frame offset @off that A17.3.3 replaces by ones in the
 * ICRC: IPv4 TOS, TTL, header checksum; IPv6 traffic class, flow label, hop
 * limit; UDP checksum; BTH byte 4 (FECN, BECN, resv6a).
 */
static uint8_t
variant_bits(const struct dr_pkt_info *pi, uint32_t off)
{
	uint32_t ip = off - pi->l3_off, udp = off - pi->l4_off;

	if (off >= pi->l3_off && off < pi->l4_off) {
		if (pi->ip_ver == 4)
			return ip == TPKT_IP4_TOS || ip == TPKT_IP4_TTL || ip == TPKT_IP4_CSUM ||
			       ip == TPKT_IP4_CSUM + 1 ? 0xFF : 0;
		if (ip == 0)
			return 0x0F;       /* traffic class, high nibble; the version stays */
		return ip == 1 || ip == 2 || ip == 3 || ip == TPKT_IP6_HLIM ? 0xFF : 0;
	}
	if (off >= pi->l4_off && off < pi->bth_off)
		return udp == TPKT_UDP_CSUM || udp == TPKT_UDP_CSUM + 1 ? 0xFF : 0;
	return off == pi->bth_off + 4u ? 0xFF : 0;
}

/* The ICRC computed from its definition, independently of lib/dr_icrc.c. */
static uint32_t
ref_icrc(const uint8_t *f, const struct dr_pkt_info *pi)
{
	static const uint8_t lrh[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	uint32_t end = pi->frame_len - DR_ICRC_BYTES;
	uint32_t crc = ref_crc32(0xFFFFFFFFu, lrh, sizeof(lrh));

	for (uint32_t off = pi->l3_off; off < end; off++) {
		uint8_t b = off < pi->bth_off + (uint32_t)DR_BTH_BYTES ? f[off] | variant_bits(pi, off) : f[off];

		crc = ref_crc32(crc, &b, 1);
	}
	return ~crc;
}

static uint32_t
wire_icrc(const uint8_t *f, const struct dr_pkt_info *pi)
{
	const uint8_t *p = f + pi->frame_len - DR_ICRC_BYTES;

	/* sent least significant byte first (A17.3.3) */
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void
test_crc32_known(void)
{
	static uint8_t buf[300 + 8];
	uint64_t seed = 1;

	CHECK_EQ(dr_crc32("123456789", 9), 0xCBF43926u);   /* the CRC-32 check value */
	CHECK_EQ(dr_crc32("", 0), 0);
	CHECK_EQ(dr_crc32("a", 1), 0xE8B7BE43u);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)tpkt_rand(&seed);
	/* every length through the 8-byte loop and its tail, at every alignment */
	for (size_t align = 0; align < 8; align++)
		for (size_t n = 0; n <= 300; n++)
			CHECK_EQ(dr_crc32_update(0x12345678u, buf + align, n),
				 ref_crc32(0x12345678u, buf + align, n));
}

/* The register carries over: any split of a buffer gives the one-pass CRC. */
static void
test_crc32_split(void)
{
	static uint8_t buf[9000];
	uint64_t seed = 2;
	uint32_t whole;
	unsigned int bad = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)tpkt_rand(&seed);
	whole = dr_crc32_update(DR_CRC32_INIT, buf, sizeof(buf));
	CHECK_EQ(~whole, dr_crc32(buf, sizeof(buf)));
	for (int round = 0; round < 2000; round++) {
		size_t len = 1 + tpkt_rand(&seed) % sizeof(buf), pos = 0;
		uint32_t crc = DR_CRC32_INIT;
		unsigned int cuts = 1 + tpkt_rand(&seed) % 12;

		for (unsigned int c = 0; c < cuts && pos < len; c++) {
			size_t n = tpkt_rand(&seed) % (len - pos + 1);

			if (tpkt_rand(&seed) & 1)
				n %= 16;       /* many short pieces: odd alignments, tails */
			crc = dr_crc32_update(crc, buf + pos, n);
			pos += n;
		}
		crc = dr_crc32_update(crc, buf + pos, len - pos);
		bad += crc != dr_crc32_update(DR_CRC32_INIT, buf, len);
	}
	CHECK_EQ(bad, 0);
}

/* Every opcode and encapsulation: wire ICRC == reference == library, flat and chained. */
static void
test_icrc_reference(void)
{
	static const uint32_t lens[] = { 0, 1, 255 };
	static uint8_t f[TPKT_MAX_FRAME];
	unsigned int bad = 0, n = 0;

	for (unsigned int op = 0; op < 256; op++) {
		uint32_t mask = dr_opcode_table[op].mask;

		if (!dr_opcode_valid((uint8_t)op))
			continue;
		for (uint8_t v = 4; v <= 6; v += 2)
			for (int vlan = 0; vlan <= 1; vlan++)
				for (unsigned int i = 0; i < RTE_DIM(lens); i++) {
					int fixed = tpkt_fixed_paylen(mask);
					uint32_t paylen = fixed >= 0 ? (uint32_t)fixed : lens[i];
					uint32_t len = tpkt_frame(f, (uint8_t)op, v, vlan, paylen);
					uint32_t cut = len / 2;
					struct rte_mbuf *m = tpkt_chain(f, len, &cut, 1);
					struct dr_pkt_info pb, pm;
					uint32_t want;

					if (dr_pkt_parse_buf(f, len, &pb) != DR_PKT_OK ||
					    dr_pkt_parse(m, &pm) != DR_PKT_OK) {
						bad++;
					} else {
						want = ref_icrc(f, &pb);
						bad += wire_icrc(f, &pb) != want;
						bad += dr_icrc_compute_buf(f, &pb) != want;
						bad += dr_icrc_compute(m, &pm) != want;
					}
					n++;
					tmbuf_free(m);
				}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(n, 64 * 4 * RTE_DIM(lens));
}

/* A pointer to byte @off of the chain @m. */
static uint8_t *
chain_byte(struct rte_mbuf *m, uint32_t off)
{
	while (off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	return rte_pktmbuf_mtod_offset(m, uint8_t *, off);
}

/*
 * Flip every bit of the frame before the ICRC, one at a time: the ICRC
 * changes exactly when the bit is covered and not variant (A17.3.3). The
 * Ethernet header is not covered at all. Done on the flat frame, and on a
 * chain whose headers sit in the first segment and whose payload is cut
 * across three more (when the frame is long enough to hold the headers in
 * its first DR_PKT_MAX_HDR bytes, so the parse points into the mbuf).
 */
static void
every_bit(uint8_t op, uint8_t ip_ver, bool vlan, uint32_t paylen)
{
	static uint8_t f[TPKT_MAX_FRAME];
	uint32_t len = tpkt_frame(f, op, ip_ver, vlan, paylen);
	struct rte_mbuf *m = NULL;
	struct dr_pkt_info pb, pm;
	uint32_t orig, orig_m = 0;
	unsigned int flat_bad = 0, chain_bad = 0, variant = 0;

	CHECK_EQ(dr_pkt_parse_buf(f, len, &pb), DR_PKT_OK);
	orig = dr_icrc_compute_buf(f, &pb);
	CHECK_EQ(orig, wire_icrc(f, &pb));
	if (len > DR_PKT_MAX_HDR + 3) {
		const uint32_t cuts[3] = { DR_PKT_MAX_HDR, DR_PKT_MAX_HDR + 1, (DR_PKT_MAX_HDR + len) / 2 };

		m = tpkt_chain(f, len, cuts, 3);
		CHECK_EQ(dr_pkt_parse(m, &pm), DR_PKT_OK);
		CHECK(pm.frame == rte_pktmbuf_mtod(m, const uint8_t *));
		orig_m = dr_icrc_compute(m, &pm);
		CHECK_EQ(orig_m, orig);
	}
	for (uint32_t off = 0; off < pb.frame_len - DR_ICRC_BYTES; off++) {
		uint8_t vbits = off < pb.l3_off ? 0xFF : variant_bits(&pb, off);

		for (int bit = 0; bit < 8; bit++) {
			uint8_t b = (uint8_t)(1u << bit);
			bool covered = !(vbits & b);

			variant += !covered;
			f[off] ^= b;
			flat_bad += (dr_icrc_compute_buf(f, &pb) != orig) != covered;
			f[off] ^= b;
			if (m != NULL) {
				*chain_byte(m, off) ^= b;
				chain_bad += (dr_icrc_compute(m, &pm) != orig_m) != covered;
				*chain_byte(m, off) ^= b;
			}
		}
	}
	CHECK_EQ(flat_bad, 0);
	CHECK_EQ(chain_bad, 0);
	/* L2 header + IPv4: 4 variant bytes; IPv6: 4 bits + 4 bytes; UDP 2 bytes; BTH 1 byte */
	CHECK_EQ(variant, pb.l3_off * 8 + (ip_ver == 4 ? 32 : 36) + 16 + 8);

	/* and every bit of the ICRC field itself is checked (IBA 7.8.1) */
	for (uint32_t bit = 0; bit < 32; bit++) {
		uint8_t *p = f + pb.frame_len - DR_ICRC_BYTES + bit / 8;

		*p ^= (uint8_t)(1u << (bit % 8));
		CHECK_EQ(dr_pkt_check_icrc_buf(f, &pb), DR_PKT_ERR_ICRC);
		*p ^= (uint8_t)(1u << (bit % 8));
	}
	CHECK_EQ(dr_pkt_check_icrc_buf(f, &pb), DR_PKT_OK);
	tmbuf_free(m);
}

static void
test_icrc_every_bit(void)
{
	every_bit(DR_OPCODE(UD, SEND_ONLY_IMM), 4, true, 255);     /* DETH + ImmDt */
	every_bit(DR_OPCODE(RC, WRITE_ONLY_IMM), 6, false, 255);   /* RETH + ImmDt */
	every_bit(DR_OPCODE(XRC, CMP_SWAP), 4, false, 0);          /* XRCETH + AtomicETH */
	every_bit(DR_OPCODE(RC, ATOMIC_ACK), 6, true, 0);          /* AETH + AtomicAckETH */
	every_bit(DR_OPCODE(RC, SEND_ONLY), 4, false, 1);          /* 3 pad bytes */
}

/*
 * The flat IPv4 ICRC (dr_icrc_flat_v4(): the express path's, and every
 * one-segment IPv4 frame's on transmit and on the general receive path)
 * gives what the general walk gives: every opcode family, payloads from 0
 * to 4096 (runs after the BTH below 16, below 256 and above), and every
 * frame with one bit of its covered or variant bytes flipped.
 */
static void
test_icrc_flat_v4(void)
{
	static const uint8_t ops[] = { DR_OPCODE(RC, SEND_ONLY), DR_OPCODE(RC, WRITE_ONLY), DR_OPCODE(RC, ACK),
				       DR_OPCODE(UD, SEND_ONLY_IMM), DR_OPCODE(RC, READ_RESP_MIDDLE),
				       DR_OPCODE(RC, CMP_SWAP), DR_OPCODE(UC, WRITE_ONLY_IMM) };
	static const uint32_t lens[] = { 0, 1, 3, 4, 11, 12, 15, 16, 17, 60, 64, 200, 207, 208, 212, 255, 256,
					 1000, 1024, 2048, 4093, 4096 };
	static uint8_t f[TPKT_MAX_FRAME];
	unsigned int bad = 0, n = 0, flips = 0;

	for (unsigned int o = 0; o < RTE_DIM(ops); o++) {
		for (unsigned int l = 0; l < RTE_DIM(lens); l++) {
			bool pay = dr_opcode_table[ops[o]].mask & DR_OPF_PAYLOAD;
			uint32_t len, area;
			struct dr_pkt_info pi;

			if (!pay && lens[l] != 0)
				continue;
			len = tpkt_frame(f, ops[o], 4, false, lens[l]);
			if (dr_pkt_parse_buf(f, len, &pi) != DR_PKT_OK) {
				bad++;
				continue;
			}
			area = pi.frame_len - DR_XP_BTH_OFF - DR_BTH_BYTES - DR_ICRC_BYTES;
			bad += dr_icrc_flat_v4(f, area) != dr_icrc_compute_buf(f, &pi);
			n++;
			if (lens[l] > 256)
				continue;      /* the flips: on the short frames */
			for (uint32_t off = 0; off < pi.frame_len - DR_ICRC_BYTES; off++) {
				uint8_t b = (uint8_t)(1u << (off % 8));

				f[off] ^= b;
				bad += dr_icrc_flat_v4(f, area) != dr_icrc_compute_buf(f, &pi);
				f[off] ^= b;
				flips++;
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(n > 60 && flips > 5000);
}

/* Folding and the table agree on every length around the switch-over and far beyond. */
static void
test_folded_equals_table(void)
{
	static uint8_t buf[9000];
	uint64_t seed = 3;
	unsigned int bad = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)tpkt_rand(&seed);
	for (size_t len = 0; len <= sizeof(buf); len += len < 600 ? 1 : 97) {
		uint32_t reg = (uint32_t)tpkt_rand(&seed), folded, table;

		folded = dr_crc32_update(reg, buf + (len & 7), len - (len & 7));
		dr_crc32_disable_folding();
		table = dr_crc32_update(reg, buf + (len & 7), len - (len & 7));
		dr_crc32_enable_folding();
		bad += folded != table;
	}
	CHECK_EQ(bad, 0);
}

/* dr_crc32_update_copy(): the register of dr_crc32_update() and an exact copy, nothing written around it. */
static void
test_update_copy(void)
{
	static uint8_t src[5000], dst[5000 + 32];
	uint64_t seed = 9;
	unsigned int bad_crc = 0, bad_copy = 0, bad_guard = 0;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)tpkt_rand(&seed);
	for (size_t len = 0; len <= 4096 + 17; len += len < 300 ? 1 : 61) {
		size_t so = len & 7, d0 = 16 + (len % 5);
		uint32_t reg = (uint32_t)tpkt_rand(&seed);

		memset(dst, 0xA5, sizeof(dst));
		bad_crc += dr_crc32_update_copy(reg, dst + d0, src + so, len) != dr_crc32_update(reg, src + so, len);
		bad_copy += memcmp(dst + d0, src + so, len) != 0;
		for (size_t i = 0; i < sizeof(dst); i++)
			bad_guard += (i < d0 || i >= d0 + len) && dst[i] != 0xA5;
	}
	CHECK_EQ(bad_crc, 0);
	CHECK_EQ(bad_copy, 0);
	CHECK_EQ(bad_guard, 0);
}

/*
 * dr_pkt_copy_check_icrc(): OK and the payload copied for a valid frame,
 * flat or cut inside its payload; a flipped bit of the payload or of a
 * header fails it (the damaged payload copied all the same); never a byte
 * written past the payload's length.
 */
static void
copy_check(uint8_t op, uint8_t ip_ver, uint32_t paylen)
{
	static uint8_t f[TPKT_MAX_FRAME], dst[TPKT_MAX_FRAME + 8];
	uint32_t len = tpkt_frame(f, op, ip_ver, false, paylen);
	struct dr_pkt_info pi;

	CHECK_EQ(dr_pkt_parse_buf(f, len, &pi), DR_PKT_OK);
	for (int shape = 0; shape < 2; shape++) {
		const uint32_t cuts[2] = { pi.pay_off, pi.pay_off + paylen / 3 + 1 };
		struct rte_mbuf *m = tpkt_chain(f, len, cuts, shape == 0 ? 0 : 2);
		struct dr_pkt_info pm;
		uint8_t *b;

		CHECK_EQ(dr_pkt_parse(m, &pm), DR_PKT_OK);
		memset(dst, 0x5A, sizeof(dst));
		CHECK_EQ(dr_pkt_copy_check_icrc(m, &pm, dst), DR_PKT_OK);
		CHECK(memcmp(dst, f + pi.pay_off, paylen) == 0);
		CHECK_EQ(dst[paylen], 0x5A);
		/* the last payload byte damaged: copied as it came, the ICRC fails */
		b = chain_byte(m, pi.pay_off + paylen - 1);
		*b ^= 0x10;
		CHECK_EQ(dr_pkt_copy_check_icrc(m, &pm, dst), DR_PKT_ERR_ICRC);
		CHECK_EQ(dst[paylen - 1], (uint8_t)(f[pi.pay_off + paylen - 1] ^ 0x10));
		*b ^= 0x10;
		/* a BTH bit (the PSN's lowest) damaged */
		b = chain_byte(m, pi.bth_off + 11);
		*b ^= 0x01;
		CHECK_EQ(dr_pkt_parse(m, &pm), DR_PKT_OK);      /* headers are read at parse time */
		CHECK_EQ(dr_pkt_copy_check_icrc(m, &pm, dst), DR_PKT_ERR_ICRC);
		*b ^= 0x01;
		CHECK_EQ(dr_pkt_parse(m, &pm), DR_PKT_OK);
		CHECK_EQ(dr_pkt_copy_check_icrc(m, &pm, dst), DR_PKT_OK);
		tmbuf_free(m);
	}
}

static void
test_copy_check_icrc(void)
{
	copy_check(DR_OPCODE(RC, WRITE_MIDDLE), 4, 4096);
	copy_check(DR_OPCODE(RC, WRITE_LAST), 6, 1001);          /* 3 pad bytes */
	copy_check(DR_OPCODE(RC, WRITE_ONLY_IMM), 4, 255);       /* RETH + ImmDt before the payload */
	copy_check(DR_OPCODE(UD, SEND_ONLY_IMM), 6, 17);         /* DETH + ImmDt */
}

#if defined(RTE_ARCH_X86_64)
#include <immintrin.h>

#define MODEL_TARGET __attribute__((target("pclmul,sse4.1")))

MODEL_TARGET static inline __m128i
model_fold(__m128i x, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)),
			     next);
}

/*
 * The 512-bit fold (dr_crc32_clmul512()) written on sixteen 128-bit lanes:
 * lane i holds the blocks at 16 i + 256 j, folded 2048 bits ahead with
 * DR_CRC_K2048_LO/HI, then the lanes one into the next (128 bits ahead),
 * the result a 16-byte block that, followed by the rest, has the message's
 * CRC from a zero register. @len >= 256.
 */
MODEL_TARGET static uint32_t
fold512_model(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k = _mm_set_epi64x(DR_CRC_K2048_HI, DR_CRC_K2048_LO);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	size_t head = len & ~(size_t)255;
	uint8_t rest[16 + 256];
	__m128i lane[16], x;

	for (int i = 0; i < 16; i++)
		lane[i] = _mm_loadu_si128((const __m128i *)(p + 16 * i));
	lane[0] = _mm_xor_si128(lane[0], _mm_cvtsi32_si128((int)crc));
	for (size_t off = 256; off < head; off += 256)
		for (int i = 0; i < 16; i++)
			lane[i] = model_fold(lane[i], k, _mm_loadu_si128((const __m128i *)(p + off + 16 * i)));
	x = lane[0];
	for (int i = 1; i < 16; i++)
		x = model_fold(x, k3k4, lane[i]);
	_mm_storeu_si128((__m128i *)rest, x);
	memcpy(rest + 16, p + head, len - head);
	return ref_crc32(0, rest, 16 + len - head);
}

/* The 512-bit fold's constants and lane order, on any CPU with PCLMULQDQ. */
static void
test_fold512_model(void)
{
	static uint8_t buf[4500];
	uint64_t seed = 11;
	unsigned int bad = 0, n = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)tpkt_rand(&seed);
	for (size_t len = 256; len <= sizeof(buf); len += len < 600 ? 1 : 53, n++) {
		uint32_t reg = (uint32_t)tpkt_rand(&seed);

		bad += fold512_model(reg, buf + (len & 7), len - (len & 7)) != ref_crc32(reg, buf + (len & 7), len - (len & 7));
	}
	CHECK_EQ(bad, 0);
	CHECK(n > 400);
}
#else
static void
test_fold512_model(void)
{
}
#endif

/*
 * The width the CRC folds on (dr_crc32_set_max_simd_bits(),
 * dr_crc32_simd_bits()): the library's own when set, else EAL's limit,
 * never more than the CPU has; only 0, 128, 256 and 512 taken.
 */
static void
test_simd_width(void)
{
	bool has256 = rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) && rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ);
	bool has512 = has256 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F);

	CHECK_EQ(dr_crc32_set_max_simd_bits(64), -EINVAL);
	CHECK_EQ(dr_crc32_set_max_simd_bits(384), -EINVAL);
	CHECK_EQ(dr_crc32_set_max_simd_bits(1024), -EINVAL);
	/* EAL's limit when the library has none */
	CHECK_EQ(dr_crc32_set_max_simd_bits(0), 0);
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_128);
	dr_crc32_enable_folding();
	CHECK_EQ(dr_crc32_simd_bits(), 128u);
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_256);
	dr_crc32_enable_folding();
	CHECK_EQ(dr_crc32_simd_bits(), has256 ? 256u : 128u);
	/* the library's own, whatever EAL's says */
	CHECK_EQ(dr_crc32_set_max_simd_bits(512), 0);
	dr_crc32_enable_folding();
	CHECK_EQ(dr_crc32_simd_bits(), has512 ? 512u : has256 ? 256u : 128u);
	CHECK_EQ(rte_vect_get_max_simd_bitwidth(), (uint16_t)RTE_VECT_SIMD_256);   /* EAL's untouched */
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512);
	CHECK_EQ(dr_crc32_set_max_simd_bits(128), 0);
	dr_crc32_enable_folding();
	CHECK_EQ(dr_crc32_simd_bits(), 128u);
	/* a refused width leaves the one set */
	CHECK_EQ(dr_crc32_set_max_simd_bits(100), -EINVAL);
	dr_crc32_enable_folding();
	CHECK_EQ(dr_crc32_simd_bits(), 128u);
	CHECK_EQ(dr_crc32_set_max_simd_bits(0), 0);
	dr_crc32_disable_folding();
	CHECK_EQ(dr_crc32_simd_bits(), 0u);
}

static void
run_all(void)
{
	test_crc32_known();
	test_crc32_split();
	test_icrc_reference();
	test_icrc_every_bit();
	test_icrc_flat_v4();
	test_update_copy();
	test_copy_check_icrc();
}

int
main(void)
{
	dr_crc32_disable_folding();
	run_all();
	if (!dr_crc32_clmul_available() || !rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) ||
	    !rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1)) {
		printf("test_icrc: no PCLMULQDQ here: folding not tested\n");
		return dr_test_report("test_icrc");
	}
	test_simd_width();
	test_fold512_model();
	/* each width the CPU has, chosen by the library's own setting (EAL's limit is 0 without EAL) */
	for (unsigned int w = 512; w >= 128; w /= 2) {
		CHECK_EQ(dr_crc32_set_max_simd_bits(w), 0);
		dr_crc32_enable_folding();
		if (dr_crc32_simd_bits() != w) {
			printf("test_icrc: no %u-bit fold on this CPU: not run%s\n", w,
			       w == 512 ? " (its constants and lane order are checked on 128-bit lanes)" : "");
			continue;
		}
		test_folded_equals_table();
		run_all();
	}
	dr_crc32_set_max_simd_bits(0);
	return dr_test_report("test_icrc");
}
