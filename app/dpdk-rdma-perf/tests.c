/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The table of tests, and the verbs resources they share: buffer layout, PD,
 * MR, CQs, RC QPs and their RESET -> INIT -> RTR -> RTS path (the masks of
 * ibv_rc_pingpong), the receives of the send tests, the target of each send
 * WR, what a READ or atomic brought back, and what each size needs before
 * its barrier.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_random.h>

#include "check.h"
#include "perf.h"

#define PERF_ACCESS (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ)
#define PERF_MIN_RNR_TIMER 12
#define PERF_RETRY_CNT 7
#define PERF_RNR_RETRY 7
#define PERF_RD_ATOMIC 16          /* a peer that does not say its depth (OOB_QP) */
#define PERF_HOP_LIMIT 64
#define PERF_DURATION_SLOTS 4096u   /* --check with -D: distinct target slots */
#define PERF_ATOMIC_LINE 64u        /* perftest's stride between atomic targets: a cache line */
#define PERF_ATOMIC_REGION 4096u    /* ... over its cycle buffer (a page): 64 words */

static int perf_setup(struct perf *p);
static void perf_teardown(struct perf *p);

static const struct perf_test tests[] = {
	{ "send_bw", "Send BW Test", PERF_SEND, PERF_BW, perf_setup, perf_run_bw, perf_teardown, false },
	{ "send_lat", "Send Latency Test", PERF_SEND, PERF_LAT, perf_setup, perf_run_lat, perf_teardown, false },
	{ "write_bw", "RDMA_Write BW Test", PERF_WRITE, PERF_BW, perf_setup, perf_run_bw, perf_teardown, false },
	{ "write_lat", "RDMA_Write Latency Test", PERF_WRITE, PERF_LAT, perf_setup, perf_run_lat,
	  perf_teardown, false },
	{ "read_bw", "RDMA_Read BW Test", PERF_READ, PERF_BW, perf_setup, perf_run_bw, perf_teardown, false },
	{ "read_lat", "RDMA_Read Latency Test", PERF_READ, PERF_LAT, perf_setup, perf_run_lat,
	  perf_teardown, false },
	/* the title follows "Atomic <-A type> " (report.c) */
	{ "atomic_bw", "BW Test", PERF_ATOMIC, PERF_BW, perf_setup, perf_run_bw, perf_teardown, false },
	{ "atomic_lat", "Latency Test", PERF_ATOMIC, PERF_LAT, perf_setup, perf_run_lat,
	  perf_teardown, false },
	/* the bare link: one QP is set up for the address exchange only (run_raw.c) */
	{ "raw_bw", "Raw Link BW Test", PERF_WRITE, PERF_BW, perf_setup, perf_run_raw, perf_teardown,
	  true },
	{ "raw_lat", "Raw Link Latency Test", PERF_WRITE, PERF_LAT, perf_setup, perf_run_raw,
	  perf_teardown, true },
};

const struct perf_test *
perf_test_find(const char *name)
{
	for (unsigned int i = 0; i < RTE_DIM(tests); i++)
		if (strcmp(tests[i].name, name) == 0)
			return &tests[i];
	return NULL;
}

const char *
perf_test_names(void)
{
	return "send_bw, send_lat, write_bw, write_lat, read_bw, read_lat, atomic_bw, atomic_lat, "
	       "raw_bw, raw_lat";
}

/* Slots of @p want messages that fit in the --check region, at least 1. */
static uint32_t
check_slots(const struct perf *p, uint64_t want)
{
	uint64_t fit = PERF_CHECK_REGION / p->slot_size;

	return (uint32_t)RTE_MAX(RTE_MIN(want, fit), (uint64_t)1);
}

