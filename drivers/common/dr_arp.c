/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * ARP for Ethernet/IPv4 (RFC 826): answer requests for our IPv4 address
 * (GID index 1), learn senders by the RFC's merge rule, build requests.
 *
 * The merge rule: if the sender's protocol address is in the table, its
 * hardware address is updated whatever the target; if we are the target and
 * it was not there, it is added. A static entry is never changed.
 */

#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>

#include "dr_log.h"
#include "dr_neigh.h"
#include "dr_pkt.h"

/* Wire layout of the Ethernet/IPv4 ARP body (RFC 826). */
#define ARP_BODY_LEN 28
#define ARP_OFF_HRD 0
#define ARP_OFF_PRO 2
#define ARP_OFF_HLN 4
#define ARP_OFF_PLN 5
#define ARP_OFF_OP 6
#define ARP_OFF_SHA 8
#define ARP_OFF_SPA 14
#define ARP_OFF_THA 18
#define ARP_OFF_TPA 24

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint32_t
dr_arp_build(uint8_t *buf, const struct dr_neigh_l2 *l2, uint16_t op,
	     const struct rte_ether_addr *sha, rte_be32_t spa,
	     const struct rte_ether_addr *tha, rte_be32_t tpa)
{
	uint32_t off = dr_neigh_write_l2(buf, &l2->dst, &l2->src, l2->has_vlan, l2->vlan_tci,
					 RTE_ETHER_TYPE_ARP);
	uint32_t min = DR_ARP_FRAME_LEN + (l2->has_vlan ? RTE_VLAN_HLEN : 0);
	uint8_t *a = buf + off;

	wr16(a + ARP_OFF_HRD, RTE_ARP_HRD_ETHER);
	wr16(a + ARP_OFF_PRO, RTE_ETHER_TYPE_IPV4);
	a[ARP_OFF_HLN] = RTE_ETHER_ADDR_LEN;
	a[ARP_OFF_PLN] = 4;
	wr16(a + ARP_OFF_OP, op);
	memcpy(a + ARP_OFF_SHA, sha->addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(a + ARP_OFF_SPA, &spa, 4);
	memcpy(a + ARP_OFF_THA, tha->addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(a + ARP_OFF_TPA, &tpa, 4);
	off += ARP_BODY_LEN;
	/* the minimum Ethernet frame: some links (memif, ring) pass short frames as they are */
	if (off < min) {
		memset(buf + off, 0, min - off);
		off = min;
	}
	return off;
}

uint32_t
dr_arp_build_request(uint8_t *buf, const struct dr_neigh_self *self, rte_be32_t tpa)
{
	static const struct rte_ether_addr zero;
	struct dr_neigh_l2 l2 = { .src = self->mac };

	memset(l2.dst.addr_bytes, 0xFF, RTE_ETHER_ADDR_LEN);
	return dr_arp_build(buf, &l2, RTE_ARP_OP_REQUEST, &self->mac, self->ipv4, &zero, tpa);
}

enum dr_neigh_verdict
dr_arp_input(struct dr_neigh_table *t, const struct dr_neigh_self *self, const struct dr_neigh_l2 *l2,
	     const uint8_t *f, uint32_t len, uint64_t now, uint8_t *reply, uint32_t *reply_len)
{
	struct rte_ether_addr sha;
	const uint8_t *a;
	rte_be32_t spa, tpa;
	bool for_us;
	uint16_t op;

	*reply_len = 0;
	if (len < l2->l3_off + ARP_BODY_LEN) {
		DR_DP_LOG(drv, DEBUG, "arp: truncated (%u bytes)", len);
		goto malformed;
	}
	a = f + l2->l3_off;
	/* RFC 826: another hardware or protocol space is not ours to answer */
	if (rd16(a + ARP_OFF_HRD) != RTE_ARP_HRD_ETHER || rd16(a + ARP_OFF_PRO) != RTE_ETHER_TYPE_IPV4) {
		t->stats.not_for_us++;
		return DR_NEIGH_DONE;
	}
	if (a[ARP_OFF_HLN] != RTE_ETHER_ADDR_LEN || a[ARP_OFF_PLN] != 4) {
		DR_DP_LOG(drv, DEBUG, "arp: address lengths %u/%u", a[ARP_OFF_HLN], a[ARP_OFF_PLN]);
		goto malformed;
	}
	op = rd16(a + ARP_OFF_OP);
	if (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY) {
		t->stats.not_for_us++;     /* RARP, InARP: not ours */
		return DR_NEIGH_DONE;
	}
	memcpy(sha.addr_bytes, a + ARP_OFF_SHA, RTE_ETHER_ADDR_LEN);
	memcpy(&spa, a + ARP_OFF_SPA, 4);
	memcpy(&tpa, a + ARP_OFF_TPA, 4);
	if (!rte_is_valid_assigned_ether_addr(&sha)) {
		DR_DP_LOG(drv, DEBUG, "arp: sender hardware address is not unicast");
		goto malformed;
	}
	t->stats.arp_rx++;
	if (self->ipv4 != 0 && spa == self->ipv4) {
		/* our own frame back, or another station using our address: learn nothing */
		if (!rte_is_same_ether_addr(&sha, &self->mac)) {
			t->stats.conflict++;
			DR_DP_LOG(drv, DEBUG, "arp: " RTE_ETHER_ADDR_PRT_FMT " claims our IPv4 address",
				  RTE_ETHER_ADDR_BYTES(&sha));
		}
		return DR_NEIGH_DONE;
	}
	for_us = self->ipv4 != 0 && tpa == self->ipv4;
	if (spa != 0) {                    /* 0.0.0.0: an RFC 5227 probe, nothing to learn */
		uint8_t gid[16];

		dr_gid_from_ipv4(gid, spa);
		(void)dr_neigh_learn(t, gid, &sha, for_us, true, now);
	}
	if (!for_us) {
		t->stats.not_for_us++;
		return DR_NEIGH_DONE;
	}
	if (op == RTE_ARP_OP_REQUEST) {
		struct dr_neigh_l2 out = {
			.dst = sha, .src = self->mac, .has_vlan = l2->has_vlan, .vlan_tci = l2->vlan_tci,
		};

		*reply_len = dr_arp_build(reply, &out, RTE_ARP_OP_REPLY, &self->mac, self->ipv4, &sha, spa);
		t->stats.replies++;
		return DR_NEIGH_REPLY;
	}
	return DR_NEIGH_DONE;

malformed:
	t->stats.malformed++;
	return DR_NEIGH_MALFORMED;
}
