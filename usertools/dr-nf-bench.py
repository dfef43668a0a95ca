#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""What RDMA costs a network function that carries it on its own port and
lcore: app/dpdk-rdma-nf (doc/guides/embedding.rst) over two net_memif links,
the NF on one CPU and its peer (traffic generator, sink and RDMA collector)
on the other, phases alternated in one run:

  A  forward          the NF forwards only (--no-export)
  B  forward+export   and exports the head of 1 frame in --sample by RDMA
                      WRITE WITH IMMEDIATE to the collector, same port and lcore
  D  forward+flood    and exports full batches as fast as the collector takes
                      them (--export-flood)
  C  flood            the export alone: no frames to forward

in the order A B D C, --runs times, then A once more; medians. It prints the
NF's forwarding rate in B and D as ratios to A (the goal: B/A >= 0.9), the
export's rate in D as a ratio to C, the NF's busy cycles per frame it moved
(its own TSC count of loop iterations that moved anything: idle polling is
left out), frames lost, the ports' imissed and rx_nombuf and the transport's
retransmissions. A second pass offers a fixed load, --load of A's rate
(frames paced by the peer), to A and B, and reports losses rather than rates.
With --testpmd, dpdk-testpmd in macswap mode takes the NF's place for phase
T: the forwarding rate of a reference program on the same links, against
which A is checked.

The peer sends as fast as port 0 takes frames (memif pushes back: nothing
is lost before the NF), so the rate a phase shows is the slower of the two
processes. The NF's frames forwarded per busy loop tell which: near a burst
(32 a port) the NF is saturated; near 1 it waits for frames, and its cycles
per frame are then mostly a loop's fixed cost spread over few frames.
A benchmark, not a test: nothing is asserted.

  usertools/dr-nf-bench.py                 # 3 runs of 5 s phases (about 2 min)
  usertools/dr-nf-bench.py --runs 5 --duration 10 --testpmd --json out.json
