#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The soak (usertools/drperf/soak.py): mixed traffic through
dpdk-rdma-faultlink for a set time. One dpdk-rdma-perf --persist server
(its engine mode: --mode) serves client after client; each round a seeded
random choice of test (send, write, read, atomic x bw, lat), QP type (RC;
UC and UD where the fault matrix judges them), 1 to 8 QPs, sizes from 0 to
1 MiB, --check always; every client creates and destroys its QPs, CQs, MRs
and buffers on the server and its own port. It prints a report - rounds,
per-test counts, messages and bytes checked, errors, retransmissions, the
server's heap and mbufs in use at the start and the end, QPs left between
runs - and exits 1 on any failed round, any QP left after a run, memory
grown beyond the tolerance, or a server that does not exit cleanly.

  usertools/dr-soak.py                                  # 60 s, inline (CI's size)
  usertools/dr-soak.py --duration 3600 --mode rtc       # an hour, by hand
  usertools/dr-soak.py --duration 300 --seed 7 --json soak.json

Needs root (the fault link's memif sockets and EAL's runtime directories
under /var/run/dpdk, where the telemetry socket is) and a build
($DR_BUILD_DIR, default build/)."""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drperf import matrix, soak  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=60,
                    help="seconds of random rounds (default 60; an hour: 3600)")
    ap.add_argument("--mode", choices=matrix.MODES, default="inline",
                    help="the server's engine mode (default inline)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the rounds' choices and of the fault link (default 1)")
    ap.add_argument("--impair", default=matrix.IMPAIR,
                    help="the fault link's impairments, both ways (default: '%s')" % matrix.IMPAIR.replace("%", "%%"))
    ap.add_argument("--max-qps", type=int, default=soak.MAX_QPS,
                    help="most QPs of a bw round (default %d)" % soak.MAX_QPS)
    ap.add_argument("--rounds", type=int, default=None,
                    help="stop after this many rounds (default: only the duration)")
    ap.add_argument("--perf", default=None, help="dpdk-rdma-perf (default: the build's)")
    ap.add_argument("--faultlink", default=None, help="dpdk-rdma-faultlink (default: the build's)")
    ap.add_argument("--json", default=None, help="write the report (with every round) here")
    ap.add_argument("-q", "--quiet", action="store_true", help="no line per round")
    a = ap.parse_args()
    if a.duration < 0 or not 1 <= a.max_qps <= 64:
        ap.error("--duration must be 0 or more, --max-qps 1 to 64")

    start = time.monotonic()
    log = (lambda msg: None) if a.quiet else (
        lambda msg: print("[%6.1f s] %s" % (time.monotonic() - start, msg), file=sys.stderr,
                          flush=True))
    report = soak.Soak(duration=a.duration, mode=a.mode, seed=a.seed, impair=a.impair,
                       max_qps=a.max_qps, perf_exe=a.perf, faultlink_exe=a.faultlink, log=log,
                       max_rounds=a.rounds).run()
    for f in report["failures"][:5]:
        print("--- failure\n" + f, file=sys.stderr)
    print(soak.format_report(report))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1, sort_keys=True)
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
