/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef TEST_RC_H
#define TEST_RC_H

/*
 * The RC transport tests (test_rc_*.c): one EAL, two contexts in one process,
 * each on a ring-backed ethdev port, joined by a "wire" the test controls.
 * Context A's tx ring is drained by the test and its frames moved into B's
 * rx ring (and back), through a deterministic policy: rules that drop,
 * duplicate, corrupt or reorder chosen frames. The test drives both
 * contexts' dr_progress() in turn.
 *
 * Environment: DR_TEST_MODE=inline|rtc and DR_TEST_WORKERS=n choose the
 * progress mode and the workers of each context; DR_TEST_QUEUES=n gives
 * each ring port n queue pairs (tx ring q of one side feeds rx ring q of
 * the other, as memif pairs its queues). DR_TEST_LOG sets the EAL log level (e.g. "lib.dr.*:debug"),
 * DR_TEST_VERBOSE prints frame counts, DR_TEST_WIRELOG prints the frames of
 * the every-Nth loss tests and of the random mix (DR_TEST_WIRELOG=fail: of a
 * random mix case that failed only), DR_TEST_SEEDS=n makes
 * test_rc_loss a soak of the random mix over n seeds, DR_TEST_MIX=N,SEED,MTU
 * runs one case of it. DR_TEST_ZCOPY_MIN=n sets both contexts'
 * tx_zcopy_min (1: every payload attached zero-copy; 4294967295: never).
 * DR_TEST_SR=1 makes rc_params_default() negotiate selective repeat
 * (dr_set_ece(), both sides: rc_qp_params.sr). DR_TEST_EXPRESS=0 opens both
 * contexts with the express path off (dr_context_attr.disable_express):
 * every frame on the general path.
 * The wire carries a chained frame as one flat copy, as a link does.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dr_context.h"
#include "dr_engine.h"
#include "dr_pkt.h"
#include "dr_qp_impl.h"
#include "dr_verbs.h"

/* Directions of the wire. */
enum rc_dir {
	RC_A2B = 0,
	RC_B2A = 1,
	RC_ANY = -1,
};

/* What a rule does to a frame it matches. */
enum rc_action {
	RC_PASS,
	RC_DROP,
	RC_DUP,        /* deliver it twice */
	RC_CORRUPT,    /* flip a byte the ICRC covers */
	RC_SWAP,       /* hold it and deliver it after the next frame of its direction */
	RC_DELAY,      /* hold it and deliver it first in the next carry of its direction (a round later) */
	RC_MARK_CE,    /* set its IP ECN field to CE, as a congested switch does (IPv4 checksum mended) */
	RC_DUP_LATE,   /* deliver it, and a copy first in the next carry of its direction (a round later) */
};

/*
 * A wire rule: among the frames of direction @dir with opcode @opcode (-1:
 * any RoCEv2 frame), let @skip pass, then act on every @every-th one (0 or 1:
 * each one) until @count actions were taken (0: no limit).
 */
struct rc_rule {
	int dir;
	int opcode;
	uint32_t skip;
	uint32_t every;
	uint32_t count;
	enum rc_action action;
	/* options */
	bool fresh;        /* only frames whose PSN was not seen before in this direction (first transmissions) */
	bool random;       /* act with probability 1/@every from a seeded generator, not periodically */
	uint32_t seed;
	/* state */
	uint32_t seen;
	uint32_t done;
};

#define RC_MAX_RULES 8
/* Queue pairs per port (DR_TEST_QUEUES). */
#define RC_MAX_QUEUES 4
#define RC_MAX_LOG 8192
/* Frames a bottleneck can hold (rc_bottleneck()). */
#define RC_NECK_MAX 2048

/* One frame as the wire saw it (for tests that check ordering). */
struct rc_log_entry {
	uint8_t dir;
	uint8_t opcode;
	uint8_t action;
	uint8_t syn;       /* AETH syndrome, when there is one */
	bool se;           /* BTH.SE */
	bool ackreq;       /* BTH.AckReq */
	uint32_t psn;
	uint32_t paylen;
	uint8_t tclass;    /* IP traffic class as sent (DSCP << 2 | ECN) */
	bool becn;         /* BTH.BECN */
	uint32_t dqpn;     /* BTH.DestQP */
};

