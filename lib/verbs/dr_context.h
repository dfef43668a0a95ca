/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CONTEXT_H
#define DR_CONTEXT_H

/*
 * The objects behind the public handles: device, context, PD, MR, CQ.
 * (QPs: dr_qp_impl.h.) One context per DPDK port. Who touches what:
 * DR_PROGRESS_INLINE runs everything in the one thread that calls into the
 * context. DR_PROGRESS_RTC runs the stages on worker lcores (dr_worker.h):
 * object tables are written by the control side (the application's calls)
 * with release stores and read lock-free by the workers; objects leave a
 * table before they are freed, after every worker has passed a quiescent
 * point (dr_engine_sync()). A QP's transport state is touched by its worker
 * only: the control side asks the worker to change it (dr_engine_call()).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "dr_backend.h"
#include "dr_cc.h"
#include "dr_config.h"
#include "dr_idx.h"
#include "dr_mr_check.h"
#include "dr_verbs.h"
#include "dr_worker.h"

struct dr_qp_impl;
struct dr_mw_impl;
struct dr_srq_impl;

struct dr_device {
	uint16_t port_id;
	char name[64];                      /* "dr_" + the port's name */
};

/* Port states of dr_port_attr.state (IBV_PORT_DOWN, IBV_PORT_ACTIVE). */
#define DR_PORT_DOWN 1
#define DR_PORT_ACTIVE 4

/*
 * The open contexts by port (dr_context.c): lock, look up, unlock. For
 * readers outside the application's calls (telemetry).
 */
void dr_ctx_registry_lock(void);
void dr_ctx_registry_unlock(void);
struct dr_context *dr_ctx_registry_get(uint16_t port);

/* Queued asynchronous events of a context (dr_event.c). */
#define DR_ASYNC_EVENTS 64

struct dr_io_app;

