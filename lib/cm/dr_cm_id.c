/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The rdma_cm-shaped API (include/dr_cm.h): ids, their addresses and QPs,
 * and the calls that differ by port space handed to dr_cm_rc.c (PS_TCP:
 * a connection of the context's agent) or dr_cm_ud.c (PS_UDP: service ID
 * resolution). An id's events are queued on its channel (dr_cm_event.c);
 * a synchronous id's calls wait for theirs (dr_cm_sync.c). Everything of
 * an id bound to a context happens under that context's service lock.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_random.h>

#include "dr_cm_addr.h"
#include "dr_cm_id.h"
#include "dr_cm_ip.h"
#include "dr_context.h"
#include "dr_log.h"

/* What Linux's rdma_cm puts in a RoCE REQ (test/vectors/rdmacm_rping.pcap) */
#define CM_RESPONSE_TIMEOUT 20   /* 4.096 us * 2^20: 4.3 s */
#define CM_MAX_RETRIES 15
#define CM_PACKET_LIFETIME 16
#define CM_MRA_TIMEOUT 24
#define CM_EPHEMERAL_TRIES 64    /* a listener on port 0: random ports of 0xC000.. tried */

static struct dr_cm_timing cm_timing = {
	.peer_response_timeout = CM_RESPONSE_TIMEOUT, .local_response_timeout = CM_RESPONSE_TIMEOUT,
	.packet_lifetime = CM_PACKET_LIFETIME, .max_retries = CM_MAX_RETRIES,
	.mra_service_timeout = CM_MRA_TIMEOUT,
};
static pthread_once_t cm_timing_once = PTHREAD_ONCE_INIT;

/* An environment variable's value in [@min, @max], or @def (logged when it is not one). */
static unsigned int
env_uint(const char *name, unsigned int min, unsigned int max, unsigned int def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (v == NULL || *v == '\0')
		return def;
	n = strtoul(v, &end, 0);
	if (*end != '\0' || n < min || n > max) {
		DR_LOG(cm, WARNING, "%s=%s: not from %u to %u, %u kept", name, v, min, max, def);
		return def;
	}
	return (unsigned int)n;
}

/*
 * The CM's timeouts: Linux's unless DR_CM_RESPONSE_TIMEOUT (4.096 us *
 * 2^N, 8..31; rdma_cm's CMA_CM_RESPONSE_TIMEOUT) or DR_CM_MAX_RETRIES
 * (0..15; CMA_MAX_CM_RETRIES) say otherwise: a REQ, REP or SIDR_REQ
 * nobody answers is given up after (retries + 1) such waits.
 */
static void
timing_init(void)
{
	cm_timing.peer_response_timeout = cm_timing.local_response_timeout =
		(uint8_t)env_uint("DR_CM_RESPONSE_TIMEOUT", 8, 31, CM_RESPONSE_TIMEOUT);
	cm_timing.max_retries = (uint8_t)env_uint("DR_CM_MAX_RETRIES", 0, 15, CM_MAX_RETRIES);
}

const struct dr_cm_timing *
dr_cm_id_timing(void)
{
	(void)pthread_once(&cm_timing_once, timing_init);
	return &cm_timing;
}

struct dr_cm_id_impl *
dr_cm_id_impl(struct dr_cm_id *id)
{
	return (struct dr_cm_id_impl *)id;
}

/* ---- addresses --------------------------------------------------------------- */

/*
 * The open context whose GID table holds @src (the wildcard: the first with
 * a source GID of @family towards @dst), and that GID's index in *@index.
 */
static struct dr_context *
ctx_of_addr(int family, const union dr_gid *src, const union dr_gid *dst, int *index)
{
	struct dr_context *found = NULL;

	dr_ctx_registry_lock();
	for (uint16_t p = 0; p < RTE_MAX_ETHPORTS && found == NULL; p++) {
		struct dr_context *ctx = dr_ctx_registry_get(p);

		if (ctx == NULL)
			continue;
		*index = dr_cm_addr_sgid_index(ctx->gid, ctx->gid_valid, DR_MAX_GIDS, family, src, dst);
		if (*index >= 0)
			found = ctx;
	}
	dr_ctx_registry_unlock();
	return found;
}

