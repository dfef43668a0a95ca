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

#endif /* DR_RESP_H */
