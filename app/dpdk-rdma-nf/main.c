/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-nf [EAL options] -- --role nf|peer --ip ADDR [options]
 * (nf.h, doc/guides/embedding.rst). Its EAL options give it two ports:
 * port 0 carries the RDMA, port 1 only forwarded frames.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mempool.h>

#include "dr_app.h"
#include "nf.h"

static volatile sig_atomic_t stop;

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: dpdk-rdma-nf [EAL options] -- --role nf|peer --ip ADDR [options]\n"
		"  --role nf          forward between ports 0 and 1 and export one frame in N to a collector\n"
		"  --role peer        generate frames on port 0, check them on port 1, be the collector\n"
		"  --ip ADDR          port 0's IPv4 address for the transport\n"
		"  --io app|queue|graph  how the transport shares port 0 (default app): app, the program hands\n"
		"                     it the frames (DR_IO_APP); queue, it has queue pair 1 (steered, or a memif\n"
		"                     link); graph (nf only), an rte_graph with the nodes dr_rx and dr_tx-0\n"
		"  --collector ADDR   nf: the collector's IPv4 address (its CM port %u)\n"
		"  --sample N         nf: export the first %u bytes of one forwarded frame in N (default 16)\n"
		"  --once             nf: end when the first collector ends its run\n"
		"  --no-export        nf: forward only, no collector, until SIGINT or SIGTERM\n"
		"  --export-flood     nf: export full batches as fast as the collector takes them, not samples\n"
		"  --count N          peer: frames to generate (default 100000; with --duration, no limit)\n"
		"  --duration S       peer: generate for S seconds\n"
		"  --rate PPS         peer: frames per second to offer (default: as fast as port 0 takes them)\n"
		"  --no-collect       peer: no collector (the nf's --no-export): generate once the links are up\n"
		"  --flows N          peer: flows, round-robin (default 8)\n"
		"  --window N         peer: frames sent beyond those come back (default 256; 0: no limit, and\n"
		"                     frames that do not come back are counted as lost, not an error)\n"
		"  --mtu N            the link MTU for the transport (default: the port's)\n"
		"  --timeout S        every wait, in seconds (default 30)\n"
		"  -h, --help\n", NF_CM_PORT, NF_RECORD);
}

double
nf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "dpdk-rdma-nf: %s %s: %s\n", opt, arg, why);
	return -1;
}

static int
ipv4(const char *opt, const char *arg, uint32_t *a)
{
	struct in_addr in;

	if (inet_pton(AF_INET, arg, &in) != 1 || in.s_addr == 0)
		return bad(opt, arg, "not an IPv4 address");
	*a = in.s_addr;
	return 0;
}

static int
number(const char *opt, const char *arg, unsigned long min, unsigned long max, unsigned long *v)
{
	if (dr_app_number(arg, min, max, v) != 0) {
		char why[64];

		snprintf(why, sizeof(why), "not a number from %lu to %lu", min, max);
		return bad(opt, arg, why);
	}
	return 0;
}

