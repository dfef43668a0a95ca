/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * UD end to end over the test wire (test_rc.h): address handles (from a GID
 * and from a received completion), SEND and SEND with immediate up to the
 * path MTU, the 40-byte GRH area of ibv_post_recv(3), src_qp and wc_flags,
 * Q_Keys (mismatch dropped, the high-order-bit rule), messages above the
 * MTU (C10-93.1.1: not sent, completed with success), no receive WQE,
 * receive WQE too small (LOC_LEN_ERR, QP to ERR), loss, dr_post_ud_send()
 * and the post-time rules.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>

#include "test_rc.h"

#define QKEY 0x11111111u

static const uint32_t mtu_b = 4096;   /* the active MTU of a 4200-byte link */

static void
ud_params(struct rc_qp_params *p)
{
	rc_params_default(p);
	p->qp_type = DR_QPT_UD;
	p->qkey = QKEY;
}

/* An AH on side @s towards side @peer (IPv4-mapped GID index 1). */
static struct dr_ah *
ah_to(struct rc_side *s, const struct rc_side *peer)
{
	struct dr_ah_attr av;

	memset(&av, 0, sizeof(av));
	av.is_global = 1;
	av.port_num = 1;
	av.grh.dgid = peer->gid;
	av.grh.sgid_index = 1;
	return dr_create_ah(s->pd, &av);
}

static int
ud_send(struct rc_side *s, uint64_t id, enum dr_wr_opcode op, struct dr_sge *sge, int nsge, unsigned int flags,
	struct dr_ah *ah, uint32_t qpn, uint32_t qkey, uint32_t imm)
{
	struct dr_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	wr.send_flags = flags | DR_SEND_SIGNALED;
	wr.imm_data = rte_cpu_to_be_32(imm);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	return dr_post_send(s->qp, &wr, &bad);
}

static int
recv_at(struct rc_side *s, uint64_t id, struct rc_buf *b, uint32_t off, uint32_t len)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(b->p + off), len, b->mr->lkey };

	return rc_post_recv(s, id, &sge, 1);
}

/* The GRH area of an IPv4 packet: 20 zero bytes, then its IPv4 header (rxe, mlx5). */
static void
check_grh_ipv4(const uint8_t *grh, const struct rc_side *from, const struct rc_side *to, uint32_t paylen)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(grh + 20);
	static const uint8_t zero[20];

	RC_CHECK(memcmp(grh, zero, 20) == 0);
	RC_CHECK_EQ(ip->version_ihl, 0x45);
	RC_CHECK(memcmp(&ip->src_addr, from->gid.raw + 12, 4) == 0);
	RC_CHECK(memcmp(&ip->dst_addr, to->gid.raw + 12, 4) == 0);
	RC_CHECK_EQ(ip->next_proto_id, IPPROTO_UDP);
	/* IP + UDP + BTH + DETH [+ ImmDt] + payload + pad + ICRC */
	RC_CHECK(rte_be_to_cpu_16(ip->total_length) >= 20 + 8 + 12 + 8 + paylen + 4);
	RC_CHECK(rte_ipv4_cksum(ip) == 0 || rte_ipv4_cksum(ip) == 0xFFFF);   /* a valid header sums to all ones */
}

