/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-dump [--json] [--verbose] [--fail-on-error] FILE
 * dpdk-rdma-dump <EAL args> -- --port N [--count K] [--duration SECS] [--json] ...
 *
 * A "--" on the command line selects live mode: what comes before it is
 * for rte_eal_init(), what comes after is ours.
 */

#include <stdio.h>
#include <string.h>

#include "dump.h"

/* Index of the first "--", or -1. */
static int
find_separator(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return -1;
}

int
main(int argc, char **argv)
{
	struct dump_opts o = { 0 };
	struct dump_stats s = { 0 };
	int sep = find_separator(argc, argv);
	int ret;

	if (sep < 0) {
		ret = dump_parse_args(argc, argv, false, &o);
		if (ret != 0)
			return ret < 0 ? DUMP_EXIT_USAGE : DUMP_EXIT_OK;
		ret = dump_pcap(&o, &s);
	} else {
		/* our options are parsed first, so that a usage error never starts EAL */
		char *saved = argv[sep];

		argv[sep] = argv[0];
		ret = dump_parse_args(argc - sep, argv + sep, true, &o);
		argv[sep] = saved;
		if (ret != 0)
			return ret < 0 ? DUMP_EXIT_USAGE : DUMP_EXIT_OK;
		ret = dump_live(&o, sep, argv, &s);
	}

	if (fflush(stdout) != 0 || ferror(stdout)) {
		dump_err("standard output", "write error");
		return DUMP_EXIT_FAIL;
	}
	if (ret != 0)
		return DUMP_EXIT_FAIL;
	if (o.fail_on_error && (s.bad_icrc != 0 || s.malformed != 0))
		return DUMP_EXIT_FAIL;
	return DUMP_EXIT_OK;
}
