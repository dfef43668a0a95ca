/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-rping [EAL args] -- --ip A.B.C.D -s|-c [rping's options]
 *
 * librdmacm's rping on dpdk-rdma (rping.h): EAL, the first DPDK port as a
 * context with --ip, the session, teardown.
 */

#include "dr_app_cm.h"
#include "rping.h"

volatile sig_atomic_t rping_stop;

int
main(int argc, char **argv)
{
	static struct rping_opts o;

	return dr_app_cm_main(argc, argv, RPING_PROG, &rping_stop, rping_parse_args, rping_run, &o, &o.ips,
			      &o.engine);
}
