/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_QP_IMPL_H
#define DR_QP_IMPL_H

/*
 * A queue pair inside: its work queues (filled by the post calls), and the
 * state of its three state machines, each owned by one stage:
 *   requester (dr_req.c)   turns send WQEs into request packets;
 *   responder (dr_resp.c)  checks and executes received requests, acknowledges;
 *   completer (dr_comp.c)  matches responses to send WQEs, retries, completes.
 * The QP's worker (dr_worker.h) runs them all (dr_engine.c): the
 * application's thread in DR_PROGRESS_INLINE mode, a worker lcore in
 * DR_PROGRESS_RTC mode. The post calls write the queues' heads (release),
 * the worker their tails. Each stage's state has one writer, its own file;
 * what crosses stages goes through the named hand-offs of dr_handoff.h
 * (req_out, comp_out and the WQE's state / verdict), which hold across lcores.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include <sys/queue.h>

#include "dr_context.h"
#include "dr_pkt.h"
#include "dr_verbs.h"
#include "dr_worker.h"

/* Life of a send WQE. */
enum dr_wqe_state {
	DR_WQE_POSTED,      /* queued, requester has not started it */
	DR_WQE_ACTIVE,      /* requester has sent part of it */
	DR_WQE_SENT,        /* every request packet sent, waiting for the response(s) */
	DR_WQE_DONE,        /* acknowledged / all responses in: ready to complete */
	DR_WQE_ERROR,       /* failed: complete with status */
};

struct dr_send_wqe {
	/* from the WR (dr_post.c): what every post writes */
	uint64_t wr_id;
	enum dr_wr_opcode opcode;
	unsigned int send_flags;       /* DR_SEND_SIGNALED already set when sq_sig_all */
	rte_be32_t imm_data;
	uint32_t rkey;
	uint64_t remote_addr;
	uint32_t length;               /* bytes of the message (sum of the SGEs / inline bytes) */
	uint32_t mr_gen;               /* ctx->mr_gen before the post checked the L_Keys */
	uint16_t num_sge;
	struct dr_sge *sge;            /* num_sge entries (the queue's SGE array: the slot's, set once) */
	/*
	 * The general post's (from invalidate_rkey to atomic_orig: none of them
	 * in an express WR, which clears them at once, DR_SEND_WQE_GENERAL_*)
	 */
	uint32_t invalidate_rkey;
	/* UD: where it goes; the AH is held (ah->inflight) until the packet is out */
	uint32_t remote_qpn;
	uint32_t remote_qkey;          /* DR_QKEY_USE_QP resolved at post time */
	uint32_t xrc_srqn;             /* XRC_SEND: the target's XRC SRQ */
	uint64_t compare_add;
	uint64_t swap;
	uint8_t *inline_data;          /* copy of the data when DR_SEND_INLINE, else NULL */
	struct dr_ah_impl *ah;
	/* BIND_MW: the window (held: mw->inflight), its new key in rkey, where in remote_addr */
	struct dr_mw_impl *mw;
	struct dr_mr_impl *bind_mr;
	uint64_t bind_len;
	unsigned int bind_access;
	uint64_t atomic_orig;          /* the completer's: an atomic's original remote value */

	/*
	 * The stages' (the post clears them: DR_SEND_WQE_STAGES_*, all zero but
	 * rd_atomic). The requester's (dr_req.c; read by the completer through
	 * dr_handoff.h):
	 */
	enum dr_wqe_state state;       /* POSTED, ACTIVE, SENT; DONE (UC/UD/local); ERROR (local) */
	enum dr_wc_status status;      /* when state is ERROR */
	uint32_t first_psn;            /* PSN of its first packet (READ: of its first response) */
	uint32_t last_psn;             /* PSN of its last packet (READ: of its last response) */
	uint32_t npkts;                /* packets of the message (READ: response packets) */
	bool sent_once;                /* every packet went out at least once (reset by the requester) */
	/* the completer's (dr_comp.c; read by the requester through dr_handoff.h) */
	uint8_t verdict;               /* 0, or DR_WQE_DONE / DR_WQE_ERROR of a reliable WQE */
	/* the post's (beside verdict: a coalesced ACK tests both in one load, dr_comp.c) */
	uint8_t rd_atomic;             /* a READ or an atomic (dr_wr_is_rd_atomic()) */
	enum dr_wc_status comp_status; /* when verdict is ERROR */
	uint32_t resp_bytes;           /* READ: bytes placed so far; atomics: 8 when done */
	bool rd_slot_held;             /* a READ DONE ahead of an older one: its depth slot goes at completion */
};

/*
 * The bytes of the general post's fields (two halves of at most 64 bytes:
 * gcc clears each with vector stores, a longer one with rep stos and its
 * start-up), and of the stages': each cleared in one go by the express post.
 */
#define DR_SEND_WQE_GENERAL_OFF offsetof(struct dr_send_wqe, invalidate_rkey)
#define DR_SEND_WQE_GENERAL2_OFF offsetof(struct dr_send_wqe, inline_data)
#define DR_SEND_WQE_GENERAL_LEN (DR_SEND_WQE_GENERAL2_OFF - DR_SEND_WQE_GENERAL_OFF)
#define DR_SEND_WQE_GENERAL2_LEN (offsetof(struct dr_send_wqe, atomic_orig) + sizeof(uint64_t) - \
				  DR_SEND_WQE_GENERAL2_OFF)
