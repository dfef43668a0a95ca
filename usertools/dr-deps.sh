#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
#
# Install the Debian 12 packages dpdk-rdma builds and tests with, when missing.
# Usage: usertools/dr-deps.sh [build|test]   (default: test, a superset of build)
set -euo pipefail

BUILD_PKGS="gcc libc6-dev meson ninja-build pkg-config libdpdk-dev dpdk-dev libnuma-dev libpcap-dev libibverbs-dev libfabric-dev libbpf-dev libxdp-dev clang"
# libbpf-dev + clang: the bifurcated af_xdp host (drivers/ethdev: its XDP program, its map);
# libxdp-dev: the xsk backend's AF_XDP sockets (drivers/xsk)
# libfabric-dev: the libfabric provider (drivers/libfabric); libfabric-bin: fi_info, fi_pingpong;
# openmpi-bin + libopenmpi-dev: the MPI jobs over it (test/mpi, test_mpi.py)
# clang + libbpf-dev: the XDP fault-injection program of the af_xdp tests;
# clang + libclang-rt-14-dev (libFuzzer, the sanitizer runtimes): the fuzz harnesses
# libsystemd-dev: a --static link of DPDK (libpcap -> dbus -> systemd), test_consumer.py
TEST_PKGS="python3 python3-pytest python3-scapy tshark qemu-system-x86 iproute2 clang libclang-rt-14-dev libbpf-dev valgrind libfabric-bin openmpi-bin libopenmpi-dev libsystemd-dev"

want=$BUILD_PKGS
[ "${1:-test}" = test ] && want="$want $TEST_PKGS"

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "dr-deps: installing:$missing" >&2
# refresh the package lists only when they are missing or older than a day
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
	$SUDO apt-get update -q >&2
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2
