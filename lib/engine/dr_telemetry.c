/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Telemetry, DPDK's way (rte_telemetry; read with usertools/dpdk-telemetry.py):
 *
 *   /dr/context/list              ids of the open contexts (their DPDK port ids)
 *   /dr/context/stats,<id>        the counters of every worker added up, mode, workers
 *   /dr/qp/list[,<id>[,<offset>]] QPNs of a context (default: the first one open), in
 *                                 creation order, at most RTE_TEL_MAX_ARRAY_ENTRIES (512)
 *                                 from the offset-th one on (default 0)
 *   /dr/qp/info,<qpn>[,<id>]      state, type, PSNs, queue occupancy, counters, worker,
 *                                 the bytes of memory the QP takes (mem_bytes)
 *   /dr/lcore/stats,<lcore>       a worker lcore: loops, busy / idle cycles, rx bursts
 *
 * The callbacks run in EAL's telemetry thread. They find contexts through
 * the registry of dr_context.c under its lock, and a QP under its context's
 * control lock (dr_destroy_qp() takes it), so nothing they read is freed
 * under them. The values are read while the workers run: each one whole
 * (relaxed atomic loads), the set not a snapshot.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "dr_backend.h"
#include "dr_context.h"
#include "dr_engine.h"
#include "dr_log.h"
#include "dr_qp_attr.h"
#include "dr_qp_impl.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* A non-negative integer parameter; -1 when missing or malformed. */
static long
param_num(const char *s, char **rest)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	v = strtol(s, &end, 0);
	if (end == s || v < 0 || (*end != '\0' && *end != ','))
		return -1;
	if (rest != NULL)
		*rest = *end == ',' ? end + 1 : end;
	return v;
}

static int
tel_ctx_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	dr_ctx_registry_lock();
	for (uint16_t port = 0; port < RTE_MAX_ETHPORTS; port++)
		if (dr_ctx_registry_get(port) != NULL)
			rte_tel_data_add_array_int(d, port);
	dr_ctx_registry_unlock();
	return 0;
}

static const char *
role_name(enum dr_wk_role r)
{
	switch (r) {
	case DR_WK_RX: return "rx";
	case DR_WK_TX: return "tx";
	case DR_WK_COMP: return "completion";
	default: return "all";
	}
}

static const char *
mode_name(enum dr_progress_mode m)
{
	return m == DR_PROGRESS_RTC ? "rtc" : m == DR_PROGRESS_PIPELINE ? "pipeline" : "inline";
}

static int
tel_ctx_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dr_context *ctx;
	struct dr_ctx_stats st;
	long id = param_num(params, NULL);

	RTE_SET_USED(cmd);
	if (id < 0 || id >= RTE_MAX_ETHPORTS)
		return -EINVAL;
	dr_ctx_registry_lock();
	ctx = dr_ctx_registry_get((uint16_t)id);
	if (ctx == NULL) {
		dr_ctx_registry_unlock();
		return -ENOENT;
	}
	st = dr_ctx_stats_sum(ctx);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "device", ctx->device.name);
	rte_tel_data_add_dict_string(d, "mode", mode_name(ctx->attr.mode));
	rte_tel_data_add_dict_int(d, "workers", ctx->nb_workers);   /* engine lcores (pipeline: 3 a group) */
	rte_tel_data_add_dict_int(d, "groups", ctx->nb_groups);
	rte_tel_data_add_dict_int(d, "rx_queues", ctx->nb_rxq);
	rte_tel_data_add_dict_int(d, "tx_queues", ctx->nb_txq);
	rte_tel_data_add_dict_string(d, "backend", ctx->be->name);
	rte_tel_data_add_dict_int(d, "rss_udp", ctx->bport.rss_udp);
	rte_tel_data_add_dict_int(d, "flow_isolated", ctx->bport.flow_isolated);
	/* payload bytes from which frames are sent zero-copy; 0: never (the port copies) */
	rte_tel_data_add_dict_u64(d, "tx_zcopy_min", ctx->tx_zcopy_min == UINT32_MAX ? 0 : ctx->tx_zcopy_min);
	rte_tel_data_add_dict_int(d, "qps", (int)LOAD(ctx->num_qps));
	rte_tel_data_add_dict_string(d, "cc", ctx->cc.algo == DR_CC_DCQCN ? "dcqcn" : "none");
	if (ctx->cc.algo == DR_CC_DCQCN)
		rte_tel_data_add_dict_u64(d, "cc_line_rate_bps", ctx->cc.dcqcn.line_rate);
