/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef PERF_H
#define PERF_H

/**
 * @file
 * dpdk-rdma-perf: perftest's ib_{send,write,read,atomic}_{bw,lat} over the
 * dpdk-rdma verbs API (include/dr_verbs.h). One endpoint per process; the
 * two endpoints meet over TCP (oob.c) and then only over their DPDK ports.
 *
 * Memory: one buffer and one MR for all QPs. Each QP owns a local region
 * of tx_slots slots (what it sends or writes, or where its READs land) and a
 * remote-visible region of rx_slots slots (the peer's WRITE target, READ
 * source, or our receive buffers), each slot slot_size bytes.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "check.h"
#include "dr_cm.h"
#include "dr_verbs.h"
#include "oob.h"
#include "oob_perftest.h"
#include "options.h"

/** One of our QPs and what we know of its peer. */
struct perf_qp {
	struct dr_qp *qp;
	unsigned int index;
	uint32_t psn;               /**< our initial send PSN (random 24 bits) */
	uint8_t *tx;                /**< local region */
	uint8_t *rx;                /**< remote-visible region */
	uint32_t tx_slots;
	uint32_t rx_slots;
	struct oob_qp remote;       /**< the peer's address (OOB_QP) */
	/* per-size counters of the runners */
	uint64_t posted;            /**< send WRs posted */
	uint64_t completed;         /**< send WRs known complete */
	uint64_t recv_posted;       /**< receive WRs posted, all sizes */
	uint64_t recv_done;         /**< receive completions, all sizes */
	uint64_t received;          /**< receive completions of this size */
	uint64_t next_iter;         /**< UC/UD: the message expected next (the one after the last arrived) */
	uint64_t unique, dups;      /**< UC/UD: messages arrived once, and again (UD) */
	uint64_t *seen;             /**< UC/UD: a bit per message arrived (NULL with -D) */
	struct dr_ah *ah;           /**< UD: the peer's address */
	uint64_t *atomic_start;     /**< a perftest server's words: their first values (atomic.c) */
};

/** A first --check mismatch. */
struct perf_bad {
	bool found;
	uint32_t qp;
	uint64_t iter;
	uint64_t offset;
	unsigned int expected;
	unsigned int got;
};

/** The result of one size on one side. */
struct perf_result {
	uint64_t iters;             /**< messages completed */
	uint64_t verified;          /**< bytes checked */
	uint64_t lost;              /**< UC/UD receiver: messages that never arrived (or arrived cut) */
	double vals[OOB_NB_VALS];   /**< report.c's row */
	struct perf_bad bad;
};

/** Everything one endpoint holds. */
struct perf {
	const struct perf_opts *o;
	const struct perf_test *test;
	bool server;
	bool check;                 /**< --check on either side */
	uint64_t iters;             /**< the client's -n (adopted by the server) */
	double duration;            /**< the client's -D (adopted by the server) */
	uint32_t sizes[PERF_MAX_SIZES]; /**< the client's sizes (adopted by the server) */
	unsigned int nb_sizes;
	uint32_t max_size;          /**< largest of sizes */
	enum perf_atomic_type atomic; /**< the client's -A (adopted by the server) */
	enum perf_verb raw_like;    /**< the client's --raw-like (adopted by the server) */
	bool imm;                   /**< --send_with_imm / --write_with_imm (either side's) */
	enum perf_conn conn;        /**< -c (the client's, adopted by the server) */

	/* device (port.c) */
	struct dr_device **dev_list;
	struct dr_device *dev;
	struct dr_context *ctx;
	uint16_t port_id;
	struct rte_ether_addr mac;
	union dr_gid gid;           /**< ours at o->gid_index */
	uint32_t mtu;               /**< path MTU bytes we offer (-m or the active MTU) */
	uint32_t path_mtu;          /**< min of ours and the peer's */
	struct dr_device_attr dev_attr;

	/* resources (tests.c) */
	struct dr_pd *pd;
	struct dr_cq *send_cq;
	struct dr_cq *recv_cq;
	struct dr_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	uint32_t slot_size;
	uint32_t sq_depth;          /**< send WRs per QP */
	uint32_t rq_depth;          /**< receive WRs per QP */
	uint32_t window;            /**< send WRs in flight per QP (bw) */
	uint32_t cq_mod;            /**< signal one send WR in cq_mod (bw) */
	uint8_t out_reads;          /**< our responder depth: -o, the device's max, 1 (perftest's) */
	struct perf_qp *qps;
	unsigned int nb_qps;

