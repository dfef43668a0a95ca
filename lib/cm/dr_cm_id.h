/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_ID_H
#define DR_CM_ID_H

/*
 * The inside of include/dr_cm.h's objects: an id (dr_cm_id.c: addresses,
 * QPs, the calls by port space), its connection (dr_cm_rc.c: REQ/REP/RTU,
 * DREQ/DREP) or service resolution (dr_cm_ud.c: SIDR), its channel's event
 * queue (dr_cm_event.c) and the synchronous calls (dr_cm_sync.c).
 */

#include <pthread.h>
#include <stdbool.h>
#include <sys/queue.h>

#include "dr_cm.h"
#include "dr_cm_param.h"
#include "dr_cm_svc.h"
#include "dr_mad.h"

#define DR_CM_EV_PDATA_MAX 224   /* the longest private data of a CM message (RTU, DREP) */

struct dr_cm_id_impl;

struct dr_cm_ev_node {
	struct dr_cm_event ev;       /* first: what the application holds */
	TAILQ_ENTRY(dr_cm_ev_node) link;
	struct dr_cm_id_impl *owner;
	uint8_t pdata[DR_CM_EV_PDATA_MAX];
};

TAILQ_HEAD(dr_cm_ev_list, dr_cm_ev_node);

struct dr_cm_channel_impl {
	struct dr_cm_event_channel pub;
	pthread_mutex_t lock;
	struct dr_cm_ev_list queue;  /* posted, not yet taken */
	unsigned int ids;            /* ids on it */
};

struct dr_cm_id_impl {
	struct dr_cm_id pub;         /* first */
	struct dr_cm_channel_impl *ch;  /* the application's, or the id's own (synchronous) */
	bool sync;                   /* created without a channel: the calls wait (dr_cm_sync.c) */
	struct dr_cm_svc *svc;       /* of the bound context */
	struct dr_cm_conn *conn;     /* PS_TCP: the connection of the agent, while there is one */
	bool listening;
	uint64_t service_id;         /* listening */
	struct dr_pd *own_pd;        /* dr_cm_create_qp() without a PD */
	struct dr_cm_req_param req;  /* passive: the peer's REQ (values only: pdata is not kept) */
	struct dr_cm_conn_param param;  /* active: what dr_cm_connect() asked */
	struct dr_ece ece_offer;     /* active: the QP's ECE the REQ offered (dr_cm_ece.h) */
	uint32_t local_psn;
	int ack_timeout;             /* dr_cm_set_option()'s local ACK timeout (IBA encoding), -1: the default */
	unsigned int unacked;        /* events taken, not acknowledged (atomic: two channels may count) */
	struct dr_cm_id_impl *next_rtu;  /* passive, REP sent: on the service's rtu_waiters */
	bool rtu_wait;
	/* PS_UDP (dr_cm_ud.c) */
	bool sidr_asking;            /* active: our SIDR_REQ is out */
	bool sidr_owed;              /* passive: the peer's SIDR_REQ waits for our answer */
	struct dr_cm_peer sidr_peer;
	uint8_t sidr_req[DR_MAD_SIZE];
	/* a synchronous listener of dr_cm_create_ep(): what dr_cm_get_request() gives each new id */
	bool ep_qp;
	struct dr_qp_init_attr ep_qp_attr;
	struct dr_pd *ep_pd;
};

/* dr_cm_id.c: shared by the port spaces */
extern const struct dr_cm_svc_ops dr_cm_svc_ops;
/* The CM's timeouts (Linux's; DR_CM_RESPONSE_TIMEOUT, DR_CM_MAX_RETRIES in the environment) */
const struct dr_cm_timing *dr_cm_id_timing(void);
struct dr_cm_id_impl *dr_cm_id_impl(struct dr_cm_id *id);
/* The IP addressing header (Annex A11.6.1) of @id's request, then @len bytes of @app: in @pdata. */
void dr_cm_id_ip_pdata(struct dr_cm_id_impl *id, uint8_t *pdata, const void *app, uint8_t len);
/* A new id of listener @l for a request from @from whose private data starts with @ip_pdata: bound, addressed. */
struct dr_cm_id_impl *dr_cm_id_passive(struct dr_cm_svc *s, struct dr_cm_id_impl *l, const struct dr_cm_peer *from,
				       const uint8_t *ip_pdata);
