/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * --counters: what the transport did during the run, printed at its end
 * (include/dr_verbs_counters.h): the context's counters, and over the QPs
 * the sums of their recovery counters and the longest timers that expired
 * and round trips measured. Printed whether the run passed or not: a run
 * that failed with "transport retry counter exceeded" shows here whether
 * frames were lost, the peer NAKed, or the engine itself stalled.
 */

#include <inttypes.h>
#include <stdio.h>

#include "perf.h"

#define ROW(name, v) printf(" %-22s: %" PRIu64 "\n", name, (uint64_t)(v))

static void
qp_sums(const struct perf *p, struct dr_qp_counters *s)
{
	for (unsigned int i = 0; p->qps != NULL && i < p->nb_qps; i++) {
		struct dr_qp_counters c;

		if (p->qps[i].qp == NULL || dr_query_qp_counters(p->qps[i].qp, &c) != 0)
			continue;
		(void)dr_qp_counters_add(s, &c);
	}
}

void
perf_print_counters(const struct perf *p)
{
	struct dr_context_counters c;
	struct dr_qp_counters q = { 0 };

	if (p->ctx == NULL || dr_query_context_counters(p->ctx, &c) != 0)
		return;
	qp_sums(p, &q);
	printf(" Counters (context):\n");
	ROW("rx_pkts", c.rx_pkts);
	ROW("tx_pkts", c.tx_pkts);
	ROW("rx_malformed", c.rx_malformed);
	ROW("rx_bad_icrc", c.rx_bad_icrc);
	ROW("rx_duplicate", c.rx_duplicate);
	ROW("rx_dropped", c.rx_dropped);
	ROW("tx_nombuf", c.tx_nombuf);
	ROW("retries", c.retries);
	ROW("ack_timeouts", c.ack_timeouts);
	ROW("rto_expiries", c.rto_expiries);
	ROW("tlp_probes", c.tlp_probes);
	ROW("rto_spurious", c.rto_spurious);
	ROW("keepalives", c.keepalives);
	ROW("naks_seq_rx", c.naks_seq_rx);
	ROW("naks_rnr_rx", c.naks_rnr_rx);
	ROW("naks_err_rx", c.naks_err_rx);
	ROW("naks_seq_tx", c.naks_seq_tx);
	ROW("naks_rnr_tx", c.naks_rnr_tx);
	ROW("naks_err_tx", c.naks_err_tx);
	ROW("sr_resends", c.sr_resends);
	ROW("sr_probes", c.sr_probes);
	ROW("rx_sr_held", c.rx_sr_held);
	ROW("rx_read_held", c.rx_read_held);
	ROW("rx_app_copied", c.rx_app_copied);
	ROW("stalls", c.stalls);
	ROW("stall_us", c.stall_us);
	ROW("max_gap_us", c.max_gap_us);
	ROW("idle_naps", c.idle_naps);
	ROW("port_imissed", c.port_imissed);
	ROW("port_ierrors", c.port_ierrors);
	ROW("port_rx_nombuf", c.port_rx_nombuf);
	ROW("port_oerrors", c.port_oerrors);
	printf(" Counters (%u QPs):\n", p->nb_qps);
	ROW("rereads", q.rereads);
	ROW("max_ack_timeout_us", q.max_ack_timeout_us);
	ROW("max_rto_us", q.max_rto_us);
	ROW("max_srtt_us", q.srtt_us);
	ROW("max_rttvar_us", q.rttvar_us);
	ROW("rnr_wait_us", q.rnr_wait_us);
	fflush(stdout);
}
