/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_DEVICE_H
#define DR_VERBS_DEVICE_H

/**
 * @file
 * Devices, contexts and ports: ibv_get_device_list(3), ibv_open_device(3),
 * ibv_query_device(3), ibv_query_port(3), and the engine that drives a context.
 *
 * Part of the verbs-shaped API; include dr_verbs.h, which includes every part.
 */

#include "dr_verbs_types.h"
#include "dr_verbs_cc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Devices, contexts, ports                                            */
/* ------------------------------------------------------------------ */

struct dr_device;

/**
 * How a context drives its transport (doc/guides/architecture.rst draws each).
 *
 * In DR_PROGRESS_RTC and DR_PROGRESS_PIPELINE mode the slow-path calls
 * (create, modify, query, destroy of every object, memory registration,
 * dr_add_neighbour()) may come from any number of application threads at
 * once: each is run by the context's control thread ("dr-ctl-<port>", a
 * DPDK control thread) while the caller waits, one at a time; from a worker
 * lcore of the context they fail with EDEADLK. The fast-path calls of one
 * QP, SRQ or CQ come from one thread at a time. In DR_PROGRESS_INLINE mode
 * the thread that calls dr_progress() (or dr_poll_cq()) is the context's
 * progress thread, from its first call on, and makes the fast-path calls;
 * a slow-path call from any other thread (a network function's control
 * thread) is queued, run by the progress thread at the start of its next
 * round, and returns when it ran (the caller sleeps: it waits as long as
 * no round runs). Before the first round, slow-path calls run in their
 * callers, one at a time. The connection manager's calls (dr_cm.h) and
 * dr_close_device() come from the progress thread (or, for the close, once
 * it stopped).
 */
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
	/** Pipeline: @c nb_workers groups of three EAL worker lcores, each
	 *  stage on its own: an rx lcore (rx queue, checks, ICRC, the
	 *  responder), a tx lcore (the requester, the tx queue) and a
	 *  completion lcore (the completer: responses, timers, CQEs; and the
	 *  group's slow-path calls). They hand frames and work to each other over
	 *  single-producer single-consumer rings; the stages' state crosses
	 *  lcores only through release/acquire hand-offs. A QP lives on one
	 *  group. dr_progress() returns 0. */
	DR_PROGRESS_PIPELINE = 2,
};

/** What an engine lcore does when a round found no work. */
enum dr_idle_policy {
	/** Poll again at once: for lcores on isolated cores (the default). */
	DR_IDLE_SPIN = 0,
	/** Poll again after a CPU pause instruction (less power, same latency class). */
	DR_IDLE_PAUSE = 1,
	/** Give the CPU away (sched_yield()): for several lcores on one CPU, as
	 *  on small test machines (`--lcores '(1-2)@1'`); latency grows. A
	 *  yield hands a whole scheduler slice to any other runnable task,
	 *  whatever its priority: with other work on the CPU an lcore waits
	 *  milliseconds. */
	DR_IDLE_YIELD = 2,
	/** Spin for DR_IDLE_SPIN_US after the last round with work, then sleep
	 *  DR_IDLE_SLEEP_US at a time (nanosleep()) until there is work again:
	 *  for lcores on CPUs shared with other processes (MPI ranks, a busy
	 *  machine). An idle lcore takes almost no CPU; the first frame after
	 *  a sleep waits up to one sleep plus the kernel's timer slack (about
	 *  60 us here: doc/guides/deployment.rst). In DR_PROGRESS_INLINE mode
	 *  (the others apply to lcores only) a dr_progress() - or dr_poll_cq()
	 *  - that found no work, DR_IDLE_SPIN_US after the last one that did,
	 *  sleeps DR_IDLE_SLEEP_US before it returns: an application polling
	 *  on a shared CPU lets the others run. */
	DR_IDLE_SLEEP = 3,
	/** DR_IDLE_SPIN while the thread has its CPU to itself, DR_IDLE_SLEEP
	 *  while it shares it: an idle thread looks every DR_IDLE_AUTO_CHECK_US
	 *  at the time it waited on a run queue (the scheduler's run_delay,
	 *  /proc/thread-self/schedstat), and naps for DR_IDLE_AUTO_HOLD_US after
	 *  that time, as a share of the looks' intervals averaged over them,
	 *  reached DR_IDLE_AUTO_WAIT_PCT (another rank, a busy task on its CPU;
	 *  the kernel's softirq threads at work on its frames take far less). In
	 *  inline mode too. The libfabric provider's default. */
	DR_IDLE_AUTO = 4,
};