/* An ephemeral port, as rdma_cm's: 0xC000 and up. */
static uint16_t
ephemeral_port(void)
{
	return (uint16_t)(0xC000 | (rte_rand() & 0x3FFF));
}

/* @id's source GID: entry @index of @id's context. */
static void
set_sgid(struct dr_cm_id_impl *id, int index)
{
	id->pub.route.sgid_index = (uint8_t)index;
	(void)dr_query_gid(id->pub.verbs, 1, index, &id->pub.route.sgid);
}

/* Bind @id to @ctx: its CM service started if it is not. */
static int
bind_ctx(struct dr_cm_id_impl *id, struct dr_context *ctx, int sgid_index)
{
	int ret;

	if (dr_cm_svc_of(ctx) == NULL) {
		ret = dr_cm_svc_start(ctx, &dr_cm_svc_ops, NULL);
		if (ret != 0 && ret != -EEXIST)
			return ret;
	}
	id->pub.verbs = ctx;
	id->svc = dr_cm_svc_of(ctx);
	id->pub.port_num = 1;
	set_sgid(id, sgid_index);
	id->pub.route.mtu = (enum dr_mtu)ctx->active_mtu;
	return 0;
}

int
dr_cm_bind_addr(struct dr_cm_id *pub, const struct sockaddr *addr)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	struct dr_context *ctx;
	union dr_gid gid;
	uint16_t port;
	int ret, index;

	if (pub == NULL)
		return -EINVAL;
	ret = dr_cm_addr_gid(addr, &gid, &port);
	if (ret != 0)
		return ret;
	if (pub->verbs != NULL)
		return -EINVAL;
	/* rdma_bind_addr(3): an address of a port; the wildcard, the first port with its family */
	ctx = ctx_of_addr(addr->sa_family, &gid, NULL, &index);
	if (ctx == NULL)
		return -EADDRNOTAVAIL;
	ret = bind_ctx(id, ctx, index);
	if (ret == 0)
		dr_cm_addr_set(&pub->route.src_addr, addr->sa_family, &gid, port);
	return ret;
}

int
dr_cm_resolve_addr(struct dr_cm_id *pub, const struct sockaddr *src, const struct sockaddr *dst, int timeout_ms)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	union dr_gid dgid, sgid;
	uint16_t port, sport;
	int ret, index;

	(void)timeout_ms;       /* the neighbour is resolved by the first frame to it (ARP, ND) */
	if (pub == NULL)
		return -EINVAL;
	ret = dr_cm_addr_gid(dst, &dgid, &port);
	if (ret != 0)
		return ret;
	if (dr_cm_gid_is_any(&dgid))
		return -EINVAL;
	if (src != NULL && src->sa_family != dst->sa_family)
		return -EINVAL;
	if (pub->verbs == NULL) {
		struct sockaddr_storage any = { .ss_family = dst->sa_family };

		ret = dr_cm_bind_addr(pub, src != NULL ? src : (const struct sockaddr *)&any);
		if (ret != 0)
			return ret;
	}
	if (pub->route.src_addr.ss_family != dst->sa_family)
		return -EINVAL;
	/* rdma_resolve_addr(3): a wildcard source becomes the address that reaches @dst */
	(void)dr_cm_addr_gid((const struct sockaddr *)&pub->route.src_addr, &sgid, &sport);
	index = dr_cm_addr_sgid_index(pub->verbs->gid, pub->verbs->gid_valid, DR_MAX_GIDS, dst->sa_family,
				      &sgid, &dgid);
	if (index < 0)
		return -EADDRNOTAVAIL;
	set_sgid(id, index);
	if (sport == 0)
		sport = ephemeral_port();
	dr_cm_addr_set(&pub->route.src_addr, dst->sa_family, &pub->route.sgid, sport);
	dr_cm_addr_set(&pub->route.dst_addr, dst->sa_family, &dgid, port);
	pub->route.dgid = dgid;
	dr_cm_event_post(id, DR_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0, NULL, NULL);
	return id->sync ? dr_cm_sync_wait(id, DR_CM_EVENT_ADDR_RESOLVED) : 0;
}

