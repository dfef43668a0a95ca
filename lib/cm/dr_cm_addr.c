/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* IP addresses and RoCEv2 GIDs of the CM's ids (dr_cm_addr.h). */

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "dr_cm_addr.h"
#include "dr_pkt.h"

static void
gid_v4(union dr_gid *gid, const uint8_t ip[4])
{
	rte_be32_t a;

	memcpy(&a, ip, 4);
	dr_gid_from_ipv4(gid->raw, a);
}

int
dr_cm_addr_gid(const struct sockaddr *a, union dr_gid *gid, uint16_t *port)
{
	if (a != NULL && a->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)a;

		gid_v4(gid, (const uint8_t *)&in->sin_addr.s_addr);
		*port = ntohs(in->sin_port);
		return 0;
	}
	if (a != NULL && a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)a;

		memcpy(gid->raw, in6->sin6_addr.s6_addr, 16);
		*port = ntohs(in6->sin6_port);
		return 0;
	}
	return -EAFNOSUPPORT;
}

void
dr_cm_addr_set(struct sockaddr_storage *ss, int family, const union dr_gid *gid, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		memcpy(&in->sin_addr.s_addr, &gid->raw[12], 4);
		in->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		memcpy(in6->sin6_addr.s6_addr, gid->raw, 16);
		in6->sin6_port = htons(port);
	}
}

uint16_t
dr_cm_addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

bool
dr_cm_gid_is_v4(const union dr_gid *gid)
{
	return dr_gid_is_ipv4(gid->raw);
}

bool
dr_cm_gid_is_any(const union dr_gid *gid)
{
	static const uint8_t zero[16];

	return memcmp(gid->raw, zero, 16) == 0 || (dr_cm_gid_is_v4(gid) && memcmp(&gid->raw[12], zero, 4) == 0);
}

bool
dr_cm_gid_is_link_local(const union dr_gid *gid)
{
	return gid->raw[0] == 0xFE && (gid->raw[1] & 0xC0) == 0x80;
}

/* An IPv6 entry that is neither IPv4-mapped nor link-local: the first, or the first on @dst's /64. */
static int
global_v6(const union dr_gid *tbl, const uint8_t *valid, unsigned int n, const union dr_gid *dst)
{
	int first = -1;

	for (unsigned int i = 0; i < n; i++) {
		if (!valid[i] || dr_cm_gid_is_v4(&tbl[i]) || dr_cm_gid_is_link_local(&tbl[i]) ||
		    dr_cm_gid_is_any(&tbl[i]))
			continue;
		if (dst != NULL && memcmp(tbl[i].raw, dst->raw, 8) == 0)
			return (int)i;
		if (first < 0)
			first = (int)i;
	}
	return first;
}

int
dr_cm_addr_sgid_index(const union dr_gid *tbl, const uint8_t *valid, unsigned int n, int family,
		      const union dr_gid *src, const union dr_gid *dst)
{
	int i;

	if (!dr_cm_gid_is_any(src)) {
		/* a bound address: its own entry, of its own family */
		if ((family == AF_INET) != dr_cm_gid_is_v4(src))
			return -1;
		for (unsigned int k = 0; k < n; k++)
			if (valid[k] && memcmp(tbl[k].raw, src->raw, 16) == 0)
				return (int)k;
		return -1;
	}
	if (family == AF_INET || (dst != NULL && dr_cm_gid_is_v4(dst))) {
		for (unsigned int k = 0; k < n; k++)
			if (valid[k] && dr_cm_gid_is_v4(&tbl[k]) && !dr_cm_gid_is_any(&tbl[k]))
				return (int)k;
		return -1;
	}
	/* IPv6: scope first (a link-local destination from the link-local GID), then prefix */
	if (dst == NULL || !dr_cm_gid_is_link_local(dst)) {
		i = global_v6(tbl, valid, n, dst);
		if (i >= 0)
			return i;
		if (dst != NULL)
			return -1;     /* a global destination needs a global source */
	}
	for (unsigned int k = 0; k < n; k++)
		if (valid[k] && dr_cm_gid_is_link_local(&tbl[k]))
			return (int)k;
	return -1;
}

void
dr_cm_addr_ip_hdr(struct dr_cm_ip_hdr *h, const struct sockaddr_storage *src, const struct sockaddr_storage *dst)
{
	memset(h, 0, sizeof(*h));
	h->src_port = dr_cm_addr_port(src);
	if (src->ss_family == AF_INET) {
		/* rdma_cm's cma_format_hdr(): union cma_ip_addr, IPv4 in its last word, the rest 0 */
		h->ip_version = 4;
		memcpy(&h->src_addr[12], &((const struct sockaddr_in *)src)->sin_addr.s_addr, 4);
		memcpy(&h->dst_addr[12], &((const struct sockaddr_in *)dst)->sin_addr.s_addr, 4);
	} else {
		h->ip_version = 6;
		memcpy(h->src_addr, ((const struct sockaddr_in6 *)src)->sin6_addr.s6_addr, 16);
		memcpy(h->dst_addr, ((const struct sockaddr_in6 *)dst)->sin6_addr.s6_addr, 16);
	}
}

void
dr_cm_addr_hdr_gid(const struct dr_cm_ip_hdr *h, const uint8_t addr[16], union dr_gid *gid)
{
	if (h->ip_version == 4)
		gid_v4(gid, &addr[12]);
	else
		memcpy(gid->raw, addr, 16);
}

bool
dr_cm_addr_listens(const struct sockaddr_storage *bound, const struct dr_cm_ip_hdr *h)
{
	union dr_gid mine, dst;
	uint16_t port;

	if (dr_cm_addr_gid((const struct sockaddr *)bound, &mine, &port) != 0)
		return false;
	if (bound->ss_family == AF_INET && h->ip_version != 4)
		return false;
	if (dr_cm_gid_is_any(&mine))
		return true;
	dr_cm_addr_hdr_gid(h, h->dst_addr, &dst);
	return memcmp(mine.raw, dst.raw, 16) == 0;
}