/* SEND and SEND with immediate at every size up to the MTU, with multi-SGE and inline sends. */
static void
test_sizes(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE;
	const uint32_t sizes[] = { 0, 1, 61, 62, 63, 1021, mtu_b - 1, mtu_b };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_ah *ah;
	unsigned int i;

	ud_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, mtu_b, acc) != 0 ||
	    rc_buf_alloc(b, &dst, RTE_DIM(sizes) * 2 * (mtu_b + DR_GRH_LEN), acc) != 0) {
		RC_CHECK_MSG(0, "UD sizes: setup");
		return;
	}
	ah = ah_to(a, b);
	RC_CHECK(ah != NULL);
	rc_fill(src.p, mtu_b, 21);
	for (i = 0; i < 2 * RTE_DIM(sizes); i++) {
		uint32_t len = sizes[i % RTE_DIM(sizes)], slot = mtu_b + DR_GRH_LEN;
		bool imm = i >= RTE_DIM(sizes);
		struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
		struct dr_sge sge[3];
		int n;

		RC_CHECK_EQ(recv_at(b, 100 + i, &dst, i * slot, slot), 0);
		n = rc_sges(&src, 0, len, len >= 3 ? 3 : 1, sge);
		RC_CHECK_EQ(ud_send(a, i, imm ? DR_WR_SEND_WITH_IMM : DR_WR_SEND, sge, n,
				    (len <= 256 && (i & 1)) ? DR_SEND_INLINE : 0, ah, b->qp->qp_num, QKEY, 0x7000 + i),
			    0);
		RC_CHECK_MSG(rc_wait_wcs(e, a->scq, &sw, 1, 2000000), "UD %u bytes: send completion", len);
		RC_CHECK_MSG(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000), "UD %u bytes: receive completion", len);
		if (sw.n != 1 || rw.n != 1)
			continue;
		RC_CHECK_EQ(sw.wc[0].status, DR_WC_SUCCESS);
		RC_CHECK_EQ(sw.wc[0].opcode, DR_WC_SEND);
		RC_CHECK_EQ(rw.wc[0].status, DR_WC_SUCCESS);
		RC_CHECK_EQ(rw.wc[0].wr_id, 100 + i);
		RC_CHECK_EQ(rw.wc[0].opcode, DR_WC_RECV);
		RC_CHECK_EQ(rw.wc[0].byte_len, DR_GRH_LEN + len);
		RC_CHECK_EQ(rw.wc[0].src_qp, a->qp->qp_num);
		RC_CHECK_EQ(rw.wc[0].qp_num, b->qp->qp_num);
		RC_CHECK_EQ(rw.wc[0].wc_flags, DR_WC_GRH | (imm ? DR_WC_WITH_IMM : 0));
		if (imm)
			RC_CHECK_EQ(rte_be_to_cpu_32(rw.wc[0].imm_data), 0x7000 + i);
		check_grh_ipv4(dst.p + i * slot, a, b, len);
		RC_CHECK_MSG(memcmp(dst.p + i * slot + DR_GRH_LEN, src.p, len) == 0, "UD %u bytes: data", len);
	}
	RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/*
 * Q_Keys (IBA 10.2.5): a mismatch is dropped; the high-order bit of the WR's
 * Q_Key sends the QP's own (C10-15). Above the MTU: not sent, completed OK.
 * No receive WQE: dropped. A lost packet is just lost.
 */
