/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The generic ethdev backend: RoCEv2 over any DPDK port (memif, af_xdp,
 * af_packet, tap, ring, a NIC), with no offload but multi-segment transmit.
 * Checksums and the ICRC are the transport's; this file configures the port
 * and moves bursts; ARP / ND are drivers/common's (dr_neigh_port.c). It sees of the
 * context only its struct dr_backend_port (dr_backend.h), and registers
 * itself (DR_BACKEND_REGISTER): the library never names it. rte_flow
 * steering, where the PMD has it: dr_ethdev_flow.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "dr_backend.h"
#include "dr_ethdev_af_packet.h"
#include "dr_ethdev_flow.h"
#include "dr_xdp_gids.h"
#include "dr_log.h"
#include "dr_neigh_port.h"
#include "dr_port_addrs.h"
#include "dr_pkt.h"

#define DR_ETHDEV_DEFAULT_DESC 1024
/* RSS hash types that include the UDP ports (RoCEv2's source port is the per-QP entropy) */
#define DR_ETHDEV_RSS_UDP (RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP)
/* largest mbuf data room (headroom included) net_af_xdp can make a UMEM of (4 KiB pages) */
#define DR_ETHDEV_AF_XDP_MAX_ROOM 3840
/* multicast MACs we filter for: all-nodes, and the solicited-node group of each IPv6 GID */
#define DR_ETHDEV_MAX_MC (DR_MAX_GIDS + 3)

struct dr_ethdev_priv {
	struct dr_neigh_port neigh; /* ARP / ND (dr_neigh_port.c) */
	bool configured;          /* open configured and started the port: close stops and closes it */
	bool tx_multi_seg;        /* the port takes chained mbufs; else they are linearized */
	bool set_allmulti;        /* open turned all-multicast on: close turns it off */
	bool set_promisc;         /* open turned promiscuous mode on: close turns it off */
	uint64_t tx_linearized;   /* chains copied into their first segment */
	uint64_t tx_dropped;      /* chains too long for their first segment: freed */
	struct dr_ethdev_flows flows; /* rte_flow isolation and rules (dr_ethdev_flow.c) */
	struct dr_ethdev_flows app_flows; /* dr_flow_steer()'s rules on the application's port */
	struct dr_xdp_gids xdp;   /* af_xdp: our addresses in its XDP program's map (dr_xdp_gids.c) */
};

static inline struct dr_ethdev_priv *
priv_of(const struct dr_backend_port *bp)
{
	return bp->priv;
}

/* Solicited-node multicast MAC 33:33:ff:xx:xx:xx of an IPv6 address (RFC 4291 2.7.1, RFC 2464 7). */
static void
sn_mac(const uint8_t addr[16], struct rte_ether_addr *mac)
{
	uint8_t sn[16];

	dr_nd_solicited_node(sn, addr);
	(void)dr_neigh_mcast_mac(sn, mac);
}

static unsigned int
mc_add(struct rte_ether_addr *list, unsigned int n, const struct rte_ether_addr *mac)
{
	for (unsigned int i = 0; i < n; i++)
		if (rte_is_same_ether_addr(&list[i], mac))
			return n;
	if (n < DR_ETHDEV_MAX_MC)
		list[n++] = *mac;
	return n;
}

/*
 * Receive what ARP and ND need besides our MAC and broadcast: the IPv6
 * all-nodes group and the solicited-node group of each IPv6 address (the
 * link-local one from the MAC, the configured ones). An exact multicast
 * filter when the PMD has one, else all-multicast, else promiscuous.
 */
