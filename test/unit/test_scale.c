/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 *
 * Scale of the object tables over a real EAL and a net_ring port: a context
 * holds DR_MAX_QP (65536) QPs, their QPNs are DR_QPN_BASE + index within 24
 * bits, a destroyed QP's number comes back only after every other free one
 * (oldest first), the context's live-QP list follows create and destroy,
 * dr_context_attr.max_qp and .pool_mbufs, the default pool size, the memory
 * a QP reports (dr_query_qp_mem()), and DR_MAX_MR regions with O(1) slots.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dr_context.h"
#include "dr_qp_impl.h"
#include "dr_test.h"
#include "test_eal.h"
#include "dr_verbs.h"

static struct dr_device dev;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* rings of the ports made (a context closed with configure_port closes its port) */
static struct rte_ring *rings[8];
static unsigned int nb_rings;

/* A new net_ring port for @dev. 0 or -1. */
static int
new_port(void)
{
	struct rte_ether_addr mac = { { 0x00, 0x16, 0x3E, 0x01, 0x02, 0x04 } };
	char name[32];
	int port;

	if (nb_rings == RTE_DIM(rings))
		return -1;
	snprintf(name, sizeof(name), "ts_ring%u", nb_rings);
	rings[nb_rings] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (rings[nb_rings] == NULL)
		return -1;
	port = rte_eth_from_ring(rings[nb_rings++]);
	if (port < 0)
		return -1;
	(void)rte_eth_dev_default_mac_addr_set((uint16_t)port, &mac);
	dev.port_id = (uint16_t)port;
	snprintf(dev.name, sizeof(dev.name), "dr_%s", name);
	return 0;
}

static struct dr_context *
open_ctx(uint32_t max_qp, uint32_t pool_mbufs)
{
	struct dr_context_attr a;

	if (new_port() != 0)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.configure_port = 1;
	a.backend = "ethdev";
	a.ipv4_addr = RTE_BE32(0x0A000001);
	a.max_qp = max_qp;
	a.pool_mbufs = pool_mbufs;
	return dr_open_device(&dev, &a);
}

static int
open_errno(uint32_t max_qp, uint32_t pool_mbufs, struct rte_mempool *pool)
{
	struct dr_context_attr a;
	struct dr_context *ctx;

	memset(&a, 0, sizeof(a));
	a.configure_port = 1;
	a.max_qp = max_qp;
	a.pool_mbufs = pool_mbufs;
	a.pool = pool;
	errno = 0;
	ctx = dr_open_device(&dev, &a);
	if (ctx != NULL) {
		dr_close_device(ctx);
		return 0;
	}
	return errno;
}

static struct dr_qp *
create_qp(struct dr_pd *pd, struct dr_cq *cq)
{
	struct dr_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = DR_QPT_RC;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return dr_create_qp(pd, &ia);
}

/* QPs on the context's live list. */
static uint32_t
live_qps(struct dr_context *ctx)
{
	struct dr_qp_impl *qp;
	uint32_t n = 0;

	TAILQ_FOREACH(qp, &ctx->qps, ctx_link)
		n++;
	return n;
}

