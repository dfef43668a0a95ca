/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The command line of dpdk-rdma-server and dpdk-rdma-client: rdma_server's and rdma_client's -s -p, and ours. */

#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "dr_app.h"
#include "dr_app_cm.h"
#include "cmsample.h"

static void
usage(FILE *out, const struct cmsample_opts *o, bool client)
{
	fprintf(out, "usage: %s [EAL args] -- --ip A.B.C.D|--ipv6 ADDR %s[-p port]\n\n"
		"librdmacm's %s over dpdk-rdma's connection manager: rxe's %s is its peer.\n"
		"%s"
		"  -p port          the service's port (7471)\n"
		DR_APP_CM_ADDR_HELP, o->prog, client ? "-s server " : "[-s addr] ",
		client ? "rdma_client" : "rdma_server", client ? "rdma_server" : "rdma_client",
		client ? "  -s addr          the server's address (IPv4 or IPv6)\n" :
			 "  -s addr          the address to bind (:: with --ipv6, else 0.0.0.0)\n");
	dr_app_engine_usage(out, 19);
	fputs("Exit status: 0 done, 1 failed, 2 usage or setup error.\n", out);
}

static int
bad(const struct cmsample_opts *o, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s %s (see --help)\n", o->prog, what, arg != NULL ? arg : "");
	return -1;
}

int
cmsample_parse_args(int argc, char **argv, bool client, struct cmsample_opts *o)
{
	static const struct option long_options[] = {
		DR_APP_CM_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		DR_APP_ENGINE_LONG_OPTS,
		{ 0 },
	};
	const char *prog = o->prog;
	struct sockaddr_storage a;
	unsigned long v;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->prog = prog;
	o->port = "7471";
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:p:h", long_options, NULL)) != -1) {
		ret = dr_app_ips_opt(&o->ips, prog, c, optarg);
		if (ret < 0)
			return -1;
		if (ret > 0)
			continue;
		switch (c) {
		case 's':
			if (dr_app_cm_addr(prog, "-s", optarg, &a) != 0)
				return -1;
			o->server = optarg;
			break;
		case 'p':
			if (dr_app_number(optarg, 1, 65535, &v) != 0)
				return bad(o, "-p: not a port:", optarg);
			o->port = optarg;
			break;
		case 'h':
			usage(stdout, o, client);
			return 1;
		default:
			if (c >= DR_APP_OPT_MODE && c <= DR_APP_OPT_LAST) {
				if (dr_app_engine_opt(&o->engine, prog, c, optarg) != 0)
					return -1;
				break;
			}
			usage(stderr, o, client);
			return -1;
		}
	}
	if (optind < argc)
		return bad(o, "unexpected argument", argv[optind]);
	if (o->ips.ipv4 == 0 && o->ips.num_ipv6 == 0)
		return bad(o, "--ip or --ipv6 is needed", NULL);
	if (client && o->server == NULL)
		return bad(o, "-s is needed (the server's address)", NULL);
	return dr_app_engine_finish(&o->engine, prog) != 0 ? -1 : 0;
}
