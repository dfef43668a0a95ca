/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The engine: the stages of the transport and who runs them. In
 * DR_PROGRESS_INLINE mode dr_progress() runs every stage once, in the
 * caller's thread:
 *
 *   rx        a burst from the backend; each frame is checked (one function
 *             per check, in order) and handed to the responder (requests) or
 *             the completer (responses) of its QP
 *   per QP    timers (local ACK timeout, RNR wait), responder (owed ACKs,
 *             READ responses), requester (new packets), completer (CQEs)
 *   tx        the frames built this round go to the backend
 *
 * The stages are separate functions (dr_engine_rx(), dr_engine_qps()) so a
 * later pipeline mode can run them on separate lcores.
 *
 * Active QPs: the engine walks ctx->qp_table up to the number of QPs the
 * context has (ctx->num_qps), skipping QPs outside RTR/RTS/SQD/SQE/ERR. A
 * compact list maintained by the QP state machine would be cheaper with
 * many idle QPs; with DR_MAX_QP = 1024 pointers the walk costs well under
 * a microsecond per round, so it stays simple for now.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dr_log.h"
#include "dr_transport.h"

/* Outcome of the receive checks. */
enum dr_rx_verdict {
	RX_OK,          /* go on */
	RX_OTHER,       /* not RoCEv2: the backend's (ARP, ND, ...) */
	RX_DROP,        /* counted and freed */
};

/* Check PARSE: a well-formed RoCEv2 packet (IBA Annex A17.4, 9.2). */
static enum dr_rx_verdict
rx_check_parse(struct dr_context *ctx, const struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	enum dr_pkt_status st = dr_pkt_parse(m, pi);

	if (st == DR_PKT_OK)
		return RX_OK;
	if (!dr_pkt_status_is_error(st)) {
		ctx->stats.rx_not_roce++;
		return RX_OTHER;
	}
	ctx->stats.rx_malformed++;
	DR_DP_LOG(ctx, DEBUG, "rx: malformed frame: %s", dr_pkt_status_str(st));
	return RX_DROP;
}

/* Check ICRC (IBA 7.8.1, Annex A17.3.3: a packet with a bad ICRC is silently dropped). */
static enum dr_rx_verdict
rx_check_icrc(struct dr_context *ctx, const struct rte_mbuf *m, const struct dr_pkt_info *pi)
{
	if (dr_pkt_check_icrc(m, pi) == DR_PKT_OK)
		return RX_OK;
	ctx->stats.rx_bad_icrc++;
	return RX_DROP;
}

