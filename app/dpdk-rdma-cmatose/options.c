/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* dpdk-rdma-cmatose's command line: cmatose's options (-s -b -c -C -S -p -P) and ours. */

#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dr_app.h"
#include "cmatose.h"

enum { OPT_IP = 0x100, OPT_ROUNDS, OPT_TIMEOUT };

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " CMATOSE_PROG " [EAL args] -- --ip A.B.C.D [-s server] [-b addr] [-c n] [-C n] [-S n] [-p port]\n"
		"\n"
		"librdmacm's cmatose (ucmatose) over dpdk-rdma's connection manager: rxe's\n"
		"ucmatose is its peer. Without -s: the server.\n"
		"  -s addr          client: the server's address\n"
		"  -b addr          the address to bind (default --ip)\n"
		"  -c n             connections at once (1, at most %d)\n"
		"  -C n             messages each way per connection (10)\n"
		"  -S n             message size (100)\n"
		"  -p port          the service's port (7471)\n"
		"  -P tcp           port space (tcp, the only one)\n"
		"  -V               fill what is sent, check what arrives (a peer of ours)\n"
		"      --rounds N   the whole exchange N times, new ids each time (1)\n"
		"      --ip A.B.C.D our port's IPv4 address\n"
		"      --timeout S  give up a wait after S seconds (30)\n", CMATOSE_MAX_CONN);
	dr_app_engine_usage(out, 19);
	fputs("Exit status: 0 done, 1 failed, 2 usage or setup error.\n", out);
}

static int
bad(const char *what, const char *arg)
{
	fprintf(stderr, CMATOSE_PROG ": %s %s (see --help)\n", what, arg != NULL ? arg : "");
	return -1;
}

static int
ipv4(const char *arg, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, arg, &a) != 1)
		return -1;
	*ip = a.s_addr;
	return 0;
}

int
cmatose_parse_args(int argc, char **argv, struct cmatose_opts *o)
{
	static const struct option long_options[] = {
		{ "ip", required_argument, NULL, OPT_IP },
		{ "rounds", required_argument, NULL, OPT_ROUNDS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		DR_APP_ENGINE_LONG_OPTS,
		{ 0 },
	};
	unsigned long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->connections = 1;
	o->count = 10;
	o->size = 100;
	o->port = 7471;
	o->rounds = 1;
	o->timeout_s = 30;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:b:c:C:S:p:P:Vh", long_options, NULL)) != -1) {
		switch (c) {
		case 's':
			if (ipv4(optarg, &o->dst) != 0)
				return bad("-s: not an IPv4 address:", optarg);
			break;
		case 'b':
			if (ipv4(optarg, &o->src) != 0)
				return bad("-b: not an IPv4 address:", optarg);
			break;
		case 'c':
			if (dr_app_number(optarg, 1, CMATOSE_MAX_CONN, &v) != 0)
				return bad("-c: connections from 1 to 512, not", optarg);
			o->connections = (unsigned int)v;
			break;
		case 'C':
			if (dr_app_number(optarg, 0, 4096, &v) != 0)
				return bad("-C: a count from 0 to 4096, not", optarg);
			o->count = (unsigned int)v;
			break;
		case 'S':
			if (dr_app_number(optarg, 1, 1 << 20, &v) != 0)
				return bad("-S: a size from 1 to 1048576, not", optarg);
			o->size = (unsigned int)v;
			break;
		case 'p':
			if (dr_app_number(optarg, 1, 65535, &v) != 0)
				return bad("-p: not a port:", optarg);
			o->port = (uint16_t)v;
			break;
		case 'P':
			if (strncasecmp(optarg, "tcp", 3) != 0)
				return bad("-P: only the tcp port space, not", optarg);
			break;
		case 'V':
			o->validate = true;
			break;
		case OPT_ROUNDS:
			if (dr_app_number(optarg, 1, 1000000, &v) != 0)
				return bad("--rounds: a count from 1, not", optarg);
			o->rounds = (unsigned int)v;
			break;
		case OPT_IP:
			if (ipv4(optarg, &o->ipv4) != 0)
				return bad("--ip: not an IPv4 address:", optarg);
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
				if (dr_app_engine_opt(&o->engine, CMATOSE_PROG, c, optarg) != 0)
					return -1;
				break;
			}
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		return bad("unexpected argument", argv[optind]);
	if (o->ipv4 == 0)
		return bad("--ip is needed", NULL);
	if (o->src == 0)
		o->src = o->ipv4;
	return dr_app_engine_finish(&o->engine, CMATOSE_PROG) != 0 ? -1 : 0;
}
