/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Live mode: capture on a DPDK ethdev port (one rx and one tx queue,
 * promiscuous), decode each mbuf in place, multi-segment or not, until
 * --count RoCEv2 frames, --duration seconds, or SIGINT/SIGTERM.
 */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dr_app.h"
#include "dr_icrc.h"
#include "dump.h"

#define DUMP_NB_MBUFS 8191     /* 2^n - 1: the optimum size of a mempool ring */
#define DUMP_MBUF_CACHE 256
#define DUMP_NB_DESC 1024      /* rx and tx ring sizes asked for (the PMD may adjust) */
#define DUMP_MAX_MTU 9000      /* jumbo frames arrive as mbuf chains when the port can scatter */
#define DUMP_BURST 32
#define DUMP_IDLE_SLEEP_US 50  /* nap when the queue is empty: a dump tool need not spin */

static volatile sig_atomic_t stop_requested;

static int
port_fail(uint16_t port, const char *step, int err)
{
	char what[32];

	snprintf(what, sizeof(what), "port %u", port);
	dump_err(what, "%s failed: %s", step, rte_strerror(-err));
	return -1;
}

static int
port_start(uint16_t port, int socket, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = DUMP_NB_DESC, nb_txd = DUMP_NB_DESC;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return port_fail(port, "getting device info", ret);
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) {
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		conf.rxmode.mtu = RTE_MIN((uint32_t)info.max_mtu, (uint32_t)DUMP_MAX_MTU);
	}
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret != 0)
		return port_fail(port, "configure", ret);
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret != 0)
		return port_fail(port, "adjusting ring sizes", ret);
	ret = rte_eth_rx_queue_setup(port, 0, nb_rxd, socket, NULL, pool);
	if (ret != 0)
		return port_fail(port, "rx queue setup", ret);
	ret = rte_eth_tx_queue_setup(port, 0, nb_txd, socket, NULL);
	if (ret != 0)
		return port_fail(port, "tx queue setup", ret);
	ret = rte_eth_dev_start(port);
	if (ret != 0)
		return port_fail(port, "start", ret);
	ret = rte_eth_promiscuous_enable(port);
	if (ret != 0 && ret != -ENOTSUP) {
		rte_eth_dev_stop(port);
		return port_fail(port, "enabling promiscuous mode", ret);
	}
	return 0;
}

/* Decode one received frame with the mbuf variants of the parser and ICRC check. */
static bool
decode(const struct dump_opts *o, struct dump_stats *s, const struct rte_mbuf *m)
{
	uint8_t mad[DUMP_MAD_LEN];
	struct dr_pkt_info pi;
	struct dump_frame f = {
		.caplen = m->pkt_len,
		.len = m->pkt_len,
		.pi = &pi,
	};

	f.status = dr_pkt_parse(m, &pi);
	f.icrc_ok = f.status == DR_PKT_OK && dr_pkt_check_icrc(m, &pi) == DR_PKT_OK;
	if (f.status == DR_PKT_OK && dump_cm_is_mad(&pi))
		f.mad = rte_pktmbuf_read(m, pi.pay_off, DUMP_MAD_LEN, mad);   /* multi-segment: copied */
	return dump_frame_report(o, s, &f);
}

static void
capture(const struct dump_opts *o, struct dump_stats *s)
{
	double cycles = o->duration * (double)rte_get_timer_hz();
	uint64_t deadline = UINT64_MAX;
	struct rte_mbuf *pkts[DUMP_BURST];
	bool done = false;

	/* beyond 2^63 cycles (a century at GHz rates) is "no time limit" */
	if (o->duration > 0 && cycles < 0x1p63)
		deadline = rte_get_timer_cycles() + (uint64_t)cycles;
	while (!done && !stop_requested) {
		uint16_t n = rte_eth_rx_burst(o->port, 0, pkts, DUMP_BURST);

		for (uint16_t i = 0; i < n; i++) {
			/* frames after the last one asked for are dropped unseen */
			if (!done && decode(o, s, pkts[i]) && o->count != 0 && s->roce >= o->count)
				done = true;
			rte_pktmbuf_free(pkts[i]);
		}
		if (rte_get_timer_cycles() >= deadline)
			done = true;
		if (n == 0)
			rte_delay_us_sleep(DUMP_IDLE_SLEEP_US);
		else
			fflush(stdout);
	}
}

int
dump_live(const struct dump_opts *o, int argc, char **argv, struct dump_stats *s)
{
	struct rte_mempool *pool;
	int socket, ret = -1;

	if (rte_eal_init(argc, argv) < 0) {
		dump_err("EAL", "initialisation failed: %s", rte_strerror(rte_errno));
		return -1;
	}
	/* keep up with the port: PCLMULQDQ CRC for long payloads where available */
	dr_crc32_enable_folding();
	if (!rte_eth_dev_is_valid_port(o->port)) {
		char what[32];

		snprintf(what, sizeof(what), "port %u", o->port);
		dump_err(what, "no such port (%u available)", rte_eth_dev_count_avail());
		goto out_eal;
	}
	/* the port's NUMA node, or SOCKET_ID_ANY (-1) when it has none (vdevs) */
	socket = rte_eth_dev_socket_id(o->port);
	pool = rte_pktmbuf_pool_create("dump_mbufs", DUMP_NB_MBUFS, DUMP_MBUF_CACHE, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (pool == NULL) {
		dump_err("mbuf pool", "%s", rte_strerror(rte_errno));
		goto out_eal;
	}
	if (port_start(o->port, socket, pool) == 0) {
		/* a closed output pipe ends the capture cleanly too, with the port closed */
		dr_app_stop_on_signals(&stop_requested, true);
		capture(o, s);
		dump_summary(o, s);
		ret = 0;
		rte_eth_dev_stop(o->port);
	}
	rte_eth_dev_close(o->port);
	rte_mempool_free(pool);
out_eal:
	rte_eal_cleanup();
	return ret;
}
