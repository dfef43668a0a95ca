/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The xsk backend's bursts (drivers/xsk/dr_xsk_rxtx.c) against AF_XDP rings
 * in ordinary memory, with this test in the kernel's place: it takes chunks
 * from the fill ring and publishes rx descriptors as the kernel's
 * multi-buffer copy mode does (a frame in 4 KiB chunks, all but the last
 * flagged XDP_PKT_CONTD: Documentation/networking/af_xdp.rst), and it
 * reads the tx ring, puts frames back together and completes their chunks.
 * Checks: frames of one, two and three chunks in both directions, byte for
 * byte; a frame whose last descriptor is not published yet waits; a frame
 * longer than an mbuf is dropped and its chunks refilled; no mbuf leaves the
 * descriptors in the ring; a burst returns at most n; transmit of chains,
 * of a frame of too many chunks (dropped, counted), and when chunks run out
 * (the rest stay the caller's); every chunk comes back.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dr_test.h"
#include "dr_xsk_queue.h"
#include "test_eal.h"

/* a ring in plain memory, as xsk_umem__create() / xsk_socket__create() map it */
struct fake_ring {
	uint32_t producer, consumer, flags;
	void *desc;
};

static struct fake_ring f_rx, f_fill, f_tx, f_comp;
static struct rte_mempool *pool, *small_pool;

/*
 * Point ring @r (an xsk_ring_prod or xsk_ring_cons: the same fields) at @f's
 * memory of @n entries of @esz bytes; its cached consumer @cons as libxdp
 * sets it: a producer's is the consumer plus the size, a consumer's 0.
 */
#define RING_INIT(r, f, n, esz, cons) do { \
	memset((f), 0, sizeof(*(f))); \
	(f)->desc = calloc((n), (esz)); \
	(r)->producer = &(f)->producer; \
	(r)->consumer = &(f)->consumer; \
	(r)->flags = &(f)->flags; \
	(r)->ring = (f)->desc; \
	(r)->mask = (n) - 1; \
	(r)->size = (n); \
	(r)->cached_prod = 0; \
	(r)->cached_cons = (cons); \
} while (0)

static struct dr_xsk_queue *
queue_new(struct rte_mempool *mp)
{
	struct dr_xsk_queue *q = calloc(1, sizeof(*q));

	q->umem = aligned_alloc(DR_XSK_CHUNK, (size_t)DR_XSK_FRAMES * DR_XSK_CHUNK);
	q->pool = mp;
	q->fd = -1;
	RING_INIT(&q->rx, &f_rx, DR_XSK_RING, sizeof(struct xdp_desc), 0);
	RING_INIT(&q->fill, &f_fill, DR_XSK_FILL_FRAMES, sizeof(uint64_t), DR_XSK_FILL_FRAMES);
	RING_INIT(&q->tx, &f_tx, DR_XSK_RING, sizeof(struct xdp_desc), DR_XSK_RING);
	RING_INIT(&q->comp, &f_comp, DR_XSK_TX_FRAMES, sizeof(uint64_t), 0);
	CHECK_EQ(dr_xsk_queue_init(q), 0);
	return q;
}

static void
queue_free(struct dr_xsk_queue *q)
{
	free(f_rx.desc);
	free(f_fill.desc);
	free(f_tx.desc);
	free(f_comp.desc);
	free(q->umem);
	free(q);
}

