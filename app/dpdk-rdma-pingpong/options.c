/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The command line of ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and
 * ibv_srq_pingpong (rdma-core v44) where it applies, and ours: --qp-type,
 * --ip (the port's IPv4 address: GID index 1), --ipv6 (GID index 2, 3),
 * --link-mtu, --timeout, and the engine's --mode, --workers, --idle,
 * --queues (app/common/dr_app_engine.h). As in rdma-core v44, -c is in all four, -m is not
 * ud's,
 * -q is srq's only; ud's default size is 2048; srq refuses -s 0 and more QPs
 * than receives (-r).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dr_app.h"
#include "pingpong.h"

enum {
	OPT_IP = 256,
	OPT_LINK_MTU,
	OPT_TIMEOUT,
	OPT_QP_TYPE,
	OPT_IPV6,
};

void
pp_usage(const char *argv0)
{
	printf("Usage:\n");
	printf("  %s [EAL args --] --ip A.B.C.D [options]          start a server and wait for connection\n", argv0);
	printf("  %s [EAL args --] --ip A.B.C.D [options] <host>   connect to server at <host>\n", argv0);
	printf("\n");
	printf("Options:\n");
	printf("  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n");
	printf("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
	printf("  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n");
	printf("  -s, --size=<size>      size of message to exchange (default 4096, ud: 2048)\n");
	printf("  -m, --mtu=<size>       path MTU (default 1024; not ud)\n");
	printf("  -q, --num-qp=<num>     number of QPs to use (default 16; srq only)\n");
	printf("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
	printf("  -n, --iters=<iters>    number of exchanges (default 1000; srq: of all QPs together)\n");
	printf("  -l, --sl=<sl>          service level value\n");
	printf("  -e, --events           sleep on CQ events (default poll; inline: our thread drives the transport meanwhile)\n");
	printf("  -g, --gid-idx=<gid index> local port gid index (default: 1 with --ip, else 0)\n");
	printf("  -c, --chk              validate received buffer\n");
	printf("      --qp-type=<rc|uc|ud|srq> ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong or\n");
	printf("                         ibv_srq_pingpong (RC QPs on one SRQ) (default rc)\n");
	printf("      --ip=<A.B.C.D>     IPv4 address of the DPDK port (GID index 1)\n");
	printf("      --ipv6=<addr>      an IPv6 address of the DPDK port (GID index 2, then 3)\n");
	printf("      --link-mtu=<bytes> link MTU: sets the active MTU as rxe does (1500: 1024)\n");
	printf("      --timeout=<s>      give up the TCP exchange after <s> seconds (default 0: never)\n");
	dr_app_engine_usage(stdout, 25);
}

static int
mtu_to_enum(long mtu)
{
	switch (mtu) {
	case 256: return DR_MTU_256;
	case 512: return DR_MTU_512;
	case 1024: return DR_MTU_1024;
	case 2048: return DR_MTU_2048;
	case 4096: return DR_MTU_4096;
	default: return 0;
	}
}

static int
bad(const char *argv0, const char *fmt, const char *arg)
{
	fprintf(stderr, PP_PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	pp_usage(argv0);
	return -1;
}

/* ibv_srq_pingpong's checks and its default of -q; 0 or -1 (printed) */
static int
check_srq(const char *argv0, struct pp_opts *o, bool num_qp_given)
{
	if (!num_qp_given)
		o->num_qp = 16;
	if (o->num_qp < 1 || o->num_qp > PP_MAX_QP)
		return bad(argv0, "-q: %s", "1 to 256 QPs (ibv_srq_pingpong's MAX_QP)");
	if (o->size < 1)
		return bad(argv0, "-s: %s", "at least 1 byte (ibv_srq_pingpong)");
	if (o->num_qp > o->rx_depth) {
		fprintf(stderr, "rx_depth %u is too small for %u QPs -- "
			"must have at least one receive per QP.\n", o->rx_depth, o->num_qp);
		return -1;
	}
	return 0;
}

int
pp_parse_args(int argc, char **argv, struct pp_opts *o)
{
	static const struct option long_options[] = {
		{ .name = "port", .has_arg = 1, .val = 'p' },
		{ .name = "ib-dev", .has_arg = 1, .val = 'd' },
		{ .name = "ib-port", .has_arg = 1, .val = 'i' },
		{ .name = "size", .has_arg = 1, .val = 's' },
		{ .name = "mtu", .has_arg = 1, .val = 'm' },
		{ .name = "num-qp", .has_arg = 1, .val = 'q' },
		{ .name = "rx-depth", .has_arg = 1, .val = 'r' },
		{ .name = "iters", .has_arg = 1, .val = 'n' },
		{ .name = "sl", .has_arg = 1, .val = 'l' },
		{ .name = "events", .has_arg = 0, .val = 'e' },
		{ .name = "gid-idx", .has_arg = 1, .val = 'g' },
		{ .name = "chk", .has_arg = 0, .val = 'c' },
		{ .name = "help", .has_arg = 0, .val = 'h' },
		{ .name = "ip", .has_arg = 1, .val = OPT_IP },
		{ .name = "link-mtu", .has_arg = 1, .val = OPT_LINK_MTU },
		{ .name = "timeout", .has_arg = 1, .val = OPT_TIMEOUT },
		{ .name = "qp-type", .has_arg = 1, .val = OPT_QP_TYPE },
		{ .name = "ipv6", .has_arg = 1, .val = OPT_IPV6 },
		DR_APP_ENGINE_LONG_OPTS,
		{ 0 },
	};
	bool size_given = false, mtu_given = false, num_qp_given = false;
	struct in_addr a;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->port = 18515;
	o->ib_port = 1;
	o->size = 4096;
	o->mtu = DR_MTU_1024;
	o->rx_depth = 500;
	o->iters = 1000;
	o->gidx = -1;
	o->qp_type = DR_QPT_RC;
	optind = 1;

	while ((c = getopt_long(argc, argv, "p:d:i:s:m:q:r:n:l:eg:ch", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->port = strtoul(optarg, NULL, 0);
			if (o->port > 65535)
				return bad(argv[0], "-p %s: not a TCP port", optarg);
			break;
		case 'd':
			o->ib_devname = optarg;
			break;
		case 'i':
			o->ib_port = (int)strtol(optarg, NULL, 0);
			if (o->ib_port != 1)
				return bad(argv[0], "-i %s: a dpdk-rdma device has one port, 1", optarg);
			break;
		case 's':
			o->size = strtoul(optarg, NULL, 0);
			size_given = true;
			break;
		case 'm':
			o->mtu = mtu_to_enum(strtol(optarg, NULL, 0));
			if (o->mtu == 0)
				return bad(argv[0], "-m %s: the path MTU is 256, 512, 1024, 2048 or 4096",
					   optarg);
			mtu_given = true;
			break;
		case 'q':
			o->num_qp = strtoul(optarg, NULL, 0);
			num_qp_given = true;
			break;
		case 'r':
			o->rx_depth = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o->iters = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			o->sl = (int)strtol(optarg, NULL, 0);
			break;
		case 'e':
			o->use_event = true;
			break;
		case 'g':
			o->gidx = (int)strtol(optarg, NULL, 0);
			break;
		case 'c':
			o->validate_buf = true;
			break;
		case 'h':
			pp_usage(argv[0]);
			return 1;
		case OPT_IP:
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return bad(argv[0], "--ip %s: not an IPv4 address", optarg);
			o->ipv4 = a.s_addr;
			break;
		case OPT_IPV6:
			if (dr_app_add_ipv6(PP_PROG, optarg, o->ipv6, RTE_DIM(o->ipv6), &o->num_ipv6) != 0)
				return -1;
			break;
		case OPT_LINK_MTU:
			errno = 0;
			o->link_mtu = (uint32_t)strtoul(optarg, &end, 0);
			if (errno != 0 || *end != '\0' || o->link_mtu < 576 || o->link_mtu > 9216)
				return bad(argv[0], "--link-mtu %s: 576..9216 bytes", optarg);
			break;
		case OPT_TIMEOUT:
			o->timeout_s = strtod(optarg, &end);
			if (*end != '\0' || o->timeout_s < 0)
				return bad(argv[0], "--timeout %s: seconds, 0 = never", optarg);
			break;
		case OPT_QP_TYPE:
			if (strcmp(optarg, "rc") == 0)
				o->qp_type = DR_QPT_RC;
			else if (strcmp(optarg, "uc") == 0)
				o->qp_type = DR_QPT_UC;
			else if (strcmp(optarg, "ud") == 0)
				o->qp_type = DR_QPT_UD;
			else if (strcmp(optarg, "srq") == 0)
				o->qp_type = DR_QPT_RC;
			else
				return bad(argv[0], "--qp-type %s: rc, uc, ud or srq", optarg);
			o->use_srq = strcmp(optarg, "srq") == 0;
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
			if (dr_app_engine_opt(&o->engine, PP_PROG, c, optarg) != 0) {
				pp_usage(argv[0]);
				return -1;
			}
			break;
		default:
			pp_usage(argv[0]);
			return -1;
		}
	}
	if (dr_app_engine_finish(&o->engine, PP_PROG) != 0) {
		pp_usage(argv[0]);
		return -1;
	}
	if (num_qp_given && !o->use_srq)
		return bad(argv[0], "-q: %s", "only ibv_srq_pingpong (--qp-type srq) has more than one QP");
	if (mtu_given && o->qp_type == DR_QPT_UD)
		return bad(argv[0], "-m: %s", "a UD QP uses the port's active MTU (ibv_ud_pingpong has no -m)");
	if (!size_given && o->qp_type == DR_QPT_UD)
		o->size = 2048;
	if (optind == argc - 1)
		o->servername = argv[optind];
	else if (optind < argc)
		return bad(argv[0], "%s: one server address at most", argv[optind + 1]);
	if (o->use_srq) {
		if (check_srq(argv[0], o, num_qp_given) != 0)
			return -1;
	} else {
		o->num_qp = 1;
		if (o->rx_depth < 2)
			return bad(argv[0], "-r: %s", "at least 2 receives (ibv_rc_pingpong reposts at 1)");
	}
	if (o->iters == 0)
		return bad(argv[0], "-n: %s", "at least 1 iteration");
	if (o->size > (1u << 31))
		return bad(argv[0], "-s: %s", "at most 2 GiB (the IBA's message size)");
	if (o->gidx < 0)
		o->gidx = o->ipv4 != 0 ? 1 : 0;
	return 0;
}
