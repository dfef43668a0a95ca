/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * fuzz_rx's environment (fuzz_rx.c describes the harness): EAL, the two
 * contexts T and P on net_ring ports, the guarded MRs, every slot's QPs in
 * their states, the requests and receives posted, a slot's reset, T's CQ
 * polled and rings drained, P's frames captured as templates and written as
 * seed inputs.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dr_context.h"
#include "dr_pkt.h"
#include "dr_verbs.h"

#include "fuzz_rx.h"

#define RING_SIZE 4096
#define NRECV 16                /* receives posted per RQ / SRQ */
#define RECV_LEN 4096
#define MR_LEN 65536
#define GUARD 256
#define GUARD_BYTE 0xA5
#define ACC_ALL (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | \
		 DR_ACCESS_REMOTE_ATOMIC)

/* The slots (fuzz_rx.c's opening comment). */
struct fz_state fz = {
	.s = {
		{ .name = "rc_rts", .t_type = DR_QPT_RC, .want = DR_QPS_RTS, .access = ACC_ALL, .recvs = true },
		{ .name = "uc_rts", .t_type = DR_QPT_UC, .want = DR_QPS_RTS, .access = ACC_ALL, .recvs = true },
		{ .name = "ud_rts", .t_type = DR_QPT_UD, .want = DR_QPS_RTS, .recvs = true },
		{ .name = "rc_rtr", .t_type = DR_QPT_RC, .want = DR_QPS_RTR, .access = ACC_ALL, .recvs = true },
		{ .name = "rc_err", .t_type = DR_QPT_RC, .want = DR_QPS_ERR, .access = ACC_ALL, .recvs = true },
		{ .name = "xrc_rts", .t_type = DR_QPT_XRC_RECV, .want = DR_QPS_RTS, .access = ACC_ALL, .srq = true },
		{ .name = "rc_srq", .t_type = DR_QPT_RC, .want = DR_QPS_RTS, .access = ACC_ALL, .srq = true },
		{ .name = "rc_noacc", .t_type = DR_QPT_RC, .want = DR_QPS_RTS, .access = 0 },
	},
};

static int
eal_start(const char *prog)
{
	char args[9][96];
	char *argv[9];
	const char *lvl = getenv("DR_FUZZ_LOG");
	int argc = 0, i;

	snprintf(args[argc++], sizeof(args[0]), "%s", prog);
	snprintf(args[argc++], sizeof(args[0]), "-l0");
	snprintf(args[argc++], sizeof(args[0]), "--no-huge");
	snprintf(args[argc++], sizeof(args[0]), "-m512");
	snprintf(args[argc++], sizeof(args[0]), "--no-pci");
	snprintf(args[argc++], sizeof(args[0]), "--no-telemetry");
	snprintf(args[argc++], sizeof(args[0]), "--no-shconf");
	snprintf(args[argc++], sizeof(args[0]), "--file-prefix=fuzz%d", (int)getpid());
	snprintf(args[argc++], sizeof(args[0]), "--log-level=%s", lvl != NULL ? lvl : "error");
	for (i = 0; i < argc; i++)
		argv[i] = args[i];
	return dr_eal_init(argc, argv);
}

/* At exit: the runtime directory EAL made for our --file-prefix (test_eal.h does the same). */
static char runtime_dir[PATH_MAX];

static void
runtime_dir_remove(void)
{
	char path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d = opendir(runtime_dir);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", runtime_dir, de->d_name);
		(void)unlink(path);
	}
	closedir(d);
	(void)rmdir(runtime_dir);
}

