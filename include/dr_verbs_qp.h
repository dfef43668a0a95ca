/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_QP_H
#define DR_VERBS_QP_H

/**
 * @file
 * Queue pairs (ibv_create_qp(3), ibv_modify_qp(3), ibv_post_send(3),
 * ibv_post_recv(3)), extended QPs and the work-request builder (ibv_wr_post(3)).
 *
 * Part of the verbs-shaped API; include dr_verbs.h, which includes every part.
 */

#include "dr_verbs_types.h"
#include "dr_verbs_pd.h"
#include "dr_verbs_cq.h"
#include "dr_verbs_srq.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

/** Operations of a QP, chosen for its type when it is created. */
struct dr_qp_ops {
	int (*post_send)(struct dr_qp *qp, struct dr_send_wr *wr, struct dr_send_wr **bad_wr);
	int (*post_recv)(struct dr_qp *qp, struct dr_recv_wr *wr, struct dr_recv_wr **bad_wr);
};

/** Public head of a QP (struct ibv_qp). */
struct dr_qp {
	struct dr_context *context;
	void *qp_context;
	struct dr_pd *pd;
	struct dr_cq *send_cq;
	struct dr_cq *recv_cq;
	struct dr_srq *srq;
	uint32_t qp_num;
	enum dr_qp_state state;
	enum dr_qp_type qp_type;
	const struct dr_qp_ops *ops;
};

/**
 * ibv_create_qp(3): RC, UC, UD (optionally on a basic SRQ) and XRC_SEND
 * initiators (a send CQ, no receive side); an XRC_RECV target has no PD:
 * dr_create_qp_ex() (here EINVAL); raw packet: EOPNOTSUPP. @p init_attr->cap
 * receives the capabilities actually provided.
 * @return the QP in RESET, or NULL with errno set (EINVAL bad attribute or
 *         capability above the device's, ENOMEM, EOPNOTSUPP).
 */
struct dr_qp *dr_create_qp(struct dr_pd *pd, struct dr_qp_init_attr *init_attr);

/**
 * ibv_modify_qp(3): the transition and the attributes it requires and accepts
 * are checked as IBA 11.2.5.3 says. Moving to ERR flushes every outstanding
 * WR with DR_WC_WR_FLUSH_ERR; to RESET empties the queues.
 * @return 0 or -errno (EINVAL for a bad transition, mask or value).
 */
int dr_modify_qp(struct dr_qp *qp, struct dr_qp_attr *attr, int attr_mask);

/**
 * Enhanced connection establishment (struct ibv_ece, ibv_query_ece(3),
 * ibv_set_ece(3)): options two providers of the same vendor agree on while
 * the application connects the QPs. The CM (dr_cm.h) carries them in its
 * REQ and REP as Linux's ib_cm does and sets them before RTR (doc/guides/cm.rst);
 * an application that connects QPs itself carries them in its own exchange.
 * dpdk-rdma has one: selective repeat on RC and XRC
 * (doc/guides/reliability.rst). A peer that never set it (rxe, hardware,
 * an application that does not exchange ECE) gets IBA's go-back-N.
 */
struct dr_ece {
	/** Who defines the options: DR_ECE_VENDOR_ID for dpdk-rdma's (it has no
	 *  IEEE OUI: the value is not one, so no OUI-keyed peer takes it for its own). */
	uint32_t vendor_id;
	uint32_t options;    /**< DR_ECE_OPT_* bits */
	uint32_t comp_mask;  /**< no optional fields: 0 */
};

/** dr_ece.vendor_id of dpdk-rdma's options ("DR" in the top bytes: not an IEEE OUI). The
 *  CM's 24-bit VendorID field carries its low 24 bits, 0x520000: bit 1 of its first byte
 *  is set, a locally administered value that no assigned OUI has. */
#define DR_ECE_VENDOR_ID 0x44520000u
/**
 * Selective repeat (RC, XRC): the responder keeps requests that arrive
 * after a gap and tells the requester exactly what is missing (DR_OPCODE_SACK);
 * the requester resends only that. Both sides must set it.
 */
#define DR_ECE_OPT_SELECTIVE_REPEAT (1u << 0)

/**
 * ibv_query_ece(3): the QP's ECE, to send to the peer: the options set by
 * dr_set_ece(), or before that every option the QP supports (RC and XRC:
 * DR_ECE_OPT_SELECTIVE_REPEAT; UC and UD: none).
 * @return 0, or -EINVAL (NULL QP or @p ece).
 */
int dr_query_ece(struct dr_qp *qp, struct dr_ece *ece);

