/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The responses of a READ that come after a lost one. IBA 9.7.5.2.x lets
 * the requester drop them and ask again from the first missing response;
 * it does not make it. A responder answers a duplicate READ with the part
 * of the original the duplicate names (IBA 9.7.5.1.3; rxe
 * duplicate_request() takes any subset of it), and rxe sends that after the
 * rest of the reply it is streaming: asked for "from the first missing byte
 * to the end", it sends the rest of a multi-megabyte READ once more for
 * each loss, and a lossy link sees the READ several times over.
 *
 * So the oldest READ keeps them: a response beyond its first missing one,
 * up to DR_READ_HOLD_PSNS - 1 PSNs beyond, is placed at its own offset (its
 * PSN names it: the READ's responses are numbered from its first PSN, each
 * but the last one path MTU long, IBA 9.7.4.1.3) and marked in a bitmap;
 * the READ is asked again for the gap only, from its first missing
 * response to the first one held, at most a send window of it
 * (dr_read_hold_gap(); whole while none of it came: the responder may not
 * have the READ yet); when an in-order response reaches the held ones
 * they are taken (dr_read_hold_take()).
 * When the answer to a gap is all in and the READ is not, the completer
 * asks for the next gap at once: the responder sent what it was asked
 * (rxe after its stream; ours stops the stream to answer). Nothing of this
 * is visible on the wire but shorter duplicate READ requests, and the
 * READ's buffer has no defined content until it completes (IBA 10.8.3.1):
 * placing early changes nothing for the application. The completer's own
 * state (qp->comp.read_hold), written on its lcore only.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "dr_comp.h"
#include "dr_log.h"

static inline uint32_t
read_k(const struct dr_send_wqe *wqe, uint32_t psn)
{
	return (uint32_t)dr_psn_diff(psn, wqe->first_psn);
}

/* Bytes of the READ's response @k (IBA 9.7.4.1.3: a path MTU each, the last the rest). */
static inline uint32_t
read_pkt_len(const struct dr_qp_impl *qp, const struct dr_send_wqe *wqe, uint32_t k)
{
	return k + 1 < wqe->npkts ? qp->mtu : wqe->length - k * qp->mtu;
}

static inline bool
hold_test(const struct dr_read_hold *h, uint32_t k)
{
	k %= DR_READ_HOLD_PSNS;
	return (h->bits[k / 64] >> (k % 64)) & 1;
}

/* The held responses belong to @wqe from now on: any of another READ (one that failed) go. */
static void
hold_own(struct dr_read_hold *h, const struct dr_send_wqe *wqe)
{
	if (h->first_psn == wqe->first_psn)
		return;
	if (h->n != 0)
		memset(h->bits, 0, sizeof(h->bits));
	h->n = 0;
	h->asked = false;
	h->first_psn = wqe->first_psn;
}

enum dr_wc_status
dr_read_hold_put(struct dr_qp_impl *qp, struct dr_send_wqe *wqe, uint32_t psn, const struct rte_mbuf *m,
		 const struct dr_pkt_info *pi)
{
	struct dr_read_hold *h = &qp->comp.read_hold;
	uint32_t k = read_k(wqe, psn), next = dr_read_next_k(qp, wqe), len, bit;
	int rc;

	hold_own(h, wqe);
	/* only between the first missing one and the window's end, in the READ, once */
	if (k <= next || k >= wqe->npkts || k - next >= DR_READ_HOLD_PSNS || hold_test(h, k))
		return DR_WC_SUCCESS;
	len = read_pkt_len(qp, wqe, k);
	/* IBA 9.7.4.1.3: a path MTU, and the rest in the last one, which is a LAST or an ONLY */
	if (pi->paylen != len || (k + 1 == wqe->npkts && !(pi->mask & DR_OPF_LAST)))
		return DR_WC_BAD_RESP_ERR;
	rc = dr_qp_sge_scatter(qp, wqe->sge, wqe->num_sge, k * qp->mtu, m, pi->pay_off, len);
	if (rc != 0)
		return rc == -EMSGSIZE ? DR_WC_LOC_LEN_ERR : DR_WC_LOC_PROT_ERR;
	bit = k % DR_READ_HOLD_PSNS;
	h->bits[bit / 64] |= UINT64_C(1) << (bit % 64);
	h->n++;
	dr_qp_wk(qp)->stats.rx_read_held++;
	return DR_WC_SUCCESS;
}

