/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_LOG_H
#define DR_LOG_H

/*
 * One DPDK log type per component (lib.dr.<component>): the library never
 * prints to stdout. DR_DP_LOG is for the data path: compiled out below
 * DR_LOG_DP_LEVEL, by default RTE_LOG_DP_LEVEL like DPDK's RTE_LOG_DP (a
 * debugging build: meson -Dc_args=-DDR_LOG_DP_LEVEL=RTE_LOG_DEBUG, then
 * EAL's --log-level=lib.dr.comp:debug).
 */

#include <rte_log.h>

#ifndef DR_LOG_DP_LEVEL
#define DR_LOG_DP_LEVEL RTE_LOG_DP_LEVEL
#endif

extern int dr_logtype_ctx;   /* devices, contexts, PDs, MRs, CQs */
extern int dr_logtype_qp;    /* QP state machine, post calls */
extern int dr_logtype_req;   /* requester */
extern int dr_logtype_resp;  /* responder */
extern int dr_logtype_comp;  /* completer */
extern int dr_logtype_drv;   /* backends */
extern int dr_logtype_cm;    /* connection manager (lib/cm) */

#define DR_LOG(type, level, fmt, ...) \
	rte_log(RTE_LOG_##level, dr_logtype_##type, "dr_" #type ": " fmt "\n", ##__VA_ARGS__)

#define DR_DP_LOG(type, level, fmt, ...) do { \
	if (RTE_LOG_##level <= DR_LOG_DP_LEVEL) \
		DR_LOG(type, level, fmt, ##__VA_ARGS__); \
} while (0)

#endif /* DR_LOG_H */
