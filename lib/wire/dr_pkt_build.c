/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Build of RoCEv2 frames (IBA vol. 1 Annex A17.4): the headers are written
 * in one pass into the first segment, the payload is appended by the caller
 * (copied, or attached from the memory by dr_pkt_attach()), and dr_pkt_finalize() adds pad and ICRC.
 * The UDP checksum is 0 (A17.4.4: RoCEv2 relies on the ICRC).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "dr_icrc.h"
#include "dr_pkt.h"
#include "dr_pkt_express.h"

#define DR_IPV4_HDR_BYTES 20
#define DR_IPV6_HDR_BYTES 40
#define DR_UDP_HDR_BYTES 8

static void
write_ipv4(uint8_t *p, const struct dr_pkt_route *rt, uint16_t ip_id, uint16_t tot)
{
	struct rte_ipv4_hdr ip = {
		.version_ihl = 0x45,
		.type_of_service = rt->tclass,
		.total_length = rte_cpu_to_be_16(tot),
		.packet_id = rte_cpu_to_be_16(ip_id),
		.fragment_offset = rte_cpu_to_be_16(rt->ipv4_df ? RTE_IPV4_HDR_DF_FLAG : 0),
		.time_to_live = rt->hop_limit,
		.next_proto_id = IPPROTO_UDP,
	};

	memcpy(&ip.src_addr, rt->sgid + 12, 4);
	memcpy(&ip.dst_addr, rt->dgid + 12, 4);
	ip.hdr_checksum = rte_ipv4_cksum(&ip);
	memcpy(p, &ip, sizeof(ip));
}

static void
write_ipv6(uint8_t *p, const struct dr_pkt_route *rt, uint16_t plen)
{
	struct rte_ipv6_hdr ip = {
		.vtc_flow = rte_cpu_to_be_32((6u << 28) | ((uint32_t)rt->tclass << 20) |
					     (rt->flow_label & 0xFFFFF)),
		.payload_len = rte_cpu_to_be_16(plen),
		.proto = IPPROTO_UDP,
		.hop_limits = rt->hop_limit,
	};

	memcpy(ip.src_addr, rt->sgid, 16);
	memcpy(ip.dst_addr, rt->dgid, 16);
	memcpy(p, &ip, sizeof(ip));
}

/* The BTH fields every built packet starts with; the caller sets the rest. */
static void
bth_init(struct dr_bth *bth, uint8_t opcode, uint8_t pad)
{
	dr_bth_set_opcode(bth, opcode);
	dr_bth_set_pad(bth, pad);
	dr_bth_set_tver(bth, DR_BTH_TVER);
	dr_bth_set_pkey(bth, DR_DEFAULT_PKEY);
}

int
dr_pkt_build(struct rte_mbuf *m, const struct dr_pkt_route *rt, uint16_t ip_id,
	     uint8_t opcode, uint32_t paylen, struct dr_pkt_info *pi)
{
	const struct dr_opcode_info *info = &dr_opcode_table[opcode];
	uint32_t l2, l3, hdrlen, udp_len, ip_len;
	uint8_t pad = (uint8_t)(-paylen & 3u);
	struct rte_udp_hdr udp;
	uint8_t *p;

	if (info->name == NULL || m->pkt_len != 0)
		return -EINVAL;
	if (!(info->mask & DR_OPF_PAYLOAD) && paylen != 0)
		return -EINVAL;
	if (rt->ip_ver == 4) {
		if (!dr_gid_is_ipv4(rt->sgid) || !dr_gid_is_ipv4(rt->dgid))
			return -EINVAL;
		l3 = DR_IPV4_HDR_BYTES;
	} else if (rt->ip_ver == 6) {
		l3 = DR_IPV6_HDR_BYTES;
	} else {
		return -EINVAL;
	}
	l2 = RTE_ETHER_HDR_LEN + (rt->has_vlan ? 4 : 0);
	hdrlen = l2 + l3 + DR_UDP_HDR_BYTES + info->length;
	if (paylen > UINT16_MAX)
		return -EINVAL;
	udp_len = DR_UDP_HDR_BYTES + info->length + paylen + pad + DR_ICRC_BYTES;
	ip_len = (rt->ip_ver == 4 ? l3 : 0) + udp_len;
	if (ip_len > UINT16_MAX)
		return -EINVAL;

	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)hdrlen);
	if (p == NULL)
		return -ENOSPC;
	memset(p, 0, hdrlen);

	memcpy(p, &rt->dmac, RTE_ETHER_ADDR_LEN);
	memcpy(p + 6, &rt->smac, RTE_ETHER_ADDR_LEN);
	if (rt->has_vlan) {
		uint16_t tpid = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN), tci = rte_cpu_to_be_16(rt->vlan_tci);

		memcpy(p + 12, &tpid, 2);
		memcpy(p + 14, &tci, 2);
	}
	{
		uint16_t et = rte_cpu_to_be_16(rt->ip_ver == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);

		memcpy(p + l2 - 2, &et, 2);
	}
	if (rt->ip_ver == 4)
		write_ipv4(p + l2, rt, ip_id, (uint16_t)ip_len);
	else
		write_ipv6(p + l2, rt, (uint16_t)udp_len);

	udp.src_port = rte_cpu_to_be_16(rt->udp_sport);
	udp.dst_port = rte_cpu_to_be_16(DR_ROCEV2_UDP_PORT);
	udp.dgram_len = rte_cpu_to_be_16((uint16_t)udp_len);
	udp.dgram_cksum = 0;
	memcpy(p + l2 + l3, &udp, sizeof(udp));

	pi->frame = p;
	pi->hdr = p + l2 + l3 + DR_UDP_HDR_BYTES;
	pi->mask = info->mask;
	pi->opcode = opcode;
	pi->pad = pad;
	pi->ip_ver = rt->ip_ver;
	pi->has_vlan = rt->has_vlan != 0;
	pi->vlan_tci = rt->has_vlan ? rt->vlan_tci : 0;   /* as the parse of this frame reports it */
	pi->tclass = rt->tclass;
	pi->l3_off = (uint16_t)l2;
	pi->l4_off = (uint16_t)(l2 + l3);
	pi->bth_off = (uint16_t)(l2 + l3 + DR_UDP_HDR_BYTES);
	pi->udp_sport = rt->udp_sport;
	pi->pay_off = hdrlen;
	pi->paylen = paylen;
	pi->frame_len = l2 + l3 + udp_len;
	memcpy(pi->sgid, rt->sgid, 16);
	memcpy(pi->dgid, rt->dgid, 16);

	bth_init(dr_pkt_bth(pi), opcode, pad);
	return 0;
}