"""

import argparse
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drperf import pair  # noqa: E402

NF_IP, PEER_IP = "10.77.9.1", "10.77.9.2"
BSIZE = 4608                     # memif buffer: a 4096 path MTU's frame
NF_READY = re.compile(rb"nf: forwarding between ports")
TESTPMD_READY = re.compile(rb"start packet forwarding")
PEER_DONE = re.compile(rb"peer: generated .*: (ok|FAILED)")
PROG_TIMEOUT = 30                # the programs' own bound on every wait (--timeout)
TESTPMD = "dpdk-testpmd"

NF_STATS = re.compile(
    r"nf stats: forwarded (\d+) in ([\d.]+) s = ([\d.]+) Mpps; busy ([\d.]+) cycles per frame moved "
    r".*?([\d.]+) frames forwarded per busy loop.*?export (\d+) writes, (\d+) records in ([\d.]+) s = ([\d.]+) MB/s, (\d+) samples dropped; "
    r"transport retries (\d+) rto (\d+) tlp (\d+) sr_resends (\d+) rnr_naks (\d+) frames not sent (\d+)")
PEER_STATS = re.compile(
    r"peer stats: generated (\d+) in ([\d.]+) s = ([\d.]+) Mpps; received (\d+) in ([\d.]+) s = ([\d.]+) Mpps, "
    r"lost (\d+); collector (\d+) records in (\d+) batches in ([\d.]+) s = ([\d.]+) MB/s")
PORT_STATS = re.compile(r"(nf|peer) port (\d): ipackets \d+ opackets \d+ imissed (\d+) rx_nombuf (\d+)")

PHASES = {
    "A": ("forward", ["--no-export"], []),
    "B": ("forward+export", ["--collector", PEER_IP, "--once"], []),
    "D": ("forward+flood", ["--collector", PEER_IP, "--once", "--export-flood"], []),
    "C": ("flood", ["--collector", PEER_IP, "--once", "--export-flood"], ["--count", "0"]),
    "T": ("testpmd macswap", None, []),
}


def nf_exe():
    return pair.build_dir() / "app" / "dpdk-rdma-nf" / "dpdk-rdma-nf"


def eal(role, sockdir, prefix, lcores):
    args = ["--no-huge", "-m", "512", "--no-pci", "--file-prefix=" + prefix] + pair.lcore_args(lcores)
    for i in (0, 1):
        args.append("--vdev=net_memif%d,role=%s,socket=%s/p%d.sock,socket-abstract=no,bsize=%d"
                    % (i, role, sockdir, i, BSIZE))
    return args


def nf_side(phase, a, sockdir, tag, lcores):
    prefix = "drnfb_n" + tag
    if phase == "T":
        cmd = [TESTPMD] + eal("server", sockdir, prefix, "(0-1)@%s" % lcores) + [
            "--", "--nb-cores=1", "--forward-mode=macswap", "--total-num-mbufs=8192",
            "--mbuf-size=%d" % (BSIZE + 256), "--rxd=1024", "--txd=1024", "--stats-period=1"]
        side = pair.Side("testpmd", cmd)
    else:
        cmd = [str(nf_exe())] + eal("server", sockdir, prefix, lcores) + [
            "--", "--role", "nf", "--ip", NF_IP, "--io", a.io, "--sample", str(a.sample),
            "--timeout", str(PROG_TIMEOUT)] + PHASES[phase][1]
        side = pair.Side("nf", cmd)
    side.prefixes = [prefix]
    return side


def peer_side(phase, a, sockdir, tag, lcores, rate):
    prefix = "drnfb_p" + tag
    own = ["--role", "peer", "--ip", PEER_IP, "--io", "app" if a.io == "graph" else a.io,
           "--duration", str(a.duration), "--window", "0", "--timeout", str(PROG_TIMEOUT)]
    if phase in ("A", "T"):
        own.append("--no-collect")
    if rate:
        own += ["--rate", str(int(rate))]
    side = pair.Side("peer", [str(nf_exe())] + eal("client", sockdir, prefix, lcores) + ["--"] + own
                     + PHASES[phase][2])
    side.prefixes = [prefix]
    return side


def run_phase(phase, a, cpus, rate=None):
    """One phase: the NF (memif server) first, then the peer; the NF is
    stopped by SIGINT once the peer has printed its result when it does not
    end by itself (A, T). Returns the parsed figures, or raises with what the
    two printed."""
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000000)
    sockdir = "/tmp/drnfb_" + tag
    os.makedirs(sockdir, exist_ok=True)
    nf = nf_side(phase, a, sockdir, tag, cpus[0])
    peer = peer_side(phase, a, sockdir, tag, cpus[1], rate)
    bound = a.duration + 3 * PROG_TIMEOUT
    try:
        nf.start()
        if not nf.wait_ready(PROG_TIMEOUT, TESTPMD_READY if phase == "T" else NF_READY):
            raise RuntimeError("the %s did not start" % nf.name)
        time.sleep(0.05)
        peer.start()
        end = time.monotonic() + bound
        while time.monotonic() < end and peer.proc.poll() is None:
            if phase in ("A", "T") and PEER_DONE.search(peer.printed()):
                break
            time.sleep(0.05)
        if phase in ("A", "T"):
            pair.terminate(nf.proc, grace=10, sig=signal.SIGINT)
        end = time.monotonic() + PROG_TIMEOUT
        while time.monotonic() < end and (nf.proc.poll() is None or peer.proc.poll() is None):
            time.sleep(0.05)
    finally:
        for s in (peer, nf):
            s.kill()
            s.collect()
        for f in ("p0.sock", "p1.sock"):
            try:
                os.unlink(os.path.join(sockdir, f))
            except FileNotFoundError:
                pass
        os.rmdir(sockdir)
    return parse(phase, nf, peer)


def parse(phase, nf, peer):
    def fail(why):
        raise RuntimeError("phase %s: %s\n%s\n%s" % (phase, why, nf.describe()[-4000:], peer.describe()[-4000:]))

    if peer.rc != 0 or nf.rc != 0 or peer.timed_out or nf.timed_out:
        fail("exit %s / %s" % (nf.rc, peer.rc))
    p = PEER_STATS.search(peer.stdout)
    if p is None:
        fail("no peer stats")
    r = {"phase": phase, "rx_mpps": float(p.group(6)), "gen_mpps": float(p.group(3)), "lost": int(p.group(7)),
         "collector_mbs": float(p.group(11)), "records": int(p.group(8))}
    ports = PORT_STATS.findall(nf.stdout + peer.stdout)
    r["imissed"] = sum(int(m[2]) for m in ports)
    r["rx_nombuf"] = sum(int(m[3]) for m in ports)
    if phase != "T":
        n = NF_STATS.search(nf.stdout)
        if n is None:
            fail("no nf stats")
        r.update({"fwd_mpps": float(n.group(3)), "cycles_per_frame": float(n.group(4)),
                  "per_loop": float(n.group(5)), "export_mbs": float(n.group(9)), "samples_dropped": int(n.group(10)),
                  "retx": sum(int(n.group(i)) for i in (11, 12, 13, 14)), "rnr_naks": int(n.group(15)),
                  "rdma_not_sent": int(n.group(16))})
    return r


def med(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def summary(results, phase):
    rows = [r for r in results if r["phase"] == phase]
    keys = ("rx_mpps", "fwd_mpps", "cycles_per_frame", "per_loop", "collector_mbs", "lost", "imissed", "rx_nombuf", "retx",
            "samples_dropped", "rnr_naks", "rdma_not_sent")
    return {k: med(rows, k) for k in keys} | {"runs": len(rows)}


def fmt(v, f="%.3f"):
    return "-" if v is None else f % v


def print_table(title, s, phases):
    print(title)
    print("%-2s %-16s %8s %8s %9s %10s %11s %8s %7s %6s %5s" % (
        "", "phase", "rx Mpps", "NF Mpps", "cyc/frame", "frames/loop", "export MB/s", "lost", "imissed", "nombuf",
        "retx"))
    for ph in phases:
        if ph not in s or s[ph]["runs"] == 0:
            continue
        x = s[ph]
        print("%-2s %-16s %8s %8s %9s %10s %11s %8s %7s %6s %5s" % (
            ph, PHASES[ph][0], fmt(x["rx_mpps"]), fmt(x["fwd_mpps"]), fmt(x["cycles_per_frame"], "%.0f"),
            fmt(x["per_loop"], "%.1f"), fmt(x["collector_mbs"], "%.1f"), fmt(x["lost"], "%d"), fmt(x["imissed"], "%d"),
            fmt(x["rx_nombuf"], "%d"), fmt(x["retx"], "%d")))


def ratio(a, b):
    return a / b if a and b else None


def machine():
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.*)", f.read())
            cpu = m.group(1) if m else cpu
    except OSError:
        pass
    git = subprocess.run(["git", "-C", str(pair.REPO), "describe", "--always", "--dirty"], capture_output=True,
                         text=True).stdout.strip() or "?"
    return {"cpu": cpu, "cpus": os.cpu_count(), "commit": git, "build": str(pair.build_dir()),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": " ".join(sys.argv)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="rounds of A B D C (default 3)")
    ap.add_argument("--duration", type=int, default=5, help="seconds of traffic a phase (default 5)")
    ap.add_argument("--sample", type=int, default=16, help="B: export 1 frame in N (default 16)")
    ap.add_argument("--io", choices=("app", "queue", "graph"), default="app",
                    help="how the NF shares port 0 with the transport (default app)")
    ap.add_argument("--load", type=float, default=0.5,
                    help="the second pass's offered load, a fraction of A's rate (default 0.5; 0: no pass)")
    ap.add_argument("--testpmd", action="store_true", help="phase T: dpdk-testpmd macswap, the reference")
    ap.add_argument("--json", help="write every phase's figures and the medians here")
    a = ap.parse_args()
    if a.runs < 1 or a.duration < 1 or a.sample < 1 or not 0 <= a.load <= 1:
        ap.error("--runs, --duration and --sample take a positive number, --load a fraction")
    if not nf_exe().is_file():
        ap.error("%s is not built (DR_BUILD_DIR, or ninja -C build)" % nf_exe())
    cpus = pair.default_lcores()
    info = machine()
    print("dr-nf-bench: %s; %s, %d CPUs (NF on %s, peer on %s); commit %s, %s; net_memif, --io %s"
          % (info["date"], info["cpu"], info["cpus"], pair.describe_lcores(cpus[0]),
             pair.describe_lcores(cpus[1]), info["commit"], info["build"], a.io), flush=True)
    order = ["A", "B", "D", "C"] * a.runs + ["A"]
    if a.testpmd:
        order = ["T"] + order + ["T"]
    results = []
    t0 = time.monotonic()
    for k, ph in enumerate(order):
        r = run_phase(ph, a, cpus)
        results.append(r)
        print("  [%d/%d, %.0f s] %s %-16s rx %.3f Mpps%s" % (
            k + 1, len(order), time.monotonic() - t0, ph, PHASES[ph][0], r["rx_mpps"],
            "" if ph == "T" else ", %.0f cycles/frame, export %.1f MB/s" % (r["cycles_per_frame"],
                                                                            r["collector_mbs"])), flush=True)
    s = {ph: summary(results, ph) for ph in PHASES}
    fixed = []
    if a.load > 0 and s["A"]["rx_mpps"]:
        rate = s["A"]["rx_mpps"] * 1e6 * a.load
        for ph in ["A", "B"] * a.runs:
            r = run_phase(ph, a, cpus, rate)
            fixed.append(r)
            print("  [fixed load %.3f Mpps] %s %-16s lost %d, imissed %d" % (rate / 1e6, ph, PHASES[ph][0],
                                                                             r["lost"], r["imissed"]), flush=True)
    print()
    print_table("saturation: medians of %d runs of %d s" % (a.runs, a.duration), s, ["T", "A", "B", "D", "C"])
    ratios = {
        "fwd_B_over_A": ratio(s["B"]["rx_mpps"], s["A"]["rx_mpps"]),
        "fwd_D_over_A": ratio(s["D"]["rx_mpps"], s["A"]["rx_mpps"]),
        "export_D_over_C": ratio(s["D"]["collector_mbs"], s["C"]["collector_mbs"]),
        "cycles_A_over_B": ratio(s["A"]["cycles_per_frame"], s["B"]["cycles_per_frame"]),
        "A_over_testpmd": ratio(s["A"]["rx_mpps"], s["T"]["rx_mpps"]) if a.testpmd else None,
    }
    print("forwarding B/A %s (goal >= 0.9), D/A %s; the NF's capacity A/B by cycles per frame %s; "
          "export D/C %s%s" % (fmt(ratios["fwd_B_over_A"], "%.2f"), fmt(ratios["fwd_D_over_A"], "%.2f"),
                               fmt(ratios["cycles_A_over_B"], "%.2f"), fmt(ratios["export_D_over_C"], "%.2f"),
                               "; A/testpmd %s" % fmt(ratios["A_over_testpmd"], "%.2f") if a.testpmd else ""))
    fs = {}
    if fixed:
        fs = {ph: summary(fixed, ph) for ph in ("A", "B")}
        print()
        print_table("fixed load %.3f Mpps (%.0f%% of A): medians of %d runs" % (
            rate / 1e6, a.load * 100, a.runs), fs, ["A", "B"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": info, "runs": results, "fixed": fixed, "summary": s, "fixed_summary": fs,
                       "ratios": ratios}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
