/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_AGENT_H
#define DR_CM_AGENT_H

/*
 * The CM agent of one port (IBA 12.9, 12.11): the connections of that port
 * by Local Communication ID, the listeners by Service ID, the SIDR requests
 * outstanding, and the routing of every CM MAD that arrives on QP1 to the
 * one that takes it:
 *
 *   REQ        a connection that already has it (the same peer comm ID and
 *              CA GUID: a duplicate), else the listener of its Service ID
 *              (the owner decides: a new passive connection, or a REJ),
 *              else REJ "invalid Service ID"
 *   MRA, REJ, REP, RTU, DREQ, DREP
 *              the connection of its Remote Communication ID (a REJ of a
 *              REQ we never answered names no ID of ours: found by the
 *              peer's ID and address); REP without one: REJ "invalid comm
 *              ID"; DREQ without one: DREP all the same (IBA 12.9.7)
 *   SIDR_REQ   the listener (the owner answers with dr_cm_agent_sidr_rep()),
 *              else SIDR_REP "service ID not supported"
 *   SIDR_REP   the request of its Request ID
 *
 * and the timers of all of them. Single-threaded and clock-free like
 * dr_cm_conn.h (the owner serialises calls and passes "now" in ns), so it
 * runs unchanged in unit tests with two agents wired back to back. Tables are
 * allocated once, at dr_cm_agent_init().
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_cm_conn.h"

/** Where a peer's CM is: the GID its MADs came from (IPv4-mapped for IPv4). */
struct dr_cm_peer {
	uint8_t gid[16];
};

/** Counters of an agent (telemetry /dr/cm). */
struct dr_cm_agent_stats {
	uint64_t rx;                 /**< CM MADs taken */
	uint64_t rx_bad;             /**< not a CM MAD we take (dr_cm_msg_check()) */
	uint64_t rx_dup;             /**< duplicates and messages no state takes */
	uint64_t rx_unmatched;       /**< for no connection or request of ours */
	uint64_t tx;                 /**< MADs sent */
	uint64_t retransmits;        /**< of them, resent on a timeout */
	uint64_t rej_sent;
	uint64_t rej_rcvd;
	uint64_t timeouts;           /**< REQ, REP, DREQ and SIDR_REQ given up */
	uint64_t busy;               /**< SIDR_REQs refused: max_sidr unanswered already */
	uint64_t conns;              /**< connection slots in use (time wait included) */
};

struct dr_cm_agent;

/** How an agent reaches its owner (the rdma_cm layer) and the wire (QP1). */
struct dr_cm_agent_ops {
	/** Send @mad to the CM at @to. */
	void (*send)(void *owner, const struct dr_cm_peer *to, const uint8_t *mad);
	/** A REQ for the listener whose cookie is @listener: make a connection
	 *  with dr_cm_agent_accept_req(), or leave it and it is rejected
	 *  ("no resources" unless dr_cm_agent_reject_req() said otherwise). */
	void (*req)(void *owner, void *listener, const struct dr_cm_peer *from, const uint8_t *mad);
	/** Event @ev of connection @c (its cookie: dr_cm_agent_user()). */
	void (*event)(void *owner, struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad);
	/** A SIDR_REQ for the listener @listener: answer with dr_cm_agent_sidr_rep()
	 *  (now or later; until then the requester's resends are dropped). */
	void (*sidr_req)(void *owner, void *listener, const struct dr_cm_peer *from, const uint8_t *mad);
	/** The SIDR_REP to our request @user, or NULL when it timed out. */
	void (*sidr_rep)(void *owner, void *user, const uint8_t *mad);
};

struct dr_cm_slot;
struct dr_cm_listener;
struct dr_cm_sidr;
struct dr_cm_sidr_in;

/** An agent; its fields are its own. */
struct dr_cm_agent {
	const struct dr_cm_agent_ops *ops;
	void *owner;
	uint64_t ca_guid;
	uint32_t id_mask;             /**< XORed into comm IDs: not guessable, not reused soon */
	uint32_t max_conns;
	struct dr_cm_slot *slots;
	uint32_t *free_slots;         /**< a stack of free slot indexes */
	uint32_t nb_free;
	uint32_t *used;               /**< the slots in use, in no order (scans walk these only) */
	uint32_t nb_used;
	uint32_t max_listeners;
	struct dr_cm_listener *listeners;
	uint32_t max_sidr;
	struct dr_cm_sidr *sidr;
	struct dr_cm_sidr_in *sidr_in; /**< the peers' SIDR_REQs not answered yet (max_sidr) */
	uint32_t sidr_seq;
	uint64_t tid_seq;
	bool req_taken;               /**< inside ops->req: the owner took the REQ */
	uint16_t req_reason;          /**< else the REJ reason */
	struct dr_cm_agent_stats stats;
};

