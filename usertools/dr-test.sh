#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
#
# The test command (README.md, .ci/run): install what is missing, build, run
# every test: C unit tests and the transport tests over in-process ring ports
# (the release build, what users and the benchmarks run, and an ASan+UBSan
# build), the libFuzzer harnesses for a bounded time (usertools/dr-fuzz.sh),
# then the pytest integration suite on real processes and links, over the
# release build.
set -euo pipefail
cd "$(dirname "$0")/.."

# each step says when it starts (seconds since this script began): where CI's time goes
step() { echo "== $* [${SECONDS} s]"; }

usertools/dr-deps.sh test

step "build (release, -O3)"
usertools/dr-build.sh build-rel -Dbuildtype=release
# The transport tests drive real TSC timers (ACK timeout, RNR) from one thread:
# on 2 cores they run one at a time, not beside the other suites.
step "unit tests"
meson test -C build-rel --suite unit --print-errorlogs
# ... on a machine doing other work: two nice 19 busy loops, each in a session
# of its own as a user's background job is (Linux's autogroup then gives them
# half of each CPU whatever their nice value, in slices of milliseconds; the
# transport's timers must not take that for loss: doc/guides/reliability.rst).
# The quiet machine's run is the ASan build's, below.
step "transport tests beside two nice -n 19 busy loops"
busy_pids=()
stop_busy() { kill "${busy_pids[@]}" 2>/dev/null || true; wait "${busy_pids[@]}" 2>/dev/null || true; }
trap stop_busy EXIT
for _ in 1 2; do
	setsid nice -n 19 sh -c 'while :; do :; done' &
	busy_pids+=($!)
done
meson test -C build-rel --suite transport --num-processes 1 --print-errorlogs
stop_busy
trap - EXIT

step "unit and transport tests under ASan + UBSan (each meson test builds what its tests run first)"
# meson test builds only its tests' targets (the library, the test programs),
# not the apps, the benchmarks and the MPI programs: those run from build-rel
[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
meson test -C build-asan --suite unit --print-errorlogs
meson test -C build-asan --suite transport --num-processes 1 --print-errorlogs

step "fuzzing (libFuzzer, clang, ASan + UBSan): each harness ${DR_FUZZ_TIME:-60} s from the kept corpus"
# build-fuzz: its own clang build; replays test/fuzz/regress/ and the corpus,
# then fuzzes each harness for a bounded time; any finding fails (doc/guides/fuzzing.rst)
usertools/dr-fuzz.sh --time "${DR_FUZZ_TIME:-60}"

step "integration tests"
# Debian's python3-pytest/python3-scapy live with /usr/bin/python3 only.
# pytest exits 5 when it collects nothing: that fails this script too.
# test/integration/interop boots two rxe peers in qemu (usertools/dr-rxe-peer.py);
# DR_INTEROP_REQUIRED=1 makes it fail rather than skip when it cannot.
# --durations: the slowest tests, for the next time the suite must be trimmed
DR_BUILD_DIR="$PWD/build-rel" DR_INTEROP_REQUIRED=1 /usr/bin/python3 -m pytest -p no:cacheprovider \
	--durations=25 test/integration