_Static_assert(DR_SEND_WQE_GENERAL_LEN <= 64 && DR_SEND_WQE_GENERAL2_LEN <= 64, "cleared by vector stores");
#define DR_SEND_WQE_STAGES_OFF offsetof(struct dr_send_wqe, state)
#define DR_SEND_WQE_STAGES_LEN (sizeof(struct dr_send_wqe) - DR_SEND_WQE_STAGES_OFF)
_Static_assert(DR_WQE_POSTED == 0 && DR_WC_SUCCESS == 0, "a cleared WQE is POSTED, its statuses SUCCESS");

_Static_assert(offsetof(struct dr_send_wqe, rd_atomic) == offsetof(struct dr_send_wqe, verdict) + 1,
	       "a coalesced ACK reads verdict and rd_atomic as one 16-bit word");

/* BTH.SE of a packet of opcode mask @mask carrying @wqe's last bytes: a solicited SEND or immediate (IBA 9.2.3). */
static inline uint8_t
dr_wqe_bth_se(const struct dr_send_wqe *wqe, uint32_t mask)
{
	return (wqe->send_flags & DR_SEND_SOLICITED) && (mask & (DR_OPF_SEND | DR_OPF_IMM)) ? DR_BTH_SE : 0;
}

/* A READ or an atomic: a WR whose responses carry data and take an initiator slot. */
static inline bool
dr_wr_is_rd_atomic(enum dr_wr_opcode op)
{
	return op == DR_WR_RDMA_READ || op == DR_WR_ATOMIC_CMP_AND_SWP || op == DR_WR_ATOMIC_FETCH_AND_ADD;
}

struct dr_ah_impl;
struct dr_mw_impl;
struct dr_srq_impl;
struct dr_xrcd_impl;

/* Give back the AH / window a send WQE holds (it went out or was executed, or it is flushed). */
void dr_send_wqe_release(struct dr_send_wqe *wqe);

struct dr_recv_wqe {
	uint64_t wr_id;
	uint16_t num_sge;
	struct dr_sge *sge;
	uint32_t length;               /* sum of the SGE lengths */
	uint32_t mr_gen;               /* ctx->mr_gen before the post checked its L_Keys */
};

/* A ring of WQEs; head - tail entries are in use; indices wrap naturally (uint32_t). */
struct dr_sq {
	struct dr_send_wqe *wqe;
	struct dr_sge *sges;           /* size * max_sge */
	uint8_t *inline_buf;           /* size * max_inline */
	uint32_t size;                 /* power of two >= max_send_wr */
	uint32_t max_wr;               /* as granted: posts beyond it are ENOMEM */
	uint32_t max_sge;
	uint32_t max_inline;
	uint32_t head;                 /* next slot to post into (post calls) */
	uint32_t tail;                 /* oldest WQE not yet completed (completer) */
};

struct dr_rq {
	struct dr_recv_wqe *wqe;
	struct dr_sge *sges;
	uint32_t size;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t head;                 /* next slot to post into (post calls) */
	uint32_t tail;                 /* next WQE the responder consumes */
};

/* The producer's index, read by the consumer: the WQEs before it are written (release/acquire). */
static inline uint32_t dr_sq_head(const struct dr_sq *sq) { return __atomic_load_n(&sq->head, __ATOMIC_ACQUIRE); }
static inline uint32_t dr_rq_head(const struct dr_rq *rq) { return __atomic_load_n(&rq->head, __ATOMIC_ACQUIRE); }
/* The SQ's consumer index (the completer's), read by the post calls and the requester. */
static inline uint32_t dr_sq_tail(const struct dr_sq *sq) { return __atomic_load_n(&sq->tail, __ATOMIC_ACQUIRE); }
static inline void dr_sq_tail_set(struct dr_sq *sq, uint32_t t) { __atomic_store_n(&sq->tail, t, __ATOMIC_RELEASE); }
static inline struct dr_send_wqe *dr_sq_wqe(const struct dr_sq *sq, uint32_t i) { return &sq->wqe[i & (sq->size - 1)]; }
static inline struct dr_recv_wqe *dr_rq_wqe(const struct dr_rq *rq, uint32_t i) { return &rq->wqe[i & (rq->size - 1)]; }

/*
 * A stage's copy of the QP's route as prebuilt headers (dr_pkt_tmpl_init()),
 * valid while gen == route_gen + 1: each stage that builds frames (the
 * requester, the responder) keeps its own, so no lcore writes what another
 * reads (dr_qp_pkt_start()).
 */
struct dr_pkt_tmpl_cache {
	struct dr_pkt_tmpl t;
	uint32_t gen;
};

/* Requester state (IBA 9.7.1 - 9.7.4). */
struct dr_req_state {
	struct dr_pkt_tmpl_cache tmpl; /* its frames' headers */
	uint32_t psn;                  /* next PSN to send */
	uint32_t cur;                  /* SQ index of the WQE being sent */
	uint32_t offset;               /* bytes of it already sent */
	uint32_t rd_taken;             /* READ/atomic slots taken (dr_ho_rd_outstanding()) */
	uint32_t rewind_seen;          /* the completer's last go-back-N request acted on */
	/*
	 * SQ index after the newest WQE sent before the last go-back-N: the
	 * WQEs from cur up to it are resent, and a resent WQE is the
	 * completer's to retire at any time (a late ACK covers it), so the
	 * requester reads it, checks it was not retired before its frame goes
	 * out, and writes nothing into it (dr_req.c)
	 */
	uint32_t resend_end;
	bool wait_fence;               /* cur has FENCE and earlier READ/atomics are outstanding */
	/* the last round stopped with a request to send: its budget, tx room, an mbuf or its rate */
	bool blocked;
};

