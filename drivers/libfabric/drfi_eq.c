/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Event queues (fi_eq(3)) on a channel of the connection manager: its
 * events become libfabric's, as the verbs provider turns rdma_cm's
 *
 *   CONNECT_REQUEST              FI_CONNREQ  (a new fi_info with the request's handle)
 *   ESTABLISHED                  FI_CONNECTED
 *   DISCONNECTED                 FI_SHUTDOWN (our DREP sent)
 *   REJECTED                     error ECONNREFUSED, prov_errno the REJ reason, err_data its private data
 *   UNREACHABLE, CONNECT_ERROR   error ETIMEDOUT (or the status), prov_errno the status
 *
 * and the rest (address and route resolution, time wait) are the
 * provider's own. fi_eq_write()'s entries come first, in order.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drfi.h"

#define SREAD_POLL_MS 1

struct drfi_eq_user {
	struct drfi_eq_user *next;
	uint32_t event;
	uint64_t flags;
	size_t len;
	uint8_t buf[];
};

/* A connection request's fi_info: the listener's, its addresses the request's, the handle its new id. */
static struct fi_info *
connreq_info(struct drfi_pep *pep, struct dr_cm_id *id)
{
	struct drfi_connreq *cr = calloc(1, sizeof(*cr));
	struct fi_info *fi = fi_dupinfo(pep->info);
	struct sockaddr *src = dr_cm_get_local_addr(id), *dst = dr_cm_get_peer_addr(id);
	size_t len = src->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	if (cr == NULL || fi == NULL)
		goto fail;
	free(fi->src_addr);
	free(fi->dest_addr);
	fi->src_addr = malloc(len);
	fi->dest_addr = malloc(len);
	if (fi->src_addr == NULL || fi->dest_addr == NULL)
		goto fail;
	memcpy(fi->src_addr, src, len);
	memcpy(fi->dest_addr, dst, len);
	fi->src_addrlen = fi->dest_addrlen = len;
	fi->addr_format = src->sa_family == AF_INET6 ? FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	cr->fid.fclass = FI_CLASS_CONNREQ;
	cr->id = id;
	fi->handle = &cr->fid;
	return fi;
fail:
	free(cr);
	fi_freeinfo(fi);
	return NULL;
}

/* @ev as an fi_eq_err_entry of @eq (err_data kept until the next read). */
static void
set_error(struct drfi_eq *eq, fid_t fid, void *context, int err, int prov_errno, const void *data, size_t len)
{
	memset(&eq->err, 0, sizeof(eq->err));
	eq->err.fid = fid;
	eq->err.context = context;
	eq->err.err = err;
	eq->err.prov_errno = prov_errno;
	if (len > sizeof(eq->err_data))
		len = sizeof(eq->err_data);
	if (len > 0) {
		memcpy(eq->err_data, data, len);
		eq->err.err_data = eq->err_data;
		eq->err.err_data_size = len;
	}
	eq->have_err = true;
}

/*
 * The next event of the channel, translated into eq->peek: 1, 0 (none),
 * -FI_EAVAIL (an error entry waits), or an error.
 */
static int
next_event(struct drfi_eq *eq)
{
	struct fi_eq_cm_entry *entry = (struct fi_eq_cm_entry *)eq->peek;
	size_t room = sizeof(eq->peek) - sizeof(*entry);

	for (;;) {
		struct dr_cm_event *ev;
		const void *pdata;
		uint8_t plen;
		int ret = dr_cm_get_cm_event(eq->ch, &ev);

		if (ret == -EAGAIN)
			return 0;
		if (ret != 0)
			return ret;
		pdata = ev->param.conn.private_data;
		plen = ev->param.conn.private_data_len;
		memset(entry, 0, sizeof(*entry));
		ret = 1;
		switch (ev->event) {
		case DR_CM_EVENT_CONNECT_REQUEST: {
			struct drfi_pep *pep = ev->listen_id->context;

			entry->fid = &pep->pep.fid;
			entry->info = connreq_info(pep, ev->id);
			if (entry->info == NULL) {
				(void)dr_cm_reject(ev->id, NULL, 0);
				(void)dr_cm_ack_cm_event(ev);
				(void)dr_cm_destroy_id(ev->id);
				FI_WARN(&drfi_prov, FI_LOG_EQ, "a connection request refused: no memory\n");
				continue;
			}
			eq->peek_event = FI_CONNREQ;
			break;
		}
		case DR_CM_EVENT_ESTABLISHED:
			entry->fid = &((struct drfi_ep *)ev->id->context)->ep.fid;
			drfi_stats_connected(ev->id->context);
			eq->peek_event = FI_CONNECTED;
			break;
		case DR_CM_EVENT_DISCONNECTED:
			/* rdma_cm's peer waits for our DREP: sent now, whatever the application does */
			(void)dr_cm_disconnect(ev->id);
			entry->fid = &((struct drfi_ep *)ev->id->context)->ep.fid;
			eq->peek_event = FI_SHUTDOWN;
			plen = 0;
			break;
		case DR_CM_EVENT_REJECTED:
		case DR_CM_EVENT_UNREACHABLE:
		case DR_CM_EVENT_CONNECT_ERROR:
		case DR_CM_EVENT_ADDR_ERROR:
		case DR_CM_EVENT_ROUTE_ERROR: {
			struct drfi_ep *ep = ev->id->context;
			int err = ev->event == DR_CM_EVENT_REJECTED ? FI_ECONNREFUSED :
				  ev->status < 0 ? -ev->status : FI_ETIMEDOUT;

			set_error(eq, &ep->ep.fid, ep->ep.fid.context, err, ev->status, pdata,
				  ev->event == DR_CM_EVENT_REJECTED ? plen : 0);
			ret = -FI_EAVAIL;
			break;
		}
		default:
			/* address and route resolution, time wait: the provider's own business */
			(void)dr_cm_ack_cm_event(ev);
			continue;
		}
		if (ret == 1) {
			if (plen > room)
				plen = (uint8_t)room;
			if (plen > 0)
				memcpy(entry->data, pdata, plen);
			eq->peek_len = sizeof(*entry) + plen;
			eq->have_peek = true;
		}
		(void)dr_cm_ack_cm_event(ev);
		return ret;
	}
}

static ssize_t
eq_read(struct fid_eq *feq, uint32_t *event, void *buf, size_t len, uint64_t flags)
{
	struct drfi_eq *eq = (struct drfi_eq *)feq;
	struct drfi_eq_user *u = eq->user_head;
	size_t n;
	int ret;

	if (eq->have_err)
		return -FI_EAVAIL;
	if (u != NULL) {
		if (len < u->len)
			return -FI_ETOOSMALL;
		*event = u->event;
		memcpy(buf, u->buf, u->len);
		n = u->len;
		if (!(flags & FI_PEEK)) {
			eq->user_head = u->next;
			if (eq->user_head == NULL)
				eq->user_tail = NULL;
			free(u);
		}
		return (ssize_t)n;
	}
	if (!eq->have_peek) {
		drfi_lock(eq->fab);
		drfi_progress(eq->fab);
		ret = next_event(eq);
		drfi_unlock(eq->fab);
		if (ret <= 0)
			return ret == 0 ? -FI_EAGAIN : ret;
	}
	/* a CM entry's data may be cut to what the caller has room for (fi_eq(3)) */
	if (len < sizeof(struct fi_eq_cm_entry))
		return -FI_ETOOSMALL;
	n = eq->peek_len < len ? eq->peek_len : len;
	*event = eq->peek_event;
	memcpy(buf, eq->peek, n);
	if (!(flags & FI_PEEK))
		eq->have_peek = false;
	return (ssize_t)n;
}

static ssize_t
eq_readerr(struct fid_eq *feq, struct fi_eq_err_entry *buf, uint64_t flags)
{
	struct drfi_eq *eq = (struct drfi_eq *)feq;

	if (!eq->have_err)
		return -FI_EAGAIN;
	*buf = eq->err;
	if (!(flags & FI_PEEK))
		eq->have_err = false;
	return sizeof(*buf);
}

static ssize_t
eq_write(struct fid_eq *feq, uint32_t event, const void *buf, size_t len, uint64_t flags)
{
	struct drfi_eq *eq = (struct drfi_eq *)feq;
	struct drfi_eq_user *u = malloc(sizeof(*u) + len);

	if (u == NULL)
		return -FI_ENOMEM;
	u->next = NULL;
	u->event = event;
	u->flags = flags;
	u->len = len;
	memcpy(u->buf, buf, len);
	if (eq->user_tail != NULL)
		eq->user_tail->next = u;
	else
		eq->user_head = u;
	eq->user_tail = u;
	return (ssize_t)len;
}

static ssize_t
eq_sread(struct fid_eq *feq, uint32_t *event, void *buf, size_t len, int timeout, uint64_t flags)
{
	struct drfi_eq *eq = (struct drfi_eq *)feq;
	double end = timeout < 0 ? -1 : drfi_now_ms() + timeout;

	for (;;) {
		struct pollfd p = { .fd = eq->ch->fd, .events = POLLIN };
		ssize_t ret = eq_read(feq, event, buf, len, flags);

		if (ret != -FI_EAGAIN)
			return ret;
		if (end >= 0 && drfi_now_ms() >= end)
			return -FI_EAGAIN;
		/* inline: the wait drives the transport and the CM every millisecond */
		if (poll(&p, 1, SREAD_POLL_MS) < 0 && errno != EINTR)
			return -errno;
	}
}

static const char *
eq_strerror(struct fid_eq *feq, int prov_errno, const void *err_data, char *buf, size_t len)
{
	(void)feq;
	(void)err_data;
	if (buf != NULL && len > 0)
		snprintf(buf, len, "CM status %d%s", prov_errno,
			 prov_errno == 8 ? " (invalid service ID: nobody listens)" :
			 prov_errno == 28 ? " (consumer reject)" : prov_errno == -ETIMEDOUT ? " (no answer)" : "");
	return buf;
}

static int
eq_close(struct fid *fid)
{
	struct drfi_eq *eq = (struct drfi_eq *)fid;
	int ret;

	if (eq->have_peek && eq->peek_event == FI_CONNREQ)
		fi_freeinfo(((struct fi_eq_cm_entry *)eq->peek)->info);
	ret = dr_cm_destroy_event_channel(eq->ch);
	if (ret != 0)
		return -FI_EBUSY;       /* endpoints still use it */
	while (eq->user_head != NULL) {
		struct drfi_eq_user *u = eq->user_head;

		eq->user_head = u->next;
		free(u);
	}
	eq->fab->refs--;
	free(eq);
	return 0;
}

static int
eq_control(struct fid *fid, int command, void *arg)
{
	struct drfi_eq *eq = (struct drfi_eq *)fid;

	if (command != FI_GETWAIT)
		return -FI_ENOSYS;
	*(int *)arg = eq->ch->fd;       /* readable while a CM event waits */
	return 0;
}

static struct fi_ops eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = eq_close,
	.bind = drfi_no_bind,
	.control = eq_control,
	.ops_open = drfi_no_ops_open,
};

static struct fi_ops_eq eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = eq_read,
	.readerr = eq_readerr,
	.write = eq_write,
	.sread = eq_sread,
	.strerror = eq_strerror,
};

int
drfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr, struct fid_eq **out, void *context)
{
	struct drfi_fabric *fab = (struct drfi_fabric *)fabric;
	struct drfi_eq *eq;

	if (attr != NULL && attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC &&
	    attr->wait_obj != FI_WAIT_FD)
		return -FI_ENOSYS;      /* no wait sets, mutexes */
	eq = calloc(1, sizeof(*eq));
	if (eq == NULL)
		return -FI_ENOMEM;
	eq->ch = dr_cm_create_event_channel();
	if (eq->ch == NULL) {
		free(eq);
		return -FI_ENOMEM;
	}
	(void)fcntl(eq->ch->fd, F_SETFL, fcntl(eq->ch->fd, F_GETFL) | O_NONBLOCK);
	eq->fab = fab;
	eq->eq.fid.fclass = FI_CLASS_EQ;
	eq->eq.fid.context = context;
	eq->eq.fid.ops = &eq_fi_ops;
	eq->eq.ops = &eq_ops;
	fab->refs++;
	*out = &eq->eq;
	return 0;
}
