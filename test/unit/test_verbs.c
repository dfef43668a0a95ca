/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The verbs objects over a real EAL and a ring-backed port: devices,
 * contexts (ibv_open_device(3), ibv_query_device(3), ibv_query_port(3),
 * ibv_query_gid(3)), PDs, MRs (ibv_reg_mr(3)), CQs (ibv_create_cq(3),
 * ibv_poll_cq(3)), the transmit staging array. QPs and the post calls:
 * test_verbs_qp.c, test_verbs_post.c.
 *
 * Set DR_TEST_LOG to an EAL --log-level value (e.g. "lib.dr.*:debug") to see
 * the library's logs.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_cpuflags.h>
#include <rte_mbuf.h>
#include <rte_vect.h>

#include "dr_test.h"
#include "test_eal.h"
#include "dr_crc32_clmul.h"
#include "dr_icrc.h"
#include "dr_verbs_priv.h"
#include "test_verbs.h"

static const uint8_t tv_ipv6[16] = { 0x20, 0x01, 0x0D, 0xB8, [15] = 0x01 };

static int
ring_port(const char *name, struct rte_ring **r)
{
	/* 64 slots, 63 usable: small enough for test_tx() to fill */
	*r = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (*r == NULL)
		return -1;
	return rte_eth_from_ring(*r);
}

static struct dr_device dev_a, dev_b;

static void
test_devices(struct tv *t)
{
	struct dr_device **list;
	char want[80], name[RTE_ETH_NAME_MAX_LEN];
	int n = -1, i, seen = 0;

	list = dr_get_device_list(&n);
	CHECK(list != NULL);
	if (list == NULL)
		return;
	CHECK(n >= 2);
	CHECK(list[n] == NULL);
	for (i = 0; i < n; i++) {
		uint16_t p = dr_get_device_port(list[i]);

		CHECK_EQ(rte_eth_dev_get_name_by_port(p, name), 0);
		snprintf(want, sizeof(want), "dr_%s", name);
		CHECK_MSG(strcmp(dr_get_device_name(list[i]), want) == 0, "%s", dr_get_device_name(list[i]));
		if (p == t->port_a) {
			dev_a = *list[i];
			seen++;
		}
		if (p == t->port_b) {
			dev_b = *list[i];
			seen++;
		}
	}
	CHECK_EQ(seen, 2);
	dr_free_device_list(list);
	CHECK(dr_get_device_name(NULL) == NULL);
}

/* errno of a dr_open_device() expected to fail (0 if it succeeded: closed again). */
static int
open_errno(struct dr_device *dev, const struct dr_context_attr *a)
{
	struct dr_context *ctx;

	errno = 0;
	ctx = dr_open_device(dev, a);
	if (ctx != NULL) {
		dr_close_device(ctx);
		return 0;
	}
	return errno;
}

/* The CPU folds the ICRC by carry-less multiplication (dr_icrc.h). */
static bool
icrc_folds(void)
{
	return dr_crc32_clmul_available() && rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) &&
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1);
}