	/* run state */
	struct oob ob;
	uint64_t tsc_hz;
	uint64_t *tstamp;           /**< lat: TSC of each post */
	unsigned int size_index;
	uint32_t size;              /**< message size of this round */
	struct oob_done peer_done;  /**< the peer's OOB_DONE of this size */
	bool peer_done_seen;
	uint64_t peer_done_tsc;     /**< when it came (UC, UD: the receiver's wait for stragglers) */
	bool done_sent;
	uint64_t last_oob_check;    /**< TSC of the last look at the socket */
	struct perf_result res;     /**< ours, this size */
	/* --perftest-compat (session_perftest.c) */
	bool perftest;              /**< speak perftest's exchange */
	struct perf_cm *cm;         /**< -R: the CM's ids and the comm connection (rdma_cm.c) */
	bool pt_expect_key;         /**< the peer's end-of-run hand shake may come during the run */
	bool pt_key_seen;           /**< ... and it came (read, not yet answered) */
	uint32_t pt_cycle;          /**< smallest remote-visible region: the cycle buffer */
	uint32_t pt_line;           /**< cache line: perftest's stride between small messages */
	uint32_t pt_peer_mtu;       /**< path MTU bytes the peer offered */
	uint32_t pt_out_reads;      /**< the peer's outstanding READs (its responder depth) */
	uint64_t verified_total;    /**< bytes checked here and by the peer, all sizes */
	uint64_t lost_total;        /**< UC/UD receiver: messages lost, all sizes */
	uint64_t sent_total;        /**< ... of the messages the peer sent */
	uint32_t lat_written;       /**< write_lat: the largest size run so far (bytes past it never written) */
	bool cleanup_failed;        /**< a destroy or close call failed (said): exit status 1 */
	bool peer_persist;          /**< client: the server stays up after the run (--persist) */
	struct perf_opts run_o;     /**< --persist server: this run's options (persist.c) */
};

/** What the steps and helpers return. */
enum {
	PERF_OK = 0,
	PERF_FAIL = -1,         /**< an error was printed: abort the run */
};

/** One test: its name, verbs and steps. */
struct perf_test {
	const char *name;           /**< "write_bw" ... */
	const char *title;          /**< perftest's "RDMA_Write BW Test" ... */
	enum perf_verb verb;
	enum perf_kind kind;
	/** PD, buffer, MR, CQs, QPs moved to INIT. */
	int (*setup)(struct perf *p);
	/** One size: p->size, p->size_index set; fills p->res. */
	int (*run)(struct perf *p);
	/** Destroy what setup made (also after a partial setup). */
	void (*teardown)(struct perf *p);
	/** raw_bw, raw_lat: the bare link (run_raw.c); verb is PERF_WRITE for the setup. */
	bool raw;
};

extern volatile sig_atomic_t perf_stop;

/** --check seed of message @p iter sent on QP @p qp by the server or the client. */
static inline uint64_t
perf_seed(const struct perf *p, bool from_server, uint32_t qp, uint64_t iter)
{
	return perf_check_seed(qp | (from_server ? 1u << 16 : 0), p->size_index, iter);
}

/** The server posts receives: the send tests, and write_bw with immediate data. */
static inline bool
perf_uses_recv(const struct perf *p)
{
	return p->test->verb == PERF_SEND || (p->test->verb == PERF_WRITE && p->imm);
}

/** UC and UD deliver what arrives and drop the rest: the receiver counts, it does not wait. */
static inline bool
perf_unreliable(const struct perf *p)
{
	return p->conn != PERF_RC;
}

/** Bytes before the message in a receive buffer: the GRH of UD (ibv_post_recv(3)). */
static inline uint32_t
perf_grh(const struct perf *p)
{
	return p->conn == PERF_UD ? PERF_UD_GRH : 0;
}

/** The immediate data of message @p iter (network order). */
static inline rte_be32_t
perf_imm(uint64_t iter)
{
	return rte_cpu_to_be_32((uint32_t)iter);
}

/** wr_id of send WR @p iter on QP @p qp, and back. */
#define PERF_WR_ITER_BITS 40
static inline uint64_t
perf_wr_id(uint32_t qp, uint64_t iter)
{
	return (uint64_t)qp << PERF_WR_ITER_BITS | (iter & ((1ull << PERF_WR_ITER_BITS) - 1));
}

