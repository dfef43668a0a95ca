/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-udaddy [EAL args] -- --ip A.B.C.D | --ipv6 ADDR [-s server] [udaddy's options]
 *
 * librdmacm's udaddy on dpdk-rdma (udaddy.h): EAL, the first DPDK port as a
 * context with --ip / --ipv6, the test, teardown.
 */

#include "udaddy.h"

volatile sig_atomic_t udaddy_stop;

int
main(int argc, char **argv)
{
	static struct udaddy_opts o;

	return dr_app_cm_main(argc, argv, UDADDY_PROG, &udaddy_stop, udaddy_parse_args, udaddy_run, &o,
			      &o.cm.ips, &o.cm.engine);
}
