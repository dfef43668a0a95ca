/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The collector (collect.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_cycles.h>

#include "collect.h"

int
nf_collect_init(struct collector *k, const struct nf_opts *o, struct dr_context *ctx)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(NF_CM_PORT), .sin_addr.s_addr = o->ip };
	int ret;

	memset(k, 0, sizeof(*k));
	k->o = o;
	if (nf_conn_init(&k->c, ctx) != 0)
		return -1;
	k->ring = calloc(NF_SLOTS, NF_SLOT_BYTES);
	k->read_back = calloc(1, sizeof(*k->read_back));
	if (k->ring == NULL || k->read_back == NULL)
		return -1;
	k->ring_mr = dr_reg_mr(k->c.pd, k->ring, (size_t)NF_SLOTS * NF_SLOT_BYTES,
			       DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE);
	k->read_mr = dr_reg_mr(k->c.pd, k->read_back, sizeof(*k->read_back), DR_ACCESS_LOCAL_WRITE);
	if (k->ring_mr == NULL || k->read_mr == NULL) {
		fprintf(stderr, "dpdk-rdma-nf: dr_reg_mr: %s\n", strerror(errno));
		return -1;
	}
	ret = dr_cm_create_id(k->c.ch, &k->listen, k, DR_CM_PS_TCP);
	if (ret == 0)
		ret = dr_cm_bind_addr(k->listen, (struct sockaddr *)&a);
	if (ret == 0)
		ret = dr_cm_listen(k->listen, 1);
	if (ret != 0) {
		fprintf(stderr, "dpdk-rdma-nf: listening on port %u: %s\n", NF_CM_PORT, strerror(-ret));
		return -1;
	}
	return 0;
}

static int
accept_nf(struct collector *k, struct dr_cm_event *ev)
{
	struct nf_rep_pdata rep = { .ring_addr = (uint64_t)(uintptr_t)k->ring, .ring_rkey = k->ring_mr->rkey,
				    .slots = NF_SLOTS, .slot_bytes = NF_SLOT_BYTES };
	struct dr_cm_conn_param cp = { .private_data = &rep, .private_data_len = sizeof(rep),
				       .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
				       .rnr_retry_count = 7 };
	int ret;

	if (k->c.id != NULL || ev->param.conn.private_data_len < sizeof(k->nf)) {
		(void)dr_cm_reject(ev->id, NULL, 0);   /* one NF at a time, and one that says where its counters are */
		return 0;
	}
	memcpy(&k->nf, ev->param.conn.private_data, sizeof(k->nf));
	if (nf_conn_qp(&k->c, ev->id, 8) != 0)
		return -1;
	ret = dr_cm_accept(ev->id, &cp);
	if (ret != 0) {
		fprintf(stderr, "dpdk-rdma-nf: dr_cm_accept: %s\n", strerror(-ret));
		return -1;
	}
	return 0;
}

/* --export-flood: record i of batch k->batches is its tag (nf.h), then zeros. */
static void
flood_check(struct collector *k, const uint8_t *slot, unsigned int n)
{
	static const uint8_t zeros[NF_RECORD];
	unsigned int i;

	for (i = 0; i < n; i++) {
		const uint8_t *rec = slot + (size_t)i * NF_RECORD;
		uint64_t tag;

		memcpy(&tag, rec, sizeof(tag));
		k->records++;
		if (rte_le_to_cpu_64(tag) != nf_flood_tag(k->batches, i) ||
		    memcmp(rec + sizeof(tag), zeros, NF_RECORD - sizeof(tag)) != 0)
			k->bad_records++;
	}
}

/* Batch @imm (number << 8 | records) landed in its slot: check each record. */
static void
batch_check(struct collector *k, uint32_t imm)
{
	uint64_t num = imm >> 8;
	unsigned int n = imm & 0xFF, i;
	const uint8_t *slot;

	if ((num & 0xFFFFFF) != (k->batches & 0xFFFFFF) || n == 0 || n * NF_RECORD > NF_SLOT_BYTES) {
		k->bad_batches++;
		return;
	}
	slot = k->ring + (k->batches % NF_SLOTS) * NF_SLOT_BYTES;
	k->last_batch = nf_now();
	if (k->batches == 0)
		k->first_batch = k->last_batch;
	if (k->nf.flags & NF_REQ_FLOOD) {
		flood_check(k, slot, n);
		k->batches++;
		return;
	}
	k->batches++;
	for (i = 0; i < n; i++) {
		const uint8_t *rec = slot + (size_t)i * NF_RECORD;
		uint8_t want[NF_RECORD];
		uint32_t flow;
		uint64_t seq, g;

		k->records++;
		if (nf_frame_parse(rec, NF_RECORD, &flow, &seq) != 0 || flow >= k->o->flows) {
			k->bad_records++;
			continue;
		}
		nf_frame_head(flow, seq, want);
		if (memcmp(rec, want, NF_RECORD) != 0) {
			k->bad_records++;
			continue;
		}
		/* frame g of the generator (flows round-robin): record r is frame (r + 1) * N - 1 */
		g = seq * k->o->flows + flow;
		if (g != k->records * k->o->sample - 1)
			k->misplaced++;
	}
}