static void
enable_multicast(struct dr_backend_port *bp, struct dr_ethdev_priv *priv)
{
	static const uint8_t all_nodes[16] = { 0xFF, 0x02, [15] = 0x01 };
	struct rte_ether_addr list[DR_ETHDEV_MAX_MC], mac;
	uint16_t port = bp->port_id;
	uint8_t ll[16] = { 0xFE, 0x80 };
	unsigned int n = 0;
	int ret;

	(void)dr_neigh_mcast_mac(all_nodes, &mac);
	n = mc_add(list, n, &mac);
	/* fe80::EUI-64: its low three bytes are the MAC's */
	memcpy(ll + 13, bp->mac.addr_bytes + 3, 3);
	sn_mac(ll, &mac);
	n = mc_add(list, n, &mac);
	for (unsigned int i = 0; i < bp->attr->num_ipv6 && i < RTE_DIM(bp->attr->ipv6_addr); i++) {
		sn_mac(bp->attr->ipv6_addr[i], &mac);
		n = mc_add(list, n, &mac);
	}

	ret = rte_eth_dev_set_mc_addr_list(port, list, n);
	if (ret == 0) {
		DR_LOG(drv, INFO, "port %u: multicast filter of %u groups for IPv6 ND", port, n);
		return;
	}
	if (rte_eth_allmulticast_get(port) == 1 || rte_eth_promiscuous_get(port) == 1) {
		DR_LOG(drv, INFO, "port %u: already all-multicast or promiscuous", port);
		return;
	}
	ret = rte_eth_allmulticast_enable(port);
	if (ret == 0) {
		priv->set_allmulti = true;
		DR_LOG(drv, INFO, "port %u: all-multicast for IPv6 ND (no multicast filter)", port);
		return;
	}
	ret = rte_eth_promiscuous_enable(port);
	if (ret == 0) {
		priv->set_promisc = true;
		DR_LOG(drv, NOTICE, "port %u: promiscuous for IPv6 ND (no multicast filter, no all-multicast)",
		       port);
		return;
	}
	/* memif, ring: no filtering at all, every frame arrives */
	DR_LOG(drv, INFO, "port %u: no multicast control (%s): assuming the PMD filters nothing",
	       port, rte_strerror(-ret));
}

/* Our addresses for the rte_flow ARP / ND rules: the IPv4 one, fe80::EUI-64 of the MAC, the IPv6 ones. */

/*
 * Configure up to bp->nb_queues queue pairs (RSS on UDP over them where the
 * PMD has it), flow isolation where the PMD has rte_flow, set the MTU,
 * start, steer RoCEv2 / ARP / ND with rte_flow when isolated. 0 or -errno.
 */
