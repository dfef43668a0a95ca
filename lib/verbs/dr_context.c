/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Contexts: one per DPDK port (ibv_open_device(3), ibv_close_device(3)),
 * their port and device attributes (ibv_query_device(3), ibv_query_port(3)),
 * the GID table (ibv_query_gid(3)) and the transmit staging array.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dr_context.h"
#include "dr_icrc.h"
#include "dr_control.h"
#include "dr_engine.h"
#include "dr_io_app.h"
#include "dr_log.h"
#include "dr_pkt.h"
#include "dr_verbs_priv.h"
#include "dr_version.h"

/*
 * Range of dr_context_attr.mtu: the smallest link that carries a 256-byte
 * IB MTU within rxe's 80-byte header budget, and the largest IP MTU.
 */
#define DR_MIN_LINK_MTU (256 + DR_RXE_MAX_HDR_LENGTH)
#define DR_MAX_LINK_MTU 65535

/* IBV_PORT_* states and link layer (enum ibv_port_state, IBV_LINK_LAYER_ETHERNET) */
#define DR_LINK_LAYER_ETHERNET 2

/* The context open on each port (control path only: no lock). */
static struct dr_context *port_ctx[RTE_MAX_ETHPORTS];
/* port_ctx changes (open, close) and its readers outside the owner's calls (telemetry) */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

void
dr_ctx_registry_lock(void)
{
	pthread_mutex_lock(&registry_lock);
}

void
dr_ctx_registry_unlock(void)
{
	pthread_mutex_unlock(&registry_lock);
}

struct dr_context *
dr_ctx_registry_get(uint16_t port)
{
	return port < RTE_MAX_ETHPORTS ? port_ctx[port] : NULL;
}

enum dr_mtu
dr_active_mtu_from_link(uint32_t link_mtu)
{
	uint32_t room;
	int m;

	/* rxe_set_mtu(): mtu = eth_mtu_int_to_enum(ndev_mtu); mtu ? min(mtu, 4096) : 256 */
	if (link_mtu <= DR_RXE_MAX_HDR_LENGTH)
		return DR_MTU_256;
	room = link_mtu - DR_RXE_MAX_HDR_LENGTH;
	for (m = DR_MTU_4096; m > DR_MTU_256; m--)
		if (dr_mtu_bytes((enum dr_mtu)m) <= room)
			break;
	return (enum dr_mtu)m;
}

enum dr_mtu
dr_active_mtu_from_frame(uint32_t max_frame)
{
	int m;

	if (max_frame == 0)
		return DR_MTU_4096;
	for (m = DR_MTU_4096; m >= DR_MTU_256; m--)
		if (DR_FRAME_OVERHEAD_MAX + dr_mtu_bytes((enum dr_mtu)m) <= max_frame)
			return (enum dr_mtu)m;
	return (enum dr_mtu)0;
}

enum dr_mtu
dr_active_mtu_from_room(uint32_t data_room)
{
	if (data_room <= RTE_PKTMBUF_HEADROOM)
		return (enum dr_mtu)0;
	return dr_active_mtu_from_frame(data_room - RTE_PKTMBUF_HEADROOM);
}

void
dr_gid_from_mac(union dr_gid *gid, const struct rte_ether_addr *mac)
{
	const uint8_t *a = mac->addr_bytes;

	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xFE;
	gid->raw[1] = 0x80;
	gid->raw[8] = a[0] ^ 0x02;      /* universal/local bit */
	gid->raw[9] = a[1];
	gid->raw[10] = a[2];
	gid->raw[11] = 0xFF;
	gid->raw[12] = 0xFE;
	gid->raw[13] = a[3];
	gid->raw[14] = a[4];
	gid->raw[15] = a[5];
}

static bool
ipv6_usable(const uint8_t a[16])
{
	static const uint8_t zero[16];

	/* a unicast address of our own: not ::, not multicast, not IPv4-mapped */
	return memcmp(a, zero, sizeof(zero)) != 0 && a[0] != 0xFF && !dr_gid_is_ipv4(a);
}

