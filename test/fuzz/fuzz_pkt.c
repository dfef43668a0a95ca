/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * libFuzzer harness: frame parse + ICRC check (lib/wire/dr_pkt_parse.c,
 * lib/wire/dr_icrc.c, include/dr_pkt.h, include/dr_hdr.h).
 *
 * The input is one Ethernet frame, as a capture holds it (the corpus,
 * test/fuzz/corpus/fuzz_pkt/, is the frames of test/vectors/). It is parsed
 * three ways: a heap buffer of exactly its size, one mbuf segment, and a
 * chain of up to four segments cut at points derived from the input (each
 * segment's data room is exactly its data, so ASan sees any read past a
 * segment). The three must agree; what the parse says it filled in must lie
 * inside the frame; an accepted frame's lengths must add up, every header
 * accessor of its opcode is read, and the ICRC is checked on all three
 * (table and carry-less-multiplication CRC engines, and the copying check,
 * whose copy must be the payload). Any disagreement aborts: a finding.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_vect.h>

#include "dr_icrc.h"
#include "dr_pkt.h"
#include "test_pkt.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Frames above this are cut (a jumbo frame and then some; mbuf lengths are 16 bits). */
#define FZ_MAX_FRAME 16384

static volatile uint64_t fz_sink;
static bool fz_folding;

#define FZ_ASSERT(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_pkt: %s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* no EAL here: lift the SIMD limit as --force-max-simd-bitwidth would (test_icrc.c) */
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512);
	fz_folding = dr_crc32_enable_folding();
	return 0;
}

/* Read every field of every header the opcode carries, through the accessors. */
static void
read_fields(const struct dr_pkt_info *pi)
{
	const struct dr_bth *bth = dr_pkt_bth(pi);
	uint64_t s = 0;

	s += dr_bth_opcode(bth) + dr_bth_se(bth) + dr_bth_mig(bth) + dr_bth_pad(bth) + dr_bth_tver(bth);
	s += dr_bth_pkey(bth) + dr_bth_qpn(bth) + dr_bth_fecn(bth) + dr_bth_becn(bth);
	s += dr_bth_resv6a(bth) + dr_bth_ackreq(bth) + dr_bth_resv7(bth) + dr_bth_psn(bth);
	FZ_ASSERT(dr_bth_opcode(bth) == pi->opcode && dr_bth_pad(bth) == pi->pad && dr_bth_tver(bth) == 0);
	if (pi->mask & DR_OPF_RDETH)
		s += dr_rdeth_een(dr_pkt_rdeth(pi));
	if (pi->mask & DR_OPF_DETH)
		s += dr_deth_qkey(dr_pkt_deth(pi)) + dr_deth_sqp(dr_pkt_deth(pi));
	if (pi->mask & DR_OPF_XRCETH)
		s += dr_xrceth_srq(dr_pkt_xrceth(pi));
	if (pi->mask & DR_OPF_FETH)
		s += dr_feth_plt(dr_pkt_feth(pi)) + dr_feth_sel(dr_pkt_feth(pi));
	if (pi->mask & DR_OPF_RETH)
		s += dr_reth_va(dr_pkt_reth(pi)) + dr_reth_rkey(dr_pkt_reth(pi)) + dr_reth_len(dr_pkt_reth(pi));
	if (pi->mask & DR_OPF_ATMETH)
		s += dr_atmeth_va(dr_pkt_atmeth(pi)) + dr_atmeth_rkey(dr_pkt_atmeth(pi)) +
		     dr_atmeth_swap_add(dr_pkt_atmeth(pi)) + dr_atmeth_comp(dr_pkt_atmeth(pi));
	if (pi->mask & DR_OPF_AETH) {
		uint8_t syn = dr_aeth_syndrome(dr_pkt_aeth(pi));

		s += syn + dr_aeth_msn(dr_pkt_aeth(pi)) + dr_aeth_syn_type(syn) + dr_aeth_syn_value(syn);
	}
	if (pi->mask & DR_OPF_ATMACK)
		s += dr_atmack_orig(dr_pkt_atmack(pi));
	if (pi->mask & DR_OPF_IMMDT)
		s += dr_immdt_imm(dr_pkt_immdt(pi));
	if (pi->mask & DR_OPF_IETH)
		s += dr_ieth_rkey(dr_pkt_ieth(pi));
	s += (uintptr_t)dr_opcode_name(pi->opcode) + (uintptr_t)dr_transport_name(pi->opcode);
	fz_sink += s;
}

