#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Instructions per operation of each path of the transport: bench_instr
under valgrind --tool=callgrind, once per step (requester, responder,
completer of 64-byte WRITEs and SENDs; and of RDMA READs: req_read the
READ requests, resp_read the responder's READ responses, ack_read the
requester placing them; round_idle one inline round with the QP connected
and nothing to do), collection toggled around that step
only; the step's instruction count divided by its operations. The count is
the library's: what runs in the harness's own functions (bench_instr.c and
the test_rc harness: building the WRs, its loops; their names from the
symbols of the objects meson built it from) and in the ring PMD that stands
for the wire (net_ring's bursts) is taken out (callgrind_annotate's self
cost per function); what the library calls (libc's memcpy, DPDK's mbuf and
mempool code) stays in. The whole count is printed beside it. Compared with the reference counts of
instr_reference.json (recorded with the release build): a step more than
--tolerance above its reference is printed as a REGRESSION and the exit
status is 1, so that a change that adds instructions to the fast path is
seen. Instruction counts are deterministic for one build, unlike times:
this is the number to watch between commits.

  test/bench/instr.py build-rel/test/bench/bench_instr
  test/bench/instr.py --record build-rel/test/bench/bench_instr   # new reference
  meson test -C build-rel --benchmark --suite bench instr

Budgets (250 instructions per 64-byte WRITE on the requester path and on
the responder path, 300 per SEND, 40 per WR on the ACK path) are printed
beside the counts."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

STEPS = ["req_write", "resp_write", "ack_write", "req_send", "resp_send", "ack_send", "req_read", "resp_read",
         "ack_read", "round_idle"]
# the budgets: per 64 B WRITE and SEND on each path, per WR on the ACK path
BUDGET = {"req_write": 250, "resp_write": 250, "ack_write": 40, "req_send": 300, "resp_send": 300,
          "ack_send": 40}
REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "instr_reference.json")


# the PMD that stands for the wire: its object's instructions are not the library's
WIRE_OBJECT = re.compile(r"librte_net_ring\.so")
# callgrind_annotate's line of one function: "1,234 (5.00%)  file:function [object]"
ANNOTATE_LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+?):(\S+)(?:\s+\[(.+)\])?\s*$")


def harness_functions(exe):
    """The functions the harness defines: text symbols of the objects meson
    built bench_instr from (EXE.p/*.o) and of the test_rc harness's static
    library (test/unit/libtest_rc_harness.a, test/unit/meson.build), apart
    from the library, which it links whole from its static archive."""
    objdir = exe + ".p"
    archive = os.path.join(os.path.dirname(exe), os.pardir, "unit", "libtest_rc_harness.a")
    if not os.path.exists(archive):
        raise RuntimeError("%s is not built: bench_instr links the test_rc harness from it" % archive)
    objs = [os.path.join(objdir, f) for f in sorted(os.listdir(objdir)) if f.endswith(".o")] + [archive]
    names = set()
    for f in objs:
        r = subprocess.run(["nm", "--defined-only", f], capture_output=True,
                           text=True, check=True)
        for line in r.stdout.splitlines():
            x = line.split()
            if len(x) == 3 and x[1] in ("T", "t"):
                names.add(x[2])
    if "body" not in names:
        raise RuntimeError("no harness functions found in %s" % objdir)
    return names


