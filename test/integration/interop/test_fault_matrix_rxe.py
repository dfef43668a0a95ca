# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The fault matrix against Linux rxe (doc/guides/reliability.rst): our
stack on net_af_packet on a veth of the harness bridge, rxe in a VM whose
own kernel impairs both directions of its RoCEv2 frames with netem
(rxepeer-impair: egress through a prio band with netem, ingress redirected
to ifb0 with netem; ARP and TCP untouched):

    loss 10% reorder 5% 50% duplicate 1% corrupt 0.5% delay 1ms

Cells, each both programs exiting 0 with every check passed:

- dr-opgen RC (every RC operation, every byte checked by both sides)
  against dpdk-rdma-opgen, both ways, inline, rtc and pipeline;
- dr-opgen -l UC and UD (the SENDs, WRITEs and immediates of each type):
  every message that arrived is whole and right (its row, its length and
  bytes; a duplicated or late frame is a message again on UC as on UD: IBA
  9.8, counted), every WRITE target
  whole, untouched or partly written with its own bytes, the server says
  how many were lost, something arrived, and our side resent nothing;
- rxe's perftest against dpdk-rdma-perf --perftest-compat: write_bw at
  MTU+1, send_bw at 1 and MTU-1, read_bw at 64 KiB+1 and ib_atomic_bw
  FETCH_AND_ADD / CMP_AND_SWAP (our --check: every original value our
  client got, every word our server holds), spread over the modes and ways;
  each side's row must have exactly the iterations asked (every message
  completed once).

CI runs this set at a few messages a cell; usertools/dr-fault-matrix.py --rxe
runs it as a benchmark: DR_RXE_MATRIX_SCALE multiplies every count, and
DR_RXE_MATRIX_FULL=1 runs every perftest cell (1 MiB WRITE and READ
included) in every mode, both ways.

