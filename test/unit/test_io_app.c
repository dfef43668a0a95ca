/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * DR_IO_APP (dr_verbs_io.h): the application owns the port and its frames.
 * Two contexts on ring ports the test configured, the test their network
 * function (test_rc_nf.c), inline mode (the test decides when each side
 * runs):
 *
 * - the frames that are not the transport's come back untouched, the same
 *   mbufs in the same order, compacted at the front, among RoCE frames and
 *   ARP that are: IPv4 and IPv6 to other addresses, ICMP to ours, a
 *   fragment of UDP 4791 to ours, ARP for another address, garbage, a
 *   frame shorter than an Ethernet header;
 * - an ARP request for the context's address handed in is answered through
 *   dr_tx_drain() (RFC 826: op 2, sender = the context, target = the asker);
 * - frames the application drops after dr_tx_drain() are a loss: the
 *   WRITEs complete, every byte checked, after retransmissions;
 * - a receive ring that is full drops what it cannot take and counts it,
 *   every mbuf back in its pool; a transmit ring that is full keeps the
 *   frames with the transport (back-pressure, counted), none lost;
 * - requests kept behind a READ beyond dr_context_attr.app_pool_hold are
 *   copies in the context's pool, the application's frames freed at once;
 * - dr_progress_budget() takes no more than it is allowed from the ring;
 * - the calls refuse what is not theirs with EINVAL and take nothing;
 *   dr_flow_steer() says ENOTSUP on a port without rte_flow.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "test_rc.h"

#define MSG 1024
#define WRS 32

static struct rte_mempool *frame_pool;

/* A frame of @len bytes of @bytes, in an mbuf of the test's pool. */
static struct rte_mbuf *
frame_of(const uint8_t *bytes, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(frame_pool);

	if (m == NULL)
		return NULL;
	memcpy(rte_pktmbuf_append(m, len), bytes, len);
	return m;
}

static void
eth_hdr(uint8_t *f, uint16_t etype)
{
	memset(f, 0xFF, 6);                                     /* broadcast */
	memcpy(f + 6, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x77 }, 6);
	f[12] = (uint8_t)(etype >> 8);
	f[13] = (uint8_t)etype;
}

/* IPv4 header (no options) to @dst, protocol @proto, flags/offset word @frag, then 8 bytes of L4. */
static uint16_t
ipv4_frame(uint8_t *f, uint32_t dst, uint8_t proto, uint16_t frag, uint16_t dport)
{
	uint8_t *ip = f + 14;

	memset(f, 0, 14 + 20 + 8 + 16);
	eth_hdr(f, RTE_ETHER_TYPE_IPV4);
	ip[0] = 0x45;
	ip[3] = 20 + 8 + 16;
	ip[6] = (uint8_t)(frag >> 8);
	ip[7] = (uint8_t)frag;
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, (const uint8_t[]){ 10, 0, 0, 9 }, 4);
	ip[16] = (uint8_t)(dst >> 24);
	ip[17] = (uint8_t)(dst >> 16);
	ip[18] = (uint8_t)(dst >> 8);
	ip[19] = (uint8_t)dst;
	ip[22] = (uint8_t)(dport >> 8);
	ip[23] = (uint8_t)dport;
	return 14 + 20 + 8 + 16;
}

/* ARP request (RFC 826) from 10.0.0.9 for @tpa. */
static uint16_t
arp_request(uint8_t *f, uint32_t tpa)
{
	uint8_t *a = f + 14;

	memset(f, 0, 60);
	eth_hdr(f, RTE_ETHER_TYPE_ARP);
	a[1] = 1;                                               /* Ethernet */
	a[2] = 0x08;                                            /* IPv4 */
	a[4] = 6;
	a[5] = 4;
	a[7] = 1;                                               /* request */
	memcpy(a + 8, f + 6, 6);
	memcpy(a + 14, (const uint8_t[]){ 10, 0, 0, 9 }, 4);
	a[24] = (uint8_t)(tpa >> 24);
	a[25] = (uint8_t)(tpa >> 16);
	a[26] = (uint8_t)(tpa >> 8);
	a[27] = (uint8_t)tpa;
	return 60;
}

