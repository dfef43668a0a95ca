/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The xsk backend: RoCEv2 over AF_XDP sockets of its own, with multi-buffer
 * frames (doc/guides/backends.rst, "The xsk backend"). DPDK 22.11's
 * net_af_xdp binds its sockets without XDP_USE_SG, so a frame must fit one
 * 4 KiB UMEM chunk and XDP on the interface must hold a frame in a page:
 * path MTU 2048 at most. This backend drives the kernel interface of a
 * net_af_xdp port itself (the port names the interface, its queues and the
 * XDP program: iface=, start_queue=, queue_count=, xdp_prog=; it is never
 * configured or started), with sockets bound XDP_USE_SG (Linux 6.6), so a
 * 4096-byte path MTU's frames cross it as two chunks each.
 *
 * Chosen by name only (dr_context_attr.backend = "xsk"): its priority is
 * below the ethdev backend's, which stays the default for every port.
 * Control path here (sockets, UMEMs, the XDP program and its maps); the
 * bursts are dr_xsk_rxtx.c's.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>

#include "dr_backend.h"
#include "dr_log.h"
#include "dr_neigh_port.h"
#include "dr_port_addrs.h"
#include "dr_xdp_gids.h"
#include "dr_xsk_queue.h"

#define DR_XSK_MAX_QUEUES 16
#define DR_XSK_XSKS_MAP "xsks_map"   /* what net_af_xdp's xdp_prog must have, and so ours */

/* What the net_af_xdp port's devargs say. */
struct dr_xsk_args {
	char iface[IF_NAMESIZE];
	unsigned int start_queue, queue_count;
	char prog[PATH_MAX];            /* the XDP program's object file ("": none given) */
};

struct dr_xsk_priv {
	struct dr_neigh_port neigh;     /* ARP / ND (drivers/common) */
	struct dr_xsk_args args;
	unsigned int ifindex;
	uint16_t nq;
	struct dr_xsk_queue *q[DR_XSK_MAX_QUEUES];
	struct xsk_umem *umem[DR_XSK_MAX_QUEUES];
	struct xsk_socket *xsk[DR_XSK_MAX_QUEUES];
	struct bpf_object *obj;         /* the XDP program we attached (xdp_prog) */
	uint32_t prog_id;
	uint32_t xdp_flags;             /* the mode it was attached in */
	struct dr_xdp_gids gids;        /* our addresses in its dr_gids map */
};

static int
arg_str(const char *key, const char *value, void *opaque)
{
	struct { char *buf; size_t len; } *o = opaque;

	(void)key;
	if (value == NULL || strlen(value) >= o->len)
		return -1;
	strcpy(o->buf, value);
	return 0;
}

static int
arg_uint(const char *key, const char *value, void *opaque)
{
	char *end;
	unsigned long v;

	(void)key;
	if (value == NULL)
		return -1;
	errno = 0;
	v = strtoul(value, &end, 0);
	if (errno != 0 || *end != '\0' || end == value || v > UINT16_MAX)
		return -1;
	*(unsigned int *)opaque = (unsigned int)v;
	return 0;
}

/* The interface, queues and program of net_af_xdp port @port. 0, -ENODEV (not such a port) or -EINVAL. */
static int
args_of(uint16_t port, struct dr_xsk_args *a)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	struct { char *buf; size_t len; } iface = { a->iface, sizeof(a->iface) }, prog = { a->prog, sizeof(a->prog) };
	int ret;

	memset(a, 0, sizeof(*a));
	a->queue_count = 1;
	if (!rte_eth_dev_is_valid_port(port) || rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL ||
	    strcmp(info.driver_name, "net_af_xdp") != 0)
		return -ENODEV;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return -EINVAL;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return -EINVAL;
	ret = rte_kvargs_process(kv, "iface", arg_str, &iface);
	if (ret == 0)
		ret = rte_kvargs_process(kv, "start_queue", arg_uint, &a->start_queue);
	if (ret == 0)
		ret = rte_kvargs_process(kv, "queue_count", arg_uint, &a->queue_count);
	if (ret == 0)
		ret = rte_kvargs_process(kv, "xdp_prog", arg_str, &prog);
	rte_kvargs_free(kv);
	if (ret != 0 || a->iface[0] == '\0' || a->queue_count == 0)
		return -EINVAL;
	return 0;
}

