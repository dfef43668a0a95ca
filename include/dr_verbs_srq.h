/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_SRQ_H
#define DR_VERBS_SRQ_H

/**
 * @file
 * Shared receive queues (ibv_create_srq(3), ibv_modify_srq(3)) and XRC
 * domains (ibv_open_xrcd(3)).
 *
 * Part of the verbs-shaped API; include dr_verbs.h, which includes every part.
 */

#include "dr_verbs_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Shared receive queues (ibv_create_srq(3), ibv_modify_srq(3))        */
/* ------------------------------------------------------------------ */

/** A shared receive queue (struct ibv_srq). */
struct dr_srq {
	struct dr_context *context;
	void *srq_context;
	struct dr_pd *pd;
	uint32_t handle;
};

/** SRQ attributes (struct ibv_srq_attr). */
struct dr_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;           /**< armed limit; 0 = not armed */
};

/** Creation attributes of an SRQ (struct ibv_srq_init_attr). */
struct dr_srq_init_attr {
	void *srq_context;
	struct dr_srq_attr attr;      /**< srq_limit is ignored; max_wr/max_sge written back */
};

/** SRQ types (enum ibv_srq_type). */
enum dr_srq_type {
	DR_SRQT_BASIC,                /**< a QP's receive queue */
	DR_SRQT_XRC,                  /**< the receive queue of XRC_RECV QPs of an XRC domain, named by XRCETH */
	DR_SRQT_TM,                   /**< tag matching: not offered */
};

/** dr_srq_init_attr_ex.comp_mask (enum ibv_srq_init_attr_mask, the bits that apply). */
enum dr_srq_init_attr_mask {
	DR_SRQ_INIT_ATTR_TYPE = 1 << 0,
	DR_SRQ_INIT_ATTR_PD = 1 << 1,
	DR_SRQ_INIT_ATTR_XRCD = 1 << 2,
	DR_SRQ_INIT_ATTR_CQ = 1 << 3,
	DR_SRQ_INIT_ATTR_TM = 1 << 4,
};

struct dr_xrcd;

/** Creation attributes of an SRQ of a type (struct ibv_srq_init_attr_ex). */
struct dr_srq_init_attr_ex {
	void *srq_context;
	struct dr_srq_attr attr;
	uint32_t comp_mask;
	enum dr_srq_type srq_type;
	struct dr_pd *pd;             /**< required; for XRC, the PD of the R_Key checks of its requests */
	struct dr_xrcd *xrcd;         /**< XRC: the domain */
	struct dr_cq *cq;             /**< XRC: where its receive completions go */
};

/**
 * ibv_create_srq_ex(3): a basic SRQ (as dr_create_srq()) or an XRC SRQ
 * (DR_SRQ_INIT_ATTR_TYPE with DR_SRQT_XRC, plus PD, XRCD and CQ).
 * @return the SRQ or NULL with errno set (EINVAL a missing or foreign
 *         attribute, EOPNOTSUPP tag matching, as dr_create_srq() otherwise).
 */
struct dr_srq *dr_create_srq_ex(struct dr_context *ctx, struct dr_srq_init_attr_ex *init_attr);

/** ibv_get_srq_num(3): the number an XRC SRQ is named by in XRCETH. @return 0 or -EINVAL. */
int dr_get_srq_num(struct dr_srq *srq, uint32_t *srq_num);

/** An XRC domain (struct ibv_xrcd). */
struct dr_xrcd {
	struct dr_context *context;
};

/** dr_xrcd_init_attr.comp_mask (enum ibv_xrcd_init_attr_mask). */
enum dr_xrcd_init_attr_mask {
	DR_XRCD_INIT_ATTR_FD = 1 << 0,
	DR_XRCD_INIT_ATTR_OFLAGS = 1 << 1,
};

/** Attributes of dr_open_xrcd() (struct ibv_xrcd_init_attr). */
struct dr_xrcd_init_attr {
	uint32_t comp_mask;
	int fd;                       /**< -1: a domain of this context only (the only kind offered) */
	int oflags;                   /**< O_CREAT (needed with fd -1) */
};

/**
 * ibv_open_xrcd(3): an XRC domain. Domains shared between processes
 * through a file (@p fd other than -1) are not offered (EOPNOTSUPP).
 * @return the domain or NULL with errno set.
 */
struct dr_xrcd *dr_open_xrcd(struct dr_context *ctx, struct dr_xrcd_init_attr *attr);
/** ibv_close_xrcd(3). @return 0, -EBUSY while SRQs or QPs use it. */
int dr_close_xrcd(struct dr_xrcd *xrcd);

/** dr_modify_srq() mask (enum ibv_srq_attr_mask). */
enum dr_srq_attr_mask {
	DR_SRQ_MAX_WR = 1 << 0,       /**< resize */
	DR_SRQ_LIMIT = 1 << 1,        /**< arm the limit event */
};

/**
 * ibv_create_srq(3). @return the SRQ, or NULL with errno set (EINVAL:
 * max_wr 0 or above the device's max_srq_wr, max_sge above max_srq_sge;
 * ENOMEM).
 */
struct dr_srq *dr_create_srq(struct dr_pd *pd, struct dr_srq_init_attr *init_attr);
/**
 * ibv_modify_srq(3): DR_SRQ_MAX_WR resizes the queue (not below the WRs it
 * holds, nor below an armed limit: EINVAL); DR_SRQ_LIMIT arms the
 * SRQ_LIMIT_REACHED event for when fewer than srq_limit WRs remain
 * (above max_wr: EINVAL). @return 0 or -errno.
 */
int dr_modify_srq(struct dr_srq *srq, struct dr_srq_attr *attr, int attr_mask);
/** ibv_query_srq(3). @return 0 or -errno. */
int dr_query_srq(struct dr_srq *srq, struct dr_srq_attr *attr);
/** ibv_destroy_srq(3). @return 0, -EBUSY while a QP uses it or its events are unacknowledged. */
int dr_destroy_srq(struct dr_srq *srq);
/**
 * ibv_post_srq_recv(3): as dr_post_recv() (positive errno, @p *bad_wr):
 * EINVAL too many SGEs or a bad SGE, ENOMEM full.
 */
int dr_post_srq_recv(struct dr_srq *srq, struct dr_recv_wr *wr, struct dr_recv_wr **bad_wr);

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_SRQ_H */
