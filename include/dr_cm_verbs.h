/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_VERBS_H
#define DR_CM_VERBS_H

/**
 * @file
 * librdmacm's rdma_verbs.h on a dr_cm_id: memory registration on the id's
 * PD, one-call posts on its QP, and completions waited for on the CQs
 * dr_cm_create_qp() made (rdma_reg_msgs(3), rdma_post_send(3),
 * rdma_post_ud_send(3), rdma_get_send_comp(3), ...). Same arguments and
 * meaning, one for one; they return 0 or -errno (librdmacm: -1 and errno).
 * @p context becomes the work request's wr_id; @p mr NULL posts inline data
 * (DR_SEND_INLINE in @p flags) as librdmacm allows.
 */

#include <stddef.h>
#include <stdint.h>

#include "dr_cm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** rdma_reg_msgs(3): @p addr for sends and receives (local write). NULL with errno set. */
struct dr_mr *dr_cm_reg_msgs(struct dr_cm_id *id, void *addr, size_t length);
/** rdma_reg_read(3): @p addr for the peer's RDMA READs. NULL with errno set. */
struct dr_mr *dr_cm_reg_read(struct dr_cm_id *id, void *addr, size_t length);
/** rdma_reg_write(3): @p addr for the peer's RDMA WRITEs. NULL with errno set. */
struct dr_mr *dr_cm_reg_write(struct dr_cm_id *id, void *addr, size_t length);
/** rdma_dereg_mr(3). @return 0 or -errno. */
int dr_cm_dereg_mr(struct dr_mr *mr);

/** rdma_post_recvv(3): a receive of @p nsge SGEs. */
int dr_cm_post_recvv(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge);
/** rdma_post_sendv(3). */
int dr_cm_post_sendv(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge, int flags);
/** rdma_post_readv(3): READ @p remote_addr / @p rkey into @p sgl. */
int dr_cm_post_readv(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge, int flags,
		     uint64_t remote_addr, uint32_t rkey);
/** rdma_post_writev(3). */
int dr_cm_post_writev(struct dr_cm_id *id, void *context, struct dr_sge *sgl, int nsge, int flags,
		      uint64_t remote_addr, uint32_t rkey);

/** rdma_post_recv(3): a receive into @p addr (@p length bytes of @p mr). */
int dr_cm_post_recv(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr);
/** rdma_post_send(3). */
int dr_cm_post_send(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr, int flags);
/** rdma_post_read(3). */
int dr_cm_post_read(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr, int flags,
		    uint64_t remote_addr, uint32_t rkey);
/** rdma_post_write(3). */
int dr_cm_post_write(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr, int flags,
		     uint64_t remote_addr, uint32_t rkey);
/**
 * rdma_post_ud_send(3): on a UD id, @p length bytes at @p addr to QP
 * @p remote_qpn behind @p ah with Q_Key DR_UDP_QKEY (the argument list of
 * rdma_post_ud_send: id, context, addr, length, mr, flags, ah, remote_qpn).
 */
int dr_cm_post_ud_send(struct dr_cm_id *id, void *context, void *addr, size_t length, struct dr_mr *mr,
		       int flags, struct dr_ah *ah, uint32_t remote_qpn);

/**
 * rdma_get_send_comp(3): the next completion of the id's send CQ (one
 * dr_cm_create_qp() made), waiting on its channel (inline mode: driving
 * the transport) while there is none. @return 1 (@p wc filled) or -errno
 * (-EINVAL: the id has no CQ of its own).
 */
int dr_cm_get_send_comp(struct dr_cm_id *id, struct dr_wc *wc);
/** rdma_get_recv_comp(3): the same on the receive CQ. */
int dr_cm_get_recv_comp(struct dr_cm_id *id, struct dr_wc *wc);

#ifdef __cplusplus
}
#endif

#endif /* DR_CM_VERBS_H */
