/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Packets of a QP: start one (neighbour resolution for a connected QP, mbuf,
 * headers, BTH; a UD packet along its AH's route), and move payload between
 * packets and memory (WQE inline data, SGE lists checked against their MRs,
 * IBA 10.6.3.1; long payloads attached from the memory instead of copied).
 * Every access is bounded by the MR checks: nothing outside a registered
 * region is ever touched.
 */

#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "dr_log.h"
#include "dr_pkt_express.h"
#include "dr_psn.h"
#include "dr_transport.h"

/* IPv4 identification counter of the building thread (pkt_start()). */
static RTE_DEFINE_PER_LCORE(uint16_t, dr_ip_id);
/* Lazily learn the destination MAC (the backend resolves ARP / ND). */
static int
qp_route_resolve(struct dr_qp_impl *qp)
{
	struct dr_context *ctx = qp->pub.context;
	union dr_gid gid;
	int rc;

	if (likely(qp->route_resolved))
		return 0;
	memcpy(gid.raw, qp->route.dgid, sizeof(gid.raw));   /* route.dgid is not 8-byte aligned */
	rc = ctx->be->resolve(&ctx->bport, &gid, &qp->route.dmac);
	if (rc == 0) {
		qp->route_resolved = true;
		return 0;
	}
	if (rc != -EAGAIN)
		DR_DP_LOG(req, DEBUG, "qp %u: cannot resolve the peer's MAC: %d", qp->pub.qp_num, rc);
	return rc;
}

/* The calling stage's prebuilt headers of the QP's route, rebuilt after a change of route. */
static const struct dr_pkt_tmpl *
qp_tmpl(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc)
{
	if (likely(tc->gen == qp->route_gen + 1))
		return &tc->t;
	if (qp_route_resolve(qp) != 0 || dr_pkt_tmpl_init(&tc->t, &qp->route) != 0)
		return NULL;
	tc->gen = qp->route_gen + 1;
	return &tc->t;
}

/* mbuf, headers along @tmpl (or @rt without one), BTH to @dest_qpn with @psn. */
static struct rte_mbuf *
pkt_start(struct dr_qp_impl *qp, const struct dr_pkt_tmpl *tmpl, const struct dr_pkt_route *rt,
	  uint32_t dest_qpn, uint8_t opcode, uint32_t paylen, uint32_t psn, struct dr_pkt_info *pi)
{
	struct dr_context *ctx = qp->pub.context;
	struct rte_mbuf *m;
	uint16_t ip_id = 0;
	struct dr_bth *bth;
	int rc;

	m = rte_pktmbuf_alloc(ctx->pool);
	if (unlikely(m == NULL)) {
		dr_qp_wk(qp)->stats.tx_nombuf++;
		return NULL;
	}
	/*
	 * IPv4 identification: any value for an atomic datagram (DF set, RFC
	 * 6864); a counter of the building thread, so no stage writes another's
	 * state for it
	 */
	if ((tmpl != NULL ? tmpl->ip_ver : rt->ip_ver) == 4)
		ip_id = RTE_PER_LCORE(dr_ip_id)++;
	rc = tmpl != NULL ? dr_pkt_build_tmpl(m, tmpl, ip_id, opcode, paylen, pi) :
			    dr_pkt_build(m, rt, ip_id, opcode, paylen, pi);
	if (unlikely(rc != 0)) {
		DR_DP_LOG(req, ERR, "qp %u: cannot build %s (%u bytes): %d", qp->pub.qp_num,
			  dr_opcode_name(opcode), paylen, rc);
		rte_pktmbuf_free(m);
		return NULL;
	}
	bth = dr_pkt_bth(pi);
	dr_bth_set_qpn(bth, dest_qpn);
	dr_bth_set_psn(bth, psn & DR_PSN_MASK);
	dr_bth_set_pkey(bth, DR_DEFAULT_PKEY);
	return m;
}

struct rte_mbuf *
dr_qp_pkt_start(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, uint8_t opcode, uint32_t paylen,
		uint32_t psn, struct dr_pkt_info *pi)
{
	const struct dr_pkt_tmpl *t = qp_tmpl(qp, tc);

	if (unlikely(t == NULL))
		return NULL;          /* retried next round */
	return pkt_start(qp, t, NULL, qp->attr.dest_qp_num, opcode, paylen, psn, pi);
}

struct rte_mbuf *
dr_qp_pkt_start_ud(struct dr_qp_impl *qp, const struct dr_pkt_route *rt, uint32_t dest_qpn, uint8_t opcode,
		   uint32_t paylen, uint32_t psn, struct dr_pkt_info *pi)
{
	struct dr_pkt_route r = *rt;

	r.udp_sport = qp->route.udp_sport;   /* rxe: the UD QP's port, whatever the AH */
	return pkt_start(qp, NULL, &r, dest_qpn, opcode, paylen, psn, pi);
}

struct rte_mbuf *
dr_qp_pkt_start_cnp(struct dr_qp_impl *qp, uint8_t tclass, struct dr_pkt_info *pi)
{
	struct dr_pkt_route r;

	if (qp_route_resolve(qp) != 0)
		return NULL;
	r = qp->route;
	r.tclass = tclass;
	return pkt_start(qp, NULL, &r, qp->attr.dest_qp_num, DR_OPCODE_CNP, DR_CNP_PAYLOAD_BYTES, 0, pi);
}

/*
 * The local memory of one SGE, after checking its L_Key: the MR must exist,
 * belong to the QP's PD, cover [addr, addr + length) and grant @need
 * (IBA 10.6.3.1; a mismatch is a local protection error).
 */
static int
sge_check(struct dr_qp_impl *qp, const struct dr_sge *sge, unsigned int need)
{
	struct dr_mr_impl *mr = dr_mr_lookup(qp->pub.context, sge->lkey);

	if (unlikely(mr == NULL || mr->pub.pd != qp->pub.pd))
		return -EACCES;
	return dr_mr_check_access(&mr->region, sge->addr, sge->length, need);
}

/* Skip @offset bytes of an SGE list: index of the SGE and offset inside it. */
static bool
sge_seek(const struct dr_sge *sge, uint16_t num_sge, uint32_t offset, uint16_t *idx, uint32_t *in)
{
	uint16_t i = 0;

	while (i < num_sge && offset >= sge[i].length) {
		offset -= sge[i].length;
		i++;
	}
	*idx = i;
	*in = offset;
	return i < num_sge || offset == 0;
}

/*
 * The payload of a one-packet request as one flat run: the inline copy, or
 * the part of one SGE that holds it all, its L_Key checked (sge_check(),
 * unless no MR was deregistered since the post checked it: ctx->mr_gen) and
 * below the zero-copy threshold (dr_qp_pkt_add_payload() copies it then).
 * NULL when it is not (several SGEs, attached, a bad L_Key: the general
 * builder's, which reports the error).
 */
static const uint8_t *
only_payload(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe, uint32_t len)
{
	uint16_t i;
	uint32_t in;

	if (wqe->inline_data != NULL)
		return wqe->inline_data;
	if (!sge_seek(wqe->sge, wqe->num_sge, 0, &i, &in) || i >= wqe->num_sge || len > wqe->sge[i].length ||
	    len >= qp->pub.context->tx_zcopy_min)
		return NULL;
	if (wqe->mr_gen != __atomic_load_n(&qp->pub.context->mr_gen, __ATOMIC_ACQUIRE) &&
	    sge_check(qp, &wqe->sge[i], 0) != 0)
		return NULL;
	return (const uint8_t *)(uintptr_t)wqe->sge[i].addr;
}

/*
 * only_payload() of a run's WQE, its common case inline: one SGE that holds
 * the payload, below the zero-copy threshold @zcopy_min, posted under the
 * MR generation @mr_gen the run read once (a run is one worker round: a
 * deregistration waits for it, dr_mr.c). Anything else goes the long way.
 */
static inline __attribute__((always_inline)) const uint8_t *
run_payload(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe, uint32_t len, uint32_t zcopy_min,
	    uint32_t mr_gen)
{
	if (likely(wqe->inline_data == NULL && wqe->num_sge == 1 && len <= wqe->sge[0].length &&
		   len < zcopy_min && wqe->mr_gen == mr_gen))
		return (const uint8_t *)(uintptr_t)wqe->sge[0].addr;
	return only_payload(qp, wqe, len);
}

/* The length of the flat frame of opcode @info with @len payload bytes: headers, payload, pad, ICRC. */
static inline uint32_t
flat_len(const struct dr_opcode_info *info, uint32_t len)
{
	return DR_XP_BTH_OFF + info->length + len + (-len & 3u) + DR_ICRC_BYTES;
}

/*
 * The headers of the flat frame @f of one packet on untagged IPv4 headers
 * (@t): the route's 42 bytes copied and patched (UDP and IPv4 lengths,
 * identification, checksum: dr_pkt_build_tmpl()'s), the BTH written (IBA
 * 9.2: opcode, SE | PadCnt | TVer 0, the default P_Key, DestQP @dqpn_be -
 * big-endian, AckReq | PSN). Where the opcode's extension headers go.
 */
static inline __attribute__((always_inline)) uint8_t *
flat_head_at(uint8_t *f, const struct dr_pkt_tmpl *t, const struct dr_opcode_info *info, uint8_t opcode,
	     uint32_t dqpn_be, uint32_t psn, uint8_t bth_flags, bool ackreq, uint32_t len)
{
	uint32_t pad = -len & 3u, udp_len = 8 + info->length + len + pad + DR_ICRC_BYTES, w;
	uint16_t be;
	uint8_t *b;

	/* 48 bytes, three 16-byte moves: the 42 of the headers, then 6 the BTH below overwrites */
	_Static_assert(sizeof(t->hdr) >= 48 && DR_XP_BTH_OFF + DR_BTH_BYTES >= 48, "the headers' copy in whole blocks");
	memcpy(f, t->hdr, 48);
	be = rte_cpu_to_be_16((uint16_t)udp_len);
	memcpy(f + DR_XP_BTH_OFF - 4, &be, 2);
	dr_pkt_tmpl_ipv4_set(f + DR_XP_L3_OFF, t, (uint16_t)(20 + udp_len), RTE_PER_LCORE(dr_ip_id)++);
	b = f + DR_XP_BTH_OFF;
	b[0] = opcode;
	b[1] = (uint8_t)(bth_flags | pad << DR_BTH_PAD_SHIFT);
	b[2] = b[3] = 0xFF;
	memcpy(b + 4, &dqpn_be, 4);
	w = rte_cpu_to_be_32((ackreq ? DR_BTH_ACKREQ : 0) | (psn & DR_PSN_MASK));
	memcpy(b + 8, &w, 4);
	return b + DR_BTH_BYTES;
}

/* The big-endian DestQP of the QP's requests. */
static inline uint32_t
dest_qpn_be(const struct dr_qp_impl *qp)
{
	return rte_cpu_to_be_32(qp->attr.dest_qp_num & DR_24BIT_MASK);
}

/*
 * An mbuf of the context's pool holding the flat frame's headers
 * (flat_head_at()); *@frame the frame, *@ext where the opcode's extension
 * headers go. NULL: no mbuf, or not room enough in one.
 */
static inline __attribute__((always_inline)) struct rte_mbuf *
flat_head(struct dr_qp_impl *qp, const struct dr_pkt_tmpl *t, const struct dr_opcode_info *info, uint8_t opcode,
	  uint32_t psn, uint8_t bth_flags, bool ackreq, uint32_t len, uint8_t **frame, uint8_t **ext)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(qp->pub.context->pool);
	uint8_t *f;

	if (unlikely(m == NULL))
		return NULL;
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)flat_len(info, len));
	if (unlikely(f == NULL)) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	*frame = f;
	*ext = flat_head_at(f, t, info, opcode, dest_qpn_be(qp), psn, bth_flags, ackreq, len);
	return m;
}

