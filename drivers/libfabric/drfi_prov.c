/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The provider's entry (fi_prov_ini(), found by libfabric in
 * libdpdk_rdma-fi.so on FI_PROVIDER_PATH), its parameters and what every
 * object lacks.
 *
 * The parameters are libfabric's (fi_param_define(3)): FI_DPDK_RDMA_EAL,
 * _IP, _IPV6, _PORT, _BACKEND, _MTU, _MODE, _WORKERS, _IDLE, _ACK_TIMEOUT, _KEEPALIVE, _STATS
 * in the environment, listed by
 * `fi_info -e`.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drfi.h"

static struct drfi_conf conf;
static bool conf_ok;
static pthread_once_t conf_once = PTHREAD_ONCE_INIT;

static int
drfi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
	     const struct fi_info *hints, struct fi_info **info)
{
	return drfi_info_get(version, node, service, flags, hints, info);
}

static void
drfi_cleanup(void)
{
	free(conf.eal);
	conf.eal = NULL;
	free(conf.backend);
	conf.backend = NULL;
}

struct fi_provider drfi_prov = {
	.name = DRFI_PROV_NAME,
	.version = DRFI_PROV_VERSION,
	.fi_version = DRFI_API_VERSION,
	.getinfo = drfi_getinfo,
	.fabric = drfi_fabric_open,
	.cleanup = drfi_cleanup,
};

static char *
param_str(const char *name)
{
	char *v = NULL;

	if (fi_param_get_str(&drfi_prov, name, &v) != FI_SUCCESS || v == NULL || *v == '\0')
		return NULL;
	return v;
}

/* A parameter that names one of @names (NULL-terminated, @values beside). */
struct param_name {
	const char *name;
	int value;
};

static const struct param_name modes[] = {
	{ "inline", DR_PROGRESS_INLINE }, { "rtc", DR_PROGRESS_RTC }, { "pipeline", DR_PROGRESS_PIPELINE },
	{ NULL, 0 },
};
static const struct param_name idles[] = {
	{ "spin", DR_IDLE_SPIN }, { "pause", DR_IDLE_PAUSE }, { "yield", DR_IDLE_YIELD },
	{ "sleep", DR_IDLE_SLEEP }, { "auto", DR_IDLE_AUTO }, { NULL, 0 },
};

/* Parameter @param (FI_DPDK_RDMA_@env): unset leaves *@value; one of @names sets it; else false,
 * and the log lists them. */
