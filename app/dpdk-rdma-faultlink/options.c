/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The fault link's own command line (after EAL's "--"): every bad value is refused with why. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_config.h>

#include "faultlink.h"

enum {
	OPT_AB = 256, OPT_BA, OPT_BOTH, OPT_PORTS, OPT_SEED, OPT_BURST, OPT_IDLE, OPT_MAX_FRAME,
	OPT_MTU, OPT_ROCE_ONLY, OPT_DURATION,
};

static const struct option long_opts[] = {
	{ "ab", required_argument, NULL, OPT_AB },
	{ "ba", required_argument, NULL, OPT_BA },
	{ "both", required_argument, NULL, OPT_BOTH },
	{ "ports", required_argument, NULL, OPT_PORTS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "idle-us", required_argument, NULL, OPT_IDLE },
	{ "max-frame", required_argument, NULL, OPT_MAX_FRAME },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "roce-only", no_argument, NULL, OPT_ROCE_ONLY },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: " FL_PROG " [EAL options] -- [options]\n"
		"A wire between two DPDK ports (the first two, or --ports A,B) that impairs what it\n"
		"carries, each direction on its own (doc/guides/faultlink.rst).\n"
		"  --ab SPEC          impair frames from port A to port B\n"
		"  --ba SPEC          impair frames from port B to port A\n"
		"  --both SPEC        impair both directions (later --ab/--ba change what they name)\n"
		"     SPEC, as tc-netem(8) writes it:\n"
		"       loss [random] P%% | loss gemodel P%% [R%% [1-H%% [1-K%%]]]\n"
		"       duplicate P%%   corrupt P%% [bits N]   reorder P%% [frames K] [time T]\n"
		"       delay T [JITTER]   rate R [overhead BYTES]   limit FRAMES   none\n"
		"     e.g. --both 'loss 10%% reorder 5%% duplicate 1%% corrupt 0.5%%'\n"
		"  --ports A,B        the two ports (default: 0,1)\n"
		"  --seed N           seed of every random choice (default 1): same seed, same fates\n"
		"  --roce-only        impair RoCEv2 (UDP 4791) frames only, carry the rest as a wire\n"
		"  --burst N          frames per rx/tx burst, 1..%u (default %u)\n"
		"  --idle-us N        when a pass finds nothing, sleep up to N us (default 0: busy poll)\n"
		"  --max-frame N      largest frame carried, bytes (default %u)\n"
		"  --mtu N            set this MTU on both ports\n"
		"  --duration S       stop after S seconds (default: at SIGINT/SIGTERM)\n"
		"  -h, --help         this text\n"
		"At exit each direction's counters are printed; /faultlink/stats and /faultlink/config\n"
		"answer through DPDK telemetry while it runs.\n",
		FL_MAX_BURST, FL_DEFAULT_BURST, FL_DEFAULT_MAX_FRAME);
}

static int
bad(const char *opt, const char *fmt, const char *arg)
{
	fprintf(stderr, FL_PROG ": %s: ", opt);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (--help for the options)\n");
	return FL_EXIT_USAGE;
}

static int
num(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (arg[0] == '\0' || arg[0] == '-' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, FL_PROG ": %s: '%s' is not a number from %" PRIu64 " to %" PRIu64
			" (--help for the options)\n", opt, arg, min, max);
		return FL_EXIT_USAGE;
	}
	*out = v;
	return FL_EXIT_OK;
}

static int
spec(const char *opt, const char *arg, struct fl_impair_conf *c, unsigned int n)
{
	char err[256];

	for (unsigned int i = 0; i < n; i++)
		if (fl_spec_parse(arg, &c[i], err, sizeof(err)) != 0) {
			fprintf(stderr, FL_PROG ": %s '%s': %s\n", opt, arg, err);
			return FL_EXIT_USAGE;
		}
	return FL_EXIT_OK;
}

static int
ports(const char *arg, struct fl_opts *o)
{
	uint64_t a, b;
	char *comma, copy[64];

	if (strlen(arg) >= sizeof(copy))
		return bad("--ports", "'%s' is not two port numbers A,B", arg);
	strcpy(copy, arg);
	comma = strchr(copy, ',');
	if (comma == NULL)
		return bad("--ports", "'%s' is not two port numbers A,B", arg);
	*comma = '\0';
	if (num("--ports", copy, 0, RTE_MAX_ETHPORTS - 1, &a) != 0 ||
	    num("--ports", comma + 1, 0, RTE_MAX_ETHPORTS - 1, &b) != 0)
		return FL_EXIT_USAGE;
	if (a == b)
		return bad("--ports", "'%s': a port cannot be wired to itself", arg);
	o->port[0] = (uint16_t)a;
	o->port[1] = (uint16_t)b;
	o->ports_given = true;
	return FL_EXIT_OK;
}

int
fl_parse_args(int argc, char **argv, struct fl_opts *o)
{
	uint64_t v = 0;
	char *end;
	int c, ret = FL_EXIT_OK;

	memset(o, 0, sizeof(*o));
	for (unsigned int i = 0; i < FL_DIRS; i++)
		fl_impair_conf_init(&o->conf[i]);
	o->port[0] = 0;
	o->port[1] = 1;
	o->seed = 1;
	o->burst = FL_DEFAULT_BURST;
	o->max_frame = FL_DEFAULT_MAX_FRAME;
	optind = 1;
	opterr = 0;
	while (ret == FL_EXIT_OK && (c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_AB:
			ret = spec("--ab", optarg, &o->conf[0], 1);
			break;
		case OPT_BA:
			ret = spec("--ba", optarg, &o->conf[1], 1);
			break;
		case OPT_BOTH:
			ret = spec("--both", optarg, o->conf, FL_DIRS);
			break;
		case OPT_PORTS:
			ret = ports(optarg, o);
			break;
		case OPT_SEED:
			ret = num("--seed", optarg, 0, UINT64_MAX, &o->seed);
			break;
		case OPT_BURST:
			ret = num("--burst", optarg, 1, FL_MAX_BURST, &v);
			o->burst = (uint32_t)v;
			break;
		case OPT_IDLE:
			ret = num("--idle-us", optarg, 0, 1000000, &v);
			o->idle_us = (uint32_t)v;
			break;
		case OPT_MAX_FRAME:
			ret = num("--max-frame", optarg, 64, 65535 - 128 - 1024, &v);
			o->max_frame = (uint32_t)v;
			break;
		case OPT_MTU:
			ret = num("--mtu", optarg, 68, 65535, &v);
			o->mtu = (uint16_t)v;
			break;
		case OPT_ROCE_ONLY:
			o->roce_only = true;
			break;
		case OPT_DURATION:
			errno = 0;
			o->duration_s = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || errno != 0 || !(o->duration_s > 0) ||
			    o->duration_s > 1e7)
				ret = bad("--duration", "'%s' is not a number of seconds above 0", optarg);
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			fprintf(stderr, FL_PROG ": %s needs a value (--help for the options)\n",
				argv[optind - 1]);
			return FL_EXIT_USAGE;
		default:
			fprintf(stderr, FL_PROG ": unknown option '%s' (--help for the options)\n",
				argv[optind - 1]);
			return FL_EXIT_USAGE;
		}
	}
	if (ret == FL_EXIT_OK && optind < argc)
		ret = bad("arguments", "'%s' is not an option (impairments go in --ab/--ba/--both)",
			  argv[optind]);
	return ret;
}