/* After the extension headers of frame @f (@b their end): payload, pad, ICRC (dr_pkt_finalize()'s). */
static inline __attribute__((always_inline)) void
flat_tail(uint8_t *f, const struct dr_opcode_info *info, uint8_t *b, const uint8_t *src, uint32_t len)
{
	uint32_t pad = -len & 3u, w;

	if (len != 0)
		rte_memcpy(b, src, len);
	memset(b + len, 0, pad);
	w = rte_cpu_to_le_32(dr_icrc_flat_v4(f, info->length - DR_BTH_BYTES + len + pad));
	memcpy(b + len + pad, &w, 4);
}

/* RETH, ImmDt, IETH of @wqe at @b, in the order of the opcode's headers (IBA 9.3); their end. */
static inline __attribute__((always_inline)) uint8_t *
only_ext(uint8_t *b, const struct dr_opcode_info *info, const struct dr_send_wqe *wqe, uint32_t len)
{
	uint32_t w;

	if (info->mask & DR_OPF_RETH) {
		uint64_t va = rte_cpu_to_be_64(wqe->remote_addr);
		uint32_t rkey = rte_cpu_to_be_32(wqe->rkey), l = rte_cpu_to_be_32(len);

		memcpy(b, &va, 8);
		memcpy(b + 8, &rkey, 4);
		memcpy(b + 12, &l, 4);
		b += DR_RETH_BYTES;
	}
	if (info->mask & DR_OPF_IMMDT) {
		memcpy(b, &wqe->imm_data, 4);
		b += 4;
	}
	if (info->mask & DR_OPF_IETH) {
		w = rte_cpu_to_be_32(wqe->invalidate_rkey);
		memcpy(b, &w, 4);
		b += 4;
	}
	return b;
}

