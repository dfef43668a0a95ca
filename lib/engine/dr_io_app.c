/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The application's I/O (dr_verbs_io.h, doc/guides/embedding.rst): the
 * frames of a DR_IO_APP context pass through two rings the application
 * feeds and empties, in the shape of DPDK's GRO and reassembly libraries;
 * the workers see them as the queue pair of a port (ctx->io_rx, io_tx).
 */

#include <errno.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dr_context.h"
#include "dr_engine.h"
#include "dr_io_app.h"
#include "dr_log.h"

/* Frames dr_rx_burst_input() classifies before it puts the taken ones in the ring. */
#define IO_CHUNK 64

/* The rings of a DR_IO_APP context (only those have them), else NULL. */
static inline struct dr_io_app *
io_of(struct dr_context *ctx)
{
	return ctx != NULL ? ctx->io_app : NULL;
}

/* The worker of rx queue 0: what the application handed over. */
static uint16_t
io_rx_burst(struct dr_backend_port *bp, uint16_t queue __rte_unused, struct rte_mbuf **pkts, uint16_t n)
{
	struct dr_context *ctx = container_of(bp, struct dr_context, bport);

	return (uint16_t)rte_ring_sc_dequeue_burst(ctx->io_app->rx, (void **)pkts, n, NULL);
}

/* The transmitting worker: into the ring dr_tx_drain() empties; what it cannot take stays the worker's. */
static uint16_t
io_tx_burst(struct dr_backend_port *bp, uint16_t queue __rte_unused, struct rte_mbuf **pkts, uint16_t n)
{
	struct dr_io_app *io = container_of(bp, struct dr_context, bport)->io_app;
	unsigned int k = rte_ring_mp_enqueue_burst(io->tx, (void **)pkts, n, NULL);

	__atomic_fetch_add(&io->tx_staged, k, __ATOMIC_RELAXED);
	if (unlikely(k < n))
		__atomic_fetch_add(&io->tx_ring_full, 1, __ATOMIC_RELAXED);
	return (uint16_t)k;
}

int
dr_io_app_init(struct dr_context *ctx)
{
	unsigned int size = ctx->attr.io_ring_size != 0 ? ctx->attr.io_ring_size : DR_IO_RING_DEFAULT;
	struct dr_io_app *io;

	io = rte_zmalloc_socket("dr_io_app", sizeof(*io), RTE_CACHE_LINE_SIZE, ctx->socket_id);
	if (io == NULL)
		return -ENOMEM;
	/* size slots: RING_F_EXACT_SZ holds exactly that many */
	io->rx = dr_engine_ring_make(ctx, "iorx", 0, 0, size, RING_F_SC_DEQ | RING_F_EXACT_SZ);
	io->tx = io->rx != NULL ? dr_engine_ring_make(ctx, "iotx", 0, 0, size, RING_F_SC_DEQ | RING_F_EXACT_SZ) :
				  NULL;
	if (io->tx == NULL) {
		rte_ring_free(io->rx);
		rte_free(io);
		return -ENOMEM;
	}
	dr_pkt_class_addrs_init(&io->addrs, (const uint8_t (*)[16])ctx->gid, ctx->gid_valid, DR_MAX_GIDS);
	ctx->io_app = io;
	ctx->io_rx = io_rx_burst;
	ctx->io_tx = io_tx_burst;
	return 0;
}

void
dr_io_app_fini(struct dr_context *ctx)
{
	struct dr_io_app *io = ctx->io_app;

	if (io == NULL)
		return;
	ctx->io_app = NULL;
	dr_engine_frame_ring_free(&io->rx);
	dr_engine_frame_ring_free(&io->tx);
	rte_free(io);
}

/* The frame's first bytes, up to what classification reads (a copy only when they span segments). */
static inline const uint8_t *
hdr_of(const struct rte_mbuf *m, uint8_t *buf, uint32_t *len)
{
	uint32_t want = RTE_MIN(m->pkt_len, (uint32_t)DR_PKT_CLASS_HDR_MAX);

	*len = want;
	if (likely(m->data_len >= want))
		return rte_pktmbuf_mtod(m, const uint8_t *);
	return rte_pktmbuf_read(m, 0, want, buf);
}

