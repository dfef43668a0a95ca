/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Address handles (ibv_create_ah(3), ibv_destroy_ah(3),
 * ibv_init_ah_from_wc(3), ibv_create_ah_from_wc(3)) and the address-vector
 * checks and routes RC/UC QPs share with them.
 */

#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "dr_ah.h"
#include "dr_control.h"
#include "dr_log.h"
#include "dr_qp_impl.h"

static_assert(sizeof(struct dr_grh) == DR_GRH_LEN, "struct dr_grh is ibv_grh's 40 bytes");

int
dr_av_check(const struct dr_context *ctx, const struct dr_ah_attr *av)
{
	static const uint8_t zero[16];
	uint8_t i = av->grh.sgid_index;
	const uint8_t *dgid = av->grh.dgid.raw;

	if (i >= DR_MAX_GIDS || !ctx->gid_valid[i])
		return -EINVAL;
	if (memcmp(dgid, zero, sizeof(zero)) == 0)
		return -EINVAL;
	/* IPv4 to IPv4, IPv6 to IPv6: one IP header carries both addresses */
	if (dr_gid_is_ipv4(dgid) != dr_gid_is_ipv4(ctx->gid[i].raw))
		return -EINVAL;
	/* ff00::/8, or 224.0.0.0/4 IPv4-mapped */
	if (dgid[0] == 0xFF || (dr_gid_is_ipv4(dgid) && (dgid[12] & 0xF0) == 0xE0))
		return -EOPNOTSUPP;
	return 0;
}

void
dr_av_route(const struct dr_context *ctx, const struct dr_ah_attr *av, struct dr_pkt_route *rt)
{
	memset(rt, 0, sizeof(*rt));
	rt->smac = ctx->mac;
	memcpy(rt->sgid, ctx->gid[av->grh.sgid_index].raw, sizeof(rt->sgid));
	memcpy(rt->dgid, av->grh.dgid.raw, sizeof(rt->dgid));
	rt->ip_ver = dr_gid_is_ipv4(rt->dgid) ? 4 : 6;
	rt->tclass = av->grh.traffic_class;
	/*
	 * The IP TTL / hop limit is the route's, not the AV's: for a RoCEv2
	 * destination ib_core replaces grh.hop_limit with the hop limit of the
	 * route it resolved (ib_resolve_unicast_gid_dmac(), on modify_qp with
	 * IB_QP_AV and on create_ah), so rxe sends TTL 64 when ibv_rc_pingpong
	 * asks for 1. A TTL of 1 dies at the first router. We have no routes:
	 * the default's.
	 */
	rt->hop_limit = DR_DEFAULT_HOP_LIMIT;
	rt->ipv4_df = 1;
	rt->flow_label = av->grh.flow_label & 0xFFFFF;
}

int
dr_ah_resolve(struct dr_context *ctx, struct dr_ah_impl *ah)
{
	union dr_gid gid;
	int rc;

	if (likely(ah->resolved))
		return 0;
	memcpy(gid.raw, ah->route.dgid, sizeof(gid.raw));
	rc = ctx->be->resolve(&ctx->bport, &gid, &ah->route.dmac);
	if (rc == 0)
		ah->resolved = true;
	return rc;
}

static struct dr_ah *
create_ah_ctl(struct dr_pd *pd, struct dr_ah_attr *attr)
{
	struct dr_context *ctx;
	struct dr_ah_impl *ah;
	int rc;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = pd->context;
	/* RoCE: every packet carries the IP header a GRH maps to (rdma_check_ah_attr(): EINVAL) */
	if (!attr->is_global || (attr->port_num != 0 && attr->port_num != 1)) {
		DR_LOG(qp, INFO, "create_ah: is_global %u port %u: RoCE needs a GRH on port 1", attr->is_global,
		       attr->port_num);
		errno = EINVAL;
		return NULL;
	}
	rc = dr_av_check(ctx, attr);
	if (rc != 0) {
		DR_LOG(qp, INFO, "create_ah: %s", rc == -EOPNOTSUPP ? "multicast destinations are not supported" :
		       "bad source GID index or destination GID");
		errno = -rc;
		return NULL;
	}
	ah = rte_zmalloc("dr_ah", sizeof(*ah), 0);
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ah->pub.context = ctx;
	ah->pub.pd = pd;
	ah->attr = *attr;
	dr_av_route(ctx, attr, &ah->route);
	pd->refcnt++;
	return &ah->pub;
}

/* dr_create_ah() as a control command (dr_control.h) */
struct create_ah_args {
	struct dr_pd *pd;
	struct dr_ah_attr *attr;
	struct dr_ah *ret;
};

static int
create_ah_call(void *arg)
{
	struct create_ah_args *a = arg;

	a->ret = create_ah_ctl(a->pd, a->attr);
	return 0;
}

