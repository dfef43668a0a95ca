/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-opgen [EAL args] -- --ip A.B.C.D [options] [SERVER]
 *
 * dr-opgen (usertools/rxepeer/guest/dr-opgen.c) on the dr_ API: one of
 * every request a verbs application makes, each checked end to end, against
 * dr-opgen on Linux rxe or against itself. The same operation table, memory
 * layout, TCP exchange (struct wire_info), QP attributes (INIT: the remote
 * rights of the QP type; RTR: path MTU, destination QPN and PSN, GRH with
 * hop limit 64, max_dest_rd_atomic 4, min_rnr_timer 12; RTS: timeout 17,
 * retry_cnt 7, rnr_retry 7, max_rd_atomic 4), output lines and verdict
 * (dr-opgen-ops.h). dr-opgen's server waits for receive completions on a
 * completion channel; ours polls the CQ, which drives the transport (inline
 * progress), and every TCP wait drives it too (tcp.c); an empty poll sleeps
 * OG_IDLE_US. --mode rtc or pipeline: worker lcores drive it instead (those
 * sleeps leave them the CPU they may share with us), and stop once the
 * session is over, before anything is destroyed.
 *
 * QP types are rows of a table (qpt_table): what each needs at INIT, RTR and
 * RTS and whether it sends through an address handle (UD); XRC has a row per
 * side (the client's XRC_SEND QP, the server's XRC_RECV QP with its XRC SRQ:
 * xrc.c). The RC server binds a type 2 memory window (window.c) that the
 * client WRITEs through and invalidates with a SEND_WITH_INV. -E runs one
 * fault instead of the table (fault.c); setup and connect_qp() give the
 * server what the fault needs (a region without REMOTE_READ, a QP without
 * REMOTE_ATOMIC, short or no receive buffers) and the client rnr_retry 0.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "dr-opgen-ops.h"
#include "dr_app.h"
#include "dr_app_sock.h"
#include "opgen.h"

/* the table's opcode numbers are the dr_ API's */
_Static_assert(OPGEN_WR_RDMA_WRITE == (int)DR_WR_RDMA_WRITE &&
	       OPGEN_WR_RDMA_WRITE_WITH_IMM == (int)DR_WR_RDMA_WRITE_WITH_IMM &&
	       OPGEN_WR_SEND == (int)DR_WR_SEND && OPGEN_WR_SEND_WITH_IMM == (int)DR_WR_SEND_WITH_IMM &&
	       OPGEN_WR_RDMA_READ == (int)DR_WR_RDMA_READ &&
	       OPGEN_WR_ATOMIC_CMP_AND_SWP == (int)DR_WR_ATOMIC_CMP_AND_SWP &&
	       OPGEN_WR_ATOMIC_FETCH_AND_ADD == (int)DR_WR_ATOMIC_FETCH_AND_ADD &&
	       OPGEN_WR_BIND_MW == (int)DR_WR_BIND_MW && OPGEN_WR_SEND_WITH_INV == (int)DR_WR_SEND_WITH_INV,
	       "enum opgen_wr is enum dr_wr_opcode");

#define OG_LINGER_S 0.5      /* after the verdict: the peer's retransmissions still get answers */
#define OG_FIN_MS 2000       /* the peer's FIN, at the end (close_in_turn()) */
#define OG_SERVER_GONE_MS 15000
#define OG_LINK_DOWN_S 1.0
#define OG_IDLE_US 20        /* a CQ poll that found nothing: let the other core's VM run */
#define OG_CQE 256
#define OG_QP_WR 64

/* Which side a row of qpt_table is for. */
enum og_side {
	OG_BOTH,
	OG_CLIENT,
	OG_SERVER,
};

/* What a QP type needs (dr-opgen's connect_qp(), one row per type, XRC one per side). */
struct og_qpt {
	unsigned int t;               /* T_* */
	const char *name;
	enum og_side side;
	enum dr_qp_type type;
	int init_mask;                /* beyond STATE, PKEY_INDEX, PORT */
	unsigned int access;          /* INIT qp_access_flags (connected types) */
	int rtr_mask;                 /* beyond STATE */
	int rts_mask;                 /* beyond STATE, SQ_PSN */
	bool needs_ah;                /* sends through an address handle (UD) */
	bool no_rq;                   /* receives nothing (XRC_SEND) */
	bool xrc_srq;                 /* receives through an XRC SRQ (XRC_RECV: xrc.c) */
};

