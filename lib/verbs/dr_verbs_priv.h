/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_VERBS_PRIV_H
#define DR_VERBS_PRIV_H

/*
 * Helpers shared by the verbs object files (dr_context.c, dr_cq.c, dr_qp.c,
 * dr_post.c) and their tests. Not installed.
 */

#include <stdint.h>

#include <rte_ether.h>

#include "dr_verbs.h"

/*
 * Header budget rxe subtracts from the link MTU before choosing the IB MTU:
 * RXE_MAX_HDR_LENGTH (80) in Linux drivers/infiniband/sw/rxe/rxe_hdr.h, used
 * by eth_mtu_int_to_enum() in rxe_param.h.
 */
#define DR_RXE_MAX_HDR_LENGTH 80

/*
 * Active path MTU of a link whose IP MTU is @link_mtu bytes, as rxe_set_mtu()
 * (rxe.c) computes it: the largest IB MTU <= link_mtu - 80 (rxe_mtu_int_to_enum()),
 * at most 4096, and 256 when even that does not fit.
 * 1500 -> 1024, 4200 -> 4096, 9000 -> 4096.
 */
enum dr_mtu dr_active_mtu_from_link(uint32_t link_mtu);

/*
 * Bytes of a frame beyond its payload at most: Ethernet + 802.1Q (18), IPv6
 * (40), UDP (8), the longest transport header (44: XRC CmpSwap), pad (3), ICRC (4).
 */
#define DR_FRAME_OVERHEAD_MAX (18 + 40 + 8 + 44 + 3 + 4)

/*
 * Largest path MTU whose frames fit one mbuf of @data_room bytes (headroom
 * included, as rte_pktmbuf_pool_create() counts it): the transport builds
 * each frame in one mbuf. 0 when not even 256 fits.
 */
enum dr_mtu dr_active_mtu_from_room(uint32_t data_room);

/*
 * Largest path MTU whose frames are at most @max_frame bytes long (a port
 * that carries frames shorter than its MTU says: dr_backend_port.max_frame).
 * DR_MTU_4096 for 0 (no such limit); 0 when not even 256 fits.
 */
enum dr_mtu dr_active_mtu_from_frame(uint32_t max_frame);

/*
 * The IPv6 link-local GID of a MAC: fe80::/64 + modified EUI-64 (RFC 4291
 * appendix A: insert ff:fe in the middle, flip the universal/local bit), as
 * rxe (addrconf_addr_eui48()) makes GID index 0.
 */
void dr_gid_from_mac(union dr_gid *gid, const struct rte_ether_addr *mac);

/* Post operations of RC, UC and UD QPs (dr_post.c). */
extern const struct dr_qp_ops dr_qp_post_ops;

/* Completion opcode of a send WR (reported in flush completions too). */
static inline enum dr_wc_opcode
dr_wr_wc_opcode(enum dr_wr_opcode op)
{
	switch (op) {
	case DR_WR_RDMA_WRITE:
	case DR_WR_RDMA_WRITE_WITH_IMM:
		return DR_WC_RDMA_WRITE;
	case DR_WR_RDMA_READ:
		return DR_WC_RDMA_READ;
	case DR_WR_ATOMIC_CMP_AND_SWP:
		return DR_WC_COMP_SWAP;
	case DR_WR_ATOMIC_FETCH_AND_ADD:
		return DR_WC_FETCH_ADD;
	case DR_WR_LOCAL_INV:
		return DR_WC_LOCAL_INV;
	case DR_WR_BIND_MW:
		return DR_WC_BIND_MW;
	case DR_WR_TSO:
		return DR_WC_TSO;
	case DR_WR_FLUSH:
		return DR_WC_FLUSH;
	case DR_WR_ATOMIC_WRITE:
		return DR_WC_ATOMIC_WRITE;
	case DR_WR_SEND:
	case DR_WR_SEND_WITH_IMM:
	case DR_WR_SEND_WITH_INV:
	default:
		return DR_WC_SEND;
	}
}

#endif /* DR_VERBS_PRIV_H */
