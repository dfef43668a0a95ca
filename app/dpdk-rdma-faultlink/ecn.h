/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef FL_ECN_H
#define FL_ECN_H

/*
 * ECN marking at the output queue, as the congestion point of a DCQCN
 * network marks (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015, section 3; RED with ECN as tc-red(8) writes
 * it): a frame arriving to a queue holding B bytes is marked with
 * probability 0 when B <= kmin, pmax * (B - kmin) / (kmax - kmin) between
 * kmin and kmax, and 1 above kmax. Marking sets the IP ECN field to CE (11)
 * in an ECN-capable frame (ECT(0) 10 or ECT(1) 01) and fixes the IPv4
 * header checksum incrementally (RFC 1624); the RoCEv2 ICRC masks the
 * TOS/traffic class, so it stays valid. Pure logic on a byte buffer.
 */

#include <stdbool.h>
#include <stdint.h>

/*
 * The marking probability for a backlog of @backlog bytes, as a threshold
 * on a uniform 64-bit draw (0: never, UINT64_MAX: always); @pmax_thr is
 * pmax as such a threshold.
 */
uint64_t fl_ecn_threshold(uint64_t kmin, uint64_t kmax, uint64_t pmax_thr, uint64_t backlog);

enum fl_ecn_result {
	FL_ECN_NOT_ECT,      /* not IP, or IP with ECN 00 (Not-ECT): left alone */
	FL_ECN_MARKED,       /* was ECT(0) or ECT(1), now CE */
	FL_ECN_ALREADY_CE,   /* was CE already: left alone */
};

/*
 * Set CE in the @len-byte frame @p (Ethernet, up to two 802.1Q/802.1ad tags,
 * IPv4 or IPv6) if it is ECN-capable; an IPv4 header checksum is updated
 * (RFC 1624 eqn. 3). A frame too short for its IP header is Not-ECT.
 */
enum fl_ecn_result fl_ecn_mark(uint8_t *p, uint32_t len);

#endif /* FL_ECN_H */
