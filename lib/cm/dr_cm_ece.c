/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The ECE rules of the CM's REQ and REP (dr_cm_ece.h). */

#include "dr_cm_ece.h"

struct dr_cm_ece
dr_cm_ece_offer(const struct dr_ece *local)
{
	uint32_t vendor = dr_cm_ece_wire_vendor(local->vendor_id);

	/* librdmacm's ucma_copy_ece_param_to_kern_req(): the QP's ECE; no vendor, no options */
	return (struct dr_cm_ece){ .vendor_id = vendor, .options = vendor != 0 ? local->options : 0 };
}

bool
dr_cm_ece_accept(const struct dr_cm_ece *req, const struct dr_ece *local, struct dr_ece *take)
{
	/*
	 * librdmacm's init_ece() takes the REQ's options when the vendor is the
	 * QP's own (the provider then keeps those it supports); another vendor,
	 * or none, is not ours to interpret: nothing is set
	 */
	if (!dr_cm_ece_ours(req->vendor_id) || local->vendor_id != DR_ECE_VENDOR_ID)
		return false;
	*take = (struct dr_ece){ .vendor_id = DR_ECE_VENDOR_ID, .options = req->options & local->options };
	return true;
}

struct dr_cm_ece
dr_cm_ece_reply(const struct dr_cm_ece *req, const struct dr_ece *taken)
{
	return (struct dr_cm_ece){ .vendor_id = dr_cm_ece_wire_vendor(req->vendor_id),
				   .options = taken != NULL ? taken->options : 0 };
}

bool
dr_cm_ece_confirm(const struct dr_cm_ece *rep, const struct dr_ece *offered, struct dr_ece *take)
{
	/*
	 * librdmacm's ucma_process_conn_resp_ece() takes the REP's options; a
	 * REP without ECE (VendorID 0: a peer that does not speak it) or of
	 * another vendor leaves the QP as it is. The answer cannot widen the
	 * offer: only what we offered is taken
	 */
	if (!dr_cm_ece_ours(rep->vendor_id) || offered->vendor_id != DR_ECE_VENDOR_ID)
		return false;
	*take = (struct dr_ece){ .vendor_id = DR_ECE_VENDOR_ID, .options = rep->options & offered->options };
	return true;
}
