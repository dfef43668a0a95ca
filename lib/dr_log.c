/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#include "dr_log.h"

RTE_LOG_REGISTER_SUFFIX(dr_logtype_ctx, ctx, NOTICE);
RTE_LOG_REGISTER_SUFFIX(dr_logtype_qp, qp, NOTICE);
RTE_LOG_REGISTER_SUFFIX(dr_logtype_req, req, NOTICE);
RTE_LOG_REGISTER_SUFFIX(dr_logtype_resp, resp, NOTICE);
RTE_LOG_REGISTER_SUFFIX(dr_logtype_comp, comp, NOTICE);
RTE_LOG_REGISTER_SUFFIX(dr_logtype_drv, drv, NOTICE);
RTE_LOG_REGISTER_SUFFIX(dr_logtype_cm, cm, NOTICE);
