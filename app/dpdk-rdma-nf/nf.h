/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_NF_H
#define DR_NF_H

/*
 * dpdk-rdma-nf: a DPDK network function with RDMA on its own port
 * (doc/guides/embedding.rst). Two roles of one program:
 *
 * - nf: one lcore forwards between ports 0 and 1 (l2fwd, MAC swap) and, on
 *   port 0 and the same lcore, exports the first 128 bytes of every Nth
 *   forwarded frame to a collector by RDMA WRITE WITH IMMEDIATE, and shows
 *   its counters in a memory region the collector reads (export.c).
 * - peer: the NF's two links' other ends: it generates numbered frames on
 *   its port 0, sinks and checks them on its port 1, and is the RDMA
 *   collector on port 0 (peer.c, collect.c).
 *
 * --io says how the transport shares port 0 with the program (io.c): app
 * (DR_IO_APP: the program hands it the frames and sends what it builds) or
 * queue (DR_IO_PORT on queue pair 1 of the program's port, steered there by
 * dr_flow_steer() or by a link that pairs queues, as memif does) or, for
 * the nf, graph (DR_IO_APP through the rte_graph nodes dr_rx and dr_tx-0:
 * graph.c).
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "dr_cm.h"
#include "dr_verbs.h"

#define NF_BURST 32
#define NF_RECORD 128                  /* bytes of a frame exported */
#define NF_SLOTS 64                    /* the collector's ring of batches; the exporter's too */
#define NF_SLOT_BYTES 4096             /* a batch: at most a path MTU, so one packet */
#define NF_CM_PORT 7471
#define NF_DESC 1024                   /* descriptors of each rx and tx queue */

enum nf_role { NF_ROLE_NF, NF_ROLE_PEER };
enum nf_io { NF_IO_APP, NF_IO_QUEUE, NF_IO_GRAPH };

struct nf_opts {
	enum nf_role role;
	enum nf_io io;
	uint32_t ip;                   /* --ip: port 0's transport address (network order) */
	struct sockaddr_storage collector; /* nf: --collector, the collector's address */
	unsigned int sample;           /* nf: --sample N, one frame in N exported (16) */
	uint64_t count;                /* peer: --count, frames to generate (100000; with --duration: no cap) */
	double duration_s;             /* peer: --duration, generate for this long (0: until --count) */
	double rate_pps;               /* peer: --rate, frames per second offered (0: as fast as port 0 takes) */
	bool no_collect;               /* peer: --no-collect, no collector: frames only (the NF's --no-export) */
	bool no_export;                /* nf: --no-export, forward only, until a signal */
	bool export_flood;             /* nf: --export-flood, full batches as fast as the collector takes them */
	unsigned int flows;            /* peer: --flows (8) */
	unsigned int window;           /* peer: --window, frames beyond what came back (256) */
	uint32_t mtu;                  /* --mtu: the link MTU for the transport (0: the port's) */
	double timeout_s;              /* --timeout: every wait (30) */
	bool once;                     /* nf: --once, end after the first collector */
};

/*
 * What the exporter counts, in a memory region the collector reads with
 * RDMA READ (the NF writes it as it goes; the peer's copy is a snapshot).
 */
struct nf_counters {
	uint64_t magic;                /* NF_COUNTERS_MAGIC */
	uint64_t rx[2];                /* frames received on port 0 / 1 (the program's, not RoCE) */
	uint64_t fwd;                  /* frames forwarded */
	uint64_t tx_dropped;           /* forwarded frames the out port did not take */
	uint64_t sampled;              /* frames whose head was taken for export */
	uint64_t export_dropped;       /* ... and dropped: every batch buffer busy */
	uint64_t records;              /* records sent to the collector (completed WRITEs) */
	uint64_t batches;              /* WRITE WITH IMMEDIATE completed */
	uint64_t rdma_tx_dropped;      /* the transport's frames port 0 did not take (a loss RC recovers) */
};
#define NF_COUNTERS_MAGIC 0x4E46434F554E5453ull   /* "NFCOUNTS" */

