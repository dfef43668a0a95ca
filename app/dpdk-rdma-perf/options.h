/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef PERF_OPTIONS_H
#define PERF_OPTIONS_H

/**
 * @file
 * dpdk-rdma-perf's own command line (what follows "--"): perftest's flags
 * where they apply, plus the few a RoCE-over-DPDK endpoint needs (--ip,
 * --peer-mac, --link-mtu, --check, --sizes, --oob-bind).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "dr_app_engine.h"
#include "dr_config.h"
#include "dr_verbs.h"

#define PERF_PROG "dpdk-rdma-perf"

/** Exit statuses. */
enum {
	PERF_EXIT_OK = 0,
	PERF_EXIT_FAIL = 1,     /**< API, completion, link, OOB error or a --check mismatch */
	PERF_EXIT_USAGE = 2,    /**< bad command line */
};

#define PERF_DEF_PORT 18515          /* perftest's DEF_PORT */
#define PERF_DEF_SIZE_BW 65536u      /* DEF_SIZE_BW */
#define PERF_DEF_SIZE_LAT 2u         /* DEF_SIZE_LAT */
#define PERF_DEF_ITERS_BW 5000u      /* DEF_ITERS_WB */
#define PERF_DEF_ITERS_ATOMIC 1000u  /* DEF_ITERS: perftest's atomic_bw too */
#define PERF_ATOMIC_SIZE 8u          /* DEF_SIZE_ATOMIC: the only size of the atomic tests */
#define PERF_DEF_ITERS_LAT 1000u     /* DEF_ITERS */
#define PERF_DEF_TX_BW 128u          /* DEF_TX_BW */
#define PERF_DEF_TX_LAT 1u           /* DEF_TX_LAT */
#define PERF_DEF_RX 512u             /* DEF_RX_SEND */
#define PERF_DEF_CQ_MOD 100u         /* DEF_CQ_MOD */
#define PERF_DEF_GID_INDEX 1         /* the IPv4-mapped GID (rxe's table) */
#define PERF_DEF_QP_TIMEOUT 14       /* perftest's -u: 4.096 us * 2^14, 67 ms */
#define PERF_MAX_SIZES 32            /* sizes of one run (-a gives 23) */
#define PERF_ALL_MIN_SHIFT 1         /* -a: 2 ... */
#define PERF_ALL_MAX_SHIFT 23        /* ... 2^23, as perftest's MAX_SIZE */
#define PERF_MAX_ITERS_BW (1ull << 40)
#define PERF_MAX_ITERS_LAT 10000000ull /* one timestamp per iteration is kept */
#define PERF_MIN_ITERS_LAT 5u        /* the statistics drop the 2 largest samples */
#define PERF_MAX_DURATION 86400.0
#define PERF_MIN_LINK_MTU 256u
#define PERF_MAX_LINK_MTU 9216u

/** What a test moves. */
enum perf_verb {
	PERF_SEND,
	PERF_WRITE,
	PERF_READ,
	PERF_ATOMIC,
};

/** The atomic tests' operation (-A, perftest's atomicTypesStr order). */
enum perf_atomic_type {
	PERF_CMP_AND_SWAP,
	PERF_FETCH_AND_ADD,
};

/**
 * Does the requester fetch data back (RDMA READ, atomics)? Then the
 * responder's CPU takes no part, and outstanding requests are bounded by
 * max_rd_atomic (perftest's "READ || ATOMIC").
 */
static inline bool
perf_verb_fetches(enum perf_verb v)
{
	return v == PERF_READ || v == PERF_ATOMIC;
}

/** How it measures. */
/** perftest's -c: the QP type (perftest's connection types dpdk-rdma has). */
enum perf_conn {
	PERF_RC,
	PERF_UC,
	PERF_UD,
};

#define PERF_UD_GRH 40u              /* a UD receive buffer starts with the GRH (ibv_post_recv(3)) */
#define PERF_UD_QKEY 0x11111111u     /* perftest's DEF_QKEY */

enum perf_kind {
	PERF_BW,
	PERF_LAT,
};

struct perf_test;

