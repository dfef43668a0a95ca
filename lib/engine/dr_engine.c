/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The engine's stages, run by a worker (dr_worker.h) for the QPs it owns:
 *
 *   rx        bursts from the worker's rx queue of the port, and the frames
 *             other workers redirected to it; each frame is checked (one
 *             function per check, in order) and handed to the responder
 *             (requests) or the completer (responses) of its QP. A frame
 *             for a QP of another worker goes to that worker's redirect ring
 *             before its ICRC is computed; a frame that is not RoCEv2 goes to
 *             worker 0, which owns ARP and ND.
 *   per QP    timers (local ACK timeout, RNR wait), responder (owed ACKs,
 *             READ responses), requester (new packets), completer (CQEs),
 *             for the QPs on the worker's active list (the QP state machine
 *             keeps it: dr_engine_qp_update()); with many active QPs, those
 *             worth a visit (dr_engine_sched.c)
 *   tx        the frames built this round go to the port (dr_wk_tx_flush())
 *
 * Who runs them: in DR_PROGRESS_INLINE mode dr_progress(), in the
 * application's thread, runs the context's one worker; in DR_PROGRESS_RTC
 * mode each worker is an lcore of its own (dr_engine_lcore.c). In
 * DR_PROGRESS_PIPELINE mode a group's rx worker runs rx and the responder
 * and hands responses to its completion worker, which runs the completer;
 * its tx worker runs the requester (dr_worker.h, dr_engine_pipeline.c).
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dr_control.h"
#include "dr_engine.h"
#include "dr_engine_sched.h"
#include "dr_log.h"
#include "dr_resp_express.h"
#include "dr_transport.h"

/* Outcome of the receive checks. */
enum dr_rx_verdict {
	RX_OK,          /* go on */
	RX_OTHER,       /* not RoCEv2: the backend's (ARP, ND, ...) */
	RX_DROP,        /* counted and freed */
};

/* Check PARSE: a well-formed RoCEv2 packet (IBA Annex A17.4, 9.2). */
static enum dr_rx_verdict
rx_check_parse(struct dr_worker *wk, const struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	enum dr_pkt_status st = dr_pkt_parse(m, pi);

	if (st == DR_PKT_OK)
		return RX_OK;
	if (!dr_pkt_status_is_error(st))
		return RX_OTHER;
	wk->stats.rx_malformed++;
	DR_DP_LOG(ctx, DEBUG, "rx: malformed frame: %s", dr_pkt_status_str(st));
	return RX_DROP;
}

/* Check ICRC (IBA 7.8.1, Annex A17.3.3: a packet with a bad ICRC is silently dropped). */
static enum dr_rx_verdict
rx_check_icrc(struct dr_worker *wk, const struct rte_mbuf *m, const struct dr_pkt_info *pi)
{
	if (dr_pkt_check_icrc(m, pi) == DR_PKT_OK)
		return RX_OK;
	wk->stats.rx_bad_icrc++;
	return RX_DROP;
}

/* Check QP: the destination QP exists (IBA 9.6.1.x: an unknown QP drops the packet silently). */
static struct dr_qp_impl *
rx_check_qp(struct dr_worker *wk, const struct dr_pkt_info *pi)
{
	struct dr_qp_impl *qp = dr_qp_lookup(wk->ctx, dr_bth_qpn(dr_pkt_bth(pi)));

	if (qp == NULL)
		wk->stats.rx_no_qp++;
	return qp;
}

/* Transport bits of the opcodes a QP type takes. */
static inline int
qp_transport(enum dr_qp_type t)
{
	switch (t) {
	case DR_QPT_RC: return DR_TRANSPORT_RC;
	case DR_QPT_UC: return DR_TRANSPORT_UC;
	case DR_QPT_UD: return DR_TRANSPORT_UD;
	case DR_QPT_XRC_SEND:
	case DR_QPT_XRC_RECV: return DR_TRANSPORT_XRC;
	default: return -1;
	}
}

/*
 * Check TRANSPORT: the opcode's transport is the QP's (IBA 9.6.1.x: an RC
 * QP takes RC opcodes only, a UC QP UC ones, a UD QP UD ones). Counted with
 * rx_no_qp: no QP of that transport has this number.
 */
