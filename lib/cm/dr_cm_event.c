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

struct dr_cm_channel_impl *
dr_cm_channel_new(void)
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
	return ch;
}

void
dr_cm_channel_free(struct dr_cm_channel_impl *ch)
{
	struct dr_cm_ev_node *n;

	while ((n = TAILQ_FIRST(&ch->queue)) != NULL) {
		TAILQ_REMOVE(&ch->queue, n, link);
		free(n);
	}
	close(ch->pub.fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

struct dr_cm_event_channel *
dr_cm_create_event_channel(void)
{
	struct dr_cm_channel_impl *ch = dr_cm_channel_new();

	return ch != NULL ? &ch->pub : NULL;
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
	dr_cm_channel_free(ch);
	return 0;
}

struct dr_cm_id_impl *
dr_cm_id_new(struct dr_cm_channel_impl *ch, void *context, uint16_t ps)
{
	struct dr_cm_id_impl *id = calloc(1, sizeof(*id));

	if (id == NULL)
		return NULL;
	if (ch == NULL) {
		/* rdma_create_id(3) without a channel: synchronous, its events its own */
		ch = dr_cm_channel_new();
		if (ch == NULL) {
			free(id);
			return NULL;
		}
		id->sync = true;
	} else {
		id->pub.channel = &ch->pub;
	}
	id->ch = ch;
	id->ack_timeout = -1;           /* dr_cm_set_option(): none yet */
	id->pub.context = context;
	id->pub.ps = ps;
	id->pub.qp_type = ps == DR_CM_PS_UDP ? DR_QPT_UD : DR_QPT_RC;
	pthread_mutex_lock(&ch->lock);
	ch->ids++;
	pthread_mutex_unlock(&ch->lock);
	return id;
}

void
dr_cm_id_free(struct dr_cm_id_impl *id)
{
	if (id->sync) {
		dr_cm_channel_free(id->ch);
	} else {
		pthread_mutex_lock(&id->ch->lock);
		id->ch->ids--;
		pthread_mutex_unlock(&id->ch->lock);
	}
	free(id);
}

/* Move @id's queued events (and a listener's CONNECT_REQUESTs) from @from to @to, their eventfd counts too. */
static void
move_events(struct dr_cm_id_impl *id, struct dr_cm_channel_impl *from, struct dr_cm_channel_impl *to)
{
	struct dr_cm_ev_node *n, *next;
	uint64_t v, one = 1;

	pthread_mutex_lock(&from->lock);
	for (n = TAILQ_FIRST(&from->queue); n != NULL; n = next) {
		next = TAILQ_NEXT(n, link);
		if (n->owner != id && n->ev.listen_id != &id->pub)
			continue;
		TAILQ_REMOVE(&from->queue, n, link);
		(void)!read(from->pub.fd, &v, sizeof(v));
		pthread_mutex_lock(&to->lock);
		TAILQ_INSERT_TAIL(&to->queue, n, link);
		pthread_mutex_unlock(&to->lock);
		if (write(to->pub.fd, &one, sizeof(one)) != sizeof(one))
			DR_LOG(cm, ERR, "event channel: eventfd write: %s", strerror(errno));
	}
	pthread_mutex_unlock(&from->lock);
}

int
dr_cm_migrate_id(struct dr_cm_id *pub, struct dr_cm_event_channel *channel)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	struct dr_cm_channel_impl *from, *to;
	bool was_sync;

	if (pub == NULL)
		return -EINVAL;
	if (id->sync && pub->event != NULL) {
		(void)dr_cm_ack_cm_event(pub->event);   /* a synchronous id's last event is its own */
		pub->event = NULL;
	}
	if (__atomic_load_n(&id->unacked, __ATOMIC_ACQUIRE) != 0)
		return -EBUSY;      /* rdma_migrate_id(3): its events acknowledged first */
	to = channel != NULL ? dr_cm_channel_impl(channel) : dr_cm_channel_new();
	if (to == NULL)
		return -ENOMEM;
	if (id->svc != NULL)
		dr_cm_svc_lock(id->svc);     /* the CM posts to id->ch under it */
	from = id->ch;
	was_sync = id->sync;
	if (from != to) {
		move_events(id, from, to);
		id->ch = to;
		id->sync = channel == NULL;
		pub->channel = channel;
		pthread_mutex_lock(&to->lock);
		to->ids++;
		pthread_mutex_unlock(&to->lock);
	}
	if (id->svc != NULL)
		dr_cm_svc_unlock(id->svc);
	if (from != to) {
		if (was_sync) {
			dr_cm_channel_free(from);
		} else {
			pthread_mutex_lock(&from->lock);
			from->ids--;
			pthread_mutex_unlock(&from->lock);
		}
	}
	return 0;
}

static struct dr_cm_ev_node *
post_node(struct dr_cm_id_impl *id, enum dr_cm_event_type type, int status, struct dr_cm_id_impl *listen_id)
{
	struct dr_cm_ev_node *n = calloc(1, sizeof(*n));

	if (n == NULL) {
		DR_LOG(cm, ERR, "event %s lost: no memory", dr_cm_event_str(type));
		return NULL;
	}
	n->owner = id;
	n->ev.id = &id->pub;
	n->ev.listen_id = listen_id != NULL ? &listen_id->pub : NULL;
	n->ev.event = type;
	n->ev.status = status;
	return n;
}

/* Copy @pdata into @n: where the event's private data points. */
static const void *
post_pdata(struct dr_cm_ev_node *n, unsigned int *len, const uint8_t *pdata)
{
	if (*len > DR_CM_EV_PDATA_MAX)
		*len = DR_CM_EV_PDATA_MAX;
	if (*len == 0 || pdata == NULL) {
		*len = 0;
		return NULL;
	}
	memcpy(n->pdata, pdata, *len);
	return n->pdata;
}

static void
post_queue(struct dr_cm_ev_node *n)
{
	/* a CONNECT_REQUEST goes where the listener's consumer waits */
	struct dr_cm_channel_impl *ch = n->ev.event == DR_CM_EVENT_CONNECT_REQUEST && n->ev.listen_id != NULL ?
					dr_cm_id_impl(n->ev.listen_id)->ch : n->owner->ch;
	uint64_t one = 1;

	pthread_mutex_lock(&ch->lock);
	TAILQ_INSERT_TAIL(&ch->queue, n, link);
	pthread_mutex_unlock(&ch->lock);
	if (write(ch->pub.fd, &one, sizeof(one)) != sizeof(one))
		DR_LOG(cm, ERR, "event channel: eventfd write: %s", strerror(errno));
}

void
dr_cm_event_post(struct dr_cm_id_impl *id, enum dr_cm_event_type type, int status,
		 const struct dr_cm_conn_param *cp, unsigned int pdata_len, const uint8_t *pdata,
		 struct dr_cm_id_impl *listen_id)
{
	struct dr_cm_ev_node *n = post_node(id, type, status, listen_id);

	if (n == NULL)
		return;
	if (cp != NULL)
		n->ev.param.conn = *cp;
	n->ev.param.conn.private_data = post_pdata(n, &pdata_len, pdata);
	n->ev.param.conn.private_data_len = (uint8_t)pdata_len;
	post_queue(n);
}

void
dr_cm_event_post_ud(struct dr_cm_id_impl *id, enum dr_cm_event_type type, int status,
		    const struct dr_cm_ud_param *ud, unsigned int pdata_len, const uint8_t *pdata,
		    struct dr_cm_id_impl *listen_id)
{
	struct dr_cm_ev_node *n = post_node(id, type, status, listen_id);

	if (n == NULL)
		return;
	if (ud != NULL)
		n->ev.param.ud = *ud;
	n->ev.param.ud.private_data = post_pdata(n, &pdata_len, pdata);
	n->ev.param.ud.private_data_len = (uint8_t)pdata_len;
	post_queue(n);
}

bool
dr_cm_event_pending(struct dr_cm_id_impl *id)
{
	struct dr_cm_ev_node *n;
	bool pending;

	pthread_mutex_lock(&id->ch->lock);
	pending = __atomic_load_n(&id->unacked, __ATOMIC_ACQUIRE) != 0;
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
dr_cm_event_get(struct dr_cm_channel_impl *ch, bool nonblock, struct dr_cm_event **event)
{
	for (;;) {
		struct pollfd p = { .fd = ch->pub.fd, .events = POLLIN };
		struct dr_cm_ev_node *n;
		bool inl = drive_inline();
		uint64_t v;

		pthread_mutex_lock(&ch->lock);
		n = TAILQ_FIRST(&ch->queue);
		if (n != NULL) {
			TAILQ_REMOVE(&ch->queue, n, link);
			(void)!read(ch->pub.fd, &v, sizeof(v));
			__atomic_fetch_add(&n->owner->unacked, 1, __ATOMIC_ACQ_REL);
			if (n->ev.event == DR_CM_EVENT_CONNECT_REQUEST && n->ev.listen_id != NULL)
				__atomic_fetch_add(&dr_cm_id_impl(n->ev.listen_id)->unacked, 1, __ATOMIC_ACQ_REL);
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
dr_cm_get_cm_event(struct dr_cm_event_channel *pub, struct dr_cm_event **event)
{
	if (pub == NULL || event == NULL)
		return -EINVAL;
	return dr_cm_event_get(dr_cm_channel_impl(pub), (fcntl(pub->fd, F_GETFL) & O_NONBLOCK) != 0, event);
}

int
dr_cm_ack_cm_event(struct dr_cm_event *ev)
{
	struct dr_cm_ev_node *n = (struct dr_cm_ev_node *)ev;

	if (ev == NULL)
		return -EINVAL;
	__atomic_fetch_sub(&n->owner->unacked, 1, __ATOMIC_ACQ_REL);
	if (ev->event == DR_CM_EVENT_CONNECT_REQUEST && ev->listen_id != NULL)
		__atomic_fetch_sub(&dr_cm_id_impl(ev->listen_id)->unacked, 1, __ATOMIC_ACQ_REL);
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
