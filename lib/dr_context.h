/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CONTEXT_H
#define DR_CONTEXT_H

/*
 * The objects behind the public handles: device, context, PD, MR, CQ.
 * (QPs: dr_qp_impl.h.) One context per DPDK port; in DR_PROGRESS_INLINE mode
 * everything on a context is touched by the one thread that calls into it,
 * so no object here has a lock.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dr_backend.h"
#include "dr_config.h"
#include "dr_mr_check.h"
#include "dr_verbs.h"

struct dr_qp_impl;
struct dr_mw_impl;
struct dr_srq_impl;

struct dr_device {
	uint16_t port_id;
	char name[64];                      /* "dr_" + the ethdev's name */
};

/* Counters of the receive path, for dumps and tests. */
struct dr_ctx_stats {
	uint64_t rx_pkts;
	uint64_t rx_not_roce;               /* handed to the backend (ARP, ND, ...) */
	uint64_t rx_malformed;              /* dr_pkt_parse() errors */
	uint64_t rx_bad_icrc;
	uint64_t rx_no_qp;                  /* destination QPN unknown */
	uint64_t rx_dropped;                /* UC / UD requests dropped by the responder (Q_Key,
					     * no receive WQE, lost packet of the message): IBA
					     * says so, no NAK exists for them */
	uint64_t tx_ud_oversize;            /* UD sends above the path MTU: dropped, completed OK */
	uint64_t tx_ud_unreachable;         /* UD sends whose neighbour failed to resolve: dropped */
	uint64_t tx_pkts;
	uint64_t tx_nombuf;                 /* mbuf allocation failed: retried later */
	uint64_t tx_dropped;                /* staging array full and the PMD took nothing */
};

/* Port states of dr_port_attr.state (IBV_PORT_DOWN, IBV_PORT_ACTIVE). */
#define DR_PORT_DOWN 1
#define DR_PORT_ACTIVE 4

/* Queued asynchronous events of a context (dr_event.c). */
#define DR_ASYNC_EVENTS 64

struct dr_context {
	struct dr_device device;
	uint16_t port_id;
	uint16_t rx_queue;
	uint16_t tx_queue;
	struct dr_context_attr attr;        /* as opened */
	const struct dr_backend_ops *be;
	void *be_priv;
	struct rte_mempool *pool;
	bool own_pool;                      /* created by us: freed at close */
	struct rte_ether_addr mac;
	uint32_t link_mtu;                  /* IP MTU in bytes */
	enum dr_mtu active_mtu;             /* largest IB MTU below link_mtu - RoCE overhead (as rxe) */
	union dr_gid gid[DR_MAX_GIDS];      /* 0: fe80::EUI-64, 1: IPv4-mapped, 2..: IPv6 */
	uint8_t gid_valid[DR_MAX_GIDS];
	unsigned int num_gids;
	uint64_t tsc_hz;

	/* object tables; QPN = DR_QPN_BASE + index */
	struct dr_qp_impl *qp_table[DR_MAX_QP];
	struct dr_mr_impl *mr_table[DR_MAX_MR];
	struct dr_mw_impl *mw_table[DR_MAX_MW];    /* key index DR_MAX_MR + slot */
	struct dr_srq_impl *srq_table[DR_MAX_SRQ]; /* SRQ number - 1 */
	uint8_t mr_variant[DR_MAX_MR];      /* key byte of each slot, bumped at every reuse */
	uint8_t mw_variant[DR_MAX_MW];      /* last key portion of each window slot */
	uint32_t next_qp_hint;
	uint32_t num_qps, num_mrs, num_pds, num_cqs, num_srqs, num_mws, num_xrcds;

	/* frames built and not yet taken by the PMD, sent at the end of each progress round */
	struct rte_mbuf *tx_buf[DR_BURST * 4];
	uint16_t tx_count;

	struct dr_ctx_stats stats;

	/* asynchronous events (dr_event.c): a ring, an eventfd readable while it holds some */
	struct dr_async_event async_ev[DR_ASYNC_EVENTS];
	uint32_t async_head, async_tail;
	int async_fd;
	int port_state;                     /* last seen: DR_PORT_ACTIVE / DR_PORT_DOWN, 0 = unknown */
	uint64_t port_check_at;             /* TSC of the next link check */
};

