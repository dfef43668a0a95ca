/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-pingpong [EAL args --] --ip A.B.C.D [--qp-type rc|uc|ud] [options] [host]
 *
 * ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong (rdma-core v44,
 * polling) on the dr_ API: the same resources (one buffer filled with 0x7b,
 * registered with LOCAL_WRITE, 40 bytes longer for UD's GRH area; a CQ of
 * rx_depth + 1; a QP of 1 send and rx_depth receive WRs), the same QP
 * attributes per type (RC: INIT access 0; RTR path_mtu, dest_qpn, rq_psn,
 * max_dest_rd_atomic 1, min_rnr_timer 12, GRH with hop_limit 1; RTS timeout
 * 14, retry_cnt 7, rnr_retry 7, max_rd_atomic 1. UC: INIT access 0; RTR
 * path_mtu, dest_qpn, rq_psn, AV; RTS sq_psn. UD: INIT Q_Key 0x11111111; RTR;
 * RTS sq_psn; an AH to the peer), the same TCP exchange (exch.c), the same
 * SEND/RECV loop (-e: a completion channel, re-armed after each event, the
 * events acknowledged at the end) and the same output. -c as v44's rc: the client zeroes the
 * first byte of every page before its first SEND, the server checks them
 * after the run ("invalid data in page N").
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "dr_app.h"
#include "pingpong.h"

#define PP_LINGER_MS 500   /* after the run: the peer's retransmissions still get ACKs */

enum {
	PINGPONG_RECV_WRID = 1,
	PINGPONG_SEND_WRID = 2,
};

volatile sig_atomic_t pp_stop;

struct pp_ctx {
	const struct pp_opts *o;
	struct dr_device **dev_list;
	struct dr_context *context;
	struct dr_pd *pd;
	struct dr_mr *mr;
	struct dr_comp_channel *channel;  /* -e */
	struct dr_cq *cq;
	struct dr_qp *qp;
	struct dr_ah *ah;             /* UD: to the peer */
	uint32_t rem_qpn;             /* UD: the peer's QPN */
	uint8_t *buf;
	unsigned int grh;             /* UD: DR_GRH_LEN bytes of GRH area before the payload */
	unsigned int size;
	unsigned int send_flags;
	int rx_depth;
	int pending;
	int my_psn;
};

static long page_size;

/* ibv_ud_pingpong's pp_connect_ctx(): RTR, RTS, an AH to the peer. */
static int
pp_connect_ud(struct pp_ctx *ctx, const struct pp_dest *dest)
{
	const struct pp_opts *o = ctx->o;
	struct dr_qp_attr attr = { .qp_state = DR_QPS_RTR };
	struct dr_ah_attr ah_attr = {
		.is_global = 0,
		.dlid = (uint16_t)dest->lid,
		.sl = (uint8_t)o->sl,
		.src_path_bits = 0,
		.port_num = (uint8_t)o->ib_port,
	};
	int ret;

	ret = dr_modify_qp(ctx->qp, &attr, DR_QP_STATE);
	if (ret != 0) {
		fprintf(stderr, "Failed to modify QP to RTR: %s\n", strerror(-ret));
		return 1;
	}
	attr.qp_state = DR_QPS_RTS;
	attr.sq_psn = (uint32_t)ctx->my_psn;
	ret = dr_modify_qp(ctx->qp, &attr, DR_QP_STATE | DR_QP_SQ_PSN);
	if (ret != 0) {
		fprintf(stderr, "Failed to modify QP to RTS: %s\n", strerror(-ret));
		return 1;
	}
	if (dest->gid.global.interface_id) {
		ah_attr.is_global = 1;
		ah_attr.grh.hop_limit = 1;
		ah_attr.grh.dgid = dest->gid;
		ah_attr.grh.sgid_index = (uint8_t)o->gidx;
	}
	ctx->ah = dr_create_ah(ctx->pd, &ah_attr);
	if (ctx->ah == NULL) {
		fprintf(stderr, "Failed to create AH: %s\n", strerror(errno));
		return 1;
	}
	ctx->rem_qpn = dest->qpn;
	return 0;
}