/* An ioctl on the interface named in @ifr (SIOCGIFMTU, SIOCGIFFLAGS, SIOCGIFHWADDR). */
static int
if_ioctl(unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, req, ifr) != 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int
if_mtu(const char *iface, uint32_t *mtu)
{
	struct ifreq ifr;
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ret = if_ioctl(SIOCGIFMTU, &ifr);
	if (ret == 0)
		*mtu = (uint32_t)ifr.ifr_mtu;
	return ret;
}

static int
xsk_port_info(uint16_t port, struct dr_backend_port_info *info)
{
	struct dr_xsk_args a;
	uint32_t mtu = 0;
	int socket;

	if (args_of(port, &a) != 0)
		return -ENODEV;
	memset(info, 0, sizeof(*info));
	if (rte_eth_dev_get_name_by_port(port, info->name) != 0)
		return -ENODEV;
	socket = rte_eth_dev_socket_id(port);
	info->socket_id = socket < 0 ? SOCKET_ID_ANY : socket;
	info->listed = rte_eth_find_next_owned_by(port, RTE_ETH_DEV_NO_OWNER) == port;
	info->max_queues = (uint16_t)RTE_MIN(a.queue_count, (unsigned int)DR_XSK_MAX_QUEUES);
	if (if_mtu(a.iface, &mtu) == 0)
		info->mtu = (uint16_t)RTE_MIN(mtu, (uint32_t)UINT16_MAX);
	return 0;
}

/* Attach the program of @path to the interface (native XDP, else generic) and find its xsks_map. */
static int
prog_attach(uint16_t port, struct dr_xsk_priv *priv, int *map_fd)
{
	static const uint32_t modes[] = { XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE };
	struct bpf_program *prog;
	struct bpf_map *map;
	struct bpf_prog_info pinfo;
	uint32_t len = sizeof(pinfo);
	int ret = 0, fd;

	priv->obj = bpf_object__open_file(priv->args.prog, NULL);
	if (priv->obj == NULL) {
		ret = -errno;
		DR_LOG(drv, ERR, "port %u: XDP program %s: %s", port, priv->args.prog, strerror(-ret));
		return ret;
	}
	ret = bpf_object__load(priv->obj);
	prog = bpf_object__next_program(priv->obj, NULL);
	map = bpf_object__find_map_by_name(priv->obj, DR_XSK_XSKS_MAP);
	if (ret != 0 || prog == NULL || map == NULL) {
		DR_LOG(drv, ERR, "port %u: XDP program %s: %s", port, priv->args.prog,
		       ret != 0 ? strerror(-ret) : "no program, or no " DR_XSK_XSKS_MAP " map");
		return ret != 0 ? ret : -EINVAL;
	}
	fd = bpf_program__fd(prog);
	for (unsigned int i = 0; i < RTE_DIM(modes); i++) {
		ret = bpf_xdp_attach((int)priv->ifindex, fd, XDP_FLAGS_UPDATE_IF_NOEXIST | modes[i], NULL);
		if (ret == 0) {
			priv->xdp_flags = modes[i];
			break;
		}
		DR_LOG(drv, INFO, "port %u: XDP program on %s (%s mode): %s", port, priv->args.iface,
		       modes[i] == XDP_FLAGS_DRV_MODE ? "native" : "generic", strerror(-ret));
		if (ret == -EBUSY || ret == -EEXIST)
			break;  /* another program is attached: not ours to replace */
	}
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: XDP program %s on %s: %s", port, priv->args.prog, priv->args.iface,
		       strerror(-ret));
		return ret;
	}
	memset(&pinfo, 0, sizeof(pinfo));
	if (bpf_obj_get_info_by_fd(fd, &pinfo, &len) == 0)
		priv->prog_id = pinfo.id;
	*map_fd = bpf_map__fd(map);
	return 0;
}

/* Detach our program (if it is still the one attached) and free its object. */
static void
prog_detach(struct dr_xsk_priv *priv)
{
	uint32_t id = 0;

	if (priv->prog_id != 0 && bpf_xdp_query_id((int)priv->ifindex, (int)priv->xdp_flags, &id) == 0 &&
	    id == priv->prog_id)
		(void)bpf_xdp_detach((int)priv->ifindex, (int)priv->xdp_flags, NULL);
	priv->prog_id = 0;
	if (priv->obj != NULL)
		bpf_object__close(priv->obj);
	priv->obj = NULL;
}

