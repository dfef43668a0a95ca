/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The two-context harness of the RC transport tests (test_rc.h); its wire is test_rc_wire.c. */

#include <errno.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dr_psn.h"
#include "test_eal.h"
#include "test_rc.h"

unsigned int rc_passed, rc_failed;

/*
 * The transport's time in these tests (dr_run_clock_base, dr_engine.h): the
 * wire's own run clock (dr_run_clock.h). It advances while the wire (this,
 * the main thread) runs rounds, and by at most DR_STALL_CAP_US across a gap
 * between two of them: when the scheduler gives the wire's CPU to another
 * task, the frames in flight wait and so does every timer, as they would
 * on a network that paused. The workers' run clocks leave out their own
 * stalls on top of it. rc_sleep_us() is time a test lets pass on purpose.
 */
static struct dr_run_clock wire_clock;
static uint64_t wire_now;
static bool wire_frozen;

static uint64_t
rc_wire_clock(void)
{
	return __atomic_load_n(&wire_now, __ATOMIC_RELAXED);
}

/* The wire runs: its clock advances (the main thread only). */
static void
wire_tick(void)
{
	if (wire_frozen) {
		wire_clock.last_tsc = rte_rdtsc();    /* no time passes, and none is owed at the thaw */
		return;
	}
	__atomic_store_n(&wire_now, dr_run_clock_advance(&wire_clock, rte_rdtsc()), __ATOMIC_RELAXED);
}

void
rc_clock_freeze(bool frozen)
{
	wire_tick();
	wire_frozen = frozen;
	wire_clock.last_tsc = rte_rdtsc();
}

void
rc_clock_advance(uint64_t ticks)
{
	wire_clock.now += ticks;
	wire_clock.last_tsc = rte_rdtsc();
	__atomic_store_n(&wire_now, wire_clock.now, __ATOMIC_RELAXED);
}

uint64_t
rc_clock_now(void)
{
	return rc_wire_clock();
}

void
rc_sleep_us(uint64_t us)
{
	/*
	 * exactly @us of the transport's time, however long the sleeps take
	 * (a nap overshoots by the timer slack), in steps of 100 us: the
	 * workers see time pass as in rounds, not as one stall
	 */
	wire_tick();
	while (us != 0) {
		uint64_t step = us < 100 ? us : 100;

		rte_delay_us_sleep((unsigned int)step);
		wire_clock.now += step * rte_get_tsc_hz() / 1000000u;
		wire_clock.last_tsc = rte_rdtsc();
		__atomic_store_n(&wire_now, wire_clock.now, __ATOMIC_RELAXED);
		us -= step;
	}
}

/* Wire rings: large enough for a full send window in flight. */
#define RC_RING_SIZE 8192

/*
 * The progress mode of both contexts: DR_TEST_MODE=inline (default), rtc or
 * pipeline; DR_TEST_WORKERS workers (pipeline: groups of three lcores) per
 * context (default 1). With engine lcores the main lcore (the wire) runs on
 * the first CPU we may use, the lcores of both contexts on the second (all
 * yielding when idle), or all on one CPU.
 */
static enum dr_progress_mode test_mode = DR_PROGRESS_INLINE;
static unsigned int test_workers = 1;
static unsigned int test_queues = 1;
struct dr_cc_attr rc_cc_attr;
static uint32_t test_zcopy_min;       /* DR_TEST_ZCOPY_MIN: dr_context_attr.tx_zcopy_min (0: default) */
static bool test_express = true;      /* DR_TEST_EXPRESS=0: dr_context_attr.disable_express on A and B */
bool rc_io_app;                       /* DR_TEST_IO=app: DR_IO_APP contexts, the test their NF */

