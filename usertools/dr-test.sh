#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
#
# The test command (README.md, .ci/run): install what is missing, build, run
# every test: C unit tests (plain and ASan+UBSan builds), then the pytest
# integration suite on real processes.
set -euo pipefail
cd "$(dirname "$0")/.."

usertools/dr-deps.sh test

echo "== build (debugoptimized)"
usertools/dr-build.sh build
echo "== unit tests"
meson test -C build --suite unit --print-errorlogs

echo "== build (ASan + UBSan)"
usertools/dr-build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false
echo "== unit tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --suite unit --print-errorlogs

echo "== integration tests"
# Debian's python3-pytest/python3-scapy live with /usr/bin/python3 only.
# pytest exits 5 when it collects nothing: that fails this script too.
DR_BUILD_DIR="$PWD/build" /usr/bin/python3 -m pytest -p no:cacheprovider test/integration