/* dr_context_attr.cc: a known algorithm, DCQCN parameters that can run (dr_dcqcn_params_check()). */
static int
cc_attr_check(const struct dr_cc_attr *cc)
{
	struct dr_cc_ctx c;

	if (dr_cc_ctx_init(&c, cc, 0, rte_get_tsc_hz()) == 0)
		return 0;
	if (cc->algo != DR_CC_NONE && cc->algo != DR_CC_DCQCN)
		DR_LOG(ctx, INFO, "cc.algo %d unknown (DR_CC_NONE, DR_CC_DCQCN)", (int)cc->algo);
	else
		DR_LOG(ctx, INFO, "cc.dcqcn: parameters that cannot run (dr_dcqcn_params_check())");
	return -EINVAL;
}

static int
attr_check(const struct dr_context_attr *a)
{
	unsigned int i;

	if (a->num_ipv6 > RTE_DIM(a->ipv6_addr)) {
		DR_LOG(ctx, INFO, "num_ipv6 %u > %zu", a->num_ipv6, RTE_DIM(a->ipv6_addr));
		return -EINVAL;
	}
	for (i = 0; i < a->num_ipv6; i++) {
		if (!ipv6_usable(a->ipv6_addr[i])) {
			DR_LOG(ctx, INFO, "ipv6_addr[%u] is not a unicast IPv6 address", i);
			return -EINVAL;
		}
	}
	if (a->mtu != 0 && (a->mtu < DR_MIN_LINK_MTU || a->mtu > DR_MAX_LINK_MTU)) {
		DR_LOG(ctx, INFO, "mtu %u outside %u..%u", a->mtu, DR_MIN_LINK_MTU, DR_MAX_LINK_MTU);
		return -EINVAL;
	}
	if (a->mode != DR_PROGRESS_INLINE && a->mode != DR_PROGRESS_RTC && a->mode != DR_PROGRESS_PIPELINE) {
		DR_LOG(ctx, INFO, "progress mode %d not supported", (int)a->mode);
		return -EINVAL;
	}
	if (a->nb_workers > DR_MAX_WORKERS || (a->mode == DR_PROGRESS_INLINE && a->nb_workers > 1) ||
	    (a->mode == DR_PROGRESS_PIPELINE && a->nb_workers > DR_MAX_WORKERS / 3)) {
		DR_LOG(ctx, INFO, "nb_workers %u: at most %u (%u pipeline groups of 3 lcores), and 1 in inline mode",
		       a->nb_workers, DR_MAX_WORKERS, DR_MAX_WORKERS / 3);
		return -EINVAL;
	}
	if (a->mode == DR_PROGRESS_INLINE && a->worker_lcores != NULL) {
		DR_LOG(ctx, INFO, "worker_lcores given in inline mode");
		return -EINVAL;
	}
	if (a->nb_queues > DR_MAX_WORKERS || (a->mode == DR_PROGRESS_INLINE && a->nb_queues > 1)) {
		DR_LOG(ctx, INFO, "nb_queues %u: at most the workers, 1 in inline mode", a->nb_queues);
		return -EINVAL;
	}
	if (a->idle != DR_IDLE_SPIN && a->idle != DR_IDLE_PAUSE && a->idle != DR_IDLE_YIELD &&
	    a->idle != DR_IDLE_SLEEP && a->idle != DR_IDLE_AUTO) {
		DR_LOG(ctx, INFO, "idle policy %d unknown", (int)a->idle);
		return -EINVAL;
	}
	if (cc_attr_check(&a->cc) != 0)
		return -EINVAL;
	if (a->max_qp > DR_MAX_QP) {
		DR_LOG(ctx, INFO, "max_qp %u above %u", a->max_qp, DR_MAX_QP);
		return -EINVAL;
	}
	if (a->io != DR_IO_PORT && a->io != DR_IO_APP) {
		DR_LOG(ctx, INFO, "io mode %d unknown", (int)a->io);
		return -EINVAL;
	}
	if (a->io == DR_IO_APP && a->configure_port) {
		DR_LOG(ctx, INFO, "DR_IO_APP with configure_port: the application owns the port");
		return -EINVAL;
	}
	if (a->io_ring_size != 0 && (a->io != DR_IO_APP || !rte_is_power_of_2(a->io_ring_size) ||
				     a->io_ring_size < 64 || a->io_ring_size > 65536)) {
		DR_LOG(ctx, INFO, "io_ring_size %u: a power of two from 64 to 65536, with DR_IO_APP",
		       a->io_ring_size);
		return -EINVAL;
	}
	if (a->app_pool_hold != 0 && a->configure_port) {
		DR_LOG(ctx, INFO, "app_pool_hold %u with configure_port: every frame is from the context's pool",
		       a->app_pool_hold);
		return -EINVAL;
	}
	if (a->pool_mbufs != 0 && (a->pool_mbufs < DR_POOL_MIN_MBUFS || a->pool != NULL)) {
		DR_LOG(ctx, INFO, "pool_mbufs %u: at least %u, and no pool given", a->pool_mbufs,
		       DR_POOL_MIN_MBUFS);
		return -EINVAL;
	}
	return 0;
}