/**
 * ibv_set_ece(3): take the peer's ECE (what its dr_query_ece() gave): the
 * QP uses the options both support, written back to @p ece->options. Set
 * it in RESET or INIT, before the move to RTR; an ECE of another vendor
 * leaves no option on. Selective repeat is used only when both sides set
 * it: each must take the other's ECE.
 * @return 0, or -EINVAL (NULL, comp_mask not 0, the QP past INIT),
 *         -ENOMEM (the receive reorder buffer could not be allocated).
 */
int dr_set_ece(struct dr_qp *qp, struct dr_ece *ece);

/** ibv_query_qp(3). @return 0 or -errno. */
int dr_query_qp(struct dr_qp *qp, struct dr_qp_attr *attr, int attr_mask, struct dr_qp_init_attr *init_attr);

/**
 * The memory one QP takes, in bytes of the EAL heap (no ibverbs
 * counterpart). Each allocation is counted as rte_malloc charges it: its
 * size rounded up to a cache line, plus a cache line of heap element header.
 */
struct dr_qp_mem {
	uint64_t qp;       /**< the QP object: attributes, requester, completer and responder state */
	uint64_t sq;       /**< the send queue: max_send_wr rounded up to a power of two WQE
			    *   slots, each with max_send_sge SGEs and max_inline_data bytes */
	uint64_t rq;       /**< the receive queue the same way (0 with an SRQ) */
	uint64_t builder;  /**< the ibv_wr_* staging (dr_create_qp_ex() with send_ops_flags), else 0 */
	uint64_t tables;   /**< its share of the context's tables: a QPN table entry and
			    *   a free-list entry (dr_context_attr.max_qp of each) */
	uint64_t total;    /**< the sum of the above */
};

/**
 * What @p qp costs in memory (struct dr_qp_mem). Frames the transport holds
 * for it at a moment (mbufs of the context's pool) are not counted.
 * @return 0, or -EINVAL for a NULL argument.
 */
int dr_query_qp_mem(struct dr_qp *qp, struct dr_qp_mem *mem);

/** ibv_destroy_qp(3). @return 0 or -errno. */
int dr_destroy_qp(struct dr_qp *qp);

/**
 * ibv_post_send(3): post a linked list of send WRs. Stops at the first WR
 * that fails, sets @p *bad_wr to it and returns an errno value (positive, as
 * ibv_post_send does): EINVAL (bad opcode for the QP type, bad flags, too
 * many SGEs, inline above max_inline_data, QP in a state that takes no send
 * WRs), ENOMEM (send queue full). A bad lkey or an SGE outside its MR is
 * reported when detectable: as EINVAL at post time.
 * @return 0 when every WR was posted.
 */
static inline int
dr_post_send(struct dr_qp *qp, struct dr_send_wr *wr, struct dr_send_wr **bad_wr)
{
	return qp->ops->post_send(qp, wr, bad_wr);
}

/**
 * ibv_post_recv(3): post a linked list of receive WRs; errors as
 * dr_post_send() (ENOMEM receive queue full, EINVAL too many SGEs, bad lkey,
 * QP in RESET).
 */
static inline int
dr_post_recv(struct dr_qp *qp, struct dr_recv_wr *wr, struct dr_recv_wr **bad_wr)
{
	return qp->ops->post_recv(qp, wr, bad_wr);
}

/**
 * rdma_post_ud_send(3) on a UD QP: send @p length bytes at @p addr (in
 * @p mr, or inline with DR_SEND_INLINE when @p mr is NULL) to QP
 * @p remote_qpn behind @p ah, with Q_Key DR_UDP_QKEY as librdmacm does;
 * @p context becomes the completion's wr_id, @p flags are dr_send_flags.
 * @return as dr_post_send(): 0, or a positive errno value (EINVAL when the
 *         QP is not UD or an argument is bad, ENOMEM queue full).
 */
int dr_post_ud_send(struct dr_qp *qp, void *context, void *addr, size_t length, struct dr_mr *mr, int flags,
		    struct dr_ah *ah, uint32_t remote_qpn);

/* ------------------------------------------------------------------ */
/* Extended QPs and the work-request builder (ibv_wr_post(3))          */
/* ------------------------------------------------------------------ */