/** Default of dr_context_attr.tx_zcopy_min: payloads from 2 KiB are attached,
 *  shorter ones copied (measured over net_memif: doc/guides/speed.rst). */
#define DR_TX_ZCOPY_MIN_DEFAULT 2048

/** Largest number of worker lcores of one context (pipeline: 3 per group). */
#define DR_MAX_WORKERS 16

/**
 * Who moves a context's frames between the port and the transport
 * (doc/guides/embedding.rst).
 */
enum dr_io_mode {
	/** The transport receives and transmits on queues of the port:
	 *  queues it configured (@c configure_port), or the ones the
	 *  application gave it (@c rx_queue, @c tx_queue). */
	DR_IO_PORT = 0,
	/** The application owns the port, its queues and its packets (a DPDK
	 *  network function): it hands received frames to
	 *  dr_rx_burst_input(), which keeps the transport's and returns the
	 *  rest, and sends the frames it takes from dr_tx_drain() itself. The
	 *  transport touches no queue of the port; it reads the port's MAC
	 *  address, MTU and link state. Zero-copy transmit is off. */
	DR_IO_APP = 1,
};

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
	/** DR_PROGRESS_RTC: worker lcores, 1 .. DR_MAX_WORKERS (0 = 1).
	 *  DR_PROGRESS_PIPELINE: groups of three lcores, 1 .. DR_MAX_WORKERS / 3. */
	uint16_t nb_workers;
	/** DR_PROGRESS_RTC: the EAL lcore ids of the workers (@c nb_workers of
	 *  them); DR_PROGRESS_PIPELINE: 3 x @c nb_workers of them, group by group
	 *  in the order rx, tx, completion. NULL = the first EAL worker lcores
	 *  that are idle. The main lcore cannot be one. */
	const unsigned int *worker_lcores;
	/** DR_PROGRESS_RTC, DR_PROGRESS_PIPELINE: what an engine lcore does when
	 *  a round found no work. */
	enum dr_idle_policy idle;
	/** DR_PROGRESS_RTC, DR_PROGRESS_PIPELINE with @c configure_port: queue
	 *  pairs of the port, one per rtc worker or pipeline group from the first
	 *  (at most @c nb_workers). 0 = one per worker (group)
	 *  when the PMD spreads received frames by RSS on UDP, else 1; workers
	 *  without a queue of their own go through software rings. A link whose
	 *  ends pair their queues one to one (net_memif, net_ring) needs the
	 *  same number on both sides. */
	uint16_t nb_queues;
	/** Backend name ("ethdev"); NULL = the default for the port */
	const char *backend;
	/** Largest number of QPs the context holds at once, 1 .. DR_MAX_QP
	 *  (65536; dr_query_device() reports it as max_qp); 0 = DR_MAX_QP. The
	 *  QPN table (8 bytes per QP) and its free list (4 bytes per QP) are
	 *  allocated at open for this many; QPNs are 0x11 .. 0x11 + max_qp - 1. */
	uint32_t max_qp;
	/** Mbufs of the pool the context creates when @c pool is NULL (at least
	 *  1023); 0 = sized from the rest of these attributes: the rx and tx
	 *  descriptors of every queue the workers may use (@c nb_queues, else
	 *  one per worker; @c nb_rx_desc / @c nb_tx_desc, 0 counted as 1024),
	 *  the engine's rings and staging arrays, the per-lcore caches, and
	 *  8192 frames in flight in the stages, rounded up to 2^n - 1 (16383
	 *  for one worker with one queue pair of 1024 + 1024 descriptors).
	 *  Each mbuf holds a 4096-byte-MTU frame: about 4.5 KiB of memory. */
	uint32_t pool_mbufs;
	/** Zero-copy transmit: a frame whose payload is at least this many
	 *  bytes of one registered region (an SGE of a SEND or RDMA WRITE, a
	 *  READ response) carries it attached from the memory itself
	 *  (rte_pktmbuf_attach_extbuf(), headers in an mbuf in front) instead
	 *  of a copy. Only on ports whose PMD reads frames with the CPU through
	 *  virtual addresses and takes chained mbufs (software PMDs: memif,
	 *  af_xdp, af_packet, tap, ring); other ports always copy.
	 *  0 = DR_TX_ZCOPY_MIN_DEFAULT; UINT32_MAX = never. While such a frame
	 *  is in flight its region cannot go: dr_dereg_mr() waits for it. */
	uint32_t tx_zcopy_min;
	/** Bytes a reliable QP may have sent and not yet acknowledged: its
	 *  send window, in packets of its path MTU (at least 16, at most 2048;
	 *  with selective repeat at most 256, what the peer's reorder map
	 *  covers). Near the bandwidth-delay product, a loss costs go-back-N at
	 *  most that much resent (IRN's BDP flow control). 0 =
	 *  DR_INFLIGHT_PKTS_DEFAULT packets of the path MTU. */
	uint32_t inflight_bytes;
	/** Congestion control (dr_verbs_cc.h, doc/guides/congestion.rst): ECN,
	 *  CNPs, DCQCN and the pacing of each QP. All zero: no rate control, CNPs
	 *  sent for CE-marked packets as the peer asks by marking ECT. */
	struct dr_cc_attr cc;
	/** Keepalive of reliable QPs (doc/guides/reliability.rst, "Keepalive"):
	 *  a QP in RTS with nothing outstanding that heard nothing from its peer
	 *  for this many milliseconds sends it a probe - a zero-length RDMA
	 *  WRITE at the newest PSN it sent, a duplicate, which a responder (rxe
	 *  and hardware too) acknowledges again without executing it (IBA
	 *  9.7.5.1.1 C9-105) - and one more each interval after that; when
	 *  @c keepalive_probes of them went unanswered the QP goes to ERR (its
	 *  WRs flushed, DR_EVENT_QP_FATAL): a dead peer is found within
	 *  (keepalive_probes + 1) intervals. 0 = off, as IBA (no keepalive). */
	uint32_t keepalive_ms;
	/** Probes unanswered before the peer is taken for dead; 0 =
	 *  DR_KEEPALIVE_PROBES_DEFAULT. */
	uint32_t keepalive_probes;
	/** 1: every received frame takes the general path, none the express
	 *  path (doc/guides/speed.rst, "The express path"). The two give the
	 *  same completions, memory and counters (apart from @c rx_express);
	 *  the general path is the express path's oracle, for differential
	 *  tests and for debugging. 0 (default): common requests take the
	 *  express path. */
	int disable_express;
	/** Who moves the frames (dr_verbs_io.h, doc/guides/embedding.rst):
	 *  DR_IO_PORT (0), the transport on the port's queues; DR_IO_APP, the
	 *  application, through dr_rx_burst_input() and dr_tx_drain(). */
	enum dr_io_mode io;
	/** DR_IO_APP: frames each staging ring holds (received frames waiting
	 *  for the transport, built frames waiting for dr_tx_drain()), a power
	 *  of two from 64 to 65536; 0 = DR_IO_RING_DEFAULT. */
	uint32_t io_ring_size;
	/** Frames the transport may keep at once from pools that are not its
	 *  own: the pool of the application's rx queue (!@c configure_port) or
	 *  of the frames given to dr_rx_burst_input(). A responder keeps a
	 *  request for later behind READs being answered and, with selective
	 *  repeat, after a gap; beyond this many from the application's pools,
	 *  it keeps a copy in the context's pool and frees the frame at once
	 *  (dr_counters.rx_app_copied), so the transport never drains the
	 *  application's pool (doc/guides/embedding.rst, "Pools"). Shared by
	 *  the context's worker groups. 0 = DR_APP_POOL_HOLD_DEFAULT. */
	uint32_t app_pool_hold;
};