static void
test_open(struct tv *t)
{
	struct dr_context_attr a, b;
	struct dr_device bogus = { .port_id = RTE_MAX_ETHPORTS - 1, .name = "dr_bogus" };

	memset(&a, 0, sizeof(a));
	a.configure_port = 1;
	a.backend = "ethdev";
	a.ipv4_addr = TV_IPV4;
	a.num_ipv6 = 1;
	memcpy(a.ipv6_addr[0], tv_ipv6, 16);

	/* bad attributes: EINVAL (dr_verbs.h) */
	CHECK_EQ(open_errno(NULL, &a), EINVAL);
	b = a;
	b.num_ipv6 = 3;
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	memset(b.ipv6_addr[0], 0xFF, 16);       /* multicast */
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.mtu = 100;
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.mode = (enum dr_progress_mode)7;
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.backend = "no-such-backend";
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.cc.algo = (enum dr_cc_algo)7;         /* congestion control: no such algorithm */
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.cc.algo = DR_CC_DCQCN;                /* DCQCN with a floor above its ceiling */
	dr_dcqcn_params_default(&b.cc.dcqcn, 1000000000ull);
	b.cc.dcqcn.min_rate = 2000000000ull;
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.configure_port = 0;                   /* the port has one rx queue: 5 does not exist */
	b.rx_queue = 5;
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	CHECK_EQ(open_errno(&bogus, &a), ENODEV);
	/* DR_IO_APP (dr_verbs_io.h): the application owns the port, its rings one size */
	b = a;
	b.io = (enum dr_io_mode)7;
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.io = DR_IO_APP;                       /* with configure_port */
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.io_ring_size = 1024;                  /* without DR_IO_APP */
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b = a;
	b.configure_port = 0;
	b.io = DR_IO_APP;
	b.io_ring_size = 1000;                  /* not a power of two */
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b.io_ring_size = 32;                    /* below 64 */
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b.io_ring_size = 64;                    /* opens (and closes) */
	CHECK_EQ(open_errno(&dev_a, &b), 0);
	b = a;
	b.app_pool_hold = 16;                   /* with configure_port: no pool of the application's */
	CHECK_EQ(open_errno(&dev_a, &b), EINVAL);
	b.configure_port = 0;
	CHECK_EQ(open_errno(&dev_a, &b), 0);

	/* DR_ICRC_SIMD_BITS: the library's own width for the ICRC, read at the open (deployment.rst) */
	setenv("DR_ICRC_SIMD_BITS", "128", 1);
	t->ctx = dr_open_device(&dev_a, &a);
	CHECK_MSG(t->ctx != NULL, "open: %s", strerror(errno));
	if (t->ctx == NULL)
		return;
	CHECK_EQ(open_errno(&dev_a, &a), EBUSY); /* one context per port */
	/* the context configured its port: it steers it already (dr_flow_steer() is for the application's) */
	CHECK_EQ(dr_flow_steer(t->ctx, 0), -EINVAL);
	{
		/* a DR_IO_PORT context takes no frame from the application, and gives none */
		struct rte_mbuf *none[2] = { NULL, NULL };
		struct dr_io_stats st;

		errno = 0;
		CHECK_EQ(dr_rx_burst_input(t->ctx, none, 2, 0), 2);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_EQ(dr_tx_drain(t->ctx, none, 2), 0);
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(dr_io_stats_get(t->ctx, &st), -EINVAL);
	}
	CHECK(t->ctx->own_pool);
	CHECK_EQ(t->ctx->port_id, t->port_a);
	CHECK(t->ctx->tsc_hz != 0);
	unsetenv("DR_ICRC_SIMD_BITS");
	if (icrc_folds())
		CHECK_EQ(dr_crc32_simd_bits(), 128u);
}