static int
configure_port(struct dr_backend_port *bp, struct dr_ethdev_priv *priv)
{
	uint16_t port = bp->port_id, nb_rxd, nb_txd, mtu, nq, q;
	struct dr_port_addrs addrs;
	bool rss;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint32_t room, frame;
	int socket, ret;

	if (bp->pool == NULL) {
		DR_LOG(drv, ERR, "port %u: no mbuf pool for the rx queue", port);
		return -EINVAL;
	}
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: device info: %s", port, rte_strerror(-ret));
		return ret;
	}
	memset(&conf, 0, sizeof(conf));
	/* we send chained mbufs (headers + zero-copy payload); IPv4 checksums are ours */
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		priv->tx_multi_seg = true;
	} else {
		DR_LOG(drv, NOTICE, "port %u (%s): no multi-segment transmit: chains are linearized",
		       port, info.driver_name);
	}
	/* a frame of the link MTU must fit the pool's mbufs, or be scattered */
	mtu = bp->attr->mtu != 0 ? (uint16_t)bp->attr->mtu : RTE_ETHER_MTU;
	frame = (uint32_t)mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN;
	room = rte_pktmbuf_data_room_size(bp->pool);
	room = room > RTE_PKTMBUF_HEADROOM ? room - RTE_PKTMBUF_HEADROOM : 0;
	if (frame > room && !dr_ethdev_is_af_packet(&info)) {
		/* (net_af_packet receives into one mbuf what its ring frame holds, and checks that) */
		if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
			conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		else
			DR_LOG(drv, WARNING,
			       "port %u: %u-byte frames exceed the %u-byte mbufs and the PMD has no scatter",
			       port, frame, room);
	}
	/* the queue pairs the library asked for, as far as the PMD goes; RSS on UDP (RoCEv2's
	 * source port is per-QP entropy) spreads flows over them, the workers redirect the rest */
	rss = (info.flow_type_rss_offloads & DR_ETHDEV_RSS_UDP) != 0;
	nq = RTE_MIN(bp->nb_queues, RTE_MIN(info.max_rx_queues, info.max_tx_queues));
	if (nq == 0)
		nq = 1;
	if (nq > 1 && rss) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads & DR_ETHDEV_RSS_UDP;
	}
	if (nq < bp->nb_queues)
		DR_LOG(drv, INFO, "port %u (%s): %u queue pairs of the %u asked", port, info.driver_name, nq,
		       bp->nb_queues);
	ret = rte_eth_dev_configure(port, nq, nq, &conf);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: configure: %s", port, rte_strerror(-ret));
		return ret;
	}
	if (bp->attr->mtu != 0) {
		ret = rte_eth_dev_set_mtu(port, mtu);
		if (ret == -ENOTSUP) {
			DR_LOG(drv, DEBUG, "port %u (%s): the PMD has no mtu_set", port, info.driver_name);
		} else if (ret == -EINVAL && dr_ethdev_is_af_packet(&info) &&
			   (uint32_t)mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN > info.max_rx_pktlen) {
			/* its dev_info undersells it (dr_ethdev_af_packet.h): do what its mtu_set does */
			ret = dr_ethdev_af_packet_set_mtu(port, &info, mtu);
			if (ret != 0)
				return ret;
		} else if (ret != 0) {
			DR_LOG(drv, ERR,
			       "port %u (%s): MTU %u: %s (the PMD allows MTU %u..%u, frames up to %u bytes)",
			       port, info.driver_name, mtu, rte_strerror(-ret), info.min_mtu, info.max_mtu,
			       info.max_rx_pktlen);
			return ret;
		}
	}
	nb_rxd = bp->attr->nb_rx_desc != 0 ? bp->attr->nb_rx_desc : DR_ETHDEV_DEFAULT_DESC;
	nb_txd = bp->attr->nb_tx_desc != 0 ? bp->attr->nb_tx_desc : DR_ETHDEV_DEFAULT_DESC;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: descriptor counts: %s", port, rte_strerror(-ret));
		return ret;
	}
	socket = rte_eth_dev_socket_id(port);
	if (socket < 0)
		socket = SOCKET_ID_ANY;
	bp->rx_queue = 0;
	bp->tx_queue = 0;
	bp->nb_rxq = nq;
	bp->nb_txq = nq;
	bp->rss_udp = nq > 1 && rss;
	for (q = 0; q < nq && ret == 0; q++)
		ret = rte_eth_rx_queue_setup(port, q, nb_rxd, (unsigned int)socket, NULL, bp->pool);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: rx queue of %u: %s", port, nb_rxd, rte_strerror(-ret));
		/* its UMEM is the pool: every mbuf must fit a 4 KiB page (tried: 3840 works, 3904 not) */
		if (strcmp(info.driver_name, "net_af_xdp") == 0 &&
		    rte_pktmbuf_data_room_size(bp->pool) > DR_ETHDEV_AF_XDP_MAX_ROOM)
			DR_LOG(drv, ERR, "port %u: net_af_xdp needs mbufs of at most %u bytes of data room "
			       "(the application's pool: %u)", port, DR_ETHDEV_AF_XDP_MAX_ROOM,
			       rte_pktmbuf_data_room_size(bp->pool));
		if (dr_ethdev_is_af_packet(&info))
			DR_LOG(drv, ERR, "port %u: net_af_packet copies each ring frame (framesz less 32 bytes) "
			       "into one mbuf of the pool's %u bytes of data room (headroom included)", port,
			       rte_pktmbuf_data_room_size(bp->pool));
		return ret;
	}
	for (q = 0; q < nq && ret == 0; q++)
		ret = rte_eth_tx_queue_setup(port, q, nb_txd, (unsigned int)socket, NULL);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: tx queue of %u: %s", port, nb_txd, rte_strerror(-ret));
		return ret;
	}
	/* rte_flow: isolated mode when the PMD validates our rules (the port configured, stopped) */
	{
		struct rte_ether_addr mac;

		dr_port_addrs_of(bp, rte_eth_macaddr_get(port, &mac) == 0 ? &mac : NULL, &addrs);
	}
	dr_ethdev_flow_isolate(port, nq, &addrs, &priv->flows);
	ret = rte_eth_dev_start(port);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: start: %s", port, rte_strerror(-ret));
		dr_ethdev_flow_release(port, &priv->flows);
		return ret;
	}
	priv->configured = true;
	/* in isolated mode nothing arrives without rules: steer ours, or leave isolated mode */
	ret = dr_ethdev_flow_steer(port, nq, &priv->flows);
	if (ret != 0)
		return ret;
	bp->flow_isolated = priv->flows.isolated;
	/* af_xdp: the bifurcated host's XDP program learns our addresses (its socket exists now) */
	if (strcmp(info.driver_name, "net_af_xdp") == 0) {
		ret = dr_xdp_gids_fill(port, info.if_index, &addrs, &priv->xdp);
		if (ret < 0)
			return ret;
		bp->flow_isolated = ret > 0;
	}
	DR_LOG(drv, INFO, "port %u (%s): started, %u queue pairs of %u rx / %u tx descriptors%s%s", port,
	       info.driver_name, nq, nb_rxd, nb_txd, bp->rss_udp ? ", RSS on UDP" : "",
	       bp->flow_isolated ? ", flow-isolated" : "");
	return 0;
}

