/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_WORKER_H
#define DR_WORKER_H

/*
 * A worker: one runner of the transport's stages for a shard of a
 * context's QPs. In DR_PROGRESS_INLINE mode a context has one worker, run by
 * the application's thread from dr_progress(); in DR_PROGRESS_RTC mode each
 * worker is an EAL lcore of its own (dr_engine_lcore.c) that runs rx, the
 * responder, completer, timers, requester and tx for the QPs it owns (role
 * DR_WK_ALL). In DR_PROGRESS_PIPELINE mode workers come in groups of three
 * (dr_engine_pipeline.c), each running some stages for every QP of the group:
 *   DR_WK_RX    the rx queue, the checks and ICRC, the responder; responses
 *               go to the group's completion worker (redirect ring)
 *   DR_WK_TX    the requester and the tx queue; the other two hand it their
 *               frames (txq_in rings)
 *   DR_WK_COMP  the completer (responses, timers, CQEs), and the group's
 *               slow-path calls, run while the other two are parked
 *
 * Everything in here is written by the worker's own thread only (its
 * counters included: readers sum them, dr_ctx_stats_sum()); other threads
 * reach it through the rings at the bottom:
 *   cmd         any thread -> this worker: slow-path calls run on the
 *               owner of the QP (dr_engine_call())
 *   redirect[j] worker j -> this worker: frames that arrived on j's rx
 *               queue for a QP of ours (SPSC, one ring per sender)
 *   txq_in[j]   worker j -> this worker: frames of a worker that has no
 *               tx queue of its own (the port has fewer queues than workers)
 *   ctl_tx      control threads -> worker 0: frames built outside any worker
 *               (ARP / ND requests of dr_create_ah(), ...)
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_mbuf.h>
#include <rte_per_lcore.h>
#include <rte_ring.h>

#include "dr_run_clock.h"

#include "dr_config.h"
#include "dr_verbs.h"

struct dr_context;
struct dr_qp_impl;

/* Counters of one worker; dr_ctx_stats_sum() adds them up. */
struct dr_ctx_stats {
	uint64_t rx_pkts;
	uint64_t rx_not_roce;               /* handed to the backend (ARP, ND, ...) */
	uint64_t rx_malformed;              /* dr_pkt_parse() errors */
	uint64_t rx_bad_icrc;
	uint64_t rx_placed;                 /* WRITE payloads placed as their ICRC was checked (one pass) */
	uint64_t rx_express;                /* requests the express path took whole (dr_resp_express.c) */
	uint64_t rx_no_qp;                  /* destination QPN unknown */
	uint64_t rx_bad_pkey;               /* P_Key not of the default partition (IBA 9.6.1.1) */
	uint64_t rx_bad_addr;               /* RC, UC: not from the connection's peer to its GID */
	uint64_t rx_bad_state;              /* requests to a QP that takes none (RESET, INIT, ERR:
					     * IBA 10.3.1), responses to a requester that is not sending */
	uint64_t rx_duplicate;              /* RC requests behind the expected PSN (IBA 9.7.5.1.1):
					     * ACKed again, replayed or dropped (too old) */
	uint64_t rx_stale_resp;             /* responses answering nothing outstanding: duplicate,
					     * stale or unsolicited (IBA 9.7.5.2.x: dropped) */
	uint64_t rx_dropped;                /* requests dropped by the responder: RC ones it could not
					     * hold behind a READ (retransmitted); UC / UD ones (Q_Key,
					     * no receive WQE, lost packet of the message): IBA
					     * says so, no NAK exists for them */
	uint64_t rx_redirected;             /* frames handed to the QP's owner worker */
	uint64_t rx_redirect_full;          /* ... dropped: the owner's redirect ring was full */
	uint64_t tx_ud_oversize;            /* UD sends above the path MTU: dropped, completed OK */
	uint64_t tx_ud_unreachable;         /* UD sends whose neighbour failed to resolve: dropped */
	uint64_t tx_pkts;
	uint64_t tx_nombuf;                 /* mbuf allocation failed: retried later */
	uint64_t tx_zcopy;                  /* frames whose payload was attached, not copied */
	uint64_t tx_express;                /* one-packet requests built whole (dr_qp_pkt_only()) */
	uint64_t tx_dropped;                /* staging array full and the PMD took nothing */
	/* reliability (RC, XRC): what the requester and responder did about loss */
	uint64_t retries;                   /* go-back-N retries (NAK, implicit NAK, timeout) */
	uint64_t rereads;                   /* READs asked again for a gap (from their first missing byte) */
	uint64_t rx_read_held;              /* READ responses kept after a lost one (dr_comp_read_hold.c) */
	uint64_t ack_timeouts;              /* local ACK timer expiries (IBA 9.7.6.1.3) */
	uint64_t rto_expiries;              /* adaptive timer expiries: go-back-N, no retry spent */
	uint64_t tlp_probes;                /* tail-loss probes sent */
	uint64_t rto_spurious;              /* of rto_expiries, needless ones (F-RTO, dr_comp_rto.c) */
	uint64_t keepalives;                /* keepalive probes sent (idle RC QPs) */
	uint64_t naks_seq_rx;               /* PSN sequence error NAKs received */
	uint64_t naks_rnr_rx;               /* RNR NAKs received */
	uint64_t naks_err_rx;               /* class C NAKs received (access, invalid request, op) */
	uint64_t acks_tx;                   /* ACKs sent (not counting READ responses, atomic ACKs) */
	uint64_t naks_seq_tx;
	uint64_t naks_rnr_tx;
	uint64_t naks_err_tx;
	/* selective repeat (dr_set_ece()): requests held after a gap, SACKs, what was resent for them */
	uint64_t rx_sr_held;
	uint64_t rx_app_copied;             /* requests kept as copies: the application's pool share spent */
	uint64_t sacks_tx;
	uint64_t sacks_rx;
	uint64_t sr_resends;
	uint64_t sr_probes;                 /* of sr_resends, the recovery timer's (dr_comp_sr_timer()) */
	/* congestion control (lib/cc, dr_cnp.c): ECN CE seen, CNPs sent and received */
	uint64_t rx_ecn_ce;                 /* packets of RC / UC / XRC QPs marked CE by the network */
	uint64_t tx_cnp;                    /* CNPs sent for them (at most one per QP per interval) */
	uint64_t rx_cnp;                    /* CNPs received for our QPs */
};

