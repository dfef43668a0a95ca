/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef FAULTLINK_H
#define FAULTLINK_H

/*
 * dpdk-rdma-faultlink: a wire between two DPDK ports that loses, reorders,
 * duplicates, corrupts, delays and rate-limits what it carries, each
 * direction with its own impairments (doc/guides/faultlink.rst). It is what
 * tc-netem is for kernel links, for DPDK links (memif, af_xdp, any PMD).
 *
 * A direction (struct fl_dir) is an input port's rx queue, the impairment
 * stages (impair.h) and an output queue (queue.h) drained into another
 * port's tx queue. Each direction is owned by one lcore: its counters are
 * written by that lcore only and read by telemetry with relaxed loads.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_config.h>

#include "hist.h"
#include "impair.h"
#include "queue.h"

#define FL_PROG "dpdk-rdma-faultlink"
#define FL_DIRS 2                   /* the wire: a->b and b->a */
#define FL_MAX_PORTS 16             /* --switch: ports, and so egress queues at most */
#define FL_MAX_DIRS FL_MAX_PORTS
#define FL_MAX_EGRESS_OPS 64
#define FL_DEFAULT_BURST 32u
#define FL_MAX_BURST 512u
#define FL_DEFAULT_MAX_FRAME 9216u  /* a jumbo frame: MTU 9000 and headers fit */
#define FL_NB_DESC 1024u

enum fl_exit {
	FL_EXIT_OK = 0,
	FL_EXIT_SETUP = 1,     /* EAL, ports, memory */
	FL_EXIT_USAGE = 2,     /* the command line */
};

/* --switch: one --all, --egress or --egress-group, applied in the order given */
enum fl_egress_kind { FL_EG_ALL, FL_EG_PORT, FL_EG_GROUP };

struct fl_egress_op {
	enum fl_egress_kind kind;
	uint16_t ports[FL_MAX_PORTS];   /* PORT: one; GROUP: its members */
	unsigned int n;
	const char *spec;               /* checked when given, applied at setup */
};

struct fl_opts {
	uint16_t port[FL_DIRS];       /* a and b: a->b is direction 0, b->a direction 1 */
	bool ports_given;
	struct fl_impair_conf conf[FL_DIRS];
	uint64_t seed;
	uint32_t burst;
	uint32_t idle_us;             /* sleep this long at most when a pass found nothing */
	uint32_t max_frame;           /* largest frame carried (mbuf data room) */
	uint16_t mtu;                 /* set on both ports (0: the PMD's) */
	bool roce_only;               /* impair UDP/4791 only; other frames pass as on a wire */
	double duration_s;            /* 0: until SIGINT/SIGTERM */
	bool sw;                      /* --switch: a learning switch of every port (switch.c) */
	uint16_t sw_port[FL_MAX_PORTS];   /* --ports in switch mode (n_sw_ports 0: every port) */
	unsigned int n_sw_ports;
	struct fl_egress_op eg[FL_MAX_EGRESS_OPS];
	unsigned int n_eg;
};

/* What a direction did; written by its lcore only (FL_ADD), read anywhere (FL_GET). */
struct fl_counters {
	uint64_t rx, rx_bytes;
	uint64_t passed;      /* not RoCEv2 with --roce-only: carried unimpaired */
	uint64_t lost;        /* the loss impairment's, and link_down's */
	uint64_t duplicated;  /* copies made (each also counts in tx or a drop) */
	uint64_t corrupted;   /* frames with bits flipped */
	uint64_t reordered;   /* frames held back */
	uint64_t hold_full;   /* would have been held, the hold was full: sent in order */
	uint64_t queue_drop;  /* tail drop: the queue held limit frames */
	uint64_t nombuf;      /* a duplicate could not be made: no mbuf */
	uint64_t too_big;     /* the output port cannot send it (chained, larger than it takes) */
	uint64_t tx, tx_bytes;
	uint64_t left;        /* still queued or held at exit, freed */
	uint64_t changes;     /* impairment changes taken from /faultlink/set */
	uint64_t ecn_marked;  /* frames set to CE by RED/ECN at the queue (or CE already) */
	uint64_t ecn_not_ect; /* frames RED/ECN would have marked, not ECN-capable: left alone */
	uint64_t link_down;   /* --switch: frames for a port whose link was down, dropped (and
			       * counted as lost) rather than left at the head of the queue */
};