uint32_t
dr_read_hold_take(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	struct dr_read_hold *h = &qp->comp.read_hold;
	uint32_t k, bytes = 0;

	if (h->n == 0 || h->first_psn != wqe->first_psn)
		return 0;
	/* every held k is within DR_READ_HOLD_PSNS - 1 after the first missing one: its bit is its own */
	for (k = dr_read_next_k(qp, wqe); h->n != 0 && hold_test(h, k); k++) {
		uint32_t bit = k % DR_READ_HOLD_PSNS;

		h->bits[bit / 64] &= ~(UINT64_C(1) << (bit % 64));
		h->n--;
		bytes += read_pkt_len(qp, wqe, k);
	}
	return bytes;
}

uint32_t
dr_read_hold_gap(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	struct dr_read_hold *h = &qp->comp.read_hold;
	uint32_t next = dr_read_next_k(qp, wqe), end = wqe->npkts, k;

	hold_own(h, wqe);
	if (h->n != 0) {
		uint32_t stop = RTE_MIN(end, next + DR_READ_HOLD_PSNS);

		for (k = next + 1; k < stop; k++) {
			uint32_t bit = k % DR_READ_HOLD_PSNS;

			if (bit % 64 == 0 && h->bits[bit / 64] == 0) {
				k += 63;                /* a word with none held */
				continue;
			}
			if (hold_test(h, k)) {
				end = k;
				break;
			}
		}
	}
	/*
	 * At most a window's worth (what a go-back-N resends of a WRITE): the
	 * answer ends at a known PSN. Not while nothing of the READ has come:
	 * the responder may never have had the request (it was lost), and a
	 * part of it would then be executed as a READ of its own, whose PSNs
	 * end where that part ends (IBA 9.7.4.1.x: a READ takes the PSNs its
	 * length needs). A later ask that crosses that end fits none of the
	 * responder's resources and is dropped, every time (9.7.5.1.3; rxe the
	 * same): the READ could only end in RETRY_EXC_ERR. Asked whole, as it
	 * was sent, the responder's resource spans all of it, and every later
	 * ask, a part of it, fits.
	 */
	if (end - next > qp->window && (next != 0 || h->n != 0))
		end = next + qp->window;
	h->asked = true;
	h->ask_end = dr_psn_add(wqe->first_psn, end);
	return end == wqe->npkts ? wqe->length - dr_wqe_resp_bytes(wqe) : (end - next) * qp->mtu;
}

bool
dr_read_hold_answered(const struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	const struct dr_read_hold *h = &qp->comp.read_hold;

	return h->asked && h->first_psn == wqe->first_psn &&
	       !dr_psn_before(dr_read_next_psn(qp, wqe), h->ask_end);
}

int
dr_read_hold_ask(struct dr_qp_impl *qp, struct dr_send_wqe *wqe)
{
	uint32_t len = dr_read_hold_gap(qp, wqe);

	dr_qp_wk(qp)->stats.rereads++;
	qp->cnt.rereads++;
	DR_DP_LOG(comp, DEBUG, "qp %u: READ psn %#x asked again from psn %#x, %u bytes (%u held)", qp->pub.qp_num,
		  wqe->first_psn, dr_read_next_psn(qp, wqe), len, qp->comp.read_hold.n);
	return dr_req_reread(qp, wqe, len);
}

bool
dr_comp_reread_oldest(struct dr_qp_impl *qp)
{
	struct dr_send_wqe *wqe = dr_comp_oldest_pending(qp);

	if (wqe == NULL || wqe->opcode != DR_WR_RDMA_READ || !dr_wqe_all_sent(wqe) || dr_wqe_failed(wqe) ||
	    dr_ho_rewind_pending(qp))
		return false;
	return dr_read_hold_ask(qp, wqe) == 0;
}

void
dr_comp_rewind(struct dr_qp_impl *qp)
{
	qp->comp.read_hold.asked = false;     /* the go-back-N asks for all the rest */
	dr_ho_rewind(qp);
}