/* What the requester publishes for the completer (dr_handoff.h; written by dr_req.c only). */
struct dr_req_out {
	uint32_t sent_psn;             /* PSN after the newest request sent */
	uint64_t sent_at;              /* the requester's run clock when it was sent */
	uint32_t rewind_done;          /* the newest go-back-N request acted on (rewind_seq) */
} __rte_cache_aligned;

/* What the completer publishes for the requester (dr_handoff.h; written by dr_comp.c only). */
struct dr_comp_out {
	uint32_t acked_psn;            /* oldest PSN not yet acknowledged (comp.psn) */
	uint32_t rd_freed;             /* READ/atomic slots given back */
	uint32_t rewind_seq;           /* go-back-N requests */
	bool rnr_wait;                 /* an RNR NAK's wait is running: send nothing */
} __rte_cache_aligned;

/*
 * Selective repeat (dr_set_ece(), DR_ECE_OPT_SELECTIVE_REPEAT): one
 * allocation per QP that negotiated it. The responder's reorder buffer
 * (requests after a gap, by PSN modulo DR_SACK_BITS) and the completer's
 * record of what it resent and when (dr_comp_sr.c), each written by its
 * own stage only.
 */
struct dr_sr_mem {
	struct rte_mbuf *held[DR_SACK_BITS];     /* responder: request at PSN p in slot p % DR_SACK_BITS */
	uint32_t held_psn[DR_SACK_BITS];         /* responder: the PSN of each held request */
	uint32_t resent_psn[DR_SACK_BITS];       /* completer: PSN resent from this slot (+1; 0 = none) */
	uint32_t resent_mark[DR_SACK_BITS];      /* completer: the requester's sent PSN at that resend */
	uint64_t resent_tsc[DR_SACK_BITS];       /* completer: and the run clock then (dr_run_clock.h) */
};

/*
 * The oldest READ's responses held beyond its first missing one
 * (dr_comp_read_hold.c): placed at their offset, remembered here by their
 * distance k from the READ's first PSN, bit k % DR_READ_HOLD_PSNS, for
 * distances up to DR_READ_HOLD_PSNS - 1 past the first missing one (8 MiB
 * at a 1 KiB path MTU).
 */
#define DR_READ_HOLD_PSNS 8192
struct dr_read_hold {
	uint32_t first_psn;            /* the READ they belong to (its first PSN), when n != 0 */
	uint32_t n;                    /* responses held */
	uint32_t ask_end;              /* the PSN after what the last gap asked for (read with asked only) */
	bool asked;                    /* a gap was asked for and its answer is not all in */
	uint64_t bits[DR_READ_HOLD_PSNS / 64];
};

/* Round-trip samples kept for their median (dr_comp_rto.c: the RTO's bound). */
#define DR_RTT_RECENT 5

/* Completer state (IBA 9.7.5.2, 9.7.6). */
struct dr_comp_state {
	struct dr_pkt_tmpl_cache tmpl; /* the headers of the requests it resends (READ again, SACK holes) */
	uint32_t psn;                  /* oldest PSN not yet acknowledged */
	uint8_t retry_left;            /* transport retries left (retry_cnt) */
	uint8_t rnr_left;              /* RNR retries left (rnr_retry; 7 = infinite) */
	uint64_t timeout_at;           /* local ACK timeout deadline (run clock, dr_run_clock.h), 0 = not armed */
	uint64_t rnr_at;               /* RNR wait deadline (run clock), 0 = none */
	bool started_retry;            /* a NAK/implicit-NAK retry is under way: no second one until progress */
	uint8_t read_ooo;              /* READ responses beyond comp.psn since the last progress */
	uint8_t timeout_for;           /* attr.timeout that timeout_ticks was computed for */
	uint64_t timeout_ticks;        /* local ACK timeout in TSC ticks, 0 = infinite */
	uint64_t sr_last_rx;           /* selective repeat: run clock of the newest response, or of the first
					* request after an idle time; 0 = nothing outstanding (dr_comp_sr.c) */
	uint64_t sr_probe_at;          /* selective repeat: no oldest-PSN probe before this (run clock) */
	uint8_t sr_probe_backoff;      /* selective repeat: probes since the responder last spoke */
	/* the round-trip estimate (RFC 6298 on one timed PSN at a time; dr_comp_rto.c) */
	uint64_t srtt, rttvar;         /* TSC ticks (of the run clock); srtt 0: no sample yet */
	uint64_t rtt_t0;               /* when the timed PSN was seen sent; 0: none timed */
	uint32_t rtt_psn;              /* the timed PSN (its ACK gives the sample), or the newest that may not be */
	uint32_t rtt_rewind;           /* rewind_seq when the timing started: a go-back-N since spoils it */
	uint64_t rtt_recent[DR_RTT_RECENT]; /* the newest samples, a ring: their median is the path's (dr_comp_rto.c) */
	uint64_t rtt_cap;              /* srtt + 4 rttvar is bounded by it (0: no bound, no sample yet) */
	uint8_t rtt_recent_n, rtt_recent_i; /* how many the ring holds, where the next goes */
	/* the adaptive retransmission timer and tail-loss probe (dr_comp_rto.c) */
	uint64_t rto_at;               /* run clock of its expiry; 0: not armed */
	uint64_t wait_from;            /* when the wait started (the last progress) */
	uint64_t sent_at;              /* when the requester's sent PSN last moved */
	uint32_t rto_psn;              /* comp.psn when the wait started: progress restarts it */
	uint32_t seen_sent;            /* the requester's sent PSN as last seen */
	uint32_t sent_max;             /* the newest it has been (a go-back-N sends below it again) */
	uint8_t rto_backoff;           /* expiries without progress: the RTO doubles for each */
	bool tlp_done;                 /* the probe of this wait went out (or an RTO did) */
	bool streaming;                /* a response without progress came in this wait: the responder is busy */
	bool frto_on;                  /* an expiry sent frto_psn again alone: the next progress tells (F-RTO) */
	uint32_t frto_psn;             /* the oldest PSN then */
	uint32_t frto_rewind;          /* rewind_seq then: a go-back-N since (a NAK's) ends the test */
	/* keepalive (dr_comp_keepalive.c) */
	uint64_t heard_at;             /* run clock when the peer was last heard (a response, a request) */
	uint32_t ka_epsn;              /* the responder's ePSN as last seen: requests executed since, if it moved */
	uint64_t ka_sent_at;           /* of the newest probe; 0: none unanswered */
	uint32_t ka_unanswered;        /* probes sent since the peer was last heard */
	/* the oldest READ's responses after a lost one (dr_comp_read_hold.c); last: the bitmap is long */
	struct dr_read_hold read_hold;
};