static void
test_query(struct tv *t)
{
	struct dr_context *ctx = t->ctx;
	struct dr_device_attr da;
	struct dr_port_attr pa;
	struct rte_ether_addr mac;
	union dr_gid g;
	uint8_t want[16] = { 0xFE, 0x80 };
	static const uint8_t v4[16] = { [10] = 0xFF, [11] = 0xFF, [12] = 10, [15] = 1 };
	static const uint8_t zero[16];

	CHECK_EQ(dr_query_device(ctx, &da), 0);
	CHECK_EQ(strncmp(da.fw_ver, "dpdk-rdma ", 10), 0);
	CHECK_EQ(da.max_qp, DR_MAX_QP);
	CHECK_EQ(da.max_qp_wr, DR_MAX_QP_WR);
	CHECK_EQ(da.max_sge, DR_MAX_SGE);
	CHECK_EQ(da.max_cq, DR_MAX_CQ);
	CHECK_EQ(da.max_cqe, DR_MAX_CQE);
	CHECK_EQ(da.max_mr, DR_MAX_MR);
	CHECK_EQ(da.max_pd, DR_MAX_PD);
	CHECK_EQ(da.max_qp_rd_atom, DR_MAX_RD_ATOMIC);
	CHECK_EQ(da.max_qp_init_rd_atom, DR_MAX_RD_ATOMIC);
	CHECK_EQ(da.phys_port_cnt, 1);
	CHECK_EQ(da.atomic_cap, DR_ATOMIC_HCA);   /* ibv_query_device(3): CmpSwap / FetchAdd offered */
	CHECK_EQ(dr_query_device(NULL, &da), -EINVAL);

	CHECK_EQ(dr_query_port(ctx, 2, &pa), -EINVAL);
	CHECK_EQ(dr_query_port(ctx, 1, &pa), 0);
	CHECK_EQ(pa.state, 4);                  /* ACTIVE: the backend started the port */
	CHECK_EQ(pa.max_mtu, DR_MTU_4096);
	CHECK_EQ(pa.active_mtu, DR_MTU_1024);   /* net_ring reports 1500 */
	CHECK_EQ(pa.gid_tbl_len, DR_MAX_GIDS);
	CHECK_EQ(pa.max_msg_sz, DR_MAX_MSG_SIZE);
	CHECK_EQ(pa.link_layer, 2);

	/* GID 0: fe80:: + modified EUI-64 of the MAC (U/L bit flipped, ff:fe inserted) */
	{
		static const uint8_t eui[16] = { 0xFE, 0x80, [8] = 0x02, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55 };
		const struct rte_ether_addr m = { { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 } };

		dr_gid_from_mac(&g, &m);
		CHECK(memcmp(g.raw, eui, 16) == 0);
	}
	CHECK_EQ(rte_eth_macaddr_get(t->port_a, &mac), 0);
	CHECK(rte_is_same_ether_addr(&mac, &ctx->mac));
	want[8] = mac.addr_bytes[0] ^ 0x02;
	want[9] = mac.addr_bytes[1];
	want[10] = mac.addr_bytes[2];
	want[11] = 0xFF;
	want[12] = 0xFE;
	want[13] = mac.addr_bytes[3];
	want[14] = mac.addr_bytes[4];
	want[15] = mac.addr_bytes[5];
	CHECK_EQ(dr_query_gid(ctx, 1, 0, &g), 0);
	CHECK(memcmp(g.raw, want, 16) == 0);
	CHECK(memcmp(&da.node_guid, want + 8, 8) == 0);
	/* GID 1: ::ffff:10.0.0.1; 2: the IPv6 address; 3..7 empty; 8 past the table */
	CHECK_EQ(dr_query_gid(ctx, 1, 1, &g), 0);
	CHECK(memcmp(g.raw, v4, 16) == 0);
	CHECK_EQ(dr_query_gid(ctx, 1, 2, &g), 0);
	CHECK(memcmp(g.raw, tv_ipv6, 16) == 0);
	CHECK_EQ(dr_query_gid(ctx, 1, 3, &g), 0);
	CHECK(memcmp(g.raw, zero, 16) == 0);
	CHECK_EQ(ctx->num_gids, 3);
	CHECK_EQ(dr_query_gid(ctx, 1, DR_MAX_GIDS, &g), -EINVAL);
	CHECK_EQ(dr_query_gid(ctx, 1, -1, &g), -EINVAL);
	CHECK_EQ(dr_query_gid(ctx, 0, 0, &g), -EINVAL);
}

