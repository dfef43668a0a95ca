/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_TRANSPORT_H
#define DR_TRANSPORT_H

/*
 * What the RC transport's files (dr_engine.c, dr_qp_pkt.c, dr_req.c,
 * dr_resp.c, dr_comp.c) share besides the stage entry points of
 * dr_qp_impl.h: limits of the state machines, the data movers between
 * packets and memory, the go-back-N rewind and the timer arithmetic.
 * Internal: not installed, not part of the verbs contract.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dr_psn.h"
#include "dr_qp_impl.h"

/*
 * Send window: the requester never has more than qp->window PSNs
 * outstanding (distance from comp.psn). IBA 9.7.1 allows up to 2^23; a
 * window near the bandwidth-delay product keeps go-back-N cheap (a loss
 * resends at most that much: IRN's BDP flow control). The context's
 * inflight_bytes in packets of the path MTU, within these bounds (rxe uses
 * RXE_MAX_UNACKED_PSNS = 128); with selective repeat at most DR_SACK_BITS,
 * what the responder's map covers (dr_req_start()).
 */
#define DR_REQ_WINDOW 2048
#define DR_REQ_WINDOW_MIN 16
/* AckReq on the last packet of a message and on every 64th packet of a long one (rxe: 64). */
#define DR_ACKREQ_EVERY 64
/* The responder acknowledges at least every this many executed requests even without AckReq. */
#define DR_RESP_ACK_EVERY 64
/* READ responses a QP emits per progress round (fairness with the other stages). */
#define DR_RESP_PKTS_PER_ROUND DR_MAX_PKTS_PER_QP_ROUND
/*
 * READ responses beyond the expected PSN tolerated before the missing one is
 * requested again (reordering, not loss, below this; rxe ignores them all and
 * waits for the ACK timer).
 */
#define DR_READ_OOO_RETRY 3
/*
 * Receive bursts per progress round, at most (the rx stage stops at the first
 * short burst). A round visits every active QP, so with thousands of them it
 * is long: the rx queue must drain faster than a peer fills it (16k QPs
 * reading at once need 16; 4 let their responses wait past the ACK timeout).
 * With few QPs, 4 (more holds back the ACKs of a round: 5% of the 64 B WRITE
 * message rate).
 */
#define DR_RX_BURSTS_PER_ROUND 4
#define DR_RX_BURSTS_MANY_QPS 16
#define DR_RX_MANY_QPS 256
/* Largest DMA length a RETH may announce (rxe's check_length(): 2^31). */
#define DR_RETH_MAX_LEN (1u << 31)

/* QP states in which each stage runs. */
static inline bool
dr_qp_can_receive(const struct dr_qp_impl *qp)
{
	/*
	 * IBA 10.3.1: requests are accepted from RTR on; SQD/SQE still receive.
	 * A responder that failed (a pipeline's move to ERR is on its way) takes
	 * no more.
	 */
	return (qp->pub.state == DR_QPS_RTR || qp->pub.state == DR_QPS_RTS ||
		qp->pub.state == DR_QPS_SQD || qp->pub.state == DR_QPS_SQE) && !qp->resp.failing;
}

static inline bool
dr_qp_can_send(const struct dr_qp_impl *qp)
{
	return qp->pub.state == DR_QPS_RTS || qp->pub.state == DR_QPS_SQD;
}

/* Bytes of a READ placed in order so far (the completer writes them, the requester reads: dr_handoff.h). */
static inline uint32_t
dr_wqe_resp_bytes(const struct dr_send_wqe *wqe)
{
	return __atomic_load_n(&wqe->resp_bytes, __ATOMIC_RELAXED);
}

/* Packets of a message of @len bytes at path MTU @mtu, a power of two (at least one, IBA 9.7.2). */
static inline uint32_t
dr_msg_pkts(uint32_t len, uint32_t mtu)
{
	return len == 0 ? 1 : (uint32_t)(((uint64_t)len + mtu - 1) >> rte_bsf32(mtu));
}

/*
 * A READ's first response not placed yet, counted from its first: each
 * response takes one PSN from first_psn and carries one PMTU but the last
 * (IBA 9.7.4.1.3).
 */
