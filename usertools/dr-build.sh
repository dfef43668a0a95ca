#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
#
# Configure (once) and build one build directory.
# Usage: usertools/dr-build.sh BUILD_DIR [meson setup options...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
[ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null
# two cores here: keep one build at a time, two jobs
ninja -C "$dir" -j "${DR_JOBS:-2}"