/** Default of dr_context_attr.app_pool_hold. */
#define DR_APP_POOL_HOLD_DEFAULT 256u

/** Default of dr_context_attr.io_ring_size. */
#define DR_IO_RING_DEFAULT 4096u

/** Default of dr_context_attr.keepalive_probes. */
#define DR_KEEPALIVE_PROBES_DEFAULT 3u

/** The send window of a reliable QP when dr_context_attr.inflight_bytes is 0:
 *  this many packets of its path MTU (256 KiB at 1024, 1 MiB at 4096), two
 *  receive rounds of a polling peer (4 bursts of 32 frames each) in flight,
 *  so that the sender never waits for the ACK at the end of a round. */
#define DR_INFLIGHT_PKTS_DEFAULT 256u

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
 * the transport, and the slow-path calls (destroy, dereg, ...) act on the
 * objects directly. Use it when the transport's work is over and the peer
 * may vanish (net_memif in DPDK 22.11 can crash a process that polls a port
 * whose peer goes away), then destroy the objects and close the context. In inline
 * mode there is nothing to stop. Idempotent.
 * @return 0, or -EINVAL for a NULL context.
 */
int dr_stop_workers(struct dr_context *ctx);

/**
 * The mbuf pool of a context: the one given in dr_context_attr.pool, or the
 * one dr_open_device() made (sized for the engine and the QPs, with data
 * rooms the port's PMD takes). The port receives into it and the transport
 * builds its frames from it. For an application that sends frames of its
 * own on the port it configured, or measures the bare link with the same
 * buffers (dpdk-rdma-perf's raw tests); freed by dr_close_device() when the
 * context made it.
 * @return the pool, or NULL (errno EINVAL) for a NULL context.
 */