#define ADD(f) rte_tel_data_add_dict_u64(d, #f, st.f)
	ADD(rx_pkts);
	ADD(rx_not_roce);
	ADD(rx_malformed);
	ADD(rx_bad_icrc);
	ADD(rx_placed);
	ADD(rx_express);
	ADD(tx_express);
	ADD(rx_no_qp);
	ADD(rx_bad_pkey);
	ADD(rx_bad_addr);
	ADD(rx_bad_state);
	ADD(rx_duplicate);
	ADD(rx_stale_resp);
	ADD(rx_dropped);
	ADD(rx_redirected);
	ADD(rx_redirect_full);
	ADD(tx_pkts);
	ADD(tx_nombuf);
	ADD(tx_zcopy);
	ADD(tx_dropped);
	ADD(tx_ud_oversize);
	ADD(tx_ud_unreachable);
	ADD(retries);
	ADD(rereads);
	ADD(ack_timeouts);
	ADD(naks_seq_rx);
	ADD(naks_rnr_rx);
	ADD(naks_err_rx);
	ADD(acks_tx);
	ADD(naks_seq_tx);
	ADD(naks_rnr_tx);
	ADD(naks_err_tx);
	ADD(rx_sr_held);
	ADD(rx_read_held);
	ADD(rx_app_copied);
	ADD(sacks_tx);
	ADD(sacks_rx);
	ADD(sr_resends);
	ADD(sr_probes);
	ADD(rto_expiries);
	ADD(tlp_probes);
	ADD(rto_spurious);
	ADD(keepalives);
	ADD(rx_ecn_ce);
	ADD(tx_cnp);
	ADD(rx_cnp);
#undef ADD
	{
		/* the engine's own stalls, the port's drops (as dr_query_context_counters()) */
		struct dr_backend_port_stats ps;
		uint64_t stalls, stall_us, max_gap_us;

		dr_ctx_stall_sum(ctx, &stalls, &stall_us, &max_gap_us);
		dr_ctx_port_stats(ctx, &ps);
		rte_tel_data_add_dict_u64(d, "stalls", stalls);
		rte_tel_data_add_dict_u64(d, "stall_us", stall_us);
		rte_tel_data_add_dict_u64(d, "max_gap_us", max_gap_us);
		rte_tel_data_add_dict_u64(d, "idle_naps", dr_ctx_idle_naps(ctx));
		rte_tel_data_add_dict_u64(d, "port_imissed", ps.imissed);
		rte_tel_data_add_dict_u64(d, "port_ierrors", ps.ierrors);
		rte_tel_data_add_dict_u64(d, "port_rx_nombuf", ps.rx_nombuf);
		rte_tel_data_add_dict_u64(d, "port_oerrors", ps.oerrors);
	}
	dr_ctx_registry_unlock();
	return 0;
}

/* The context of a /dr/qp/... command: @rest names it, or the first one open. Registry locked. */
static struct dr_context *
qp_cmd_ctx(const char *rest)
{
	long id = param_num(rest, NULL);

	if (rest != NULL && *rest != '\0')
		return id >= 0 && id < RTE_MAX_ETHPORTS ? dr_ctx_registry_get((uint16_t)id) : NULL;
	for (uint16_t port = 0; port < RTE_MAX_ETHPORTS; port++)
		if (dr_ctx_registry_get(port) != NULL)
			return dr_ctx_registry_get(port);
	return NULL;
}