/* A READ or atomic the responder executed: kept for duplicates (IBA 9.7.5.1.3/4). */
struct dr_resp_res {
	bool valid;
	bool is_read;
	uint32_t first_psn;            /* PSN of the request */
	uint32_t last_psn;             /* PSN of its last response */
	uint64_t va;                   /* READ: remote address of the whole request */
	uint32_t rkey;
	uint32_t length;               /* READ: DMA length */
	uint64_t atomic_orig;          /* atomic: value returned */
	/* READ responses in progress */
	uint32_t next_psn;             /* next response PSN to send */
	uint32_t sent;                 /* bytes sent so far */
	uint32_t start;                /* READ: byte offset where the current (re)play began */
	uint32_t end;                  /* READ: byte offset where the current (re)play stops */
};

/* Requests held while the responder answers a READ (responses go out in PSN order). */
#define DR_RESP_PEND 128

/* Message a responder has open (dr_resp_state.in_msg). */
enum dr_resp_msg {
	DR_RESP_MSG_NONE = 0,
	DR_RESP_MSG_SEND = 1,
	DR_RESP_MSG_WRITE = 2,
};

/* Responder state (IBA 9.7.5.1). */
struct dr_resp_state {
	struct dr_pkt_tmpl_cache tmpl; /* its ACKs' and READ responses' headers */
	uint32_t epsn;                 /* expected PSN */
	uint32_t msn;                  /* message sequence number (24 bits) */
	/* message in progress: which family, and where its data goes */
	uint8_t in_msg;                /* enum dr_resp_msg: 0, SEND or WRITE (multi-packet message open) */
	bool have_rwqe;                /* rq tail WQE taken for the current SEND / WRITE-imm */
	uint32_t rcv_off;              /* bytes of the message placed */
	uint64_t write_va;             /* WRITE: next remote address */
	uint32_t write_resid;          /* WRITE: bytes still allowed by the RETH length */
	struct dr_mr_impl *write_mr;
	uint32_t write_rkey;           /* WRITE: R_Key of the RETH, looked up again for every packet */
	/* acknowledgement owed (coalesced: the last PSN executed) */
	bool ack_pending;
	uint32_t ack_psn;
	uint8_t ack_syndrome;
	bool nak_sent;                 /* a PSN-sequence NAK is out: one per sequence error (IBA 9.7.5.1.1) */
	/* an atomic ACK that could not go out yet (no mbuf, no room, no MAC): sent first in the next round */
	bool atomic_ack_pending;
	uint32_t atomic_ack_psn;
	uint64_t atomic_ack_orig;
	/*
	 * The NAK of a class C error that could not go out before the QP moved
	 * to ERR (no MAC yet: the requester was still being resolved): sent from
	 * ERR as soon as it can, once (dr_qp_to_error() keeps it).
	 */
	bool final_nak_pending;
	uint8_t final_nak_syndrome;
	uint32_t final_nak_psn;
	uint32_t dup_ack_psn;          /* newest SEND/WRITE/atomic PSN executed: duplicates are ACKed with it,
					* never with a READ's PSN (rxe resp.ack_psn - 1) */
	/* READ / atomic resources, max_dest_rd_atomic of them, used round robin */
	struct dr_resp_res res[DR_MAX_RD_ATOMIC];
	uint32_t res_next;
	int res_active;                /* index of the READ being answered, -1 = none */
	/* READs executed while another was being answered: their turn comes in PSN order
	 * (resources, not held mbufs: a READ request is all in its resource) */
	uint8_t res_queue[DR_MAX_RD_ATOMIC];
	uint8_t res_qhead, res_qtail;
	uint32_t unacked;              /* requests executed since the last ACK sent */
	/* requests that arrived while a READ was being answered, oldest at pend_tail */
	struct rte_mbuf *pend[DR_RESP_PEND];
	uint32_t pend_head;
	uint32_t pend_tail;
	/* selective repeat (dr_resp_sr.c): requests held after a gap, NULL without; a SACK owed */
	struct rte_mbuf **sr_held;
	uint32_t sr_count;
	bool sack_owed;
	/* UC (IBA 9.8.x; rxe drop_msg): the message in progress lost a packet, drop the rest of it */
	bool uc_drop;
	/* a pipeline's rx worker found an error that moves the QP to ERR: handed to the completion
	 * worker (dr_qp_fail()); nothing more is taken meanwhile; fail_unsent: its ring was full */
	bool failing;
	bool fail_unsent;
	bool fail_complete;            /* complete the finished sends first (dr_qp_fail()) */
	/* QP on an SRQ: the receive WQE taken for the message in progress (dr_srq.h) */
	struct dr_recv_wqe srq_wqe;
	struct dr_sge srq_sges[DR_MAX_SGE];
};