/* Only RETH, ImmDt and IETH after the BTH, the opcode's whole length (what only_ext() writes)? */
static inline bool
only_ext_ok(const struct dr_opcode_info *info)
{
	uint32_t mask = info->mask;

	if (unlikely((mask & (DR_OPF_XRCETH | DR_OPF_DETH | DR_OPF_ATMETH)) != 0))
		return false;
	return (uint32_t)info->length - DR_BTH_BYTES == ((mask & DR_OPF_RETH) ? (uint32_t)DR_RETH_BYTES : 0u) +
					      ((mask & DR_OPF_IMMDT) ? 4u : 0) + ((mask & DR_OPF_IETH) ? 4u : 0);
}

/* The stage's headers when express frames can be built along them: untagged IPv4, else NULL. */
static inline const struct dr_pkt_tmpl *
only_tmpl(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc)
{
	const struct dr_pkt_tmpl *t = qp_tmpl(qp, tc);

	return likely(t != NULL && t->ip_ver == 4 && t->len == DR_XP_BTH_OFF) ? t : NULL;
}

struct rte_mbuf *
dr_qp_pkt_only(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, const struct dr_send_wqe *wqe,
	       uint8_t opcode, uint32_t psn, uint8_t bth_flags, bool ackreq)
{
	const struct dr_pkt_tmpl *t = only_tmpl(qp, tc);
	const struct dr_opcode_info *info = &dr_opcode_table[opcode];
	uint32_t len = wqe->length;
	const uint8_t *src = NULL;
	struct rte_mbuf *m;
	uint8_t *f, *ext;

	/* untagged IPv4 headers of 42 bytes, extension headers the ones written here (RETH, ImmDt, IETH) */
	if (unlikely(t == NULL || len > qp->mtu || !only_ext_ok(info)))
		return NULL;
	if (len != 0) {
		src = only_payload(qp, wqe, len);
		if (src == NULL)
			return NULL;
	}
	m = flat_head(qp, t, info, opcode, psn, bth_flags, ackreq, len, &f, &ext);
	if (m == NULL)
		return NULL;
	flat_tail(f, info, only_ext(ext, info, wqe, len), src, len);
	return m;
}