static int
mode_from_env(void)
{
	const char *m = getenv("DR_TEST_MODE"), *w = getenv("DR_TEST_WORKERS"), *q = getenv("DR_TEST_QUEUES");
	const char *z = getenv("DR_TEST_ZCOPY_MIN"), *x = getenv("DR_TEST_EXPRESS"), *io = getenv("DR_TEST_IO");

	if (m == NULL || strcmp(m, "inline") == 0)
		test_mode = DR_PROGRESS_INLINE;
	else if (strcmp(m, "rtc") == 0)
		test_mode = DR_PROGRESS_RTC;
	else if (strcmp(m, "pipeline") == 0)
		test_mode = DR_PROGRESS_PIPELINE;
	else
		return -1;
	if (w != NULL) {
		test_workers = (unsigned int)atoi(w);
		if (test_workers < 1 || test_workers > 4)
			return -1;
	}
	if (q != NULL) {
		test_queues = (unsigned int)atoi(q);
		if (test_queues < 1 || test_queues > RC_MAX_QUEUES || test_queues > test_workers)
			return -1;
	}
	if (z != NULL)
		test_zcopy_min = (uint32_t)strtoul(z, NULL, 0);
	if (x != NULL && strcmp(x, "0") != 0 && strcmp(x, "1") != 0)
		return -1;
	test_express = x == NULL || strcmp(x, "1") == 0;
	if (io != NULL && strcmp(io, "app") != 0 && strcmp(io, "port") != 0)
		return -1;
	rc_io_app = io != NULL && strcmp(io, "app") == 0;
	/* DR_IO_APP: one queue pair (the staging rings); the NF reads every queue of its port */
	if (rc_io_app && test_queues != 1)
		return -1;
	return 0;
}

/* "--lcores=0@C0,(1-N)@C1": the main lcore and the workers' lcores on two CPUs we may use. */
static void
lcores_arg(char *buf, size_t len)
{
	cpu_set_t set;
	int c0 = -1, c1 = -1, c;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (c = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &set))
				continue;
			if (c0 < 0)
				c0 = c;
			else if (c1 < 0)
				c1 = c;
		}
	}
	if (c0 < 0)
		c0 = 0;
	if (c1 < 0)
		c1 = c0;
	snprintf(buf, len, "--lcores=0@%d,(1-%u)@%d", c0,
		 2 * test_workers * (test_mode == DR_PROGRESS_PIPELINE ? 3 : 1), c1);
}

void
rc_print_counters(const struct rc_env *e, const char *tag)
{
	unsigned int k;
	uint16_t i;

	for (k = 0; k < 2; k++) {
		const struct rc_side *s = &e->s[k];
		const struct dr_qp_impl *q = s->qp != NULL ? dr_qp_impl(s->qp) : NULL;
		double us = 1e6 / (double)rte_get_tsc_hz();

		if (q != NULL)
			fprintf(stderr, "%s: %c: qp %u: retries %" PRIu64 ", ack timeouts %" PRIu64 ", naks rx %"
				PRIu64 " tx %" PRIu64 ", rnr naks rx %" PRIu64 ", sr resends %" PRIu64 "\n", tag,
				'A' + k, s->qp->qp_num, q->cnt.retries, q->cnt.ack_timeouts, q->cnt.naks_rx,
				q->cnt.naks_tx, q->cnt.rnr_naks_rx, q->cnt.sr_resends);
		for (i = 0; s->ctx != NULL && i < s->ctx->nb_workers; i++) {
			const struct dr_run_clock *c = &s->ctx->wk[i].clock;

			fprintf(stderr, "%s: %c: worker %u: %" PRIu64 " stalls, %.0f us left out, longest gap %.0f us\n",
				tag, 'A' + k, i, c->stalls, (double)c->stall_ticks * us, (double)c->max_gap * us);
		}
	}
	fprintf(stderr, "%s: wire: %" PRIu64 "/%" PRIu64 " frames, %" PRIu64 "/%" PRIu64 " dropped\n", tag,
		e->frames[0], e->frames[1], e->dropped[0], e->dropped[1]);
	/* the transport's time itself: the wire's (main) thread's own stalls are none of it */
	fprintf(stderr, "%s: wire's clock: %" PRIu64 " stalls, %.0f us left out, longest gap %.0f us\n", tag,
		wire_clock.stalls, (double)wire_clock.stall_ticks * 1e6 / (double)rte_get_tsc_hz(),
		(double)wire_clock.max_gap * 1e6 / (double)rte_get_tsc_hz());
}