/* Attributes: max_qp and pool_mbufs ranges, the default pool, a small table's reuse order. */
static void
test_attrs(struct rte_mempool *given)
{
	struct dr_device_attr da;
	struct dr_context *ctx;
	struct dr_pd *pd;
	struct dr_cq *cq;
	struct dr_qp *q[8], *x;
	uint32_t first;

	CHECK_EQ(open_errno(DR_MAX_QP + 1, 0, NULL), EINVAL);
	CHECK_EQ(open_errno(0, DR_POOL_MIN_MBUFS - 1, NULL), EINVAL);
	CHECK_EQ(open_errno(0, 4095, given), EINVAL);     /* a size for a pool we do not create */

	/* the default pool: one worker, one queue pair of 1024 + 1024 descriptors */
	ctx = open_ctx(0, 0);
	CHECK(ctx != NULL);
	if (ctx == NULL)
		return;
	CHECK_EQ(ctx->pool->size, 16383);
	CHECK_EQ(dr_query_device(ctx, &da), 0);
	CHECK_EQ(da.max_qp, DR_MAX_QP);
	CHECK_EQ(dr_close_device(ctx), 0);

	ctx = open_ctx(8, 2047);
	CHECK_MSG(ctx != NULL, "%s", strerror(errno));
	if (ctx == NULL)
		return;
	CHECK_EQ(ctx->pool->size, 2047);
	CHECK_EQ(dr_query_device(ctx, &da), 0);
	CHECK_EQ(da.max_qp, 8);
	pd = dr_alloc_pd(ctx);
	cq = dr_create_cq(ctx, 64, NULL, NULL, 0);
	CHECK(pd != NULL && cq != NULL);
	if (pd == NULL || cq == NULL)
		goto close;

	/* a destroyed QP's number is not the next one handed out */
	x = create_qp(pd, cq);
	CHECK(x != NULL);
	if (x == NULL)
		goto close;
	first = x->qp_num;
	CHECK_EQ(first, DR_QPN_BASE);
	CHECK_EQ(dr_destroy_qp(x), 0);
	for (int i = 0; i < 8; i++) {
		q[i] = create_qp(pd, cq);
		CHECK(q[i] != NULL);
		if (q[i] == NULL)
			goto close;
	}
	/* every other free number first, then the freed one (the oldest free after them) */
	for (int i = 0; i < 7; i++)
		CHECK_EQ(q[i]->qp_num, DR_QPN_BASE + 1 + i);
	CHECK_EQ(q[7]->qp_num, first);
	/* the table is full: ENOMEM (ibv_create_qp(3)) */
	errno = 0;
	CHECK(create_qp(pd, cq) == NULL && errno == ENOMEM);
	/* freed in the order 5, 2, 6: handed out again in that order */
	CHECK_EQ(dr_destroy_qp(q[5]), 0);
	CHECK_EQ(dr_destroy_qp(q[2]), 0);
	CHECK_EQ(dr_destroy_qp(q[6]), 0);
	CHECK_EQ(ctx->num_qps, 5);
	CHECK_EQ(live_qps(ctx), 5);
	{
		uint32_t want[3] = { DR_QPN_BASE + 6, DR_QPN_BASE + 3, DR_QPN_BASE + 7 };
		int slot[3] = { 5, 2, 6 };

		for (int i = 0; i < 3; i++) {
			q[slot[i]] = create_qp(pd, cq);
			CHECK(q[slot[i]] != NULL && q[slot[i]]->qp_num == want[i]);
		}
	}
	for (int i = 0; i < 8; i++)
		if (q[i] != NULL)
			CHECK_EQ(dr_destroy_qp(q[i]), 0);
	CHECK_EQ(live_qps(ctx), 0);
close:
	if (cq != NULL)
		CHECK_EQ(dr_destroy_cq(cq), 0);
	if (pd != NULL)
		CHECK_EQ(dr_dealloc_pd(pd), 0);
	CHECK_EQ(dr_close_device(ctx), 0);
}

