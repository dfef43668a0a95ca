/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The program's own command line: options, their checks, the usage text. */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dr_app.h"
#include "dr_version.h"
#include "perf.h"

enum {
	OPT_REPORT_GBITS = 256,
	OPT_IP,
	OPT_PEER_MAC,
	OPT_CHECK,
	OPT_LINK_MTU,
	OPT_SIZES,
	OPT_OOB_BIND,
	OPT_PERFTEST,
	OPT_IPV6,
	OPT_RAW_LIKE,
	OPT_HUGEPAGES,
	OPT_SEND_IMM,
	OPT_GO_BACK_N,
	OPT_WRITE_IMM,
	OPT_PERSIST,
	OPT_COUNTERS,
};

static const char short_opts[] = ":p:s:n:aD:m:t:r:Q:q:Fd:i:x:A:o:c:u:hVR";

static const struct option long_opts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "size", required_argument, NULL, 's' },
	{ "iters", required_argument, NULL, 'n' },
	{ "all", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'D' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "cq-mod", required_argument, NULL, 'Q' },
	{ "qp", required_argument, NULL, 'q' },
	{ "CPU-freq", no_argument, NULL, 'F' },
	{ "report_gbits", no_argument, NULL, OPT_REPORT_GBITS },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "atomic_type", required_argument, NULL, 'A' },
	{ "connection", required_argument, NULL, 'c' },
	{ "outs", required_argument, NULL, 'o' },
	{ "qp-timeout", required_argument, NULL, 'u' },
	{ "ip", required_argument, NULL, OPT_IP },
	{ "ipv6", required_argument, NULL, OPT_IPV6 },
	{ "peer-mac", required_argument, NULL, OPT_PEER_MAC },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "use_hugepages", no_argument, NULL, OPT_HUGEPAGES },
	{ "send_with_imm", no_argument, NULL, OPT_SEND_IMM },
	{ "go-back-n", no_argument, NULL, OPT_GO_BACK_N },
	{ "write_with_imm", no_argument, NULL, OPT_WRITE_IMM },
	{ "link-mtu", required_argument, NULL, OPT_LINK_MTU },
	{ "sizes", required_argument, NULL, OPT_SIZES },
	{ "oob-bind", required_argument, NULL, OPT_OOB_BIND },
	{ "perftest-compat", no_argument, NULL, OPT_PERFTEST },
	{ "rdma_cm", no_argument, NULL, 'R' },
	{ "persist", no_argument, NULL, OPT_PERSIST },
	{ "counters", no_argument, NULL, OPT_COUNTERS },
	DR_APP_ENGINE_LONG_OPTS,
	{ "raw-like", required_argument, NULL, OPT_RAW_LIKE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

void
perf_usage(FILE *out)
{
	fprintf(out,
		"usage: " PERF_PROG " <EAL args> -- TEST --ip A.B.C.D [options] [SERVER_ADDR]\n"
		"\n"
		"TEST: %s.\n"
		"Without SERVER_ADDR this is the server: it waits for one client on TCP\n"
		"(--oob-bind, -p) and runs what it asks. With it, the client.\n"
		"\n"
		"  -p, --port N          TCP port of the out-of-band exchange (default %u)\n"
		"      --oob-bind ADDR   server: address to listen on (default 127.0.0.1)\n"
		"  -s, --size N[K|M|G]   message size (default %u for bw, %u for lat; up to 1G;\n"
		"                        the atomic tests move %u bytes, no other size)\n"
		"  -a, --all             sizes 2 ... 2^23, powers of two\n"
		"      --sizes L         comma-separated sizes, up to %u of them\n"
		"  -n, --iters N         messages per size and QP (default %u bw, %u lat,\n"
		"                        %u atomic)\n"
		"  -D, --duration S      run each size for S seconds instead of -n\n"
		"  -m, --mtu N           path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's)\n"
		"  -t, --tx-depth N      send WRs in flight per QP (default %u bw, %u lat)\n"
		"  -r, --rx-depth N      receive WRs posted per QP, send tests (default %u)\n"
		"  -Q, --cq-mod N        bw: one signaled send WR every N (default %u)\n"
		"  -q, --qp N            number of RC QPs, bw tests (default 1)\n"
		"  -F, --CPU-freq        accepted and ignored (the TSC is used)\n"
		"      --report_gbits    bandwidth in Gb/sec instead of MB/sec\n"
		"  -d, --ib-dev NAME     device dr_<DPDK port name> (default: the first port)\n"
		"  -i, --ib-port N       port of the device: 1\n"
		"  -x, --gid-index N     source GID index (default %d: the IPv4-mapped GID)\n"
		"  -A, --atomic_type T   atomic tests: CMP_AND_SWAP or FETCH_AND_ADD (default)\n"
		"  -c, --connection T    QP type: RC (default), UC (send, write tests), UD (send\n"
		"                        tests, messages up to the path MTU)\n"
		"  -o, --outs N          read and atomic tests: outstanding READs/atomics\n"
		"                        (default: the device's maximum, %u)\n"
		"  -u, --qp-timeout N    RC: local ACK timeout, 4.096 us * 2^N, 0 to 31 (0: none;\n"
		"                        default %u, 67 ms)\n"
		"      --ip A.B.C.D      our IPv4 address (required: GID index 1)\n"
		"      --ipv6 ADDR       an IPv6 address of ours (GID index 2, a second one 3)\n"
		"      --peer-mac MAC    the peer's MAC for its static neighbour entry\n"
		"                        (default: the MAC the peer sends over TCP)\n"
		"      --link-mtu N      IP MTU given to the context (default: the port's)\n"
		"      --check           fill every message with a pattern and verify every byte\n"
		"      --send_with_imm   send tests: SEND_WITH_IMM, the immediate the message's\n"
		"                        number (the receiver checks it with --check)\n"
		"      --write_with_imm  write_bw: RDMA_WRITE_WITH_IMM, one receive each (likewise)\n"
		"      --go-back-n       RC: offer no selective repeat in the ECE exchange, so\n"
		"                        both sides recover from loss with IBA's go-back-N\n"
		"                        (default: selective repeat between two dpdk-rdma-perf)\n"
		"      --use_hugepages   message buffers (the MR) in EAL's hugepage memory\n"
		"                        (default: the process's own pages; EAL needs hugepages)\n"
		"      --perftest-compat speak perftest's exchange: an ib_* tool is the peer\n"
		"  -R, --rdma_cm         perftest's -R: the QP and the exchange through the\n"
		"                        connection manager (RC, one QP; an ib_* -R tool or\n"
		"                        another -R is the peer; -p is the CM's port)\n"
		"      --persist         server: serve clients one after another until SIGINT or\n"
		"                        SIGTERM, each running the test, -q, -c, sizes and\n"
		"                        iterations it asks (the server's -s, -a or --sizes\n"
		"                        bound the size); a failed client ends its run only\n"
		"      --counters        at the end, the context's transport and port counters\n"
		"                        (retransmissions, timeouts, NAKs, stalls, drops)\n"
		"      --raw-like OP     raw_bw, raw_lat (the bare link): frames shaped as OP's\n"
		"                        requests (write, the default, send, atomic) or\n"
		"                        responses (read) of the same size and path MTU\n",
		perf_test_names(), PERF_DEF_PORT, PERF_DEF_SIZE_BW, PERF_DEF_SIZE_LAT, PERF_ATOMIC_SIZE,
		PERF_MAX_SIZES, PERF_DEF_ITERS_BW, PERF_DEF_ITERS_LAT, PERF_DEF_ITERS_ATOMIC,
		PERF_DEF_TX_BW, PERF_DEF_TX_LAT, PERF_DEF_RX, PERF_DEF_CQ_MOD, PERF_DEF_GID_INDEX,
		DR_MAX_RD_ATOMIC, PERF_DEF_QP_TIMEOUT);
	dr_app_engine_usage(out, 24);
	fputs("  -h, --help            this text\n"
	      "  -V, --version         the version\n"
	      "\n"
	      "Exit status: 0 success, 1 error or --check mismatch, 2 usage.\n", out);
}

char perf_last_err[OOB_TEXT_LEN];

void
perf_err(const char *what, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, PERF_PROG ": %s: %s\n", what, text);
	/* what an aborting side tells its peer */
	snprintf(perf_last_err, sizeof(perf_last_err), "%.40s: %.84s", what, text);
}