struct dr_wr_batch;

struct dr_qp_impl {
	union {
		struct dr_qp pub;
		struct dr_qp_ex ex;            /* its first member is pub: the builder of ibv_wr_post(3) */
	};
	struct dr_wr_batch *batch;         /* the builder's staging (dr_wr_ex.c), NULL without send_ops_flags */
	struct dr_qp_attr attr;        /* current attributes (dr_query_qp) */
	struct dr_qp_attr query_snap;  /* dr_query_qp()'s copy, taken on the worker */
	struct dr_qp_init_attr init;   /* creation attributes, caps as granted */
	int sq_sig_all;
	bool post_kick;                /* inline mode, RC / UC: a post to the empty SQ transmits (dr_post.h) */
	uint32_t xp_post_ops;          /* bit per dr_wr_opcode the express post takes on this QP (dr_post.c) */
	uint32_t index;                /* in ctx->qp_table */
	TAILQ_ENTRY(dr_qp_impl) ctx_link;  /* on ctx->qps, from create to destroy (control side) */

	struct dr_sq sq;
	struct dr_rq rq;               /* unused (empty) when the QP has an SRQ */
	struct dr_srq_impl *srq;       /* pub.srq's; XRC_RECV: the SRQ of the message in progress */
	struct dr_xrcd_impl *xrcd;     /* XRC_RECV: its domain */
	uint32_t events_unacked;       /* async events about it not acknowledged */

	/* where packets go, resolved at RTR (route.dmac when neighbour known) */
	struct dr_pkt_route route;
	/*
	 * The 8 bytes at IPv4 offset 12 of a frame from the peer (its address,
	 * then ours: route.dgid's and route.sgid's last 4) when both GIDs are
	 * IPv4-mapped, else xp_peer_v4 false: the express receive's source
	 * check in one compare (dr_qp_route_v4_set(), with every change of route)
	 */
	uint64_t xp_peer_addrs;
	bool xp_peer_v4;
	uint32_t route_gen;            /* bumped at every change of route (control side) */
	bool route_resolved;
	uint32_t mtu;                  /* path MTU in bytes */
	uint32_t window;               /* PSNs the requester may have unacknowledged (dr_transport.h) */
	/* the packet opcode of each WR opcode at each position (dr_wr_pkt_opcode() for the QP's type; -1: none) */
	int16_t pkt_op[DR_NUM_WR_OPCODES][DR_POS_ONLY + 1];
	/* ECE (dr_ece.c): the options taken from the peer; selective repeat's memory when on */
	uint32_t ece_options;
	bool ece_set;
	struct dr_sr_mem *sr;

	struct dr_req_state req;
	struct dr_comp_state comp;
	struct dr_resp_state resp;
	struct dr_req_out req_out;
	struct dr_comp_out comp_out;
	/* congestion control (lib/cc/dr_cc.h): the requester's rate and pacer, the receive stage's CNPs */
	struct dr_cc_tx cc_tx;
	struct dr_cc_rx cc_rx __rte_cache_aligned;

	/* counters of this QP (its worker writes them; /dr/qp/info reads them) */
	struct {
		uint64_t retries, rereads, ack_timeouts, naks_rx, rnr_naks_rx, naks_tx, sr_resends;
		uint64_t sr_probes;               /* of sr_resends, the recovery timer's */
		uint64_t max_ack_timeout_ticks;   /* the longest local ACK timer that expired */
		uint64_t rto_expiries, tlp_probes; /* the adaptive timer's go-back-Ns and probes */
		uint64_t rto_spurious;            /* of rto_expiries, those the responder showed needless (F-RTO) */
		uint64_t max_rto_ticks;           /* the longest adaptive timer that expired */
		uint64_t keepalives;              /* keepalive probes sent */
		uint64_t rnr_wait_ticks;          /* the RNR waits asked for (TSC ticks) */
	} cnt;

	/*
	 * IBA 11.6.3 Communication Established: armed by the CM on a passive
	 * QP before RTR (dr_qp_comm_est_arm()); the responder clears it at the
	 * first request it takes and sets comm_est_seen, which the CM reads
	 * (acquire) in place of a lost RTU (IBA 12.9.6)
	 */
	bool comm_est_armed;
	uint8_t comm_est_seen;

