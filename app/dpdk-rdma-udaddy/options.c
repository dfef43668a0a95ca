/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* dpdk-rdma-udaddy's command line: udaddy's options (-s -b -c -C -S -P) and ours. */

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dr_app.h"
#include "udaddy.h"

enum { OPT_PORT = 0x100 };

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " UDADDY_PROG " [EAL args] -- --ip A.B.C.D|--ipv6 ADDR [-s server] [-b addr] [-c n] [-C n] [-S n] [-V]\n"
		"\n"
		"librdmacm's udaddy over dpdk-rdma's connection manager (UD QPs through SIDR):\n"
		"rxe's udaddy is its peer. Without -s: the server.\n"
		"  -s addr          client: the server's address (IPv4 or IPv6)\n"
		"  -b addr          the address to bind (server: :: with --ipv6, else --ip;\n"
		"                   client: the source that reaches the server)\n"
		"  -c n             connections (1, at most %d)\n"
		"  -C n             messages each way per connection (10)\n"
		"  -S n             message size (100; at most the path MTU)\n"
		"  -P udp           port space (udp, the only one)\n"
		"  -V               check what arrives (a peer of ours: udaddy sends no pattern)\n"
		"      --port N     the service's port (7174, udaddy's)\n"
		"      --timeout S  give up a wait after S seconds (30)\n"
		DR_APP_CM_ADDR_HELP, UDADDY_MAX_CONN);
	dr_app_engine_usage(out, 19);
	fputs("Exit status: 0 done, 1 failed, 2 usage or setup error.\n", out);
}

static int
bad(const char *what, const char *arg)
{
	fprintf(stderr, UDADDY_PROG ": %s %s (see --help)\n", what, arg != NULL ? arg : "");
	return -1;
}

int
udaddy_parse_args(int argc, char **argv, void *opts)
{
	static const struct option long_options[] = {
		DR_APP_CM_LONG_OPTS,
		{ "port", required_argument, NULL, OPT_PORT },
		{ "help", no_argument, NULL, 'h' },
		DR_APP_ENGINE_LONG_OPTS,
		{ 0 },
	};
	struct udaddy_opts *o = opts;
	unsigned long v;
	int c, taken;

	memset(o, 0, sizeof(*o));
	dr_app_cm_opts_init(&o->cm, UDADDY_MAX_CONN, 4096);
	o->port = 7174;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:b:c:C:S:P:Vh", long_options, NULL)) != -1) {
		taken = dr_app_cm_opt(&o->cm, UDADDY_PROG, c, optarg);
		if (taken < 0)
			return -1;
		if (taken > 0)
			continue;
		switch (c) {
		case 'P':
			if (strncasecmp(optarg, "udp", 3) != 0)
				return bad("-P: only the udp port space, not", optarg);
			break;
		case OPT_PORT:
			if (dr_app_number(optarg, 1, 65535, &v) != 0)
				return bad("--port: not a port:", optarg);
			o->port = (uint16_t)v;
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
	return dr_app_cm_opts_finish(&o->cm, UDADDY_PROG);
}
