/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_HOSTILE_H
#define DR_HOSTILE_H

/*
 * dr-hostile-target: the endpoint the hostile-frame suite attacks
 * (test/integration/test_hostile.py, doc/guides/testing.rst).
 *
 * Target mode: one context with "victim" QPs connected to the attacker's
 * address (an RC, a UC and a UD QP, receives posted) and memory regions
 * with PROT_NONE guard pages on both sides, so an access outside a region
 * kills the process; a small region sits inside a page of guard bytes.
 * The layout (QPNs, PSNs, R_Keys, addresses) goes to stdout as one JSON
 * line; commands on stdin (qp, reset, cqes, check, quit) answer one JSON
 * line each. A real client connecting on TCP gets a fresh RC QP in the
 * same context and protection domain and a checked exchange of WRITE,
 * READ, SEND and atomics (session.c).
 *
 * Client mode (--client HOST): that real client.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "dr_app_engine.h"
#include "dr_verbs.h"

#define HT_PROG "dr-hostile-target"

/* Exit status */
#define HT_EXIT_OK 0
#define HT_EXIT_CHECK 1       /* a guard, pattern or session check failed */
#define HT_EXIT_SETUP 2       /* usage, EAL, verbs setup */

/* The victims' peer: the attacker's QPN, the PSNs both ways (target mode). */
#define HT_ATTACKER_QPN 0x000A11
#define HT_VICTIM_RQ_PSN 0x000100      /* the first PSN the victims expect */
#define HT_VICTIM_SQ_PSN 0x000200
#define HT_VICTIM_QKEY 0x11111111
#define HT_VICTIM_RECVS 16             /* receives posted per victim, HT_RECV_SLOT bytes each */
#define HT_RECV_SLOT 4096u

/* The session's exchange (TCP), network byte order. */
struct ht_wire {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t len;
	uint64_t addr;
	uint8_t gid[16];
};

/* Session sizes: a WRITE and READ of 64 KiB + 1 (several packets, an odd tail), a SEND, two atomics. */
#define HT_SESSION_RDMA (65536u + 1)
#define HT_SESSION_SEND 1000u
#define HT_SESSION_LEN (128u * 1024)   /* the target's session region */
#define HT_ATOMIC_OFF (HT_SESSION_LEN - 8)
#define HT_ATOMIC_INIT 0x1122334455667788ull
#define HT_ATOMIC_ADD 5ull
#define HT_ATOMIC_SWAP 0x0badc0ffee0ddf00ull

struct ht_opts {
	uint32_t ipv4;                /* --ip, network order */
	uint32_t peer_ipv4;           /* --peer-ip: the attacker (target mode) */
	struct rte_ether_addr peer_mac;  /* --peer-mac */
	bool peer_mac_given;
	const char *client;           /* --client HOST: client mode */
	unsigned int port;            /* -p: TCP port of the session (18700) */
	unsigned int path_mtu;        /* -m: 256 .. 4096 (1024) */
	unsigned int timeout_s;       /* --timeout: client mode, the whole session (30) */
	struct dr_app_engine engine;
};

/* A region between two PROT_NONE guard pages (mem.c). */
struct ht_region {
	const char *name;
	uint8_t *map;                 /* the mapping: guard, pages, guard */
	size_t map_len;
	uint8_t *buf;                 /* what the MR covers */
	size_t len;
	size_t page_off;              /* buf - first page: > 0 for a region inside guard bytes */
	uint8_t seed;                 /* the pattern it holds */
	size_t check_from, check_to;  /* the bytes "check" compares with the pattern */
	struct dr_mr *mr;
};

/* Byte k of pattern @seed. */
static inline uint8_t
ht_pat(size_t k, uint8_t seed)
{
	return (uint8_t)((k * 131u + seed * 7u + (k >> 8)) ^ seed);
}

#define HT_GUARD_BYTE 0xA5

/* options.c: 0, 1 (--help printed), -1 (error printed). */
int ht_parse_args(int argc, char **argv, struct ht_opts *o);

/* mem.c */
int ht_region_alloc(struct ht_region *r, const char *name, size_t len, size_t page_off, uint8_t seed);
void ht_region_fill(struct ht_region *r);
/*
 * Whether @r and its guard bytes are as filled (the pattern between
 * check_from and check_to); if not, *@where says which part and *@off the
 * first bad byte's offset from the region's start (negative: before it).
 */
bool ht_region_check(const struct ht_region *r, const char **where, long *off);
void ht_region_free(struct ht_region *r);

/* session.c: the real client's exchange, target side (@fd accepted) and client side. */
int ht_session_serve(struct dr_context *ctx, struct dr_pd *pd, struct ht_region *sess,
		     const struct ht_opts *o, int fd, char *why, size_t why_len);
int ht_session_client(struct dr_context *ctx, const struct ht_opts *o, char *why, size_t why_len);

/* Poll @cq for one completion until @deadline (dr_app_now() seconds): 1, 0 (timeout), -errno. */
int ht_wait_wc(const struct ht_opts *o, struct dr_cq *cq, struct dr_wc *wc, double deadline);

/* RESET -> INIT -> RTR -> RTS of a connected QP (RC, UC) to @dgid, @dqpn, @rq_psn; 0 / -errno. */
int ht_connect_qp(struct dr_qp *qp, enum dr_qp_type type, const union dr_gid *dgid, uint32_t dqpn,
		  uint32_t rq_psn, uint32_t sq_psn, unsigned int path_mtu);

/* The IPv4-mapped GID (GID index 1) of @ipv4 (network order). */
void ht_gid_v4(union dr_gid *gid, uint32_t ipv4);

#endif /* DR_HOSTILE_H */
