/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_H
#define DR_VERBS_H

/**
 * @file
 * The verbs-shaped API: the objects, work requests, completions and rules of
 * libibverbs (ibv_post_send(3), ibv_post_recv(3), ibv_modify_qp(3),
 * ibv_reg_mr(3), ibv_poll_cq(3)) under the dr_ prefix.
 *
 * Enum values and attribute-mask bits equal their ibv_ counterparts, so a
 * verbs application ports by renaming. Objects are opaque except for the
 * public head of a QP and a CQ, which carries the operation pointers the
 * inline fast-path wrappers call (chosen once, when the object is created).
 *
 * See doc/guides/api.rst for what is implemented so far.
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


/* ------------------------------------------------------------------ */
/* Devices, contexts, ports                                            */
/* ------------------------------------------------------------------ */

struct dr_device;

/** How a context drives its transport (doc/guides/architecture.rst draws each). */
enum dr_progress_mode {
	/** The application's own thread drives rx, the state machines, timers and
	 *  tx from dr_poll_cq() and dr_progress() (eRPC-style event loop). */
	DR_PROGRESS_INLINE = 0,
	/** Run-to-completion: @c nb_workers EAL worker lcores, each owning an rx
	 *  and a tx queue of the port (where the port has them) and a shard of
	 *  the QPs, run every stage for their QPs. The application posts and
	 *  polls through single-producer single-consumer rings; dr_progress()
	 *  has nothing to do (returns 0). */
	DR_PROGRESS_RTC = 1,
};

/** What an engine lcore does when a round found no work. */
enum dr_idle_policy {
	/** Poll again at once: for lcores on isolated cores (the default). */
	DR_IDLE_SPIN = 0,
	/** Poll again after a CPU pause instruction (less power, same latency class). */
	DR_IDLE_PAUSE = 1,
	/** Give the CPU away (sched_yield()): for several lcores on one CPU, as
	 *  on small test machines (`--lcores '(1-2)@1'`); latency grows. */
	DR_IDLE_YIELD = 2,
};

/** Largest number of worker lcores of one context. */
#define DR_MAX_WORKERS 16

/** Attributes of dr_open_device() (no ibverbs counterpart: RoCE over DPDK needs them). */
struct dr_context_attr {
	/** IPv4 address of the port (network order); 0 = none. Gives GID index 1. */
	rte_be32_t ipv4_addr;
	/** Optional IPv6 addresses (global or ULA) beyond the link-local GID 0. */
	uint8_t ipv6_addr[2][16];
	unsigned int num_ipv6;
	/** Link MTU in bytes (IP MTU, as the kernel's): sets the active path MTU
	 *  as rxe does (1500 -> 1024, 4200 -> 4096); 0 = the port's MTU. */
	uint32_t mtu;
	/** Configure and start the port (1): @c nb_queues rx and tx queues, as
	 *  many as the PMD allows (workers beyond them share through software
	 *  rings); or use queues of a port the application started (0):
	 *  @c rx_queue / @c tx_queue and the ones after them, one per worker,
	 *  as far as the port has them. */
	int configure_port;
	uint16_t rx_queue;            /**< first rx queue used when !configure_port */
	uint16_t tx_queue;            /**< first tx queue used when !configure_port */
	uint16_t nb_rx_desc;          /**< rx ring size when configuring; 0 = 1024 */
	uint16_t nb_tx_desc;          /**< tx ring size when configuring; 0 = 1024 */
	/** mbuf pool for frames; NULL = the library creates one on the port's socket */
	struct rte_mempool *pool;
	enum dr_progress_mode mode;   /**< progress mode */
	/** DR_PROGRESS_RTC: worker lcores, 1 .. DR_MAX_WORKERS (0 = 1). */
	uint16_t nb_workers;
	/** DR_PROGRESS_RTC: the EAL lcore ids of the workers (@c nb_workers of
	 *  them); NULL = the first EAL worker lcores that are idle. The main
	 *  lcore cannot be one. */
	const unsigned int *worker_lcores;
	/** DR_PROGRESS_RTC: what a worker does when a round found no work. */
	enum dr_idle_policy idle;
	/** DR_PROGRESS_RTC with @c configure_port: queue pairs of the port, one
	 *  per worker from the first (at most @c nb_workers). 0 = one per worker
	 *  when the PMD spreads received frames by RSS on UDP, else 1; workers
	 *  without a queue of their own go through software rings. A link whose
	 *  ends pair their queues one to one (net_memif, net_ring) needs the
	 *  same number on both sides. */
	uint16_t nb_queues;
	/** Backend name ("ethdev"); NULL = the default for the port */
	const char *backend;
};