/* Queue @i's UMEM and socket, bound multi-buffer (copy mode when zero-copy refuses). */
static int
queue_open(uint16_t port, struct dr_xsk_priv *priv, unsigned int i, int socket)
{
	const struct xsk_umem_config ucfg = {
		.fill_size = DR_XSK_FILL_FRAMES,
		.comp_size = DR_XSK_TX_FRAMES,
		.frame_size = DR_XSK_CHUNK,
		.frame_headroom = 0,
	};
	static const uint16_t binds[] = { XDP_USE_NEED_WAKEUP | XDP_USE_SG,
					  XDP_USE_NEED_WAKEUP | XDP_USE_SG | XDP_COPY };
	struct xsk_socket_config scfg = {
		.rx_size = DR_XSK_RING,
		.tx_size = DR_XSK_RING,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
	};
	size_t size = (size_t)DR_XSK_FRAMES * DR_XSK_CHUNK;
	struct dr_xsk_queue *q;
	int ret = -EINVAL;

	q = rte_zmalloc_socket("dr_xsk_queue", sizeof(*q), RTE_CACHE_LINE_SIZE, socket);
	if (q == NULL)
		return -ENOMEM;
	priv->q[i] = q;
	q->fd = -1;
	q->umem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (q->umem == MAP_FAILED) {
		q->umem = NULL;
		return -errno;
	}
	ret = xsk_umem__create(&priv->umem[i], q->umem, size, &q->fill, &q->comp, &ucfg);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: UMEM of queue %u: %s", port, i, strerror(-ret));
		return ret;
	}
	for (unsigned int b = 0; b < RTE_DIM(binds); b++) {
		scfg.bind_flags = binds[b];
		ret = xsk_socket__create(&priv->xsk[i], priv->args.iface, priv->args.start_queue + i, priv->umem[i],
					 &q->rx, &q->tx, &scfg);
		if (ret == 0)
			break;
		DR_LOG(drv, INFO, "port %u: AF_XDP socket on %s queue %u (%s): %s", port, priv->args.iface,
		       priv->args.start_queue + i, b == 0 ? "any mode" : "copy mode", strerror(-ret));
	}
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: AF_XDP socket on %s queue %u, multi-buffer: %s (XDP_USE_SG needs "
		       "Linux 6.6)", port, priv->args.iface, priv->args.start_queue + i, strerror(-ret));
		return ret;
	}
	q->fd = xsk_socket__fd(priv->xsk[i]);
	return dr_xsk_queue_init(q);
}

static void
queues_close(struct dr_xsk_priv *priv)
{
	for (unsigned int i = 0; i < DR_XSK_MAX_QUEUES; i++) {
		if (priv->xsk[i] != NULL)
			xsk_socket__delete(priv->xsk[i]);
		if (priv->umem[i] != NULL)
			(void)xsk_umem__delete(priv->umem[i]);
		if (priv->q[i] != NULL && priv->q[i]->umem != NULL)
			munmap(priv->q[i]->umem, (size_t)DR_XSK_FRAMES * DR_XSK_CHUNK);
		rte_free(priv->q[i]);
		priv->xsk[i] = NULL;
		priv->umem[i] = NULL;
		priv->q[i] = NULL;
	}
}

static void
priv_free(struct dr_xsk_priv *priv)
{
	dr_xdp_gids_release(&priv->gids);
	prog_detach(priv);
	queues_close(priv);
	rte_free(priv);
}

