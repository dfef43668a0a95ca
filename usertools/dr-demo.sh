#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
#
# The main job (README.md): install what is missing, build, and decode the
# shipped captures of Linux rxe with dpdk-rdma-dump, checking every ICRC.
# (The two-endpoint transfer over memif replaces this once the RC transport lands.)
set -euo pipefail
cd "$(dirname "$0")/.."

usertools/dr-deps.sh build
usertools/dr-build.sh build >/dev/null

dump=build/app/dpdk-rdma-dump/dpdk-rdma-dump
for f in test/vectors/*.pcap; do
	echo "== $f"
	"$dump" "$f"
done