/*
 * The default size of the context's pool (dr_context_attr.pool_mbufs = 0):
 * every descriptor of the queues the workers may own, what the engine's
 * rings and staging arrays hold, the per-lcore caches (a cache may hold 1.5
 * times its size before it flushes), DR_POOL_INFLIGHT frames in the stages;
 * rounded up to 2^n - 1, the size rte_mempool uses best.
 */
static uint32_t
pool_default_mbufs(const struct dr_context *ctx)
{
	const struct dr_context_attr *a = &ctx->attr;
	uint64_t nq = a->nb_queues != 0 ? a->nb_queues : ctx->nb_groups;
	uint64_t rxd = a->nb_rx_desc != 0 ? a->nb_rx_desc : DR_POOL_RING_DESC;
	uint64_t txd = a->nb_tx_desc != 0 ? a->nb_tx_desc : DR_POOL_RING_DESC;
	uint64_t n;

	n = nq * (rxd + txd) + dr_engine_frames_held(ctx) +
	    (uint64_t)(ctx->nb_workers + 1) * DR_POOL_CACHE * 3 / 2 + DR_POOL_INFLIGHT;
	return (uint32_t)rte_align64pow2(n) - 1;   /* at most 2^32 - 1: nb_workers <= 16 */
}

/*
 * The QP and MR tables and their free lists, on the port's socket: max_qp
 * and DR_MAX_MR entries (dr_context.h). 0 or -ENOMEM.
 */
static int
ctx_tables_alloc(struct dr_context *ctx, int socket)
{
	uint32_t *qp_free, *mr_free;

	ctx->max_qp = ctx->attr.max_qp != 0 ? ctx->attr.max_qp : DR_MAX_QP;
	ctx->qp_table = rte_zmalloc_socket("dr_qp_table", ctx->max_qp * sizeof(ctx->qp_table[0]),
					   RTE_CACHE_LINE_SIZE, socket);
	qp_free = rte_malloc_socket("dr_qp_free", ctx->max_qp * sizeof(*qp_free), 0, socket);
	ctx->mr_table = rte_zmalloc_socket("dr_mr_table", DR_MAX_MR * sizeof(ctx->mr_table[0]),
					   RTE_CACHE_LINE_SIZE, socket);
	ctx->mr_variant = rte_zmalloc_socket("dr_mr_variant", DR_MAX_MR, 0, socket);
	mr_free = rte_malloc_socket("dr_mr_free", DR_MAX_MR * sizeof(*mr_free), 0, socket);
	ctx->qp_free.slot = qp_free;
	ctx->mr_free.slot = mr_free;
	if (ctx->qp_table == NULL || qp_free == NULL || ctx->mr_table == NULL ||
	    ctx->mr_variant == NULL || mr_free == NULL)
		return -ENOMEM;
	dr_idx_fifo_init(&ctx->qp_free, qp_free, ctx->max_qp);
	dr_idx_stack_init(&ctx->mr_free, mr_free, DR_MAX_MR);
	TAILQ_INIT(&ctx->qps);
	return 0;
}

static void
ctx_tables_free(struct dr_context *ctx)
{
	rte_free(ctx->qp_table);
	rte_free(ctx->qp_free.slot);
	rte_free(ctx->mr_table);
	rte_free(ctx->mr_variant);
	rte_free(ctx->mr_free.slot);
	ctx->qp_table = NULL;
	ctx->qp_free.slot = NULL;
	ctx->mr_table = NULL;
	ctx->mr_variant = NULL;
	ctx->mr_free.slot = NULL;
}

