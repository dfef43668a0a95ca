/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_OPGEN_H
#define DR_OPGEN_H

/*
 * dpdk-rdma-opgen: the guest's dr-opgen (usertools/rxepeer/guest/dr-opgen.c)
 * on the dr_ API, the same operation table, exchange and verdict
 * (usertools/rxepeer/guest/dr-opgen-ops.h), so either side can be dr-opgen
 * on Linux rxe; -t xrc runs against another dpdk-rdma-opgen only (rxe has
 * no XRC). main.c runs the table, fault.c a fault (-E), options.c looks
 * the fault up.
 */

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dr_app_engine.h"
#include "dr_verbs.h"

struct opgen_fault;
struct wire_info;

#define OG_PROG "dpdk-rdma-opgen"

/* exit status, as dr-opgen's */
enum {
	OG_EXIT_OK = 0,
	OG_EXIT_CHECK = 1,     /* a failed check, here or at the peer */
	OG_EXIT_SETUP = 2,     /* usage or setup error */
	OG_EXIT_TIMEOUT = 3,   /* -T expired */
};

struct og_opts {
	const char *host;          /* NULL: server */
	const char *dev;           /* -d: dr_<port>; NULL: the first */
	unsigned int qpt;          /* -t: T_RC, T_UC, T_UD, T_XRC */
	int gidx;                  /* -g: default 1 (the IPv4 GID of --ip) */
	unsigned int port;         /* -p: TCP port */
	enum dr_mtu path_mtu;      /* -m */
	long psn;                  /* -s: first PSN we send; -1: client 0x100, server 0x200 */
	unsigned int timeout_s;    /* -T: the whole run */
	bool list;                 /* -L */
	bool lossy;                /* -l: UC/UD through a lossy link (lossy.c) */
	const struct opgen_fault *fault;   /* -E: one bad request instead of the table */
	rte_be32_t ipv4;           /* --ip */
	uint8_t ipv6[2][16];       /* --ipv6: GID index 2, 3 */
	unsigned int num_ipv6;
	uint32_t link_mtu;         /* --link-mtu */
	double tcp_timeout_s;      /* --timeout: connect/accept and the exchange; 0: -T only */
	struct dr_app_engine engine;   /* --mode, --workers, --idle, --queues */
};

extern volatile sig_atomic_t og_stop;

/* options.c: 0, 1 (help printed: exit 0), or -1 (usage error printed: exit 2) */
int og_parse_args(int argc, char **argv, struct og_opts *o);

/*
 * The run's deadline and its bail-out: og_fail() prints "dpdk-rdma-opgen: ..."
 * and longjmps to og_bail with @code (main() then releases everything).
 */
extern jmp_buf og_bail;
extern double og_deadline;
double og_now(void);
void og_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* "dpdk-rdma-opgen: ..." on stderr, the run goes on (release errors) */
void og_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* og_fail(OG_EXIT_TIMEOUT) past the deadline, og_fail(SETUP) once stopped by a signal */
void og_check_deadline(void);

/* tcp.c: blocking-looking TCP over non-blocking sockets; every wait drives @ctx */
int og_tcp_server(struct dr_context *ctx, unsigned int port, double deadline);
int og_tcp_client(struct dr_context *ctx, const char *host, unsigned int port, double deadline);
void og_put(struct dr_context *ctx, int fd, const void *p, size_t n, double deadline);
void og_get(struct dr_context *ctx, int fd, void *p, size_t n, double deadline);

/*
 * tcp.c, the end of a session (never failing, drives nothing): og_tcp_fin()
 * sends one byte and waits up to @ms for the peer's (or its close);
 * og_tcp_wait_closed() waits up to @ms for the peer to close.
 */
void og_tcp_fin(int fd, int ms);
void og_tcp_wait_closed(int fd, int ms);

/* main.c: one completion of @cq within @ms milliseconds: 1, or 0 on timeout */
int og_wait_wc(struct dr_cq *cq, struct dr_wc *wc, int ms);

/* What a fault run (fault.c) uses of main.c's setup, connected and ready. */
struct og_env {
	struct dr_context *ctx;
	struct dr_cq *cq;
	struct dr_qp *qp;
	struct dr_ah *ah;             /* UD: to the peer */
	struct dr_mr *mr;
	uint8_t *buf;
	const struct wire_info *me, *peer;
	unsigned int qpt;             /* T_* */
	int fd;                       /* the exchange's socket */
};

/* fault.c: -E's run (dr-opgen-ops.h's opgen_faults): an OG_EXIT_* status */
int og_fault_client(const struct og_env *e, const struct opgen_fault *f);
int og_fault_server(const struct og_env *e, const struct opgen_fault *f);

/* lossy.c: -l's server (dr-opgen-ops.h, lossy mode); @post_recv gives a slot back. An OG_EXIT_* status */
int og_lossy_server(const struct og_env *e, void (*post_recv)(unsigned int slot));

/* window.c: the server's type 2 memory window */
/* dr_alloc_mw(); *rkey: the R_Key the bind will give it (dr_inc_rkey() of its own) */
struct dr_mw *og_window_alloc(struct dr_pd *pd, uint32_t *rkey);
/* bind @mw with @rkey over [addr, addr + length) of @mr, REMOTE_WRITE; its completion on @cq within @ms */
void og_window_bind(struct dr_qp *qp, struct dr_cq *cq, struct dr_mw *mw, uint32_t rkey,
		    struct dr_mr *mr, uint8_t *addr, uint64_t length, uint64_t wr_id, int ms);

/* xrc.c: -t xrc, the server's half */
struct og_xrc {
	struct dr_xrcd *xrcd;
	struct dr_srq *srq;           /* the XRC SRQ: the server's receives, completions on its CQ */
};
/* the domain, its XRC SRQ (on @pd and @cq, @max_wr receives) and the XRC_RECV QP; *srqn: the SRQ's number */
struct dr_qp *og_xrc_target(struct dr_context *ctx, struct dr_pd *pd, struct dr_cq *cq, uint32_t max_wr,
			    struct og_xrc *x, uint32_t *srqn);
/* the SRQ and the domain (after the QP) */
void og_xrc_release(struct og_xrc *x);

#endif /* DR_OPGEN_H */
