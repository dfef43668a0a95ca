/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * -E FAULT: one bad request instead of the operation table, dr-opgen's fault
 * run (usertools/rxepeer/guest/dr-opgen.c) on the dr_ API, the same output
 * lines and checks (dr-opgen-ops.h's opgen_faults). The client posts the
 * request (after a good SEND_WITH_INV for F_INVALIDATED), checks its status,
 * then, where the QP type drops the fault silently, a good SEND that must
 * arrive; the server checks the receive completions it must see and no
 * other (flushes aside), that nothing was written or executed, and the QP
 * state: ERR after an RC responder error, else RTS. Both check their QP.
 * The two sides first swap which stack they run (we: OPGEN_STACK_DR), and
 * opgen_fault_expect() says what the run must end with where rxe departs
 * from the row (doc/guides/opgen.rst, faults).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dr-opgen-ops.h"
#include "opgen.h"

/* the fault's status values are the dr_ API's */
_Static_assert(OPGEN_WC_SUCCESS == (int)DR_WC_SUCCESS && OPGEN_WC_LOC_LEN_ERR == (int)DR_WC_LOC_LEN_ERR &&
	       OPGEN_WC_LOC_QP_OP_ERR == (int)DR_WC_LOC_QP_OP_ERR && OPGEN_WC_REM_OP_ERR == (int)DR_WC_REM_OP_ERR &&
	       OPGEN_WC_LOC_PROT_ERR == (int)DR_WC_LOC_PROT_ERR &&
	       OPGEN_WC_WR_FLUSH_ERR == (int)DR_WC_WR_FLUSH_ERR &&
	       OPGEN_WC_REM_INV_REQ_ERR == (int)DR_WC_REM_INV_REQ_ERR &&
	       OPGEN_WC_REM_ACCESS_ERR == (int)DR_WC_REM_ACCESS_ERR &&
	       OPGEN_WC_RNR_RETRY_EXC_ERR == (int)DR_WC_RNR_RETRY_EXC_ERR,
	       "enum opgen_wc_status is enum dr_wc_status");

#define DRAIN_MS 200          /* after the client is done: any completion still to come */

static const char *
qp_state_str(enum dr_qp_state st)
{
	return st == DR_QPS_RTS ? "RTS" : st == DR_QPS_ERR ? "ERR" : st == DR_QPS_SQE ? "SQE" : "other";
}

/* Our QP is in @want: 1, else the line says FAIL. */
static int
check_qp_state(const struct og_env *e, const char *side, enum dr_qp_state want)
{
	struct dr_qp_attr a;
	struct dr_qp_init_attr ia;
	int ret = dr_query_qp(e->qp, &a, DR_QP_STATE, &ia);

	if (ret != 0)
		og_fail(OG_EXIT_SETUP, "dr_query_qp: %s", strerror(-ret));
	printf("%s qp state=%s %s\n", side, qp_state_str(a.qp_state), a.qp_state == want ? "ok" : "FAIL");
	return a.qp_state == want;
}

/*
 * Client: one signaled WR (id 0 the SEND_WITH_INV before F_INVALIDATED, 1 the
 * bad request, 2 the SEND after it), payload opgen_pat(k, 200 + id); its
 * completion must have status @want. Returns 1 when it did.
 */
static int
fault_post(const struct og_env *e, const struct opgen_fault *f, unsigned int id, enum opgen_wr wr,
	   uint32_t len, int want)
{
	uint8_t *src = e->buf + SRC_OFF + id * AREA;
	struct dr_sge s[2] = { { .addr = (uintptr_t)src, .length = len, .lkey = e->mr->lkey } };
	struct dr_send_wr w = { .wr_id = id, .sg_list = s, .num_sge = len ? 1 : 0,
				.opcode = (enum dr_wr_opcode)wr, .send_flags = DR_SEND_SIGNALED }, *bad;
	uint32_t rkey = opgen_fault_rkey(f, e->peer->rkey, e->peer->mw_rkey);
	struct dr_wc wc;
	int ret, ok;

	for (uint32_t k = 0; k < len; k++)
		src[k] = opgen_pat(k, 200 + id);
	if (id == 1 && f->how == F_LKEY)
		s[0].lkey ^= 0x80u;
	if (id == 1 && f->how == F_SGE_LIST) {   /* the same bytes in two SGEs */
		s[0].length = len / 2;
		s[1] = (struct dr_sge){ .addr = s[0].addr + len / 2, .length = len - len / 2,
					.lkey = e->mr->lkey };
		w.num_sge = 2;
	}
	if (id != 1) {
		rkey = e->peer->mw_rkey;          /* SEND_WITH_INV: the window's */
	} else if (wr == OPGEN_WR_RDMA_WRITE || wr == OPGEN_WR_RDMA_READ) {
		w.wr.rdma.remote_addr = e->peer->addr + opgen_fault_off(f);
		w.wr.rdma.rkey = rkey;
	} else if (wr == OPGEN_WR_ATOMIC_FETCH_AND_ADD) {
		w.wr.atomic.remote_addr = e->peer->addr + opgen_fault_off(f);
		w.wr.atomic.rkey = rkey;
		w.wr.atomic.compare_add = 1;
	}
	if (wr == OPGEN_WR_SEND_WITH_INV)
		w.invalidate_rkey = rkey;
	if (e->ah != NULL) {
		w.wr.ud.ah = e->ah;
		w.wr.ud.remote_qpn = e->peer->qpn;
		w.wr.ud.remote_qkey = id != 1 ? QKEY : f->how == F_QKEY ? QKEY ^ 1u :
				      f->how == F_QKEY_MSB ? 0x80000000u : QKEY;
	}
	printf("client fault %s wr %u %-20s len=%-5u", f->name, id, opgen_wr_name(wr), len);
	bad = NULL;
	ret = dr_post_send(e->qp, &w, &bad);
	if (want == OPGEN_WC_NONE) {          /* the post must fail with EINVAL, *bad_wr this WR */
		ok = ret == EINVAL && bad == &w;
		printf(" post_send=%s %s\n", ret != 0 ? strerror(ret) : "0", ok ? "ok" : "FAIL");
		return ok;
	}
	if (ret != 0) {
		printf(" post_send=%s FAIL\n", strerror(ret));
		return 0;
	}
	if (!og_wait_wc(e->cq, &wc, OPGEN_WC_TIMEOUT_MS)) {
		printf(" completion TIMEOUT FAIL\n");
		return 0;
	}
	ok = (int)wc.status == want && wc.wr_id == id;
	printf(" status=%s %s\n", dr_wc_status_str(wc.status), ok ? "ok" : "FAIL");
	return ok;
}

/* Swap the stacks (enum opgen_stack: we are dpdk-rdma) and work out what the run must end with. */
static struct opgen_fault_outcome
fault_expect(const struct og_env *e, const struct opgen_fault *f, bool server)
{
	uint32_t m = htonl(OPGEN_STACK_DR), p;
	enum opgen_stack peer;
	struct opgen_fault_outcome o;

	og_put(e->ctx, e->fd, &m, sizeof(m), 0);
	og_get(e->ctx, e->fd, &p, sizeof(p), 0);
	peer = ntohl(p) == OPGEN_STACK_RXE ? OPGEN_STACK_RXE : OPGEN_STACK_DR;
	o = server ? opgen_fault_expect(f, peer, OPGEN_STACK_DR) : opgen_fault_expect(f, OPGEN_STACK_DR, peer);
	printf("%s fault %s: stacks %s -> %s: status %d, receive %d, server %s, nak 0x%02x\n",
	       server ? "server" : "client", f->name,
	       server && peer == OPGEN_STACK_RXE ? "rxe" : "dpdk-rdma",
	       !server && peer == OPGEN_STACK_RXE ? "rxe" : "dpdk-rdma", o.status, o.recv,
	       o.server_err ? "ERR" : "RTS", o.nak);
	return o;
}

int
og_fault_client(const struct og_env *e, const struct opgen_fault *f)
{
	struct opgen_fault_outcome want;
	unsigned int fails = 0;
	uint32_t verdict, msg;
	int status;

	printf("client fault %s: %s\n", f->name, f->why);
	want = fault_expect(e, f, false);
	status = want.status;
	if (f->how == F_INVALIDATED)
		fails += !fault_post(e, f, 0, OPGEN_WR_SEND_WITH_INV, FOLLOW_LEN, OPGEN_WC_SUCCESS);
	fails += !fault_post(e, f, 1, f->wr, f->len, status);
	if (f->follow)
		fails += !fault_post(e, f, 2, OPGEN_WR_SEND, FOLLOW_LEN, OPGEN_WC_SUCCESS);
	fails += !check_qp_state(e, "client", status == OPGEN_WC_SUCCESS || status == OPGEN_WC_NONE ?
				 DR_QPS_RTS : DR_QPS_ERR);
	fflush(stdout);
	msg = htonl(fails);
	og_put(e->ctx, e->fd, &msg, sizeof(msg), 0);
	og_get(e->ctx, e->fd, &verdict, sizeof(verdict), 0);
	verdict = ntohl(verdict);
	printf("client done: fault %s, %u local failures, server %s\n", f->name, fails,
	       verdict ? "FAIL" : "OK");
	return fails || verdict ? OG_EXIT_CHECK : OG_EXIT_OK;
}

/* Server: the next receive completion has status @want (a success: @len bytes of seed @seed). */
static int
fault_recv(const struct og_env *e, const struct opgen_fault *f, const char *what, int want,
	   uint32_t len, uint32_t seed)
{
	uint32_t hdr = e->qpt == T_UD ? GRH_LEN : 0;
	struct dr_wc wc;
	int ok;

	if (!og_wait_wc(e->cq, &wc, OPGEN_WC_TIMEOUT_MS)) {
		printf("server fault %s: %s: missing receive completion FAIL\n", f->name, what);
		return 0;
	}
	ok = (int)wc.status == want && wc.qp_num == e->me->qpn;
	printf("server fault %s: %s: status=%s", f->name, what, dr_wc_status_str(wc.status));
	if (ok && want == OPGEN_WC_SUCCESS) {
		const uint8_t *p = e->buf + RECV_OFF + wc.wr_id * AREA + hdr;
		uint32_t bad_bytes = 0;

		for (uint32_t k = 0; k < len; k++)
			bad_bytes += p[k] != opgen_pat(k, seed);
		printf(" byte_len=%u data=%s", wc.byte_len, bad_bytes ? "BAD" : "ok");
		ok = wc.opcode == DR_WC_RECV && wc.byte_len == len + hdr && !bad_bytes;
	}
	printf(" %s\n", ok ? "ok" : "FAIL");
	return ok;
}

int
og_fault_server(const struct og_env *e, const struct opgen_fault *f)
{
	uint32_t off = f->wr == OPGEN_WR_RDMA_WRITE ? (uint32_t)opgen_fault_off(f) : WRITE_OFF;
	struct opgen_fault_outcome want;
	unsigned int fails = 0, flushed = 0;
	uint32_t client_fails, verdict, touched = 0;
	uint64_t word, next;
	struct dr_wc wc;
	bool atomic_ok;

	printf("server fault %s: %s\n", f->name, f->why);
	want = fault_expect(e, f, true);
	if (f->how == F_INVALIDATED)
		fails += !fault_recv(e, f, "SEND_WITH_INV", OPGEN_WC_SUCCESS, FOLLOW_LEN, 200);
	if (want.recv != OPGEN_WC_NONE)
		fails += !fault_recv(e, f, "the request", want.recv, f->len, 201);
	if (f->follow)
		fails += !fault_recv(e, f, "the SEND after it", OPGEN_WC_SUCCESS, FOLLOW_LEN, 202);
	og_get(e->ctx, e->fd, &client_fails, sizeof(client_fails), 0);
	/* nothing else completes but flushed receives (a QP in ERR) */
	while (og_wait_wc(e->cq, &wc, DRAIN_MS)) {
		if (wc.status == DR_WC_WR_FLUSH_ERR) {
			flushed++;
			continue;
		}
		printf("server fault %s: unexpected completion status=%s FAIL\n", f->name,
		       dr_wc_status_str(wc.status));
		fails++;
	}
	/* nothing was written or executed: the WRITE's target, the atomic word and the 8 bytes after it */
	for (uint32_t k = off; k < off + AREA && k < BUF_SZ; k++)
		touched += e->buf[k] != 0;
	memcpy(&word, e->buf + ATOMIC_OFF, sizeof(word));
	memcpy(&next, e->buf + ATOMIC_OFF + 8, sizeof(next));
	atomic_ok = word == ATOMIC_INIT && next == 0;
	printf("server fault %s: write target 0x%x %s, atomic word=0x%llx next=0x%llx %s, "
	       "%u flushed receives\n", f->name, off, touched ? "WRITTEN FAIL" : "untouched ok",
	       (unsigned long long)word, (unsigned long long)next, atomic_ok ? "ok" : "FAIL", flushed);
	fails += !!touched + !atomic_ok;
	fails += !check_qp_state(e, "server", want.server_err ? DR_QPS_ERR : DR_QPS_RTS);
	fflush(stdout);
	verdict = htonl(fails);
	og_put(e->ctx, e->fd, &verdict, sizeof(verdict), 0);
	printf("server done: fault %s, %u failures, client reported %u: %s\n", f->name, fails,
	       ntohl(client_fails), fails ? "FAIL" : "OK");
	return fails ? OG_EXIT_CHECK : OG_EXIT_OK;
}
