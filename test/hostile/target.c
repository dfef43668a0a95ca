/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dr-hostile-target [EAL args] -- --ip A --peer-ip B --peer-mac M [options]
 * dr-hostile-target [EAL args] -- --ip A --client HOST [options]
 *
 * The target of the hostile-frame suite and its real client (hostile.h).
 * The victims and regions (target mode):
 *
 *   data     PD 0, 4 pages, every remote right; pages 0-2 keep a pattern
 *            (checked), page 3 is scratch (valid WRITEs of the suite)
 *   small    PD 0, 100 bytes at offset 2000 of a page of guard bytes
 *   other    PD 1, 1 page, every remote right (its R_Key is for PD 1 only)
 *   session  PD 0, the real client's region (session.c)
 *   recv     PD 0, local write: the victims' receive buffers
 *   rc, uc   connected to the attacker (its QPN HT_ATTACKER_QPN), PD 0
 *   ud       Q_Key HT_VICTIM_QKEY, PD 0
 *
 * The main loop polls the victims' CQ (inline mode: which drives the
 * transport), reposts each receive that completed, reads commands on stdin
 * and takes real clients on TCP, one session at a time.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "dr_app.h"
#include "dr_app_sock.h"
#include "hostile.h"

enum { V_RC, V_UC, V_UD, V_NUM };
enum { R_DATA, R_SMALL, R_OTHER, R_SESSION, R_RECV, R_NUM };

static const char *const victim_name[V_NUM] = { "rc", "uc", "ud" };

static volatile sig_atomic_t ht_stop;

static struct {
	const struct ht_opts *o;
	struct dr_device **list;
	struct dr_context *ctx;
	struct dr_pd *pd[2];
	struct dr_cq *cq;
	struct dr_qp *qp[V_NUM];
	struct ht_region reg[R_NUM];
	uint64_t wc_ok, wc_err, wc_flush, recv_bytes;
	int listen_fd;
	bool eal;
} g = { .listen_fd = -1 };

static int
setup_fail(const char *what, int err)
{
	fprintf(stderr, HT_PROG ": %s: %s\n", what, strerror(err < 0 ? -err : err));
	return HT_EXIT_SETUP;
}

/* Both modes: the context on the first port, the engine as the options say. */
static int
open_context(void)
{
	struct dr_context_attr cattr;
	int n = 0;

	dr_app_context_attr(&cattr, g.o->ipv4, NULL, 0, 0);
	dr_app_engine_attr(&g.o->engine, &cattr);
	g.list = dr_get_device_list(&n);
	if (g.list == NULL || n == 0)
		return setup_fail("no DPDK port (give one to EAL: --vdev net_af_packet0,iface=IF)", ENODEV);
	g.ctx = dr_open_device(g.list[0], &cattr);
	return g.ctx == NULL ? setup_fail("dr_open_device", errno) : 0;
}

/* Receive buffer @slot of the recv region (victim slot / HT_VICTIM_RECVS's), posted again. */
static int
post_slot(unsigned int slot)
{
	struct dr_sge s = { .addr = (uintptr_t)g.reg[R_RECV].buf + (size_t)slot * HT_RECV_SLOT,
			    .length = HT_RECV_SLOT, .lkey = g.reg[R_RECV].mr->lkey };
	struct dr_recv_wr w = { .wr_id = slot, .sg_list = &s, .num_sge = 1 }, *bad;

	return dr_post_recv(g.qp[slot / HT_VICTIM_RECVS], &w, &bad);
}

static int
post_recvs(unsigned int v)
{
	for (unsigned int i = 0; i < HT_VICTIM_RECVS; i++) {
		int ret = post_slot(v * HT_VICTIM_RECVS + i);

		if (ret != 0)
			return ret;
	}
	return 0;
}