int
dr_cm_resolve_route(struct dr_cm_id *pub, int timeout_ms)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);

	(void)timeout_ms;       /* one path: the GIDs and the context's active MTU */
	if (pub == NULL || pub->verbs == NULL ||
	    (pub->route.dst_addr.ss_family != AF_INET && pub->route.dst_addr.ss_family != AF_INET6))
		return -EINVAL;
	dr_cm_event_post(id, DR_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0, NULL, NULL);
	return id->sync ? dr_cm_sync_wait(id, DR_CM_EVENT_ROUTE_RESOLVED) : 0;
}

struct sockaddr *
dr_cm_get_local_addr(struct dr_cm_id *pub)
{
	return pub == NULL ? NULL : (struct sockaddr *)&pub->route.src_addr;
}

struct sockaddr *
dr_cm_get_peer_addr(struct dr_cm_id *pub)
{
	return pub == NULL ? NULL : (struct sockaddr *)&pub->route.dst_addr;
}

uint16_t
dr_cm_get_src_port(struct dr_cm_id *pub)
{
	return pub == NULL ? 0 : htons(dr_cm_addr_port(&pub->route.src_addr));
}

uint16_t
dr_cm_get_dst_port(struct dr_cm_id *pub)
{
	return pub == NULL ? 0 : htons(dr_cm_addr_port(&pub->route.dst_addr));
}

void
dr_cm_id_ip_pdata(struct dr_cm_id_impl *id, uint8_t *pdata, const void *app, uint8_t len)
{
	struct dr_cm_ip_hdr h;

	/* Annex A11.6.1: the IP addressing header, then the application's bytes */
	/* the source port is never 0 here: dr_cm_resolve_addr() gave one */
	dr_cm_addr_ip_hdr(&h, &id->pub.route.src_addr, &id->pub.route.dst_addr);
	dr_cm_ip_hdr_pack(&h, pdata);
	if (len > 0)
		memcpy(pdata + DR_CM_IP_HDR_LEN, app, len);
}

struct dr_cm_id_impl *
dr_cm_id_passive(struct dr_cm_svc *s, struct dr_cm_id_impl *l, const struct dr_cm_peer *from,
		 const uint8_t *ip_pdata)
{
	int family, index;
	struct dr_cm_id_impl *id;
	struct dr_cm_ip_hdr h;
	union dr_gid sgid, dgid;

	/* A11.6.1: a request without the header is for no IP service; the listener's address must take it */
	if (dr_cm_ip_hdr_unpack(ip_pdata, &h) != 0 || !dr_cm_addr_listens(&l->pub.route.src_addr, &h))
		return NULL;
	family = h.ip_version == 4 ? AF_INET : AF_INET6;
	dr_cm_addr_hdr_gid(&h, h.dst_addr, &sgid);
	dr_cm_addr_hdr_gid(&h, h.src_addr, &dgid);
	/* rdma_cm's cma_acquire_dev_by_src_ip(): the request's destination is an address of ours */
	index = dr_cm_addr_sgid_index(s->ctx->gid, s->ctx->gid_valid, DR_MAX_GIDS, family, &sgid, NULL);
	if (index < 0)
		return NULL;
	/* rdma_get_request(3): a synchronous listener's ids are synchronous */
	id = dr_cm_id_new(l->sync ? NULL : l->ch, l->pub.context, l->pub.ps);
	if (id == NULL)
		return NULL;
	if (bind_ctx(id, s->ctx, index) != 0) {
		dr_cm_id_free(id);
		return NULL;
	}
	dr_cm_addr_set(&id->pub.route.src_addr, family, &sgid, dr_cm_addr_port(&l->pub.route.src_addr));
	dr_cm_addr_set(&id->pub.route.dst_addr, family, &dgid, h.src_port);
	memcpy(id->pub.route.dgid.raw, from->gid, 16);
	return id;
}

/* ---- QPs --------------------------------------------------------------------- */

/* librdmacm's ucma_create_cqs(): a CQ with a channel of its own for each queue not given one. */
static int
make_cqs(struct dr_cm_id *pub, struct dr_qp_init_attr *ia)
{
	if (ia->recv_cq == NULL) {
		pub->recv_cq_channel = dr_create_comp_channel(pub->verbs);
		if (pub->recv_cq_channel == NULL)
			return -errno;
		pub->recv_cq = dr_create_cq(pub->verbs, (int)RTE_MAX(ia->cap.max_recv_wr, 1u), pub,
					    pub->recv_cq_channel, 0);
		if (pub->recv_cq == NULL)
			return -errno;
		ia->recv_cq = pub->recv_cq;
	}
	if (ia->send_cq == NULL) {
		pub->send_cq_channel = dr_create_comp_channel(pub->verbs);
		if (pub->send_cq_channel == NULL)
			return -errno;
		pub->send_cq = dr_create_cq(pub->verbs, (int)RTE_MAX(ia->cap.max_send_wr, 1u), pub,
					    pub->send_cq_channel, 0);
		if (pub->send_cq == NULL)
			return -errno;
		ia->send_cq = pub->send_cq;
	}
	return 0;
}

