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
#include "rping.h"

enum { OPT_IP = 0x100, OPT_TIMEOUT };

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " RPING_PROG " [EAL args] -- --ip A.B.C.D -s [-vV] [-S size] [-C count] [-a addr] [-p port]\n"
		"       " RPING_PROG " [EAL args] -- --ip A.B.C.D -c [-vV] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
		"\n"
		"librdmacm's rping over dpdk-rdma's connection manager: rxe's rping is its peer.\n"
		"  -s / -c          server / client\n"
		"  -a addr          server: the address to listen on (default --ip); client: the server's\n"
		"  -p port          port (7174)\n"
		"  -I addr          client: source address (default --ip)\n"
		"  -C count         pings (0: until stopped; default 0)\n"
		"  -S size          ping data size, %d .. %d (64)\n"
		"  -v               print the ping data\n"
		"  -V               validate the ping data\n"
		"      --ip A.B.C.D our port's IPv4 address\n"
		"      --timeout S  give up a wait after S seconds (30)\n", RPING_MIN_SIZE, RPING_MAX_SIZE);
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
		{ "ip", required_argument, NULL, OPT_IP },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		DR_APP_ENGINE_LONG_OPTS,
		{ 0 },
	};
	bool side = false, addr = false;
	struct in_addr a;
	unsigned long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->size = 64;
	o->timeout_s = 30;
	o->addr.sin_family = AF_INET;
	o->addr.sin_port = htons(7174);
	optind = 1;
	while ((c = getopt_long(argc, argv, "sca:p:I:C:S:vVh", long_options, NULL)) != -1) {
		switch (c) {
		case 's':
		case 'c':
			o->server = c == 's';
			side = true;
			break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return bad("-a: not an IPv4 address:", optarg);
			o->addr.sin_addr = a;
			addr = true;
			break;
		case 'p':
			if (dr_app_number(optarg, 1, 65535, &v) != 0)
				return bad("-p: not a port:", optarg);
			o->addr.sin_port = htons((uint16_t)v);
			break;
		case 'I':
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return bad("-I: not an IPv4 address:", optarg);
			o->src = a.s_addr;
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
		case OPT_IP:
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return bad("--ip: not an IPv4 address:", optarg);
			o->ipv4 = a.s_addr;
			break;
		case OPT_TIMEOUT:
			if (dr_app_number(optarg, 1, 86400, &v) != 0)
				return bad("--timeout: seconds, not", optarg);
			o->timeout_s = (double)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			if (c >= DR_APP_OPT_MODE && c <= DR_APP_OPT_ZCOPY_MIN) {
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
	if (o->ipv4 == 0)
		return bad("--ip is needed", NULL);
	if (!o->server && !addr)
		return bad("-c needs -a (the server's address)", NULL);
	if (o->server && !addr)
		o->addr.sin_addr.s_addr = o->ipv4;
	if (o->src == 0)
		o->src = o->ipv4;
	return dr_app_engine_finish(&o->engine, RPING_PROG) != 0 ? -1 : 0;
}