/*
 * The first 8 bytes of a fresh mbuf of @pool (struct rte_mbuf's rearm_data:
 * data_off, refcnt, nb_segs, port), as rte_pktmbuf_reset() leaves them: one
 * store instead of its field by field (the drivers' mbuf_initializer).
 */
static inline uint64_t
mbuf_rearm_word(const struct rte_mbuf *m)
{
	struct rte_mbuf mb = { .buf_len = m->buf_len };
	uint64_t w;

	rte_pktmbuf_reset_headroom(&mb);
	mb.nb_segs = 1;
	mb.port = RTE_MBUF_PORT_INVALID;
	rte_mbuf_refcnt_set(&mb, 1);
	memcpy(&w, &mb.rearm_data, sizeof(w));
	return w;
}

/*
 * @m, just taken from its pool (refcnt 1, next NULL, nb_segs 1: how
 * rte_mbuf_raw_alloc() gives it), as rte_pktmbuf_reset() then
 * rte_pktmbuf_append() of @len bytes leave it; the frame's start.
 */
static inline __attribute__((always_inline)) uint8_t *
mbuf_fresh(struct rte_mbuf *m, uint64_t rearm, uint32_t len)
{
	memcpy(&m->rearm_data, &rearm, sizeof(rearm));
	m->ol_flags &= RTE_MBUF_F_EXTERNAL;
	m->packet_type = 0;
	m->pkt_len = len;
	m->data_len = (uint16_t)len;
	m->vlan_tci = 0;
	m->vlan_tci_outer = 0;
	m->tx_offload = 0;
	return rte_pktmbuf_mtod(m, uint8_t *);
}

