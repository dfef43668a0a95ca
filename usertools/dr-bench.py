#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""How close the transport is to the wire: every RDMA test of dpdk-rdma-perf
next to the bare link under it (raw_bw / raw_lat with --raw-like of the same
operation: frames of the same sizes and headers, same port, pool and lcores),
over net_memif, in one run. The matrix is tests {write, send, read, atomic}
x {bw, lat} x sizes x path MTUs x engine modes; each RDMA run and its raw
baseline alternate (A B A B ...) --runs times and the medians are compared.
Prints a table of absolute numbers and ratios (RDMA / raw: rates, higher is
better, 1.0 is the wire; latencies, lower is better), writes JSON (--json)
and, when matplotlib is installed, a PNG chart (--png). A benchmark, not a
test: nothing is asserted.

  usertools/dr-bench.py                        # the whole matrix (about 10 min a run)
  usertools/dr-bench.py --quick                # 64 B and 64 KiB, MTU 4096, inline
  usertools/dr-bench.py --tests write --kinds bw --sizes 64 --modes inline,rtc
  usertools/dr-bench.py --check-baseline       # raw_bw / raw_lat against dpdk-testpmd

Absolute numbers depend on the machine and on what else runs on it; the
ratios of one run do not (both sides of a ratio share the link, the CPUs and
the moment). Atomics move 8 bytes: their sizes are ignored (one row, 8 B).
bw rows run -D seconds a size (--duration), lat rows -n iterations
(--lat-iters). Placement as dr-engine-bench.py: on a 2-CPU machine only
inline and rtc with one worker measure the engine rather than the scheduler."""

import argparse
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drperf import baseline, bench, pair, table  # noqa: E402

TESTS = ("write", "send", "read", "atomic")
KINDS = ("bw", "lat")
SIZES = (64, 1024, 4096, 65536, 1 << 20)
MTUS = (1024, 4096)
MODES = ("inline", "rtc", "pipeline")
ATOMIC_SIZE = 8
LINK_MTU = 4200             # an IP MTU that lets -m 4096 through (rxe's rule)
HUGE_NEED_MB = 512          # hugepages a pair takes at most: two EALs' pools and 1 MiB buffers


def choose_memory(a):
    """Set a.huge and a.memory_text from --memory and the free hugepages;
    an error message when hugepages were asked for and are not there."""
    free, kb = pair.hugepages_free()
    have = free * kb >> 10
    a.huge = a.memory == "huge" or (a.memory == "auto" and have >= HUGE_NEED_MB)
    if a.memory == "huge" and have < HUGE_NEED_MB:
        return ("--memory huge: %d MiB of hugepages free, a pair needs %d (usertools/dr-setup.py "
                "hugepages --reserve 1G)" % (have, HUGE_NEED_MB))
    a.memory_text = ("hugepages (%d kB pages, %d free)" % (kb, free) if a.huge else
                     "no hugepages (EAL --no-huge: %d MiB of hugepages free)" % have)
    return None


def perf_args(test, kind, raw, sizes, mtu, a):
    """dpdk-rdma-perf's arguments for one run: every size of the row group at once."""
    name = ("raw_" + kind) if raw else "%s_%s" % (test, kind)
    args = [name, "--sizes", ",".join(map(str, sizes)), "-m", str(mtu), "--link-mtu", str(LINK_MTU)]
    if raw:
        args += ["--raw-like", test]
    else:
        args += a.rdma_args
    if a.huge:
        args.append("--use_hugepages")      # the buffers of both, the MR of RDMA
    if kind == "bw":
        args += ["-D", str(a.duration)]
    else:
        args += ["-n", str(a.lat_iters)]
    return args


def run_once(exe, args, mode, cpus, a):
    """{size: row} of the client's table, or None when the pair failed."""
    extra, srv, cli, _ = bench.placement(mode, 1, cpus)
    res = pair.run_memif(args + extra, exe=exe, timeout=a.timeout, server_lcores=srv,
                         client_lcores=cli, huge=a.huge)
    if not res.ok:
        print("dr-bench: %s (%s): the pair failed\n%s" % (" ".join(args), mode, res.describe()),
              file=sys.stderr)
        return None
    return {r["bytes"]: r for r in table.rows(res.client.stdout)}


