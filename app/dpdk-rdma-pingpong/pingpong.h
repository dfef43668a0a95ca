/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_PINGPONG_H
#define DR_PINGPONG_H

/*
 * dpdk-rdma-pingpong: rdma-core's ibv_rc_pingpong, ibv_uc_pingpong,
 * ibv_ud_pingpong and ibv_srq_pingpong (v44) on the dr_ API (--qp-type),
 * speaking their TCP exchange, so either side can be the unmodified program
 * of another host (Linux rxe, a NIC).
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#include "dr_app_engine.h"
#include "dr_verbs.h"

#define PP_PROG "dpdk-rdma-pingpong"

/* the message of ibv_rc_pingpong's exchange: "%04x:%06x:%06x:%s" (LID:QPN:PSN:GID) */
#define PP_MSG_TEMPLATE "0000:000000:000000:00000000000000000000000000000000"
#define PP_MSG_LEN (sizeof(PP_MSG_TEMPLATE))
#define PP_DONE "done"
/* ibv_srq_pingpong's MAX_QP: at most this many QPs, and its exchange always carries this many addresses */
#define PP_MAX_QP 256

struct pp_opts {
	const char *servername;   /* NULL: server */
	const char *ib_devname;
	unsigned int port;        /* TCP port */
	int ib_port;
	unsigned int size;
	enum dr_mtu mtu;
	unsigned int rx_depth;
	unsigned int iters;
	int sl;
	int gidx;                 /* -1: not given */
	bool validate_buf;        /* -c */
	bool use_event;           /* -e: completion channel */
	rte_be32_t ipv4;          /* --ip */
	uint8_t ipv6[2][16];      /* --ipv6: GID index 2, 3 */
	unsigned int num_ipv6;
	uint32_t link_mtu;        /* --link-mtu */
	double timeout_s;         /* --timeout: the TCP exchange */
	enum dr_qp_type qp_type;  /* --qp-type: RC, UC or UD (srq: RC) */
	bool use_srq;             /* --qp-type srq: num_qp RC QPs on one SRQ */
	unsigned int num_qp;      /* -q (srq; 1 otherwise) */
	struct dr_app_engine engine;   /* --mode, --workers, --idle, --queues */
};

/* Q_Key of ibv_ud_pingpong */
#define PP_UD_QKEY 0x11111111u

struct pp_dest {
	unsigned int lid;
	unsigned int qpn;
	unsigned int psn;
	union dr_gid gid;
};

enum {
	PINGPONG_RECV_WRID = 1,
	PINGPONG_SEND_WRID = 2,
};

/* the resources of one run: those of ibv_{rc,uc,ud}_pingpong, or ibv_srq_pingpong's num_qp QPs on an SRQ */
struct pp_ctx {
	const struct pp_opts *o;
	struct dr_device **dev_list;
	struct dr_context *context;
	struct dr_pd *pd;
	struct dr_mr *mr;
	struct dr_comp_channel *channel;  /* -e */
	struct dr_cq *cq;
	struct dr_srq *srq;               /* srq: the receive queue of every QP */
	struct dr_qp *qp[PP_MAX_QP];
	unsigned int num_qp;
	int pending[PP_MAX_QP];           /* PINGPONG_*_WRID still awaited, per QP */
	uint32_t my_psn[PP_MAX_QP];
	struct dr_ah *ah;                 /* UD: to the peer */
	uint32_t rem_qpn;                 /* UD: the peer's QPN */
	uint8_t *buf;
	unsigned int grh;                 /* UD: DR_GRH_LEN bytes of GRH area before the payload */
	unsigned int size;
	unsigned int send_flags;
	int rx_depth;
};

extern volatile sig_atomic_t pp_stop;
extern long pp_page_size;

/* options.c: 0, 1 (help printed: exit 0), or -1 (usage error printed) */
int pp_parse_args(int argc, char **argv, struct pp_opts *o);
void pp_usage(const char *argv0);

/* ctx.c: open the device, create the resources (and their INIT state); release them */
int pp_init_ctx(struct pp_ctx *ctx);
int pp_close_ctx(struct pp_ctx *ctx);
/* "QP[i]" in ibv_srq_pingpong's messages, "QP" in the others' */
const char *pp_qp_name(const struct pp_ctx *ctx, unsigned int i, char buf[16]);

/* connect.c: move every QP to RTR and RTS towards @dest[i] (UD: and make the AH) */
int pp_connect_ctx(void *arg, const struct pp_dest *dest);

/* exch.c: the TCP exchange of @n addresses each way; every wait drives @ctx's transport (ARP, ND) */
void pp_gid_to_wire(const union dr_gid *gid, char wgid[33]);
int pp_wire_to_gid(const char *wgid, union dr_gid *gid);
int pp_format_dest(const struct pp_dest *d, char msg[PP_MSG_LEN]);
int pp_parse_dest(const char *msg, struct pp_dest *d);
/* server: accept, read the client's @n addresses, call @connect, answer with @n, read "done" */
int pp_server_exch(struct dr_context *ctx, const struct pp_opts *o, const struct pp_dest *me,
		   struct pp_dest *rem, unsigned int n,
		   int (*connect)(void *arg, const struct pp_dest *rem), void *arg);
/* client: connect, write @n addresses, read @n, write "done" */
int pp_client_exch(struct dr_context *ctx, const struct pp_opts *o, const struct pp_dest *me,
		   struct pp_dest *rem, unsigned int n);

#endif /* DR_PINGPONG_H */