#define FL_COUNTER_NAMES \
	X(rx) X(rx_bytes) X(passed) X(lost) X(duplicated) X(corrupted) X(reordered) X(hold_full) \
	X(queue_drop) X(nombuf) X(too_big) X(tx) X(tx_bytes) X(left) X(changes) X(ecn_marked) \
	X(ecn_not_ect) X(link_down)

/* --switch: what one port of the switch received and sent */
struct fl_port_counters {
	uint64_t rx, rx_bytes;
	uint64_t flooded;     /* received frames sent to every other port (broadcast, multicast,
			       * unknown destination) */
	uint64_t filtered;    /* received frames for a station on the same port: dropped */
	uint64_t tx, tx_bytes;
};

#define FL_PORT_COUNTER_NAMES X(rx) X(rx_bytes) X(flooded) X(filtered) X(tx) X(tx_bytes)

/* --switch: the forwarding between the ports and the egress queues */
struct fl_sw_counters {
	uint64_t rx;          /* frames received by every port */
	uint64_t copies;      /* flood copies made (a flooded frame to k egresses: k - 1) */
	uint64_t nombuf;      /* flood copies not made: no mbuf */
	uint64_t filtered;    /* dropped: destination on the port it came from */
	uint64_t enqueued;    /* frames handed to an egress (each egress counts them as rx) */
	uint64_t learned;     /* stations learned */
	uint64_t moved;       /* stations seen on another port than learned */
	uint64_t fdb_full;    /* stations not learned: the table was full */
};

#define FL_SW_COUNTER_NAMES \
	X(rx) X(copies) X(nombuf) X(filtered) X(enqueued) X(learned) X(moved) X(fdb_full)

#define FL_ADD(c, f, n) __atomic_store_n(&(c)->f, (c)->f + (n), __ATOMIC_RELAXED)
#define FL_GET(c, f) __atomic_load_n(&(c)->f, __ATOMIC_RELAXED)

struct rte_mempool;

struct fl_port {
	uint16_t id;
	char name[64];               /* the ethdev's name */
	const char *driver;
	struct rte_mempool *pool;    /* its rx queue's mbufs, and the copies of what it receives */
	bool multiseg_tx;            /* the PMD sends chained mbufs */
	uint32_t max_tx_frame;       /* the largest frame it can send (0: no limit known) */
	bool started;
	unsigned int egress;         /* --switch: the index of its egress queue (fl_app.dir) */
	struct fl_port_counters c;   /* --switch */
};

/*
 * A change of a direction's impairments, published by the telemetry thread
 * (/faultlink/set, control.c) and taken by the direction's lcore between
 * two passes: a sequence lock, seq odd while the configuration is written.
 * The lcore never waits: a change it sees half written it takes next pass.
 */
struct fl_change {
	uint32_t seq;
	struct fl_impair_conf conf;
};

struct fl_dir {
	unsigned int idx;
	const char *name;            /* "a->b" (the exit lines) */
	const char *key;             /* "a_to_b" (telemetry: names are [A-Za-z0-9_/]) */
	struct fl_port *in, *out;    /* --switch: in NULL, out NULL (each frame's port: by_id) */
	struct fl_port **by_id;      /* --switch: the port of each port id (m->port: the output) */
	struct fl_impair_conf conf;
	struct fl_impair im;
	struct fl_tq q;
	struct fl_hold hold;
	bool roce_only;
	uint32_t burst;
	uint64_t hz, seed;
	struct fl_change change;     /* written by telemetry, read by the lcore */
	uint32_t change_seen;        /* the lcore's: the last seq it took */
	struct fl_impair_conf shown; /* telemetry's: what it published last (/faultlink/config) */
	struct fl_counters c;
	struct fl_hist backlog;      /* bytes queued as each frame arrived to the queue */
	char name_buf[80], key_buf[80];   /* --switch: "egress2+3", "egress2_3" */
};

