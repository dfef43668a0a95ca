/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The common MAD header: checks and fill (IBA 13.4.3). */

#include <string.h>

#include "dr_mad.h"

enum dr_mad_status
dr_mad_check(const uint8_t *mad, size_t len, uint8_t mgmt_class, uint8_t class_version,
	     uint8_t method)
{
	/* IBA 13.4.2: a GMP is exactly 256 bytes; longer UD payloads carry padding only */
	if (len < DR_MAD_SIZE)
		return DR_MAD_SHORT;
	/* IBA 13.4.3: BaseVersion 1; a receiver drops other base versions */
	if (dr_mad_get(mad, DR_MAD_BASE_VER) != DR_MAD_BASE_VERSION)
		return DR_MAD_BAD_BASE_VERSION;
	if (dr_mad_get(mad, DR_MAD_MGMT_CLASS) != mgmt_class)
		return DR_MAD_OTHER_CLASS;
	if (dr_mad_get(mad, DR_MAD_CLASS_VER) != class_version)
		return DR_MAD_BAD_CLASS_VERSION;
	if (dr_mad_get(mad, DR_MAD_METHOD) != method)
		return DR_MAD_BAD_METHOD;
	return DR_MAD_OK;
}

const char *
dr_mad_status_str(enum dr_mad_status st)
{
	static const char *const names[] = {
		[DR_MAD_OK] = "ok",
		[DR_MAD_SHORT] = "shorter than 256 bytes",
		[DR_MAD_BAD_BASE_VERSION] = "base version is not 1",
		[DR_MAD_OTHER_CLASS] = "management class not served",
		[DR_MAD_BAD_CLASS_VERSION] = "class version not served",
		[DR_MAD_BAD_METHOD] = "method not taken by the class",
	};

	return (unsigned int)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

void
dr_mad_init_hdr(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version, uint8_t method,
		uint64_t tid, uint16_t attr_id, uint32_t attr_mod)
{
	memset(mad, 0, DR_MAD_HDR_SIZE);
	dr_mad_put(mad, DR_MAD_BASE_VER, DR_MAD_BASE_VERSION);
	dr_mad_put(mad, DR_MAD_MGMT_CLASS, mgmt_class);
	dr_mad_put(mad, DR_MAD_CLASS_VER, class_version);
	dr_mad_put(mad, DR_MAD_METHOD, method);
	dr_mad_put(mad, DR_MAD_TID, tid);
	dr_mad_put(mad, DR_MAD_ATTR_ID, attr_id);
	dr_mad_put(mad, DR_MAD_ATTR_MOD, attr_mod);
}