rxe negotiates no selective repeat: RC recovers go-back-N both ways. The
capture of the VM's tap sees our frames before the guest's ingress netem and
rxe's after its egress netem; test_faults_happened (last) checks netem
dropped frames both ways and both sides resent requests."""

import itertools
import os
import re
import time
from collections import Counter

import pytest

from . import ours, wire
from .conftest import OPGEN_PORT, harness_session
from .ours import exe_of
from .test_perftest_rxe import rows

VM = ("fmvm", "10.99.0.2/24")
OUR_IP = "10.99.0.16"
VETH = "fmv0"
PERF_PORT = 18519
IMPAIR = "loss 10% reorder 5% 50% duplicate 1% corrupt 0.5% delay 1ms"
MTU = 1024
SCALE = max(1, int(os.environ.get("DR_RXE_MATRIX_SCALE", "1")))
FULL = os.environ.get("DR_RXE_MATRIX_FULL") == "1"
TIMEOUT = 150 * SCALE


# The CI set: each cell in one mode and one direction, the modes and ways spread.
# (engine mode or None for inline, we serve)
OPGEN_CELLS = [(None, False), (None, True), ("rtc", True), ("pipeline", False)]
# (QP type, engine mode or None, we serve)
LOSSY_CELLS = [("uc", "rtc", True), ("uc", None, False), ("ud", None, True), ("ud", "pipeline", False)]
# (test, size, iterations, extra perftest options, our extra options, mode, we serve)
PERF_CELLS = [
    ("write_bw", MTU + 1, 25, [], [], None, False),
    ("send_bw", 1, 25, [], [], "rtc", True),
    ("send_bw", MTU - 1, 25, [], [], "pipeline", False),
    ("read_bw", 64 * 1024 + 1, 5, [], [], None, True),
    ("atomic_bw", 8, 25, ["-A", "FETCH_AND_ADD"], ["--check"], "rtc", False),
    ("atomic_bw", 8, 25, ["-A", "CMP_AND_SWAP"], ["--check"], "pipeline", True),
]

if FULL:
    # every cell in every mode, both ways; perftest's tests at every size (it
    # refuses -s 0: the zero-length rows are opgen's)
    EVERY = list(itertools.product((None, "rtc", "pipeline"), (False, True)))
    SIZES = [1, MTU - 1, MTU, MTU + 1, 64 * 1024 + 1, 1024 * 1024]
    OPGEN_CELLS = EVERY
    LOSSY_CELLS = [(q, m, w) for q in ("uc", "ud") for m, w in EVERY]
    PERF_CELLS = [(t, sz, 25 if sz <= MTU + 1 else 5, [], [], m, w)
                  for t in ("write_bw", "send_bw", "read_bw") for sz in SIZES for m, w in EVERY]
    PERF_CELLS += [("atomic_bw", 8, 25, ["-A", a], ["--check"], m, w)
                   for a in ("FETCH_AND_ADD", "CMP_AND_SWAP") for m, w in EVERY]

LOSSY_RE = re.compile(r"server lossy: (\d+) of (\d+) messages arrived, (\d+) lost, "
                      r"(\d+) duplicates, 0 bad")


class Matrix(ours.Peer):
    """The impaired VM, our veth; per cell: requests each side sent again."""

    def __init__(self, harness, vm, outdir, dump_json):
        super().__init__(harness, vm, VETH, outdir, "drfm")
        self.dump_json = dump_json
        self.cells = {}        # name -> Counter(ours_resent, rxe_resent, bad_icrc, frames)

    def cell(self, name, exe, our_args, tool, port, we_serve, wait_listen=True, mode=None):
        t0 = time.monotonic()
        rc, out, theirs, pcap = self.run(name, exe, "af_packet", our_args, tool, port, we_serve,
                                         wait_listen=wait_listen, timeout=TIMEOUT, mode=mode)
        assert (rc, theirs.rc) == (0, 0), "ours %d:\n%s\nrxe %d:\n%s" % (
            rc, out, theirs.rc, theirs.output)
        frames, _ = self.dump_json(pcap)
        roce = [f for f in frames if "opcode" in f]
        good = [f for f in roce if f.get("icrc_ok")]
        c = Counter(frames=len(roce), bad_icrc=len(roce) - len(good),
                    ms=int((time.monotonic() - t0) * 1000))
        for src, n in resent(good).items():
            c["ours_resent" if src == OUR_IP else "rxe_resent"] += n
        self.cells[name] = c
        return out, theirs.output


def resent(frames):
    """{source: requests (and READ responses) sent more than once}: same source, opcode, PSN."""
    seen = Counter((f["src"], f["opcode"], f["psn"]) for f in frames
                   if f["opcode"] not in (wire.ACK, wire.ATOMIC_ACK))
    out = Counter()
    for (src, _, _), n in seen.items():
        out[src] += n - 1
    return out


@pytest.fixture(scope="module")
def matrix(tmp_path_factory, dump_json):
    with harness_session() as h:
        vm = h.start(*VM, timeout=120)
        h.veth(VETH)
        vm.impair(IMPAIR)
        m = Matrix(h, vm, tmp_path_factory.mktemp("fault_matrix_rxe"), dump_json)
        try:
            yield m
        finally:
            m.cleanup()


def way(we_serve):
    return "oursrv" if we_serve else "rxesrv"




@pytest.mark.parametrize("mode,we_serve", OPGEN_CELLS,
                         ids=["%s-%s" % (m or "inline", way(s)) for m, s in OPGEN_CELLS])
def test_opgen_rc(matrix, mode, we_serve):
    """Every RC operation (SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ,
    both atomics, a type 2 window WRITE, SEND_WITH_INV; 0 to 8192 bytes),
    every byte checked by both sides, as on a clean link."""
    common = ["-t", "rc", "-m", str(MTU), "-p", str(OPGEN_PORT), "-T", "120"]
    out, rout = matrix.cell("opgen_rc_%s_%s" % (mode or "inline", way(we_serve)),
                            exe_of("dpdk-rdma-opgen"), ["--ip", OUR_IP, "-g", "1"] + common,
                            "dr-opgen -g $RXE_GID_IDX " + " ".join(common), OPGEN_PORT, we_serve,
                            wait_listen=False, mode=mode)
    srv, cli = (out, rout) if we_serve else (rout, out)
    assert "server done: 0 failures, client reported 0: OK" in srv, srv
    assert re.search(r"client done: \d+ ops, 0 local failures, server OK", cli), cli





@pytest.mark.parametrize("qpt,mode,we_serve", LOSSY_CELLS,
                         ids=["%s-%s-%s" % (q, m or "inline", way(s)) for q, m, s in LOSSY_CELLS])
def test_opgen_lossy(matrix, qpt, mode, we_serve):
    """UC and UD lose what the link loses, as the verbs say: no error, no
    stuck QP, every message that arrived whole and right (dr-opgen -l)."""
    common = ["-t", qpt, "-l", "-m", str(MTU), "-p", str(OPGEN_PORT), "-T", "120"]
    name = "opgen_%s_%s_%s" % (qpt, mode or "inline", way(we_serve))
    out, rout = matrix.cell(name, exe_of("dpdk-rdma-opgen"), ["--ip", OUR_IP, "-g", "1"] + common,
                            "dr-opgen -g $RXE_GID_IDX " + " ".join(common), OPGEN_PORT, we_serve,
                            wait_listen=False, mode=mode)
    srv, cli = (out, rout) if we_serve else (rout, out)
    assert "server done: 0 failures, client reported 0: OK" in srv, srv
    assert re.search(r"client done: \d+ ops, 0 local failures, server OK", cli), cli
    m = LOSSY_RE.search(srv)
    assert m and int(m.group(1)) > 0, srv
    matrix.cells[name]["lost"] = int(m.group(3))
    # UC and UD never retransmit: every frame of ours went out once (the
    # capture sees ours before the guest's netem duplicates them)
    assert matrix.cells[name]["ours_resent"] == 0, dict(matrix.cells[name])





@pytest.mark.parametrize("test,size,iters,more,mine,mode,we_serve", PERF_CELLS,
                         ids=["%s_%d%s-%s-%s" % (c[0], c[1], "".join(c[3][1:2]), c[5] or "inline",
                                                 way(c[6])) for c in PERF_CELLS])
def test_perftest(matrix, test, size, iters, more, mine, mode, we_serve):
    """rxe's unmodified perftest: both sides print the size's row with
    exactly the iterations asked; the atomics' values checked by ours."""
    args = ["-s", str(size), "-n", str(iters * SCALE)] + more
    our_args = [test, "--ip", OUR_IP, "--perftest-compat", "-p", str(PERF_PORT)] + args + mine
    if we_serve:
        our_args += ["--oob-bind", matrix.harness.host_ip]
    out, rout = matrix.cell("%s_%d%s_%s_%s" % (test, size, "".join(more[1:2]), mode or "inline",
                                               way(we_serve)),
                            exe_of("dpdk-rdma-perf"), our_args,
                            "ib_%s -d rxe0 -x $RXE_GID_IDX -p %d %s" % (test, PERF_PORT, " ".join(args)),
                            PERF_PORT, we_serve, mode=mode)
    for who, text in (("ours", out), ("rxe", rout)):
        assert rows(test, text) == [(str(size), str(iters * SCALE))], "%s:\n%s" % (who, text)
    if "--check" in mine:
        assert " Data check: OK" in out, out