static void
free_cqs(struct dr_cm_id *pub)
{
	if (pub->send_cq != NULL && dr_destroy_cq(pub->send_cq) == 0)
		pub->send_cq = NULL;
	if (pub->send_cq_channel != NULL && dr_destroy_comp_channel(pub->send_cq_channel) == 0)
		pub->send_cq_channel = NULL;
	if (pub->recv_cq != NULL && dr_destroy_cq(pub->recv_cq) == 0)
		pub->recv_cq = NULL;
	if (pub->recv_cq_channel != NULL && dr_destroy_comp_channel(pub->recv_cq_channel) == 0)
		pub->recv_cq_channel = NULL;
}

int
dr_cm_create_qp(struct dr_cm_id *pub, struct dr_pd *pd, struct dr_qp_init_attr *qp_init_attr)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	struct dr_qp_init_attr ia;
	struct dr_qp_attr a;
	struct dr_qp *qp;
	int ret;

	if (pub == NULL || pub->verbs == NULL || pub->qp != NULL || qp_init_attr == NULL ||
	    qp_init_attr->qp_type != pub->qp_type)
		return -EINVAL;
	if (pd == NULL) {
		if (id->own_pd == NULL && (id->own_pd = dr_alloc_pd(pub->verbs)) == NULL)
			return -errno;
		pd = id->own_pd;
	}
	if (pd->context != pub->verbs)
		return -EINVAL;
	ia = *qp_init_attr;
	ret = make_cqs(pub, &ia);
	if (ret != 0) {
		free_cqs(pub);
		return ret;
	}
	qp = dr_create_qp(pd, &ia);
	if (qp == NULL) {
		ret = -errno;
		free_cqs(pub);
		return ret;
	}
	pub->qp = qp;
	pub->pd = pd;
	if (pub->qp_type == DR_QPT_UD) {
		ret = dr_cm_ud_qp_ready(id);
	} else {
		/* rdma_create_qp(3): INIT at once, the rights rdma_cm gives a connected QP */
		memset(&a, 0, sizeof(a));
		a.qp_state = DR_QPS_INIT;
		a.pkey_index = 0;
		a.port_num = 1;
		a.qp_access_flags = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
				    DR_ACCESS_REMOTE_ATOMIC;
		ret = dr_modify_qp(qp, &a, DR_QP_STATE | DR_QP_PKEY_INDEX | DR_QP_PORT | DR_QP_ACCESS_FLAGS);
	}
	if (ret != 0) {
		(void)dr_destroy_qp(qp);
		pub->qp = NULL;
		free_cqs(pub);
		return ret;
	}
	*qp_init_attr = ia;     /* rdma_create_qp(3) returns the CQs it made and the caps the QP has */
	return 0;
}

void
dr_cm_destroy_qp(struct dr_cm_id *pub)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);

	struct dr_qp *qp;

	if (pub == NULL)
		return;
	/*
	 * The CM moves the QP on the peer's messages (RTR/RTS on a REP, ERR on
	 * a DREQ or REJ), under the service's lock: the QP leaves the id under
	 * it, so none of those can reach a QP being destroyed (a DREQ crossing
	 * fi_close() of a libfabric endpoint made the control thread modify a
	 * freed QP). The RTU waiters read it too: out of their list first.
	 */
	if (id->svc != NULL) {
		dr_cm_svc_lock(id->svc);
		dr_cm_rc_unwait_locked(id);
	}
	qp = pub->qp;
	pub->qp = NULL;
	if (id->svc != NULL)
		dr_cm_svc_unlock(id->svc);
	if (qp != NULL && dr_destroy_qp(qp) != 0) {
		/* still there (the caller is told by pub->qp): the CM may use it again */
		if (id->svc != NULL)
			dr_cm_svc_lock(id->svc);
		pub->qp = qp;
		if (id->svc != NULL)
			dr_cm_svc_unlock(id->svc);
	}
	if (pub->qp == NULL)
		free_cqs(pub);
}

