/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_AH_H
#define DR_AH_H

/*
 * Address handles inside: the route a UD packet takes (dr_create_ah()), the
 * peer's MAC learnt on first use, and the count of posted send WQEs that
 * still need it (so it cannot be destroyed under them).
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_context.h"
#include "dr_pkt.h"
#include "dr_verbs.h"

struct dr_ah_impl {
	struct dr_ah pub;
	struct dr_ah_attr attr;        /* as created */
	struct dr_pkt_route route;     /* udp_sport is the sending QP's, set per packet */
	bool resolved;                 /* route.dmac is known */
	uint32_t inflight;             /* posted send WQEs naming it that have not gone out */
};

static inline struct dr_ah_impl *dr_ah_impl(struct dr_ah *ah) { return (struct dr_ah_impl *)ah; }

/*
 * Check an address vector against the context's GID table: a valid source
 * GID index, a unicast destination of the same IP family. @p multicast_ok
 * lets a multicast destination through (checked by the caller).
 * Returns 0, -EINVAL, or -EOPNOTSUPP for a multicast destination.
 */
int dr_av_check(const struct dr_context *ctx, const struct dr_ah_attr *av);

/*
 * Build the route of an address vector (source MAC and GID from the
 * context, destination GID, traffic class, flow label; TTL 64, DF set).
 * The UDP source port and the MAC are left to the caller.
 */
void dr_av_route(const struct dr_context *ctx, const struct dr_ah_attr *av, struct dr_pkt_route *rt);

/* The MAC of the AH's destination: 0, -EAGAIN while ARP / ND runs, or -errno. */
int dr_ah_resolve(struct dr_context *ctx, struct dr_ah_impl *ah);

#endif /* DR_AH_H */