def library_share(out, total, harness):
    """The instructions of callgrind output file @out that ran outside the
    harness's functions and the wire's PMD, from callgrind_annotate's self
    cost per function."""
    r = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError("callgrind_annotate %s failed:\n%s" % (out, r.stderr[-2000:]))
    outside, seen = 0, 0
    for line in r.stdout.splitlines():
        m = ANNOTATE_LINE.match(line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        seen += n
        fn = m.group(3).split("'")[0]          # "f'2": a recursion level of f
        if fn in harness or (m.group(4) and WIRE_OBJECT.search(m.group(4))):
            outside += n
    if seen < total * 0.99:
        raise RuntimeError("callgrind_annotate listed %d of %d instructions by function" % (seen, total))
    return total - outside


def run_step(exe, step, timeout, harness, read_size):
    """(instructions, the library's of them, ops, frames) of one step."""
    with tempfile.TemporaryDirectory(prefix="dr-instr-") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--callgrind-out-file=" + out,
               exe, "--collect", step, "--read-size", str(read_size)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        if r.returncode != 0:
            raise RuntimeError("%s failed (%d):\n%s%s" % (" ".join(cmd), r.returncode, r.stdout,
                                                         r.stderr[-4000:]))
        total = None
        with open(out) as f:
            for line in f:
                m = re.match(r"^(?:totals|summary):\s+(\d+)", line)
                if m:
                    total = int(m.group(1))
        if total is None:
            raise RuntimeError("no totals in callgrind's output of %s" % step)
        lib = library_share(out, total, harness)
    # the bench's own table: "req_write   8192  8192  cycles..."
    for line in r.stdout.splitlines():
        f = line.split()
        if f and f[0] == step and len(f) >= 3:
            return total, lib, int(f[1]), int(f[2])
    raise RuntimeError("bench_instr printed no row for %s:\n%s" % (step, r.stdout))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench_instr", help="the bench_instr executable (build-rel/test/bench/bench_instr)")
    ap.add_argument("--steps", default=",".join(STEPS), help="comma-separated (default: all)")
    ap.add_argument("--tolerance", type=float, default=0.05,
                    help="fraction above the reference that counts as a regression (default 0.05)")
    ap.add_argument("--record", action="store_true", help="write the counts as the new reference")
    ap.add_argument("--timeout", type=float, default=600, help="seconds a step may take (default 600)")
    ap.add_argument("--json", metavar="FILE", help="also write the counts as JSON")
    ap.add_argument("--read-size", type=int, default=64, metavar="BYTES",
                    help="bytes a READ (default 64; up to 65536, frames of 4 KiB; the reference is for 64)")
    a = ap.parse_args()
    if not 1 <= a.read_size <= 65536:
        ap.error("--read-size: 1 to 65536 bytes")
    if a.read_size != 64 and a.record:
        ap.error("--record: the reference is for 64-byte READs")
    steps = [s for s in a.steps.split(",") if s]
    if any(s not in STEPS for s in steps):
        ap.error("--steps: some of " + ",".join(STEPS))
    if subprocess.run(["valgrind", "--version"], capture_output=True, check=False).returncode != 0:
        print("instr.py: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 1
    try:
        with open(REFERENCE) as f:
            ref = json.load(f).get("per_op", {})
    except FileNotFoundError:
        ref = {}
    counts, regressed = {}, []
    print("library instructions per operation (callgrind, 64-byte messages, batches of 128, %d-byte READs,"
          " batches of 16, inline; all: with the harness and the ring PMD)" % a.read_size)
    print("%-11s %12s %10s %9s %11s %9s %9s %8s %s" % ("step", "instr/op", "instr/frm", "budget",
                                                       "reference", "change", "all/op", "ops", ""))
    harness = harness_functions(a.bench_instr)
    for step in steps:
        total, lib, ops, frames = run_step(a.bench_instr, step, a.timeout, harness, a.read_size)
        per_op, per_frame = lib / ops, lib / frames
        counts[step] = {"per_op": per_op, "per_frame": per_frame, "ops": ops, "frames": frames,
                        "instructions": lib, "all_instructions": total, "all_per_op": total / ops}
        r = ref.get(step) if not (step.endswith("_read") and a.read_size != 64) else None
        change = (per_op - r) / r if r else None
        bad = change is not None and change > a.tolerance
        if bad:
            regressed.append(step)
        print("%-11s %12.1f %10.1f %9s %11s %9s %9.1f %8d %s" % (
            step, per_op, per_frame, BUDGET.get(step, "-"), "%.1f" % r if r else "-",
            "%+.1f%%" % (100 * change) if change is not None else "-", total / ops, ops,
            "REGRESSION" if bad else ""))
    print("(ack_write, ack_send: per frame is per ACK, the responder coalesces ACKs, instr/op is per WR;"
          " *_read: per frame is per READ response)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(counts, f, indent=1)
    if a.record:
        with open(REFERENCE, "w") as f:
            json.dump({"note": "library instructions per operation (the harness and the ring PMD "
                       "left out), release build (-O3), Debian 12 gcc; recorded with "
                       "test/bench/instr.py --record",
                       "per_op": {s: round(c["per_op"], 1) for s, c in counts.items()}}, f, indent=1)
            f.write("\n")
        print("instr.py: reference written to %s" % REFERENCE)
    if regressed:
        print("instr.py: %s above the reference by more than %.0f%%" % (", ".join(regressed),
                                                                       100 * a.tolerance))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
