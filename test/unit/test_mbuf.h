/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_TEST_MBUF_H
#define DR_TEST_MBUF_H

/*
 * Heap-backed rte_mbufs for unit tests that need no EAL: each is a struct
 * rte_mbuf followed by its data room. Only the fields the mbuf helpers read
 * (buf_addr, buf_len, data_off, data_len, pkt_len, nb_segs, next) are set.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

/* struct rte_mbuf is cache-line aligned: so must its memory be (calloc gives 16 bytes) */
static inline struct rte_mbuf *
tmbuf_new(uint16_t room)
{
	size_t len = RTE_ALIGN_CEIL(sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM + room,
				    RTE_CACHE_LINE_SIZE);
	struct rte_mbuf *m = aligned_alloc(RTE_CACHE_LINE_SIZE, len);

	if (m == NULL)
		abort();
	memset(m, 0, len);
	m->buf_addr = (char *)(m + 1);
	m->buf_len = (uint16_t)(RTE_PKTMBUF_HEADROOM + room);
	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->nb_segs = 1;
	rte_mbuf_refcnt_set(m, 1);
	return m;
}

/* Append @seg (one segment) to the chain @head. */
static inline void
tmbuf_chain(struct rte_mbuf *head, struct rte_mbuf *seg)
{
	rte_pktmbuf_lastseg(head)->next = seg;
	head->nb_segs++;
	head->pkt_len += seg->data_len;
}

static inline void
tmbuf_free(struct rte_mbuf *m)
{
	while (m != NULL) {
		struct rte_mbuf *n = m->next;

		free(m);
		m = n;
	}
}

/* Copy the whole chain into @out (at least pkt_len bytes). */
static inline void
tmbuf_linearize(const struct rte_mbuf *m, uint8_t *out)
{
	for (; m != NULL; m = m->next) {
		memcpy(out, rte_pktmbuf_mtod(m, const void *), m->data_len);
		out += m->data_len;
	}
}

#endif /* DR_TEST_MBUF_H */