/**
 * Initialise DPDK's EAL from an argument vector, for applications that do not
 * call rte_eal_init() themselves. Returns the number of arguments consumed
 * (as rte_eal_init) or a negative errno.
 */
int dr_eal_init(int argc, char **argv);

/**
 * List one device per available DPDK port (ibv_get_device_list(3)).
 * @param num if not NULL, receives the number of devices.
 * @return a NULL-terminated array to free with dr_free_device_list(), or
 *         NULL with errno set.
 */
struct dr_device **dr_get_device_list(int *num);
/** Free a list from dr_get_device_list() (the contexts opened stay valid). */
void dr_free_device_list(struct dr_device **list);
/** Name of a device: "dr_" followed by the DPDK port's name. */
const char *dr_get_device_name(const struct dr_device *dev);
/** DPDK port id of a device. */
uint16_t dr_get_device_port(const struct dr_device *dev);

/**
 * Open a device (ibv_open_device(3)): bind a context to its DPDK port.
 * @return the context, or NULL with errno set (EINVAL bad attribute, ENODEV
 *         no such port, ENOMEM, EBUSY port already open, EIO port setup failed).
 */
struct dr_context *dr_open_device(struct dr_device *dev, const struct dr_context_attr *attr);
/** Close a context: every object on it must have been destroyed (else -EBUSY). */
int dr_close_device(struct dr_context *ctx);

/**
 * Stop the worker lcores of a DR_PROGRESS_RTC context: each finishes its
 * round and returns to EAL. From then on nothing polls the port or moves
 * the transport, and the slow-path calls (destroy, dereg, ...) run in the
 * caller. Use it when the transport's work is over and the peer may vanish
 * (net_memif in DPDK 22.11 can crash a process that polls a port whose peer
 * goes away), then destroy the objects and close the context. In inline
 * mode there is nothing to stop. Idempotent.
 * @return 0, or -EINVAL for a NULL context.
 */
int dr_stop_workers(struct dr_context *ctx);

/** Device attributes (the fields of struct ibv_device_attr that apply). */
struct dr_device_attr {
	char fw_ver[64];
	uint64_t node_guid;           /**< EUI-64 of the port's MAC, network order */
	uint64_t max_mr_size;
	uint32_t vendor_id;
	uint32_t hw_ver;
	int max_qp;
	int max_qp_wr;
	int max_sge;
	int max_cq;
	int max_cqe;
	int max_mr;
	int max_pd;
	int max_qp_rd_atom;
	int max_qp_init_rd_atom;
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	int atomic_cap;               /**< enum dr_atomic_cap */
	uint8_t phys_port_cnt;        /**< 1 */
};

/** dr_device_attr.atomic_cap (enum ibv_atomic_cap). */
enum dr_atomic_cap {
	DR_ATOMIC_NONE,
	/** atomic on this device's QPs are atomic with respect to each other (rxe's) */
	DR_ATOMIC_HCA,
	DR_ATOMIC_GLOB,
};

/** Port attributes (the fields of struct ibv_port_attr that apply). */
struct dr_port_attr {
	int state;                    /**< 4 = ACTIVE, 1 = DOWN (IBV_PORT_* values) */
	enum dr_mtu max_mtu;
	enum dr_mtu active_mtu;
	int gid_tbl_len;
	uint32_t max_msg_sz;
	uint8_t link_layer;           /**< 2 = Ethernet */
};