/* Queue depths and slots of each region, from the test and our role. */
static void
layout(struct perf *p)
{
	const struct perf_opts *o = p->o;
	const struct perf_test *t = p->test;
	const bool active = !p->server;  /* the side that posts the measured WRs */
	uint64_t msgs = p->duration > 0 ? PERF_DURATION_SLOTS : p->iters;
	uint32_t tx = 0, rx = 0;

	/* a perftest peer may touch a whole cycle buffer (the page) from the start */
	p->slot_size = RTE_ALIGN_CEIL(RTE_MAX(RTE_MAX(p->max_size, 1u) + perf_grh(p), p->pt_cycle), 64u);
	p->sq_depth = 1;
	p->rq_depth = 0;
	p->window = 1;
	p->cq_mod = 1;
	if (t->verb == PERF_ATOMIC) {
		/* one word per cache line over the cycle buffer, as perftest's atomic_bw walks */
		p->slot_size = RTE_MAX(PERF_ATOMIC_LINE, p->pt_line);
		rx = RTE_MAX(RTE_MAX(p->pt_cycle, PERF_ATOMIC_REGION) / p->slot_size, 1u);
	}
	if (t->kind == PERF_BW) {
		if (active) {
			p->window = (uint32_t)RTE_MIN((uint64_t)o->tx_depth, p->duration > 0 ?
						      UINT32_MAX : p->iters);
			/* --check writes every message: a slot is reused once its WR is complete */
			tx = p->check ? check_slots(p, p->window) : 1;
			if (p->check)
				p->window = RTE_MIN(p->window, tx);
			p->sq_depth = p->window;
			p->cq_mod = RTE_MIN(o->cq_mod, p->window);
			/* the atomic words are the server's */
			rx = 0;
		} else if (t->verb == PERF_SEND) {
			p->rq_depth = (uint32_t)RTE_MIN((uint64_t)o->rx_depth, msgs);
			rx = p->check ? check_slots(p, p->rq_depth) : 1;
			if (p->check)
				p->rq_depth = RTE_MIN(p->rq_depth, rx);
		} else if (t->verb != PERF_ATOMIC) {
			rx = p->check ? check_slots(p, msgs) : 1;
			/* RDMA_WRITE_WITH_IMM: a receive each, without a buffer */
			if (perf_uses_recv(p))
				p->rq_depth = (uint32_t)RTE_MIN((uint64_t)o->rx_depth, msgs);
		}
	} else if (t->verb == PERF_ATOMIC) {
		/* one atomic at a time: two result slots, one reused once the other's WR is complete */
		if (active) {
			tx = 2;
			rx = 0;
			p->sq_depth = RTE_MAX(o->tx_depth, 2u);
		}
	} else {
		/* ping-pong: two local slots, one reused once the other's WR is complete */
		if (active || t->verb != PERF_READ) {
			tx = 2;
			p->sq_depth = RTE_MAX(o->tx_depth, 2u);
		}
		if (t->verb == PERF_SEND) {
			p->rq_depth = (uint32_t)RTE_MIN((uint64_t)o->rx_depth, msgs);
			rx = p->check ? check_slots(p, p->rq_depth) : 1;
			if (p->check)
				p->rq_depth = RTE_MIN(p->rq_depth, rx);
		} else if (t->verb == PERF_WRITE) {
			rx = 1;
		} else if (!active) {
			rx = p->check ? check_slots(p, msgs) : 1;
		}
	}
	for (unsigned int i = 0; i < p->nb_qps; i++) {
		p->qps[i].tx_slots = tx;
		p->qps[i].rx_slots = rx;
	}
}

/* MR and QP access: ours for every test, and REMOTE_ATOMIC for the atomic ones (perftest's) */
static unsigned int
perf_access(const struct perf *p)
{
	return PERF_ACCESS | (p->test->verb == PERF_ATOMIC ? DR_ACCESS_REMOTE_ATOMIC : 0u);
}

/*
 * Our responder depth, as perftest's out_reads: -o, else the device's
 * maximum, lowered to it with perftest's warning; 1 for SEND and WRITE.
 */