static void
test_drops(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_sge sge;
	struct dr_ah *ah;
	uint64_t frames;

	ud_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 2 * mtu_b, acc) != 0 ||
	    rc_buf_alloc(b, &dst, 8 * (mtu_b + DR_GRH_LEN), acc) != 0) {
		RC_CHECK_MSG(0, "UD drops: setup");
		return;
	}
	ah = ah_to(a, b);
	rc_fill(src.p, 2 * mtu_b, 8);
	sge.addr = (uint64_t)(uintptr_t)src.p;
	sge.lkey = src.mr->lkey;
	sge.length = 100;

	/* no receive WQE yet: dropped */
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_SEND, &sge, 1, 0, ah, b->qp->qp_num, QKEY, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
	/* (the send completes as it leaves A: B's worker may still be on its way to the drop) */
	RC_CHECK(RC_WAIT_STAT(e, 1, rx_dropped, 1));
	/* wrong Q_Key: dropped */
	RC_CHECK_EQ(recv_at(b, 50, &dst, 0, mtu_b + DR_GRH_LEN), 0);
	RC_CHECK_EQ(ud_send(a, 2, DR_WR_SEND, &sge, 1, 0, ah, b->qp->qp_num, QKEY + 1, 0), 0);
	/* above the MTU: nothing on the wire, success */
	frames = e->frames[RC_A2B];
	sge.length = mtu_b + 1;
	RC_CHECK_EQ(ud_send(a, 3, DR_WR_SEND, &sge, 1, 0, ah, b->qp->qp_num, QKEY, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 3, 2000000));
	/* B's worker drops the Q_Key one when it gets its turn: a busy machine may delay that */
	RC_CHECK(RC_WAIT_STAT(e, 1, rx_dropped, 2));
	RC_CHECK_EQ(e->frames[RC_A2B], frames + 1);   /* the Q_Key one only */
	RC_CHECK_EQ(dr_ctx_stats_sum(a->ctx).tx_ud_oversize, 1);
	RC_CHECK_EQ(dr_ctx_stats_sum(b->ctx).rx_dropped, 2);
	RC_CHECK_EQ(rc_poll(b->rcq, &rw), 0);
	/* the QP's own Q_Key through the high-order bit: delivered */
	sge.length = 64;
	RC_CHECK_EQ(ud_send(a, 4, DR_WR_SEND, &sge, 1, 0, ah, b->qp->qp_num, DR_QKEY_USE_QP | 0x1234, 0), 0);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	RC_CHECK(rw.n == 1 && rw.wc[0].wr_id == 50 && rw.wc[0].status == DR_WC_SUCCESS);
	/* to a QPN nobody has: dropped by the receiving context */
	RC_CHECK_EQ(ud_send(a, 5, DR_WR_SEND, &sge, 1, 0, ah, 0xABCDEF, QKEY, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 5, 2000000));
	RC_CHECK(RC_WAIT_STAT(e, 1, rx_no_qp, 1));
	RC_CHECK_EQ(dr_ctx_stats_sum(b->ctx).rx_no_qp, 1);
	/* a lost packet is lost; the next one arrives */
	RC_CHECK_EQ(recv_at(b, 51, &dst, mtu_b + DR_GRH_LEN, mtu_b + DR_GRH_LEN), 0);
	rc_rule_add(e, RC_A2B, -1, 0, 0, 1, RC_DROP);
	RC_CHECK_EQ(ud_send(a, 6, DR_WR_SEND, &sge, 1, 0, ah, b->qp->qp_num, QKEY, 0), 0);
	RC_CHECK_EQ(ud_send(a, 7, DR_WR_SEND_WITH_IMM, &sge, 1, 0, ah, b->qp->qp_num, QKEY, 77), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 7, 2000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 2, 2000000));
	RC_CHECK(rw.n == 2 && rw.wc[1].wr_id == 51 && (rw.wc[1].wc_flags & DR_WC_WITH_IMM));
	RC_CHECK_EQ(sw.n, 7);
	for (unsigned int i = 0; i < sw.n; i++)
		RC_CHECK_EQ(sw.wc[i].status, DR_WC_SUCCESS);
	RC_CHECK_EQ(rc_qp_state(a->qp), DR_QPS_RTS);
	RC_CHECK_EQ(rc_qp_state(b->qp), DR_QPS_RTS);
	RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
	dr_ctx_stats_reset(b->ctx);
	dr_ctx_stats_reset(a->ctx);
}

/* Receive buffer shorter than GRH + payload: LOC_LEN_ERR and the QP goes to ERR. */
static void
test_recv_too_small(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_sge sge;
	struct dr_ah *ah;

	ud_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, acc) != 0 ||
	    rc_buf_alloc(b, &dst, 4096, acc) != 0) {
		RC_CHECK_MSG(0, "UD too small: setup");
		return;
	}
	ah = ah_to(a, b);
	RC_CHECK_EQ(recv_at(b, 1, &dst, 0, DR_GRH_LEN + 99), 0);
	RC_CHECK_EQ(recv_at(b, 2, &dst, 1000, 1000), 0);
	sge.addr = (uint64_t)(uintptr_t)src.p;
	sge.length = 100;
	sge.lkey = src.mr->lkey;
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_SEND, &sge, 1, 0, ah, b->qp->qp_num, QKEY, 0), 0);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 2, 2000000));
	RC_CHECK(rw.n == 2 && rw.wc[0].status == DR_WC_LOC_LEN_ERR && rw.wc[1].status == DR_WC_WR_FLUSH_ERR);
	RC_CHECK_EQ(rc_qp_state(b->qp), DR_QPS_ERR);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_disconnect(e);
}

/*
 * Answer the sender through an AH made from the receive completion
 * (ibv_create_ah_from_wc(3)), with dr_post_ud_send() (rdma_post_ud_send(3):
 * Q_Key DR_UDP_QKEY, context as wr_id).
 */
