/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * CRC-32 throughput behind the RoCEv2 ICRC (IBA 7.8.1, A17.3.3), without EAL:
 * our dr_crc32_update (slicing-by-8, carried register) side by side with
 * DPDK's rte_net_crc_calc(RTE_NET_CRC32_ETH) (PCLMULQDQ folding, one whole
 * buffer per call) and a byte-at-a-time table CRC (the floor), on 64..9000
 * byte buffers; then a whole dr_icrc_compute over a 4096-byte-payload packet.
 * Each figure is the median of 5 trials. Exits non-zero when the CRCs of any
 * buffer disagree, or when the packet's ICRC does not check.
 *
 * Without EAL two DPDK defaults need care: rte_get_tsc_hz() is 0 until
 * rte_eal_init() measures it (we calibrate against CLOCK_MONOTONIC_RAW), and
 * the max SIMD bitwidth is 0, which silently sends rte_net_crc to its scalar
 * code (we raise it with rte_vect_set_max_simd_bitwidth()).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_net_crc.h>
#include <rte_vect.h>

#include "dr_icrc.h"
#include "dr_pkt.h"
#include "dr_pkt_express.h"
#include "test_mbuf.h"

#define TRIALS 5
#define BYTES_PER_TRIAL (32u << 20)
#define PKT_PAYLOAD 4096

static const uint32_t sizes[] = { 64, 256, 1024, 4096, 9000 };

static double tsc_hz;
static volatile uint32_t sink;

/* rte_get_tsc_hz() when EAL has measured it, else a 200 ms calibration. */
static const char *
tsc_init(void)
{
	struct timespec a, b;
	uint64_t t0, t1, ns;

	tsc_hz = (double)rte_get_tsc_hz();
	if (tsc_hz > 0)
		return "rte_get_tsc_hz()";
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	t0 = rte_rdtsc_precise();
	do {
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)(b.tv_nsec - a.tv_nsec);
	} while (ns < 200000000u);
	t1 = rte_rdtsc_precise();
	tsc_hz = (double)(t1 - t0) * 1e9 / (double)ns;
	return "rte_get_tsc_hz() is 0 without EAL; calibrated against CLOCK_MONOTONIC_RAW";
}

/* The floor: one table lookup per byte. */
static uint32_t bytewise_tab[256];

static void
bytewise_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & -(c & 1u));
		bytewise_tab[i] = c;
	}
}

static __rte_noinline uint32_t
bytewise_crc32(const uint8_t *p, uint32_t len)
{
	uint32_t crc = 0xFFFFFFFFu;

	while (len--)
		crc = (crc >> 8) ^ bytewise_tab[(crc ^ *p++) & 0xFF];
	return ~crc;
}

enum variant { V_OURS, V_FOLDED, V_FOLDED256, V_NET_SSE42, V_NET_AVX512, V_BYTEWISE, V_COUNT };

static const char *const variant_name[V_COUNT] = {
	"dr_crc32 table", "dr_crc32 folded", "folded, SIMD 256", "net_crc SSE42", "net_crc AVX512", "byte table",
};

/*
 * Ask rte_net_crc for @alg and report what it really uses: DPDK 22.11 has no
 * getter, but it logs each implementation it has to skip, so read its log.
 */
static const char *
net_crc_select(enum rte_net_crc_alg alg)
{
	const char *used = "scalar";
	char *log = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&log, &n);

	if (fp == NULL)
		return "unknown";
	rte_openlog_stream(fp);
	rte_net_crc_set_alg(alg);
	rte_openlog_stream(NULL);
	fclose(fp);
	if (alg == RTE_NET_CRC_AVX512 && strstr(log, "can't use AVX512") == NULL)
		used = "AVX512 + VPCLMULQDQ";
	else if (strstr(log, "can't use SSE") == NULL)
		used = "SSE4.2 + PCLMULQDQ";
	free(log);
	return used;
}