struct dr_ah *
dr_create_ah(struct dr_pd *pd, struct dr_ah_attr *attr)
{
	struct create_ah_args a = { .pd = pd, .attr = attr };

	if (pd == NULL)
		return create_ah_ctl(pd, attr);
	(void)dr_ctl_run(pd->context, create_ah_call, &a);
	return a.ret;
}

static int
destroy_ah_ctl(struct dr_ah *pub)
{
	struct dr_ah_impl *ah;

	if (pub == NULL)
		return -EINVAL;
	ah = dr_ah_impl(pub);
	if (__atomic_load_n(&ah->inflight, __ATOMIC_ACQUIRE) != 0) {
		DR_LOG(qp, INFO, "destroy_ah: %u posted send WRs still use it", ah->inflight);
		return -EBUSY;
	}
	pub->pd->refcnt--;
	rte_free(ah);
	return 0;
}

/* dr_destroy_ah() as a control command (dr_control.h) */
struct destroy_ah_args {
	struct dr_ah *pub;
};

static int
destroy_ah_call(void *arg)
{
	struct destroy_ah_args *a = arg;

	return destroy_ah_ctl(a->pub);
}

int
dr_destroy_ah(struct dr_ah *pub)
{
	struct destroy_ah_args a = { .pub = pub };

	if (pub == NULL)
		return destroy_ah_ctl(pub);
	return dr_ctl_run(pub->context, destroy_ah_call, &a);
}

/* Index of @gid in the context's GID table, or -1. */
static int
gid_index(const struct dr_context *ctx, const uint8_t *gid)
{
	unsigned int i;

	for (i = 0; i < DR_MAX_GIDS; i++)
		if (ctx->gid_valid[i] && memcmp(ctx->gid[i].raw, gid, 16) == 0)
			return (int)i;
	return -1;
}

/*
 * IP version of the header in a received GRH area, as libibverbs'
 * get_grh_header_version(): IPv6 when the first nibble says 6 and no valid
 * IPv4 header sits at offset 20; IPv4 when one does.
 */
static int
grh_ip_version(const struct dr_grh *grh)
{
	const struct rte_ipv4_hdr *ip4 = (const struct rte_ipv4_hdr *)((const uint8_t *)grh + 20);
	struct rte_ipv4_hdr copy;
	unsigned int v6 = rte_be_to_cpu_32(grh->version_tclass_flow) >> 28;

	if (v6 != 6)
		return (ip4->version_ihl >> 4) == 4 ? 4 : -1;
	if ((ip4->version_ihl & 0x0F) != 5)
		return 6;
	memcpy(&copy, ip4, sizeof(copy));
	copy.hdr_checksum = 0;
	return rte_ipv4_cksum(&copy) == ip4->hdr_checksum ? 4 : 6;
}

int
dr_init_ah_from_wc(struct dr_context *ctx, uint8_t port_num, const struct dr_wc *wc,
		   const struct dr_grh *grh, struct dr_ah_attr *av)
{
	uint8_t sgid[16], dgid[16];
	int ver, idx;

	if (ctx == NULL || wc == NULL || grh == NULL || av == NULL || (port_num != 1 && port_num != 0))
		return -EINVAL;
	/* RoCE: the GRH is always there (ibv_init_ah_from_wc() needs it) */
	if (!(wc->wc_flags & DR_WC_GRH))
		return -EINVAL;
	ver = grh_ip_version(grh);
	memset(av, 0, sizeof(*av));
	if (ver == 4) {
		const struct rte_ipv4_hdr *ip4 = (const struct rte_ipv4_hdr *)((const uint8_t *)grh + 20);

		dr_gid_from_ipv4(sgid, ip4->src_addr);
		dr_gid_from_ipv4(dgid, ip4->dst_addr);
		av->grh.traffic_class = ip4->type_of_service;
	} else if (ver == 6) {
		uint32_t vtf = rte_be_to_cpu_32(grh->version_tclass_flow);

		memcpy(sgid, grh->sgid.raw, 16);
		memcpy(dgid, grh->dgid.raw, 16);
		av->grh.traffic_class = (uint8_t)(vtf >> 20);
		av->grh.flow_label = vtf & 0xFFFFF;
	} else {
		return -EPROTONOSUPPORT;
	}
	idx = gid_index(ctx, dgid);
	if (idx < 0)
		return -EINVAL;     /* not addressed to one of our GIDs */
	memcpy(av->grh.dgid.raw, sgid, 16);
	av->grh.sgid_index = (uint8_t)idx;
	av->grh.hop_limit = 0xFF;   /* as libibverbs */
	av->sl = wc->sl;
	av->is_global = 1;
	av->port_num = 1;
	return 0;
}

struct dr_ah *
dr_create_ah_from_wc(struct dr_pd *pd, const struct dr_wc *wc, const struct dr_grh *grh, uint8_t port_num)
{
	struct dr_ah_attr av;
	int rc;

	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	rc = dr_init_ah_from_wc(pd->context, port_num, wc, grh, &av);
	if (rc != 0) {
		errno = -rc;
		return NULL;
	}
	return dr_create_ah(pd, &av);
}
