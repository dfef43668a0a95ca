/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_CONN_H
#define DR_CM_CONN_H

/*
 * One connection's CM state machine (IBA vol. 1, 12.9.6 establishment and
 * 12.9.7 release; the states of Figures 155-157), the active and the passive
 * side. It takes the messages addressed to it, the calls of its consumer
 * (the rdma_cm layer above: accept, reject, RTU, disconnect) and its timer,
 * and answers through two callbacks: send a MAD to the peer's CM, and tell
 * the consumer what happened. Retransmission of its own outstanding message
 * (REQ, REP, DREQ) on timeout, the answers to duplicates (MRA, RTU, DREP,
 * REJ), time wait. It owns no QP: the consumer moves the QP on the events.
 *
 * Pure and single-threaded: no EAL, no allocation, no clock of its own
 * (every call takes "now" in nanoseconds), so every step is unit-tested on
 * a virtual clock (test/unit/test_cm_conn.c). The behaviour where IBA leaves
 * a choice is Linux's ib_cm (drivers/infiniband/core/cm.c), the peer that
 * matters: e.g. an MRA is sent only when the REQ comes again while the
 * consumer has not answered.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_cm_msg.h"
#include "dr_cm_param.h"

/** Connection states (IBA 12.9.6, 12.9.7; Linux's enum ib_cm_state). */
enum dr_cm_state {
	DR_CM_IDLE = 0,
	DR_CM_REQ_SENT,          /**< active: REQ out, waiting for REP, MRA or REJ */
	DR_CM_MRA_REQ_RCVD,      /**< active: the peer acknowledged the REQ with an MRA */
	DR_CM_REQ_RCVD,          /**< passive: REQ in, the consumer deciding */
	DR_CM_MRA_REQ_SENT,      /**< passive: REQ in again, an MRA sent */
	DR_CM_REP_SENT,          /**< passive: REP out, waiting for RTU */
	DR_CM_MRA_REP_RCVD,      /**< passive: the peer acknowledged the REP with an MRA */
	DR_CM_REP_RCVD,          /**< active: REP in, the consumer readying its QP */
	DR_CM_ESTABLISHED,
	DR_CM_DREQ_SENT,
	DR_CM_DREQ_RCVD,
	DR_CM_TIMEWAIT,
	DR_CM_STATE_COUNT
};

/** What the machine tells its consumer. */
enum dr_cm_conn_event {
	DR_CM_EV_REP_RCVD,       /**< active: ready the QP (RTR, RTS), then dr_cm_conn_send_rtu() */
	DR_CM_EV_ESTABLISHED,    /**< passive: RTU or first data (dr_cm_conn_comm_est()) */
	DR_CM_EV_REJ_RCVD,       /**< the peer rejected; the mad says why */
	DR_CM_EV_REQ_TIMEOUT,    /**< active: no answer to the REQ after every retry (REJ sent) */
	DR_CM_EV_REP_TIMEOUT,    /**< passive: no RTU after every retry (REJ sent) */
	DR_CM_EV_MRA_RCVD,       /**< the peer needs longer; timeouts extended */
	DR_CM_EV_DREQ_RCVD,      /**< the peer disconnects: answer with dr_cm_conn_disconnect() */
	DR_CM_EV_DREP_RCVD,      /**< our DREQ answered (DREP, or the peer's DREQ crossing it): in time wait */
	DR_CM_EV_DREQ_TIMEOUT,   /**< our DREQ unanswered after every retry: in time wait */
	DR_CM_EV_TIMEWAIT_EXIT,  /**< time wait over: IDLE, the connection may go */
};

struct dr_cm_conn;

/** How the machine acts on the world. */
struct dr_cm_conn_ops {
	/** Send @mad (DR_MAD_SIZE bytes) to the peer's CM (QP1 at its address). */
	void (*send)(struct dr_cm_conn *c, const uint8_t *mad);
	/** @ev happened; @mad is the message that made it, NULL for timeouts and COMM_EST. */
	void (*event)(struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad);
};

/** Timing of a connection (IBA 12.7.x encodings: 4.096 us * 2^t). */
struct dr_cm_timing {
	uint8_t peer_response_timeout;   /**< how long the peer's CM may take to answer */
	uint8_t local_response_timeout;  /**< how long ours takes (sent in the REQ) */
	uint8_t packet_lifetime;         /**< one way on the path */
	uint8_t max_retries;             /**< resends of an unanswered message (0..15) */
	uint8_t mra_service_timeout;     /**< what our MRA asks the peer to wait for */
	uint8_t ack_timeout;             /**< the path's local ACK timeout: time wait is 2 PLT + it */
};

