/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef PERF_OOB_H
#define PERF_OOB_H

/**
 * @file
 * The out-of-band exchange over TCP: the client's request, the QP
 * addresses, a barrier before each size, the results and check verdicts,
 * and a final FIN so both ends stop driving the transport before either
 * closes its port. Every message is a 12-byte header and a fixed payload,
 * every field big-endian (layout in doc/guides/perf.rst).
 */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

#define OOB_MAGIC 0x44525046u      /* "DRPF" */
#define OOB_VERSION 2
#define OOB_HDR_LEN 12
#define OOB_MAX_PAYLOAD 240        /* OOB_DONE's */
#define OOB_TEST_NAME_LEN 16
#define OOB_TEXT_LEN 128
#define OOB_NB_VALS 8
#define OOB_CONNECT_TIMEOUT_S 10.0 /* the client retries this long while the server is not up */
#define OOB_IO_TIMEOUT_MS 5000     /* the rest of a message once its first byte is in */

/** Message types. */
enum oob_type {
	OOB_HELLO = 1,      /**< client -> server: what to run */
	OOB_ACCEPT = 2,     /**< server -> client: run it (with the final flags) */
	OOB_REJECT = 3,     /**< server -> client: refused, with the reason */
	OOB_QP = 4,         /**< both ways, one per QP: its address */
	OOB_BARRIER = 5,    /**< both ways, before each size */
	OOB_DONE = 6,       /**< both ways, after each size (or to abort) */
	OOB_FIN = 7,        /**< both ways, last: the sender no longer drives its port */
};

/** OOB_HELLO.flags */
#define OOB_F_CHECK 1u
#define OOB_F_DURATION 2u
#define OOB_F_CMP_SWAP 4u   /**< atomic tests: CMP_AND_SWAP (else FETCH_AND_ADD) */
#define OOB_F_RAW_LIKE_SHIFT 3    /**< raw tests: bits 3-4, the enum perf_verb of --raw-like */
#define OOB_F_RAW_LIKE_MASK (3u << OOB_F_RAW_LIKE_SHIFT)
#define OOB_F_IMM 32u       /**< send tests: SEND_WITH_IMM; write_bw: RDMA_WRITE_WITH_IMM */
#define OOB_F_CONN_SHIFT 6  /**< bits 6-7: the enum perf_conn of -c */
#define OOB_F_CONN_MASK (3u << OOB_F_CONN_SHIFT)

/** OOB_ACCEPT.flags: OOB_F_CHECK, and */
#define OOB_A_PERSIST 2u    /**< the server stays up after this run (--persist): its port does not go down */

/** Status of OOB_DONE. */
enum oob_status {
	OOB_ST_OK = 0,
	OOB_ST_MISMATCH = 1,  /**< --check found a wrong byte */
	OOB_ST_ERROR = 2,     /**< API or completion error, signal: the run is aborted */
};

struct oob_hello {
	char test[OOB_TEST_NAME_LEN];
	uint32_t num_qps;
	uint32_t flags;
	uint64_t iters;
	uint32_t duration_ms;
	uint32_t nb_sizes;
	uint32_t sizes[PERF_MAX_SIZES];
};

struct oob_accept {
	uint32_t flags;
};

struct oob_reject {
	char reason[OOB_TEXT_LEN];
};

struct oob_qp {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t mtu;          /**< path MTU in bytes the sender can use */
	uint64_t vaddr;        /**< start of the sender's remote-visible region */
	uint8_t gid[16];
	uint8_t mac[6];
	uint8_t out_reads;     /**< its responder depth (max_dest_rd_atomic); 0: not said, 16 */
	uint32_t slots;        /**< slots in that region */
	uint32_t slot_size;    /**< bytes between slots */
	uint32_t ece_vendor;   /**< its QP's ECE (dr_query_ece()): vendor_id */
	uint32_t ece_options;  /**< and options (0: none offered, --go-back-n) */
};

struct oob_barrier {
	uint32_t size_index;
	uint32_t size;
};

