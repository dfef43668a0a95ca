/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dr-opgen: one of every RoCEv2 request a verbs application can make, between
 * two endpoints, each checked end to end. It is built when the rxe peer image
 * is made (usertools/rxepeer, against the Debian libibverbs headers) and runs
 * in the peer VMs, where its captures show the frames the ibv_*_pingpong and
 * perftest tools never send: SEND/WRITE with immediate data, zero-length
 * SEND/WRITE/READ, payloads needing 1, 2 and 3 pad bytes, multi-packet
 * messages and READ responses, both atomics, and, RC, an RDMA WRITE through a
 * type 2 memory window the server binds and a SEND_WITH_INV that invalidates
 * it. The operation table, the
 * memory layout and the exchange are in dr-opgen-ops.h, shared with
 * app/dpdk-rdma-opgen, the same program on dpdk-rdma's dr_ API.
 *
 *   server: dr-opgen [options]
 *   client: dr-opgen [options] SERVER
 *   list:   dr-opgen -L [-t rc|uc|ud]      print the operation table
 *   faults: dr-opgen -E NAME [options] [SERVER]   one bad request (-E list)
 * Options:
 *   -t rc|uc|ud   QP type (rc; xrc is refused: rxe has no XRC)
 *   -E NAME       instead of the table, the fault NAME of dr-opgen-ops.h's
 *                 opgen_faults (its QP type; -E list prints them)
 *   -d DEV        device (rxe0)
 *   -g IDX        GID index ($RXE_GID_IDX, else 1)
 *   -p PORT       TCP port of the exchange (18600)
 *   -m MTU        path MTU of RC/UC QPs: 256..4096 (1024)
 *   -s PSN        first PSN this side sends (client 0x100, server 0x200)
 *   -T SECS       give up after SECS seconds (60)
 *   -l            lossy (UC, UD): the server takes what arrives and judges
 *                 each message by itself, the losses counted (dr-opgen-ops.h)
 *
 * The exchange: the client connects (retrying until the server listens),
 * both send struct wire_info (network byte order), move their QP to RTS,
 * the RC server binds its type 2 window (IBV_WR_BIND_MW, REMOTE_WRITE, the
 * R_Key it sent: ibv_inc_rkey() of the window's) and waits for the bind,
 * and both swap a go byte. The client then posts the table's operations one at a
 * time, each signaled, and checks every completion (READ data and atomic
 * original values included). The server checks each receive completion
 * (opcode, length, immediate data or invalidated R_Key, payload) in order;
 * once the client says
 * it is done it checks the WRITE targets and the atomic word and sends its
 * verdict. Exit status: 0 when both sides saw everything right, 1 on a
 * failed check, 2 on a setup error, 3 on timeout. A fault run (-E) follows
 * the same exchange; what each side checks is in dr-opgen-ops.h.
 */

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dr-opgen-ops.h"

/* the table's opcode numbers are libibverbs' */
_Static_assert(OPGEN_WR_RDMA_WRITE == (int)IBV_WR_RDMA_WRITE &&
	       OPGEN_WR_RDMA_WRITE_WITH_IMM == (int)IBV_WR_RDMA_WRITE_WITH_IMM &&
	       OPGEN_WR_SEND == (int)IBV_WR_SEND && OPGEN_WR_SEND_WITH_IMM == (int)IBV_WR_SEND_WITH_IMM &&
	       OPGEN_WR_RDMA_READ == (int)IBV_WR_RDMA_READ &&
	       OPGEN_WR_ATOMIC_CMP_AND_SWP == (int)IBV_WR_ATOMIC_CMP_AND_SWP &&
	       OPGEN_WR_ATOMIC_FETCH_AND_ADD == (int)IBV_WR_ATOMIC_FETCH_AND_ADD &&
	       OPGEN_WR_BIND_MW == (int)IBV_WR_BIND_MW &&
	       OPGEN_WR_SEND_WITH_INV == (int)IBV_WR_SEND_WITH_INV,
	       "enum opgen_wr is enum ibv_wr_opcode");
_Static_assert(OPGEN_WC_SUCCESS == (int)IBV_WC_SUCCESS && OPGEN_WC_LOC_LEN_ERR == (int)IBV_WC_LOC_LEN_ERR &&
	       OPGEN_WC_LOC_QP_OP_ERR == (int)IBV_WC_LOC_QP_OP_ERR && OPGEN_WC_REM_OP_ERR == (int)IBV_WC_REM_OP_ERR &&
	       OPGEN_WC_LOC_PROT_ERR == (int)IBV_WC_LOC_PROT_ERR &&
	       OPGEN_WC_WR_FLUSH_ERR == (int)IBV_WC_WR_FLUSH_ERR &&
	       OPGEN_WC_REM_INV_REQ_ERR == (int)IBV_WC_REM_INV_REQ_ERR &&
	       OPGEN_WC_REM_ACCESS_ERR == (int)IBV_WC_REM_ACCESS_ERR &&
	       OPGEN_WC_RNR_RETRY_EXC_ERR == (int)IBV_WC_RNR_RETRY_EXC_ERR,
	       "enum opgen_wc_status is enum ibv_wc_status");

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_comp_channel *chan;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static struct ibv_mw *mw;		/* server, RC: the type 2 window */
static uint32_t mw_off;			/* its place in buf */
static struct ibv_ah *ah;
static uint8_t *buf;
static unsigned int qpt = T_RC;
static int gidx = -1, timeout_s = OPGEN_TIMEOUT_S;
static enum ibv_mtu path_mtu = IBV_MTU_1024;
static struct wire_info me, peer;	/* host byte order */
static unsigned int fails;
static const struct opgen_fault *fault;	/* -E */
static struct opgen_fault_outcome want;	/* what the fault run must end with */
static enum opgen_stack my_stack = OPGEN_STACK_DR;	/* OPGEN_STACK_RXE on an rxe device */
static uint32_t recv_len = AREA;	/* the server's receive buffers */
static int lossy;			/* -l */

/*
 * rxe writes the kernel's enum ib_wc_flags into the user CQ as they are
 * (rxe_resp.c do_complete(), Linux 6.1; rdma-core 44's provider copies the
 * CQE): IB_WC_WITH_INVALIDATE is 1 << 2 there, which libibverbs reads as
 * IBV_WC_IP_CSUM_OK; IBV_WC_WITH_INV is 1 << 3. On rxe either bit says "with
 * invalidate"; the server prints which one it saw.
 */
#define RXE_WC_WITH_INV (1u << 2)
static unsigned int with_inv = IBV_WC_WITH_INV;	/* | RXE_WC_WITH_INV on rxe */

static void
die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dr-opgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

static void
on_alarm(int sig)
{
	static const char msg[] = "dr-opgen: timed out\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

/* one completion within ms milliseconds: 1, or 0 on timeout */
static int
wait_wc(struct ibv_wc *wc, int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			die(2, "ibv_poll_cq failed");
		if (n > 0)
			return 1;
		if (ibv_req_notify_cq(cq, 0))
			die(2, "ibv_req_notify_cq failed");
		n = ibv_poll_cq(cq, 1, wc);
		if (n > 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		int left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return 0;
		struct pollfd p = { .fd = chan->fd, .events = POLLIN };
		if (poll(&p, 1, left) > 0) {
			struct ibv_cq *ecq;
			void *ectx;

			if (ibv_get_cq_event(chan, &ecq, &ectx))
				die(2, "ibv_get_cq_event failed");
			ibv_ack_cq_events(ecq, 1);
		}
	}
}

/* ---------------------------------------------------------------- TCP */

static int
tcp_server(int port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				  .sin6_addr = IN6ADDR_ANY_INIT };
	int one = 1, zero = 0;
	int fd = socket(AF_INET6, SOCK_STREAM, 0);

	if (fd < 0)
		die(2, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1))
		die(2, "bind/listen on port %d: %s", port, strerror(errno));
	printf("server listening on tcp port %d\n", port);
	fflush(stdout);
	int c = accept(fd, NULL, NULL);
	if (c < 0)
		die(2, "accept: %s", strerror(errno));
	close(fd);
	return c;
}