/* Victim @v from whatever state back to RTS (UD: RTS with its Q_Key), its receives posted. */
static int
victim_connect(unsigned int v)
{
	union dr_gid peer;
	struct dr_qp_attr a;
	int ret;

	if (v != V_UD) {
		ht_gid_v4(&peer, g.o->peer_ipv4);
		ret = ht_connect_qp(g.qp[v], v == V_RC ? DR_QPT_RC : DR_QPT_UC, &peer, HT_ATTACKER_QPN,
				    HT_VICTIM_RQ_PSN, HT_VICTIM_SQ_PSN, g.o->path_mtu);
		return ret != 0 ? ret : post_recvs(v);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = DR_QPS_RESET;
	ret = dr_modify_qp(g.qp[v], &a, DR_QP_STATE);
	a.qp_state = DR_QPS_INIT;
	a.port_num = 1;
	a.qkey = HT_VICTIM_QKEY;
	if (ret == 0)
		ret = dr_modify_qp(g.qp[v], &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_QKEY);
	a.qp_state = DR_QPS_RTR;
	if (ret == 0)
		ret = dr_modify_qp(g.qp[v], &a, DR_QP_STATE);
	a.qp_state = DR_QPS_RTS;
	a.sq_psn = HT_VICTIM_SQ_PSN;
	if (ret == 0)
		ret = dr_modify_qp(g.qp[v], &a, DR_QP_STATE | DR_QP_SQ_PSN);
	return ret != 0 ? ret : post_recvs(v);
}

static int
region_mr(unsigned int r, const char *name, unsigned int pd, size_t len, size_t page_off, uint8_t seed,
	  int access)
{
	int ret = ht_region_alloc(&g.reg[r], name, len, page_off, seed);

	if (ret != 0)
		return ret;
	g.reg[r].mr = dr_reg_mr(g.pd[pd], g.reg[r].buf, len, access);
	return g.reg[r].mr == NULL ? -errno : 0;
}

static int
setup(void)
{
	const int all = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			DR_ACCESS_REMOTE_ATOMIC;
	struct dr_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = HT_VICTIM_RECVS, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	union dr_gid peer;
	int ret = open_context();

	if (ret != 0)
		return ret;
	for (unsigned int i = 0; i < 2; i++)
		if ((g.pd[i] = dr_alloc_pd(g.ctx)) == NULL)
			return setup_fail("dr_alloc_pd", errno);
	if ((ret = region_mr(R_DATA, "data", 0, 4 * 4096, 0, 1, all)) != 0 ||
	    (ret = region_mr(R_SMALL, "small", 0, 100, 2000, 2, all)) != 0 ||
	    (ret = region_mr(R_OTHER, "other", 1, 4096, 0, 3, all)) != 0 ||
	    (ret = region_mr(R_SESSION, "session", 0, HT_SESSION_LEN, 0, 4, all)) != 0 ||
	    (ret = region_mr(R_RECV, "recv", 0, (size_t)V_NUM * HT_VICTIM_RECVS * HT_RECV_SLOT, 0, 5,
			     DR_ACCESS_LOCAL_WRITE)) != 0)
		return setup_fail("guarded region", ret);
	g.reg[R_DATA].check_to = 3 * 4096;      /* page 3: the suite's valid WRITEs */
	g.reg[R_RECV].check_to = 0;             /* what the victims receive */
	g.cq = dr_create_cq(g.ctx, 1024, NULL, NULL, 0);
	if (g.cq == NULL)
		return setup_fail("dr_create_cq", errno);
	qa.send_cq = g.cq;
	qa.recv_cq = g.cq;
	for (unsigned int v = 0; v < V_NUM; v++) {
		qa.qp_type = v == V_RC ? DR_QPT_RC : v == V_UC ? DR_QPT_UC : DR_QPT_UD;
		g.qp[v] = dr_create_qp(g.pd[0], &qa);
		if (g.qp[v] == NULL)
			return setup_fail("dr_create_qp", errno);
		ret = victim_connect(v);
		if (ret != 0)
			return setup_fail(victim_name[v], ret);
	}
	ht_gid_v4(&peer, g.o->peer_ipv4);
	ret = dr_add_neighbour(g.ctx, &peer, &g.o->peer_mac);
	return ret != 0 ? setup_fail("dr_add_neighbour", ret) : 0;
}

static int
listen_tcp(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr = { .s_addr = htonl(INADDR_ANY) } };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 4) != 0 ||
	    dr_app_nonblock(fd) != 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

/* ------------------------------------------------------------ output */

