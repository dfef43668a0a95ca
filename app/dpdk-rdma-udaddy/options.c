/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* dpdk-rdma-udaddy's command line: udaddy's options (-s -b -c -C -S -P) and ours. */

#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dr_app.h"
#include "udaddy.h"

enum { OPT_IP = 0x100, OPT_PORT, OPT_TIMEOUT };

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " UDADDY_PROG " [EAL args] -- --ip A.B.C.D [-s server] [-b addr] [-c n] [-C n] [-S n] [-V]\n"
		"\n"
		"librdmacm's udaddy over dpdk-rdma's connection manager (UD QPs through SIDR):\n"
		"rxe's udaddy is its peer. Without -s: the server.\n"
		"  -s addr          client: the server's address\n"
		"  -b addr          the address to bind (default --ip)\n"
		"  -c n             connections (1, at most %d)\n"
		"  -C n             messages each way per connection (10)\n"
		"  -S n             message size (100; at most the path MTU)\n"
		"  -P udp           port space (udp, the only one)\n"
		"  -V               check what arrives (a peer of ours: udaddy sends no pattern)\n"
		"      --ip A.B.C.D our port's IPv4 address\n"
		"      --port N     the service's port (7174, udaddy's)\n"
		"      --timeout S  give up a wait after S seconds (30)\n", UDADDY_MAX_CONN);
	dr_app_engine_usage(out, 19);
	fputs("Exit status: 0 done, 1 failed, 2 usage or setup error.\n", out);
}

static int
bad(const char *what, const char *arg)
{
	fprintf(stderr, UDADDY_PROG ": %s %s (see --help)\n", what, arg != NULL ? arg : "");
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
udaddy_parse_args(int argc, char **argv, struct udaddy_opts *o)
{
	static const struct option long_options[] = {
		{ "ip", required_argument, NULL, OPT_IP },
		{ "port", required_argument, NULL, OPT_PORT },
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
	o->port = 7174;
	o->timeout_s = 30;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:b:c:C:S:P:Vh", long_options, NULL)) != -1) {
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
			if (dr_app_number(optarg, 1, UDADDY_MAX_CONN, &v) != 0)
				return bad("-c: connections from 1 to 64, not", optarg);
			o->connections = (unsigned int)v;
			break;
		case 'C':
			if (dr_app_number(optarg, 0, 4096, &v) != 0)
				return bad("-C: a count from 0 to 4096, not", optarg);
			o->count = (unsigned int)v;
			break;
		case 'S':
			if (dr_app_number(optarg, 1, 4096, &v) != 0)
				return bad("-S: a size from 1 to 4096, not", optarg);
			o->size = (unsigned int)v;
			break;
		case 'P':
			if (strncasecmp(optarg, "udp", 3) != 0)
				return bad("-P: only the udp port space, not", optarg);
			break;
		case 'V':
			o->validate = true;
			break;
		case OPT_IP:
			if (ipv4(optarg, &o->ipv4) != 0)
				return bad("--ip: not an IPv4 address:", optarg);
			break;
		case OPT_PORT:
			if (dr_app_number(optarg, 1, 65535, &v) != 0)
				return bad("--port: not a port:", optarg);
			o->port = (uint16_t)v;
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
				if (dr_app_engine_opt(&o->engine, UDADDY_PROG, c, optarg) != 0)
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
	return dr_app_engine_finish(&o->engine, UDADDY_PROG) != 0 ? -1 : 0;
}