static int
tel_qp_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct dr_qp_impl *qp;
	struct dr_context *ctx;
	char *rest = NULL;
	long skip = 0;

	RTE_SET_USED(cmd);
	/* [<id>[,<offset>]]: a reply holds RTE_TEL_MAX_ARRAY_ENTRIES QPNs, the offset pages */
	if (params != NULL && *params != '\0') {
		if (param_num(params, &rest) < 0)
			return -EINVAL;
		if (rest != NULL && *rest != '\0' && (skip = param_num(rest, NULL)) < 0)
			return -EINVAL;
	}
	dr_ctx_registry_lock();
	ctx = qp_cmd_ctx(params);
	if (ctx == NULL) {
		dr_ctx_registry_unlock();
		return -ENOENT;
	}
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	pthread_mutex_lock(&ctx->ctl_lock);
	/* the context's QPs in creation order (its live list, not its table of max_qp entries) */
	TAILQ_FOREACH(qp, &ctx->qps, ctx_link) {
		if (skip > 0) {
			skip--;
			continue;
		}
		if (rte_tel_data_add_array_int(d, (int)qp->pub.qp_num) != 0)
			break;      /* the reply is full */
	}
	pthread_mutex_unlock(&ctx->ctl_lock);
	dr_ctx_registry_unlock();
	return 0;
}

static const char *
qp_type_name(enum dr_qp_type t)
{
	switch (t) {
	case DR_QPT_RC: return "RC";
	case DR_QPT_UC: return "UC";
	case DR_QPT_UD: return "UD";
	case DR_QPT_XRC_SEND: return "XRC_SEND";
	case DR_QPT_XRC_RECV: return "XRC_RECV";
	default: return "?";
	}
}

