/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* QP1, the General Services Interface (IBA 13.5.1): MADs over RoCEv2 UD (dr_gsi.h). */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "dr_control.h"
#include "dr_gsi.h"
#include "dr_log.h"
#include "dr_mad.h"
#include "dr_qp_impl.h"

#define SLOT 320                 /* the GRH area and a MAD, rounded */
#define SEND_TAG (UINT64_C(1) << 63)
#define GSI_HOP_LIMIT 64         /* what Linux's CM sends RoCEv2 MADs with */

static uint8_t *
recv_slot(const struct dr_gsi *g, uint32_t i)
{
	return g->buf + (size_t)i * SLOT;
}

static uint8_t *
send_slot(const struct dr_gsi *g, uint32_t i)
{
	return g->buf + (size_t)(DR_GSI_RECVS + i) * SLOT;
}

static int
post_recv(struct dr_gsi *g, uint32_t i)
{
	struct dr_sge s = { .addr = (uintptr_t)recv_slot(g, i), .length = SLOT, .lkey = g->mr->lkey };
	struct dr_recv_wr w = { .wr_id = i, .sg_list = &s, .num_sge = 1 }, *bad;

	return dr_post_recv(g->qp, &w, &bad);
}

struct gsi_create {
	struct dr_pd *pd;
	struct dr_qp_init_attr *ia;
	struct dr_qp *qp;
};

static int
create_call(void *arg)
{
	struct gsi_create *c = arg;

	c->qp = dr_qp_create_gsi(c->pd, c->ia);
	return c->qp != NULL ? 0 : -errno;
}

/* RESET -> INIT (P_Key index 0, the GSI Q_Key: IBA 13.5.1.1) -> RTR -> RTS. */
static int
qp_ready(struct dr_qp *qp)
{
	struct dr_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = DR_GSI_QKEY;
	ret = dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY);
	if (ret != 0)
		return ret;
	a.qp_state = DR_QPS_RTR;
	ret = dr_modify_qp(qp, &a, DR_QP_STATE);
	if (ret != 0)
		return ret;
	a.qp_state = DR_QPS_RTS;
	a.sq_psn = 0;
	return dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_SQ_PSN);
}

