/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The connection manager's telemetry (rte_telemetry, beside the engine's
 * /dr/... of lib/engine/dr_telemetry.c):
 *
 *   /dr/cm/stats,<id>   the CM of context <id> (its DPDK port id): the
 *                       agent's counters (CM MADs taken, bad, duplicates,
 *                       for no connection, sent, resent, REJs each way,
 *                       timeouts, SIDR requests refused, connection slots in
 *                       use), QP1's (MADs in and out, short, errors, sends
 *                       with every slot busy) and the service's
 *
 * The callback runs in EAL's telemetry thread: it finds the context under
 * the registry's lock, which dr_cm_svc_stop() also takes to unhook the
 * service before freeing it, and reads the counters under the service's
 * lock, so they are one snapshot.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <rte_telemetry.h>

#include "dr_cm_svc.h"
#include "dr_context.h"

static int
tel_cm_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dr_cm_agent_stats a;
	struct dr_gsi_stats g;
	struct dr_cm_svc_stats v;
	struct dr_context *ctx;
	struct dr_cm_svc *s;
	char *end;
	long id;

	(void)cmd;
	if (params == NULL || *params == '\0')
		return -EINVAL;
	id = strtol(params, &end, 0);
	if (*end != '\0' || id < 0 || id >= RTE_MAX_ETHPORTS)
		return -EINVAL;
	dr_ctx_registry_lock();
	ctx = dr_ctx_registry_get((uint16_t)id);
	s = ctx != NULL ? dr_cm_svc_of(ctx) : NULL;
	if (s == NULL) {
		dr_ctx_registry_unlock();
		return -ENOENT;       /* no such context, or its CM never started */
	}
	dr_cm_svc_lock(s);
	a = s->agent.stats;
	a.conns = s->agent.nb_used;
	g = s->gsi.stats;
	v = s->stats;
	dr_cm_svc_unlock(s);
	dr_ctx_registry_unlock();

	rte_tel_data_start_dict(d);
#define AGENT(f) rte_tel_data_add_dict_u64(d, #f, a.f)
	AGENT(rx);
	AGENT(rx_bad);
	AGENT(rx_dup);
	AGENT(rx_unmatched);
	AGENT(tx);
	AGENT(retransmits);
	AGENT(rej_sent);
	AGENT(rej_rcvd);
	AGENT(timeouts);
	AGENT(busy);
	AGENT(conns);
#undef AGENT
#define GSI(f) rte_tel_data_add_dict_u64(d, "qp1_" #f, g.f)
	GSI(rx);
	GSI(rx_short);
	GSI(rx_err);
	GSI(tx);
	GSI(tx_queued);
	GSI(tx_busy);
	GSI(tx_err);
#undef GSI
	rte_tel_data_add_dict_u64(d, "polls", v.polls);
	rte_tel_data_add_dict_u64(d, "tx_dropped", v.tx_dropped);
	return 0;
}

static void
register_cmds(void)
{
	rte_telemetry_register_cmd("/dr/cm/stats", tel_cm_stats,
				   "Counters of a context's connection manager and QP1. Parameter: context id");
}

void
dr_cm_telemetry_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)pthread_once(&once, register_cmds);
}
