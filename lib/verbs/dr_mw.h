/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_MW_H
#define DR_MW_H

/*
 * Memory windows inside (dr_mw.c): their state, the binds and
 * invalidations the transport executes in order with the other work
 * requests, and how the responder turns an R_Key - of an MR or of a
 * window - into the memory and the rights it grants.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_context.h"
#include "dr_mr_check.h"
#include "dr_qp_impl.h"

struct dr_mw_impl {
	struct dr_mw pub;
	bool bound;
	struct dr_mr_impl *mr;         /* the MR it lies in, while bound */
	uint64_t addr;                 /* first byte, in the MR's address space */
	uint64_t length;
	unsigned int access;           /* REMOTE_* and ZERO_BASED */
	struct dr_qp_impl *qp;         /* type 2: the QP it was bound through (IBA type 2B) */
	uint32_t inflight;             /* posted bind WRs naming it (dealloc: -EBUSY) */
};

static inline struct dr_mw_impl *dr_mw_impl(struct dr_mw *mw) { return (struct dr_mw_impl *)mw; }

/* The window an R_Key names, key portion included; NULL if none. */
static inline struct dr_mw_impl *
dr_mw_lookup(struct dr_context *ctx, uint32_t rkey)
{
	uint32_t idx = dr_mr_key_index(rkey);
	struct dr_mw_impl *mw;

	if (idx < DR_MAX_MR || idx >= DR_MAX_MR + DR_MAX_MW)
		return NULL;
	mw = __atomic_load_n(&ctx->mw_table[idx - DR_MAX_MR], __ATOMIC_ACQUIRE);
	return mw != NULL && mw->pub.rkey == rkey ? mw : NULL;
}

/*
 * The MR an R_Key names for a request arriving on @qp (IBA 10.6.3.2, C9-88:
 * the whole key matches, the MR is in the QP's PD); NULL when it names no
 * MR of the QP's (a window, or nothing: dr_rkey_resolve() tells).
 */
static inline struct dr_mr_impl *
dr_rkey_mr(const struct dr_qp_impl *qp, uint32_t rkey)
{
	struct dr_mr_impl *mr = dr_mr_lookup(qp->pub.context, rkey);

	return mr != NULL && mr->pub.rkey == rkey && mr->pub.pd == qp->pub.pd ? mr : NULL;
}

/* What an R_Key lets a remote request reach. */
struct dr_rkey_target {
	struct dr_mr_impl *mr;         /* the memory */
	struct dr_mr_region region;    /* addresses and rights the key grants (the MR's, or the window's) */
	uint8_t *host;                 /* host address of region.iova */
};

/*
 * Resolve an R_Key for a request arriving on @qp (IBA 10.6.3.2, 10.6.7.2):
 * an MR of the QP's PD, or a bound window of the QP's PD (a type 2 window
 * only through the QP it was bound on). Returns false when the key names
 * nothing the QP may use.
 */
bool dr_rkey_resolve(struct dr_qp_impl *qp, uint32_t rkey, struct dr_rkey_target *t);

static inline uint8_t *
dr_rkey_host(const struct dr_rkey_target *t, uint64_t va)
{
	return t->host + (va - t->region.iova);
}

/* Execute a BIND_MW WQE (IBA 10.6.7.2.x; ibv_bind_mw(3)): DR_WC_SUCCESS or DR_WC_MW_BIND_ERR. */
enum dr_wc_status dr_mw_bind_exec(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe);

/* Execute LOCAL_INV of @rkey: DR_WC_SUCCESS, or DR_WC_LOC_QP_OP_ERR (rxe) when it names no type 2 window. */
enum dr_wc_status dr_mw_local_inv_exec(struct dr_qp_impl *qp, uint32_t rkey);

/* SEND_WITH_INV arrived on @qp: invalidate @rkey (a type 2 window bound through @qp). 0 or -EINVAL. */
int dr_mw_remote_invalidate(struct dr_qp_impl *qp, uint32_t rkey);

/* @qp is being destroyed: the type 2 windows bound through it are invalidated (they cannot outlive it). */
void dr_mw_qp_destroyed(struct dr_qp_impl *qp);

#endif /* DR_MW_H */