static uint64_t
pool_in_use(struct rte_mempool *mp)
{
	return rte_mempool_in_use_count(mp);
}

/* The application's frames come back, the same mbufs, in order; the transport's are taken. */
static void
test_returned_in_order(struct rc_env *e)
{
	struct rc_side *b = &e->s[1];
	struct rte_mbuf *pkts[32], *want[32], *roce[8];
	uint8_t f[128], ipv6[14 + 40 + 8];
	uint8_t copies[32][128];
	uint16_t lens[32];
	unsigned int n = 0, nw = 0, nroce = 0, i;
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct rc_wcs w = { .n = 0 };
	struct dr_io_stats st0, st1;
	struct dr_sge sge;
	uint16_t kept, len;

	rc_params_default(&p);
	RC_CHECK_EQ(rc_connect(e, &p), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &src, 4 * MSG, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(b, &dst, 4 * MSG, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE), 0);
	rc_fill(src.p, 4 * MSG, 7);
	/* A's WRITE frames, taken from its NF before they reach the wire */
	rc_sges(&src, 0, 4 * MSG, 1, &sge);
	RC_CHECK_EQ(rc_post_send(&e->s[0], 1, DR_WR_RDMA_WRITE, &sge, 1, 0, (uint64_t)(uintptr_t)dst.p,
				 dst.mr->rkey, 0), 0);
	dr_progress(e->s[0].ctx);
	while (nroce < RTE_DIM(roce) && dr_tx_drain(e->s[0].ctx, &roce[nroce], 1) == 1)
		nroce++;
	RC_CHECK_MSG(nroce == 4, "%u frames for a 4 KiB WRITE at MTU 1024", nroce);
	RC_CHECK_EQ(dr_io_stats_get(b->ctx, &st0), 0);

#define MINE(m) do { pkts[n++] = (m); } while (0)
#define THEIRS(bytes, l) do { \
		lens[nw] = (l); memcpy(copies[nw], (bytes), (l)); \
		want[nw] = frame_of((bytes), (l)); pkts[n++] = want[nw]; nw++; } while (0)
	len = ipv4_frame(f, 0x0A000003, 17, 0, 4791);           /* RoCE port, another address */
	THEIRS(f, len);
	if (nroce > 0)
		MINE(roce[0]);
	len = ipv4_frame(f, 0x0A000002, 1, 0, 0);               /* ICMP to B's address */
	THEIRS(f, len);
	len = ipv4_frame(f, 0x0A000002, 17, 0x2000, 4791);      /* a first fragment (MF) to B, port 4791 */
	THEIRS(f, len);
	len = ipv4_frame(f, 0x0A000002, 17, 0x0010, 4791);      /* a later fragment */
	THEIRS(f, len);
	if (nroce > 1)
		MINE(roce[1]);
	len = arp_request(f, 0x0A000003);                       /* ARP for another address */
	THEIRS(f, len);
	memset(ipv6, 0, sizeof(ipv6));                          /* IPv6 UDP 4791 to fd00::3 */
	eth_hdr(ipv6, RTE_ETHER_TYPE_IPV6);
	ipv6[14] = 0x60;
	ipv6[14 + 6] = 17;
	ipv6[14 + 24] = 0xFD;
	ipv6[14 + 39] = 3;
	ipv6[14 + 42] = 4791 >> 8;
	ipv6[14 + 43] = 4791 & 0xFF;
	THEIRS(ipv6, sizeof(ipv6));
	for (i = 0; i < 64; i++)                                /* garbage */
		f[i] = (uint8_t)(i * 37 + 11);
	THEIRS(f, 64);
	THEIRS(f, 10);                                          /* shorter than an Ethernet header */
	for (i = 2; i < nroce; i++)
		MINE(roce[i]);
	len = arp_request(f, 0x0A000002);                       /* ARP for B: answered */
	MINE(frame_of(f, len));
	len = ipv4_frame(f, 0x0A000002, 6, 0, 4791);            /* TCP to B's address, port 4791 */
	THEIRS(f, len);