	/* the engine: the worker that runs this QP's stages for its whole life, and its list */
	struct dr_worker *wk;
	TAILQ_ENTRY(dr_qp_impl) wk_link[DR_WK_ROLES]; /* on the active list of each worker running it */
	bool active;                   /* on its workers' active lists (dr_engine_qp_update()) */
	/* many QPs on its worker (dr_engine_sched.c): on the hot list; a doorbell queued (atomic) */
	bool hot;
	uint8_t doorbell;
	TAILQ_ENTRY(dr_qp_impl) hot_link;
};

static inline struct dr_qp_impl *dr_qp_impl(struct dr_qp *qp) { return (struct dr_qp_impl *)qp; }

/* The CM, before the QP's RTR: note its first request (dr_qp_comm_est_seen()). */
static inline void
dr_qp_comm_est_arm(struct dr_qp *qp)
{
	dr_qp_impl(qp)->comm_est_seen = 0;
	dr_qp_impl(qp)->comm_est_armed = true;
}

/* The CM: has the armed QP taken a request? */
static inline bool
dr_qp_comm_est_seen(struct dr_qp *qp)
{
	return __atomic_load_n(&dr_qp_impl(qp)->comm_est_seen, __ATOMIC_ACQUIRE) != 0;
}

/* Selective repeat negotiated (dr_set_ece()): SACKs instead of PSN sequence NAKs, holes resent alone. */
static inline bool
dr_qp_sr(const struct dr_qp_impl *qp)
{
	return qp->sr != NULL && (qp->ece_options & DR_ECE_OPT_SELECTIVE_REPEAT);
}

/* RC or one of XRC's halves: acknowledged, retried (IBA 9.7). */
static inline bool
dr_qp_reliable(const struct dr_qp_impl *qp)
{
	return qp->pub.qp_type == DR_QPT_RC || qp->pub.qp_type == DR_QPT_XRC_SEND ||
	       qp->pub.qp_type == DR_QPT_XRC_RECV;
}

/* The opcode of operation @op on this QP's reliable transport: XRC for XRC QPs, else RC. */
static inline uint8_t
dr_qp_rel_opcode(const struct dr_qp_impl *qp, enum dr_op op)
{
	bool xrc = qp->pub.qp_type == DR_QPT_XRC_SEND || qp->pub.qp_type == DR_QPT_XRC_RECV;

	return (uint8_t)((xrc ? DR_TRANSPORT_XRC : DR_TRANSPORT_RC) | op);
}

/* dr_qp.c: QP1 (the GSI, IBA 13.5.1: the CM's UD QP, not in the table) for DR_GSI_QPN, else NULL. */
struct dr_qp_impl *dr_qp_lookup_untabled(struct dr_context *ctx, uint32_t qpn) __rte_cold;

/* QP of a QPN on a context, NULL if none. */
static inline struct dr_qp_impl *
dr_qp_lookup(struct dr_context *ctx, uint32_t qpn)
{
	uint32_t idx = qpn - DR_QPN_BASE;

	/* published by the control side with release (dr_qp.c); QP1 lives outside the table */
	return idx < ctx->max_qp ? __atomic_load_n(&ctx->qp_table[idx], __ATOMIC_ACQUIRE) :
				   dr_qp_lookup_untabled(ctx, qpn);
}

/*
 * Allocate an mbuf and build the headers of a packet of this QP (route from
 * qp->route through the calling stage's prebuilt headers @tc, BTH: opcode,
 * DestQP = attr.dest_qp_num, P_Key, PSN); the caller fills extension headers
 * and payload and calls dr_pkt_finalize(). Returns NULL when no mbuf is free
 * or the neighbour is not known yet (retry later).
 */
/*
 * The whole frame of a request that is one packet (@opcode an ONLY: SEND,
 * RDMA WRITE, with immediate or invalidate) of @wqe at @psn, its BTH flags
 * byte @bth_flags (SE) and AckReq @ackreq, where the route's headers are
 * untagged IPv4 and the payload one flat run (inline, or in one SGE below
 * the zero-copy threshold, its L_Key checked): the bytes the general
 * builder (dr_qp_pkt_start(), the header setters, dr_qp_pkt_add_payload(),
 * dr_pkt_finalize()) writes, without its struct dr_pkt_info (dr_req.c's
 * express build). NULL: not such a request or no mbuf: the general
 * builder's, which reports what went wrong.
 */
struct rte_mbuf *dr_qp_pkt_only(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, const struct dr_send_wqe *wqe,
				uint8_t opcode, uint32_t psn, uint8_t bth_flags, bool ackreq);
/*
 * dr_qp_pkt_only() for the WQEs of the send queue's slots [@idx, @idx + @n)
 * with packet opcodes @ops[], at PSNs @psn, @psn + 1, ... into @out[]: what
 * it looks up per frame (the stage's headers, the pool, the DestQP) taken
 * once, the mbufs in one bulk get. SE and AckReq as dr_req.c sets them
 * (SE on a solicited SEND or immediate, AckReq on a reliable request).
 * Stops at the first WQE whose frame it cannot build whole (the general
 * builder's); the number of frames built, in @out[0..), their bytes in
 * *@bytes.
 */
unsigned int dr_qp_pkt_only_burst(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, uint32_t idx,
				  const uint8_t *ops, unsigned int n, uint32_t psn, struct rte_mbuf **out,
				  uint32_t *bytes);