#define OG_REMOTE_ALL (DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_ATOMIC)
#define OG_RTR_CONN (DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN)
#define OG_RTR_RESP (DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER)
#define OG_RTS_REQ (DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_MAX_QP_RD_ATOMIC)

/* XRC: table 91's XRC columns (doc/guides/api.rst): the initiator has no responder, the target no requester */
static const struct og_qpt qpt_table[] = {
	{ .t = T_RC, .name = "rc", .side = OG_BOTH, .type = DR_QPT_RC, .init_mask = DR_QP_ACCESS_FLAGS,
	  .access = OG_REMOTE_ALL, .rtr_mask = OG_RTR_CONN | OG_RTR_RESP, .rts_mask = OG_RTS_REQ },
	{ .t = T_UC, .name = "uc", .side = OG_BOTH, .type = DR_QPT_UC, .init_mask = DR_QP_ACCESS_FLAGS,
	  .access = DR_ACCESS_REMOTE_WRITE, .rtr_mask = OG_RTR_CONN },
	{ .t = T_UD, .name = "ud", .side = OG_BOTH, .type = DR_QPT_UD, .init_mask = DR_QP_QKEY,
	  .needs_ah = true },
	{ .t = T_XRC, .name = "xrc", .side = OG_CLIENT, .type = DR_QPT_XRC_SEND,
	  .init_mask = DR_QP_ACCESS_FLAGS, .rtr_mask = OG_RTR_CONN, .rts_mask = OG_RTS_REQ, .no_rq = true },
	{ .t = T_XRC, .name = "xrc", .side = OG_SERVER, .type = DR_QPT_XRC_RECV,
	  .init_mask = DR_QP_ACCESS_FLAGS, .access = OG_REMOTE_ALL, .rtr_mask = OG_RTR_CONN | OG_RTR_RESP,
	  .rts_mask = DR_QP_TIMEOUT, .xrc_srq = true },
};

volatile sig_atomic_t og_stop;
jmp_buf og_bail;
double og_deadline;
static volatile int og_exit_code;

static struct {
	const struct og_opts *o;
	const struct og_qpt *qpt;
	struct dr_device **list;
	struct dr_context *ctx;
	struct dr_pd *pd;
	struct dr_cq *cq;
	struct dr_qp *qp;
	struct dr_ah *ah;             /* UD: to the peer */
	struct dr_mr *mr;
	struct dr_mw *mw;             /* server, RC: the type 2 window (window.c) */
	uint32_t mw_off;              /* its place in buf */
	struct og_xrc xrc;            /* server, XRC: the domain and its SRQ (xrc.c) */
	uint8_t *buf;
	uint32_t recv_len;            /* the length of our receive buffers */
	struct wire_info me, peer;    /* host byte order */
	uint16_t port_id;             /* our DPDK port */
	unsigned int fails;
	int fd;
	bool eal;
} g = { .fd = -1 };

double
og_now(void)
{
	return dr_app_now();
}

