#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Run a dpdk-rdma-perf server and client over net_memif (two processes,
shared memory, no hugepages) and print the client's table.

  usertools/dr-memif-run.py write_bw --check -s 65536 -n 2000

Everything after the options below goes to both sides (the test first);
--ip, -p and the server address are added (192.0.2.1 server, 192.0.2.2
client, OOB on 127.0.0.1), and each side's EAL lcores: by default the
server on the first CPU this process may use and the client on the second
(both on the one CPU, with a warning, when there is only one); the CPUs used
are said on stderr. --raw-ratio then runs the raw link under the test
(raw_bw / raw_lat with --raw-like of its operation, same arguments but
--check) and the test once more without --check, and prints one line: the
test's result as a ratio to the wire's, measured in the same run. Exit
status: 0 when both sides succeeded, else the client's (or 1). See
doc/guides/perf.rst."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drperf import bench, pair, table  # noqa: E402


def raw_ratio(a, exe):
    """Run the raw counterpart and the test without --check; print the ratio line."""
    raw = bench.raw_counterpart(a.perf_args)
    if raw is None:
        print("dr-memif-run: --raw-ratio: %s has no raw counterpart" % a.perf_args[0], file=sys.stderr)
        return 0
    plain = [x for x in a.perf_args if x != "--check"]
    got = {}
    for name, args in (("raw", raw), ("rdma", plain)):
        res = pair.run_memif(args, exe=exe, timeout=a.timeout, bsize=a.bsize,
                             server_lcores=a.server_lcores, client_lcores=a.client_lcores)
        rows = table.rows(res.client.stdout) if res.ok else []
        if not rows:
            print("dr-memif-run: --raw-ratio: %s failed\n%s" % (" ".join(args), res.describe()),
                  file=sys.stderr)
            return 1
        got[name] = rows[-1]
    field, unit, higher = bench.headline([got["rdma"]])
    r, w = got["rdma"][field], got["raw"][field]
    print(" The raw link in the same run (%s): %.2f %s; %s without --check: %.2f %s; "
          "ratio %.2f (%s; usertools/dr-bench.py for the whole matrix)" % (
              raw[0] + " --raw-like " + raw[2], w, unit, plain[0], r, unit, r / w if w else 0,
              "1.00 is the wire" if higher else "latency: 1.00 is the wire, lower is better"))
    return 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        usage="%(prog)s [options] TEST [dpdk-rdma-perf options]")
    ap.add_argument("--perf", help="dpdk-rdma-perf to run (default: $DR_BUILD_DIR or "
                    "build/, app/dpdk-rdma-perf/dpdk-rdma-perf)")
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds both sides may take (default 120)")
    ap.add_argument("--bsize", type=int, default=pair.MEMIF_BSIZE,
                    help="memif buffer size (default %d)" % pair.MEMIF_BSIZE)
    ap.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                    help="an option for the server only (repeatable)")
    ap.add_argument("--client-arg", action="append", default=[], metavar="ARG",
                    help="an option for the client only (repeatable)")
    ap.add_argument("--server-lcores", metavar="LIST",
                    help="the server's EAL -l list (or --lcores mapping if it has '@'); "
                    "default: the first CPU of this process's affinity")
    ap.add_argument("--client-lcores", metavar="LIST",
                    help="the client's, likewise; default: the second CPU")
    ap.add_argument("--show-server", action="store_true", help="print the server's output too")
    ap.add_argument("--raw-ratio", action="store_true",
                    help="then print the result's ratio to the raw link, measured in the same run")
    ap.add_argument("perf_args", nargs=argparse.REMAINDER, metavar="TEST ...")
    a = ap.parse_args()
    if not a.perf_args:
        ap.error("missing TEST (send_bw, send_lat, write_bw, write_lat, read_bw, read_lat)")
    exe = a.perf or pair.perf_exe()
    if not os.access(exe, os.X_OK):
        print("dr-memif-run: %s is not built (ninja -C build)" % exe, file=sys.stderr)
        return 1
    res = pair.run_memif(a.perf_args, exe=exe, timeout=a.timeout, server_args=a.server_arg,
                         client_args=a.client_arg, bsize=a.bsize,
                         server_lcores=a.server_lcores, client_lcores=a.client_lcores)
    print("dr-memif-run: server on %s, client on %s" % (
        pair.describe_lcores(res.server.lcores), pair.describe_lcores(res.client.lcores)),
        file=sys.stderr, flush=True)
    if a.show_server:
        sys.stdout.write(res.server.stdout)
    sys.stdout.write(res.client.stdout)
    sys.stdout.flush()
    if res.ok:
        return raw_ratio(a, exe) if a.raw_ratio else 0
    print("dr-memif-run: the run failed\n" + res.describe(), file=sys.stderr)
    if res.client.rc not in (None, 0) and not res.client.timed_out:
        return res.client.rc
    return 1


if __name__ == "__main__":
    sys.exit(main())