/* A context that failed to open or is closing: what open allocated before the backend. */
static void
ctx_free(struct dr_context *ctx)
{
	if (ctx->own_pool)
		rte_mempool_free(ctx->pool);
	dr_engine_free(ctx);
	ctx_tables_free(ctx);
	rte_free(ctx);
}

/* rxe's GID table: 0 link-local EUI-64, 1 IPv4-mapped (when given), 2.. the IPv6 addresses. */
static void
gid_table_init(struct dr_context *ctx)
{
	unsigned int i;

	dr_gid_from_mac(&ctx->gid[0], &ctx->mac);
	ctx->gid_valid[0] = 1;
	ctx->num_gids = 1;
	if (ctx->attr.ipv4_addr != 0) {
		dr_gid_from_ipv4(ctx->gid[1].raw, ctx->attr.ipv4_addr);
		ctx->gid_valid[1] = 1;
		ctx->num_gids = 2;
	}
	for (i = 0; i < ctx->attr.num_ipv6; i++) {
		memcpy(ctx->gid[2 + i].raw, ctx->attr.ipv6_addr[i], sizeof(ctx->gid[0].raw));
		ctx->gid_valid[2 + i] = 1;
		ctx->num_gids = 3 + i;
	}
}

static struct dr_context *
open_fail(int err)
{
	errno = err;
	return NULL;
}

/* The backend of @attr for @port (and what it says of the port). 0, -EINVAL (no such backend), -ENODEV. */
static int
backend_pick(const struct dr_context_attr *attr, uint16_t port, const struct dr_backend_ops **be,
	     struct dr_backend_port_info *info)
{
	bool app_io = attr->io == DR_IO_APP;

	memset(info, 0, sizeof(*info));
	if (attr->backend == NULL) {
		*be = dr_backend_for_port_io(port, app_io, info);
		return *be != NULL ? 0 : -ENODEV;
	}
	*be = dr_backend_find(attr->backend);
	if (*be == NULL) {
		DR_LOG(ctx, ERR, "no backend \"%s\"", attr->backend);
		return -EINVAL;
	}
	if (app_io && !(*be)->app_io) {
		DR_LOG(ctx, ERR, "backend %s does not bind DR_IO_APP contexts", attr->backend);
		return -ENOTSUP;
	}
	if ((*be)->port_info(port, info) != 0) {
		DR_LOG(ctx, ERR, "port %u: backend %s does not drive it", port, attr->backend);
		return -ENODEV;
	}
	return 0;
}

/*
 * Queue pairs to ask of the port: with configure_port, attr.nb_queues, else
 * one per rtc worker or pipeline group (nb_groups) where the port spreads UDP
 * by RSS, else one (without RSS
 * the peer's queues decide where frames land: one queue and software
 * redirect is the safe default); of a port the application runs, one per
 * worker from attr.rx_queue on. At most the port's.
 */
static uint16_t
queues_wanted(const struct dr_context *ctx, const struct dr_backend_port_info *info)
{
	uint16_t nq;

	if (ctx->attr.io == DR_IO_APP)
		nq = 1;                         /* the application's staging rings */
	else if (!ctx->attr.configure_port)
		nq = ctx->nb_groups;
	else if (ctx->attr.nb_queues != 0)
		nq = RTE_MIN(ctx->attr.nb_queues, ctx->nb_groups);
	else
		nq = info->rss_udp ? ctx->nb_groups : 1;
	if (info->max_queues != 0 && nq > info->max_queues)
		nq = info->max_queues;
	return nq != 0 ? nq : 1;
}

/*
 * DR_ICRC_SIMD_BITS (128, 256, 512; dr_crc32_set_max_simd_bits()): the
 * library's own SIMD width for the ICRC, so AVX-512 can be used for it
 * without raising EAL's limit for the whole process. Another value is
 * logged and the width left as it was.
 */
