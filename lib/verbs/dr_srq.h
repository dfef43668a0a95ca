/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_SRQ_H
#define DR_SRQ_H

/*
 * Shared receive queues inside (dr_srq.c), and where a responder takes its
 * receive WQEs from: the QP's own queue, or its SRQ (IBA 10.2.9). A WQE
 * taken from an SRQ is copied into the QP (resp.srq_wqe): the other QPs of
 * the SRQ go on taking the next ones.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_qp_impl.h"

struct dr_xrcd_impl {
	struct dr_xrcd pub;
	uint32_t refcnt;               /* XRC SRQs and XRC_RECV QPs in it */
	struct dr_worker *wk;          /* its SRQs and target QPs live there (any of them takes any SRQ) */
};

static inline struct dr_xrcd_impl *dr_xrcd_impl(struct dr_xrcd *x) { return (struct dr_xrcd_impl *)x; }

struct dr_srq_impl {
	struct dr_srq pub;
	struct dr_rq rq;               /* the ring, as a QP's receive queue */
	uint32_t limit;                /* armed SRQ limit, 0 = not armed (IBA 10.2.9.2) */
	uint32_t refcnt;               /* QPs using it */
	uint32_t events_unacked;       /* SRQ_LIMIT_REACHED events not acknowledged */
	uint32_t num;                  /* SRQ number (XRCETH.XRCSRQ): 1 + its slot in ctx->srq_table */
	enum dr_srq_type type;
	struct dr_xrcd_impl *xrcd;     /* XRC: its domain */
	struct dr_cq *cq;              /* XRC: its completion queue */
	struct dr_worker *wk;          /* the worker of every QP that takes from it: one consumer */
};

/* An SRQ by number, NULL if none. */
static inline struct dr_srq_impl *
dr_srq_lookup(struct dr_context *ctx, uint32_t num)
{
	return num >= 1 && num <= DR_MAX_SRQ ? __atomic_load_n(&ctx->srq_table[num - 1], __ATOMIC_ACQUIRE) : NULL;
}

/*
 * Create an SRQ of @type (dr_srq.c; the public calls check their own
 * attributes first). NULL with errno set.
 */
struct dr_srq *dr_srq_create(struct dr_pd *pd, void *srq_context, struct dr_srq_attr *attr, enum dr_srq_type type,
			     struct dr_xrcd_impl *xrcd, struct dr_cq *cq);

static inline struct dr_srq_impl *dr_srq_impl(struct dr_srq *srq) { return (struct dr_srq_impl *)srq; }

/* Post one receive WR into a ring, with the checks of ibv_post_recv(3); 0 or a positive errno. */
int dr_rq_post_one(struct dr_context *ctx, struct dr_pd *pd, struct dr_rq *rq, const struct dr_recv_wr *wr);

/* A receive WQE can be taken for the next message. */
static inline bool
dr_rwqe_available(const struct dr_qp_impl *qp)
{
	const struct dr_rq *rq = qp->srq != NULL ? &qp->srq->rq : &qp->rq;

	return rq->tail != dr_rq_head(rq);
}

/* The receive WQE of the message in progress (after dr_rwqe_take()). */
static inline const struct dr_recv_wqe *
dr_rwqe_cur(const struct dr_qp_impl *qp)
{
	return qp->srq != NULL ? &qp->resp.srq_wqe : dr_rq_wqe(&qp->rq, qp->rq.tail);
}

/*
 * Take the next receive WQE for a message (dr_rwqe_available() said so):
 * from an SRQ it is dequeued now and copied into the QP, and the SRQ's
 * limit event may fire; the QP's own stays queued until dr_rwqe_done().
 */
void dr_rwqe_take(struct dr_qp_impl *qp);

/* Where the responder's receive completions go: an XRC SRQ's CQ, else the QP's receive CQ. */
static inline struct dr_cq *
dr_resp_recv_cq(const struct dr_qp_impl *qp)
{
	return qp->srq != NULL && qp->srq->cq != NULL ? qp->srq->cq : qp->pub.recv_cq;
}

/* The message's receive WQE completed. */
static inline void
dr_rwqe_done(struct dr_qp_impl *qp)
{
	if (qp->srq == NULL)
		qp->rq.tail++;
}

#endif /* DR_SRQ_H */
