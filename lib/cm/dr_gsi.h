/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_GSI_H
#define DR_GSI_H

/*
 * QP1 of a context, the General Services Interface (IBA 13.5.1): a UD QP
 * numbered DR_GSI_QPN with the Q_Key DR_GSI_QKEY, P_Key index 0, its own
 * PD, CQ, registered receive and send slots and a cache of address handles
 * by peer GID. MADs go out to the peer's QP1 over RoCEv2 like any UD
 * message (Annex A17: the IP header stands for the GRH); what arrives is
 * handed on with the GID it came from (the UD receive buffer's GRH area).
 *
 * One caller at a time (the CM's service: the application's thread in
 * inline mode, the CM thread otherwise); the QP itself runs on a worker as
 * any QP does, in every engine mode.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dr_mad.h"
#include "dr_verbs.h"

/* Linux's MAD layer posts as many (IB_MAD_QP_RECV_SIZE, IB_MAD_QP_SEND_SIZE) */
#define DR_GSI_RECVS 512         /* receive slots posted */
#define DR_GSI_SENDS 128         /* MADs in flight at once */
#define DR_GSI_BACKLOG 512       /* MADs waiting for a send slot (or an address handle) */
#define DR_GSI_AHS 32            /* peers whose address handle is kept */

/** Counters of QP1. */
struct dr_gsi_stats {
	uint64_t rx;             /**< MADs received (handed on) */
	uint64_t rx_short;       /**< receives shorter than a MAD (dropped) */
	uint64_t rx_err;         /**< receive completions in error */
	uint64_t tx;             /**< MADs sent */
	uint64_t tx_queued;      /**< held back until a send slot was free, then sent */
	uint64_t tx_busy;        /**< not sent: every send slot in flight and the backlog full */
	uint64_t tx_err;         /**< not sent: no address handle, a post or completion error */
};

struct dr_gsi_ah {
	union dr_gid gid;
	struct dr_ah *ah;
	uint64_t used;           /* last use: the oldest goes when the cache is full */
};

/* A MAD that waits for a send slot, and where it goes. */
struct dr_gsi_held {
	uint8_t gid[16];
	uint8_t mad[DR_MAD_SIZE];
};

/** QP1 and what it needs; its fields are its own. */
struct dr_gsi {
	struct dr_context *ctx;
	struct dr_pd *pd;
	struct dr_cq *cq;
	struct dr_qp *qp;
	struct dr_mr *mr;
	uint8_t *buf;            /* DR_GSI_RECVS receive slots, then DR_GSI_SENDS send slots */
	uint32_t send_next;
	uint32_t send_out;       /* sends posted, not yet completed */
	struct dr_gsi_held *held; /* the backlog: DR_GSI_BACKLOG MADs, a ring */
	uint32_t held_head, held_n;
	struct dr_gsi_ah ahs[DR_GSI_AHS];
	uint64_t tick;
	struct dr_gsi_stats stats;
};

/**
 * Make QP1 on @ctx and post its receives; its CQ on completion channel @chan
 * (NULL: none). 0, or -errno (-EEXIST: it has one).
 */
int dr_gsi_open(struct dr_gsi *g, struct dr_context *ctx, struct dr_comp_channel *chan);

/** Destroy what dr_gsi_open() made. */
void dr_gsi_close(struct dr_gsi *g);

/**
 * Send the DR_MAD_SIZE bytes of @mad to QP1 at @gid. With every send slot
 * in flight it waits in the backlog, in order, and goes out as sends
 * complete (dr_gsi_poll()): a response no timer resends (a DREP, an RTU, a
 * REJ) is not lost to a burst. 0 (sent or held), -EAGAIN (the backlog is
 * full too), -errno (-EHOSTUNREACH: no address handle for @gid).
 */
int dr_gsi_send(struct dr_gsi *g, const uint8_t gid[16], const uint8_t *mad);

/** Has QP1 a MAD in flight or held back? */
static inline bool
dr_gsi_sending(const struct dr_gsi *g)
{
	return g->send_out != 0 || g->held_n != 0;
}

/** What dr_gsi_poll() hands on: a MAD of @len bytes from @gid. */
typedef void dr_gsi_rx_fn(void *arg, const uint8_t gid[16], const uint8_t *mad, size_t len);

/**
 * Take QP1's completions (inline mode: this drives the transport, as
 * dr_poll_cq() does): each MAD received goes to @rx, its slot is posted
 * again. The number of completions, or -errno.
 */
int dr_gsi_poll(struct dr_gsi *g, dr_gsi_rx_fn *rx, void *arg);

#endif /* DR_GSI_H */