static uint8_t
out_reads(const struct perf *p)
{
	uint32_t max = p->dev_attr.max_qp_rd_atom > 0 ? (uint32_t)p->dev_attr.max_qp_rd_atom :
		       PERF_RD_ATOMIC;

	if (!perf_verb_fetches(p->test->verb))
		return 1;
	if (p->o->out_reads > max) {
		fprintf(stderr, " Number of outstanding reads is above max = %u\n"
			" Changing to that max value\n", max);
		return (uint8_t)max;
	}
	return (uint8_t)(p->o->out_reads > 0 ? p->o->out_reads : max);
}

static enum dr_qp_type
qp_type(const struct perf *p)
{
	return p->conn == PERF_UD ? DR_QPT_UD : p->conn == PERF_UC ? DR_QPT_UC : DR_QPT_RC;
}

/* The QP's attributes (perftest's: its depths, one SGE, nothing inline, no SQ signalling by default). */
static void
qp_init_attr(const struct perf *p, struct perf_qp *q, struct dr_qp_init_attr *ia)
{
	memset(ia, 0, sizeof(*ia));
	ia->qp_context = q;
	ia->send_cq = p->send_cq;
	ia->recv_cq = p->recv_cq;
	ia->cap.max_send_wr = p->sq_depth;
	ia->cap.max_recv_wr = RTE_MAX(p->rq_depth, 1u);
	ia->cap.max_send_sge = 1;
	ia->cap.max_recv_sge = 1;
	ia->qp_type = qp_type(p);
}

static int
check_caps(const struct perf *p, const struct dr_qp_init_attr *ia)
{
	if (ia->cap.max_send_wr < p->sq_depth || ia->cap.max_recv_wr < RTE_MAX(p->rq_depth, 1u)) {
		perf_err("dr_create_qp", "asked for %u send and %u receive WRs, got %u and %u",
			 p->sq_depth, RTE_MAX(p->rq_depth, 1u), ia->cap.max_send_wr, ia->cap.max_recv_wr);
		return PERF_FAIL;
	}
	return PERF_OK;
}

static int
create_qp(struct perf *p, struct perf_qp *q)
{
	struct dr_qp_init_attr ia;
	struct dr_qp_attr a = {
		.qp_state = DR_QPS_INIT,
		.pkey_index = 0,
		.port_num = p->o->ib_port,
		/* a UC QP takes RDMA WRITEs only (IBA 9.8.x) */
		.qp_access_flags = p->conn == PERF_UC ? DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE :
				   perf_access(p),
		.qkey = PERF_UD_QKEY,
	};
	int ret;

	qp_init_attr(p, q, &ia);
	q->qp = dr_create_qp(p->pd, &ia);
	if (q->qp == NULL)
		return perf_api_err("dr_create_qp", errno);
	if (check_caps(p, &ia) != PERF_OK)
		return PERF_FAIL;
	q->psn = rte_rand() & 0xffffff;
	ret = dr_modify_qp(q->qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT |
			   (p->conn == PERF_UD ? DR_QP_QKEY : DR_QP_ACCESS_FLAGS));
	if (ret != 0)
		return perf_api_err("dr_modify_qp(INIT)", -ret);
	return PERF_OK;
}

int
perf_cm_make_qp(struct perf *p, struct perf_qp *q, struct dr_cm_id *id)
{
	/* -R: the CM's QP (rdma_create_qp(3): INIT with every right; the CM readies it) */
	struct dr_qp_init_attr ia;
	int ret;

	qp_init_attr(p, q, &ia);
	ret = dr_cm_create_qp(id, p->pd, &ia);
	if (ret != 0)
		return perf_api_err("dr_cm_create_qp", -ret);
	q->qp = id->qp;
	q->psn = rte_rand() & 0xffffff;     /* perftest's: printed and exchanged, never used */
	return check_caps(p, &ia);
}

/*
 * The message buffers, which one MR covers: zero pages of the process's own,
 * page-aligned, outside EAL's memory (the default: an application's buffer);
 * or with --use_hugepages from EAL's memory, hugepages (fewer TLB misses on
 * large messages; main() refused the option when EAL has none).
 */