int
dr_pkt_append(struct rte_mbuf *m, const void *data, uint32_t len)
{
	void *p;

	if (len > UINT16_MAX)
		return -ENOSPC;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL)
		return -ENOSPC;
	memcpy(p, data, len);
	return 0;
}

int
dr_pkt_attach(struct rte_mbuf *m, struct rte_mempool *mp, void *data, uint32_t len,
	      rte_mbuf_extbuf_free_callback_t free_cb, void *opaque)
{
	struct rte_mbuf_ext_shared_info *sh;
	struct rte_mbuf *seg[2];
	rte_iova_t iova;

	if (len == 0 || len > UINT16_MAX || free_cb == NULL ||
	    rte_pktmbuf_data_room_size(mp) < sizeof(*sh))
		return -EINVAL;
	if (rte_pktmbuf_alloc_bulk(mp, seg, 2) != 0)
		return -ENOBUFS;
	/* the payload mbuf's own buffer is unused while attached: its shared info goes there */
	sh = (struct rte_mbuf_ext_shared_info *)seg[0]->buf_addr;
	sh->free_cb = free_cb;
	sh->fcb_opaque = opaque;
	rte_mbuf_ext_refcnt_set(sh, 1);
	iova = rte_eal_iova_mode() == RTE_IOVA_VA ? (rte_iova_t)(uintptr_t)data : RTE_BAD_IOVA;
	rte_pktmbuf_attach_extbuf(seg[0], data, iova, (uint16_t)len, sh);
	seg[0]->data_len = (uint16_t)len;
	/* then the tail: pad and ICRC (dr_pkt_finalize() appends to the last segment) */
	seg[0]->next = seg[1];
	rte_pktmbuf_lastseg(m)->next = seg[0];
	m->nb_segs = (uint16_t)(m->nb_segs + 2);
	m->pkt_len += len;
	return 0;
}

int
dr_pkt_finalize(struct rte_mbuf *m, struct dr_pkt_info *pi)
{
	uint32_t icrc;
	uint8_t *tail;

	if (m->pkt_len != pi->pay_off + pi->paylen)
		return -EINVAL;
	tail = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(pi->pad + DR_ICRC_BYTES));
	if (tail == NULL)
		return -ENOSPC;
	memset(tail, 0, pi->pad);
	/* one flat IPv4 frame (the common one): folded from its bytes, the pseudo-header masked in registers */
	icrc = rte_cpu_to_le_32(dr_pkt_flat_v4(m, pi) ? dr_pkt_flat_v4_icrc(pi) : dr_icrc_compute(m, pi));
	memcpy(tail + pi->pad, &icrc, DR_ICRC_BYTES);
	return 0;
}