#undef MINE
#undef THEIRS

	kept = dr_rx_burst_input(b->ctx, pkts, (uint16_t)n, 0);
	RC_CHECK_EQ(kept, nw);
	for (i = 0; i < nw && i < kept; i++) {
		RC_CHECK_MSG(pkts[i] == want[i], "frame %u: another mbuf came back", i);
		RC_CHECK_MSG(pkts[i]->pkt_len == lens[i] &&
			     memcmp(rte_pktmbuf_mtod(pkts[i], uint8_t *), copies[i], lens[i]) == 0,
			     "frame %u: changed", i);
	}
	rte_pktmbuf_free_bulk(pkts, kept);
	RC_CHECK_EQ(dr_io_stats_get(b->ctx, &st1), 0);
	RC_CHECK_EQ(st1.rx_input - st0.rx_input, n);
	RC_CHECK_EQ(st1.rx_roce - st0.rx_roce, nroce);
	RC_CHECK_EQ(st1.rx_neigh - st0.rx_neigh, 1);
	RC_CHECK_EQ(st1.rx_waiting, nroce + 1);

	/* B runs: it answers the ARP and acknowledges the WRITE */
	dr_progress(b->ctx);
	{
		struct rte_mbuf *out[16];
		uint16_t k = dr_tx_drain(b->ctx, out, RTE_DIM(out));
		bool replied = false;

		for (i = 0; i < k; i++) {
			const uint8_t *r = rte_pktmbuf_mtod(out[i], const uint8_t *);

			if (out[i]->data_len >= 42 && r[12] == 0x08 && r[13] == 0x06) {
				/* RFC 826: op reply, sender B's address, target the asker and its MAC */
				RC_CHECK(r[14 + 7] == 2);
				RC_CHECK(memcmp(r + 14 + 14, (const uint8_t[]){ 10, 0, 0, 2 }, 4) == 0);
				RC_CHECK(memcmp(r + 14 + 18, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x77 }, 6) == 0);
				RC_CHECK(memcmp(r + 14 + 24, (const uint8_t[]){ 10, 0, 0, 9 }, 4) == 0);
				replied = true;
				rte_pktmbuf_free(out[i]);
				out[i] = NULL;
			}
		}
		RC_CHECK_MSG(replied, "no ARP reply among %u frames drained", k);
		/* the rest (the ACK) to A through the port, as the NF sends */
		for (i = 0; i < k; i++)
			if (out[i] != NULL && rte_eth_tx_burst(b->port, 0, &out[i], 1) != 1)
				rte_pktmbuf_free(out[i]);
	}
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &w, 1, 5000000));
	RC_CHECK(w.n == 1 && w.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(dst.p, src.p, 4 * MSG) == 0);
	printf("returned in order: %u frames of the application's among %u, %u RoCE and 1 ARP taken\n", nw, n,
	       nroce);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/* The application drops frames it drained: losses, recovered by the transport. */
static void
test_caller_drops(struct rc_env *e)
{
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct rc_wcs w = { .n = 0 };
	struct dr_sge sge;
	uint64_t retries0 = dr_ctx_stats_sum(e->s[0].ctx).retries;
	unsigned int i, dropped = 0;

	rc_params_default(&p);
	p.timeout = 14;
	RC_CHECK_EQ(rc_connect(e, &p), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &src, WRS * MSG, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[1], &dst, WRS * MSG, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE), 0);
	rc_fill(src.p, WRS * MSG, 11);
	for (i = 0; i < WRS; i++) {
		rc_sges(&src, (size_t)i * MSG, MSG, 1, &sge);
		RC_CHECK_EQ(rc_post_send(&e->s[0], i, DR_WR_RDMA_WRITE, &sge, 1, 0,
					 (uint64_t)(uintptr_t)(dst.p + (size_t)i * MSG), dst.mr->rkey, 0), 0);
	}
	/* A's first sends: every third frame drained is dropped by the application */
	dr_progress(e->s[0].ctx);
	for (i = 0;; i++) {
		struct rte_mbuf *m;

		if (dr_tx_drain(e->s[0].ctx, &m, 1) != 1)
			break;
		if (i % 3 == 1) {
			rte_pktmbuf_free(m);
			dropped++;
		} else if (rte_eth_tx_burst(e->s[0].port, 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
		}
	}
	RC_CHECK(dropped > 0);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &w, WRS, 10000000));
	RC_CHECK_EQ(w.n, WRS);
	for (i = 0; i < w.n; i++)
		RC_CHECK_EQ(w.wc[i].status, DR_WC_SUCCESS);
	RC_CHECK_MSG(memcmp(dst.p, src.p, WRS * MSG) == 0, "the WRITEs did not land");
	RC_CHECK(dr_ctx_stats_sum(e->s[0].ctx).retries > retries0);
	printf("caller drops: %u of A's frames dropped after dr_tx_drain(), %d WRITEs checked\n", dropped, WRS);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/* A full receive ring drops and counts what it cannot hold; every mbuf goes back to its pool. */