static enum dr_rx_verdict
rx_check_transport(struct dr_worker *wk, const struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	if ((pi->opcode & DR_OPCODE_TRANSPORT_MASK) == qp_transport(qp->pub.qp_type))
		return RX_OK;
	/* dpdk-rdma's SACK (selective repeat, dr_set_ece()) answers RC and XRC requests */
	if (pi->opcode == DR_OPCODE_SACK && dr_qp_reliable(qp))
		return RX_OK;
	/* a CNP (Annex A17.9.3) is for a connected QP: its peer saw our packets marked */
	if (pi->opcode == DR_OPCODE_CNP && qp->pub.qp_type != DR_QPT_UD)
		return RX_OK;
	wk->stats.rx_no_qp++;
	return RX_DROP;
}

/* Check P_KEY (IBA 9.6.1.1, 10.9.1: the default partition, membership bit ignored; rxe check_keys()). */
static enum dr_rx_verdict
rx_check_pkey(struct dr_worker *wk, const struct dr_pkt_info *pi)
{
	if ((dr_bth_pkey(dr_pkt_bth(pi)) & 0x7FFF) == (DR_DEFAULT_PKEY & 0x7FFF))
		return RX_OK;
	wk->stats.rx_bad_pkey++;
	return RX_DROP;
}

/* Check ADDRESS: a connected QP takes packets from its peer only (rxe check_addr()); UD from anyone. */
static enum dr_rx_verdict
rx_check_addr(struct dr_worker *wk, const struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	if (qp->pub.qp_type == DR_QPT_UD)
		return RX_OK;
	if (memcmp(pi->sgid, qp->route.dgid, 16) != 0 || memcmp(pi->dgid, qp->route.sgid, 16) != 0) {
		wk->stats.rx_bad_addr++;
		return RX_DROP;
	}
	return RX_OK;
}

/*
 * Hand @m to worker @to (its redirect ring from us); dropped, counted, when
 * the ring is full (the owner is that far behind: as a full rx queue drops).
 */
static void
rx_redirect(struct dr_worker *wk, struct dr_worker *to, struct rte_mbuf *m)
{
	if (rte_ring_sp_enqueue(to->redirect[wk->id], m) == 0) {
		wk->stats.rx_redirected++;
		return;
	}
	wk->stats.rx_redirect_full++;
	rte_pktmbuf_free(m);
}

/* A response: to the completer, here or on the pipeline group's completion worker. */
static void
rx_response(struct dr_worker *wk, struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	if (wk->role == DR_WK_RX) {
		/* the group's completion lcore; a full ring drops it as a full rx queue would */
		if (unlikely(rte_ring_sp_enqueue(wk->grp[DR_WK_COMP]->redirect[wk->id], m) != 0)) {
			wk->stats.rx_redirect_full++;
			rte_pktmbuf_free(m);
		}
		return;
	}
	dr_comp_rx(qp, m, pi);
}

/* The frames of a burst the express path took: one bulk free (mbufs of one pool go back together). */
static inline void
rx_done_free(struct dr_worker *wk)
{
	struct rte_mempool *mp = NULL;
	void *objs[RTE_DIM(wk->rx_done)];
	unsigned int i, n = 0;

	for (i = 0; i < wk->rx_ndone; i++) {
		/* one segment each (dr_pkt_xp_parse()); NULL: someone else holds it still */
		struct rte_mbuf *m = rte_pktmbuf_prefree_seg(wk->rx_done[i]);

		if (m == NULL)
			continue;
		if (m->pool != mp && n != 0) {
			rte_mempool_put_bulk(mp, objs, n);
			n = 0;
		}
		mp = m->pool;
		objs[n++] = m;
	}
	if (n != 0)
		rte_mempool_put_bulk(mp, objs, n);
	wk->rx_ndone = 0;
}

/*
 * The common request, whole, where the general checks would all pass
 * (dr_resp_express.c): taken (into wk->rx_done, freed after the burst),
 * or false with @m untouched. Inline in the burst loop: the general path's
 * frame (its struct dr_pkt_info, its saved registers) is not set up for it.
 */