static void
pattern(uint8_t *p, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/*
 * The kernel receives a frame: chunks from the fill ring, rx descriptors;
 * with @publish_all false the last descriptor is written but not published.
 * Returns the descriptors used.
 */
static uint32_t
kernel_rx(struct dr_xsk_queue *q, const uint8_t *frame, uint32_t len, bool publish_all)
{
	uint32_t nd = 0, off = 0;

	while (off < len || nd == 0) {
		uint64_t addr = ((uint64_t *)f_fill.desc)[f_fill.consumer++ & (DR_XSK_FILL_FRAMES - 1)];
		struct xdp_desc *d = &((struct xdp_desc *)f_rx.desc)[(f_rx.producer + nd) & (DR_XSK_RING - 1)];
		uint32_t k = len - off < DR_XSK_CHUNK ? len - off : DR_XSK_CHUNK;

		CHECK(f_fill.consumer <= f_fill.producer);
		memcpy(q->umem + addr, frame + off, k);
		d->addr = addr;
		d->len = k;
		off += k;
		d->options = off < len ? XDP_PKT_CONTD : 0;
		nd++;
	}
	f_rx.producer += publish_all ? nd : nd - 1;
	return nd;
}

/* The kernel sends what the tx ring holds: frames back together in @out (lengths in @lens). */
static unsigned int
kernel_tx(struct dr_xsk_queue *q, uint8_t out[][3 * DR_XSK_CHUNK], uint32_t *lens, unsigned int max)
{
	unsigned int n = 0;
	uint32_t len = 0;

	while (f_tx.consumer != f_tx.producer) {
		struct xdp_desc *d = &((struct xdp_desc *)f_tx.desc)[f_tx.consumer++ & (DR_XSK_RING - 1)];

		CHECK(d->len <= DR_XSK_CHUNK && d->len > 0);
		if (n < max && len + d->len <= 3 * DR_XSK_CHUNK)
			memcpy(out[n] + len, q->umem + d->addr, d->len);
		len += d->len;
		((uint64_t *)f_comp.desc)[f_comp.producer++ & (DR_XSK_TX_FRAMES - 1)] = d->addr;
		if (!(d->options & XDP_PKT_CONTD)) {
			if (n < max)
				lens[n] = len;
			n++;
			len = 0;
		}
	}
	CHECK_EQ(len, 0u);              /* no frame left half sent */
	return n;
}

static uint8_t frame[3][3 * DR_XSK_CHUNK];

static void
test_rx_one_two_three_chunks(void)
{
	static const uint32_t lens[3] = { 60, 4096 + 58, 9000 };
	struct dr_xsk_queue *q = queue_new(pool);
	struct rte_mbuf *m[4];
	uint32_t nd = 0;

	for (int i = 0; i < 3; i++) {
		pattern(frame[i], lens[i], (uint8_t)(i + 1));
		nd += kernel_rx(q, frame[i], lens[i], true);
	}
	CHECK_EQ(nd, 1u + 2u + 3u);
	CHECK_EQ(dr_xsk_rx_burst(q, m, 4), 3);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(m[i]->pkt_len, lens[i]);
		CHECK_EQ(m[i]->nb_segs, 1);
		CHECK(memcmp(rte_pktmbuf_mtod(m[i], uint8_t *), frame[i], lens[i]) == 0);
		rte_pktmbuf_free(m[i]);
	}
	/* every chunk went back to the fill ring, the rx ring is consumed */
	CHECK_EQ(f_fill.producer - f_fill.consumer, DR_XSK_FILL_FRAMES);
	CHECK_EQ(f_rx.consumer, f_rx.producer);
	CHECK_EQ(q->rx_pkts, 3u);
	CHECK_EQ(dr_xsk_rx_burst(q, m, 4), 0);
	queue_free(q);
}

static void
test_rx_frame_waits_for_its_last_descriptor(void)
{
	struct dr_xsk_queue *q = queue_new(pool);
	struct rte_mbuf *m[2];

	pattern(frame[0], 60, 9);
	pattern(frame[1], 5000, 10);
	kernel_rx(q, frame[0], 60, true);
	kernel_rx(q, frame[1], 5000, false);   /* its second descriptor not yet published */
	CHECK_EQ(dr_xsk_rx_burst(q, m, 2), 1);
	CHECK_EQ(m[0]->pkt_len, 60u);
	rte_pktmbuf_free(m[0]);
	CHECK_EQ(f_rx.consumer, 1u);           /* the first half of the next stays */
	CHECK_EQ(dr_xsk_rx_burst(q, m, 2), 0);
	f_rx.producer++;                       /* the kernel publishes the rest */
	CHECK_EQ(dr_xsk_rx_burst(q, m, 2), 1);
	CHECK_EQ(m[0]->pkt_len, 5000u);
	CHECK(memcmp(rte_pktmbuf_mtod(m[0], uint8_t *), frame[1], 5000) == 0);
	rte_pktmbuf_free(m[0]);
	CHECK_EQ(f_fill.producer - f_fill.consumer, DR_XSK_FILL_FRAMES);
	queue_free(q);
}