/* A decimal unsigned number in [min, max]. */
static int
parse_uint(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || *s == '+' || n < min || n > max) {
		perf_err(opt, "invalid value '%s' (an integer from %llu to %llu)", s,
			 (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*v = n;
	return 0;
}

/* A message size: decimal with an optional K, M or G (binary) suffix, up to 1 GiB. */
static int
parse_size(const char *opt, const char *s, uint32_t *v)
{
	unsigned long long n, mult = 1;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (end != s && end[0] != '\0' && end[1] == '\0') {
		switch (end[0]) {
		case 'K': case 'k': mult = 1ull << 10; end++; break;
		case 'M': case 'm': mult = 1ull << 20; end++; break;
		case 'G': case 'g': mult = 1ull << 30; end++; break;
		default: break;
		}
	}
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || *s == '+') {
		perf_err(opt, "invalid size '%s' (bytes, with an optional K, M or G suffix)", s);
		return -1;
	}
	if (n > DR_MAX_MSG_SIZE / mult) {
		perf_err(opt, "size '%s' is above the largest message, %u bytes (1 GiB)", s,
			 (unsigned int)DR_MAX_MSG_SIZE);
		return -1;
	}
	*v = (uint32_t)(n * mult);
	return 0;
}

static int
parse_sizes(const char *s, struct perf_opts *o)
{
	char buf[512], *save = NULL, *tok;

	if (strlen(s) >= sizeof(buf) || s[0] == '\0') {
		perf_err("--sizes", "invalid list '%s'", s);
		return -1;
	}
	strcpy(buf, s);
	o->nb_sizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (o->nb_sizes == PERF_MAX_SIZES) {
			perf_err("--sizes", "more than %u sizes", PERF_MAX_SIZES);
			return -1;
		}
		if (parse_size("--sizes", tok, &o->sizes[o->nb_sizes]) != 0)
			return -1;
		o->nb_sizes++;
	}
	if (o->nb_sizes == 0) {
		perf_err("--sizes", "invalid list '%s'", s);
		return -1;
	}
	return 0;
}

