/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-rping [EAL args] -- --ip A.B.C.D -s|-c [rping's options]
 *
 * librdmacm's rping on dpdk-rdma (rping.h): EAL, the first DPDK port as a
 * context with --ip, the session, teardown.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "dr_app.h"
#include "rping.h"

volatile sig_atomic_t rping_stop;

int
main(int argc, char **argv)
{
	static struct rping_opts o;
	struct dr_context_attr attr;
	struct dr_device **list;
	struct dr_context *ctx;
	int own_argc, eal_argc, n = 0, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = rping_parse_args(own_argc, own_argv, &o);
	if (ret != 0)
		return ret < 0 ? 2 : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	dr_app_stop_on_signals(&rping_stop, true);
	ret = dr_eal_init(eal_argc != 0 ? eal_argc : 1, argv);
	if (ret < 0) {
		fprintf(stderr, RPING_PROG ": EAL: %s (EAL arguments before \"--\")\n", strerror(-ret));
		return 2;
	}
	dr_app_context_attr(&attr, o.ipv4, NULL, 0, 0);
	dr_app_engine_attr(&o.engine, &attr);
	list = dr_get_device_list(&n);
	if (list == NULL || n == 0) {
		fprintf(stderr, RPING_PROG ": no DPDK port (give one to EAL, e.g. --vdev net_af_packet0,iface=IF)\n");
		rte_eal_cleanup();
		return 2;
	}
	ctx = dr_open_device(list[0], &attr);
	if (ctx == NULL) {
		fprintf(stderr, RPING_PROG ": dr_open_device: %s\n", strerror(errno));
		dr_free_device_list(list);
		rte_eal_cleanup();
		return 2;
	}
	ret = rping_run(ctx, &o);
	(void)dr_stop_workers(ctx);
	if (dr_close_device(ctx) != 0)
		fprintf(stderr, RPING_PROG ": dr_close_device failed\n");
	dr_free_device_list(list);
	rte_eal_cleanup();
	return ret;
}