static void
icrc_simd_from_env(void)
{
	const char *v = getenv("DR_ICRC_SIMD_BITS");
	unsigned long bits;
	char *end;

	if (v == NULL || *v == '\0')
		return;
	bits = strtoul(v, &end, 10);
	if (*end != '\0' || bits > UINT32_MAX || dr_crc32_set_max_simd_bits((unsigned int)bits) != 0)
		DR_LOG(ctx, WARNING, "DR_ICRC_SIMD_BITS=%s: not 128, 256 or 512; the width stays as it was", v);
}

struct dr_context *
dr_open_device(struct dr_device *dev, const struct dr_context_attr *attr)
{
	static const struct dr_context_attr defaults;
	const struct dr_backend_ops *be;
	struct dr_backend_port_info info;
	struct dr_backend_port *bp;
	struct dr_context *ctx;
	uint16_t port;
	int socket, rc;

	if (dev == NULL)
		return open_fail(EINVAL);
	if (attr == NULL)
		attr = &defaults;
	if (attr_check(attr) != 0)
		return open_fail(EINVAL);
	port = dev->port_id;
	if (port >= RTE_MAX_ETHPORTS)
		return open_fail(ENODEV);
	rc = backend_pick(attr, port, &be, &info);
	if (rc != 0)
		return open_fail(-rc);
	if (port_ctx[port] != NULL) {
		DR_LOG(ctx, INFO, "port %u already has a context", port);
		return open_fail(EBUSY);
	}

	socket = info.socket_id;
	ctx = rte_zmalloc_socket("dr_context", sizeof(*ctx), RTE_CACHE_LINE_SIZE, socket);
	if (ctx == NULL)
		return open_fail(ENOMEM);
	ctx->device = *dev;
	ctx->port_id = port;
	ctx->socket_id = socket;
	ctx->attr = *attr;
	ctx->be = be;
	ctx->tsc_hz = rte_get_tsc_hz();
	/* an rtc worker, or a pipeline group of three (rx, tx, completion), per queue pair */
	ctx->nb_groups = attr->nb_workers != 0 ? attr->nb_workers : 1;
	ctx->nb_workers = attr->mode == DR_PROGRESS_PIPELINE ? 3 * ctx->nb_groups : ctx->nb_groups;
	ctx->attr.worker_lcores = NULL;     /* the caller's array is read once, at start */
	rte_spinlock_init(&ctx->async_lock);
	rc = ctx_tables_alloc(ctx, socket);
	if (rc == 0)
		rc = dr_engine_init(ctx);
	if (rc != 0) {
		ctx_free(ctx);
		return open_fail(-rc);
	}

	if (attr->pool != NULL) {
		ctx->pool = attr->pool;
	} else {
		char name[RTE_MEMPOOL_NAMESIZE];
		uint16_t room = DR_MBUF_DATA_ROOM;
		uint32_t n;

		/* some PMDs receive into smaller buffers only (af_xdp: one UMEM page) */
		if (info.max_data_room != 0 && info.max_data_room < room)
			room = info.max_data_room;
		n = attr->pool_mbufs != 0 ? attr->pool_mbufs : pool_default_mbufs(ctx);
		snprintf(name, sizeof(name), "dr_pool_%u", port);
		ctx->pool = rte_pktmbuf_pool_create(name, n, DR_POOL_CACHE, 0, room, socket);
		if (ctx->pool == NULL) {
			rc = rte_errno;
			DR_LOG(ctx, ERR, "port %u: mbuf pool %s of %u mbufs: %s", port, name, n,
			       rte_strerror(rc));
			ctx_free(ctx);
			return open_fail(rc == EEXIST ? EBUSY : ENOMEM);
		}
		ctx->own_pool = true;
	}

	/* the backend binds to the port (configures and starts it when asked, checks the
	 * queues of a port the application started) and reads its MAC and MTU */
	bp = &ctx->bport;
	bp->port_id = port;
	bp->attr = &ctx->attr;
	bp->nb_queues = queues_wanted(ctx, &info);
	bp->pool = ctx->pool;
	bp->tsc_hz = ctx->tsc_hz;
	bp->gid = ctx->gid;
	bp->gid_valid = ctx->gid_valid;
	rc = be->open(bp);
	if (rc != 0) {
		DR_LOG(ctx, ERR, "port %u: backend %s: %s", port, be->name, rte_strerror(-rc));
		ctx_free(ctx);
		return open_fail(rc < 0 ? -rc : EIO);
	}
	ctx->io_rx = be->rx_burst;
	ctx->io_tx = be->tx_burst;
	ctx->mac = bp->mac;
	ctx->link_mtu = attr->mtu != 0 ? attr->mtu : bp->mtu;
	/* zero-copy transmit where the PMD reads frames by virtual address (dr_pkt_attach()) */
	ctx->inflight_bytes = attr->inflight_bytes;     /* 0: DR_INFLIGHT_PKTS_DEFAULT packets (dr_req_start()) */
	ctx->keepalive_ticks = ctx->tsc_hz / 1000u * attr->keepalive_ms;
	ctx->express = !attr->disable_express;
	ctx->keepalive_probes = attr->keepalive_probes != 0 ? attr->keepalive_probes : DR_KEEPALIVE_PROBES_DEFAULT;
	ctx->tx_zcopy_min = !bp->tx_zcopy ? UINT32_MAX :
			    attr->tx_zcopy_min != 0 ? attr->tx_zcopy_min : DR_TX_ZCOPY_MIN_DEFAULT;
	/* congestion control at the link's speed (checked by attr_check(): cannot fail) */
	{
		struct dr_backend_link link = { 0 };

		if (be->link_get == NULL || be->link_get(bp, &link) != 0)
			link.speed_mbps = 0;
		dr_cc_ctx_init(&ctx->cc, &attr->cc, (uint64_t)link.speed_mbps * 1000000u, ctx->tsc_hz);
	}
	ctx->rx_queue = bp->rx_queue;
	ctx->tx_queue = bp->tx_queue;
	ctx->nb_rxq = RTE_MAX(RTE_MIN(bp->nb_rxq, bp->nb_queues), 1);
	ctx->nb_txq = RTE_MAX(RTE_MIN(bp->nb_txq, bp->nb_queues), 1);
	/* what the link carries (as rxe), what one mbuf of the pool holds, what the port's frames do */
	ctx->active_mtu = RTE_MIN(RTE_MIN(dr_active_mtu_from_link(ctx->link_mtu),
					  dr_active_mtu_from_room(rte_pktmbuf_data_room_size(ctx->pool))),
				  dr_active_mtu_from_frame(bp->max_frame));
	/* the application's receive mbufs (a port it runs): each frame must fit one */
	if (bp->rx_data_room != 0 && dr_active_mtu_from_room(bp->rx_data_room) < ctx->active_mtu) {
		ctx->active_mtu = dr_active_mtu_from_room(bp->rx_data_room);
		DR_LOG(ctx, NOTICE, "port %u: rx queue %u receives into mbufs of %u bytes: active MTU %u",
		       port, attr->rx_queue, bp->rx_data_room, dr_mtu_bytes(ctx->active_mtu));
	}
	if (ctx->active_mtu == 0) {
		DR_LOG(ctx, ERR, "port %u: mbufs of %u bytes or the port's frames (%u bytes, 0: any) cannot "
		       "hold a 256-byte MTU frame", port, rte_pktmbuf_data_room_size(ctx->pool),
		       bp->max_frame);
		rc = -EINVAL;
		goto fail_be;
	}
	rc = dr_engine_assign_queues(ctx, ctx->rx_queue, ctx->tx_queue);
	if (rc != 0)
		goto fail_be;
	rc = dr_async_init(ctx);
	if (rc != 0) {
		DR_LOG(ctx, ERR, "port %u: async event fd: %s", port, strerror(-rc));
		goto fail_be;
	}
	/* long payloads: PCLMULQDQ CRC where the CPU and the width allow (the library's, dr_icrc.h) */
	icrc_simd_from_env();
	dr_crc32_enable_folding();
	DR_LOG(ctx, DEBUG, "port %u: ICRC folds on %u-bit registers", port, dr_crc32_simd_bits());
	gid_table_init(ctx);
	if (attr->io == DR_IO_APP) {
		rc = dr_io_app_init(ctx);
		if (rc != 0) {
			dr_async_fini(ctx);
			goto fail_be;
		}
	}
	rc = dr_engine_start(ctx, attr->worker_lcores);
	if (rc == 0) {
		rc = dr_ctl_start(ctx);
		if (rc != 0)
			dr_engine_stop(ctx);
	}
	if (rc != 0) {
		dr_io_app_fini(ctx);
		dr_async_fini(ctx);
		goto fail_be;
	}
	pthread_mutex_init(&ctx->ctl_lock, NULL);
	dr_telemetry_init();
	dr_ctx_registry_lock();
	port_ctx[port] = ctx;
	dr_ctx_registry_unlock();

	DR_LOG(ctx, INFO, "%s: port %u, backend %s, MAC " RTE_ETHER_ADDR_PRT_FMT ", MTU %u, active MTU %u, "
	       "%u GIDs, %u rx / %u tx queues%s%s, %u QPs, pool of %u mbufs", ctx->device.name, port, be->name,
	       RTE_ETHER_ADDR_BYTES(&ctx->mac), ctx->link_mtu, dr_mtu_bytes(ctx->active_mtu), ctx->num_gids,
	       ctx->nb_rxq, ctx->nb_txq, bp->rss_udp ? ", RSS on UDP" : "",
	       bp->flow_isolated ? ", flow-isolated" : "", ctx->max_qp, ctx->pool->size);
	return ctx;

fail_be:
	be->close(bp);
	ctx_free(ctx);
	return open_fail(-rc);
}

