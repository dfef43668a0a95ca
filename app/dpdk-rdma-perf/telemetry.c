/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dpdk-rdma-perf's own telemetry: /perf/pool, the context's mbuf pool as
 * rte_mempool_avail_count() and rte_mempool_in_use_count() see it (DPDK
 * 22.11's /mempool/info says the pool's size, not what is free). A soak
 * reads it at its start and end (usertools/dr-soak.py): in_use counts the
 * mbufs neither in the pool nor in an lcore cache - held by the port, the
 * transport or the application. The callback runs in EAL's telemetry
 * thread; the pool is published under a lock and withdrawn before the
 * context (and its pool) is closed.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "perf.h"

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rte_mempool *tel_pool;

static int
tel_pool_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint64_t cached = 0;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	pthread_mutex_lock(&tel_lock);
	if (tel_pool == NULL) {
		pthread_mutex_unlock(&tel_lock);
		return -ENOENT;
	}
	for (unsigned int i = 0; i < RTE_MAX_LCORE && tel_pool->cache_size > 0; i++)
		cached += rte_mempool_default_cache(tel_pool, i)->len;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", tel_pool->name);
	rte_tel_data_add_dict_u64(d, "size", tel_pool->size);
	rte_tel_data_add_dict_u64(d, "avail", rte_mempool_avail_count(tel_pool));
	rte_tel_data_add_dict_u64(d, "in_use", rte_mempool_in_use_count(tel_pool));
	rte_tel_data_add_dict_u64(d, "cached", cached);
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

void
perf_telemetry_init(struct perf *p)
{
	static bool registered;

	pthread_mutex_lock(&tel_lock);
	tel_pool = p->ctx != NULL ? dr_context_mempool(p->ctx) : NULL;
	pthread_mutex_unlock(&tel_lock);
	if (!registered)
		(void)rte_telemetry_register_cmd("/perf/pool", tel_pool_cb,
						 "The context's mbuf pool: size, avail, in_use, cached. "
						 "No parameters");
	registered = true;
}

void
perf_telemetry_fini(void)
{
	pthread_mutex_lock(&tel_lock);
	tel_pool = NULL;
	pthread_mutex_unlock(&tel_lock);
}
