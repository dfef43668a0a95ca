/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * QPs as objects: ibv_create_qp(3) capabilities and errors, the modify
 * sequence of ibv_rc_pingpong (RESET -> INIT -> RTR -> RTS), refused
 * transitions and values, the state each transition sets up, SQD and RESET.
 */

#include <errno.h>
#include <string.h>

#include "dr_test.h"
#include "test_verbs.h"

struct dr_qp *
tv_create_qp(struct tv *t, struct dr_cq *scq, struct dr_cq *rcq, uint32_t max_wr, int sq_sig_all)
{
	struct dr_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = DR_QPT_RC;
	ia.sq_sig_all = sq_sig_all;
	ia.cap.max_send_wr = max_wr;
	ia.cap.max_recv_wr = max_wr;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	ia.cap.max_inline_data = 64;
	return dr_create_qp(t->pd, &ia);
}

int
tv_to_init(struct dr_qp *qp)
{
	struct dr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ;
	return dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS);
}

void
tv_rtr_attr(struct dr_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = DR_QPS_RTR;
	a->path_mtu = DR_MTU_1024;
	a->dest_qp_num = 0x99;
	a->rq_psn = 0x123;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 12;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.sgid_index = 1;
	dr_gid_from_ipv4(a->ah_attr.grh.dgid.raw, TV_PEER_IPV4);
	*mask = DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN |
		DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER;
}

int
tv_to_rtr(struct dr_qp *qp)
{
	struct dr_qp_attr a;
	int mask;

	tv_rtr_attr(&a, &mask);
	return dr_modify_qp(qp, &a, mask);
}

static void
rts_attr(struct dr_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = DR_QPS_RTS;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->sq_psn = 0x456;
	a->max_rd_atomic = 1;
	*mask = DR_QP_STATE | DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_SQ_PSN |
		DR_QP_MAX_QP_RD_ATOMIC;
}

int
tv_to_rts(struct dr_qp *qp)
{
	struct dr_qp_attr a;
	int mask;

	rts_attr(&a, &mask);
	return dr_modify_qp(qp, &a, mask);
}

static int
create_errno(struct dr_pd *pd, const struct dr_qp_init_attr *base)
{
	struct dr_qp_init_attr ia = *base;
	struct dr_qp *qp;

	errno = 0;
	qp = dr_create_qp(pd, &ia);
	if (qp != NULL) {
		dr_destroy_qp(qp);
		return 0;
	}
	return errno;
}