/* Use queues of a port the application configured and started. */
static int
use_port(struct dr_backend_port *bp, struct dr_ethdev_priv *priv)
{
	uint16_t port = bp->port_id;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret == 0)
		ret = rte_eth_dev_conf_get(port, &conf);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: device info: %s", port, rte_strerror(-ret));
		return ret;
	}
	if (bp->attr->rx_queue >= info.nb_rx_queues || bp->attr->tx_queue >= info.nb_tx_queues) {
		DR_LOG(drv, ERR, "port %u: queues rx %u / tx %u, the port has %u / %u", port,
		       bp->attr->rx_queue, bp->attr->tx_queue, info.nb_rx_queues, info.nb_tx_queues);
		return -EINVAL;
	}
	bp->rx_queue = bp->attr->rx_queue;
	bp->tx_queue = bp->attr->tx_queue;
	/* up to nb_queues from the first ones given, as far as the port has them */
	bp->nb_rxq = (uint16_t)RTE_MIN((unsigned int)bp->nb_queues,
				       (unsigned int)(info.nb_rx_queues - bp->rx_queue));
	bp->nb_txq = (uint16_t)RTE_MIN((unsigned int)bp->nb_queues,
				       (unsigned int)(info.nb_tx_queues - bp->tx_queue));
	bp->rss_udp = bp->nb_rxq > 1 && conf.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS &&
		      (conf.rx_adv_conf.rss_conf.rss_hf & DR_ETHDEV_RSS_UDP) != 0;
	priv->tx_multi_seg = (conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
	if (!priv->tx_multi_seg)
		DR_LOG(drv, NOTICE, "port %u: multi-segment transmit not enabled: chains are linearized", port);
	return 0;
}

/*
 * The data room of the mbufs rx queue attr->rx_queue of a port the
 * application runs receives into, when each frame fits one (no scattered
 * receive); 0 when the PMD does not say (net_ring, net_memif) or frames may
 * span mbufs.
 */
static uint16_t
app_rx_data_room(const struct dr_backend_port *bp)
{
	struct rte_eth_rxq_info qi;

	memset(&qi, 0, sizeof(qi));
	if (rte_eth_rx_queue_info_get(bp->port_id, bp->attr->rx_queue, &qi) != 0 || qi.mp == NULL ||
	    qi.scattered_rx)
		return 0;
	return rte_pktmbuf_data_room_size(qi.mp);
}

/*
 * DR_IO_APP: the application owns the port, its queues and its frames
 * (dr_verbs_io.h). Nothing of the port is touched: it must exist; one
 * queue pair stands for the application's staging rings.
 */