struct rc_side {
	struct dr_context *ctx;
	struct dr_pd *pd;
	struct dr_cq *scq;
	struct dr_cq *rcq;
	struct dr_qp *qp;
	uint16_t port;
	struct rte_ring *rx[RC_MAX_QUEUES]; /* the port's rx rings, one per queue (the wire fills them) */
	struct rte_ring *tx[RC_MAX_QUEUES]; /* its tx rings (the wire drains tx ring q into the peer's rx ring q) */
	union dr_gid gid;             /* GID index 1 (IPv4-mapped: 10.0.0.1, .2) */
	union dr_gid gid6;            /* GID index 2 (IPv6: fd00::1, ::2) */
};

struct rc_env {
	struct rc_side s[2];          /* [0] = A, [1] = B */
	struct rte_mempool *copy_pool; /* duplicates */
	struct rc_rule rules[RC_MAX_RULES];
	unsigned int nrules;
	struct rte_mbuf *held[2];     /* RC_SWAP */
	struct rte_mbuf *delayed[2][8]; /* RC_DELAY, in order */
	unsigned int ndelayed[2];
	/*
	 * A bottleneck per direction (rc_bottleneck()): the frames the rules
	 * let through wait in a queue and leave one every @gap ticks of the
	 * transport's clock; beyond @depth waiting, the newest is dropped
	 * (counted in dropped[] and neck_drops[]). gap 0: none.
	 */
	struct rc_neck {
		uint64_t gap;
		uint64_t next_at;             /* when the head may leave */
		unsigned int depth, head, n;
		struct rte_mbuf *q[RC_NECK_MAX];
	} neck[2];
	uint64_t neck_drops[2];
	uint32_t max_psn[2];          /* newest PSN seen per direction (fresh rules) */
	bool any_psn[2];
	unsigned int carry_q;         /* the queue wire_carry() is carrying */
	uint64_t frames[2];           /* frames carried per direction */
	uint64_t dropped[2];
	struct rc_log_entry log[RC_MAX_LOG];
	uint32_t nlog;
	bool logging;
	/*
	 * Called with every RoCEv2 frame the wire carries, before the rules (a
	 * peer's stack played by rewriting what ours sent: test_cm_ece.c); it
	 * may change @frame's bytes after the BTH and return true: the wire
	 * then computes the ICRC again. NULL: none.
	 */
	bool (*tamper)(struct rc_env *e, int dir, uint8_t *frame, const struct dr_pkt_info *pi);
	/*
	 * The express path's oracle (test_rc_twin.c, test_express.c): B's twin,
	 * a third context on a ring port of its own with B's addresses and the
	 * express path off (dr_context_attr.disable_express), fed a copy of
	 * every frame the wire delivers to B. rc_round() runs it after B (inline
	 * mode), and every B-to-A carry first compares what B sent with what the
	 * twin sent, byte for byte, frame by frame. ctx NULL: no twin.
	 */
	struct rc_side twin;
	uint64_t twin_frames;         /* frames compared */
	uint64_t twin_mismatches;     /* ... that differed (or a count that did) */
	/*
	 * Memory both B and the twin registered (at the same addresses: a RETH
	 * names an address, the same for both): the twin's contents live in a
	 * shadow, swapped in around each of its rounds (rc_twin_shadow()).
	 */
	struct {
		uint8_t *addr;
		uint8_t *shadow;
		size_t len;
	} twin_mem[4];
	unsigned int ntwin_mem;
	/*
	 * DR_TEST_IO=app (test_rc_nf.c): each context is DR_IO_APP and the test
	 * plays the network function that owns its port: it configured and
	 * started the ring port, hands what the port receives to
	 * dr_rx_burst_input() and sends what dr_tx_drain() gives.
	 */
	uint64_t nf_kept[2];          /* per side: frames dr_rx_burst_input() returned (the NF's) */
	uint64_t nf_tx_dropped[2];    /* per side: drained frames the port's tx ring did not take */
	uint64_t nf_rx_full_ok[2];    /* per side: rx ring drops a test caused on purpose */
};

/* DR_TEST_IO=app: the contexts are DR_IO_APP (test_rc_nf.c). */
extern bool rc_io_app;
/* Configure and start @s's ring port as a network function would (its own mbuf pool). 0 or -1. */
int rc_nf_port_start(struct rc_side *s);
/* The NF of side @side: what its context built, to the port's tx queue 0 (dropped when full). */
void rc_nf_tx(struct rc_env *e, int side);
/* ... what its port received, every queue, to dr_rx_burst_input(); what it returns is the NF's. */
void rc_nf_rx(struct rc_env *e, int side);
/* Print both sides' dr_io_stats; check no rx ring overflowed (and, with DR_TEST_IO_RING, that tx did;
 * with DR_TEST_APP_POOL_HOLD, that requests were kept as copies). */
