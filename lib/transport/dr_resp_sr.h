/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_RESP_SR_H
#define DR_RESP_SR_H

/*
 * The responder's half of selective repeat (dr_resp_sr.c), for the
 * responder's files: requests held after a gap, and the SACK's map.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "dr_qp_impl.h"

/*
 * Keep request @m at @psn, after ePSN (it arrived after a gap): true when
 * held (the responder owns it now), false when it must be dropped (beyond
 * the map, held already, the worker's share of the pool spent). Either way
 * a SACK is owed.
 */
bool dr_resp_sr_hold(struct dr_qp_impl *qp, struct rte_mbuf *m, uint32_t psn);
/* The request held at ePSN, taken out (the caller handles it), or NULL. */
struct rte_mbuf *dr_resp_sr_next(struct dr_qp_impl *qp);
/*
 * The requests held whose turn came (ePSN reached them), through every step
 * of the responder as if they had just arrived, until a gap or a READ to
 * answer first.
 */
void dr_resp_sr_drain(struct dr_qp_impl *qp);
/* Free everything held (RESET, ERR, destroy). */
void dr_resp_sr_free(struct dr_qp_impl *qp);
/* The SACK's payload: ePSN and the map of what is held after it. */
void dr_resp_sr_map(const struct dr_qp_impl *qp, struct dr_sack *s);

#endif /* DR_RESP_SR_H */
