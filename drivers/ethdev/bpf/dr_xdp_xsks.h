/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_XDP_XSKS_H
#define DR_XDP_XSKS_H

/*
 * The map an XDP program given to DPDK's net_af_xdp (xdp_prog=) must have:
 * the PMD puts its AF_XDP socket in the map of this name, at its queue
 * index. Every such program of ours includes it (dr_xdp_steer.bpf.c, the
 * tests' xdp_faults.bpf.c), after <bpf/bpf_helpers.h>.
 */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, int);
	__type(value, int);
} xsks_map SEC(".maps");

#endif /* DR_XDP_XSKS_H */
