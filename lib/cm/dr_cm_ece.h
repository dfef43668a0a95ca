/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_ECE_H
#define DR_CM_ECE_H

/*
 * Enhanced connection establishment through the CM, as Linux carries it
 * (drivers/infiniband/core/cm.c: cm_format_req(), cm_format_rep(),
 * cm_format_mad_ece_hdr(); librdmacm's cma.c: init_ece(),
 * ucma_copy_ece_param_to_kern_rep(), ucma_process_conn_resp_ece()): the
 * REQ offers the active QP's ECE (dr_query_ece()) in its VendorID and the
 * MAD's AttributeModifier; the passive QP takes the options both offer
 * (dr_set_ece(), before RTR) and its REP answers with them; the active QP
 * takes the REP's. Only dpdk-rdma's vendor is taken: a peer that offers
 * nothing (VendorID 0: rxe, a kernel or device without ECE) or another
 * vendor's options leaves both QPs as they are (IBA's go-back-N).
 * Pure: the rules; dr_cm_rc.c applies them to the QPs.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dr_verbs.h"              /* struct dr_ece, DR_ECE_VENDOR_ID */

/** The VendorID field of the REQ and REP is 24 bits wide (Tables 106, 110). */
#define DR_CM_ECE_VENDOR_MASK 0xFFFFFFu

/** An ECE as a REQ or REP carries it. */
struct dr_cm_ece {
	uint32_t vendor_id;            /**< the message's VendorID (24 bits; 0: no ECE) */
	uint32_t options;              /**< its AttributeModifier */
};

/**
 * The VendorID a message carries for ECE vendor @vendor_id: its low 24
 * bits, as Linux's IBA_SET(CM_REQ_VENDOR_ID, ...) keeps them. dpdk-rdma's
 * DR_ECE_VENDOR_ID (0x44520000) travels as 0x520000: an OUI whose
 * locally administered bit is set, so no IEEE vendor's.
 */
static inline uint32_t
dr_cm_ece_wire_vendor(uint32_t vendor_id)
{
	return vendor_id & DR_CM_ECE_VENDOR_MASK;
}

/** True when a message's VendorID @wire is dpdk-rdma's. */
static inline bool
dr_cm_ece_ours(uint32_t wire)
{
	return wire != 0 && wire == dr_cm_ece_wire_vendor(DR_ECE_VENDOR_ID);
}

/** Active: what the REQ offers for the QP's ECE @local (dr_query_ece()). */
struct dr_cm_ece dr_cm_ece_offer(const struct dr_ece *local);

/**
 * Passive: the REQ offered @req, the QP offers @local (dr_query_ece()).
 * True when the QP is to take *@take (dr_set_ece()) before RTR: both are
 * dpdk-rdma's, and the options are those both offer. False: nothing is
 * set, the QP stays as it is.
 */
bool dr_cm_ece_accept(const struct dr_cm_ece *req, const struct dr_ece *local, struct dr_ece *take);

/**
 * Passive: what the REP carries: the REQ's VendorID again (librdmacm's
 * ucma_copy_ece_param_to_kern_rep(): "the same ID as received"; 0 for a
 * peer that offered nothing) with the options the QP took (@taken, what
 * dr_set_ece() wrote back; NULL: none).
 */
struct dr_cm_ece dr_cm_ece_reply(const struct dr_cm_ece *req, const struct dr_ece *taken);

/**
 * Active: the REP answered @rep to our offer @offered. True when the QP is
 * to take *@take (dr_set_ece()) before RTR: the REP is dpdk-rdma's, and the
 * options are those of the answer we offered. False: nothing is set.
 */
bool dr_cm_ece_confirm(const struct dr_cm_ece *rep, const struct dr_ece *offered, struct dr_ece *take);

#endif /* DR_CM_ECE_H */
