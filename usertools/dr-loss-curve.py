#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Goodput against loss: dpdk-rdma-perf write_bw (64 KiB messages by
default) through dpdk-rdma-faultlink dropping a share of the RoCEv2 frames
in both directions (--roce-only: ARP passes), for each loss rate asked, on
the same link in the same run. Prints per loss rate the goodput, its ratio
to the lossless run, and what the loss cost on the wire: frames the
requester sent per frame a lossless run needs (the fault link counts what
it received; the need is the messages completed times their packets). With
--runs N the rates are run N times interleaved (0, 1, 5, ... 0, 1, 5, ...)
and the medians printed. A benchmark, not a test: nothing is asserted.

  usertools/dr-loss-curve.py                          # 0, 0.1, 1, 5, 10 % on memif
  usertools/dr-loss-curve.py --loss 0,1 --runs 3 --link af_xdp --json out.json
  usertools/dr-loss-curve.py --loss 0,1 --burst 8 --recovery gbn  # losses in bursts of 8 frames

The curve for doc/guides/reliability.rst; with matplotlib installed
(python3-matplotlib), --png draws it, and --plot-json draws it again from
an earlier run's --json (doc/guides/img/loss-curve.json)."""

import argparse
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drperf import faultlink, table  # noqa: E402


def loss_list(s):
    try:
        vals = [float(v) for v in s.split(",") if v]
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not a list of percentages" % s)
    if not vals or any(v < 0 or v > 100 for v in vals):
        raise argparse.ArgumentTypeError("'%s': percentages from 0 to 100" % s)
    return vals


RECOVERY = {"sr": "selective repeat", "gbn": "go-back-N"}


def loss_spec(loss, burst):
    """The fault link's loss: random, or in bursts of `burst` frames on average
    (tc-netem's Gilbert-Elliott model: every frame lost in the bad state, which
    is left with probability r = 1/burst and entered with p = loss * r / (1 - loss),
    so that `loss` is the share lost in the long run)."""
    if loss <= 0:
        return "none"
    if burst <= 1:
        return "loss %g%%" % loss
    r = 1.0 / burst
    q = loss / 100.0
    return "loss gemodel %.6g%% %.6g%% 100%% 0%%" % (100.0 * q * r / (1.0 - q), 100.0 * r)


