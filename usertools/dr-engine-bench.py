#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Compare the engine's progress modes on one link, in one run: 64 B WRITE
message rate, 64 KiB WRITE bandwidth and 64 B SEND half round trip of
dpdk-rdma-perf over net_memif, for inline mode, run-to-completion mode with
each worker count asked for and pipeline mode with as many groups, every
configuration run --runs times interleaved (A B A B ...) and reported as
the median, with its ratio to inline mode. A benchmark, not a test: nothing
is asserted.

  usertools/dr-engine-bench.py                    # inline vs rtc vs pipeline, 1 worker / group
  usertools/dr-engine-bench.py --workers 1,2,4,8  # the scaling run
  usertools/dr-engine-bench.py --modes rtc --json out.json

Placement: inline puts each side's main lcore on a CPU of its own. rtc
with W workers wants W + 1 CPUs a side, pipeline with W groups 3W + 1;
with fewer, every lcore of a side is mapped onto one CPU (--lcores
'(0-L)@C', engine lcores yielding when idle) and the table says so: such
numbers measure the scheduler, not the engine. On a 2-CPU machine only
inline vs rtc with one worker means anything. Queues: a worker (group) per
memif queue pair (--queues W on both sides)."""

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drperf import bench, pair, table  # noqa: E402
from drperf.bench import placement  # noqa: E402

METRICS = [
    # name, perf args, row field, unit, scale, higher is better
    ("write 64 B msg rate", ["write_bw", "-s", "64", "-n", "200000"], "msg_rate", "Mpps", 1.0, True),
    ("write 64 KiB bw", ["write_bw", "-s", "65536", "-n", "20000", "--report_gbits"], "bw_avg",
     "Gb/s", 1.0, True),
    ("send 64 B half RTT", ["send_lat", "-s", "64", "-n", "20000"], "t_typical", "usec", 1.0, False),
]


def run_once(exe, metric, config, cpus, timeout):
    name, args, field, _, scale, _ = metric
    mode, workers = config
    extra, srv, cli, _ = placement(mode, workers, cpus)
    res = pair.run_memif(args + extra, exe=exe, timeout=timeout, server_lcores=srv,
                         client_lcores=cli)
    if not res.ok:
        print("dr-engine-bench: %s, %s: the pair failed\n%s" % (name, label(config),
              res.describe()), file=sys.stderr)
        return None
    rows = table.rows(res.client.stdout)
    return rows[-1][field] * scale if rows else None


def label(config):
    return bench.label(*config)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perf", help="dpdk-rdma-perf (default: $DR_BUILD_DIR or build/)")
    ap.add_argument("--workers", default="1",
                    help="rtc worker / pipeline group counts, comma-separated (default 1)")
    ap.add_argument("--modes", default="rtc,pipeline",
                    help="engine modes compared with inline, comma-separated (default rtc,pipeline)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each configuration (default 3)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per run (default 120)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    a = ap.parse_args()
    try:
        counts = [int(w) for w in a.workers.split(",")]
    except ValueError:
        ap.error("--workers: a comma-separated list of integers")
    modes = a.modes.split(",")
    if any(m not in ("rtc", "pipeline") for m in modes):
        ap.error("--modes: rtc and/or pipeline")
    if any(w < 1 or w > 16 for w in counts) or a.runs < 1:
        ap.error("--workers: 1 to 16 each; --runs: at least 1")
    if "pipeline" in modes and any(w > 5 for w in counts):
        ap.error("--workers: at most 5 pipeline groups (3 lcores each, 16 in all)")
    exe = a.perf or str(pair.perf_exe())
    if not os.access(exe, os.X_OK):
        print("dr-engine-bench: %s is not built (ninja -C build)" % exe, file=sys.stderr)
        return 1
    cpus = sorted(os.sched_getaffinity(0))
    configs = [("inline", 0)] + [(m, w) for m in modes for w in counts]
    results = {}
    for metric in METRICS:
        samples = {c: [] for c in configs}
        for _ in range(a.runs):                 # interleaved: A B A B ...
            for c in configs:
                v = run_once(exe, metric, c, cpus, a.timeout)
                if v is not None:
                    samples[c].append(v)
        results[metric[0]] = samples

    print("dpdk-rdma-perf over net_memif, %d CPUs, median of %d runs, ratio to inline "
          "(>1 better for rates, <1 better for latency)" % (len(cpus), a.runs))
    print("%-22s %-20s %12s %8s %s" % ("metric", "mode", "median", "ratio", "runs"))
    out = []
    for metric in METRICS:
        name, unit = metric[0], metric[3]
        base = results[name][configs[0]]
        base_med = statistics.median(base) if base else None
        for c in configs:
            s = results[name][c]
            med = statistics.median(s) if s else None
            ratio = med / base_med if med is not None and base_med else None
            over = placement(c[0], c[1], cpus)[3]
            print("%-22s %-20s %12s %8s %s%s" % (
                name, label(c), "%.3f %s" % (med, unit) if med is not None else "failed",
                "%.2f" % ratio if ratio is not None else "-", " ".join("%.3f" % v for v in s),
                "  (oversubscribed CPUs)" if over and c[0] != "inline" else ""))
            out.append({"metric": name, "unit": unit, "mode": c[0], "workers": c[1],
                        "samples": s, "median": med, "ratio_to_inline": ratio,
                        "oversubscribed": over})
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpus": len(cpus), "runs": a.runs, "results": out}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
