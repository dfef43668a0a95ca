/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* EAL and the first port as a context, for the connection manager's programs (dr_app_port.h). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "dr_app.h"
#include "dr_app_port.h"

int
dr_app_port_open(const char *prog, int eal_argc, char **argv, const struct dr_app_ips *ips,
		 const struct dr_app_engine *engine, struct dr_app_port *p)
{
	struct dr_context_attr attr;
	int n = 0, ret;

	memset(p, 0, sizeof(*p));
	ret = dr_eal_init(eal_argc != 0 ? eal_argc : 1, argv);
	if (ret < 0) {
		fprintf(stderr, "%s: EAL: %s (EAL arguments before \"--\")\n", prog, strerror(-ret));
		return 2;
	}
	dr_app_context_attr(&attr, ips->ipv4, (const uint8_t (*)[16])ips->ipv6, ips->num_ipv6, 0);
	dr_app_engine_attr(engine, &attr);
	p->list = dr_get_device_list(&n);
	if (p->list == NULL || n == 0) {
		fprintf(stderr, "%s: no DPDK port (give one to EAL, e.g. --vdev net_af_packet0,iface=IF)\n", prog);
		dr_free_device_list(p->list);
		rte_eal_cleanup();
		return 2;
	}
	p->ctx = dr_open_device(p->list[0], &attr);
	if (p->ctx == NULL) {
		fprintf(stderr, "%s: dr_open_device: %s\n", prog, strerror(errno));
		dr_free_device_list(p->list);
		rte_eal_cleanup();
		return 2;
	}
	return 0;
}

void
dr_app_port_close(const char *prog, struct dr_app_port *p)
{
	(void)dr_stop_workers(p->ctx);
	if (dr_close_device(p->ctx) != 0)
		fprintf(stderr, "%s: dr_close_device failed\n", prog);
	dr_free_device_list(p->list);
	rte_eal_cleanup();
}