static void
vwarn(const char *fmt, va_list ap)
{
	fputs(OG_PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
og_fail(int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	og_exit_code = code;
	longjmp(og_bail, 1);
}

void
og_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void
og_check_deadline(void)
{
	if (og_stop)
		og_fail(OG_EXIT_SETUP, "interrupted");
	if (og_now() > og_deadline)
		og_fail(OG_EXIT_TIMEOUT, "timed out");
}

int
og_wait_wc(struct dr_cq *cq, struct dr_wc *wc, int ms)
{
	double end = og_now() + ms / 1000.0;

	for (;;) {
		int n = dr_poll_cq(cq, 1, wc);

		if (n < 0)
			og_fail(OG_EXIT_SETUP, "dr_poll_cq: %s", strerror(-n));
		if (n > 0)
			return 1;
		og_check_deadline();
		if (og_now() > end)
			return 0;
		usleep(OG_IDLE_US);
	}
}

/* Keep the transport going a little: a retransmitted request still gets its answer. */
static void
linger(void)
{
	double end = og_now() + OG_LINGER_S;

	while (!og_stop && og_now() < end) {
		dr_progress(g.ctx);
		usleep(100);
	}
}

/* ---------------------------------------------------------------- setup */

static struct dr_device *
find_device(int n)
{
	if (n == 0)
		og_fail(OG_EXIT_SETUP, "no DPDK port (give one to EAL, e.g. --vdev "
			"net_af_packet0,iface=IF)");
	if (g.o->dev == NULL)
		return g.list[0];
	for (int i = 0; i < n; i++)
		if (strcmp(dr_get_device_name(g.list[i]), g.o->dev) == 0)
			return g.list[i];
	og_fail(OG_EXIT_SETUP, "no RDMA device %s", g.o->dev);
}

static void
post_recv(unsigned int slot)
{
	struct dr_sge s = { .addr = (uintptr_t)g.buf + RECV_OFF + slot * AREA, .length = g.recv_len,
			    .lkey = g.mr->lkey };
	struct dr_recv_wr w = { .wr_id = slot, .sg_list = &s, .num_sge = 1 }, *bad;
	int ret = g.xrc.srq != NULL ? dr_post_srq_recv(g.xrc.srq, &w, &bad) : dr_post_recv(g.qp, &w, &bad);

	if (ret != 0)
		og_fail(OG_EXIT_SETUP, "dr_post_%srecv: %s", g.xrc.srq != NULL ? "srq_" : "", strerror(ret));
}

static void
setup(void)
{
	const struct og_opts *o = g.o;
	struct dr_context_attr cattr;
	struct dr_qp_init_attr qa = {
		.qp_type = g.qpt->type,
		.cap = { .max_send_wr = OG_QP_WR, .max_recv_wr = OG_QP_WR, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	unsigned int access = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			      DR_ACCESS_REMOTE_ATOMIC | DR_ACCESS_MW_BIND;
	struct dr_device *dev;
	union dr_gid gid;
	int n = 0, ret;

	dr_app_context_attr(&cattr, o->ipv4, o->ipv6, o->num_ipv6, o->link_mtu);
	dr_app_engine_attr(&o->engine, &cattr);
	g.list = dr_get_device_list(&n);
	if (g.list == NULL)
		og_fail(OG_EXIT_SETUP, "dr_get_device_list: %s", strerror(errno));
	dev = find_device(n);
	g.port_id = dr_get_device_port(dev);
	g.ctx = dr_open_device(dev, &cattr);
	if (g.ctx == NULL)
		og_fail(OG_EXIT_SETUP, "dr_open_device: %s", strerror(errno));
	g.pd = dr_alloc_pd(g.ctx);
	if (g.pd == NULL)
		og_fail(OG_EXIT_SETUP, "dr_alloc_pd: %s", strerror(errno));
	g.cq = dr_create_cq(g.ctx, OG_CQE, NULL, NULL, 0);
	if (g.cq == NULL)
		og_fail(OG_EXIT_SETUP, "dr_create_cq: %s", strerror(errno));
	g.buf = aligned_alloc(4096, BUF_SZ);
	if (g.buf == NULL)
		og_fail(OG_EXIT_SETUP, "out of memory");
	memset(g.buf, 0, BUF_SZ);
	for (unsigned int i = 0; i < NOPS; i++)
		for (uint32_t k = 0; k < AREA; k++)
			g.buf[READ_OFF + i * AREA + k] = opgen_pat(k, 100 + i);
	*(uint64_t *)(g.buf + ATOMIC_OFF) = ATOMIC_INIT;
	if (o->host == NULL && o->fault != NULL && o->fault->how == F_MR_NO_READ)
		access &= ~DR_ACCESS_REMOTE_READ;
	g.mr = dr_reg_mr(g.pd, g.buf, BUF_SZ, access);
	if (g.mr == NULL)
		og_fail(OG_EXIT_SETUP, "dr_reg_mr: %s", strerror(errno));
	qa.send_cq = g.cq;
	qa.recv_cq = g.cq;
	if (g.qpt->xrc_srq)
		g.qp = og_xrc_target(g.ctx, g.pd, g.cq, OG_QP_WR, &g.xrc, &g.me.srqn);
	else
		g.qp = dr_create_qp(g.pd, &qa);
	if (g.qp == NULL && errno == EOPNOTSUPP)
		og_fail(OG_EXIT_SETUP, "-t %s: dr_create_qp: %s: dpdk-rdma has no %s QPs yet "
			"(RC only)", g.qpt->name, strerror(errno), g.qpt->name);
	if (g.qp == NULL)
		og_fail(OG_EXIT_SETUP, "dr_create_qp: %s", strerror(errno));
	ret = dr_query_gid(g.ctx, 1, o->gidx, &gid);
	if (ret != 0)
		og_fail(OG_EXIT_SETUP, "dr_query_gid %d failed: %s", o->gidx, strerror(-ret));
	if (gid.global.subnet_prefix == 0 && gid.global.interface_id == 0)
		og_fail(OG_EXIT_SETUP, "GID index %d is empty (1: the IPv4 GID of --ip, 2 and 3: "
			"--ipv6)", o->gidx);
	g.me.qpn = g.qp->qp_num;
	g.me.rkey = g.mr->rkey;
	g.me.addr = (uintptr_t)g.buf;
	g.me.mtu = dr_mtu_bytes(o->path_mtu);
	memcpy(g.me.gid, gid.raw, 16);
	if (o->host == NULL && opgen_window(g.qpt->t, &g.mw_off))
		g.mw = og_window_alloc(g.pd, &g.me.mw_rkey);
}

static void
exchange(double deadline)
{
	struct wire_info w = {
		.qpn = htonl(g.me.qpn), .psn = htonl(g.me.psn), .rkey = htonl(g.me.rkey),
		.mtu = htonl(g.me.mtu), .addr = rte_cpu_to_be_64(g.me.addr),
		.mw_rkey = htonl(g.me.mw_rkey), .srqn = htonl(g.me.srqn),
	};

	memcpy(w.gid, g.me.gid, 16);
	og_put(g.ctx, g.fd, &w, sizeof(w), deadline);
	og_get(g.ctx, g.fd, &w, sizeof(w), deadline);
	g.peer.qpn = ntohl(w.qpn);
	g.peer.psn = ntohl(w.psn);
	g.peer.rkey = ntohl(w.rkey);
	g.peer.mtu = ntohl(w.mtu);
	g.peer.addr = rte_be_to_cpu_64(w.addr);
	memcpy(g.peer.gid, w.gid, 16);
	g.peer.mw_rkey = ntohl(w.mw_rkey);
	g.peer.srqn = ntohl(w.srqn);
}

static void
modify(struct dr_qp_attr *a, int mask, const char *to)
{
	int ret = dr_modify_qp(g.qp, a, mask);

	if (ret != 0)
		og_fail(OG_EXIT_SETUP, "modify to %s: %s", to, strerror(-ret));
}

static void
connect_qp(void)
{
	const struct og_qpt *t = g.qpt;
	const struct opgen_fault *f = g.o->host == NULL ? g.o->fault : NULL;   /* the server's part */
	struct dr_qp_attr a = { .qp_state = DR_QPS_INIT, .pkey_index = 0, .port_num = 1,
				.qkey = QKEY, .qp_access_flags = t->access };
	struct dr_ah_attr av = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = (uint8_t)g.o->gidx, .hop_limit = 64 },
	};

	if (f != NULL && f->how == F_QP_NO_ATOMIC)
		a.qp_access_flags &= ~DR_ACCESS_REMOTE_ATOMIC;
	modify(&a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | t->init_mask, "INIT");
	g.recv_len = f != NULL && f->how == F_TOO_LONG ? SHORT_RECV : AREA;
	for (unsigned int i = 0; i < NOPS_MAX && !t->no_rq && !(f != NULL && f->how == F_NO_RECV); i++)
		post_recv(i);

	memcpy(av.grh.dgid.raw, g.peer.gid, 16);
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTR;
	a.path_mtu = g.o->path_mtu;
	a.dest_qp_num = g.peer.qpn;
	a.rq_psn = g.peer.psn;
	a.ah_attr = av;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = OPGEN_MIN_RNR_TIMER;
	modify(&a, DR_QP_STATE | t->rtr_mask, "RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RTS;
	a.sq_psn = g.me.psn;
	a.timeout = 17;      /* 4.096 us << 17 = 0.5 s: TCG guests are slow to ACK */
	a.retry_cnt = 7;
	a.rnr_retry = g.o->fault != NULL && g.o->fault->how == F_NO_RECV ? 0 : 7;
	a.max_rd_atomic = 4;
	modify(&a, DR_QP_STATE | DR_QP_SQ_PSN | t->rts_mask, "RTS");
	if (t->needs_ah) {
		/* UD: the peer is an address handle (dr-opgen: ibv_create_ah) */
		g.ah = dr_create_ah(g.pd, &av);
		if (g.ah == NULL)
			og_fail(OG_EXIT_SETUP, "dr_create_ah: %s", strerror(errno));
	}
}

/* ---------------------------------------------------------------- client */

static void
client_op(unsigned int i)
{
	const struct opgen_op *o = &opgen_ops[i];
	uint8_t *src = g.buf + SRC_OFF + i * AREA;
	struct dr_sge s = { .addr = (uintptr_t)src, .length = o->len, .lkey = g.mr->lkey };
	struct dr_send_wr w = { .wr_id = i, .sg_list = &s, .num_sge = o->len ? 1 : 0,
				.opcode = (enum dr_wr_opcode)o->wr,
				.send_flags = DR_SEND_SIGNALED }, *bad;
	uint32_t rkey = o->key == K_MW ? g.peer.mw_rkey : g.peer.rkey;
	struct dr_wc wc;
	int ret, ok;

	if (o->wr == OPGEN_WR_RDMA_READ || opgen_is_atomic(o))
		memset(src, 0, o->len);
	else
		for (uint32_t k = 0; k < o->len; k++)
			src[k] = opgen_pat(k, i);
	if (opgen_has_imm(o))
		w.imm_data = htonl(IMM(i));
	if (o->wr == OPGEN_WR_SEND_WITH_INV)
		w.invalidate_rkey = rkey;
	if (g.qpt->type == DR_QPT_XRC_SEND)
		w.qp_type.xrc.remote_srqn = g.peer.srqn;
	if (g.ah != NULL) {
		w.wr.ud.ah = g.ah;
		w.wr.ud.remote_qpn = g.peer.qpn;
		w.wr.ud.remote_qkey = QKEY;
	} else if (opgen_is_write(o)) {
		w.wr.rdma.remote_addr = g.peer.addr + WRITE_OFF + i * AREA;
		w.wr.rdma.rkey = rkey;
	} else if (o->wr == OPGEN_WR_RDMA_READ) {
		w.wr.rdma.remote_addr = g.peer.addr + READ_OFF + i * AREA;
		w.wr.rdma.rkey = g.peer.rkey;
	} else if (opgen_is_atomic(o)) {
		w.wr.atomic.remote_addr = g.peer.addr + ATOMIC_OFF;
		w.wr.atomic.rkey = g.peer.rkey;
		w.wr.atomic.compare_add = o->compare_add;
		w.wr.atomic.swap = o->swap;
	}
	printf("client op %2u %-20s len=%-5u", i, opgen_wr_name(o->wr), o->len);
	if (opgen_has_imm(o))
		printf(" imm=0x%08x", IMM(i));
	if (o->key == K_MW)
		printf(" window=0x%08x", rkey);
	ret = dr_post_send(g.qp, &w, &bad);
	if (ret != 0) {
		printf(" post_send=%s FAIL\n", strerror(ret));
		g.fails++;
		return;
	}
	if (!og_wait_wc(g.cq, &wc, OPGEN_WC_TIMEOUT_MS)) {
		printf(" completion TIMEOUT FAIL\n");
		g.fails++;
		return;
	}
	ok = wc.status == DR_WC_SUCCESS && wc.wr_id == i;
	printf(" status=%s", dr_wc_status_str(wc.status));
	if (ok && o->wr == OPGEN_WR_RDMA_READ) {
		uint32_t bad_bytes = 0;

		for (uint32_t k = 0; k < o->len; k++)
			bad_bytes += src[k] != opgen_pat(k, 100 + i);
		printf(" read_data=%s", bad_bytes ? "BAD" : "ok");
		ok = !bad_bytes;
	}
	if (ok && opgen_is_atomic(o)) {
		uint64_t orig;

		memcpy(&orig, src, sizeof(orig));
		printf(" orig=0x%llx", (unsigned long long)orig);
		ok = orig == o->orig;
	}
	printf(" %s  # %s\n", ok ? "ok" : "FAIL", o->why);
	g.fails += !ok;
}

static int
run_client(void)
{
	uint32_t verdict, msg, n = 0;

	for (unsigned int i = 0; i < NOPS; i++)
		if (opgen_applies(&opgen_ops[i], g.qpt->t)) {
			client_op(i);
			n++;
		}
	fflush(stdout);
	msg = htonl(g.fails);
	og_put(g.ctx, g.fd, &msg, sizeof(msg), 0);
	og_get(g.ctx, g.fd, &verdict, sizeof(verdict), 0);
	verdict = ntohl(verdict);
	printf("client done: %u ops, %u local failures, server %s\n", n, g.fails,
	       verdict ? "FAIL" : "OK");
	return g.fails || verdict ? OG_EXIT_CHECK : OG_EXIT_OK;
}

/* ---------------------------------------------------------------- server */

static void
server_recv(unsigned int i)
{
	const struct opgen_op *o = &opgen_ops[i];
	uint32_t hdr = g.qpt->t == T_UD ? GRH_LEN : 0;
	bool wimm = o->wr == OPGEN_WR_RDMA_WRITE_WITH_IMM;
	bool inv = o->wr == OPGEN_WR_SEND_WITH_INV;
	struct dr_wc wc;
	int ok;

	if (!og_wait_wc(g.cq, &wc, OPGEN_WC_TIMEOUT_MS)) {
		printf("server op %2u %-20s missing receive completion FAIL\n", i,
		       opgen_wr_name(o->wr));
		g.fails++;
		return;
	}
	/* XRC: the completion comes from the SRQ's CQ, qp_num the XRC_RECV QP's */
	ok = wc.status == DR_WC_SUCCESS &&
	     wc.opcode == (wimm ? DR_WC_RECV_RDMA_WITH_IMM : DR_WC_RECV) && wc.qp_num == g.me.qpn &&
	     wc.byte_len == o->len + (wimm ? 0 : hdr) &&
	     !!(wc.wc_flags & DR_WC_WITH_IMM) == !!opgen_has_imm(o) &&
	     (!opgen_has_imm(o) || ntohl(wc.imm_data) == IMM(i)) &&
	     !!(wc.wc_flags & DR_WC_WITH_INV) == inv && (!inv || wc.invalidated_rkey == g.me.mw_rkey);
	printf("server op %2u %-20s status=%s opcode=%s byte_len=%u", i, opgen_wr_name(o->wr),
	       dr_wc_status_str(wc.status), wc.opcode == DR_WC_RECV ? "RECV" :
	       wc.opcode == DR_WC_RECV_RDMA_WITH_IMM ? "RECV_RDMA_WITH_IMM" : "?", wc.byte_len);
	if (wc.wc_flags & DR_WC_WITH_IMM)
		printf(" imm=0x%08x", ntohl(wc.imm_data));
	if (wc.wc_flags & DR_WC_WITH_INV)
		printf(" invalidated=0x%08x", wc.invalidated_rkey);
	if (g.qpt->t == T_UD) {
		printf(" src_qp=0x%06x", wc.src_qp);
		ok = ok && wc.src_qp == g.peer.qpn;
	}
	if (ok && !wimm) {
		const uint8_t *p = g.buf + RECV_OFF + wc.wr_id * AREA + hdr;
		uint32_t bad_bytes = 0;

		for (uint32_t k = 0; k < o->len; k++)
			bad_bytes += p[k] != opgen_pat(k, i);
		printf(" data=%s", bad_bytes ? "BAD" : "ok");
		ok = !bad_bytes;
	}
	if (!ok)	/* what the completion said, as it is */
		printf(" wc_flags=0x%x ex=0x%08x", (unsigned int)wc.wc_flags, (unsigned int)wc.invalidated_rkey);
	printf(" %s\n", ok ? "ok" : "FAIL");
	g.fails += !ok;
	if (wc.wr_id < NOPS_MAX)
		post_recv((unsigned int)wc.wr_id);
}

static int
run_server(void)
{
	uint32_t client_fails, verdict;

	for (unsigned int i = 0; i < NOPS; i++)
		if (opgen_applies(&opgen_ops[i], g.qpt->t) && opgen_consumes_recv(&opgen_ops[i]))
			server_recv(i);
	og_get(g.ctx, g.fd, &client_fails, sizeof(client_fails), 0);
	for (unsigned int i = 0; i < NOPS; i++) {
		const struct opgen_op *o = &opgen_ops[i];
		const uint8_t *p = g.buf + WRITE_OFF + i * AREA;
		uint32_t bad_bytes = 0;

		if (!opgen_applies(o, g.qpt->t) || !opgen_is_write(o))
			continue;
		for (uint32_t k = 0; k < AREA; k++)
			bad_bytes += p[k] != (k < o->len ? opgen_pat(k, i) : 0);
		printf("server op %2u %-20s len=%-5u write_target=%s\n", i, opgen_wr_name(o->wr),
		       o->len, bad_bytes ? "BAD FAIL" : "ok");
		g.fails += !!bad_bytes;
	}
	if (g.qpt->t & T_REL) {
		uint64_t v = *(volatile uint64_t *)(g.buf + ATOMIC_OFF);

		printf("server atomic word=0x%llx %s\n", (unsigned long long)v,
		       v == ATOMIC_FINAL ? "ok" : "FAIL");
		g.fails += v != ATOMIC_FINAL;
	}
	verdict = htonl(g.fails);
	og_put(g.ctx, g.fd, &verdict, sizeof(verdict), 0);
	printf("server done: %u failures, client reported %u: %s\n", g.fails, ntohl(client_fails),
	       g.fails ? "FAIL" : "OK");
	return g.fails ? OG_EXIT_CHECK : OG_EXIT_OK;
}

/* ---------------------------------------------------------------- main */

static void
list_ops(unsigned int qpt)
{
	for (unsigned int i = 0; i < NOPS; i++)
		if (opgen_applies(&opgen_ops[i], qpt))
			printf("%u %s %u %s # %s\n", i, opgen_wr_name(opgen_ops[i].wr), opgen_ops[i].len,
			       opgen_consumes_recv(&opgen_ops[i]) ? "recv" : "-", opgen_ops[i].why);
}

static int
run(void)
{
	const struct og_opts *o = g.o;
	double tcp_deadline = o->tcp_timeout_s > 0 ? og_now() + o->tcp_timeout_s : 0;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	uint8_t go = 1;
	int ret;

	setup();
	g.me.psn = o->psn >= 0 ? (uint32_t)o->psn : o->host ? OPGEN_CLIENT_PSN : OPGEN_SERVER_PSN;
	g.fd = o->host ? og_tcp_client(g.ctx, o->host, o->port, tcp_deadline) :
			 og_tcp_server(g.ctx, o->port, tcp_deadline);
	exchange(tcp_deadline);
	inet_ntop(AF_INET6, g.me.gid, a, sizeof(a));
	inet_ntop(AF_INET6, g.peer.gid, b, sizeof(b));
	printf("%s %s local qpn=0x%06x psn=0x%06x gid=%s remote qpn=0x%06x psn=0x%06x gid=%s "
	       "rkey=0x%x path_mtu=%u\n", o->host ? "client" : "server", g.qpt->name, g.me.qpn,
	       g.me.psn, a, g.peer.qpn, g.peer.psn, b, g.peer.rkey, dr_mtu_bytes(o->path_mtu));
	if (g.qpt->t == T_XRC)
		printf("%s xrc srqn=0x%06x\n", o->host ? "client" : "server",
		       o->host ? g.peer.srqn : g.me.srqn);
	connect_qp();
	if (g.mw != NULL) {
		og_window_bind(g.qp, g.cq, g.mw, g.me.mw_rkey, g.mr, g.buf + g.mw_off, AREA, NOPS_MAX,
			       OPGEN_WC_TIMEOUT_MS);
		printf("server window rkey=0x%08x bound over [0x%x, 0x%x) REMOTE_WRITE\n", g.me.mw_rkey,
		       g.mw_off, g.mw_off + AREA);
	}
	og_put(g.ctx, g.fd, &go, 1, 0);
	og_get(g.ctx, g.fd, &go, 1, 0);   /* both QPs are ready and every receive is posted */
	if (o->fault != NULL) {
		struct og_env e = { .ctx = g.ctx, .cq = g.cq, .qp = g.qp, .ah = g.ah, .mr = g.mr,
				    .buf = g.buf, .me = &g.me, .peer = &g.peer, .qpt = g.qpt->t,
				    .fd = g.fd };

		ret = o->host ? og_fault_client(&e, o->fault) : og_fault_server(&e, o->fault);
	} else if (o->lossy && o->host == NULL) {
		struct og_env e = { .ctx = g.ctx, .cq = g.cq, .qp = g.qp, .mr = g.mr, .buf = g.buf,
				    .me = &g.me, .peer = &g.peer, .qpt = g.qpt->t, .fd = g.fd };

		ret = og_lossy_server(&e, post_recv);
	} else {
		ret = o->host ? run_client() : run_server();
	}
	fflush(stdout);
	linger();
	/* the session is over: nothing polls the port any more (rtc, pipeline: the workers stop) */
	(void)dr_stop_workers(g.ctx);
	return ret;
}

/*
 * Ports close one after the other, the server's first, as dpdk-rdma-perf's
 * do: memif's interrupt thread handling the peer's disconnect while this
 * side polls or closes the same port can crash (DPDK 22.11). Both sides stop
 * driving their port and swap a FIN; the server closes its port, then the
 * connection; the client waits for that, for its link to go down, and a
 * little more, before it closes its own.
 */
static void
close_in_turn(void)
{
	struct rte_eth_link link;
	double end;

	og_tcp_fin(g.fd, OG_FIN_MS);
	if (g.o->host == NULL) {
		if (g.ctx != NULL && dr_close_device(g.ctx) != 0)
			og_warn("dr_close_device failed");
		g.ctx = NULL;
		return;
	}
	og_tcp_wait_closed(g.fd, OG_SERVER_GONE_MS);
	for (end = og_now() + OG_LINK_DOWN_S; og_now() < end; usleep(10000))
		if (rte_eth_link_get_nowait(g.port_id, &link) != 0 || link.link_status == RTE_ETH_LINK_DOWN)
			break;
	usleep(50000);   /* the PMD's interrupt thread finishes with the disconnect */
}

static void
release(void)
{
	/* an early end (og_fail()): the workers stop before anything goes */
	if (g.ctx != NULL)
		(void)dr_stop_workers(g.ctx);
	/* the QP first: it invalidates the type 2 window bound through it */
	if (g.qp != NULL && dr_destroy_qp(g.qp) != 0)
		og_warn("dr_destroy_qp failed");
	og_xrc_release(&g.xrc);
	if (g.ah != NULL && dr_destroy_ah(g.ah) != 0)
		og_warn("dr_destroy_ah failed");
	if (g.mw != NULL && dr_dealloc_mw(g.mw) != 0)
		og_warn("dr_dealloc_mw failed");
	if (g.cq != NULL && dr_destroy_cq(g.cq) != 0)
		og_warn("dr_destroy_cq failed");
	if (g.mr != NULL && dr_dereg_mr(g.mr) != 0)
		og_warn("dr_dereg_mr failed");
	if (g.pd != NULL && dr_dealloc_pd(g.pd) != 0)
		og_warn("dr_dealloc_pd failed");
	if (g.fd >= 0 && g.ctx != NULL)
		close_in_turn();
	if (g.fd >= 0)
		close(g.fd);
	if (g.ctx != NULL && dr_close_device(g.ctx) != 0)
		og_warn("dr_close_device failed");
	if (g.list != NULL)
		dr_free_device_list(g.list);
	free(g.buf);
	if (g.eal)
		rte_eal_cleanup();
}

int
main(int argc, char **argv)
{
	static struct og_opts o;
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = og_parse_args(own_argc, own_argv, &o);
	if (ret != 0)
		return ret < 0 ? OG_EXIT_SETUP : OG_EXIT_OK;
	if (o.list) {
		list_ops(o.qpt);
		return OG_EXIT_OK;
	}
	g.o = &o;
	for (unsigned int i = 0; i < RTE_DIM(qpt_table); i++)
		if (qpt_table[i].t == o.qpt && (qpt_table[i].side == OG_BOTH ||
						 qpt_table[i].side == (o.host != NULL ? OG_CLIENT : OG_SERVER)))
			g.qpt = &qpt_table[i];
	setvbuf(stdout, NULL, _IOLBF, 0);
	dr_app_stop_on_signals(&og_stop, true);
	og_deadline = og_now() + o.timeout_s;
	og_exit_code = OG_EXIT_OK;
	if (setjmp(og_bail) == 0) {
		ret = dr_eal_init(eal_argc != 0 ? eal_argc : 1, argv);
		if (ret < 0)
			og_fail(OG_EXIT_SETUP, "EAL: %s (EAL arguments before \"--\")", strerror(-ret));
		g.eal = true;
		og_exit_code = run();
	}
	release();
	if (fflush(stdout) != 0 || ferror(stdout))
		return OG_EXIT_SETUP;
	return og_exit_code;
}
