/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef FUZZ_RX_H
#define FUZZ_RX_H

/*
 * What the two halves of the fuzz_rx harness share: the state (contexts,
 * slots, templates, counters), the input header bits, and the environment's
 * functions the input side calls. fuzz_rx_env.c builds the environment;
 * fuzz_rx.c (whose opening comment describes the harness and the input
 * format) turns each input into frames for T.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "dr_pkt.h"
#include "dr_verbs.h"

#define NSLOT 8
#define QKEY 0x11111111u
#define MAX_TMPL 96
#define MAX_FRAME 9216          /* a jumbo frame; longer inputs are cut */
#define MAX_FRAMES 8            /* frames of one mode-3 input */
#define PSN_T 0x100             /* T's sq_psn = P's rq_psn */
#define PSN_P 0x200             /* P's sq_psn = T's rq_psn */

/* Input header bits (fuzz_rx.c). */
#define F_MODE 0x03u
#define F_ICRC 0x04u
#define F_QPN 0x08u
#define F_PSN 0x10u
#define F_RKEY 0x20u
#define F_LEN 0x40u
#define F_DUP 0x80u
#define G_SEGS 0x03u
#define G_PD2 0x04u
#define G_RESET 0x08u
#define HDR_BYTES 3

#define FZ_FATAL(...) do { \
	fprintf(stderr, "fuzz_rx: " __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)

/* A buffer with guard bytes on both sides of its registered part. */
struct gbuf {
	uint8_t *base;
	uint8_t *p;
	size_t len;
	struct dr_mr *mr;
};

struct slot {
	const char *name;
	enum dr_qp_type t_type;       /* T's QP type (XRC: XRC_RECV; P's is XRC_SEND) */
	enum dr_qp_state want;        /* RTS, RTR or ERR */
	unsigned int access;
	bool srq;                     /* receives on an SRQ (basic or XRC) */
	bool recvs;                   /* post receives on its own RQ */
	struct dr_qp *tq, *pq;
	uint8_t hdr[DR_PKT_TMPL_MAX]; /* Ethernet/IPv4/UDP of P's frames to it */
	uint8_t hdr_len;
	uint64_t resets;
};

struct tmpl {
	uint8_t f[1200];
	uint16_t len;
	uint8_t slot;
};

struct fz_state {
	struct dr_context *t, *p;
	struct rte_ring *t_rx, *t_tx, *p_rx, *p_tx;
	struct rte_mempool *pool;
	struct dr_pd *tpd, *tpd2, *ppd;
	struct dr_cq *tcq, *pcq;
	struct dr_xrcd *xrcd;
	struct dr_srq *xsrq, *bsrq;
	uint32_t xsrqn;
	struct dr_ah *p_ah;
	struct gbuf tmr, tmr2, trecv, pbuf;
	union dr_gid tgid, pgid;
	struct slot s[NSLOT];
	struct tmpl tm[MAX_TMPL];
	unsigned int ntm;
	uint64_t execs, reset_every, frames_in;
	bool verbose;
};

/* The one state of the harness (fuzz_rx_env.c, with its slot table). */
extern struct fz_state fz;

/*
 * EAL, T and P, their MRs and QPs, every slot in its state, P's frames
 * captured as templates and nothing of them delivered: T in its fresh state.
 * Aborts on any failure. @prog is EAL's argv[0].
 */
void fz_env_setup(const char *prog);
/* Write the templates to @dir as seed inputs (DR_FUZZ_DUMP_SEEDS). */
void fz_dump_seeds(const char *dir);
/* Bring slot @i's T QP from any state to the one it should be in. */
int fz_slot_reset(unsigned int i);
/* Free every frame in @r. */
void fz_drain(struct rte_ring *r);
/* Poll T's CQ; post a receive again for each one consumed. Read T's async events. */
void fz_poll_t(void);
/* Abort if anything was written in @b's guard bytes. */
void fz_gbuf_check(const struct gbuf *b, const char *name);

#endif /* FUZZ_RX_H */