struct fl_fdb;

struct fl_app {
	struct fl_opts o;
	unsigned int nports, ndirs;  /* FL_DIRS and FL_DIRS, or --switch's */
	struct fl_port port[FL_MAX_PORTS];
	struct fl_dir dir[FL_MAX_DIRS];
	struct fl_port *by_id[RTE_MAX_ETHPORTS];
	struct fl_fdb *fdb;          /* --switch: the learning table */
	struct fl_sw_counters sw;    /* --switch */
	uint64_t hz;
};

extern volatile sig_atomic_t fl_stop;

/* options.c: parse the program's own arguments; FL_EXIT_OK, or FL_EXIT_USAGE after saying why
 * (or -1 after --help) */
int fl_parse_args(int argc, char **argv, struct fl_opts *o);

/* port.c: @pool NULL: the port gets a pool of @nb_mbufs of its own */
int fl_port_open(struct fl_port *p, uint16_t id, const struct fl_opts *o, uint32_t nb_mbufs,
		 struct rte_mempool *pool);
/* a pool for frames of up to o->max_frame bytes (capped for af_xdp when @afxdp) */
struct rte_mempool *fl_pool_create(const char *name, uint32_t nb_mbufs, const struct fl_opts *o,
				   bool afxdp);
void fl_port_close(struct fl_port *p);

/* fwd.c: the per-lcore loop over @n directions until fl_stop or @end_tsc (0: none) */
void fl_forward(struct fl_dir **dirs, unsigned int n, uint32_t idle_us, uint64_t end_tsc);
/* free what is still queued or held, counted as left */
void fl_dir_drain(struct fl_dir *d);
/* fwd.c, for switch.c: a frame into @d's impairments and queue */
struct rte_mbuf;
void fl_dir_ingress(struct fl_dir *d, struct rte_mbuf *m, uint64_t now);
/* held frames whose time came into the queue; the number */
unsigned int fl_dir_release_held(struct fl_dir *d, uint64_t now);
/* the next time something is due in @d (UINT64_MAX: nothing waits) */
uint64_t fl_dir_next_event(const struct fl_dir *d);
/* sleep up to @idle_us, not past @next (fl_forward's idle wait) */
void fl_idle_wait(uint32_t idle_us, uint64_t next, uint64_t now, uint64_t hz);

/*
 * intr_gate.c: EAL's interrupt thread held between the forwarding lcores'
 * passes when a port is memif (memif_disconnect() unmaps a port's rings on
 * that thread while an lcore may be in a burst on it). fl_gate_init() after
 * the ports are started (-1: it could not be set up); each pass between
 * fl_gate_enter() (false: fl_stop came while it waited) and
 * fl_gate_leave(); fl_gate_tick() between passes lets the thread handle
 * what is pending, every millisecond at most; fl_gate_fini() lets it go for
 * good once every lcore stopped forwarding, before the ports are closed.
 * All do nothing without a memif port.
 */
int fl_gate_init(const struct fl_app *app);
bool fl_gate_enter(void);
void fl_gate_leave(void);
void fl_gate_tick(uint64_t now);
void fl_gate_fini(void);

/* switch.c: --switch's setup (egress queues and their impairments), loop and counters */
int fl_switch_setup(struct fl_app *app);
void fl_switch_forward(struct fl_app *app, uint32_t idle_us, uint64_t end_tsc);
void fl_switch_banner(const struct fl_app *app);
void fl_switch_print(const struct fl_app *app);

/* control.c: the lcore takes a published change of @d's impairments, if any */
void fl_dir_take_change(struct fl_dir *d);
/* control.c: /faultlink/set */
int fl_control_register(struct fl_app *app);

/* stats.c */
void fl_stats_print(const struct fl_app *app);
int fl_telemetry_register(struct fl_app *app);

#endif /* FAULTLINK_H */