static int
app_port(struct dr_backend_port *bp)
{
	struct rte_eth_dev_info info;
	int ret = rte_eth_dev_info_get(bp->port_id, &info);

	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: device info: %s", bp->port_id, rte_strerror(-ret));
		return ret;
	}
	bp->rx_queue = bp->tx_queue = 0;
	bp->nb_rxq = bp->nb_txq = 1;
	bp->rss_udp = false;
	return 0;
}

/*
 * A port without a MAC (net_ring made with nodeaction= has 00:00:00:00:00:00):
 * give it a random locally administered one, so that ARP and ND work and two
 * such ports do not share the link-local GID. Returns 0 (a PMD that refuses
 * keeps its zero MAC) or -errno from reading the MAC back.
 */
static int
give_mac(uint16_t port, struct rte_ether_addr *mac)
{
	struct rte_ether_addr addr;
	int ret;

	rte_eth_random_addr(addr.addr_bytes);
	ret = rte_eth_dev_default_mac_addr_set(port, &addr);
	if (ret != 0) {
		DR_LOG(drv, DEBUG, "port %u: no MAC can be set: %s", port, rte_strerror(-ret));
		return 0;
	}
	DR_LOG(drv, NOTICE, "port %u: had MAC 00:00:00:00:00:00, now " RTE_ETHER_ADDR_PRT_FMT, port,
	       RTE_ETHER_ADDR_BYTES(&addr));
	return rte_eth_macaddr_get(port, mac);
}

/* Stop (and leave isolated mode on) a port open configured, after a failure or at close. */
static void
unconfigure(uint16_t port, struct dr_ethdev_priv *priv)
{
	int ret;

	dr_ethdev_flow_release(port, &priv->flows);
	dr_xdp_gids_release(&priv->xdp);
	ret = rte_eth_dev_stop(port);
	if (ret != 0)
		DR_LOG(drv, WARNING, "port %u: stop: %s", port, rte_strerror(-ret));
	priv->configured = false;
}

/*
 * True when the port's PMD reads what it sends with the CPU through virtual
 * addresses: a software PMD on the vdev bus (memif, af_xdp, af_packet, tap,
 * ring, pcap, null). Then a payload attached from any registered memory is
 * safe to send. A device on a real bus (PCI) reads by DMA from IOVAs that
 * application memory does not have unless mapped for it; such ports copy.
 */
static bool
reads_by_va(uint16_t port)
{
	struct rte_eth_dev_info info;
	const struct rte_bus *bus;

	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL)
		return false;
	bus = rte_dev_bus(info.device);
	return bus != NULL && strcmp(rte_bus_name(bus), "vdev") == 0;
}

/* bp->max_frame: the longest frame of a port whose PMD carries less than its MTU says. */
static int
port_max_frame(struct dr_backend_port *bp)
{
	struct rte_eth_dev_info info;
	uint32_t link_frame = bp->mtu + RTE_ETHER_HDR_LEN;
	int ret;

	bp->max_frame = 0;
	ret = rte_eth_dev_info_get(bp->port_id, &info);
	if (ret != 0 || !dr_ethdev_is_af_packet(&info))
		return ret;
	ret = dr_ethdev_af_packet_max_frame(bp->port_id, &info, &bp->max_frame);
	if (ret == 0 && bp->max_frame < link_frame)
		DR_LOG(drv, NOTICE,
		       "port %u (net_af_packet): its ring carries frames of at most %u bytes, less than "
		       "MTU %u's %u: the path MTU is the largest whose packets fit (devargs "
		       "framesz=4352,blocksz=69632 fit MTU 4096's)",
		       bp->port_id, bp->max_frame, bp->mtu, link_frame);
	return ret;
}