unsigned int
rc_queues(void)
{
	return test_queues;
}

const char *
rc_mode_name(void)
{
	return test_mode == DR_PROGRESS_RTC ? "rtc" : test_mode == DR_PROGRESS_PIPELINE ? "pipeline" : "inline";
}

bool
rc_mode_only(const char *mode, const char *name, const char *why)
{
	if (strcmp(rc_mode_name(), mode) == 0)
		return true;
	printf("%s: skipped in %s mode (%s)\n", name, rc_mode_name(), why);
	return false;
}

bool
rc_inline_only(const char *name, const char *why)
{
	return rc_mode_only("inline", name, why);
}

enum dr_qp_state
rc_qp_state(struct dr_qp *qp)
{
	struct dr_qp_init_attr ia;
	struct dr_qp_attr at;

	if (dr_query_qp(qp, &at, DR_QP_STATE, &ia) != 0)
		return (enum dr_qp_state)-1;
	return at.qp_state;
}

static int
eal_start(const char *prog)
{
	char args[12][96];
	char *argv[12];
	const char *lvl = getenv("DR_TEST_LOG");
	int argc = 0, i;

	if (mode_from_env() != 0) {
		fprintf(stderr, "DR_TEST_MODE must be inline, rtc or pipeline, DR_TEST_WORKERS 1..4, "
			"DR_TEST_QUEUES 1..workers (1 with DR_TEST_IO=app), DR_TEST_ZCOPY_MIN bytes, "
			"DR_TEST_EXPRESS 0 or 1, DR_TEST_IO port or app\n");
		return -1;
	}
	snprintf(args[argc++], sizeof(args[0]), "%s", prog);
	if (test_mode != DR_PROGRESS_INLINE)
		lcores_arg(args[argc++], sizeof(args[0]));
	snprintf(args[argc++], sizeof(args[0]), "--no-huge");
	snprintf(args[argc++], sizeof(args[0]), "-m512");
	snprintf(args[argc++], sizeof(args[0]), "--no-pci");
	snprintf(args[argc++], sizeof(args[0]), "--no-telemetry");
	snprintf(args[argc++], sizeof(args[0]), "--no-shconf");
	snprintf(args[argc++], sizeof(args[0]), "--file-prefix=drrc%d", (int)getpid());
	snprintf(args[argc++], sizeof(args[0]), "--log-level=%s", lvl != NULL ? lvl : "warning");
	for (i = 0; i < argc; i++)
		argv[i] = args[i];
	return rte_eal_init(argc, argv);
}

