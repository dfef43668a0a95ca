/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_CQ_H
#define DR_VERBS_CQ_H

/**
 * @file
 * Completion queues (ibv_create_cq(3), ibv_poll_cq(3)), completion channels
 * (ibv_get_cq_event(3)) and asynchronous events (ibv_get_async_event(3)).
 *
 * Part of the verbs-shaped API; include dr_verbs.h, which includes every part.
 */

#include "dr_verbs_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

/** Operations of a CQ, chosen when it is created. */
struct dr_cq_ops {
	int (*poll)(struct dr_cq *cq, int num_entries, struct dr_wc *wc);
};

/** Public head of a CQ (struct ibv_cq). */
struct dr_cq {
	struct dr_context *context;
	void *cq_context;
	int cqe;                      /**< capacity actually provided */
	const struct dr_cq_ops *ops;
};

struct dr_comp_channel;

/**
 * ibv_create_cq(3) with @p cqe entries at least, optionally on a
 * completion channel of the same context; one completion vector (0).
 * @return the CQ, or NULL with errno set.
 */
struct dr_cq *dr_create_cq(struct dr_context *ctx, int cqe, void *cq_context, struct dr_comp_channel *channel,
			   int comp_vector);
/** ibv_destroy_cq(3). @return 0, or -EBUSY while a QP uses it or events of it are unacknowledged. */
int dr_destroy_cq(struct dr_cq *cq);

/**
 * ibv_poll_cq(3): up to @p num_entries completions, oldest first. In inline
 * mode, when no completion is waiting in the CQ and no round of the
 * transport ran since this CQ's previous poll, it drives the transport
 * first (dr_progress()); completions already waiting are returned without
 * another round, so a caller that takes them a few at a time meets one
 * round, not one per call, and a loop that calls dr_progress() itself (a
 * network function's) or polls several CQs pays one round per turn, not one
 * per poll. A loop that polls only this CQ drives a round every call.
 * @return how many were written (0 = none), or -EOVERFLOW once the CQ has
 *         overrun (a completion was lost: the CQ is in error, as IBA 11.4.2.1
 *         says, and its QPs have been moved to ERR), or another -errno.
 */
static inline int
dr_poll_cq(struct dr_cq *cq, int num_entries, struct dr_wc *wc)
{
	return cq->ops->poll(cq, num_entries, wc);
}

/* ------------------------------------------------------------------ */
/* Completion channels (ibv_create_comp_channel(3), ibv_get_cq_event(3)) */
/* ------------------------------------------------------------------ */

/** A completion channel (struct ibv_comp_channel). */
struct dr_comp_channel {
	struct dr_context *context;
	int fd;                       /**< readable while a CQ event is queued (an eventfd) */
	int refcnt;                   /**< CQs using it */
};

/**
 * ibv_create_comp_channel(3). Give it to dr_create_cq(); arm a CQ with
 * dr_req_notify_cq(); wait with dr_get_cq_event().
 * @return the channel, or NULL with errno set (EINVAL, ENOMEM, or the
 *         errno of eventfd(2)).
 */
struct dr_comp_channel *dr_create_comp_channel(struct dr_context *ctx);
/** ibv_destroy_comp_channel(3). @return 0, or -EBUSY while a CQ uses it. */
int dr_destroy_comp_channel(struct dr_comp_channel *channel);

/**
 * ibv_req_notify_cq(3): the next completion added to @p cq (with
 * @p solicited_only: the next solicited receive completion, or any
 * completion in error) raises one event on its channel. @return 0, or
 * -EINVAL when the CQ has no channel.
 */
int dr_req_notify_cq(struct dr_cq *cq, int solicited_only);

/**
 * ibv_get_cq_event(3): the next event of @p channel: its CQ and that CQ's
 * cq_context. In DR_PROGRESS_INLINE mode the caller's thread is the
 * transport, so the call drives dr_progress() until an event is there
 * (blocking); with O_NONBLOCK set on @p channel->fd it drives one round and
 * returns -EAGAIN when there is none. @return 0 or -errno.
 */
int dr_get_cq_event(struct dr_comp_channel *channel, struct dr_cq **cq, void **cq_context);
/** ibv_ack_cq_events(3): acknowledge @p nevents events of @p cq (dr_destroy_cq() waits for them). */
void dr_ack_cq_events(struct dr_cq *cq, unsigned int nevents);

/* ------------------------------------------------------------------ */
/* Asynchronous events (ibv_get_async_event(3))                        */
/* ------------------------------------------------------------------ */

/** Event types (enum ibv_event_type, same values). */
enum dr_event_type {
	DR_EVENT_CQ_ERR,
	DR_EVENT_QP_FATAL,
	DR_EVENT_QP_REQ_ERR,
	DR_EVENT_QP_ACCESS_ERR,
	DR_EVENT_COMM_EST,
	DR_EVENT_SQ_DRAINED,
	DR_EVENT_PATH_MIG,
	DR_EVENT_PATH_MIG_ERR,
	DR_EVENT_DEVICE_FATAL,
	DR_EVENT_PORT_ACTIVE,
	DR_EVENT_PORT_ERR,
	DR_EVENT_LID_CHANGE,
	DR_EVENT_PKEY_CHANGE,
	DR_EVENT_SM_CHANGE,
	DR_EVENT_SRQ_ERR,
	DR_EVENT_SRQ_LIMIT_REACHED,
	DR_EVENT_QP_LAST_WQE_REACHED,
	DR_EVENT_CLIENT_REREGISTER,
	DR_EVENT_GID_CHANGE,
	DR_EVENT_WQ_FATAL,
};

/** An asynchronous event (struct ibv_async_event). */
struct dr_async_event {
	union {
		struct dr_cq *cq;
		struct dr_qp *qp;
		struct dr_srq *srq;
		int port_num;
	} element;                    /**< what it is about, by event_type */
	enum dr_event_type event_type;
};

/**
 * ibv_get_async_event(3): the oldest queued event of @p ctx. Events are
 * raised while the transport runs (dr_progress()): QP_REQ_ERR,
 * QP_ACCESS_ERR or QP_FATAL when the responder moves a QP to ERR, CQ_ERR on
 * a CQ overrun, SRQ_LIMIT_REACHED, PORT_ACTIVE / PORT_ERR when the link
 * changes. Non-blocking: -EAGAIN when none is queued; dr_async_fd() is
 * readable while one is. @return 0 or -errno.
 */
int dr_get_async_event(struct dr_context *ctx, struct dr_async_event *event);
/**
 * ibv_ack_async_event(3): a QP / CQ / SRQ cannot be destroyed (-EBUSY) while
 * an event about it that dr_get_async_event() handed out is unacknowledged.
 */
void dr_ack_async_event(struct dr_async_event *event);
/** File descriptor readable while async events are queued (ibv_context.async_fd). */
int dr_async_fd(struct dr_context *ctx);

/** Text of an event type (ibv_event_type_str(3)). */
const char *dr_event_type_str(enum dr_event_type type);

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_CQ_H */
