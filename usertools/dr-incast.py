#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Incast: N dpdk-rdma-perf write_bw senders into N receivers behind one
rate-limited, ECN-marking egress queue of dpdk-rdma-faultlink's switch, with
DCQCN off (--cc none) and on (--cc dcqcn), interleaved run by run. Prints per
setting the goodput of each sender and in all, Jain's fairness index, the
queue's drops, ECN marks and backlog percentiles, the senders'
retransmissions and the CNPs they took, and the 64-byte latency of a probe
pair through the same queue; every WRITE is checked. Drops and
retransmissions are also counted from a second after the first frame
reached the queue (drops>1s, retrans>1s): the flows' first windows go out at
line rate before the first CNP can come back. A benchmark, not a test: nothing is asserted
(doc/guides/congestion.rst has a run's table).

  usertools/dr-incast.py                                  # 4 -> 1, 200 Mb/s, 5 s, 1 run
  usertools/dr-incast.py --senders 2 --runs 3 --json out.json --png rate.png

--png draws each sender's goodput and DCQCN rate over time (needs
python3-matplotlib); --plot-json draws it again from an earlier --json."""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drperf import incast  # noqa: E402

SETTINGS = {"off": "none", "on": "dcqcn"}
# DCQCN slowed to this machine's loop: a sender, its receiver and the switch share two
# CPUs with the others, so a CNP answers a queue of a millisecond ago, not of
# microseconds as in a data centre; increases a few per cent of the bottleneck per period
# (congestion.rst, "Tuning")
CC_PARAM = ("line_rate=1g,min_rate=5m,rate_ai=2m,rate_hai=10m,byte_counter=2m,"
            "alpha_period=1ms,rate_period=2ms,min_dec_period=50us,cnp_interval=50us")


def show(rows):
    cols = [("cc", "%-6s", "DCQCN"), ("total_mbps", "%9.1f", "total Mb/s"),
            ("min_mbps", "%8.1f", "min"), ("max_mbps", "%8.1f", "max"), ("jain", "%6.3f", "Jain"),
            ("drops", "%7d", "drops"), ("retrans", "%8d", "retrans"), ("drops_1s", "%8d", "drops>1s"),
            ("retrans_1s", "%10d", "retrans>1s"), ("marked", "%7d", "marked"),
            ("q_p50", "%8d", "q p50 B"), ("q_p99", "%8d", "q p99 B"), ("q_max", "%8d", "q max B"),
            ("lat_typ", "%8.1f", "lat us"), ("lat_p99", "%8.1f", "p99"), ("lat_p999", "%8.1f", "p99.9"),
            ("checked", "%8s", "checked")]
    print("  ".join(h for _, _, h in cols))
    for r in rows:
        cells = []
        for k, f, h in cols:
            v = r.get(k)
            if v is None:
                cells.append("%*s" % (len(h), "-"))
            else:
                if "d" in f:
                    v = int(v)
                cells.append((f % v).rjust(len(h)))
        print("  ".join(cells))


def plot(results, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("dr-incast: --png needs matplotlib (python3-matplotlib)", file=sys.stderr)
        return
    shown = [r for r in results if r["flows"]]
    fig, axes = plt.subplots(1, len(shown), figsize=(6 * len(shown), 4), sharey=True, squeeze=False)
    for ax, res in zip(axes[0], shown):
        for i, f in enumerate(res["flows"]):
            pts = f["series"]
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], label="sender %d goodput" % i)
            if res["cc"] == "dcqcn":
                ax.plot([p[0] for p in pts], [p[2] if p[2] > 0 else None for p in pts], linestyle=":",
                        color=line.get_color(), label="sender %d DCQCN rate" % i)
        ax.set_title("DCQCN %s: Jain %.3f, %d drops" % ("on" if res["cc"] == "dcqcn" else "off",
                                                        res["jain"], res["egress"].get("queue_drop", 0)))
        ax.set_xlabel("time (s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    axes[0][0].set_ylabel("Mb/s")
    axes[0][0].set_ylim(bottom=0)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--senders", type=int, default=4, help="N of N -> 1 (default 4)")
    ap.add_argument("--rate", default="200mbit", help="the bottleneck's rate (default 200mbit)")
    ap.add_argument("--limit", type=int, default=400, help="its queue in frames (default 400)")
    ap.add_argument("--ecn", default="kmin 16KB kmax 128KB pmax 20%",
                    help="its RED/ECN marking (the switch's 'ecn' words; 'off': none)")
    ap.add_argument("--cc-param", default=CC_PARAM, help="--cc-param of the DCQCN runs")
    ap.add_argument("--settings", default="off,on", help="DCQCN off, on or both (default off,on)")
    ap.add_argument("--size", type=int, default=65536, help="the senders' WRITE size")
    ap.add_argument("--duration", type=float, default=5.0, help="seconds each run lasts (-D)")
    ap.add_argument("--runs", type=int, default=1, help="runs of each setting, interleaved")
    ap.add_argument("--no-probe", action="store_true", help="leave the latency probe out")
    ap.add_argument("--json")
    ap.add_argument("--png")
    ap.add_argument("--plot-json", help="draw --png from an earlier run's --json, run nothing")
    a = ap.parse_args()
    if a.plot_json:
        if not a.png:
            ap.error("--plot-json needs --png")
        with open(a.plot_json) as f:
            saved = json.load(f)
        plot(saved["last"], a.png, saved["title"])
        return 0
    most = 8 if a.no_probe else 7
    if a.senders < 1 or a.senders > most:
        ap.error("--senders: 1 to %d (the switch has 16 ports: 2 per pair%s)" % (
            most, "" if a.no_probe else " and 2 for the probe"))
    settings = [s for s in a.settings.split(",") if s]
    if not settings or any(s not in SETTINGS for s in settings):
        ap.error("--settings: off, on or off,on")
    runs = {s: [] for s in settings}
    for k in range(a.runs):
        for s in settings:
            inc = incast.Incast(senders=a.senders, rate=a.rate, limit=a.limit,
                                ecn=None if a.ecn == "off" else a.ecn, cc=SETTINGS[s],
                                cc_param=a.cc_param if s == "on" else None, size=a.size,
                                probe=not a.no_probe)
            res = inc.run(duration=a.duration)
            runs[s].append(res)
            for f in res["failed"]:
                print("dr-incast: run %d, DCQCN %s: a pair failed\n%s" % (k + 1, s, f), file=sys.stderr)
            print("dr-incast: run %d, DCQCN %s: %.1f Mb/s, Jain %.3f, %d drops, %d marked" % (
                k + 1, s, res["total_mbps"], res["jain"], res["egress"].get("queue_drop", 0),
                res["egress"].get("ecn_marked", 0)), file=sys.stderr)
    title = "%d -> 1 incast through %s (queue %d frames, ecn %s), %d B WRITEs" % (
        a.senders, a.rate, a.limit, a.ecn, a.size)
    print(title + (", medians of %d runs" % a.runs if a.runs > 1 else ""))
    rows = [incast.median_summary(runs[s]) for s in settings]
    show(rows)
    last = [runs[s][-1] for s in settings]
    for res in last:
        print("DCQCN %s, each sender (Mb/s): %s" % ("on" if res["cc"] == "dcqcn" else "off",
              " ".join("%.1f" % f["goodput_mbps"] for f in res["flows"])))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"title": title, "table": rows, "last": last,
                       "runs": {s: [{k: v for k, v in r.items() if k != "switch"} for r in runs[s]]
                                for s in settings}}, f, indent=1)
    if a.png:
        plot(last, a.png, title)
    return 0 if all(r["checked"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