static void
test_create(struct tv *t, struct dr_cq *scq, struct dr_cq *rcq)
{
	struct dr_qp_init_attr base, ia, got;
	struct dr_qp_attr qa;
	struct dr_qp *qp, *qp2;
	int marker;

	memset(&base, 0, sizeof(base));
	base.send_cq = scq;
	base.recv_cq = rcq;
	base.qp_type = DR_QPT_RC;
	base.qp_context = &marker;
	base.cap.max_send_wr = 5;
	base.cap.max_recv_wr = 3;

	CHECK_EQ(create_errno(NULL, &base), EINVAL);
	ia = base;
	ia.qp_type = DR_QPT_XRC_RECV;           /* an XRC target has a domain, no PD: dr_create_qp_ex() */
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia.qp_type = DR_QPT_RAW_PACKET;
	CHECK_EQ(create_errno(t->pd, &ia), EOPNOTSUPP);
	ia.qp_type = (enum dr_qp_type)77;
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia = base;
	ia.send_cq = NULL;
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia = base;
	ia.recv_cq = NULL;
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia = base;
	{
		/* an SRQ of another context (test_srq_events.c covers SRQ QPs) */
		struct dr_srq other = { .context = (struct dr_context *)&marker };

		ia.srq = &other;
		CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	}
	ia = base;
	ia.cap.max_send_wr = 0;
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia = base;
	ia.cap.max_recv_wr = DR_MAX_QP_WR + 1;
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia = base;
	ia.cap.max_send_sge = DR_MAX_SGE + 1;
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia = base;
	ia.cap.max_recv_sge = DR_MAX_SGE + 1;
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia = base;
	ia.cap.max_inline_data = DR_MAX_INLINE + 1;
	CHECK_EQ(create_errno(t->pd, &ia), EINVAL);
	ia = base;
	ia.cap.max_send_wr = DR_MAX_QP_WR;
	ia.cap.max_send_sge = DR_MAX_SGE;
	ia.cap.max_inline_data = DR_MAX_INLINE;
	CHECK_EQ(create_errno(t->pd, &ia), 0);

	/* granted caps are written back: 0 SGEs become 1 */
	ia = base;
	qp = dr_create_qp(t->pd, &ia);
	CHECK(qp != NULL);
	if (qp == NULL)
		return;
	CHECK(ia.cap.max_send_wr == 5 && ia.cap.max_recv_wr == 3);
	CHECK(ia.cap.max_send_sge == 1 && ia.cap.max_recv_sge == 1 && ia.cap.max_inline_data == 0);
	CHECK(qp->qp_num >= DR_QPN_BASE && qp->qp_num < DR_QPN_BASE + DR_MAX_QP);
	CHECK_EQ(qp->state, DR_QPS_RESET);
	CHECK(qp->pd == t->pd && qp->send_cq == scq && qp->recv_cq == rcq && qp->srq == NULL);
	CHECK(qp->qp_context == &marker && qp->context == t->ctx && qp->qp_type == DR_QPT_RC);
	CHECK(dr_qp_lookup(t->ctx, qp->qp_num) == dr_qp_impl(qp));
	CHECK_EQ(dr_query_qp(qp, &qa, DR_QP_STATE | DR_QP_CAP, &got), 0);
	CHECK_EQ(qa.qp_state, DR_QPS_RESET);
	CHECK(memcmp(&qa.cap, &ia.cap, sizeof(qa.cap)) == 0);
	CHECK(memcmp(&got.cap, &ia.cap, sizeof(got.cap)) == 0);
	CHECK(got.send_cq == scq && got.qp_type == DR_QPT_RC);
	CHECK_EQ(dr_query_qp(qp, NULL, 0, &got), -EINVAL);

	qp2 = tv_create_qp(t, scq, rcq, 8, 0);
	CHECK(qp2 != NULL && qp2->qp_num != qp->qp_num);
	/* ibv_destroy_cq(3) / ibv_dealloc_pd(3): not while a QP uses them */
	CHECK_EQ(dr_destroy_cq(scq), -EBUSY);
	CHECK_EQ(dr_destroy_cq(rcq), -EBUSY);
	CHECK_EQ(dr_dealloc_pd(t->pd), -EBUSY);
	CHECK_EQ(dr_close_device(t->ctx), -EBUSY);
	if (qp2 != NULL)
		CHECK_EQ(dr_destroy_qp(qp2), 0);
	CHECK_EQ(dr_destroy_qp(qp), 0);
	CHECK_EQ(dr_destroy_qp(NULL), -EINVAL);
	CHECK_EQ(t->ctx->num_qps, 0);
	CHECK_EQ(dr_cq_impl(scq)->refcnt + dr_cq_impl(rcq)->refcnt + t->pd->refcnt, 0);
}

/* Each refused modify leaves the QP as it was. */
#define REFUSED(qp, a, mask, st) do { \
	CHECK_EQ(dr_modify_qp((qp), (a), (mask)), -EINVAL); \
	CHECK_EQ((qp)->state, (st)); \
} while (0)

