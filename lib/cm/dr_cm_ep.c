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

#include "dr_cm_id.h"
#include "dr_log.h"

#define EP_RESOLVE_MS 2000

static struct sockaddr *
sin_new(uint32_t ip, uint16_t port)
{
	struct sockaddr_in *in = calloc(1, sizeof(*in));

	if (in != NULL) {
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = ip;
		in->sin_port = htons(port);
	}
	return (struct sockaddr *)in;
}

/* @node (NULL: any) as IPv4, network order. */
static int
ipv4_of(const char *node, uint32_t *ip)
{
	struct addrinfo h = { .ai_family = AF_INET }, *r = NULL;

	*ip = 0;
	if (node == NULL)
		return 0;
	if (inet_pton(AF_INET, node, ip) == 1)
		return 0;
	if (getaddrinfo(node, NULL, &h, &r) != 0 || r == NULL)
		return -EADDRNOTAVAIL;
	*ip = ((struct sockaddr_in *)r->ai_addr)->sin_addr.s_addr;
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
	uint32_t ip;
	uint16_t port;
	int ret;

	if (res == NULL || (node == NULL && service == NULL))
		return -EINVAL;
	if (hints != NULL && hints->ai_family != 0 && hints->ai_family != AF_INET)
		return -EAFNOSUPPORT;
	if (hints != NULL && hints->ai_port_space != 0 && hints->ai_port_space != DR_CM_PS_TCP &&
	    hints->ai_port_space != DR_CM_PS_UDP)
		return -EPROTONOSUPPORT;
	ret = port_of(service, &port);
	if (ret == 0)
		ret = ipv4_of(node, &ip);
	if (ret != 0)
		return ret;
	ai = calloc(1, sizeof(*ai));
	if (ai == NULL)
		return -ENOMEM;
	ai->ai_flags = hints != NULL ? hints->ai_flags : 0;
	ai->ai_family = AF_INET;
	ai->ai_port_space = hints != NULL && hints->ai_port_space != 0 ? hints->ai_port_space : DR_CM_PS_TCP;
	ai->ai_qp_type = ai->ai_port_space == DR_CM_PS_UDP ? DR_QPT_UD : DR_QPT_RC;
	if (ai->ai_flags & DR_CM_RAI_PASSIVE) {
		ai->ai_src_addr = sin_new(ip, port);
		ai->ai_src_len = sizeof(struct sockaddr_in);
	} else {
		ai->ai_dst_addr = sin_new(ip, port);
		ai->ai_dst_len = sizeof(struct sockaddr_in);
		if (hints != NULL && hints->ai_src_addr != NULL && hints->ai_src_addr->sa_family == AF_INET) {
			const struct sockaddr_in *s = (const struct sockaddr_in *)hints->ai_src_addr;

			ai->ai_src_addr = sin_new(s->sin_addr.s_addr, ntohs(s->sin_port));
			ai->ai_src_len = sizeof(struct sockaddr_in);
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