static struct dr_context *
open_side(const char *name, struct rte_ring **rx, struct rte_ring **tx, rte_be32_t ip)
{
	struct dr_context_attr a;
	struct dr_device **list;
	struct dr_context *ctx = NULL;
	char rn[64];
	int n = 0, i, port;

	snprintf(rn, sizeof(rn), "%s_rx", name);
	*rx = rte_ring_create(rn, RING_SIZE, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(rn, sizeof(rn), "%s_tx", name);
	*tx = rte_ring_create(rn, RING_SIZE, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (*rx == NULL || *tx == NULL)
		return NULL;
	port = rte_eth_from_rings(name, rx, 1, tx, 1, SOCKET_ID_ANY);
	if (port < 0)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.ipv4_addr = ip;
	a.mtu = 1500;
	a.configure_port = 1;
	a.nb_rx_desc = 1024;
	a.nb_tx_desc = 1024;
	a.mode = DR_PROGRESS_INLINE;
	list = dr_get_device_list(&n);
	if (list == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (dr_get_device_port(list[i]) == port)
			ctx = dr_open_device(list[i], &a);
	dr_free_device_list(list);
	return ctx;
}

static int
gbuf_alloc(struct gbuf *b, struct dr_pd *pd, size_t len, int access)
{
	b->base = aligned_alloc(64, len + 2 * GUARD);
	if (b->base == NULL)
		return -1;
	b->p = b->base + GUARD;
	b->len = len;
	memset(b->base, GUARD_BYTE, GUARD);
	memset(b->p, 0, len);
	memset(b->p + len, GUARD_BYTE, GUARD);
	b->mr = dr_reg_mr(pd, b->p, len, access);
	return b->mr != NULL ? 0 : -1;
}

void
fz_gbuf_check(const struct gbuf *b, const char *name)
{
	static uint8_t ref[GUARD];

	if (ref[0] != GUARD_BYTE)
		memset(ref, GUARD_BYTE, sizeof(ref));
	if (memcmp(b->base, ref, GUARD) != 0)
		FZ_FATAL("bytes before MR %s were written", name);
	if (memcmp(b->p + b->len, ref, GUARD) != 0)
		FZ_FATAL("bytes after MR %s were written", name);
}

static int
modify(struct dr_qp *qp, enum dr_qp_state st, int mask, const union dr_gid *dgid, uint32_t dqpn,
       uint32_t rq_psn, uint32_t sq_psn, unsigned int access)
{
	struct dr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = st;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = access;
	a.qkey = QKEY;
	a.path_mtu = DR_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.sq_psn = sq_psn;
	a.max_dest_rd_atomic = 4;
	a.max_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.timeout = 0;                /* no ACK timer: outstanding requests wait for the fuzzer */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	return dr_modify_qp(qp, &a, DR_QP_STATE | mask);
}

/*
 * Take @qp (of type @type) from RESET to @want, connected to @dqpn at @dgid.
 * @me_psn is its sq_psn, @peer_psn its rq_psn.
 */
static int
qp_up(struct dr_qp *qp, enum dr_qp_type type, enum dr_qp_state want, const union dr_gid *dgid, uint32_t dqpn,
      uint32_t me_psn, uint32_t peer_psn, unsigned int access)
{
	const int init_conn = DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS;
	const int rtr_conn = DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN;
	bool rc = type == DR_QPT_RC || type == DR_QPT_XRC_RECV || type == DR_QPT_XRC_SEND;
	int rc_rtr = rc && type != DR_QPT_XRC_SEND ? DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER : 0;
	int rc_rts;

	if (type == DR_QPT_XRC_RECV)
		rc_rts = DR_QP_TIMEOUT;
	else if (rc)
		rc_rts = DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_MAX_QP_RD_ATOMIC;
	else
		rc_rts = 0;
	if (type == DR_QPT_UD) {
		if (modify(qp, DR_QPS_INIT, DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY, dgid, 0, 0, 0, 0) ||
		    modify(qp, DR_QPS_RTR, 0, dgid, 0, 0, 0, 0) ||
		    modify(qp, DR_QPS_RTS, DR_QP_SQ_PSN, dgid, 0, 0, me_psn, 0))
			return -1;
		return 0;
	}
	if (modify(qp, DR_QPS_INIT, init_conn, dgid, 0, 0, 0, access))
		return -1;
	if (modify(qp, DR_QPS_RTR, rtr_conn | rc_rtr, dgid, dqpn, peer_psn, 0, access))
		return -1;
	if (want == DR_QPS_RTR)
		return 0;
	if (modify(qp, DR_QPS_RTS, DR_QP_SQ_PSN | rc_rts, dgid, 0, 0, me_psn, access))
		return -1;
	if (want == DR_QPS_ERR && modify(qp, DR_QPS_ERR, 0, dgid, 0, 0, 0, access))
		return -1;
	return 0;
}

/* wr_id of T's receives: slot << 8 | 0x80 (SRQ) */
static int
post_recvs(struct dr_qp *qp, struct dr_srq *srq, unsigned int slot, unsigned int n)
{
	struct dr_sge sge[2] = {
		{ (uint64_t)(uintptr_t)fz.trecv.p, 1024, fz.trecv.mr->lkey },
		{ (uint64_t)(uintptr_t)(fz.trecv.p + 1024), RECV_LEN - 1024, fz.trecv.mr->lkey },
	};
	struct dr_recv_wr wr, *bad;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)slot << 8 | (srq != NULL ? 0x80 : 0);
		wr.sg_list = sge;
		wr.num_sge = 2;
		if (srq != NULL ? dr_post_srq_recv(srq, &wr, &bad) : dr_post_recv(qp, &wr, &bad))
			return -1;
	}
	return 0;
}

static int
post_send(struct dr_qp *qp, enum dr_wr_opcode op, struct gbuf *l, uint32_t loff, uint32_t len,
	  const struct gbuf *r, uint32_t roff, uint32_t xsrqn, struct dr_ah *ah, uint32_t rqpn)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)(l->p + loff), len, l->mr->lkey };
	struct dr_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xF000 | op;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = DR_SEND_SIGNALED;
	wr.imm_data = rte_cpu_to_be_32(0xC0FFEE00u | op);
	wr.qp_type.xrc.remote_srqn = xsrqn;
	if (op == DR_WR_ATOMIC_FETCH_AND_ADD || op == DR_WR_ATOMIC_CMP_AND_SWP) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)(r->p + roff);
		wr.wr.atomic.rkey = r->mr->rkey;
		wr.wr.atomic.compare_add = 5;
		wr.wr.atomic.swap = 0x1234;
	} else if (ah != NULL) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = rqpn;
		wr.wr.ud.remote_qkey = QKEY;
	} else if (r != NULL) {
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(r->p + roff);
		wr.wr.rdma.rkey = r->mr->rkey;
	}
	return dr_post_send(qp, &wr, &bad);
}

