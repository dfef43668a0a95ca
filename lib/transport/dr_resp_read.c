/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The responder's resources (IBA 9.7.5.1.3 and 9.7.5.1.4; rxe's
 * rxe_resp.c resources): one per READ or atomic in flight, up to
 * max_dest_rd_atomic, kept after execution so that a duplicate replays the
 * READ or returns the saved atomic result instead of executing it again. And
 * the READ responses, sent from the active resource in PSN order.
 */

#include <string.h>

#include <rte_mbuf.h>

#include "dr_mw.h"
#include "dr_psn.h"
#include "dr_resp_ack.h"
#include "dr_resp_read.h"
#include "dr_transport.h"

/*
 * What an R_Key reaches for this QP, and whether [va, va + len) with
 * @rights is inside it (IBA 10.6.3.2, C9-88; an MR or a memory window,
 * 10.6.7.2): true, or false for a remote access error.
 */
bool
dr_resp_target(struct dr_qp_impl *qp, uint32_t rkey, uint64_t va, uint64_t len, unsigned int rights,
	       struct dr_rkey_target *t)
{
	return dr_rkey_resolve(qp, rkey, t) && dr_mr_check_access(&t->region, va, len, rights) == 0;
}

/*
 * The resource @idx is taken for a new request: a replay of the READ it
 * held (a duplicate request, IBA 9.7.5.1.3) is over. The requester keeps at
 * most max_dest_rd_atomic READs / atomics outstanding (IBA 9.7.4.1.x), so a
 * new one reaching the oldest resource means that READ completed at the
 * requester: the duplicate was stale. Left active or queued, the new
 * request's reply would be sent twice, the second time as one zero-length
 * LAST response past its PSNs.
 */
static void
res_forget_reply(struct dr_qp_impl *qp, int idx)
{
	struct dr_resp_state *rs = &qp->resp;
	uint8_t w = rs->res_qtail;

	if (rs->res_active == idx)
		rs->res_active = -1;
	for (uint8_t i = rs->res_qtail; i != rs->res_qhead; i++) {
		uint8_t v = rs->res_queue[i % DR_MAX_RD_ATOMIC];

		if (v != idx)
			rs->res_queue[w++ % DR_MAX_RD_ATOMIC] = v;
	}
	rs->res_qhead = w;
}

/* A responder resource for a new READ / atomic, recycled round robin (rxe rxe_prepare_res()). */
struct dr_resp_res *
dr_resp_new_res(struct dr_qp_impl *qp, int *idx)
{
	uint32_t n = RTE_MIN((uint32_t)qp->attr.max_dest_rd_atomic, (uint32_t)DR_MAX_RD_ATOMIC);
	struct dr_resp_res *res;

	*idx = (int)(qp->resp.res_next % n);
	qp->resp.res_next = (uint32_t)(*idx + 1) % n;
	res_forget_reply(qp, *idx);
	res = &qp->resp.res[*idx];
	memset(res, 0, sizeof(*res));
	res->valid = true;
	return res;
}

void
dr_resp_read_exec(struct dr_qp_impl *qp, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len)
{
	struct dr_resp_state *rs = &qp->resp;
	uint32_t n = dr_msg_pkts(len, qp->mtu);
	struct dr_resp_res *res;
	int idx;

	res = dr_resp_new_res(qp, &idx);
	res->is_read = true;
	res->first_psn = psn;
	res->last_psn = dr_psn_add(psn, n - 1);
	res->va = va;
	res->rkey = rkey;
	res->length = len;
	res->next_psn = psn;
	res->sent = res->start = 0;
	res->end = len;
	/* C9-148 (rxe): the MSN counts the READ when it is executed; the READ takes n PSNs */
	rs->msn = (rs->msn + 1) & DR_24BIT_MASK;
	rs->epsn = dr_psn_add(psn, n);
	if (rs->res_active < 0 && rs->res_qhead == rs->res_qtail)
		rs->res_active = idx;
	else         /* answered after the READs before it (at most max_dest_rd_atomic queued) */
		rs->res_queue[rs->res_qhead++ % DR_MAX_RD_ATOMIC] = (uint8_t)idx;
	/* its responses acknowledge everything before it */
	rs->ack_pending = false;
	rs->unacked = 0;
}