static void
test_rtr_values(struct dr_qp *qp)
{
	struct dr_qp_attr a;
	int mask;

	tv_rtr_attr(&a, &mask);
	a.path_mtu = DR_MTU_2048;               /* above the port's active MTU (1024) */
	REFUSED(qp, &a, mask, DR_QPS_INIT);
	tv_rtr_attr(&a, &mask);
	a.path_mtu = (enum dr_mtu)6;
	REFUSED(qp, &a, mask, DR_QPS_INIT);
	tv_rtr_attr(&a, &mask);
	a.max_dest_rd_atomic = DR_MAX_RD_ATOMIC + 1;
	REFUSED(qp, &a, mask, DR_QPS_INIT);
	tv_rtr_attr(&a, &mask);
	a.ah_attr.grh.sgid_index = 0;           /* IPv6 source, IPv4 destination */
	REFUSED(qp, &a, mask, DR_QPS_INIT);
	tv_rtr_attr(&a, &mask);
	a.ah_attr.grh.sgid_index = 3;           /* past the GIDs in use */
	REFUSED(qp, &a, mask, DR_QPS_INIT);
	tv_rtr_attr(&a, &mask);
	a.ah_attr.is_global = 0;                /* RoCEv2 needs a GRH */
	REFUSED(qp, &a, mask, DR_QPS_INIT);
	tv_rtr_attr(&a, &mask);
	memset(a.ah_attr.grh.dgid.raw, 0, 16);
	REFUSED(qp, &a, mask, DR_QPS_INIT);
	tv_rtr_attr(&a, &mask);
	a.dest_qp_num = 1u << 24;
	REFUSED(qp, &a, mask, DR_QPS_INIT);
	tv_rtr_attr(&a, &mask);
	REFUSED(qp, &a, mask & ~DR_QP_MIN_RNR_TIMER, DR_QPS_INIT);  /* required (IBA table 91) */
	tv_rtr_attr(&a, &mask);
	REFUSED(qp, &a, mask | DR_QP_SQ_PSN, DR_QPS_INIT);          /* not accepted here */
}