/** ibv_query_device(3). @return 0 or -errno. */
int dr_query_device(struct dr_context *ctx, struct dr_device_attr *attr);
/** ibv_query_port(3); @p port_num must be 1. @return 0 or -errno. */
int dr_query_port(struct dr_context *ctx, uint8_t port_num, struct dr_port_attr *attr);
/**
 * ibv_query_gid(3). The table is rxe's: index 0 the IPv6 link-local address
 * from the MAC (EUI-64), index 1 the IPv4-mapped address, then the IPv6
 * addresses of dr_context_attr. @return 0, or -EINVAL past the table.
 */
int dr_query_gid(struct dr_context *ctx, uint8_t port_num, int index, union dr_gid *gid);

/**
 * Add a static neighbour (ARP / ND entry) for @p gid, so no resolution is
 * needed before sending to it. @return 0 or -errno.
 */
int dr_add_neighbour(struct dr_context *ctx, const union dr_gid *gid, const struct rte_ether_addr *mac);

/**
 * Drive the transport once in DR_PROGRESS_INLINE mode: receive a burst,
 * run the responder, completer and requester, fire due timers, transmit.
 * dr_poll_cq() calls it too. In DR_PROGRESS_RTC mode the worker lcores
 * drive the transport and it returns 0 at once, so that a program written
 * for both modes may call it in its loops.
 * @return the number of packets handled, or -errno.
 */
int dr_progress(struct dr_context *ctx);

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
/** ibv_dereg_mr(3). @return 0 or -errno. */
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

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

/** Operations of a CQ, chosen when it is created. */
struct dr_cq_ops {
	int (*poll)(struct dr_cq *cq, int num_entries, struct dr_wc *wc);
};

/** Public head of a CQ (struct ibv_cq). */
struct dr_cq {
	struct dr_context *context;
	void *cq_context;
	int cqe;                      /**< capacity actually provided */
	const struct dr_cq_ops *ops;
};

struct dr_comp_channel;

/**
 * ibv_create_cq(3) with @p cqe entries at least, optionally on a
 * completion channel of the same context; one completion vector (0).
 * @return the CQ, or NULL with errno set.
 */
struct dr_cq *dr_create_cq(struct dr_context *ctx, int cqe, void *cq_context, struct dr_comp_channel *channel,
			   int comp_vector);
/** ibv_destroy_cq(3). @return 0, or -EBUSY while a QP uses it or events of it are unacknowledged. */
int dr_destroy_cq(struct dr_cq *cq);

/**
 * ibv_poll_cq(3): up to @p num_entries completions, oldest first. In inline
 * mode it drives the transport first (dr_progress()).
 * @return how many were written (0 = none), or -EOVERFLOW once the CQ has
 *         overrun (a completion was lost: the CQ is in error, as IBA 11.4.2.1
 *         says, and its QPs have been moved to ERR), or another -errno.
 */
static inline int
dr_poll_cq(struct dr_cq *cq, int num_entries, struct dr_wc *wc)
{
	return cq->ops->poll(cq, num_entries, wc);
}

/* ------------------------------------------------------------------ */
/* Completion channels (ibv_create_comp_channel(3), ibv_get_cq_event(3)) */
/* ------------------------------------------------------------------ */

/** A completion channel (struct ibv_comp_channel). */
struct dr_comp_channel {
	struct dr_context *context;
	int fd;                       /**< readable while a CQ event is queued (an eventfd) */
	int refcnt;                   /**< CQs using it */
};

/**
 * ibv_create_comp_channel(3). Give it to dr_create_cq(); arm a CQ with
 * dr_req_notify_cq(); wait with dr_get_cq_event().
 * @return the channel, or NULL with errno set (EINVAL, ENOMEM, or the
 *         errno of eventfd(2)).
 */
struct dr_comp_channel *dr_create_comp_channel(struct dr_context *ctx);
/** ibv_destroy_comp_channel(3). @return 0, or -EBUSY while a CQ uses it. */
int dr_destroy_comp_channel(struct dr_comp_channel *channel);

