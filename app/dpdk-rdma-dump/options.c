/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The program's own command line: options, their checks, the usage text. */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include "dump.h"

enum {
	OPT_JSON = 256,
	OPT_FAIL_ON_ERROR,
	OPT_PORT,
	OPT_COUNT,
	OPT_DURATION,
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "verbose", no_argument, NULL, 'v' },
	{ "fail-on-error", no_argument, NULL, OPT_FAIL_ON_ERROR },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void
dump_usage(FILE *out)
{
	fprintf(out,
		"usage: " DUMP_PROG " [--json] [--verbose] [--fail-on-error] FILE\n"
		"       " DUMP_PROG " <EAL args> -- --port N [--count K] [--duration SECS]\n"
		"                      [--json] [--verbose] [--fail-on-error]\n"
		"\n"
		"Prints the RoCEv2 frames (UDP port 4791) of a pcap/pcapng FILE (\"-\": standard\n"
		"input) or of DPDK port N, one line per frame, with the ICRC verdict.\n"
		"\n"
		"  --json           one JSON object per line; the summary goes to standard error\n"
		"  -v, --verbose    also print addresses, ports, P_Key, pad, VLAN, FECN/BECN,\n"
		"                   and a line for each frame that is not RoCEv2\n"
		"  --fail-on-error  exit 1 if a frame had a bad ICRC or was malformed\n"
		"  --port N         live mode: the ethdev port to capture on\n"
		"  --count K        live mode: stop after K RoCEv2 frames\n"
		"  --duration SECS  live mode: stop after SECS seconds (also on SIGINT/SIGTERM)\n"
		"  -h, --help       this text\n"
		"\n"
		"Exit status: 0 success, 1 input or device error (or --fail-on-error), 2 usage.\n");
}

void
dump_err(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, DUMP_PROG ": %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || n > max) {
		dump_err(opt, "invalid value '%s'", s);
		return -1;
	}
	*v = n;
	return 0;
}

static int
parse_seconds(const char *s, double *v)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(d) || d <= 0) {
		dump_err("--duration", "invalid value '%s' (seconds, above 0)", s);
		return -1;
	}
	*v = d;
	return 0;
}

int
dump_parse_args(int argc, char **argv, bool live, struct dump_opts *o)
{
	bool have_port = false, live_only = false;
	uint64_t v;
	int c;

	o->live = live;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hv", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			o->json = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_FAIL_ON_ERROR:
			o->fail_on_error = true;
			break;
		case OPT_PORT:
			if (parse_u64("--port", optarg, UINT16_MAX, &v) != 0)
				goto usage;
			o->port = (uint16_t)v;
			have_port = true;
			live_only = true;
			break;
		case OPT_COUNT:
			if (parse_u64("--count", optarg, UINT64_MAX, &o->count) != 0)
				goto usage;
			live_only = true;
			break;
		case OPT_DURATION:
			if (parse_seconds(optarg, &o->duration) != 0)
				goto usage;
			live_only = true;
			break;
		case 'h':
			dump_usage(stdout);
			return 1;
		default:
			/* getopt_long() has said what is wrong */
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	/* EAL runs its own getopt_long() over the other half of the command line */
	optind = 1;

	if (live) {
		if (argc != 0) {
			dump_err(argv[0], "unexpected argument in live mode");
			goto usage;
		}
		if (!have_port) {
			dump_err("--port", "required in live mode");
			goto usage;
		}
		return 0;
	}
	if (live_only) {
		dump_err("--port/--count/--duration", "only valid in live mode (after \"--\")");
		goto usage;
	}
	if (argc != 1) {
		dump_err("usage", argc == 0 ? "missing capture file" : "more than one capture file");
		goto usage;
	}
	o->file = argv[0];
	return 0;

usage:
	dump_usage(stderr);
	return -1;
}
