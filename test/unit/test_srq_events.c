/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Shared receive queues, completion channels and asynchronous events over
 * the test wire (test_rc.h): an SRQ fed by two RC QPs and a UD QP
 * (ibv_create_srq(3), ibv_post_srq_recv(3), IBA 10.2.9), its limit event,
 * resize and bad flows; ibv_req_notify_cq(3) with and without
 * solicited-only, ibv_get_cq_event(3) / ibv_ack_cq_events(3); the affiliated
 * async events (QP_REQ_ERR, QP_ACCESS_ERR, LAST_WQE_REACHED, CQ_ERR) and the
 * port events, each holding its object until acknowledged.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "test_rc.h"

#define ACC_ALL (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ)

/* A QP of side @s on CQs @scq/@rcq (and @srq), in INIT. */
static struct dr_qp *
qp_init(struct rc_side *s, struct dr_cq *scq, struct dr_cq *rcq, struct dr_srq *srq, enum dr_qp_type t,
	unsigned int access)
{
	struct dr_qp_init_attr ia;
	struct dr_qp_attr a;
	struct dr_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.srq = srq;
	ia.qp_type = t;
	ia.sq_sig_all = 1;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	qp = dr_create_qp(s->pd, &ia);
	if (qp == NULL)
		return NULL;
	if (srq != NULL)
		RC_CHECK(ia.cap.max_recv_wr == 0 && ia.cap.max_recv_sge == 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = access;
	a.qkey = 0x5151;
	if (dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT |
				 (t == DR_QPT_UD ? DR_QP_QKEY : DR_QP_ACCESS_FLAGS)) != 0) {
		dr_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* Connect RC QP @qp of side @s to @peer_qp of side @peer (RTR, RTS). */
static int
qp_connect(struct rc_side *s, struct dr_qp *qp, const struct rc_side *peer, const struct dr_qp *peer_qp)
{
	struct dr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTR;
	a.path_mtu = DR_MTU_1024;
	a.dest_qp_num = peer_qp->qp_num;
	a.rq_psn = 0x10;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = 1;
	if (dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN |
				 DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER) != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0x10;
	a.max_rd_atomic = 1;
	RTE_SET_USED(s);
	return dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY |
					DR_QP_SQ_PSN | DR_QP_MAX_QP_RD_ATOMIC) != 0 ? -1 : 0;
}

static int
srq_post(struct dr_srq *srq, uint64_t id, struct rc_buf *b, uint32_t off, uint32_t len)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(b->p + off), len, b->mr->lkey };
	struct dr_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad = NULL;

	return dr_post_srq_recv(srq, &wr, &bad);
}

static int
send_on(struct dr_qp *qp, uint64_t id, struct rc_buf *b, uint32_t off, uint32_t len, unsigned int flags)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(b->p + off), len, b->mr->lkey };
	struct dr_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = DR_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = flags | DR_SEND_SIGNALED;
	return dr_post_send(qp, &wr, &bad);
}

/* Run the wire until @cq has @n completions in @w (appending). */
static bool
wait_n(struct rc_env *e, struct dr_cq *cq, struct rc_wcs *w, unsigned int n)
{
	return rc_wait_wcs(e, cq, w, n, 2000000);
}

static bool
fd_readable(struct rc_env *e, void *arg)
{
	struct pollfd p = { .fd = *(const int *)arg, .events = POLLIN };

	(void)e;
	return poll(&p, 1, 0) == 1;
}

/* The next async event of @ctx, the wire run until one is there (2 s at most); -EAGAIN if none. */
static int
next_event(struct rc_env *e, struct dr_context *ctx, struct dr_async_event *ev)
{
	int fd = dr_async_fd(ctx);

	rc_run(e, 2000000, fd_readable, &fd);
	return dr_get_async_event(ctx, ev);
}