static void
print_layout(void)
{
	static const char *const rname[R_NUM] = { "data", "small", "other", "session", "recv" };
	struct rte_ether_addr mac;
	char ip[INET_ADDRSTRLEN];

	memset(&mac, 0, sizeof(mac));
	(void)rte_eth_macaddr_get(0, &mac);
	inet_ntop(AF_INET, &g.o->ipv4, ip, sizeof(ip));
	printf("{\"event\": \"ready\", \"ip\": \"%s\", \"mac\": \"%02x:%02x:%02x:%02x:%02x:%02x\", "
	       "\"path_mtu\": %u, \"tcp_port\": %u, \"attacker_qpn\": %u, \"rq_psn\": %u, \"sq_psn\": %u, "
	       "\"qkey\": %u, \"qps\": {", ip, mac.addr_bytes[0], mac.addr_bytes[1], mac.addr_bytes[2],
	       mac.addr_bytes[3], mac.addr_bytes[4], mac.addr_bytes[5], dr_mtu_bytes((enum dr_mtu)g.o->path_mtu),
	       g.o->port, HT_ATTACKER_QPN, HT_VICTIM_RQ_PSN, HT_VICTIM_SQ_PSN, HT_VICTIM_QKEY);
	for (unsigned int v = 0; v < V_NUM; v++)
		printf("%s\"%s\": %u", v ? ", " : "", victim_name[v], g.qp[v]->qp_num);
	printf("}, \"mrs\": {");
	for (unsigned int r = 0; r < R_NUM; r++)
		printf("%s\"%s\": {\"addr\": %llu, \"len\": %zu, \"rkey\": %u, \"pd\": %u}", r ? ", " : "",
		       rname[r], (unsigned long long)(uintptr_t)g.reg[r].buf, g.reg[r].len, g.reg[r].mr->rkey,
		       r == R_OTHER ? 1u : 0u);
	printf("}}\n");
}

static const char *
state_name(enum dr_qp_state s)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return (unsigned int)s < RTE_DIM(names) ? names[s] : "UNKNOWN";
}

static void
print_qp(unsigned int v, int err)
{
	struct dr_qp_init_attr ia;
	struct dr_qp_attr a;
	int ret = dr_query_qp(g.qp[v], &a, DR_QP_STATE | DR_QP_RQ_PSN | DR_QP_SQ_PSN, &ia);

	if (err == 0)
		err = ret;
	printf("{\"qp\": \"%s\", \"qpn\": %u, \"state\": \"%s\", \"epsn\": %u, \"sq_psn\": %u, "
	       "\"error\": \"%s\"}\n", victim_name[v], g.qp[v]->qp_num, ret ? "?" : state_name(a.qp_state),
	       ret ? 0 : a.rq_psn, ret ? 0 : a.sq_psn, err ? strerror(err < 0 ? -err : err) : "");
}

/* Every region intact? Prints the answer of "check". */
static bool
check_regions(void)
{
	for (unsigned int r = 0; r < R_NUM; r++) {
		const char *where;
		long off;

		if (!ht_region_check(&g.reg[r], &where, &off)) {
			printf("{\"check\": \"fail\", \"region\": \"%s\", \"where\": \"%s\", \"offset\": %ld}\n",
			       g.reg[r].name, where, off);
			return false;
		}
	}
	printf("{\"check\": \"ok\"}\n");
	return true;
}

/* ------------------------------------------------------------ the loop */

static unsigned int
victim_of(const char *name)
{
	for (unsigned int v = 0; v < V_NUM; v++)
		if (strcmp(name, victim_name[v]) == 0)
			return v;
	return V_NUM;
}

/* One command line; returns false on "quit". */
static bool
command(char *line, bool *intact)
{
	char *arg = strchr(line, ' ');
	unsigned int v;

	if (arg != NULL)
		*arg++ = '\0';
	if (strcmp(line, "quit") == 0) {
		*intact = check_regions();
		return false;
	}
	if (strcmp(line, "check") == 0) {
		(void)check_regions();
	} else if (strcmp(line, "cqes") == 0) {
		printf("{\"cqes\": {\"success\": %llu, \"error\": %llu, \"flush\": %llu, \"recv_bytes\": %llu}}\n",
		       (unsigned long long)g.wc_ok, (unsigned long long)g.wc_err,
		       (unsigned long long)g.wc_flush, (unsigned long long)g.recv_bytes);
	} else if ((strcmp(line, "qp") == 0 || strcmp(line, "reset") == 0) && arg != NULL &&
		   (v = victim_of(arg)) < V_NUM) {
		print_qp(v, line[0] == 'r' ? victim_connect(v) : 0);
	} else {
		printf("{\"error\": \"unknown command\"}\n");
	}
	return true;
}

/* Complete lines of stdin; false when "quit" came or stdin closed. */
static bool
read_commands(bool *intact)
{
	static char buf[512];
	static size_t len;
	ssize_t n = read(STDIN_FILENO, buf + len, sizeof(buf) - 1 - len);
	char *nl;

	if (n == 0) {
		*intact = check_regions();
		return false;
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	len += (size_t)n;
	buf[len] = '\0';
	while ((nl = strchr(buf, '\n')) != NULL) {
		*nl = '\0';
		if (!command(buf, intact))
			return false;
		len -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, len + 1);
	}
	if (len == sizeof(buf) - 1)
		len = 0;               /* a line too long: dropped */
	return true;
}