static int
ethdev_open(struct dr_backend_port *bp)
{
	uint16_t port = bp->port_id, mtu = 0;
	struct dr_ethdev_priv *priv;
	int socket, ret;

	if (!rte_eth_dev_is_valid_port(port))
		return -ENODEV;
	if (bp->attr->mtu > UINT16_MAX) {
		DR_LOG(drv, ERR, "port %u: MTU %u above %u", port, bp->attr->mtu, UINT16_MAX);
		return -EINVAL;
	}
	if (bp->nb_queues == 0)
		bp->nb_queues = 1;
	socket = rte_eth_dev_socket_id(port);
	priv = rte_zmalloc_socket("dr_ethdev", sizeof(*priv), RTE_CACHE_LINE_SIZE,
				  socket < 0 ? SOCKET_ID_ANY : socket);
	if (priv == NULL)
		return -ENOMEM;
	dr_neigh_port_init(&priv->neigh, bp->tsc_hz);
	priv->xdp.map_fd = -1;

	if (bp->attr->io == DR_IO_APP)
		ret = app_port(bp);
	else
		ret = bp->attr->configure_port ? configure_port(bp, priv) : use_port(bp, priv);
	if (ret != 0)
		goto fail;
	/* DR_IO_APP: the application's tx path may not take chains (priv->tx_multi_seg stays false) */
	bp->tx_zcopy = priv->tx_multi_seg && reads_by_va(port);
	bp->rx_data_room = bp->attr->configure_port ? 0 : app_rx_data_room(bp);
	ret = rte_eth_macaddr_get(port, &bp->mac);
	if (ret == 0 && rte_is_zero_ether_addr(&bp->mac) && bp->attr->configure_port)
		ret = give_mac(port, &bp->mac);
	if (ret == 0)
		ret = rte_eth_dev_get_mtu(port, &mtu);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: MAC / MTU: %s", port, rte_strerror(-ret));
		goto fail;
	}
	if (rte_is_zero_ether_addr(&bp->mac))
		DR_LOG(drv, WARNING,
		       "port %u: MAC 00:00:00:00:00:00: peers cannot resolve us (use static neighbours)", port);
	/*
	 * The link MTU: the port's, unless the application gave one. When we
	 * configured the port, set_mtu either made them equal or was refused
	 * with -ENOTSUP; then, and for a port the application runs, attr.mtu is
	 * what the application knows of its link: virtual PMDs report MTUs
	 * unrelated to what they carry (net_ring and net_memif say 1500 and
	 * have no mtu_set; ring carries any mbuf, memif any frame its chained
	 * buffers and the receiver's mbufs hold).
	 */
	bp->mtu = bp->attr->mtu != 0 ? bp->attr->mtu : mtu;
	if (bp->attr->mtu != 0 && bp->attr->mtu != mtu)
		DR_LOG(drv, INFO, "port %u: the port reports MTU %u, using %u as given", port, mtu,
		       bp->attr->mtu);
	ret = port_max_frame(bp);
	if (ret != 0)
		goto fail;
	if (bp->attr->configure_port)
		enable_multicast(bp, priv);
	bp->priv = priv;
	DR_LOG(drv, INFO, "port %u: MAC " RTE_ETHER_ADDR_PRT_FMT ", MTU %u, queues rx %u+%u / tx %u+%u",
	       port, RTE_ETHER_ADDR_BYTES(&bp->mac), bp->mtu, bp->rx_queue, bp->nb_rxq, bp->tx_queue,
	       bp->nb_txq);
	return 0;

fail:
	if (priv->configured)
		unconfigure(port, priv);
	rte_free(priv);
	return ret;
}

static void
ethdev_close(struct dr_backend_port *bp)
{
	struct dr_ethdev_priv *priv = priv_of(bp);
	uint16_t port = bp->port_id;
	int ret;

	if (priv == NULL)
		return;
	if (priv->configured) {
		/* some PMDs (af_packet, af_xdp, tap) leave the kernel interface's flags as we set them */
		if (priv->set_promisc)
			(void)rte_eth_promiscuous_disable(port);
		if (priv->set_allmulti)
			(void)rte_eth_allmulticast_disable(port);
		unconfigure(port, priv);
		ret = rte_eth_dev_close(port);
		if (ret != 0)
			DR_LOG(drv, WARNING, "port %u: close: %s", port, rte_strerror(-ret));
	}
	/* dr_flow_steer() on the application's port: its rules and map entries go with the context */
	dr_ethdev_flow_release(port, &priv->app_flows);
	if (!priv->configured)
		dr_xdp_gids_release(&priv->xdp);
	DR_LOG(drv, DEBUG, "port %u: neighbours %u, ARP/ND rx %" PRIu64 "/%" PRIu64 " malformed %" PRIu64
	       ", tx linearized %" PRIu64 " dropped %" PRIu64, port, priv->neigh.neigh.count,
	       priv->neigh.neigh.stats.arp_rx, priv->neigh.neigh.stats.nd_rx, priv->neigh.neigh.stats.malformed,
	       priv->tx_linearized, priv->tx_dropped);
	rte_free(priv);
	bp->priv = NULL;
}