int
dr_close_device(struct dr_context *ctx)
{
	if (ctx == NULL)
		return -EINVAL;
	/* the connection manager's QP1 and its objects first (lib/cm/dr_cm_svc.c) */
	if (ctx->cm_close != NULL)
		ctx->cm_close(ctx);
	if (ctx->num_qps != 0 || ctx->num_cqs != 0 || ctx->num_mrs != 0 || ctx->num_pds != 0) {
		DR_LOG(ctx, INFO, "%s: close with %u QPs, %u CQs, %u MRs, %u PDs left", ctx->device.name,
		       ctx->num_qps, ctx->num_cqs, ctx->num_mrs, ctx->num_pds);
		return -EBUSY;
	}
	/* out of the graph nodes (lib/graph): they no longer find it */
	if (ctx->graph_detach != NULL)
		(void)ctx->graph_detach(ctx);
	/* out of the registry first: telemetry no longer reaches it */
	dr_ctx_registry_lock();
	port_ctx[ctx->port_id] = NULL;
	dr_ctx_registry_unlock();
	/* the control thread and the workers stop next: nothing polls the port once it closes */
	dr_ctl_stop(ctx);
	dr_engine_stop(ctx);
	dr_engine_free(ctx);
	dr_io_app_fini(ctx);        /* frames still staged: freed to their pools */
	ctx->be->close(&ctx->bport);
	if (ctx->own_pool) {
		/* the application's port keeps running: take our frames back from its tx rings */
		if (!ctx->attr.configure_port && ctx->attr.io == DR_IO_PORT && ctx->be->tx_done_cleanup != NULL)
			for (uint16_t q = 0; q < ctx->nb_txq; q++)
				(void)ctx->be->tx_done_cleanup(&ctx->bport, (uint16_t)(ctx->tx_queue + q));
		rte_mempool_free(ctx->pool);
	}
	dr_async_fini(ctx);
	pthread_mutex_destroy(&ctx->ctl_lock);
	ctx_tables_free(ctx);
	rte_free(ctx);
	return 0;
}

