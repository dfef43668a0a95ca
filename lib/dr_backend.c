/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The registry of backends (drivers/): each registers itself from a
 * constructor (DR_BACKEND_REGISTER); a context picks one by name when it
 * opens (dr_context_attr.backend), else the one of highest priority that
 * claims its port. The library names no backend.
 *
 * Registration runs in constructors, before main() and before EAL: no
 * allocation, no logging (log types may not be registered yet); the
 * result is what dr_backend_find() sees afterwards. The registry is
 * written before main() only and read-only from then on: no lock.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include "dr_backend.h"

static const struct dr_backend_ops *registry[DR_BACKEND_MAX];
static unsigned int registry_len;

int
dr_backend_register(const struct dr_backend_ops *ops)
{
	unsigned int i, at;

	if (ops == NULL || ops->name == NULL || ops->name[0] == '\0' || ops->port_info == NULL ||
	    ops->open == NULL || ops->close == NULL || ops->link_get == NULL || ops->rx_burst == NULL ||
	    ops->tx_burst == NULL || ops->rx_other == NULL || ops->resolve == NULL)
		return -EINVAL;
	for (i = 0; i < registry_len; i++)
		if (strcmp(registry[i]->name, ops->name) == 0)
			return -EEXIST;
	if (registry_len == DR_BACKEND_MAX)
		return -ENOSPC;
	/* kept in order of decreasing priority; equal priorities in registration order */
	for (at = 0; at < registry_len && registry[at]->priority >= ops->priority; at++)
		;
	memmove(&registry[at + 1], &registry[at], (registry_len - at) * sizeof(registry[0]));
	registry[at] = ops;
	registry_len++;
	return 0;
}

const struct dr_backend_ops *
dr_backend_find(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return registry_len != 0 ? registry[0] : NULL;
	for (i = 0; i < registry_len; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const struct dr_backend_ops *
dr_backend_for_port_io(uint16_t port_id, bool app_io, struct dr_backend_port_info *info)
{
	unsigned int i;

	for (i = 0; i < registry_len; i++) {
		if (app_io && !registry[i]->app_io)
			continue;
		memset(info, 0, sizeof(*info));
		if (registry[i]->port_info(port_id, info) == 0)
			return registry[i];
	}
	return NULL;
}

const struct dr_backend_ops *
dr_backend_for_port(uint16_t port_id, struct dr_backend_port_info *info)
{
	return dr_backend_for_port_io(port_id, false, info);
}

unsigned int
dr_backend_list(const struct dr_backend_ops **list, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < registry_len && i < max; i++)
		list[i] = registry[i];
	return i;
}