struct dr_context {
	struct dr_device device;
	uint16_t port_id;
	uint16_t rx_queue;
	uint16_t tx_queue;
	struct dr_context_attr attr;        /* as opened */
	const struct dr_backend_ops *be;
	struct dr_backend_port bport;       /* the backend's view of the context (dr_backend.h) */
	/* the workers' receive and transmit: the backend's, or the application's rings (DR_IO_APP) */
	uint16_t (*io_rx)(struct dr_backend_port *bp, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
	uint16_t (*io_tx)(struct dr_backend_port *bp, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
	struct dr_io_app *io_app;           /* DR_IO_APP: the staging rings (dr_io_app.c); else NULL */
	int socket_id;                      /* the port's NUMA socket (SOCKET_ID_ANY: unknown) */
	struct rte_mempool *pool;
	bool own_pool;                      /* created by us: freed at close */
	struct rte_ether_addr mac;
	uint32_t link_mtu;                  /* IP MTU in bytes */
	enum dr_mtu active_mtu;             /* largest IB MTU below link_mtu - RoCE overhead (as rxe) */
	union dr_gid gid[DR_MAX_GIDS];      /* 0: fe80::EUI-64, 1: IPv4-mapped, 2..: IPv6 */
	uint8_t gid_valid[DR_MAX_GIDS];
	unsigned int num_gids;
	uint64_t tsc_hz;
	uint32_t tx_zcopy_min;              /* payload bytes from which frames attach it (UINT32_MAX: never) */
	bool express;                       /* received frames try the express path first (!attr.disable_express) */
	uint32_t inflight_bytes;            /* a reliable QP's send window in bytes (dr_req_start()), 0: the
					     * default in packets */
	uint64_t keepalive_ticks;           /* a reliable QP's keepalive interval (TSC ticks; 0: off) */
	uint32_t keepalive_probes;          /* ... and the probes unanswered that end it */
	struct dr_cc_ctx cc;                /* congestion control (lib/cc/dr_cc.h), fixed at open */

	/*
	 * Object tables, read lock-free by the workers (entries published with
	 * release, loaded with acquire). The QP and MR tables are allocated at
	 * open on the port's socket (dr_context.c: ctx_tables_alloc()), max_qp
	 * and DR_MAX_MR entries; QPN = DR_QPN_BASE + index.
	 */
	struct dr_qp_impl **qp_table;       /* max_qp entries */
	struct dr_qp_impl *gsi_qp;          /* QP1 (DR_GSI_QPN), the CM's: dr_qp_create_gsi() */
	uint32_t max_qp;                    /* dr_context_attr.max_qp, or DR_MAX_QP */
	struct dr_idx_fifo qp_free;         /* free QP indices, oldest first (delayed QPN reuse) */
	struct dr_qp_list qps;              /* every QP of the context (qp->ctx_link), under ctl_lock */
	struct dr_mr_impl **mr_table;       /* DR_MAX_MR entries */
	/*
	 * Bumped by every deregistration, before its quiescent point: a send WQE
	 * whose L_Keys were checked at post under the same value needs no second
	 * check where its frames are built (dr_qp_pkt.c).
	 */
	uint32_t mr_gen;
	uint8_t *mr_variant;                /* DR_MAX_MR: key byte of each slot, bumped at every reuse */
	struct dr_idx_stack mr_free;        /* free MR slots, newest first */
	struct dr_mw_impl *mw_table[DR_MAX_MW];    /* key index DR_MAX_MR + slot */
	struct dr_srq_impl *srq_table[DR_MAX_SRQ]; /* SRQ number - 1 */
	uint8_t mw_variant[DR_MAX_MW];      /* last key portion of each window slot */
	uint32_t num_qps, num_mrs, num_pds, num_cqs, num_srqs, num_mws, num_xrcds;

	/* the engine (dr_worker.h): nb_workers runners of the stages, each with its queues */
	struct dr_worker *wk;               /* nb_workers of them */
	uint16_t nb_workers;                /* pipeline: 3 per group */
	uint16_t nb_groups;                 /* queue pairs the engine wants: rtc workers or pipeline groups */
	uint16_t nb_rxq, nb_txq;            /* queues of the port the workers use (<= nb_workers) */
	uint16_t next_worker;               /* round-robin placement of new QPs / SRQs / XRCDs */
	struct rte_rcu_qsbr *rcu;           /* workers' quiescent states (DR_PROGRESS_RTC) */
	struct dr_control *ctl;             /* the control thread (dr_control.h; NULL inline) */
	pthread_mutex_t ctl_lock;           /* QP creation / destruction (qp_table, qps) vs. readers
					     * outside the workers (telemetry, CQ overrun) */

	/* asynchronous events (dr_event.c): a ring, an eventfd readable while it holds some */
	struct dr_async_event async_ev[DR_ASYNC_EVENTS];
	uint32_t async_head, async_tail;
	rte_spinlock_t async_lock;          /* raised by workers and control, read by the application */
	int async_fd;
	int port_state;                     /* last seen: DR_PORT_ACTIVE / DR_PORT_DOWN, 0 = unknown */
	uint64_t port_check_at;             /* TSC of the next link check */

	/*
	 * The connection manager of the context (lib/cm/dr_cm_svc.c), set while
	 * it runs: inline, dr_progress() calls cm_progress no more often than
	 * cm_every cycles (a compare, no lock); dr_close_device() calls cm_close
	 * first (QP1 and its objects go before the checks for leftovers);
	 * dr_stop_workers() calls cm_linger first (what the CM still owes the
	 * wire goes out while the workers still carry it).
	 */
	void *cm;
	void (*cm_progress)(struct dr_context *ctx, uint64_t now);
	void (*cm_close)(struct dr_context *ctx);
	/* the graph nodes (lib/graph), when attached to them: dr_close_device() detaches it */
	int (*graph_detach)(struct dr_context *ctx);
	void (*cm_linger)(struct dr_context *ctx);
	uint64_t cm_next;                   /* TSC of the next cm_progress */
	/* inline mode: the rounds dr_progress() ran, so that dr_poll_cq() knows
	 * whether the transport moved since it last looked (dr_cq.c) */
	uint64_t inline_rounds;
};

struct dr_pd {
	struct dr_context *context;
	uint32_t refcnt;                    /* MRs and QPs using it */
};

struct dr_mr_impl {
	struct dr_mr pub;
	struct dr_mr_region region;         /* iova = addr, length, access */
	uint32_t num_mw;                    /* memory windows bound to it (dereg: -EBUSY) */
	uint32_t zc_frames;                 /* frames in flight with payload attached from it
					     * (atomic: built by workers, freed by the PMD) */
};

/* MR of a local key (L_Key) or remote key (R_Key), NULL if none: full key must match. */
static inline struct dr_mr_impl *
dr_mr_lookup(struct dr_context *ctx, uint32_t key)
{
	uint32_t idx = dr_mr_key_index(key);
	struct dr_mr_impl *mr;

	if (idx >= DR_MAX_MR)
		return NULL;
	mr = __atomic_load_n(&ctx->mr_table[idx], __ATOMIC_ACQUIRE);  /* published with release */
	if (mr == NULL || mr->pub.lkey != key)
		return NULL;
	return mr;
}

/*
 * One producer's ring of a CQ: each worker adds the completions of its QPs
 * to its own lane (single producer), the poller reads every lane (single
 * consumer). Completions of one QP stay in order (a QP lives on one worker);
 * completions of QPs on different workers have no order between them, as
 * on hardware.
 */
struct dr_cq_lane {
	struct dr_wc *ring;                 /* cq->size entries */
	uint32_t head;                      /* next entry written (producer) */
	uint32_t tail;                      /* next entry read (consumer) */
};

struct dr_cq_impl {
	struct dr_cq pub;
	struct dr_cq_lane *lane;            /* nlanes of them: one per worker of the context */
	uint16_t nlanes;
	uint16_t next_lane;                 /* the poller's round-robin start */
	uint32_t size;                      /* entries per lane, a power of two */
	bool overrun;                       /* a completion was lost (IBA 11.4.2.1) */
	uint32_t refcnt;                    /* QPs using it */
	/* completion events (dr_event.c) */
	struct dr_comp_channel *channel;
	uint8_t notify;                     /* DR_CQ_NOTIFY_* armed by dr_req_notify_cq() */
	uint32_t events_got;                /* events handed out by dr_get_cq_event() */
	uint32_t events_acked;              /* ... and acknowledged */
	uint32_t async_unacked;             /* CQ_ERR events not acknowledged */
	uint64_t inline_seen;               /* the context's inline_rounds at the last poll */
};

enum {
	DR_CQ_NOTIFY_NONE,
	DR_CQ_NOTIFY_NEXT,                  /* any next completion */
	DR_CQ_NOTIFY_SOLICITED,             /* the next solicited or failed one */
};

/* Completions queued in a CQ, all lanes (a snapshot when workers run). */
static inline uint32_t
dr_cq_count(const struct dr_cq_impl *cq)
{
	uint32_t n = 0;

	for (uint16_t i = 0; i < cq->nlanes; i++)
		n += __atomic_load_n(&cq->lane[i].head, __ATOMIC_ACQUIRE) - cq->lane[i].tail;
	return n;
}

/*
 * Add a completion, to the lane of the calling worker (dr_cur_worker; lane 0
 * for any other thread, which is then the only producer: inline mode).
 * Returns 0, or -EOVERFLOW when the CQ is full: the
 * completion is lost, the CQ is marked overrun (dr_poll_cq() reports it).
 */
int dr_cq_push(struct dr_cq_impl *cq, const struct dr_wc *wc);
/* The same, for a receive completion of a request with BTH.SE set (solicited events). */
int dr_cq_push_se(struct dr_cq_impl *cq, const struct dr_wc *wc, bool solicited);

/* dr_event.c: raise the completion event of an armed CQ (called by the push). */
void dr_cq_event(struct dr_cq_impl *cq, bool solicited_or_error);
/* End of a worker's round: raise the events of the armed CQs it pushed to (dr_cq.c). */
struct dr_worker;
void dr_cq_notify_flush(struct dr_worker *wk);
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

/*
 * Queue a frame built outside the stages (backend ARP / ND, control calls):
 * on the calling worker's staging when it is a worker of @ctx, else for
 * worker 0 to send (dr_worker.c). The stages use dr_wk_tx() on their QP's worker.
 */
void dr_ctx_tx(struct dr_context *ctx, struct rte_mbuf *m);

/*
 * What an rte_malloc() / rte_zmalloc() of @size bytes takes from the heap:
 * the size rounded up to a cache line, and one cache line of element header
 * (DPDK 22.11 malloc_elem.h: MALLOC_ELEM_HEADER_LEN, no trailer without
 * RTE_MALLOC_DEBUG). Alignment padding above a cache line is not counted.
 */
static inline uint64_t
dr_malloc_cost(size_t size)
{
	return size == 0 ? 0 : RTE_ALIGN_CEIL((uint64_t)size, RTE_CACHE_LINE_SIZE) + RTE_CACHE_LINE_SIZE;
}

static inline struct dr_cq_impl *dr_cq_impl(struct dr_cq *cq) { return (struct dr_cq_impl *)cq; }
static inline struct dr_mr_impl *dr_mr_impl(struct dr_mr *mr) { return (struct dr_mr_impl *)mr; }

#endif /* DR_CONTEXT_H */