/* What a parse that returned @st says it filled in lies inside a frame of @len bytes. */
static void
check_partial(enum dr_pkt_status st, const struct dr_pkt_info *pi, uint32_t len)
{
	FZ_ASSERT(st < DR_PKT_STATUS_MAX);
	FZ_ASSERT(dr_pkt_status_str(st) != NULL);
	if (st == DR_PKT_ERR_TRUNC_L2)
		return;
	FZ_ASSERT(pi->l3_off == (pi->has_vlan ? 18 : 14) && pi->l3_off <= len);
	if (dr_pkt_status_is_roce(st)) {
		FZ_ASSERT(pi->ip_ver == 4 || pi->ip_ver == 6);
		FZ_ASSERT(pi->l4_off > pi->l3_off && pi->l4_off + 4u <= len);
	}
	if (st == DR_PKT_OK || st >= DR_PKT_ERR_TRUNC_BTH) {
		FZ_ASSERT(pi->bth_off == pi->l4_off + 8u);
		FZ_ASSERT(pi->frame_len <= len && pi->frame_len > pi->bth_off);
	}
	if (st == DR_PKT_OK || st >= DR_PKT_ERR_TRUNC_EXT) {
		FZ_ASSERT(dr_opcode_valid(pi->opcode));
		FZ_ASSERT(pi->mask == dr_opcode_table[pi->opcode].mask);
	}
	if (st == DR_PKT_OK) {
		FZ_ASSERT(pi->bth_off + dr_opcode_table[pi->opcode].length == pi->pay_off);
		FZ_ASSERT((uint64_t)pi->pay_off + pi->paylen + pi->pad + DR_ICRC_BYTES == pi->frame_len);
		FZ_ASSERT(pi->pad <= 3);
		if (!(pi->mask & DR_OPF_PAYLOAD))
			FZ_ASSERT(pi->paylen == 0 && pi->pad == 0);
		FZ_ASSERT(pi->hdr != NULL);
	}
}

/* ICRC of a parsed frame with the CRC engine chosen by @fold. */
static uint32_t
icrc_with(bool fold, const uint8_t *flat, const struct dr_pkt_info *pi)
{
	if (fold)
		dr_crc32_enable_folding();
	else
		dr_crc32_disable_folding();
	return dr_icrc_compute_buf(flat, pi);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len = size > FZ_MAX_FRAME ? FZ_MAX_FRAME : (uint32_t)size;
	enum dr_pkt_status st[3];
	struct dr_pkt_info pi[3];
	struct rte_mbuf *m1, *m3;
	uint32_t cuts[3], ncuts = 0, h = 2166136261u, i;
	uint8_t *flat, *copy;

	/* cut points from the bytes (deterministic per input): 1, 2 or 3 cuts */
	for (i = 0; i < len; i++)
		h = (h ^ data[i]) * 16777619u;
	if (len >= 2) {
		uint32_t prev = 0;

		for (i = 0; i < 1 + (h & 1) + ((h >> 1) & 1); i++) {
			uint32_t c = prev + 1 + (h >> (3 + 8 * i)) % (len - prev);

			if (c >= len)
				break;
			cuts[ncuts++] = c;
			prev = c;
		}
	}
	flat = malloc(len != 0 ? len : 1);
	FZ_ASSERT(flat != NULL);
	memcpy(flat, data, len);
	m1 = tpkt_chain(flat, len, NULL, 0);
	m3 = tpkt_chain(flat, len, cuts, ncuts);
	FZ_ASSERT(m1->pkt_len == len && m3->pkt_len == len);

	st[0] = dr_pkt_parse_buf(flat, len, &pi[0]);
	st[1] = dr_pkt_parse(m1, &pi[1]);
	st[2] = dr_pkt_parse(m3, &pi[2]);
	FZ_ASSERT(st[0] == st[1] && st[0] == st[2]);
	for (i = 0; i < 3; i++)
		check_partial(st[i], &pi[i], len);
	if (dr_pkt_status_is_roce(st[0])) {
		FZ_ASSERT(pi[0].l4_off == pi[1].l4_off && pi[0].l4_off == pi[2].l4_off);
		FZ_ASSERT(pi[0].udp_sport == pi[1].udp_sport && pi[0].udp_sport == pi[2].udp_sport);
	}

	if (st[0] == DR_PKT_OK) {
		enum dr_pkt_status icrc;
		uint32_t crc_table, crc_fold;

		FZ_ASSERT(tpkt_info_diff(&pi[0], &pi[1]) == 0 && tpkt_info_diff(&pi[0], &pi[2]) == 0);
		for (i = 0; i < 3; i++)
			read_fields(&pi[i]);
		/* both CRC engines, flat and chained, give one ICRC */
		crc_table = icrc_with(false, flat, &pi[0]);
		FZ_ASSERT(dr_icrc_compute(m1, &pi[1]) == crc_table);
		FZ_ASSERT(dr_icrc_compute(m3, &pi[2]) == crc_table);
		crc_fold = icrc_with(fz_folding, flat, &pi[0]);
		FZ_ASSERT(crc_fold == crc_table);
		FZ_ASSERT(dr_icrc_compute(m3, &pi[2]) == crc_table);
		icrc = dr_pkt_check_icrc_buf(flat, &pi[0]);
		FZ_ASSERT(dr_pkt_check_icrc(m1, &pi[1]) == icrc);
		FZ_ASSERT(dr_pkt_check_icrc(m3, &pi[2]) == icrc);
		/* the copying check: same verdict, and the copy is the payload */
		copy = malloc(pi[0].paylen != 0 ? pi[0].paylen : 1);
		FZ_ASSERT(copy != NULL);
		FZ_ASSERT(dr_pkt_copy_check_icrc(m3, &pi[2], copy) == icrc);
		FZ_ASSERT(memcmp(copy, flat + pi[0].pay_off, pi[0].paylen) == 0);
		free(copy);
		fz_sink += icrc;
	}
	tmbuf_free(m1);
	tmbuf_free(m3);
	free(flat);
	return 0;
}