static void
test_mtu(struct tv *t)
{
	struct dr_context_attr a;
	struct dr_context *ctx;
	struct dr_port_attr pa;
	union dr_gid g;
	static const uint8_t zero[16];
	uint16_t eal_bits;

	/* rxe_set_mtu(): largest IB MTU <= link MTU - 80, in 256..4096 */
	CHECK_EQ(dr_active_mtu_from_link(1500), DR_MTU_1024);
	CHECK_EQ(dr_active_mtu_from_link(4200), DR_MTU_4096);
	CHECK_EQ(dr_active_mtu_from_link(9000), DR_MTU_4096);
	CHECK_EQ(dr_active_mtu_from_link(1104), DR_MTU_1024);
	CHECK_EQ(dr_active_mtu_from_link(1103), DR_MTU_512);
	CHECK_EQ(dr_active_mtu_from_link(2128), DR_MTU_2048);
	CHECK_EQ(dr_active_mtu_from_link(576), DR_MTU_256);
	/* what one mbuf holds: headroom + 117 bytes of headers + the MTU */
	CHECK_EQ(dr_active_mtu_from_room(DR_MBUF_DATA_ROOM), DR_MTU_4096);
	CHECK_EQ(dr_active_mtu_from_room(RTE_PKTMBUF_HEADROOM + DR_FRAME_OVERHEAD_MAX + 4096), DR_MTU_4096);
	CHECK_EQ(dr_active_mtu_from_room(RTE_PKTMBUF_HEADROOM + DR_FRAME_OVERHEAD_MAX + 4095), DR_MTU_2048);
	CHECK_EQ(dr_active_mtu_from_room(3840), DR_MTU_2048);          /* af_xdp's largest */
	CHECK_EQ(dr_active_mtu_from_room(RTE_PKTMBUF_HEADROOM + 100), 0);
	CHECK_EQ(dr_active_mtu_from_link(0), DR_MTU_256);
	CHECK_EQ(dr_active_mtu_from_room(RTE_PKTMBUF_HEADROOM), 0);
	/* what a port's frames carry: net_af_packet's default 2048-byte ring frames hold 2014 */
	CHECK_EQ(dr_active_mtu_from_frame(0), DR_MTU_4096);
	CHECK_EQ(dr_active_mtu_from_frame(2014), DR_MTU_1024);
	CHECK_EQ(dr_active_mtu_from_frame(4318), DR_MTU_4096);         /* framesz=4352 */
	CHECK_EQ(dr_active_mtu_from_frame(DR_FRAME_OVERHEAD_MAX + 4096), DR_MTU_4096);
	CHECK_EQ(dr_active_mtu_from_frame(DR_FRAME_OVERHEAD_MAX + 4095), DR_MTU_2048);
	CHECK_EQ(dr_active_mtu_from_frame(DR_FRAME_OVERHEAD_MAX + 255), 0);

	/* a given link MTU wins; no IPv4 address: GID 1 is empty; the application's pool */
	memset(&a, 0, sizeof(a));
	a.configure_port = 1;
	a.mtu = 4200;
	a.pool = t->pool_b;
	/* a DR_ICRC_SIMD_BITS that is no width: logged, the open goes on, the width as it was (test_open's) */
	setenv("DR_ICRC_SIMD_BITS", "300", 1);
	eal_bits = rte_vect_get_max_simd_bitwidth();
	ctx = dr_open_device(&dev_b, &a);
	unsetenv("DR_ICRC_SIMD_BITS");
	CHECK_MSG(ctx != NULL, "open port b: %s", strerror(errno));
	if (ctx == NULL)
		return;
	if (icrc_folds())
		CHECK_EQ(dr_crc32_simd_bits(), 128u);
	CHECK_EQ(rte_vect_get_max_simd_bitwidth(), eal_bits);     /* EAL's limit never touched */
	CHECK_EQ(dr_crc32_set_max_simd_bits(0), 0);                 /* EAL's again, from the next open */
	CHECK_EQ(dr_query_port(ctx, 1, &pa), 0);
	CHECK_EQ(pa.active_mtu, DR_MTU_4096);
	CHECK_EQ(ctx->link_mtu, 4200);
	CHECK_EQ(ctx->num_gids, 1);
	CHECK_EQ(dr_query_gid(ctx, 1, 1, &g), 0);
	CHECK(memcmp(g.raw, zero, 16) == 0);
	CHECK(!ctx->own_pool);
	CHECK(ctx->pool == t->pool_b);
	CHECK_EQ(dr_close_device(ctx), 0);
}

