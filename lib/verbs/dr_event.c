/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Events: completion channels (ibv_create_comp_channel(3),
 * ibv_req_notify_cq(3), ibv_get_cq_event(3), ibv_ack_cq_events(3)) and
 * asynchronous events (ibv_get_async_event(3), ibv_ack_async_event(3)).
 *
 * A channel is a ring of CQs with an event pending and an eventfd in
 * semaphore mode that counts them: a CQ armed by dr_req_notify_cq() is
 * disarmed and queued when the transport adds the completion it waits for
 * (IBA 11.4.2.2: the next, or the next solicited / failed one). Async
 * events are a ring per context with its own eventfd. Both are produced by
 * the transport, which in DR_PROGRESS_INLINE mode runs in the caller's
 * thread: dr_get_cq_event() therefore drives dr_progress() until an event is
 * there; in DR_PROGRESS_RTC mode the workers produce them and it waits on
 * the fd. Both rings have a spinlock: they are written on error and
 * notification paths only, never per packet. Objects count the events handed out and not yet acknowledged and
 * cannot be destroyed before every one is (the ibv_ack_* contract; events
 * never read do not hold anything, and are dropped with their object).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_atomic.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "dr_context.h"
#include "dr_log.h"
#include "dr_qp_impl.h"
#include "dr_srq.h"

/* Link checks at most this often (ms): the backend's link_get() may be a system call. */
#define DR_PORT_CHECK_MS 100

/* CQs with a pending event per channel: at most one entry per CQ (it is disarmed once queued). */
#define DR_CHANNEL_RING (DR_MAX_CQ + 1)

struct dr_channel_impl {
	struct dr_comp_channel pub;
	rte_spinlock_t lock;                /* workers queue CQs, the application pops them */
	struct dr_cq_impl *ring[DR_CHANNEL_RING];
	uint32_t head, tail;
};

static inline struct dr_channel_impl *
channel_impl(struct dr_comp_channel *c)
{
	return (struct dr_channel_impl *)c;
}

/* Add one to an eventfd (semaphore mode: each read takes one). */
static void
fd_signal(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		DR_LOG(ctx, ERR, "eventfd write: %s", strerror(errno));
}

/* Take one from an eventfd without blocking. */
static void
fd_take(int fd)
{
	uint64_t v;
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0 && !(fl & O_NONBLOCK)) {
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
		(void)!read(fd, &v, sizeof(v));
		(void)fcntl(fd, F_SETFL, fl);
	} else {
		(void)!read(fd, &v, sizeof(v));
	}
}

struct dr_comp_channel *
dr_create_comp_channel(struct dr_context *ctx)
{
	struct dr_channel_impl *c;
	int fd;

	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (fd < 0)
		return NULL;             /* errno from eventfd(2) */
	c = rte_zmalloc("dr_channel", sizeof(*c), 0);
	if (c == NULL) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	c->pub.context = ctx;
	c->pub.fd = fd;
	rte_spinlock_init(&c->lock);
	return &c->pub;
}

int
dr_destroy_comp_channel(struct dr_comp_channel *channel)
{
	if (channel == NULL)
		return -EINVAL;
	/* ibv_destroy_comp_channel(3): fails while a CQ is associated with it */
	if (channel->refcnt != 0)
		return -EBUSY;
	close(channel->fd);
	rte_free(channel_impl(channel));
	return 0;
}