static void
test_reply_from_wc(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 }, bw = { .n = 0 }, aw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf abuf, bbuf;
	struct dr_ah_attr av;
	struct dr_ah *ah, *back;
	int marker;

	ud_params(&p);
	p.qkey = DR_UDP_QKEY;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &abuf, 8192, acc) != 0 ||
	    rc_buf_alloc(b, &bbuf, 8192, acc) != 0) {
		RC_CHECK_MSG(0, "UD reply: setup");
		return;
	}
	rc_fill(abuf.p, 100, 1);
	rc_fill(bbuf.p + 4096, 100, 2);
	ah = ah_to(a, b);
	RC_CHECK_EQ(recv_at(b, 1, &bbuf, 0, 4096), 0);
	RC_CHECK_EQ(recv_at(a, 2, &abuf, 4096, 4096), 0);
	RC_CHECK_EQ(dr_post_ud_send(a->qp, &marker, abuf.p, 100, abuf.mr, DR_SEND_SIGNALED, ah, b->qp->qp_num), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].wr_id == (uint64_t)(uintptr_t)&marker);
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	if (rw.n != 1) {
		RC_CHECK_MSG(0, "UD reply: no receive");
		return;
	}
	RC_CHECK_EQ(dr_init_ah_from_wc(b->ctx, 1, &rw.wc[0], (const struct dr_grh *)bbuf.p, &av), 0);
	RC_CHECK(memcmp(av.grh.dgid.raw, a->gid.raw, 16) == 0);
	RC_CHECK_EQ(av.grh.sgid_index, 1);
	RC_CHECK_EQ(av.is_global, 1);
	back = dr_create_ah_from_wc(b->pd, &rw.wc[0], (const struct dr_grh *)bbuf.p, 1);
	RC_CHECK(back != NULL);
	RC_CHECK_EQ(dr_post_ud_send(b->qp, NULL, bbuf.p + 4096, 100, bbuf.mr, DR_SEND_SIGNALED, back,
				    rw.wc[0].src_qp), 0);
	RC_CHECK(rc_wait_wcs(e, b->scq, &bw, 1, 2000000));
	RC_CHECK(rc_wait_wcs(e, a->rcq, &aw, 1, 2000000));
	RC_CHECK(aw.n == 1 && aw.wc[0].status == DR_WC_SUCCESS && aw.wc[0].src_qp == b->qp->qp_num &&
		 aw.wc[0].byte_len == DR_GRH_LEN + 100);
	RC_CHECK(memcmp(abuf.p + 4096 + DR_GRH_LEN, bbuf.p + 4096, 100) == 0);
	/* no GRH flag, or a GRH not addressed to us: EINVAL */
	rw.wc[0].wc_flags = 0;
	RC_CHECK_EQ(dr_init_ah_from_wc(b->ctx, 1, &rw.wc[0], (const struct dr_grh *)bbuf.p, &av), -EINVAL);
	rw.wc[0].wc_flags = DR_WC_GRH;
	RC_CHECK_EQ(dr_init_ah_from_wc(a->ctx, 1, &rw.wc[0], (const struct dr_grh *)bbuf.p, &av), -EINVAL);
	{
		uint8_t junk[DR_GRH_LEN];

		memset(junk, 0, sizeof(junk));
		RC_CHECK_EQ(dr_init_ah_from_wc(b->ctx, 1, &rw.wc[0], (const struct dr_grh *)junk, &av),
			    -EPROTONOSUPPORT);
	}
	RC_CHECK_EQ(dr_destroy_ah(back), 0);
	RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	rc_buf_free(&abuf);
	rc_buf_free(&bbuf);
	rc_disconnect(e);
}