static void
test_rx_ring_full(struct rc_env *e)
{
	struct rc_side *b = &e->s[1];
	unsigned int ring = DR_IO_RING_DEFAULT, total = ring + 100, i, n;
	uint64_t in_use0 = pool_in_use(frame_pool);
	struct dr_io_stats st0, st1;
	struct rte_mbuf *pkts[64];
	uint8_t f[64];
	uint16_t len = arp_request(f, 0x0A000002), kept;

	RC_CHECK_EQ(dr_io_stats_get(b->ctx, &st0), 0);
	for (i = 0; i < total; i += n) {
		n = RTE_MIN(total - i, (unsigned int)RTE_DIM(pkts));
		for (unsigned int k = 0; k < n; k++)
			pkts[k] = frame_of(f, len);
		kept = dr_rx_burst_input(b->ctx, pkts, (uint16_t)n, 0);
		RC_CHECK_EQ(kept, 0);
	}
	RC_CHECK_EQ(dr_io_stats_get(b->ctx, &st1), 0);
	RC_CHECK_EQ(st1.rx_ring_full - st0.rx_ring_full, total - ring);
	e->nf_rx_full_ok[1] += st1.rx_ring_full - st0.rx_ring_full;
	RC_CHECK_EQ(st1.rx_waiting, ring);
	/* B takes them all (and answers each: drained and freed here) */
	for (i = 0; i < 400 && (st1.rx_waiting != 0 || st1.tx_waiting != 0); i++) {
		dr_progress(b->ctx);
		while ((n = dr_tx_drain(b->ctx, pkts, RTE_DIM(pkts))) != 0)
			rte_pktmbuf_free_bulk(pkts, n);
		dr_io_stats_get(b->ctx, &st1);
	}
	RC_CHECK_EQ(st1.rx_waiting, 0);
	RC_CHECK_EQ(pool_in_use(frame_pool), in_use0);
	printf("rx ring full: %u frames handed in, %" PRIu64 " dropped and counted, pool back to %" PRIu64 "\n",
	       total, st1.rx_ring_full - st0.rx_ring_full, in_use0);
}

/* dr_progress_budget(): a round takes no more of what was handed in than the caller allows. */
static void
test_budget(struct rc_env *e)
{
	struct rc_side *b = &e->s[1];
	struct rte_mbuf *pkts[64];
	struct dr_io_stats st;
	uint8_t f[64];
	uint16_t len = arp_request(f, 0x0A000002), n;
	unsigned int i;
	uint32_t before;

	for (i = 0; i < 50; i++)
		pkts[i] = frame_of(f, len);
	RC_CHECK_EQ(dr_rx_burst_input(b->ctx, pkts, 50, 0), 0);
	RC_CHECK_EQ(dr_io_stats_get(b->ctx, &st), 0);
	before = st.rx_waiting;
	RC_CHECK_EQ(before, 50);
	RC_CHECK_EQ(dr_progress_budget(b->ctx, 0), 0);           /* nothing received */
	dr_io_stats_get(b->ctx, &st);
	RC_CHECK_EQ(st.rx_waiting, before);
	RC_CHECK(dr_progress_budget(b->ctx, 7) >= 7);
	dr_io_stats_get(b->ctx, &st);
	RC_CHECK_EQ(st.rx_waiting, before - 7);
	RC_CHECK(dr_progress_budget(b->ctx, 40) >= 40);          /* more than a burst of 32 */
	dr_io_stats_get(b->ctx, &st);
	RC_CHECK_EQ(st.rx_waiting, before - 47);
	dr_progress(b->ctx);                                     /* no bound: the rest */
	dr_io_stats_get(b->ctx, &st);
	RC_CHECK_EQ(st.rx_waiting, 0);
	RC_CHECK_EQ(dr_progress_budget(NULL, 1), -EINVAL);
	while ((n = dr_tx_drain(b->ctx, pkts, RTE_DIM(pkts))) != 0)
		rte_pktmbuf_free_bulk(pkts, n);                  /* the 50 ARP replies */
	printf("budget: 50 frames handed in, taken 0, 7, 40 and the rest by four rounds\n");
}