/** dr_qp_init_attr_ex.send_ops_flags (enum ibv_qp_create_send_ops_flags). */
enum dr_qp_create_send_ops_flags {
	DR_QP_EX_WITH_RDMA_WRITE = 1 << 0,
	DR_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 1 << 1,
	DR_QP_EX_WITH_SEND = 1 << 2,
	DR_QP_EX_WITH_SEND_WITH_IMM = 1 << 3,
	DR_QP_EX_WITH_RDMA_READ = 1 << 4,
	DR_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 1 << 5,
	DR_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 1 << 6,
	DR_QP_EX_WITH_LOCAL_INV = 1 << 7,
	DR_QP_EX_WITH_BIND_MW = 1 << 8,
	DR_QP_EX_WITH_SEND_WITH_INV = 1 << 9,
	DR_QP_EX_WITH_TSO = 1 << 10,
	DR_QP_EX_WITH_FLUSH = 1 << 11,
	DR_QP_EX_WITH_ATOMIC_WRITE = 1 << 12,
};

/** dr_qp_init_attr_ex.comp_mask (enum ibv_qp_init_attr_mask, the bits that apply). */
enum dr_qp_init_attr_mask {
	DR_QP_INIT_ATTR_PD = 1 << 0,
	DR_QP_INIT_ATTR_XRCD = 1 << 1,
	DR_QP_INIT_ATTR_CREATE_FLAGS = 1 << 2,
	DR_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 3,
	DR_QP_INIT_ATTR_IND_TABLE = 1 << 4,
	DR_QP_INIT_ATTR_RX_HASH = 1 << 5,
	DR_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6,
};

/** Creation attributes of an extended QP (struct ibv_qp_init_attr_ex, the fields that apply). */
struct dr_qp_init_attr_ex {
	void *qp_context;
	struct dr_cq *send_cq;
	struct dr_cq *recv_cq;
	struct dr_srq *srq;
	struct dr_qp_cap cap;         /**< requested; the granted values are written back */
	enum dr_qp_type qp_type;
	int sq_sig_all;
	uint32_t comp_mask;           /**< DR_QP_INIT_ATTR_PD is required, but for XRC_RECV: DR_QP_INIT_ATTR_XRCD */
	struct dr_pd *pd;
	struct dr_xrcd *xrcd;         /**< XRC_RECV: its domain */
	uint64_t send_ops_flags;      /**< with DR_QP_INIT_ATTR_SEND_OPS_FLAGS: the builders to offer */
};

/** One buffer of dr_wr_set_inline_data_list() (struct ibv_data_buf). */
struct dr_data_buf {
	void *addr;
	size_t length;
};

/**
 * An extended QP (struct ibv_qp_ex): the QP, then the work-request builder
 * of ibv_wr_post(3). Between dr_wr_start() and dr_wr_complete() /
 * dr_wr_abort() each builder (wr_send, wr_rdma_write, ...) starts a new WR
 * with the @c wr_id and @c wr_flags (dr_send_flags) set at that time, and
 * each setter (wr_set_sge, ...) completes the WR last started. Errors are
 * kept and reported by dr_wr_complete(), which then posts none of the batch.
 * dr_post_send() on the QP inside that critical section fails with EBUSY;
 * outside it the two interleave freely.
 */
struct dr_qp_ex {
	struct dr_qp qp_base;
	uint64_t comp_mask;
	uint64_t wr_id;
	unsigned int wr_flags;

	void (*wr_atomic_cmp_swp)(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t compare,
				  uint64_t swap);
	void (*wr_atomic_fetch_add)(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add);
	void (*wr_bind_mw)(struct dr_qp_ex *qp, struct dr_mw *mw, uint32_t rkey,
			   const struct dr_mw_bind_info *bind_info);
	void (*wr_local_inv)(struct dr_qp_ex *qp, uint32_t invalidate_rkey);
	void (*wr_rdma_read)(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr);
	void (*wr_rdma_write)(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr);
	void (*wr_rdma_write_imm)(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, rte_be32_t imm_data);
	void (*wr_send)(struct dr_qp_ex *qp);
	void (*wr_send_imm)(struct dr_qp_ex *qp, rte_be32_t imm_data);
	void (*wr_send_inv)(struct dr_qp_ex *qp, uint32_t invalidate_rkey);
	void (*wr_send_tso)(struct dr_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss);
	void (*wr_set_ud_addr)(struct dr_qp_ex *qp, struct dr_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey);
	void (*wr_set_xrc_srqn)(struct dr_qp_ex *qp, uint32_t remote_srqn);
	void (*wr_set_inline_data)(struct dr_qp_ex *qp, void *addr, size_t length);
	void (*wr_set_inline_data_list)(struct dr_qp_ex *qp, size_t num_buf, const struct dr_data_buf *buf_list);
	void (*wr_set_sge)(struct dr_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length);
	void (*wr_set_sge_list)(struct dr_qp_ex *qp, size_t num_sge, const struct dr_sge *sg_list);
	void (*wr_start)(struct dr_qp_ex *qp);
	int (*wr_complete)(struct dr_qp_ex *qp);
	void (*wr_abort)(struct dr_qp_ex *qp);
};

