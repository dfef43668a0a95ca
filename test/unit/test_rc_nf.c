/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * DR_TEST_IO=app (test_rc.h): every suite of the harness with DR_IO_APP
 * contexts, the test playing the network function that owns each ring
 * port. It configures and starts the port with a pool of its own, and each
 * wire carry runs its loop's two halves: the source's NF sends what
 * dr_tx_drain() gives on tx queue 0 (frames the ring does not take are
 * dropped, a loss to the transport), the destination's NF hands every
 * frame its port received to dr_rx_burst_input() and keeps what comes back
 * (counted in nf_kept: on this wire only frames whose addresses a rule
 * corrupted; the suites' counters say where the rest went).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "test_rc.h"

#define NF_BURST 32

int
rc_nf_port_start(struct rc_side *s)
{
	static unsigned int made;
	struct rte_eth_conf conf;
	struct rte_mempool *mp;
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int q;

	/* the NF's receive pool: net_ring hands over the mbufs its peer sent, and takes none from it */
	snprintf(name, sizeof(name), "rc_nf%u", made++);
	mp = rte_pktmbuf_pool_create(name, 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		return -1;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(s->port, (uint16_t)rc_queues(), (uint16_t)rc_queues(), &conf) != 0)
		return -1;
	for (q = 0; q < rc_queues(); q++)
		if (rte_eth_rx_queue_setup(s->port, (uint16_t)q, 1024, SOCKET_ID_ANY, NULL, mp) != 0 ||
		    rte_eth_tx_queue_setup(s->port, (uint16_t)q, 1024, SOCKET_ID_ANY, NULL) != 0)
			return -1;
	return rte_eth_dev_start(s->port) == 0 ? 0 : -1;
}

void
rc_nf_tx(struct rc_env *e, int side)
{
	struct rc_side *s = &e->s[side];
	struct rte_mbuf *pkts[NF_BURST];
	uint16_t n, sent;

	while ((n = dr_tx_drain(s->ctx, pkts, NF_BURST)) != 0) {
		sent = rte_eth_tx_burst(s->port, 0, pkts, n);
		if (sent < n) {
			rte_pktmbuf_free_bulk(pkts + sent, n - sent);
			e->nf_tx_dropped[side] += n - sent;
		}
	}
}

void
rc_nf_rx(struct rc_env *e, int side)
{
	struct rc_side *s = &e->s[side];
	struct rte_mbuf *pkts[NF_BURST];
	uint16_t n, kept;
	unsigned int q;

	for (q = 0; q < rc_queues(); q++) {
		while ((n = rte_eth_rx_burst(s->port, (uint16_t)q, pkts, NF_BURST)) != 0) {
			kept = dr_rx_burst_input(s->ctx, pkts, n, 0);
			e->nf_kept[side] += kept;
			rte_pktmbuf_free_bulk(pkts, kept);
		}
	}
}

void
rc_nf_report(struct rc_env *e)
{
	bool small_ring = getenv("DR_TEST_IO_RING") != NULL;
	bool small_hold = getenv("DR_TEST_APP_POOL_HOLD") != NULL;
	uint64_t tx_full = 0, copied = 0;
	int i;

	for (i = 0; i < 2; i++) {
		struct dr_io_stats st;

		if (e->s[i].ctx == NULL || dr_io_stats_get(e->s[i].ctx, &st) != 0)
			continue;
		printf("io %c: %" PRIu64 " frames in (%" PRIu64 " RoCE, %" PRIu64 " ARP/ND, %" PRIu64
		       " the NF's), %" PRIu64 " dropped on a full rx ring; %" PRIu64 " staged, %" PRIu64
		       " drained, tx ring full %" PRIu64 " times, %" PRIu64 " not sent by the port\n",
		       'A' + i, st.rx_input, st.rx_roce, st.rx_neigh, e->nf_kept[i], st.rx_ring_full, st.tx_staged,
		       st.tx_drained, st.tx_ring_full, e->nf_tx_dropped[i]);
		/* the wire never offers more than the ring holds: a drop here is the library's */
		RC_CHECK_MSG(st.rx_ring_full == e->nf_rx_full_ok[i], "side %c: %" PRIu64 " frames dropped on a full "
			     "rx ring, %" PRIu64 " on purpose", 'A' + i, st.rx_ring_full, e->nf_rx_full_ok[i]);
		tx_full += st.tx_ring_full;
		copied += dr_ctx_stats_sum(e->s[i].ctx).rx_app_copied;
	}
	printf("io: %" PRIu64 " requests kept as copies (app_pool_hold)\n", copied);
	/* DR_TEST_APP_POOL_HOLD (small): requests were kept beyond it, as copies */
	if (small_hold)
		RC_CHECK_MSG(copied > 0, "no request kept as a copy");
	/* DR_TEST_IO_RING (small): a transmit ring did fill, and held its workers back */
	if (small_ring)
		RC_CHECK_MSG(tx_full > 0, "no tx ring filled");
}
