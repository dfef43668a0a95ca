/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Devices: one per valid DPDK port, named "dr_" + the port's name
 * (ibv_get_device_list(3), ibv_get_device_name(3)).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "dr_context.h"
#include "dr_log.h"

int
dr_eal_init(int argc, char **argv)
{
	int ret = rte_eal_init(argc, argv);

	if (ret < 0)
		return rte_errno > 0 ? -rte_errno : -EINVAL;
	return ret;
}

/* Fill @dev for @port; -ENAMETOOLONG when "dr_" + the port's name does not fit. */
static int
device_init(struct dr_device *dev, uint16_t port)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	int n;

	if (rte_eth_dev_get_name_by_port(port, name) != 0)
		return -ENODEV;
	n = snprintf(dev->name, sizeof(dev->name), "dr_%s", name);
	if (n < 0 || (size_t)n >= sizeof(dev->name))
		return -ENAMETOOLONG;
	dev->port_id = port;
	return 0;
}

struct dr_device **
dr_get_device_list(int *num)
{
	struct dr_device **list;
	struct dr_device *devs;
	unsigned int n = 0, i = 0;
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port)
		n++;
	/* one block: n + 1 pointers (NULL-terminated), then the n devices */
	list = calloc(1, (n + 1) * sizeof(*list) + n * sizeof(*devs));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	devs = (struct dr_device *)(list + n + 1);
	RTE_ETH_FOREACH_DEV(port) {
		if (i == n)
			break;          /* a port appeared meanwhile: list the first n */
		if (device_init(&devs[i], port) != 0) {
			DR_LOG(ctx, WARNING, "port %u: name unusable, not listed", port);
			continue;
		}
		list[i] = &devs[i];
		i++;
	}
	list[i] = NULL;
	if (num != NULL)
		*num = (int)i;
	return list;
}

void
dr_free_device_list(struct dr_device **list)
{
	free(list);
}

const char *
dr_get_device_name(const struct dr_device *dev)
{
	return dev != NULL ? dev->name : NULL;
}

uint16_t
dr_get_device_port(const struct dr_device *dev)
{
	return dev != NULL ? dev->port_id : RTE_MAX_ETHPORTS;
}
