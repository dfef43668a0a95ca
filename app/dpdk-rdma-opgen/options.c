/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dr-opgen's command line (-t -d -g -p -m -s -T -L -l -E, a server address; -t
 * xrc is ours only) and
 * ours: --ip (GID index 1), --ipv6 (2, 3), --link-mtu, --timeout, and the
 * engine's --mode, --workers, --idle, --queues (app/common/dr_app_engine.h).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dr-opgen-ops.h"
#include "dr_app.h"
#include "opgen.h"

enum {
	OPT_IP = 256,
	OPT_IPV6,
	OPT_LINK_MTU,
	OPT_TIMEOUT,
};

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " OG_PROG " [EAL args] -- --ip A.B.C.D [options] [SERVER]\n"
		"       " OG_PROG " -L [-t rc|uc|ud|xrc] print the operation table\n"
		"       " OG_PROG " [EAL args] -- --ip A.B.C.D -E FAULT [options] [SERVER]\n"
		"\n"
		"dr-opgen (usertools/rxepeer/guest/dr-opgen.c) on dpdk-rdma: without SERVER\n"
		"the server (it listens on TCP), with it the client (it retries until the\n"
		"server listens). The client posts every operation of the table and checks\n"
		"its completion; the server checks every receive, the WRITE targets and the\n"
		"atomic word, and gives the verdict. With -E, one bad request instead (both\n"
		"sides given the same FAULT): the client checks its error completion, the\n"
		"server that nothing was executed and its QP's state.\n"
		"\n"
		"  -t rc|uc|ud|xrc    QP type (rc; xrc: against another " OG_PROG " only,\n"
		"                     rxe has no XRC)\n"
		"  -d DEV             device dr_<DPDK port name> (default: the first)\n"
		"  -g IDX             source GID index (default 1: the IPv4 GID of --ip)\n"
		"  -p PORT            TCP port of the exchange (%d)\n"
		"  -m MTU             path MTU: 256, 512, 1024, 2048 or 4096 (1024)\n"
		"  -s PSN             first PSN we send (client 0x%x, server 0x%x)\n"
		"  -T SECS            give up after SECS seconds: exit 3 (%d)\n"
		"  -L                 print the operation table and exit\n"
		"  -l                 lossy (uc, ud): the server takes what arrives and judges\n"
		"                     each message by itself, the losses counted\n"
		"  -E FAULT|list      run the fault FAULT (its QP type), or list them\n"
		"      --ip A.B.C.D   our IPv4 address (GID index 1)\n"
		"      --ipv6 ADDR    an IPv6 address of ours (GID index 2, then 3)\n"
		"      --link-mtu N   link MTU: the active MTU follows rxe's rule (4200: 4096)\n"
		"      --timeout S    give up connecting and the exchange after S seconds\n",
		OPGEN_PORT, OPGEN_CLIENT_PSN, OPGEN_SERVER_PSN, OPGEN_TIMEOUT_S);
	dr_app_engine_usage(out, 21);
	fputs("  -h, --help         this text\n"
	      "\n"
	      "Exit status: 0 both sides saw everything right, 1 a failed check, 2 usage\n"
	      "or setup error, 3 timeout.\n", out);
}

