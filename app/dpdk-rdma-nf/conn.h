/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_NF_CONN_H
#define DR_NF_CONN_H

/*
 * The exporter's and the collector's common part (conn.c): a
 * non-blocking CM event channel, a PD, one CQ, and the in-band messages
 * (struct nf_msg) each side receives and sends on its RC QP. The program's
 * loop never blocks: events and completions are taken as they come.
 */

#include "nf.h"

/*
 * Receives each side keeps posted. The collector's are also its credits: a
 * WRITE WITH IMMEDIATE takes one, and it posts it again once it has read
 * the batch, so no more batches wait unread than its ring has slots (a
 * WRITE finding none is RNR-NAKed, IBA 9.7.5.2.8, and sent again).
 */
#define NF_MSG_RECVS NF_SLOTS

struct nf_conn {
	struct dr_context *ctx;
	uint64_t cm_next;                  /* TSC of the next paced look at the CM events (nf_conn_cm_due) */
	struct dr_cm_event_channel *ch;
	struct dr_cm_id *id;               /* the connection (NULL: none) */
	struct dr_pd *pd;
	struct dr_cq *cq;
	struct nf_msg *msgs;               /* NF_MSG_RECVS to receive into, then one to send */
	struct dr_mr *msgs_mr;
};

int nf_conn_init(struct nf_conn *c, struct dr_context *ctx);
void nf_conn_fini(struct nf_conn *c);
/* An RC QP on @id with the connection's CQ; its receives posted. 0 or -1 (printed). */
int nf_conn_qp(struct nf_conn *c, struct dr_cm_id *id, uint32_t max_send_wr);
/* Post receive @i (wr_id NF_WR_RECV + i) again. */
int nf_conn_recv(struct nf_conn *c, unsigned int i);
/* SEND @m (copied), signalled with wr_id NF_WR_MSG. */
int nf_conn_send(struct nf_conn *c, const struct nf_msg *m);
/* The QP goes: ack nothing, destroy it and the id. */
void nf_conn_drop(struct nf_conn *c);
/*
 * Whether to look at the connection's CM events now: at once while @paced
 * is false (connecting, ending), else every NF_CM_POLL_MS: each non-blocking
 * dr_cm_get_cm_event() drives the transport a round more and asks the
 * kernel whether the channel's fd blocks, which a loop turn should not pay.
 */
bool nf_conn_cm_due(struct nf_conn *c, bool paced, uint64_t now_tsc);

#define NF_CM_POLL_MS 1

#define NF_WR_RECV 0x1000u
#define NF_WR_MSG 0x2000u
#define NF_WR_READ 0x3000u

#endif /* DR_NF_CONN_H */