static int
buf_alloc(struct perf *p)
{
	if (p->o->use_hugepages) {
		p->buf = rte_zmalloc("perf_buffers", p->buf_len, RTE_PGSIZE_4K);
		if (p->buf == NULL) {
			perf_err("--use_hugepages", "no %zu bytes of hugepage memory left in EAL "
				 "(reserve more hugepages, or give EAL more with -m)", p->buf_len);
			return PERF_FAIL;
		}
		return PERF_OK;
	}
	p->buf = mmap(NULL, p->buf_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->buf == MAP_FAILED) {
		p->buf = NULL;
		perf_err("buffer", "mmap of %zu bytes: %s", p->buf_len, strerror(errno));
		return PERF_FAIL;
	}
	return PERF_OK;
}

static void
buf_free(struct perf *p)
{
	if (p->buf == NULL)
		return;
	if (p->o->use_hugepages)
		rte_free(p->buf);
	else
		munmap(p->buf, p->buf_len);
}

static int
perf_setup(struct perf *p)
{
	const struct perf_opts *o = p->o;
	size_t per_qp, scqe, rcqe;
	int ret;

	p->nb_qps = o->num_qps;
	p->qps = calloc(p->nb_qps, sizeof(*p->qps));
	if (p->qps == NULL)
		return perf_api_err("calloc", ENOMEM);
	p->out_reads = out_reads(p);
	layout(p);

	per_qp = ((size_t)p->qps[0].tx_slots + p->qps[0].rx_slots) * p->slot_size;
	p->buf_len = RTE_MAX(per_qp * p->nb_qps, (size_t)64);
	if (buf_alloc(p) != PERF_OK)
		return PERF_FAIL;
	for (unsigned int i = 0; i < p->nb_qps; i++) {
		struct perf_qp *q = &p->qps[i];

		q->index = i;
		q->tx = p->buf + i * per_qp;
		q->rx = q->tx + (size_t)q->tx_slots * p->slot_size;
	}

	p->pd = dr_alloc_pd(p->ctx);
	if (p->pd == NULL)
		return perf_api_err("dr_alloc_pd", errno);
	p->mr = dr_reg_mr(p->pd, p->buf, p->buf_len, perf_access(p));
	if (p->mr == NULL)
		return perf_api_err("dr_reg_mr", errno);

	scqe = (size_t)p->nb_qps * p->sq_depth;
	rcqe = (size_t)p->nb_qps * RTE_MAX(p->rq_depth, 1u);
	if (scqe > (size_t)p->dev_attr.max_cqe || rcqe > (size_t)p->dev_attr.max_cqe) {
		perf_err("dr_create_cq", "%zu entries needed, the device has %d: lower -q, -t or -r",
			 RTE_MAX(scqe, rcqe), p->dev_attr.max_cqe);
		return PERF_FAIL;
	}
	p->send_cq = dr_create_cq(p->ctx, (int)scqe, NULL, NULL, 0);
	if (p->send_cq == NULL)
		return perf_api_err("dr_create_cq(send)", errno);
	p->recv_cq = dr_create_cq(p->ctx, (int)rcqe, NULL, NULL, 0);
	if (p->recv_cq == NULL)
		return perf_api_err("dr_create_cq(recv)", errno);

	/* -R: the QP comes with the data connection (perf_cm_data_connect()) */
	for (unsigned int i = 0; i < p->nb_qps && !p->o->rdma_cm; i++) {
		ret = create_qp(p, &p->qps[i]);
		if (ret != PERF_OK)
			return ret;
	}
	return perf_unrel_setup(p);
}

/* A destroy call that failed: said, and the exit status says it too. */
static void
teardown_err(struct perf *p, const char *what, int ret)
{
	if (ret == 0)
		return;
	perf_err(what, "%s", strerror(-ret));
	p->cleanup_failed = true;
}

