#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
#
# Build and run the libFuzzer harnesses of test/fuzz (doc/guides/fuzzing.rst).
#
# Usage: usertools/dr-fuzz.sh [--time SECONDS | --runs N] [--regress-only]
#                             [--keep] [HARNESS...]
#
#   --time S        fuzz each harness for S seconds (default 60: what CI runs)
#   --runs N        fuzz each harness for N executions instead (the benchmark
#                   target: --runs 10000000)
#   --regress-only  only replay test/fuzz/regress/<harness>/ and the corpus
#   --keep          add the new inputs libFuzzer finds to test/fuzz/corpus/
#                   (default: they go to a scratch directory and are dropped)
#   HARNESS         fuzz_pkt, fuzz_rx (default: both)
#
# Builds build-fuzz (clang, -Dfuzz=enabled, ASan + UBSan) if it is missing,
# then for each harness: replays every saved finding (test/fuzz/regress/) and
# the kept corpus once, then fuzzes from the corpus, bounded. Any crash,
# sanitizer report, timeout (-timeout) or memory blow-up (-rss_limit_mb) fails
# the script; the input that did it is left in build-fuzz/fuzz-artifacts/
# (copy it into test/fuzz/regress/<harness>/ as its regression test).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${DR_FUZZ_BUILD:-build-fuzz}
time=60
runs=""
regress_only=0
keep=0
harnesses=()
while [ $# -gt 0 ]; do
	case "$1" in
	--time) time=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--regress-only) regress_only=1; shift ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '5,24p' "$0"; exit 0 ;;
	fuzz_*) harnesses+=("$1"); shift ;;
	*) echo "dr-fuzz: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_pkt fuzz_rx)

if [ ! -f "$dir/build.ninja" ]; then
	CC=${DR_FUZZ_CC:-clang} meson setup "$dir" -Dfuzz=enabled \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
# only the harnesses and what they link (two cores here: two jobs)
ninja -C "$dir" -j "${DR_JOBS:-2}" $(printf 'test/fuzz/%s ' "${harnesses[@]}")

# ours first, the caller's after (later settings win) ...
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# ... but UBSan always halts, and the known findings waiting for their fix in
# lib/ are held back by test/fuzz/ubsan.supp
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}:halt_on_error=1:suppressions=$PWD/test/fuzz/ubsan.supp"
common=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
art="$dir/fuzz-artifacts"
mkdir -p "$art"

for h in "${harnesses[@]}"; do
	exe="$dir/test/fuzz/$h"
	corpus="test/fuzz/corpus/$h"
	regress="test/fuzz/regress/$h"
	echo "== $h: regressions and corpus, once each"
	"$exe" "${common[@]}" -runs=0 -artifact_prefix="$art/$h-" "$regress" "$corpus" 2>"$art/$h-replay.log" || {
		tail -n 60 "$art/$h-replay.log" >&2
		echo "dr-fuzz: $h fails on its regressions or corpus (log: $art/$h-replay.log)" >&2
		exit 1
	}
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$art/$h-replay.log" | tail -n 1 || true
	[ "$regress_only" -eq 1 ] && continue

	if [ "$keep" -eq 1 ]; then
		work="$corpus"
		extra=()
	else
		work=$(mktemp -d "${TMPDIR:-/tmp}/dr-fuzz-$h.XXXXXX")
		extra=("$corpus")
	fi
	if [ -n "$runs" ]; then
		bound=(-runs="$runs")
		echo "== $h: $runs executions"
	else
		bound=(-max_total_time="$time")
		echo "== $h: $time s"
	fi
	rc=0
	"$exe" "${common[@]}" "${bound[@]}" -artifact_prefix="$art/$h-" "$work" "${extra[@]}" \
		2>"$art/$h-fuzz.log" || rc=$?
	[ "$keep" -eq 1 ] || rm -rf "$work"
	grep -E '^(#[0-9]+[[:space:]]+DONE|stat::)' "$art/$h-fuzz.log" || true
	if [ "$rc" -ne 0 ]; then
		tail -n 80 "$art/$h-fuzz.log" >&2
		echo "dr-fuzz: $h: a finding (exit $rc); its input is in $art/ (log: $art/$h-fuzz.log)." >&2
		echo "dr-fuzz: save it as test/fuzz/regress/$h/<name> once understood." >&2
		exit 1
	fi
done
echo "dr-fuzz: no findings"