/**
 * ibv_req_notify_cq(3): the next completion added to @p cq (with
 * @p solicited_only: the next solicited receive completion, or any
 * completion in error) raises one event on its channel. @return 0, or
 * -EINVAL when the CQ has no channel.
 */
int dr_req_notify_cq(struct dr_cq *cq, int solicited_only);

/**
 * ibv_get_cq_event(3): the next event of @p channel: its CQ and that CQ's
 * cq_context. In DR_PROGRESS_INLINE mode the caller's thread is the
 * transport, so the call drives dr_progress() until an event is there
 * (blocking); with O_NONBLOCK set on @p channel->fd it drives one round and
 * returns -EAGAIN when there is none. @return 0 or -errno.
 */
int dr_get_cq_event(struct dr_comp_channel *channel, struct dr_cq **cq, void **cq_context);
/** ibv_ack_cq_events(3): acknowledge @p nevents events of @p cq (dr_destroy_cq() waits for them). */
void dr_ack_cq_events(struct dr_cq *cq, unsigned int nevents);

/* ------------------------------------------------------------------ */
/* Asynchronous events (ibv_get_async_event(3))                        */
/* ------------------------------------------------------------------ */

/** Event types (enum ibv_event_type, same values). */
enum dr_event_type {
	DR_EVENT_CQ_ERR,
	DR_EVENT_QP_FATAL,
	DR_EVENT_QP_REQ_ERR,
	DR_EVENT_QP_ACCESS_ERR,
	DR_EVENT_COMM_EST,
	DR_EVENT_SQ_DRAINED,
	DR_EVENT_PATH_MIG,
	DR_EVENT_PATH_MIG_ERR,
	DR_EVENT_DEVICE_FATAL,
	DR_EVENT_PORT_ACTIVE,
	DR_EVENT_PORT_ERR,
	DR_EVENT_LID_CHANGE,
	DR_EVENT_PKEY_CHANGE,
	DR_EVENT_SM_CHANGE,
	DR_EVENT_SRQ_ERR,
	DR_EVENT_SRQ_LIMIT_REACHED,
	DR_EVENT_QP_LAST_WQE_REACHED,
	DR_EVENT_CLIENT_REREGISTER,
	DR_EVENT_GID_CHANGE,
	DR_EVENT_WQ_FATAL,
};

/** An asynchronous event (struct ibv_async_event). */
struct dr_async_event {
	union {
		struct dr_cq *cq;
		struct dr_qp *qp;
		struct dr_srq *srq;
		int port_num;
	} element;                    /**< what it is about, by event_type */
	enum dr_event_type event_type;
};

/**
 * ibv_get_async_event(3): the oldest queued event of @p ctx. Events are
 * raised while the transport runs (dr_progress()): QP_REQ_ERR,
 * QP_ACCESS_ERR or QP_FATAL when the responder moves a QP to ERR, CQ_ERR on
 * a CQ overrun, SRQ_LIMIT_REACHED, PORT_ACTIVE / PORT_ERR when the link
 * changes. Non-blocking: -EAGAIN when none is queued; dr_async_fd() is
 * readable while one is. @return 0 or -errno.
 */
int dr_get_async_event(struct dr_context *ctx, struct dr_async_event *event);
/**
 * ibv_ack_async_event(3): a QP / CQ / SRQ cannot be destroyed (-EBUSY) while
 * an event about it that dr_get_async_event() handed out is unacknowledged.
 */
void dr_ack_async_event(struct dr_async_event *event);
/** File descriptor readable while async events are queued (ibv_context.async_fd). */
int dr_async_fd(struct dr_context *ctx);

/** Text of an event type (ibv_event_type_str(3)). */
const char *dr_event_type_str(enum dr_event_type type);

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

/** ibv_query_qp(3). @return 0 or -errno. */
int dr_query_qp(struct dr_qp *qp, struct dr_qp_attr *attr, int attr_mask, struct dr_qp_init_attr *init_attr);

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

#endif /* DR_VERBS_H */
