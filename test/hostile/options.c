/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* dr-hostile-target's command line. */

#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "hostile.h"

enum {
	OPT_IP = 0x100,
	OPT_PEER_IP,
	OPT_PEER_MAC,
	OPT_CLIENT,
	OPT_TIMEOUT,
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: " HT_PROG " [EAL args] -- --ip A.B.C.D --peer-ip A.B.C.D --peer-mac MAC [options]\n"
		"       " HT_PROG " [EAL args] -- --ip A.B.C.D --client HOST [options]\n"
		"\n"
		"The endpoint of the hostile-frame suite (test/integration/test_hostile.py).\n"
		"Target: victim RC, UC and UD QPs connected to the attacker (--peer-ip,\n"
		"--peer-mac; its QPN is 0x%06x), regions between guard pages; the layout\n"
		"as a JSON line on stdout, then one JSON line per command read on stdin:\n"
		"  qp NAME      state and expected PSN of victim NAME (rc, uc, ud)\n"
		"  reset NAME   victim NAME through RESET back to RTS, receives reposted\n"
		"  cqes         completions of the victims so far, by kind\n"
		"  check        every region's guard bytes and pattern\n"
		"  quit         check, then exit (0: intact, 1: not)\n"
		"A real client (--client) connecting on TCP gets a checked session.\n"
		"\n"
		"  --ip A.B.C.D        our IPv4 address (GID index 1)\n"
		"  --peer-ip A.B.C.D   target: the attacker's address\n"
		"  --peer-mac MAC      target: the attacker's MAC (a static neighbour)\n"
		"  --client HOST       client mode: the target's TCP address\n"
		"  -p PORT             TCP port of the session (18700)\n"
		"  -m MTU              path MTU: 256 .. 4096 (1024)\n"
		"  --timeout S         client: give up after S seconds (30)\n"
		"  --mode, --workers, --idle, --queues, --zcopy-min: the engine (dpdk-rdma-perf --help)\n"
		"\n"
		"Exit status: 0 intact / session passed, 1 a check failed, 2 usage or setup.\n",
		HT_ATTACKER_QPN);
}

static int
bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, HT_PROG ": %s %s: %s\n", opt, arg, why);
	return -1;
}

static int
parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned int *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

int
ht_parse_args(int argc, char **argv, struct ht_opts *o)
{
	static const struct option longs[] = {
		{ "ip", required_argument, NULL, OPT_IP },
		{ "peer-ip", required_argument, NULL, OPT_PEER_IP },
		{ "peer-mac", required_argument, NULL, OPT_PEER_MAC },
		{ "client", required_argument, NULL, OPT_CLIENT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		DR_APP_ENGINE_LONG_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	unsigned int mtu = 1024;
	int c;

	memset(o, 0, sizeof(*o));
	o->port = 18700;
	o->timeout_s = 30;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:m:h", longs, NULL)) != -1) {
		switch (c) {
		case OPT_IP:
			if (inet_pton(AF_INET, optarg, &o->ipv4) != 1)
				return bad("--ip", optarg, "not an IPv4 address");
			break;
		case OPT_PEER_IP:
			if (inet_pton(AF_INET, optarg, &o->peer_ipv4) != 1)
				return bad("--peer-ip", optarg, "not an IPv4 address");
			break;
		case OPT_PEER_MAC:
			if (rte_ether_unformat_addr(optarg, &o->peer_mac) != 0 || strlen(optarg) != 17)
				return bad("--peer-mac", optarg, "not a MAC (xx:xx:xx:xx:xx:xx)");
			o->peer_mac_given = true;
			break;
		case OPT_CLIENT:
			o->client = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_uint(optarg, 1, 3600, &o->timeout_s) != 0)
				return bad("--timeout", optarg, "1 .. 3600 seconds");
			break;
		case 'p':
			if (parse_uint(optarg, 1, 65535, &o->port) != 0)
				return bad("-p", optarg, "a TCP port, 1 .. 65535");
			break;
		case 'm':
			if (parse_uint(optarg, 256, 4096, &mtu) != 0 || (mtu & (mtu - 1)) != 0)
				return bad("-m", optarg, "256, 512, 1024, 2048 or 4096");
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			if (c >= DR_APP_OPT_MODE && c <= DR_APP_OPT_ZCOPY_MIN) {
				if (dr_app_engine_opt(&o->engine, HT_PROG, c, optarg) != 0)
					return -1;
				break;
			}
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, HT_PROG ": unexpected argument %s\n", argv[optind]);
		return -1;
	}
	if (o->ipv4 == 0) {
		fprintf(stderr, HT_PROG ": --ip is required\n");
		return -1;
	}
	if (o->client == NULL && (o->peer_ipv4 == 0 || !o->peer_mac_given)) {
		fprintf(stderr, HT_PROG ": the target needs --peer-ip and --peer-mac (the attacker)\n");
		return -1;
	}
	for (o->path_mtu = DR_MTU_256; dr_mtu_bytes((enum dr_mtu)o->path_mtu) != mtu; o->path_mtu++)
		;
	return dr_app_engine_finish(&o->engine, HT_PROG) != 0 ? -1 : 0;
}