/* Two RC QPs on B share an SRQ: receives are taken in SRQ order, whichever QP a SEND arrives on. */
static void
test_srq_two_qps(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct dr_srq_init_attr sia;
	struct dr_srq_attr sa;
	struct dr_cq *acq, *bcq;
	struct dr_qp *a1, *a2, *b1, *b2;
	struct dr_srq *srq;
	struct rc_buf src, dst;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct dr_async_event ev;
	unsigned int i;

	memset(&sia, 0, sizeof(sia));
	sia.attr.max_wr = 0;
	RC_CHECK(dr_create_srq(b->pd, &sia) == NULL && errno == EINVAL);
	sia.attr.max_wr = DR_MAX_SRQ_WR + 1;
	RC_CHECK(dr_create_srq(b->pd, &sia) == NULL && errno == EINVAL);
	sia.attr.max_wr = 8;
	sia.attr.max_sge = DR_MAX_SGE + 1;
	RC_CHECK(dr_create_srq(b->pd, &sia) == NULL && errno == EINVAL);
	sia.attr.max_sge = 2;
	sia.attr.srq_limit = 5;                 /* ignored at creation */
	sia.srq_context = b;
	srq = dr_create_srq(b->pd, &sia);
	RC_CHECK(srq != NULL);
	if (srq == NULL)
		return;
	RC_CHECK(srq->srq_context == b && sia.attr.max_wr == 8 && sia.attr.max_sge == 2);
	RC_CHECK_EQ(dr_query_srq(srq, &sa), 0);
	RC_CHECK(sa.max_wr == 8 && sa.max_sge == 2 && sa.srq_limit == 0);

	acq = dr_create_cq(a->ctx, 64, NULL, NULL, 0);
	bcq = dr_create_cq(b->ctx, 64, NULL, NULL, 0);
	a1 = qp_init(a, acq, acq, NULL, DR_QPT_RC, ACC_ALL);
	a2 = qp_init(a, acq, acq, NULL, DR_QPT_RC, ACC_ALL);
	b1 = qp_init(b, bcq, bcq, srq, DR_QPT_RC, ACC_ALL);
	b2 = qp_init(b, bcq, bcq, srq, DR_QPT_RC, ACC_ALL);
	if (a1 == NULL || a2 == NULL || b1 == NULL || b2 == NULL || qp_connect(a, a1, b, b1) != 0 ||
	    qp_connect(b, b1, a, a1) != 0 || qp_connect(a, a2, b, b2) != 0 || qp_connect(b, b2, a, a2) != 0 ||
	    rc_buf_alloc(a, &src, 8192, ACC_ALL) != 0 || rc_buf_alloc(b, &dst, 16 * 1024, ACC_ALL) != 0) {
		RC_CHECK_MSG(0, "SRQ setup");
		return;
	}
	RC_CHECK(b1->srq == srq);
	rc_fill(src.p, 8192, 31);
	/* a QP on an SRQ takes no receive WRs of its own (rxe: EINVAL) */
	RC_CHECK_EQ(rc_post_recv(&(struct rc_side){ .qp = b1 }, 1, NULL, 0), EINVAL);
	/* the SRQ is in use */
	RC_CHECK_EQ(dr_destroy_srq(srq), -EBUSY);
	/* ENOMEM when full; a bad SGE: EINVAL (ibv_post_srq_recv(3)) */
	for (i = 0; i < 8; i++)
		RC_CHECK_EQ(srq_post(srq, 100 + i, &dst, i * 1024, 1024), 0);
	RC_CHECK_EQ(srq_post(srq, 200, &dst, 0, 16), ENOMEM);
	/* resize: not below the 8 WRs it holds; larger keeps them in order */
	sa.max_wr = 4;
	RC_CHECK_EQ(dr_modify_srq(srq, &sa, DR_SRQ_MAX_WR), -EINVAL);
	sa.max_wr = 16;
	RC_CHECK_EQ(dr_modify_srq(srq, &sa, DR_SRQ_MAX_WR), 0);
	RC_CHECK_EQ(srq_post(srq, 108, &dst, 8 * 1024, 1024), 0);
	{
		struct dr_sge bad_sge = { (uint64_t)(uintptr_t)dst.p, 100, dst.mr->lkey ^ 0x300 };
		struct dr_recv_wr wr = { .wr_id = 9, .sg_list = &bad_sge, .num_sge = 1 }, *bad = NULL;

		RC_CHECK_EQ(dr_post_srq_recv(srq, &wr, &bad), EINVAL);
		RC_CHECK(bad == &wr);
		wr.num_sge = 3;
		RC_CHECK_EQ(dr_post_srq_recv(srq, &wr, &bad), EINVAL);
	}
	/* the limit: above max_wr refused; armed at 4, it fires once when 3 are left */
	sa.srq_limit = 17;
	RC_CHECK_EQ(dr_modify_srq(srq, &sa, DR_SRQ_LIMIT), -EINVAL);
	sa.srq_limit = 4;
	RC_CHECK_EQ(dr_modify_srq(srq, &sa, DR_SRQ_LIMIT), 0);
	RC_CHECK_EQ(dr_query_srq(srq, &sa), 0);
	RC_CHECK_EQ(sa.srq_limit, 4);
	sa.max_wr = 2;                          /* not below an armed limit */
	RC_CHECK_EQ(dr_modify_srq(srq, &sa, DR_SRQ_MAX_WR), -EINVAL);

	/* six SENDs alternating between the two connections */
	for (i = 0; i < 6; i++) {
		RC_CHECK_EQ(send_on(i & 1 ? a2 : a1, i, &src, i * 100, 100 + i, 0), 0);
		RC_CHECK(wait_n(e, bcq, &rw, i + 1));
	}
	RC_CHECK(wait_n(e, acq, &sw, 6));
	RC_CHECK_EQ(rw.n, 6);
	for (i = 0; i < rw.n; i++) {
		RC_CHECK_EQ(rw.wc[i].status, DR_WC_SUCCESS);
		RC_CHECK_EQ(rw.wc[i].wr_id, 100 + i);       /* SRQ order */
		RC_CHECK_EQ(rw.wc[i].qp_num, i & 1 ? b2->qp_num : b1->qp_num);
		RC_CHECK_EQ(rw.wc[i].byte_len, 100 + i);
		RC_CHECK(memcmp(dst.p + i * 1024, src.p + i * 100, 100 + i) == 0);
	}
	RC_CHECK_EQ(next_event(e, b->ctx, &ev), 0);
	RC_CHECK(ev.event_type == DR_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == srq);
	RC_CHECK_EQ(dr_get_async_event(b->ctx, &ev), -EAGAIN);   /* once, then disarmed */
	RC_CHECK_EQ(dr_query_srq(srq, &sa), 0);
	RC_CHECK_EQ(sa.srq_limit, 0);

	/* b2 to ERR: LAST_WQE_REACHED; the SRQ's WRs stay for b1 */
	{
		struct dr_qp_attr qa = { .qp_state = DR_QPS_ERR };
		struct dr_async_event lw;

		RC_CHECK_EQ(dr_modify_qp(b2, &qa, DR_QP_STATE), 0);
		RC_CHECK_EQ(dr_get_async_event(b->ctx, &lw), 0);
		RC_CHECK(lw.event_type == DR_EVENT_QP_LAST_WQE_REACHED && lw.element.qp == b2);
		RC_CHECK_EQ(dr_destroy_qp(b2), -EBUSY);          /* its event is not acknowledged */
		dr_ack_async_event(&lw);
	}
	RC_CHECK_EQ(send_on(a1, 50, &src, 0, 77, 0), 0);
	RC_CHECK(wait_n(e, bcq, &rw, 7));
	RC_CHECK(rw.n == 7 && rw.wc[6].wr_id == 106 && rw.wc[6].qp_num == b1->qp_num && rw.wc[6].byte_len == 77);

	/* empty SRQ: RNR NAK, then a post lets the retry in */
	rw.n = 0;
	while (dr_query_srq(srq, &sa) == 0 && rc_poll(bcq, &rw) >= 0 && rw.n < 2) {
		RC_CHECK_EQ(send_on(a1, 60 + rw.n, &src, 0, 10, 0), 0);
		wait_n(e, bcq, &rw, rw.n + 1);
	}
	RC_CHECK_EQ(send_on(a1, 70, &src, 0, 33, 0), 0);
	rc_run(e, 3000, NULL, NULL);
	RC_CHECK_EQ(rc_poll(bcq, &rw), 0);                  /* nothing to receive into */
	RC_CHECK_EQ(srq_post(srq, 300, &dst, 0, 1024), 0);
	RC_CHECK(wait_n(e, bcq, &rw, 3));
	RC_CHECK(rw.n == 3 && rw.wc[2].wr_id == 300 && rw.wc[2].byte_len == 33 && rw.wc[2].status == DR_WC_SUCCESS);

	dr_ack_async_event(&ev);
	RC_CHECK_EQ(dr_destroy_qp(a1), 0);
	RC_CHECK_EQ(dr_destroy_qp(a2), 0);
	RC_CHECK_EQ(dr_destroy_qp(b1), 0);
	RC_CHECK_EQ(dr_destroy_srq(srq), -EBUSY);           /* b2 still uses it */
	RC_CHECK_EQ(dr_destroy_qp(b2), 0);
	RC_CHECK_EQ(dr_destroy_srq(srq), 0);
	rc_run(e, 1000, NULL, NULL);
	RC_CHECK_EQ(dr_destroy_cq(acq), 0);
	RC_CHECK_EQ(dr_destroy_cq(bcq), 0);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/* A UD QP on an SRQ: the GRH area and the payload go into the SRQ's WQE. */
static void
test_srq_ud(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct dr_srq_init_attr sia = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct dr_cq *acq = dr_create_cq(a->ctx, 16, NULL, NULL, 0), *bcq = dr_create_cq(b->ctx, 16, NULL, NULL, 0);
	struct dr_srq *srq = dr_create_srq(b->pd, &sia);
	struct dr_qp *qa = qp_init(a, acq, acq, NULL, DR_QPT_UD, 0), *qb = qp_init(b, bcq, bcq, srq, DR_QPT_UD, 0);
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct dr_qp_attr at;
	struct dr_ah_attr av;
	struct rc_buf src, dst;
	struct dr_ah *ah;

	if (srq == NULL || qa == NULL || qb == NULL || rc_buf_alloc(a, &src, 4096, ACC_ALL) != 0 ||
	    rc_buf_alloc(b, &dst, 4096, ACC_ALL) != 0) {
		RC_CHECK_MSG(0, "UD SRQ setup");
		return;
	}
	memset(&at, 0, sizeof(at));
	at.qp_state = DR_QPS_RTR;
	RC_CHECK_EQ(dr_modify_qp(qa, &at, DR_QP_STATE), 0);
	RC_CHECK_EQ(dr_modify_qp(qb, &at, DR_QP_STATE), 0);
	at.qp_state = DR_QPS_RTS;
	RC_CHECK_EQ(dr_modify_qp(qa, &at, DR_QP_STATE | DR_QP_SQ_PSN), 0);
	memset(&av, 0, sizeof(av));
	av.is_global = 1;
	av.grh.dgid = b->gid;
	av.grh.sgid_index = 1;
	ah = dr_create_ah(a->pd, &av);
	rc_fill(src.p, 4096, 2);
	RC_CHECK_EQ(srq_post(srq, 7, &dst, 0, 2048), 0);
	{
		struct dr_sge sge = { (uint64_t)(uintptr_t)src.p, 500, src.mr->lkey };
		struct dr_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.opcode = DR_WR_SEND;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qb->qp_num;
		wr.wr.ud.remote_qkey = 0x5151;
		RC_CHECK_EQ(dr_post_send(qa, &wr, &bad), 0);
	}
	RC_CHECK(wait_n(e, acq, &sw, 1));
	RC_CHECK(wait_n(e, bcq, &rw, 1));
	RC_CHECK(rw.n == 1 && rw.wc[0].wr_id == 7 && rw.wc[0].byte_len == DR_GRH_LEN + 500 &&
		 (rw.wc[0].wc_flags & DR_WC_GRH) && rw.wc[0].src_qp == qa->qp_num);
	RC_CHECK(memcmp(dst.p + DR_GRH_LEN, src.p, 500) == 0);
	RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	RC_CHECK_EQ(dr_destroy_qp(qa), 0);
	RC_CHECK_EQ(dr_destroy_qp(qb), 0);
	RC_CHECK_EQ(dr_destroy_srq(srq), 0);
	RC_CHECK_EQ(dr_destroy_cq(acq), 0);
	RC_CHECK_EQ(dr_destroy_cq(bcq), 0);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/* The next event of a non-blocking channel after running the wire; -EAGAIN when none. */
/* Run the wire until @ch has an event (2 s at most: a loaded CPU may take long), then take it. */
static int
channel_event(struct rc_env *e, struct dr_comp_channel *ch, struct dr_cq **cq, void **cq_ctx)
{
	rc_run(e, 2000000, fd_readable, &ch->fd);
	return dr_get_cq_event(ch, cq, cq_ctx);
}

/* Run the wire 3 ms, then look: where no event may come, the frames of the round have been carried. */
static int
channel_no_event(struct rc_env *e, struct dr_comp_channel *ch, struct dr_cq **cq, void **cq_ctx)
{
	rc_run(e, 3000, NULL, NULL);
	return dr_get_cq_event(ch, cq, cq_ctx);
}

/*
 * A connected pair whose B side's CQs have a non-blocking completion channel,
 * and a buffer of @len on each side: the channel, or NULL (failed, as @what).
 */
static struct dr_comp_channel *
channel_pair(struct rc_env *e, struct rc_buf *src, struct rc_buf *dst, size_t len, const char *what)
{
	struct dr_comp_channel *ch = dr_create_comp_channel(e->s[1].ctx);
	struct rc_qp_params p;

	RC_CHECK(ch != NULL);
	if (ch == NULL)
		return NULL;
	rc_params_default(&p);
	p.channel[1] = ch;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(&e->s[0], src, len, ACC_ALL) != 0 ||
	    rc_buf_alloc(&e->s[1], dst, len, ACC_ALL) != 0) {
		RC_CHECK_MSG(0, "%s", what);
		return NULL;
	}
	RC_CHECK_EQ(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK), 0);
	return ch;
}

