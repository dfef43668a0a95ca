/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DRFI_H
#define DRFI_H

/*
 * The libfabric core provider "dpdk_rdma" (doc/guides/libfabric.rst):
 * FI_EP_MSG endpoints on dpdk-rdma's RC QPs, their connections through
 * its connection manager (include/dr_cm.h). One object per libfabric
 * class, each in its own file:
 *
 *   drfi_prov.c    fi_prov_ini(), the parameters, fi_getinfo()
 *   drfi_info.c    the fi_info we offer, checked against the hints
 *   drfi_fabric.c  the fabric: EAL and the port's context
 *   drfi_eq.c      event queues: the CM's events as FI_CONNREQ, ...
 *   drfi_domain.c  the domain (a PD) and memory registration
 *   drfi_cq.c      completion queues
 *   drfi_ep.c      endpoints and passive endpoints, their CM calls
 *   drfi_msg.c     fi_send/fi_recv/fi_read/fi_write and their forms
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include "dr_cm.h"
#include "dr_verbs.h"

#define DRFI_PROV_NAME "dpdk_rdma"
#define DRFI_FABRIC_NAME "RoCEv2"
#define DRFI_PROV_VERSION FI_VERSION(0, 1)
#define DRFI_API_VERSION FI_VERSION(1, 17)

/* What one endpoint offers (checked by the library as well) */
#define DRFI_TX_SIZE 256           /* send queue depth by default */
#define DRFI_RX_SIZE 256
#define DRFI_MAX_QUEUE 4096        /* the deepest queue we give */
#define DRFI_IOV_LIMIT 4           /* SGEs per work request */
#define DRFI_INJECT_SIZE 64        /* bytes carried inline (no MR) */
#define DRFI_CM_DATA_SIZE 56       /* a REQ's private data less rdma_cm's IP header */
#define DRFI_MAX_MSG_SIZE (1u << 31)

#define DRFI_CAPS (FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | \
		   FI_REMOTE_WRITE | FI_REMOTE_COMM)
#define DRFI_MR_MODE (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY)

extern struct fi_provider drfi_prov;

/* Configuration: the FI_DPDK_RDMA_* variables (drfi_prov.c) */
struct drfi_conf {
	char *eal;                 /* EAL arguments, space separated */
	char *backend;             /* FI_DPDK_RDMA_BACKEND: the backend's name, NULL: the port's default */
	uint32_t ipv4;             /* network order; 0: none */
	uint8_t ipv6[16];
	bool has_ipv6;
	int port;                  /* DPDK port id */
	enum dr_progress_mode mode;
	int workers;
	enum dr_idle_policy idle;
	bool stats;                /* FI_DPDK_RDMA_STATS=1: counters to stderr at the fabric's close */
	int ack_timeout;           /* FI_DPDK_RDMA_ACK_TIMEOUT: the QPs' local ACK timeout, -1: the CM's */
	int keepalive_ms;          /* FI_DPDK_RDMA_KEEPALIVE: an idle QP's probe interval, 0: off */
	int mtu;                   /* FI_DPDK_RDMA_MTU: the link's MTU (IP, bytes), 0: the port's */
};
/* Default of FI_DPDK_RDMA_KEEPALIVE: a dead peer found within 4 intervals (3 probes), 8 s. */
#define DRFI_KEEPALIVE_MS_DEFAULT 2000
/* The configuration, read once; NULL (logged) when it is not usable. */
const struct drfi_conf *drfi_conf(void);

/* drfi_info.c: our fi_info for @hints (flags, node, service as fi_getinfo()): 0 or -FI_ENODATA, ... */
int drfi_info_get(uint32_t version, const char *node, const char *service, uint64_t flags,
		  const struct fi_info *hints, struct fi_info **info);

/* ---- objects ------------------------------------------------------------------------- */

struct drfi_fabric {
	struct fid_fabric fabric;
	struct dr_context *ctx;    /* the port's context (one per process) */
	unsigned int refs;         /* domains, EQs and passive endpoints on it */
	/*
	 * FI_THREAD_SAFE (a domain opened so, as ofi_rxm's are): every call
	 * that touches the context takes this lock, one at a time (inline
	 * mode drives the transport from the caller). Uncontended otherwise
	 * and not taken at all under FI_THREAD_DOMAIN.
	 */
	bool thread_safe;
	pthread_mutex_t lock;
	/* FI_DPDK_RDMA_STATS: the QP counters of the endpoints closed so far (drfi_stats.c) */
	struct dr_qp_counters qp_sum;
	unsigned int qps_closed;
	/* ... and where start-up went: EAL, the port's context, each connection (ms) */
	double eal_ms, port_ms;
	unsigned int conns[2];     /* [0] made by fi_connect(), [1] by fi_accept() */
	double conn_ms_sum[2], conn_ms_max[2];
	double resolve_ms_sum, resolve_ms_max;   /* fi_connect()'s address and route resolution */
};

static inline void
drfi_lock(struct drfi_fabric *fab)
{
	if (fab->thread_safe)
		pthread_mutex_lock(&fab->lock);
}