/*
 * The same for a READ response that is one packet (@opcode RDMA READ
 * RESPONSE ONLY): its AETH (@syndrome, @msn) and @len bytes from @src
 * copied (the responder's express build, dr_resp_read.c). NULL: not such
 * a route or no mbuf: the general builder's.
 */
struct rte_mbuf *dr_qp_pkt_read_only(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, uint8_t opcode,
				     uint32_t psn, uint8_t syndrome, uint32_t msn, const uint8_t *src, uint32_t len);

struct rte_mbuf *dr_qp_pkt_start(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, uint8_t opcode,
				 uint32_t paylen, uint32_t psn, struct dr_pkt_info *pi);

/*
 * dr_post.c, for the builder: the checks of one send WR (state, ibv_post_send(3)
 * rules; 0 or a positive errno, with the opcode's flags and the length), and
 * queueing a checked WR (0, or ENOMEM when the queue is full).
 */
int dr_post_send_check(struct dr_qp_impl *qp, const struct dr_send_wr *wr, uint16_t *flags, uint64_t *len);
int dr_post_send_commit(struct dr_qp_impl *qp, const struct dr_send_wr *wr, uint16_t f, uint64_t len,
			uint32_t mr_gen);

/*
 * dr_post.c: the express post of @wr alone (a WRITE or SEND of one SGE on an
 * RC or UC QP in RTS, a READ of one SGE on RC), 0 when it took it, -1 when
 * it is the general path's.
 * For the differential test (test_post_express.c); dr_post_send() tries it
 * itself. Internal: not in the version map.
 */
int dr_post_send_express_try(struct dr_qp_impl *qp, const struct dr_send_wr *wr);
/* The context's MR generation, read before dr_post_send_check() and given to dr_post_send_commit(). */
static inline uint32_t
dr_post_mr_gen(const struct dr_qp_impl *qp)
{
	return __atomic_load_n(&qp->pub.context->mr_gen, __ATOMIC_ACQUIRE);
}

/* dr_wr_ex.c: a builder batch is open on @qp (dr_wr_start() without complete/abort yet). */
bool dr_wr_batch_open(const struct dr_qp_impl *qp);
/* dr_wr_ex.c: give the QP its builder (send_ops_flags already checked); free it. 0 or -ENOMEM. */
int dr_wr_batch_init(struct dr_qp_impl *qp, uint64_t send_ops_flags);
void dr_wr_batch_free(struct dr_qp_impl *qp);
/* dr_wr_ex.c: bytes the builder's staging takes (dr_malloc_cost() of each allocation), 0 without. */
uint64_t dr_wr_batch_mem(const struct dr_qp_impl *qp);

/* Create a QP (dr_qp.c): dr_create_qp() and dr_create_qp_ex() check their own attributes first. */
/* dr_qp.c: QP1 of @pd's context (the GSI, for lib/cm): a UD QP under DR_GSI_QPN; NULL + errno */
struct dr_qp *dr_qp_create_gsi(struct dr_pd *pd, struct dr_qp_init_attr *ia);
struct dr_qp *dr_qp_create(struct dr_context *ctx, struct dr_pd *pd, struct dr_qp_init_attr *ia,
			   struct dr_xrcd *xrcd);

/* dr_qp_mem.c: what the QP costs in memory (dr_query_qp_mem()). */
void dr_qp_mem_get(const struct dr_qp_impl *qp, struct dr_qp_mem *mem);

/* Move the QP to ERR and flush every outstanding WR (both queues) with WR_FLUSH_ERR. */
void dr_qp_to_error(struct dr_qp_impl *qp);
/*
 * A stage found an error that moves the QP to ERR (a class C NAK sent or
 * received, a CQ overrun, a retry count exceeded): with @complete_sends the
 * completer first completes the send WQEs that finished, then the QP goes to
 * ERR (dr_qp_to_error()). Run at once where one thread runs every stage of
 * the QP; in a pipeline by the group's completion worker with the others
 * parked (the responder stops taking requests meanwhile).
 */
void dr_qp_fail(struct dr_qp_impl *qp, bool complete_sends);
/* A pipeline's rx worker: hand the failing QP over again (its first try found the ring full). */
void dr_qp_fail_retry(struct dr_qp_impl *qp);
/* The same from any thread: on the QP's worker (dr_engine_call()). */
int dr_qp_error_on_worker(struct dr_qp_impl *qp);
/* ERR / SQE: flush the WRs posted since the QP got there (DR_PROGRESS_RTC leaves them to the worker). */
void dr_qp_flush_posted(struct dr_qp_impl *qp);

/* Start a UD packet to @dest_qpn along @rt (an AH's route; the QP's UDP source port is used). */
struct rte_mbuf *dr_qp_pkt_start_ud(struct dr_qp_impl *qp, const struct dr_pkt_route *rt, uint32_t dest_qpn,
				    uint8_t opcode, uint32_t paylen, uint32_t psn, struct dr_pkt_info *pi);

/*
 * Start the CNP of a CE-marked packet (IBA Annex A17.9.3): to the QP's peer
 * QP, along its route with traffic class @tclass, PSN 0, 16 reserved bytes
 * announced (the caller appends them).
 */
struct rte_mbuf *dr_qp_pkt_start_cnp(struct dr_qp_impl *qp, uint8_t tclass, struct dr_pkt_info *pi);

