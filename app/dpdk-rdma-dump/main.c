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

#include "dr_app.h"
#include "dump.h"

int
main(int argc, char **argv)
{
	struct dump_opts o = { 0 };
	struct dump_stats s = { 0 };
	int own_argc, eal_argc, ret;
	char **own_argv;

	/* our options are parsed first, so that a usage error never starts EAL */
	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = dump_parse_args(own_argc, own_argv, eal_argc != 0, &o);
	if (ret != 0)
		return ret < 0 ? DUMP_EXIT_USAGE : DUMP_EXIT_OK;
	if (eal_argc == 0)
		ret = dump_pcap(&o, &s);
	else
		ret = dump_live(&o, eal_argc, argv, &s);

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