/**
 * Set up @a for @max_conns connections, @max_listeners listeners and
 * @max_sidr SIDR requests outstanding each way; comm IDs mixed with @seed.
 * 0, -EINVAL or -ENOMEM.
 */
int dr_cm_agent_init(struct dr_cm_agent *a, uint32_t max_conns, uint32_t max_listeners, uint32_t max_sidr,
		     uint64_t ca_guid, uint32_t seed, const struct dr_cm_agent_ops *ops, void *owner);

/** Free @a's tables; its connections are gone without a word. */
void dr_cm_agent_fini(struct dr_cm_agent *a);

/** Listen on @service_id with cookie @listener. 0, -EADDRINUSE, -ENOSPC. */
int dr_cm_agent_listen(struct dr_cm_agent *a, uint64_t service_id, void *listener);

/** Stop listening on @service_id. 0 or -ENOENT. */
int dr_cm_agent_unlisten(struct dr_cm_agent *a, uint64_t service_id);

/** A new active connection to @to, with cookie @user; NULL when every slot is taken. */
struct dr_cm_conn *dr_cm_agent_conn_new(struct dr_cm_agent *a, const struct dr_cm_peer *to,
					const struct dr_cm_timing *t, void *user);

/** A fresh TransactionID (the agent's own sequence). */
uint64_t dr_cm_agent_tid(struct dr_cm_agent *a);

/**
 * Inside ops->req only: take the REQ as a new passive connection with
 * cookie @user (in REQ_RCVD). NULL when every slot is taken (the REQ is
 * then rejected, "no resources").
 */
struct dr_cm_conn *dr_cm_agent_accept_req(struct dr_cm_agent *a, const struct dr_cm_peer *from,
					  const uint8_t *mad, const struct dr_cm_timing *t, void *user,
					  uint64_t now);

/** Inside ops->req only: the REJ reason if the owner takes no connection (default: no resources). */
void dr_cm_agent_reject_req(struct dr_cm_agent *a, uint16_t reason);

/**
 * The consumer of @c is gone: abandon it (dr_cm_conn_abandon()); its slot is
 * freed by the first dr_cm_agent_timers() that finds it idle (after its time
 * wait). Safe inside ops->event.
 */
void dr_cm_agent_conn_release(struct dr_cm_agent *a, struct dr_cm_conn *c, uint64_t now);

/** The cookie of @c. */
void *dr_cm_agent_user(const struct dr_cm_conn *c);

/** The peer of @c. */
const struct dr_cm_peer *dr_cm_agent_peer(const struct dr_cm_conn *c);

/** A MAD of @len bytes from @from (the UD payload of a packet to QP1). */
void dr_cm_agent_rx(struct dr_cm_agent *a, const struct dr_cm_peer *from, const uint8_t *mad,
		    size_t len, uint64_t now);

/** Run every timer due at @now; free the slots of released connections that are idle. */
void dr_cm_agent_timers(struct dr_cm_agent *a, uint64_t now);

/** True while a connection waits for the DREP to its DREQ. */
bool dr_cm_agent_disconnecting(const struct dr_cm_agent *a);

/** The earliest timer (ns), or UINT64_MAX. */
uint64_t dr_cm_agent_next_deadline(const struct dr_cm_agent *a);

/**
 * Send a SIDR_REQ for @service_id with @pdata to @to, resent every
 * @timeout_ns up to @retries times; ops->sidr_rep(@user) gets the answer
 * or NULL. 0, -EINVAL, -ENOSPC.
 */
int dr_cm_agent_sidr_req(struct dr_cm_agent *a, const struct dr_cm_peer *to, uint64_t service_id,
			 const uint8_t *pdata, uint8_t len, uint64_t timeout_ns, uint8_t retries,
			 void *user, uint64_t now);

/** Forget the SIDR requests of @user (no callback after). */
void dr_cm_agent_sidr_cancel(struct dr_cm_agent *a, void *user);

/**
 * Answer the SIDR_REQ @req from @to: @status, and on success the QPN and
 * Q_Key of the service with @pdata. 0 or -EINVAL.
 */
int dr_cm_agent_sidr_rep(struct dr_cm_agent *a, const struct dr_cm_peer *to, const uint8_t *req,
			 uint8_t status, uint32_t qpn, uint32_t qkey, const uint8_t *pdata, uint8_t len);

#endif /* DR_CM_AGENT_H */
