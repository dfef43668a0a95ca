/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Event channels and the life of an id (rdma_create_event_channel(3),
 * rdma_get_cm_event(3), rdma_ack_cm_event(3)): a queue per channel under a
 * mutex, an eventfd (EFD_SEMAPHORE) counting what is queued, so the fd is
 * readable exactly while an event waits.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include "dr_cm_id.h"
#include "dr_context.h"
#include "dr_log.h"

#define INLINE_WAIT_MS 1         /* inline: the transport is driven at least this often while waiting */

struct dr_cm_channel_impl *
dr_cm_channel_impl(struct dr_cm_event_channel *ch)
{
	return (struct dr_cm_channel_impl *)ch;
}

struct dr_cm_event_channel *
dr_cm_create_event_channel(void)
{
	struct dr_cm_channel_impl *ch = calloc(1, sizeof(*ch));

	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->pub.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->pub.fd < 0) {
		free(ch);
		return NULL;
	}
	pthread_mutex_init(&ch->lock, NULL);
	TAILQ_INIT(&ch->queue);
	return &ch->pub;
}

int
dr_cm_destroy_event_channel(struct dr_cm_event_channel *pub)
{
	struct dr_cm_channel_impl *ch;

	if (pub == NULL)
		return -EINVAL;
	ch = dr_cm_channel_impl(pub);
	if (ch->ids != 0)
		return -EBUSY;
	close(pub->fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
	return 0;
}

struct dr_cm_id_impl *
dr_cm_id_new(struct dr_cm_channel_impl *ch, void *context, uint16_t ps)
{
	struct dr_cm_id_impl *id = calloc(1, sizeof(*id));

	if (id == NULL)
		return NULL;
	id->ch = ch;
	id->pub.channel = &ch->pub;
	id->pub.context = context;
	id->pub.ps = ps;
	pthread_mutex_lock(&ch->lock);
	ch->ids++;
	pthread_mutex_unlock(&ch->lock);
	return id;
}

void
dr_cm_id_free(struct dr_cm_id_impl *id)
{
	pthread_mutex_lock(&id->ch->lock);
	id->ch->ids--;
	pthread_mutex_unlock(&id->ch->lock);
	free(id);
}

void
dr_cm_event_post(struct dr_cm_id_impl *id, enum dr_cm_event_type type, int status,
		 const struct dr_cm_conn_param *cp, unsigned int pdata_len, const uint8_t *pdata,
		 struct dr_cm_id_impl *listen_id)
{
	struct dr_cm_ev_node *n = calloc(1, sizeof(*n));
	uint64_t one = 1;

	if (n == NULL) {
		DR_LOG(cm, ERR, "event %s lost: no memory", dr_cm_event_str(type));
		return;
	}
	n->owner = id;
	n->ev.id = &id->pub;
	n->ev.listen_id = listen_id != NULL ? &listen_id->pub : NULL;
	n->ev.event = type;
	n->ev.status = status;
	if (cp != NULL)
		n->ev.conn = *cp;
	if (pdata_len > DR_CM_EV_PDATA_MAX)
		pdata_len = DR_CM_EV_PDATA_MAX;
	if (pdata_len > 0 && pdata != NULL) {
		memcpy(n->pdata, pdata, pdata_len);
		n->ev.conn.private_data = n->pdata;
		n->ev.conn.private_data_len = (uint8_t)pdata_len;
	} else {
		n->ev.conn.private_data = NULL;
		n->ev.conn.private_data_len = 0;
	}
	pthread_mutex_lock(&id->ch->lock);
	TAILQ_INSERT_TAIL(&id->ch->queue, n, link);
	pthread_mutex_unlock(&id->ch->lock);
	if (write(id->ch->pub.fd, &one, sizeof(one)) != sizeof(one))
		DR_LOG(cm, ERR, "event channel: eventfd write: %s", strerror(errno));
}

bool
dr_cm_event_pending(struct dr_cm_id_impl *id)
{
	struct dr_cm_ev_node *n;
	bool pending;

	pthread_mutex_lock(&id->ch->lock);
	pending = id->unacked != 0;
	/* a listener's queued CONNECT_REQUEST names it, and brings a new id only the application may take */
	TAILQ_FOREACH(n, &id->ch->queue, link)
		if (n->ev.listen_id == &id->pub)
			pending = true;
	pthread_mutex_unlock(&id->ch->lock);
	return pending;
}

void
dr_cm_event_forget(struct dr_cm_id_impl *id)
{
	struct dr_cm_ev_node *n, *next;
	uint64_t v;

	pthread_mutex_lock(&id->ch->lock);
	for (n = TAILQ_FIRST(&id->ch->queue); n != NULL; n = next) {
		next = TAILQ_NEXT(n, link);
		if (n->owner != id)
			continue;
		TAILQ_REMOVE(&id->ch->queue, n, link);
		free(n);
		/* one count of the semaphore goes with it */
		(void)!read(id->ch->pub.fd, &v, sizeof(v));
	}
	pthread_mutex_unlock(&id->ch->lock);
}

/* Inline contexts: the application's thread is their transport and their CM. */
static bool
drive_inline(void)
{
	bool any = false;

	for (uint16_t p = 0; p < RTE_MAX_ETHPORTS; p++) {
		struct dr_context *ctx = dr_ctx_registry_get(p);

		if (ctx != NULL && ctx->attr.mode == DR_PROGRESS_INLINE && ctx->cm != NULL) {
			(void)dr_progress(ctx);
			any = true;
		}
	}
	return any;
}

int
dr_cm_get_cm_event(struct dr_cm_event_channel *pub, struct dr_cm_event **event)
{
	struct dr_cm_channel_impl *ch;
	bool nonblock;

	if (pub == NULL || event == NULL)
		return -EINVAL;
	ch = dr_cm_channel_impl(pub);
	nonblock = (fcntl(pub->fd, F_GETFL) & O_NONBLOCK) != 0;
	for (;;) {
		struct pollfd p = { .fd = pub->fd, .events = POLLIN };
		struct dr_cm_ev_node *n;
		bool inl = drive_inline();
		uint64_t v;

		pthread_mutex_lock(&ch->lock);
		n = TAILQ_FIRST(&ch->queue);
		if (n != NULL) {
			TAILQ_REMOVE(&ch->queue, n, link);
			(void)!read(pub->fd, &v, sizeof(v));
			n->owner->unacked++;
			if (n->ev.event == DR_CM_EVENT_CONNECT_REQUEST && n->ev.listen_id != NULL)
				dr_cm_id_impl(n->ev.listen_id)->unacked++;
		}
		pthread_mutex_unlock(&ch->lock);
		if (n != NULL) {
			*event = &n->ev;
			return 0;
		}
		if (nonblock)
			return -EAGAIN;
		if (poll(&p, 1, inl ? INLINE_WAIT_MS : -1) < 0 && errno != EINTR)
			return -errno;
	}
}

int
dr_cm_ack_cm_event(struct dr_cm_event *ev)
{
	struct dr_cm_ev_node *n = (struct dr_cm_ev_node *)ev;

	if (ev == NULL)
		return -EINVAL;
	pthread_mutex_lock(&n->owner->ch->lock);
	n->owner->unacked--;
	if (ev->event == DR_CM_EVENT_CONNECT_REQUEST && ev->listen_id != NULL)
		dr_cm_id_impl(ev->listen_id)->unacked--;
	pthread_mutex_unlock(&n->owner->ch->lock);
	free(n);
	return 0;
}

const char *
dr_cm_event_str(enum dr_cm_event_type e)
{
	static const char *const names[] = {
		[DR_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[DR_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[DR_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[DR_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[DR_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[DR_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[DR_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[DR_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[DR_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[DR_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[DR_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[DR_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[DR_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[DR_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[DR_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[DR_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	return (unsigned int)e < sizeof(names) / sizeof(names[0]) ? names[e] : "UNKNOWN EVENT";
}