/* ibv_req_notify_cq(3): one event per request; solicited-only waits for SE or an error. */
static void
test_comp_channel(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct dr_comp_channel *ch;
	struct rc_wcs rw = { .n = 0 };
	struct rc_buf src, dst;
	struct dr_cq *got;
	void *got_ctx;
	struct pollfd pfd;

	ch = channel_pair(e, &src, &dst, 4096, "channel setup");
	if (ch == NULL)
		return;
	RC_CHECK_EQ(dr_get_cq_event(ch, &got, &got_ctx), -EAGAIN);
	for (int i = 0; i < 8; i++)
		RC_CHECK_EQ(rc_post_recv(b, i, &(struct dr_sge){ (uint64_t)(uintptr_t)(dst.p + i * 256), 256,
								    dst.mr->lkey }, 1), 0);
	/* nothing armed: a completion raises no event */
	RC_CHECK_EQ(send_on(a->qp, 1, &src, 0, 10, 0), 0);
	RC_CHECK_EQ(channel_no_event(e, ch, &got, &got_ctx), -EAGAIN);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000) && rw.n == 1);
	/* solicited-only: an unsolicited SEND raises nothing, a solicited one does */
	RC_CHECK_EQ(dr_req_notify_cq(b->rcq, 1), 0);
	RC_CHECK_EQ(send_on(a->qp, 2, &src, 0, 10, 0), 0);
	RC_CHECK_EQ(channel_no_event(e, ch, &got, &got_ctx), -EAGAIN);
	RC_CHECK_EQ(send_on(a->qp, 3, &src, 0, 10, DR_SEND_SOLICITED), 0);
	rc_run(e, 2000000, fd_readable, &ch->fd);
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	RC_CHECK_EQ(poll(&pfd, 1, 0), 1);          /* the fd is readable while the event waits */
	RC_CHECK_EQ(dr_get_cq_event(ch, &got, &got_ctx), 0);
	RC_CHECK(got == b->rcq && got_ctx == b);
	RC_CHECK_EQ(poll(&pfd, 1, 0), 0);
	/* one event per request: the next completion raises nothing until re-armed */
	RC_CHECK_EQ(send_on(a->qp, 4, &src, 0, 10, DR_SEND_SOLICITED), 0);
	RC_CHECK_EQ(channel_no_event(e, ch, &got, &got_ctx), -EAGAIN);
	/* "next": any completion; the send CQ on the same channel too */
	RC_CHECK_EQ(dr_req_notify_cq(b->rcq, 0), 0);
	RC_CHECK_EQ(send_on(a->qp, 5, &src, 0, 10, 0), 0);
	RC_CHECK_EQ(channel_event(e, ch, &got, &got_ctx), 0);
	RC_CHECK(got == b->rcq);
	RC_CHECK_EQ(dr_req_notify_cq(b->scq, 0), 0);
	RC_CHECK_EQ(send_on(b->qp, 6, &dst, 0, 10, 0), 0);
	RC_CHECK_EQ(rc_post_recv(a, 9, &(struct dr_sge){ (uint64_t)(uintptr_t)src.p, 256, src.mr->lkey }, 1), 0);
	RC_CHECK_EQ(channel_event(e, ch, &got, &got_ctx), 0);
	RC_CHECK(got == b->scq);
	/* unacknowledged events hold the CQ */
	RC_CHECK_EQ(dr_destroy_comp_channel(ch), -EBUSY);
	dr_ack_cq_events(b->rcq, 2);
	dr_ack_cq_events(b->scq, 1);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
	RC_CHECK_EQ(dr_destroy_comp_channel(ch), 0);
}