/* Post-time rules of ibv_post_send(3) for UD, and AH lifetime. */
static void
test_post_rules(struct rc_env *e)
{
	const int acc = DR_ACCESS_LOCAL_WRITE;
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf src;
	struct dr_sge sge;
	struct dr_ah_attr av;
	struct dr_ah *ah, *other;
	struct dr_pd *pd2;
	int rc;

	ud_params(&p);
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 4096, acc) != 0) {
		RC_CHECK_MSG(0, "UD post rules: setup");
		return;
	}
	ah = ah_to(a, b);
	sge.addr = (uint64_t)(uintptr_t)src.p;
	sge.length = 8;
	sge.lkey = src.mr->lkey;
	/* UD carries SEND and SEND with immediate only */
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_RDMA_WRITE, &sge, 1, 0, ah, 5, QKEY, 0), EINVAL);
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_RDMA_READ, &sge, 1, 0, ah, 5, QKEY, 0), EINVAL);
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_ATOMIC_FETCH_AND_ADD, &sge, 1, 0, ah, 5, QKEY, 0), EINVAL);
	/* an AH is required, of the QP's PD; a QPN has 24 bits */
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_SEND, &sge, 1, 0, NULL, 5, QKEY, 0), EINVAL);
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_SEND, &sge, 1, 0, ah, 0x1000000, QKEY, 0), EINVAL);
	pd2 = dr_alloc_pd(a->ctx);
	memset(&av, 0, sizeof(av));
	av.is_global = 1;
	av.grh.dgid = b->gid;
	av.grh.sgid_index = 1;
	other = dr_create_ah(pd2, &av);
	RC_CHECK(other != NULL);
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_SEND, &sge, 1, 0, other, 5, QKEY, 0), EINVAL);
	RC_CHECK_EQ(dr_destroy_ah(other), 0);
	RC_CHECK_EQ(dr_dealloc_pd(pd2), 0);
	/* checksum offload is not offered */
	RC_CHECK_EQ(ud_send(a, 1, DR_WR_SEND, &sge, 1, DR_SEND_IP_CSUM, ah, 5, QKEY, 0), EINVAL);
	/* create_ah: no GRH, bad GID index, family mismatch, multicast */
	av.is_global = 0;
	errno = 0;
	RC_CHECK(dr_create_ah(a->pd, &av) == NULL && errno == EINVAL);
	av.is_global = 1;
	av.grh.sgid_index = DR_MAX_GIDS - 1;
	errno = 0;
	RC_CHECK(dr_create_ah(a->pd, &av) == NULL && errno == EINVAL);
	av.grh.sgid_index = 0;                 /* fe80:: to an IPv4-mapped GID */
	errno = 0;
	RC_CHECK(dr_create_ah(a->pd, &av) == NULL && errno == EINVAL);
	av.grh.sgid_index = 1;
	av.grh.dgid.raw[12] = 239;             /* 239.x.y.z: multicast */
	errno = 0;
	RC_CHECK(dr_create_ah(a->pd, &av) == NULL && errno == EOPNOTSUPP);
	/*
	 * An AH a posted WR still needs cannot go; once the WR is out it can.
	 * Inline nothing sends the WR before the next poll; with engine lcores
	 * the worker may have sent it already (the SQD case below holds it in
	 * every mode).
	 */
	RC_CHECK_EQ(ud_send(a, 9, DR_WR_SEND, &sge, 1, 0, ah, b->qp->qp_num, QKEY, 0), 0);
	rc = dr_destroy_ah(ah);
	RC_CHECK(rc == -EBUSY || (rc == 0 && strcmp(rc_mode_name(), "inline") != 0));
	RC_CHECK_EQ(dr_dealloc_pd(a->pd), -EBUSY);
	{
		struct rc_wcs sw = { .n = 0 };

		RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
	}
	if (rc != 0)
		RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	/* WRs flushed by the move to ERR give their AH back too */
	ah = ah_to(a, b);
	{
		struct dr_qp_attr qa;

		memset(&qa, 0, sizeof(qa));
		qa.qp_state = DR_QPS_SQD;      /* posted, never started */
		RC_CHECK_EQ(dr_modify_qp(a->qp, &qa, DR_QP_STATE), 0);
		RC_CHECK_EQ(ud_send(a, 10, DR_WR_SEND, &sge, 1, 0, ah, b->qp->qp_num, QKEY, 0), 0);
		rc_run(e, 2000, NULL, NULL);
		RC_CHECK_EQ(dr_destroy_ah(ah), -EBUSY);
		qa.qp_state = DR_QPS_ERR;
		RC_CHECK_EQ(dr_modify_qp(a->qp, &qa, DR_QP_STATE), 0);
		RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	}
	rc_buf_free(&src);
	rc_disconnect(e);
}

/* The tests, in order, on one environment (rc_main()). */
static void
run(struct rc_env *e)
{
	test_sizes(e);
	test_drops(e);
	test_recv_too_small(e);
	test_reply_from_wc(e);
	test_post_rules(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_ud", argv[0], 4200, run);
}