static int
read_counters(struct collector *k)
{
	struct dr_sge sge = { (uint64_t)(uintptr_t)k->read_back, sizeof(*k->read_back), k->read_mr->lkey };
	struct dr_send_wr wr = { .wr_id = NF_WR_READ, .sg_list = &sge, .num_sge = 1, .opcode = DR_WR_RDMA_READ,
				 .send_flags = DR_SEND_SIGNALED }, *bad;
	int ret;

	wr.wr.rdma.remote_addr = k->nf.counters_addr;
	wr.wr.rdma.rkey = k->nf.counters_rkey;
	ret = dr_post_send(k->c.id->qp, &wr, &bad);
	if (ret != 0)
		fprintf(stderr, "dpdk-rdma-nf: RDMA READ of the NF's counters: %s\n", strerror(ret));
	return ret;
}

static int
completions(struct collector *k)
{
	struct dr_wc wc[NF_BURST];
	int n, i;

	n = dr_poll_cq(k->c.cq, NF_BURST, wc);
	for (i = 0; i < n; i++) {
		unsigned int r = (unsigned int)(wc[i].wr_id - NF_WR_RECV);

		if (wc[i].status == DR_WC_WR_FLUSH_ERR && k->state == COLL_READ_DONE)
			continue;                  /* disconnected: the receives left are flushed */
		if (wc[i].status != DR_WC_SUCCESS) {
			fprintf(stderr, "dpdk-rdma-nf: collector: completion of wr %lu: %s\n",
				(unsigned long)wc[i].wr_id, dr_wc_status_str(wc[i].status));
			return -1;
		}
		switch (wc[i].opcode) {
		case DR_WC_RECV_RDMA_WITH_IMM:
			batch_check(k, rte_be_to_cpu_32(wc[i].imm_data));
			if (nf_conn_recv(&k->c, r) != 0)       /* the credit back: the slot was read */
				return -1;
			break;
		case DR_WC_RECV:
			if (k->c.msgs[r].type == NF_MSG_DONE && k->state == COLL_FIN_SENT) {
				k->done = k->c.msgs[r].c;
				if (read_counters(k) != 0)
					return -1;
				k->state = COLL_READING;
			}
			if (nf_conn_recv(&k->c, r) != 0)
				return -1;
			break;
		case DR_WC_RDMA_READ:
			k->state = COLL_READ_DONE;
			(void)dr_cm_disconnect(k->c.id);
			break;
		default:
			break;
		}
	}
	return n < 0 ? -1 : 0;
}

int
nf_collect_poll(struct collector *k)
{
	/* connected: paced (nf_conn_cm_due); listening or ending: every call */
	bool look = nf_conn_cm_due(&k->c, k->state == COLL_CONNECTED, rte_rdtsc());
	struct dr_cm_event *ev;
	int rc = 0;

	while (rc == 0 && look && dr_cm_get_cm_event(k->c.ch, &ev) == 0) {
		switch (ev->event) {
		case DR_CM_EVENT_CONNECT_REQUEST:
			rc = accept_nf(k, ev);
			break;
		case DR_CM_EVENT_ESTABLISHED:
			k->state = COLL_CONNECTED;
			printf("peer: the NF is connected\n");
			fflush(stdout);
			break;
		case DR_CM_EVENT_DISCONNECTED:
			if (k->state != COLL_READ_DONE)
				fprintf(stderr, "dpdk-rdma-nf: the NF went before the run ended\n");
			k->state = COLL_ENDED;
			break;
		default:
			fprintf(stderr, "dpdk-rdma-nf: collector: %s\n", dr_cm_event_str(ev->event));
			rc = k->state == COLL_LISTENING ? 0 : -1;
			break;
		}
		(void)dr_cm_ack_cm_event(ev);
	}
	if (rc == 0 && k->c.id != NULL && k->c.id->qp != NULL)
		rc = completions(k);
	return rc;
}

int
nf_collect_fin(struct collector *k)
{
	struct nf_msg m = { .type = NF_MSG_FIN };

	if (nf_conn_send(&k->c, &m) != 0)
		return -1;
	k->state = COLL_FIN_SENT;
	return 0;
}

void
nf_collect_fini(struct collector *k)
{
	nf_conn_drop(&k->c);
	if (k->listen != NULL)
		(void)dr_cm_destroy_id(k->listen);
	if (k->ring_mr != NULL)
		(void)dr_dereg_mr(k->ring_mr);
	if (k->read_mr != NULL)
		(void)dr_dereg_mr(k->read_mr);
	nf_conn_fini(&k->c);
	free(k->ring);
	free(k->read_back);
}