struct rte_mempool *dr_context_mempool(struct dr_context *ctx);

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
	/** IB width and speed as the kernel reports a RoCE port's for its
	 *  Ethernet speed (ib_get_eth_speed()): width 1 = 1X, 2 = 4X; speed
	 *  1 = SDR, 2 = DDR, 8 = FDR10, 32 = EDR. 1X SDR when unknown. */
	uint8_t active_width;
	uint8_t active_speed;
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
 * dr_poll_cq() calls it too, when its CQ holds no completion. In
 * DR_PROGRESS_RTC mode the worker lcores drive the transport and it
 * returns 0 at once, so that a program written for both modes may call it
 * in its loops.
 * @return the number of packets handled, or -errno.
 */
int dr_progress(struct dr_context *ctx);

/**
 * dr_progress() that takes at most @p max_pkts frames from the receive
 * queue (or, with DR_IO_APP, from what dr_rx_burst_input() handed in),
 * so that an application's loop bounds the transport's share of each
 * iteration. The rest waits for the next call; timers, the state machines
 * and transmission run as in dr_progress() (0 receives nothing and runs
 * the rest). Frames another worker redirected are not counted: inline mode
 * has none.
 * @return as dr_progress(): packets handled, 0 outside inline mode, or
 *         -EINVAL for a NULL context.
 */
int dr_progress_budget(struct dr_context *ctx, unsigned int max_pkts);

#ifdef __cplusplus
}
#endif

#endif /* DR_VERBS_DEVICE_H */