static inline __attribute__((always_inline)) bool
rx_express(struct dr_worker *wk, struct rte_mbuf *m)
{
	struct dr_pkt_xp x;
	struct dr_qp_impl *qp;

	/* a request (SEND ... READ request, IBA table 38's first 13): responses are the general path's */
	if (!dr_pkt_xp_parse(m, &x) || (x.opcode & DR_OPCODE_OP_MASK) > DR_OP_READ_REQ)
		return false;
	qp = dr_qp_lookup(wk->ctx, x.qpn);
	if (qp == NULL || qp->wk != wk || !dr_resp_express(qp, &x))
		return false;
	wk->stats.rx_express++;
	wk->rx_done[wk->rx_ndone++] = m;   /* at most a burst: freed after it */
	if (wk->many)
		dr_sched_mark(wk, qp);
	return true;
}

/* Check and dispatch one received frame the express path did not take; takes @m. */
static __attribute__((noinline)) void
rx_general(struct dr_worker *wk, struct rte_mbuf *m)
{
	struct dr_context *ctx = wk->ctx;
	struct dr_pkt_info pi;
	struct dr_qp_impl *qp;
	enum dr_rx_verdict v;
	bool deferred;

	v = rx_check_parse(wk, m, &pi);
	if (v == RX_OTHER) {
		/* ARP, ND, ...: the backend's, on worker 0 (it owns the neighbour table's updates) */
		if (wk->id != 0) {
			rx_redirect(wk, &ctx->wk[0], m);
			return;
		}
		wk->stats.rx_not_roce++;
		ctx->be->rx_other(&ctx->bport, m);
		return;
	}
	if (v != RX_OK)
		goto drop;
	qp = rx_check_qp(wk, &pi);
	if (qp == NULL)
		goto drop;
	if (unlikely(qp->wk != wk)) {
		/* not ours: its owner checks the rest (the ICRC first) */
		rx_redirect(wk, qp->wk, m);
		return;
	}
	if (wk->many)
		dr_sched_mark(wk, qp);          /* this round visits it (dr_engine_sched.c) */
	/*
	 * WRITE MIDDLE / LAST of a WRITE in progress, READ response MIDDLE /
	 * LAST where the completer runs here: the ICRC is checked as the
	 * payload is placed (dr_resp_place.c, dr_comp_place.c)
	 */
	deferred = pi.paylen >= DR_PLACE_MIN &&
		   ((pi.mask & DR_OPF_REQ) ? dr_resp_place_eligible(qp, &pi) :
		    wk->role != DR_WK_RX && dr_comp_place_eligible(qp, &pi));
	if (!deferred && rx_check_icrc(wk, m, &pi) != RX_OK)
		goto drop;
	if (rx_check_transport(wk, qp, &pi) != RX_OK || rx_check_pkey(wk, &pi) != RX_OK ||
	    rx_check_addr(wk, qp, &pi) != RX_OK)
		goto drop;
	/*
	 * ECN (RFC 3168, IBA Annex A17.9): a packet the network marked CE asks
	 * the QP's peer to slow down, by a CNP; a CNP tells us the same
	 */
	if (unlikely((pi.tclass & DR_ECN_MASK) == DR_ECN_CE) && qp->pub.qp_type != DR_QPT_UD)
		dr_cnp_on_ce(qp, rte_rdtsc());
	if (unlikely(pi.opcode == DR_OPCODE_CNP)) {
		dr_cnp_rx(qp, m);
		return;
	}
	if (deferred) {
		if (pi.mask & DR_OPF_REQ)
			dr_resp_rx_unverified(qp, m, &pi);
		else
			dr_comp_rx_unverified(qp, m, &pi);
		return;
	}
	if (qp->pub.qp_type == DR_QPT_UD)
		dr_resp_ud_rx(qp, m, &pi);
	else if ((pi.mask & DR_OPF_REQ) && qp->pub.qp_type != DR_QPT_XRC_SEND)
		dr_resp_rx(qp, m, &pi);         /* an XRC initiator has no responder */
	else if ((pi.mask & DR_OPF_RESP) && qp->pub.qp_type != DR_QPT_XRC_RECV)
		rx_response(wk, qp, m, &pi);    /* an XRC target has no requester */
	else {
		wk->stats.rx_no_qp++;           /* no QP of this number takes that direction */
		goto drop;
	}
	return;
drop:
	rte_pktmbuf_free(m);
}

