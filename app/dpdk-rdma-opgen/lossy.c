/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * -l: the server of a UC or UD table through a lossy link, as the guest's
 * dr-opgen -l (dr-opgen-ops.h, lossy mode): the receives taken as they come
 * until the client is done and the link is quiet, each judged by itself, the
 * WRITE targets whole, untouched or partly written with their own bytes.
 */

#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>

#include "dr-opgen-ops.h"
#include "opgen.h"

static unsigned int
lossy_recv(const struct og_env *e, struct opgen_lossy *l, const struct dr_wc *wc,
	   void (*post_recv)(unsigned int slot))
{
	uint32_t hdr = e->qpt == T_UD ? GRH_LEN : 0;
	bool rimm = wc->opcode == DR_WC_RECV_RDMA_WITH_IMM, has_imm = wc->wc_flags & DR_WC_WITH_IMM;
	uint32_t len = wc->byte_len - (rimm ? 0 : hdr), imm = has_imm ? ntohl(wc->imm_data) : 0;
	int i = wc->status == DR_WC_SUCCESS && wc->byte_len >= (rimm ? 0 : hdr) ?
		opgen_lossy_row(e->qpt, rimm, len, has_imm, imm) : -1;
	bool whole = i >= 0 && len == opgen_ops[i].len && (e->qpt != T_UD || wc->src_qp == e->peer->qpn);
	int ok;

	if (whole && !rimm) {
		const uint8_t *p = e->buf + RECV_OFF + wc->wr_id * AREA + hdr;

		for (uint32_t k = 0; k < len && whole; k++)
			whole = p[k] == opgen_pat(k, (uint32_t)i);
	}
	ok = opgen_lossy_take(l, e->qpt, i, whole);
	printf("server lossy row %2d status=%s byte_len=%u%s", i, dr_wc_status_str(wc->status),
	       wc->byte_len, has_imm ? "" : " no_imm");
	if (has_imm)
		printf(" imm=0x%08x", imm);
	printf(" %s\n", ok ? (l->seen[i >= 0 ? i : 0] > 1 ? "ok (duplicate)" : "ok") : "FAIL");
	if (wc->wr_id < NOPS_MAX)
		post_recv((unsigned int)wc->wr_id);
	return !ok;
}

/* The WRITE targets and the losses: the failures among them. */
static unsigned int
lossy_targets(const struct og_env *e, const struct opgen_lossy *l, unsigned int *lost)
{
	static const char *const how[] = { "untouched", "whole", "partly written" };
	unsigned int fails = 0;

	*lost = 0;
	for (unsigned int i = 0; i < NOPS; i++) {
		const struct opgen_op *o = &opgen_ops[i];
		int t, ok;

		if (!opgen_applies(o, e->qpt))
			continue;
		if (opgen_consumes_recv(o) && !l->seen[i])
			(*lost)++;
		if (!opgen_is_write(o))
			continue;
		/* whole where its WRITE_WITH_IMM completion arrived */
		t = opgen_lossy_target(e->buf + WRITE_OFF + i * AREA, o, i);
		ok = t >= 0 && (t == 1 || o->wr != OPGEN_WR_RDMA_WRITE_WITH_IMM || !l->seen[i]);
		printf("server op %2u %-20s len=%-5u write_target=%s %s\n", i, opgen_wr_name(o->wr),
		       o->len, t >= 0 ? how[t] : "BAD", ok ? "ok" : "FAIL");
		fails += !ok;
	}
	return fails;
}

int
og_lossy_server(const struct og_env *e, void (*post_recv)(unsigned int slot))
{
	struct opgen_lossy l;
	unsigned int fails = 0, lost;
	uint32_t client_fails, verdict;
	struct dr_wc wc;

	opgen_lossy_init(&l, e->qpt);
	/* until the client says it is done (its failure count is readable), then until quiet */
	for (;;) {
		struct pollfd p = { .fd = e->fd, .events = POLLIN };

		if (og_wait_wc(e->cq, &wc, 20))
			fails += lossy_recv(e, &l, &wc, post_recv);
		else if (poll(&p, 1, 0) > 0)
			break;
	}
	og_get(e->ctx, e->fd, &client_fails, sizeof(client_fails), 0);
	while (og_wait_wc(e->cq, &wc, OPGEN_LOSSY_QUIET_MS))
		fails += lossy_recv(e, &l, &wc, post_recv);
	fails += lossy_targets(e, &l, &lost);
	if (l.arrived == 0) {
		printf("server: nothing arrived FAIL\n");
		fails++;
	}
	printf("server lossy: %u of %u messages arrived, %u lost, %u duplicates, %u bad\n",
	       l.arrived, l.expected, lost, l.dups, l.bad);
	verdict = htonl(fails);
	og_put(e->ctx, e->fd, &verdict, sizeof(verdict), 0);
	printf("server done: %u failures, client reported %u: %s\n", fails, ntohl(client_fails),
	       fails ? "FAIL" : "OK");
	return fails ? OG_EXIT_CHECK : OG_EXIT_OK;
}