/* A CQ with an event handed out and not acknowledged cannot be destroyed (ibv_ack_cq_events(3)). */
static void
test_cq_event_ack(struct rc_env *e)
{
	struct rc_side *b = &e->s[1];
	struct dr_comp_channel *ch = dr_create_comp_channel(b->ctx);
	struct dr_cq *cq = dr_create_cq(b->ctx, 4, NULL, ch, 0), *got;
	struct dr_cq_impl *ci;
	struct dr_wc wc = { 0 };
	void *gctx;

	if (ch == NULL || cq == NULL) {
		RC_CHECK_MSG(0, "ack setup");
		return;
	}
	ci = dr_cq_impl(cq);
	RC_CHECK_EQ(dr_req_notify_cq(cq, 1), 0);
	memset(&wc, 0, sizeof(wc));
	wc.status = DR_WC_REM_ACCESS_ERR;       /* an error fires a solicited-only request too */
	RC_CHECK_EQ(dr_cq_push(ci, &wc), 0);
	RC_CHECK_EQ(fcntl(ch->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(dr_get_cq_event(ch, &got, &gctx), 0);
	RC_CHECK(got == cq);
	RC_CHECK_EQ(dr_destroy_cq(cq), -EBUSY);
	dr_ack_cq_events(cq, 5);                /* more than handed out: capped */
	RC_CHECK_EQ(dr_destroy_cq(cq), 0);
	RC_CHECK_EQ(dr_destroy_comp_channel(ch), 0);
	/* a queued event of a destroyed CQ is dropped, not handed out */
	ch = dr_create_comp_channel(b->ctx);
	cq = dr_create_cq(b->ctx, 4, NULL, ch, 0);
	RC_CHECK_EQ(dr_req_notify_cq(cq, 0), 0);
	wc.status = DR_WC_SUCCESS;
	RC_CHECK_EQ(dr_cq_push(dr_cq_impl(cq), &wc), 0);
	RC_CHECK_EQ(dr_destroy_cq(cq), 0);
	RC_CHECK_EQ(fcntl(ch->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(dr_get_cq_event(ch, &got, &gctx), -EAGAIN);
	RC_CHECK_EQ(dr_destroy_comp_channel(ch), 0);
	/* a CQ without a channel cannot be armed */
	cq = dr_create_cq(b->ctx, 4, NULL, NULL, 0);
	RC_CHECK_EQ(dr_req_notify_cq(cq, 0), -EINVAL);
	RC_CHECK_EQ(dr_destroy_cq(cq), 0);
}

/*
 * Affiliated async events (IBA 11.6.3): a responder error moves the QP to
 * ERR with QP_REQ_ERR / QP_ACCESS_ERR; the QP cannot be destroyed until the
 * event is acknowledged; the async fd is readable while events wait. A CQ
 * overrun raises CQ_ERR.
 */
static void
test_async_events(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_async_event ev;
	struct pollfd pfd = { .fd = dr_async_fd(b->ctx), .events = POLLIN };

	RC_CHECK(pfd.fd >= 0);
	while (dr_get_async_event(b->ctx, &ev) == 0)
		dr_ack_async_event(&ev);
	RC_CHECK_EQ(poll(&pfd, 1, 0), 0);
	rc_params_default(&p);
	p.access_b = DR_ACCESS_LOCAL_WRITE;     /* no remote writes on B */
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, ACC_ALL) != 0 ||
	    rc_buf_alloc(b, &dst, 4096, ACC_ALL) != 0) {
		RC_CHECK_MSG(0, "async setup");
		return;
	}
	RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_RDMA_WRITE, &(struct dr_sge){ (uint64_t)(uintptr_t)src.p, 8,
									     src.mr->lkey }, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0), 0);
	rc_run(e, 2000000, fd_readable, &pfd.fd);
	RC_CHECK_EQ(poll(&pfd, 1, 0), 1);
	RC_CHECK_EQ(dr_get_async_event(b->ctx, &ev), 0);
	RC_CHECK(ev.event_type == DR_EVENT_QP_REQ_ERR && ev.element.qp == b->qp);
	RC_CHECK_EQ(rc_qp_state(b->qp), DR_QPS_ERR);
	RC_CHECK_EQ(poll(&pfd, 1, 0), 0);
	RC_CHECK_EQ(strcmp(dr_event_type_str(ev.event_type), "invalid request local work queue error"), 0);
	RC_CHECK_EQ(dr_destroy_qp(b->qp), -EBUSY);
	dr_ack_async_event(&ev);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);

	/* a bad R_Key: QP_ACCESS_ERR */
	rc_params_default(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, ACC_ALL) != 0 ||
	    rc_buf_alloc(b, &dst, 4096, ACC_ALL) != 0)
		return;
	RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_RDMA_WRITE, &(struct dr_sge){ (uint64_t)(uintptr_t)src.p, 8,
									     src.mr->lkey }, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)dst.p, dst.mr->rkey ^ 0x700, 0), 0);
	RC_CHECK_EQ(next_event(e, b->ctx, &ev), 0);
	RC_CHECK(ev.event_type == DR_EVENT_QP_ACCESS_ERR && ev.element.qp == b->qp);
	dr_ack_async_event(&ev);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);

	/* a CQ overrun: CQ_ERR, held until acknowledged */
	{
		struct dr_cq *cq = dr_create_cq(b->ctx, 1, NULL, NULL, 0);
		struct dr_wc wc = { 0 };

		memset(&wc, 0, sizeof(wc));
		RC_CHECK_EQ(dr_cq_push(dr_cq_impl(cq), &wc), 0);
		RC_CHECK_EQ(dr_cq_push(dr_cq_impl(cq), &wc), 0);
		RC_CHECK_EQ(dr_cq_push(dr_cq_impl(cq), &wc), -EOVERFLOW);
		RC_CHECK_EQ(dr_get_async_event(b->ctx, &ev), 0);
		RC_CHECK(ev.event_type == DR_EVENT_CQ_ERR && ev.element.cq == cq);
		RC_CHECK_EQ(dr_destroy_cq(cq), -EBUSY);
		dr_ack_async_event(&ev);
		RC_CHECK_EQ(dr_destroy_cq(cq), 0);
	}
}