/* Busy / idle accounting of a worker lcore (dr_engine_lcore.c). */
struct dr_lcore_stats {
	uint64_t loops;
	uint64_t busy_loops;                /* loops that moved at least one packet or WQE */
	uint64_t busy_cycles;               /* TSC cycles spent in busy loops */
	uint64_t idle_cycles;
	uint64_t rx_bursts;                 /* rx bursts that returned frames */
	uint64_t rx_burst_pkts;             /* frames those bursts returned */
	uint64_t idle_naps;                 /* DR_IDLE_SLEEP's naps (dr_idle_nap()), inline or lcore */
};

/* A slow-path call run by a worker for another thread (dr_engine_call()). */
struct dr_engine_cmd {
	int (*fn)(void *arg);
	void *arg;
	int rc;
	uint32_t done;                      /* set with release by the worker */
};

TAILQ_HEAD(dr_qp_list, dr_qp_impl);

/* What a worker runs (its active list's link in the QP is wk_link[role], DR_WK_ALL uses [0]). */
enum dr_wk_role {
	DR_WK_RX = 0,
	DR_WK_TX = 1,
	DR_WK_COMP = 2,
	DR_WK_ALL = 3,
};
#define DR_WK_ROLES 3

/* Index of a role's link in a QP (wk_link[]). */
static inline unsigned int dr_wk_link(enum dr_wk_role r) { return r == DR_WK_ALL ? 0 : (unsigned int)r; }

#define DR_WK_NO_QUEUE UINT16_MAX
#define DR_WK_NOTIFY_CQS 16                /* CQs a round notes for its end-of-round event check */

struct dr_cq_impl;

/* dr_worker.rx_budget when no caller set one */
#define DR_RX_BUDGET_ANY UINT32_MAX

struct dr_worker {
	struct dr_context *ctx;
	uint16_t id;                        /* 0 .. ctx->nb_workers - 1 */
	enum dr_wk_role role;
	struct dr_worker *grp[DR_WK_ROLES]; /* pipeline: the group's rx, tx and completion workers */
	struct dr_worker *tx_via;           /* sends our frames when we have no tx queue */
	uint16_t rxq;                       /* the port's rx queue, DR_WK_NO_QUEUE: none */
	uint16_t txq;                       /* the port's tx queue, DR_WK_NO_QUEUE: worker 0's */
	unsigned int lcore;                 /* RTE_MAX_LCORE in inline mode */
	uint32_t rx_budget;                 /* frames a round may take from its rx queue (DR_RX_BUDGET_ANY:
					     * the round's own bound; dr_progress_budget() sets less) */

	/* frames the express path finished with, freed in bulk after each burst (dr_engine.c) */
	struct rte_mbuf *rx_done[DR_BURST];
	uint16_t rx_ndone;

	/* frames built and not yet taken by the PMD, sent at the end of each round */
	struct rte_mbuf *tx_buf[DR_BURST * 4];
	uint16_t tx_count;
	uint64_t tx_staged_bytes;           /* bytes of the frames staged so far (the pacer's measure) */

