/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Synchronous ids (rdma_create_id(3) with no channel): each call that
 * starts something waits for the event that ends it on the id's own
 * channel, keeps it in id->event (its private data readable until the
 * next call) and turns the failures into errno values as librdmacm's
 * ucma_complete() does. rdma_get_request(3) is the listener's wait.
 */

#include <errno.h>

#include "dr_cm_id.h"

/* What a synchronous call returns for event @ev. */
static int
sync_status(const struct dr_cm_event *ev)
{
	switch (ev->event) {
	case DR_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case DR_CM_EVENT_UNREACHABLE:
		/* a SIDR_REP's refusal (status > 0) is a refusal too */
		return ev->status < 0 ? ev->status : -ECONNREFUSED;
	case DR_CM_EVENT_DISCONNECTED:
		return -ECONNRESET;
	default:
		return ev->status < 0 ? ev->status : -EIO;
	}
}

static bool
is_failure(enum dr_cm_event_type t)
{
	switch (t) {
	case DR_CM_EVENT_ADDR_ERROR:
	case DR_CM_EVENT_ROUTE_ERROR:
	case DR_CM_EVENT_CONNECT_ERROR:
	case DR_CM_EVENT_UNREACHABLE:
	case DR_CM_EVENT_REJECTED:
	case DR_CM_EVENT_DISCONNECTED:
	case DR_CM_EVENT_DEVICE_REMOVAL:
		return true;
	default:
		return false;
	}
}

static void
drop_last(struct dr_cm_id *pub)
{
	if (pub->event != NULL) {
		(void)dr_cm_ack_cm_event(pub->event);
		pub->event = NULL;
	}
}

int
dr_cm_sync_wait(struct dr_cm_id_impl *id, enum dr_cm_event_type want)
{
	drop_last(&id->pub);
	for (;;) {
		struct dr_cm_event *ev;
		int ret = dr_cm_event_get(id->ch, false, &ev);

		if (ret != 0)
			return ret;
		if (ev->event == want) {
			id->pub.event = ev;
			return 0;
		}
		if (is_failure(ev->event)) {
			id->pub.event = ev;
			return sync_status(ev);
		}
		(void)dr_cm_ack_cm_event(ev);     /* TIMEWAIT_EXIT and the like: nobody waits for them */
	}
}

int
dr_cm_get_request(struct dr_cm_id *listen, struct dr_cm_id **id)
{
	struct dr_cm_id_impl *l = dr_cm_id_impl(listen);
	struct dr_cm_event *ev;
	int ret;

	if (listen == NULL || id == NULL || !l->sync || !l->listening)
		return -EINVAL;
	drop_last(listen);
	ret = dr_cm_event_get(l->ch, false, &ev);
	if (ret != 0)
		return ret;
	if (ev->event != DR_CM_EVENT_CONNECT_REQUEST) {
		ret = ev->status < 0 ? ev->status : -EINVAL;
		(void)dr_cm_ack_cm_event(ev);
		return ret;
	}
	if (l->ep_qp) {
		/* rdma_create_ep(3)'s QP attributes: every request's id gets its QP */
		struct dr_qp_init_attr ia = l->ep_qp_attr;

		ret = dr_cm_create_qp(ev->id, l->ep_pd, &ia);
		if (ret != 0) {
			struct dr_cm_id *nid = ev->id;

			(void)dr_cm_reject(nid, NULL, 0);
			(void)dr_cm_ack_cm_event(ev);
			(void)dr_cm_destroy_id(nid);
			return ret;
		}
	}
	ev->id->event = ev;
	*id = ev->id;
	return 0;
}