int
dr_req_notify_cq(struct dr_cq *pub, int solicited_only)
{
	struct dr_cq_impl *cq;

	if (pub == NULL)
		return -EINVAL;
	cq = dr_cq_impl(pub);
	if (cq->channel == NULL)
		return -EINVAL;
	/* a later request for "any" widens an armed "solicited" one, never the reverse */
	rte_spinlock_lock(&channel_impl(cq->channel)->lock);
	if (!solicited_only || cq->notify == DR_CQ_NOTIFY_NONE)
		__atomic_store_n(&cq->notify, solicited_only ? DR_CQ_NOTIFY_SOLICITED : DR_CQ_NOTIFY_NEXT,
				 __ATOMIC_RELEASE);
	rte_spinlock_unlock(&channel_impl(cq->channel)->lock);
	/* armed before the caller polls the CQ again: the other half of dr_cq.c's cq_notify() */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

void
dr_cq_event(struct dr_cq_impl *cq, bool solicited_or_error)
{
	struct dr_channel_impl *c = channel_impl(cq->channel);

	/* armed CQs only (a rare path: the lock orders workers and the arming thread) */
	rte_spinlock_lock(&c->lock);
	if (cq->notify == DR_CQ_NOTIFY_NONE ||
	    (cq->notify == DR_CQ_NOTIFY_SOLICITED && !solicited_or_error)) {
		rte_spinlock_unlock(&c->lock);
		return;
	}
	__atomic_store_n(&cq->notify, DR_CQ_NOTIFY_NONE, __ATOMIC_RELAXED); /* one event per request */
	c->ring[c->head++ % DR_CHANNEL_RING] = cq;
	rte_spinlock_unlock(&c->lock);
	fd_signal(c->pub.fd);
}

/* The oldest queued CQ of the channel, NULL if none (entries of destroyed CQs are NULL). */
static struct dr_cq_impl *
channel_pop(struct dr_channel_impl *c)
{
	struct dr_cq_impl *cq = NULL;

	rte_spinlock_lock(&c->lock);
	while (c->tail != c->head) {
		cq = c->ring[c->tail++ % DR_CHANNEL_RING];
		fd_take(c->pub.fd);
		if (cq != NULL)
			break;
	}
	rte_spinlock_unlock(&c->lock);
	return cq;
}

/* Wait until the channel's fd is readable (DR_PROGRESS_RTC: the workers signal it). */
static int
channel_wait(struct dr_channel_impl *c)
{
	struct pollfd pfd = { .fd = c->pub.fd, .events = POLLIN };

	for (;;) {
		int rc = poll(&pfd, 1, -1);

		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

int
dr_get_cq_event(struct dr_comp_channel *channel, struct dr_cq **cq, void **cq_context)
{
	struct dr_channel_impl *c;
	struct dr_cq_impl *got;
	bool nonblock;
	int fl, rc;

	if (channel == NULL || cq == NULL || cq_context == NULL)
		return -EINVAL;
	c = channel_impl(channel);
	fl = fcntl(channel->fd, F_GETFL);
	nonblock = fl >= 0 && (fl & O_NONBLOCK);
	for (;;) {
		got = channel_pop(c);
		if (got != NULL)
			break;
		if (channel->context->attr.mode == DR_PROGRESS_INLINE) {
			/* inline mode: nothing else moves the transport */
			rc = dr_progress(channel->context);
		} else {
			/* the workers move it and signal the fd */
			rc = nonblock ? 0 : channel_wait(c);
		}
		if (rc < 0)
			return rc;
		if (nonblock) {
			got = channel_pop(c);
			if (got == NULL)
				return -EAGAIN;
			break;
		}
	}
	got->events_got++;
	*cq = &got->pub;
	*cq_context = got->pub.cq_context;
	return 0;
}

void
dr_ack_cq_events(struct dr_cq *pub, unsigned int nevents)
{
	struct dr_cq_impl *cq;

	if (pub == NULL)
		return;
	cq = dr_cq_impl(pub);
	/* never more than were handed out */
	if (nevents > cq->events_got - cq->events_acked)
		nevents = cq->events_got - cq->events_acked;
	cq->events_acked += nevents;
}

void
dr_channel_forget(struct dr_cq_impl *cq)
{
	struct dr_channel_impl *c;
	uint32_t i;

	if (cq->channel == NULL)
		return;
	c = channel_impl(cq->channel);
	rte_spinlock_lock(&c->lock);
	for (i = c->tail; i != c->head; i++)
		if (c->ring[i % DR_CHANNEL_RING] == cq)
			c->ring[i % DR_CHANNEL_RING] = NULL;
	rte_spinlock_unlock(&c->lock);
}

/* ------------------------------------------------------------ async events */

int
dr_async_init(struct dr_context *ctx)
{
	ctx->async_fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK);
	return ctx->async_fd < 0 ? -errno : 0;
}

void
dr_async_fini(struct dr_context *ctx)
{
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	ctx->async_fd = -1;
}

int
dr_async_fd(struct dr_context *ctx)
{
	return ctx != NULL ? ctx->async_fd : -EINVAL;
}

/* The per-object count of events not yet acknowledged, NULL for port events. */
static uint32_t *
unacked_of(const struct dr_async_event *ev)
{
	switch (ev->event_type) {
	case DR_EVENT_CQ_ERR:
		return &dr_cq_impl(ev->element.cq)->async_unacked;
	case DR_EVENT_SRQ_ERR:
	case DR_EVENT_SRQ_LIMIT_REACHED:
		return &dr_srq_impl(ev->element.srq)->events_unacked;
	case DR_EVENT_PORT_ACTIVE:
	case DR_EVENT_PORT_ERR:
	case DR_EVENT_LID_CHANGE:
	case DR_EVENT_PKEY_CHANGE:
	case DR_EVENT_SM_CHANGE:
	case DR_EVENT_CLIENT_REREGISTER:
	case DR_EVENT_GID_CHANGE:
	case DR_EVENT_DEVICE_FATAL:
		return NULL;
	default:
		return &dr_qp_impl(ev->element.qp)->events_unacked;
	}
}

void
dr_async_raise(struct dr_context *ctx, enum dr_event_type type, void *element)
{
	struct dr_async_event *ev;

	/* raised by workers and by the control side: a lock, off the fast path */
	rte_spinlock_lock(&ctx->async_lock);
	if (ctx->async_head - ctx->async_tail >= DR_ASYNC_EVENTS) {
		rte_spinlock_unlock(&ctx->async_lock);
		DR_LOG(ctx, ERR, "async event %s lost: %u unread", dr_event_type_str(type), DR_ASYNC_EVENTS);
		return;
	}
	ev = &ctx->async_ev[ctx->async_head % DR_ASYNC_EVENTS];
	memset(ev, 0, sizeof(*ev));
	ev->event_type = type;
	if (element == NULL)
		ev->element.port_num = 1;
	else
		ev->element.qp = element;   /* the union's pointers share one representation */
	ctx->async_head++;
	rte_spinlock_unlock(&ctx->async_lock);
	fd_signal(ctx->async_fd);
}

void
dr_async_forget(struct dr_context *ctx, const void *element)
{
	uint32_t i;

	rte_spinlock_lock(&ctx->async_lock);
	for (i = ctx->async_tail; i != ctx->async_head; i++) {
		struct dr_async_event *ev = &ctx->async_ev[i % DR_ASYNC_EVENTS];

		if (unacked_of(ev) != NULL && (const void *)ev->element.qp == element)
			ev->event_type = DR_EVENT_DEVICE_FATAL + 0x100;  /* a tombstone, skipped */
	}
	rte_spinlock_unlock(&ctx->async_lock);
}

int
dr_get_async_event(struct dr_context *ctx, struct dr_async_event *event)
{
	if (ctx == NULL || event == NULL)
		return -EINVAL;
	rte_spinlock_lock(&ctx->async_lock);
	while (ctx->async_tail != ctx->async_head) {
		struct dr_async_event *ev = &ctx->async_ev[ctx->async_tail++ % DR_ASYNC_EVENTS];

		uint32_t *n;

		fd_take(ctx->async_fd);
		if ((unsigned int)ev->event_type > DR_EVENT_WQ_FATAL)
			continue;          /* its object was destroyed */
		/* handed out: its object now waits for the acknowledgement (as uverbs' events_reported) */
		n = unacked_of(ev);
		if (n != NULL)
			(*n)++;
		*event = *ev;
		rte_spinlock_unlock(&ctx->async_lock);
		return 0;
	}
	rte_spinlock_unlock(&ctx->async_lock);
	return -EAGAIN;
}

void
dr_ack_async_event(struct dr_async_event *event)
{
	uint32_t *n;

	if (event == NULL)
		return;
	n = unacked_of(event);
	if (n != NULL && *n > 0)
		(*n)--;
}

void
dr_port_watch(struct dr_context *ctx, uint64_t now)
{
	struct dr_backend_link link;
	int state;

	if (now < ctx->port_check_at)
		return;
	ctx->port_check_at = now + rte_get_tsc_hz() * DR_PORT_CHECK_MS / 1000;
	memset(&link, 0, sizeof(link));
	state = ctx->be->link_get(&ctx->bport, &link) == 0 && link.up ? DR_PORT_ACTIVE : DR_PORT_DOWN;
	if (ctx->port_state != 0 && state != ctx->port_state)
		dr_async_raise(ctx, state == DR_PORT_ACTIVE ? DR_EVENT_PORT_ACTIVE : DR_EVENT_PORT_ERR, NULL);
	ctx->port_state = state;
}

const char *
dr_event_type_str(enum dr_event_type type)
{
	static const char *const names[] = {
		[DR_EVENT_CQ_ERR] = "CQ error",
		[DR_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[DR_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[DR_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[DR_EVENT_COMM_EST] = "communication established",
		[DR_EVENT_SQ_DRAINED] = "send queue drained",
		[DR_EVENT_PATH_MIG] = "path migrated",
		[DR_EVENT_PATH_MIG_ERR] = "path migration request error",
		[DR_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[DR_EVENT_PORT_ACTIVE] = "port active",
		[DR_EVENT_PORT_ERR] = "port error",
		[DR_EVENT_LID_CHANGE] = "LID change",
		[DR_EVENT_PKEY_CHANGE] = "P_Key change",
		[DR_EVENT_SM_CHANGE] = "SM change",
		[DR_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[DR_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[DR_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[DR_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[DR_EVENT_GID_CHANGE] = "GID table change",
		[DR_EVENT_WQ_FATAL] = "WQ fatal",
	};

	return (unsigned int)type < RTE_DIM(names) && names[type] != NULL ? names[type] : "unknown";
}