unsigned int
dr_qp_pkt_only_burst(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, uint32_t idx, const uint8_t *ops,
		     unsigned int n, uint32_t psn, struct rte_mbuf **out, uint32_t *bytes)
{
	const struct dr_pkt_tmpl *t = only_tmpl(qp, tc);
	struct dr_context *ctx = qp->pub.context;
	const uint32_t dqpn_be = dest_qpn_be(qp), zcopy_min = ctx->tx_zcopy_min;
	const uint32_t mr_gen = __atomic_load_n(&ctx->mr_gen, __ATOMIC_ACQUIRE);
	uint64_t rearm;
	uint32_t room, total = 0;
	unsigned int k;

	*bytes = 0;
	/* RC and UC: their SEND and WRITE opcodes carry only RETH, ImmDt, IETH (only_ext()) */
	if (t == NULL || n == 0 || (qp->pub.qp_type != DR_QPT_RC && qp->pub.qp_type != DR_QPT_UC))
		return 0;
	if (unlikely(rte_mempool_get_bulk(ctx->pool, (void **)out, n) != 0)) {
		/* fewer mbufs than frames: one, and none when even that fails (the general builder's then) */
		n = 1;
		if (rte_mempool_get(ctx->pool, (void **)out) != 0)
			return 0;
	}
	/* one pool, one size: the room after the headroom, and the first 8 bytes, of all of them */
	rearm = mbuf_rearm_word(out[0]);
	room = out[0]->buf_len - RTE_MIN(RTE_PKTMBUF_HEADROOM, out[0]->buf_len);
	for (k = 0; k < n; k++) {
		const struct dr_send_wqe *wqe = dr_sq_wqe(&qp->sq, idx + k);
		const struct dr_opcode_info *info = &dr_opcode_table[ops[k]];
		uint32_t len = wqe->length, flen = flat_len(info, len);
		const uint8_t *src = NULL;
		uint8_t *f, *b;

		if (unlikely(len > qp->mtu || flen > room))
			break;
		if (len != 0) {
			src = run_payload(qp, wqe, len, zcopy_min, mr_gen);
			if (src == NULL)
				break;
		}
		f = mbuf_fresh(out[k], rearm, flen);
		/* AckReq on a reliable request, as dr_req.c's req_pkt_only() */
		b = flat_head_at(f, t, info, ops[k], dqpn_be, dr_psn_add(psn, k), dr_wqe_bth_se(wqe, info->mask),
				 (info->mask & DR_OPF_RELIABLE) != 0, len);
		flat_tail(f, info, only_ext(b, info, wqe, len), src, len);
		total += flen;
	}
	if (k < n)
		rte_mempool_put_bulk(ctx->pool, (void **)(out + k), n - k);   /* untouched: back as they came */
	*bytes = total;
	return k;
}