static void
perf_teardown(struct perf *p)
{
	for (unsigned int i = 0; p->qps != NULL && i < p->nb_qps; i++) {
		if (p->qps[i].qp != NULL)
			teardown_err(p, "dr_destroy_qp", dr_destroy_qp(p->qps[i].qp));
		if (p->qps[i].ah != NULL)
			teardown_err(p, "dr_destroy_ah", dr_destroy_ah(p->qps[i].ah));
		free(p->qps[i].atomic_start);
	}
	perf_unrel_free(p);
	if (p->recv_cq != NULL)
		teardown_err(p, "dr_destroy_cq", dr_destroy_cq(p->recv_cq));
	if (p->send_cq != NULL)
		teardown_err(p, "dr_destroy_cq", dr_destroy_cq(p->send_cq));
	if (p->mr != NULL)
		teardown_err(p, "dr_dereg_mr", dr_dereg_mr(p->mr));
	if (p->pd != NULL)
		teardown_err(p, "dr_dealloc_pd", dr_dealloc_pd(p->pd));
	buf_free(p);
	free(p->qps);
	p->qps = NULL;
	p->recv_cq = p->send_cq = NULL;
	p->mr = NULL;
	p->pd = NULL;
	p->buf = NULL;
}

/* enum dr_mtu of a power of two in 256..4096 */
static enum dr_mtu
mtu_enum(uint32_t bytes)
{
	enum dr_mtu m = DR_MTU_256;

	while (m < DR_MTU_4096 && dr_mtu_bytes(m) < bytes)
		m = (enum dr_mtu)(m + 1);
	return m;
}

/*
 * Our requester depth: the peer's out_reads (perftest's max_rd_atomic =
 * dest->out_reads), at most the device's initiator depth.
 */
static uint8_t
peer_out_reads(const struct perf *p, const struct perf_qp *q)
{
	uint32_t n = p->perftest ? p->pt_out_reads : q->remote.out_reads;

	if (n == 0)
		n = PERF_RD_ATOMIC;
	if (p->dev_attr.max_qp_init_rd_atom > 0)
		n = RTE_MIN(n, (uint32_t)p->dev_attr.max_qp_init_rd_atom);
	return (uint8_t)RTE_MIN(n, (uint32_t)UINT8_MAX);
}

/* The RTR and RTS masks of each QP type (ibv_modify_qp(3)'s required attributes). */
static int
rtr_mask(const struct perf *p)
{
	if (p->conn == PERF_UD)
		return DR_QP_STATE;
	if (p->conn == PERF_UC)
		return DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN;
	return DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU | DR_QP_DEST_QPN | DR_QP_RQ_PSN |
	       DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER;
}

static int
rts_mask(const struct perf *p)
{
	if (p->conn != PERF_RC)
		return DR_QP_STATE | DR_QP_SQ_PSN;
	return DR_QP_STATE | DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY | DR_QP_SQ_PSN |
	       DR_QP_MAX_QP_RD_ATOMIC;
}

