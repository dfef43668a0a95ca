/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_RESP_ACK_H
#define DR_RESP_ACK_H

/*
 * The responder's acknowledgements (dr_resp_ack.c), for the responder's
 * files. Internal: the state they touch is the responder's (dr_resp_state).
 */

#include <stdint.h>

#include "dr_qp_impl.h"

/* Syndrome of a positive ACK: no credit count (0x1F, IBA 9.7.5.1.x; rxe AETH_ACK_UNLIMITED). */
#define DR_RESP_SYN_ACK dr_aeth_syn_make(DR_AETH_ACK, DR_AETH_CREDIT_INVALID)

/* Send an ACK / NAK / atomic ACK now. Returns 0 or -ENOBUFS (no mbuf, no room, no MAC yet). */
int dr_resp_send_ack(struct dr_qp_impl *qp, uint8_t opcode, uint8_t syndrome, uint32_t psn, uint64_t orig);
/* Owe an ACK / NAK; it is sent at the end of the round (coalesced with later ones). */
void dr_resp_owe(struct dr_qp_impl *qp, uint8_t syndrome, uint32_t psn);
/* Send an atomic ACK (IBA 9.4.5, 9.7.5.1.4), or keep it owed when it cannot go out now. */
void dr_resp_send_atomic_ack(struct dr_qp_impl *qp, uint32_t psn, uint64_t orig);
/* Send what is owed. Returns 0 or -ENOBUFS (kept for the next round). */
int dr_resp_flush_ack(struct dr_qp_impl *qp);

#endif /* DR_RESP_ACK_H */