static int
pp_connect_ctx(void *arg, const struct pp_dest *dest)
{
	struct pp_ctx *ctx = arg;
	const struct pp_opts *o = ctx->o;
	bool rc = o->qp_type == DR_QPT_RC;
	struct dr_qp_attr attr = {
		.qp_state = DR_QPS_RTR,
		.path_mtu = o->mtu,
		.dest_qp_num = dest->qpn,
		.rq_psn = dest->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 0,
			.dlid = (uint16_t)dest->lid,
			.sl = (uint8_t)o->sl,
			.src_path_bits = 0,
			.port_num = (uint8_t)o->ib_port,
		},
	};
	int ret;

	if (o->qp_type == DR_QPT_UD)
		return pp_connect_ud(ctx, dest);
	if (dest->gid.global.interface_id) {
		attr.ah_attr.is_global = 1;
		attr.ah_attr.grh.hop_limit = 1;
		attr.ah_attr.grh.dgid = dest->gid;
		attr.ah_attr.grh.sgid_index = (uint8_t)o->gidx;
	}
	/* ibv_uc_pingpong: no RDMA-atomic or RNR attributes on UC */
	ret = dr_modify_qp(ctx->qp, &attr, DR_QP_STATE | DR_QP_AV | DR_QP_PATH_MTU |
			   DR_QP_DEST_QPN | DR_QP_RQ_PSN |
			   (rc ? DR_QP_MAX_DEST_RD_ATOMIC | DR_QP_MIN_RNR_TIMER : 0));
	if (ret != 0) {
		fprintf(stderr, "Failed to modify QP to RTR: %s\n", strerror(-ret));
		return 1;
	}
	attr.qp_state = DR_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = (uint32_t)ctx->my_psn;
	attr.max_rd_atomic = 1;
	ret = dr_modify_qp(ctx->qp, &attr, DR_QP_STATE | DR_QP_SQ_PSN |
			   (rc ? DR_QP_TIMEOUT | DR_QP_RETRY_CNT | DR_QP_RNR_RETRY |
				 DR_QP_MAX_QP_RD_ATOMIC : 0));
	if (ret != 0) {
		fprintf(stderr, "Failed to modify QP to RTS: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}

static struct dr_device *
find_device(struct pp_ctx *ctx, int n)
{
	const char *want = ctx->o->ib_devname;

	if (n == 0) {
		fprintf(stderr, "No IB devices found (give a DPDK port to EAL, e.g. "
			"--vdev net_af_packet0,iface=IF)\n");
		return NULL;
	}
	if (want == NULL)
		return ctx->dev_list[0];
	for (int i = 0; i < n; i++)
		if (strcmp(dr_get_device_name(ctx->dev_list[i]), want) == 0)
			return ctx->dev_list[i];
	fprintf(stderr, "IB device %s not found\n", want);
	return NULL;
}

static int
pp_init_ctx(struct pp_ctx *ctx)
{
	const struct pp_opts *o = ctx->o;
	struct dr_context_attr cattr = {
		.ipv4_addr = o->ipv4,
		.num_ipv6 = o->num_ipv6,
		.mtu = o->link_mtu,
		.configure_port = 1,
		.mode = DR_PROGRESS_INLINE,
	};
	struct dr_qp_init_attr init_attr;
	struct dr_qp_attr attr;
	struct dr_device *dev;
	int n = 0, ret;

	memcpy(cattr.ipv6_addr, o->ipv6, sizeof(cattr.ipv6_addr));
	ctx->size = o->size;
	ctx->send_flags = DR_SEND_SIGNALED;
	ctx->rx_depth = (int)o->rx_depth;
	ctx->grh = o->qp_type == DR_QPT_UD ? DR_GRH_LEN : 0;
	ctx->buf = aligned_alloc((size_t)page_size, RTE_ALIGN_CEIL(RTE_MAX(o->size + ctx->grh, 1u),
								  (size_t)page_size));
	if (ctx->buf == NULL) {
		fprintf(stderr, "Couldn't allocate work buf.\n");
		return 1;
	}
	memset(ctx->buf, 0x7b, o->size + ctx->grh);

	ctx->dev_list = dr_get_device_list(&n);
	if (ctx->dev_list == NULL) {
		perror("Failed to get IB devices list");
		return 1;
	}
	dev = find_device(ctx, n);
	if (dev == NULL)
		return 1;
	ctx->context = dr_open_device(dev, &cattr);
	if (ctx->context == NULL) {
		fprintf(stderr, "Couldn't get context for %s: %s\n", dr_get_device_name(dev),
			strerror(errno));
		return 1;
	}
	if (o->qp_type == DR_QPT_UD) {
		struct dr_port_attr port_info;
		uint32_t mtu;

		if (dr_query_port(ctx->context, (uint8_t)o->ib_port, &port_info) != 0) {
			fprintf(stderr, "Unable to query port info for port %d\n", o->ib_port);
			return 1;
		}
		mtu = dr_mtu_bytes(port_info.active_mtu);
		if (o->size > mtu) {
			fprintf(stderr, "Requested size larger than port MTU (%u)\n", mtu);
			return 1;
		}
	}
	ctx->pd = dr_alloc_pd(ctx->context);
	if (ctx->pd == NULL) {
		fprintf(stderr, "Couldn't allocate PD\n");
		return 1;
	}
	ctx->mr = dr_reg_mr(ctx->pd, ctx->buf, RTE_MAX(o->size + ctx->grh, 1u), DR_ACCESS_LOCAL_WRITE);
	if (ctx->mr == NULL) {
		fprintf(stderr, "Couldn't register MR: %s\n", strerror(errno));
		return 1;
	}
	if (o->use_event) {
		ctx->channel = dr_create_comp_channel(ctx->context);
		if (ctx->channel == NULL) {
			fprintf(stderr, "Couldn't create completion channel\n");
			return 1;
		}
	}
	ctx->cq = dr_create_cq(ctx->context, ctx->rx_depth + 1, NULL, ctx->channel, 0);
	if (ctx->cq == NULL) {
		fprintf(stderr, "Couldn't create CQ: %s\n", strerror(errno));
		return 1;
	}
	memset(&init_attr, 0, sizeof(init_attr));
	init_attr.send_cq = ctx->cq;
	init_attr.recv_cq = ctx->cq;
	init_attr.cap.max_send_wr = 1;
	init_attr.cap.max_recv_wr = (uint32_t)ctx->rx_depth;
	init_attr.cap.max_send_sge = 1;
	init_attr.cap.max_recv_sge = 1;
	init_attr.qp_type = o->qp_type;
	ctx->qp = dr_create_qp(ctx->pd, &init_attr);
	if (ctx->qp == NULL) {
		fprintf(stderr, "Couldn't create QP: %s\n", strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	if (dr_query_qp(ctx->qp, &attr, DR_QP_CAP, &init_attr) == 0 &&
	    init_attr.cap.max_inline_data >= o->size)
		ctx->send_flags |= DR_SEND_INLINE;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = DR_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = (uint8_t)o->ib_port;
	attr.qp_access_flags = 0;
	attr.qkey = PP_UD_QKEY;
	ret = dr_modify_qp(ctx->qp, &attr, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT |
			   (o->qp_type == DR_QPT_UD ? DR_QP_QKEY : DR_QP_ACCESS_FLAGS));
	if (ret != 0) {
		fprintf(stderr, "Failed to modify QP to INIT: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}

static int
pp_close_ctx(struct pp_ctx *ctx)
{
	int ret = 0;

	if (ctx->qp != NULL && dr_destroy_qp(ctx->qp) != 0) {
		fprintf(stderr, "Couldn't destroy QP\n");
		ret = 1;
	}
	if (ctx->cq != NULL && dr_destroy_cq(ctx->cq) != 0) {
		fprintf(stderr, "Couldn't destroy CQ\n");
		ret = 1;
	}
	if (ctx->ah != NULL && dr_destroy_ah(ctx->ah) != 0) {
		fprintf(stderr, "Couldn't destroy AH\n");
		ret = 1;
	}
	if (ctx->mr != NULL && dr_dereg_mr(ctx->mr) != 0) {
		fprintf(stderr, "Couldn't deregister MR\n");
		ret = 1;
	}
	if (ctx->pd != NULL && dr_dealloc_pd(ctx->pd) != 0) {
		fprintf(stderr, "Couldn't deallocate PD\n");
		ret = 1;
	}
	if (ctx->channel != NULL && dr_destroy_comp_channel(ctx->channel) != 0) {
		fprintf(stderr, "Couldn't destroy completion channel\n");
		ret = 1;
	}
	if (ctx->context != NULL && dr_close_device(ctx->context) != 0) {
		fprintf(stderr, "Couldn't release context\n");
		ret = 1;
	}
	if (ctx->dev_list != NULL)
		dr_free_device_list(ctx->dev_list);
	free(ctx->buf);
	memset(ctx, 0, sizeof(*ctx));
	return ret;
}

static int
pp_post_recv(struct pp_ctx *ctx, int n)
{
	struct dr_sge list = {
		.addr = (uintptr_t)ctx->buf,
		.length = ctx->size + ctx->grh,
		.lkey = ctx->mr->lkey,
	};
	struct dr_recv_wr wr = {
		.wr_id = PINGPONG_RECV_WRID,
		.sg_list = &list,
		.num_sge = 1,
	};
	struct dr_recv_wr *bad_wr;
	int i;

	for (i = 0; i < n; ++i)
		if (dr_post_recv(ctx->qp, &wr, &bad_wr) != 0)
			break;
	return i;
}

static int
pp_post_send(struct pp_ctx *ctx)
{
	struct dr_sge list = {
		.addr = (uintptr_t)ctx->buf + ctx->grh,
		.length = ctx->size,
		.lkey = ctx->mr->lkey,
	};
	struct dr_send_wr wr = {
		.wr_id = PINGPONG_SEND_WRID,
		.sg_list = &list,
		.num_sge = 1,
		.opcode = DR_WR_SEND,
		.send_flags = ctx->send_flags,
		.wr.ud = { .ah = ctx->ah, .remote_qpn = ctx->rem_qpn, .remote_qkey = PP_UD_QKEY },
	};
	struct dr_send_wr *bad_wr;

	return dr_post_send(ctx->qp, &wr, &bad_wr);
}

static int
parse_single_wc(struct pp_ctx *ctx, int *scnt, int *rcnt, int *routs, int iters,
		const struct dr_wc *wc)
{
	if (wc->status != DR_WC_SUCCESS) {
		fprintf(stderr, "Failed status %s (%d) for wr_id %d\n",
			dr_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
		return 1;
	}
	switch ((int)wc->wr_id) {
	case PINGPONG_SEND_WRID:
		++(*scnt);
		break;
	case PINGPONG_RECV_WRID:
		if (--(*routs) <= 1) {
			*routs += pp_post_recv(ctx, ctx->rx_depth - *routs);
			if (*routs < ctx->rx_depth) {
				fprintf(stderr, "Couldn't post receive (%d)\n", *routs);
				return 1;
			}
		}
		++(*rcnt);
		break;
	default:
		fprintf(stderr, "Completion for unknown wr_id %d\n", (int)wc->wr_id);
		return 1;
	}
	ctx->pending &= ~(int)wc->wr_id;
	if (*scnt < iters && !ctx->pending) {
		if (pp_post_send(ctx)) {
			fprintf(stderr, "Couldn't post send\n");
			return 1;
		}
		ctx->pending = PINGPONG_RECV_WRID | PINGPONG_SEND_WRID;
	}
	return 0;
}

/* Keep the transport going a little: the peer's last request may be retransmitted. */
static void
linger(struct pp_ctx *ctx)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * PP_LINGER_MS / 1000;

	while (!pp_stop && rte_get_timer_cycles() < end) {
		dr_progress(ctx->context);
		usleep(100);
	}
}

static int
run(struct pp_ctx *ctx, const struct pp_opts *o)
{
	struct pp_dest my_dest, rem_dest;
	struct dr_port_attr portinfo;
	struct timeval start, end;
	int iters = (int)o->iters;
	int routs, rcnt, scnt;
	unsigned int num_cq_events = 0;
	char gid[INET6_ADDRSTRLEN];

	if (pp_init_ctx(ctx))
		return 1;
	routs = pp_post_recv(ctx, ctx->rx_depth);
	if (routs < ctx->rx_depth) {
		fprintf(stderr, "Couldn't post receive (%d)\n", routs);
		return 1;
	}
	if (dr_query_port(ctx->context, (uint8_t)o->ib_port, &portinfo) != 0) {
		fprintf(stderr, "Couldn't get port info\n");
		return 1;
	}
	memset(&my_dest, 0, sizeof(my_dest));
	my_dest.lid = 0;   /* RoCE: no LID */
	if (dr_query_gid(ctx->context, (uint8_t)o->ib_port, o->gidx, &my_dest.gid) != 0) {
		fprintf(stderr, "can't read sgid of index %d\n", o->gidx);
		return 1;
	}
	if (my_dest.gid.global.interface_id == 0) {
		fprintf(stderr, "GID index %d is empty (1 is the IPv4 GID of --ip, 2 and 3 the "
			"addresses of --ipv6)\n", o->gidx);
		return 1;
	}
	my_dest.qpn = ctx->qp->qp_num;
	my_dest.psn = (unsigned int)(lrand48() & 0xffffff);
	ctx->my_psn = (int)my_dest.psn;
	inet_ntop(AF_INET6, &my_dest.gid, gid, sizeof(gid));
	/* ibv_ud_pingpong prints a colon before the GID */
	printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s\n",
	       my_dest.lid, my_dest.qpn, my_dest.psn, o->qp_type == DR_QPT_UD ? ":" : ",", gid);
	fflush(stdout);

	if (o->servername != NULL) {
		if (pp_client_exch(ctx->context, o, &my_dest, &rem_dest) != 0)
			return 1;
	} else if (pp_server_exch(ctx->context, o, &my_dest, &rem_dest, pp_connect_ctx, ctx) != 0) {
		return 1;
	}
	inet_ntop(AF_INET6, &rem_dest.gid, gid, sizeof(gid));
	printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n",
	       rem_dest.lid, rem_dest.qpn, rem_dest.psn, gid);
	fflush(stdout);

	if (o->servername != NULL && pp_connect_ctx(ctx, &rem_dest))
		return 1;

	if (o->use_event && (dr_req_notify_cq(ctx->cq, 0) != 0 ||
			     fcntl(ctx->channel->fd, F_SETFL, fcntl(ctx->channel->fd, F_GETFL) | O_NONBLOCK) != 0)) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return 1;
	}
	ctx->pending = PINGPONG_RECV_WRID;
	if (o->servername != NULL) {
		if (o->validate_buf)
			for (unsigned int i = 0; i < o->size; i += (unsigned int)page_size)
				ctx->buf[i] = (uint8_t)(i / page_size % sizeof(char));
		if (pp_post_send(ctx)) {
			fprintf(stderr, "Couldn't post send\n");
			return 1;
		}
		ctx->pending |= PINGPONG_SEND_WRID;
	}
	if (gettimeofday(&start, NULL)) {
		perror("gettimeofday");
		return 1;
	}
	rcnt = scnt = 0;
	while (rcnt < iters || scnt < iters) {
		struct dr_wc wc[2];
		int ne;

		if (o->use_event) {
			struct dr_cq *ev_cq;
			void *ev_ctx;
			int rc;

			/* non-blocking, so that a signal can end the wait; each try drives the transport */
			while ((rc = dr_get_cq_event(ctx->channel, &ev_cq, &ev_ctx)) == -EAGAIN && !pp_stop)
				;
			if (rc != 0) {
				fprintf(stderr, pp_stop ? "interrupted\n" : "Failed to get cq_event\n");
				return 1;
			}
			++num_cq_events;
			if (ev_cq != ctx->cq) {
				fprintf(stderr, "CQ event for unknown CQ %p\n", (void *)ev_cq);
				return 1;
			}
			if (dr_req_notify_cq(ctx->cq, 0) != 0) {
				fprintf(stderr, "Couldn't request CQ notification\n");
				return 1;
			}
		}
		do {
			ne = dr_poll_cq(ctx->cq, 2, wc);
			if (ne < 0) {
				fprintf(stderr, "poll CQ failed %d\n", ne);
				return 1;
			}
			if (pp_stop) {
				fprintf(stderr, "interrupted after %d sends, %d receives\n", scnt, rcnt);
				return 1;
			}
		} while (!o->use_event && ne < 1);
		for (int i = 0; i < ne; ++i)
			if (parse_single_wc(ctx, &scnt, &rcnt, &routs, iters, &wc[i])) {
				fprintf(stderr, "parse WC failed %d\n", ne);
				return 1;
			}
	}
	if (gettimeofday(&end, NULL)) {
		perror("gettimeofday");
		return 1;
	}
	{
		float usec = (end.tv_sec - start.tv_sec) * 1000000 + (end.tv_usec - start.tv_usec);
		long long bytes = (long long)o->size * iters * 2;

		printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n",
		       bytes, usec / 1000000., bytes * 8. / usec);
		printf("%d iters in %.2f seconds = %.2f usec/iter\n",
		       iters, usec / 1000000., usec / iters);
		if (o->servername == NULL && o->validate_buf)
			for (unsigned int i = 0; i < o->size; i += (unsigned int)page_size)
				if (ctx->buf[i] != i / page_size % sizeof(char))
					printf("invalid data in page %ld\n", i / page_size);
		fflush(stdout);
	}
	if (o->use_event)
		dr_ack_cq_events(ctx->cq, num_cq_events);
	linger(ctx);
	return 0;
}

int
main(int argc, char **argv)
{
	struct pp_opts o;
	struct pp_ctx ctx;
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = pp_parse_args(own_argc, own_argv, &o);
	if (ret != 0)
		return ret < 0 ? 1 : 0;

	srand48(getpid() * time(NULL));
	page_size = sysconf(_SC_PAGESIZE);
	dr_app_stop_on_signals(&pp_stop, false);

	ret = dr_eal_init(eal_argc != 0 ? eal_argc : 1, argv);
	if (ret < 0) {
		fprintf(stderr, PP_PROG ": EAL: %s (EAL arguments before \"--\")\n", strerror(-ret));
		return 1;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.o = &o;
	ret = run(&ctx, &o);
	if (pp_close_ctx(&ctx))
		ret = 1;
	rte_eal_cleanup();
	if (fflush(stdout) != 0 || ferror(stdout))
		ret = 1;
	return ret;
}
