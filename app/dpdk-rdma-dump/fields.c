/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Texts of decoded fields, shared by the text and JSON output formats. */

#include <arpa/inet.h>

#include <rte_common.h>

#include "dump.h"

const char *
dump_addr_str(const struct dr_pkt_info *pi, bool src, char *buf, size_t size)
{
	const uint8_t *gid = src ? pi->sgid : pi->dgid;
	const char *s;

	/* the parser stores an IPv4 address as the IPv4-mapped GID ::ffff:a.b.c.d */
	if (pi->ip_ver == 4)
		s = inet_ntop(AF_INET, gid + 12, buf, (socklen_t)size);
	else
		s = inet_ntop(AF_INET6, gid, buf, (socklen_t)size);
	return s != NULL ? s : "?";
}

/* AETH syndrome classes, bits 6:5 (IBA 9.7.5.1, table 43) */
static const char *const aeth_type_text[] = {
	[DR_AETH_ACK] = "ACK",
	[DR_AETH_RNR_NAK] = "RNR_NAK",
	[DR_AETH_RESERVED] = "RESERVED",
	[DR_AETH_NAK] = "NAK",
};

const char *
dump_aeth_type_str(uint8_t syndrome)
{
	return aeth_type_text[dr_aeth_syn_type(syndrome)];
}

/* NAK codes (IBA 9.7.5.2.4, table 44); 5..31 are reserved */
static const char *const nak_code_text[] = {
	[DR_NAK_PSN_SEQ_ERR] = "PSN_SEQ_ERR",
	[DR_NAK_INVALID_REQ] = "INVALID_REQ",
	[DR_NAK_REM_ACCESS_ERR] = "REM_ACCESS_ERR",
	[DR_NAK_REM_OP_ERR] = "REM_OP_ERR",
	[DR_NAK_INV_RD_REQ] = "INV_RD_REQ",
};

const char *
dump_nak_code_str(uint8_t code)
{
	return code < RTE_DIM(nak_code_text) ? nak_code_text[code] : "RESERVED";
}

/*
 * End-to-end credits an ACK advertises: the 5-bit credit code is an index
 * into this table, and code 31 means "no credit count" (IBA 9.7.7.2.5,
 * table 45; the same table as Linux rdmavt's rvt_credit_table).
 */
static const uint16_t credit_table[DR_AETH_CREDIT_INVALID] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
	384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768,
};

int
dump_aeth_credits(uint8_t code)
{
	return code < DR_AETH_CREDIT_INVALID ? credit_table[code] : -1;
}