struct dr_pd {
	struct dr_context *context;
	uint32_t refcnt;                    /* MRs and QPs using it */
};

struct dr_mr_impl {
	struct dr_mr pub;
	struct dr_mr_region region;         /* iova = addr, length, access */
	uint32_t num_mw;                    /* memory windows bound to it (dereg: -EBUSY) */
};

/* MR of a local key (L_Key) or remote key (R_Key), NULL if none: full key must match. */
static inline struct dr_mr_impl *
dr_mr_lookup(struct dr_context *ctx, uint32_t key)
{
	uint32_t idx = dr_mr_key_index(key);
	struct dr_mr_impl *mr;

	if (idx >= DR_MAX_MR)
		return NULL;
	mr = ctx->mr_table[idx];
	if (mr == NULL || mr->pub.lkey != key)
		return NULL;
	return mr;
}

struct dr_cq_impl {
	struct dr_cq pub;
	struct dr_wc *ring;                 /* size entries, a power of two */
	uint32_t size;
	uint32_t head;                      /* next entry written (producer) */
	uint32_t tail;                      /* next entry read (consumer) */
	bool overrun;                       /* a completion was lost (IBA 11.4.2.1) */
	uint32_t refcnt;                    /* QPs using it */
	/* completion events (dr_event.c) */
	struct dr_comp_channel *channel;
	uint8_t notify;                     /* DR_CQ_NOTIFY_* armed by dr_req_notify_cq() */
	uint32_t events_got;                /* events handed out by dr_get_cq_event() */
	uint32_t events_acked;              /* ... and acknowledged */
	uint32_t async_unacked;             /* CQ_ERR events not acknowledged */
};

enum {
	DR_CQ_NOTIFY_NONE,
	DR_CQ_NOTIFY_NEXT,                  /* any next completion */
	DR_CQ_NOTIFY_SOLICITED,             /* the next solicited or failed one */
};

/* Room left in a CQ. */
static inline uint32_t
dr_cq_room(const struct dr_cq_impl *cq)
{
	return cq->size - (cq->head - cq->tail);
}

/*
 * Add a completion. Returns 0, or -EOVERFLOW when the CQ is full: the
 * completion is lost, the CQ is marked overrun (dr_poll_cq() reports it).
 */
int dr_cq_push(struct dr_cq_impl *cq, const struct dr_wc *wc);
/* The same, for a receive completion of a request with BTH.SE set (solicited events). */
int dr_cq_push_se(struct dr_cq_impl *cq, const struct dr_wc *wc, bool solicited);

/* dr_event.c: raise the completion event of an armed CQ (called by the push). */
void dr_cq_event(struct dr_cq_impl *cq, bool solicited_or_error);
/* dr_event.c: queue an asynchronous event of @ctx (dropped, logged, when the ring is full). */
void dr_async_raise(struct dr_context *ctx, enum dr_event_type type, void *element);
/* dr_event.c: drop the queued events that name @element (it is being destroyed). */
void dr_async_forget(struct dr_context *ctx, const void *element);
/* dr_event.c: PORT_ACTIVE / PORT_ERR when the link changed (rate-limited; from dr_progress()). */
void dr_port_watch(struct dr_context *ctx, uint64_t now);
/* dr_event.c: forget the channel entries of a CQ being destroyed. */
void dr_channel_forget(struct dr_cq_impl *cq);
/* dr_event.c: set up / tear down the async event fd of a context. */
int dr_async_init(struct dr_context *ctx);
void dr_async_fini(struct dr_context *ctx);

/* Queue a built frame for transmission (sent at the end of the progress round). */
void dr_ctx_tx(struct dr_context *ctx, struct rte_mbuf *m);
/* Hand the queued frames to the backend; those it does not take stay queued. */
void dr_ctx_tx_flush(struct dr_context *ctx);

static inline struct dr_cq_impl *dr_cq_impl(struct dr_cq *cq) { return (struct dr_cq_impl *)cq; }
static inline struct dr_mr_impl *dr_mr_impl(struct dr_mr *mr) { return (struct dr_mr_impl *)mr; }

#endif /* DR_CONTEXT_H */
