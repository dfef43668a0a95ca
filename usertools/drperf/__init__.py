# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Helpers to run dpdk-rdma-perf as a server/client pair of processes over
DPDK virtual links (memif; af_xdp or af_packet on a veth pair between two
network namespaces), and to read its perftest-style tables. Stdlib only."""