/*
 * The completer overruns a send CQ (IBA 11.4.2.1, rxe class G): signaled
 * and unsignaled WRITEs more than the CQ holds, acknowledged by one
 * coalesced ACK and never polled. The CQ keeps its oldest entries (the
 * first signaled WRs, in order), goes to error with CQ_ERR, the QP goes to
 * ERR; nothing is lost silently and nothing is pushed past the overrun.
 */
static void
test_cq_overrun_by_completer(struct rc_env *e)
{
	enum { CQE = 4 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_async_event ev;
	struct dr_cq *cq;
	bool cq_err = false;
	uint32_t i, wrs;

	while (dr_get_async_event(a->ctx, &ev) == 0)
		dr_ack_async_event(&ev);
	cq = dr_create_cq(a->ctx, CQE, NULL, NULL, 0);
	rc_params_default(&p);
	p.cq[0] = cq;
	p.sq_sig_all = 0;
	if (cq == NULL || rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, ACC_ALL) != 0 ||
	    rc_buf_alloc(b, &dst, 4096, ACC_ALL) != 0) {
		RC_CHECK_MSG(0, "overrun setup");
		return;
	}
	/* every other WR signaled, twice as many as the ring holds: its entries are WRs 1, 3, 5, ... */
	wrs = 4 * dr_cq_impl(cq)->size;
	for (i = 0; i < wrs; i++)
		RC_CHECK_EQ(rc_post_send(a, i, DR_WR_RDMA_WRITE,
					 &(struct dr_sge){ (uint64_t)(uintptr_t)src.p + 8 * i, 8, src.mr->lkey }, 1,
					 (i & 1) ? DR_SEND_SIGNALED : 0, (uint64_t)(uintptr_t)dst.p + 8 * i, dst.mr->rkey,
					 0), 0);
	while (next_event(e, a->ctx, &ev) == 0) {
		cq_err |= ev.event_type == DR_EVENT_CQ_ERR && ev.element.cq == cq;
		dr_ack_async_event(&ev);
		if (cq_err && rc_qp_state(a->qp) == DR_QPS_ERR)
			break;
	}
	RC_CHECK_MSG(cq_err, "no CQ_ERR after %u signaled WRs on a CQ of %d", wrs / 2, CQE);
	RC_CHECK(dr_cq_impl(cq)->overrun);
	RC_CHECK_EQ(rc_qp_state(a->qp), DR_QPS_ERR);
	/* the ring holds what came before the overrun, oldest first */
	{
		struct dr_cq_impl *ci = dr_cq_impl(cq);
		uint32_t n = 0, l;

		for (l = 0; l < ci->nlanes; l++) {
			uint32_t t;

			for (t = ci->lane[l].tail; t != ci->lane[l].head; t++, n++) {
				const struct dr_wc *w = &ci->lane[l].ring[t & (ci->size - 1)];

				RC_CHECK_MSG(w->wr_id == 2 * n + 1 && w->status == DR_WC_SUCCESS,
					     "entry %u: wr_id %" PRIu64 " status %d", n, w->wr_id, w->status);
			}
		}
		RC_CHECK_EQ(n, ci->size);
	}
	RC_CHECK_EQ(dr_poll_cq(cq, 1, &(struct dr_wc){ 0 }), -EOVERFLOW);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
	RC_CHECK_EQ(dr_destroy_cq(cq), 0);
}

