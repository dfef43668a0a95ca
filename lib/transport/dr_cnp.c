/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Congestion Notification Packets (IBA vol. 1 Annex A17.9; DCQCN's
 * notification point, doc/guides/congestion.rst):
 *
 *   sent      for a CE-marked packet of an RC, UC or XRC QP, to the peer QP
 *             that sent it, at most one per QP per cnp_interval (dr_cc.h);
 *             BTH opcode 0x81, BECN set, PSN 0, 16 reserved bytes, the
 *             QP's DSCP and ECN Not-ECT (a CNP is never marked itself)
 *   received  counted, and published to the QP's requester, whose rate
 *             machine (DCQCN) takes it on its own lcore
 *
 * Any peer's CNPs are taken the same way: rxe's, a NIC's, ours.
 */

#include <rte_mbuf.h>

#include "dr_log.h"
#include "dr_transport.h"

static const uint8_t cnp_reserved[DR_CNP_PAYLOAD_BYTES];

/* Send the CNP now: 0 or -ENOBUFS (no room, no mbuf, no MAC yet: the next CE asks again). */
static int
cnp_send(struct dr_qp_impl *qp)
{
	struct dr_worker *wk = dr_qp_wk(qp);
	struct dr_pkt_info pi;
	struct rte_mbuf *m;

	if (dr_tx_room(wk) == 0)
		return -ENOBUFS;
	m = dr_qp_pkt_start_cnp(qp, (uint8_t)(qp->route.tclass & ~DR_ECN_MASK), &pi);
	if (m == NULL)
		return -ENOBUFS;
	/* A17.9.3: BECN 1 says "congestion" to the QP it is addressed to */
	dr_bth_set_becn(dr_pkt_bth(&pi), true);
	if (dr_pkt_append(m, cnp_reserved, sizeof(cnp_reserved)) != 0 || dr_pkt_finalize(m, &pi) != 0) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	dr_wk_tx(wk, m);
	return 0;
}

void
dr_cnp_on_ce(struct dr_qp_impl *qp, uint64_t now)
{
	struct dr_worker *wk = dr_qp_wk(qp);

	wk->stats.rx_ecn_ce++;
	if (!dr_cc_rx_ce(&qp->cc_rx, &qp->pub.context->cc, now))
		return;
	if (cnp_send(qp) != 0) {
		qp->cc_rx.next_cnp = 0;        /* not sent: the next CE-marked packet tries again */
		return;
	}
	qp->cc_rx.cnp_tx++;
	wk->stats.tx_cnp++;
}

void
dr_cnp_rx(struct dr_qp_impl *qp, struct rte_mbuf *m)
{
	dr_qp_wk(qp)->stats.rx_cnp++;
	dr_cc_rx_cnp(&qp->cc_rx);
	rte_pktmbuf_free(m);
}
