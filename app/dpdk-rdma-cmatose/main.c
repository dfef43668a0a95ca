/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-cmatose [EAL args] -- --ip A.B.C.D | --ipv6 ADDR [-s server] [cmatose's options]
 *
 * librdmacm's cmatose on dpdk-rdma (cmatose.h): EAL, the first DPDK port as a
 * context with --ip / --ipv6, the test, teardown.
 */

#include "cmatose.h"

volatile sig_atomic_t cmatose_stop;

int
main(int argc, char **argv)
{
	static struct cmatose_opts o;

	return dr_app_cm_main(argc, argv, CMATOSE_PROG, &cmatose_stop, cmatose_parse_args, cmatose_run, &o,
			      &o.cm.ips, &o.cm.engine);
}