struct rte_mempool *
dr_context_mempool(struct dr_context *ctx)
{
	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return ctx->pool;
}

int
dr_query_device(struct dr_context *ctx, struct dr_device_attr *attr)
{
	if (ctx == NULL || attr == NULL)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "dpdk-rdma %s", DR_VERSION_STR);
	memcpy(&attr->node_guid, &ctx->gid[0].raw[8], sizeof(attr->node_guid));
	attr->max_mr_size = UINT64_MAX;     /* as rxe (RXE_MAX_MR_SIZE): the address space */
	attr->max_qp = (int)ctx->max_qp;
	attr->max_qp_wr = DR_MAX_QP_WR;
	attr->max_sge = DR_MAX_SGE;
	attr->max_cq = DR_MAX_CQ;
	attr->max_cqe = DR_MAX_CQE;
	attr->max_mr = DR_MAX_MR;
	attr->max_pd = DR_MAX_PD;
	attr->max_qp_rd_atom = DR_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = DR_MAX_RD_ATOMIC;
	attr->max_srq = DR_MAX_SRQ;
	attr->max_srq_wr = DR_MAX_SRQ_WR;
	attr->max_srq_sge = DR_MAX_SGE;
	/* CmpSwap / FetchAdd are executed with CPU atomics on the host's memory: atomic
	 * among our QPs, not with respect to the CPU's plain accesses (as rxe: HCA) */
	attr->atomic_cap = DR_ATOMIC_HCA;
	attr->phys_port_cnt = 1;
	return 0;
}