static void
qp_info(struct rte_tel_data *d, struct dr_qp_impl *qp)
{
	struct dr_qp_mem mem;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "qpn", (int)qp->pub.qp_num);
	rte_tel_data_add_dict_string(d, "type", qp_type_name(qp->pub.qp_type));
	rte_tel_data_add_dict_string(d, "state", dr_qp_state_name(LOAD(qp->pub.state)));
	rte_tel_data_add_dict_int(d, "worker", qp->wk->id);
	rte_tel_data_add_dict_int(d, "dest_qpn", (int)LOAD(qp->attr.dest_qp_num));
	rte_tel_data_add_dict_int(d, "path_mtu", (int)LOAD(qp->mtu));
	rte_tel_data_add_dict_int(d, "sq_psn_next", (int)LOAD(qp->req.psn));
	rte_tel_data_add_dict_int(d, "sq_psn_unacked", (int)LOAD(qp->comp.psn));
	rte_tel_data_add_dict_int(d, "rq_psn_expected", (int)LOAD(qp->resp.epsn));
	rte_tel_data_add_dict_int(d, "retry_left", LOAD(qp->comp.retry_left));
	rte_tel_data_add_dict_int(d, "rnr_retry_left", LOAD(qp->comp.rnr_left));
	rte_tel_data_add_dict_int(d, "rd_atomic_outstanding",
				  (int)(LOAD(qp->req.rd_taken) - LOAD(qp->comp_out.rd_freed)));
	rte_tel_data_add_dict_int(d, "send_wrs_outstanding",
				  (int)(LOAD(qp->sq.head) - LOAD(qp->sq.tail)));
	rte_tel_data_add_dict_int(d, "recv_wrs_posted", (int)(LOAD(qp->rq.head) - LOAD(qp->rq.tail)));
	rte_tel_data_add_dict_u64(d, "retries", LOAD(qp->cnt.retries));
	rte_tel_data_add_dict_u64(d, "rereads", LOAD(qp->cnt.rereads));
	rte_tel_data_add_dict_u64(d, "ack_timeouts", LOAD(qp->cnt.ack_timeouts));
	rte_tel_data_add_dict_u64(d, "naks_rx", LOAD(qp->cnt.naks_rx));
	rte_tel_data_add_dict_u64(d, "rnr_naks_rx", LOAD(qp->cnt.rnr_naks_rx));
	rte_tel_data_add_dict_u64(d, "naks_tx", LOAD(qp->cnt.naks_tx));
	rte_tel_data_add_dict_u64(d, "sr_resends", LOAD(qp->cnt.sr_resends));
	rte_tel_data_add_dict_u64(d, "sr_probes", LOAD(qp->cnt.sr_probes));
	rte_tel_data_add_dict_u64(d, "rto_expiries", LOAD(qp->cnt.rto_expiries));
	rte_tel_data_add_dict_u64(d, "tlp_probes", LOAD(qp->cnt.tlp_probes));
	rte_tel_data_add_dict_u64(d, "rto_spurious", LOAD(qp->cnt.rto_spurious));
	rte_tel_data_add_dict_u64(d, "keepalives", LOAD(qp->cnt.keepalives));
	{
		struct dr_qp_counters qc;

		(void)dr_query_qp_counters(&qp->pub, &qc);
		rte_tel_data_add_dict_u64(d, "max_ack_timeout_us", qc.max_ack_timeout_us);
		rte_tel_data_add_dict_u64(d, "max_rto_us", qc.max_rto_us);
		rte_tel_data_add_dict_u64(d, "srtt_us", qc.srtt_us);
		rte_tel_data_add_dict_u64(d, "rnr_wait_us", qc.rnr_wait_us);
	}
	rte_tel_data_add_dict_int(d, "selective_repeat", dr_qp_sr(qp));
	rte_tel_data_add_dict_int(d, "window", (int)LOAD(qp->window));
	/* congestion control: the requester's DCQCN rate (0: not limited, at line rate), CNPs */
	rte_tel_data_add_dict_u64(d, "cc_rate_bps", LOAD(qp->cc_tx.pacer.rate));
	rte_tel_data_add_dict_u64(d, "cc_target_bps", LOAD(qp->cc_tx.rp.rt));
	rte_tel_data_add_dict_u64(d, "cc_alpha_ppm",
				  (uint64_t)LOAD(qp->cc_tx.rp.alpha) * 1000000u / DR_DCQCN_ONE);
	rte_tel_data_add_dict_u64(d, "cc_decreases", LOAD(qp->cc_tx.rp.decreases));
	rte_tel_data_add_dict_u64(d, "cc_paced", LOAD(qp->cc_tx.paced));
	rte_tel_data_add_dict_u64(d, "ecn_ce_rx", LOAD(qp->cc_rx.ce_rx));
	rte_tel_data_add_dict_u64(d, "cnp_tx", LOAD(qp->cc_rx.cnp_tx));
	rte_tel_data_add_dict_u64(d, "cnp_rx", (uint64_t)LOAD(qp->cc_rx.cnp_rx));
	dr_qp_mem_get(qp, &mem);
	rte_tel_data_add_dict_u64(d, "mem_bytes", mem.total);
}

static int
tel_qp_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dr_context *ctx;
	struct dr_qp_impl *qp;
	char *rest = NULL;
	long qpn = param_num(params, &rest);
	int rc = -ENOENT;

	RTE_SET_USED(cmd);
	if (qpn < 0)
		return -EINVAL;
	dr_ctx_registry_lock();
	ctx = qp_cmd_ctx(rest);
	if (ctx != NULL) {
		pthread_mutex_lock(&ctx->ctl_lock);
		qp = dr_qp_lookup(ctx, (uint32_t)qpn);
		if (qp != NULL) {
			qp_info(d, qp);
			rc = 0;
		}
		pthread_mutex_unlock(&ctx->ctl_lock);
	}
	dr_ctx_registry_unlock();
	return rc;
}

