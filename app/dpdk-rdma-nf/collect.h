/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_NF_COLLECT_H
#define DR_NF_COLLECT_H

/*
 * The collector (collect.c), the peer's RDMA side: it listens, accepts the
 * NF with its ring in the REP, checks every record of every batch as it
 * lands (the first NF_RECORD bytes of the frame the generator sent, the
 * Nth, 2Nth ... of them), and at the end sends FIN, takes the NF's DONE and
 * reads its counters with RDMA READ.
 */

#include "conn.h"

enum coll_state { COLL_LISTENING, COLL_CONNECTED, COLL_FIN_SENT, COLL_READING, COLL_READ_DONE, COLL_ENDED };

struct collector {
	const struct nf_opts *o;
	struct nf_conn c;
	struct dr_cm_id *listen;
	enum coll_state state;
	uint8_t *ring;                     /* NF_SLOTS slots of NF_SLOT_BYTES */
	struct dr_mr *ring_mr;
	struct nf_counters *read_back;     /* the NF's counters, read */
	struct dr_mr *read_mr;
	struct nf_req_pdata nf;            /* the NF's counters region */
	struct nf_counters done;           /* the counters the NF's DONE carried */
	uint64_t batches;                  /* the next batch number expected */
	uint64_t records;
	uint64_t bad_records;              /* not the head of a frame the generator sent */
	uint64_t misplaced;                /* not the Nth, 2Nth ... frame */
	uint64_t bad_batches;              /* out of order or too many records */
	double first_batch, last_batch;    /* nf_now() of the first and the last batch checked */
};

int nf_collect_init(struct collector *k, const struct nf_opts *o, struct dr_context *ctx);
/* Events and completions, without blocking. 0, or -1 when the run cannot go on (printed). */
int nf_collect_poll(struct collector *k);
/* The generator is done and its frames are in: ask the NF to flush. */
int nf_collect_fin(struct collector *k);
void nf_collect_fini(struct collector *k);

#endif /* DR_NF_COLLECT_H */
