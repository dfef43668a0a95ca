/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Devices: one per DPDK port a backend drives, named "dr_" + the port's name
 * (ibv_get_device_list(3), ibv_get_device_name(3)).
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "dr_backend.h"
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

/*
 * Fill @dev for @port when a backend drives it and lists it; -ENODEV when
 * none does, -ENAMETOOLONG when "dr_" + the port's name does not fit.
 */
static int
device_init(struct dr_device *dev, uint16_t port, bool unlisted_too)
{
	struct dr_backend_port_info info;
	int n;

	if (dr_backend_for_port(port, &info) == NULL || (!info.listed && !unlisted_too))
		return -ENODEV;
	n = snprintf(dev->name, sizeof(dev->name), "dr_%s", info.name);
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
	unsigned int i = 0;
	uint16_t port;
	int rc;

	/* one block: RTE_MAX_ETHPORTS + 1 pointers (NULL-terminated), then the devices */
	list = calloc(1, (RTE_MAX_ETHPORTS + 1) * sizeof(*list) + RTE_MAX_ETHPORTS * sizeof(*devs));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	devs = (struct dr_device *)(list + RTE_MAX_ETHPORTS + 1);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		rc = device_init(&devs[i], port, false);
		if (rc == -ENAMETOOLONG)
			DR_LOG(ctx, WARNING, "port %u: name unusable, not listed", port);
		if (rc != 0)
			continue;
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

/* dr_device_from_port()'s devices: the library's, filled when first asked for */
static struct dr_device port_devs[RTE_MAX_ETHPORTS];
static pthread_mutex_t port_devs_lock = PTHREAD_MUTEX_INITIALIZER;

struct dr_device *
dr_device_from_port(uint16_t port_id)
{
	struct dr_device *dev = NULL;
	int rc;

	if (port_id >= RTE_MAX_ETHPORTS) {
		errno = ENODEV;
		return NULL;
	}
	pthread_mutex_lock(&port_devs_lock);
	/* filled again each time: a port id DPDK reused names another device */
	rc = device_init(&port_devs[port_id], port_id, true);
	if (rc == 0)
		dev = &port_devs[port_id];
	pthread_mutex_unlock(&port_devs_lock);
	if (dev == NULL)
		errno = rc == -ENAMETOOLONG ? ENAMETOOLONG : ENODEV;
	return dev;
}