static void
test_rx_too_long_dropped_and_refilled(void)
{
	struct dr_xsk_queue *q = queue_new(small_pool);   /* 2048-byte mbufs */
	struct rte_mbuf *m[4];

	pattern(frame[0], 4154, 1);
	pattern(frame[1], 1000, 2);
	kernel_rx(q, frame[0], 4154, true);
	kernel_rx(q, frame[1], 1000, true);
	CHECK_EQ(dr_xsk_rx_burst(q, m, 4), 1);  /* the long one dropped, the next delivered */
	CHECK_EQ(m[0]->pkt_len, 1000u);
	CHECK(memcmp(rte_pktmbuf_mtod(m[0], uint8_t *), frame[1], 1000) == 0);
	rte_pktmbuf_free(m[0]);
	CHECK_EQ(q->rx_too_long, 1u);
	CHECK_EQ(f_fill.producer - f_fill.consumer, DR_XSK_FILL_FRAMES);
	CHECK_EQ(rte_mempool_in_use_count(small_pool), 0u);
	queue_free(q);
}

static void
test_rx_at_most_n_and_no_mbufs(void)
{
	struct dr_xsk_queue *q = queue_new(pool);
	struct rte_mbuf *m[8], *all[2048];
	unsigned int held = 0;

	for (int i = 0; i < 5; i++) {
		pattern(frame[0], 100 + (uint32_t)i, (uint8_t)i);
		kernel_rx(q, frame[0], 100 + (uint32_t)i, true);
	}
	CHECK_EQ(dr_xsk_rx_burst(q, m, 2), 2);
	CHECK_EQ(m[0]->pkt_len, 100u);
	CHECK_EQ(m[1]->pkt_len, 101u);
	rte_pktmbuf_free_bulk(m, 2);
	/* the pool is empty: the frames wait in the ring */
	while (held < RTE_DIM(all) && (all[held] = rte_pktmbuf_alloc(pool)) != NULL)
		held++;
	CHECK_EQ(dr_xsk_rx_burst(q, m, 8), 0);
	CHECK_EQ(q->rx_nombuf, 1u);
	CHECK_EQ(f_rx.consumer, 2u);
	rte_pktmbuf_free_bulk(all, held);
	CHECK_EQ(dr_xsk_rx_burst(q, m, 8), 3);
	CHECK_EQ(m[0]->pkt_len, 102u);
	CHECK_EQ(m[2]->pkt_len, 104u);
	rte_pktmbuf_free_bulk(m, 3);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0u);
	queue_free(q);
}

/* what chain() put in its last chain */
static uint8_t chained[(DR_XSK_MAX_FRAGS + 1) * DR_XSK_CHUNK];

/* A chain of @nseg segments holding @len bytes of pattern @seed (also in chained[]). */
static struct rte_mbuf *
chain(uint32_t len, unsigned int nseg, uint8_t seed)
{
	struct rte_mbuf *head = NULL;
	uint32_t per = (len + nseg - 1) / nseg, off = 0;

	pattern(chained, len, seed);
	for (unsigned int i = 0; i < nseg && off < len; i++) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
		uint32_t k = len - off < per ? len - off : per;

		memcpy(rte_pktmbuf_append(s, (uint16_t)k), chained + off, k);
		off += k;
		if (head == NULL)
			head = s;
		else
			CHECK_EQ(rte_pktmbuf_chain(head, s), 0);
	}
	return head;
}