static inline uint32_t
dr_read_next_k(const struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	return dr_wqe_resp_bytes(wqe) >> rte_bsf32(qp->mtu);   /* a power of two */
}

/* The PSN of that response (dr_read_next_k()). A retried READ request takes this PSN too. */
static inline uint32_t
dr_read_next_psn(const struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	return dr_psn_add(wqe->first_psn, dr_read_next_k(qp, wqe));
}

/*
 * The worker running the calling stage of @qp, whose counters and transmit
 * staging the stage uses: the calling engine thread's (each stage of a
 * pipeline group on its own lcore), else the QP's (a slow-path call run in
 * the caller, inline mode before the first round).
 */
static inline struct dr_worker *
dr_qp_wk(const struct dr_qp_impl *qp)
{
	struct dr_worker *w = RTE_PER_LCORE(dr_cur_worker);

	return likely(w != NULL && w->ctx == qp->pub.context) ? w : qp->wk;
}

/* Room left in the worker's transmit staging, flushing it once when full. */
static inline unsigned int
dr_tx_room(struct dr_worker *wk)
{
	unsigned int cap = RTE_DIM(wk->tx_buf);

	if (wk->tx_count >= cap)
		dr_wk_tx_flush(wk);
	return wk->tx_count < cap ? cap - wk->tx_count : 0;
}

/* ---- data movers (dr_qp_pkt.c) ---- */

/*
 * Append @len payload bytes of @wqe, from byte @offset of its message, to the
 * packet @m: from the inline copy when the WR was inline, else gathered from
 * its SGEs (each L_Key must name a valid MR of the QP's PD covering the SGE,
 * IBA 10.6.3.1); attached instead of copied (zero-copy) when they lie in one
 * SGE and are at least the context's tx_zcopy_min. Returns 0, -EFAULT /
 * -EACCES (bad local key or range), or -ENOSPC / -ENOBUFS (no room in the
 * mbuf, no mbuf: retried later).
 */
int dr_qp_pkt_add_payload(struct dr_qp_impl *qp, struct rte_mbuf *m, const struct dr_send_wqe *wqe,
			  uint32_t offset, uint32_t len);

/*
 * Attach @len bytes at @data, inside the region @mr, as the payload of @m
 * (dr_pkt_attach()): @mr counts the frame in flight until the PMD frees it,
 * and dr_dereg_mr() waits for that. Returns 0, or -ENOBUFS (no mbuf).
 */
int dr_qp_pkt_attach(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_mr_impl *mr, void *data,
		     uint32_t len);

/*
 * The ICRC check of a frame left unchecked on receive (dr_resp_place.c,
 * dr_comp_place.c): with @dst, done while the payload is copied there (one
 * pass), else alone. A bad frame is counted (rx_bad_icrc) and freed: false.
 * A good one placed is counted (rx_placed): true.
 */
bool dr_qp_rx_check_placing(struct dr_qp_impl *qp, struct rte_mbuf *m, const struct dr_pkt_info *pi,
			    uint8_t *dst);

/*
 * Where @len bytes from byte @offset of an SGE list land when they lie in one
 * SGE whose L_Key names a region of the QP's PD with local write (IBA
 * 10.6.3.1): the host address, else NULL (the caller scatters as usual).
 */
uint8_t *dr_qp_sge_span(struct dr_qp_impl *qp, const struct dr_sge *sge, uint16_t num_sge, uint32_t offset,
			uint32_t len);

/*
 * Scatter @len bytes of the packet @m, starting @moff bytes into it, into the
 * memory the SGE list describes, from byte @offset of the list on. Every MR
 * touched must belong to the QP's PD and grant LOCAL_WRITE. Returns 0,
 * -EFAULT / -EACCES (bad local key or range), or -EMSGSIZE (list too short).
 */
int dr_qp_sge_scatter(struct dr_qp_impl *qp, const struct dr_sge *sge, uint16_t num_sge, uint32_t offset,
		      const struct rte_mbuf *m, uint32_t moff, uint32_t len);

/* As dr_qp_sge_scatter(), from the flat buffer @src. */
int dr_qp_sge_write(struct dr_qp_impl *qp, const struct dr_sge *sge, uint16_t num_sge, uint32_t offset,
		    const void *src, uint32_t len);