def report(matrix, stats):
    """One line per cell, then netem's counters."""
    lines = ["%-40s %7s %7s %8s %8s %7s %5s" % ("cell", "frames", "seconds", "ours_rs", "rxe_rs",
                                                "badicrc", "lost")]
    for name, c in matrix.cells.items():
        lines.append("%-40s %7d %7.1f %8d %8d %7d %5s" % (
            name, c["frames"], c["ms"] / 1000.0, c["ours_resent"], c["rxe_resent"], c["bad_icrc"],
            c["lost"] if "lost" in c else "-"))
    lines.append("netem (%s): %s" % (IMPAIR, ", ".join(
        "%s sent %d dropped %d" % (d, v["sent"], v["dropped"]) for d, v in sorted(stats.items()))))
    return "\n".join(lines)


def test_faults_happened(matrix):
    """Runs last (file order): netem dropped frames both ways, and both
    transports resent requests. (ours_rs, rxe_rs: requests and READ
    responses the capture saw more than once from each side; rxe's include
    netem's duplicates, which it makes after the capture point of ours.)"""
    stats = matrix.vm.impair_stats()
    total = sum(matrix.cells.values(), Counter())
    text = report(matrix, stats)
    (matrix.outdir / "faults.txt").write_text(text + "\n")
    print("\n" + text)
    assert len(matrix.cells) == len(OPGEN_CELLS) + len(LOSSY_CELLS) + len(PERF_CELLS), text
    assert stats["egress"]["dropped"] > 0 and stats["ingress"]["dropped"] > 0, text
    assert total["ours_resent"] > 0 and total["rxe_resent"] > 0, text