/* Sockets on the interface's queues, our program with them in its map, our addresses in its dr_gids. */
static int
xsk_bind(struct dr_backend_port *bp, struct dr_xsk_priv *priv, int socket)
{
	uint16_t port = bp->port_id;
	struct dr_port_addrs addrs;
	int map_fd = -1, ret;

	priv->nq = (uint16_t)RTE_MIN(RTE_MIN((unsigned int)bp->nb_queues, priv->args.queue_count),
				     (unsigned int)DR_XSK_MAX_QUEUES);
	ret = prog_attach(port, priv, &map_fd);
	if (ret != 0)
		return ret;
	for (unsigned int i = 0; i < priv->nq; i++) {
		int key = (int)(priv->args.start_queue + i), fd;

		ret = queue_open(port, priv, i, socket);
		if (ret != 0)
			return ret;
		priv->q[i]->pool = bp->pool;
		fd = priv->q[i]->fd;
		if (bpf_map_update_elem(map_fd, &key, &fd, BPF_ANY) != 0) {
			ret = -errno;
			DR_LOG(drv, ERR, "port %u: %s[%d]: %s", port, DR_XSK_XSKS_MAP, key, strerror(-ret));
			return ret;
		}
	}
	dr_port_addrs_of(bp, &bp->mac, &addrs);
	ret = dr_xdp_gids_fill(port, priv->ifindex, &addrs, &priv->gids);
	if (ret < 0)
		return ret;
	bp->flow_isolated = ret > 0;
	return 0;
}

static int
xsk_open(struct dr_backend_port *bp)
{
	uint16_t port = bp->port_id;
	struct dr_xsk_priv *priv;
	uint32_t mtu = 0;
	int socket, ret;

	socket = rte_eth_dev_socket_id(port);
	socket = socket < 0 ? SOCKET_ID_ANY : socket;
	priv = rte_zmalloc_socket("dr_xsk", sizeof(*priv), RTE_CACHE_LINE_SIZE, socket);
	if (priv == NULL)
		return -ENOMEM;
	priv->gids.map_fd = -1;
	dr_neigh_port_init(&priv->neigh, bp->tsc_hz);
	ret = args_of(port, &priv->args);
	if (ret != 0 || priv->args.prog[0] == '\0') {
		/* DPDK's net_af_xdp falls back to libxdp's program; ours must be one with xsks_map */
		DR_LOG(drv, ERR, "port %u: the xsk backend drives the interface of a net_af_xdp port with "
		       "iface= and xdp_prog= (an XDP program with an xsks_map: dr_xdp_steer.o)", port);
		ret = ret != 0 ? ret : -EINVAL;
		goto fail;
	}
	if (!bp->attr->configure_port) {
		/* the application runs the port: its queues are net_af_xdp's sockets, not ours */
		DR_LOG(drv, ERR, "port %u: the xsk backend binds the interface's queues itself "
		       "(configure_port)", port);
		ret = -ENOTSUP;
		goto fail;
	}
	priv->ifindex = if_nametoindex(priv->args.iface);
	if (priv->ifindex == 0) {
		ret = -errno;
		DR_LOG(drv, ERR, "port %u: interface %s: %s", port, priv->args.iface, strerror(-ret));
		goto fail;
	}
	ret = rte_eth_macaddr_get(port, &bp->mac);
	if (ret == 0)
		ret = if_mtu(priv->args.iface, &mtu);
	if (ret != 0) {
		DR_LOG(drv, ERR, "port %u: MAC / MTU of %s: %s", port, priv->args.iface, strerror(-ret));
		goto fail;
	}
	bp->mtu = bp->attr->mtu != 0 ? bp->attr->mtu : mtu;
	bp->max_frame = 0;
	bp->tx_zcopy = true;            /* transmit copies with the CPU: attached payloads are fine */
	ret = xsk_bind(bp, priv, socket);
	if (ret != 0)
		goto fail;
	bp->rx_queue = 0;
	bp->tx_queue = 0;
	bp->nb_rxq = priv->nq;
	bp->nb_txq = priv->nq;
	bp->rss_udp = false;
	bp->priv = priv;
	DR_LOG(drv, INFO, "port %u: %s queues %u+%u, AF_XDP multi-buffer (%s XDP), MAC " RTE_ETHER_ADDR_PRT_FMT
	       ", MTU %u%s", port, priv->args.iface, priv->args.start_queue, priv->nq,
	       priv->xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native", RTE_ETHER_ADDR_BYTES(&bp->mac),
	       bp->mtu, bp->flow_isolated ? ", steered" : "");
	return 0;

fail:
	priv_free(priv);
	return ret;
}

