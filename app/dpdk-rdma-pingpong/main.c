/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-pingpong [EAL args --] --ip A.B.C.D [--qp-type rc|uc|ud|srq] [options] [host]
 *
 * ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong
 * (rdma-core v44, polling) on the dr_ API: the same resources and QP
 * attributes (ctx.c, connect.c), the same TCP exchange (exch.c), the same
 * SEND/RECV loop (-e: a completion channel, re-armed after each event, the
 * events acknowledged at the end) and the same output. One loop serves the
 * four: ibv_srq_pingpong's, over num_qp QPs (1 but for srq), each with its
 * own pending WRs, completions found by QP number, receives reposted (to the
 * SRQ or the QP) when no more than num_qp remain; -n counts the SENDs and
 * RECVs of all QPs together, as the source does. -c as v44's four: the
 * client zeroes the first byte of every page of its message (UD: past the
 * 40-byte GRH area, where its SENDs start and its receives put the
 * payload) before its first SEND, the server checks them after the run
 * ("invalid data in page N"). --mode rtc or
 * pipeline: worker lcores drive the transport, our loop polls the CQ
 * (yielding per --idle), -e sleeps on the channel's fd, and the workers stop
 * once the run is over, before anything is destroyed.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
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
#define PP_EVENT_WAIT_MS 100   /* rtc, pipeline, -e: pp_stop is looked at this often */
#define PP_SQ_FULL_MS 100      /* rtc, pipeline: how long a send queue may look full after its completion */

volatile sig_atomic_t pp_stop;
long pp_page_size;

/* @n receives, to the SRQ (srq) or the QP */
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
		if ((ctx->srq != NULL ? dr_post_srq_recv(ctx->srq, &wr, &bad_wr) :
					dr_post_recv(ctx->qp[0], &wr, &bad_wr)) != 0)
			break;
	return i;
}

static int
pp_post_send(struct pp_ctx *ctx, unsigned int qp_index)
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
	uint64_t end = 0;
	int ret;

	/*
	 * rtc, pipeline: a worker shows a send completion (and signals its
	 * event) a moment before it frees the WR's slot of the send queue
	 * (dr_comp_progress() pushes the CQE, then moves the tail), so the next
	 * SEND, posted as soon as the completion is polled, may find the queue
	 * (of one WR) still full: ENOMEM for a moment, not for good.
	 */
	while ((ret = dr_post_send(ctx->qp[qp_index], &wr, &bad_wr)) == ENOMEM &&
	       dr_app_engine_workers(&ctx->o->engine) && !pp_stop) {
		uint64_t now = rte_get_timer_cycles();

		if (end == 0)
			end = now + rte_get_timer_hz() * PP_SQ_FULL_MS / 1000;
		else if (now > end)
			break;
		dr_app_engine_idle(&ctx->o->engine);
	}
	return ret;
}

static int
find_qp(const struct pp_ctx *ctx, uint32_t qpn)
{
	for (unsigned int i = 0; i < ctx->num_qp; ++i)
		if (ctx->qp[i]->qp_num == qpn)
			return (int)i;
	return -1;
}