/* Slot 0's own requests to P: outstanding until the fuzzer answers them. */
static int
post_t_requests(void)
{
	struct dr_qp *q = fz.s[0].tq;

	return post_send(q, DR_WR_SEND, &fz.tmr, 0x8000, 32, NULL, 0, 0, NULL, 0) ||
	       post_send(q, DR_WR_RDMA_WRITE, &fz.tmr, 0x8000, 64, &fz.pbuf, 0x100, 0, NULL, 0) ||
	       post_send(q, DR_WR_RDMA_READ, &fz.tmr, 0x9000, 64, &fz.pbuf, 0x200, 0, NULL, 0) ||
	       post_send(q, DR_WR_ATOMIC_FETCH_AND_ADD, &fz.tmr, 0x9100, 8, &fz.pbuf, 0x300, 0, NULL, 0) ||
	       post_send(q, DR_WR_ATOMIC_CMP_AND_SWP, &fz.tmr, 0x9108, 8, &fz.pbuf, 0x308, 0, NULL, 0) ||
	       post_send(q, DR_WR_RDMA_READ, &fz.tmr, 0xA000, 3000, &fz.pbuf, 0x1000, 0, NULL, 0) ? -1 : 0;
}

/* Bring slot @i's T QP from any state to the one it should be in. */
int
fz_slot_reset(unsigned int i)
{
	struct slot *s = &fz.s[i];
	struct dr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RESET;
	if (dr_modify_qp(s->tq, &a, DR_QP_STATE) != 0)
		return -1;
	if (qp_up(s->tq, s->t_type, s->want, &fz.pgid, s->pq->qp_num, PSN_T, PSN_P, s->access) != 0)
		return -1;
	if (s->recvs && s->want != DR_QPS_ERR && post_recvs(s->tq, NULL, i, NRECV) != 0)
		return -1;
	if (i == 0 && post_t_requests() != 0)
		return -1;
	s->resets++;
	return 0;
}

void
fz_drain(struct rte_ring *r)
{
	struct rte_mbuf *m[64];
	unsigned int n, k;

	while ((n = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m), NULL)) > 0)
		for (k = 0; k < n; k++)
			rte_pktmbuf_free(m[k]);
}