static uint16_t
ethdev_rx_burst(struct dr_backend_port *bp, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(bp->port_id, queue, pkts, n);
}

/* The port takes no chains: copy each into its first segment, free those that do not fit. */
static uint16_t
tx_burst_linear(uint16_t port, uint16_t queue, struct dr_ethdev_priv *priv, struct rte_mbuf **pkts,
		uint16_t n)
{
	uint16_t done = 0;

	while (done < n) {
		uint16_t i = done;

		for (; i < n; i++) {
			if (pkts[i]->nb_segs == 1)
				continue;
			if (rte_pktmbuf_linearize(pkts[i]) != 0)
				break;
			__atomic_fetch_add(&priv->tx_linearized, 1, __ATOMIC_RELAXED);
		}
		if (i > done) {
			uint16_t sent = rte_eth_tx_burst(port, queue, pkts + done, i - done);

			done += sent;
			if (done < i)
				return done;
		}
		if (done < n) {
			/* the PMD could not carry it: taken and dropped, as a PMD drops */
			rte_pktmbuf_free(pkts[done++]);
			__atomic_fetch_add(&priv->tx_dropped, 1, __ATOMIC_RELAXED);
		}
	}
	return done;
}

static uint16_t
ethdev_tx_burst(struct dr_backend_port *bp, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct dr_ethdev_priv *priv = priv_of(bp);

	if (likely(priv->tx_multi_seg))
		return rte_eth_tx_burst(bp->port_id, queue, pkts, n);
	return tx_burst_linear(bp->port_id, queue, priv, pkts, n);
}

static void
ethdev_rx_other(struct dr_backend_port *bp, struct rte_mbuf *m)
{
	struct dr_ethdev_priv *priv = priv_of(bp);

	if (unlikely(priv == NULL)) {
		rte_pktmbuf_free(m);
		return;
	}
	dr_neigh_port_input(&priv->neigh, bp, m);
}

static int
ethdev_resolve(struct dr_backend_port *bp, const union dr_gid *gid, struct rte_ether_addr *mac)
{
	struct dr_ethdev_priv *priv = priv_of(bp);

	return priv == NULL ? -EINVAL : dr_neigh_port_resolve(&priv->neigh, bp, gid, mac);
}

static int
ethdev_add_neighbour(struct dr_backend_port *bp, const union dr_gid *gid, const struct rte_ether_addr *mac)
{
	struct dr_ethdev_priv *priv = priv_of(bp);

	return priv == NULL ? -EINVAL : dr_neigh_port_add(&priv->neigh, gid, mac);
}

/* Any valid port: this backend drives every PMD. */
static int
ethdev_port_info(uint16_t port, struct dr_backend_port_info *info)
{
	struct rte_eth_dev_info dev;
	uint16_t mtu = 0;
	int socket, ret;

	if (!rte_eth_dev_is_valid_port(port))
		return -ENODEV;
	memset(info, 0, sizeof(*info));
	ret = rte_eth_dev_get_name_by_port(port, info->name);
	if (ret == 0)
		ret = rte_eth_dev_info_get(port, &dev);
	if (ret != 0)
		return -ENODEV;
	socket = rte_eth_dev_socket_id(port);
	info->socket_id = socket < 0 ? SOCKET_ID_ANY : socket;
	/* RTE_ETH_FOREACH_DEV's rule: ports owned by another entity are not listed */
	info->listed = rte_eth_find_next_owned_by(port, RTE_ETH_DEV_NO_OWNER) == port;
	info->max_queues = RTE_MIN(dev.max_rx_queues, dev.max_tx_queues);
	if (rte_eth_dev_get_mtu(port, &mtu) == 0)
		info->mtu = mtu;
	info->rss_udp = info->max_queues > 1 && (dev.flow_type_rss_offloads & DR_ETHDEV_RSS_UDP) != 0;
	/* af_xdp's UMEM is the pool: every mbuf must fit one 4 KiB frame */
	if (strcmp(dev.driver_name, "net_af_xdp") == 0)
		info->max_data_room = DR_ETHDEV_AF_XDP_MAX_ROOM;
	return 0;
}