static int
parse_duration(const char *s, double *v)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(d) || d <= 0 || d > PERF_MAX_DURATION) {
		perf_err("-D/--duration", "invalid value '%s' (seconds, above 0, at most %.0f)", s,
			 PERF_MAX_DURATION);
		return -1;
	}
	*v = d;
	return 0;
}

static int
parse_ip(const char *s, rte_be32_t *ip)
{
	struct in_addr a;
	uint32_t h;

	if (inet_pton(AF_INET, s, &a) != 1) {
		perf_err("--ip", "invalid IPv4 address '%s' (A.B.C.D)", s);
		return -1;
	}
	h = ntohl(a.s_addr);
	if (h == 0 || h == UINT32_MAX || (h >> 28) == 0xe || (h >> 24) == 127) {
		perf_err("--ip", "'%s' cannot be a port's address (unspecified, broadcast, "
			 "multicast or loopback)", s);
		return -1;
	}
	*ip = a.s_addr;
	return 0;
}

static int
parse_mac(const char *s, struct rte_ether_addr *mac)
{
	if (rte_ether_unformat_addr(s, mac) != 0 || strlen(s) != 17) {
		perf_err("--peer-mac", "invalid MAC address '%s' (XX:XX:XX:XX:XX:XX)", s);
		return -1;
	}
	if (!rte_is_valid_assigned_ether_addr(mac)) {
		perf_err("--peer-mac", "'%s' is not a unicast address", s);
		return -1;
	}
	return 0;
}

static const char *const conn_names[] = {
	[PERF_RC] = "RC", [PERF_UC] = "UC", [PERF_UD] = "UD",
};

const char *
perf_conn_name(enum perf_conn c)
{
	return conn_names[c];
}

/* -c: perftest's connection types that dpdk-rdma has (XRC is the library's, not this tool's) */
static int
parse_conn(const char *s, enum perf_conn *c)
{
	for (unsigned int i = 0; i < RTE_DIM(conn_names); i++) {
		if (strcasecmp(s, conn_names[i]) == 0) {
			*c = (enum perf_conn)i;
			return 0;
		}
	}
	perf_err("-c/--connection", "'%s': RC, UC or UD (perftest's XRC, DC and SRD are not "
		 "dpdk-rdma-perf's)", s);
	return -1;
}

static const char *const atomic_names[] = {
	[PERF_CMP_AND_SWAP] = "CMP_AND_SWAP",
	[PERF_FETCH_AND_ADD] = "FETCH_AND_ADD",
};

const char *
perf_atomic_name(enum perf_atomic_type t)
{
	return atomic_names[t];
}