/* Poll T's CQ; post a receive again for each one consumed. Read T's async events. */
void
fz_poll_t(void)
{
	struct dr_async_event ev;
	struct dr_wc wc[32];
	int n, k;

	while (dr_get_async_event(fz.t, &ev) == 0)
		dr_ack_async_event(&ev);

	while ((n = dr_poll_cq(fz.tcq, RTE_DIM(wc), wc)) > 0) {
		for (k = 0; k < n; k++) {
			unsigned int slot = (unsigned int)(wc[k].wr_id >> 8) & 0xFF;

			if ((wc[k].wr_id & 0xF000) == 0xF000 || slot >= NSLOT)
				continue;    /* a send of slot 0 */
			if (wc[k].wr_id & 0x80)
				post_recvs(NULL, slot == 5 ? fz.xsrq : fz.bsrq, slot, 1);
			else if (wc[k].status == DR_WC_SUCCESS && fz.s[slot].recvs)
				post_recvs(fz.s[slot].tq, NULL, slot, 1);
		}
	}
}

/* Capture P's frames: every one P sent to T. */
static void
capture_p(void)
{
	struct rte_mbuf *m[64];
	unsigned int n, k, i;

	while ((n = rte_ring_dequeue_burst(fz.p_tx, (void **)m, RTE_DIM(m), NULL)) > 0) {
		for (k = 0; k < n; k++) {
			struct dr_pkt_info pi;
			struct tmpl *t = &fz.tm[fz.ntm];

			if (fz.ntm < MAX_TMPL && m[k]->pkt_len <= sizeof(t->f) &&
			    dr_pkt_parse(m[k], &pi) == DR_PKT_OK) {
				uint32_t qpn = dr_bth_qpn(dr_pkt_bth(&pi));

				for (i = 0; i < NSLOT; i++)
					if (fz.s[i].tq->qp_num == qpn)
						break;
				if (i < NSLOT) {
					t->len = (uint16_t)m[k]->pkt_len;
					t->slot = (uint8_t)i;
					const void *src = rte_pktmbuf_read(m[k], 0, t->len, t->f);

					if (src != t->f)
						memcpy(t->f, src, t->len);
					if (fz.s[i].hdr_len == 0 && pi.bth_off <= sizeof(fz.s[i].hdr)) {
						memcpy(fz.s[i].hdr, t->f, pi.bth_off);
						fz.s[i].hdr_len = (uint8_t)pi.bth_off;
					}
					fz.ntm++;
				}
			}
			rte_pktmbuf_free(m[k]);
		}
	}
}

/* P's requests to every slot: the templates. */
static int
post_p_requests(void)
{
	struct gbuf *pb = &fz.pbuf, *tm = &fz.tmr;
	int r = 0;
	unsigned int i;

	for (i = 0; i < NSLOT; i++) {
		struct dr_qp *q = fz.s[i].pq;
		uint32_t x = i == 5 ? fz.xsrqn : 0;

		switch (i) {
		case 0:
			r |= post_send(q, DR_WR_SEND, pb, 0, 32, NULL, 0, 0, NULL, 0);
			r |= post_send(q, DR_WR_SEND_WITH_IMM, pb, 0, 16, NULL, 0, 0, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_WRITE, pb, 0, 64, tm, 0x100, 0, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_WRITE_WITH_IMM, pb, 0, 32, tm, 0x200, 0, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_READ, pb, 0x4000, 64, tm, 0x300, 0, NULL, 0);
			r |= post_send(q, DR_WR_ATOMIC_FETCH_AND_ADD, pb, 0x4100, 8, tm, 0x400, 0, NULL, 0);
			r |= post_send(q, DR_WR_ATOMIC_CMP_AND_SWP, pb, 0x4108, 8, tm, 0x408, 0, NULL, 0);
			r |= post_send(q, DR_WR_SEND, pb, 0, 2500, NULL, 0, 0, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_WRITE, pb, 0, 2500, tm, 0x1000, 0, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_READ, pb, 0x5000, 3000, tm, 0x2000, 0, NULL, 0);
			break;
		case 1:
			r |= post_send(q, DR_WR_SEND, pb, 0, 32, NULL, 0, 0, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_WRITE_WITH_IMM, pb, 0, 32, tm, 0x200, 0, NULL, 0);
			r |= post_send(q, DR_WR_SEND, pb, 0, 2500, NULL, 0, 0, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_WRITE, pb, 0, 2500, tm, 0x1000, 0, NULL, 0);
			break;
		case 2:
			r |= post_send(q, DR_WR_SEND, pb, 0, 32, NULL, 0, 0, fz.p_ah, fz.s[2].tq->qp_num);
			r |= post_send(q, DR_WR_SEND_WITH_IMM, pb, 0, 64, NULL, 0, 0, fz.p_ah, fz.s[2].tq->qp_num);
			break;
		case 6:
			r |= post_send(q, DR_WR_SEND, pb, 0, 32, NULL, 0, 0, NULL, 0);
			r |= post_send(q, DR_WR_SEND, pb, 0, 2500, NULL, 0, 0, NULL, 0);
			break;
		case 7:
			r |= post_send(q, DR_WR_ATOMIC_FETCH_AND_ADD, pb, 0x4100, 8, tm, 0x400, 0, NULL, 0);
			/* fall through */
		default:      /* 3, 4, 5 */
			r |= post_send(q, DR_WR_SEND, pb, 0, 32, NULL, 0, x, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_WRITE, pb, 0, 64, tm, 0x100, x, NULL, 0);
			r |= post_send(q, DR_WR_RDMA_READ, pb, 0x4000, 64, tm, 0x300, x, NULL, 0);
			break;
		}
	}
	return r != 0 ? -1 : 0;
}

