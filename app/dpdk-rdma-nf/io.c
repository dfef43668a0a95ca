/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The program's ports, and how the transport shares port 0 with it
 * (doc/guides/embedding.rst):
 *
 * - --io app: the context is DR_IO_APP. The program receives every frame of
 *   port 0, hands them to dr_rx_burst_input(), which keeps the transport's,
 *   forwards the rest, and sends what dr_tx_drain() gives on its own queue.
 * - --io queue: port 0 has two queue pairs; the context is DR_IO_PORT on
 *   pair 1 (configure_port = 0) and polls it itself in dr_progress(). The
 *   transport's frames must arrive on queue 1: dr_flow_steer() where the port
 *   steers (rte_flow, af_xdp's map), or a link that pairs its ends' queues
 *   one to one (net_memif, net_ring) with the peer's transport on its queue
 *   pair 1 too. Elsewhere (net_af_packet: every socket sees every frame)
 *   the program refuses --io queue.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "dr_verbs_io.h"
#include "nf.h"

#define NF_POOL_MBUFS 8191
#define NF_DATA_ROOM (RTE_PKTMBUF_HEADROOM + 4608)   /* a frame of a 4096 path MTU */
#define NF_AF_XDP_ROOM 3840                          /* net_af_xdp's largest (4 KiB UMEM pages) */

static int
port_start(uint16_t port, uint16_t nq, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	uint16_t q;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port, nq, nq, &conf);
	for (q = 0; q < nq && ret == 0; q++) {
		ret = rte_eth_rx_queue_setup(port, q, NF_DESC, (unsigned int)rte_eth_dev_socket_id(port), NULL, mp);
		if (ret == 0)
			ret = rte_eth_tx_queue_setup(port, q, NF_DESC, (unsigned int)rte_eth_dev_socket_id(port), NULL);
	}
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret != 0) {
		fprintf(stderr, "dpdk-rdma-nf: port %u with %u queue pairs: %s\n", port, nq, rte_strerror(-ret));
		return -1;
	}
	(void)rte_eth_promiscuous_enable(port);   /* a forwarder takes what its link brings */
	return 0;
}

/* Any port is net_af_xdp: its mbufs' data room is at most NF_AF_XDP_ROOM (a UMEM of 4 KiB pages). */
static bool
any_af_xdp(void)
{
	struct rte_eth_dev_info info;
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port)
		if (rte_eth_dev_info_get(port, &info) == 0 && strcmp(info.driver_name, "net_af_xdp") == 0)
			return true;
	return false;
}

int
nf_ports_start(const struct nf_opts *o, struct nf_port *p)
{
	memset(p, 0, sizeof(*p));
	p->io = o->io;
	if (rte_eth_dev_count_avail() != 2) {
		fprintf(stderr, "dpdk-rdma-nf: needs exactly two ports (--vdev), has %u\n", rte_eth_dev_count_avail());
		return -1;
	}
	p->af_xdp = any_af_xdp();
	p->pool = rte_pktmbuf_pool_create("nf_pool", NF_POOL_MBUFS, 256, 0, p->af_xdp ? NF_AF_XDP_ROOM : NF_DATA_ROOM,
					  (int)rte_socket_id());
	if (p->pool == NULL) {
		fprintf(stderr, "dpdk-rdma-nf: mbuf pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (port_start(0, o->io == NF_IO_QUEUE ? 2 : 1, p->pool) != 0 || port_start(1, 1, p->pool) != 0)
		return -1;
	return 0;
}

/* The link of port 0 pairs its ends' queues one to one (the peer's queue 1 reaches our queue 1). */
static bool
link_pairs_queues(uint16_t port, const char **driver)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port, &info) != 0)
		return false;
	*driver = info.driver_name;
	return strcmp(info.driver_name, "net_memif") == 0 || strcmp(info.driver_name, "net_ring") == 0;
}