/* @id's QP to ERR (if it has one). */
void dr_cm_id_qp_error(struct dr_cm_id_impl *id);

/* dr_cm_rc.c: PS_TCP, with the service locked where the name says "locked" */
int dr_cm_rc_connect(struct dr_cm_id_impl *id, const struct dr_cm_conn_param *p);
int dr_cm_rc_accept(struct dr_cm_id_impl *id, const struct dr_cm_conn_param *p);
int dr_cm_rc_reject(struct dr_cm_id_impl *id, const void *pdata, uint8_t len);
int dr_cm_rc_disconnect(struct dr_cm_id_impl *id);
void dr_cm_rc_on_req(struct dr_cm_svc *s, void *listener, const struct dr_cm_peer *from, const uint8_t *mad);
void dr_cm_rc_on_event(struct dr_cm_svc *s, struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad);
/* Passive connections whose QP took a request before the RTU: established (IBA 12.9.6). */
void dr_cm_rc_tick(struct dr_cm_svc *s, uint64_t now);
/* @id leaves the service's RTU waiters (service locked). */
void dr_cm_rc_unwait_locked(struct dr_cm_id_impl *id);

/* dr_cm_ud.c: PS_UDP */
int dr_cm_ud_qp_ready(struct dr_cm_id_impl *id);
int dr_cm_ud_connect(struct dr_cm_id_impl *id, const struct dr_cm_conn_param *p);
int dr_cm_ud_accept(struct dr_cm_id_impl *id, const struct dr_cm_conn_param *p);
int dr_cm_ud_reject(struct dr_cm_id_impl *id, const void *pdata, uint8_t len);
/* @id is going: its request cancelled, or the peer's refused (service locked). */
void dr_cm_ud_release_locked(struct dr_cm_id_impl *id);
void dr_cm_ud_on_sidr_req(struct dr_cm_svc *s, void *listener, const struct dr_cm_peer *from, const uint8_t *mad);
void dr_cm_ud_on_sidr_rep(struct dr_cm_svc *s, void *user, const uint8_t *mad);

/* dr_cm_sync.c: a synchronous id waits for its event of @want (ESTABLISHED, ...): 0 or -errno */
int dr_cm_sync_wait(struct dr_cm_id_impl *id, enum dr_cm_event_type want);

/* dr_cm_event.c */
struct dr_cm_channel_impl *dr_cm_channel_impl(struct dr_cm_event_channel *ch);
struct dr_cm_channel_impl *dr_cm_channel_new(void);
void dr_cm_channel_free(struct dr_cm_channel_impl *ch);
/* A new id on @ch; NULL @ch: a synchronous id with a channel of its own. */
struct dr_cm_id_impl *dr_cm_id_new(struct dr_cm_channel_impl *ch, void *context, uint16_t ps);
void dr_cm_id_free(struct dr_cm_id_impl *id);
/*
 * Queue an event of @id (its private data copied, up to DR_CM_EV_PDATA_MAX
 * bytes; @cp or @ud, or neither, its parameters) on its channel; a
 * CONNECT_REQUEST on its listener's. On ENOMEM it is dropped and logged.
 */
void dr_cm_event_post(struct dr_cm_id_impl *id, enum dr_cm_event_type type, int status,
		      const struct dr_cm_conn_param *cp, unsigned int pdata_len, const uint8_t *pdata,
		      struct dr_cm_id_impl *listen_id);
void dr_cm_event_post_ud(struct dr_cm_id_impl *id, enum dr_cm_event_type type, int status,
			 const struct dr_cm_ud_param *ud, unsigned int pdata_len, const uint8_t *pdata,
			 struct dr_cm_id_impl *listen_id);
/* The next event on @ch, blocking as dr_cm_get_cm_event(). */
int dr_cm_event_get(struct dr_cm_channel_impl *ch, bool nonblock, struct dr_cm_event **event);
/* True while an event of @id is queued or taken and not acknowledged. */
bool dr_cm_event_pending(struct dr_cm_id_impl *id);
/* Drop the queued events of @id. */
void dr_cm_event_forget(struct dr_cm_id_impl *id);

#endif /* DR_CM_ID_H */
