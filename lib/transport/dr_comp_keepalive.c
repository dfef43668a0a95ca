/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Keepalive of an RC QP (dr_context_attr.keepalive_ms; reliability.rst,
 * "Keepalive"). IBA has none: a QP that only waits for its peer's requests
 * (receives posted, nothing of its own outstanding) waits forever when the
 * peer died without a word - a killed DPDK process sends no DREQ, and the
 * local ACK timer (9.7.6.1.3) runs only while requests are outstanding.
 *
 * So, on the completer, with nothing outstanding: when the peer was not
 * heard - no response to the requester, no request to the responder - for
 * an interval, a probe goes out: a zero-length RDMA WRITE at the newest
 * PSN sent, already acknowledged. To the responder (ours, rxe, a NIC) it is
 * a duplicate, acknowledged again and not executed (9.7.5.1.1 C9-105), and
 * it takes no PSN. Another follows each interval while the peer stays
 * silent; when keepalive_probes of them are unanswered the QP goes to ERR:
 * its receive (and any send) WRs are flushed with WR_FLUSH_ERR and
 * DR_EVENT_QP_FATAL is raised, so a waiting application learns it within
 * (keepalive_probes + 1) intervals. RC only: an XRC initiator's probe would
 * need a target SRQ, and XRC targets send nothing.
 *
 * Runs on the completer's run clock (dr_run_clock.h): a stall of our own
 * lcore is not the peer's silence. Responses are heard as they come
 * (dr_comp.c); the peer's requests by the responder's ePSN, which moves
 * when one is executed: read here (relaxed, as telemetry reads it) rather
 * than stamped by the responder on every request, which would cost its hot
 * path a store for a check made once a round.
 */

#include "dr_handoff.h"
#include "dr_log.h"
#include "dr_psn.h"
#include "dr_transport.h"
#include "dr_verbs_priv.h"

bool
dr_comp_keepalive(struct dr_qp_impl *qp, uint64_t now)
{
	struct dr_comp_state *cs = &qp->comp;
	const struct dr_context *ctx = qp->pub.context;
	uint32_t epsn = __atomic_load_n(&qp->resp.epsn, __ATOMIC_RELAXED);
	uint64_t heard, since;

	if (epsn != cs->ka_epsn) {
		cs->ka_epsn = epsn;               /* the peer's requests were executed since the last look */
		cs->heard_at = now;
	}
	heard = cs->heard_at;

	if (qp->pub.qp_type != DR_QPT_RC || dr_ho_sent_psn(qp) != cs->psn || cs->rnr_at != 0) {
		cs->ka_unanswered = 0;            /* the ACK timer watches the peer, or an RNR wait runs */
		cs->ka_sent_at = 0;
		if (heard < now)
			cs->heard_at = now;       /* the silence is counted from when nothing is outstanding */
		return false;
	}
	if (heard == 0) {
		cs->heard_at = now;               /* just connected: the silence starts now */
		return false;
	}
	if (cs->ka_sent_at != 0 && heard >= cs->ka_sent_at) {
		cs->ka_unanswered = 0;            /* answered */
		cs->ka_sent_at = 0;
	}
	since = RTE_MAX(heard, cs->ka_sent_at);
	if (now < since + ctx->keepalive_ticks)
		return false;
	if (cs->ka_unanswered >= ctx->keepalive_probes) {
		DR_LOG(ctx, WARNING, "qp %u: peer silent after %u keepalive probes: QP to ERR", qp->pub.qp_num,
		       cs->ka_unanswered);
		dr_async_raise(qp->pub.context, DR_EVENT_QP_FATAL, &qp->pub);
		dr_qp_fail(qp, true);
		return true;
	}
	if (dr_req_keepalive(qp, dr_psn_sub(cs->psn, 1)) != 0)
		return false;                     /* no mbuf or room: the next round */
	cs->ka_unanswered++;
	cs->ka_sent_at = now;
	__atomic_store_n(&qp->cnt.keepalives, qp->cnt.keepalives + 1, __ATOMIC_RELAXED);
	dr_qp_wk(qp)->stats.keepalives++;
	return false;
}