static void
xsk_close(struct dr_backend_port *bp)
{
	struct dr_xsk_priv *priv = bp->priv;

	if (priv == NULL)
		return;
	for (unsigned int i = 0; i < priv->nq; i++)
		DR_LOG(drv, DEBUG, "port %u queue %u: rx %" PRIu64 " tx %" PRIu64 " rx_nombuf %" PRIu64
		       " rx_too_long %" PRIu64 " tx_too_long %" PRIu64 " wakeups %" PRIu64, bp->port_id, i,
		       priv->q[i]->rx_pkts, priv->q[i]->tx_pkts, priv->q[i]->rx_nombuf, priv->q[i]->rx_too_long,
		       priv->q[i]->tx_too_long, priv->q[i]->wakeups);
	priv_free(priv);
	bp->priv = NULL;
}

static int
xsk_link_get(struct dr_backend_port *bp, struct dr_backend_link *link)
{
	struct dr_xsk_priv *priv = bp->priv;
	struct ifreq ifr;
	int ret;

	if (priv == NULL)
		return -EINVAL;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", priv->args.iface);
	ret = if_ioctl(SIOCGIFFLAGS, &ifr);
	if (ret != 0)
		return ret;
	link->up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	link->speed_mbps = 0;
	return 0;
}

static int
xsk_port_stats(struct dr_backend_port *bp, struct dr_backend_port_stats *st)
{
	struct dr_xsk_priv *priv = bp->priv;

	if (priv == NULL)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	for (unsigned int i = 0; i < priv->nq; i++) {
		const struct dr_xsk_queue *q = priv->q[i];
		struct xdp_statistics xs;
		socklen_t len = sizeof(xs);

		st->ipackets += __atomic_load_n(&q->rx_pkts, __ATOMIC_RELAXED);
		st->opackets += __atomic_load_n(&q->tx_pkts, __ATOMIC_RELAXED);
		st->rx_nombuf += __atomic_load_n(&q->rx_nombuf, __ATOMIC_RELAXED);
		st->ierrors += __atomic_load_n(&q->rx_too_long, __ATOMIC_RELAXED);
		st->oerrors += __atomic_load_n(&q->tx_too_long, __ATOMIC_RELAXED);
		memset(&xs, 0, sizeof(xs));
		if (getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, &xs, &len) == 0) {
			/* the kernel dropped them: rx ring full, no fill chunk, or no room in the chunks */
			st->imissed += xs.rx_dropped + xs.rx_ring_full + xs.rx_fill_ring_empty_descs;
			st->ierrors += xs.rx_invalid_descs;
			st->oerrors += xs.tx_invalid_descs;
		}
	}
	return 0;
}

static uint16_t
xsk_rx_burst(struct dr_backend_port *bp, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct dr_xsk_priv *priv = bp->priv;

	return dr_xsk_rx_burst(priv->q[queue], pkts, n);
}

static uint16_t
xsk_tx_burst(struct dr_backend_port *bp, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct dr_xsk_priv *priv = bp->priv;

	return dr_xsk_tx_burst(priv->q[queue], pkts, n);
}

static void
xsk_rx_other(struct dr_backend_port *bp, struct rte_mbuf *m)
{
	struct dr_xsk_priv *priv = bp->priv;

	if (unlikely(priv == NULL)) {
		rte_pktmbuf_free(m);
		return;
	}
	dr_neigh_port_input(&priv->neigh, bp, m);
}

static int
xsk_resolve(struct dr_backend_port *bp, const union dr_gid *gid, struct rte_ether_addr *mac)
{
	struct dr_xsk_priv *priv = bp->priv;

	return priv == NULL ? -EINVAL : dr_neigh_port_resolve(&priv->neigh, bp, gid, mac);
}

static int
xsk_add_neighbour(struct dr_backend_port *bp, const union dr_gid *gid, const struct rte_ether_addr *mac)
{
	struct dr_xsk_priv *priv = bp->priv;

	return priv == NULL ? -EINVAL : dr_neigh_port_add(&priv->neigh, gid, mac);
}

static const struct dr_backend_ops dr_xsk_ops = {
	.name = "xsk",
	.priority = -1,             /* by name only: ethdev stays every port's default */
	.port_info = xsk_port_info,
	.open = xsk_open,
	.close = xsk_close,
	.link_get = xsk_link_get,
	.port_stats = xsk_port_stats,
	.rx_burst = xsk_rx_burst,
	.tx_burst = xsk_tx_burst,
	.rx_other = xsk_rx_other,
	.resolve = xsk_resolve,
	.add_neighbour = xsk_add_neighbour,
};

DR_BACKEND_REGISTER(dr_xsk_ops)
