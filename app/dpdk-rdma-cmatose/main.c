/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-cmatose [EAL args] -- --ip A.B.C.D [-s server] [cmatose's options]
 *
 * librdmacm's cmatose on dpdk-rdma (cmatose.h): EAL, the first DPDK port as a
 * context with --ip, the test, teardown.
 */

#include <stdio.h>

#include "dr_app.h"
#include "dr_app_port.h"
#include "cmatose.h"

volatile sig_atomic_t cmatose_stop;

int
main(int argc, char **argv)
{
	static struct cmatose_opts o;
	struct dr_app_port port;
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = cmatose_parse_args(own_argc, own_argv, &o);
	if (ret != 0)
		return ret < 0 ? 2 : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	dr_app_stop_on_signals(&cmatose_stop, true);
	ret = dr_app_port_open(CMATOSE_PROG, eal_argc, argv, o.ipv4, &o.engine, &port);
	if (ret != 0)
		return ret;
	ret = cmatose_run(port.ctx, &o);
	dr_app_port_close(CMATOSE_PROG, &port);
	return ret != 0 ? 1 : 0;
}