static int
setup_qps(void)
{
	struct dr_srq_init_attr bsa = { .attr = { .max_wr = 64, .max_sge = 2 } };
	struct dr_xrcd_init_attr xa = { .comp_mask = 0, .fd = -1, .oflags = O_CREAT };
	struct dr_ah_attr av;
	unsigned int i;

	fz.xrcd = dr_open_xrcd(fz.t, &xa);
	if (fz.xrcd == NULL)
		return -1;
	struct dr_srq_init_attr_ex xsa = {
		.attr = { .max_wr = 64, .max_sge = 2 },
		.comp_mask = DR_SRQ_INIT_ATTR_TYPE | DR_SRQ_INIT_ATTR_PD | DR_SRQ_INIT_ATTR_XRCD | DR_SRQ_INIT_ATTR_CQ,
		.srq_type = DR_SRQT_XRC, .pd = fz.tpd, .xrcd = fz.xrcd, .cq = fz.tcq,
	};
	fz.xsrq = dr_create_srq_ex(fz.t, &xsa);
	fz.bsrq = dr_create_srq(fz.tpd, &bsa);
	if (fz.xsrq == NULL || fz.bsrq == NULL || dr_get_srq_num(fz.xsrq, &fz.xsrqn) != 0)
		return -1;
	if (post_recvs(NULL, fz.xsrq, 5, NRECV) || post_recvs(NULL, fz.bsrq, 6, NRECV))
		return -1;
	memset(&av, 0, sizeof(av));
	av.is_global = 1;
	av.port_num = 1;
	av.grh.dgid = fz.tgid;
	av.grh.sgid_index = 1;
	fz.p_ah = dr_create_ah(fz.ppd, &av);
	if (fz.p_ah == NULL)
		return -1;

	for (i = 0; i < NSLOT; i++) {
		struct slot *s = &fz.s[i];
		struct dr_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 2,
					 .max_recv_sge = 2, .max_inline_data = 64 };
		enum dr_qp_type ptype = s->t_type == DR_QPT_XRC_RECV ? DR_QPT_XRC_SEND : s->t_type;

		if (s->t_type == DR_QPT_XRC_RECV) {
			struct dr_qp_init_attr_ex ti = {
				.qp_type = DR_QPT_XRC_RECV, .xrcd = fz.xrcd, .comp_mask = DR_QP_INIT_ATTR_XRCD,
			};
			struct dr_qp_init_attr_ex pi = {
				.send_cq = fz.pcq, .qp_type = DR_QPT_XRC_SEND, .pd = fz.ppd,
				.comp_mask = DR_QP_INIT_ATTR_PD, .cap = cap, .sq_sig_all = 1,
			};

			s->tq = dr_create_qp_ex(fz.t, &ti);
			s->pq = dr_create_qp_ex(fz.p, &pi);
		} else {
			struct dr_qp_init_attr ti = { .send_cq = fz.tcq, .recv_cq = fz.tcq, .cap = cap,
						      .qp_type = s->t_type, .sq_sig_all = 1 };
			struct dr_qp_init_attr pi = { .send_cq = fz.pcq, .recv_cq = fz.pcq, .cap = cap,
						      .qp_type = ptype, .sq_sig_all = 1 };

			if (s->srq)
				ti.srq = fz.bsrq;
			s->tq = dr_create_qp(fz.tpd, &ti);
			s->pq = dr_create_qp(fz.ppd, &pi);
		}
		if (s->tq == NULL || s->pq == NULL) {
			fprintf(stderr, "fuzz_rx: slot %s: create_qp: %s\n", s->name, strerror(errno));
			return -1;
		}
	}
	/* P's QPs: RTS towards T */
	for (i = 0; i < NSLOT; i++) {
		struct slot *s = &fz.s[i];
		enum dr_qp_type ptype = s->t_type == DR_QPT_XRC_RECV ? DR_QPT_XRC_SEND : s->t_type;

		if (qp_up(s->pq, ptype, DR_QPS_RTS, &fz.tgid, s->tq->qp_num, PSN_P, PSN_T, ACC_ALL) != 0) {
			fprintf(stderr, "fuzz_rx: slot %s: peer QP up failed\n", s->name);
			return -1;
		}
	}
	/* P takes slot 0's SEND */
	{
		struct dr_sge sge = { (uint64_t)(uintptr_t)(fz.pbuf.p + 0x8000), 4096, fz.pbuf.mr->lkey };
		struct dr_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

		for (i = 0; i < 4; i++)
			if (dr_post_recv(fz.s[0].pq, &wr, &bad) != 0)
				return -1;
	}
	return 0;
}

