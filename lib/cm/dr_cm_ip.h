/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_IP_H
#define DR_CM_IP_H

/*
 * The RDMA IP CM Service (IBA vol. 1, Annex A11): how rdma_cm names a
 * service by IP port space and port in the CM's Service ID, and the IP
 * addressing header it puts at the start of a REQ's (and SIDR_REQ's)
 * private data. Pure: no EAL, no allocation, no logging.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_cm.h"                 /* enum dr_cm_port_space */

/** Service ID of port @port in port space @ps (A11.2.1: 0x0000_0000_01_PP_port). */
static inline uint64_t
dr_cm_ip_service_id(uint16_t ps, uint16_t port)
{
	return ((uint64_t)ps << 16) | port;
}

/** True if @sid names an IP CM service; its port space and port then. */
static inline bool
dr_cm_ip_service_parse(uint64_t sid, uint16_t *ps, uint16_t *port)
{
	/* A11.2.1: the upper 40 bits are 0x0000000001 */
	if ((sid >> 24) != 0x01)
		return false;
	*ps = (uint16_t)(sid >> 16);
	*port = (uint16_t)sid;
	return true;
}

/** Size of the CM IP addressing header (A11.6.1, Table 452). */
#define DR_CM_IP_HDR_LEN 36
/** Its version byte: MajV 0, MinV 0 (A11.6.1). */
#define DR_CM_IP_VERSION 0x00

/** The IP addressing header, decoded. Addresses are 16 bytes in network order. */
struct dr_cm_ip_hdr {
	uint8_t ip_version;        /**< 4 or 6 */
	uint16_t src_port;
	uint8_t src_addr[16];      /**< IPv4: the address in bytes 12..15, 0..11 zero */
	uint8_t dst_addr[16];
};

/** Write @h as the first DR_CM_IP_HDR_LEN bytes of @pdata. */
void dr_cm_ip_hdr_pack(const struct dr_cm_ip_hdr *h, uint8_t *pdata);

/**
 * Read the header at @pdata; 0, or -EPROTO where the version is not 0.0 or
 * the IP version neither 4 nor 6 (A11.6.1: such a REQ is rejected).
 */
int dr_cm_ip_hdr_unpack(const uint8_t *pdata, struct dr_cm_ip_hdr *h);

#endif /* DR_CM_IP_H */
