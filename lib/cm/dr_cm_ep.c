/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * rdma_getaddrinfo(3) and rdma_create_ep(3): an address pair for a port
 * space, and a synchronous id made from it (bound, or resolved to its
 * destination) with its QP.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "dr_cm_addr.h"
#include "dr_cm_id.h"
#include "dr_log.h"

#define EP_RESOLVE_MS 2000

/* A copy of @ss (AF_INET or AF_INET6) with port @port, or NULL; its length in *@len. */
static struct sockaddr *
sa_new(const struct sockaddr_storage *ss, uint16_t port, socklen_t *len)
{
	union dr_gid gid;
	uint16_t old;
	struct sockaddr_storage *copy;

	*len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	copy = calloc(1, sizeof(*copy));
	if (copy != NULL) {
		(void)dr_cm_addr_gid((const struct sockaddr *)ss, &gid, &old);
		dr_cm_addr_set(copy, ss->ss_family, &gid, port);
	}
	return (struct sockaddr *)copy;
}

/* @node (NULL: the wildcard of @family, IPv4 if 0) as an address of @family (0: either). */
static int
addr_of(const char *node, int family, struct sockaddr_storage *ss)
{
	struct addrinfo h = { .ai_family = family }, *r = NULL;
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family == AF_INET6 ? AF_INET6 : AF_INET;
	if (node == NULL)
		return 0;
	if (family != AF_INET6 && inet_pton(AF_INET, node, &in->sin_addr) == 1)
		return 0;
	ss->ss_family = AF_INET6;
	if (family != AF_INET && inet_pton(AF_INET6, node, &in6->sin6_addr) == 1)
		return 0;
	if (getaddrinfo(node, NULL, &h, &r) != 0 || r == NULL)
		return -EADDRNOTAVAIL;
	memcpy(ss, r->ai_addr, r->ai_addrlen);
	freeaddrinfo(r);
	return 0;
}

static int
port_of(const char *service, uint16_t *port)
{
	char *end;
	unsigned long v;

	*port = 0;
	if (service == NULL)
		return 0;
	v = strtoul(service, &end, 10);
	if (*service == '\0' || *end != '\0' || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int
dr_cm_getaddrinfo(const char *node, const char *service, const struct dr_cm_addrinfo *hints,
		  struct dr_cm_addrinfo **res)
{
	struct dr_cm_addrinfo *ai;
	struct sockaddr_storage ss;
	int family = hints != NULL ? hints->ai_family : 0;
	uint16_t port;
	int ret;

	if (res == NULL || (node == NULL && service == NULL))
		return -EINVAL;
	if (family != 0 && family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	if (hints != NULL && hints->ai_port_space != 0 && hints->ai_port_space != DR_CM_PS_TCP &&
	    hints->ai_port_space != DR_CM_PS_UDP)
		return -EPROTONOSUPPORT;
	ret = port_of(service, &port);
	if (ret == 0)
		ret = addr_of(node, family, &ss);
	if (ret != 0)
		return ret;
	ai = calloc(1, sizeof(*ai));
	if (ai == NULL)
		return -ENOMEM;
	ai->ai_flags = hints != NULL ? hints->ai_flags : 0;
	ai->ai_family = ss.ss_family;
	ai->ai_port_space = hints != NULL && hints->ai_port_space != 0 ? hints->ai_port_space : DR_CM_PS_TCP;
	ai->ai_qp_type = ai->ai_port_space == DR_CM_PS_UDP ? DR_QPT_UD : DR_QPT_RC;
	if (ai->ai_flags & DR_CM_RAI_PASSIVE) {
		ai->ai_src_addr = sa_new(&ss, port, &ai->ai_src_len);
	} else {
		ai->ai_dst_addr = sa_new(&ss, port, &ai->ai_dst_len);
		if (hints != NULL && hints->ai_src_addr != NULL && hints->ai_src_addr->sa_family == ss.ss_family) {
			struct sockaddr_storage src;
			union dr_gid gid;
			uint16_t sport;

			(void)dr_cm_addr_gid(hints->ai_src_addr, &gid, &sport);
			dr_cm_addr_set(&src, ss.ss_family, &gid, sport);
			ai->ai_src_addr = sa_new(&src, sport, &ai->ai_src_len);
		}
	}
	if ((ai->ai_flags & DR_CM_RAI_PASSIVE ? ai->ai_src_addr : ai->ai_dst_addr) == NULL) {
		dr_cm_freeaddrinfo(ai);
		return -ENOMEM;
	}
	*res = ai;
	return 0;
}

void
dr_cm_freeaddrinfo(struct dr_cm_addrinfo *res)
{
	while (res != NULL) {
		struct dr_cm_addrinfo *next = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res);
		res = next;
	}
}

int
dr_cm_create_ep(struct dr_cm_id **out, const struct dr_cm_addrinfo *res, struct dr_pd *pd,
		struct dr_qp_init_attr *qp_init_attr)
{
	struct dr_cm_id *id;
	int ret;

	if (out == NULL || res == NULL)
		return -EINVAL;
	ret = dr_cm_create_id(NULL, &id, NULL, (uint16_t)res->ai_port_space);
	if (ret != 0)
		return ret;
	if (res->ai_flags & DR_CM_RAI_PASSIVE) {
		ret = dr_cm_bind_addr(id, res->ai_src_addr);
		if (ret == 0 && qp_init_attr != NULL) {
			/* kept for dr_cm_get_request(): each request's id gets a QP of these */
			struct dr_cm_id_impl *l = dr_cm_id_impl(id);

			l->ep_qp = true;
			l->ep_qp_attr = *qp_init_attr;
			l->ep_pd = pd;
		}
	} else {
		ret = dr_cm_resolve_addr(id, res->ai_src_addr, res->ai_dst_addr, EP_RESOLVE_MS);
		if (ret == 0)
			ret = dr_cm_resolve_route(id, EP_RESOLVE_MS);
		if (ret == 0 && qp_init_attr != NULL)
			ret = dr_cm_create_qp(id, pd, qp_init_attr);
	}
	if (ret != 0) {
		(void)dr_cm_destroy_id(id);
		return ret;
	}
	*out = id;
	return 0;
}

void
dr_cm_destroy_ep(struct dr_cm_id *id)
{
	if (id == NULL)
		return;
	int ret;

	dr_cm_destroy_qp(id);
	ret = dr_cm_destroy_id(id);
	if (ret != 0)
		DR_LOG(cm, INFO, "rdma_destroy_ep: the id stays: %s", strerror(-ret));
}