static int
tcp_client(const char *host, int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *r;
	char service[16];

	snprintf(service, sizeof(service), "%d", port);
	int err = getaddrinfo(host, service, &hints, &res);
	if (err)
		die(2, "%s: %s", host, gai_strerror(err));
	/* the server may still be starting: retry until the deadline (alarm) */
	for (;;) {
		for (r = res; r; r = r->ai_next) {
			int fd = socket(r->ai_family, r->ai_socktype, r->ai_protocol);

			if (fd >= 0 && connect(fd, r->ai_addr, r->ai_addrlen) == 0) {
				freeaddrinfo(res);
				return fd;
			}
			if (fd >= 0)
				close(fd);
		}
		usleep(100000);
	}
}

static void
put(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w <= 0)
			die(2, "tcp write: %s", w ? strerror(errno) : "closed");
		c += w;
		n -= (size_t)w;
	}
}

static void
get(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t r = read(fd, c, n);

		if (r <= 0)
			die(2, "tcp read: %s", r ? strerror(errno) : "peer closed");
		c += r;
		n -= (size_t)r;
	}
}

static void
exchange(int fd)
{
	struct wire_info w = {
		.qpn = htonl(me.qpn), .psn = htonl(me.psn), .rkey = htonl(me.rkey),
		.mtu = htonl(me.mtu), .addr = htobe64(me.addr), .mw_rkey = htonl(me.mw_rkey),
		.srqn = htonl(me.srqn),
	};

	memcpy(w.gid, me.gid, 16);
	put(fd, &w, sizeof(w));
	get(fd, &w, sizeof(w));
	peer.qpn = ntohl(w.qpn);
	peer.psn = ntohl(w.psn);
	peer.rkey = ntohl(w.rkey);
	peer.mtu = ntohl(w.mtu);
	peer.addr = be64toh(w.addr);
	memcpy(peer.gid, w.gid, 16);
	peer.mw_rkey = ntohl(w.mw_rkey);
	peer.srqn = ntohl(w.srqn);
}

/* ---------------------------------------------------------------- verbs */

static void
post_recv(unsigned int slot)
{
	struct ibv_sge s = { .addr = (uintptr_t)buf + RECV_OFF + slot * AREA, .length = recv_len,
			     .lkey = mr->lkey };
	struct ibv_recv_wr w = { .wr_id = slot, .sg_list = &s, .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &w, &bad))
		die(2, "ibv_post_recv failed");
}