/* Put the CRC engines in the state variant @v measures. */
static void
variant_select(enum variant v)
{
	dr_crc32_disable_folding();
	/* EAL's default limit for V_FOLDED256, else 512: our widest fold (512-bit with AVX-512) */
	rte_vect_set_max_simd_bitwidth(v == V_FOLDED256 ? RTE_VECT_SIMD_256 : RTE_VECT_SIMD_512);
	if (v == V_NET_SSE42)
		net_crc_select(RTE_NET_CRC_SSE42);
	else if (v == V_NET_AVX512)
		net_crc_select(RTE_NET_CRC_AVX512);
	else if (v == V_FOLDED || v == V_FOLDED256)
		dr_crc32_enable_folding();
}

static uint32_t
crc_of(enum variant v, const uint8_t *buf, uint32_t len)
{
	switch (v) {
	case V_OURS:
	case V_FOLDED:
	case V_FOLDED256:
		return ~dr_crc32_update(DR_CRC32_INIT, buf, len);
	case V_NET_SSE42:
	case V_NET_AVX512:
		return rte_net_crc_calc(buf, len, RTE_NET_CRC32_ETH);
	default:
		return bytewise_crc32(buf, len);
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* Median TSC cycles per byte of @v over @len-byte buffers. */
static double
cycles_per_byte(enum variant v, const uint8_t *buf, uint32_t len)
{
	uint64_t iters = BYTES_PER_TRIAL / len;
	double t[TRIALS];

	variant_select(v);
	for (int k = 0; k < TRIALS; k++) {
		uint32_t acc = 0;
		uint64_t t0 = rte_rdtsc_precise();

		for (uint64_t i = 0; i < iters; i++) {
			acc ^= crc_of(v, buf, len);
			rte_compiler_barrier();   /* no hoisting: buf may have changed */
		}
		t[k] = (double)(rte_rdtsc_precise() - t0) / (double)(iters * len);
		sink ^= acc;
	}
	return median(t, TRIALS);
}

static double
gbps(double cpb)
{
	return tsc_hz / cpb / 1e9;
}

/* All variants give the CRC of the byte table on @len bytes; 1 when one does not. */
static int
check_len(const uint8_t *buf, uint32_t len)
{
	uint32_t ref = bytewise_crc32(buf, len);
	int bad = 0;

	for (int v = V_OURS; v < V_BYTEWISE; v++) {
		uint32_t got;

		variant_select((enum variant)v);
		got = crc_of((enum variant)v, buf, len);
		if (got != ref) {
			fprintf(stderr, "MISMATCH: %s on %u bytes: %08x, byte table %08x\n",
				variant_name[v], len, got, ref);
			bad = 1;
		}
	}
	return bad;
}

/* The benchmarked sizes, every length up to 300 and every 197th beyond. */
static int
check_agreement(const uint8_t *buf)
{
	int bad = 0;

	for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
		bad |= check_len(buf, sizes[i]);
	for (uint32_t len = 1; len <= 9000; len += len < 300 ? 1 : 197)
		bad |= check_len(buf, len);
	return bad;
}

static void
bench_buffers(const uint8_t *buf)
{
	printf("\n%6s |", "bytes");
	for (int v = 0; v < V_COUNT; v++)
		printf(" %-17s |", variant_name[v]);
	printf(" folded/table folded/AVX512\n%6s |", "");
	for (int v = 0; v < V_COUNT; v++)
		printf(" %7s %9s |", "GB/s", "cyc/B");
	printf("  (throughput ratios)\n");
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		double cpb[V_COUNT];

		printf("%6u |", sizes[i]);
		for (int v = 0; v < V_COUNT; v++) {
			cpb[v] = cycles_per_byte((enum variant)v, buf, sizes[i]);
			printf(" %7.2f %9.3f |", gbps(cpb[v]), cpb[v]);
		}
		printf(" %12.2f %13.2f\n", cpb[V_OURS] / cpb[V_FOLDED], cpb[V_NET_AVX512] / cpb[V_FOLDED]);
	}
}

/* A 4096-byte-payload RC SEND ONLY over IPv4 in @nseg payload segments (0: all in one). */
static struct rte_mbuf *
make_packet(unsigned int nseg, struct dr_pkt_info *pi, const uint8_t *payload)
{
	struct dr_pkt_route rt = { .ip_ver = 4, .hop_limit = 64, .udp_sport = 0xC000 };
	struct rte_mbuf *m = tmbuf_new(nseg ? DR_PKT_MAX_HDR : PKT_PAYLOAD + DR_PKT_MAX_HDR);

	dr_gid_from_ipv4(rt.sgid, RTE_BE32(0x0A000001));
	dr_gid_from_ipv4(rt.dgid, RTE_BE32(0x0A000002));
	if (dr_pkt_build(m, &rt, 1, DR_OPCODE(RC, SEND_ONLY), PKT_PAYLOAD, pi) != 0)
		return NULL;
	if (nseg == 0) {
		dr_pkt_append(m, payload, PKT_PAYLOAD);
	} else {
		for (unsigned int s = 0; s < nseg; s++) {
			uint32_t n = PKT_PAYLOAD / nseg;
			struct rte_mbuf *seg = tmbuf_new((uint16_t)(n + DR_ICRC_BYTES));

			dr_pkt_append(seg, payload + s * n, n);
			tmbuf_chain(m, seg);
		}
	}
	if (dr_pkt_finalize(m, pi) != 0 || dr_pkt_parse(m, pi) != DR_PKT_OK ||
	    dr_pkt_check_icrc(m, pi) != DR_PKT_OK) {
		tmbuf_free(m);
		return NULL;
	}
	return m;
}

/* Median TSC cycles of one dr_icrc_compute (@flat: dr_icrc_compute_buf) on @m. */
static double
cycles_per_icrc(const struct rte_mbuf *m, const struct dr_pkt_info *pi, const uint8_t *flat)
{
	const uint64_t iters = BYTES_PER_TRIAL / m->pkt_len;
	double t[TRIALS];

	for (int k = 0; k < TRIALS; k++) {
		uint32_t acc = 0;
		uint64_t t0 = rte_rdtsc_precise();

		for (uint64_t i = 0; i < iters; i++) {
			acc ^= flat ? dr_icrc_compute_buf(flat, pi) : dr_icrc_compute(m, pi);
			rte_compiler_barrier();
		}
		t[k] = (double)(rte_rdtsc_precise() - t0) / (double)iters;
		sink ^= acc;
	}
	return median(t, TRIALS);
}

static void
print_pkt_line(const char *what, double cycles, uint32_t covered)
{
	printf("  %-44s %8.0f cycles %8.0f ns %6.2f GB/s %6.2f Mpps\n", what, cycles,
	       cycles / tsc_hz * 1e9, covered * tsc_hz / cycles / 1e9, tsc_hz / cycles / 1e6);
}

static int
bench_packet(const uint8_t *payload)
{
	static uint8_t flat[PKT_PAYLOAD + DR_PKT_MAX_HDR];
	struct dr_pkt_info p1, p4, pb;
	struct rte_mbuf *m1 = make_packet(0, &p1, payload), *m4 = make_packet(4, &p4, payload);
	uint32_t covered;

	if (m1 == NULL || m4 == NULL) {
		fprintf(stderr, "FAILED: could not build a packet whose ICRC checks\n");
		return 1;
	}
	tmbuf_linearize(m1, flat);
	if (dr_pkt_parse_buf(flat, m1->pkt_len, &pb) != DR_PKT_OK)
		return 1;
	/* 8 bytes of LRH ones + IP .. last pad byte */
	covered = 8 + p1.frame_len - p1.l3_off - DR_ICRC_BYTES;
	printf("\nwhole ICRC, RC SEND ONLY over IPv4, %u-byte payload, %u-byte frame, %u bytes covered:\n",
	       PKT_PAYLOAD, p1.frame_len, covered);
	for (int folded = 0; folded <= 1; folded++) {
		variant_select(folded ? V_FOLDED : V_OURS);
		printf(" %s:\n", folded ? "folded (carry-less multiply, our widest fold)" : "table only");
		print_pkt_line("dr_icrc_compute, 1 segment", cycles_per_icrc(m1, &p1, NULL), covered);
		print_pkt_line("dr_icrc_compute, headers + 4 x 1024 segments",
			       cycles_per_icrc(m4, &p4, NULL), covered);
		print_pkt_line("dr_icrc_compute_buf, contiguous", cycles_per_icrc(m1, &pb, flat), covered);
	}
	print_pkt_line("dr_crc32 table alone over as many bytes", cycles_per_byte(V_OURS, flat, covered) * covered,
		       covered);
	print_pkt_line("rte_net_crc (AVX512 asked) over as many bytes",
		       cycles_per_byte(V_NET_AVX512, flat, covered) * covered, covered);
	tmbuf_free(m1);
	tmbuf_free(m4);
	return 0;
}

/*
 * The express frame's ICRC (dr_icrc_flat_v4(): the masked pseudo-header
 * folded from the frame's own bytes, then the rest) of a SEND ONLY with
 * @pay payload bytes, on 128-bit and on 256-bit registers where the CPU has
 * them: TSC cycles per frame, median of TRIALS, eight frames in turn, each
 * CRC independent of the last (as a burst's frames are). 1 when the two
 * widths disagree.
 */
static int
bench_express_frame(uint32_t pay)
{
	static uint8_t f[8][256] __rte_aligned(64);
	const uint32_t iters = 1u << 20;
	uint32_t want = 0;
	int bad = 0;

	for (int i = 0; i < 8; i++)
		for (int b = 0; b < 256; b++)
			f[i][b] = (uint8_t)(i * 31 + b * 7 + 1);
	printf("  SEND ONLY, %3u-byte payload (%3u-byte frame):", pay, DR_XP_BTH_OFF + DR_BTH_BYTES + pay + 4);
	for (unsigned int w = 128; w <= 256; w *= 2) {
		double t[TRIALS];
		uint32_t acc = 0, got;

		dr_crc32_set_max_simd_bits(w);
		dr_crc32_enable_folding();
		if (dr_crc32_simd_bits() != w) {
			printf("  %u-bit: not on this CPU", w);
			continue;
		}
		got = dr_icrc_flat_v4(f[0], pay);
		if (w == 128)
			want = got;
		bad |= got != want;
		for (int k = 0; k < TRIALS; k++) {
			uint64_t t0 = rte_rdtsc_precise();

			for (uint32_t i = 0; i < iters; i++)
				acc += dr_icrc_flat_v4(f[i & 7], pay);
			t[k] = (double)(rte_rdtsc_precise() - t0) / iters;
			sink ^= acc;
		}
		printf("  %u-bit %6.1f cycles", w, median(t, TRIALS));
	}
	printf("%s\n", bad ? "  MISMATCH" : "");
	dr_crc32_set_max_simd_bits(0);
	return bad;
}

int
main(void)
{
	static uint8_t buf[9000] __rte_aligned(64);
	static uint8_t payload[PKT_PAYLOAD];
	const char *tsc_src = tsc_init();
	uint16_t simd = rte_vect_get_max_simd_bitwidth();
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	int bad;

	bytewise_init();
	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(seed >> 56);
	}
	memcpy(payload, buf, sizeof(payload));

	printf("ICRC CRC-32 benchmark (no EAL), TSC %.1f MHz: %s\n", tsc_hz / 1e6, tsc_src);
	printf("max SIMD bitwidth without EAL: %u", simd);
	if (simd < RTE_VECT_SIMD_512 && rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) == 0)
		printf(", raised to %u so rte_net_crc may use its vector code", rte_vect_get_max_simd_bitwidth());
	printf("\nrte_net_crc_set_alg(RTE_NET_CRC_SSE42) uses: %s\n", net_crc_select(RTE_NET_CRC_SSE42));
	printf("rte_net_crc_set_alg(RTE_NET_CRC_AVX512) uses: %s\n", net_crc_select(RTE_NET_CRC_AVX512));

	bad = check_agreement(buf);
	printf("CRC agreement (all variants, 1..300 bytes and every 197 up to 9000): %s\n",
	       bad ? "MISMATCH" : "ok");
	bench_buffers(buf);
	printf("\nexpress frame ICRC (dr_icrc_flat_v4), TSC cycles per frame:\n");
	for (uint32_t pay = 16; pay <= 208; pay += 64)
		bad |= bench_express_frame(pay);
	bad |= bench_packet(payload);
	return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