static int
parse_atomic(const char *s, enum perf_atomic_type *t)
{
	for (unsigned int i = 0; i < RTE_DIM(atomic_names); i++) {
		if (strcmp(s, atomic_names[i]) == 0) {
			*t = (enum perf_atomic_type)i;
			return 0;
		}
	}
	perf_err("-A/--atomic_type", "invalid type '%s' (CMP_AND_SWAP or FETCH_AND_ADD)", s);
	return -1;
}

static int
parse_raw_like(const char *s, enum perf_verb *v)
{
	static const char *const names[] = {
		[PERF_SEND] = "send", [PERF_WRITE] = "write", [PERF_READ] = "read", [PERF_ATOMIC] = "atomic",
	};

	for (unsigned int i = 0; i < RTE_DIM(names); i++) {
		if (strcmp(s, names[i]) == 0) {
			*v = (enum perf_verb)i;
			return 0;
		}
	}
	perf_err("--raw-like", "unknown operation '%s' (write, send, read or atomic)", s);
	return -1;
}

int
perf_parse_args(int argc, char **argv, struct perf_opts *o)
{
	bool have_ip = false, tx_given = false, all = false, size_opt = false, sizes_opt = false;
	bool atomic_given = false, outs_given = false, raw_like_given = false;
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->tcp_port = PERF_DEF_PORT;
	o->rx_depth = PERF_DEF_RX;
	o->cq_mod = PERF_DEF_CQ_MOD;
	o->num_qps = 1;
	o->ib_port = 1;
	o->gid_index = PERF_DEF_GID_INDEX;
	o->qp_timeout = PERF_DEF_QP_TIMEOUT;
	o->atomic = PERF_FETCH_AND_ADD;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_uint("-p/--port", optarg, 1, UINT16_MAX, &v) != 0)
				return -1;
			o->tcp_port = (uint16_t)v;
			break;
		case 's':
			if (parse_size("-s/--size", optarg, &o->sizes[0]) != 0)
				return -1;
			o->nb_sizes = 1;
			o->size_given = size_opt = true;
			break;
		case 'a':
			o->size_given = all = true;
			break;
		case OPT_SIZES:
			if (parse_sizes(optarg, o) != 0)
				return -1;
			o->size_given = sizes_opt = true;
			break;
		case 'n':
			if (parse_uint("-n/--iters", optarg, 1, PERF_MAX_ITERS_BW, &o->iters) != 0)
				return -1;
			o->iters_given = true;
			break;
		case 'D':
			if (parse_duration(optarg, &o->duration) != 0)
				return -1;
			break;
		case 'm':
			if (parse_uint("-m/--mtu", optarg, 256, 4096, &v) != 0)
				return -1;
			if (!rte_is_power_of_2((uint32_t)v)) {
				perf_err("-m/--mtu", "invalid MTU %s (256, 512, 1024, 2048 or 4096)",
					 optarg);
				return -1;
			}
			o->mtu = (uint32_t)v;
			break;
		case 't':
			if (parse_uint("-t/--tx-depth", optarg, 1, DR_MAX_QP_WR, &v) != 0)
				return -1;
			o->tx_depth = (uint32_t)v;
			o->tx_given = tx_given = true;
			break;
		case 'r':
			if (parse_uint("-r/--rx-depth", optarg, 1, DR_MAX_QP_WR, &v) != 0)
				return -1;
			o->rx_depth = (uint32_t)v;
			break;
		case 'Q':
			if (parse_uint("-Q/--cq-mod", optarg, 1, DR_MAX_QP_WR, &v) != 0)
				return -1;
			o->cq_mod = (uint32_t)v;
			break;
		case 'q':
			if (parse_uint("-q/--qp", optarg, 1, DR_MAX_QP, &v) != 0)
				return -1;
			o->num_qps = (uint32_t)v;
			break;
		case 'F':
			break;
		case OPT_REPORT_GBITS:
			o->report_gbits = true;
			break;
		case 'd':
			o->ib_dev = optarg;
			break;
		case 'i':
			if (parse_uint("-i/--ib-port", optarg, 1, 1, &v) != 0)
				return -1;
			o->ib_port = (uint8_t)v;
			break;
		case 'x':
			if (parse_uint("-x/--gid-index", optarg, 0, DR_MAX_GIDS - 1, &v) != 0)
				return -1;
			o->gid_index = (int)v;
			break;
		case 'A':
			if (parse_atomic(optarg, &o->atomic) != 0)
				return -1;
			atomic_given = true;
			break;
		case 'c':
			if (parse_conn(optarg, &o->conn) != 0)
				return -1;
			o->conn_given = true;
			break;
		case 'o':
			/* perftest lowers a count above the device's to it, with a warning */
			if (parse_uint("-o/--outs", optarg, 1, UINT8_MAX, &v) != 0)
				return -1;
			o->out_reads = (uint32_t)v;
			outs_given = true;
			break;
		case 'u':
			/* IBA 9.7.6.1.3: a 5-bit field, 0 disables the timer (perftest's -u) */
			if (parse_uint("-u/--qp-timeout", optarg, 0, 31, &v) != 0)
				return -1;
			o->qp_timeout = (uint8_t)v;
			o->qp_timeout_given = true;
			break;
		case OPT_IP:
			if (parse_ip(optarg, &o->ipv4) != 0)
				return -1;
			have_ip = true;
			break;
		case OPT_IPV6:
			if (dr_app_add_ipv6(PERF_PROG, optarg, o->ipv6, RTE_DIM(o->ipv6),
					    &o->num_ipv6) != 0)
				return -1;
			break;
		case OPT_PEER_MAC:
			if (parse_mac(optarg, &o->peer_mac) != 0)
				return -1;
			o->peer_mac_given = true;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_HUGEPAGES:
			o->use_hugepages = true;
			break;
		case OPT_SEND_IMM:
			o->send_imm = true;
			break;
		case OPT_WRITE_IMM:
			o->write_imm = true;
			break;
		case OPT_GO_BACK_N:
			o->go_back_n = true;
			break;
		case OPT_LINK_MTU:
			if (parse_uint("--link-mtu", optarg, PERF_MIN_LINK_MTU, PERF_MAX_LINK_MTU, &v) != 0)
				return -1;
			o->link_mtu = (uint32_t)v;
			break;
		case OPT_OOB_BIND:
			o->oob_bind = optarg;
			break;
		case OPT_PERFTEST:
			o->perftest = true;
			break;
		case 'R':
			/* perftest's -R forces -z: its exchange, over rdma_cm */
			o->rdma_cm = true;
			o->perftest = true;
			break;
		case OPT_PERSIST:
			o->persist = true;
			break;
		case OPT_COUNTERS:
			o->counters = true;
			break;
		case DR_APP_OPT_MODE:
		case DR_APP_OPT_WORKERS:
		case DR_APP_OPT_IDLE:
		case DR_APP_OPT_QUEUES:
		case DR_APP_OPT_ZCOPY_MIN:
		case DR_APP_OPT_CC:
		case DR_APP_OPT_CC_PARAM:
		case DR_APP_OPT_INFLIGHT:
		case DR_APP_OPT_BACKEND:
			if (dr_app_engine_opt(&o->engine, PERF_PROG, c, optarg) != 0)
				return -1;
			break;
		case OPT_RAW_LIKE:
			if (parse_raw_like(optarg, &o->raw_like) != 0)
				return -1;
			raw_like_given = true;
			break;
		case 'h':
			perf_usage(stdout);
			return 1;
		case 'V':
			printf(PERF_PROG " (dpdk-rdma) %s\n", DR_VERSION_STR);
			return 1;
		case ':':
			perf_err(argv[optind - 1], "missing argument");
			return -1;
		default:
			if (optopt != 0)
				perf_err("usage", "unknown option '-%c' (see --help)", optopt);
			else
				perf_err("usage", "unknown option '%s' (see --help)", argv[optind - 1]);
			return -1;
		}
	}
	argc -= optind;
	argv += optind;
	/* EAL runs its own getopt_long() over the other half of the command line */
	optind = 1;
	opterr = 1;

	if (argc == 0) {
		perf_err("usage", "missing TEST (one of %s; see --help)", perf_test_names());
		return -1;
	}
	o->test = perf_test_find(argv[0]);
	if (o->test == NULL) {
		perf_err("usage", "unknown test '%s' (one of %s)", argv[0], perf_test_names());
		return -1;
	}
	if (argc > 2) {
		perf_err("usage", "unexpected argument '%s' (TEST [SERVER_ADDR])", argv[2]);
		return -1;
	}
	o->server = argc == 2 ? argv[1] : NULL;
	if (dr_app_engine_finish(&o->engine, PERF_PROG) != 0)
		return -1;
	if (perf_opts_finish_raw(o, raw_like_given) != 0)
		return -1;
	return perf_opts_finish(o, have_ip, tx_given, all, size_opt, sizes_opt, atomic_given, outs_given);
}
