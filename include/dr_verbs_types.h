/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_TYPES_H
#define DR_VERBS_TYPES_H

/**
 * @file
 * The types every verbs object shares: GIDs, access rights, QP states and
 * attributes, address vectors, work requests and work completions
 * (struct ibv_send_wr, ibv_recv_wr, ibv_wc).
 *
 * Part of the verbs-shaped API; include dr_verbs.h, which includes every part.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mempool.h>

#include "dr_opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dr_context;
struct dr_pd;
struct dr_cq;
struct dr_qp;
struct dr_srq;
struct dr_ah;

/** A 128-bit GID; RoCEv2 IPv4 addresses appear IPv4-mapped (::ffff:a.b.c.d). */
union dr_gid {
	uint8_t raw[16];          /**< network order */
	struct {
		rte_be64_t subnet_prefix;
		rte_be64_t interface_id;
	} global;                 /**< the two halves */
};

/** Memory access rights (values of enum ibv_access_flags). */
enum dr_access_flags {
	DR_ACCESS_LOCAL_WRITE = 1,
	DR_ACCESS_REMOTE_WRITE = 1 << 1,
	DR_ACCESS_REMOTE_READ = 1 << 2,
	DR_ACCESS_REMOTE_ATOMIC = 1 << 3,
	DR_ACCESS_MW_BIND = 1 << 4,
	DR_ACCESS_ZERO_BASED = 1 << 5,
	DR_ACCESS_ON_DEMAND = 1 << 6,
	DR_ACCESS_HUGETLB = 1 << 7,
	DR_ACCESS_FLUSH_GLOBAL = 1 << 8,
	DR_ACCESS_FLUSH_PERSISTENT = 1 << 9,
	DR_ACCESS_RELAXED_ORDERING = 1 << 20,
};

/** QP states (enum ibv_qp_state; IBA 10.3.1). */
enum dr_qp_state {
	DR_QPS_RESET,
	DR_QPS_INIT,
	DR_QPS_RTR,
	DR_QPS_RTS,
	DR_QPS_SQD,
	DR_QPS_SQE,
	DR_QPS_ERR,
	DR_QPS_UNKNOWN,
};

/** Path MTU (enum ibv_mtu). */
enum dr_mtu {
	DR_MTU_256 = 1,
	DR_MTU_512 = 2,
	DR_MTU_1024 = 3,
	DR_MTU_2048 = 4,
	DR_MTU_4096 = 5,
};

/** Bytes of a path MTU enum value, 0 when invalid. */
static inline uint32_t
dr_mtu_bytes(enum dr_mtu mtu)
{
	return (mtu >= DR_MTU_256 && mtu <= DR_MTU_4096) ? 128u << mtu : 0;
}

/** Path migration states (enum ibv_mig_state). */
enum dr_mig_state {
	DR_MIG_MIGRATED,
	DR_MIG_REARM,
	DR_MIG_ARMED,
};

/** dr_modify_qp() attribute mask (enum ibv_qp_attr_mask). */
enum dr_qp_attr_mask {
	DR_QP_STATE = 1 << 0,
	DR_QP_CUR_STATE = 1 << 1,
	DR_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	DR_QP_ACCESS_FLAGS = 1 << 3,
	DR_QP_PKEY_INDEX = 1 << 4,
	DR_QP_PORT = 1 << 5,
	DR_QP_QKEY = 1 << 6,
	DR_QP_AV = 1 << 7,
	DR_QP_PATH_MTU = 1 << 8,
	DR_QP_TIMEOUT = 1 << 9,
	DR_QP_RETRY_CNT = 1 << 10,
	DR_QP_RNR_RETRY = 1 << 11,
	DR_QP_RQ_PSN = 1 << 12,
	DR_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	DR_QP_ALT_PATH = 1 << 14,
	DR_QP_MIN_RNR_TIMER = 1 << 15,
	DR_QP_SQ_PSN = 1 << 16,
	DR_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	DR_QP_PATH_MIG_STATE = 1 << 18,
	DR_QP_CAP = 1 << 19,
	DR_QP_DEST_QPN = 1 << 20,
	DR_QP_RATE_LIMIT = 1 << 25,
};