static int
tel_lcore_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	long lcore = param_num(params, NULL);
	int rc = -ENOENT;

	RTE_SET_USED(cmd);
	if (lcore < 0 || lcore >= RTE_MAX_LCORE)
		return -EINVAL;
	dr_ctx_registry_lock();
	for (uint16_t port = 0; port < RTE_MAX_ETHPORTS && rc != 0; port++) {
		struct dr_context *ctx = dr_ctx_registry_get(port);

		for (uint16_t i = 0; ctx != NULL && i < ctx->nb_workers && rc != 0; i++) {
			const struct dr_worker *wk = &ctx->wk[i];
			uint64_t bursts, pkts;

			if (wk->lcore != (unsigned int)lcore)
				continue;
			bursts = LOAD(wk->lstats.rx_bursts);
			pkts = LOAD(wk->lstats.rx_burst_pkts);
			rte_tel_data_start_dict(d);
			rte_tel_data_add_dict_string(d, "device", ctx->device.name);
			rte_tel_data_add_dict_int(d, "worker", wk->id);
			rte_tel_data_add_dict_string(d, "role", role_name(wk->role));
			rte_tel_data_add_dict_int(d, "rx_queue", wk->rxq == DR_WK_NO_QUEUE ? -1 : wk->rxq);
			rte_tel_data_add_dict_int(d, "tx_queue", wk->txq == DR_WK_NO_QUEUE ? -1 : wk->txq);
			rte_tel_data_add_dict_int(d, "qps", (int)LOAD(wk->num_qps));
			rte_tel_data_add_dict_int(d, "active_qps", (int)LOAD(wk->num_active));
			rte_tel_data_add_dict_u64(d, "loops", LOAD(wk->lstats.loops));
			rte_tel_data_add_dict_u64(d, "busy_loops", LOAD(wk->lstats.busy_loops));
			rte_tel_data_add_dict_u64(d, "busy_cycles", LOAD(wk->lstats.busy_cycles));
			rte_tel_data_add_dict_u64(d, "idle_cycles", LOAD(wk->lstats.idle_cycles));
			rte_tel_data_add_dict_u64(d, "idle_naps", LOAD(wk->lstats.idle_naps));
			rte_tel_data_add_dict_u64(d, "rx_bursts", bursts);
			rte_tel_data_add_dict_u64(d, "rx_burst_pkts", pkts);
			rte_tel_data_add_dict_u64(d, "pkts_per_burst_x100", bursts != 0 ? pkts * 100 / bursts : 0);
			/* stalls of its own (dr_run_clock.h): the retransmission timers did not count them */
			rte_tel_data_add_dict_u64(d, "stalls", LOAD(wk->clock.stalls));
			rte_tel_data_add_dict_u64(d, "stall_us", LOAD(wk->clock.stall_ticks) * 1000000u / rte_get_tsc_hz());
			rte_tel_data_add_dict_u64(d, "max_gap_us", LOAD(wk->clock.max_gap) * 1000000u / rte_get_tsc_hz());
			rc = 0;
		}
	}
	dr_ctx_registry_unlock();
	return rc;
}

static void
register_cmds(void)
{
	rte_telemetry_register_cmd("/dr/context/list", tel_ctx_list,
				   "Ids (DPDK port ids) of the open dpdk-rdma contexts. No parameters");
	rte_telemetry_register_cmd("/dr/context/stats", tel_ctx_stats,
				   "Counters of a context, all workers added up. Parameter: context id");
	rte_telemetry_register_cmd("/dr/qp/list", tel_qp_list,
				   "QPNs of a context, 512 at most. Parameters: [context id (default: the first)"
				   "[,offset in the list (default 0)]]");
	rte_telemetry_register_cmd("/dr/qp/info", tel_qp_info,
				   "State, PSNs, queues and counters of a QP. Parameters: qpn[,context id]");
	rte_telemetry_register_cmd("/dr/lcore/stats", tel_lcore_stats,
				   "Loops, busy and idle cycles, rx bursts of a worker lcore. Parameter: lcore id");
}

void
dr_telemetry_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	/* at the first dr_open_device(): a constructor would not be linked from the static library */
	(void)pthread_once(&once, register_cmds);
}
