/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_COUNTERS_H
#define DR_VERBS_COUNTERS_H

/**
 * @file
 * What the transport did, for the application to read (no ibverbs
 * counterpart: rdma-core shows a device's counters through sysfs and
 * `rdma statistic`, Linux rxe's among them). The same counters are in DPDK
 * telemetry under /dr/ while a context is open (deployment.rst).
 *
 * Each call takes a snapshot: counters of engine lcores that are running
 * may move between two fields. Never reset by these calls.
 */

#include <stdint.h>

#include "dr_verbs_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A context's counters: its transport's, summed over its engine threads, and its port's. */
struct dr_context_counters {
	uint64_t rx_pkts;          /**< RoCEv2 frames received */
	uint64_t tx_pkts;          /**< frames sent */
	uint64_t rx_malformed;     /**< frames that did not parse */
	uint64_t rx_bad_icrc;      /**< frames whose ICRC was wrong */
	uint64_t rx_duplicate;     /**< RC requests behind the expected PSN (IBA 9.7.5.1.1) */
	uint64_t rx_dropped;       /**< requests the responder dropped (could not hold, UC/UD rules) */
	uint64_t tx_nombuf;        /**< frames not built for want of an mbuf (retried) */
	uint64_t retries;          /**< go-back-N retries: after a NAK, an implicit NAK or a timeout */
	uint64_t ack_timeouts;     /**< local ACK timer expiries (IBA 9.7.6.1.3) */
	/** Expiries of the adaptive retransmission timer (a round trip or so; reliability.rst):
	 *  each the oldest request sent again alone or a go-back-N, no retry_cnt spent. */
	uint64_t rto_expiries;
	uint64_t tlp_probes;       /**< tail-loss probes: the newest request sent again alone */
	uint64_t keepalives;       /**< keepalive probes sent (dr_context_attr.keepalive_ms) */
	uint64_t naks_seq_rx;      /**< PSN sequence error NAKs received (a loss the peer saw) */
	uint64_t naks_rnr_rx;      /**< RNR NAKs received (IBA 9.7.5.2.8) */
	uint64_t naks_err_rx;      /**< NAKs of class C received (access, invalid request) */
	uint64_t naks_seq_tx;      /**< PSN sequence error NAKs sent (out-of-sequence requests) */
	uint64_t naks_rnr_tx;      /**< RNR NAKs sent (no receive WQE) */
	uint64_t naks_err_tx;      /**< NAKs of class C sent */
	uint64_t sr_resends;       /**< requests resent by selective repeat */
	/** Of sr_resends, the recovery timer's: no response for a recovery timeout, the
	 *  oldest request sent again (backed off while the peer stays silent). */
	uint64_t sr_probes;
	uint64_t rx_sr_held;       /**< requests after a gap held by selective repeat */
	/** Stalls of the engine's own threads: rounds more than DR_STALL_CAP_US apart,
	 *  which the retransmission timers did not count (reliability.rst). */
	uint64_t stalls;
	uint64_t stall_us;         /**< the time those stalls left out */
	uint64_t max_gap_us;       /**< the longest gap between two rounds of one thread */
	/** Naps of idle threads (dr_context_attr.idle: DR_IDLE_SLEEP, and DR_IDLE_AUTO
	 *  while it finds the CPU shared), inline progress and lcores alike. */
	uint64_t idle_naps;
	/** The port's own counters, where its backend has them (0 otherwise): frames the
	 *  port dropped because its rx queue was full, received in error, dropped for
	 *  want of an mbuf, failed to transmit. The whole port's, whoever uses it. */
	uint64_t port_imissed;
	uint64_t port_ierrors;
	uint64_t port_rx_nombuf;
	uint64_t port_oerrors;
	/** READ responses that came after a lost one, kept at their offset: the READ is
	 *  asked again for the gap only (reliability.rst). */
	uint64_t rx_read_held;
	/** Of rto_expiries, those found needless (F-RTO, RFC 5682): the expiry sent the
	 *  oldest request again alone, and the responder then acknowledged requests sent
	 *  once only - a responder slower than the timer, not a loss (reliability.rst). */
	uint64_t rto_spurious;
	/** Requests kept as copies in the context's pool: more of the application's
	 *  frames were kept than dr_context_attr.app_pool_hold allows. */
	uint64_t rx_app_copied;
};

/**
 * The counters of @p ctx.
 *
 * @return 0, or -EINVAL when an argument is NULL.
 */
int dr_query_context_counters(struct dr_context *ctx, struct dr_context_counters *c);

/** A QP's counters (RC, XRC: the requester's reliability; written by the QP's own stages). */
struct dr_qp_counters {
	uint64_t retries;          /**< go-back-N retries (each spends retry_cnt, IBA 9.7.6.1.x) */
	uint64_t rereads;          /**< READs asked again for a gap, from their first missing byte */
	uint64_t ack_timeouts;     /**< local ACK timer expiries */
	uint64_t max_ack_timeout_us; /**< the longest local ACK timer that expired */
	uint64_t rto_expiries;     /**< adaptive retransmission timer expiries (no retry spent) */
	uint64_t max_rto_us;       /**< the longest adaptive retransmission timer that expired */
	uint64_t tlp_probes;       /**< tail-loss probes sent */
	uint64_t keepalives;       /**< keepalive probes sent */
	uint64_t srtt_us;          /**< the smoothed round trip (RFC 6298; 0: no sample yet) */
	uint64_t rttvar_us;        /**< and its variation */
	uint64_t naks_rx;          /**< NAKs received, every class */
	uint64_t rnr_naks_rx;      /**< RNR NAKs received */
	uint64_t rnr_wait_us;      /**< time spent in the RNR waits they asked for */
	uint64_t naks_tx;          /**< NAKs the QP's responder sent */
	uint64_t sr_resends;       /**< requests resent by selective repeat */
	uint64_t sr_probes;        /**< of them, the recovery timer's probes */
	uint64_t rto_spurious;     /**< of rto_expiries, those found needless (F-RTO, RFC 5682) */
};

/**
 * The counters of @p qp.
 *
 * @return 0, or -EINVAL when an argument is NULL.
 */
int dr_query_qp_counters(struct dr_qp *qp, struct dr_qp_counters *c);

/**
 * Add one QP's counters @p c into @p sum, as a tool that reports many QPs
 * wants them: the counts added up; of max_ack_timeout_us, max_rto_us,
 * srtt_us and rttvar_us, the largest (the worst QP's).
 *
 * @return 0, or -EINVAL when an argument is NULL.
 */
int dr_qp_counters_add(struct dr_qp_counters *sum, const struct dr_qp_counters *c);

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_COUNTERS_H */
