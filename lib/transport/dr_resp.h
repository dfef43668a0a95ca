/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_RESP_H
#define DR_RESP_H

/* The responder's steps (dr_resp.c), for its entry points (dr_resp_rx.c) and selective repeat. */

#include <stdbool.h>

#include <rte_mbuf.h>

#include "dr_qp_impl.h"

/* Run the checks and the execution of one request (its payload @placed already or not); takes @m. */
void dr_resp_handle(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi, bool placed);

/* A request kept for later (resp.pend, selective repeat), parsed again and handled; takes @m. */
void dr_resp_handle_held(struct dr_qp_impl *qp, struct rte_mbuf *m);

/*
 * The region of the READ being answered went away (deregistered, window
 * invalidated) before all its responses were sent: a remote access error NAK
 * at the next response PSN, and the QP to ERR (rxe read_reply() recheck).
 */
void dr_resp_nak_read_access(struct dr_qp_impl *qp);

/*
 * Keep request @m for later (behind READs in resp.pend, after a gap by
 * selective repeat; dr_resp_state.c). It counts against the worker's share
 * of the context's pool (resp_held_max) and, when it came from a pool that is
 * not the context's (the application's rx queue or dr_rx_burst_input()),
 * against the worker's share of dr_context_attr.app_pool_hold: beyond that,
 * the frame kept is a copy in the context's pool and @m is freed at once.
 * Returns the frame to keep (@m or its copy; @m is taken), or NULL when
 * none may be kept (@m stays the caller's, to drop; counted in rx_dropped).
 */
struct rte_mbuf *dr_resp_keep(struct dr_qp_impl *qp, struct rte_mbuf *m);

/* A frame dr_resp_keep() returned is no longer kept (handled or freed next). */
void dr_resp_unkeep(struct dr_qp_impl *qp, const struct rte_mbuf *m);

#endif /* DR_RESP_H */
