/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The steering map of the bifurcated host on an XDP socket (dr_xdp_gids.h): found
 * through the program attached to the interface (bpf_xdp_query_id(), its
 * map ids, the map named dr_gids), filled with our GIDs. Control path only:
 * runs at open and close.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "dr_xdp_gids.h"
#include "dr_log.h"
#include "dr_pkt.h"

#ifdef DR_HAVE_LIBBPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#define DR_XDP_MAX_MAPS 16

/* The fd of the map named DR_XDP_GIDS_MAP of program @prog_fd, or -ENOENT. */
static int
steer_map(int prog_fd)
{
	uint32_t ids[DR_XDP_MAX_MAPS], len, n;
	struct bpf_prog_info info;
	struct bpf_map_info minfo;
	int fd;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = DR_XDP_MAX_MAPS;
	info.map_ids = (uint64_t)(uintptr_t)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0)
		return -errno;
	n = info.nr_map_ids < DR_XDP_MAX_MAPS ? info.nr_map_ids : DR_XDP_MAX_MAPS;
	for (uint32_t i = 0; i < n; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&minfo, 0, sizeof(minfo));
		len = sizeof(minfo);
		if (bpf_obj_get_info_by_fd(fd, &minfo, &len) == 0 && strcmp(minfo.name, DR_XDP_GIDS_MAP) == 0 &&
		    minfo.key_size == 16)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

static void
gids_of(const struct dr_port_addrs *a, struct dr_xdp_gids *x)
{
	x->n = 0;
	if (a->ipv4 != 0)
		dr_gid_from_ipv4(x->gid[x->n++], a->ipv4);   /* ::ffff:a.b.c.d, as the GID table */
	for (unsigned int i = 0; i < a->num_ipv6; i++)
		memcpy(x->gid[x->n++], a->ipv6[i], 16);
}

int
dr_xdp_gids_fill(uint16_t port, uint32_t ifindex, const struct dr_port_addrs *a,
		    struct dr_xdp_gids *x)
{
	uint32_t prog_id = 0;
	uint8_t one = 1;
	int prog_fd, ret;

	x->map_fd = -1;
	x->n = 0;
	if (ifindex == 0)
		return 0;
	ret = bpf_xdp_query_id((int)ifindex, 0, &prog_id);
	if (ret != 0 || prog_id == 0) {
		if (ret != 0)
			DR_LOG(drv, INFO, "port %u: XDP program of ifindex %u: %s", port, ifindex, strerror(-ret));
		return 0;
	}
	prog_fd = bpf_prog_get_fd_by_id(prog_id);
	if (prog_fd < 0) {
		DR_LOG(drv, WARNING, "port %u: XDP program %u: %s", port, prog_id, strerror(errno));
		return -errno;
	}
	ret = steer_map(prog_fd);
	close(prog_fd);
	if (ret == -ENOENT) {
		DR_LOG(drv, INFO, "port %u: XDP program %u has no %s map: every frame it gives the socket is ours",
		       port, prog_id, DR_XDP_GIDS_MAP);
		return 0;
	}
	if (ret < 0) {
		DR_LOG(drv, WARNING, "port %u: XDP program %u: %s", port, prog_id, strerror(-ret));
		return ret;
	}
	x->map_fd = ret;
	gids_of(a, x);
	for (unsigned int i = 0; i < x->n; i++) {
		if (bpf_map_update_elem(x->map_fd, x->gid[i], &one, BPF_ANY) != 0) {
			ret = -errno;
			DR_LOG(drv, ERR, "port %u: XDP map %s: address %u of %u: %s", port, DR_XDP_GIDS_MAP, i + 1,
			       x->n, strerror(-ret));
			x->n = i;
			dr_xdp_gids_release(x);
			return ret;
		}
	}
	DR_LOG(drv, NOTICE, "port %u: XDP program %u steers RoCEv2 and the ARP / ND of our %u addresses to us, "
	       "the rest to the kernel", port, prog_id, x->n);
	return 1;
}

void
dr_xdp_gids_release(struct dr_xdp_gids *x)
{
	if (x->map_fd < 0)
		return;
	for (unsigned int i = 0; i < x->n; i++)
		(void)bpf_map_delete_elem(x->map_fd, x->gid[i]);
	close(x->map_fd);
	x->map_fd = -1;
	x->n = 0;
}

#else /* !DR_HAVE_LIBBPF */

int
dr_xdp_gids_fill(uint16_t port, uint32_t ifindex, const struct dr_port_addrs *a,
		    struct dr_xdp_gids *x)
{
	(void)a;
	x->map_fd = -1;
	x->n = 0;
	if (ifindex != 0)
		DR_LOG(drv, INFO, "port %u: built without libbpf: an XDP program's %s map is not filled", port,
		       DR_XDP_GIDS_MAP);
	return 0;
}

void
dr_xdp_gids_release(struct dr_xdp_gids *x)
{
	(void)x;
}

#endif /* DR_HAVE_LIBBPF */