int
perf_connect_qps(struct perf *p)
{
	const struct perf_opts *o = p->o;
	struct rte_ether_addr mac;
	union dr_gid dgid;
	int ret;

	memcpy(dgid.raw, p->qps[0].remote.gid, sizeof(dgid.raw));
	if (o->peer_mac_given)
		mac = o->peer_mac;
	else
		memcpy(mac.addr_bytes, p->qps[0].remote.mac, RTE_ETHER_ADDR_LEN);
	/* perftest sends no MAC: the backend resolves it (ARP / ND) unless --peer-mac */
	if (!p->perftest || o->peer_mac_given) {
		ret = dr_add_neighbour(p->ctx, &dgid, &mac);
		if (ret != 0)
			return perf_api_err("dr_add_neighbour", -ret);
	}

	for (unsigned int i = 0; i < p->nb_qps; i++) {
		struct perf_qp *q = &p->qps[i];
		struct dr_qp_attr rtr = {
			.qp_state = DR_QPS_RTR,
			.path_mtu = mtu_enum(p->path_mtu),
			.dest_qp_num = q->remote.qpn,
			.rq_psn = q->remote.psn,
			.max_dest_rd_atomic = p->out_reads,
			.min_rnr_timer = PERF_MIN_RNR_TIMER,
			.ah_attr = {
				.is_global = 1,
				.port_num = o->ib_port,
				.sl = 0,
				.grh = {
					.sgid_index = (uint8_t)o->gid_index,
					.hop_limit = PERF_HOP_LIMIT,
				},
			},
		};
		struct dr_qp_attr rts = {
			.qp_state = DR_QPS_RTS,
			.timeout = o->qp_timeout,
			.retry_cnt = PERF_RETRY_CNT,
			.rnr_retry = PERF_RNR_RETRY,
			.sq_psn = q->psn,
			.max_rd_atomic = peer_out_reads(p, q),
		};

		memcpy(rtr.ah_attr.grh.dgid.raw, q->remote.gid, sizeof(rtr.ah_attr.grh.dgid.raw));
		/* ibv_set_ece(3) before RTR: the options both offered (perftest's peers offer none) */
		if (!p->perftest && !o->go_back_n && q->remote.ece_options != 0) {
			struct dr_ece ece = { .vendor_id = q->remote.ece_vendor, .options = q->remote.ece_options };

			ret = dr_set_ece(q->qp, &ece);
			if (ret != 0)
				return perf_api_err("dr_set_ece", -ret);
		}
		ret = dr_modify_qp(q->qp, &rtr, rtr_mask(p));
		if (ret != 0)
			return perf_api_err("dr_modify_qp(RTR)", -ret);
		ret = dr_modify_qp(q->qp, &rts, rts_mask(p));
		if (ret != 0)
			return perf_api_err("dr_modify_qp(RTS)", -ret);
		if (p->conn == PERF_UD) {
			/* ibv_ud_pingpong's: the peer's address is an AH, named in each send WR */
			q->ah = dr_create_ah(p->pd, &rtr.ah_attr);
			if (q->ah == NULL)
				return perf_api_err("dr_create_ah", errno);
		}
	}
	return PERF_OK;
}

int
perf_fill_recv(struct perf *p, struct perf_qp *q)
{
	while (q->recv_posted - q->recv_done < p->rq_depth) {
		uint32_t slot = (uint32_t)(q->recv_posted % q->rx_slots);
		uint8_t *addr = q->rx + (size_t)slot * p->slot_size;
		struct dr_sge sge = {
			.addr = (uintptr_t)addr,
			.length = p->slot_size,
			.lkey = p->mr->lkey,
		};
		struct dr_recv_wr wr = {
			.wr_id = ((uint64_t)q->index << 32) | slot,
			.sg_list = &sge,
			.num_sge = 1,
		};

		if (p->test->verb == PERF_WRITE) {
			/* RDMA_WRITE_WITH_IMM consumes a receive, not its buffer */
			wr.wr_id = (uint64_t)q->index << 32;
			wr.sg_list = NULL;
			wr.num_sge = 0;
		}
		struct dr_recv_wr *bad = NULL;
		int ret;

		ret = dr_post_recv(q->qp, &wr, &bad);
		if (ret != 0)
			return perf_api_err("dr_post_recv", ret);
		q->recv_posted++;
	}
	return PERF_OK;
}

/*
 * The opcode and immediate data of a receive completion (ibv_poll_cq(3)):
 * IBV_WC_RECV for a SEND, IBV_WC_RECV_RDMA_WITH_IMM for a WRITE with
 * immediate; IBV_WC_WITH_IMM exactly when one was sent, and with --check
 * the immediate is the message's number: nothing lost, duplicated or
 * reordered (RC). true after saying what is wrong.
 */
