/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The registry of backends (drivers/): a context picks one by name when it
 * opens (dr_context_attr.backend).
 */

#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include "dr_backend.h"

/*
 * Every backend built into the library. The mlx5 backend (drivers/mlx5:
 * rte_flow steering of UDP/4791, checksum offloads) goes here once it is
 * written, under #ifdef of the libibverbs dependency that builds it; the
 * default for a NULL name should then depend on the port's driver, which
 * needs the port id (see doc/guides/backends.rst).
 */
static const struct dr_backend_ops *const dr_backends[] = {
	&dr_ethdev_backend,
};

const struct dr_backend_ops *
dr_backend_find(const char *name)
{
	if (name == NULL)
		return &dr_ethdev_backend;
	for (size_t i = 0; i < RTE_DIM(dr_backends); i++)
		if (strcmp(dr_backends[i]->name, name) == 0)
			return dr_backends[i];
	return NULL;
}