/** The command line, checked. */
struct perf_opts {
	const struct perf_test *test;   /**< from the first positional argument */
	const char *server;             /**< NULL: we are the server */
	uint16_t tcp_port;              /**< -p: OOB TCP port */
	const char *oob_bind;           /**< --oob-bind: server's listen address */
	uint32_t sizes[PERF_MAX_SIZES]; /**< -s, -a or --sizes */
	unsigned int nb_sizes;
	bool all;                       /**< -a: perftest's sizes 2 ... 2^23 */
	bool size_given;                /**< -s, -a or --sizes was given */
	uint64_t iters;                 /**< -n */
	bool iters_given;
	double duration;                /**< -D seconds; 0: iteration mode */
	uint32_t mtu;                   /**< -m path MTU bytes; 0: the port's active MTU */
	uint32_t tx_depth;              /**< -t */
	bool tx_given;                  /**< -t was given (else the test's default) */
	uint32_t rx_depth;              /**< -r */
	uint32_t cq_mod;                /**< -Q */
	uint32_t num_qps;               /**< -q */
	bool report_gbits;              /**< --report_gbits */
	const char *ib_dev;             /**< -d: "dr_<port name>"; NULL: the first */
	uint8_t ib_port;                /**< -i: 1 */
	int gid_index;                  /**< -x */
	uint8_t qp_timeout;             /**< -u: local ACK timeout, IBA's encoding (0: none) */
	bool qp_timeout_given;          /**< -u was given (-R: the CM's id takes it) */
	rte_be32_t ipv4;                /**< --ip (network order) */
	uint8_t ipv6[2][16];            /**< --ipv6: GID indexes 2, 3 */
	unsigned int num_ipv6;
	struct rte_ether_addr peer_mac; /**< --peer-mac */
	bool peer_mac_given;
	bool check;                     /**< --check */
	bool use_hugepages;             /**< --use_hugepages: buffers in EAL's hugepage memory */
	uint32_t link_mtu;              /**< --link-mtu: IP MTU of the context; 0: the port's */
	bool perftest;                  /**< --perftest-compat: perftest's OOB exchange */
	bool rdma_cm;                   /**< -R: the QP and the exchange through the CM (rdma_cm.c) */
	struct dr_app_engine engine;    /**< --mode, --workers, --idle, --queues (app/common) */
	enum perf_atomic_type atomic;   /**< -A: atomic tests */
	uint32_t out_reads;             /**< -o: outstanding READs/atomics; 0: the device's max */
	enum perf_verb raw_like;        /**< --raw-like: the frames of raw_bw / raw_lat (default write) */
	enum perf_conn conn;            /**< -c: RC (default), UC, UD */
	bool conn_given;
	bool send_imm;                  /**< --send_with_imm: send tests post SEND_WITH_IMM */
	bool write_imm;                 /**< --write_with_imm: write_bw posts RDMA_WRITE_WITH_IMM */
	bool go_back_n;                 /**< --go-back-n: no selective repeat offered (ECE options 0) */
	bool counters;                  /**< --counters: the context's counters printed at the end */
	bool persist;                   /**< --persist: the server serves clients until a signal */
};

/**
 * Parse the program's own arguments (@p argv[0] is the program name).
 * @return 0 to run, 1 after --help or --version (exit 0), -1 after a message
 *         on stderr (exit PERF_EXIT_USAGE).
 */
int perf_parse_args(int argc, char **argv, struct perf_opts *o);

/** The usage text. */
void perf_usage(FILE *out);

/** "RC", "UC", "UD". */
const char *perf_conn_name(enum perf_conn c);

/** perftest's name of an atomic type: "CMP_AND_SWAP", "FETCH_AND_ADD". */
const char *perf_atomic_name(enum perf_atomic_type t);

/**
 * options_rules.c: the checks and defaults that need every option (options.c
 * says which were given). @return 0, or -1 after a message on stderr.
 */
int perf_opts_finish(struct perf_opts *o, bool have_ip, bool tx_given, bool all, bool size_opt,
		     bool sizes_opt, bool atomic_given, bool outs_given);
/** options_rules.c: the raw tests' rules (@p raw_like_given: --raw-like was given). */
int perf_opts_finish_raw(struct perf_opts *o, bool raw_like_given);

/** Largest message size of the run. */
uint32_t perf_max_size(const struct perf_opts *o);

/** "dpdk-rdma-perf: <what>: <fmt>" on stderr; the text is kept in perf_last_err. */
void perf_err(const char *what, const char *fmt, ...) __rte_format_printf(2, 3);

/** The last message of perf_err() (sent to the peer when we abort). */
extern char perf_last_err[128];

#endif /* PERF_OPTIONS_H */
