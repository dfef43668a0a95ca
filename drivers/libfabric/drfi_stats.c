/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * FI_DPDK_RDMA_STATS=1: at fi_close() of the fabric the provider writes the
 * context's counters and the sum of its endpoints' QP counters to stderr,
 * one line each, so that every rank of a job says what its transport did
 * (retransmissions, timeouts and the longest one, NAKs, RNR waits, the
 * engine's own stalls, the frames its port dropped). Each QP's counters
 * are taken when its endpoint closes. While the process runs, DPDK
 * telemetry shows the same (/dr/context/stats, /dr/qp/info).
 */

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "drfi.h"

void
drfi_stats_take_qp(struct drfi_fabric *fab, struct dr_qp *qp)
{
	struct dr_qp_counters c;

	if (qp == NULL || dr_query_qp_counters(qp, &c) != 0)
		return;
	fab->qps_closed++;
	(void)dr_qp_counters_add(&fab->qp_sum, &c);   /* of srtt, the longest of the QPs' */
}

void
drfi_stats_connected(struct drfi_ep *ep)
{
	struct drfi_fabric *fab = ep->dom->fab;
	unsigned int k = ep->passive ? 1 : 0;
	double took;

	if (ep->conn_t0 == 0)
		return;
	took = drfi_now_ms() - ep->conn_t0;
	ep->conn_t0 = 0;
	fab->conns[k]++;
	fab->conn_ms_sum[k] += took;
	if (took > fab->conn_ms_max[k])
		fab->conn_ms_max[k] = took;
}

void
drfi_stats_print(struct drfi_fabric *fab)
{
	const struct dr_qp_counters *q = &fab->qp_sum;
	struct dr_context_counters c;

	if (dr_query_context_counters(fab->ctx, &c) != 0)
		return;
	fprintf(stderr, "dpdk_rdma stats pid %d: context: rx_pkts %" PRIu64 " tx_pkts %" PRIu64
		" retries %" PRIu64 " ack_timeouts %" PRIu64 " rto_expiries %" PRIu64 " tlp_probes %" PRIu64 " rto_spurious %" PRIu64 " naks_seq_rx %" PRIu64 " naks_rnr_rx %" PRIu64
		" naks_err_rx %" PRIu64 " naks_seq_tx %" PRIu64 " naks_rnr_tx %" PRIu64 " naks_err_tx %" PRIu64
		" rx_duplicate %" PRIu64 " rx_dropped %" PRIu64 " rx_bad_icrc %" PRIu64 " tx_nombuf %" PRIu64
		" sr_resends %" PRIu64 " sr_probes %" PRIu64 " stalls %" PRIu64 " stall_us %" PRIu64 " max_gap_us %" PRIu64
		" idle_naps %" PRIu64 " port_imissed %" PRIu64 " port_ierrors %" PRIu64 " port_rx_nombuf %" PRIu64
		" port_oerrors %" PRIu64 "\n", (int)getpid(), c.rx_pkts, c.tx_pkts, c.retries, c.ack_timeouts,
		c.rto_expiries, c.tlp_probes, c.rto_spurious,
		c.naks_seq_rx, c.naks_rnr_rx, c.naks_err_rx, c.naks_seq_tx, c.naks_rnr_tx, c.naks_err_tx,
		c.rx_duplicate, c.rx_dropped, c.rx_bad_icrc, c.tx_nombuf, c.sr_resends, c.sr_probes, c.stalls, c.stall_us,
		c.max_gap_us, c.idle_naps, c.port_imissed, c.port_ierrors, c.port_rx_nombuf, c.port_oerrors);
	fprintf(stderr, "dpdk_rdma stats pid %d: qps: closed %u retries %" PRIu64 " rereads %" PRIu64
		" ack_timeouts %" PRIu64 " max_ack_timeout_us %" PRIu64 " rto_expiries %" PRIu64
		" max_rto_us %" PRIu64 " tlp_probes %" PRIu64 " rto_spurious %" PRIu64 " max_srtt_us %" PRIu64 " naks_rx %" PRIu64 " rnr_naks_rx %" PRIu64
		" rnr_wait_us %" PRIu64 " naks_tx %" PRIu64 " sr_resends %" PRIu64 " sr_probes %" PRIu64 " keepalives %" PRIu64 "\n",
		(int)getpid(), fab->qps_closed, q->retries, q->rereads, q->ack_timeouts, q->max_ack_timeout_us,
		q->rto_expiries, q->max_rto_us, q->tlp_probes, q->rto_spurious, q->srtt_us, q->naks_rx,
		q->rnr_naks_rx, q->rnr_wait_us, q->naks_tx, q->sr_resends, q->sr_probes, q->keepalives);
	fprintf(stderr, "dpdk_rdma stats pid %d: start-up: eal_ms %.1f port_ms %.1f connects %u "
		"connect_ms %.1f max_connect_ms %.1f resolve_ms %.1f max_resolve_ms %.1f accepts %u "
		"accept_ms %.1f max_accept_ms %.1f\n", (int)getpid(), fab->eal_ms, fab->port_ms,
		fab->conns[0], fab->conn_ms_sum[0], fab->conn_ms_max[0], fab->resolve_ms_sum,
		fab->resolve_ms_max, fab->conns[1], fab->conn_ms_sum[1], fab->conn_ms_max[1]);
}
