/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The UD responder (IBA vol. 1, 9.8 and 10.2.5; ibv_post_recv(3)): every
 * UD request is a one-packet SEND, with or without immediate data. Checks,
 * in order, each one silently dropping the packet when it fails (UD has no
 * NAK; counted in dr_qp_wk(qp)->stats.rx_dropped):
 *   Q_KEY      the DETH's Q_Key is the QP's (IBA 10.2.5 Q_Keys)
 *   LENGTH     the payload fits the path MTU (UD messages are one packet,
 *              IBA C10-93.1.1; rxe check_length())
 *   RESOURCE   a receive WQE is posted (IBA 9.8.x: no RNR for UD)
 * then the receive WQE gets the 40-byte GRH area (struct dr_grh: the IPv6
 * header, or 20 zero bytes and the IPv4 header, as rxe writes it) followed
 * by the payload, and completes with src_qp, DR_WC_GRH and the immediate
 * data. A message larger than the WQE's buffers completes it with
 * DR_WC_LOC_LEN_ERR and moves the QP to ERR (a receive queue error).
 */

#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "dr_log.h"
#include "dr_srq.h"
#include "dr_transport.h"
#include "dr_verbs_priv.h"

/* The 40 bytes placed before the payload (ibv_post_recv(3); rxe copies the received IP header). */
static void
ud_grh(const struct dr_pkt_info *pi, uint8_t grh[DR_GRH_LEN])
{
	const uint8_t *ip = pi->frame + pi->l3_off;

	if (pi->ip_ver == 6) {
		memcpy(grh, ip, DR_GRH_LEN);
	} else {
		memset(grh, 0, DR_GRH_LEN - 20);
		memcpy(grh + DR_GRH_LEN - 20, ip, 20);
	}
}

/* Complete the WQE at the RQ's tail; a CQ overrun moves the QP to ERR (IBA 11.4.2.1). */
static void
ud_complete(struct dr_qp_impl *qp, struct dr_wc *wc, bool solicited)
{
	dr_rwqe_done(qp);
	if (dr_cq_push_se(dr_cq_impl(dr_resp_recv_cq(qp)), wc, solicited) != 0 || wc->status != DR_WC_SUCCESS)
		dr_qp_fail(qp, false);
}

static void
ud_drop(struct dr_qp_impl *qp, struct rte_mbuf *m, const char *why)
{
	DR_DP_LOG(resp, DEBUG, "qp %u: UD request dropped: %s", qp->pub.qp_num, why);
	dr_qp_wk(qp)->stats.rx_dropped++;
	rte_pktmbuf_free(m);
}

void
dr_resp_ud_rx(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	const struct dr_deth *deth;
	const struct dr_recv_wqe *rwqe;
	uint8_t grh[DR_GRH_LEN];
	struct dr_wc wc;
	int rc;

	/* IBA 10.3.1: requests are taken from RTR on */
	if (!dr_qp_can_receive(qp)) {
		dr_qp_wk(qp)->stats.rx_bad_state++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!(pi->mask & DR_OPF_DETH) || !(pi->mask & DR_OPF_SEND))
		return ud_drop(qp, m, "not a SEND with a DETH");
	deth = dr_pkt_deth(pi);
	if (dr_deth_qkey(deth) != qp->attr.qkey)
		return ud_drop(qp, m, "Q_Key mismatch");
	if (pi->paylen > qp->mtu)
		return ud_drop(qp, m, "payload above the path MTU");
	if (!dr_rwqe_available(qp))
		return ud_drop(qp, m, "no receive WQE");
	dr_rwqe_take(qp);
	rwqe = dr_rwqe_cur(qp);
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rwqe->wr_id;
	wc.opcode = DR_WC_RECV;
	wc.qp_num = qp->pub.qp_num;
	wc.src_qp = dr_deth_sqp(deth);
	if ((uint64_t)DR_GRH_LEN + pi->paylen > rwqe->length) {
		wc.status = DR_WC_LOC_LEN_ERR;
		ud_complete(qp, &wc, false);
		rte_pktmbuf_free(m);
		return;
	}
	ud_grh(pi, grh);
	rc = dr_qp_sge_write(qp, rwqe->sge, rwqe->num_sge, 0, grh, DR_GRH_LEN);
	if (rc == 0)
		rc = dr_qp_sge_scatter(qp, rwqe->sge, rwqe->num_sge, DR_GRH_LEN, m, pi->pay_off, pi->paylen);
	if (rc != 0) {
		/* the WQE's buffers went bad since it was posted (MR deregistered) */
		wc.status = rc == -EMSGSIZE ? DR_WC_LOC_LEN_ERR : DR_WC_LOC_PROT_ERR;
		ud_complete(qp, &wc, false);
		rte_pktmbuf_free(m);
		return;
	}
	wc.status = DR_WC_SUCCESS;
	wc.byte_len = DR_GRH_LEN + pi->paylen;
	wc.wc_flags = DR_WC_GRH;
	if (pi->mask & DR_OPF_IMMDT) {
		wc.imm_data = dr_immdt_imm(dr_pkt_immdt(pi));
		wc.wc_flags |= DR_WC_WITH_IMM;
	}
	ud_complete(qp, &wc, dr_bth_se(dr_pkt_bth(pi)));
	rte_pktmbuf_free(m);
}
