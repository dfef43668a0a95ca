/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Work completion helpers. */

#include "dr_verbs.h"

const char *
dr_wc_status_str(enum dr_wc_status status)
{
	/* the texts of ibv_wc_status_str(3), so logs read the same */
	static const char *const text[] = {
		[DR_WC_SUCCESS] = "success",
		[DR_WC_LOC_LEN_ERR] = "local length error",
		[DR_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[DR_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[DR_WC_LOC_PROT_ERR] = "local protection error",
		[DR_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[DR_WC_MW_BIND_ERR] = "memory management operation error",
		[DR_WC_BAD_RESP_ERR] = "bad response error",
		[DR_WC_LOC_ACCESS_ERR] = "local access error",
		[DR_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[DR_WC_REM_ACCESS_ERR] = "remote access error",
		[DR_WC_REM_OP_ERR] = "remote operation error",
		[DR_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[DR_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[DR_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[DR_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[DR_WC_REM_ABORT_ERR] = "aborted error",
		[DR_WC_INV_EECN_ERR] = "invalid EE context number",
		[DR_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[DR_WC_FATAL_ERR] = "fatal error",
		[DR_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[DR_WC_GENERAL_ERR] = "general error",
	};

	if ((unsigned int)status >= RTE_DIM(text))
		return "unknown";
	return text[status];
}
