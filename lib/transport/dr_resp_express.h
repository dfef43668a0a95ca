/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_RESP_EXPRESS_H
#define DR_RESP_EXPRESS_H

/* The responder's express path (dr_resp_express.c), for the engine's receive stage. */

#include <stdbool.h>

#include <rte_mbuf.h>

#include "dr_pkt_express.h"
#include "dr_qp_impl.h"

/*
 * Execute the request in express frame @x on @qp, its worker's QP, where
 * the general path would take it whole and in the same way: true when it
 * did (the frame's mbuf is then the caller's to free: in bulk), false when
 * it changed nothing and the frame is the general path's.
 */
bool dr_resp_express(struct dr_qp_impl *qp, const struct dr_pkt_xp *x);

#endif /* DR_RESP_EXPRESS_H */