static void
test_modify(struct tv *t, struct dr_cq *scq, struct dr_cq *rcq)
{
	struct dr_qp *qp = tv_create_qp(t, scq, rcq, 8, 0);
	struct dr_qp_impl *q;
	struct dr_qp_init_attr ia;
	struct dr_recv_wr rwr[2], *bad;
	struct dr_qp_attr a, got;
	struct dr_wc wc[4];
	uint8_t v4[16], v6[16] = { 0x20, 0x01, 0x0D, 0xB8, [15] = 0x99 };
	int mask;

	CHECK(qp != NULL);
	if (qp == NULL)
		return;
	q = dr_qp_impl(qp);

	/* RESET goes to INIT only (IBA figure 124), with its required attributes */
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTR;
	REFUSED(qp, &a, DR_QP_STATE, DR_QPS_RESET);
	a.qp_state = DR_QPS_RTS;
	REFUSED(qp, &a, DR_QP_STATE, DR_QPS_RESET);
	a.qp_state = (enum dr_qp_state)42;
	REFUSED(qp, &a, DR_QP_STATE, DR_QPS_RESET);
	a.qp_state = DR_QPS_INIT;
	a.port_num = 1;
	REFUSED(qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT, DR_QPS_RESET);
	a.port_num = 2;
	REFUSED(qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS, DR_QPS_RESET);
	CHECK_EQ(tv_to_init(qp), 0);
	CHECK_EQ(qp->state, DR_QPS_INIT);
	a.qp_access_flags = DR_ACCESS_REMOTE_READ;              /* INIT -> INIT, state implied */
	CHECK_EQ(dr_modify_qp(qp, &a, DR_QP_ACCESS_FLAGS), 0);
	CHECK_EQ(qp->state, DR_QPS_INIT);
	CHECK_EQ(q->attr.qp_access_flags, DR_ACCESS_REMOTE_READ);

	test_rtr_values(qp);
	CHECK_EQ(tv_to_rtr(qp), 0);
	CHECK_EQ(qp->state, DR_QPS_RTR);
	/* responder and route set up at RTR */
	CHECK(q->resp.epsn == 0x123 && q->resp.msn == 0 && q->resp.res_active == -1);
	CHECK_EQ(q->mtu, 1024);
	dr_gid_from_ipv4(v4, TV_PEER_IPV4);
	CHECK_EQ(q->route.ip_ver, 4);
	CHECK(memcmp(q->route.sgid, t->ctx->gid[1].raw, 16) == 0);
	CHECK(memcmp(q->route.dgid, v4, 16) == 0);
	CHECK(rte_is_same_ether_addr(&q->route.smac, &t->ctx->mac));
	CHECK_EQ(q->route.hop_limit, DR_DEFAULT_HOP_LIMIT);
	CHECK_EQ(q->route.ipv4_df, 1);
	CHECK_EQ(q->route.udp_sport, dr_udp_sport_from_flow_label(dr_flow_label_from_qpns(qp->qp_num, 0x99)));
	CHECK(!q->route_resolved);

	/* RTR -> RTS: cur_qp_state must be the state; required attributes; limits */
	rts_attr(&a, &mask);
	a.cur_qp_state = DR_QPS_INIT;
	REFUSED(qp, &a, mask | DR_QP_CUR_STATE, DR_QPS_RTR);
	rts_attr(&a, &mask);
	a.max_rd_atomic = DR_MAX_RD_ATOMIC + 1;
	REFUSED(qp, &a, mask, DR_QPS_RTR);
	rts_attr(&a, &mask);
	REFUSED(qp, &a, mask & ~DR_QP_SQ_PSN, DR_QPS_RTR);
	rts_attr(&a, &mask);
	a.retry_cnt = 8;
	REFUSED(qp, &a, mask, DR_QPS_RTR);
	rts_attr(&a, &mask);
	a.cur_qp_state = DR_QPS_RTR;
	CHECK_EQ(dr_modify_qp(qp, &a, mask | DR_QP_CUR_STATE), 0);
	CHECK_EQ(qp->state, DR_QPS_RTS);
	CHECK(q->req.psn == 0x456 && q->comp.psn == 0x456);
	CHECK(q->comp.retry_left == 7 && q->comp.rnr_left == 7);
	CHECK_EQ(dr_query_qp(qp, &got, 0, &ia), 0);
	CHECK(got.qp_state == DR_QPS_RTS && got.cur_qp_state == DR_QPS_RTS);
	CHECK(got.dest_qp_num == 0x99 && got.path_mtu == DR_MTU_1024 && got.rq_psn == 0x123);
	CHECK(got.sq_psn == 0x456 && got.timeout == 14 && got.max_rd_atomic == 1);
	CHECK(got.max_dest_rd_atomic == 1 && got.min_rnr_timer == 12 && got.ah_attr.grh.sgid_index == 1);
	/* rq_psn and sq_psn are the PSNs as the transport moved them (rxe_qp_to_attr()) */
	q->resp.epsn = 0x124;
	q->req.psn = 0x459;
	CHECK_EQ(dr_query_qp(qp, &got, 0, &ia), 0);
	CHECK(got.rq_psn == 0x124 && got.sq_psn == 0x459);
	q->resp.epsn = 0x123;
	q->req.psn = 0x456;

	/* RTS -> RTS, RTS -> SQD -> SQD (a new path) -> RTS; RTS -> INIT does not exist */
	a.min_rnr_timer = 3;
	CHECK_EQ(dr_modify_qp(qp, &a, DR_QP_MIN_RNR_TIMER), 0);
	CHECK_EQ(q->attr.min_rnr_timer, 3);
	a.qp_state = DR_QPS_INIT;
	REFUSED(qp, &a, DR_QP_STATE, DR_QPS_RTS);
	a.qp_state = DR_QPS_SQD;
	CHECK_EQ(dr_modify_qp(qp, &a, DR_QP_STATE), 0);
	CHECK_EQ(qp->state, DR_QPS_SQD);
	tv_rtr_attr(&a, &mask);
	a.qp_state = DR_QPS_SQD;
	a.ah_attr.grh.flow_label = 0xABCDE;
	a.retry_cnt = 2;
	CHECK_EQ(dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_AV | DR_QP_RETRY_CNT), 0);
	CHECK_EQ(q->route.udp_sport, dr_udp_sport_from_flow_label(0xABCDE));
	CHECK_EQ(q->route.flow_label, 0xABCDE);
	CHECK_EQ(q->comp.retry_left, 2);
	a.qp_state = DR_QPS_RTS;
	CHECK_EQ(dr_modify_qp(qp, &a, DR_QP_STATE), 0);
	CHECK_EQ(qp->state, DR_QPS_RTS);

	/* to RESET: the receive queue is emptied without completions */
	memset(rwr, 0, sizeof(rwr));
	rwr[0].next = &rwr[1];
	CHECK_EQ(dr_post_recv(qp, rwr, &bad), 0);
	CHECK_EQ(q->rq.head - q->rq.tail, 2);
	a.qp_state = DR_QPS_RESET;
	CHECK_EQ(dr_modify_qp(qp, &a, DR_QP_STATE), 0);
	CHECK_EQ(qp->state, DR_QPS_RESET);
	CHECK(q->rq.head == 0 && q->rq.tail == 0 && q->sq.head == 0);
	CHECK_EQ(dr_poll_cq(rcq, 4, wc), 0);

	/* again, over IPv6: GID 2 to an IPv6 peer */
	CHECK_EQ(tv_to_init(qp), 0);
	tv_rtr_attr(&a, &mask);
	a.ah_attr.grh.sgid_index = 2;
	a.ah_attr.grh.hop_limit = 5;
	a.ah_attr.grh.traffic_class = 0x60;
	memcpy(a.ah_attr.grh.dgid.raw, v6, 16);
	CHECK_EQ(dr_modify_qp(qp, &a, mask), 0);
	/* rxe/ib_core: the route's hop limit, not the AV's (ibv_rc_pingpong asks for 1) */
	CHECK(q->route.ip_ver == 6 && q->route.hop_limit == DR_DEFAULT_HOP_LIMIT &&
	      q->route.tclass == 0x60);
	CHECK(memcmp(q->route.sgid, t->ctx->gid[2].raw, 16) == 0 && memcmp(q->route.dgid, v6, 16) == 0);
	a.qp_state = DR_QPS_ERR;                 /* any state may go to ERR */
	CHECK_EQ(dr_modify_qp(qp, &a, DR_QP_STATE), 0);
	CHECK_EQ(qp->state, DR_QPS_ERR);
	a.qp_state = DR_QPS_RTS;
	REFUSED(qp, &a, DR_QP_STATE, DR_QPS_ERR);
	CHECK_EQ(dr_destroy_qp(qp), 0);
}