void rc_nf_report(struct rc_env *e);

/* QP pair parameters. */
struct rc_qp_params {
	enum dr_qp_type qp_type;      /* DR_QPT_RC (default), DR_QPT_UC or DR_QPT_UD */
	uint32_t qkey;                /* UD: both QPs' Q_Key */
	enum dr_mtu mtu;
	uint32_t psn_a;               /* A's sq_psn = B's rq_psn */
	uint32_t psn_b;               /* B's sq_psn = A's rq_psn */
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	unsigned int access_a;        /* qp_access_flags */
	unsigned int access_b;
	int sq_sig_all;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t max_inline;
	struct dr_comp_channel *channel[2]; /* per side: the CQs' completion channel (NULL: none) */
	uint64_t send_ops[2];         /* per side: non-zero, an extended QP with these send_ops_flags */
	struct dr_cq *cq[2];          /* per side: a CQ of the test's for both queues (NULL: rc_connect makes two) */
	bool sr[2];                   /* per side: take the peer's ECE before RTR (selective repeat when both do) */
};

/* Congestion control of both contexts, set before rc_env_init() (all zero: none). */
extern struct dr_cc_attr rc_cc_attr;

/* Counters of the test files (dr_test.h's are per file). */
extern unsigned int rc_passed, rc_failed;

/* Start the EAL and open both contexts (link MTU @link_mtu). Returns 0 or -1. */
int rc_env_init(struct rc_env *e, const char *prog, uint32_t link_mtu);
/* "inline", "rtc" or "pipeline": the progress mode of both contexts (DR_TEST_MODE, DR_TEST_WORKERS). */
const char *rc_mode_name(void);
/*
 * Does the test @name run in this mode? true in @mode (rc_mode_name()'s
 * names); else it prints "@name: skipped in MODE mode (@why)" and returns
 * false. rc_inline_only(): in inline mode.
 */
bool rc_mode_only(const char *mode, const char *name, const char *why);
bool rc_inline_only(const char *name, const char *why);
/*
 * The QP's state as dr_query_qp() reports it (ibv_query_qp(3): the way a
 * verbs application learns that the transport moved a QP to ERR; with
 * engine lcores the move may follow the completion that reports it).
 */
enum dr_qp_state rc_qp_state(struct dr_qp *qp);
/* Queue pairs of each port (DR_TEST_QUEUES, default 1; at most the workers). */
unsigned int rc_queues(void);
void rc_env_fini(struct rc_env *e);

/* Defaults: MTU 1024, PSNs 0x100 / 0x200, timeout 12, retry 7, rnr 7, timer 1, depth 4, all rights. */
void rc_params_default(struct rc_qp_params *p);
/* Create CQs and a QP of p->qp_type on each side; connect them (RC, UC) or bring them to RTS (UD). Returns 0 or -1. */
int rc_connect(struct rc_env *e, const struct rc_qp_params *p);
/* Destroy the QPs and CQs (after draining the wire). */
void rc_disconnect(struct rc_env *e);
/*
 * One more connected pair beside the environment's own QPs, on the CQs of
 * p->cq[0] and p->cq[1] (both set): @qps[0] on A, @qps[1] on B; the caller
 * destroys them. Returns 0 or -1.
 */
int rc_connect_pair(struct rc_env *e, const struct rc_qp_params *p, struct dr_qp *qps[2]);

/* Wire policy. */
void rc_rules_clear(struct rc_env *e);
struct rc_rule *rc_rule_add(struct rc_env *e, int dir, int opcode, uint32_t skip, uint32_t every,
			    uint32_t count, enum rc_action action);

/*
 * A bottleneck in direction @dir: one frame leaves every @gap_us of the
 * transport's time, at most @depth wait (drop-tail). A responder slower than
 * its requester - rxe under emulation takes about 4,000 frames a second,
 * behind a tap and a guest's queues - or a slow link. @gap_us 0 removes it
 * (rc_disconnect() does too). Frames still waiting are freed by
 * rc_wire_flush().
 */
void rc_bottleneck(struct rc_env *e, enum rc_dir dir, uint64_t gap_us, unsigned int depth);