/* tests.c */
/** Test named @p name, or NULL. */
const struct perf_test *perf_test_find(const char *name);
/** "send_bw, send_lat, ..." for messages. */
const char *perf_test_names(void);
/** Move every QP to RTR then RTS towards its peer and add the neighbours. */
int perf_connect_qps(struct perf *p);
/** -R: @p q's QP on the CM's @p id, with the test's attributes. */
int perf_cm_make_qp(struct perf *p, struct perf_qp *q, struct dr_cm_id *id);
/** Post receives on @p q until @p p->rq_depth are outstanding. */
int perf_fill_recv(struct perf *p, struct perf_qp *q);
/**
 * A receive completion (message q->received of this size from the peer):
 * status, length, --check, then the receive is reposted.
 */
int perf_recv_complete(struct perf *p, const struct dr_wc *wc);
/** Before the barrier of a size: receives, READ sources, atomic words, polled bytes. */
int perf_prepare_size(struct perf *p);
/** Opcode and remote target of send WR @p i on @p q (every verb). */
void perf_wr_target(const struct perf *p, const struct perf_qp *q, uint64_t i,
		    struct dr_send_wr *wr);
/** --check of what READ or atomic WR @p i brought back into its local slot. */
void perf_verify_fetched(struct perf *p, struct perf_qp *q, uint64_t i);

/* atomic.c */
/** The words the requester's atomics walk on QP @p q: message i goes to word i % W. */
uint32_t perf_atomic_words(const struct perf *p, const struct perf_qp *q);
/** Opcode, target and operands of atomic WR @p i. */
void perf_atomic_wr(const struct perf *p, const struct perf_qp *q, uint64_t i, struct dr_send_wr *wr);
/** --check the original value atomic WR @p i returned into @p local. */
void perf_atomic_verify_orig(struct perf *p, struct perf_qp *q, uint64_t i,
			     const uint8_t *local);
/** Before the run: the responder's words, the requester's record of a perftest server's. */
int perf_atomic_prepare(struct perf *p);
/** Responder, --check: every word after @p msgs atomics per QP. */
void perf_atomic_verify_words(struct perf *p, uint64_t msgs);

/* session.c */
/** Connect (client) or accept (server), then HELLO -> ACCEPT or REJECT. */
int perf_handshake(struct perf *p);
/**
 * Server, connection accepted: HELLO -> ACCEPT or REJECT. @p run (--persist):
 * filled with this run's options, which p->o then points to.
 */
int perf_serve_hello(struct perf *p, struct perf_opts *run);
/** Send our OOB_QP per QP, read the peer's; sets p->path_mtu. */
int perf_exchange_qps(struct perf *p);

/* persist.c: --persist */
/**
 * This run's options: the server's @p srv with the test and QP count of
 * HELLO @p h. @return NULL, or the reason to refuse it (in @p why).
 */
const char *perf_persist_opts(const struct perf_opts *srv, const struct oob_hello *h,
			      struct perf_opts *run, char *why, size_t len);
/** Serve clients one after another until SIGINT or SIGTERM (the port is open). */
int perf_persist(struct perf *p);

/* rdma_cm.c: -R */
struct perf_cm;
/** The comm connection (server: listen, accept the first request; client: connect, retrying refusals). */
int perf_cm_comm_connect(struct perf *p);
/** The data connection, its QP the test's (perf_cm_make_qp()). */
int perf_cm_data_connect(struct perf *p);
/** A SEND of @p len bytes on the comm connection: 0 or -1. */
int perf_cm_write(struct perf *p, const void *b, size_t len);
/** The next message of the comm connection: 1 (@p len bytes in @p b), 0 none in @p wait_ms, -1. */
int perf_cm_read(struct perf *p, void *b, size_t len, int wait_ms);
/** Disconnect (the client waits for the data connection's DISCONNECTED), free it all. */
void perf_cm_close(struct perf *p);

/* session_perftest.c */
/** The whole session in perftest's exchange (--perftest-compat). */
int perf_pt_session(struct perf *p);

/* unreliable.c: -c UC / UD, the receiver's side */
/** Bitmaps of the messages arrived, when the iterations are known. */
int perf_unrel_setup(struct perf *p);
void perf_unrel_free(struct perf *p);
/** Before a size: nothing arrived yet on @p q. */
void perf_unrel_reset(struct perf *p, struct perf_qp *q);
/** Which message @p msg (its completion @p wc) is: 0 and *@p iter, or -1. */
int perf_unrel_identify(const struct perf *p, const struct perf_qp *q, const struct dr_wc *wc,
			const uint8_t *msg, uint64_t *iter);