void
dr_cm_id_qp_error(struct dr_cm_id_impl *id)
{
	struct dr_qp_attr a = { .qp_state = DR_QPS_ERR };

	if (id->pub.qp != NULL)
		(void)dr_modify_qp(id->pub.qp, &a, DR_QP_STATE);
}

/* ---- the calls, by port space ------------------------------------------------------ */

int
dr_cm_listen(struct dr_cm_id *pub, int backlog)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	int ret;

	uint16_t port;

	(void)backlog;
	if (pub == NULL || pub->verbs == NULL || id->listening || id->conn != NULL || id->sidr_asking)
		return -EINVAL;
	port = dr_cm_addr_port(&pub->route.src_addr);
	dr_cm_svc_lock(id->svc);
	if (port != 0) {
		id->service_id = dr_cm_ip_service_id(pub->ps, port);
		ret = dr_cm_agent_listen(&id->svc->agent, id->service_id, id);
	} else {
		/* rdma_listen(3) on port 0: an ephemeral port of the port space (rdma_cm's cma_alloc_any_port()) */
		ret = -EADDRINUSE;
		for (int tries = 0; tries < CM_EPHEMERAL_TRIES && ret == -EADDRINUSE; tries++) {
			port = ephemeral_port();
			id->service_id = dr_cm_ip_service_id(pub->ps, port);
			ret = dr_cm_agent_listen(&id->svc->agent, id->service_id, id);
		}
	}
	dr_cm_svc_unlock(id->svc);
	if (ret != 0)
		return ret;
	id->listening = true;
	if (pub->route.src_addr.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&pub->route.src_addr)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&pub->route.src_addr)->sin_port = htons(port);
	return 0;
}

/*
 * librdmacm's rdma_conn_param when the application gives none: no private
 * data, retry counts 7, responder resources and initiator depth the
 * device's maxima (ucma_copy_conn_param_to_kern()).
 */
static void
default_param(struct dr_cm_id *pub, struct dr_cm_conn_param *p)
{
	struct dr_device_attr da;

	memset(p, 0, sizeof(*p));
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->responder_resources = p->initiator_depth = 1;
	if (pub->verbs != NULL && dr_query_device(pub->verbs, &da) == 0) {
		p->responder_resources = (uint8_t)RTE_MIN(RTE_MAX(da.max_qp_rd_atom, 1), 255);
		p->initiator_depth = (uint8_t)RTE_MIN(RTE_MAX(da.max_qp_init_rd_atom, 1), 255);
	}
}

int
dr_cm_connect(struct dr_cm_id *pub, struct dr_cm_conn_param *param)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	struct dr_cm_conn_param def;
	const struct dr_cm_conn_param *p = param;
	int ret;

	if (pub == NULL || pub->verbs == NULL || id->listening ||
	    (pub->route.dst_addr.ss_family != AF_INET && pub->route.dst_addr.ss_family != AF_INET6) ||
	    (p != NULL && p->private_data_len > 0 && p->private_data == NULL))
		return -EINVAL;
	if (p == NULL) {
		default_param(pub, &def);
		p = &def;
	}
	ret = pub->ps == DR_CM_PS_UDP ? dr_cm_ud_connect(id, p) : dr_cm_rc_connect(id, p);
	if (ret == 0 && id->sync)
		ret = dr_cm_sync_wait(id, DR_CM_EVENT_ESTABLISHED);
	return ret;
}

int
dr_cm_accept(struct dr_cm_id *pub, struct dr_cm_conn_param *param)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	struct dr_cm_conn_param def;
	const struct dr_cm_conn_param *p = param;
	int ret;

	if (pub == NULL || (p != NULL && p->private_data_len > 0 && p->private_data == NULL))
		return -EINVAL;
	if (p == NULL) {
		default_param(pub, &def);
		p = &def;
	}
	if (pub->ps == DR_CM_PS_UDP)
		return dr_cm_ud_accept(id, p);
	ret = dr_cm_rc_accept(id, p);
	if (ret == 0 && id->sync)
		ret = dr_cm_sync_wait(id, DR_CM_EVENT_ESTABLISHED);
	return ret;
}

