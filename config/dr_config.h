/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CONFIG_H
#define DR_CONFIG_H

/*
 * Compile-time limits and defaults of dpdk-rdma. dr_query_device() reports
 * them; create calls reject requests above them with EINVAL.
 */

#define DR_MAX_QP 65536          /* QPs per context (dr_context_attr.max_qp lowers it) */
#define DR_QPN_BASE 0x11         /* first QPN handed out (0, 1 are QP0/QP1; rxe also starts at 17) */
#define DR_GSI_QPN 1             /* QP1, the General Services Interface (IBA 13.5.1): the CM's MADs */
#define DR_GSI_QKEY 0x80010000u  /* its well-known Q_Key (IBA 13.5.1.1) */
/* QPN = DR_QPN_BASE + table index must fit the BTH's 24-bit DestQP (IBA 9.2) */
#if DR_QPN_BASE + DR_MAX_QP - 1 > 0xFFFFFF
#error "DR_MAX_QP: QPNs beyond 24 bits"
#endif
#define DR_MAX_MR 4096           /* MRs per context (key indices 0 .. DR_MAX_MR - 1) */
#define DR_MAX_MW 1024           /* memory windows per context (key indices after the MRs') */
#define DR_MAX_PD 1024
#define DR_MAX_CQ 1024
#define DR_MAX_CQE 65536         /* entries per CQ */
#define DR_MAX_QP_WR 16384       /* WRs per send or receive queue */
#define DR_MAX_SRQ 1024          /* SRQs per context */
#define DR_MAX_SRQ_WR 16384      /* WRs per SRQ */
#define DR_MAX_SGE 32            /* SGEs per WR */
#define DR_MAX_INLINE 512        /* bytes of inline data per send WR */
#define DR_MAX_RD_ATOMIC 16      /* outstanding RDMA READ/atomic per QP, either side */
#define DR_MAX_MSG_SIZE (1u << 30) /* largest message: 1 GiB */
#define DR_MAX_GIDS 8            /* GID table entries */
#define DR_BURST 32              /* packets per rx/tx burst */
#define DR_MAX_PKTS_PER_QP_ROUND 64 /* packets a QP may send per progress round (fairness) */
/*
 * The mbuf pool a context creates when the application gives none
 * (dr_context_attr.pool_mbufs = 0): enough for every descriptor of the
 * port's queues, every ring and staging array of the engine, the per-lcore
 * caches, and DR_POOL_INFLIGHT frames being built, answered or held by the
 * responder; rounded up to 2^n - 1 (rte_mempool's best size). One queue
 * pair of 1024 + 1024 descriptors and one worker give 16383.
 */
#define DR_POOL_INFLIGHT 8192    /* frames in the stages at once, beyond rings and caches */
#define DR_POOL_MIN_MBUFS 1023   /* smallest pool_mbufs accepted */
#define DR_POOL_CACHE 256
#define DR_POOL_RING_DESC 1024   /* descriptors counted per queue when nb_rx/tx_desc are 0 (the ethdev backend's default) */
/* data room: headroom + the largest frame (4096-byte payload + 18 + 40 + 8 + 44 + 3 + 4) */
#define DR_MBUF_DATA_ROOM (RTE_PKTMBUF_HEADROOM + 4096 + 256)
#define DR_DEFAULT_HOP_LIMIT 64  /* TTL of our packets (rxe: the kernel's default 64) */
#define DR_NEIGH_ENTRIES 256     /* neighbour table entries */
#define DR_NEIGH_RETRY_MS 100    /* interval between ARP / NS requests for one address */
/*
 * An engine thread that did not run a round for longer than this was
 * stalled (descheduled, or an inline application that did not call
 * dr_progress()): the retransmission timers count this much of the gap and
 * no more (lib/engine/dr_run_clock.h). Longer than any round takes, shorter
 * than the shortest ACK timeout worth setting.
 */
#define DR_STALL_CAP_US 500
/* DR_IDLE_SLEEP: spin this long after the last busy round, then sleep this long at a time */
#define DR_IDLE_SPIN_US 200
#define DR_IDLE_SLEEP_US 10
/*
 * DR_IDLE_AUTO: an idle thread looks this often at the time it waited for
 * its CPU on a run queue (the scheduler's run_delay), as a share of the
 * look's interval, averaged over looks (each look a quarter); at
 * DR_IDLE_AUTO_WAIT_PCT or more it naps, for DR_IDLE_AUTO_HOLD_US. A rank
 * with a CPU of its own waited 2-8 % (the kernel's softirq threads at work
 * on its own frames, bursts to 28 % in a 20 ms sample); two ranks on a CPU
 * 35-40 % each (2026-11-29, MPI workload over net_af_packet).
 */
#define DR_IDLE_AUTO_CHECK_US 10000
#define DR_IDLE_AUTO_WAIT_PCT 20
#define DR_IDLE_AUTO_HOLD_US 1000000

#endif /* DR_CONFIG_H */
