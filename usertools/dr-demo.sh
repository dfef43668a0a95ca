#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
#
# The main job (README.md): install what is missing, build, then run
# dpdk-rdma-perf's write_bw between two processes joined by net_memif (shared
# memory, no hugepages, no NIC) with --check: every byte written is verified.
# Prints perftest's table (the client's), then one line: write_bw's result as
# a ratio to the raw link (raw_bw, the same frames without the transport),
# measured in the same run. usertools/dr-memif-run.py --help says more;
# doc/guides/perf.rst has the two-terminal form.
set -euo pipefail
cd "$(dirname "$0")/.."

usertools/dr-deps.sh build
usertools/dr-build.sh build >/dev/null

DR_BUILD_DIR="$PWD/build" exec python3 usertools/dr-memif-run.py --timeout 300 --raw-ratio \
	write_bw --check "$@"