static void
serve(int fd)
{
	char why[256] = "";
	int rc = ht_session_serve(g.ctx, g.pd[0], &g.reg[R_SESSION], g.o, fd, why, sizeof(why));

	if (rc == HT_EXIT_OK)
		printf("{\"session\": \"ok\"}\n");
	else
		printf("{\"session\": \"fail\", \"why\": \"%s\"}\n", why);
}

static int
drain_cq(void)
{
	struct dr_wc wc[16];
	int n = dr_poll_cq(g.cq, 16, wc);

	for (int i = 0; i < n; i++) {
		if (wc[i].status == DR_WC_SUCCESS) {
			g.wc_ok++;
			g.recv_bytes += wc[i].byte_len;
		} else if (wc[i].status == DR_WC_WR_FLUSH_ERR) {
			g.wc_flush++;
		} else {
			g.wc_err++;
		}
		/* a receive that completed well goes back (errors: the QP is in ERR until reset) */
		if (wc[i].status == DR_WC_SUCCESS && (wc[i].opcode & DR_WC_RECV) &&
		    wc[i].wr_id < (uint64_t)V_NUM * HT_VICTIM_RECVS)
			(void)post_slot((unsigned int)wc[i].wr_id);
	}
	return n;
}

static int
run_target(void)
{
	struct pollfd pf[2] = { { .fd = STDIN_FILENO, .events = POLLIN }, { .events = POLLIN } };
	bool intact = false;
	int ret = setup();

	if (ret != 0)
		return ret;
	g.listen_fd = listen_tcp(g.o->port);
	if (g.listen_fd < 0)
		return setup_fail("TCP listen", g.listen_fd);
	pf[1].fd = g.listen_fd;
	(void)fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
	print_layout();
	while (!ht_stop) {
		int busy = drain_cq();

		if (poll(pf, 2, 0) > 0) {
			if ((pf[0].revents & (POLLIN | POLLHUP)) && !read_commands(&intact))
				break;
			if (pf[1].revents & POLLIN) {
				int fd = accept(g.listen_fd, NULL, NULL);

				if (fd >= 0)
					serve(fd);
			}
			busy = 1;
		}
		if (busy == 0)
			usleep(20);
	}
	if (ht_stop)
		intact = check_regions();
	return intact ? HT_EXIT_OK : HT_EXIT_CHECK;
}

static int
run_client(void)
{
	char why[256] = "";
	int rc = open_context();

	if (rc != 0)
		return rc;
	rc = ht_session_client(g.ctx, g.o, why, sizeof(why));
	if (rc == HT_EXIT_OK)
		printf("{\"client\": \"ok\"}\n");
	else
		printf("{\"client\": \"fail\", \"why\": \"%s\"}\n", why);
	return rc;
}

static void
release(void)
{
	if (g.ctx != NULL)
		(void)dr_stop_workers(g.ctx);
	if (g.listen_fd >= 0)
		close(g.listen_fd);
	for (unsigned int v = 0; v < V_NUM; v++)
		if (g.qp[v] != NULL)
			(void)dr_destroy_qp(g.qp[v]);
	if (g.cq != NULL)
		(void)dr_destroy_cq(g.cq);
	for (unsigned int r = 0; r < R_NUM; r++)
		ht_region_free(&g.reg[r]);
	for (unsigned int i = 0; i < 2; i++)
		if (g.pd[i] != NULL)
			(void)dr_dealloc_pd(g.pd[i]);
	if (g.ctx != NULL)
		(void)dr_close_device(g.ctx);
	if (g.list != NULL)
		dr_free_device_list(g.list);
	if (g.eal)
		rte_eal_cleanup();
}

int
main(int argc, char **argv)
{
	static struct ht_opts o;
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = ht_parse_args(own_argc, own_argv, &o);
	if (ret != 0)
		return ret < 0 ? HT_EXIT_SETUP : HT_EXIT_OK;
	g.o = &o;
	setvbuf(stdout, NULL, _IOLBF, 0);
	dr_app_stop_on_signals(&ht_stop, true);
	ret = dr_eal_init(eal_argc != 0 ? eal_argc : 1, argv);
	if (ret < 0)
		return setup_fail("EAL (arguments before \"--\")", ret);
	g.eal = true;
	ret = o.client != NULL ? run_client() : run_target();
	release();
	return ret;
}