/* Check and dispatch one received frame; takes @m. */
static inline __attribute__((always_inline)) void
rx_one(struct dr_worker *wk, struct rte_mbuf *m)
{
	if (likely(wk->ctx->express) && rx_express(wk, m))
		return;
	rx_general(wk, m);
}

/*
 * A pipeline's completion worker: a response its rx worker checked (ICRC
 * included) and handed over. The QP is looked up again: it may have gone
 * in between (the table is read under the same RCU rules).
 */
static void
rx_handed_response(struct dr_worker *wk, struct rte_mbuf *m)
{
	struct dr_pkt_info pi;
	struct dr_qp_impl *qp;

	if (dr_pkt_parse(m, &pi) != DR_PKT_OK) {       /* parsed once already: cannot fail */
		rte_pktmbuf_free(m);
		return;
	}
	qp = rx_check_qp(wk, &pi);
	if (qp == NULL || qp->wk->grp[DR_WK_COMP] != wk) {
		rte_pktmbuf_free(m);
		return;
	}
	dr_comp_rx(qp, m, &pi);
}

uint16_t
dr_engine_rx(struct dr_worker *wk)
{
	struct dr_context *ctx = wk->ctx;
	struct rte_mbuf *pkts[DR_BURST];
	uint16_t i, n, total = 0;
	unsigned int b, j;

	/*
	 * Receive more per round than a QP may send (DR_MAX_PKTS_PER_QP_ROUND):
	 * a peer running the same loop must not outpace us, or its packets wait
	 * behind each other in our rx queue and every loss costs a full window.
	 */
	if (wk->rxq != DR_WK_NO_QUEUE) {
		unsigned int nb = wk->num_active > DR_RX_MANY_QPS ? DR_RX_BURSTS_MANY_QPS : DR_RX_BURSTS_PER_ROUND;
		/* dr_progress_budget()'s bound; DR_RX_BUDGET_ANY is more than nb bursts take */
		uint32_t left = wk->rx_budget;

		for (b = 0; b < nb && left != 0; b++) {
			uint16_t want = (uint16_t)RTE_MIN((uint32_t)DR_BURST, left);

			n = ctx->io_rx(&ctx->bport, wk->rxq, pkts, want);
			if (n == 0)
				break;
			left -= n;
			wk->stats.rx_pkts += n;
			wk->lstats.rx_bursts++;
			wk->lstats.rx_burst_pkts += n;
			for (i = 0; i < n; i++)
				rx_one(wk, pkts[i]);
			rx_done_free(wk);
			total += n;
			if (n < want)
				break;
		}
	}
	/* what the other workers received for our QPs (a completion worker: responses) */
	for (j = 0; j < ctx->nb_workers; j++) {
		if (wk->redirect[j] == NULL)
			continue;
		n = (uint16_t)rte_ring_sc_dequeue_burst(wk->redirect[j], (void **)pkts, DR_BURST, NULL);
		for (i = 0; i < n; i++) {
			if (wk->role == DR_WK_COMP)
				rx_handed_response(wk, pkts[i]);
			else
				rx_one(wk, pkts[i]);
		}
		rx_done_free(wk);
		total += n;
	}
	return total;
}

uint64_t (*dr_run_clock_base)(void);

int
dr_engine_visit(struct dr_qp_impl *qp, uint64_t now)
{
	int n;

	dr_comp_timers(qp, now);
	n = dr_resp_progress(qp);
	n += dr_req_progress(qp);
	n += dr_comp_progress(qp);
	/* WRs posted to a QP in ERR / SQE after its flush (the poster leaves them to us) */
	if (unlikely(qp->pub.state == DR_QPS_ERR || qp->pub.state == DR_QPS_SQE))
		dr_qp_flush_posted(qp);
	return n;
}

