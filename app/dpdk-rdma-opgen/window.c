/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The server's type 2 memory window (ibv_alloc_mw(3), ibv_bind_mw(3),
 * ibv_inc_rkey(3); IBA 10.6.7), as dr-opgen's: allocated before the
 * exchange, which carries the R_Key the bind will give it (the next key of
 * the window), bound with a DR_WR_BIND_MW work request once the QP is in
 * RTS, before the go byte. The client WRITEs through it, then invalidates
 * it with a SEND_WITH_INV; the server checks both (main.c).
 */

#include <errno.h>
#include <string.h>

#include "opgen.h"

struct dr_mw *
og_window_alloc(struct dr_pd *pd, uint32_t *rkey)
{
	struct dr_mw *mw = dr_alloc_mw(pd, DR_MW_TYPE_2);

	if (mw == NULL)
		og_fail(OG_EXIT_SETUP, "dr_alloc_mw(type 2): %s", strerror(errno));
	*rkey = dr_inc_rkey(mw->rkey);   /* the key the bind gives it */
	return mw;
}

void
og_window_bind(struct dr_qp *qp, struct dr_cq *cq, struct dr_mw *mw, uint32_t rkey,
	       struct dr_mr *mr, uint8_t *addr, uint64_t length, uint64_t wr_id, int ms)
{
	struct dr_send_wr w = { .wr_id = wr_id, .opcode = DR_WR_BIND_MW,
				.send_flags = DR_SEND_SIGNALED }, *bad;
	struct dr_wc wc;
	int ret;

	w.bind_mw.mw = mw;
	w.bind_mw.rkey = rkey;
	w.bind_mw.bind_info.mr = mr;
	w.bind_mw.bind_info.addr = (uintptr_t)addr;
	w.bind_mw.bind_info.length = length;
	w.bind_mw.bind_info.mw_access_flags = DR_ACCESS_REMOTE_WRITE;
	ret = dr_post_send(qp, &w, &bad);
	if (ret != 0)
		og_fail(OG_EXIT_SETUP, "dr_post_send(BIND_MW): %s", strerror(ret));
	if (!og_wait_wc(cq, &wc, ms))
		og_fail(OG_EXIT_SETUP, "no completion of BIND_MW");
	if (wc.status != DR_WC_SUCCESS || wc.opcode != DR_WC_BIND_MW || wc.wr_id != wr_id)
		og_fail(OG_EXIT_SETUP, "BIND_MW completed: status=%s opcode=%d",
			dr_wc_status_str(wc.status), (int)wc.opcode);
}
