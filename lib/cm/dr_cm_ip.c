/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The CM IP addressing header (IBA Annex A11.6.1) in REQ and SIDR_REQ private data. */

#include <errno.h>
#include <string.h>

#include "dr_cm_ip.h"

void
dr_cm_ip_hdr_pack(const struct dr_cm_ip_hdr *h, uint8_t *pdata)
{
	pdata[0] = DR_CM_IP_VERSION;
	pdata[1] = (uint8_t)(h->ip_version << 4);      /* IPV in bits 7:4, the rest reserved */
	pdata[2] = (uint8_t)(h->src_port >> 8);
	pdata[3] = (uint8_t)h->src_port;
	memcpy(pdata + 4, h->src_addr, 16);
	memcpy(pdata + 20, h->dst_addr, 16);
}

int
dr_cm_ip_hdr_unpack(const uint8_t *pdata, struct dr_cm_ip_hdr *h)
{
	uint8_t ipv = pdata[1] >> 4;

	if (pdata[0] != DR_CM_IP_VERSION || (ipv != 4 && ipv != 6))
		return -EPROTO;
	h->ip_version = ipv;
	h->src_port = (uint16_t)(pdata[2] << 8 | pdata[3]);
	memcpy(h->src_addr, pdata + 4, 16);
	memcpy(h->dst_addr, pdata + 20, 16);
	return 0;
}