/**
 * ibv_create_qp_ex(3): as dr_create_qp() on @p attr->pd (DR_QP_INIT_ATTR_PD
 * required), or an XRC_RECV target in @p attr->xrcd (DR_QP_INIT_ATTR_XRCD,
 * no PD), with the builder when DR_QP_INIT_ATTR_SEND_OPS_FLAGS is set.
 * @return the QP or NULL with errno set: EINVAL (no PD / domain, a domain
 *         for another type, unknown comp_mask or send_ops_flags bits),
 *         EOPNOTSUPP (an attribute or operation we do not offer: create
 *         flags, TSO headers, RSS, TSO, FLUSH, ATOMIC_WRITE, an operation
 *         the QP type does not have), or dr_create_qp()'s errors.
 */
struct dr_qp *dr_create_qp_ex(struct dr_context *ctx, struct dr_qp_init_attr_ex *attr);
/** ibv_qp_to_qp_ex(3): the builder of a QP created with send_ops_flags, else NULL. */
struct dr_qp_ex *dr_qp_to_qp_ex(struct dr_qp *qp);

/** @name ibv_wr_post(3) wrappers */
/**@{*/
static inline void dr_wr_start(struct dr_qp_ex *qp) { qp->wr_start(qp); }
static inline int dr_wr_complete(struct dr_qp_ex *qp) { return qp->wr_complete(qp); }
static inline void dr_wr_abort(struct dr_qp_ex *qp) { qp->wr_abort(qp); }
static inline void dr_wr_atomic_cmp_swp(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
					uint64_t compare, uint64_t swap)
{ qp->wr_atomic_cmp_swp(qp, rkey, remote_addr, compare, swap); }
static inline void dr_wr_atomic_fetch_add(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{ qp->wr_atomic_fetch_add(qp, rkey, remote_addr, add); }
static inline void dr_wr_bind_mw(struct dr_qp_ex *qp, struct dr_mw *mw, uint32_t rkey,
				 const struct dr_mw_bind_info *bind_info)
{ qp->wr_bind_mw(qp, mw, rkey, bind_info); }
static inline void dr_wr_local_inv(struct dr_qp_ex *qp, uint32_t invalidate_rkey)
{ qp->wr_local_inv(qp, invalidate_rkey); }
static inline void dr_wr_rdma_read(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{ qp->wr_rdma_read(qp, rkey, remote_addr); }
static inline void dr_wr_rdma_write(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{ qp->wr_rdma_write(qp, rkey, remote_addr); }
static inline void dr_wr_rdma_write_imm(struct dr_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, rte_be32_t imm)
{ qp->wr_rdma_write_imm(qp, rkey, remote_addr, imm); }
static inline void dr_wr_send(struct dr_qp_ex *qp) { qp->wr_send(qp); }
static inline void dr_wr_send_imm(struct dr_qp_ex *qp, rte_be32_t imm) { qp->wr_send_imm(qp, imm); }
static inline void dr_wr_send_inv(struct dr_qp_ex *qp, uint32_t invalidate_rkey)
{ qp->wr_send_inv(qp, invalidate_rkey); }
static inline void dr_wr_send_tso(struct dr_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss)
{ qp->wr_send_tso(qp, hdr, hdr_sz, mss); }
static inline void dr_wr_set_ud_addr(struct dr_qp_ex *qp, struct dr_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey)
{ qp->wr_set_ud_addr(qp, ah, remote_qpn, remote_qkey); }
static inline void dr_wr_set_xrc_srqn(struct dr_qp_ex *qp, uint32_t remote_srqn)
{ qp->wr_set_xrc_srqn(qp, remote_srqn); }
static inline void dr_wr_set_inline_data(struct dr_qp_ex *qp, void *addr, size_t length)
{ qp->wr_set_inline_data(qp, addr, length); }
static inline void dr_wr_set_inline_data_list(struct dr_qp_ex *qp, size_t num_buf, const struct dr_data_buf *buf_list)
{ qp->wr_set_inline_data_list(qp, num_buf, buf_list); }
static inline void dr_wr_set_sge(struct dr_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)
{ qp->wr_set_sge(qp, lkey, addr, length); }
static inline void dr_wr_set_sge_list(struct dr_qp_ex *qp, size_t num_sge, const struct dr_sge *sg_list)
{ qp->wr_set_sge_list(qp, num_sge, sg_list); }
/**@}*/

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_QP_H */