int
dr_pkt_tmpl_init(struct dr_pkt_tmpl *t, const struct dr_pkt_route *rt)
{
	uint8_t buf[sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM + 128] __rte_aligned(RTE_CACHE_LINE_SIZE);
	struct rte_mbuf *m = (struct rte_mbuf *)buf;
	struct dr_pkt_info pi;
	int rc;

	/* a throw-away mbuf over a stack buffer: dr_pkt_build() writes exactly what a packet gets */
	memset(m, 0, sizeof(*m));
	m->buf_addr = buf + sizeof(struct rte_mbuf);
	m->buf_len = RTE_PKTMBUF_HEADROOM + 128;
	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->nb_segs = 1;
	rc = dr_pkt_build(m, rt, 0, DR_OPCODE(RC, ACK), 0, &pi);
	if (rc != 0)
		return rc;
	memset(t, 0, sizeof(*t));
	t->len = (uint8_t)pi.bth_off;
	memcpy(t->hdr, pi.frame, t->len);
	t->l3_off = (uint8_t)pi.l3_off;
	t->l4_off = (uint8_t)pi.l4_off;
	t->ip_ver = pi.ip_ver;
	t->has_vlan = pi.has_vlan;
	t->vlan_tci = pi.vlan_tci;
	t->udp_sport = pi.udp_sport;
	memcpy(t->sgid, rt->sgid, 16);
	memcpy(t->dgid, rt->dgid, 16);
	/* lengths, identification and checksum zero: patched per packet */
	memset(t->hdr + t->l4_off + 4, 0, 2);                 /* UDP length */
	if (t->ip_ver == 4) {
		uint8_t *ip = t->hdr + t->l3_off;

		memset(ip + 2, 0, 4);                          /* total length, identification */
		memset(ip + 10, 0, 2);                         /* header checksum */
		t->ip_sum = rte_raw_cksum(ip, DR_IPV4_HDR_BYTES);
	} else {
		memset(t->hdr + t->l3_off + 4, 0, 2);          /* payload length */
	}
	return 0;
}

int
dr_pkt_build_tmpl(struct rte_mbuf *m, const struct dr_pkt_tmpl *t, uint16_t ip_id,
		  uint8_t opcode, uint32_t paylen, struct dr_pkt_info *pi)
{
	const struct dr_opcode_info *info = &dr_opcode_table[opcode];
	uint8_t pad = (uint8_t)(-paylen & 3u);
	uint32_t hdrlen, udp_len, ip_len;
	uint16_t be;
	uint8_t *p;

	if (unlikely(info->name == NULL || m->pkt_len != 0 || paylen > UINT16_MAX ||
		     (!(info->mask & DR_OPF_PAYLOAD) && paylen != 0)))
		return -EINVAL;
	hdrlen = t->len + info->length;
	udp_len = DR_UDP_HDR_BYTES + info->length + paylen + pad + DR_ICRC_BYTES;
	ip_len = (t->ip_ver == 4 ? DR_IPV4_HDR_BYTES : 0) + udp_len;
	if (unlikely(ip_len > UINT16_MAX))
		return -EINVAL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)hdrlen);
	if (unlikely(p == NULL))
		return -ENOSPC;
	memcpy(p, t->hdr, t->len);
	memset(p + t->len, 0, info->length);
	be = rte_cpu_to_be_16((uint16_t)udp_len);
	memcpy(p + t->l4_off + 4, &be, 2);
	if (t->ip_ver == 4) {
		dr_pkt_tmpl_ipv4_set(p + t->l3_off, t, (uint16_t)ip_len, ip_id);
	} else {
		memcpy(p + t->l3_off + 4, &be, 2);             /* payload length = UDP length */
	}

	pi->frame = p;
	pi->hdr = p + t->len;
	pi->mask = info->mask;
	pi->opcode = opcode;
	pi->pad = pad;
	pi->ip_ver = t->ip_ver;
	pi->has_vlan = t->has_vlan;
	pi->vlan_tci = t->vlan_tci;
	pi->tclass = t->ip_ver == 4 ? t->hdr[t->l3_off + 1] :
		     (uint8_t)((t->hdr[t->l3_off] & 0xFu) << 4 | t->hdr[t->l3_off + 1] >> 4);
	pi->l3_off = t->l3_off;
	pi->l4_off = t->l4_off;
	pi->bth_off = t->len;
	pi->udp_sport = t->udp_sport;
	pi->pay_off = hdrlen;
	pi->paylen = paylen;
	pi->frame_len = t->l4_off + udp_len;
	memcpy(pi->sgid, t->sgid, 16);
	memcpy(pi->dgid, t->dgid, 16);

	bth_init(dr_pkt_bth(pi), opcode, pad);
	return 0;
}