/* errno of a dr_reg_mr() expected to fail. */
static int
reg_errno(struct dr_pd *pd, void *addr, size_t len, int access)
{
	struct dr_mr *mr;

	errno = 0;
	mr = dr_reg_mr(pd, addr, len, access);
	if (mr != NULL) {
		dr_dereg_mr(mr);
		return 0;
	}
	return errno;
}

static void
test_pd_mr(struct tv *t)
{
	static uint8_t buf[4096];
	struct dr_context *ctx = t->ctx;
	struct dr_mr *mr, *mr2;
	uint32_t old, idx, i, zero_variants = 0;

	errno = 0;
	CHECK(dr_alloc_pd(NULL) == NULL && errno == EINVAL);
	CHECK_EQ(dr_dealloc_pd(NULL), -EINVAL);
	t->pd = dr_alloc_pd(ctx);
	CHECK(t->pd != NULL);
	if (t->pd == NULL)
		return;

	/* ibv_reg_mr(3): remote write/atomic need local write; unknown bits; a range */
	CHECK_EQ(reg_errno(t->pd, buf, 64, DR_ACCESS_REMOTE_WRITE), EINVAL);
	CHECK_EQ(reg_errno(t->pd, buf, 64, DR_ACCESS_REMOTE_ATOMIC), EINVAL);
	CHECK_EQ(reg_errno(t->pd, buf, 64, 1 << 15), EINVAL);
	CHECK_EQ(reg_errno(t->pd, NULL, 64, 0), EINVAL);
	CHECK_EQ(reg_errno(t->pd, (void *)(UINTPTR_MAX - 0xF), 0x100, 0), EINVAL);
	CHECK_EQ(reg_errno(NULL, buf, 64, 0), EINVAL);
	CHECK_EQ(reg_errno(t->pd, NULL, 0, 0), 0);      /* zero-length regions are legal */

	mr = dr_reg_mr(t->pd, buf, sizeof(buf), DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE);
	CHECK(mr != NULL);
	if (mr == NULL)
		return;
	CHECK_EQ(mr->lkey, mr->rkey);
	CHECK(mr->addr == buf && mr->length == sizeof(buf) && mr->pd == t->pd && mr->context == ctx);
	CHECK(dr_mr_lookup(ctx, mr->lkey) == dr_mr_impl(mr));
	CHECK_EQ(dr_mr_impl(mr)->region.iova, (uintptr_t)buf);
	old = mr->lkey;
	idx = dr_mr_key_index(old);
	CHECK(dr_mr_lookup(ctx, dr_mr_key_make(idx, (uint8_t)(dr_mr_key_variant(old) + 1))) == NULL);

	/* in use: the PD and the context cannot go */
	CHECK_EQ(dr_dealloc_pd(t->pd), -EBUSY);
	CHECK_EQ(dr_close_device(ctx), -EBUSY);
	CHECK_EQ(dr_dereg_mr(mr), 0);
	CHECK(dr_mr_lookup(ctx, old) == NULL);
	CHECK_EQ(dr_dereg_mr(NULL), -EINVAL);

	/* the slot is reused with another key: the stale key misses */
	mr2 = dr_reg_mr(t->pd, buf, sizeof(buf), DR_ACCESS_LOCAL_WRITE);
	CHECK(mr2 != NULL);
	if (mr2 == NULL)
		return;
	CHECK_EQ(dr_mr_key_index(mr2->lkey), idx);
	CHECK(mr2->lkey != old);
	CHECK(dr_mr_lookup(ctx, old) == NULL);
	CHECK(dr_mr_lookup(ctx, mr2->lkey) == dr_mr_impl(mr2));
	CHECK_EQ(dr_dereg_mr(mr2), 0);
	/* the variant wraps but is never 0 */
	for (i = 0; i < 300; i++) {
		mr = dr_reg_mr(t->pd, buf, 8, 0);
		if (mr == NULL || dr_mr_key_variant(mr->lkey) == 0)
			zero_variants++;
		if (mr != NULL)
			dr_dereg_mr(mr);
	}
	CHECK_EQ(zero_variants, 0);
}