static int
ethdev_link_get(struct dr_backend_port *bp, struct dr_backend_link *link)
{
	struct rte_eth_link l;
	int ret;

	memset(&l, 0, sizeof(l));
	ret = rte_eth_link_get_nowait(bp->port_id, &l);
	if (ret != 0)
		return ret;
	link->up = l.link_status == RTE_ETH_LINK_UP;
	link->speed_mbps = l.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 : l.link_speed;
	return 0;
}

static int
ethdev_tx_done_cleanup(struct dr_backend_port *bp, uint16_t queue)
{
	int ret = rte_eth_tx_done_cleanup(bp->port_id, queue, 0);

	return ret < 0 ? ret : 0;
}

static int
ethdev_port_stats(struct dr_backend_port *bp, struct dr_backend_port_stats *st)
{
	struct rte_eth_stats s;
	int ret = rte_eth_stats_get(bp->port_id, &s);

	if (ret != 0)
		return ret;
	st->ipackets = s.ipackets;
	st->opackets = s.opackets;
	st->imissed = s.imissed;
	st->ierrors = s.ierrors;
	st->rx_nombuf = s.rx_nombuf;
	st->oerrors = s.oerrors;
	return 0;
}

/*
 * dr_flow_steer() on a port the application configured and started:
 * rte_flow rules to @queue without isolated mode (dr_ethdev_flow.c); on
 * net_af_xdp, our addresses in the dr_gids map of the interface's XDP
 * program (it sends ours to the socket of the queue they arrive on and
 * passes the rest to the kernel). Steering made before is replaced.
 */
static int
ethdev_flow_steer(struct dr_backend_port *bp, uint16_t queue)
{
	struct dr_ethdev_priv *priv = priv_of(bp);
	uint16_t port = bp->port_id;
	struct rte_eth_dev_info info;
	struct dr_port_addrs addrs;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	if (queue >= info.nb_rx_queues) {
		DR_LOG(drv, ERR, "port %u: steering to rx queue %u, the port has %u", port, queue, info.nb_rx_queues);
		return -EINVAL;
	}
	dr_port_addrs_of(bp, &bp->mac, &addrs);
	if (strcmp(info.driver_name, "net_af_xdp") == 0) {
		dr_xdp_gids_release(&priv->xdp);
		ret = dr_xdp_gids_fill(port, info.if_index, &addrs, &priv->xdp);
		if (ret == 0)
			DR_LOG(drv, INFO, "port %u: its XDP program has no %s map: nothing steered", port,
			       DR_XDP_GIDS_MAP);
		return ret > 0 ? (int)priv->xdp.n : ret == 0 ? -ENOTSUP : ret;
	}
	dr_ethdev_flow_release(port, &priv->app_flows);
	return dr_ethdev_flow_steer_queue(port, queue, &addrs, &priv->app_flows);
}

static const struct dr_backend_ops dr_ethdev_ops = {
	.name = "ethdev",
	.priority = 0,              /* any PMD: the fallback for a port a specific backend does not claim */
	.app_io = true,
	.port_info = ethdev_port_info,
	.open = ethdev_open,
	.close = ethdev_close,
	.link_get = ethdev_link_get,
	.tx_done_cleanup = ethdev_tx_done_cleanup,
	.port_stats = ethdev_port_stats,
	.rx_burst = ethdev_rx_burst,
	.tx_burst = ethdev_tx_burst,
	.rx_other = ethdev_rx_other,
	.resolve = ethdev_resolve,
	.add_neighbour = ethdev_add_neighbour,
	.flow_steer = ethdev_flow_steer,
};

DR_BACKEND_REGISTER(dr_ethdev_ops)