struct rte_mbuf *
dr_qp_pkt_read_only(struct dr_qp_impl *qp, struct dr_pkt_tmpl_cache *tc, uint8_t opcode, uint32_t psn,
		    uint8_t syndrome, uint32_t msn, const uint8_t *src, uint32_t len)
{
	const struct dr_pkt_tmpl *t = qp_tmpl(qp, tc);
	const struct dr_opcode_info *info = &dr_opcode_table[opcode];
	struct rte_mbuf *m;
	uint8_t *f, *ext;

	/* untagged IPv4 headers of 42 bytes; the opcode's one extension header an AETH (IBA 9.3) */
	if (unlikely(t == NULL || t->ip_ver != 4 || t->len != DR_XP_BTH_OFF || len > qp->mtu ||
		     info->length != DR_BTH_BYTES + DR_AETH_BYTES || !(info->mask & DR_OPF_AETH)))
		return NULL;
	m = flat_head(qp, t, info, opcode, psn, 0, false, len, &f, &ext);
	if (m == NULL)
		return NULL;
	dr_aeth_set((struct dr_aeth *)(void *)ext, syndrome, msn);
	flat_tail(f, info, ext + DR_AETH_BYTES, src, len);
	return m;
}

/* The PMD freed a frame whose payload was attached from @opaque's memory. */
static void
zc_release(void *addr __rte_unused, void *opaque)
{
	struct dr_mr_impl *mr = opaque;

	__atomic_fetch_sub(&mr->zc_frames, 1, __ATOMIC_RELEASE);
}

int
dr_qp_pkt_attach(struct dr_qp_impl *qp, struct rte_mbuf *m, struct dr_mr_impl *mr, void *data,
		 uint32_t len)
{
	int rc;

	/* counted before the frame exists: dereg_mr sees it once the builder's worker is quiescent */
	__atomic_fetch_add(&mr->zc_frames, 1, __ATOMIC_RELAXED);
	rc = dr_pkt_attach(m, qp->pub.context->pool, data, len, zc_release, mr);
	if (unlikely(rc != 0)) {
		__atomic_fetch_sub(&mr->zc_frames, 1, __ATOMIC_RELAXED);
		dr_qp_wk(qp)->stats.tx_nombuf++;
		return -ENOBUFS;
	}
	dr_qp_wk(qp)->stats.tx_zcopy++;
	return 0;
}

bool
dr_qp_rx_check_placing(struct dr_qp_impl *qp, struct rte_mbuf *m, const struct dr_pkt_info *pi, uint8_t *dst)
{
	enum dr_pkt_status st = dst != NULL ? dr_pkt_copy_check_icrc(m, pi, dst) : dr_pkt_check_icrc(m, pi);

	if (st != DR_PKT_OK) {
		dr_qp_wk(qp)->stats.rx_bad_icrc++;
		rte_pktmbuf_free(m);
		return false;
	}
	dr_qp_wk(qp)->stats.rx_placed += dst != NULL;
	return true;
}

/* Zero-copy: @len bytes from byte @in of one SGE, attached after its L_Key check (IBA 10.6.3.1). */
static int
payload_attach(struct dr_qp_impl *qp, struct rte_mbuf *m, const struct dr_sge *sge, uint32_t in,
	       uint32_t len)
{
	struct dr_mr_impl *mr = dr_mr_lookup(qp->pub.context, sge->lkey);
	int rc;

	if (unlikely(mr == NULL || mr->pub.pd != qp->pub.pd))
		return -EACCES;
	rc = dr_mr_check_access(&mr->region, sge->addr, sge->length, 0);
	if (unlikely(rc != 0))
		return rc;
	return dr_qp_pkt_attach(qp, m, mr, (void *)(uintptr_t)(sge->addr + in), len);
}