static int
cq_errno(struct dr_context *ctx, int cqe, struct dr_comp_channel *channel, int vector)
{
	struct dr_cq *cq;

	errno = 0;
	cq = dr_create_cq(ctx, cqe, NULL, channel, vector);
	if (cq != NULL) {
		dr_destroy_cq(cq);
		return 0;
	}
	return errno;
}

static void
test_cq(struct tv *t)
{
	struct dr_context *ctx = t->ctx;
	struct dr_wc wc[8];
	struct dr_cq *cq;
	int marker, i;

	CHECK_EQ(cq_errno(ctx, 0, NULL, 0), EINVAL);
	CHECK_EQ(cq_errno(ctx, -1, NULL, 0), EINVAL);
	CHECK_EQ(cq_errno(ctx, DR_MAX_CQE + 1, NULL, 0), EINVAL);
	{
		/* a channel of the same context only (ibv_create_cq(3)); channels outlive their CQs */
		struct dr_comp_channel *ch = dr_create_comp_channel(ctx), other;
		struct dr_cq *ccq;

		CHECK(ch != NULL);
		if (ch != NULL) {
			other = *ch;
			other.context = (struct dr_context *)&marker;
			CHECK_EQ(cq_errno(ctx, 4, &other, 0), EINVAL);
			ccq = dr_create_cq(ctx, 4, NULL, ch, 0);
			CHECK(ccq != NULL);
			CHECK_EQ(dr_destroy_comp_channel(ch), -EBUSY);
			CHECK_EQ(dr_req_notify_cq(ccq, 0), 0);
			CHECK_EQ(dr_destroy_cq(ccq), 0);
			CHECK_EQ(dr_destroy_comp_channel(ch), 0);
		}
		CHECK(dr_create_comp_channel(NULL) == NULL && errno == EINVAL);
	}
	CHECK_EQ(cq_errno(ctx, 4, NULL, 1), EINVAL);
	CHECK_EQ(cq_errno(NULL, 4, NULL, 0), EINVAL);
	CHECK_EQ(cq_errno(ctx, DR_MAX_CQE, NULL, 0), 0);

	cq = dr_create_cq(ctx, 4, &marker, NULL, 0);
	CHECK(cq != NULL);
	if (cq == NULL)
		return;
	CHECK_EQ(cq->cqe, 7);                   /* ring of 8, as granted */
	CHECK_EQ(dr_destroy_cq(cq), 0);
	cq = dr_create_cq(ctx, 3, &marker, NULL, 0);
	CHECK(cq != NULL);
	if (cq == NULL)
		return;
	CHECK_EQ(cq->cqe, 3);
	CHECK(cq->cq_context == &marker && cq->context == ctx);

	/* ibv_poll_cq(3) arguments */
	CHECK_EQ(dr_poll_cq(cq, -1, wc), -EINVAL);
	CHECK_EQ(dr_poll_cq(cq, 1, NULL), -EINVAL);
	CHECK_EQ(dr_poll_cq(cq, 0, NULL), 0);
	CHECK_EQ(dr_poll_cq(cq, 8, wc), 0);

	/* oldest first, partial polls */
	for (i = 0; i < 3; i++) {
		memset(&wc[0], 0, sizeof(wc[0]));
		wc[0].wr_id = 100 + i;
		CHECK_EQ(dr_cq_push(dr_cq_impl(cq), &wc[0]), 0);
	}
	CHECK_EQ(dr_poll_cq(cq, 2, wc), 2);
	CHECK(wc[0].wr_id == 100 && wc[1].wr_id == 101);
	CHECK_EQ(dr_poll_cq(cq, 8, wc), 1);
	CHECK_EQ(wc[0].wr_id, 102);

	/* overrun: the ring holds 4; the 5th is lost and the CQ stays in error (IBA 11.4.2.1) */
	for (i = 0; i < 4; i++)
		CHECK_EQ(dr_cq_push(dr_cq_impl(cq), &wc[0]), 0);
	CHECK_EQ(dr_cq_push(dr_cq_impl(cq), &wc[0]), -EOVERFLOW);
	CHECK(dr_cq_impl(cq)->overrun);
	CHECK_EQ(dr_poll_cq(cq, 8, wc), -EOVERFLOW);
	CHECK_EQ(dr_poll_cq(cq, 8, wc), -EOVERFLOW);
	{
		/* the overrun is an affiliated async event: the CQ is held until it is acknowledged */
		struct dr_async_event ev;

		CHECK_EQ(dr_get_async_event(ctx, &ev), 0);
		CHECK(ev.event_type == DR_EVENT_CQ_ERR && ev.element.cq == cq);
		CHECK_EQ(dr_destroy_cq(cq), -EBUSY);
		dr_ack_async_event(&ev);
	}
	CHECK_EQ(dr_destroy_cq(cq), 0);
	CHECK_EQ(dr_destroy_cq(NULL), -EINVAL);
}

