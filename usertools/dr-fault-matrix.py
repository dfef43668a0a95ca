#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The fault matrix at benchmark size (usertools/drperf/matrix.py): every
opcode of every QP type (RC, UC, UD) of dpdk-rdma-perf in every engine mode
through dpdk-rdma-faultlink (10% loss, 5% reordering, 1% duplication, 0.5%
corruption both ways by default), --check on. A cell is one opcode over one
QP type in one mode: sizes 0, 1, MTU-1, MTU, MTU+1 with --small-iters
messages each (by default 20000: 10^5 messages a cell) and 64 KiB+1, 1 MiB
with --large-iters each (not UD). Prints one line per cell (messages,
seconds, frames the sender sent per frame a lossless run needs, frames lost
on the wire, UC/UD messages the receiver counted lost, ok/FAIL) and exits 1
if any cell failed.

  usertools/dr-fault-matrix.py                                # the whole matrix, 10^5 a cell
  usertools/dr-fault-matrix.py --conns RC --ops WRITE,READ --modes inline --small-iters 1000
  usertools/dr-fault-matrix.py --impair 'loss 1%' --link af_xdp --json out.json
  usertools/dr-fault-matrix.py --rxe --rxe-scale 4000          # against Linux rxe, 10^5 a cell

--rxe runs the matrix against Linux rxe in a qemu VM whose kernel impairs
both directions with netem (test/integration/interop/test_fault_matrix_rxe.py
with DR_RXE_MATRIX_FULL=1: every cell in every mode and way, perftest's
sizes 1 B to 1 MiB; --rxe-scale multiplies its message counts, 25 a small
cell and 5 a large one at scale 1); the netem counters and each cell's
retransmissions are printed at the end.

Slow by design where the loss is high: go-back-N resends from the first
lost packet (doc/guides/faultlink.rst, issue 11 item 3)."""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drperf import matrix  # noqa: E402


def csv(kind, choices):
    def parse(s):
        vals = [v for v in s.split(",") if v]
        bad = [v for v in vals if v not in choices]
        if bad or not vals:
            raise argparse.ArgumentTypeError("%s: %s not among %s" % (kind, ",".join(bad) or "none",
                                                                      ",".join(choices)))
        return vals
    return parse


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=csv("opcode", list(matrix.OPS)), default=list(matrix.OPS))
    ap.add_argument("--conns", type=csv("QP type", list(matrix.CONNS)), default=list(matrix.CONNS),
                    help="QP types (default RC,UC,UD; each runs the opcodes it has)")
    ap.add_argument("--modes", type=csv("mode", matrix.MODES), default=list(matrix.MODES))
    ap.add_argument("--small-iters", type=int, default=20000,
                    help="messages per size up to MTU+1 (default 20000)")
    ap.add_argument("--large-iters", type=int, default=20,
                    help="messages per size 64 KiB+1 and 1 MiB (default 20; 0: skip them)")
    ap.add_argument("--impair", default=matrix.IMPAIR, help="both directions' impairments")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--link", choices=("memif", "af_xdp"), default="memif",
                    help="both endpoints' link to the fault link")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds a cell may take")
    ap.add_argument("--json", help="write the cells here")
    ap.add_argument("--go-back-n", action="store_true",
                    help="RC: IBA's go-back-N (dpdk-rdma-perf --go-back-n), not selective repeat")
    ap.add_argument("--rxe", action="store_true",
                    help="against Linux rxe in a VM impaired by its own netem (see above)")
    ap.add_argument("--rxe-scale", type=int, default=1,
                    help="--rxe: multiply every cell's message count (4000: 10^5 a small cell)")
    a = ap.parse_args()
    if a.rxe:
        return run_rxe(a.rxe_scale)
    if a.small_iters < 1 or a.large_iters < 0:
        ap.error("--small-iters must be at least 1, --large-iters at least 0")
    if os.geteuid() != 0:
        ap.error("needs root (network namespaces for the endpoints)")

    cells = []
    for conn in a.conns:
        for op in [o for o in a.ops if o in matrix.CONNS[conn]]:
            groups = [((matrix.ATOMIC_SIZE,), a.small_iters)] if matrix.is_atomic(op) else \
                [(matrix.SMALL, a.small_iters)]
            if a.large_iters and not matrix.is_atomic(op) and conn != "UD":
                groups.append((matrix.LARGE, a.large_iters))
            for mode in a.modes:
                for sizes, iters in groups:
                    c = matrix.run_cell(op, mode, sizes, iters, kinds=(a.link, a.link),
                                        impair=a.impair, seed=a.seed, timeout=a.timeout, conn=conn,
                                        perf_args=["--go-back-n"] if a.go_back_n else [])
                    cells.append(c)
                    print(matrix.format_table([c]).splitlines()[-1], flush=True)
                    if not c.ok:
                        print(c.why, file=sys.stderr)
    print()
    print("impairments, both directions: %s (seed %d), link %s, %s" % (
        a.impair, a.seed, a.link, "go-back-N" if a.go_back_n else "selective repeat (RC)"))
    print(matrix.format_table(cells))
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"conn": c.conn, "op": c.op, "mode": c.mode, "sizes": c.sizes, "iters": c.iters,
                        "ok": c.ok, "seconds": c.seconds, "sent": c.sent, "ideal": c.ideal,
                        "counters": c.counters} for c in cells], f, indent=1)
    return 0 if all(c.ok for c in cells) else 1


def run_rxe(scale):
    """The rxe matrix: its pytest module at full size, its report on stdout."""
    if scale < 1:
        sys.exit("dr-fault-matrix.py: --rxe-scale must be at least 1")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, DR_RXE_MATRIX_FULL="1", DR_RXE_MATRIX_SCALE=str(scale),
               DR_INTEROP_REQUIRED="1")
    env.setdefault("DR_BUILD_DIR", os.path.join(repo, "build"))
    return subprocess.call(["/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider", "-s",
                            "-q", os.path.join(repo, "test", "integration", "interop",
                                               "test_fault_matrix_rxe.py")], env=env, cwd=repo)


if __name__ == "__main__":
    sys.exit(main())
