/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CC_H
#define DR_CC_H

/*
 * Congestion control of a context and its QPs (doc/guides/congestion.rst),
 * the state each stage owns:
 *
 *   dr_cc_ctx   the context's settings, read-only once open: the algorithm,
 *               DCQCN's parameters on the TSC, the CNP interval
 *   dr_cc_rx    a QP's receive stage: CE-marked packets seen, the CNPs it
 *               sent (at most one per cnp_interval: the notification point)
 *               and the CNPs it received, published to the requester
 *               (release; the only value another stage reads)
 *   dr_cc_tx    a QP's requester: DCQCN's rate state and the pacer that
 *               enforces it (the reaction point); CNPs are taken from the
 *               receive stage's count, so the rate machine runs where it is
 *               enforced and no state is written by two lcores
 *
 * Pure logic on the caller's TSC, no EAL: the unit tests drive it.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_dcqcn.h"
#include "dr_pacer.h"
#include "dr_verbs_cc.h"

#define DR_CC_LINE_RATE_DEFAULT 10000000000ull   /* a port that reports no speed */

struct dr_cc_ctx {
	enum dr_cc_algo algo;
	struct dr_dcqcn_params dcqcn;       /* as given or defaulted (ns): what telemetry shows */
	struct dr_dcqcn_params dcqcn_tsc;   /* the same with times in TSC cycles: the machine's clock */
	uint64_t cnp_interval;              /* TSC cycles between two CNPs of a QP; UINT64_MAX: none */
	uint64_t hz;
};

struct dr_cc_rx {
	uint64_t next_cnp;                  /* no CNP before this TSC cycle */
	uint32_t cnp_rx;                    /* CNPs received: written here, read by the requester */
	uint64_t ce_rx;                     /* CE-marked packets received */
	uint64_t cnp_tx;                    /* CNPs sent */
};

struct dr_cc_tx {
	struct dr_dcqcn_rp rp;              /* DCQCN: times in TSC cycles */
	struct dr_pacer pacer;
	uint32_t cnp_taken;                 /* dr_cc_rx.cnp_rx acted on */
	uint64_t paced;                     /* rounds the requester waited for its rate */
};

/*
 * The context's settings from @a for a port of @link_bps bits/s (0: not
 * reported) on a TSC of @hz. 0, or -EINVAL (bad algorithm or parameters).
 */
int dr_cc_ctx_init(struct dr_cc_ctx *c, const struct dr_cc_attr *a, uint64_t link_bps, uint64_t hz);

/* A QP's requester starts (RTS) at @now: line rate, no pacing; the CNPs counted so far (@cnp_rx) are old. */
void dr_cc_tx_init(struct dr_cc_tx *t, const struct dr_cc_ctx *c, uint32_t cnp_rx, uint64_t now);
/* A QP's receive stage starts. */
void dr_cc_rx_init(struct dr_cc_rx *r);

/* The rate machine's work at @now: CNPs received since last time (@cnp_rx), timers; the pacer follows. */
void dr_cc_tx_update(struct dr_cc_tx *t, const struct dr_cc_ctx *c, uint32_t cnp_rx, uint64_t now);

/*
 * May the requester send a frame at @now? Takes new CNPs and due timers
 * first. Cheap when nothing is limited: one comparison of the CNP count
 * and of the rate against the line rate.
 */
static inline bool
dr_cc_tx_ready(struct dr_cc_tx *t, const struct dr_cc_ctx *c, uint32_t cnp_rx, uint64_t now)
{
	if (cnp_rx != t->cnp_taken || dr_dcqcn_limited(&t->rp, &c->dcqcn_tsc))
		dr_cc_tx_update(t, c, cnp_rx, now);
	if (dr_pacer_ready(&t->pacer, now))
		return true;
	t->paced++;
	return false;
}

/* The requester sent @bytes (a frame) at @now: the pacer's time, DCQCN's byte counter. */
static inline void
dr_cc_tx_sent(struct dr_cc_tx *t, const struct dr_cc_ctx *c, uint64_t now, uint32_t bytes)
{
	if (t->pacer.rate == 0)
		return;                     /* at line rate: nothing to count */
	dr_pacer_sent(&t->pacer, now, bytes);
	dr_dcqcn_on_sent(&t->rp, &c->dcqcn_tsc, bytes);
}

/* A CE-marked packet arrived at @now: true when a CNP is due (one per interval). */
static inline bool
dr_cc_rx_ce(struct dr_cc_rx *r, const struct dr_cc_ctx *c, uint64_t now)
{
	r->ce_rx++;
	if (c->cnp_interval == UINT64_MAX || now < r->next_cnp)
		return false;
	r->next_cnp = now + c->cnp_interval;
	return true;
}

/* A CNP for the QP arrived: counted and published to its requester. */
static inline void
dr_cc_rx_cnp(struct dr_cc_rx *r)
{
	__atomic_store_n(&r->cnp_rx, r->cnp_rx + 1, __ATOMIC_RELEASE);
}

/* The CNP count the requester acts on. */
static inline uint32_t
dr_cc_cnp_seen(const struct dr_cc_rx *r)
{
	return __atomic_load_n(&r->cnp_rx, __ATOMIC_ACQUIRE);
}

#endif /* DR_CC_H */