/* Check QP: the destination QP exists (IBA 9.6.1.x: an unknown QP drops the packet silently). */
static struct dr_qp_impl *
rx_check_qp(struct dr_context *ctx, const struct dr_pkt_info *pi)
{
	struct dr_qp_impl *qp = dr_qp_lookup(ctx, dr_bth_qpn(dr_pkt_bth(pi)));

	if (qp == NULL)
		ctx->stats.rx_no_qp++;
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
rx_check_transport(struct dr_context *ctx, const struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	if ((pi->opcode & DR_OPCODE_TRANSPORT_MASK) == qp_transport(qp->pub.qp_type))
		return RX_OK;
	ctx->stats.rx_no_qp++;
	return RX_DROP;
}

/* Check P_KEY (IBA 9.6.1.1, 10.9.1: the default partition, membership bit ignored; rxe check_keys()). */
static enum dr_rx_verdict
rx_check_pkey(const struct dr_pkt_info *pi)
{
	return (dr_bth_pkey(dr_pkt_bth(pi)) & 0x7FFF) == (DR_DEFAULT_PKEY & 0x7FFF) ? RX_OK : RX_DROP;
}

/* Check ADDRESS: a connected QP takes packets from its peer only (rxe check_addr()); UD from anyone. */
static enum dr_rx_verdict
rx_check_addr(const struct dr_qp_impl *qp, const struct dr_pkt_info *pi)
{
	if (qp->pub.qp_type == DR_QPT_UD)
		return RX_OK;
	if (memcmp(pi->sgid, qp->route.dgid, 16) != 0 || memcmp(pi->dgid, qp->route.sgid, 16) != 0)
		return RX_DROP;
	return RX_OK;
}

/* Check and dispatch one received frame; takes @m. */
static void
rx_one(struct dr_context *ctx, struct rte_mbuf *m)
{
	struct dr_pkt_info pi;
	struct dr_qp_impl *qp;
	enum dr_rx_verdict v;

	ctx->stats.rx_pkts++;
	v = rx_check_parse(ctx, m, &pi);
	if (v == RX_OTHER) {
		ctx->be->rx_other(ctx, m);
		return;
	}
	if (v == RX_OK)
		v = rx_check_icrc(ctx, m, &pi);
	if (v != RX_OK)
		goto drop;
	qp = rx_check_qp(ctx, &pi);
	if (qp == NULL)
		goto drop;
	if (rx_check_transport(ctx, qp, &pi) != RX_OK || rx_check_pkey(&pi) != RX_OK ||
	    rx_check_addr(qp, &pi) != RX_OK)
		goto drop;
	if (qp->pub.qp_type == DR_QPT_UD)
		dr_resp_ud_rx(qp, m, &pi);
	else if ((pi.mask & DR_OPF_REQ) && qp->pub.qp_type != DR_QPT_XRC_SEND)
		dr_resp_rx(qp, m, &pi);         /* an XRC initiator has no responder */
	else if ((pi.mask & DR_OPF_RESP) && qp->pub.qp_type != DR_QPT_XRC_RECV)
		dr_comp_rx(qp, m, &pi);         /* an XRC target has no requester */
	else
		goto drop;
	return;
drop:
	rte_pktmbuf_free(m);
}

uint16_t
dr_engine_rx(struct dr_context *ctx)
{
	struct rte_mbuf *pkts[DR_BURST];
	uint16_t i, n, total = 0;
	unsigned int b;

	/*
	 * Receive more per round than a QP may send (DR_MAX_PKTS_PER_QP_ROUND):
	 * a peer running the same loop must not outpace us, or its packets wait
	 * behind each other in our rx queue and every loss costs a full window.
	 */
	for (b = 0; b < DR_RX_BURSTS_PER_ROUND; b++) {
		n = ctx->be->rx_burst(ctx, pkts, DR_BURST);
		for (i = 0; i < n; i++)
			rx_one(ctx, pkts[i]);
		total += n;
		if (n < DR_BURST)
			break;
	}
	return total;
}

/* QP states with transport work: receiving, sending, or draining after an error. */
static inline bool
qp_has_work(const struct dr_qp_impl *qp)
{
	switch (qp->pub.state) {
	case DR_QPS_RTR:
	case DR_QPS_RTS:
	case DR_QPS_SQD:
	case DR_QPS_SQE:
	case DR_QPS_ERR:
		return true;
	default:
		return false;
	}
}

int
dr_engine_qps(struct dr_context *ctx, uint64_t now)
{
	uint32_t i, found = 0, limit = ctx->num_qps;
	int n = 0;

	for (i = 0; i < DR_MAX_QP; i++) {
		struct dr_qp_impl *qp = ctx->qp_table[i];

		if (qp == NULL)
			continue;
		if (qp_has_work(qp)) {
			dr_comp_timers(qp, now);
			n += dr_resp_progress(qp);
			n += dr_req_progress(qp);
			n += dr_comp_progress(qp);
		}
		if (++found == limit)
			break;
	}
	return n;
}

int
dr_progress(struct dr_context *ctx)
{
	uint64_t now;
	int n;

	if (ctx == NULL)
		return -EINVAL;
	if (ctx->attr.mode != DR_PROGRESS_INLINE)
		return -ENOTSUP;

	n = dr_engine_rx(ctx);
	now = rte_rdtsc();
	n += dr_engine_qps(ctx, now);
	dr_ctx_tx_flush(ctx);
	dr_port_watch(ctx, now);
	return n;
}