/*
 * The IP TTL / hop limit of a RoCEv2 QP is the route's (64), whatever the
 * AV's grh.hop_limit: ib_core replaces it when it resolves the destination
 * (ib_resolve_unicast_gid_dmac() on modify_qp with IB_QP_AV), so rxe sends
 * TTL 64 for ibv_rc_pingpong's hop_limit 1 (seen on the wire against rxe).
 */
static void
test_hop_limit_is_the_routes(struct tv *t, struct dr_cq *scq, struct dr_cq *rcq)
{
	static const uint8_t limits[] = { 0, 1, 5, 64, 255 };
	struct dr_qp_attr a;
	struct dr_qp *qp;
	int mask;

	for (unsigned int i = 0; i < RTE_DIM(limits); i++) {
		qp = tv_create_qp(t, scq, rcq, 4, 0);
		CHECK(qp != NULL);
		if (qp == NULL)
			return;
		CHECK_EQ(tv_to_init(qp), 0);
		tv_rtr_attr(&a, &mask);
		a.ah_attr.grh.hop_limit = limits[i];
		CHECK_EQ(dr_modify_qp(qp, &a, mask), 0);
		CHECK_EQ(dr_qp_impl(qp)->route.ip_ver, 4);
		CHECK_EQ(dr_qp_impl(qp)->route.hop_limit, DR_DEFAULT_HOP_LIMIT);
		CHECK_EQ(dr_destroy_qp(qp), 0);
	}
}

/*
 * UC and UD QPs through their transitions (IBA 11.2.5.3 table 91): UD takes
 * a Q_Key and no AV or path MTU, its MTU is the port's active one and its
 * UDP source port the hash of its QPN (as rxe); UC takes access flags and
 * an AV but none of RC's retry or RDMA-atomic attributes.
 */