static bool
recv_imm_err(const struct perf *p, const struct perf_qp *q, const struct dr_wc *wc)
{
	enum dr_wc_opcode want = p->test->verb == PERF_WRITE ? DR_WC_RECV_RDMA_WITH_IMM : DR_WC_RECV;
	bool has_imm = (wc->wc_flags & DR_WC_WITH_IMM) != 0;

	if (wc->opcode != want || has_imm != p->imm) {
		perf_err("completion", "QP %u message %" PRIu64 ": opcode %d%s, expected %d%s", q->index,
			 q->received, (int)wc->opcode, has_imm ? " with immediate" : "", (int)want,
			 p->imm ? " with immediate" : "");
		return true;
	}
	/* UC, UD: numbers may be missing (perf_unrel_identify() places the message) */
	if (p->imm && p->check && !perf_unreliable(p) && wc->imm_data != perf_imm(q->received)) {
		perf_err("completion", "QP %u message %" PRIu64 ": immediate data 0x%08x, sent 0x%08x",
			 q->index, q->received, rte_be_to_cpu_32(wc->imm_data), (uint32_t)q->received);
		return true;
	}
	return false;
}

/*
 * UC, UD: place the message (perf_unrel_identify()), verify it with its own
 * pattern (a SEND's payload; a WRITE_WITH_IMM's data is checked at the end),
 * count it. A message no pattern explains is a data error.
 */
static int
recv_unreliable(struct perf *p, struct perf_qp *q, const struct dr_wc *wc, const uint8_t *msg)
{
	uint64_t it = q->next_iter;
	unsigned int want = 0, got = 0;
	size_t off;

	if (p->check || p->imm) {
		if (perf_unrel_identify(p, q, wc, msg, &it) != 0 || !perf_unrel_in_range(p, it)) {
			perf_note_bad(p, q->index, q->next_iter, 0, 0, p->size > 0 ? msg[0] : 0);
			return PERF_OK;
		}
	}
	if (p->check && p->test->verb == PERF_SEND) {
		off = perf_check_verify(msg, p->size, perf_seed(p, !p->server, q->index, it), &want, &got);
		if (off != SIZE_MAX)
			perf_note_bad(p, q->index, it, off, want, got);
		p->res.verified += p->size;
	}
	perf_unrel_arrived(q, it);
	return PERF_OK;
}

int
perf_recv_complete(struct perf *p, const struct dr_wc *wc)
{
	uint32_t qi = (uint32_t)(wc->wr_id >> 32), slot = (uint32_t)wc->wr_id;
	struct perf_qp *q;

	if (wc->status != DR_WC_SUCCESS)
		return perf_wc_err(wc);
	if (qi >= p->nb_qps || slot >= p->qps[qi].rx_slots) {
		perf_err("completion", "unexpected receive wr_id 0x%" PRIx64, wc->wr_id);
		return PERF_FAIL;
	}
	q = &p->qps[qi];
	/* a UD receive starts with the 40 bytes of the GRH, counted in byte_len (ibv_poll_cq(3)) */
	if (wc->byte_len != p->size + (p->test->verb == PERF_SEND ? perf_grh(p) : 0)) {
		perf_err("completion", "QP %u message %" PRIu64 ": received %u bytes, sent %u%s",
			 qi, q->received, wc->byte_len, p->size, perf_grh(p) ? " and the GRH" : "");
		return PERF_FAIL;
	}
	if (recv_imm_err(p, q, wc))
		return PERF_FAIL;
	if (perf_unreliable(p)) {
		if (recv_unreliable(p, q, wc, q->rx + (size_t)slot * p->slot_size + perf_grh(p)) != PERF_OK)
			return PERF_FAIL;
	} else if (p->check && p->test->verb == PERF_SEND) {
		const uint8_t *b = q->rx + (size_t)slot * p->slot_size;
		unsigned int want, got;
		size_t off = perf_check_verify(b, p->size, perf_seed(p, !p->server, qi, q->received),
					       &want, &got);

		if (off != SIZE_MAX)
			perf_note_bad(p, qi, q->received, off, want, got);
		p->res.verified += p->size;
	}
	q->received++;
	q->recv_done++;
	return perf_fill_recv(p, q);
}