/* One round of the capture: T's frames to P, P runs. */
static void
carry_t_to_p(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	dr_progress(fz.t);
	while ((n = rte_ring_dequeue_burst(fz.t_tx, (void **)m, RTE_DIM(m), NULL)) > 0) {
		unsigned int k = rte_ring_enqueue_burst(fz.p_rx, (void **)m, n, NULL);

		for (; k < n; k++)
			rte_pktmbuf_free(m[k]);
	}
	dr_progress(fz.p);
}

void
fz_dump_seeds(const char *dir)
{
	unsigned int i, j;
	char path[4096];
	FILE *f;

	for (i = 0; i < fz.ntm; i++) {
		const struct tmpl *t = &fz.tm[i];
		struct dr_pkt_info pi;
		uint8_t hdr[HDR_BYTES];

		if (dr_pkt_parse_buf(t->f, t->len, &pi) != DR_PKT_OK)
			continue;
		for (j = 0; j < 3; j++) {
			static const char *const kind[] = { "raw", "tmpl", "fresh" };

			hdr[0] = j == 0 ? 0 : (uint8_t)(2 | F_ICRC);
			hdr[1] = (uint8_t)(t->slot | 8 << 3);
			hdr[2] = j == 2 ? G_RESET : 0;
			snprintf(path, sizeof(path), "%s/cap-%02u-%s-%s", dir, i, fz.s[t->slot].name, kind[j]);
			f = fopen(path, "wb");
			if (f == NULL)
				continue;
			fwrite(hdr, 1, sizeof(hdr), f);
			if (j == 0)
				fwrite(t->f, 1, t->len, f);
			else
				fwrite(t->f + pi.bth_off, 1, t->len - pi.bth_off, f);
			fclose(f);
		}
	}
	/* each slot's whole stream from P, from a fresh state, as one mode-3 input */
	for (i = 0; i < NSLOT; i++) {
		unsigned int n = 0;

		snprintf(path, sizeof(path), "%s/stream-%u-%s", dir, i, fz.s[i].name);
		f = fopen(path, "wb");
		if (f == NULL)
			continue;
		fputc(3 | F_ICRC, f);
		fputc((int)(i | 8 << 3), f);
		fputc(G_RESET, f);
		for (j = 0; j < fz.ntm && n < MAX_FRAMES; j++) {
			struct dr_pkt_info pi;
			uint16_t len;

			if (fz.tm[j].slot != i || dr_pkt_parse_buf(fz.tm[j].f, fz.tm[j].len, &pi) != DR_PKT_OK)
				continue;
			len = (uint16_t)(fz.tm[j].len - pi.bth_off);
			fputc(len >> 8, f);
			fputc(len & 0xFF, f);
			fwrite(fz.tm[j].f + pi.bth_off, 1, len, f);
			n++;
		}
		fclose(f);
	}
	fprintf(stderr, "fuzz_rx: %u templates written to %s\n", fz.ntm, dir);
}

