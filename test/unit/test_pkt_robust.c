/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The parser must never crash nor read outside the frame, whatever it is
 * given: every truncation of a few valid frames, then 200000 random single
 * and multi-byte mutations (fixed seed). Each parse gets a heap buffer or
 * segments of exactly the frame's size, so the ASan build
 * (-Db_sanitize=address,undefined) sees any overread. The flat and chained
 * parses must agree, and an accepted frame's lengths must add up.
 */

#include "test_pkt.h"

/* Frames of the robustness sweep. */
static struct tpkt_base sweep[6];
static const unsigned int nsweep = RTE_DIM(sweep);

static void
sweep_make(void)
{
	tpkt_base_make(&sweep[0], DR_OPCODE(RC, SEND_ONLY), 4, false, 0);
	sweep[0].f[58] = sweep[0].f[59] = 0;   /* with its Ethernet padding */
	sweep[0].len = 60;
	tpkt_base_make(&sweep[1], DR_OPCODE(UD, SEND_ONLY_IMM), 6, true, 33);
	tpkt_base_make(&sweep[2], DR_OPCODE(XRC, WRITE_ONLY_IMM), 4, true, 100);
	tpkt_base_make(&sweep[3], DR_OPCODE(RC, ATOMIC_ACK), 6, false, 0);
	tpkt_base_make(&sweep[4], DR_OPCODE_CNP, 4, false, DR_CNP_PAYLOAD_BYTES);
	tpkt_base_make(&sweep[5], DR_OPCODE(RC, READ_RESP_FIRST), 6, true, 255);
}

/*
 * Parse @f three ways and check they agree; for an accepted frame, check its
 * lengths add up and check the ICRC on all three. Returns the status, or
 * DR_PKT_STATUS_MAX when the three disagree or an invariant breaks.
 */
static enum dr_pkt_status
sweep_one(const uint8_t *f, uint32_t len, uint32_t cut)
{
	enum dr_pkt_status st[3], ret;
	struct dr_pkt_info pi[3];
	struct rte_mbuf *m[2];
	uint8_t *flat;

	tpkt_parse3(f, len, cut, st, pi, &flat, m);
	ret = st[0];
	if (st[1] != st[0] || st[2] != st[0])
		ret = DR_PKT_STATUS_MAX;
	if (ret == DR_PKT_OK) {
		const struct dr_pkt_info *p = &pi[0];
		enum dr_pkt_status icrc = dr_pkt_check_icrc_buf(flat, p);

		if (p->frame_len > len || !dr_opcode_valid(p->opcode) ||
		    p->pay_off + p->paylen + p->pad + DR_ICRC_BYTES != p->frame_len ||
		    p->bth_off + dr_opcode_table[p->opcode].length != p->pay_off ||
		    tpkt_info_diff(&pi[0], &pi[1]) != 0 || tpkt_info_diff(&pi[0], &pi[2]) != 0 ||
		    dr_pkt_check_icrc(m[0], &pi[1]) != icrc || dr_pkt_check_icrc(m[1], &pi[2]) != icrc)
			ret = DR_PKT_STATUS_MAX;
	}
	free(flat);
	tmbuf_free(m[0]);
	tmbuf_free(m[1]);
	return ret;
}

/* Every truncation: never accepted, unless only Ethernet padding was cut. */
static void
test_truncations(void)
{
	for (unsigned int i = 0; i < nsweep; i++) {
		const struct tpkt_base *b = &sweep[i];

		for (uint32_t n = 0; n < b->len; n++) {
			enum dr_pkt_status st = sweep_one(b->f, n, n / 3);

			CHECK_MSG(st != DR_PKT_STATUS_MAX, "frame %u cut to %u: paths disagree", i, n);
			CHECK_MSG((st == DR_PKT_OK) == (n >= b->pi.frame_len),
				  "frame %u cut to %u of %u: %s", i, n, b->len, dr_pkt_status_str(st));
		}
	}
}

#define FUZZ_ROUNDS 200000

static const uint8_t fuzz_bytes[] = { 0x00, 0x01, 0x04, 0x06, 0x11, 0x3F, 0x40, 0x45, 0x4F,
				      0x60, 0x7F, 0x80, 0x81, 0xFE, 0xFF };

/* Random single and multi-byte mutations, mostly in the headers, and random lengths. */
static void
test_mutations(void)
{
	static uint8_t f[600];
	uint64_t seed = 0xD0C0FFEE12345678ull;
	unsigned int bad = 0, accepted = 0;

	for (unsigned int round = 0; round < FUZZ_ROUNDS; round++) {
		const struct tpkt_base *b = &sweep[tpkt_rand(&seed) % nsweep];
		uint32_t len = b->len, hdr = b->pi.pay_off + 8;
		unsigned int nmut = (tpkt_rand(&seed) & 1) ? 1 : 1 + tpkt_rand(&seed) % 6;
		enum dr_pkt_status st;

		memcpy(f, b->f, b->len);
		for (unsigned int k = 0; k < nmut; k++) {
			uint64_t r = tpkt_rand(&seed);
			uint32_t pos = (r & 3) ? (r >> 8) % RTE_MIN(hdr, len) : (r >> 8) % len;

			switch ((r >> 2) & 3) {
			case 0: f[pos] ^= (uint8_t)(1u << ((r >> 40) & 7)); break;
			case 1: f[pos] = (uint8_t)(r >> 40); break;
			case 2: f[pos] = fuzz_bytes[(r >> 40) % sizeof(fuzz_bytes)]; break;
			default:
				if (pos + 1 < len)
					tpkt_wr16(f + pos, (uint16_t)(((r >> 40) & 1) ? len - pos : r >> 44));
				break;
			}
		}
		if ((tpkt_rand(&seed) & 7) == 0)
			len = (uint32_t)(tpkt_rand(&seed) % (len + 9));   /* cut, or add up to 8 bytes */
		/* half the time, keep the IPv4 checksum right to get past it */
		if (b->pi.ip_ver == 4 && (tpkt_rand(&seed) & 1)) {
			uint8_t *ip = f + b->pi.l3_off;
			uint32_t ihl = (ip[0] & 0xFu) * 4;

			if (ihl >= 20 && b->pi.l3_off + ihl <= len)
				tpkt_ipv4_fix_csum(ip);
		}
		st = sweep_one(f, len, len ? (uint32_t)(tpkt_rand(&seed) % len) : 0);
		bad += st == DR_PKT_STATUS_MAX;
		accepted += st == DR_PKT_OK;
	}
	CHECK_EQ(bad, 0);
	CHECK(accepted > 0);     /* the sweep reached the end of the parser */
	printf("mutations: %u frames, %u accepted\n", FUZZ_ROUNDS, accepted);
}

int
main(void)
{
	sweep_make();
	test_truncations();
	test_mutations();
	return dr_test_report("test_pkt_robust");
}
