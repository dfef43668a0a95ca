/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* dpdk-rdma-rping's command line: rping's options (-s -c -a -p -I -C -S -v -V) and ours. */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dr_app.h"
#include "dr_app_cm.h"
#include "rping.h"


static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " RPING_PROG " [EAL args] -- --ip A.B.C.D|--ipv6 ADDR -s [-vV] [-S size] [-C count] [-a addr] [-p port]\n"
		"       " RPING_PROG " [EAL args] -- --ip A.B.C.D|--ipv6 ADDR -c [-vV] [-S size] [-C count] [-I addr] -a addr\n"
		"                       [-p port]\n"
		"\n"
		"librdmacm's rping over dpdk-rdma's connection manager: rxe's rping is its peer.\n"
		"  -s / -c          server / client\n"
		"  -a addr          server: the address to listen on (default :: with --ipv6, else --ip);\n"
		"                   client: the server's (IPv4 or IPv6)\n"
		"  -p port          port (7174)\n"
		"  -I addr          client: source address (default: the one that reaches -a)\n"
		"  -C count         pings (0: until stopped; default 0)\n"
		"  -S size          ping data size, %d .. %d (64)\n"
		"  -v               print the ping data\n"
		"  -V               validate the ping data\n"
		"      --timeout S  give up a wait after S seconds (30)\n"
		DR_APP_CM_ADDR_HELP, RPING_MIN_SIZE, RPING_MAX_SIZE);
	dr_app_engine_usage(out, 19);
	fputs("Exit status: 0 done, 1 failed, 2 usage or setup error.\n", out);
}

static int
bad(const char *what, const char *arg)
{
	fprintf(stderr, RPING_PROG ": %s %s (see --help)\n", what, arg != NULL ? arg : "");
	return -1;
}

int
rping_parse_args(int argc, char **argv, void *opts)
{
	struct rping_opts *o = opts;
	static const struct option long_options[] = {
		DR_APP_CM_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		DR_APP_ENGINE_LONG_OPTS,
		{ 0 },
	};
	bool side = false;
	unsigned long v;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->size = 64;
	o->timeout_s = 30;
	o->port = 7174;
	optind = 1;
	while ((c = getopt_long(argc, argv, "sca:p:I:C:S:vVh", long_options, NULL)) != -1) {
		ret = dr_app_ips_opt(&o->ips, RPING_PROG, c, optarg);
		if (ret < 0)
			return -1;
		if (ret > 0)
			continue;
		switch (c) {
		case 's':
		case 'c':
			o->server = c == 's';
			side = true;
			break;
		case 'a':
			if (dr_app_cm_addr(RPING_PROG, "-a", optarg, &o->addr) != 0)
				return -1;
			break;
		case 'p':
			if (dr_app_number(optarg, 1, 65535, &v) != 0)
				return bad("-p: not a port:", optarg);
			o->port = (uint16_t)v;
			break;
		case 'I':
			if (dr_app_cm_addr(RPING_PROG, "-I", optarg, &o->src) != 0)
				return -1;
			break;
		case 'C':
			if (dr_app_number(optarg, 0, 1u << 30, &v) != 0)
				return bad("-C: not a count:", optarg);
			o->count = (unsigned int)v;
			break;
		case 'S':
			if (dr_app_number(optarg, RPING_MIN_SIZE, RPING_MAX_SIZE, &v) != 0)
				return bad("-S: a size from 24 to 65535, not", optarg);
			o->size = (unsigned int)v;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'V':
			o->validate = true;
			break;
		case DR_APP_CM_OPT_TIMEOUT:
			if (dr_app_number(optarg, 1, 86400, &v) != 0)
				return bad("--timeout: seconds, not", optarg);
			o->timeout_s = (double)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			if (c >= DR_APP_OPT_MODE && c <= DR_APP_OPT_LAST) {
				if (dr_app_engine_opt(&o->engine, RPING_PROG, c, optarg) != 0)
					return -1;
				break;
			}
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		return bad("unexpected argument", argv[optind]);
	if (!side)
		return bad("-s or -c is needed", NULL);
	if (o->ips.ipv4 == 0 && o->ips.num_ipv6 == 0)
		return bad("--ip or --ipv6 is needed", NULL);
	if (!o->server && o->addr.ss_family == AF_UNSPEC)
		return bad("-c needs -a (the server's address)", NULL);
	if (o->server && o->addr.ss_family == AF_UNSPEC)
		o->addr = dr_app_cm_bind_default(&o->ips);
	o->addr = dr_app_cm_with_port(&o->addr, o->port);
	return dr_app_engine_finish(&o->engine, RPING_PROG) != 0 ? -1 : 0;
}
