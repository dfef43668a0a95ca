#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
#
# Configure (once) and build one build directory.
# Usage: usertools/dr-build.sh BUILD_DIR [meson setup options...]
# DR_BUILD_SUITES="unit transport": build only what the tests of these
# suites run (their programs and what those link), as meson test would
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
[ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null
targets=()
if [ -n "${DR_BUILD_SUITES:-}" ]; then
	list=$(meson introspect "$dir" --tests --targets | /usr/bin/python3 -c '
import json, os, sys
intro, suites = json.load(sys.stdin), {"dpdk-rdma:" + s for s in sys.argv[2].split()}
files = {t["id"]: t["filename"] for t in intro["targets"]}
need = {d for t in intro["tests"] if suites & set(t["suite"]) for d in t["depends"]}
if not need:
    sys.exit("dr-build: no test in the suites " + sys.argv[2])
for d in sorted(need):
    for f in files[d]:
        print(os.path.relpath(f, sys.argv[1]))
' "$(realpath "$dir")" "$DR_BUILD_SUITES")
	mapfile -t targets <<<"$list"
fi
# two cores here: keep one build at a time, two jobs
ninja -C "$dir" -j "${DR_JOBS:-2}" "${targets[@]}"