/* DR_TEST_WIRELOG: print the frames the wire carried, at most @max of them (test_rc_wire.c). */
void rc_wirelog_print(const struct rc_env *e, uint32_t max);
/*
 * Let @us of the transport's time pass (its timers run on the wire's clock,
 * which stands still while the wire does not run: a stall of the test's
 * own thread is no time to them).
 */
void rc_sleep_us(uint64_t us);
/*
 * Stop the transport's time (true) while the wire goes on running, and let
 * it go again (false): a test that names the times at which timers run
 * (calling dr_comp_timers() itself) holds it so that no round of its own
 * reaches a deadline first, however slow the machine. Inline mode.
 */
void rc_clock_freeze(bool frozen);
/* Stopped, it moves by exactly @ticks (TSC ticks) at once: the next round sees them. */
void rc_clock_advance(uint64_t ticks);
/* @v milliseconds in TSC ticks (the transport's clocks count in them). */
static inline uint64_t
rc_ms(uint64_t v)
{
	return rte_get_tsc_hz() / 1000u * v;
}
/* A QP or context counter written by an engine lcore, read from the test's thread. */
static inline uint64_t
rc_counter(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}
/* The transport's time now (TSC ticks of the wire's run clock). */
uint64_t rc_clock_now(void);
/* Print (stderr) both QPs' reliability counters and each worker's stalls: why a case failed. */
void rc_print_counters(const struct rc_env *e, const char *tag);
/* Free every frame on the wire and held by it (test_rc_wire.c). */
void rc_wire_flush(struct rc_env *e);
/* One round: progress A, carry A->B, progress B, carry B->A. */
void rc_round(struct rc_env *e);
/* Run rounds for @usec microseconds of wall time, or until @done(e, arg) says so. Returns true if done. */
bool rc_run(struct rc_env *e, uint64_t usec, bool (*done)(struct rc_env *e, void *arg), void *arg);
/*
 * Run until the context counter at @field_off of struct dr_ctx_stats (offsetof(), a uint64_t) of
 * side @side is at least @want, or @usec passes: what a peer's worker counts when it gets its
 * turn, which a busy machine may delay. Returns true when it got there.
 */
bool rc_wait_stat(struct rc_env *e, int side, size_t field_off, uint64_t want, uint64_t usec);
#define RC_WAIT_STAT(e, side, field, want) \
	rc_wait_stat((e), (side), offsetof(struct dr_ctx_stats, field), (want), 2000000)
/* Carry the frames waiting in one direction's tx rings to the other side (the wire's half of a round). */
void rc_carry(struct rc_env *e, enum rc_dir dir);

/* Completions gathered by rc_poll(). */
struct rc_wcs {
	struct dr_wc wc[512];
	unsigned int n;
};
/* Poll a CQ into @w (appending). Returns completions read or -errno. */
int rc_poll(struct dr_cq *cq, struct rc_wcs *w);
/* Run until @w holds at least @n completions of @cq (or @usec passes). */
bool rc_wait_wcs(struct rc_env *e, struct dr_cq *cq, struct rc_wcs *w, unsigned int n, uint64_t usec);
/*
 * The same, bounded by @clock_usec of the transport's time (rc_clock_now(),
 * which a stalled machine does not advance), for a test whose claim is
 * about that time ("before the local ACK timeout"); @wall_usec of wall
 * time is only the guard against a test that never ends.
 */
bool rc_wait_wcs_clock(struct rc_env *e, struct dr_cq *cq, struct rc_wcs *w, unsigned int n, uint64_t clock_usec,
		       uint64_t wall_usec);

/* Registered buffer. */
struct rc_buf {
	uint8_t *p;
	size_t len;
	struct dr_mr *mr;
};
int rc_buf_alloc(struct rc_side *s, struct rc_buf *b, size_t len, int access);
void rc_buf_free(struct rc_buf *b);
/* Fill with a pattern derived from @seed. */
void rc_fill(uint8_t *p, size_t len, uint32_t seed);

/* Split [addr, addr + len) of @b into @n SGEs of uneven sizes (n >= 1). Returns n. */
int rc_sges(const struct rc_buf *b, size_t off, uint32_t len, int n, struct dr_sge *sge);