/* What the NF's REQ and the collector's REP carry. */
struct nf_req_pdata {
	uint64_t counters_addr;
	uint32_t counters_rkey;
	uint32_t record_bytes;
	uint32_t flags;                /* NF_REQ_FLOOD */
};
/*
 * --export-flood: the records are not frames' heads but tags, so that the
 * export runs at the collector's speed whatever is forwarded: record i of
 * batch b holds the 64-bit little-endian (b << 8 | i), then zeros.
 */
#define NF_REQ_FLOOD 1u
struct nf_rep_pdata {
	uint64_t ring_addr;
	uint32_t ring_rkey;
	uint32_t slots;
	uint32_t slot_bytes;
};

/* In-band control messages (SEND) */
#define NF_MSG_FIN 0x46494E21u         /* collector -> NF: the run is over, flush */
#define NF_MSG_DONE 0x444F4E45u        /* NF -> collector: flushed; the counters follow */
struct nf_msg {
	uint32_t type;
	uint32_t pad;
	struct nf_counters c;
};

static inline uint64_t
nf_flood_tag(uint64_t batch, unsigned int i)
{
	return batch << 8 | i;
}

/* The program's port 0 with the transport on it, and its port 1. */
struct nf_port {
	enum nf_io io;
	struct rte_mempool *pool;      /* the program's rx pool */
	bool af_xdp;                   /* its ports are net_af_xdp */
	struct dr_context *ctx;
	uint64_t rdma_tx_dropped;
};

/* io.c */
int nf_ports_start(const struct nf_opts *o, struct nf_port *p);
int nf_transport_open(const struct nf_opts *o, struct nf_port *p);
/* Receive up to @n of the program's frames on port @port (port 0: the transport's taken). */
uint16_t nf_rx(struct nf_port *p, uint16_t port, struct rte_mbuf **pkts, uint16_t n);
/* Send @n frames on port @port; the ones not taken are freed: returned. */
uint16_t nf_tx(struct nf_port *p, uint16_t port, struct rte_mbuf **pkts, uint16_t n);
/* The transport's turn: progress, and (app) its frames out on port 0; >0 when it moved any. */
int nf_transport_run(struct nf_port *p);
/* Wait up to @limit_s for both ports' links to be up; 0, or -ETIMEDOUT. */
int nf_links_up(double limit_s);
/* One "<who> port N:" summary of each port's rte_eth_stats (imissed, rx_nombuf, errors). */
void nf_ports_print_stats(const char *who);
/* Close the transport and the ports; @after_peer: the memif client's side, after the other end's. */
void nf_ports_stop(struct nf_port *p, bool after_peer);

/* graph.c (--io graph): the NF's forwarding as an rte_graph with the transport's nodes */
struct nf_fwd_hook {
	void (*sample)(void *arg, const struct rte_mbuf *m);  /* each forwarded frame, before the MAC swap */
	void *arg;
	struct nf_counters *cnt;                              /* rx, fwd, tx_dropped counted here */
};
int nf_graph_start(struct nf_port *p, const struct nf_fwd_hook *h);
void nf_graph_walk(void);
void nf_graph_stop(struct nf_port *p);

/* generate.c: the frames the peer sends and checks */
uint16_t nf_frame_len(uint32_t flow, uint64_t seq);
int nf_frame_fill(struct rte_mbuf *m, uint32_t flow, uint64_t seq);
/* 0 when @f (@len bytes, MACs as sent or swapped) is frame (@flow, @seq); the ids read from it */
int nf_frame_parse(const uint8_t *f, uint32_t len, uint32_t *flow, uint64_t *seq);
bool nf_frame_check(const uint8_t *f, uint32_t len, bool swapped);
/* The first NF_RECORD bytes of frame (@flow, @seq) as sent (zero beyond its end). */
void nf_frame_head(uint32_t flow, uint64_t seq, uint8_t head[NF_RECORD]);

/* export.c, peer.c */
int nf_run(const struct nf_opts *o, struct nf_port *p, volatile sig_atomic_t *stop);
int nf_peer_run(const struct nf_opts *o, struct nf_port *p, volatile sig_atomic_t *stop);

/* a wait: pump while @done is false, up to the timeout; -ETIMEDOUT or -EINTR */
double nf_now(void);

#endif /* DR_NF_H */