/* DR_MAX_QP QPs in one context, their numbers, lookups, memory, destruction. */
static void
test_max_qps(void)
{
	const uint32_t n = DR_MAX_QP;
	struct dr_qp **q = calloc(n, sizeof(*q));
	struct dr_context *ctx;
	struct dr_qp_mem mem;
	struct dr_pd *pd = NULL;
	struct dr_cq *cq = NULL;
	uint32_t i, bad_num = 0, bad_lookup = 0, made = 0, again;
	double t0, t_create, t_destroy;

	CHECK(q != NULL);
	if (q == NULL)
		return;
	ctx = open_ctx(0, DR_POOL_MIN_MBUFS);
	CHECK(ctx != NULL);
	if (ctx == NULL)
		goto out;
	pd = dr_alloc_pd(ctx);
	cq = dr_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(pd != NULL && cq != NULL);
	if (pd == NULL || cq == NULL)
		goto close;

	t0 = now_s();
	for (i = 0; i < n; i++) {
		q[i] = create_qp(pd, cq);
		if (q[i] == NULL) {
			CHECK_MSG(0, "QP %u of %u: %s", i, n, strerror(errno));
			break;
		}
		made++;
		/* a fresh table hands its numbers out in order; 24-bit QPNs (BTH DestQP) */
		if (q[i]->qp_num != DR_QPN_BASE + i || q[i]->qp_num > 0xFFFFFF)
			bad_num++;
	}
	t_create = now_s() - t0;
	CHECK_EQ(made, n);
	CHECK_EQ(bad_num, 0);
	CHECK_EQ(ctx->num_qps, n);
	CHECK_EQ(live_qps(ctx), n);
	for (i = 0; i < made; i++)
		if (dr_qp_lookup(ctx, q[i]->qp_num) != dr_qp_impl(q[i]))
			bad_lookup++;
	CHECK_EQ(bad_lookup, 0);
	CHECK(dr_qp_lookup(ctx, DR_QPN_BASE + n) == NULL);
	CHECK(dr_qp_lookup(ctx, DR_QPN_BASE - 1) == NULL);
	errno = 0;
	CHECK(create_qp(pd, cq) == NULL && errno == ENOMEM);

	/* the memory of one: every part counted, the table share is one pointer and one index */
	CHECK_EQ(dr_query_qp_mem(NULL, &mem), -EINVAL);
	CHECK_EQ(dr_query_qp_mem(q[0], NULL), -EINVAL);
	CHECK_EQ(dr_query_qp_mem(q[0], &mem), 0);
	CHECK(mem.qp >= sizeof(struct dr_qp_impl) && mem.sq > 0 && mem.rq > 0 && mem.builder == 0);
	CHECK_EQ(mem.tables, sizeof(void *) + sizeof(uint32_t));
	CHECK_EQ(mem.total, mem.qp + mem.sq + mem.rq + mem.builder + mem.tables);
	printf("test_scale: %u QPs created in %.2f s; %" PRIu64 " bytes per QP (object %" PRIu64
	       ", SQ %" PRIu64 ", RQ %" PRIu64 ", tables %" PRIu64 ")\n", made, t_create, mem.total,
	       mem.qp, mem.sq, mem.rq, mem.tables);

	/* QPs of the middle go, then come back with the numbers freed first */
	CHECK_EQ(dr_destroy_qp(q[1000]), 0);
	CHECK_EQ(dr_destroy_qp(q[7]), 0);
	CHECK(dr_qp_lookup(ctx, DR_QPN_BASE + 1000) == NULL);
	CHECK_EQ(live_qps(ctx), n - 2);
	q[1000] = create_qp(pd, cq);
	q[7] = create_qp(pd, cq);
	CHECK(q[1000] != NULL && q[1000]->qp_num == DR_QPN_BASE + 1000);
	CHECK(q[7] != NULL && q[7]->qp_num == DR_QPN_BASE + 7);

	t0 = now_s();
	for (i = 0; i < made; i++)
		if (q[i] != NULL && dr_destroy_qp(q[i]) != 0)
			bad_num++;
	t_destroy = now_s() - t0;
	CHECK_EQ(bad_num, 0);
	CHECK_EQ(ctx->num_qps, 0);
	CHECK_EQ(live_qps(ctx), 0);
	printf("test_scale: %u QPs destroyed in %.2f s\n", made, t_destroy);

	/* all free again, oldest first: the first new QP takes the number freed first */
	again = 0;
	q[0] = create_qp(pd, cq);
	CHECK(q[0] != NULL);
	if (q[0] != NULL) {
		again = q[0]->qp_num;
		CHECK_EQ(dr_destroy_qp(q[0]), 0);
	}
	CHECK_EQ(again, DR_QPN_BASE + 0);
close:
	if (cq != NULL)
		CHECK_EQ(dr_destroy_cq(cq), 0);
	if (pd != NULL)
		CHECK_EQ(dr_dealloc_pd(pd), 0);
	CHECK_EQ(dr_close_device(ctx), 0);
out:
	free(q);
}