/*
 * The hold cap (dr_context_attr.app_pool_hold, 4 here): B's responder
 * answers a long READ while WRITEs arrive behind it and keeps them for their
 * turn (IBA 9.7.5.1.3: in PSN order). The frames are not from B's pool:
 * beyond 4, it keeps copies in its own and frees the originals at once. Every
 * byte lands, nothing is kept after, and the frames' pool is whole again.
 */
static void
test_hold_cap(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rte_mempool *src_pool = a->ctx->pool;   /* B receives the mbufs A built, from A's pool */
	uint64_t copied0 = dr_ctx_stats_sum(b->ctx).rx_app_copied, copied, in_use0;
	struct rte_mbuf *pkts[2 * WRS + 8];
	struct rc_qp_params p;
	struct rc_buf src, dst, rsrc, rdst;
	struct rc_wcs w = { .n = 0 };
	struct dr_sge sge;
	unsigned int i, n = 0;
	uint16_t kept;

	rc_params_default(&p);
	RC_CHECK_EQ(rc_connect(e, &p), 0);
	RC_CHECK_EQ(rc_buf_alloc(a, &src, WRS * MSG, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(b, &dst, WRS * MSG, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(b, &rsrc, 64 * MSG, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ), 0);
	RC_CHECK_EQ(rc_buf_alloc(a, &rdst, 64 * MSG, DR_ACCESS_LOCAL_WRITE), 0);
	rc_fill(src.p, WRS * MSG, 21);
	rc_fill(rsrc.p, 64 * MSG, 22);
	in_use0 = pool_in_use(src_pool);
	rc_sges(&rdst, 0, 64 * MSG, 1, &sge);
	RC_CHECK_EQ(rc_post_send(a, 100, DR_WR_RDMA_READ, &sge, 1, 0, (uint64_t)(uintptr_t)rsrc.p, rsrc.mr->rkey,
				 0), 0);
	for (i = 0; i < WRS; i++) {
		rc_sges(&src, (size_t)i * MSG, MSG, 1, &sge);
		RC_CHECK_EQ(rc_post_send(a, i, DR_WR_RDMA_WRITE, &sge, 1, 0,
					 (uint64_t)(uintptr_t)(dst.p + (size_t)i * MSG), dst.mr->rkey, 0), 0);
	}
	/* the READ request and the WRITEs behind it reach B in one burst */
	for (i = 0; i < 4 && n < RTE_DIM(pkts); i++) {
		dr_progress(a->ctx);
		n += dr_tx_drain(a->ctx, &pkts[n], (uint16_t)(RTE_DIM(pkts) - n));
	}
	RC_CHECK_MSG(n == WRS + 1, "%u frames for a READ and %d WRITEs", n, WRS);
	kept = dr_rx_burst_input(b->ctx, pkts, (uint16_t)n, 0);
	RC_CHECK_EQ(kept, 0);
	dr_progress(b->ctx);
	RC_CHECK_MSG(b->ctx->wk[0].app_held <= 4, "%u of the application's frames kept, 4 allowed",
		     b->ctx->wk[0].app_held);
	/* every WRITE waited for the READ's responses: the first 4 as they came, the rest as copies */
	copied = dr_ctx_stats_sum(b->ctx).rx_app_copied - copied0;
	RC_CHECK_MSG(copied == WRS - 4, "%" PRIu64 " of %d WRITEs kept as copies", copied, WRS);
	/* the rest runs through the wire */
	RC_CHECK(rc_wait_wcs(e, a->scq, &w, WRS + 1, 10000000));
	RC_CHECK_EQ(w.n, WRS + 1);
	for (i = 0; i < w.n; i++)
		RC_CHECK_EQ(w.wc[i].status, DR_WC_SUCCESS);
	RC_CHECK_MSG(memcmp(dst.p, src.p, WRS * MSG) == 0, "the WRITEs did not land");
	RC_CHECK_MSG(memcmp(rdst.p, rsrc.p, 64 * MSG) == 0, "the READ did not land");
	RC_CHECK_EQ(b->ctx->wk[0].resp_held, 0);
	RC_CHECK_EQ(b->ctx->wk[0].app_held, 0);
	RC_CHECK_EQ(pool_in_use(src_pool), in_use0);
	printf("hold cap: %d WRITEs kept behind a 64 KiB READ, %" PRIu64 " of them as copies, 4 of the "
	       "application's frames at most; all landed, the pool whole again\n", WRS, copied);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_buf_free(&rsrc);
	rc_buf_free(&rdst);
	rc_disconnect(e);
}

/* The calls refuse what is not theirs and take nothing. */
static void
test_refusals(struct rc_env *e)
{
	struct rte_mbuf *pkts[2] = { NULL, NULL };
	struct dr_io_stats st;

	errno = 0;
	RC_CHECK_EQ(dr_rx_burst_input(NULL, pkts, 2, 0), 2);
	RC_CHECK_EQ(errno, EINVAL);
	errno = 0;
	RC_CHECK_EQ(dr_rx_burst_input(e->s[0].ctx, NULL, 2, 0), 2);
	RC_CHECK_EQ(errno, EINVAL);
	errno = 0;
	RC_CHECK_EQ(dr_rx_burst_input(e->s[0].ctx, pkts, 2, 0x80), 2);
	RC_CHECK_EQ(errno, EINVAL);
	RC_CHECK_EQ(dr_rx_burst_input(e->s[0].ctx, pkts, 0, 0), 0);
	errno = 0;
	RC_CHECK_EQ(dr_tx_drain(NULL, pkts, 2), 0);
	RC_CHECK_EQ(errno, EINVAL);
	errno = 0;
	RC_CHECK_EQ(dr_tx_drain(e->s[0].ctx, NULL, 2), 0);
	RC_CHECK_EQ(errno, EINVAL);
	/* steering: net_ring has no rte_flow (nothing made); a queue the port does not have; no context */
	RC_CHECK_EQ(dr_flow_steer(e->s[0].ctx, 0), -ENOTSUP);
	RC_CHECK_EQ(dr_flow_steer(e->s[0].ctx, 9), -EINVAL);
	RC_CHECK_EQ(dr_flow_steer(NULL, 0), -EINVAL);
	RC_CHECK_EQ(dr_io_stats_get(NULL, &st), -EINVAL);
	RC_CHECK_EQ(dr_io_stats_get(e->s[0].ctx, NULL), -EINVAL);
	/* a device for any port, listed or not; none for a port that does not exist */
	RC_CHECK(dr_device_from_port(e->s[0].port) != NULL);
	RC_CHECK_EQ(dr_get_device_port(dr_device_from_port(e->s[1].port)), e->s[1].port);
	errno = 0;
	RC_CHECK(dr_device_from_port(RTE_MAX_ETHPORTS) == NULL && errno == ENODEV);
	errno = 0;
	RC_CHECK(dr_device_from_port(RTE_MAX_ETHPORTS - 1) == NULL && errno == ENODEV);
}

static void
body(struct rc_env *e)
{
	if (!rc_inline_only("io_app", "the test runs each side's loop itself"))
		return;
	frame_pool = rte_pktmbuf_pool_create("io_frames", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	RC_CHECK(frame_pool != NULL);
	if (frame_pool == NULL)
		return;
	test_refusals(e);
	test_returned_in_order(e);
	test_caller_drops(e);
	test_hold_cap(e);
	test_rx_ring_full(e);
	test_budget(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	setenv("DR_TEST_IO", "app", 1);         /* DR_IO_APP contexts, the test their NF (test_rc_nf.c) */
	setenv("DR_TEST_APP_POOL_HOLD", "4", 1); /* test_hold_cap() */
	return rc_main("test_io_app", argv[0], 1500, body);
}