/* @n frames the transport took into its ring; those it cannot hold are dropped (a port's imissed). */
static void
io_take(struct dr_io_app *io, struct rte_mbuf **mine, unsigned int n)
{
	unsigned int k;

	if (n == 0)
		return;
	k = rte_ring_mp_enqueue_burst(io->rx, (void **)mine, n, NULL);
	if (unlikely(k < n)) {
		rte_pktmbuf_free_bulk(mine + k, n - k);
		__atomic_fetch_add(&io->rx_ring_full, n - k, __ATOMIC_RELAXED);
	}
}

uint16_t
dr_rx_burst_input(struct dr_context *ctx, struct rte_mbuf **pkts, uint16_t n, unsigned int flags)
{
	struct dr_io_app *io = io_of(ctx);
	uint8_t buf[DR_PKT_CLASS_HDR_MAX];
	struct rte_mbuf *mine[IO_CHUNK];
	unsigned int i, kept = 0, k = 0, roce = 0, neigh = 0;

	if (unlikely(io == NULL || (pkts == NULL && n != 0) || (flags & ~DR_RX_INPUT_STEERED) != 0)) {
		errno = EINVAL;
		return n;
	}
	if (n == 0)
		return 0;
	__atomic_fetch_add(&io->rx_input, n, __ATOMIC_RELAXED);
	if (flags & DR_RX_INPUT_STEERED) {
		for (i = 0; i < n; i += k) {
			k = RTE_MIN((unsigned int)n - i, (unsigned int)IO_CHUNK);
			io_take(io, pkts + i, k);
		}
		__atomic_fetch_add(&io->rx_steered, n, __ATOMIC_RELAXED);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t len;
		const uint8_t *h = hdr_of(m, buf, &len);
		enum dr_pkt_class c = h != NULL ? dr_pkt_classify(h, len, &io->addrs) : DR_PKT_CLASS_OTHER;

		if (c == DR_PKT_CLASS_OTHER) {
			pkts[kept++] = m;       /* kept <= i: the caller's, in order */
			continue;
		}
		roce += c == DR_PKT_CLASS_ROCE;
		neigh += c == DR_PKT_CLASS_NEIGH;
		mine[k++] = m;
		if (k == IO_CHUNK) {
			io_take(io, mine, k);
			k = 0;
		}
	}
	io_take(io, mine, k);
	if (roce != 0)
		__atomic_fetch_add(&io->rx_roce, roce, __ATOMIC_RELAXED);
	if (neigh != 0)
		__atomic_fetch_add(&io->rx_neigh, neigh, __ATOMIC_RELAXED);
	return (uint16_t)kept;
}

uint16_t
dr_tx_drain(struct dr_context *ctx, struct rte_mbuf **pkts, uint16_t max)
{
	struct dr_io_app *io = io_of(ctx);
	unsigned int n;

	if (unlikely(io == NULL || (pkts == NULL && max != 0))) {
		errno = EINVAL;
		return 0;
	}
	n = rte_ring_sc_dequeue_burst(io->tx, (void **)pkts, max, NULL);
	__atomic_store_n(&io->tx_drained, io->tx_drained + n, __ATOMIC_RELAXED);
	return (uint16_t)n;
}

int
dr_io_stats_get(struct dr_context *ctx, struct dr_io_stats *st)
{
	struct dr_io_app *io = io_of(ctx);

	if (io == NULL || st == NULL)
		return -EINVAL;
	st->rx_input = __atomic_load_n(&io->rx_input, __ATOMIC_RELAXED);
	st->rx_roce = __atomic_load_n(&io->rx_roce, __ATOMIC_RELAXED);
	st->rx_neigh = __atomic_load_n(&io->rx_neigh, __ATOMIC_RELAXED);
	st->rx_steered = __atomic_load_n(&io->rx_steered, __ATOMIC_RELAXED);
	st->rx_ring_full = __atomic_load_n(&io->rx_ring_full, __ATOMIC_RELAXED);
	st->tx_staged = __atomic_load_n(&io->tx_staged, __ATOMIC_RELAXED);
	st->tx_ring_full = __atomic_load_n(&io->tx_ring_full, __ATOMIC_RELAXED);
	st->tx_drained = __atomic_load_n(&io->tx_drained, __ATOMIC_RELAXED);
	st->rx_waiting = rte_ring_count(io->rx);
	st->tx_waiting = rte_ring_count(io->tx);
	return 0;
}
