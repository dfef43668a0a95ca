/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_ADDR_H
#define DR_CM_ADDR_H

/*
 * An id's IP addresses as RoCEv2 sees them: a RoCEv2 GID is the IP
 * address (IPv4 as ::ffff:a.b.c.d, IPv6 as itself), so binding an
 * address is finding it in a context's GID table, and the source GID of a
 * route is the entry that reaches the destination (rdma_cm's
 * cma_acquire_dev_by_src_ip() and rdma_resolve_ip()'s source choice).
 * Pure: no EAL, no allocation, no logging.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "dr_cm_ip.h"
#include "dr_verbs_types.h"        /* union dr_gid */

/** @a's address as a GID and its port (host order): 0, or -EAFNOSUPPORT (NULL, neither AF_INET nor AF_INET6). */
int dr_cm_addr_gid(const struct sockaddr *a, union dr_gid *gid, uint16_t *port);

/** @ss set to @gid (of @family: AF_INET takes bytes 12..15) and @port (host order). */
void dr_cm_addr_set(struct sockaddr_storage *ss, int family, const union dr_gid *gid, uint16_t port);

/** The port of @ss (AF_INET or AF_INET6), host order. */
uint16_t dr_cm_addr_port(const struct sockaddr_storage *ss);

/** True for an IPv4-mapped GID (::ffff:0:0/96). */
bool dr_cm_gid_is_v4(const union dr_gid *gid);

/** True for the wildcard of either family (:: or ::ffff:0.0.0.0). */
bool dr_cm_gid_is_any(const union dr_gid *gid);

/** True for an IPv6 link-local GID (fe80::/10). */
bool dr_cm_gid_is_link_local(const union dr_gid *gid);

/**
 * The index, in a GID table of @n entries (@valid[i] nonzero where @tbl[i]
 * is set), of the source GID for @src of @family towards @dst, or -1:
 * - @src a given address: its entry (IPv4 into IPv6 never mixes);
 * - @src the wildcard: for IPv4, the IPv4 entry; for IPv6 towards a
 *   link-local @dst (or no @dst), a global entry sharing @dst's /64, else
 *   any global one, else the link-local one (RFC 6724's rules 2 and 8 in
 *   short: same scope, longest prefix).
 */
int dr_cm_addr_sgid_index(const union dr_gid *tbl, const uint8_t *valid, unsigned int n, int family,
			  const union dr_gid *src, const union dr_gid *dst);

/** Annex A11.6.1: the IP addressing header of a request from @src to @dst (same family). */
void dr_cm_addr_ip_hdr(struct dr_cm_ip_hdr *h, const struct sockaddr_storage *src,
		       const struct sockaddr_storage *dst);

/** A header address (@h's version: 4 keeps bytes 12..15) as a GID. */
void dr_cm_addr_hdr_gid(const struct dr_cm_ip_hdr *h, const uint8_t addr[16], union dr_gid *gid);

/**
 * rdma_cm's cma_match_private_data(): does a listener bound to @bound take
 * a request whose header is @h? An IPv4 listener takes IPv4 requests, an
 * IPv6 wildcard both, a bound address only requests to it.
 */
bool dr_cm_addr_listens(const struct sockaddr_storage *bound, const struct dr_cm_ip_hdr *h);

#endif /* DR_CM_ADDR_H */