static void
setup(const char *dev, int server)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die(2, "no RDMA device %s", dev);
	if (!strncmp(dev, "rxe", 3)) {
		with_inv |= RXE_WC_WITH_INV;
		my_stack = OPGEN_STACK_RXE;
	}
	ibv_free_device_list(list);
	pd = ibv_alloc_pd(ctx);
	chan = ibv_create_comp_channel(ctx);
	if (!pd || !chan)
		die(2, "ibv_alloc_pd/ibv_create_comp_channel failed");
	cq = ibv_create_cq(ctx, 256, NULL, chan, 0);
	if (!cq)
		die(2, "ibv_create_cq failed");
	if (posix_memalign((void **)&buf, 4096, BUF_SZ))
		die(2, "out of memory");
	memset(buf, 0, BUF_SZ);
	for (unsigned int i = 0; i < NOPS; i++)
		for (uint32_t k = 0; k < AREA; k++)
			buf[READ_OFF + i * AREA + k] = opgen_pat(k, 100 + i);
	*(uint64_t *)(buf + ATOMIC_OFF) = ATOMIC_INIT;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND;
	if (server && fault && fault->how == F_MR_NO_READ)
		access &= ~IBV_ACCESS_REMOTE_READ;
	mr = ibv_reg_mr(pd, buf, BUF_SZ, access);
	if (!mr)
		die(2, "ibv_reg_mr: %s", strerror(errno));
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq,
		.qp_type = qpt == T_RC ? IBV_QPT_RC : qpt == T_UC ? IBV_QPT_UC : IBV_QPT_UD,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	qp = ibv_create_qp(pd, &qa);
	if (!qp)
		die(2, "ibv_create_qp: %s", strerror(errno));
	union ibv_gid g;
	if (ibv_query_gid(ctx, 1, gidx, &g))
		die(2, "ibv_query_gid %d failed", gidx);
	me.qpn = qp->qp_num;
	me.rkey = mr->rkey;
	me.addr = (uintptr_t)buf;
	me.mtu = 128u << path_mtu;
	memcpy(me.gid, g.raw, 16);
	if (server && opgen_window(qpt, &mw_off)) {
		mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
		if (!mw)
			die(2, "ibv_alloc_mw(type 2): %s", strerror(errno));
		me.mw_rkey = ibv_inc_rkey(mw->rkey);	/* the key the bind gives it */
	}
}

/* server: bind the type 2 window with the key sent in the exchange, and wait for it */
static void
bind_window(void)
{
	struct ibv_send_wr w = { .wr_id = NOPS_MAX, .opcode = IBV_WR_BIND_MW,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	w.bind_mw.mw = mw;
	w.bind_mw.rkey = me.mw_rkey;
	w.bind_mw.bind_info.mr = mr;
	w.bind_mw.bind_info.addr = (uintptr_t)buf + mw_off;
	w.bind_mw.bind_info.length = AREA;
	w.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (ibv_post_send(qp, &w, &bad))
		die(2, "ibv_post_send(BIND_MW): %s", strerror(errno));
	if (!wait_wc(&wc, OPGEN_WC_TIMEOUT_MS))
		die(2, "no completion of BIND_MW");
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_BIND_MW || wc.wr_id != NOPS_MAX)
		die(2, "BIND_MW completed: status=%s opcode=%d", ibv_wc_status_str(wc.status), (int)wc.opcode);
	printf("server window rkey=0x%08x bound over [0x%x, 0x%x) REMOTE_WRITE\n", me.mw_rkey, mw_off,
	       mw_off + AREA);
}