int
dr_cm_reject(struct dr_cm_id *pub, const void *private_data, uint8_t len)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);

	if (pub == NULL || (len > 0 && private_data == NULL))
		return -EINVAL;
	return pub->ps == DR_CM_PS_UDP ? dr_cm_ud_reject(id, private_data, len) :
					 dr_cm_rc_reject(id, private_data, len);
}

int
dr_cm_disconnect(struct dr_cm_id *pub)
{
	if (pub == NULL || pub->ps == DR_CM_PS_UDP)
		return -EINVAL;     /* rdma_disconnect(3): connected QPs only */
	return dr_cm_rc_disconnect(dr_cm_id_impl(pub));
}

int
dr_cm_notify(struct dr_cm_id *pub, enum dr_event_type event)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);

	/* rdma_notify(3): COMM_EST stands in for the RTU; the others need nothing of the CM */
	if (pub == NULL || id->svc == NULL)
		return -EINVAL;
	if (event != DR_EVENT_COMM_EST)
		return 0;
	if (id->conn == NULL)
		return -EINVAL;
	dr_cm_svc_lock(id->svc);
	dr_cm_conn_comm_est(id->conn, dr_cm_svc_now());
	dr_cm_rc_unwait_locked(id);
	dr_cm_svc_unlock(id->svc);
	return 0;
}

int
dr_cm_set_option(struct dr_cm_id *pub, int level, int optname, const void *optval, size_t optlen)
{
	struct dr_cm_id_impl *id = dr_cm_id_impl(pub);
	uint8_t v;

	if (pub == NULL || optval == NULL)
		return -EINVAL;
	if (level != DR_CM_OPTION_ID || optname != DR_CM_OPTION_ID_ACK_TIMEOUT)
		return -ENOSYS;
	if (optlen != sizeof(v))
		return -EINVAL;
	memcpy(&v, optval, sizeof(v));
	if (v > 31)
		return -EINVAL;      /* IBA 9.7.6.1.3: a 5-bit field */
	id->ack_timeout = v;
	return 0;
}

const struct dr_cm_svc_ops dr_cm_svc_ops = {
	.req = dr_cm_rc_on_req, .event = dr_cm_rc_on_event,
	.sidr_req = dr_cm_ud_on_sidr_req, .sidr_rep = dr_cm_ud_on_sidr_rep, .tick = dr_cm_rc_tick,
};

/* ---- ids ------------------------------------------------------------------------ */

int
dr_cm_create_id(struct dr_cm_event_channel *ch, struct dr_cm_id **out, void *context, uint16_t ps)
{
	struct dr_cm_id_impl *id;

	if (out == NULL)
		return -EINVAL;
	if (ps != DR_CM_PS_TCP && ps != DR_CM_PS_UDP)
		return -EPROTONOSUPPORT;   /* PS_IB, PS_IPOIB: not on RoCE (doc/guides/cm.rst) */
	id = dr_cm_id_new(ch != NULL ? dr_cm_channel_impl(ch) : NULL, context, ps);
	if (id == NULL)
		return -ENOMEM;
	*out = &id->pub;
	return 0;
}

int
dr_cm_destroy_id(struct dr_cm_id *pub)
{
	struct dr_cm_id_impl *id;

	if (pub == NULL)
		return -EINVAL;
	id = dr_cm_id_impl(pub);
	if (id->sync && pub->event != NULL) {
		(void)dr_cm_ack_cm_event(pub->event);   /* a synchronous id's last event is its own */
		pub->event = NULL;
	}
	if (pub->qp != NULL || dr_cm_event_pending(id))
		return -EBUSY;
	if (id->svc != NULL) {
		dr_cm_svc_lock(id->svc);
		if (id->listening)
			(void)dr_cm_agent_unlisten(&id->svc->agent, id->service_id);
		if (id->conn != NULL)
			dr_cm_agent_conn_release(&id->svc->agent, id->conn, dr_cm_svc_now());
		dr_cm_rc_unwait_locked(id);
		dr_cm_ud_release_locked(id);
		dr_cm_svc_unlock(id->svc);
	}
	dr_cm_event_forget(id);
	if (id->own_pd != NULL)
		(void)dr_dealloc_pd(id->own_pd);
	dr_cm_id_free(id);
	return 0;
}