static bool
param_named(const char *param, const char *env, const struct param_name *names, int *value)
{
	const char *v = param_str(param);
	char list[64] = "";

	if (v == NULL)
		return true;
	for (const struct param_name *n = names; n->name != NULL; n++) {
		if (strcasecmp(v, n->name) == 0) {
			*value = n->value;
			return true;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", n == names ? "" : ", ", n->name);
	}
	FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_%s=%s: one of %s\n", env, v, list);
	return false;
}

static void
conf_read(void)
{
	int mode = DR_PROGRESS_INLINE, idle = DR_IDLE_AUTO;   /* ranks often share CPUs */
	char *v;
	int n;

	memset(&conf, 0, sizeof(conf));
	conf_ok = true;
	v = param_str("eal");
	conf.eal = v != NULL ? strdup(v) : NULL;
	v = param_str("backend");
	conf.backend = v != NULL && v[0] != '\0' ? strdup(v) : NULL;
	v = param_str("ip");
	if (v != NULL && inet_pton(AF_INET, v, &conf.ipv4) != 1) {
		FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_IP=%s: not an IPv4 address\n", v);
		conf_ok = false;
	}
	v = param_str("ipv6");
	if (v != NULL) {
		conf.has_ipv6 = inet_pton(AF_INET6, v, conf.ipv6) == 1;
		if (!conf.has_ipv6) {
			FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_IPV6=%s: not an IPv6 address\n", v);
			conf_ok = false;
		}
	}
	if (conf.ipv4 == 0 && !conf.has_ipv6) {
		FI_INFO(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_IP (or _IPV6) not set: no address, no fabric\n");
		conf_ok = false;
	}
	if (fi_param_get_int(&drfi_prov, "port", &n) == FI_SUCCESS) {
		if (n < 0 || n >= RTE_MAX_ETHPORTS) {
			FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_PORT=%d: not a DPDK port id\n", n);
			conf_ok = false;
		}
		conf.port = n;
	}
	if (fi_param_get_int(&drfi_prov, "mtu", &n) == FI_SUCCESS) {
		/* IPv4's least (RFC 791) up to what a 4096-byte path MTU needs and a jumbo frame holds */
		if (n != 0 && (n < 576 || n > 9000)) {
			FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_MTU=%d: 576 to 9000 bytes, 0 for the port's\n",
				n);
			conf_ok = false;
		}
		conf.mtu = n;
	}
	if (!param_named("mode", "MODE", modes, &mode))
		conf_ok = false;
	conf.mode = (enum dr_progress_mode)mode;
	if (fi_param_get_int(&drfi_prov, "workers", &n) == FI_SUCCESS) {
		if (n < 1 || n > DR_MAX_WORKERS) {
			FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_WORKERS=%d: 1 to %d\n", n, DR_MAX_WORKERS);
			conf_ok = false;
		}
		conf.workers = n;
	}
	if (!param_named("idle", "IDLE", idles, &idle))
		conf_ok = false;
	conf.idle = (enum dr_idle_policy)idle;
	conf.ack_timeout = -1;
	if (fi_param_get_int(&drfi_prov, "ack_timeout", &n) == FI_SUCCESS) {
		if (n < 0 || n > 31) {
			FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_ACK_TIMEOUT=%d: 0 to 31\n", n);
			conf_ok = false;
		}
		conf.ack_timeout = n;
	}
	conf.keepalive_ms = DRFI_KEEPALIVE_MS_DEFAULT;
	if (fi_param_get_int(&drfi_prov, "keepalive", &n) == FI_SUCCESS) {
		if (n < 0) {
			FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_KEEPALIVE=%d: milliseconds, 0 for none\n", n);
			conf_ok = false;
		}
		conf.keepalive_ms = n;
	}
	if (fi_param_get_int(&drfi_prov, "stats", &n) == FI_SUCCESS) {
		if (n != 0 && n != 1) {
			FI_WARN(&drfi_prov, FI_LOG_CORE, "FI_DPDK_RDMA_STATS=%d: 0 or 1\n", n);
			conf_ok = false;
		}
		conf.stats = n == 1;
	}
}

const struct drfi_conf *
drfi_conf(void)
{
	(void)pthread_once(&conf_once, conf_read);
	return conf_ok ? &conf : NULL;
}

FI_EXT_INI
{
	fi_param_define(&drfi_prov, "eal", FI_PARAM_STRING,
			"EAL arguments of the process (space separated), e.g. \"-l 1 --no-huge -m 512 "
			"--no-pci --vdev net_af_packet0,iface=eth1 --file-prefix=rank0\"; unset when the "
			"application has started EAL itself");
	fi_param_define(&drfi_prov, "ip", FI_PARAM_STRING, "the port's IPv4 address (GID index 1)");
	fi_param_define(&drfi_prov, "ipv6", FI_PARAM_STRING, "an IPv6 address of the port (GID index 2)");
	fi_param_define(&drfi_prov, "port", FI_PARAM_INT, "the DPDK port id (default: 0)");
	fi_param_define(&drfi_prov, "backend", FI_PARAM_STRING,
			"the backend that drives the port: ethdev (the default: any PMD) or xsk (a net_af_xdp "
			"port's interface through AF_XDP sockets of its own, multi-buffer: path MTU 4096)");
	fi_param_define(&drfi_prov, "mtu", FI_PARAM_INT,
			"the link's MTU in bytes, as the kernel's (the port is set to it; the path MTU follows "
			"as rxe's does: 1500 -> 1024, 2200 -> 2048, 4200 -> 4096); default: the port's");
	fi_param_define(&drfi_prov, "mode", FI_PARAM_STRING,
			"engine mode: inline (FI_PROGRESS_MANUAL, the default), rtc or pipeline "
			"(FI_PROGRESS_AUTO, worker lcores)");
	fi_param_define(&drfi_prov, "workers", FI_PARAM_INT, "rtc/pipeline: worker lcores (default: 1)");
	fi_param_define(&drfi_prov, "idle", FI_PARAM_STRING, "what an idle worker (inline: the progress calls) does: auto (default), spin, pause, yield or sleep");
	fi_param_define(&drfi_prov, "ack_timeout", FI_PARAM_INT,
			"the QPs' local ACK timeout, 4.096 us * 2^N (0 to 31; default: the CM's 19, 2.1 s)");
	fi_param_define(&drfi_prov, "keepalive", FI_PARAM_INT,
			"an idle QP probes its peer after this many ms of silence; 3 probes unanswered "
			"fail it (0: off; default 2000: a dead peer found within 8 s)");
	fi_param_define(&drfi_prov, "stats", FI_PARAM_INT,
			"1: the context's and its QPs' counters to stderr when the fabric closes (default: 0)");
	return &drfi_prov;
}

/* ---- what an object lacks --------------------------------------------------------------- */

int
drfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid;
	(void)bfid;
	(void)flags;
	return -FI_ENOSYS;
}

int
drfi_no_control(struct fid *fid, int command, void *arg)
{
	(void)fid;
	(void)command;
	(void)arg;
	return -FI_ENOSYS;
}

int
drfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops, void *context)
{
	(void)fid;
	(void)name;
	(void)flags;
	(void)ops;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t
no_cancel(fid_t fid, void *context)
{
	(void)fid;
	(void)context;
	return -FI_ENOSYS;
}

static int
no_getopt(fid_t fid, int level, int optname, void *optval, size_t *optlen)
{
	(void)fid;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return -FI_ENOPROTOOPT;
}

int
drfi_no_setopt(fid_t fid, int level, int optname, const void *optval, size_t optlen)
{
	(void)fid;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return -FI_ENOPROTOOPT;
}

struct fi_ops_ep drfi_no_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = no_cancel,
	.getopt = no_getopt,
	.setopt = drfi_no_setopt,
};