def metrics(kind):
    """(row field, unit, scale, higher is better) of each number a kind reports."""
    if kind == "bw":
        return [("msg_rate", "Mpps", 1.0, True), ("bw_avg", "Gb/s", 8 * (1 << 20) / 1e9, True)]
    return [("t_typical", "usec", 1.0, False)]


def collect(exe, a, cpus):
    """Run the matrix; returns [{test, kind, mode, mtu, size, metric, unit, rdma, raw}]."""
    out = []
    for mode in a.modes:
        for mtu in a.mtus:
            for test in a.tests:
                for kind in a.kinds:
                    sizes = [ATOMIC_SIZE] if test == "atomic" else a.sizes
                    if test == "write" and kind == "lat":
                        sizes = [max(1, s) for s in sizes]
                    samples = {False: [], True: []}
                    for _ in range(a.runs):                 # A B A B ...
                        for raw in (False, True):
                            rows = run_once(exe, perf_args(test, kind, raw, sizes, mtu, a), mode,
                                            cpus, a)
                            if rows is not None:
                                samples[raw].append(rows)
                    for size in sizes:
                        for field, unit, scale, higher in metrics(kind):
                            vals = {raw: [r[size][field] * scale for r in samples[raw] if size in r]
                                    for raw in (False, True)}
                            out.append({"test": test, "kind": kind, "mode": mode, "mtu": mtu,
                                        "size": size, "metric": field, "unit": unit,
                                        "higher_is_better": higher,
                                        "rdma": bench.median(vals[False]),
                                        "raw": bench.median(vals[True]),
                                        "rdma_samples": vals[False], "raw_samples": vals[True]})
                    print("dr-bench: %s_%s, MTU %d, %s: done" % (test, kind, mtu, mode),
                          file=sys.stderr)
    return out


def ratio(r):
    return r["rdma"] / r["raw"] if r["rdma"] is not None and r["raw"] else None


