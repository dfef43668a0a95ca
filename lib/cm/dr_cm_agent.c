/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The CM agent of one port: routing of CM MADs, listeners, SIDR, timers (dr_cm_agent.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dr_cm_agent.h"

/* One connection slot: the machine, its peer, the consumer's cookie. */
struct dr_cm_slot {
	struct dr_cm_conn conn;         /* conn.priv points back here */
	struct dr_cm_agent *agent;
	struct dr_cm_peer peer;
	void *user;
	uint16_t gen;                   /* bumped at each use: IDs are not reused soon */
	uint32_t pos;                   /* in agent->used */
	bool used;
	bool released;                  /* the consumer is gone: free once idle */
};

struct dr_cm_listener {
	uint64_t service_id;
	void *user;
	bool used;
};

/* A SIDR_REQ of ours, waiting for its SIDR_REP (IBA 12.11). */
struct dr_cm_sidr {
	bool used;
	uint32_t request_id;
	struct dr_cm_peer peer;
	void *user;
	uint64_t deadline;
	uint64_t timeout;
	uint8_t retries_left;
	uint8_t out[DR_MAD_SIZE];
};

/* A SIDR_REQ of a peer's, given to the owner and not answered yet (ib_cm's remote SIDR table). */
struct dr_cm_sidr_in {
	bool used;
	uint32_t request_id;
	struct dr_cm_peer peer;
};

#define SLOT_INDEX_BITS 16
#define SLOT_INDEX_MASK ((1u << SLOT_INDEX_BITS) - 1)

/* ---- slots ---------------------------------------------------------------- */

static struct dr_cm_slot *
slot_of(const struct dr_cm_conn *c)
{
	return c->priv;
}

static void
send_raw(struct dr_cm_agent *a, const struct dr_cm_peer *to, const uint8_t *mad)
{
	a->stats.tx++;
	if (dr_mad_get(mad, DR_MAD_ATTR_ID) == DR_CM_ATTR_REJ)
		a->stats.rej_sent++;
	a->ops->send(a->owner, to, mad);
}

static void
slot_send(struct dr_cm_conn *c, const uint8_t *mad)
{
	struct dr_cm_slot *s = slot_of(c);

	send_raw(s->agent, &s->peer, mad);
}

static void
slot_event(struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad)
{
	struct dr_cm_slot *s = slot_of(c);
	struct dr_cm_agent *a = s->agent;

	if (ev == DR_CM_EV_REQ_TIMEOUT || ev == DR_CM_EV_REP_TIMEOUT || ev == DR_CM_EV_DREQ_TIMEOUT)
		a->stats.timeouts++;
	a->ops->event(a->owner, c, ev, mad);
}

static const struct dr_cm_conn_ops slot_ops = { .send = slot_send, .event = slot_event };

static struct dr_cm_slot *
slot_alloc(struct dr_cm_agent *a, const struct dr_cm_peer *peer, const struct dr_cm_timing *t, void *user)
{
	struct dr_cm_slot *s;
	uint32_t idx, id;

	if (a->nb_free == 0)
		return NULL;
	idx = a->free_slots[--a->nb_free];
	s = &a->slots[idx];
	do {
		s->gen++;
		id = (((uint32_t)s->gen << SLOT_INDEX_BITS) | idx) ^ a->id_mask;
	} while (id == 0);              /* 0 means "no ID" in REJ and MRA */
	s->agent = a;
	s->peer = *peer;
	s->user = user;
	s->used = true;
	s->released = false;
	s->pos = a->nb_used;
	a->used[a->nb_used++] = idx;
	dr_cm_conn_init(&s->conn, id, a->ca_guid, t, &slot_ops, s);
	a->stats.conns++;
	return s;
}

static void
slot_free(struct dr_cm_agent *a, struct dr_cm_slot *s)
{
	uint32_t idx = (uint32_t)(s - a->slots), last = a->used[--a->nb_used];

	a->used[s->pos] = last;
	a->slots[last].pos = s->pos;
	s->used = false;
	s->user = NULL;
	a->free_slots[a->nb_free++] = idx;
	a->stats.conns--;
}

/* The slot of our comm ID @id whose peer is @from, or NULL. */
static struct dr_cm_slot *
slot_by_id(struct dr_cm_agent *a, uint32_t id, const struct dr_cm_peer *from)
{
	uint32_t idx = (id ^ a->id_mask) & SLOT_INDEX_MASK;
	struct dr_cm_slot *s;

	if (id == 0 || idx >= a->max_conns)
		return NULL;
	s = &a->slots[idx];
	if (!s->used || s->conn.local_id != id || memcmp(s->peer.gid, from->gid, 16) != 0)
		return NULL;
	return s;
}

/* The passive slot of the peer's comm ID @rid from @from (its REQ, or a REJ naming none of ours). */
static struct dr_cm_slot *
slot_by_remote(struct dr_cm_agent *a, uint32_t rid, const struct dr_cm_peer *from)
{
	for (uint32_t i = 0; i < a->nb_used; i++) {
		struct dr_cm_slot *s = &a->slots[a->used[i]];

		if (!s->conn.active && s->conn.remote_id == rid &&
		    memcmp(s->peer.gid, from->gid, 16) == 0)
			return s;
	}
	return NULL;
}

/* ---- set-up --------------------------------------------------------------- */

int
dr_cm_agent_init(struct dr_cm_agent *a, uint32_t max_conns, uint32_t max_listeners, uint32_t max_sidr,
		 uint64_t ca_guid, uint32_t seed, const struct dr_cm_agent_ops *ops, void *owner)
{
	memset(a, 0, sizeof(*a));
	if (max_conns == 0 || max_conns > SLOT_INDEX_MASK + 1 || max_listeners == 0 || max_sidr == 0 ||
	    ops == NULL)
		return -EINVAL;
	a->slots = calloc(max_conns, sizeof(*a->slots));
	a->free_slots = calloc(max_conns, sizeof(*a->free_slots));
	a->used = calloc(max_conns, sizeof(*a->used));
	a->listeners = calloc(max_listeners, sizeof(*a->listeners));
	a->sidr = calloc(max_sidr, sizeof(*a->sidr));
	a->sidr_in = calloc(max_sidr, sizeof(*a->sidr_in));
	if (a->slots == NULL || a->free_slots == NULL || a->used == NULL || a->listeners == NULL || a->sidr == NULL ||
	    a->sidr_in == NULL) {
		dr_cm_agent_fini(a);
		return -ENOMEM;
	}
	a->ops = ops;
	a->owner = owner;
	a->ca_guid = ca_guid;
	/* the index stays in the low 16 bits: only the generation bits are mixed */
	a->id_mask = seed & ~SLOT_INDEX_MASK;
	a->max_conns = max_conns;
	a->max_listeners = max_listeners;
	a->max_sidr = max_sidr;
	for (uint32_t i = 0; i < max_conns; i++)
		a->free_slots[a->nb_free++] = max_conns - 1 - i;
	a->sidr_seq = seed;
	a->tid_seq = (uint64_t)seed << 32;
	return 0;
}

void
dr_cm_agent_fini(struct dr_cm_agent *a)
{
	free(a->slots);
	free(a->free_slots);
	free(a->used);
	free(a->listeners);
	free(a->sidr);
	free(a->sidr_in);
	a->slots = NULL;
	a->free_slots = NULL;
	a->used = NULL;
	a->listeners = NULL;
	a->sidr = NULL;
	a->sidr_in = NULL;
	a->nb_free = 0;
	a->nb_used = 0;
}

uint64_t
dr_cm_agent_tid(struct dr_cm_agent *a)
{
	return ++a->tid_seq;
}

/* ---- listeners ------------------------------------------------------------ */

static struct dr_cm_listener *
listener_of(struct dr_cm_agent *a, uint64_t service_id)
{
	for (uint32_t i = 0; i < a->max_listeners; i++)
		if (a->listeners[i].used && a->listeners[i].service_id == service_id)
			return &a->listeners[i];
	return NULL;
}

int
dr_cm_agent_listen(struct dr_cm_agent *a, uint64_t service_id, void *listener)
{
	if (listener_of(a, service_id) != NULL)
		return -EADDRINUSE;
	for (uint32_t i = 0; i < a->max_listeners; i++) {
		struct dr_cm_listener *l = &a->listeners[i];

		if (!l->used) {
			*l = (struct dr_cm_listener){ .service_id = service_id, .user = listener, .used = true };
			return 0;
		}
	}
	return -ENOSPC;
}

int
dr_cm_agent_unlisten(struct dr_cm_agent *a, uint64_t service_id)
{
	struct dr_cm_listener *l = listener_of(a, service_id);

	if (l == NULL)
		return -ENOENT;
	l->used = false;
	return 0;
}

/* ---- connections ---------------------------------------------------------- */

struct dr_cm_conn *
dr_cm_agent_conn_new(struct dr_cm_agent *a, const struct dr_cm_peer *to, const struct dr_cm_timing *t,
		     void *user)
{
	struct dr_cm_slot *s = slot_alloc(a, to, t, user);

	return s != NULL ? &s->conn : NULL;
}

struct dr_cm_conn *
dr_cm_agent_accept_req(struct dr_cm_agent *a, const struct dr_cm_peer *from, const uint8_t *mad,
		       const struct dr_cm_timing *t, void *user, uint64_t now)
{
	struct dr_cm_slot *s = slot_alloc(a, from, t, user);

	if (s == NULL)
		return NULL;
	dr_cm_conn_req_rcvd(&s->conn, mad, now);
	a->req_taken = true;
	return &s->conn;
}

void
dr_cm_agent_reject_req(struct dr_cm_agent *a, uint16_t reason)
{
	(void)a;
	a->req_reason = reason;
}

void
dr_cm_agent_conn_release(struct dr_cm_agent *a, struct dr_cm_conn *c, uint64_t now)
{
	struct dr_cm_slot *s = slot_of(c);

	(void)a;
	dr_cm_conn_abandon(c, now);
	/* freed by the next dr_cm_agent_timers(), never under a caller still holding it */
	s->released = true;
	s->user = NULL;
}

void *
dr_cm_agent_user(const struct dr_cm_conn *c)
{
	return slot_of(c)->user;
}

const struct dr_cm_peer *
dr_cm_agent_peer(const struct dr_cm_conn *c)
{
	return &slot_of(c)->peer;
}

/* ---- receive -------------------------------------------------------------- */


static void
reject_unmatched(struct dr_cm_agent *a, const struct dr_cm_peer *to, const uint8_t *mad, uint16_t attr,
		 uint16_t reason)
{
	uint8_t out[DR_MAD_SIZE];

	dr_cm_rej_unmatched(out, mad, attr, reason);
	send_raw(a, to, out);
}

/*
 * IBA 12.9.8.3.1 (as Linux cm_req_handler()): a REQ from a QP that already
 * has a connection here is stale: REJ it, and release the old connection.
 */
static bool
req_stale(struct dr_cm_agent *a, const struct dr_cm_peer *from, const uint8_t *mad, uint64_t now)
{
	uint32_t qpn = (uint32_t)dr_mad_get(mad, DR_CM_REQ_LOCAL_QPN);
	uint64_t guid = dr_mad_get(mad, DR_CM_REQ_LOCAL_CA_GUID);

	for (uint32_t i = 0; i < a->nb_used; i++) {
		struct dr_cm_slot *s = &a->slots[a->used[i]];
		enum dr_cm_state st = s->conn.state;

		if (s->conn.remote_qpn != qpn || s->conn.remote_ca_guid != guid ||
		    (st != DR_CM_ESTABLISHED && st != DR_CM_REP_SENT && st != DR_CM_MRA_REP_RCVD))
			continue;
		reject_unmatched(a, from, mad, DR_CM_ATTR_REQ, DR_CM_REJ_STALE_CONN);
		(void)dr_cm_conn_disconnect(&s->conn, NULL, 0, now);
		return true;
	}
	return false;
}

static void
rx_req(struct dr_cm_agent *a, const struct dr_cm_peer *from, const uint8_t *mad, uint64_t now)
{
	uint32_t rid = (uint32_t)dr_mad_get(mad, DR_CM_REQ_LOCAL_COMM_ID);
	uint64_t guid = dr_mad_get(mad, DR_CM_REQ_LOCAL_CA_GUID);
	struct dr_cm_listener *l;
	struct dr_cm_slot *s = slot_by_remote(a, rid, from);

	if (s != NULL && s->conn.remote_ca_guid == guid) {
		a->stats.rx_dup++;
		dr_cm_conn_rx(&s->conn, DR_CM_ATTR_REQ, mad, now);
		return;
	}
	if (req_stale(a, from, mad, now))
		return;
	l = listener_of(a, dr_mad_get(mad, DR_CM_REQ_SERVICE_ID));
	if (l == NULL) {
		/* IBA 12.6.7.2: no service of that ID here */
		a->stats.rx_unmatched++;
		reject_unmatched(a, from, mad, DR_CM_ATTR_REQ, DR_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	a->req_taken = false;
	a->req_reason = DR_CM_REJ_NO_RESOURCES;
	a->ops->req(a->owner, l->user, from, mad);
	if (!a->req_taken)
		reject_unmatched(a, from, mad, DR_CM_ATTR_REQ, a->req_reason);
}

static void
rx_rej(struct dr_cm_agent *a, const struct dr_cm_peer *from, const uint8_t *mad, uint64_t now)
{
	struct dr_cm_slot *s = slot_by_id(a, (uint32_t)dr_mad_get(mad, DR_CM_REJ_REMOTE_COMM_ID), from);

	a->stats.rej_rcvd++;
	if (s == NULL)  /* a REQ of the peer's that we never answered: our ID is not in it */
		s = slot_by_remote(a, (uint32_t)dr_mad_get(mad, DR_CM_REJ_LOCAL_COMM_ID), from);
	if (s == NULL) {
		a->stats.rx_unmatched++;
		return;
	}
	dr_cm_conn_rx(&s->conn, DR_CM_ATTR_REJ, mad, now);
}

/* MRA, REP, RTU, DREQ, DREP: the connection named by the Remote Communication ID (bytes 4..7). */
static void
rx_by_id(struct dr_cm_agent *a, const struct dr_cm_peer *from, uint16_t attr, const uint8_t *mad, uint64_t now)
{
	struct dr_cm_slot *s = slot_by_id(a, (uint32_t)dr_mad_get(mad, DR_CM_FIELD(4, 0, 32)), from);
	uint64_t dups;

	if (s == NULL) {
		a->stats.rx_unmatched++;
		if (attr == DR_CM_ATTR_DREQ) {
			uint8_t out[DR_MAD_SIZE];

			dr_cm_drep_unmatched(out, mad);
			send_raw(a, from, out);
		} else if (attr == DR_CM_ATTR_REP) {
			reject_unmatched(a, from, mad, attr, DR_CM_REJ_INVALID_COMM_ID);
		}
		return;
	}
	dups = s->conn.dups;
	dr_cm_conn_rx(&s->conn, attr, mad, now);
	a->stats.rx_dup += s->conn.dups - dups;
}

static struct dr_cm_sidr *
sidr_by_id(struct dr_cm_agent *a, uint32_t request_id, const struct dr_cm_peer *from)
{
	for (uint32_t i = 0; i < a->max_sidr; i++) {
		struct dr_cm_sidr *r = &a->sidr[i];

		if (r->used && r->request_id == request_id && memcmp(r->peer.gid, from->gid, 16) == 0)
			return r;
	}
	return NULL;
}

static struct dr_cm_sidr_in *
sidr_in_of(struct dr_cm_agent *a, uint32_t request_id, const struct dr_cm_peer *from)
{
	for (uint32_t i = 0; i < a->max_sidr; i++) {
		struct dr_cm_sidr_in *r = &a->sidr_in[i];

		if (r->used && r->request_id == request_id && memcmp(r->peer.gid, from->gid, 16) == 0)
			return r;
	}
	return NULL;
}

/*
 * IBA 12.11.1: a SIDR_REQ for a listener goes to its owner once; the
 * requester's resends while the owner has not answered are dropped (ib_cm
 * does so by Request ID and port GID). Past max_sidr such requests at once,
 * the service refuses (SIDR_REP "rejected"): the state stays bounded.
 */
static void
rx_sidr_req(struct dr_cm_agent *a, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct dr_cm_listener *l = listener_of(a, dr_mad_get(mad, DR_CM_SIDR_REQ_SERVICE_ID));
	uint32_t rid = (uint32_t)dr_mad_get(mad, DR_CM_SIDR_REQ_REQUEST_ID);
	struct dr_cm_sidr_in *r = NULL;

	if (l == NULL) {
		a->stats.rx_unmatched++;
		(void)dr_cm_agent_sidr_rep(a, from, mad, DR_CM_SIDR_UNSUPPORTED, 0, 0, NULL, 0);
		return;
	}
	if (sidr_in_of(a, rid, from) != NULL) {
		a->stats.rx_dup++;
		return;
	}
	for (uint32_t i = 0; i < a->max_sidr && r == NULL; i++)
		if (!a->sidr_in[i].used)
			r = &a->sidr_in[i];
	if (r == NULL) {
		a->stats.busy++;
		(void)dr_cm_agent_sidr_rep(a, from, mad, DR_CM_SIDR_REJECT, 0, 0, NULL, 0);
		return;
	}
	r->used = true;
	r->request_id = rid;
	r->peer = *from;
	a->ops->sidr_req(a->owner, l->user, from, mad);
}

static void
rx_sidr_rep(struct dr_cm_agent *a, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct dr_cm_sidr *r = sidr_by_id(a, (uint32_t)dr_mad_get(mad, DR_CM_SIDR_REP_REQUEST_ID), from);
	void *user;

	if (r == NULL) {
		a->stats.rx_unmatched++;
		return;
	}
	user = r->user;
	r->used = false;
	a->ops->sidr_rep(a->owner, user, mad);
}

void
dr_cm_agent_rx(struct dr_cm_agent *a, const struct dr_cm_peer *from, const uint8_t *mad, size_t len,
	       uint64_t now)
{
	uint16_t attr;

	if (dr_cm_msg_check(mad, len, &attr) != DR_CM_MSG_OK) {
		a->stats.rx_bad++;
		return;
	}
	a->stats.rx++;
	switch (attr) {
	case DR_CM_ATTR_REQ: rx_req(a, from, mad, now); break;
	case DR_CM_ATTR_REJ: rx_rej(a, from, mad, now); break;
	case DR_CM_ATTR_SIDR_REQ: rx_sidr_req(a, from, mad); break;
	case DR_CM_ATTR_SIDR_REP: rx_sidr_rep(a, from, mad); break;
	default: rx_by_id(a, from, attr, mad, now); break;
	}
}

/* ---- timers --------------------------------------------------------------- */

void
dr_cm_agent_timers(struct dr_cm_agent *a, uint64_t now)
{
	/* backwards: slot_free() moves the last entry into the freed place */
	for (uint32_t i = a->nb_used; i-- > 0;) {
		struct dr_cm_slot *s = &a->slots[a->used[i]];
		uint64_t resent;

		if (s->conn.deadline != 0 && s->conn.deadline <= now) {
			resent = s->conn.retransmits;
			dr_cm_conn_timer(&s->conn, now);
			a->stats.retransmits += s->conn.retransmits - resent;
		}
		if (s->used && s->released && dr_cm_conn_idle(&s->conn))
			slot_free(a, s);
	}
	for (uint32_t i = 0; i < a->max_sidr; i++) {
		struct dr_cm_sidr *r = &a->sidr[i];

		if (!r->used || r->deadline > now)
			continue;
		if (r->retries_left > 0) {
			r->retries_left--;
			r->deadline = now + r->timeout;
			a->stats.retransmits++;
			send_raw(a, &r->peer, r->out);
			continue;
		}
		r->used = false;
		a->stats.timeouts++;
		a->ops->sidr_rep(a->owner, r->user, NULL);
	}
}

bool
dr_cm_agent_disconnecting(const struct dr_cm_agent *a)
{
	for (uint32_t i = 0; i < a->nb_used; i++)
		if (a->slots[a->used[i]].conn.state == DR_CM_DREQ_SENT)
			return true;
	return false;
}

uint64_t
dr_cm_agent_next_deadline(const struct dr_cm_agent *a)
{
	uint64_t next = UINT64_MAX;

	for (uint32_t i = 0; i < a->nb_used; i++) {
		const struct dr_cm_slot *s = &a->slots[a->used[i]];

		if (s->conn.deadline != 0 && s->conn.deadline < next)
			next = s->conn.deadline;
	}
	for (uint32_t i = 0; i < a->max_sidr; i++)
		if (a->sidr[i].used && a->sidr[i].deadline < next)
			next = a->sidr[i].deadline;
	return next;
}

/* ---- SIDR ----------------------------------------------------------------- */

int
dr_cm_agent_sidr_req(struct dr_cm_agent *a, const struct dr_cm_peer *to, uint64_t service_id,
		     const uint8_t *pdata, uint8_t len, uint64_t timeout_ns, uint8_t retries, void *user,
		     uint64_t now)
{
	struct dr_cm_sidr *r = NULL;

	if (len > DR_CM_SIDR_REQ_PDATA_LEN || (len > 0 && pdata == NULL) || timeout_ns == 0)
		return -EINVAL;
	for (uint32_t i = 0; i < a->max_sidr && r == NULL; i++)
		if (!a->sidr[i].used)
			r = &a->sidr[i];
	if (r == NULL)
		return -ENOSPC;
	r->used = true;
	r->request_id = ++a->sidr_seq;
	r->peer = *to;
	r->user = user;
	r->timeout = timeout_ns;
	r->retries_left = retries;
	r->deadline = now + timeout_ns;
	/* IBA 12.11.1, Table 119 */
	dr_cm_msg_init(r->out, DR_CM_ATTR_SIDR_REQ, dr_cm_agent_tid(a));
	dr_mad_put(r->out, DR_CM_SIDR_REQ_REQUEST_ID, r->request_id);
	dr_mad_put(r->out, DR_CM_SIDR_REQ_PKEY, 0xFFFF);
	dr_mad_put(r->out, DR_CM_SIDR_REQ_SERVICE_ID, service_id);
	(void)dr_cm_msg_pdata(r->out, DR_CM_ATTR_SIDR_REQ, pdata, len);   /* length checked above */
	send_raw(a, to, r->out);
	return 0;
}

void
dr_cm_agent_sidr_cancel(struct dr_cm_agent *a, void *user)
{
	for (uint32_t i = 0; i < a->max_sidr; i++)
		if (a->sidr[i].used && a->sidr[i].user == user)
			a->sidr[i].used = false;
}

int
dr_cm_agent_sidr_rep(struct dr_cm_agent *a, const struct dr_cm_peer *to, const uint8_t *req, uint8_t status,
		     uint32_t qpn, uint32_t qkey, const uint8_t *pdata, uint8_t len)
{
	uint8_t out[DR_MAD_SIZE];
	struct dr_cm_sidr_in *in;

	if (qpn > 0xFFFFFF)
		return -EINVAL;
	/* IBA 12.11.2, Table 120: the request's ID, TID and Service ID echoed */
	dr_cm_msg_init(out, DR_CM_ATTR_SIDR_REP, dr_mad_get(req, DR_MAD_TID));
	dr_mad_put(out, DR_CM_SIDR_REP_REQUEST_ID, dr_mad_get(req, DR_CM_SIDR_REQ_REQUEST_ID));
	dr_mad_put(out, DR_CM_SIDR_REP_STATUS, status);
	dr_mad_put(out, DR_CM_SIDR_REP_SERVICE_ID, dr_mad_get(req, DR_CM_SIDR_REQ_SERVICE_ID));
	if (status == DR_CM_SIDR_SUCCESS) {
		dr_mad_put(out, DR_CM_SIDR_REP_QPN, qpn);
		dr_mad_put(out, DR_CM_SIDR_REP_QKEY, qkey);
	}
	if (dr_cm_msg_pdata(out, DR_CM_ATTR_SIDR_REP, pdata, len) != 0)
		return -EINVAL;
	in = sidr_in_of(a, (uint32_t)dr_mad_get(req, DR_CM_SIDR_REQ_REQUEST_ID), to);
	if (in != NULL)
		in->used = false;       /* answered: a later resend is a new request (as ib_cm) */
	send_raw(a, to, out);
	return 0;
}