/** Global routing of an address vector (struct ibv_global_route). */
struct dr_global_route {
	union dr_gid dgid;        /**< destination GID */
	uint32_t flow_label;      /**< 20 bits; 0: derive from the QPNs as rxe does */
	uint8_t sgid_index;       /**< index in the local GID table */
	uint8_t hop_limit;        /**< not used: as Linux RoCEv2, the IP TTL is the route's (64) */
	uint8_t traffic_class;    /**< DSCP | ECN */
};

/** Address vector (struct ibv_ah_attr). RoCEv2 is always globally routed. */
struct dr_ah_attr {
	struct dr_global_route grh; /**< routing */
	uint16_t dlid;            /**< unused by RoCE */
	uint8_t sl;               /**< service level (maps to the VLAN PCP when tagged) */
	uint8_t src_path_bits;    /**< unused by RoCE */
	uint8_t static_rate;      /**< unused */
	uint8_t is_global;        /**< must be 1 for RoCEv2 */
	uint8_t port_num;         /**< 1 */
};

/**
 * The 40 bytes ibv_post_recv(3) places at the start of every UD receive
 * buffer (struct ibv_grh). RoCEv2 over IPv6: the packet's IPv6 header. Over
 * IPv4: 20 zero bytes, then the packet's IPv4 header (as rxe and mlx5 do;
 * dr_init_ah_from_wc() tells the two apart as libibverbs does).
 */
struct dr_grh {
	rte_be32_t version_tclass_flow;
	rte_be16_t paylen;
	uint8_t next_hdr;
	uint8_t hop_limit;
	union dr_gid sgid;
	union dr_gid dgid;
};

/** Bytes of struct dr_grh at the start of every UD receive buffer. */
#define DR_GRH_LEN 40

/**
 * Q_Key of the QPs rdma_post_ud_send(3)'s peers use (librdmacm's
 * RDMA_UDP_QKEY): dr_post_ud_send() sends with it.
 */
#define DR_UDP_QKEY 0x01234567u

/**
 * A Q_Key in a send WR with this bit set means "the QP's own Q_Key"
 * (IBA 10.2.5, C10-15; ibv_post_send(3) remote_qkey).
 */
#define DR_QKEY_USE_QP 0x80000000u

/** QP capabilities (struct ibv_qp_cap). */
struct dr_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

/** Creation attributes of a QP (struct ibv_qp_init_attr). */
struct dr_qp_init_attr {
	void *qp_context;         /**< returned in async events */
	struct dr_cq *send_cq;
	struct dr_cq *recv_cq;
	struct dr_srq *srq;       /**< NULL: the QP has its own receive queue */
	struct dr_qp_cap cap;     /**< requested; the actual values are written back */
	enum dr_qp_type qp_type;
	int sq_sig_all;           /**< every send WR generates a completion */
};

/** QP attributes (struct ibv_qp_attr). */
struct dr_qp_attr {
	enum dr_qp_state qp_state;
	enum dr_qp_state cur_qp_state;
	enum dr_mtu path_mtu;
	enum dr_mig_state path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;
	struct dr_qp_cap cap;
	struct dr_ah_attr ah_attr;
	struct dr_ah_attr alt_ah_attr;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;        /**< outstanding RDMA READ/atomic as requester */
	uint8_t max_dest_rd_atomic;   /**< ... as responder */
	uint8_t min_rnr_timer;        /**< IBA table 45 code sent in RNR NAKs */
	uint8_t port_num;
	uint8_t timeout;              /**< local ACK timeout: 4.096 us * 2^timeout, 0 = infinite */
	uint8_t retry_cnt;            /**< 0..7 */
	uint8_t rnr_retry;            /**< 0..7, 7 = infinite */
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint32_t rate_limit;
};

/** One scatter/gather element (struct ibv_sge). */
struct dr_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/** dr_send_wr.send_flags (enum ibv_send_flags). */
enum dr_send_flags {
	DR_SEND_FENCE = 1 << 0,
	DR_SEND_SIGNALED = 1 << 1,
	DR_SEND_SOLICITED = 1 << 2,
	DR_SEND_INLINE = 1 << 3,
	DR_SEND_IP_CSUM = 1 << 4,
};

struct dr_mw;
struct dr_mr;

