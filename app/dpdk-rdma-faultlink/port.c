/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * A port of the fault link: its own mbuf pool (the rx queue's, and the
 * copies of duplicated frames), one rx and one tx queue, promiscuous (a
 * wire carries every frame, whoever it is for), chained transmit where the
 * PMD has it, started. The link is not waited for: a memif server's link
 * comes up when its client connects, after the fault link says it is ready.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "faultlink.h"

#define POOL_CACHE 256u
/* net_af_xdp's UMEM is the pool: every mbuf must fit a 4 KiB page (drivers/ethdev/dr_ethdev.c) */
#define AF_XDP_MAX_ROOM 3840u

static int
port_err(const struct fl_port *p, const char *what, int ret)
{
	fprintf(stderr, FL_PROG ": port %u (%s): %s: %s\n", p->id, p->name, what, rte_strerror(-ret));
	return ret;
}

struct rte_mempool *
fl_pool_create(const char *name, uint32_t nb_mbufs, const struct fl_opts *o, bool afxdp)
{
	uint32_t room = RTE_PKTMBUF_HEADROOM + o->max_frame;
	struct rte_mempool *mp;

	if (afxdp && room > AF_XDP_MAX_ROOM)
		room = AF_XDP_MAX_ROOM;
	mp = rte_pktmbuf_pool_create(name, nb_mbufs, POOL_CACHE, 0, (uint16_t)room, SOCKET_ID_ANY);
	if (mp == NULL)
		fprintf(stderr, FL_PROG ": no memory for %u mbufs of %u bytes (%.0f MiB): give EAL more "
			"(-m) or lower --max-frame or the queue limits\n", nb_mbufs, room,
			(double)nb_mbufs * (room + 128 + 64) / (1 << 20));
	return mp;
}

int
fl_port_open(struct fl_port *p, uint16_t id, const struct fl_opts *o, uint32_t nb_mbufs,
	     struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = FL_NB_DESC, nb_txd = FL_NB_DESC;
	uint32_t room = RTE_PKTMBUF_HEADROOM + o->max_frame;
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	int socket, ret;

	memset(p, 0, sizeof(*p));
	p->id = id;
	if (rte_eth_dev_get_name_by_port(id, p->name) != 0)
		snprintf(p->name, sizeof(p->name), "?");
	ret = rte_eth_dev_info_get(id, &info);
	if (ret != 0)
		return port_err(p, "device info", ret);
	p->driver = info.driver_name;
	if (strcmp(info.driver_name, "net_af_xdp") == 0 && room > AF_XDP_MAX_ROOM) {
		room = AF_XDP_MAX_ROOM;
		printf("  port %u (%s): frames up to %u bytes (af_xdp's 4 KiB UMEM frames)\n", id, p->name,
		       room - RTE_PKTMBUF_HEADROOM);
	}
	if (pool != NULL && rte_pktmbuf_data_room_size(pool) < room)
		room = rte_pktmbuf_data_room_size(pool);
	p->max_tx_frame = room - RTE_PKTMBUF_HEADROOM;
	if (info.max_rx_pktlen != 0 && info.max_rx_pktlen < p->max_tx_frame)
		p->max_tx_frame = info.max_rx_pktlen;
	socket = rte_eth_dev_socket_id(id);
	if (socket < 0)
		socket = SOCKET_ID_ANY;
	snprintf(pool_name, sizeof(pool_name), "fl_pool_%u", id);
	p->pool = pool != NULL ? pool :
		  rte_pktmbuf_pool_create(pool_name, nb_mbufs, POOL_CACHE, 0, (uint16_t)room, socket);
	if (p->pool == NULL) {
		fprintf(stderr, FL_PROG ": port %u (%s): no memory for %u mbufs of %u bytes (%.0f MiB): "
			"give EAL more (-m) or lower --max-frame or the queue limit\n", id, p->name, nb_mbufs,
			room, (double)nb_mbufs * (room + 128 + 64) / (1 << 20));
		return -ENOMEM;
	}
	memset(&conf, 0, sizeof(conf));
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		p->multiseg_tx = true;
	}
	ret = rte_eth_dev_configure(id, 1, 1, &conf);
	if (ret != 0)
		return port_err(p, "configure", ret);
	if (o->mtu != 0) {
		ret = rte_eth_dev_set_mtu(id, o->mtu);
		if (ret != 0 && ret != -ENOTSUP)
			return port_err(p, "set MTU", ret);
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nb_rxd, &nb_txd);
	if (ret != 0)
		return port_err(p, "descriptor counts", ret);
	ret = rte_eth_rx_queue_setup(id, 0, nb_rxd, (unsigned int)socket, NULL, p->pool);
	if (ret != 0)
		return port_err(p, "rx queue", ret);
	ret = rte_eth_tx_queue_setup(id, 0, nb_txd, (unsigned int)socket, NULL);
	if (ret != 0)
		return port_err(p, "tx queue", ret);
	ret = rte_eth_promiscuous_enable(id);
	if (ret != 0 && ret != -ENOTSUP)
		return port_err(p, "promiscuous mode", ret);
	ret = rte_eth_dev_start(id);
	if (ret != 0)
		return port_err(p, "start", ret);
	p->started = true;
	return 0;
}

void
fl_port_close(struct fl_port *p)
{
	if (p->started) {
		(void)rte_eth_dev_stop(p->id);
		(void)rte_eth_dev_close(p->id);
		p->started = false;
	}
	/* the pool stays: EAL's cleanup frees its memory */
}