	struct dr_qp_list active;           /* QPs with transport work (dr_engine_qp_*) */
	/*
	 * Requests the responders of its QPs (qp->wk is where the responder runs)
	 * hold while they answer READs, and how many they may: the rest are
	 * dropped and retransmitted, so held requests never take the mbufs the
	 * responses that free them need (changed by this worker, or while it is
	 * parked)
	 */
	uint32_t resp_held;
	uint32_t resp_held_max;
	/* of resp_held, frames from the application's pools, and how many may be (more are copied) */
	uint32_t app_held;
	uint32_t app_held_max;
	uint32_t num_active;
	uint32_t num_qps;                   /* QPs placed on this worker */
	/*
	 * Many active QPs (more than DR_SCHED_ALL_MAX, DR_WK_ALL only:
	 * dr_engine_sched.c): a round visits the QPs on the hot list - a frame
	 * came for them, the application posted to them (the doorbell ring),
	 * work was left - and sweeps DR_SCHED_SWEEP of the others for their
	 * timers; otherwise every round visits every active QP
	 */
	bool many;                          /* read by posters (relaxed) */
	uint64_t idle_since;                /* inline: TSC of the last dr_progress() with work */
	/* DR_IDLE_AUTO (dr_idle_cpu_shared()): the last look, the run-queue wait it read, the average share, naps until */
	uint64_t auto_checked;
	uint64_t auto_wait_ns;
	uint32_t auto_wait_pct;
	uint64_t auto_shared_until;
	struct dr_qp_list hot;
	struct dr_qp_impl *sweep;           /* the active QP the sweep visits next (NULL: the first) */
	struct rte_ring *doorbell;          /* QPNs of QPs posted to, MP/SC (DR_WK_ALL) */

	struct dr_ctx_stats stats;
	struct dr_lcore_stats lstats;
	/*
	 * CQs with a completion channel it pushed to this round, whose armed
	 * state it reads once, after one fence, at the round's end
	 * (dr_cq_notify_flush(); in_round: a round is under way)
	 */
	struct dr_cq_impl *notify_cq[DR_WK_NOTIFY_CQS];
	bool notify_se[DR_WK_NOTIFY_CQS];   /* ... a solicited or failed completion among them */
	uint16_t notify_n;
	bool in_round;
	/* the time base of its QPs' retransmission timers: stalls of its own left out (dr_run_clock.h) */
	struct dr_run_clock clock;

	struct rte_ring *cmd;               /* struct dr_engine_cmd *, MP/SC */
	struct rte_ring *redirect[DR_MAX_WORKERS];  /* [j]: from worker j, SPSC */
	struct rte_ring *txq_in[DR_MAX_WORKERS];    /* [j]: frames worker j sends through us, SPSC */
	struct rte_ring *ctl_tx;            /* worker 0 only: frames of control threads, MP/SC */
	/* pipeline */
	struct rte_ring *fail_in;           /* completion worker: QPs its rx worker found failing, SPSC */
	uint32_t pause_seq;                 /* rx / tx worker: odd = park (written by the completion worker) */
	uint32_t pause_ack;                 /* rx / tx worker: the pause_seq it parked for */
	uint32_t pause_seen;                /* rx / tx worker: the even pause_seq it began a round under */
	uint32_t park_depth;                /* completion worker: nested dr_pipe_park() calls */
	bool gone;                          /* its lcore left the loop (set with release) */
	bool stop;                          /* set by dr_close_device() (release) */
	bool launched;                      /* remote-launched on lcore (DR_PROGRESS_RTC) */
} __rte_cache_aligned;

/* The worker the calling thread runs, NULL outside the engine's loops. */
RTE_DECLARE_PER_LCORE(struct dr_worker *, dr_cur_worker);

/* Hand the frames queued on @wk to the port (or to worker 0 when @wk has no tx queue). */
void dr_wk_tx_flush(struct dr_worker *wk);
/* dr_wk_tx() when @wk's staging is full: flush, then queue @m (or drop it: the PMD took nothing). */
void dr_wk_tx_full(struct dr_worker *wk, struct rte_mbuf *m);

/*
 * Where frames built in place go: the first free slot of @wk's staging
 * (dr_tx_room() says how many follow it); dr_wk_tx_commit() queues the
 * first @n of them, of @bytes in all.
 */
static inline struct rte_mbuf **
dr_wk_tx_slots(struct dr_worker *wk)
{
	return &wk->tx_buf[wk->tx_count];
}

static inline void
dr_wk_tx_commit(struct dr_worker *wk, unsigned int n, uint32_t bytes)
{
	wk->tx_count += n;
	wk->tx_staged_bytes += bytes;
}

/* Queue a built frame on worker @wk (the calling thread must be that worker). */
static inline void
dr_wk_tx(struct dr_worker *wk, struct rte_mbuf *m)
{
	if (likely(wk->tx_count < RTE_DIM(wk->tx_buf))) {
		wk->tx_staged_bytes += m->pkt_len;
		wk->tx_buf[wk->tx_count++] = m;
		return;
	}
	dr_wk_tx_full(wk, m);
}

#endif /* DR_WORKER_H */