int
dr_qp_pkt_add_payload(struct dr_qp_impl *qp, struct rte_mbuf *m, const struct dr_send_wqe *wqe,
		      uint32_t offset, uint32_t len)
{
	uint16_t i;
	uint32_t in;
	uint8_t *dst;

	if (len == 0)
		return 0;
	if (len > UINT16_MAX)
		return -ENOSPC;
	if (wqe->inline_data == NULL) {
		if (!sge_seek(wqe->sge, wqe->num_sge, offset, &i, &in))
			return -EFAULT;
		/* long enough and in one SGE: attached, not copied */
		if (len >= qp->pub.context->tx_zcopy_min && i < wqe->num_sge && in + len <= wqe->sge[i].length)
			return payload_attach(qp, m, &wqe->sge[i], in, len);
	}
	dst = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (unlikely(dst == NULL))
		return -ENOSPC;
	if (wqe->inline_data != NULL) {
		memcpy(dst, wqe->inline_data + offset, len);
		return 0;
	}
	while (len > 0) {
		uint32_t n;
		int rc;

		if (i >= wqe->num_sge)
			return -EFAULT;
		if (wqe->sge[i].length == 0) {
			i++;
			continue;
		}
		rc = sge_check(qp, &wqe->sge[i], 0);
		if (unlikely(rc != 0))
			return rc;
		n = RTE_MIN(len, wqe->sge[i].length - in);
		memcpy(dst, (const void *)(uintptr_t)(wqe->sge[i].addr + in), n);
		dst += n;
		len -= n;
		in = 0;
		i++;
	}
	return 0;
}

void
dr_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *dst)
{
	uint8_t *d = dst;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && len > 0) {
		uint32_t n = RTE_MIN(len, (uint32_t)m->data_len - off);

		memcpy(d, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		d += n;
		len -= n;
		off = 0;
		m = m->next;
	}
}

/* Scatter @len bytes from an mbuf (@m, @moff) or a flat buffer (@src) into an SGE list. */
static int
sge_put(struct dr_qp_impl *qp, const struct dr_sge *sge, uint16_t num_sge, uint32_t offset,
	const struct rte_mbuf *m, uint32_t moff, const uint8_t *src, uint32_t len)
{
	uint16_t i;
	uint32_t in;

	if (len == 0)
		return 0;
	if (!sge_seek(sge, num_sge, offset, &i, &in))
		return -EMSGSIZE;
	while (len > 0) {
		void *dst;
		uint32_t n;
		int rc;

		if (i >= num_sge)
			return -EMSGSIZE;
		if (sge[i].length == 0) {
			i++;
			continue;
		}
		rc = sge_check(qp, &sge[i], DR_ACCESS_LOCAL_WRITE);
		if (unlikely(rc != 0))
			return rc;
		n = RTE_MIN(len, sge[i].length - in);
		dst = (void *)(uintptr_t)(sge[i].addr + in);
		if (m != NULL) {
			dr_mbuf_copy_out(m, moff, n, dst);
			moff += n;
		} else {
			memcpy(dst, src, n);
			src += n;
		}
		len -= n;
		in = 0;
		i++;
	}
	return 0;
}

uint8_t *
dr_qp_sge_span(struct dr_qp_impl *qp, const struct dr_sge *sge, uint16_t num_sge, uint32_t offset,
	       uint32_t len)
{
	uint16_t i;
	uint32_t in;

	if (len == 0 || !sge_seek(sge, num_sge, offset, &i, &in) || i >= num_sge || in + len > sge[i].length ||
	    sge_check(qp, &sge[i], DR_ACCESS_LOCAL_WRITE) != 0)
		return NULL;
	return (uint8_t *)(uintptr_t)(sge[i].addr + in);
}

int
dr_qp_sge_scatter(struct dr_qp_impl *qp, const struct dr_sge *sge, uint16_t num_sge, uint32_t offset,
		  const struct rte_mbuf *m, uint32_t moff, uint32_t len)
{
	return sge_put(qp, sge, num_sge, offset, m, moff, NULL, len);
}

int
dr_qp_sge_write(struct dr_qp_impl *qp, const struct dr_sge *sge, uint16_t num_sge, uint32_t offset,
		const void *src, uint32_t len)
{
	return sge_put(qp, sge, num_sge, offset, NULL, 0, src, len);
}