/** Where a memory window goes (struct ibv_mw_bind_info). */
struct dr_mw_bind_info {
	struct dr_mr *mr;             /**< the MR the window lies in (NULL with length 0: unbind) */
	uint64_t addr;                /**< first byte, in the MR's address space */
	uint64_t length;              /**< bytes; 0 unbinds */
	unsigned int mw_access_flags; /**< REMOTE_READ / REMOTE_WRITE / REMOTE_ATOMIC / ZERO_BASED */
};

/** A send work request (struct ibv_send_wr). */
struct dr_send_wr {
	uint64_t wr_id;
	struct dr_send_wr *next;
	struct dr_sge *sg_list;
	int num_sge;
	enum dr_wr_opcode opcode;
	unsigned int send_flags;
	union {
		rte_be32_t imm_data;          /**< network order, as ibv_send_wr */
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct dr_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
	union {
		struct {
			uint32_t remote_srqn;
		} xrc;                        /**< XRC_SEND: the XRC SRQ at the target (dr_get_srq_num()) */
	} qp_type;
	union {
		/** DR_WR_BIND_MW: bind @p mw, giving it the R_Key @p rkey (a type 2
		 *  window's new key: dr_inc_rkey() of its current one) */
		struct {
			struct dr_mw *mw;
			uint32_t rkey;
			struct dr_mw_bind_info bind_info;
		} bind_mw;
		struct {
			void *hdr;
			uint16_t hdr_sz;
			uint16_t mss;
		} tso;                        /**< DR_WR_TSO (not offered) */
	};
};

/** A receive work request (struct ibv_recv_wr). */
struct dr_recv_wr {
	uint64_t wr_id;
	struct dr_recv_wr *next;
	struct dr_sge *sg_list;
	int num_sge;
};

/** Completion status (enum ibv_wc_status). */
enum dr_wc_status {
	DR_WC_SUCCESS,
	DR_WC_LOC_LEN_ERR,
	DR_WC_LOC_QP_OP_ERR,
	DR_WC_LOC_EEC_OP_ERR,
	DR_WC_LOC_PROT_ERR,
	DR_WC_WR_FLUSH_ERR,
	DR_WC_MW_BIND_ERR,
	DR_WC_BAD_RESP_ERR,
	DR_WC_LOC_ACCESS_ERR,
	DR_WC_REM_INV_REQ_ERR,
	DR_WC_REM_ACCESS_ERR,
	DR_WC_REM_OP_ERR,
	DR_WC_RETRY_EXC_ERR,
	DR_WC_RNR_RETRY_EXC_ERR,
	DR_WC_LOC_RDD_VIOL_ERR,
	DR_WC_REM_INV_RD_REQ_ERR,
	DR_WC_REM_ABORT_ERR,
	DR_WC_INV_EECN_ERR,
	DR_WC_INV_EEC_STATE_ERR,
	DR_WC_FATAL_ERR,
	DR_WC_RESP_TIMEOUT_ERR,
	DR_WC_GENERAL_ERR,
};

/** Text of a completion status (as ibv_wc_status_str()). */
const char *dr_wc_status_str(enum dr_wc_status status);

/** Completion opcode (enum ibv_wc_opcode). */
enum dr_wc_opcode {
	DR_WC_SEND,
	DR_WC_RDMA_WRITE,
	DR_WC_RDMA_READ,
	DR_WC_COMP_SWAP,
	DR_WC_FETCH_ADD,
	DR_WC_BIND_MW,
	DR_WC_LOCAL_INV,
	DR_WC_TSO,
	DR_WC_FLUSH,
	DR_WC_ATOMIC_WRITE = 9,
	DR_WC_RECV = 1 << 7,
	DR_WC_RECV_RDMA_WITH_IMM,
};

/** dr_wc.wc_flags (enum ibv_wc_flags). */
enum dr_wc_flags {
	DR_WC_GRH = 1 << 0,
	DR_WC_WITH_IMM = 1 << 1,
	DR_WC_IP_CSUM_OK = 1 << 2,
	DR_WC_WITH_INV = 1 << 3,
};

/** A work completion (struct ibv_wc). */
struct dr_wc {
	uint64_t wr_id;
	enum dr_wc_status status;
	enum dr_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	union {
		rte_be32_t imm_data;          /**< network order */
		uint32_t invalidated_rkey;
	};
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_TYPES_H */