/** Message @p iter arrived on @p q (once more: a double). */
void perf_unrel_arrived(struct perf_qp *q, uint64_t iter);
/** @p iter is a message of this run. */
bool perf_unrel_in_range(const struct perf *p, uint64_t iter);
/** Messages of @p sent_per_qp a QP that never arrived, over every QP. */
uint64_t perf_unrel_lost(const struct perf *p, uint64_t sent_per_qp);
/** Messages arrived once, over every QP. */
uint64_t perf_unrel_unique(const struct perf *p);
/** UC write_bw server, --check: every slot of the @p n messages whole or untouched. @return those not whole. */
uint64_t perf_unrel_verify_writes(struct perf *p, uint64_t n);
/** UD: a size above the path MTU becomes the MTU, as perftest does (both sides alike). */
int perf_unrel_sizes(struct perf *p);

/* run_bw.c */
int perf_run_bw(struct perf *p);

/* run_lat.c */
int perf_run_lat(struct perf *p);

/* run_raw.c */
/** raw_bw, raw_lat: one size over the bare link (frames like --raw-like's). */
int perf_run_raw(struct perf *p);

/* main.c: the run-time helpers the runners share */
/** Both sides at the same point of the same size (an OOB_BARRIER each way). */
int perf_barrier(struct perf *p);
/** Everything after the handshake: setup, QP exchange, the sizes, FIN. */
int perf_run_session(struct perf *p);
/** "what failed: strerror(err)" on stderr, PERF_FAIL. @p err > 0. */
int perf_api_err(const char *what, int err);
/** A failed completion: its status text on stderr, PERF_FAIL. */
int perf_wc_err(const struct dr_wc *wc);
/** Drive the transport once (dr_progress). */
int perf_progress(struct perf *p);
/** A poll found nothing: in rtc mode with --idle yield / pause, give the workers the CPU. */
void perf_idle(const struct perf *p);
/**
 * Look at the OOB socket about once a millisecond (@p force: now): notes the
 * peer's OOB_DONE. @return PERF_OK, or PERF_FAIL when the peer aborted or
 * the connection broke (a message was printed), or on a signal.
 */
int perf_oob_poll(struct perf *p, bool force);
/** Wait (driving the transport) for the peer's OOB_DONE of this size. */
int perf_wait_peer_done(struct perf *p);
/** Our first --check mismatch of this size, on stderr. */
void perf_print_bad(const struct perf *p);
/** Record a --check mismatch (the first one wins). */
void perf_note_bad(struct perf *p, uint32_t qp, uint64_t iter, uint64_t off,
		   unsigned int expected, unsigned int got);

/* port.c */
/** Find the device, open it (configure_port=1), read MAC, GID, MTU. */
int perf_port_open(struct perf *p);
/** Wait up to @p timeout_s for the link; @p warn when it stays down. */
void perf_port_wait_link(struct perf *p, double timeout_s, bool warn);
/** Wait up to @p timeout_s for the link to go down (the peer closed its port). */
void perf_port_wait_down(struct perf *p, double timeout_s);
/** Close the context and free the device list. */
void perf_port_close(struct perf *p);

/* telemetry.c */
/** /perf/pool in telemetry: the context's mbuf pool (once the port is open). */
void perf_telemetry_init(struct perf *p);
/* counters.c: --counters, printed at the end of the run */
void perf_print_counters(const struct perf *p);
/** Withdraw the pool from /perf/pool (before the context closes). */
void perf_telemetry_fini(void);

/* report.c */
void perf_print_waiting(void);
void perf_print_header(const struct perf *p);
void perf_print_table_head(const struct perf *p);
/** Print the row of @p vals for the current size (@p iters messages). */
void perf_print_row(const struct perf *p, uint64_t iters, const double *vals);
void perf_print_table_end(void);
/** Fill p->res.vals of a bandwidth run. */
void perf_bw_result(struct perf *p, uint64_t msgs, uint64_t cycles, double peak_bytes_per_cycle);
/** Fill p->res.vals of a latency run from p->tstamp[0..n). @return 0 or -1 (no memory). */
int perf_lat_result(struct perf *p, uint64_t n, uint64_t cycles);

#endif /* PERF_H */