/* Copy @len bytes of a (possibly chained) mbuf from byte @off into @dst. */
void dr_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *dst);

/* ---- requester (dr_req.c) ---- */

/* A READ or an atomic: a WQE whose responses carry data and take an initiator slot. */
static inline bool
dr_wqe_is_rd_atomic(const struct dr_send_wqe *wqe)
{
	return wqe->rd_atomic;
}

/*
 * Go-back-N (dr_req_state.c): the requester's position back to the oldest
 * unacknowledged PSN, on its own lcore (the completer asks, dr_handoff.h).
 */
void dr_req_rewind(struct dr_qp_impl *qp);

/*
 * Called by the completer (a packet, not the requester's state: it writes
 * nothing of qp->req). Ask READ @wqe again for @len bytes from its first
 * response not received in order (the gap the completer found,
 * dr_read_hold_gap()), outside the requester's sequence: the READs behind
 * it keep coming. 0 or -errno (no mbuf / MAC: retried by the timer).
 */
int dr_req_reread(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe, uint32_t len);
/*
 * Called by the completer for selective repeat (dr_comp_sr.c), the same
 * way: send again the request packet of @wqe at @psn (a SEND / WRITE
 * segment, a READ request none of whose responses came, an atomic), AckReq
 * set, along the completer's own headers. 0, -EINVAL (no request packet of
 * @wqe has that PSN), or -errno (no mbuf, room or MAC: asked again later).
 */
int dr_req_resend(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe, uint32_t psn);
/*
 * Internal, for the transport tests (not in the version map; NULL
 * otherwise): called on the requester's lcore after it built the frame of
 * a WQE it resends (go-back-N) and before it checks that the completer has
 * not retired that WQE meanwhile: test_rc_race.c holds the requester there
 * until the completer retired it and the poster reused its slot.
 */
extern void (*dr_req_resend_hook)(struct dr_qp_impl *qp);

/* ---- completer (dr_comp.c) ---- */

/*
 * The adaptive retransmission timer (dr_comp_rto.c): bounds in
 * microseconds. RTO = max(DR_RTO_MIN_US, min(srtt + 4 rttvar, max(
 * DR_RTO_BACKOFF_CAP_US, DR_RTO_MEDIAN_MULT x the median of the last
 * DR_RTT_RECENT samples))), DR_RTO_INIT_US before the first sample,
 * doubled per expiry without progress up to DR_RTO_BACKOFF_CAP_US (or
 * itself when longer), never above the local ACK timeout
 * (DR_RTO_MAX_US when that is infinite); the tail-loss probe after
 * max(2 srtt, DR_TLP_MIN_US).
 */
#define DR_RTO_MIN_US 5000    /* a path that pauses for a scheduler slice is no loss (eRPC: 5 ms) */
#define DR_RTO_INIT_US 10000   /* no sample yet: a slow or queued first flight is no loss */
#define DR_RTO_MAX_US 500000
#define DR_RTO_BACKOFF_MAX 16
#define DR_RTO_BACKOFF_CAP_US 8000
#define DR_TLP_MIN_US 1000
#define DR_RTO_MEDIAN_MULT 2   /* a round trip past 2x the recent median is a late peer's, not the path's */

/* The QP starts sending at @sq_psn (RTS): the timer's and the round trip's PSN marks. */
void dr_comp_rto_start(struct dr_qp_impl *qp, uint32_t sq_psn);
/* The TSC frequency the QP's timers count in: its context's (the TSC's until that is known). */
static inline uint64_t
dr_qp_tsc_hz(const struct dr_qp_impl *qp)
{
	uint64_t hz = qp->pub.context->tsc_hz;

	return hz != 0 ? hz : rte_get_tsc_hz();
}
/* The local ACK timeout in TSC ticks, cached per attr.timeout; 0 = infinite (dr_comp.c). */
uint64_t dr_comp_timeout_ticks(struct dr_qp_impl *qp);
/* Requests outstanding at @now: the round trip, the tail-loss probe, the early go-back-N (no retry spent). */
void dr_comp_rto_timer(struct dr_qp_impl *qp, uint64_t now, bool ack_timeout_due);
/* A response is about to be walked: the newest request sent is timed if none is (Karn's rule kept). */
void dr_comp_rtt_watch(struct dr_qp_impl *qp);
/* A response came at @now (after its walk): the round-trip sample, and progress restarts the timer. */
void dr_comp_rto_acked(struct dr_qp_impl *qp, uint64_t now);
/*
 * A round-trip sample of @rtt ticks (RFC 6298 2.2, 2.3: alpha 1/8, beta
 * 1/4), kept among the recent ones whose median bounds srtt + 4 rttvar.
 */
