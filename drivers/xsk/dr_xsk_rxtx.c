/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The xsk backend's bursts (dr_xsk_queue.h): AF_XDP rings to mbufs and back,
 * multi-buffer frames included.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "dr_xsk_queue.h"

int
dr_xsk_queue_init(struct dr_xsk_queue *q)
{
	uint32_t idx = 0;

	if (xsk_ring_prod__reserve(&q->fill, DR_XSK_FILL_FRAMES, &idx) != DR_XSK_FILL_FRAMES)
		return -ENOSPC;
	for (uint32_t i = 0; i < DR_XSK_FILL_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&q->fill, idx + i) = (uint64_t)i * DR_XSK_CHUNK;
	xsk_ring_prod__submit(&q->fill, DR_XSK_FILL_FRAMES);
	for (uint32_t i = 0; i < DR_XSK_TX_FRAMES; i++)
		q->free[i] = (uint64_t)(DR_XSK_FILL_FRAMES + i) * DR_XSK_CHUNK;
	q->nfree = DR_XSK_TX_FRAMES;
	return 0;
}

/* The chunk a descriptor's address lies in (aligned chunks: the address may carry an offset). */
static inline uint64_t
chunk_of(uint64_t addr)
{
	return addr & ~(uint64_t)(DR_XSK_CHUNK - 1);
}

/* Give @n received descriptors from rx index @idx back to the fill ring (it has room for all). */
static void
refill(struct dr_xsk_queue *q, uint32_t idx, uint32_t n)
{
	uint32_t f = 0;

	if (n == 0)
		return;
	/* the fill ring holds every receive chunk: the chunks just received have room in it */
	(void)xsk_ring_prod__reserve(&q->fill, n, &f);
	for (uint32_t i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&q->fill, f + i) = chunk_of(xsk_ring_cons__rx_desc(&q->rx, idx + i)->addr);
	xsk_ring_prod__submit(&q->fill, n);
}

/* Copy the frame of descriptors [idx, idx + nd) into @m; false when it does not fit. */
static bool
rx_copy(struct dr_xsk_queue *q, uint32_t idx, uint32_t nd, uint32_t len, struct rte_mbuf *m)
{
	uint8_t *p;

	if (len > rte_pktmbuf_tailroom(m))
		return false;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	for (uint32_t i = 0; i < nd; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx + i);

		memcpy(p, xsk_umem__get_data(q->umem, d->addr), d->len);
		p += d->len;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return true;
}

/* Descriptors submitted to the tx ring that the kernel has not taken yet. */
static inline uint32_t
tx_pending(const struct dr_xsk_queue *q)
{
	return q->tx.cached_prod - __atomic_load_n(q->tx.consumer, __ATOMIC_ACQUIRE);
}

/*
 * Copy mode transmits in sendto(), a bounded batch per call (Linux: 32
 * descriptors): call it until the ring is empty, or the kernel has no room
 * (EAGAIN: the completion ring or skbs; the next burst tries again).
 */