static int
parse_single_wc(struct pp_ctx *ctx, int *scnt, int *rcnt, int *routs, int iters,
		const struct dr_wc *wc)
{
	int qp_ind;

	if (wc->status != DR_WC_SUCCESS) {
		fprintf(stderr, "Failed status %s (%d) for wr_id %d\n",
			dr_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
		return 1;
	}
	qp_ind = find_qp(ctx, wc->qp_num);
	if (qp_ind < 0) {
		fprintf(stderr, "Couldn't find QPN %06x\n", wc->qp_num);
		return 1;
	}
	switch ((int)wc->wr_id) {
	case PINGPONG_SEND_WRID:
		++(*scnt);
		break;
	case PINGPONG_RECV_WRID:
		/* ibv_rc_pingpong reposts at 1, ibv_srq_pingpong at num_qp */
		if (--(*routs) <= (int)ctx->num_qp) {
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
	ctx->pending[qp_ind] &= ~(int)wc->wr_id;
	if (*scnt < iters && !ctx->pending[qp_ind]) {
		if (pp_post_send(ctx, (unsigned int)qp_ind)) {
			fprintf(stderr, "Couldn't post send\n");
			return 1;
		}
		ctx->pending[qp_ind] = PINGPONG_RECV_WRID | PINGPONG_SEND_WRID;
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

static void
print_dest(const char *what, const struct pp_dest *d, const char *sep)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, &d->gid, gid, sizeof(gid));
	printf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s\n", what, d->lid, d->qpn, d->psn,
	       sep, gid);
}

/*
 * Our addresses (one per QP, each its own PSN), the TCP exchange (1 address
 * each way; PP_MAX_QP for srq, the unused ones zero), the peer's, connected.
 */
static int
exchange(struct pp_ctx *ctx, const struct pp_opts *o, struct pp_dest *my_dest,
	 struct pp_dest *rem_dest)
{
	unsigned int n = o->use_srq ? PP_MAX_QP : 1;
	struct dr_port_attr portinfo;
	union dr_gid gid;

	if (dr_query_port(ctx->context, (uint8_t)o->ib_port, &portinfo) != 0) {
		fprintf(stderr, "Couldn't get port info\n");
		return 1;
	}
	if (dr_query_gid(ctx->context, (uint8_t)o->ib_port, o->gidx, &gid) != 0) {
		fprintf(stderr, "can't read sgid of index %d\n", o->gidx);
		return 1;
	}
	if (gid.global.interface_id == 0) {
		fprintf(stderr, "GID index %d is empty (1 is the IPv4 GID of --ip, 2 and 3 the "
			"addresses of --ipv6)\n", o->gidx);
		return 1;
	}
	memset(my_dest, 0, sizeof(*my_dest) * n);
	for (unsigned int i = 0; i < ctx->num_qp; i++) {
		my_dest[i].lid = 0;   /* RoCE: no LID */
		my_dest[i].gid = gid;
		my_dest[i].qpn = ctx->qp[i]->qp_num;
		my_dest[i].psn = (unsigned int)(lrand48() & 0xffffff);
		ctx->my_psn[i] = my_dest[i].psn;
		/* ibv_ud_pingpong prints a colon before the GID */
		print_dest("local address: ", &my_dest[i], o->qp_type == DR_QPT_UD ? ":" : ",");
	}
	fflush(stdout);

	if (o->servername != NULL) {
		if (pp_client_exch(ctx->context, o, my_dest, rem_dest, n) != 0)
			return 1;
	} else if (pp_server_exch(ctx->context, o, my_dest, rem_dest, n, pp_connect_ctx, ctx) != 0) {
		return 1;
	}
	for (unsigned int i = 0; i < ctx->num_qp; i++)
		print_dest("remote address:", &rem_dest[i], ",");
	fflush(stdout);

	if (o->servername != NULL && pp_connect_ctx(ctx, rem_dest))
		return 1;
	return 0;
}

/* -e: wait for the CQ's next event, re-arm it; 0 or 1 */
static int
wait_cq_event(struct pp_ctx *ctx, unsigned int *num_cq_events)
{
	struct dr_cq *ev_cq;
	void *ev_ctx;
	int rc;

	/*
	 * non-blocking, so that a signal can end the wait; inline, each try
	 * drives the transport; rtc, pipeline: the workers signal the channel's
	 * fd, we sleep on it meanwhile
	 */
	while ((rc = dr_get_cq_event(ctx->channel, &ev_cq, &ev_ctx)) == -EAGAIN && !pp_stop) {
		if (dr_app_engine_workers(&ctx->o->engine)) {
			struct pollfd pfd = { .fd = ctx->channel->fd, .events = POLLIN };

			(void)poll(&pfd, 1, PP_EVENT_WAIT_MS);
		}
	}
	if (rc != 0) {
		fprintf(stderr, pp_stop ? "interrupted\n" : "Failed to get cq_event\n");
		return 1;
	}
	++*num_cq_events;
	if (ev_cq != ctx->cq) {
		fprintf(stderr, "CQ event for unknown CQ %p\n", (void *)ev_cq);
		return 1;
	}
	if (dr_req_notify_cq(ctx->cq, 0) != 0) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return 1;
	}
	return 0;
}

/* the SEND/RECV loop until -n SENDs and -n RECVs have completed (all QPs together) */
static int
pingpong(struct pp_ctx *ctx, const struct pp_opts *o, int *routs, struct dr_wc *wc, int num_wc,
	 unsigned int *num_cq_events)
{
	int iters = (int)o->iters;
	int rcnt = 0, scnt = 0;

	while (rcnt < iters || scnt < iters) {
		int ne;

		if (o->use_event && wait_cq_event(ctx, num_cq_events) != 0)
			return 1;
		do {
			ne = dr_poll_cq(ctx->cq, num_wc, wc);
			if (ne < 0) {
				fprintf(stderr, "poll CQ failed %d\n", ne);
				return 1;
			}
			if (pp_stop) {
				fprintf(stderr, "interrupted after %d sends, %d receives\n", scnt, rcnt);
				return 1;
			}
			if (ne == 0)
				dr_app_engine_idle(&o->engine);   /* rtc, pipeline: the workers may share our CPU */
		} while (!o->use_event && ne < 1);
		for (int i = 0; i < ne; ++i)
			if (parse_single_wc(ctx, &scnt, &rcnt, routs, iters, &wc[i])) {
				fprintf(stderr, "parse WC failed %d\n", ne);
				return 1;
			}
	}
	return 0;
}

static int
run(struct pp_ctx *ctx, const struct pp_opts *o, struct pp_dest *my_dest, struct pp_dest *rem_dest)
{
	struct timeval start, end;
	int iters = (int)o->iters;
	unsigned int num_cq_events = 0;
	/* ibv_rc_pingpong polls 2 completions at a time, ibv_srq_pingpong num_qp + rx_depth */
	int num_wc = o->use_srq ? (int)o->num_qp + (int)o->rx_depth : 2;
	struct dr_wc *wc;
	int routs, ret;

	if (pp_init_ctx(ctx))
		return 1;
	routs = pp_post_recv(ctx, ctx->rx_depth);
	if (routs < ctx->rx_depth) {
		fprintf(stderr, "Couldn't post receive (%d)\n", routs);
		return 1;
	}
	if (exchange(ctx, o, my_dest, rem_dest) != 0)
		return 1;
	if (o->use_event && (dr_req_notify_cq(ctx->cq, 0) != 0 ||
			     fcntl(ctx->channel->fd, F_SETFL, fcntl(ctx->channel->fd, F_GETFL) | O_NONBLOCK) != 0)) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return 1;
	}
	/* -c: the first byte of every page of the message the client sends (past UD's GRH area) */
	if (o->servername != NULL && o->validate_buf)
		for (unsigned int i = 0; i < o->size; i += (unsigned int)pp_page_size)
			ctx->buf[ctx->grh + i] = (uint8_t)(i / pp_page_size % sizeof(char));
	for (unsigned int i = 0; i < ctx->num_qp; i++) {
		ctx->pending[i] = PINGPONG_RECV_WRID;
		if (o->servername == NULL)
			continue;
		if (pp_post_send(ctx, i)) {
			fprintf(stderr, "Couldn't post send\n");
			return 1;
		}
		ctx->pending[i] |= PINGPONG_SEND_WRID;
	}
	wc = calloc((size_t)num_wc, sizeof(*wc));
	if (wc == NULL) {
		fprintf(stderr, "Couldn't allocate %d work completions\n", num_wc);
		return 1;
	}
	if (gettimeofday(&start, NULL)) {
		perror("gettimeofday");
		free(wc);
		return 1;
	}
	ret = pingpong(ctx, o, &routs, wc, num_wc, &num_cq_events);
	free(wc);
	if (ret != 0)
		return 1;
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
			for (unsigned int i = 0; i < o->size; i += (unsigned int)pp_page_size)
				if (ctx->buf[ctx->grh + i] != i / pp_page_size % sizeof(char))
					printf("invalid data in page %ld\n", i / pp_page_size);
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
	static struct pp_dest my_dest[PP_MAX_QP], rem_dest[PP_MAX_QP];
	static struct pp_ctx ctx;
	struct pp_opts o;
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = pp_parse_args(own_argc, own_argv, &o);
	if (ret != 0)
		return ret < 0 ? 1 : 0;

	srand48(getpid() * time(NULL));
	pp_page_size = sysconf(_SC_PAGESIZE);
	dr_app_stop_on_signals(&pp_stop, false);

	ret = dr_eal_init(eal_argc != 0 ? eal_argc : 1, argv);
	if (ret < 0) {
		fprintf(stderr, PP_PROG ": EAL: %s (EAL arguments before \"--\")\n", strerror(-ret));
		return 1;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.o = &o;
	ret = run(&ctx, &o, my_dest, rem_dest);
	/* the session is over: nothing polls the port any more (rtc, pipeline: the workers stop) */
	if (ctx.context != NULL)
		(void)dr_stop_workers(ctx.context);
	if (pp_close_ctx(&ctx))
		ret = 1;
	rte_eal_cleanup();
	if (fflush(stdout) != 0 || ferror(stdout))
		ret = 1;
	return ret;
}
