/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Queue pairs as objects: create (ibv_create_qp(3)), the state machine
 * (ibv_modify_qp(3); the transition and attribute rules are dr_qp_attr.c's),
 * the move to ERR with its flush (IBA 10.3.1), query and destroy. Each
 * transition initialises the state of the stage it enables: INIT->RTR the
 * responder and the route, RTR->RTS the requester and the completer.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "dr_ah.h"
#include "dr_context.h"
#include "dr_control.h"
#include "dr_engine.h"
#include "dr_log.h"
#include "dr_mw.h"
#include "dr_pkt.h"
#include "dr_post.h"
#include "dr_psn.h"
#include "dr_qp_attr.h"
#include "dr_qp_impl.h"
#include "dr_srq.h"
#include "dr_verbs_priv.h"

static struct dr_qp *
create_fail(int err)
{
	errno = err;
	return NULL;
}

/* Check the requested capabilities and turn them into the granted ones. */
static int
cap_grant(struct dr_qp_cap *cap)
{
	if (cap->max_send_wr < 1 || cap->max_send_wr > DR_MAX_QP_WR ||
	    cap->max_recv_wr < 1 || cap->max_recv_wr > DR_MAX_QP_WR)
		return -EINVAL;
	if (cap->max_send_sge > DR_MAX_SGE || cap->max_recv_sge > DR_MAX_SGE)
		return -EINVAL;
	if (cap->max_inline_data > DR_MAX_INLINE)
		return -EINVAL;
	/* a queue with room for no SGE cannot carry data: give it one */
	if (cap->max_send_sge == 0)
		cap->max_send_sge = 1;
	if (cap->max_recv_sge == 0)
		cap->max_recv_sge = 1;
	return 0;
}

static void
queues_free(struct dr_qp_impl *qp)
{
	rte_free(qp->sq.wqe);
	rte_free(qp->sq.sges);
	rte_free(qp->sq.inline_buf);
	rte_free(qp->rq.wqe);
	rte_free(qp->rq.sges);
}

static int
queues_alloc(struct dr_qp_impl *qp, const struct dr_qp_cap *cap, int socket, bool own_rq)
{
	struct dr_sq *sq = &qp->sq;
	struct dr_rq *rq = &qp->rq;
	uint32_t i;

	sq->max_wr = cap->max_send_wr;
	sq->size = rte_align32pow2(sq->max_wr);
	sq->max_sge = cap->max_send_sge;
	sq->max_inline = cap->max_inline_data;
	sq->wqe = rte_zmalloc_socket("dr_sq", sq->size * sizeof(*sq->wqe), RTE_CACHE_LINE_SIZE, socket);
	sq->sges = rte_zmalloc_socket("dr_sq_sge", sq->size * sq->max_sge * sizeof(*sq->sges),
				      RTE_CACHE_LINE_SIZE, socket);
	if (sq->max_inline != 0)
		sq->inline_buf = rte_zmalloc_socket("dr_sq_inline", sq->size * sq->max_inline,
						    RTE_CACHE_LINE_SIZE, socket);
	if (!own_rq)
		goto sq_only;           /* receives come from the SRQ */
	rq->max_wr = cap->max_recv_wr;
	rq->size = rte_align32pow2(rq->max_wr);
	rq->max_sge = cap->max_recv_sge;
	rq->wqe = rte_zmalloc_socket("dr_rq", rq->size * sizeof(*rq->wqe), RTE_CACHE_LINE_SIZE, socket);
	rq->sges = rte_zmalloc_socket("dr_rq_sge", rq->size * rq->max_sge * sizeof(*rq->sges),
				      RTE_CACHE_LINE_SIZE, socket);
	if (rq->wqe == NULL || rq->sges == NULL)
		return -ENOMEM;
	for (i = 0; i < rq->size; i++)
		rq->wqe[i].sge = &rq->sges[i * rq->max_sge];
sq_only:
	if (sq->wqe == NULL || sq->sges == NULL || (sq->max_inline != 0 && sq->inline_buf == NULL))
		return -ENOMEM;
	/* each slot owns a fixed SGE array */
	for (i = 0; i < sq->size; i++)
		sq->wqe[i].sge = &sq->sges[i * sq->max_sge];
	return 0;
}

/*
 * What each QP type needs at creation (ibv_create_qp(3), ibv_create_qp_ex(3)):
 * RC, UC, UD: a PD, both CQs; XRC_SEND (initiator): a PD and a send CQ, no
 * receive side; XRC_RECV (target): its XRC domain only - it sends nothing
 * but responses and delivers into the domain's XRC SRQs.
 */
static int
type_check(const struct dr_context *ctx, const struct dr_pd *pd, const struct dr_qp_init_attr *ia,
	   const struct dr_xrcd *xrcd)
{
	switch (ia->qp_type) {
	case DR_QPT_RC:
	case DR_QPT_UC:
	case DR_QPT_UD:
		if (pd == NULL || ia->send_cq == NULL || ia->recv_cq == NULL)
			return EINVAL;
		break;
	case DR_QPT_XRC_SEND:
		if (pd == NULL || ia->send_cq == NULL || ia->srq != NULL)
			return EINVAL;
		break;
	case DR_QPT_XRC_RECV:
		if (xrcd == NULL || xrcd->context != ctx)
			return EINVAL;
		return 0;
	case DR_QPT_RAW_PACKET:
		DR_LOG(qp, INFO, "create_qp: raw packet QPs are not supported");
		return EOPNOTSUPP;
	default:
		return EINVAL;
	}
	if ((ia->send_cq != NULL && ia->send_cq->context != ctx) || (ia->recv_cq != NULL && ia->recv_cq->context != ctx))
		return EINVAL;
	/* an SRQ of the same context, a basic one (ibv_create_qp(3): the receive caps are then ignored) */
	if (ia->srq != NULL && (ia->srq->context != ctx || dr_srq_impl(ia->srq)->type != DR_SRQT_BASIC))
		return EINVAL;
	return 0;
}

struct dr_qp *
dr_qp_create(struct dr_context *ctx, struct dr_pd *pd, struct dr_qp_init_attr *ia, struct dr_xrcd *xrcd)
{
	bool xrc_tgt = ia->qp_type == DR_QPT_XRC_RECV;
	bool own_rq = ia->srq == NULL && ia->qp_type != DR_QPT_XRC_SEND && !xrc_tgt;
	struct dr_qp_impl *qp;
	struct dr_qp_cap cap;
	int socket, rc;

	rc = type_check(ctx, pd, ia, xrcd);
	if (rc != 0)
		return create_fail(rc);
	cap = ia->cap;
	if (xrc_tgt) {
		memset(&cap, 0, sizeof(cap));
		cap.max_send_wr = 1;        /* no send WRs (dr_post_send(): EINVAL); the slot keeps the code uniform */
	}
	if (!own_rq) {
		cap.max_recv_wr = 1;        /* passes cap_grant(); reported as 0 below */
		cap.max_recv_sge = 0;
	}
	if (cap_grant(&cap) != 0) {
		DR_LOG(qp, INFO, "create_qp: caps wr %u/%u sge %u/%u inline %u above %u/%u/%u",
		       cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge, cap.max_recv_sge,
		       cap.max_inline_data, DR_MAX_QP_WR, DR_MAX_SGE, DR_MAX_INLINE);
		return create_fail(EINVAL);
	}
	if (ctx->qp_free.count == 0) {
		DR_LOG(qp, INFO, "create_qp: %u QPs already (max_qp)", ctx->num_qps);
		return create_fail(ENOMEM);
	}

	socket = ctx->socket_id;
	qp = rte_zmalloc_socket("dr_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE, socket);
	if (qp == NULL)
		return create_fail(ENOMEM);
	if (queues_alloc(qp, &cap, socket, own_rq) != 0) {
		queues_free(qp);
		rte_free(qp);
		return create_fail(ENOMEM);
	}
	/* the oldest free number: a destroyed QP's comes back only after every other free one */
	qp->index = (uint32_t)dr_idx_fifo_take(&ctx->qp_free);  /* cannot fail: one is free */
	qp->pub.context = ctx;
	qp->pub.qp_context = ia->qp_context;
	qp->pub.pd = xrc_tgt ? NULL : pd;
	qp->pub.send_cq = xrc_tgt ? NULL : ia->send_cq;
	qp->pub.recv_cq = xrc_tgt ? NULL : ia->recv_cq;
	qp->pub.srq = ia->srq;
	qp->srq = ia->srq != NULL ? dr_srq_impl(ia->srq) : NULL;
	qp->xrcd = xrc_tgt ? dr_xrcd_impl(xrcd) : NULL;
	if (!own_rq) {
		cap.max_recv_wr = 0;
		cap.max_recv_sge = 0;
	}
	if (xrc_tgt)
		cap.max_send_wr = cap.max_send_sge = 0;
	qp->pub.qp_num = DR_QPN_BASE + qp->index;
	qp->pub.state = DR_QPS_RESET;
	qp->pub.qp_type = ia->qp_type;
	qp->pub.ops = &dr_qp_post_ops;
	for (unsigned int op = 0; op < DR_NUM_WR_OPCODES; op++)
		for (unsigned int pos = 0; pos <= DR_POS_ONLY; pos++) {
			int o = dr_wr_pkt_opcode(ia->qp_type, (enum dr_wr_opcode)op, (enum dr_pkt_pos)pos);

			qp->pkt_op[op][pos] = (int16_t)(o < 0 ? -1 : o);
		}
	qp->init = *ia;
	qp->init.cap = cap;
	qp->sq_sig_all = ia->sq_sig_all;
	qp->post_kick = ctx->attr.mode == DR_PROGRESS_INLINE && (ia->qp_type == DR_QPT_RC || ia->qp_type == DR_QPT_UC);
	qp->xp_post_ops = dr_post_express_ops(ia->qp_type, cap.max_send_sge);
	qp->attr.qp_state = DR_QPS_RESET;
	qp->attr.cur_qp_state = DR_QPS_RESET;
	qp->attr.cap = cap;
	qp->attr.port_num = 1;
	if (ia->qp_type == DR_QPT_UD) {
		/* UD: messages up to the port's active MTU (rxe get_mtu()); one UDP source port per QP */
		qp->attr.path_mtu = ctx->active_mtu;
		qp->route.udp_sport = dr_udp_sport_from_qpn(qp->pub.qp_num);
	} else {
		qp->attr.path_mtu = DR_MTU_256;  /* rxe's initial value until RTR sets it */
	}
	qp->mtu = dr_mtu_bytes(qp->attr.path_mtu);
	dr_req_reset(qp);
	dr_comp_reset(qp);
	dr_resp_reset(qp);
	ia->cap = cap;                      /* ibv_create_qp(3): the caps actually provided */

	if (qp->pub.pd != NULL)
		qp->pub.pd->refcnt++;
	if (qp->pub.send_cq != NULL)
		dr_cq_impl(qp->pub.send_cq)->refcnt++;
	if (qp->pub.recv_cq != NULL)
		dr_cq_impl(qp->pub.recv_cq)->refcnt++;
	if (qp->srq != NULL)
		qp->srq->refcnt++;
	if (qp->xrcd != NULL)
		qp->xrcd->refcnt++;
	/* its worker for life: the one of its SRQ / XRC domain (one consumer each), else round robin */
	if (qp->xrcd != NULL)
		qp->wk = qp->xrcd->wk;
	else if (qp->srq != NULL)
		qp->wk = qp->srq->wk;
	else
		qp->wk = dr_engine_place(ctx);
	qp->wk->num_qps++;
	ctx->num_qps++;
	pthread_mutex_lock(&ctx->ctl_lock);
	TAILQ_INSERT_TAIL(&ctx->qps, qp, ctx_link);
	__atomic_store_n(&ctx->qp_table[qp->index], qp, __ATOMIC_RELEASE);  /* workers look it up lock-free */
	pthread_mutex_unlock(&ctx->ctl_lock);
	DR_LOG(qp, DEBUG, "QP 0x%x created: wr %u/%u sge %u/%u inline %u", qp->pub.qp_num,
	       cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge, cap.max_recv_sge, cap.max_inline_data);
	return &qp->pub;
}

static struct dr_qp *
create_qp_ctl(struct dr_pd *pd, struct dr_qp_init_attr *ia)
{
	if (pd == NULL || ia == NULL)
		return create_fail(EINVAL);
	/* an XRC target has no PD of its own: dr_create_qp_ex() with its domain */
	if (ia->qp_type == DR_QPT_XRC_RECV)
		return create_fail(EINVAL);
	return dr_qp_create(pd->context, pd, ia, NULL);
}

/* dr_create_qp() as a control command (dr_control.h) */
struct create_qp_args {
	struct dr_pd *pd;
	struct dr_qp_init_attr *ia;
	struct dr_qp *ret;
};

static int
create_qp_call(void *arg)
{
	struct create_qp_args *a = arg;

	a->ret = create_qp_ctl(a->pd, a->ia);
	return 0;
}

struct dr_qp *
dr_create_qp(struct dr_pd *pd, struct dr_qp_init_attr *ia)
{
	struct create_qp_args a = { .pd = pd, .ia = ia };

	if (pd == NULL)
		return create_qp_ctl(pd, ia);
	(void)dr_ctl_run(pd->context, create_qp_call, &a);
	return a.ret;
}

/* An address vector a connected QP can send to (dr_qp_attr_check_values() checked the index range). */
static int
av_check(const struct dr_context *ctx, const struct dr_ah_attr *ah)
{
	/* a connected peer has a unicast address */
	return dr_av_check(ctx, ah) != 0 ? -EINVAL : 0;
}

static int
attr_check(const struct dr_qp_impl *qp, const struct dr_qp_attr *attr, int mask,
	   enum dr_qp_state cur, enum dr_qp_state next)
{
	const struct dr_context *ctx = qp->pub.context;

	/* ibv_modify_qp(3) IBV_QP_CUR_STATE: the state the caller assumes must be the state */
	if ((mask & DR_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return -EINVAL;
	/* IBA 10.3.1 figure 124 transitions, 11.2.5.3 table 91 required/optional attributes */
	if (dr_qp_attr_check_mask(qp->pub.qp_type, cur, next, mask) != 0)
		return -EINVAL;
	if (dr_qp_attr_check_values(attr, mask, ctx->num_gids) != 0)
		return -EINVAL;
	if ((mask & DR_QP_AV) && av_check(ctx, &attr->ah_attr) != 0)
		return -EINVAL;
	if ((mask & DR_QP_ALT_PATH) && av_check(ctx, &attr->alt_ah_attr) != 0)
		return -EINVAL;
	/*
	 * rxe_qp_chk_attr() rejects a path MTU above the port's; rxe compares with
	 * max_mtu (4096), we with active_mtu: larger frames would not fit the link.
	 */
	if ((mask & DR_QP_PATH_MTU) && attr->path_mtu > ctx->active_mtu)
		return -EINVAL;
	/* rxe_qp_chk_attr(): at most the device's max_qp_rd_atom (ibv_query_device(3)) */
	if ((mask & DR_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > DR_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & DR_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic > DR_MAX_RD_ATOMIC)
		return -EINVAL;
	return 0;
}

static void
attr_copy(struct dr_qp_attr *a, const struct dr_qp_attr *attr, int mask)
{
	if (mask & DR_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & DR_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & DR_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & DR_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & DR_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & DR_QP_AV)
		a->ah_attr = attr->ah_attr;
	if (mask & DR_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & DR_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & DR_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & DR_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & DR_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & DR_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & DR_QP_ALT_PATH) {
		a->alt_ah_attr = attr->alt_ah_attr;
		a->alt_pkey_index = attr->alt_pkey_index;
		a->alt_port_num = attr->alt_port_num;
		a->alt_timeout = attr->alt_timeout;
	}
	if (mask & DR_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & DR_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & DR_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & DR_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & DR_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & DR_QP_RATE_LIMIT)
		a->rate_limit = attr->rate_limit;
}

/* Where this QP's packets go; the MAC is resolved later by the transport (be->resolve). */
static void
route_build(struct dr_qp_impl *qp)
{
	const struct dr_ah_attr *ah = &qp->attr.ah_attr;
	uint32_t fl;

	dr_av_route(qp->pub.context, ah, &qp->route);
	/* rxe: the UDP source port folds the flow label, else rdma_calc_flow_label() of the QPNs */
	fl = ah->grh.flow_label != 0 ? ah->grh.flow_label :
	     dr_flow_label_from_qpns(qp->pub.qp_num, qp->attr.dest_qp_num);
	qp->route.udp_sport = dr_udp_sport_from_flow_label(fl);
	/* DCQCN: a connected QP's frames are ECN-capable, ECT(0) as RoCE NICs send (congestion.rst) */
	if (qp->pub.context->cc.algo == DR_CC_DCQCN)
		qp->route.tclass = (uint8_t)((qp->route.tclass & ~DR_ECN_MASK) | DR_ECN_ECT0);
	dr_qp_route_v4_set(qp);
	qp->route_resolved = false;
	qp->route_gen++;                /* the stages rebuild their headers */
}

/* Let go of the AHs the send WQEs still hold (the queue is being emptied). */
static void
sq_release_all(struct dr_qp_impl *qp)
{
	uint32_t i;

	for (i = qp->sq.tail; i != qp->sq.head; i++)
		dr_send_wqe_release(dr_sq_wqe(&qp->sq, i));
}

/* To RESET: the queues are emptied without completions, the stages start over. */
static void
qp_reset(struct dr_qp_impl *qp)
{
	sq_release_all(qp);
	qp->sq.head = 0;
	qp->sq.tail = 0;
	qp->rq.head = 0;
	qp->rq.tail = 0;
	/* each stage back to a new QP's state (the responder frees the requests it holds) */
	dr_comp_reset(qp);
	dr_req_reset(qp);
	dr_resp_reset(qp);
	memset(&qp->route, 0, sizeof(qp->route));
	if (qp->pub.qp_type == DR_QPT_UD)
		qp->route.udp_sport = dr_udp_sport_from_qpn(qp->pub.qp_num);
	dr_qp_route_v4_set(qp);
	qp->route_resolved = false;
	qp->route_gen++;
}

struct qp_modify_args {
	struct dr_qp_impl *qp;
	struct dr_qp_attr *attr;
	int mask;
};

/* ibv_modify_qp(3), on the QP's worker: the state and every stage's state change there. */
static int
qp_modify(void *arg)
{
	struct qp_modify_args *a = arg;
	struct dr_qp_impl *qp = a->qp;
	struct dr_qp *pub = &qp->pub;
	struct dr_qp_attr *attr = a->attr;
	int mask = a->mask;
	enum dr_qp_state cur, next;

	cur = pub->state;
	next = (mask & DR_QP_STATE) ? attr->qp_state : cur;
	if (attr_check(qp, attr, mask, cur, next) != 0) {
		DR_LOG(qp, INFO, "modify_qp: QP 0x%x %s -> %s with mask 0x%x refused", pub->qp_num,
		       dr_qp_state_name(cur), dr_qp_state_name(next), (unsigned int)mask);
		return -EINVAL;
	}
	attr_copy(&qp->attr, attr, mask);

	if (next == DR_QPS_RESET) {
		qp_reset(qp);
	} else if (next == DR_QPS_ERR) {
		dr_qp_to_error(qp);     /* sets the state */
	} else {
		if (mask & DR_QP_PATH_MTU)
			qp->mtu = dr_mtu_bytes(qp->attr.path_mtu);
		if (mask & DR_QP_AV)
			route_build(qp);
		/* the responder starts at RTR (IBA 9.7.5.1: ePSN from rq_psn, MSN from 0) */
		if (cur == DR_QPS_INIT && next == DR_QPS_RTR)
			dr_resp_start(qp, qp->attr.rq_psn);
		/* requester and completer start at sq_psn (IBA 9.7.1) */
		if (cur == DR_QPS_RTR && next == DR_QPS_RTS) {
			dr_comp_start(qp, qp->attr.sq_psn);
			dr_req_start(qp, qp->attr.sq_psn);
		}
		/* counters restart whenever they are (re)set: RTR->RTS, SQD->SQD */
		if (cur == DR_QPS_RTR || cur == DR_QPS_SQD)
			dr_comp_set_retry(qp, (mask & DR_QP_RETRY_CNT) != 0, (mask & DR_QP_RNR_RETRY) != 0);
	}
	__atomic_store_n(&pub->state, next, __ATOMIC_RELEASE);   /* the post calls read it */
	qp->attr.qp_state = next;
	dr_engine_qp_update(qp);
	DR_LOG(qp, DEBUG, "QP 0x%x %s -> %s", pub->qp_num, dr_qp_state_name(cur), dr_qp_state_name(next));
	return 0;
}

static int
modify_qp_ctl(struct dr_qp *pub, struct dr_qp_attr *attr, int mask)
{
	struct qp_modify_args a = { .attr = attr, .mask = mask };

	if (pub == NULL || attr == NULL)
		return -EINVAL;
	a.qp = dr_qp_impl(pub);
	/* returns when the QP's worker has made the change */
	return dr_engine_call(a.qp->wk, qp_modify, &a);
}

/* dr_modify_qp() as a control command (dr_control.h) */
struct modify_qp_args {
	struct dr_qp *pub;
	struct dr_qp_attr *attr;
	int mask;
};

static int
modify_qp_call(void *arg)
{
	struct modify_qp_args *a = arg;

	return modify_qp_ctl(a->pub, a->attr, a->mask);
}

int
dr_modify_qp(struct dr_qp *pub, struct dr_qp_attr *attr, int mask)
{
	struct modify_qp_args a = { .pub = pub, .attr = attr, .mask = mask };

	if (pub == NULL)
		return modify_qp_ctl(pub, attr, mask);
	return dr_ctl_run(pub->context, modify_qp_call, &a);
}

/* Complete the send WRs between tail and head, in order, with WR_FLUSH_ERR; their count. */
static uint32_t
flush_send(struct dr_qp_impl *qp)
{
	uint32_t head = dr_sq_head(&qp->sq), i, n = head - qp->sq.tail;
	struct dr_wc wc;

	for (i = qp->sq.tail; i != head; i++) {
		struct dr_send_wqe *wqe = dr_sq_wqe(&qp->sq, i);

		dr_send_wqe_release(wqe);
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = wqe->wr_id;
		wc.status = DR_WC_WR_FLUSH_ERR;
		wc.opcode = dr_wr_wc_opcode(wqe->opcode);
		wc.qp_num = qp->pub.qp_num;
		(void)dr_cq_push(dr_cq_impl(qp->pub.send_cq), &wc);
	}
	dr_sq_tail_set(&qp->sq, head);
	return n;
}

/* The same for the QP's own receive queue. */
static uint32_t
flush_recv(struct dr_qp_impl *qp)
{
	uint32_t head = dr_rq_head(&qp->rq), i, n = head - qp->rq.tail;
	struct dr_wc wc;

	for (i = qp->rq.tail; i != head; i++) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = dr_rq_wqe(&qp->rq, i)->wr_id;
		wc.status = DR_WC_WR_FLUSH_ERR;
		wc.opcode = DR_WC_RECV;
		wc.qp_num = qp->pub.qp_num;
		(void)dr_cq_push(dr_cq_impl(qp->pub.recv_cq), &wc);
	}
	__atomic_store_n(&qp->rq.tail, head, __ATOMIC_RELEASE);
	return n;
}

void
dr_qp_to_error(struct dr_qp_impl *qp)
{
	struct dr_cq_impl *rcq = dr_cq_impl(qp->pub.recv_cq);
	enum dr_qp_state prev = qp->pub.state;
	uint32_t nsend, nrecv;
	struct dr_wc wc;

	__atomic_store_n(&qp->pub.state, DR_QPS_ERR, __ATOMIC_RELEASE);
	qp->attr.qp_state = DR_QPS_ERR;
	dr_engine_qp_update(qp);                /* it drains from its worker's active list */
	/*
	 * IBA 10.3.1 (Error state), ibv_modify_qp(3)/ibv_poll_cq(3): every WR
	 * outstanding on either queue completes, in order, with WR_FLUSH_ERR,
	 * whether it was signaled or not.
	 */
	nsend = flush_send(qp);
	if (qp->srq != NULL) {
		/*
		 * The SRQ's WQEs stay for its other QPs; the one this QP had taken is
		 * flushed here, and "last WQE reached" tells the owner that no more
		 * will be consumed (IBA 10.2.9.5, 11.6.3; ibv_get_async_event(3)).
		 */
		nrecv = 0;
		if (qp->resp.have_rwqe) {
			memset(&wc, 0, sizeof(wc));
			wc.wr_id = qp->resp.srq_wqe.wr_id;
			wc.status = DR_WC_WR_FLUSH_ERR;
			wc.opcode = DR_WC_RECV;
			wc.qp_num = qp->pub.qp_num;
			/* an XRC SRQ has its own CQ */
			(void)dr_cq_push(qp->srq->cq != NULL ? dr_cq_impl(qp->srq->cq) : rcq, &wc);
			nrecv = 1;
		}
		if (prev != DR_QPS_ERR && prev != DR_QPS_RESET && qp->pub.qp_type != DR_QPT_XRC_RECV)
			dr_async_raise(qp->pub.context, DR_EVENT_QP_LAST_WQE_REACHED, &qp->pub);
	} else {
		nrecv = flush_recv(qp);
	}

	/* nothing is in flight any more: no WQE in progress, no timer armed, no ACK owed */
	dr_req_stop(qp);
	dr_comp_stop(qp);
	dr_resp_stop(qp);
	DR_LOG(qp, DEBUG, "QP 0x%x -> ERR: %u send and %u receive WRs flushed", qp->pub.qp_num, nsend, nrecv);
}

static int
qp_to_error_call(void *arg)
{
	struct dr_qp_impl *qp = arg;

	if (qp->pub.state != DR_QPS_ERR && qp->pub.state != DR_QPS_RESET)
		dr_qp_to_error(qp);
	return 0;
}

int
dr_qp_error_on_worker(struct dr_qp_impl *qp)
{
	return dr_engine_call(qp->wk, qp_to_error_call, qp);
}

void
dr_qp_flush_posted(struct dr_qp_impl *qp)
{
	/* IBA 10.3.1: in ERR (and SQE, for the send queue) a WR completes at once, flushed */
	if (qp->sq.tail != dr_sq_head(&qp->sq) && qp->pub.qp_type != DR_QPT_XRC_RECV)
		(void)flush_send(qp);
	if (qp->pub.state == DR_QPS_ERR && qp->srq == NULL && qp->rq.wqe != NULL)
		(void)flush_recv(qp);
}

static int
qp_query_call(void *arg)
{
	struct dr_qp_impl *qp = arg;

	enum dr_qp_state st = qp->pub.state;

	qp->query_snap = qp->attr;
	qp->query_snap.qp_state = st;
	/*
	 * the PSNs as they are now, not as they were set (rxe_qp_to_attr(): the
	 * responder's expected PSN from RTR on, the requester's next PSN from RTS on)
	 */
	if (st >= DR_QPS_RTR && st <= DR_QPS_ERR && qp->pub.qp_type != DR_QPT_UD)
		qp->query_snap.rq_psn = qp->resp.epsn;
	if (st >= DR_QPS_RTS && st <= DR_QPS_ERR)
		qp->query_snap.sq_psn = qp->req.psn;
	return 0;
}

static int
query_qp_ctl(struct dr_qp *pub, struct dr_qp_attr *attr, int attr_mask, struct dr_qp_init_attr *init_attr)
{
	struct dr_qp_impl *qp;

	RTE_SET_USED(attr_mask);    /* everything is returned, as rxe does */
	if (pub == NULL || attr == NULL || init_attr == NULL)
		return -EINVAL;
	qp = dr_qp_impl(pub);
	/* a consistent copy, taken by the QP's worker (the transport may be moving it to ERR) */
	(void)dr_engine_call(qp->wk, qp_query_call, qp);
	*attr = qp->query_snap;
	attr->cur_qp_state = attr->qp_state;
	attr->cap = qp->init.cap;
	attr->sq_draining = 0;
	*init_attr = qp->init;
	return 0;
}

/* dr_query_qp() as a control command (dr_control.h) */
struct query_qp_args {
	struct dr_qp *pub;
	struct dr_qp_attr *attr;
	int attr_mask;
	struct dr_qp_init_attr *init_attr;
};

static int
query_qp_call(void *arg)
{
	struct query_qp_args *a = arg;

	return query_qp_ctl(a->pub, a->attr, a->attr_mask, a->init_attr);
}

int
dr_query_qp(struct dr_qp *pub, struct dr_qp_attr *attr, int attr_mask, struct dr_qp_init_attr *init_attr)
{
	struct query_qp_args a = { .pub = pub, .attr = attr, .attr_mask = attr_mask, .init_attr = init_attr };

	if (pub == NULL)
		return query_qp_ctl(pub, attr, attr_mask, init_attr);
	return dr_ctl_run(pub->context, query_qp_call, &a);
}

/* On the QP's worker: off the active list, its held requests and WQE references given back. */
static int
qp_detach_call(void *arg)
{
	struct dr_qp_impl *qp = arg;

	dr_engine_qp_remove(qp);
	sq_release_all(qp);
	dr_resp_drain(qp);
	return 0;
}

static int
destroy_qp_ctl(struct dr_qp *pub)
{
	struct dr_context *ctx;
	struct dr_qp_impl *qp;
	bool gsi;

	if (pub == NULL)
		return -EINVAL;
	qp = dr_qp_impl(pub);
	ctx = pub->context;
	gsi = ctx->gsi_qp == qp;
	if (!gsi && (qp->index >= ctx->max_qp || ctx->qp_table[qp->index] != qp))
		return -EINVAL;
	/* ibv_destroy_qp(3): its async events must have been acknowledged */
	if (qp->events_unacked != 0) {
		DR_LOG(qp, INFO, "destroy_qp: QP 0x%x has %u unacknowledged events", pub->qp_num,
		       qp->events_unacked);
		return -EBUSY;
	}
	dr_async_forget(ctx, pub);
	/* out of the table (and out of telemetry's reach), off its worker, no worker holds it: freed */
	pthread_mutex_lock(&ctx->ctl_lock);
	if (gsi)
		__atomic_store_n(&ctx->gsi_qp, NULL, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&ctx->qp_table[qp->index], NULL, __ATOMIC_RELEASE);
	TAILQ_REMOVE(&ctx->qps, qp, ctx_link);
	pthread_mutex_unlock(&ctx->ctl_lock);
	(void)dr_engine_call(qp->wk, qp_detach_call, qp);
	dr_engine_sync(ctx);
	/* no worker holds it: its number may come back, after every other free one */
	dr_idx_fifo_put(&ctx->qp_free, qp->index);
	dr_mw_qp_destroyed(qp);
	dr_wr_batch_free(qp);
	if (qp->srq != NULL && qp->xrcd == NULL)
		qp->srq->refcnt--;          /* an XRC target's is only the one of its last message */
	qp->wk->num_qps--;
	ctx->num_qps--;
	if (pub->send_cq != NULL)
		dr_cq_impl(pub->send_cq)->refcnt--;
	if (pub->recv_cq != NULL)
		dr_cq_impl(pub->recv_cq)->refcnt--;
	if (pub->pd != NULL && qp->xrcd == NULL)
		pub->pd->refcnt--;
	if (qp->xrcd != NULL)
		qp->xrcd->refcnt--;
	DR_LOG(qp, DEBUG, "QP 0x%x destroyed", pub->qp_num);
	queues_free(qp);
	rte_free(qp->sr);             /* selective repeat's (dr_ece.c); the responder freed what it held */
	rte_free(qp);
	return 0;
}

/* dr_destroy_qp() as a control command (dr_control.h) */
struct destroy_qp_args {
	struct dr_qp *pub;
};

static int
destroy_qp_call(void *arg)
{
	struct destroy_qp_args *a = arg;

	return destroy_qp_ctl(a->pub);
}

int
dr_destroy_qp(struct dr_qp *pub)
{
	struct destroy_qp_args a = { .pub = pub };

	if (pub == NULL)
		return destroy_qp_ctl(pub);
	return dr_ctl_run(pub->context, destroy_qp_call, &a);
}