def human_size(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%d MiB" % (n >> 20)
    if n >= 1024 and n % 1024 == 0:
        return "%d KiB" % (n >> 10)
    return "%d B" % n


def print_table(results, cpus, a):
    print("dpdk-rdma-perf vs the raw link (raw_bw / raw_lat, same frames) over net_memif, "
          "%d CPUs, median of %d runs, %s" % (len(cpus), a.runs, a.memory_text))
    print("ratio = RDMA / raw: rates higher is better (1.00 = the wire), latencies lower is better")
    print("%-10s %-9s %5s %8s %-10s %12s %12s %7s" % ("test", "mode", "MTU", "size", "metric",
                                                      "RDMA", "raw", "ratio"))
    for r in results:
        q = ratio(r)
        fmt = "%.3f %s"
        print("%-10s %-9s %5d %8s %-10s %12s %12s %7s" % (
            "%s_%s" % (r["test"], r["kind"]), r["mode"], r["mtu"], human_size(r["size"]),
            r["metric"], fmt % (r["rdma"], r["unit"]) if r["rdma"] is not None else "failed",
            fmt % (r["raw"], r["unit"]) if r["raw"] is not None else "failed",
            "%.2f" % q if q is not None else "-"))


def draw_png(results, path):
    """One panel per metric kind (message rate, latency): the ratio of every
    test and size, a bar per mode and MTU. Needs matplotlib (Debian's
    python3-matplotlib); without it, says so and returns."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("dr-bench: no matplotlib (apt-get install python3-matplotlib): no chart, "
              "the table above has every number", file=sys.stderr)
        return
    panels = [("msg_rate", "message rate, RDMA / raw (higher is better)"),
              ("t_typical", "latency, RDMA / raw (lower is better)")]
    fig, axes = plt.subplots(len(panels), 1, figsize=(12, 8))
    for ax, (metric, title) in zip(axes, panels):
        rows = [r for r in results if r["metric"] == metric and ratio(r) is not None]
        cases = sorted({(r["test"], r["kind"], r["size"]) for r in rows},
                       key=lambda c: (TESTS.index(c[0]), c[2]))
        series = sorted({(r["mode"], r["mtu"]) for r in rows})
        width = 0.8 / max(1, len(series))
        for j, (mode, mtu) in enumerate(series):
            xs, ys = [], []
            for i, c in enumerate(cases):
                for r in rows:
                    if (r["test"], r["kind"], r["size"], r["mode"], r["mtu"]) == (*c, mode, mtu):
                        xs.append(i + j * width)
                        ys.append(ratio(r))
            ax.bar(xs, ys, width, label="%s, MTU %d" % (mode, mtu))
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cases))])
        ax.set_xticklabels(["%s_%s\n%s" % (t, k, human_size(s)) for t, k, s in cases], fontsize=7)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(title)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print("dr-bench: chart in %s" % path, file=sys.stderr)


BASELINE_SIZES = (64, 4096)     # one frame each at path MTU 4096


def check_baseline(exe, a, cpus):
    """raw_bw and raw_lat against dpdk-testpmd on the same link and CPUs
    (drperf/baseline.py) for WRITEs of BASELINE_SIZES, --runs times
    alternating, medians; prints both and their ratio. 1 when a side could
    not be measured."""
    link = os.path.join(os.path.dirname(exe), "..", "..", "test", "bench", "bench_link")
    if not os.access(link, os.X_OK):
        print("dr-bench: %s is not built" % os.path.normpath(link), file=sys.stderr)
        return 1
    got = {size: {"raw_rate": [], "ref_rate": [], "raw_lat": [], "ref_lat": []} for size in BASELINE_SIZES}
    try:
        for k in range(a.runs):
            for size in BASELINE_SIZES:
                frame, g = baseline.write_frame_len(size), got[size]
                g["raw_rate"].append(baseline.raw_rate(exe, size, a.duration, cpus))
                g["ref_rate"].append(baseline.testpmd_rate(frame, max(3, int(a.duration)), cpus))
                g["raw_lat"].append(baseline.raw_lat(exe, size, a.lat_iters, cpus))
                g["ref_lat"].append(baseline.link_lat(link, frame, a.lat_iters, cpus))
            print("dr-bench: baseline run %d of %d: done" % (k + 1, a.runs), file=sys.stderr)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print("dr-bench: --check-baseline: %s" % e, file=sys.stderr)
        return 1
    print("The raw link against programs that are not ours: net_memif (bsize %d), CPUs %d and %d, "
          "WRITE ONLY frames, medians of %d runs" % (pair.MEMIF_BSIZE, cpus[0], cpus[1 % len(cpus)], a.runs))
    print("(ratio: the median of each run's ratio; the machine moves both sides of a run together)")
    print("%-9s %-26s %16s %44s %6s" % ("frame", "", "dpdk-rdma-perf", "reference", "ratio"))
    med = {}
    for size in BASELINE_SIZES:
        g = got[size]
        m = med[size] = {k: bench.median(v) for k, v in g.items()}
        m["rate_ratio"] = bench.median([x / y for x, y in zip(g["raw_rate"], g["ref_rate"])])
        m["lat_ratio"] = bench.median([x / y for x, y in zip(g["raw_lat"], g["ref_lat"])])
        frame = "%d B" % baseline.write_frame_len(size)
        print("%-9s %-26s %11.3f Mpps %25.3f Mpps (testpmd txonly -> rxonly) %6.2f" % (
            frame, "frame rate (raw_bw)", m["raw_rate"] / 1e6, m["ref_rate"] / 1e6, m["rate_ratio"]))
        print("%-9s %-26s %13.3f us %27.3f us (bench_link <-> macswap) %6.2f" % (
            frame, "half round trip (raw_lat)", m["raw_lat"], m["ref_lat"], m["lat_ratio"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": a.runs, "samples": got, "medians": med}, f, indent=1)
    return 0


def csv_list(s, conv, allowed=None, what="value"):
    out = [conv(x) for x in s.split(",") if x]
    if allowed is not None and any(x not in allowed for x in out):
        raise argparse.ArgumentTypeError("%s: one or more of %s" % (what, ", ".join(map(str, allowed))))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perf", help="dpdk-rdma-perf (default: build-rel/, else $DR_BUILD_DIR or build/)")
    ap.add_argument("--tests", default=",".join(TESTS),
                    type=lambda s: csv_list(s, str, TESTS, "--tests"))
    ap.add_argument("--kinds", default=",".join(KINDS),
                    type=lambda s: csv_list(s, str, KINDS, "--kinds"))
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), type=lambda s: csv_list(s, int))
    ap.add_argument("--mtus", default=",".join(map(str, MTUS)),
                    type=lambda s: csv_list(s, int, (256, 512, 1024, 2048, 4096), "--mtus"))
    ap.add_argument("--modes", default=",".join(MODES),
                    type=lambda s: csv_list(s, str, MODES, "--modes"))
    ap.add_argument("--runs", type=int, default=None, help="runs of each pair (default 3; --quick: 1)")
    ap.add_argument("--duration", type=float, default=1.0, help="bw: seconds a size (default 1)")
    ap.add_argument("--lat-iters", type=int, default=20000,
                    help="lat: iterations a size (default 20000: the first thousand or so of a run "
                         "are slower on a shared machine, and t_typical is their median)")
    ap.add_argument("--rdma-args", default="", metavar="ARGS",
                    help="more dpdk-rdma-perf arguments for the RDMA runs only, e.g. "
                         "'--zcopy-min off' (split as a shell would)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a pair may take (default 300)")
    ap.add_argument("--quick", action="store_true",
                    help="64 B and 64 KiB, MTU 4096, inline, one run unless --runs says")
    ap.add_argument("--memory", choices=("auto", "huge", "small"), default="auto",
                    help="EAL memory, pools and the buffers (the MR): hugepages (huge), the "
                         "process's own pages (small, EAL --no-huge), or huge when at least "
                         "%d MiB of hugepages are free (auto, the default)" % HUGE_NEED_MB)
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--png", metavar="FILE", help="also draw the ratios (needs matplotlib)")
    ap.add_argument("--check-baseline", action="store_true",
                    help="only check raw_bw and raw_lat against dpdk-testpmd on the same link and CPUs "
                         "(64-byte WRITE frames, --runs times, --duration s, --lat-iters)")
    a = ap.parse_args()
    if a.quick:
        a.sizes, a.mtus, a.modes = [64, 65536], [4096], ["inline"]
    if a.runs is None:
        a.runs = 1 if a.quick else 3
    a.rdma_args = shlex.split(a.rdma_args)
    if a.runs < 1 or a.duration <= 0 or a.lat_iters < 5 or any(s < 0 or s > 1 << 30 for s in a.sizes):
        ap.error("--runs >= 1, --duration > 0, --lat-iters >= 5, sizes 0 .. 1 GiB")
    exe = a.perf
    if exe is None:
        rel = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build-rel", "app",
                           "dpdk-rdma-perf", "dpdk-rdma-perf")
        exe = rel if os.access(rel, os.X_OK) else str(pair.perf_exe())
    if not os.access(exe, os.X_OK):
        print("dr-bench: %s is not built (usertools/dr-build.sh build-rel -Dbuildtype=release)" % exe,
              file=sys.stderr)
        return 1
    err = choose_memory(a)
    if err:
        ap.error(err)
    print("dr-bench: %s, %s" % (os.path.normpath(exe), a.memory_text), file=sys.stderr)
    cpus = sorted(os.sched_getaffinity(0))
    if a.check_baseline:
        return check_baseline(exe, a, cpus)
    results = collect(exe, a, cpus)
    print_table(results, cpus, a)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpus": len(cpus), "runs": a.runs, "perf": os.path.normpath(exe),
                       "duration_s": a.duration, "lat_iters": a.lat_iters,
                       "rdma_args": a.rdma_args, "memory": "huge" if a.huge else "small",
                       "results": results},
                      f, indent=1)
    if a.png:
        draw_png(results, a.png)
    failed = [r for r in results if r["rdma"] is None or r["raw"] is None]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