int
perf_prepare_size(struct perf *p)
{
	const struct perf_test *t = p->test;

	for (unsigned int i = 0; i < p->nb_qps; i++) {
		struct perf_qp *q = &p->qps[i];
		size_t rx_len = (size_t)q->rx_slots * p->slot_size;

		q->posted = q->completed = q->received = 0;
		perf_unrel_reset(p, q);
		if (perf_unreliable(p) && t->verb == PERF_WRITE && t->kind == PERF_BW && p->server &&
		    p->check)
			memset(q->rx, 0, rx_len);   /* a lost UC WRITE leaves its slot untouched: zero */
		if (perf_uses_recv(p)) {
			if (p->rq_depth > 0 && perf_fill_recv(p, q) != PERF_OK)
				return PERF_FAIL;
			continue;
		}
		if (rx_len == 0 || t->verb == PERF_ATOMIC)
			continue;
		if (t->verb == PERF_READ && p->check) {
			/* the READ sources: slot s holds the pattern of "iteration" s */
			for (uint32_t s = 0; s < q->rx_slots; s++)
				perf_check_fill(q->rx + (size_t)s * p->slot_size, p->size,
						perf_seed(p, true, i, s));
		} else if (t->verb == PERF_WRITE && t->kind == PERF_LAT && p->size <= p->lat_written) {
			/*
			 * The polled byte: no stale tag of an earlier size may pass for
			 * this one's. A size larger than every earlier one polls a byte
			 * never written (-a's sizes grow: perftest's peer starts the next
			 * size without a word, and clearing now could erase its first tag).
			 */
			memset(q->rx, 0, rx_len);
		}
	}
	if (t->verb == PERF_WRITE && t->kind == PERF_LAT)
		p->lat_written = RTE_MAX(p->lat_written, p->size);
	if (t->verb == PERF_ATOMIC)
		return perf_atomic_prepare(p);
	return PERF_OK;
}

void
perf_wr_target(const struct perf *p, const struct perf_qp *q, uint64_t i, struct dr_send_wr *wr)
{
	switch (p->test->verb) {
	case PERF_SEND:
		wr->opcode = p->imm ? DR_WR_SEND_WITH_IMM : DR_WR_SEND;
		if (p->imm)
			wr->imm_data = perf_imm(i);
		if (p->conn == PERF_UD) {
			wr->wr.ud.ah = q->ah;
			wr->wr.ud.remote_qpn = q->remote.qpn;
			wr->wr.ud.remote_qkey = PERF_UD_QKEY;
		}
		return;
	case PERF_WRITE:
		wr->opcode = p->imm ? DR_WR_RDMA_WRITE_WITH_IMM : DR_WR_RDMA_WRITE;
		if (p->imm)
			wr->imm_data = perf_imm(i);
		break;
	case PERF_READ:
		wr->opcode = DR_WR_RDMA_READ;
		break;
	case PERF_ATOMIC:
		perf_atomic_wr(p, q, i, wr);
		return;
	}
	/* the peer's slot i % slots (one slot: always its region's start) */
	wr->wr.rdma.remote_addr = q->remote.vaddr +
		(i % RTE_MAX(q->remote.slots, 1u)) * (uint64_t)q->remote.slot_size;
	wr->wr.rdma.rkey = q->remote.rkey;
}

void
perf_verify_fetched(struct perf *p, struct perf_qp *q, uint64_t i)
{
	const uint8_t *local = q->tx + (size_t)(i % q->tx_slots) * p->slot_size;
	unsigned int want, got;
	size_t off;

	if (p->test->verb == PERF_ATOMIC) {
		perf_atomic_verify_orig(p, q, i, local);
		return;
	}
	/* READ i read the server's slot i % slots, which holds the pattern of "iteration" slot */
	off = perf_check_verify(local, p->size, perf_seed(p, true, q->index,
							 i % RTE_MAX(q->remote.slots, 1u)), &want, &got);
	if (off != SIZE_MAX)
		perf_note_bad(p, q->index, i, off, want, got);
	p->res.verified += p->size;
}