/* The staging array: flush keeps what the PMD did not take, a full array drops. */
static void
test_tx(struct tv *t)
{
	struct dr_context *ctx = t->ctx;
	struct dr_worker *wk = &ctx->wk[0];     /* inline: the one worker, run by this thread */
	struct rte_mbuf *m[DR_BURST * 4 + 64], *out[64];
	unsigned int avail = rte_mempool_avail_count(ctx->pool);
	uint64_t pkts = wk->stats.tx_pkts, dropped = wk->stats.tx_dropped;
	unsigned int cap = RTE_DIM(wk->tx_buf), n = 0, i, got, rounds = 0;

	if (rte_pktmbuf_alloc_bulk(ctx->pool, m, RTE_DIM(m)) != 0) {
		CHECK(!"mbufs for test_tx");
		return;
	}
	for (i = 0; i < RTE_DIM(m); i++)
		memset(rte_pktmbuf_append(m[i], 60), 0, 60);
	for (; n < 100; n++)
		dr_wk_tx(wk, m[n]);
	CHECK_EQ(wk->tx_count, 100);
	dr_wk_tx_flush(wk);                   /* the ring takes 63 */
	CHECK_EQ(wk->tx_count, 37);
	CHECK(wk->tx_buf[0] == m[63]);
	CHECK_EQ(wk->stats.tx_pkts - pkts, 63);
	dr_wk_tx_flush(wk);                   /* ring full: nothing taken, nothing lost */
	CHECK_EQ(wk->tx_count, 37);
	while (wk->tx_count < cap)
		dr_wk_tx(wk, m[n++]);
	dr_wk_tx(wk, m[n++]);                 /* full array, ring full: dropped */
	CHECK_EQ(wk->tx_count, cap);
	CHECK_EQ(wk->stats.tx_dropped - dropped, 1);
	while (wk->tx_count != 0 && rounds++ < 10) {
		got = rte_ring_dequeue_burst(t->ring_a, (void **)out, RTE_DIM(out), NULL);
		rte_pktmbuf_free_bulk(out, got);
		dr_wk_tx_flush(wk);
	}
	CHECK_EQ(wk->tx_count, 0);
	got = rte_ring_dequeue_burst(t->ring_a, (void **)out, RTE_DIM(out), NULL);
	rte_pktmbuf_free_bulk(out, got);
	CHECK_EQ(wk->stats.tx_pkts - pkts, n - 1);
	rte_pktmbuf_free_bulk(m + n, RTE_DIM(m) - n);
	CHECK_EQ(rte_mempool_avail_count(ctx->pool), avail);
}

