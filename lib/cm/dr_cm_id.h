/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_ID_H
#define DR_CM_ID_H

/*
 * The inside of include/dr_cm.h's objects: an id (dr_cm_id.c) and its
 * channel's event queue (dr_cm_event.c).
 */

#include <pthread.h>
#include <stdbool.h>
#include <sys/queue.h>

#include "dr_cm.h"
#include "dr_cm_param.h"
#include "dr_cm_svc.h"

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
	struct dr_cm_channel_impl *ch;
	struct dr_cm_svc *svc;       /* of the bound context */
	struct dr_cm_conn *conn;     /* the connection of the agent, while there is one */
	bool listening;
	uint64_t service_id;         /* listening */
	struct dr_pd *own_pd;        /* dr_cm_create_qp() without a PD */
	struct dr_cm_req_param req;  /* passive: the peer's REQ (values only: pdata is not kept) */
	struct dr_cm_conn_param param;  /* active: what dr_cm_connect() asked */
	uint32_t local_psn;
	unsigned int unacked;        /* events taken, not acknowledged */
};

/* dr_cm_id.c */
extern const struct dr_cm_svc_ops dr_cm_svc_ops;
struct dr_cm_id_impl *dr_cm_id_impl(struct dr_cm_id *id);

/* dr_cm_event.c */
struct dr_cm_channel_impl *dr_cm_channel_impl(struct dr_cm_event_channel *ch);
struct dr_cm_id_impl *dr_cm_id_new(struct dr_cm_channel_impl *ch, void *context, uint16_t ps);
void dr_cm_id_free(struct dr_cm_id_impl *id);
/* Queue an event of @id (its private data copied, up to DR_CM_EV_PDATA_MAX bytes); on ENOMEM it is dropped and logged. */
void dr_cm_event_post(struct dr_cm_id_impl *id, enum dr_cm_event_type type, int status,
		      const struct dr_cm_conn_param *cp, unsigned int pdata_len, const uint8_t *pdata,
		      struct dr_cm_id_impl *listen_id);
/* True while an event of @id is queued or taken and not acknowledged. */
bool dr_cm_event_pending(struct dr_cm_id_impl *id);
/* Drop the queued events of @id. */
void dr_cm_event_forget(struct dr_cm_id_impl *id);

#endif /* DR_CM_ID_H */
