/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-udaddy [EAL args] -- --ip A.B.C.D [-s server] [udaddy's options]
 *
 * librdmacm's udaddy on dpdk-rdma (udaddy.h): EAL, the first DPDK port as a
 * context with --ip, the test, teardown.
 */

#include <stdio.h>

#include "dr_app.h"
#include "dr_app_port.h"
#include "udaddy.h"

volatile sig_atomic_t udaddy_stop;

int
main(int argc, char **argv)
{
	static struct udaddy_opts o;
	struct dr_app_port port;
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = udaddy_parse_args(own_argc, own_argv, &o);
	if (ret != 0)
		return ret < 0 ? 2 : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	dr_app_stop_on_signals(&udaddy_stop, true);
	ret = dr_app_port_open(UDADDY_PROG, eal_argc, argv, o.ipv4, &o.engine, &port);
	if (ret != 0)
		return ret;
	ret = udaddy_run(port.ctx, &o);
	dr_app_port_close(UDADDY_PROG, &port);
	return ret != 0 ? 1 : 0;
}