static inline void
drfi_unlock(struct drfi_fabric *fab)
{
	if (fab->thread_safe)
		pthread_mutex_unlock(&fab->lock);
}

struct drfi_domain {
	struct fid_domain domain;
	struct drfi_fabric *fab;
	struct dr_pd *pd;
	struct fi_info *info;
	unsigned int refs;
};

struct drfi_eq {
	struct fid_eq eq;
	struct drfi_fabric *fab;
	struct dr_cm_event_channel *ch;
	/* one translated event read ahead (FI_PEEK), or an error for fi_eq_readerr() */
	bool have_err;
	struct fi_eq_err_entry err;
	uint8_t err_data[256];
	bool have_peek;
	uint32_t peek_event;
	size_t peek_len;
	uint8_t peek[sizeof(struct fi_eq_cm_entry) + 256];
	/* fi_eq_write()'s entries, in order */
	struct drfi_eq_user *user_head, *user_tail;
};

#define DRFI_CQ_BURST 32

struct drfi_cq {
	struct fid_cq cq_;
	struct drfi_domain *dom;
	struct dr_cq *cq;
	enum fi_cq_format format;
	bool have_err;             /* the failed completion fi_cq_readerr() gives */
	struct fi_cq_err_entry err;
	unsigned int refs;         /* endpoints bound */
	/* completions taken from the library, handed out in order */
	struct dr_wc stage[DRFI_CQ_BURST];
	unsigned int staged, staged_next;
};

struct drfi_mr {
	struct fid_mr mr;
	struct dr_mr *dmr;
	struct drfi_fabric *fab;
};

struct drfi_pep {
	struct fid_pep pep;
	struct drfi_fabric *fab;
	struct fi_info *info;
	struct drfi_eq *eq;
	struct dr_cm_id *id;       /* listening */
	struct sockaddr_storage src;
};

/* A connection request's handle (fi_eq_cm_entry.info->handle) until fi_endpoint() or fi_reject(). */
struct drfi_connreq {
	struct fid fid;
	struct dr_cm_id *id;
};

struct drfi_ep {
	struct fid_ep ep;
	struct drfi_domain *dom;
	struct fi_info *info;
	struct drfi_eq *eq;
	struct drfi_cq *tx_cq, *rx_cq;
	bool tx_selective;         /* FI_SELECTIVE_COMPLETION on the transmit CQ */
	uint64_t tx_op_flags, rx_op_flags;
	struct dr_cm_id *id;
	bool passive;              /* made from a connection request */
	bool enabled;
	unsigned int unsignaled;   /* sends without a completion since the last signaled one */
	unsigned int signal_every; /* then one is signaled, for the send queue to drain */
	uint32_t inject_size;
	bool inline_mode;          /* the context progresses only when called (FI_PROGRESS_MANUAL) */
	double conn_t0;            /* drfi_now_ms() at fi_connect() / fi_accept(), until ESTABLISHED */
};

/* Completions of these wr_ids are ours, not the application's (drfi_cq.c skips them). */
#define DRFI_WR_INTERNAL UINT64_MAX

/* ---- between the files --------------------------------------------------------------- */

/* drfi_stats.c (FI_DPDK_RDMA_STATS): add a QP's counters as its endpoint closes; print all at the fabric's. */
void drfi_stats_take_qp(struct drfi_fabric *fab, struct dr_qp *qp);
/* ... a connection of @ep established: the time since its fi_connect() / fi_accept(). */
void drfi_stats_connected(struct drfi_ep *ep);
void drfi_stats_print(struct drfi_fabric *fab);

int drfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
int drfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr, struct fid_eq **eq, void *context);
int drfi_domain_open(struct fid_fabric *fabric, struct fi_info *info, struct fid_domain **domain, void *context);
int drfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr, struct fid_cq **cq, void *context);
int drfi_passive_ep(struct fid_fabric *fabric, struct fi_info *info, struct fid_pep **pep, void *context);
int drfi_endpoint(struct fid_domain *domain, struct fi_info *info, struct fid_ep **ep, void *context);
extern struct fi_ops_msg drfi_msg_ops;
extern struct fi_ops_rma drfi_rma_ops;

/* Progress in inline mode: the caller's thread drives the transport and the CM. */
void drfi_progress(struct drfi_fabric *fab);
/* -errno of the library as -FI_E* (the same numbers where they exist). */
static inline int
drfi_err(int ret)
{
	return ret == -ENOMEM ? -FI_EAGAIN : ret;
}

/* CLOCK_MONOTONIC in milliseconds: the bound of fi_eq_sread() / fi_cq_sread(). */
static inline double
drfi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Operations an object does not have. */
int drfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int drfi_no_control(struct fid *fid, int command, void *arg);
int drfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops, void *context);
int drfi_no_setopt(fid_t fid, int level, int optname, const void *optval, size_t optlen);
extern struct fi_ops_ep drfi_no_ep_ops;

#endif /* DRFI_H */
