/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The counters an application reads (include/dr_verbs_counters.h): the
 * context's, summed over its engine threads with their stalls and its
 * port's drops, and a QP's. Snapshots read with relaxed loads while the
 * workers count; nothing is reset here. Telemetry shows the same
 * (lib/engine/dr_telemetry.c).
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "dr_backend.h"
#include "dr_context.h"
#include "dr_engine.h"
#include "dr_qp_impl.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static uint64_t
ticks_us(uint64_t ticks)
{
	return ticks / (rte_get_tsc_hz() / 1000000u);
}

void
dr_ctx_stall_sum(const struct dr_context *ctx, uint64_t *stalls, uint64_t *stall_us, uint64_t *max_gap_us)
{
	uint64_t ticks = 0, gap = 0;
	uint16_t i;

	*stalls = 0;
	for (i = 0; ctx->wk != NULL && i < ctx->nb_workers; i++) {
		const struct dr_run_clock *c = &ctx->wk[i].clock;

		*stalls += LOAD(c->stalls);
		ticks += LOAD(c->stall_ticks);
		if (LOAD(c->max_gap) > gap)
			gap = LOAD(c->max_gap);
	}
	*stall_us = ticks_us(ticks);
	*max_gap_us = ticks_us(gap);
}

uint64_t
dr_ctx_idle_naps(const struct dr_context *ctx)
{
	uint64_t naps = 0;

	for (uint16_t i = 0; ctx->wk != NULL && i < ctx->nb_workers; i++)
		naps += LOAD(ctx->wk[i].lstats.idle_naps);
	return naps;
}

void
dr_ctx_port_stats(struct dr_context *ctx, struct dr_backend_port_stats *ps)
{
	memset(ps, 0, sizeof(*ps));
	if (ctx->be != NULL && ctx->be->port_stats != NULL && ctx->be->port_stats(&ctx->bport, ps) != 0)
		memset(ps, 0, sizeof(*ps));
}

int
dr_query_context_counters(struct dr_context *ctx, struct dr_context_counters *c)
{
	struct dr_backend_port_stats ps;
	struct dr_ctx_stats st;

	if (ctx == NULL || c == NULL)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	st = dr_ctx_stats_sum(ctx);
	c->rx_pkts = st.rx_pkts;
	c->tx_pkts = st.tx_pkts;
	c->rx_malformed = st.rx_malformed;
	c->rx_bad_icrc = st.rx_bad_icrc;
	c->rx_duplicate = st.rx_duplicate;
	c->rx_dropped = st.rx_dropped;
	c->tx_nombuf = st.tx_nombuf;
	c->retries = st.retries;
	c->ack_timeouts = st.ack_timeouts;
	c->rto_expiries = st.rto_expiries;
	c->tlp_probes = st.tlp_probes;
	c->keepalives = st.keepalives;
	c->naks_seq_rx = st.naks_seq_rx;
	c->naks_rnr_rx = st.naks_rnr_rx;
	c->naks_err_rx = st.naks_err_rx;
	c->naks_seq_tx = st.naks_seq_tx;
	c->naks_rnr_tx = st.naks_rnr_tx;
	c->naks_err_tx = st.naks_err_tx;
	c->sr_resends = st.sr_resends;
	c->sr_probes = st.sr_probes;
	c->rx_sr_held = st.rx_sr_held;
	c->rx_read_held = st.rx_read_held;
	c->rto_spurious = st.rto_spurious;
	c->rx_app_copied = st.rx_app_copied;
	dr_ctx_stall_sum(ctx, &c->stalls, &c->stall_us, &c->max_gap_us);
	c->idle_naps = dr_ctx_idle_naps(ctx);
	dr_ctx_port_stats(ctx, &ps);
	c->port_imissed = ps.imissed;
	c->port_ierrors = ps.ierrors;
	c->port_rx_nombuf = ps.rx_nombuf;
	c->port_oerrors = ps.oerrors;
	return 0;
}

int
dr_query_qp_counters(struct dr_qp *pub, struct dr_qp_counters *c)
{
	struct dr_qp_impl *qp;

	if (pub == NULL || c == NULL)
		return -EINVAL;
	qp = dr_qp_impl(pub);
	memset(c, 0, sizeof(*c));
	c->retries = LOAD(qp->cnt.retries);
	c->rereads = LOAD(qp->cnt.rereads);
	c->ack_timeouts = LOAD(qp->cnt.ack_timeouts);
	c->max_ack_timeout_us = ticks_us(LOAD(qp->cnt.max_ack_timeout_ticks));
	c->rto_expiries = LOAD(qp->cnt.rto_expiries);
	c->max_rto_us = ticks_us(LOAD(qp->cnt.max_rto_ticks));
	c->tlp_probes = LOAD(qp->cnt.tlp_probes);
	c->rto_spurious = LOAD(qp->cnt.rto_spurious);
	c->keepalives = LOAD(qp->cnt.keepalives);
	c->srtt_us = ticks_us(LOAD(qp->comp.srtt));
	c->rttvar_us = ticks_us(LOAD(qp->comp.rttvar));
	c->naks_rx = LOAD(qp->cnt.naks_rx);
	c->rnr_naks_rx = LOAD(qp->cnt.rnr_naks_rx);
	c->rnr_wait_us = ticks_us(LOAD(qp->cnt.rnr_wait_ticks));
	c->naks_tx = LOAD(qp->cnt.naks_tx);
	c->sr_resends = LOAD(qp->cnt.sr_resends);
	c->sr_probes = LOAD(qp->cnt.sr_probes);
	return 0;
}

int
dr_qp_counters_add(struct dr_qp_counters *sum, const struct dr_qp_counters *c)
{
	if (sum == NULL || c == NULL)
		return -EINVAL;
	sum->retries += c->retries;
	sum->rereads += c->rereads;
	sum->ack_timeouts += c->ack_timeouts;
	sum->max_ack_timeout_us = RTE_MAX(sum->max_ack_timeout_us, c->max_ack_timeout_us);
	sum->rto_expiries += c->rto_expiries;
	sum->max_rto_us = RTE_MAX(sum->max_rto_us, c->max_rto_us);
	sum->tlp_probes += c->tlp_probes;
	sum->rto_spurious += c->rto_spurious;
	sum->keepalives += c->keepalives;
	sum->srtt_us = RTE_MAX(sum->srtt_us, c->srtt_us);
	sum->rttvar_us = RTE_MAX(sum->rttvar_us, c->rttvar_us);
	sum->naks_rx += c->naks_rx;
	sum->rnr_naks_rx += c->rnr_naks_rx;
	sum->rnr_wait_us += c->rnr_wait_us;
	sum->naks_tx += c->naks_tx;
	sum->sr_resends += c->sr_resends;
	sum->sr_probes += c->sr_probes;
	return 0;
}