struct oob_done {
	uint32_t size_index;
	uint32_t status;        /**< enum oob_status */
	uint64_t iters;         /**< messages the sender's run completed */
	uint64_t verified;      /**< bytes the sender checked */
	uint32_t bad_qp;        /**< first mismatch: QP index ... */
	uint64_t bad_iter;      /**< ... iteration ... */
	uint64_t bad_offset;    /**< ... and byte offset in the message */
	double vals[OOB_NB_VALS]; /**< the sender's result row (report.c) */
	char text[OOB_TEXT_LEN];  /**< what went wrong */
};

struct oob_msg {
	uint16_t type;
	union {
		struct oob_hello hello;
		struct oob_accept accept;
		struct oob_reject reject;
		struct oob_qp qp;
		struct oob_barrier barrier;
		struct oob_done done;
	} u;
};

/* oob_codec.c */
/** Header and payload of @p m into @p b (OOB_HDR_LEN + OOB_MAX_PAYLOAD bytes). @return length. */
size_t oob_encode(const struct oob_msg *m, uint8_t *b);
/** Check a received header. @return 0 with the type and payload length, or -1 after a message. */
int oob_decode_header(const uint8_t *b, uint16_t *type, uint32_t *len);
/** The payload @p b of a message whose type is in @p m. */
void oob_decode(struct oob_msg *m, uint8_t *b);
/** Name of a message type, for messages. */
const char *oob_type_name(unsigned int type);

/* oob.c */
/** One TCP connection. */
struct oob {
	int fd;
	int lfd;               /**< the server's listening socket */
	volatile sig_atomic_t *stop; /**< a signal arrived: blocking calls give up */
	bool broken;           /**< closed by the peer or failed: nothing more is sent */
};

/**
 * Server: listen on @p bind:@p port and accept one client (polls @p stop).
 * @return 0, or -1 after a message.
 */
int oob_accept(struct oob *ob, const char *bind, uint16_t port, volatile sig_atomic_t *stop);

/**
 * Server: listen on @p bind:@p port, accepting nothing yet (--persist).
 * @return 0, or -1 after a message.
 */
int oob_listen(struct oob *ob, const char *bind, uint16_t port, volatile sig_atomic_t *stop);

/**
 * Server: accept the next client on the listening socket (polls @p ob->stop).
 * @return 1, 0 when a signal came first (silently), or -1 after a message.
 */
int oob_accept_next(struct oob *ob);

/** Close the connection to the client, keep listening (--persist). */
void oob_close_conn(struct oob *ob);

/**
 * Client: connect to @p host:@p port, retrying for OOB_CONNECT_TIMEOUT_S
 * while the server is not up. @return 0, or -1 after a message.
 */
int oob_connect(struct oob *ob, const char *host, uint16_t port, volatile sig_atomic_t *stop);

/** Send one message. @return 0, or -1 after a message (silently once broken). */
int oob_send(struct oob *ob, const struct oob_msg *m);

/**
 * Receive one message, waiting up to @p timeout_ms for its first byte
 * (-1: forever, 0: only if one is there).
 * @return 1 with @p m filled, 0 when none came in time, -1 after a message
 *         (peer closed, I/O error, malformed message).
 */
int oob_recv(struct oob *ob, struct oob_msg *m, int timeout_ms);

/** Write @p n raw bytes in one go (--perftest-compat). @return 0, or -1 after a message. */
int oob_write_raw(struct oob *ob, const void *b, size_t n);

/**
 * Read exactly @p n raw bytes, the first within @p first_ms (-1: forever).
 * @return 1, 0 when nothing came in time, -1 after a message.
 */
int oob_read_raw(struct oob *ob, void *b, size_t n, int first_ms);

/** Wait, silently, until the peer closes the connection or @p timeout_ms pass without a byte. */
void oob_wait_closed(struct oob *ob, int timeout_ms);

/** Close the connection (and the listening socket). */
void oob_close(struct oob *ob);

#endif /* PERF_OOB_H */