/*
 * IB width and speed of an Ethernet link of @mbps, as the kernel reports a
 * RoCE port's (ib_get_eth_speed(): 1X SDR up to 1 Gb/s and when unknown).
 */
static void
port_speed(uint32_t mbps, uint8_t *width, uint8_t *speed)
{
	enum { W1X = 1, W4X = 2 };
	enum { SDR = 1, DDR = 2, FDR10 = 8, EDR = 32 };

	if (mbps <= 1000) {
		*width = W1X, *speed = SDR;
	} else if (mbps <= 10000) {
		*width = W1X, *speed = FDR10;
	} else if (mbps <= 20000) {
		*width = W4X, *speed = DDR;
	} else if (mbps <= 25000) {
		*width = W1X, *speed = EDR;
	} else if (mbps <= 40000) {
		*width = W4X, *speed = FDR10;
	} else {
		*width = W4X, *speed = EDR;
	}
}

int
dr_query_port(struct dr_context *ctx, uint8_t port_num, struct dr_port_attr *attr)
{
	struct dr_backend_link link;

	if (ctx == NULL || attr == NULL || port_num != 1)
		return -EINVAL;
	memset(&link, 0, sizeof(link));
	memset(attr, 0, sizeof(*attr));
	if (ctx->be->link_get(&ctx->bport, &link) == 0 && link.up)
		attr->state = DR_PORT_ACTIVE;
	else
		attr->state = DR_PORT_DOWN;
	port_speed(link.speed_mbps, &attr->active_width, &attr->active_speed);
	attr->max_mtu = DR_MTU_4096;
	attr->active_mtu = ctx->active_mtu;
	attr->gid_tbl_len = DR_MAX_GIDS;
	attr->max_msg_sz = DR_MAX_MSG_SIZE;
	attr->link_layer = DR_LINK_LAYER_ETHERNET;
	return 0;
}

int
dr_query_gid(struct dr_context *ctx, uint8_t port_num, int index, union dr_gid *gid)
{
	if (ctx == NULL || gid == NULL || port_num != 1 || index < 0 || index >= DR_MAX_GIDS)
		return -EINVAL;
	/* an empty entry reads as ::, as the kernel's GID table does */
	*gid = ctx->gid[index];
	return 0;
}

static int
add_neighbour_ctl(struct dr_context *ctx, const union dr_gid *gid, const struct rte_ether_addr *mac)
{
	if (ctx == NULL || gid == NULL || mac == NULL || !rte_is_valid_assigned_ether_addr(mac))
		return -EINVAL;
	if (ctx->be->add_neighbour == NULL)
		return -EOPNOTSUPP;
	return ctx->be->add_neighbour(&ctx->bport, gid, mac);
}

/* dr_add_neighbour() as a control command (dr_control.h) */
struct add_neighbour_args {
	struct dr_context *ctx;
	const union dr_gid *gid;
	const struct rte_ether_addr *mac;
};

static int
add_neighbour_call(void *arg)
{
	struct add_neighbour_args *a = arg;

	return add_neighbour_ctl(a->ctx, a->gid, a->mac);
}

int
dr_add_neighbour(struct dr_context *ctx, const union dr_gid *gid, const struct rte_ether_addr *mac)
{
	struct add_neighbour_args a = { .ctx = ctx, .gid = gid, .mac = mac };

	if (ctx == NULL)
		return add_neighbour_ctl(ctx, gid, mac);
	return dr_ctl_run(ctx, add_neighbour_call, &a);
}