/** One connection; the fields are the machine's, read-only to others. */
struct dr_cm_conn {
	enum dr_cm_state state;
	bool active;                     /**< we sent the REQ */
	uint32_t local_id;               /**< our Local Communication ID */
	uint32_t remote_id;              /**< the peer's (0 until known) */
	uint64_t remote_ca_guid;
	uint64_t local_ca_guid;          /**< ours: a timeout's REJ carries it (Table 109) */
	uint32_t remote_qpn;             /**< the peer's QP (from its REQ or REP) */
	uint32_t local_qpn;
	uint64_t tid;                    /**< TransactionID of the establishment */
	uint64_t dreq_tid;               /**< of our DREQ, or the peer's we answer */
	struct dr_cm_timing timing;
	uint64_t deadline;               /**< ns; 0: no timer */
	uint64_t timeout;                /**< ns to wait for the outstanding message */
	uint8_t retries_left;
	bool out_valid;
	uint8_t out[DR_MAD_SIZE];        /**< the last message sent: resent on timeout or duplicate */
	bool abandoned;                  /**< the consumer is gone: no more events */
	const struct dr_cm_conn_ops *ops;
	void *priv;                      /**< the consumer's */
	uint64_t retransmits;            /**< counters */
	uint64_t dups;
};

/** Nanoseconds of an IBA time value t (4.096 us * 2^t, t 0..31). */
static inline uint64_t
dr_cm_time_ns(uint8_t t)
{
	return UINT64_C(4096) << (t & 31);
}

/** Set up @c in IDLE with @local_id, our CA GUID, @timing, @ops, @priv. */
void dr_cm_conn_init(struct dr_cm_conn *c, uint32_t local_id, uint64_t local_ca_guid,
		     const struct dr_cm_timing *timing, const struct dr_cm_conn_ops *ops, void *priv);

/** Active: send the REQ of @p (its local_comm_id is c->local_id) with @tid. 0, -EINVAL, -EISCONN. */
int dr_cm_conn_connect(struct dr_cm_conn *c, const struct dr_cm_req_param *p, uint64_t tid, uint64_t now);

/** Passive: @c takes the REQ in @mad (checked), in REQ_RCVD. */
void dr_cm_conn_req_rcvd(struct dr_cm_conn *c, const uint8_t *mad, uint64_t now);

/** Passive: accept with the REP of @p (IDs filled in here). 0, -EINVAL (state or values). */
int dr_cm_conn_accept(struct dr_cm_conn *c, struct dr_cm_rep_param *p, uint64_t now);

/** Active: after DR_CM_EV_REP_RCVD, send the RTU with @pdata: ESTABLISHED. 0 or -EINVAL. */
int dr_cm_conn_send_rtu(struct dr_cm_conn *c, const uint8_t *pdata, uint8_t len, uint64_t now);

/**
 * Reject: passive before its REP is answered (REQ_RCVD, MRA_REQ_SENT: the
 * REQ; REP_SENT: the establishment), active after the REP (REP_RCVD: the
 * REP), with @reason and @pdata: IDLE. 0 or -EINVAL.
 */
int dr_cm_conn_reject(struct dr_cm_conn *c, uint16_t reason, const uint8_t *pdata, uint8_t len,
		      uint64_t now);

/**
 * Disconnect: ESTABLISHED sends a DREQ (DREQ_SENT, retried until DREP or
 * timeout); DREQ_RCVD sends the DREP (TIMEWAIT). 0 or -EINVAL.
 */
int dr_cm_conn_disconnect(struct dr_cm_conn *c, const uint8_t *pdata, uint8_t len, uint64_t now);

/** Passive: the QP saw its first packet before the RTU (IBA 12.9.6: COMM_EST): ESTABLISHED. */
void dr_cm_conn_comm_est(struct dr_cm_conn *c, uint64_t now);

/**
 * The consumer is gone: leave without it, as Linux's cm_destroy_id() does:
 * REJ what is being established (IDLE), DREQ once or DREP what is
 * established (then time wait). No event reaches the consumer after this;
 * the owner frees @c once dr_cm_conn_idle() says so.
 */
void dr_cm_conn_abandon(struct dr_cm_conn *c, uint64_t now);

/** True once @c has nothing left to do: IDLE, no timer. */
static inline bool
dr_cm_conn_idle(const struct dr_cm_conn *c)
{
	return c->state == DR_CM_IDLE;
}

/** A message for @c (checked with dr_cm_msg_check(); its attribute @attr_id). */
void dr_cm_conn_rx(struct dr_cm_conn *c, uint16_t attr_id, const uint8_t *mad, uint64_t now);

/** Run the timer if due at @now. */
void dr_cm_conn_timer(struct dr_cm_conn *c, uint64_t now);

/** The name of @st. */
const char *dr_cm_state_str(enum dr_cm_state st);

/** The name of @ev. */
const char *dr_cm_conn_event_str(enum dr_cm_conn_event ev);

/** Build a REJ answering @mad (a message with no connection of ours) into @out. */
void dr_cm_rej_unmatched(uint8_t *out, const uint8_t *mad, uint16_t attr_id, uint16_t reason);

/** Build the DREP answering a DREQ @mad with no connection of ours (IBA 12.9.8.x) into @out. */
void dr_cm_drep_unmatched(uint8_t *out, const uint8_t *mad);

#endif /* DR_CM_CONN_H */