static void
connect_qp(int server)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1 };
	int m = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (qpt == T_UD) {
		a.qkey = QKEY;
		m |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		if (qpt == T_RC)
			a.qp_access_flags |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		if (server && fault && fault->how == F_QP_NO_ATOMIC)
			a.qp_access_flags &= ~IBV_ACCESS_REMOTE_ATOMIC;
		m |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(qp, &a, m))
		die(2, "modify to INIT: %s", strerror(errno));
	if (server && fault && fault->how == F_TOO_LONG)
		recv_len = SHORT_RECV;
	for (unsigned int i = 0; i < NOPS_MAX && !(server && fault && fault->how == F_NO_RECV); i++)
		post_recv(i);

	struct ibv_ah_attr av = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = (uint8_t)gidx, .hop_limit = 64 },
	};
	memcpy(av.grh.dgid.raw, peer.gid, 16);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	m = IBV_QP_STATE;
	if (qpt != T_UD) {
		a.path_mtu = path_mtu;
		a.dest_qp_num = peer.qpn;
		a.rq_psn = peer.psn;
		a.ah_attr = av;
		m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (qpt == T_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = OPGEN_MIN_RNR_TIMER;
			m |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	if (ibv_modify_qp(qp, &a, m))
		die(2, "modify to RTR: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = me.psn;
	m = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qpt == T_RC) {
		a.timeout = 17;	/* 4.096 us << 17 = 0.5 s: TCG guests are slow to ACK */
		a.retry_cnt = 7;
		a.rnr_retry = fault && fault->how == F_NO_RECV ? 0 : 7;
		a.max_rd_atomic = 4;
		m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (ibv_modify_qp(qp, &a, m))
		die(2, "modify to RTS: %s", strerror(errno));
	if (qpt == T_UD) {
		ah = ibv_create_ah(pd, &av);
		if (!ah)
			die(2, "ibv_create_ah: %s", strerror(errno));
	}
}

/* ---------------------------------------------------------------- client */

static void
client_op(unsigned int i)
{
	const struct opgen_op *o = &opgen_ops[i];
	uint8_t *src = buf + SRC_OFF + i * AREA;
	struct ibv_sge s = { .addr = (uintptr_t)src, .length = o->len, .lkey = mr->lkey };
	struct ibv_send_wr w = { .wr_id = i, .sg_list = &s, .num_sge = o->len ? 1 : 0,
				 .opcode = (enum ibv_wr_opcode)o->wr, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	if (o->wr == OPGEN_WR_RDMA_READ || opgen_is_atomic(o))
		memset(src, 0, o->len);
	else
		for (uint32_t k = 0; k < o->len; k++)
			src[k] = opgen_pat(k, i);
	uint32_t rkey = o->key == K_MW ? peer.mw_rkey : peer.rkey;

	if (opgen_has_imm(o))
		w.imm_data = htonl(IMM(i));
	if (o->wr == OPGEN_WR_SEND_WITH_INV)
		w.invalidate_rkey = rkey;
	if (opgen_is_write(o)) {
		w.wr.rdma.remote_addr = peer.addr + WRITE_OFF + i * AREA;
		w.wr.rdma.rkey = rkey;
	} else if (o->wr == OPGEN_WR_RDMA_READ) {
		w.wr.rdma.remote_addr = peer.addr + READ_OFF + i * AREA;
		w.wr.rdma.rkey = peer.rkey;
	} else if (opgen_is_atomic(o)) {
		w.wr.atomic.remote_addr = peer.addr + ATOMIC_OFF;
		w.wr.atomic.rkey = peer.rkey;
		w.wr.atomic.compare_add = o->compare_add;
		w.wr.atomic.swap = o->swap;
	}
	if (qpt == T_UD) {
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = peer.qpn;
		w.wr.ud.remote_qkey = QKEY;
	}
	printf("client op %2u %-20s len=%-5u", i, opgen_wr_name(o->wr), o->len);
	if (opgen_has_imm(o))
		printf(" imm=0x%08x", IMM(i));
	if (o->key == K_MW)
		printf(" window=0x%08x", rkey);
	if (ibv_post_send(qp, &w, &bad)) {
		printf(" post_send=%s FAIL\n", strerror(errno));
		fails++;
		return;
	}
	if (!wait_wc(&wc, OPGEN_WC_TIMEOUT_MS)) {
		printf(" completion TIMEOUT FAIL\n");
		fails++;
		return;
	}
	int ok = wc.status == IBV_WC_SUCCESS && wc.wr_id == i;
	printf(" status=%s", ibv_wc_status_str(wc.status));
	if (ok && o->wr == OPGEN_WR_RDMA_READ) {
		uint32_t bad_bytes = 0;

		for (uint32_t k = 0; k < o->len; k++)
			bad_bytes += src[k] != opgen_pat(k, 100 + i);
		printf(" read_data=%s", bad_bytes ? "BAD" : "ok");
		ok = !bad_bytes;
	}
	if (ok && opgen_is_atomic(o)) {
		uint64_t orig = *(uint64_t *)src;

		printf(" orig=0x%llx", (unsigned long long)orig);
		ok = orig == o->orig;
	}
	printf(" %s  # %s\n", ok ? "ok" : "FAIL", o->why);
	fails += !ok;
}

static int
run_client(int fd)
{
	uint32_t verdict, n = 0;

	for (unsigned int i = 0; i < NOPS; i++)
		if (opgen_applies(&opgen_ops[i], qpt)) {
			client_op(i);
			n++;
		}
	fflush(stdout);
	uint32_t msg = htonl(fails);
	put(fd, &msg, sizeof(msg));
	get(fd, &verdict, sizeof(verdict));
	verdict = ntohl(verdict);
	printf("client done: %u ops, %u local failures, server %s\n", n, fails,
	       verdict ? "FAIL" : "OK");
	return fails || verdict ? 1 : 0;
}

/* ---------------------------------------------------------------- server */

static void
server_recv(unsigned int i)
{
	const struct opgen_op *o = &opgen_ops[i];
	struct ibv_wc wc;
	uint32_t hdr = qpt == T_UD ? GRH_LEN : 0;

	if (!wait_wc(&wc, OPGEN_WC_TIMEOUT_MS)) {
		printf("server op %2u %-20s missing receive completion FAIL\n", i, opgen_wr_name(o->wr));
		fails++;
		return;
	}
	int want_op = o->wr == OPGEN_WR_RDMA_WRITE_WITH_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	int inv = o->wr == OPGEN_WR_SEND_WITH_INV;
	int ok = wc.status == IBV_WC_SUCCESS && (int)wc.opcode == want_op && wc.qp_num == me.qpn &&
		 wc.byte_len == o->len + (o->wr == OPGEN_WR_RDMA_WRITE_WITH_IMM ? 0 : hdr) &&
		 !!(wc.wc_flags & IBV_WC_WITH_IMM) == !!opgen_has_imm(o) &&
		 (!opgen_has_imm(o) || ntohl(wc.imm_data) == IMM(i)) &&
		 !!(wc.wc_flags & with_inv) == inv && (!inv || wc.invalidated_rkey == me.mw_rkey);
	printf("server op %2u %-20s status=%s opcode=%s byte_len=%u", i, opgen_wr_name(o->wr),
	       ibv_wc_status_str(wc.status), wc.opcode == IBV_WC_RECV ? "RECV" :
	       wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM ? "RECV_RDMA_WITH_IMM" : "?", wc.byte_len);
	if (wc.wc_flags & IBV_WC_WITH_IMM)
		printf(" imm=0x%08x", ntohl(wc.imm_data));
	if (wc.wc_flags & with_inv)
		printf(" invalidated=0x%08x%s", wc.invalidated_rkey,
		       wc.wc_flags & IBV_WC_WITH_INV ? "" : " (rxe: flag in bit 2)");
	if (qpt == T_UD) {
		printf(" src_qp=0x%06x", wc.src_qp);
		ok = ok && wc.src_qp == peer.qpn;
	}
	if (ok && o->wr != OPGEN_WR_RDMA_WRITE_WITH_IMM) {
		const uint8_t *p = buf + RECV_OFF + wc.wr_id * AREA + hdr;
		uint32_t bad_bytes = 0;

		for (uint32_t k = 0; k < o->len; k++)
			bad_bytes += p[k] != opgen_pat(k, i);
		printf(" data=%s", bad_bytes ? "BAD" : "ok");
		ok = !bad_bytes;
	}
	if (!ok)	/* what the completion said, as it is */
		printf(" wc_flags=0x%x ex=0x%08x", (unsigned int)wc.wc_flags, (unsigned int)wc.invalidated_rkey);
	printf(" %s\n", ok ? "ok" : "FAIL");
	fails += !ok;
	post_recv((unsigned int)wc.wr_id);
}

static int
run_server(int fd)
{
	uint32_t client_fails;

	for (unsigned int i = 0; i < NOPS; i++)
		if (opgen_applies(&opgen_ops[i], qpt) && opgen_consumes_recv(&opgen_ops[i]))
			server_recv(i);
	get(fd, &client_fails, sizeof(client_fails));
	for (unsigned int i = 0; i < NOPS; i++) {
		const struct opgen_op *o = &opgen_ops[i];

		if (!opgen_applies(o, qpt) || !opgen_is_write(o))
			continue;
		const uint8_t *p = buf + WRITE_OFF + i * AREA;
		uint32_t bad_bytes = 0;
		for (uint32_t k = 0; k < AREA; k++)
			bad_bytes += p[k] != (k < o->len ? opgen_pat(k, i) : 0);
		printf("server op %2u %-20s len=%-5u write_target=%s\n", i, opgen_wr_name(o->wr), o->len,
		       bad_bytes ? "BAD FAIL" : "ok");
		fails += !!bad_bytes;
	}
	if (qpt == T_RC) {
		uint64_t v = *(volatile uint64_t *)(buf + ATOMIC_OFF);

		printf("server atomic word=0x%llx %s\n", (unsigned long long)v,
		       v == ATOMIC_FINAL ? "ok" : "FAIL");
		fails += v != ATOMIC_FINAL;
	}
	uint32_t verdict = htonl(fails);
	put(fd, &verdict, sizeof(verdict));
	printf("server done: %u failures, client reported %u: %s\n", fails, ntohl(client_fails),
	       fails ? "FAIL" : "OK");
	return fails ? 1 : 0;
}

/* -l: one receive completion judged by itself (dr-opgen-ops.h, lossy mode) */
static void
lossy_recv(struct opgen_lossy *l, const struct ibv_wc *wc)
{
	uint32_t hdr = qpt == T_UD ? GRH_LEN : 0;
	int rimm = wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM, has_imm = !!(wc->wc_flags & IBV_WC_WITH_IMM);
	uint32_t len = wc->byte_len - (rimm ? 0 : hdr), imm = has_imm ? ntohl(wc->imm_data) : 0;
	int i = wc->status == IBV_WC_SUCCESS && wc->byte_len >= (rimm ? 0 : hdr) ?
		opgen_lossy_row(qpt, rimm, len, has_imm, imm) : -1;
	int whole = i >= 0 && len == opgen_ops[i].len && (qpt != T_UD || wc->src_qp == peer.qpn);

	if (whole && !rimm) {
		const uint8_t *p = buf + RECV_OFF + wc->wr_id * AREA + hdr;

		for (uint32_t k = 0; k < len && whole; k++)
			whole = p[k] == opgen_pat(k, (uint32_t)i);
	}
	int ok = opgen_lossy_take(l, qpt, i, whole);

	printf("server lossy row %2d status=%s byte_len=%u%s", i, ibv_wc_status_str(wc->status),
	       wc->byte_len, has_imm ? "" : " no_imm");
	if (has_imm)
		printf(" imm=0x%08x", imm);
	printf(" %s\n", ok ? (l->seen[i >= 0 ? i : 0] > 1 ? "ok (duplicate)" : "ok") : "FAIL");
	post_recv((unsigned int)wc->wr_id);
}

static int
run_server_lossy(int fd)
{
	struct opgen_lossy l;
	uint32_t client_fails;
	struct ibv_wc wc;
	unsigned int lost = 0;

	opgen_lossy_init(&l, qpt);
	/* until the client says it is done, then until the link is quiet */
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (wait_wc(&wc, 20))
			lossy_recv(&l, &wc);
		else if (poll(&p, 1, 0) > 0)
			break;
	}
	get(fd, &client_fails, sizeof(client_fails));
	while (wait_wc(&wc, OPGEN_LOSSY_QUIET_MS))
		lossy_recv(&l, &wc);
	for (unsigned int i = 0; i < NOPS; i++) {
		const struct opgen_op *o = &opgen_ops[i];

		if (!opgen_applies(o, qpt))
			continue;
		if (opgen_consumes_recv(o) && !l.seen[i])
			lost++;
		if (!opgen_is_write(o))
			continue;
		int t = opgen_lossy_target(buf + WRITE_OFF + i * AREA, o, i);
		int ok = t >= 0 && (t == 1 || o->wr != OPGEN_WR_RDMA_WRITE_WITH_IMM || !l.seen[i]);
		static const char *const how[] = { "untouched", "whole", "partly written" };

		printf("server op %2u %-20s len=%-5u write_target=%s %s\n", i, opgen_wr_name(o->wr),
		       o->len, t >= 0 ? how[t] : "BAD", ok ? "ok" : "FAIL");
		fails += !ok;
	}
	fails += l.bad;
	if (l.arrived == 0) {
		printf("server: nothing arrived FAIL\n");
		fails++;
	}
	printf("server lossy: %u of %u messages arrived, %u lost, %u duplicates, %u bad\n",
	       l.arrived, l.expected, lost, l.dups, l.bad);
	uint32_t verdict = htonl(fails);
	put(fd, &verdict, sizeof(verdict));
	printf("server done: %u failures, client reported %u: %s\n", fails, ntohl(client_fails),
	       fails ? "FAIL" : "OK");
	return fails ? 1 : 0;
}

/* ---------------------------------------------------------------- faults */

static const char *
qp_state_str(enum ibv_qp_state st)
{
	return st == IBV_QPS_RTS ? "RTS" : st == IBV_QPS_ERR ? "ERR" : st == IBV_QPS_SQE ? "SQE" : "other";
}

/* this side's QP is in @want (ERR after an error, else RTS): 1, else prints FAIL */
static int
check_qp_state(const char *side, enum ibv_qp_state want)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		die(2, "ibv_query_qp: %s", strerror(errno));
	printf("%s qp state=%s %s\n", side, qp_state_str(a.qp_state), a.qp_state == want ? "ok" : "FAIL");
	return a.qp_state == want;
}

/* Swap the stacks (enum opgen_stack) and work out what the run must end with. */
static void
fault_expect(int fd, int server)
{
	uint32_t m = htonl((uint32_t)my_stack), p;

	put(fd, &m, sizeof(m));
	get(fd, &p, sizeof(p));
	enum opgen_stack peer_stack = ntohl(p) == OPGEN_STACK_RXE ? OPGEN_STACK_RXE : OPGEN_STACK_DR;
	want = server ? opgen_fault_expect(fault, peer_stack, my_stack) :
			opgen_fault_expect(fault, my_stack, peer_stack);
	printf("%s fault %s: stacks %s -> %s: status %d, receive %d, server %s, nak 0x%02x\n",
	       server ? "server" : "client", fault->name,
	       (server ? peer_stack : my_stack) == OPGEN_STACK_RXE ? "rxe" : "dpdk-rdma",
	       (server ? my_stack : peer_stack) == OPGEN_STACK_RXE ? "rxe" : "dpdk-rdma", want.status,
	       want.recv, want.server_err ? "ERR" : "RTS", want.nak);
}

/*
 * Client: one signaled WR of the fault run (id 0 the SEND_WITH_INV before
 * F_INVALIDATED, 1 the bad request, 2 the follow-up SEND); its payload is
 * opgen_pat(k, 200 + id). The completion must have status @want.
 */
static void
fault_post(unsigned int id, enum opgen_wr wr, uint32_t len, int want)
{
	const struct opgen_fault *f = fault;
	uint8_t *src = buf + SRC_OFF + id * AREA;
	struct ibv_sge s[2] = { { .addr = (uintptr_t)src, .length = len, .lkey = mr->lkey } };
	struct ibv_send_wr w = { .wr_id = id, .sg_list = s, .num_sge = len ? 1 : 0,
				 .opcode = (enum ibv_wr_opcode)wr, .send_flags = IBV_SEND_SIGNALED }, *bad;
	uint32_t rkey = opgen_fault_rkey(f, peer.rkey, peer.mw_rkey);
	struct ibv_wc wc;

	for (uint32_t k = 0; k < len; k++)
		src[k] = opgen_pat(k, 200 + id);
	if (id == 1 && f->how == F_LKEY)
		s[0].lkey ^= 0x80u;
	if (id == 1 && f->how == F_SGE_LIST) {	/* the same bytes in two SGEs */
		s[0].length = len / 2;
		s[1] = (struct ibv_sge){ .addr = s[0].addr + len / 2, .length = len - len / 2,
					 .lkey = mr->lkey };
		w.num_sge = 2;
	}
	if (id != 1) {
		rkey = peer.mw_rkey;	/* SEND_WITH_INV: the window's */
	} else if (wr == OPGEN_WR_RDMA_WRITE || wr == OPGEN_WR_RDMA_READ) {
		w.wr.rdma.remote_addr = peer.addr + opgen_fault_off(f);
		w.wr.rdma.rkey = rkey;
	} else if (wr == OPGEN_WR_ATOMIC_FETCH_AND_ADD) {
		w.wr.atomic.remote_addr = peer.addr + opgen_fault_off(f);
		w.wr.atomic.rkey = rkey;
		w.wr.atomic.compare_add = 1;
	}
	if (wr == OPGEN_WR_SEND_WITH_INV)
		w.invalidate_rkey = rkey;
	if (qpt == T_UD) {
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = peer.qpn;
		w.wr.ud.remote_qkey = id != 1 ? QKEY : f->how == F_QKEY ? QKEY ^ 1u :
				      f->how == F_QKEY_MSB ? 0x80000000u : QKEY;
	}
	printf("client fault %s wr %u %-20s len=%-5u", f->name, id, opgen_wr_name(wr), len);
	bad = NULL;
	int err = ibv_post_send(qp, &w, &bad);
	if (want == OPGEN_WC_NONE) {	/* the post must fail with EINVAL, *bad_wr this WR */
		int ok = err == EINVAL && bad == &w;
		printf(" post_send=%s %s\n", err ? strerror(err) : "0", ok ? "ok" : "FAIL");
		fails += !ok;
		return;
	}
	if (err) {
		printf(" post_send=%s FAIL\n", strerror(err));
		fails++;
		return;
	}
	if (!wait_wc(&wc, OPGEN_WC_TIMEOUT_MS)) {
		printf(" completion TIMEOUT FAIL\n");
		fails++;
		return;
	}
	int ok = (int)wc.status == want && wc.wr_id == id;
	printf(" status=%s %s\n", ibv_wc_status_str(wc.status), ok ? "ok" : "FAIL");
	fails += !ok;
}

static int
run_client_fault(int fd)
{
	const struct opgen_fault *f = fault;
	uint32_t verdict;

	printf("client fault %s: %s\n", f->name, f->why);
	fault_expect(fd, 0);
	if (f->how == F_INVALIDATED)
		fault_post(0, OPGEN_WR_SEND_WITH_INV, FOLLOW_LEN, OPGEN_WC_SUCCESS);
	fault_post(1, f->wr, f->len, want.status);
	if (f->follow)
		fault_post(2, OPGEN_WR_SEND, FOLLOW_LEN, OPGEN_WC_SUCCESS);
	fails += !check_qp_state("client", want.status == OPGEN_WC_SUCCESS || want.status == OPGEN_WC_NONE ?
					   IBV_QPS_RTS : IBV_QPS_ERR);
	uint32_t msg = htonl(fails);
	put(fd, &msg, sizeof(msg));
	get(fd, &verdict, sizeof(verdict));
	verdict = ntohl(verdict);
	printf("client done: fault %s, %u local failures, server %s\n", f->name, fails,
	       verdict ? "FAIL" : "OK");
	return fails || verdict ? 1 : 0;
}

/* Server: the next receive completion has status @want (and for a success, @len bytes of seed @seed). */
static void
fault_recv(const char *what, int want, uint32_t len, uint32_t seed)
{
	uint32_t hdr = qpt == T_UD ? GRH_LEN : 0;
	struct ibv_wc wc;

	if (!wait_wc(&wc, OPGEN_WC_TIMEOUT_MS)) {
		printf("server fault %s: %s: missing receive completion FAIL\n", fault->name, what);
		fails++;
		return;
	}
	int ok = (int)wc.status == want && wc.qp_num == me.qpn;
	printf("server fault %s: %s: status=%s", fault->name, what, ibv_wc_status_str(wc.status));
	if (ok && want == OPGEN_WC_SUCCESS) {
		const uint8_t *p = buf + RECV_OFF + wc.wr_id * AREA + hdr;
		uint32_t bad_bytes = 0;

		for (uint32_t k = 0; k < len; k++)
			bad_bytes += p[k] != opgen_pat(k, seed);
		printf(" byte_len=%u data=%s", wc.byte_len, bad_bytes ? "BAD" : "ok");
		ok = wc.opcode == IBV_WC_RECV && wc.byte_len == len + hdr && !bad_bytes;
		post_recv((unsigned int)wc.wr_id);
	}
	printf(" %s\n", ok ? "ok" : "FAIL");
	fails += !ok;
}

static int
run_server_fault(int fd)
{
	const struct opgen_fault *f = fault;
	uint32_t client_fails;
	struct ibv_wc wc;

	printf("server fault %s: %s\n", f->name, f->why);
	fault_expect(fd, 1);
	if (f->how == F_INVALIDATED)
		fault_recv("SEND_WITH_INV", OPGEN_WC_SUCCESS, FOLLOW_LEN, 200);
	if (want.recv != OPGEN_WC_NONE)
		fault_recv("the request", want.recv, f->len, 201);
	if (f->follow)
		fault_recv("the SEND after it", OPGEN_WC_SUCCESS, FOLLOW_LEN, 202);
	get(fd, &client_fails, sizeof(client_fails));
	/* nothing else completes but flushed receives (a QP in ERR) */
	unsigned int flushed = 0, extra = 0;
	while (wait_wc(&wc, 200)) {
		if (wc.status == IBV_WC_WR_FLUSH_ERR) {
			flushed++;
		} else {
			printf("server fault %s: unexpected completion status=%s FAIL\n", f->name,
			       ibv_wc_status_str(wc.status));
			extra++;
		}
	}
	fails += extra;
	/* nothing was written or executed: the WRITE's target, the atomic word and the 8 bytes after it */
	uint32_t off = f->wr == OPGEN_WR_RDMA_WRITE ? (uint32_t)opgen_fault_off(f) : WRITE_OFF, touched = 0;
	for (uint32_t k = off; k < off + AREA && k < BUF_SZ; k++)
		touched += buf[k] != 0;
	uint64_t word = *(volatile uint64_t *)(buf + ATOMIC_OFF);
	uint64_t next = *(volatile uint64_t *)(buf + ATOMIC_OFF + 8);
	int atomic_ok = word == ATOMIC_INIT && next == 0;
	printf("server fault %s: write target 0x%x %s, atomic word=0x%llx next=0x%llx %s, "
	       "%u flushed receives\n", f->name, off, touched ? "WRITTEN FAIL" : "untouched ok",
	       (unsigned long long)word, (unsigned long long)next, atomic_ok ? "ok" : "FAIL", flushed);
	fails += !!touched + !atomic_ok;
	fails += !check_qp_state("server", want.server_err ? IBV_QPS_ERR : IBV_QPS_RTS);
	uint32_t verdict = htonl(fails);
	put(fd, &verdict, sizeof(verdict));
	printf("server done: fault %s, %u failures, client reported %u: %s\n", f->name, fails,
	       ntohl(client_fails), fails ? "FAIL" : "OK");
	return fails ? 1 : 0;
}

/* ---------------------------------------------------------------- main */

static void
list_ops(void)
{
	for (unsigned int i = 0; i < NOPS; i++)
		if (opgen_applies(&opgen_ops[i], qpt))
			printf("%u %s %u %s # %s\n", i, opgen_wr_name(opgen_ops[i].wr), opgen_ops[i].len,
			       opgen_consumes_recv(&opgen_ops[i]) ? "recv" : "-", opgen_ops[i].why);
}

static void
gid_str(const uint8_t *g, char *s, size_t n)
{
	inet_ntop(AF_INET6, g, s, (socklen_t)n);
}

int
main(int argc, char **argv)
{
	const char *dev = "rxe0", *host = NULL;
	int port = OPGEN_PORT, c, list = 0;
	long psn = -1;

	int tset = 0;

	while ((c = getopt(argc, argv, "d:g:p:t:m:s:T:LE:l")) != -1) {
		switch (c) {
		case 'E':
			if (!strcmp(optarg, "list")) {
				for (unsigned int i = 0; i < NFAULTS; i++)
					printf("%s %s nak=0x%02x # %s\n", opgen_faults[i].name,
					       opgen_qpt_name(opgen_faults[i].qpt), opgen_faults[i].nak,
					       opgen_faults[i].why);
				return 0;
			}
			fault = opgen_fault_find(optarg);
			if (!fault)
				die(2, "-E %s: no such fault (-E list)", optarg);
			break;
		case 'd': dev = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 'T': timeout_s = atoi(optarg); break;
		case 's': psn = strtol(optarg, NULL, 0) & 0xFFFFFF; break;
		case 'L': list = 1; break;
		case 'l': lossy = 1; break;
		case 't':
			if (!strcmp(optarg, "rc"))
				qpt = T_RC;
			else if (!strcmp(optarg, "uc"))
				qpt = T_UC;
			else if (!strcmp(optarg, "ud"))
				qpt = T_UD;
			else if (!strcmp(optarg, "xrc"))
				die(2, "-t xrc: rxe has no XRC (Linux rdma_rxe offers no XRC domains, SRQs "
				       "or QPs); run app/dpdk-rdma-opgen -t xrc against itself");
			else
				die(2, "-t: rc, uc or ud");
			tset = 1;
			break;
		case 'm':
			switch (atoi(optarg)) {
			case 256: path_mtu = IBV_MTU_256; break;
			case 512: path_mtu = IBV_MTU_512; break;
			case 1024: path_mtu = IBV_MTU_1024; break;
			case 2048: path_mtu = IBV_MTU_2048; break;
			case 4096: path_mtu = IBV_MTU_4096; break;
			default: die(2, "-m: 256, 512, 1024, 2048 or 4096");
			}
			break;
		default:
			die(2, "usage: dr-opgen [-L] [-t rc|uc|ud] [-l] [-E fault|list] [-d dev] [-g gidx] "
			       "[-p port] [-m mtu] [-s psn] [-T secs] [server]");
		}
	}
	if (fault) {
		if (tset && qpt != fault->qpt)
			die(2, "-E %s is a %s fault (-t %s)", fault->name, opgen_qpt_name(fault->qpt),
			    opgen_qpt_name(qpt));
		qpt = fault->qpt;
	}
	if (list) {
		list_ops();
		return 0;
	}
	if (lossy && (qpt == T_RC || fault))
		die(2, "-l: UC and UD tables only (RC recovers every loss)");
	if (optind < argc)
		host = argv[optind];
	if (gidx < 0) {
		const char *e = getenv("RXE_GID_IDX");

		gidx = e && *e ? atoi(e) : 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)timeout_s);

	setup(dev, !host);
	me.psn = psn >= 0 ? (uint32_t)psn : host ? OPGEN_CLIENT_PSN : OPGEN_SERVER_PSN;
	int fd = host ? tcp_client(host, port) : tcp_server(port);
	exchange(fd);
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	gid_str(me.gid, a, sizeof(a));
	gid_str(peer.gid, b, sizeof(b));
	printf("%s %s local qpn=0x%06x psn=0x%06x gid=%s remote qpn=0x%06x psn=0x%06x gid=%s "
	       "rkey=0x%x path_mtu=%u\n", host ? "client" : "server", opgen_qpt_name(qpt), me.qpn, me.psn, a,
	       peer.qpn, peer.psn, b, peer.rkey, 128u << path_mtu);
	connect_qp(!host);
	if (mw)
		bind_window();
	uint8_t go = 1;
	put(fd, &go, 1);
	get(fd, &go, 1);	/* both QPs are ready and every receive is posted */
	if (fault)
		return host ? run_client_fault(fd) : run_server_fault(fd);
	return host ? run_client(fd) : lossy ? run_server_lossy(fd) : run_server(fd);
}