void dr_comp_rtt_sample(struct dr_qp_impl *qp, uint64_t rtt);
/* PSN @psn is sent again (not by a go-back-N): a round trip timed at or after it is spoiled (Karn). */
void dr_comp_rtt_cancel(struct dr_qp_impl *qp, uint32_t psn);
/*
 * RFC 6298's srtt + 4 rttvar in ticks, at most max(DR_RTO_BACKOFF_CAP_US,
 * DR_RTO_MEDIAN_MULT x the median of the recent samples); 0 before the first sample.
 */
uint64_t dr_comp_rtt_timeout(const struct dr_qp_impl *qp);
/* The RTO before any backoff, in ticks: max(DR_RTO_MIN_US, dr_comp_rtt_timeout()). */
uint64_t dr_comp_rto_base(const struct dr_qp_impl *qp);

/* A timer backed off (RFC 6298 5.5): @base doubled @n times, never above @cap. */
static inline uint64_t
dr_backoff(uint64_t base, unsigned int n, uint64_t cap)
{
	uint64_t r = base;

	for (unsigned int i = 0; i < n && r < cap; i++)
		r *= 2;
	return RTE_MIN(r, cap);
}
/* The sent, unacknowledged WQE holding request PSN @psn, searched from SQ index *@i on; or NULL. */
const struct dr_send_wqe *dr_comp_sent_wqe(struct dr_qp_impl *qp, uint32_t psn, uint32_t *i);

/*
 * Keepalive (dr_comp_keepalive.c; dr_context_attr.keepalive_ms): with
 * nothing outstanding, a probe when the peer was not heard for an interval;
 * true when the QP failed (unanswered probes) and went to ERR.
 */
bool dr_comp_keepalive(struct dr_qp_impl *qp, uint64_t now);
/*
 * Called by the keepalive: a zero-length RDMA WRITE at @psn, AckReq set,
 * along the completer's headers (a duplicate of an acknowledged PSN: the
 * responder acknowledges it again, IBA 9.7.5.1.1 C9-105). 0 or -errno.
 */
int dr_req_keepalive(struct dr_qp_impl *qp, uint32_t psn);

/* Selective repeat: a SACK's map, after its ACK was handled; resend what it shows missing (dr_comp_sr.c). */
void dr_comp_sr_rx(struct dr_qp_impl *qp, const struct dr_pkt_info *pi);
/* Selective repeat: a response came at @now: the responder spoke (dr_comp_sr.c). */
void dr_comp_sr_acked(struct dr_qp_impl *qp, uint64_t now);
/* Selective repeat: no response for the recovery timeout while requests are outstanding: probe (dr_comp_sr.c). */
void dr_comp_sr_timer(struct dr_qp_impl *qp, uint64_t now);

/* IBA table 45: RNR NAK timer field -> minimum wait in microseconds. */
uint32_t dr_rnr_timer_usec(uint8_t code);
/* Local ACK timeout 4.096 us * 2^@timeout in ticks of a @hz clock; 0 for timeout 0 (infinite). */
uint64_t dr_ack_timeout_ticks(uint8_t timeout, uint64_t hz);

/* ---- engine (dr_engine.c): the stages, callable one by one (dr_engine.h has the rest) ---- */

/* Receive the bursts of a round and the redirected frames, dispatch them; returns the frames. */
uint16_t dr_engine_rx(struct dr_worker *wk);
/* Run timers, responder, requester and completer of the worker's active QPs; returns packets/CQEs. */
int dr_engine_qps(struct dr_worker *wk, uint64_t now);

#endif /* DR_TRANSPORT_H */