static int
parse(int argc, char **argv, struct nf_opts *o)
{
	static const struct option longs[] = {
		{ "role", required_argument, NULL, 'r' }, { "ip", required_argument, NULL, 'i' },
		{ "io", required_argument, NULL, 'o' }, { "collector", required_argument, NULL, 'c' },
		{ "sample", required_argument, NULL, 's' }, { "count", required_argument, NULL, 'n' },
		{ "flows", required_argument, NULL, 'f' }, { "window", required_argument, NULL, 'w' },
		{ "mtu", required_argument, NULL, 'm' }, { "timeout", required_argument, NULL, 't' },
		{ "once", no_argument, NULL, '1' }, { "help", no_argument, NULL, 'h' },
		{ "no-export", no_argument, NULL, 'X' }, { "export-flood", no_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' }, { "rate", required_argument, NULL, 'R' },
		{ "no-collect", no_argument, NULL, 'C' }, { NULL, 0, NULL, 0 },
	};
	bool role = false, collector = false, count = false, nf_only = false, peer_only = false;
	unsigned long v;
	uint32_t a;
	int c;

	memset(o, 0, sizeof(*o));
	o->sample = 16;
	o->count = 100000;
	o->flows = 8;
	o->window = 256;
	o->timeout_s = 30;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (strcmp(optarg, "nf") != 0 && strcmp(optarg, "peer") != 0)
				return bad("--role", optarg, "nf or peer");
			o->role = strcmp(optarg, "nf") == 0 ? NF_ROLE_NF : NF_ROLE_PEER;
			role = true;
			break;
		case 'i':
			if (ipv4("--ip", optarg, &o->ip) != 0)
				return -1;
			break;
		case 'o':
			if (strcmp(optarg, "app") == 0)
				o->io = NF_IO_APP;
			else if (strcmp(optarg, "queue") == 0)
				o->io = NF_IO_QUEUE;
			else if (strcmp(optarg, "graph") == 0)
				o->io = NF_IO_GRAPH;
			else
				return bad("--io", optarg, "app, queue or graph");
			break;
		case 'c': {
			struct sockaddr_in *sin = (struct sockaddr_in *)&o->collector;

			if (ipv4("--collector", optarg, &a) != 0)
				return -1;
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = a;
			sin->sin_port = htons(NF_CM_PORT);
			collector = true;
			break;
		}
		case 's':
			if (number("--sample", optarg, 1, 1u << 20, &v) != 0)
				return -1;
			o->sample = (unsigned int)v;
			break;
		case 'n':
			if (number("--count", optarg, 0, 1ul << 40, &v) != 0)
				return -1;
			o->count = v;
			count = true;
			peer_only = true;
			break;
		case 'd':
			if (number("--duration", optarg, 1, 86400, &v) != 0)
				return -1;
			o->duration_s = (double)v;
			peer_only = true;
			break;
		case 'R':
			if (number("--rate", optarg, 1, 1ul << 32, &v) != 0)
				return -1;
			o->rate_pps = (double)v;
			peer_only = true;
			break;
		case 'C':
			o->no_collect = true;
			peer_only = true;
			break;
		case 'X':
			o->no_export = true;
			nf_only = true;
			break;
		case 'F':
			o->export_flood = true;
			nf_only = true;
			break;
		case 'f':
			if (number("--flows", optarg, 1, 255, &v) != 0)
				return -1;
			o->flows = (unsigned int)v;
			break;
		case 'w':
			if (number("--window", optarg, 0, 4096, &v) != 0)
				return -1;
			o->window = (unsigned int)v;
			break;
		case 'm':
			if (number("--mtu", optarg, 576, 9000, &v) != 0)
				return -1;
			o->mtu = (uint32_t)v;
			break;
		case 't':
			if (number("--timeout", optarg, 1, 86400, &v) != 0)
				return -1;
			o->timeout_s = (double)v;
			break;
		case '1':
			o->once = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		return bad("argument", argv[optind], "not an option");
	if (!role || o->ip == 0) {
		fprintf(stderr, "dpdk-rdma-nf: --role and --ip are needed\n");
		usage(stderr);
		return -1;
	}
	if (o->role == NF_ROLE_NF && !collector && !o->no_export) {
		fprintf(stderr, "dpdk-rdma-nf: --role nf needs --collector (or --no-export)\n");
		return -1;
	}
	if (o->no_export && (collector || o->export_flood || o->once)) {
		fprintf(stderr, "dpdk-rdma-nf: --no-export goes without --collector, --export-flood and --once\n");
		return -1;
	}
	if (o->role == NF_ROLE_NF && peer_only) {
		fprintf(stderr, "dpdk-rdma-nf: --count, --duration, --rate and --no-collect are the peer's\n");
		return -1;
	}
	if (o->role == NF_ROLE_PEER && nf_only) {
		fprintf(stderr, "dpdk-rdma-nf: --no-export and --export-flood are the nf's\n");
		return -1;
	}
	if (o->duration_s > 0 && !count)
		o->count = UINT64_MAX;         /* the time bounds the run */
	if (o->role == NF_ROLE_PEER && o->io == NF_IO_GRAPH) {
		fprintf(stderr, "dpdk-rdma-nf: --io graph is the nf's: run the peer with --io app\n");
		return -1;
	}
	if (o->role == NF_ROLE_PEER && collector) {
		fprintf(stderr, "dpdk-rdma-nf: --collector is the nf's: the peer is the collector\n");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct nf_opts o;
	struct nf_port p;
	unsigned int base = 0;
	int own_argc, eal_argc, rc;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	if (parse(own_argc, own_argv, &o) != 0)
		return 2;
	if (eal_argc == 0) {
		fprintf(stderr, "dpdk-rdma-nf: EAL options come first, then --\n");
		return 2;
	}
	if (rte_eal_init(eal_argc, argv) < 0) {
		fprintf(stderr, "dpdk-rdma-nf: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	dr_app_stop_on_signals(&stop, true);
	rc = nf_ports_start(&o, &p);
	base = p.pool != NULL ? rte_mempool_in_use_count(p.pool) : 0;
	if (rc == 0)
		rc = nf_transport_open(&o, &p);
	if (rc == 0)
		rc = o.role == NF_ROLE_NF ? nf_run(&o, &p, &stop) : nf_peer_run(&o, &p, &stop);
	nf_ports_stop(&p, o.role == NF_ROLE_PEER);
	if (p.pool != NULL) {
		/*
		 * Every mbuf back: none held by the program or the transport. A port
		 * that keeps its own at close is allowed what it took when it started
		 * (net_af_xdp's fill ring) and, on net_af_xdp, a tx ring of frames it
		 * sent and had not reaped yet (DPDK 22.11 reaps on its next transmit).
		 */
		unsigned int left = rte_mempool_in_use_count(p.pool), allowed = base + (p.af_xdp ? NF_DESC : 0);

		printf("dpdk-rdma-nf: pool: %u mbufs in use at exit, %u when the ports had started\n", left, base);
		if (left > allowed) {
			fprintf(stderr, "dpdk-rdma-nf: %u mbufs of the program's pool not given back\n", left - base);
			rc = -1;
		}
	}
	printf("dpdk-rdma-nf: %s\n", rc == 0 ? "done" : "failed");
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