/* dr_qp_counters_add(): counts add up, the max_ and round-trip fields keep the worst QP's */
static void
test_qp_counters_add(void)
{
	struct dr_qp_counters sum = { .retries = 1, .ack_timeouts = 2, .max_ack_timeout_us = 500, .max_rto_us = 30,
				      .srtt_us = 80, .rttvar_us = 9, .rnr_wait_us = 100, .sr_resends = 4 };
	const struct dr_qp_counters c = { .retries = 2, .rereads = 3, .ack_timeouts = 1, .max_ack_timeout_us = 400,
					  .rto_expiries = 5, .max_rto_us = 70, .tlp_probes = 6, .keepalives = 7,
					  .srtt_us = 60, .rttvar_us = 20, .naks_rx = 8, .rnr_naks_rx = 9,
					  .rnr_wait_us = 10, .naks_tx = 11, .sr_resends = 12 };

	CHECK_EQ(dr_qp_counters_add(&sum, &c), 0);
	CHECK_EQ(sum.retries, 3);
	CHECK_EQ(sum.rereads, 3);
	CHECK_EQ(sum.ack_timeouts, 3);
	CHECK_EQ(sum.max_ack_timeout_us, 500);       /* the larger, not the sum */
	CHECK_EQ(sum.rto_expiries, 5);
	CHECK_EQ(sum.max_rto_us, 70);
	CHECK_EQ(sum.tlp_probes, 6);
	CHECK_EQ(sum.keepalives, 7);
	CHECK_EQ(sum.srtt_us, 80);
	CHECK_EQ(sum.rttvar_us, 20);
	CHECK_EQ(sum.naks_rx, 8);
	CHECK_EQ(sum.rnr_naks_rx, 9);
	CHECK_EQ(sum.rnr_wait_us, 110);
	CHECK_EQ(sum.naks_tx, 11);
	CHECK_EQ(sum.sr_resends, 16);
	CHECK_EQ(dr_qp_counters_add(NULL, &c), -EINVAL);
	CHECK_EQ(dr_qp_counters_add(&sum, NULL), -EINVAL);
	CHECK_EQ(sum.retries, 3);                    /* a refused call changes nothing */
}

int
main(void)
{
	struct tv t;
	struct tv_count c = { 0, 0 };
	int pa, pb;

	memset(&t, 0, sizeof(t));
	if (test_eal_start("test_verbs", "drverbs", 256) < 0) {
		fprintf(stderr, "test_verbs: EAL initialisation failed\n");
		return EXIT_FAILURE;
	}
	pa = ring_port("tv_ring_a", &t.ring_a);
	pb = ring_port("tv_ring_b", &t.ring_b);
	t.pool_b = rte_pktmbuf_pool_create("tv_pool_b", 1023, 0, 0, DR_MBUF_DATA_ROOM, SOCKET_ID_ANY);
	CHECK(pa >= 0 && pb >= 0 && t.pool_b != NULL);
	if (pa < 0 || pb < 0 || t.pool_b == NULL)
		goto out;
	t.port_a = (uint16_t)pa;
	t.port_b = (uint16_t)pb;
	{
		/* net_ring starts with 00:00:00:00:00:00: give port a a real one if it takes it */
		struct rte_ether_addr mac = { { 0x00, 0x16, 0x3E, 0x01, 0x02, 0x03 } };

		(void)rte_eth_dev_default_mac_addr_set(t.port_a, &mac);
	}

	test_qp_counters_add();
	test_devices(&t);
	test_open(&t);
	if (t.ctx == NULL)
		goto out;
	test_query(&t);
	test_mtu(&t);
	test_pd_mr(&t);
	test_cq(&t);
	test_tx(&t);
	if (t.pd != NULL) {
		tv_qp_tests(&t, &c);
		tv_post_tests(&t, &c);
		CHECK_EQ(dr_dealloc_pd(t.pd), 0);
	}
	CHECK_EQ(t.ctx->num_qps + t.ctx->num_cqs + t.ctx->num_mrs + t.ctx->num_pds, 0);
	CHECK_EQ(dr_close_device(t.ctx), 0);
	CHECK_EQ(dr_close_device(NULL), -EINVAL);
out:
	rte_ring_free(t.ring_a);
	rte_ring_free(t.ring_b);
	rte_mempool_free(t.pool_b);
	test_eal_cleanup();     /* and the runtime directory EAL leaves */
	dr_test_passed += c.passed;
	dr_test_failed += c.failed;
	return dr_test_report("test_verbs");
}