/* B's context has an async event for us: it is in @arg (a struct dr_async_event). */
static bool
b_async_event(struct rc_env *e, void *arg)
{
	return dr_get_async_event(e->s[1].ctx, arg) == 0;
}

/* The link going down and up: PORT_ERR then PORT_ACTIVE (IBA 14.x port events; ibv_get_async_event(3)). */
static void
test_port_events(struct rc_env *e)
{
	struct rc_side *b = &e->s[1];
	struct dr_async_event ev;
	int rc;

	while (dr_get_async_event(b->ctx, &ev) == 0)
		dr_ack_async_event(&ev);
	rc_run(e, 250000, NULL, NULL);                  /* the context has seen the link up */
	rc = rte_eth_dev_set_link_down(b->port);
	if (rc != 0) {
		RC_CHECK_MSG(rc == -ENOTSUP, "set_link_down: %d", rc);
		return;
	}
	/* the context sees it when its control side next looks: a busy machine may delay that */
	RC_CHECK(rc_run(e, 5000000, b_async_event, &ev));
	RC_CHECK(ev.event_type == DR_EVENT_PORT_ERR && ev.element.port_num == 1);
	RC_CHECK_EQ(rte_eth_dev_set_link_up(b->port), 0);
	RC_CHECK(rc_run(e, 5000000, b_async_event, &ev));
	RC_CHECK(ev.event_type == DR_EVENT_PORT_ACTIVE);
	rc_run(e, 250000, NULL, NULL);                  /* and nothing more */
	RC_CHECK_EQ(dr_get_async_event(b->ctx, &ev), -EAGAIN);
}

