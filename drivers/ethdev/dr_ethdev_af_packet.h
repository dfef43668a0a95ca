/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_ETHDEV_AF_PACKET_H
#define DR_ETHDEV_AF_PACKET_H

/*
 * DPDK's net_af_packet and the frames it carries (dr_ethdev_af_packet.c).
 *
 * The PMD moves frames through a PACKET_MMAP ring (TPACKET_V2) of frames of
 * its framesz devarg (2048 bytes by default): it transmits a frame of at
 * most framesz - 32 bytes and drops longer ones, and the kernel cuts what it
 * receives at framesz - 34 (the frame's header and the kernel's alignment
 * come first). Its dev_info on DPDK 22.11 says max_rx_pktlen 1518 whatever
 * framesz is, so ethdev refuses rte_eth_dev_set_mtu() above 1500 although
 * the PMD carries what its ring frames hold. The PMD's own mtu_set sets the
 * kernel interface's MTU (SIOCSIFMTU) and nothing else.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>

/* the PMD's framesz when its devargs do not say (its blocksz: the page size) */
#define DR_AF_PACKET_DEFAULT_FRAMESZ 2048

/* Whether @info is a net_af_packet port. */
bool dr_ethdev_is_af_packet(const struct rte_eth_dev_info *info);

/*
 * The longest frame (Ethernet header to the last payload byte) the port
 * carries both ways: from its framesz devarg. -EINVAL when its devargs
 * cannot be read or make a ring the PMD misreads (blocksz not a multiple of
 * framesz: the PMD places frame i at i * framesz from the ring's start).
 */
int dr_ethdev_af_packet_max_frame(uint16_t port, const struct rte_eth_dev_info *info, uint32_t *max_frame);

/*
 * What the PMD's mtu_set does, for an MTU above the 1500 ethdev lets it
 * take: the kernel interface's MTU (SIOCSIFMTU). 0 or -errno. The frames
 * the port carries stay those of its ring (dr_ethdev_af_packet_max_frame()):
 * the context's path MTU is what fits them.
 */
int dr_ethdev_af_packet_set_mtu(uint16_t port, const struct rte_eth_dev_info *info, uint16_t mtu);

#endif /* DR_ETHDEV_AF_PACKET_H */