static void
tx_kick(struct dr_xsk_queue *q)
{
	for (unsigned int k = 0; k < DR_XSK_MAX_KICKS && tx_pending(q) != 0; k++) {
		if (!xsk_ring_prod__needs_wakeup(&q->tx))
			return;     /* zero-copy: the driver's NAPI sends it */
		q->wakeups++;
		if (sendto(q->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EBUSY)
			return;
	}
}

uint16_t
dr_xsk_rx_burst(struct dr_xsk_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *mb[RTE_MAX(DR_XSK_RING / DR_XSK_RX_PEEK_PER_PKT, 1u)];
	uint32_t idx = 0, peeked, used = 0;
	uint16_t got = 0, nm;

	if (q->fd >= 0) {
		if (xsk_ring_prod__needs_wakeup(&q->fill)) {
			q->wakeups++;
			(void)recvfrom(q->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		}
		/* what a kick left in the ring goes now, not with the next transmit */
		if (unlikely(tx_pending(q) != 0))
			tx_kick(q);
	}
	n = (uint16_t)RTE_MIN((uint32_t)n, RTE_DIM(mb));
	/*
	 * What the kernel has published, always: libxdp's peek looks again only
	 * when its cached entries run out, and a frame whose tail was not
	 * published at the last burst left one cached (cancelled) entry behind.
	 */
	q->rx.cached_prod = __atomic_load_n(q->rx.producer, __ATOMIC_ACQUIRE);
	peeked = xsk_ring_cons__peek(&q->rx, (uint32_t)n * DR_XSK_RX_PEEK_PER_PKT, &idx);
	if (peeked == 0)
		return 0;
	nm = (uint16_t)RTE_MIN((uint32_t)n, peeked);
	if (unlikely(rte_pktmbuf_alloc_bulk(q->pool, mb, nm) != 0)) {
		q->rx_nombuf++;
		xsk_ring_cons__cancel(&q->rx, peeked);
		return 0;
	}
	while (got < nm && used < peeked) {
		uint32_t nd = 0, len = 0;
		bool whole = false;

		/* one frame: its descriptors up to the first without XDP_PKT_CONTD */
		while (used + nd < peeked) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx + used + nd);

			len += d->len;
			nd++;
			if (!(d->options & XDP_PKT_CONTD)) {
				whole = true;
				break;
			}
		}
		if (!whole)
			break;          /* its tail is past what was peeked: the next burst takes it */
		if (likely(rx_copy(q, idx + used, nd, len, mb[got]))) {
			pkts[got] = mb[got];
			got++;
		} else {
			q->rx_too_long++;       /* its mbuf takes the next frame */
		}
		refill(q, idx + used, nd);
		used += nd;
	}
	xsk_ring_cons__cancel(&q->rx, peeked - used);
	xsk_ring_cons__release(&q->rx, used);
	if (got < nm)
		rte_pktmbuf_free_bulk(mb + got, nm - got);
	q->rx_pkts += got;
	return got;
}

/* Take back the chunks the kernel has sent. */
static void
tx_complete(struct dr_xsk_queue *q)
{
	uint32_t idx = 0, n = xsk_ring_cons__peek(&q->comp, DR_XSK_TX_FRAMES, &idx);

	for (uint32_t i = 0; i < n; i++)
		q->free[q->nfree++] = chunk_of(*xsk_ring_cons__comp_addr(&q->comp, idx + i));
	xsk_ring_cons__release(&q->comp, n);
}

/* Copy @m into @nd chunks at tx index @idx (reserved), all but the last flagged XDP_PKT_CONTD. */
static void
tx_copy(struct dr_xsk_queue *q, const struct rte_mbuf *m, uint32_t idx, uint32_t nd)
{
	const struct rte_mbuf *seg = m;
	uint32_t off = 0;            /* in seg */

	for (uint32_t i = 0; i < nd; i++) {
		struct xdp_desc *d = xsk_ring_prod__tx_desc(&q->tx, idx + i);
		uint64_t addr = q->free[--q->nfree];
		uint8_t *p = xsk_umem__get_data(q->umem, addr);
		uint32_t room = DR_XSK_CHUNK, len = 0;

		while (seg != NULL && room > 0) {
			uint32_t k = RTE_MIN(room, (uint32_t)seg->data_len - off);

			memcpy(p + len, rte_pktmbuf_mtod_offset(seg, const uint8_t *, off), k);
			len += k;
			room -= k;
			off += k;
			if (off == seg->data_len) {
				seg = seg->next;
				off = 0;
			}
		}
		d->addr = addr;
		d->len = len;
		d->options = i + 1 < nd ? XDP_PKT_CONTD : 0;
	}
}

uint16_t
dr_xsk_tx_burst(struct dr_xsk_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint32_t submitted = 0;
	uint16_t i;

	tx_complete(q);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t nd = (m->pkt_len + DR_XSK_CHUNK - 1) / DR_XSK_CHUNK, idx = 0;

		if (unlikely(nd == 0 || nd > DR_XSK_MAX_FRAGS)) {
			q->tx_too_long++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (q->nfree < nd || xsk_ring_prod__reserve(&q->tx, nd, &idx) != nd)
			break;
		tx_copy(q, m, idx, nd);
		submitted += nd;
		rte_pktmbuf_free(m);
		q->tx_pkts++;
	}
	if (submitted != 0)
		xsk_ring_prod__submit(&q->tx, submitted);
	if (q->fd >= 0)
		tx_kick(q);
	return i;
}
