/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_XSK_QUEUE_H
#define DR_XSK_QUEUE_H

/*
 * One queue pair of the xsk backend (dr_xsk_rxtx.c): an AF_XDP socket bound
 * to one queue of a kernel interface, with a UMEM of its own, multi-buffer
 * (XDP_USE_SG, Linux 6.6: a frame larger than a UMEM chunk comes as, and
 * goes out as, several descriptors, all but the last flagged XDP_PKT_CONTD;
 * Documentation/networking/af_xdp.rst, "Multi-Buffer Support").
 *
 * The UMEM's chunks are split once: DR_XSK_FILL_FRAMES of them circulate
 * between the fill ring, the kernel and the rx ring (each received chunk
 * goes back to the fill ring as soon as it is copied into an mbuf), the
 * other DR_XSK_TX_FRAMES are a stack that transmit takes from and the
 * completion ring gives back to. The fill and completion rings are as large
 * as the chunks they carry, so giving back never fails.
 *
 * One worker owns a queue: no lock. Receive copies into mbufs of the
 * context's pool, transmit copies mbuf chains (attached payloads included)
 * into chunks; the rings are the kernel's shared memory (<linux/if_xdp.h>).
 * The bursts make system calls when the kernel asks for a wake-up
 * (XDP_USE_NEED_WAKEUP), as DPDK's net_af_xdp does: recvfrom() when the
 * fill ring needs one, sendto() until the tx ring is empty (in copy mode
 * the kernel transmits in sendto(), 32 descriptors a call; what is left,
 * the next rx burst sends). With fd < 0 (the unit tests' rings) none.
 */

#include <stdint.h>

#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/* Linux 6.6's multi-buffer flags: <linux/if_xdp.h> of older UAPI headers lacks them */
#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4)
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)
#endif

#define DR_XSK_CHUNK 4096u               /* UMEM chunk: one page */
#define DR_XSK_FILL_FRAMES 2048u         /* chunks for receive (the fill ring's size) */
#define DR_XSK_TX_FRAMES 2048u           /* chunks for transmit (the completion ring's size) */
#define DR_XSK_FRAMES (DR_XSK_FILL_FRAMES + DR_XSK_TX_FRAMES)
#define DR_XSK_RING 2048u                /* rx and tx descriptors */
/* descriptors of one frame at most: a 9000-byte jumbo frame takes 3 (the kernel's limit is 18) */
#define DR_XSK_MAX_FRAGS 8u
/* sendto() calls one burst makes at most to empty the tx ring (the kernel takes 32 descriptors a call) */
#define DR_XSK_MAX_KICKS (DR_XSK_RING / 32u)
/* rx descriptors one burst looks at, per frame it may return */
#define DR_XSK_RX_PEEK_PER_PKT 3u

struct dr_xsk_queue {
	struct xsk_ring_cons rx;
	struct xsk_ring_prod fill;
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	uint8_t *umem;                   /* DR_XSK_FRAMES chunks */
	struct rte_mempool *pool;        /* receive copies into its mbufs */
	int fd;                          /* the socket; < 0: no wake-up calls */
	uint32_t nfree;                  /* transmit chunks on the stack */
	uint64_t free[DR_XSK_TX_FRAMES]; /* their UMEM addresses */
	/* counters (the owner writes them; port_stats reads them relaxed) */
	uint64_t rx_pkts, tx_pkts;
	uint64_t rx_nombuf;              /* a burst found no mbufs: the frames wait in the ring */
	uint64_t rx_too_long;            /* frames longer than an mbuf: dropped */
	uint64_t tx_too_long;            /* frames of more than DR_XSK_MAX_FRAGS chunks: dropped */
	uint64_t wakeups;                /* recvfrom / sendto calls */
};

/*
 * Fill the fill ring with the receive chunks and the stack with the transmit
 * ones (the rings set up, empty). 0, or -ENOSPC when the fill ring is smaller.
 */
int dr_xsk_queue_init(struct dr_xsk_queue *q);

/* Up to @n received frames, each copied into one mbuf of q->pool. */
uint16_t dr_xsk_rx_burst(struct dr_xsk_queue *q, struct rte_mbuf **pkts, uint16_t n);

/*
 * Transmit up to @n frames (chains, attached payloads allowed): each is copied
 * into chunks and freed. Returns how many were taken: the rest (no chunk or
 * descriptor free) stay the caller's. A frame of more than DR_XSK_MAX_FRAGS
 * chunks is taken and dropped (tx_too_long), as a PMD drops what it cannot
 * carry.
 */
uint16_t dr_xsk_tx_burst(struct dr_xsk_queue *q, struct rte_mbuf **pkts, uint16_t n);

#endif /* DR_XSK_QUEUE_H */