static int
bad(const char *fmt, const char *arg)
{
	fprintf(stderr, OG_PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	return -1;
}

int
og_parse_args(int argc, char **argv, struct og_opts *o)
{
	static const struct option long_options[] = {
		{ .name = "ip", .has_arg = 1, .val = OPT_IP },
		{ .name = "ipv6", .has_arg = 1, .val = OPT_IPV6 },
		{ .name = "link-mtu", .has_arg = 1, .val = OPT_LINK_MTU },
		{ .name = "timeout", .has_arg = 1, .val = OPT_TIMEOUT },
		{ .name = "help", .has_arg = 0, .val = 'h' },
		DR_APP_ENGINE_LONG_OPTS,
		{ 0 },
	};
	struct in_addr a;
	unsigned long v;
	char *end;
	bool tset = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->qpt = T_RC;
	o->gidx = 1;
	o->port = OPGEN_PORT;
	o->path_mtu = DR_MTU_1024;
	o->psn = -1;
	o->timeout_s = OPGEN_TIMEOUT_S;
	optind = 1;

	while ((c = getopt_long(argc, argv, "d:g:p:t:m:s:T:LE:lh", long_options, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 'g':
			if (dr_app_number(optarg, 0, 255, &v) != 0)
				return bad("-g %s: a GID index", optarg);
			o->gidx = (int)v;
			break;
		case 'p':
			if (dr_app_number(optarg, 1, 65535, &v) != 0)
				return bad("-p %s: a TCP port", optarg);
			o->port = (unsigned int)v;
			break;
		case 'T':
			if (dr_app_number(optarg, 1, 86400, &v) != 0)
				return bad("-T %s: seconds, 1 or more", optarg);
			o->timeout_s = (unsigned int)v;
			break;
		case 's':
			if (dr_app_number(optarg, 0, ~0ul, &v) != 0)
				return bad("-s %s: a PSN", optarg);
			o->psn = (long)(v & 0xFFFFFF);   /* as dr-opgen: the low 24 bits */
			break;
		case 'L':
			o->list = true;
			break;
		case 'l':
			o->lossy = true;
			break;
		case 'E':
			if (strcmp(optarg, "list") == 0) {
				for (unsigned int i = 0; i < NFAULTS; i++)
					printf("%s %s nak=0x%02x # %s\n", opgen_faults[i].name,
					       opgen_qpt_name(opgen_faults[i].qpt), opgen_faults[i].nak,
					       opgen_faults[i].why);
				return 1;
			}
			o->fault = opgen_fault_find(optarg);
			if (o->fault == NULL)
				return bad("-E %s: no such fault (-E list)", optarg);
			break;
		case 't':
			if (strcmp(optarg, "rc") == 0)
				o->qpt = T_RC;
			else if (strcmp(optarg, "uc") == 0)
				o->qpt = T_UC;
			else if (strcmp(optarg, "ud") == 0)
				o->qpt = T_UD;
			else if (strcmp(optarg, "xrc") == 0)
				o->qpt = T_XRC;
			else
				return bad("-t %s: rc, uc, ud or xrc", optarg);
			tset = true;
			break;
		case 'm':
			if (dr_app_number(optarg, 256, 4096, &v) != 0 || (v & (v - 1)) != 0)
				return bad("-m %s: 256, 512, 1024, 2048 or 4096", optarg);
			o->path_mtu = (enum dr_mtu)(__builtin_ctzl(v) - 7);
			break;
		case OPT_IP:
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return bad("--ip %s: not an IPv4 address", optarg);
			o->ipv4 = a.s_addr;
			break;
		case OPT_IPV6:
			if (dr_app_add_ipv6(OG_PROG, optarg, o->ipv6, RTE_DIM(o->ipv6), &o->num_ipv6) != 0)
				return -1;
			break;
		case OPT_LINK_MTU:
			if (dr_app_number(optarg, 576, 9216, &v) != 0)
				return bad("--link-mtu %s: 576..9216 bytes", optarg);
			o->link_mtu = (uint32_t)v;
			break;
		case OPT_TIMEOUT:
			o->tcp_timeout_s = strtod(optarg, &end);
			if (*end != '\0' || end == optarg || o->tcp_timeout_s < 0)
				return bad("--timeout %s: seconds, 0 = -T only", optarg);
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
			if (dr_app_engine_opt(&o->engine, OG_PROG, c, optarg) != 0)
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (dr_app_engine_finish(&o->engine, OG_PROG) != 0)
		return -1;
	if (o->fault != NULL) {
		if (tset && o->qpt != o->fault->qpt) {
			fprintf(stderr, OG_PROG ": -E %s is a %s fault, not -t %s\n", o->fault->name,
				opgen_qpt_name(o->fault->qpt), opgen_qpt_name(o->qpt));
			return -1;
		}
		o->qpt = o->fault->qpt;
	}
	if (o->lossy && (o->fault != NULL || (o->qpt != T_UC && o->qpt != T_UD)))
		return bad("-l: the uc and ud tables only, not %s (rc and xrc recover every loss)",
			   o->fault != NULL ? "a fault run" : opgen_qpt_name(o->qpt));
	if (optind < argc)
		o->host = argv[optind++];
	if (optind < argc)
		return bad("%s: one server address at most", argv[optind]);
	return 0;
}