int
dr_gsi_open(struct dr_gsi *g, struct dr_context *ctx, struct dr_comp_channel *chan)
{
	struct dr_qp_init_attr ia = {
		.qp_type = DR_QPT_UD,
		.cap = { .max_send_wr = DR_GSI_SENDS, .max_recv_wr = DR_GSI_RECVS, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct gsi_create c;
	size_t len = (size_t)(DR_GSI_RECVS + DR_GSI_SENDS) * SLOT;
	int ret = -ENOMEM;

	memset(g, 0, sizeof(*g));
	g->ctx = ctx;
	g->buf = rte_zmalloc("dr_gsi", len, RTE_CACHE_LINE_SIZE);
	g->held = rte_zmalloc("dr_gsi_backlog", sizeof(*g->held) * DR_GSI_BACKLOG, 0);
	g->pd = dr_alloc_pd(ctx);
	g->cq = dr_create_cq(ctx, DR_GSI_RECVS + DR_GSI_SENDS, g, chan, 0);
	if (g->buf == NULL || g->held == NULL || g->pd == NULL || g->cq == NULL)
		goto fail;
	g->mr = dr_reg_mr(g->pd, g->buf, len, DR_ACCESS_LOCAL_WRITE);
	if (g->mr == NULL)
		goto fail;
	ia.send_cq = ia.recv_cq = g->cq;
	c = (struct gsi_create){ .pd = g->pd, .ia = &ia };
	ret = dr_ctl_run(ctx, create_call, &c);
	if (ret != 0)
		goto fail;
	g->qp = c.qp;
	ret = qp_ready(g->qp);
	for (uint32_t i = 0; ret == 0 && i < DR_GSI_RECVS; i++)
		ret = -post_recv(g, i);
	if (ret != 0)
		goto fail;
	return 0;
fail:
	DR_LOG(cm, ERR, "QP1: %s", strerror(-ret));
	dr_gsi_close(g);
	return ret;
}

void
dr_gsi_close(struct dr_gsi *g)
{
	/* the QP first: a send still in flight holds its AH (the last DREP often is) */
	if (g->qp != NULL)
		(void)dr_destroy_qp(g->qp);
	for (unsigned int i = 0; i < DR_GSI_AHS; i++)
		if (g->ahs[i].ah != NULL)
			(void)dr_destroy_ah(g->ahs[i].ah);
	if (g->cq != NULL)
		(void)dr_destroy_cq(g->cq);
	if (g->mr != NULL)
		(void)dr_dereg_mr(g->mr);
	if (g->pd != NULL)
		(void)dr_dealloc_pd(g->pd);
	rte_free(g->buf);
	rte_free(g->held);
	memset(g, 0, sizeof(*g));
}

/* The source GID index for a peer: the IPv4 GID for an IPv4-mapped one, else one of its prefix. */
static int
sgid_index(struct dr_gsi *g, const union dr_gid *peer)
{
	union dr_gid mine;

	if (dr_gid_is_ipv4(peer->raw))
		return 1;
	for (int i = 2; dr_query_gid(g->ctx, 1, i, &mine) == 0; i++)
		if (memcmp(mine.raw, peer->raw, 8) == 0)
			return i;
	return 0;       /* the link-local one */
}

static struct dr_ah *
ah_of(struct dr_gsi *g, const uint8_t gid[16])
{
	struct dr_gsi_ah *slot = NULL;
	struct dr_ah_attr av;

	for (unsigned int i = 0; i < DR_GSI_AHS; i++) {
		struct dr_gsi_ah *e = &g->ahs[i];

		if (e->ah != NULL && memcmp(e->gid.raw, gid, 16) == 0) {
			e->used = ++g->tick;
			return e->ah;
		}
		if (slot == NULL || (slot->ah != NULL && (e->ah == NULL || e->used < slot->used)))
			slot = e;
	}
	if (slot->ah != NULL) {
		/* a send in flight may name it: evict only when none is */
		if (g->send_out != 0)
			return NULL;
		(void)dr_destroy_ah(slot->ah);
		slot->ah = NULL;
	}
	memset(&av, 0, sizeof(av));
	av.is_global = 1;
	av.port_num = 1;
	memcpy(av.grh.dgid.raw, gid, 16);
	av.grh.sgid_index = (uint8_t)sgid_index(g, &av.grh.dgid);
	av.grh.hop_limit = GSI_HOP_LIMIT;
	slot->ah = dr_create_ah(g->pd, &av);
	if (slot->ah == NULL)
		return NULL;
	memcpy(slot->gid.raw, gid, 16);
	slot->used = ++g->tick;
	return slot->ah;
}

/* Post @mad to QP1 at @gid on a free send slot: 0, -EAGAIN (no slot, or no AH while sends hold them), -errno. */
static int
post_mad(struct dr_gsi *g, const uint8_t gid[16], const uint8_t *mad)
{
	struct dr_send_wr w, *bad;
	struct dr_sge s;
	struct dr_ah *ah;
	uint32_t i;
	int ret;

	if (g->send_out >= DR_GSI_SENDS)
		return -EAGAIN;
	ah = ah_of(g, gid);
	if (ah == NULL)
		return g->send_out != 0 ? -EAGAIN : -EHOSTUNREACH;   /* the cache frees when they complete */
	i = g->send_next++ % DR_GSI_SENDS;
	memcpy(send_slot(g, i), mad, DR_MAD_SIZE);
	s = (struct dr_sge){ .addr = (uintptr_t)send_slot(g, i), .length = DR_MAD_SIZE, .lkey = g->mr->lkey };
	memset(&w, 0, sizeof(w));
	w.wr_id = SEND_TAG | i;
	w.opcode = DR_WR_SEND;
	w.sg_list = &s;
	w.num_sge = 1;
	w.send_flags = DR_SEND_SIGNALED;
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = DR_GSI_QPN;
	w.wr.ud.remote_qkey = DR_GSI_QKEY;
	ret = dr_post_send(g->qp, &w, &bad);
	if (ret != 0)
		return -ret;
	g->send_out++;
	g->stats.tx++;
	return 0;
}

/* Send what the backlog holds, oldest first, while slots are free. */
static void
send_held(struct dr_gsi *g)
{
	while (g->held_n != 0) {
		struct dr_gsi_held *h = &g->held[g->held_head];
		int ret = post_mad(g, h->gid, h->mad);

		if (ret == -EAGAIN)
			return;
		if (ret != 0)
			g->stats.tx_err++;          /* lost as on the wire: a request's timer resends it */
		g->held_head = (g->held_head + 1) % DR_GSI_BACKLOG;
		g->held_n--;
	}
}

int
dr_gsi_send(struct dr_gsi *g, const uint8_t gid[16], const uint8_t *mad)
{
	struct dr_gsi_held *h;
	int ret = -EAGAIN;

	/* behind what waits already: MADs leave in the order they were given */
	if (g->held_n == 0) {
		ret = post_mad(g, gid, mad);
		if (ret != -EAGAIN) {
			if (ret != 0)
				g->stats.tx_err++;
			return ret;
		}
	}
	if (g->held_n == DR_GSI_BACKLOG) {
		g->stats.tx_busy++;
		return -EAGAIN;
	}
	h = &g->held[(g->held_head + g->held_n) % DR_GSI_BACKLOG];
	memcpy(h->gid, gid, sizeof(h->gid));
	memcpy(h->mad, mad, DR_MAD_SIZE);
	g->held_n++;
	g->stats.tx_queued++;
	return 0;
}

int
dr_gsi_poll(struct dr_gsi *g, dr_gsi_rx_fn *rx, void *arg)
{
	struct dr_wc wc[16];
	int n = dr_poll_cq(g->cq, (int)RTE_DIM(wc), wc);

	for (int k = 0; k < n; k++) {
		const struct dr_wc *c = &wc[k];
		struct dr_ah_attr av;
		uint32_t i;

		if (c->wr_id & SEND_TAG) {
			g->send_out--;
			if (c->status != DR_WC_SUCCESS)
				g->stats.tx_err++;
			send_held(g);
			continue;
		}
		i = (uint32_t)c->wr_id;
		if (c->status != DR_WC_SUCCESS) {
			/* a receive in error: the QP is in ERR and flushes the rest (nothing reposts) */
			g->stats.rx_err++;
			continue;
		}
		if (c->byte_len < DR_GRH_LEN + DR_MAD_SIZE) {
			g->stats.rx_short++;
		} else if (dr_init_ah_from_wc(g->ctx, 1, c, (const struct dr_grh *)recv_slot(g, i), &av) != 0) {
			g->stats.rx_err++;
		} else {
			g->stats.rx++;
			rx(arg, av.grh.dgid.raw, recv_slot(g, i) + DR_GRH_LEN, c->byte_len - DR_GRH_LEN);
		}
		if (post_recv(g, i) != 0)
			g->stats.rx_err++;
	}
	return n;
}