/* Post helpers: return 0 or the errno of the post. */
int rc_post_recv(struct rc_side *s, uint64_t wr_id, struct dr_sge *sge, int nsge);
int rc_post_send(struct rc_side *s, uint64_t wr_id, enum dr_wr_opcode op, struct dr_sge *sge, int nsge,
		 unsigned int flags, uint64_t raddr, uint32_t rkey, rte_be32_t imm);

#define RC_CHECK(cond) do { \
	if (cond) { rc_passed++; } else { rc_failed++; \
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define RC_CHECK_EQ(a, b) do { \
	uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
	if (a_ == b_) { rc_passed++; } else { rc_failed++; \
		fprintf(stderr, "%s:%d: %s == %s failed: 0x%" PRIx64 " != 0x%" PRIx64 "\n", \
			__FILE__, __LINE__, #a, #b, a_, b_); } \
} while (0)

#define RC_CHECK_MSG(cond, ...) do { \
	if (cond) { rc_passed++; } else { rc_failed++; \
		fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
} while (0)

/* One checked transfer from A (requester) to B (responder; READ: B's memory to A's). */
struct rc_xfer {
	enum dr_wr_opcode op;
	uint32_t len;
	int nsge_l;                   /* SGEs of the requester's WR (>= 1) */
	int nsge_r;                   /* SGEs of the receive WR (SEND) */
	unsigned int flags;           /* extra send flags (INLINE, SOLICITED, FENCE) */
	uint32_t recv_extra;          /* receive buffer this much larger than the message */
	uint32_t seed;
	uint64_t usec;                /* give up after (0: 5 s) */
	/* expected outcome at the requester (default DR_WC_SUCCESS) */
	enum dr_wc_status status;
	/* after completion, keep running this long and check nothing more completes (0: 2 ms) */
	uint64_t settle_usec;
};
/* Run and check it (data byte for byte, guards, completions exactly once). Returns 0 when all held. */
int rc_xfer_run(struct rc_env *e, const struct rc_xfer *x, const char *tag);

/* The harness's pieces, for its files (test_rc_harness.c, test_rc_twin.c). */
int rc_side_port(struct rc_side *s, const char *name);
struct dr_context *rc_side_open(struct rc_side *s, rte_be32_t ip, uint32_t link_mtu, bool express);
int rc_qp_up(struct rc_side *s, const struct rc_qp_params *p, bool is_a);
int rc_qp_rtr_rts(struct rc_side *s, const struct rc_side *peer, const struct rc_qp_params *p, bool is_a);
/* Destroy a side's QP and its own CQs (rc_qp_up()'s), @who naming it in a failure. */
void rc_side_qp_destroy(struct rc_side *s, const char *who);

/*
 * B's twin (struct rc_env.twin; test_rc_twin.c). Open it after
 * rc_env_init() (inline mode), connect its QP to A's right after
 * rc_connect() (B's QP number, B's PSNs), register its buffers in B's order
 * (the same keys). Returns 0 or -1.
 */
int rc_twin_open(struct rc_env *e, uint32_t link_mtu);
int rc_twin_connect(struct rc_env *e, const struct rc_qp_params *p);
void rc_twin_disconnect(struct rc_env *e);
void rc_twin_close(struct rc_env *e);
/*
 * B's memory at @addr (@len bytes) is registered by the twin too: the twin
 * sees its own copy of it, which starts as B's contents now and is
 * returned (for comparison) by this call. NULL: no room or no memory.
 */
uint8_t *rc_twin_shadow(struct rc_env *e, void *addr, size_t len);
/* Forget the shadows (the test deregistered the memory on both). */
void rc_twin_shadow_free(struct rc_env *e);
/* The wire's hooks: a copy of a frame for the twin, its delivery, the comparison, the flush. */
struct rte_mbuf *rc_twin_copy(struct rc_env *e, struct rte_mbuf *m);
void rc_twin_put(struct rc_env *e, struct rte_mbuf *m);
void rc_twin_check(struct rc_env *e);
/* One round of the twin's: its memory swapped in, dr_progress(), swapped out. */
void rc_twin_round(struct rc_env *e);
void rc_twin_flush(struct rc_env *e);

/* Report and exit status. */
int rc_report(const char *name);

/*
 * A test program's main: set up an environment with link MTU @link_mtu, run
 * @body on it, tear it down, report. Returns the exit status.
 */
int rc_main(const char *name, const char *argv0, uint32_t link_mtu, void (*body)(struct rc_env *e));

#endif /* TEST_RC_H */
