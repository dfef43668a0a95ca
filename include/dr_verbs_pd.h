/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_PD_H
#define DR_VERBS_PD_H

/**
 * @file
 * What lives in a protection domain: PDs, memory regions (ibv_reg_mr(3)),
 * address handles (ibv_create_ah(3)) and memory windows (ibv_alloc_mw(3),
 * ibv_bind_mw(3)).
 *
 * Part of the verbs-shaped API; include dr_verbs.h, which includes every part.
 */

#include "dr_verbs_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Protection domains, memory regions                                  */
/* ------------------------------------------------------------------ */

/** ibv_alloc_pd(3). @return the PD or NULL with errno set. */
struct dr_pd *dr_alloc_pd(struct dr_context *ctx);
/** ibv_dealloc_pd(3). @return 0, or -EBUSY while objects still use it. */
int dr_dealloc_pd(struct dr_pd *pd);

/** A registered memory region (struct ibv_mr). Read-only for the application. */
struct dr_mr {
	struct dr_context *context;
	struct dr_pd *pd;
	void *addr;
	size_t length;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
};

/**
 * ibv_reg_mr(3): register [addr, addr + length) with @p access
 * (enum dr_access_flags). @return the MR, or NULL with errno set
 * (EINVAL bad flags or range, ENOMEM table full).
 */
struct dr_mr *dr_reg_mr(struct dr_pd *pd, void *addr, size_t length, int access);
/**
 * ibv_dereg_mr(3). Once it returns, nothing reads or writes the memory: it
 * waits for frames sent zero-copy from the region (dr_context_attr.tx_zcopy_min)
 * that the port still holds.
 * @return 0, -EINVAL (not a region of the context), -EBUSY (memory windows
 *         are bound to it, or the port held frames sent from it for a second:
 *         the region stays registered).
 */
int dr_dereg_mr(struct dr_mr *mr);

/* ------------------------------------------------------------------ */
/* Address handles (UD)                                                */
/* ------------------------------------------------------------------ */

/** An address handle (struct ibv_ah). Read-only for the application. */
struct dr_ah {
	struct dr_context *context;
	struct dr_pd *pd;
	uint32_t handle;
};

/**
 * ibv_create_ah(3): an address handle for UD send WRs. RoCE is always
 * globally routed: @p attr->is_global must be 1, @p attr->grh.sgid_index a
 * valid GID of ours, and the destination a unicast GID of the same family
 * (IPv4-mapped to IPv4). The peer's MAC is resolved (ARP / ND) when the
 * first packet goes out. Multicast destinations are not supported.
 * @return the AH, or NULL with errno set (EINVAL bad attribute,
 *         EOPNOTSUPP multicast, ENOMEM).
 */
struct dr_ah *dr_create_ah(struct dr_pd *pd, struct dr_ah_attr *attr);

/**
 * ibv_destroy_ah(3). @return 0, -EBUSY while posted send WRs that have not
 * gone out yet still use it, or -EINVAL.
 */
int dr_destroy_ah(struct dr_ah *ah);

/**
 * ibv_init_ah_from_wc(3): the address vector that answers the sender of a
 * UD receive completion: @p grh is the 40-byte header at the start of its
 * receive buffer (dr_wc.wc_flags has DR_WC_GRH), the destination is the
 * packet's source, the source GID index the one of the packet's destination.
 * @return 0 or -errno (EINVAL no GRH or not one of our GIDs,
 *         EPROTONOSUPPORT not an IPv4 / IPv6 header).
 */
int dr_init_ah_from_wc(struct dr_context *ctx, uint8_t port_num, const struct dr_wc *wc,
		       const struct dr_grh *grh, struct dr_ah_attr *ah_attr);

/** ibv_create_ah_from_wc(3): dr_init_ah_from_wc() then dr_create_ah(); NULL with errno set. */
struct dr_ah *dr_create_ah_from_wc(struct dr_pd *pd, const struct dr_wc *wc, const struct dr_grh *grh,
				   uint8_t port_num);

/* ------------------------------------------------------------------ */
/* Memory windows (ibv_alloc_mw(3), ibv_bind_mw(3); IBA 10.6.7)        */
/* ------------------------------------------------------------------ */

/** Memory window types (enum ibv_mw_type). */
enum dr_mw_type {
	DR_MW_TYPE_1 = 1,             /**< bound with dr_bind_mw() */
	DR_MW_TYPE_2 = 2,             /**< bound with a DR_WR_BIND_MW work request, invalidated by LOCAL_INV / SEND_WITH_INV */
};

/** A memory window (struct ibv_mw). */
struct dr_mw {
	struct dr_context *context;
	struct dr_pd *pd;
	uint32_t rkey;                /**< the current R_Key */
	uint32_t handle;
	enum dr_mw_type type;
};

/** dr_bind_mw() request (struct ibv_mw_bind). */
struct dr_mw_bind {
	uint64_t wr_id;
	unsigned int send_flags;      /**< DR_SEND_SIGNALED, DR_SEND_FENCE */
	struct dr_mw_bind_info bind_info;
};

/**
 * ibv_alloc_mw(3): a window of @p type on @p pd, unbound.
 * @return the MW or NULL with errno set (EINVAL bad type, ENOMEM).
 */
struct dr_mw *dr_alloc_mw(struct dr_pd *pd, enum dr_mw_type type);
/** ibv_dealloc_mw(3). @return 0, -EBUSY while a posted bind WR names it, -EINVAL. */
int dr_dealloc_mw(struct dr_mw *mw);

/**
 * ibv_bind_mw(3): bind type 1 window @p mw through @p qp (RC or UC): a
 * bind WR is posted on the send queue, ordered with the others; on success
 * @p mw->rkey is already the new key (dr_inc_rkey() of the old one), usable
 * once the bind completes (DR_WC_BIND_MW). A zero length unbinds.
 * @return 0 or a positive errno value as dr_post_send() (EINVAL: a type 2
 *         window, a UD QP, bad access flags; ENOMEM: send queue full).
 */
int dr_bind_mw(struct dr_qp *qp, struct dr_mw *mw, struct dr_mw_bind *mw_bind);

/** ibv_inc_rkey(3): the next R_Key of a window: the same index, the next 8-bit key. */
static inline uint32_t
dr_inc_rkey(uint32_t rkey)
{
	return (rkey & 0xFFFFFF00u) | ((rkey + 1) & 0xFFu);
}

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_PD_H */