def one_point(a, loss, rec):
    """(goodput MB/s, frames sent per frame needed, frames lost) of one run, or None."""
    spec = loss_spec(loss, a.burst)
    args = ["--roce-only", "--both", spec, "--seed", str(a.seed)]
    perf = [a.test, "-s", str(a.size), "-D", str(a.duration)] + (["--go-back-n"] if rec == "gbn" else [])
    with faultlink.FaultLink((a.link, a.link), args) as fl:
        res = fl.run_perf(perf, timeout=a.duration + 120)
    if not res.ok:
        print("dr-loss-curve: loss %g%%: the pair failed\n%s" % (loss, res.describe()),
              file=sys.stderr)
        return None
    rows = table.rows(res.client.stdout)
    mtu = re.match(r"(\d+)", table.header(res.client.stdout).get("Mtu", "1024"))
    mtu = int(mtu.group(1)) if mtu else 1024
    if not rows or not fl.counters:
        return None
    needed = rows[0]["iters"] * max(1, -(-a.size // mtu))
    # the data's frames: requests from the client (side b), READ responses from the server
    sent = fl.counters["a->b" if a.test == "read_bw" else "b->a"]["rx"]
    lost = fl.counters["b->a"]["lost"] + fl.counters["a->b"]["lost"]
    return rows[0]["bw_avg"], (sent / needed if needed else 0.0), lost


def plot(points, title, path):
    """The curve as a PNG: goodput ratio and frames sent per frame needed against loss."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("dr-loss-curve: --png needs matplotlib (python3-matplotlib)", file=sys.stderr)
        return
    recs = list(dict.fromkeys(o["recovery"] for o in points))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for r in recs:
        pts = [o for o in points if o["recovery"] == r]
        ax.plot([o["loss"] for o in pts], [o["ratio"] for o in pts], marker="o", label=RECOVERY[r])
        ax2.plot([o["loss"] for o in pts], [o["sent_per_needed"] for o in pts], marker="o",
                 label=RECOVERY[r])
    ax.set_ylabel("goodput / lossless goodput")
    ax2.set_ylabel("frames sent / frames needed")
    ax2.set_yscale("log")
    top = max(o["loss"] for o in points) * 1.3
    for x in (ax, ax2):
        x.set_xlabel("frames lost, each direction (%)")
        x.set_xscale("symlog", linthresh=0.1)
        x.set_xlim(0, top)
        x.grid(True, alpha=0.3)
        x.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loss", type=loss_list, default=[0, 0.1, 1, 5, 10],
                    help="loss rates in %% (default 0,0.1,1,5,10)")
    ap.add_argument("--test", choices=("write_bw", "send_bw", "read_bw"), default="write_bw")
    ap.add_argument("--size", type=int, default=65536)
    ap.add_argument("--duration", type=float, default=5.0, help="seconds a point runs (-D)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--link", choices=("memif", "af_xdp"), default="memif")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--burst", type=float, default=1.0,
                    help="mean length of a loss burst in frames (Gilbert-Elliott, as tc-netem's "
                         "gemodel); default 1: every frame lost on its own")
    ap.add_argument("--recovery", default="sr,gbn",
                    help="loss recoveries to compare: sr (selective repeat, negotiated), "
                         "gbn (--go-back-n); default both")
    ap.add_argument("--json")
    ap.add_argument("--png")
    ap.add_argument("--plot-json", metavar="JSON",
                    help="draw --png from the --json of an earlier run, run nothing")
    a = ap.parse_args()
    if a.plot_json:
        if not a.png:
            ap.error("--plot-json needs --png")
        with open(a.plot_json) as f:
            saved = json.load(f)
        plot(saved["points"], "%s %d B over %s, loss in both directions" % (
            saved["test"], saved["size"], saved["link"]), a.png)
        return 0
    if a.runs < 1 or a.size < 1 or a.duration <= 0 or a.burst < 1:
        ap.error("--runs, --size and --duration must be positive, --burst at least 1")
    if os.geteuid() != 0:
        ap.error("needs root (network namespaces for the endpoints)")
    recs = [r for r in a.recovery.split(",") if r]
    if not recs or any(r not in RECOVERY for r in recs):
        ap.error("--recovery takes sr and/or gbn")
    losses = sorted(set([0.0] + a.loss))
    got = {(r, p): [] for r in recs for p in losses}
    for _ in range(a.runs):
        for p in losses:
            for r in recs:
                x = one_point(a, p, r)
                if x is not None:
                    got[(r, p)].append(x)
    med = {k: tuple(statistics.median(x[i] for x in v) for i in range(3)) for k, v in got.items() if v}
    print("%s %d B, %s, both directions%s, median of %d, goodput ratio to 0%% loss in this run"
          % (a.test, a.size, a.link, ", bursts of %g frames" % a.burst if a.burst > 1 else "", a.runs))
    print("%-17s %8s %14s %8s %16s %12s" % ("recovery", "loss %", "goodput MB/s", "ratio",
                                           "sent/needed", "frames lost"))
    out = []
    for r in recs:
        base = med.get((r, 0.0), (0, 0, 0))[0]
        for p in losses:
            if (r, p) not in med:
                print("%-17s %8g %14s" % (RECOVERY[r], p, "failed"))
                continue
            bw, fpn, lost = med[(r, p)]
            ratio = bw / base if base else 0.0
            print("%-17s %8g %14.2f %8.3f %16.2f %12d" % (RECOVERY[r], p, bw, ratio, fpn, lost))
            out.append({"recovery": r, "loss": p, "goodput_mbs": bw, "ratio": ratio,
                        "sent_per_needed": fpn, "lost": lost, "runs": len(got[(r, p)])})
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"test": a.test, "size": a.size, "link": a.link, "burst": a.burst, "points": out}, f,
                      indent=1)
    if a.png:
        plot(out, "%s %d B over %s, loss in both directions" % (a.test, a.size, a.link), a.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
