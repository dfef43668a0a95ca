/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The fabric: one per process, the configured DPDK port opened as a
 * dpdk-rdma context (EAL started from FI_DPDK_RDMA_EAL, or already running
 * in the application). Its objects: domains, event queues, passive
 * endpoints.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "drfi.h"

#define EAL_MAX_ARGS 64

static pthread_mutex_t fabric_lock = PTHREAD_MUTEX_INITIALIZER;
static struct drfi_fabric *the_fabric;
static bool eal_started;

void
drfi_progress(struct drfi_fabric *fab)
{
	if (fab != NULL && fab->ctx != NULL && drfi_conf()->mode == DR_PROGRESS_INLINE)
		(void)dr_progress(fab->ctx);
}

/* EAL from FI_DPDK_RDMA_EAL, once per process; an application's own EAL is used as it is. */
static int
eal_start(const struct drfi_conf *c)
{
	char *argv[EAL_MAX_ARGS + 2], *copy, *save = NULL;
	int argc = 0, ret;

	if (eal_started || (c->eal == NULL && rte_lcore_count() > 0))
		return 0;
	if (c->eal == NULL) {
		FI_WARN(&drfi_prov, FI_LOG_FABRIC, "EAL is not running: set FI_DPDK_RDMA_EAL\n");
		return -FI_ENODEV;
	}
	copy = strdup(c->eal);
	if (copy == NULL)
		return -FI_ENOMEM;
	argv[argc++] = (char *)"dpdk_rdma";
	for (char *t = strtok_r(copy, " \t", &save); t != NULL && argc <= EAL_MAX_ARGS; t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	ret = dr_eal_init(argc, argv);
	/* EAL keeps pointers into argv: the copy stays for the process's life */
	if (ret == -EALREADY)
		ret = 0;
	if (ret < 0) {
		FI_WARN(&drfi_prov, FI_LOG_FABRIC, "EAL (FI_DPDK_RDMA_EAL=\"%s\"): %s\n", c->eal, strerror(-ret));
		free(copy);
		return -FI_ENODEV;
	}
	eal_started = true;
	return 0;
}

static struct dr_context *
port_open(const struct drfi_conf *c)
{
	struct dr_context_attr a;
	struct dr_device **list;
	struct dr_context *ctx = NULL;
	int n = 0;

	memset(&a, 0, sizeof(a));
	a.ipv4_addr = c->ipv4;
	if (c->has_ipv6) {
		memcpy(a.ipv6_addr[0], c->ipv6, 16);
		a.num_ipv6 = 1;
	}
	a.configure_port = 1;
	a.backend = c->backend;
	a.mtu = (uint32_t)c->mtu;
	a.mode = c->mode;
	a.keepalive_ms = (uint32_t)c->keepalive_ms;   /* a killed peer sends no DREQ (drfi_prov.c) */
	a.nb_workers = (uint16_t)c->workers;
	a.idle = c->idle;
	list = dr_get_device_list(&n);
	for (int i = 0; list != NULL && i < n; i++)
		if (dr_get_device_port(list[i]) == c->port)
			ctx = dr_open_device(list[i], &a);
	if (ctx == NULL)
		FI_WARN(&drfi_prov, FI_LOG_FABRIC, "DPDK port %d: %s\n", c->port,
			list == NULL || n == 0 ? "no port (FI_DPDK_RDMA_EAL: a --vdev?)" : strerror(errno));
	dr_free_device_list(list);
	return ctx;
}

static int
fabric_close(struct fid *fid)
{
	struct drfi_fabric *fab = (struct drfi_fabric *)fid;
	int ret;

	pthread_mutex_lock(&fabric_lock);
	if (fab->refs != 0) {
		pthread_mutex_unlock(&fabric_lock);
		return -FI_EBUSY;
	}
	if (drfi_conf()->stats)
		drfi_stats_print(fab);
	(void)dr_stop_workers(fab->ctx);
	ret = dr_close_device(fab->ctx);
	if (ret != 0)
		FI_WARN(&drfi_prov, FI_LOG_FABRIC, "dr_close_device: %s\n", strerror(-ret));
	the_fabric = NULL;
	pthread_mutex_unlock(&fabric_lock);
	pthread_mutex_destroy(&fab->lock);
	free(fab);
	return 0;
}

static int
no_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr, struct fid_wait **waitset)
{
	(void)fabric;
	(void)attr;
	(void)waitset;
	return -FI_ENOSYS;
}

static int
trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	/* no wait objects: nothing to arm, the caller polls */
	(void)fabric;
	(void)fids;
	(void)count;
	return -FI_ENOSYS;
}

static struct fi_ops fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fabric_close,
	.bind = drfi_no_bind,
	.control = drfi_no_control,
	.ops_open = drfi_no_ops_open,
};

static struct fi_ops_fabric fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = drfi_domain_open,
	.passive_ep = drfi_passive_ep,
	.eq_open = drfi_eq_open,
	.wait_open = no_wait_open,
	.trywait = trywait,
};

int
drfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
	const struct drfi_conf *c = drfi_conf();
	struct drfi_fabric *fab;
	double t0, t1;
	int ret;

	if (c == NULL)
		return -FI_ENODATA;
	if (attr != NULL && attr->name != NULL && strcmp(attr->name, DRFI_FABRIC_NAME) != 0)
		return -FI_EINVAL;
	pthread_mutex_lock(&fabric_lock);
	if (the_fabric != NULL) {
		/* one port, one context: a second fabric would be the same */
		pthread_mutex_unlock(&fabric_lock);
		FI_WARN(&drfi_prov, FI_LOG_FABRIC, "one fabric per process\n");
		return -FI_EBUSY;
	}
	t0 = drfi_now_ms();
	ret = eal_start(c);
	t1 = drfi_now_ms();
	fab = ret == 0 ? calloc(1, sizeof(*fab)) : NULL;
	if (ret == 0 && fab == NULL)
		ret = -FI_ENOMEM;
	if (ret == 0) {
		fab->ctx = port_open(c);
		fab->eal_ms = t1 - t0;
		fab->port_ms = drfi_now_ms() - t1;
		if (fab->ctx == NULL) {
			free(fab);
			ret = -FI_ENODEV;
		}
	}
	if (ret != 0) {
		pthread_mutex_unlock(&fabric_lock);
		return ret;
	}
	pthread_mutex_init(&fab->lock, NULL);
	fab->fabric.fid.fclass = FI_CLASS_FABRIC;
	fab->fabric.fid.context = context;
	fab->fabric.fid.ops = &fabric_fi_ops;
	fab->fabric.ops = &fabric_ops;
	fab->fabric.api_version = DRFI_API_VERSION;
	the_fabric = fab;
	pthread_mutex_unlock(&fabric_lock);
	*fabric = &fab->fabric;
	return 0;
}