int
dr_engine_qps(struct dr_worker *wk, uint64_t now)
{
	struct dr_qp_impl *qp;
	int n = 0;

	switch (wk->role) {
	case DR_WK_ALL:
		if (wk->many)
			return dr_sched_round(wk, now);   /* many QPs: those worth a visit */
		TAILQ_FOREACH(qp, &wk->active, wk_link[0])
			n += dr_engine_visit(qp, now);
		break;
	case DR_WK_RX:
		TAILQ_FOREACH(qp, &wk->active, wk_link[DR_WK_RX])
			n += dr_resp_progress(qp);
		break;
	case DR_WK_TX:
		TAILQ_FOREACH(qp, &wk->active, wk_link[DR_WK_TX])
			n += dr_req_progress(qp);
		break;
	case DR_WK_COMP:
		TAILQ_FOREACH(qp, &wk->active, wk_link[DR_WK_COMP]) {
			dr_comp_timers(qp, now);
			n += dr_comp_progress(qp);
			/* in ERR / SQE the responder and requester take no WQE: the flush is the completer's */
			if (unlikely(qp->pub.state == DR_QPS_ERR || qp->pub.state == DR_QPS_SQE))
				dr_qp_flush_posted(qp);
		}
		break;
	}
	return n;
}

uint64_t
dr_wk_round_begin(struct dr_worker *wk, uint64_t tsc)
{
	wk->in_round = true;
	return dr_run_clock_advance(&wk->clock, dr_run_clock_base_now(tsc));
}

void
dr_wk_round_end(struct dr_worker *wk)
{
	wk->in_round = false;
	dr_cq_notify_flush(wk);
}

void
dr_engine_post_kick(struct dr_qp_impl *qp)
{
	struct dr_worker *wk = qp->wk;

	if (wk == NULL || wk->in_round || qp->pub.context->attr.mode != DR_PROGRESS_INLINE ||
	    qp->pub.state != DR_QPS_RTS)
		return;
	RTE_PER_LCORE(dr_cur_worker) = wk;
	(void)dr_wk_round_begin(wk, rte_rdtsc());
	(void)dr_req_progress(qp);
	dr_wk_tx_flush(wk);
	dr_wk_round_end(wk);
}

/* One inline round: at most @budget frames from the rx queue (DR_RX_BUDGET_ANY: the round's own bound). */
static int
progress_inline(struct dr_context *ctx, uint32_t budget)
{
	struct dr_worker *wk;
	uint64_t now;
	int n;

	wk = &ctx->wk[0];
	ctx->inline_rounds++;
	dr_ctl_inline_round(ctx);       /* slow-path calls other threads queued (dr_control.h) */
	wk->rx_budget = budget;
	RTE_PER_LCORE(dr_cur_worker) = wk;
	now = rte_rdtsc();
	/*
	 * the QPs' timers run on the run clock (inline: every gap counts; what
	 * came meanwhile is taken first, at this round's time: a response's
	 * round trip ends now)
	 */
	(void)dr_wk_round_begin(wk, now);
	n = dr_engine_rx(wk);
	n += dr_engine_qps(wk, wk->clock.now);
	n += dr_engine_ctl_tx(wk);
	dr_wk_tx_flush(wk);
	dr_wk_round_end(wk);
	dr_port_watch(ctx, now);
	/* the connection manager's turn (QP1's MADs, CM timers), when it runs and is due */
	if (unlikely(ctx->cm_progress != NULL) && now >= ctx->cm_next)
		ctx->cm_progress(ctx, now);
	wk->rx_budget = DR_RX_BUDGET_ANY;
	if (ctx->attr.idle == DR_IDLE_SLEEP || ctx->attr.idle == DR_IDLE_AUTO) {
		uint64_t t = dr_run_clock_base_now(now);   /* the time base a test may hold */

		if (ctx->attr.idle == DR_IDLE_SLEEP || n != 0 || dr_idle_cpu_shared(wk, t))
			dr_idle_inline(wk, t, n);
	}
	return n;
}

int
dr_progress(struct dr_context *ctx)
{
	if (ctx == NULL)
		return -EINVAL;
	if (ctx->attr.mode != DR_PROGRESS_INLINE)
		return 0;               /* the workers drive it */
	return progress_inline(ctx, DR_RX_BUDGET_ANY);
}

int
dr_progress_budget(struct dr_context *ctx, unsigned int max_pkts)
{
	if (ctx == NULL)
		return -EINVAL;
	if (ctx->attr.mode != DR_PROGRESS_INLINE)
		return 0;
	return progress_inline(ctx, RTE_MIN((uint32_t)max_pkts, DR_RX_BUDGET_ANY - 1));
}