static void
test_uc_ud_transitions(struct tv *t, struct dr_cq *scq, struct dr_cq *rcq)
{
	struct dr_qp_init_attr ia;
	struct dr_qp_attr a, qa;
	struct dr_qp *ud, *uc;
	int mask;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = DR_QPT_UD;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ud = dr_create_qp(t->pd, &ia);
	CHECK(ud != NULL);
	if (ud == NULL)
		return;
	CHECK_EQ(ud->qp_type, DR_QPT_UD);
	CHECK_EQ(dr_qp_impl(ud)->mtu, dr_mtu_bytes(t->ctx->active_mtu));
	CHECK_EQ(dr_qp_impl(ud)->route.udp_sport, dr_udp_sport_from_qpn(ud->qp_num));
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	/* RESET->INIT of UD requires the Q_Key, refuses access flags */
	CHECK_EQ(dr_modify_qp(ud, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT), -EINVAL);
	CHECK_EQ(dr_modify_qp(ud, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY |
				      DR_QP_ACCESS_FLAGS), -EINVAL);
	CHECK_EQ(dr_modify_qp(ud, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY), 0);
	a.qp_state = DR_QPS_RTR;
	tv_rtr_attr(&qa, &mask);
	CHECK_EQ(dr_modify_qp(ud, &qa, mask), -EINVAL);     /* no AV, no path MTU on UD */
	CHECK_EQ(dr_modify_qp(ud, &a, DR_QP_STATE), 0);
	a.qp_state = DR_QPS_RTS;
	a.sq_psn = 0x123;
	CHECK_EQ(dr_modify_qp(ud, &a, DR_QP_STATE | DR_QP_SQ_PSN), 0);
	CHECK_EQ(ud->state, DR_QPS_RTS);
	/* back to RESET keeps the QP's UDP source port */
	a.qp_state = DR_QPS_RESET;
	CHECK_EQ(dr_modify_qp(ud, &a, DR_QP_STATE), 0);
	CHECK_EQ(dr_qp_impl(ud)->route.udp_sport, dr_udp_sport_from_qpn(ud->qp_num));
	CHECK_EQ(dr_destroy_qp(ud), 0);

	ia.qp_type = DR_QPT_UC;
	uc = dr_create_qp(t->pd, &ia);
	CHECK(uc != NULL);
	if (uc == NULL)
		return;
	CHECK_EQ(tv_to_init(uc), 0);
	tv_rtr_attr(&a, &mask);
	/* max_dest_rd_atomic and min_rnr_timer are RC's */
	CHECK_EQ(dr_modify_qp(uc, &a, mask), -EINVAL);
	CHECK_EQ(dr_modify_qp(uc, &a, mask & ~(DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER)), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTS;
	a.timeout = 14;
	CHECK_EQ(dr_modify_qp(uc, &a, DR_QP_STATE | DR_QP_SQ_PSN | DR_QP_TIMEOUT), -EINVAL);
	CHECK_EQ(dr_modify_qp(uc, &a, DR_QP_STATE | DR_QP_SQ_PSN), 0);
	/* dr_post_ud_send() is for UD QPs */
	CHECK_EQ(dr_post_ud_send(uc, NULL, NULL, 0, NULL, 0, NULL, 1), EINVAL);
	CHECK_EQ(dr_destroy_qp(uc), 0);
}

void
tv_qp_tests(struct tv *t, struct tv_count *c)
{
	struct dr_cq *scq = dr_create_cq(t->ctx, 16, NULL, NULL, 0);
	struct dr_cq *rcq = dr_create_cq(t->ctx, 16, NULL, NULL, 0);

	CHECK(scq != NULL && rcq != NULL);
	if (scq != NULL && rcq != NULL) {
		test_create(t, scq, rcq);
		test_modify(t, scq, rcq);
		test_hop_limit_is_the_routes(t, scq, rcq);
		test_uc_ud_transitions(t, scq, rcq);
	}
	if (scq != NULL)
		CHECK_EQ(dr_destroy_cq(scq), 0);
	if (rcq != NULL)
		CHECK_EQ(dr_destroy_cq(rcq), 0);
	c->passed += dr_test_passed;
	c->failed += dr_test_failed;
}
