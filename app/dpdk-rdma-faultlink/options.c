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
	OPT_MTU, OPT_ROCE_ONLY, OPT_DURATION, OPT_SWITCH, OPT_EGRESS, OPT_EGRESS_GROUP, OPT_ALL,
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
	{ "switch", no_argument, NULL, OPT_SWITCH },
	{ "egress", required_argument, NULL, OPT_EGRESS },
	{ "egress-group", required_argument, NULL, OPT_EGRESS_GROUP },
	{ "all", required_argument, NULL, OPT_ALL },
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
		"       ecn [kmin SIZE] [kmax SIZE] [pmax P%%] | ecn off   (RED/ECN marking at the queue;\n"
		"        SIZE in bytes, units B KB MB GB KiB MiB GiB)\n"
		"     e.g. --both 'loss 10%% reorder 5%% duplicate 1%% corrupt 0.5%%'\n"
		"  --ports A,B        the two ports (default: 0,1); --switch: A,B,C... (default: all)\n"
		"  --seed N           seed of every random choice (default 1): same seed, same fates\n"
		"  --roce-only        impair RoCEv2 (UDP 4791) frames only, carry the rest as a wire\n"
		"  --burst N          frames per rx/tx burst, 1..%u (default %u)\n"
		"  --idle-us N        when a pass finds nothing, sleep up to N us (default 0: busy poll)\n"
		"  --max-frame N      largest frame carried, bytes (default %u)\n"
		"  --mtu N            set this MTU on both ports\n"
		"  --duration S       stop after S seconds (default: at SIGINT/SIGTERM)\n"
		"  -h, --help         this text\n"
		"A learning switch of up to %u ports instead (--switch): every port (or --ports\n"
		"A,B,C...) switched by MAC, each output behind an egress queue:\n"
		"  --switch           be a switch of the ports\n"
		"  --all SPEC         impair every egress queue\n"
		"  --egress PORT SPEC impair the egress queue of port PORT\n"
		"  --egress-group P,Q,... SPEC  ports P, Q, ... share one egress queue (one rate, one\n"
		"                     ECN marker), impaired with SPEC\n"
		"At exit each direction's (each port's and egress queue's) counters are printed;\n"
		"/faultlink/stats and /faultlink/config answer through DPDK telemetry while it runs.\n",
		FL_MAX_BURST, FL_DEFAULT_BURST, FL_DEFAULT_MAX_FRAME, FL_MAX_PORTS);
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

/* "2,3,5": distinct port numbers, at most FL_MAX_PORTS; @min of them at least */
static int
port_list(const char *opt, const char *arg, unsigned int min, uint16_t *out, unsigned int *n)
{
	char copy[256], *save = NULL, *t;
	uint64_t v;

	*n = 0;
	if (strlen(arg) >= sizeof(copy))
		return bad(opt, "'%s' is not a list of port numbers", arg);
	strcpy(copy, arg);
	for (t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (*n == FL_MAX_PORTS)
			return bad(opt, "'%s': more ports than the switch has (16 at most)", arg);
		if (num(opt, t, 0, RTE_MAX_ETHPORTS - 1, &v) != FL_EXIT_OK)
			return FL_EXIT_USAGE;
		for (unsigned int i = 0; i < *n; i++)
			if (out[i] == v)
				return bad(opt, "'%s': a port is named twice", arg);
		out[(*n)++] = (uint16_t)v;
	}
	if (*n < min)
		return bad(opt, min > 1 ? "'%s' is not a list of two port numbers or more" :
			   "'%s' is not a list of port numbers", arg);
	return FL_EXIT_OK;
}

/* --all SPEC, --egress PORT SPEC, --egress-group P,Q SPEC (the SPEC of the last two is the next
 * argument): recorded for the switch's setup, the SPEC checked now */
static int
egress_op(struct fl_opts *o, enum fl_egress_kind kind, const char *opt, const char *arg,
	  int argc, char **argv)
{
	struct fl_egress_op *op;
	struct fl_impair_conf scratch;
	uint64_t v = 0;
	int ret;

	if (o->n_eg == FL_MAX_EGRESS_OPS)
		return bad(opt, "more than %s --all, --egress and --egress-group options", "64");
	op = &o->eg[o->n_eg];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	if (kind == FL_EG_ALL) {
		op->spec = arg;
	} else {
		if (optind >= argc)
			return bad(opt, "'%s' needs a SPEC after it (e.g. 'rate 100mbit')", arg);
		op->spec = argv[optind++];
		if (kind == FL_EG_PORT) {
			ret = num(opt, arg, 0, RTE_MAX_ETHPORTS - 1, &v);
			op->ports[0] = (uint16_t)v;
			op->n = 1;
		} else {
			ret = port_list(opt, arg, 1, op->ports, &op->n);
		}
		if (ret != FL_EXIT_OK)
			return ret;
	}
	if (kind == FL_EG_GROUP)
		for (unsigned int k = 0; k < o->n_eg; k++)
			for (unsigned int i = 0; o->eg[k].kind == FL_EG_GROUP && i < o->eg[k].n; i++)
				for (unsigned int j = 0; j < op->n; j++)
					if (o->eg[k].ports[i] == op->ports[j]) {
						fprintf(stderr, FL_PROG ": --egress-group %s: port %u is in "
							"another group already (--help for the options)\n",
							arg, op->ports[j]);
						return FL_EXIT_USAGE;
					}
	fl_impair_conf_init(&scratch);
	ret = spec(opt, op->spec, &scratch, 1);
	if (ret == FL_EXIT_OK)
		o->n_eg++;
	return ret;
}

int
fl_parse_args(int argc, char **argv, struct fl_opts *o)
{
	const char *ports_arg = NULL, *wire_opt = NULL;
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
	/* "+": no permutation, --egress's SPEC is the argument after its PORT */
	while (ret == FL_EXIT_OK && (c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_AB:
			ret = spec("--ab", optarg, &o->conf[0], 1);
			wire_opt = "--ab";
			break;
		case OPT_BA:
			ret = spec("--ba", optarg, &o->conf[1], 1);
			wire_opt = "--ba";
			break;
		case OPT_BOTH:
			ret = spec("--both", optarg, o->conf, FL_DIRS);
			wire_opt = "--both";
			break;
		case OPT_PORTS:
			ports_arg = optarg;
			break;
		case OPT_SWITCH:
			o->sw = true;
			break;
		case OPT_ALL:
			ret = egress_op(o, FL_EG_ALL, "--all", optarg, argc, argv);
			break;
		case OPT_EGRESS:
			ret = egress_op(o, FL_EG_PORT, "--egress", optarg, argc, argv);
			break;
		case OPT_EGRESS_GROUP:
			ret = egress_op(o, FL_EG_GROUP, "--egress-group", optarg, argc, argv);
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
	if (ret == FL_EXIT_OK && o->sw && wire_opt != NULL)
		ret = bad(wire_opt, "%s", "is for the two-port wire: a --switch takes --all, --egress "
			  "and --egress-group");
	if (ret == FL_EXIT_OK && !o->sw && o->n_eg > 0)
		ret = bad(o->eg[0].kind == FL_EG_ALL ? "--all" : o->eg[0].kind == FL_EG_PORT ?
			  "--egress" : "--egress-group", "%s", "needs --switch");
	if (ret == FL_EXIT_OK && ports_arg != NULL)
		ret = o->sw ? port_list("--ports", ports_arg, 2, o->sw_port, &o->n_sw_ports) :
			      ports(ports_arg, o);
	return ret;
}
