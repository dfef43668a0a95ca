/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_PINGPONG_H
#define DR_PINGPONG_H

/*
 * dpdk-rdma-pingpong: rdma-core's ibv_rc_pingpong, ibv_uc_pingpong and
 * ibv_ud_pingpong (v44) on the dr_ API (--qp-type), speaking their TCP
 * exchange, so either side can be the unmodified program of another host
 * (Linux rxe, a NIC).
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#include "dr_verbs.h"

#define PP_PROG "dpdk-rdma-pingpong"

/* the message of ibv_rc_pingpong's exchange: "%04x:%06x:%06x:%s" (LID:QPN:PSN:GID) */
#define PP_MSG_TEMPLATE "0000:000000:000000:00000000000000000000000000000000"
#define PP_MSG_LEN (sizeof(PP_MSG_TEMPLATE))
#define PP_DONE "done"

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
	enum dr_qp_type qp_type;  /* --qp-type: RC, UC or UD */
};

/* Q_Key of ibv_ud_pingpong */
#define PP_UD_QKEY 0x11111111u

struct pp_dest {
	unsigned int lid;
	unsigned int qpn;
	unsigned int psn;
	union dr_gid gid;
};

extern volatile sig_atomic_t pp_stop;

/* options.c: 0, 1 (help printed: exit 0), or -1 (usage error printed) */
int pp_parse_args(int argc, char **argv, struct pp_opts *o);
void pp_usage(const char *argv0);

/* exch.c: the TCP exchange; every wait drives @ctx's transport (ARP, ND) */
void pp_gid_to_wire(const union dr_gid *gid, char wgid[33]);
int pp_wire_to_gid(const char *wgid, union dr_gid *gid);
int pp_format_dest(const struct pp_dest *d, char msg[PP_MSG_LEN]);
int pp_parse_dest(const char *msg, struct pp_dest *d);
/* server: accept, read the client's address, call @connect, answer, read "done" */
int pp_server_exch(struct dr_context *ctx, const struct pp_opts *o, const struct pp_dest *me,
		   struct pp_dest *rem, int (*connect)(void *arg, const struct pp_dest *rem),
		   void *arg);
int pp_client_exch(struct dr_context *ctx, const struct pp_opts *o, const struct pp_dest *me,
		   struct pp_dest *rem);

#endif /* DR_PINGPONG_H */
