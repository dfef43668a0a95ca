/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_RESP_READ_H
#define DR_RESP_READ_H

/*
 * The responder's resources and READ responses (dr_resp_read.c), for the
 * responder's files. Internal: the state they touch is the responder's
 * (dr_resp_state).
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_qp_impl.h"

struct dr_rkey_target;             /* dr_mw.h */

/*
 * What an R_Key reaches for this QP, and whether [va, va + len) with @rights
 * is inside it (IBA 10.6.3.2, C9-88; an MR or a memory window, 10.6.7.2).
 * Returns true, or false for a remote access error.
 */
bool dr_resp_target(struct dr_qp_impl *qp, uint32_t rkey, uint64_t va, uint64_t len, unsigned int rights,
		    struct dr_rkey_target *t);
/* A responder resource for a new READ / atomic, recycled round robin (rxe rxe_prepare_res()). */
struct dr_resp_res *dr_resp_new_res(struct dr_qp_impl *qp, int *idx);
/*
 * Execute a READ request at @psn for @len bytes at @va under @rkey, checked
 * (IBA 9.7.5.1.3; rxe execute() of a READ): a resource of its own, active
 * at once or queued behind the READs being answered, the MSN counting it
 * and the expected PSN past its responses, the ACK it makes owed no more.
 * Its responses go out from dr_resp_progress() (dr_resp_read_reply()).
 */
void dr_resp_read_exec(struct dr_qp_impl *qp, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len);
/* The resource whose PSN range holds @psn, or NULL (rxe find_resource()). */
struct dr_resp_res *dr_resp_find_res(struct dr_qp_impl *qp, uint32_t psn, int *idx);
/*
 * Send at most @budget READ responses of the active resource (IBA 9.7.5.1.3;
 * rxe read_reply()). Returns the number sent. When the region has gone since
 * the request, sets *access_err and sends nothing more: the caller NAKs.
 */
int dr_resp_read_reply(struct dr_qp_impl *qp, int budget, bool *access_err);

#endif /* DR_RESP_READ_H */