/*
 * Lost wakeups (ibv_req_notify_cq(3), IBA 11.4.2.2): the application arms
 * the CQ, then polls it, while a worker pushes the completion, then loads
 * the armed state. Each side stores, then loads what the other stored:
 * without a full fence on both sides both loads may pass their stores, the
 * poll finds nothing and no event comes. Many cycles of send, arm, poll,
 * wait, the arming swept across the push's moment by a varying delay:
 * every completion that the poll after arming did not find raises an
 * event. The workers run on another CPU than this thread (engine modes).
 */
static void
test_notify_no_lost_wakeup(struct rc_env *e)
{
	enum { CYCLES = 20000 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct dr_comp_channel *ch;
	struct rc_buf src, dst;
	struct dr_cq *got;
	struct dr_wc wc;
	void *got_ctx;
	unsigned int i, found = 0, woken = 0, lost = 0, late = 0;
	uint32_t x = 12345;

	if (strcmp(rc_mode_name(), "inline") == 0)
		return;                   /* one thread pushes and polls: no race to have */
	ch = channel_pair(e, &src, &dst, 64, "lost wakeup setup");
	if (ch == NULL)
		return;
	for (i = 0; i < CYCLES && lost == 0; i++) {
		struct rc_wcs sw = { .n = 0 };
		uint64_t until, carried = e->frames[RC_A2B];
		int n;

		/* an event left from the last cycle (its poll found the completion, the push saw the arm) */
		while (dr_get_cq_event(ch, &got, &got_ctx) == 0)
			dr_ack_cq_events(got, 1);
		if (rc_post_recv(b, i, &(struct dr_sge){ (uint64_t)(uintptr_t)dst.p, 64, dst.mr->lkey }, 1) != 0 ||
		    send_on(a->qp, i, &src, 0, 8, 0) != 0) {
			RC_CHECK_MSG(0, "cycle %u: post", i);
			break;
		}
		/* carry the request (A's worker has it on the ring in a round or two), then arm at a varying moment */
		until = rte_get_timer_cycles() + rte_get_timer_hz() / 20;
		while (e->frames[RC_A2B] == carried && rte_get_timer_cycles() < until)
			rc_round(e);
		x = x * 1103515245u + 12345u;
		until = rte_rdtsc() + (x >> 16) % (rte_get_tsc_hz() / 200000);    /* 0 .. 5 us */
		while (rte_rdtsc() < until)
			rte_pause();
		RC_CHECK_EQ(dr_req_notify_cq(b->rcq, 0), 0);
		n = dr_poll_cq(b->rcq, 1, &wc);
		if (n == 1) {
			found++;
		} else {
			/* the poll found nothing: the completion must raise an event (2 s: a loaded CPU) */
			rc_run(e, 2000000, fd_readable, &ch->fd);
			if (dr_get_cq_event(ch, &got, &got_ctx) == 0) {
				dr_ack_cq_events(got, 1);
				woken++;
			} else if (dr_poll_cq(b->rcq, 1, &wc) == 1) {
				/* queued and no event: unless the round that pushed it has not ended yet */
				rc_run(e, 2000000, fd_readable, &ch->fd);
				if (dr_get_cq_event(ch, &got, &got_ctx) == 0) {
					dr_ack_cq_events(got, 1);
					late++;
				} else {
					lost++;
				}
				n = 1;
			}
			if (n != 1 && dr_poll_cq(b->rcq, 1, &wc) != 1) {
				RC_CHECK_MSG(0, "cycle %u: the receive completion never came", i);
				break;
			}
		}
		RC_CHECK_MSG(wc.status == DR_WC_SUCCESS && wc.wr_id == i, "cycle %u: completion %" PRIu64 " %s", i,
			     wc.wr_id, dr_wc_status_str(wc.status));
		rc_wait_wcs(e, a->scq, &sw, 1, 2000000);
	}
	RC_CHECK_MSG(lost == 0, "lost wakeup: cycle %u: a completion queued after arming raised no event "
		     "(%u found by the poll after arming, %u woken)", i, found, woken);
	if (getenv("DR_TEST_VERBOSE") != NULL)
		printf("notify: %u cycles: %u found by the poll after arming, %u woken, %u late, %u lost\n", i,
		       found, woken, late, lost);
	while (dr_get_cq_event(ch, &got, &got_ctx) == 0)
		dr_ack_cq_events(got, 1);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
	RC_CHECK_EQ(dr_destroy_comp_channel(ch), 0);
}

/*
 * The same race as a litmus test, millions of times: one thread pushes a
 * completion (dr_cq_push(), what a worker does) while this one arms the
 * CQ and polls it, the two started together by a shared counter. Every
 * cycle in which the poll after arming found nothing must have raised an
 * event. Without the fences x86 shows it within a few hundred thousand
 * cycles (store buffer: each side's load passes its own store).
 */
struct litmus {
	struct dr_cq_impl *cq;
	uint32_t go;           /* cycle k starts when go == 2k + 1 */
	uint32_t pushed;       /* the pusher finished cycle k: pushed == k + 1 */
	uint32_t cycles;
	int cpu;
};

static void *
litmus_pusher(void *arg)
{
	struct litmus *l = arg;
	struct dr_wc wc = { .status = DR_WC_SUCCESS, .opcode = DR_WC_RECV };
	cpu_set_t set;
	uint32_t k;

	CPU_ZERO(&set);
	CPU_SET(l->cpu, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (k = 0; k < l->cycles; k++) {
		while (__atomic_load_n(&l->go, __ATOMIC_ACQUIRE) != 2 * k + 1)
			rte_pause();
		wc.wr_id = k;
		(void)dr_cq_push(l->cq, &wc);
		__atomic_store_n(&l->pushed, k + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void
test_notify_litmus(struct rc_env *e)
{
	enum { CYCLES = 300000 };
	struct rc_side *b = &e->s[1];
	struct litmus l = { .cycles = CYCLES };
	struct dr_comp_channel *ch;
	struct dr_cq *cq, *got;
	struct dr_wc wc;
	void *got_ctx;
	pthread_t th;
	uint32_t k, found = 0, woken = 0, lost = 0;
	int c, mine = sched_getcpu();

	/*
	 * inline mode: no worker lcore spins on the pusher's CPU (in rtc mode
	 * the contexts' four share it, and every cycle's hand-off waited for
	 * a scheduler slice: minutes on a busy machine)
	 */
	if (!rc_inline_only("notify litmus", "dr_cq_push() and the arming are the same code in every mode"))
		return;
	/* the pusher on another CPU (EAL has pinned this thread to one) */
	l.cpu = -1;
	for (c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && l.cpu < 0; c++)
		if (c != mine)
			l.cpu = c;
	if (l.cpu < 0) {
		printf("notify litmus: one CPU, skipped\n");
		return;
	}
	ch = dr_create_comp_channel(b->ctx);
	cq = ch != NULL ? dr_create_cq(b->ctx, 16, NULL, ch, 0) : NULL;
	RC_CHECK(ch != NULL && cq != NULL);
	if (cq == NULL)
		return;
	RC_CHECK_EQ(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK), 0);
	l.cq = dr_cq_impl(cq);
	if (pthread_create(&th, NULL, litmus_pusher, &l) != 0) {
		RC_CHECK_MSG(0, "notify litmus: pthread_create");
		return;
	}
	for (k = 0; k < CYCLES; k++) {
		int n;

		__atomic_store_n(&l.go, 2 * k + 1, __ATOMIC_RELEASE);
		/* the pusher takes a while to see the start: arm after it by a varying few pauses */
		for (unsigned int j = (k * 7) % 24; j != 0; j--)
			rte_pause();
		(void)dr_req_notify_cq(cq, 0);
		n = dr_poll_cq(cq, 1, &wc);
		while (__atomic_load_n(&l.pushed, __ATOMIC_ACQUIRE) != k + 1)
			rte_pause();
		if (dr_get_cq_event(ch, &got, &got_ctx) == 0) {
			dr_ack_cq_events(got, 1);
			woken += n == 0;
		} else if (n == 0) {
			lost++;
			/* the CQ stays armed: disarm it for the next cycle the only way verbs has, an event */
			(void)dr_cq_push(l.cq, &(struct dr_wc){ .status = DR_WC_SUCCESS, .wr_id = ~0ull });
			while (dr_get_cq_event(ch, &got, &got_ctx) == 0)
				dr_ack_cq_events(got, 1);
		}
		found += n == 1;
		while (dr_poll_cq(cq, 1, &wc) == 1)
			;
	}
	pthread_join(th, NULL);
	RC_CHECK_MSG(lost == 0, "notify litmus: %u of %u cycles lost their wakeup (%u found by the poll, %u woken)",
		     lost, CYCLES, found, woken);
	if (getenv("DR_TEST_VERBOSE") != NULL)
		printf("notify litmus: %u cycles: %u found by the poll after arming, %u woken, %u lost\n", CYCLES,
		       found, woken, lost);
	RC_CHECK_EQ(dr_destroy_cq(cq), 0);
	RC_CHECK_EQ(dr_destroy_comp_channel(ch), 0);
}

/* The tests, in order, on one environment (rc_main()). */
static void
run(struct rc_env *e)
{
	test_srq_two_qps(e);
	test_srq_ud(e);
	test_comp_channel(e);
	test_notify_no_lost_wakeup(e);
	test_notify_litmus(e);
	test_cq_event_ack(e);
	test_async_events(e);
	test_cq_overrun_by_completer(e);
	test_port_events(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_srq_events", argv[0], 4200, run);
}