/* Everything LLVMFuzzerInitialize sets up (fuzz_rx.h). */
void
fz_env_setup(const char *prog)
{
	struct rte_ether_addr mac_t = { { 0x02, 0, 0, 0, 0, 0x0A } }, mac_p = { { 0x02, 0, 0, 0, 0, 0x0B } };
	unsigned int i;

	if (eal_start(prog) < 0)
		FZ_FATAL("EAL init failed");
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	atexit(runtime_dir_remove);
	fz.t = open_side("fz_t", &fz.t_rx, &fz.t_tx, RTE_BE32(0x0A000001));
	fz.p = open_side("fz_p", &fz.p_rx, &fz.p_tx, RTE_BE32(0x0A000002));
	if (fz.t == NULL || fz.p == NULL)
		FZ_FATAL("contexts failed: %s", strerror(errno));
	fz.pool = rte_pktmbuf_pool_create("fz_in", 8191, 256, 0, DR_MBUF_DATA_ROOM, SOCKET_ID_ANY);
	if (fz.pool == NULL)
		FZ_FATAL("mbuf pool failed");
	if (dr_query_gid(fz.t, 1, 1, &fz.tgid) != 0 || dr_query_gid(fz.p, 1, 1, &fz.pgid) != 0)
		FZ_FATAL("query_gid failed");
	/* net_ring ports have a null MAC: any unicast MAC does as the neighbour's */
	if (rte_is_valid_assigned_ether_addr(&fz.t->mac))
		mac_t = fz.t->mac;
	if (rte_is_valid_assigned_ether_addr(&fz.p->mac))
		mac_p = fz.p->mac;
	if (dr_add_neighbour(fz.t, &fz.pgid, &mac_p) != 0 || dr_add_neighbour(fz.p, &fz.tgid, &mac_t) != 0)
		FZ_FATAL("add_neighbour failed");
	fz.tpd = dr_alloc_pd(fz.t);
	fz.tpd2 = dr_alloc_pd(fz.t);
	fz.ppd = dr_alloc_pd(fz.p);
	fz.tcq = dr_create_cq(fz.t, 4096, NULL, NULL, 0);
	fz.pcq = dr_create_cq(fz.p, 4096, NULL, NULL, 0);
	if (fz.tpd == NULL || fz.tpd2 == NULL || fz.ppd == NULL || fz.tcq == NULL || fz.pcq == NULL)
		FZ_FATAL("PD / CQ failed");
	if (gbuf_alloc(&fz.tmr, fz.tpd, MR_LEN, ACC_ALL) || gbuf_alloc(&fz.tmr2, fz.tpd2, 4096, ACC_ALL) ||
	    gbuf_alloc(&fz.trecv, fz.tpd, RECV_LEN, DR_ACCESS_LOCAL_WRITE) ||
	    gbuf_alloc(&fz.pbuf, fz.ppd, MR_LEN, ACC_ALL))
		FZ_FATAL("MRs failed");
	if (setup_qps() != 0)
		FZ_FATAL("QPs failed: %s", strerror(errno));
	/* T's QPs up (slot 0 posts its requests), then the exchange that makes the templates */
	for (i = 0; i < NSLOT; i++)
		if (fz_slot_reset(i) != 0)
			FZ_FATAL("slot %s: reset failed", fz.s[i].name);
	carry_t_to_p();
	if (post_p_requests() != 0)
		FZ_FATAL("peer posts failed");
	for (i = 0; i < 8; i++)
		carry_t_to_p();
	capture_p();
	fz_drain(fz.t_tx);
	fz_drain(fz.p_rx);
	for (i = 0; i < NSLOT; i++)
		if (fz.s[i].hdr_len == 0)
			FZ_FATAL("slot %s: no frame of P's was captured", fz.s[i].name);
	/* T starts from its fresh state: nothing of P's was delivered */
	for (i = 0; i < NSLOT; i++)
		if (fz_slot_reset(i) != 0)
			FZ_FATAL("slot %s: reset failed", fz.s[i].name);
	dr_progress(fz.t);
	fz_drain(fz.t_tx);
}