/* Resource whose PSN range holds @psn (rxe find_resource()). */
struct dr_resp_res *
dr_resp_find_res(struct dr_qp_impl *qp, uint32_t psn, int *idx)
{
	uint32_t i, n = RTE_MIN((uint32_t)qp->attr.max_dest_rd_atomic, (uint32_t)DR_MAX_RD_ATOMIC);

	for (i = 0; i < n; i++) {
		struct dr_resp_res *res = &qp->resp.res[i];

		if (res->valid && !dr_psn_before(psn, res->first_psn) && !dr_psn_after(psn, res->last_psn)) {
			*idx = (int)i;
			return res;
		}
	}
	return NULL;
}

/* Emit READ responses of the active resource, at most @budget (IBA 9.7.5.1.3; rxe read_reply()). */
/* @pay bytes of the READ's memory at @va into @m: attached from @pay >= tx_zcopy_min on, else copied. */
static int
read_payload(struct dr_qp_impl *qp, struct rte_mbuf *m, const struct dr_rkey_target *t, uint64_t va,
	     uint32_t pay)
{
	uint8_t *host = dr_rkey_host(t, va);

	if (pay >= qp->pub.context->tx_zcopy_min)
		return dr_qp_pkt_attach(qp, m, t->mr, host, pay);
	return dr_pkt_append(m, host, pay);
}

int
dr_resp_read_reply(struct dr_qp_impl *qp, int budget, bool *access_err)
{
	struct dr_resp_res *res = &qp->resp.res[qp->resp.res_active];
	uint32_t mtu = qp->mtu;
	int n = 0;

	while (n < budget && dr_tx_room(dr_qp_wk(qp)) > 0) {
		uint32_t left = res->end - res->sent, pay = RTE_MIN(left, mtu);
		bool first = res->sent == res->start, last = left <= mtu;
		struct dr_rkey_target t;
		struct dr_pkt_info pi;
		struct rte_mbuf *m;
		uint8_t opcode;

		if (pay != 0) {
			/* the region (or window) may have gone since the request: look it up again (rxe recheck) */
			if (!dr_resp_target(qp, res->rkey, res->va + res->sent, pay, DR_ACCESS_REMOTE_READ, &t)) {
				*access_err = true;
				return n;
			}
		}
		opcode = first ? (last ? dr_qp_rel_opcode(qp, DR_OP_READ_RESP_ONLY) : dr_qp_rel_opcode(qp, DR_OP_READ_RESP_FIRST))
			       : (last ? dr_qp_rel_opcode(qp, DR_OP_READ_RESP_LAST) : dr_qp_rel_opcode(qp, DR_OP_READ_RESP_MIDDLE));
		/* one packet below the zero-copy threshold: the frame in one pass (dr_qp_pkt_read_only()) */
		if (first && last && pay < qp->pub.context->tx_zcopy_min && likely(qp->pub.context->express)) {
			m = dr_qp_pkt_read_only(qp, &qp->resp.tmpl, opcode, res->next_psn, DR_RESP_SYN_ACK,
						qp->resp.msn, pay != 0 ? dr_rkey_host(&t, res->va + res->sent) : NULL, pay);
			if (m != NULL) {
				dr_qp_wk(qp)->stats.tx_express++;
				goto sent;
			}
		}
		m = dr_qp_pkt_start(qp, &qp->resp.tmpl, opcode, pay, res->next_psn, &pi);
		if (m == NULL)
			break;
		if (pi.mask & DR_OPF_AETH)
			dr_aeth_set(dr_pkt_aeth(&pi), DR_RESP_SYN_ACK, qp->resp.msn);
		if ((pay != 0 && read_payload(qp, m, &t, res->va + res->sent, pay) != 0) ||
		    dr_pkt_finalize(m, &pi) != 0) {
			rte_pktmbuf_free(m);
			break;
		}
sent:
		dr_wk_tx(dr_qp_wk(qp), m);
		n++;
		res->sent += pay;
		res->next_psn = dr_psn_add(res->next_psn, 1);
		if (last) {
			qp->resp.res_active = -1;
			break;
		}
	}
	return n;
}