int
nf_transport_open(const struct nf_opts *o, struct nf_port *p)
{
	struct dr_context_attr attr;
	struct dr_device *dev = dr_device_from_port(0);
	const char *driver = "?";
	int n;

	if (dev == NULL) {
		fprintf(stderr, "dpdk-rdma-nf: no device for port 0: %s\n", strerror(errno));
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.ipv4_addr = o->ip;
	attr.mtu = o->mtu;
	attr.mode = DR_PROGRESS_INLINE;          /* on the program's own lcore */
	attr.configure_port = 0;                 /* the program's port */
	if (o->io != NF_IO_QUEUE) {
		attr.io = DR_IO_APP;          /* app, and graph through the nodes */
	} else {
		attr.io = DR_IO_PORT;
		attr.rx_queue = 1;
		attr.tx_queue = 1;
	}
	p->ctx = dr_open_device(dev, &attr);
	if (p->ctx == NULL) {
		fprintf(stderr, "dpdk-rdma-nf: dr_open_device(%s): %s\n", dr_get_device_name(dev), strerror(errno));
		return -1;
	}
	if (o->io != NF_IO_QUEUE)
		return 0;
	n = dr_flow_steer(p->ctx, 1);
	if (n > 0) {
		printf("dpdk-rdma-nf: the port steers the transport's frames to queue 1 (%d rules)\n", n);
		return 0;
	}
	if (n == -ENOTSUP && link_pairs_queues(0, &driver)) {
		printf("dpdk-rdma-nf: %s pairs queues: the peer's queue 1 is the transport's\n", driver);
		return 0;
	}
	fprintf(stderr, "dpdk-rdma-nf: --io queue: port 0 (%s) cannot steer the transport's frames to a queue "
		"of their own (dr_flow_steer: %s) and its link does not pair queues; use --io app\n", driver,
		strerror(-n));
	return -1;
}

uint16_t
nf_rx(struct nf_port *p, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t got = rte_eth_rx_burst(port, 0, pkts, n);

	if (port != 0 || p->io != NF_IO_APP || got == 0)
		return got;
	return dr_rx_burst_input(p->ctx, pkts, got, 0);   /* the transport's taken, the rest in order */
}

uint16_t
nf_tx(struct nf_port *p, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = rte_eth_tx_burst(port, 0, pkts, n);

	RTE_SET_USED(p);
	if (sent < n)
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	return sent;
}

int
nf_transport_run(struct nf_port *p)
{
	struct rte_mbuf *out[NF_BURST];
	uint16_t n, sent;
	int work = dr_progress(p->ctx);

	if (work < 0)
		work = 0;
	if (p->io != NF_IO_APP)
		return work;
	while ((n = dr_tx_drain(p->ctx, out, NF_BURST)) != 0) {
		work += n;
		sent = rte_eth_tx_burst(0, 0, out, n);
		if (sent < n) {
			/* a loss to the transport: a reliable QP sends it again */
			rte_pktmbuf_free_bulk(out + sent, n - sent);
			p->rdma_tx_dropped += n - sent;
			break;
		}
	}
	return work;
}

/*
 * Wait up to @limit_s for both ports' links to be @up (a link that cannot be
 * read is not up); with @memif_only, for the net_memif ports only. 0, or
 * -ETIMEDOUT.
 */
static int
links_wait(bool up, bool memif_only, double limit_s)
{
	double end = nf_now() + limit_s;
	uint16_t port;

	for (port = 0; port < 2; port++) {
		struct rte_eth_dev_info info;
		struct rte_eth_link link;

		if (memif_only && (rte_eth_dev_info_get(port, &info) != 0 || strcmp(info.driver_name, "net_memif") != 0))
			continue;
		while ((rte_eth_link_get_nowait(port, &link) == 0 && link.link_status) != up) {
			if (nf_now() > end)
				return -ETIMEDOUT;
			rte_delay_us_sleep(10000);
		}
	}
	return 0;
}

int
nf_links_up(double limit_s)
{
	return links_wait(true, false, limit_s);
}

void
nf_ports_print_stats(const char *who)
{
	uint16_t port;

	for (port = 0; port < 2; port++) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(port, &st) != 0)
			continue;
		printf("%s port %u: ipackets %" PRIu64 " opackets %" PRIu64 " imissed %" PRIu64 " rx_nombuf %" PRIu64
		       " ierrors %" PRIu64 " oerrors %" PRIu64 "\n", who, port, st.ipackets, st.opackets, st.imissed,
		       st.rx_nombuf, st.ierrors, st.oerrors);
	}
}

/*
 * memif in DPDK 22.11: the interrupt thread that handles the other end's
 * disconnect can crash while this thread closes the same port. The NF's
 * ports are the servers and close first; the peer, the client, waits for
 * its links to go down (the NF gone) before it closes its own.
 */
void
nf_ports_stop(struct nf_port *p, bool after_peer)
{
	if (after_peer)
		(void)links_wait(false, true, 5.0);   /* past it, closed anyway */
	if (p->ctx != NULL) {
		int ret = dr_close_device(p->ctx);

		if (ret != 0)
			fprintf(stderr, "dpdk-rdma-nf: dr_close_device: %s\n", strerror(ret < 0 ? -ret : errno));
	}
	p->ctx = NULL;
	for (uint16_t port = 0; port < 2; port++) {
		(void)rte_eth_dev_stop(port);
		(void)rte_eth_dev_close(port);
	}
}