int
rc_side_port(struct rc_side *s, const char *name)
{
	char rn[64];
	unsigned int q;
	int port;

	for (q = 0; q < test_queues; q++) {
		snprintf(rn, sizeof(rn), "%s_rx%u", name, q);
		s->rx[q] = rte_ring_create(rn, RC_RING_SIZE, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(rn, sizeof(rn), "%s_tx%u", name, q);
		s->tx[q] = rte_ring_create(rn, RC_RING_SIZE, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (s->rx[q] == NULL || s->tx[q] == NULL)
			return -1;
	}
	port = rte_eth_from_rings(name, s->rx, test_queues, s->tx, test_queues, SOCKET_ID_ANY);
	if (port < 0)
		return -1;
	s->port = (uint16_t)port;
	return 0;
}

struct dr_context *
rc_side_open(struct rc_side *s, rte_be32_t ip, uint32_t link_mtu, bool express)
{
	static const uint8_t ula[15] = { 0xFD };
	struct dr_context_attr a;
	struct dr_device **list;
	struct dr_context *ctx = NULL;
	int n = 0, i;

	memset(&a, 0, sizeof(a));
	a.ipv4_addr = ip;
	/* and fd00::N, N the IPv4 address's last byte */
	memcpy(a.ipv6_addr[0], ula, sizeof(ula));
	a.ipv6_addr[0][15] = (uint8_t)(rte_be_to_cpu_32(ip) & 0xFF);
	a.num_ipv6 = 1;
	a.mtu = link_mtu;
	a.configure_port = !rc_io_app;
	a.io = rc_io_app ? DR_IO_APP : DR_IO_PORT;
	/* DR_TEST_IO_RING: dr_context_attr.io_ring_size (0: the default) */
	a.io_ring_size = rc_io_app && getenv("DR_TEST_IO_RING") != NULL ?
			 (uint32_t)strtoul(getenv("DR_TEST_IO_RING"), NULL, 0) : 0;
	/* DR_TEST_APP_POOL_HOLD: dr_context_attr.app_pool_hold (0: the default) */
	a.app_pool_hold = rc_io_app && getenv("DR_TEST_APP_POOL_HOLD") != NULL ?
			  (uint32_t)strtoul(getenv("DR_TEST_APP_POOL_HOLD"), NULL, 0) : 0;
	a.nb_rx_desc = rc_io_app ? 0 : 1024;
	a.nb_tx_desc = rc_io_app ? 0 : 1024;
	a.mode = test_mode;
	a.tx_zcopy_min = test_zcopy_min;
	a.disable_express = !express;
	a.cc = rc_cc_attr;
	if (test_mode != DR_PROGRESS_INLINE) {
		a.nb_workers = (uint16_t)test_workers;
		a.nb_queues = rc_io_app ? 0 : (uint16_t)test_queues;
		/* the workers of both sides share a CPU: yield, or DR_TEST_IDLE=sleep */
		a.idle = getenv("DR_TEST_IDLE") != NULL && strcmp(getenv("DR_TEST_IDLE"), "sleep") == 0 ?
			 DR_IDLE_SLEEP : DR_IDLE_YIELD;
	}
	list = dr_get_device_list(&n);
	if (list == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (dr_get_device_port(list[i]) == s->port)
			ctx = dr_open_device(list[i], &a);
	dr_free_device_list(list);
	return ctx;
}

int
rc_env_init(struct rc_env *e, const char *prog, uint32_t link_mtu)
{
	struct rte_ether_addr mac_a, mac_b;
	int i;

	memset(e, 0, sizeof(*e));
	if (eal_start(prog) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return -1;
	}
	/* the wire's clock is the transport's (before a context opens: the workers start on it) */
	dr_run_clock_init(&wire_clock, rte_rdtsc(), rte_get_tsc_hz() / 1000000u * DR_STALL_CAP_US, false);
	wire_now = wire_clock.now;
	dr_run_clock_base = rc_wire_clock;
	if (rc_side_port(&e->s[0], "rc_a") != 0 || rc_side_port(&e->s[1], "rc_b") != 0 ||
	    (rc_io_app && (rc_nf_port_start(&e->s[0]) != 0 || rc_nf_port_start(&e->s[1]) != 0))) {
		fprintf(stderr, "ring ports failed\n");
		return -1;
	}
	e->s[0].ctx = rc_side_open(&e->s[0], RTE_BE32(0x0A000001), link_mtu, test_express);
	e->s[1].ctx = rc_side_open(&e->s[1], RTE_BE32(0x0A000002), link_mtu, test_express);
	if (e->s[0].ctx == NULL || e->s[1].ctx == NULL) {
		fprintf(stderr, "dr_open_device failed: %s\n", strerror(errno));
		return -1;
	}
	e->copy_pool = rte_pktmbuf_pool_create("rc_copy", 4095, 0, 0, DR_MBUF_DATA_ROOM, SOCKET_ID_ANY);
	if (e->copy_pool == NULL) {
		fprintf(stderr, "copy pool failed\n");
		return -1;
	}
	for (i = 0; i < 2; i++) {
		if (dr_query_gid(e->s[i].ctx, 1, 1, &e->s[i].gid) != 0 ||
		    dr_query_gid(e->s[i].ctx, 1, 2, &e->s[i].gid6) != 0) {
			fprintf(stderr, "query_gid failed\n");
			return -1;
		}
		e->s[i].pd = dr_alloc_pd(e->s[i].ctx);
		if (e->s[i].pd == NULL) {
			fprintf(stderr, "alloc_pd failed\n");
			return -1;
		}
	}
	/* net_ring ports have a null MAC that cannot be set, and deliver every frame:
	 * any unicast MAC does as the neighbour's */
	mac_a = e->s[0].ctx->mac;
	mac_b = e->s[1].ctx->mac;
	if (!rte_is_valid_assigned_ether_addr(&mac_a))
		mac_a = (struct rte_ether_addr){ { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0A } };
	if (!rte_is_valid_assigned_ether_addr(&mac_b))
		mac_b = (struct rte_ether_addr){ { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0B } };
	if (dr_add_neighbour(e->s[0].ctx, &e->s[1].gid, &mac_b) != 0 ||
	    dr_add_neighbour(e->s[1].ctx, &e->s[0].gid, &mac_a) != 0 ||
	    dr_add_neighbour(e->s[0].ctx, &e->s[1].gid6, &mac_b) != 0 ||
	    dr_add_neighbour(e->s[1].ctx, &e->s[0].gid6, &mac_a) != 0) {
		fprintf(stderr, "add_neighbour failed\n");
		return -1;
	}
	return 0;
}

void
rc_env_fini(struct rc_env *e)
{
	int i;

	rc_twin_close(e);
	if (rc_io_app)
		rc_nf_report(e);
	for (i = 0; i < 2; i++) {
		int rc;

		if (e->s[i].pd != NULL && (rc = dr_dealloc_pd(e->s[i].pd)) != 0)
			fprintf(stderr, "side %c: dealloc_pd: %s\n", 'A' + i, strerror(-rc));
		if (e->s[i].ctx != NULL && (rc = dr_close_device(e->s[i].ctx)) != 0) {
			/* its workers still run: EAL's cleanup would wait for them forever */
			fprintf(stderr, "side %c: close_device: %s (objects left); %u passed, %u failed\n", 'A' + i,
				strerror(-rc), rc_passed, rc_failed);
			fflush(stderr);
			_exit(3);
		}
	}
	test_eal_cleanup();     /* and the runtime directory EAL leaves */
}

void
rc_params_default(struct rc_qp_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mtu = DR_MTU_1024;
	p->psn_a = 0x100;
	p->psn_b = 0x200;
	p->timeout = 12;              /* 16.8 ms */
	p->retry_cnt = 7;
	p->rnr_retry = 7;
	p->min_rnr_timer = 1;         /* 10 us */
	p->max_rd_atomic = 4;
	p->max_dest_rd_atomic = 4;
	p->access_a = p->access_b = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
				    DR_ACCESS_REMOTE_ATOMIC;
	p->qp_type = DR_QPT_RC;
	p->qkey = 0x11111111;
	p->sq_sig_all = 1;
	p->max_wr = 256;
	p->max_sge = 4;
	p->max_inline = 256;
	p->sr[0] = p->sr[1] = getenv("DR_TEST_SR") != NULL && strcmp(getenv("DR_TEST_SR"), "1") == 0;
}

int
rc_qp_up(struct rc_side *s, const struct rc_qp_params *p, bool is_a)
{
	struct dr_qp_init_attr ia;
	struct dr_qp_attr a;

	struct dr_cq *shared = p->cq[is_a ? 0 : 1];

	if (shared == NULL) {
		s->scq = dr_create_cq(s->ctx, 4096, s, p->channel[is_a ? 0 : 1], 0);
		s->rcq = dr_create_cq(s->ctx, 4096, s, p->channel[is_a ? 0 : 1], 0);
		if (s->scq == NULL || s->rcq == NULL)
			return -1;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = shared != NULL ? shared : s->scq;
	ia.recv_cq = shared != NULL ? shared : s->rcq;
	ia.qp_type = p->qp_type;
	ia.sq_sig_all = p->sq_sig_all;
	ia.cap.max_send_wr = p->max_wr;
	ia.cap.max_recv_wr = p->max_wr;
	ia.cap.max_send_sge = p->max_sge;
	ia.cap.max_recv_sge = p->max_sge;
	ia.cap.max_inline_data = p->max_inline;
	if (p->send_ops[is_a ? 0 : 1] != 0) {
		struct dr_qp_init_attr_ex ix = {
			.send_cq = ia.send_cq, .recv_cq = ia.recv_cq, .cap = ia.cap, .qp_type = ia.qp_type,
			.sq_sig_all = ia.sq_sig_all, .pd = s->pd, .send_ops_flags = p->send_ops[is_a ? 0 : 1],
			.comp_mask = DR_QP_INIT_ATTR_PD | DR_QP_INIT_ATTR_SEND_OPS_FLAGS,
		};

		s->qp = dr_create_qp_ex(s->ctx, &ix);
	} else {
		s->qp = dr_create_qp(s->pd, &ia);
	}
	if (s->qp == NULL)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = is_a ? p->access_a : p->access_b;
	a.qkey = p->qkey;
	if (dr_modify_qp(s->qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT |
				       (p->qp_type == DR_QPT_UD ? DR_QP_QKEY : DR_QP_ACCESS_FLAGS)) != 0)
		return -1;
	return 0;
}

/* UD: RTR and RTS need no peer (IBA 11.2.5.3 table 91). */
static int
qp_ud_rtr_rts(struct rc_side *s, const struct rc_qp_params *p, bool is_a)
{
	struct dr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTR;
	if (dr_modify_qp(s->qp, &a, DR_QP_STATE) != 0)
		return -1;
	a.qp_state = DR_QPS_RTS;
	a.sq_psn = is_a ? p->psn_a : p->psn_b;
	return dr_modify_qp(s->qp, &a, DR_QP_STATE | DR_QP_SQ_PSN) != 0 ? -1 : 0;
}

int
rc_qp_rtr_rts(struct rc_side *s, const struct rc_side *peer, const struct rc_qp_params *p, bool is_a)
{
	bool rc = p->qp_type == DR_QPT_RC;
	struct dr_qp_attr a;

	if (p->qp_type == DR_QPT_UD)
		return qp_ud_rtr_rts(s, p, is_a);
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = is_a ? p->psn_b : p->psn_a;
	a.max_dest_rd_atomic = p->max_dest_rd_atomic;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	if (dr_modify_qp(s->qp, &a, DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN |
				       (rc ? DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER : 0)) != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTS;
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = p->rnr_retry;
	a.sq_psn = is_a ? p->psn_a : p->psn_b;
	a.max_rd_atomic = p->max_rd_atomic;
	if (dr_modify_qp(s->qp, &a, DR_QP_STATE | DR_QP_SQ_PSN |
				       (rc ? DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY |
					     DR_QP_MAX_QP_RD_ATOMIC : 0)) != 0)
		return -1;
	return 0;
}

int
rc_connect(struct rc_env *e, const struct rc_qp_params *p)
{
	if (rc_qp_up(&e->s[0], p, true) != 0 || rc_qp_up(&e->s[1], p, false) != 0)
		return -1;
	/* ibv_set_ece(3) in INIT: each side takes what the other offers */
	for (int i = 0; i < 2; i++) {
		struct dr_ece ece;

		if (!p->sr[i])
			continue;
		if (dr_query_ece(e->s[1 - i].qp, &ece) != 0 || dr_set_ece(e->s[i].qp, &ece) != 0)
			return -1;
	}
	if (rc_qp_rtr_rts(&e->s[0], &e->s[1], p, true) != 0 || rc_qp_rtr_rts(&e->s[1], &e->s[0], p, false) != 0)
		return -1;
	return 0;
}

int
rc_connect_pair(struct rc_env *e, const struct rc_qp_params *p, struct dr_qp *qps[2])
{
	struct dr_qp *keep[2] = { e->s[0].qp, e->s[1].qp };
	int rc;

	if (p->cq[0] == NULL || p->cq[1] == NULL)
		return -1;
	e->s[0].qp = e->s[1].qp = NULL;
	rc = rc_connect(e, p);
	qps[0] = e->s[0].qp;
	qps[1] = e->s[1].qp;
	e->s[0].qp = keep[0];
	e->s[1].qp = keep[1];
	if (rc != 0) {
		for (int i = 0; i < 2; i++)
			if (qps[i] != NULL)
				(void)dr_destroy_qp(qps[i]);
		return -1;
	}
	return 0;
}

void
rc_side_qp_destroy(struct rc_side *s, const char *who)
{
	if (s->qp != NULL && dr_destroy_qp(s->qp) != 0)
		fprintf(stderr, "%s: destroy_qp failed\n", who);
	if (s->scq != NULL)
		dr_destroy_cq(s->scq);
	if (s->rcq != NULL)
		dr_destroy_cq(s->rcq);
	s->qp = NULL;
	s->scq = s->rcq = NULL;
}

void
rc_disconnect(struct rc_env *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct rc_side *s = &e->s[i];

		/* frames the contexts still hold for the PMD (inline: the one worker is ours) */
		if (s->ctx->attr.mode == DR_PROGRESS_INLINE)
			dr_wk_tx_flush(&s->ctx->wk[0]);
	}
	if (e->twin.ctx != NULL)
		dr_wk_tx_flush(&e->twin.ctx->wk[0]);
	rc_wire_flush(e);
	rc_bottleneck(e, RC_A2B, 0, 0);
	rc_bottleneck(e, RC_B2A, 0, 0);
	rc_twin_disconnect(e);
	for (i = 0; i < 2; i++)
		rc_side_qp_destroy(&e->s[i], i == 0 ? "A" : "B");
	rc_rules_clear(e);
	e->frames[0] = e->frames[1] = 0;
	e->dropped[0] = e->dropped[1] = 0;
	e->nlog = 0;
	e->logging = false;
	e->any_psn[0] = e->any_psn[1] = false;
}

void
rc_round(struct rc_env *e)
{
	wire_tick();
	/* rtc: the contexts' workers run on their own lcores; we are the wire only */
	if (test_mode == DR_PROGRESS_INLINE)
		dr_progress(e->s[0].ctx);
	rc_carry(e, RC_A2B);
	if (test_mode == DR_PROGRESS_INLINE)
		dr_progress(e->s[1].ctx);
	if (e->twin.ctx != NULL)
		rc_twin_round(e);               /* B's oracle, on the same frames (test_rc_twin.c) */
	rc_carry(e, RC_B2A);
}

bool
rc_run(struct rc_env *e, uint64_t usec, bool (*done)(struct rc_env *e, void *arg), void *arg)
{
	uint64_t end = rte_get_timer_cycles() + usec * rte_get_timer_hz() / 1000000;

	do {
		rc_round(e);
		if (done != NULL && done(e, arg))
			return true;
	} while (rte_get_timer_cycles() < end);
	return done == NULL;
}

struct stat_arg {
	int side;
	size_t off;
	uint64_t want;
};

static bool
stat_reached(struct rc_env *e, void *arg)
{
	const struct stat_arg *a = arg;
	struct dr_ctx_stats st = dr_ctx_stats_sum(e->s[a->side].ctx);
	uint64_t v;

	memcpy(&v, (const uint8_t *)&st + a->off, sizeof(v));
	return v >= a->want;
}

bool
rc_wait_stat(struct rc_env *e, int side, size_t field_off, uint64_t want, uint64_t usec)
{
	struct stat_arg a = { .side = side, .off = field_off, .want = want };

	return rc_run(e, usec, stat_reached, &a);
}

int
rc_poll(struct dr_cq *cq, struct rc_wcs *w)
{
	int n;

	if (w->n >= RTE_DIM(w->wc))
		return 0;
	n = dr_poll_cq(cq, (int)(RTE_DIM(w->wc) - w->n), &w->wc[w->n]);
	if (n > 0)
		w->n += (unsigned int)n;
	return n;
}

struct wait_arg {
	struct dr_cq *cq;
	struct rc_wcs *w;
	unsigned int n;
};

static bool
wait_done(struct rc_env *e, void *arg)
{
	struct wait_arg *a = arg;

	RTE_SET_USED(e);
	rc_poll(a->cq, a->w);
	return a->w->n >= a->n;
}

bool
rc_wait_wcs(struct rc_env *e, struct dr_cq *cq, struct rc_wcs *w, unsigned int n, uint64_t usec)
{
	struct wait_arg a = { cq, w, n };

	return rc_run(e, usec, wait_done, &a);
}

struct wait_clock_arg {
	struct wait_arg w;
	uint64_t until;                     /* the transport's time it gives up at */
	bool done;
};

static bool
wait_clock_done(struct rc_env *e, void *arg)
{
	struct wait_clock_arg *a = arg;

	a->done = wait_done(e, &a->w);
	return a->done || rc_clock_now() >= a->until;
}

bool
rc_wait_wcs_clock(struct rc_env *e, struct dr_cq *cq, struct rc_wcs *w, unsigned int n, uint64_t clock_usec,
		  uint64_t wall_usec)
{
	struct wait_clock_arg a = { .w = { cq, w, n }, .until = rc_clock_now() + rc_ms(1) * clock_usec / 1000u };

	(void)rc_run(e, wall_usec, wait_clock_done, &a);
	return a.done;
}

int
rc_buf_alloc(struct rc_side *s, struct rc_buf *b, size_t len, int access)
{
	b->len = len;
	b->p = malloc(len != 0 ? len : 1);
	if (b->p == NULL)
		return -1;
	memset(b->p, 0, len);
	b->mr = dr_reg_mr(s->pd, b->p, len, access);
	return b->mr != NULL ? 0 : -1;
}

void
rc_buf_free(struct rc_buf *b)
{
	/* a buffer's MR that cannot go is a leak the test made: it fails the test */
	if (b->mr != NULL)
		RC_CHECK_EQ(dr_dereg_mr(b->mr), 0);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void
rc_fill(uint8_t *p, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}

int
rc_sges(const struct rc_buf *b, size_t off, uint32_t len, int n, struct dr_sge *sge)
{
	uint32_t left = len;
	int i;

	for (i = 0; i < n; i++) {
		/* uneven: the first takes a third, the next a third of the rest, the last what is left */
		uint32_t part = i == n - 1 ? left : left / 3 + (uint32_t)i;

		if (part > left)
			part = left;
		sge[i].addr = (uint64_t)(uintptr_t)(b->p + off);
		sge[i].length = part;
		sge[i].lkey = b->mr->lkey;
		off += part;
		left -= part;
	}
	return n;
}

int
rc_post_recv(struct rc_side *s, uint64_t wr_id, struct dr_sge *sge, int nsge)
{
	struct dr_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	return dr_post_recv(s->qp, &wr, &bad);
}

int
rc_post_send(struct rc_side *s, uint64_t wr_id, enum dr_wr_opcode op, struct dr_sge *sge, int nsge,
	     unsigned int flags, uint64_t raddr, uint32_t rkey, rte_be32_t imm)
{
	struct dr_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	wr.send_flags = flags;
	wr.imm_data = imm;
	if (op == DR_WR_ATOMIC_FETCH_AND_ADD || op == DR_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return dr_post_send(s->qp, &wr, &bad);
}

int
rc_report(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, rc_passed, rc_failed);
	return rc_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int
rc_main(const char *name, const char *argv0, uint32_t link_mtu, void (*body)(struct rc_env *e))
{
	struct rc_env *e = calloc(1, sizeof(*e));

	if (e == NULL || rc_env_init(e, argv0, link_mtu) != 0) {
		fprintf(stderr, "%s: environment setup failed\n", name);
		free(e);
		return EXIT_FAILURE;
	}
	body(e);
	rc_env_fini(e);
	free(e);
	return rc_report(name);
}
