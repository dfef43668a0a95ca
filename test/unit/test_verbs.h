/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef TEST_VERBS_H
#define TEST_VERBS_H

/*
 * The verbs objects test (test_verbs*.c): one EAL, ring-backed ports, one
 * context opened through the ethdev backend. Each file has its own CHECK
 * counters (dr_test.h); topic functions add theirs to the caller's.
 */

#include <stdint.h>

#include <rte_ring.h>

#include "dr_context.h"
#include "dr_qp_impl.h"
#include "dr_verbs.h"

/* IPv4 address of the context: GID index 1 is ::ffff:10.0.0.1 */
#define TV_IPV4 RTE_BE32(0x0A000001)
/* An address no one answers ARP for: the QPs' peer */
#define TV_PEER_IPV4 RTE_BE32(0x0A000063)

struct tv {
	struct dr_context *ctx;        /* on port_a */
	struct dr_pd *pd;
	uint16_t port_a;
	uint16_t port_b;               /* opened once, with attr.mtu, then closed */
	struct rte_ring *ring_a;       /* port_a's rx and tx ring (a loopback) */
	struct rte_ring *ring_b;
	struct rte_mempool *pool_b;    /* given to port_b's context */
};

/* Counters of a topic file, handed back to main. */
struct tv_count {
	unsigned int passed;
	unsigned int failed;
};

/* The capabilities most tests use. */
struct dr_qp *tv_create_qp(struct tv *t, struct dr_cq *scq, struct dr_cq *rcq, uint32_t max_wr,
			   int sq_sig_all);
/* ibv_rc_pingpong's three steps; dest QPN 0x99, PSNs 0x123 (rq) and 0x456 (sq). Returns 0 or -errno. */
int tv_to_init(struct dr_qp *qp);
int tv_to_rtr(struct dr_qp *qp);
int tv_to_rts(struct dr_qp *qp);
/* The attributes and mask of tv_to_rtr(), for tests that change one of them. */
void tv_rtr_attr(struct dr_qp_attr *attr, int *mask);

void tv_qp_tests(struct tv *t, struct tv_count *c);
void tv_post_tests(struct tv *t, struct tv_count *c);

#endif /* TEST_VERBS_H */
