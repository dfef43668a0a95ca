/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_PKT_CLASSIFY_H
#define DR_PKT_CLASSIFY_H

/*
 * Whose is a frame: the transport's or the application's that shares the
 * port with it (dr_rx_burst_input(), doc/guides/embedding.rst). Pure: reads
 * the headers only, checks nothing the transport checks afterwards (the
 * ICRC, lengths beyond what is read here, the BTH).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#include "dr_config.h"

/* The addresses that make a frame the transport's: its GIDs, split by family. */
struct dr_pkt_class_addrs {
	rte_be32_t v4[DR_MAX_GIDS];         /* IPv4 addresses of the IPv4-mapped GIDs */
	uint8_t v6[DR_MAX_GIDS][16];        /* the other GIDs (fe80::EUI-64 and the global ones) */
	unsigned int n_v4, n_v6;
};

enum dr_pkt_class {
	DR_PKT_CLASS_OTHER = 0,             /* not the transport's: the application keeps it */
	DR_PKT_CLASS_ROCE,                  /* RoCEv2 (UDP 4791, not a fragment) to one of the GIDs */
	DR_PKT_CLASS_NEIGH,                 /* ARP for an IPv4 GID; NS for a GID, NA to one */
};

/* Bytes of a frame dr_pkt_classify() reads at most (Ethernet, 802.1Q, IPv6, an NS's target). */
#define DR_PKT_CLASS_HDR_MAX (14 + 4 + 40 + 24)

/* @a from the GID table @gid / @valid (@n entries). */
void dr_pkt_class_addrs_init(struct dr_pkt_class_addrs *a, const uint8_t (*gid)[16], const uint8_t *valid,
			     unsigned int n);

/*
 * The class of the frame whose first @len bytes are at @f (at least what
 * the headers need, at most DR_PKT_CLASS_HDR_MAX are read; a frame shorter
 * than its headers is DR_PKT_CLASS_OTHER). One 802.1Q tag is looked through.
 */
enum dr_pkt_class dr_pkt_classify(const uint8_t *f, uint32_t len, const struct dr_pkt_class_addrs *a);

#endif /* DR_PKT_CLASSIFY_H */
