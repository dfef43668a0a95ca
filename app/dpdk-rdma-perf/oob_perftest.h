/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef PERF_OOB_PERFTEST_H
#define PERF_OOB_PERFTEST_H

/**
 * @file
 * --perftest-compat and -R: perftest's own out-of-band exchange over TCP, or
 * with -R over an rdma_cm connection (rdma_cm.c) (as
 * Debian 12's perftest 4.5-0.17 speaks it, protocol version "6.06"), so
 * that unmodified ib_{send,write,read,atomic}_{bw,lat} can be the peer. perftest's
 * messages carry no framing: each is a fixed number of raw bytes, the
 * client writes first and the server reads first (ctx_xchg_data,
 * ctx_hand_shake). Layout in doc/guides/perf.rst.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PT_VERSION "6.06"          /* perftest's VERSION in 4.5-0.17 */
#define PT_VERSION_LEN 16          /* MAX_VERSION */
#define PT_MIN_VERSION 5.70        /* check_version_compatibility() */
#define PT_KEY_LEN 108             /* KEY_MSG_SIZE_GID: KEY_PRINT_FMT_GID and its NUL */
#define PT_MTU_LEN 2               /* check_mtu(): "%d" of enum ibv_mtu, NUL */
#define PT_DONE "done"             /* ctx_close_connection(): sizeof "done" bytes */
#define PT_CACHE_LINE 64u
#define PT_FIRST_MS 60000          /* a peer silent this long before the run is gone */

/** struct pingpong_dest as the key message carries it. */
struct pt_dest {
	uint32_t lid;
	uint32_t out_reads;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t vaddr;
	uint8_t gid[16];
	uint32_t srqn;
};

#define PT_DEST_LEN 56             /* -R: struct pingpong_dest (rdma_write_keys()) */

/** -R's hand shake: @p d as struct pingpong_dest, big-endian, into @p m (PT_DEST_LEN bytes). */
void pt_dest_pack(const struct pt_dest *d, int gid_index, uint8_t *m);
/** ... and back (srqn and gid_index as perftest: the latter ignored). */
void pt_dest_unpack(const uint8_t *m, struct pt_dest *d);

/** Format @p d as KEY_PRINT_FMT_GID into @p msg (PT_KEY_LEN bytes, NUL-padded). */
void pt_key_encode(const struct pt_dest *d, char *msg);

/** Parse a key message. @return 0, or -1 when malformed. */
int pt_key_decode(const char *msg, struct pt_dest *d);

struct perf;

/**
 * ctx_xchg_data: the client writes @p len bytes then reads as many, the
 * server the other way round. @p drive: run the transport while waiting.
 * @return PERF_OK or PERF_FAIL after a message.
 */
int pt_xchg(struct perf *p, const void *mine, void *theirs, size_t len, bool drive);

/** Versions, page and cache-line sizes, path MTU (before the QPs exist). */
int pt_preamble(struct perf *p);

/** ctx_hand_shake with our QP @p qi's address; @p parse: it is the peer's QP @p qi. */
int pt_hand_shake(struct perf *p, unsigned int qi, bool parse);

/** xchg_bw_reports: ours out, the peer's into @p vals (bytes/s), @p iters and @p size. */
int pt_xchg_bw_reports(struct perf *p, double *vals, uint64_t *iters, uint64_t *size);

/** ctx_close_connection: one more hand shake, then "done" (-R: the hand shake alone). */
int pt_close(struct perf *p);

/** -R: an empty hand shake (before and after the data connection). */
int pt_barrier(struct perf *p);

/** During a run: has the peer's hand shake (its end of the run) come? Sets p->peer_done_seen. */
int pt_poll(struct perf *p);

#endif /* PERF_OOB_PERFTEST_H */
