/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * net_af_packet's frames (dr_ethdev_af_packet.h): how long a frame its ring
 * carries, read from the devargs it was made with (the ring's layout is
 * the PMD's: framesz and blocksz, as its probe parses them), and its MTU
 * set the way its own mtu_set sets it when ethdev will not let that run.
 * Control path only: runs at open.
 */

#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ether.h>
#include <rte_kvargs.h>

#include "dr_ethdev_af_packet.h"
#include "dr_log.h"

/* what precedes a frame in a ring frame the PMD transmits (it copies the frame there) */
#define AF_PACKET_TX_HEADROOM (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
/* the kernel's tpacket_rcv(): the network header at TPACKET_ALIGN(hdrlen + max(maclen, 16)) */
#define AF_PACKET_RX_HEADROOM \
	(TPACKET_ALIGN(TPACKET2_HDRLEN - sizeof(struct sockaddr_ll) + 16) - RTE_ETHER_HDR_LEN)

bool
dr_ethdev_is_af_packet(const struct rte_eth_dev_info *info)
{
	return info->driver_name != NULL && strcmp(info->driver_name, "net_af_packet") == 0;
}

/* The unsigned value of devarg @key (as the PMD's atoi() reads it); @val kept when absent. */
static int
devarg_uint(struct rte_kvargs *kv, const char *key, unsigned int *val)
{
	const char *v = rte_kvargs_get(kv, key);
	char *end;
	long n;

	if (v == NULL)
		return 0;
	n = strtol(v, &end, 0);
	if (end == v || *end != '\0' || n <= 0 || n > INT32_MAX)
		return -EINVAL;
	*val = (unsigned int)n;
	return 0;
}

int
dr_ethdev_af_packet_max_frame(uint16_t port, const struct rte_eth_dev_info *info, uint32_t *max_frame)
{
	const struct rte_devargs *da = info->device != NULL ? rte_dev_devargs(info->device) : NULL;
	unsigned int framesz = DR_AF_PACKET_DEFAULT_FRAMESZ, blocksz = (unsigned int)getpagesize();
	struct rte_kvargs *kv;
	int ret = 0;

	if (da != NULL && da->args != NULL && da->args[0] != '\0') {
		kv = rte_kvargs_parse(da->args, NULL);
		if (kv == NULL) {
			DR_LOG(drv, ERR, "port %u (net_af_packet): devargs \"%s\" do not parse", port, da->args);
			return -EINVAL;
		}
		if (devarg_uint(kv, "framesz", &framesz) != 0 || devarg_uint(kv, "blocksz", &blocksz) != 0) {
			DR_LOG(drv, ERR, "port %u (net_af_packet): framesz / blocksz in \"%s\" are not sizes",
			       port, da->args);
			ret = -EINVAL;
		}
		rte_kvargs_free(kv);
		if (ret != 0)
			return ret;
	}
	if (framesz <= AF_PACKET_RX_HEADROOM) {
		DR_LOG(drv, ERR, "port %u (net_af_packet): framesz %u holds no frame", port, framesz);
		return -EINVAL;
	}
	/* the PMD finds frame i at i * framesz: a block must end where a frame does */
	if (blocksz % framesz != 0) {
		DR_LOG(drv, ERR,
		       "port %u (net_af_packet): blocksz %u is not a multiple of framesz %u: the PMD would "
		       "read its ring's frames at the wrong places (e.g. framesz=4352,blocksz=69632)",
		       port, blocksz, framesz);
		return -EINVAL;
	}
	*max_frame = RTE_MIN(framesz - (unsigned int)AF_PACKET_RX_HEADROOM,
			     framesz - (unsigned int)AF_PACKET_TX_HEADROOM);
	return 0;
}

int
dr_ethdev_af_packet_set_mtu(uint16_t port, const struct rte_eth_dev_info *info, uint16_t mtu)
{
	struct ifreq ifr;
	int s, ret = 0;

	memset(&ifr, 0, sizeof(ifr));
	if (info->if_index == 0 || if_indextoname(info->if_index, ifr.ifr_name) == NULL) {
		DR_LOG(drv, ERR, "port %u (net_af_packet): no kernel interface (index %u)", port,
		       info->if_index);
		return -ENODEV;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	ifr.ifr_mtu = mtu;
	if (ioctl(s, SIOCSIFMTU, &ifr) != 0) {
		ret = -errno;
		DR_LOG(drv, ERR, "port %u (net_af_packet): MTU %u on %s: %s", port, mtu, ifr.ifr_name,
		       strerror(-ret));
	}
	close(s);
	return ret;
}
