/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* dpdk-rdma-cmatose's command line: cmatose's options (-s -b -c -C -S -p -P) and ours. */

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dr_app.h"
#include "cmatose.h"

enum { OPT_ROUNDS = 0x100 };

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " CMATOSE_PROG " [EAL args] -- --ip A.B.C.D|--ipv6 ADDR [-s server] [-b addr] [-c n] [-C n] [-S n] [-p port]\n"
		"\n"
		"librdmacm's cmatose (ucmatose) over dpdk-rdma's connection manager: rxe's\n"
		"ucmatose is its peer. Without -s: the server.\n"
		"  -s addr          client: the server's address (IPv4 or IPv6)\n"
		"  -b addr          the address to bind (server: :: with --ipv6, else --ip;\n"
		"                   client: the source that reaches the server)\n"
		"  -c n             connections at once (1, at most %d)\n"
		"  -C n             messages each way per connection (10)\n"
		"  -S n             message size (100)\n"
		"  -p port          the service's port (7471)\n"
		"  -P tcp           port space (tcp, the only one)\n"
		"  -V               fill what is sent, check what arrives (a peer of ours)\n"
		"      --rounds N   the whole exchange N times, new ids each time (1)\n"
		"      --timeout S  give up a wait after S seconds (30)\n"
		DR_APP_CM_ADDR_HELP, CMATOSE_MAX_CONN);
	dr_app_engine_usage(out, 19);
	fputs("Exit status: 0 done, 1 failed, 2 usage or setup error.\n", out);
}

static int
bad(const char *what, const char *arg)
{
	fprintf(stderr, CMATOSE_PROG ": %s %s (see --help)\n", what, arg != NULL ? arg : "");
	return -1;
}

int
cmatose_parse_args(int argc, char **argv, void *opts)
{
	static const struct option long_options[] = {
		DR_APP_CM_LONG_OPTS,
		{ "rounds", required_argument, NULL, OPT_ROUNDS },
		{ "help", no_argument, NULL, 'h' },
		DR_APP_ENGINE_LONG_OPTS,
		{ 0 },
	};
	struct cmatose_opts *o = opts;
	unsigned long v;
	int c, taken;

	memset(o, 0, sizeof(*o));
	dr_app_cm_opts_init(&o->cm, CMATOSE_MAX_CONN, 1u << 20);
	o->port = 7471;
	o->rounds = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:b:c:C:S:p:P:Vh", long_options, NULL)) != -1) {
		taken = dr_app_cm_opt(&o->cm, CMATOSE_PROG, c, optarg);
		if (taken < 0)
			return -1;
		if (taken > 0)
			continue;
		switch (c) {
		case 'p':
			if (dr_app_number(optarg, 1, 65535, &v) != 0)
				return bad("-p: not a port:", optarg);
			o->port = (uint16_t)v;
			break;
		case 'P':
			if (strncasecmp(optarg, "tcp", 3) != 0)
				return bad("-P: only the tcp port space, not", optarg);
			break;
		case OPT_ROUNDS:
			if (dr_app_number(optarg, 1, 1000000, &v) != 0)
				return bad("--rounds: a count from 1, not", optarg);
			o->rounds = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		return bad("unexpected argument", argv[optind]);
	return dr_app_cm_opts_finish(&o->cm, CMATOSE_PROG);
}