/* The notification point (dr_cnp.c): a CE-marked packet of @qp arrived; a CNP goes back when due. */
void dr_cnp_on_ce(struct dr_qp_impl *qp, uint64_t now);
/* A CNP addressed to @qp arrived (checked): its requester slows down (dr_cc.h). Takes @m. */
void dr_cnp_rx(struct dr_qp_impl *qp, struct rte_mbuf *m);

/* Is the responder answering READs, or holding requests behind them (which must wait their turn)? */
static inline bool
dr_resp_busy(const struct dr_qp_impl *qp)
{
	return qp->resp.res_active >= 0 || qp->resp.res_qhead != qp->resp.res_qtail ||
	       qp->resp.pend_head != qp->resp.pend_tail;
}

/* xp_peer_addrs and xp_peer_v4 from qp->route (control side, with every change of route). */
static inline void
dr_qp_route_v4_set(struct dr_qp_impl *qp)
{
	qp->xp_peer_v4 = dr_gid_is_ipv4(qp->route.dgid) && dr_gid_is_ipv4(qp->route.sgid);
	memcpy(&qp->xp_peer_addrs, qp->route.dgid + 12, 4);
	memcpy((uint8_t *)&qp->xp_peer_addrs + 4, qp->route.sgid + 12, 4);
}

/*
 * A new READ request can be executed while READs are being answered: no
 * other request waits behind them and a resource is free to queue it in
 * (dr_resp_rx.c's resp_read_queueable(), the express path's READ).
 */
static inline bool
dr_resp_read_room(const struct dr_qp_impl *qp)
{
	return qp->resp.pend_head == qp->resp.pend_tail &&
	       (uint8_t)(qp->resp.res_qhead - qp->resp.res_qtail) < DR_MAX_RD_ATOMIC - 1;
}

/* Stage entry points (dr_req.c, dr_resp.c, dr_resp_ud.c, dr_comp.c), run by dr_engine.c. */
int dr_req_progress(struct dr_qp_impl *qp);            /* send what the window allows; returns pkts */
void dr_resp_rx(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi);  /* takes m (RC, UC) */
/* dr_resp_rx() of a request whose payload is in place already (@placed, dr_resp_place.c) or not */
void dr_resp_rx_placed(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi, bool placed);
/*
 * Payloads from this many bytes are placed as their ICRC is checked
 * (dr_resp_place.c, dr_comp_place.c); shorter ones are checked, then copied
 * (one pass saves too little there).
 */
#define DR_PLACE_MIN 512u
/* RC WRITE / SEND MIDDLE / LAST of at least DR_PLACE_MIN bytes whose ICRC is checked as it is placed */
bool dr_resp_place_eligible(const struct dr_qp_impl *qp, const struct dr_pkt_info *pi);
void dr_resp_rx_unverified(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi); /* takes m */
void dr_resp_ud_rx(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi); /* takes m (UD) */
int dr_resp_progress(struct dr_qp_impl *qp);           /* ACKs / READ responses owed */
void dr_comp_rx(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi);  /* takes m */
/* dr_comp_rx() of a response whose payload is in place already (@placed, dr_comp_place.c) or not */
void dr_comp_rx_placed(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi, bool placed);
/* RC READ response MIDDLE / LAST of at least DR_PLACE_MIN bytes, the same (dr_comp_place.c) */
bool dr_comp_place_eligible(const struct dr_qp_impl *qp, const struct dr_pkt_info *pi);
void dr_comp_rx_unverified(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi); /* takes m */
void dr_comp_timers(struct dr_qp_impl *qp, uint64_t now); /* local ACK timeout, RNR wait */
int dr_comp_progress(struct dr_qp_impl *qp);           /* complete finished WQEs; returns CQEs */
/* Free the requests the responder holds (resp.pend) and forget READ replies in
 * progress: call when the QP goes to RESET and before it is destroyed. */
void dr_resp_drain(struct dr_qp_impl *qp);

/*
 * Each stage sets up and resets its own state (the QP state machine in
 * dr_qp.c calls these while no stage of the QP runs):
 *   *_reset  to the state of a new QP (create, RESET)
 *   *_start  the stage starts: the responder at RTR (ePSN = rq_psn, IBA
 *            9.7.5.1), requester and completer at RTS (sq_psn, IBA 9.7.1)
 *   *_stop   the QP went to ERR: nothing in flight any more (IBA 10.3.1)
 */
void dr_req_reset(struct dr_qp_impl *qp);
void dr_req_start(struct dr_qp_impl *qp, uint32_t sq_psn);
void dr_req_stop(struct dr_qp_impl *qp);
void dr_comp_reset(struct dr_qp_impl *qp);
void dr_comp_start(struct dr_qp_impl *qp, uint32_t sq_psn);
/* retry_cnt / rnr_retry (re)set by modify_qp (RTR->RTS, SQD->SQD): the counters restart. */
void dr_comp_set_retry(struct dr_qp_impl *qp, bool retry_cnt, bool rnr_retry);
void dr_comp_stop(struct dr_qp_impl *qp);
void dr_resp_reset(struct dr_qp_impl *qp);
void dr_resp_start(struct dr_qp_impl *qp, uint32_t rq_psn);
void dr_resp_stop(struct dr_qp_impl *qp);

#endif /* DR_QP_IMPL_H */
