/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * bench_link: the bare link's round trip with nothing of ours on its path,
 * the reference raw_lat is checked against (usertools/dr-bench.py
 * --check-baseline). A minimal DPDK client on port 0: one frame of --size
 * bytes out, spin on rx until a frame comes back, --iters times; the peer
 * is dpdk-testpmd --forward-mode=macswap, which sends every frame back with
 * its MACs swapped. Prints the half round trip (perftest's rtt_factor 2) in
 * microseconds: its median and mean, and the first --warmup round trips
 * left out.
 *
 *   bench_link EAL... -- --size 122 --iters 20000
 *
 * The frame is an Ethernet frame of the given length, addressed to the
 * broadcast MAC with an IPv4 EtherType, its round trip's number after the
 * Ethernet header and zeros after that: the link's cost is its length, not
 * what it carries. Only the frame of the round trip ends it (a late one of
 * an earlier round trip is dropped). A frame that does not come back
 * within a second is a loss: during the warm-up (a peer still starting on
 * a busy machine) it is sent again, up to LINK_WARMUP_LOSSES times in all;
 * after it the run stops with exit status 1.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#define LINK_POOL_MBUFS 4095
#define LINK_POOL_CACHE 64
#define LINK_DESC 1024
#define LINK_BURST 32
#define LINK_WAIT_S 1
#define LINK_UP_WAIT_S 30
#define LINK_WARMUP_LOSSES 30
#define LINK_SEQ_OFF RTE_ETHER_HDR_LEN   /* the round trip's number: after the Ethernet header */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
usage(void)
{
	fprintf(stderr, "usage: bench_link EAL... -- --size BYTES (60..9000) --iters N [--warmup N]\n");
	return 2;
}

static int
port_start(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	struct rte_eth_link link;
	uint64_t end;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, LINK_DESC, (unsigned int)rte_socket_id(), NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, LINK_DESC, (unsigned int)rte_socket_id(), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret != 0) {
		fprintf(stderr, "bench_link: port %u: %s\n", port, rte_strerror(-ret));
		return -1;
	}
	end = rte_get_timer_cycles() + LINK_UP_WAIT_S * rte_get_timer_hz();
	do {
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status == RTE_ETH_LINK_UP)
			return 0;
		rte_delay_ms(10);
	} while (rte_get_timer_cycles() < end);
	fprintf(stderr, "bench_link: port %u: no link in %d s\n", port, LINK_UP_WAIT_S);
	return -1;
}

/* Is @m the frame of round trip @seq? */
static int
is_round_trip(const struct rte_mbuf *m, uint32_t seq)
{
	uint32_t got;

	if (rte_pktmbuf_data_len(m) < LINK_SEQ_OFF + sizeof(got))
		return 0;
	memcpy(&got, rte_pktmbuf_mtod_offset(m, const char *, LINK_SEQ_OFF), sizeof(got));
	return got == seq;
}

/* Round trip @seq of a @size-byte frame: its TSC cycles, or 0 when it did not come back in time. */
static uint64_t
round_trip(uint16_t port, struct rte_mempool *mp, uint32_t size, uint32_t seq, uint64_t wait)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp), *rx[LINK_BURST];
	struct rte_ether_hdr *eh;
	uint64_t t0, now;
	uint16_t n;
	char *d;

	if (m == NULL)
		return 0;
	d = rte_pktmbuf_append(m, (uint16_t)size);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return 0;
	}
	memset(d, 0, size);
	eh = (struct rte_ether_hdr *)d;
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memcpy(d + LINK_SEQ_OFF, &seq, sizeof(seq));
	t0 = rte_rdtsc();
	while (rte_eth_tx_burst(port, 0, &m, 1) == 0)
		if (rte_rdtsc() - t0 > wait) {
			rte_pktmbuf_free(m);
			return 0;
		}
	for (;;) {
		uint16_t i;
		int mine = 0;

		n = rte_eth_rx_burst(port, 0, rx, LINK_BURST);
		now = rte_rdtsc();
		for (i = 0; i < n; i++)
			mine |= is_round_trip(rx[i], seq);
		if (n != 0)
			rte_pktmbuf_free_bulk(rx, n);
		if (mine)
			return now - t0 != 0 ? now - t0 : 1;
		if (now - t0 > wait)
			return 0;
	}
}

int
main(int argc, char **argv)
{
	uint32_t size = 0, iters = 0, warmup = 1000, i, lost = 0;
	uint64_t *rtt, sum = 0, wait, hz;
	struct rte_mempool *mp;
	uint16_t port = 0;
	int ret, k;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "bench_link: EAL: %s\n", rte_strerror(rte_errno));
		return 2;
	}
	for (k = ret + 1; k + 1 < argc; k += 2) {
		char *end;
		unsigned long v = strtoul(argv[k + 1], &end, 10);

		if (*end != '\0')
			return usage();
		if (strcmp(argv[k], "--size") == 0)
			size = (uint32_t)v;
		else if (strcmp(argv[k], "--iters") == 0)
			iters = (uint32_t)v;
		else if (strcmp(argv[k], "--warmup") == 0)
			warmup = (uint32_t)v;
		else
			return usage();
	}
	if (k != argc || size < RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN || size > 9000 || iters == 0)
		return usage();
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "bench_link: no port (--vdev?)\n");
		return 2;
	}
	mp = rte_pktmbuf_pool_create("link_pool", LINK_POOL_MBUFS, LINK_POOL_CACHE, 0,
				     (uint16_t)RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
						       RTE_PKTMBUF_HEADROOM + size),
				     (int)rte_socket_id());
	rtt = calloc(iters, sizeof(*rtt));
	if (mp == NULL || rtt == NULL) {
		fprintf(stderr, "bench_link: no memory for %u round trips\n", iters);
		return 2;
	}
	if (port_start(port, mp) != 0)
		return 2;
	hz = rte_get_tsc_hz();
	wait = hz * LINK_WAIT_S;
	for (i = 0; i < warmup + iters; i++) {
		uint64_t t = round_trip(port, mp, size, i + lost, wait);

		/* a frame lost in the warm-up goes again, under a number of its own */
		while (t == 0 && i < warmup && lost < LINK_WARMUP_LOSSES)
			t = round_trip(port, mp, size, i + ++lost, wait);
		if (t == 0) {
			fprintf(stderr, "bench_link: round trip %u: the frame did not come back in %d s\n", i,
				LINK_WAIT_S);
			return 1;
		}
		if (i >= warmup) {
			rtt[i - warmup] = t;
			sum += t;
		}
	}
	qsort(rtt, iters, sizeof(*rtt), cmp_u64);
	printf("link_lat: size %u iters %u half_rtt_median_us %.3f half_rtt_mean_us %.3f\n", size, iters,
	       (double)rtt[iters / 2] / 2.0 * 1e6 / (double)hz, (double)sum / iters / 2.0 * 1e6 / (double)hz);
	(void)rte_eth_dev_stop(port);
	(void)rte_eth_dev_close(port);
	free(rtt);
	rte_eal_cleanup();
	return 0;
}
