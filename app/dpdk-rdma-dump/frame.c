/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * One decoded frame: is it RoCEv2, how much of it did the parser fill, which
 * counters does it bump, and to which output format does it go.
 */

#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>

#include "dump.h"

/*
 * How far dr_pkt_parse() has filled struct dr_pkt_info when it returns each
 * status (the contract is written above struct dr_pkt_info in dr_pkt.h).
 */
static const uint8_t status_depth[DR_PKT_STATUS_MAX] = {
	[DR_PKT_OK] = DUMP_DEPTH_ALL,
	[DR_PKT_NOT_IP] = DUMP_DEPTH_NONE,
	[DR_PKT_NOT_UDP] = DUMP_DEPTH_ADDR,
	[DR_PKT_NOT_ROCE_PORT] = DUMP_DEPTH_ADDR,
	[DR_PKT_ERR_TRUNC_L2] = DUMP_DEPTH_NONE,
	[DR_PKT_ERR_TRUNC_L3] = DUMP_DEPTH_IP,
	[DR_PKT_ERR_IP_VERSION] = DUMP_DEPTH_IP,
	[DR_PKT_ERR_IP_HDR_LEN] = DUMP_DEPTH_IP,
	[DR_PKT_ERR_TRUNC_L4] = DUMP_DEPTH_ADDR,
	[DR_PKT_ERR_IP_LEN] = DUMP_DEPTH_UDP,
	[DR_PKT_ERR_IP_FRAG] = DUMP_DEPTH_UDP,
	[DR_PKT_ERR_IP_CSUM] = DUMP_DEPTH_UDP,
	[DR_PKT_ERR_UDP_LEN] = DUMP_DEPTH_UDP,
	[DR_PKT_ERR_TRUNC_BTH] = DUMP_DEPTH_UDP,
	[DR_PKT_ERR_TVER] = DUMP_DEPTH_BTH,
	[DR_PKT_ERR_OPCODE] = DUMP_DEPTH_BTH,
	[DR_PKT_ERR_TRUNC_EXT] = DUMP_DEPTH_BTH,
	[DR_PKT_ERR_PAD] = DUMP_DEPTH_EXT,
	[DR_PKT_ERR_PAYLOAD_LEN] = DUMP_DEPTH_ALL,
	[DR_PKT_ERR_ICRC] = DUMP_DEPTH_ALL,
};

bool
dump_frame_report(const struct dump_opts *o, struct dump_stats *s, struct dump_frame *f)
{
	bool roce;

	f->num = ++s->frames;
	f->depth = (unsigned int)f->status < DR_PKT_STATUS_MAX ?
		(enum dump_depth)status_depth[f->status] : DUMP_DEPTH_NONE;
	/* frames broken before their UDP port could be read are not known to be RoCEv2 */
	roce = dr_pkt_status_is_roce(f->status);

	if (!roce) {
		if (o->verbose) {
			if (o->json)
				dump_json_skipped(stdout, f);
			else
				dump_text_skipped(stdout, f);
		}
		return false;
	}

	s->roce++;
	if (f->status != DR_PKT_OK)
		s->malformed++;
	else if (!f->icrc_ok)
		s->bad_icrc++;
	if (o->json)
		dump_json_frame(stdout, f);
	else
		dump_text_frame(stdout, f, o->verbose);
	return true;
}

void
dump_summary(const struct dump_opts *o, const struct dump_stats *s)
{
	fprintf(o->json ? stderr : stdout,
		"%" PRIu64 " frames, %" PRIu64 " RoCEv2, %" PRIu64 " bad ICRC, %" PRIu64 " malformed\n",
		s->frames, s->roce, s->bad_icrc, s->malformed);
}