static void
test_tx_chains_of_one_two_three_chunks(void)
{
	static const uint32_t lens[3] = { 60, 4154, 9000 };
	static uint8_t want[3][3 * DR_XSK_CHUNK], got[4][3 * DR_XSK_CHUNK];
	struct dr_xsk_queue *q = queue_new(pool);
	struct rte_mbuf *m[3];
	uint32_t glen[4];

	for (int i = 0; i < 3; i++) {
		m[i] = chain(lens[i], (unsigned int)i + 2, (uint8_t)(40 + i));
		memcpy(want[i], chained, lens[i]);
	}
	CHECK_EQ(dr_xsk_tx_burst(q, m, 3), 3);
	CHECK_EQ(f_tx.producer, 1u + 2u + 3u);
	CHECK_EQ(kernel_tx(q, got, glen, 4), 3u);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(glen[i], lens[i]);
		CHECK(memcmp(got[i], want[i], lens[i]) == 0);
	}
	CHECK_EQ(rte_mempool_in_use_count(pool), 0u);   /* sent mbufs are freed */
	CHECK_EQ(q->tx_pkts, 3u);
	/* the next burst takes the completed chunks back */
	CHECK_EQ(q->nfree, DR_XSK_TX_FRAMES - 6);
	CHECK_EQ(dr_xsk_tx_burst(q, m, 0), 0);
	CHECK_EQ(q->nfree, DR_XSK_TX_FRAMES);
	queue_free(q);
}

static void
test_tx_too_long_and_out_of_chunks(void)
{
	struct dr_xsk_queue *q = queue_new(pool);
	struct rte_mbuf *m[3];
	uint8_t (*got)[3 * DR_XSK_CHUNK] = malloc(4 * sizeof(*got));
	uint32_t glen[4];

	/* more than DR_XSK_MAX_FRAGS chunks: taken, dropped, counted */
	m[0] = chain(DR_XSK_MAX_FRAGS * DR_XSK_CHUNK + 1, 16, 1);
	m[1] = chain(100, 1, 2);
	CHECK_EQ(dr_xsk_tx_burst(q, m, 2), 2);
	CHECK_EQ(q->tx_too_long, 1u);
	CHECK_EQ(kernel_tx(q, got, glen, 4), 1u);
	CHECK_EQ(glen[0], 100u);
	/* three chunks left (the rest in flight): a two-chunk frame goes, the next stays the caller's */
	CHECK_EQ(dr_xsk_tx_burst(q, m, 0), 0);  /* takes the completions back */
	q->nfree = 3;
	m[0] = chain(5000, 2, 3);
	m[1] = chain(5000, 2, 4);
	m[2] = chain(60, 1, 5);
	CHECK_EQ(dr_xsk_tx_burst(q, m, 3), 1);
	CHECK_EQ(rte_mempool_in_use_count(pool), 3u);  /* m[1] (two segments) and m[2] */
	CHECK_EQ(kernel_tx(q, got, glen, 4), 1u);
	CHECK_EQ(glen[0], 5000u);
	rte_pktmbuf_free(m[1]);
	rte_pktmbuf_free(m[2]);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0u);
	free(got);
	queue_free(q);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_start(argv[0], "xsk", 256) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("xsk_pool", 2047, 0, 0, RTE_PKTMBUF_HEADROOM + 9216, SOCKET_ID_ANY);
	small_pool = rte_pktmbuf_pool_create("xsk_small", 255, 0, 0, RTE_PKTMBUF_HEADROOM + 2048, SOCKET_ID_ANY);
	if (pool == NULL || small_pool == NULL) {
		fprintf(stderr, "mbuf pools failed\n");
		return 1;
	}
	test_rx_one_two_three_chunks();
	test_rx_frame_waits_for_its_last_descriptor();
	test_rx_too_long_dropped_and_refilled();
	test_rx_at_most_n_and_no_mbufs();
	test_tx_chains_of_one_two_three_chunks();
	test_tx_too_long_and_out_of_chunks();
	rte_mempool_free(pool);
	rte_mempool_free(small_pool);
	test_eal_cleanup();
	return dr_test_report("xsk_rings");
}