/* DR_MAX_MR regions: distinct keys, ENOMEM beyond, a freed slot reused with a new key. */
static void
test_max_mrs(void)
{
	static uint8_t buf[64];
	struct dr_mr **mr = calloc(DR_MAX_MR, sizeof(*mr));
	struct dr_context *ctx;
	struct dr_pd *pd;
	uint32_t i, made = 0, bad = 0, old;
	uint8_t *seen = calloc(DR_MAX_MR, 1);

	CHECK(mr != NULL && seen != NULL);
	ctx = open_ctx(64, DR_POOL_MIN_MBUFS);
	CHECK(ctx != NULL);
	if (ctx == NULL || mr == NULL || seen == NULL)
		goto out;
	pd = dr_alloc_pd(ctx);
	CHECK(pd != NULL);
	if (pd == NULL)
		goto close;
	for (i = 0; i < DR_MAX_MR; i++) {
		uint32_t idx;

		mr[i] = dr_reg_mr(pd, buf, sizeof(buf), DR_ACCESS_LOCAL_WRITE);
		if (mr[i] == NULL)
			break;
		made++;
		idx = dr_mr_key_index(mr[i]->lkey);
		if (idx >= DR_MAX_MR || seen[idx]++ != 0 || dr_mr_lookup(ctx, mr[i]->lkey) != dr_mr_impl(mr[i]))
			bad++;
	}
	CHECK_EQ(made, DR_MAX_MR);
	CHECK_EQ(bad, 0);
	errno = 0;
	CHECK(dr_reg_mr(pd, buf, sizeof(buf), 0) == NULL && errno == ENOMEM);
	/* a slot freed is the one taken next, with another key: the old key misses */
	old = mr[100]->lkey;
	CHECK_EQ(dr_dereg_mr(mr[100]), 0);
	mr[100] = dr_reg_mr(pd, buf, sizeof(buf), 0);
	CHECK(mr[100] != NULL);
	if (mr[100] != NULL) {
		CHECK_EQ(dr_mr_key_index(mr[100]->lkey), dr_mr_key_index(old));
		CHECK(mr[100]->lkey != old && dr_mr_lookup(ctx, old) == NULL);
	}
	for (i = 0; i < made; i++)
		if (mr[i] != NULL && dr_dereg_mr(mr[i]) != 0)
			bad++;
	CHECK_EQ(bad, 0);
	CHECK_EQ(ctx->num_mrs, 0);
	CHECK_EQ(dr_dealloc_pd(pd), 0);
close:
	CHECK_EQ(dr_close_device(ctx), 0);
out:
	free(mr);
	free(seen);
}

int
main(void)
{
	struct rte_mempool *given;

	/* 512 MiB: 65536 QPs of about 4.3 KiB each, their tables, a 1023-mbuf pool */
	if (test_eal_start("test_scale", "drscale", 512) < 0) {
		fprintf(stderr, "test_scale: EAL initialisation failed\n");
		return EXIT_FAILURE;
	}
	given = rte_pktmbuf_pool_create("ts_pool", 1023, 0, 0, DR_MBUF_DATA_ROOM, SOCKET_ID_ANY);
	CHECK(given != NULL && new_port() == 0);
	if (given != NULL) {
		test_attrs(given);
		test_max_qps();
		test_max_mrs();
	}
	for (unsigned int i = 0; i < nb_rings; i++)
		rte_ring_free(rings[i]);
	rte_mempool_free(given);
	test_eal_cleanup();     /* and the runtime directory EAL leaves */
	return dr_test_report("test_scale");
}
