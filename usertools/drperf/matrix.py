# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The fault matrix: every opcode, QP type, message size and engine mode of
dpdk-rdma-perf through dpdk-rdma-faultlink with both directions impaired,
--check on. One cell is one opcode over one QP type in one mode over a list
of sizes; it passes when both sides exit 0, every size has its row with
exactly the iterations asked on both sides, both say the data check passed
(every message that arrived is whole and right), the fault link conserved
its frames, and: RC, every message completed once (the rows); UC and UD,
the receiver says how many of those sent were lost (UC drops a message
that lost a packet, UD a datagram: IBA 9.8, no retransmission), and the QP
kept delivering (some of the small messages arrived). What the loss cost
is measured on the wire: the frames the fault link received from the
sender against the frames a lossless run needs.

test/integration/test_fault_matrix.py runs it at a CI-sized count;
usertools/dr-fault-matrix.py at any count (10^5 messages and more)."""

import re
import time
from dataclasses import dataclass, field

from . import faultlink, table

MTU = 1024
SIZES = (0, 1, MTU - 1, MTU, MTU + 1, 64 * 1024 + 1, 1 << 20)
SMALL = tuple(s for s in SIZES if s <= MTU + 1)
LARGE = tuple(s for s in SIZES if s > MTU + 1)
ATOMIC_SIZE = 8
IMPAIR = "loss 10% reorder 5% duplicate 1% corrupt 0.5%"
MODES = ("inline", "rtc", "pipeline")

# opcode -> (perf test, its options)
OPS = {
    "SEND": ("send_bw", []),
    "SEND_IMM": ("send_bw", ["--send_with_imm"]),
    "WRITE": ("write_bw", []),
    "WRITE_IMM": ("write_bw", ["--write_with_imm"]),
    "READ": ("read_bw", []),
    "CMP_SWP": ("atomic_bw", ["-A", "CMP_AND_SWAP"]),
    "FETCH_ADD": ("atomic_bw", ["-A", "FETCH_AND_ADD"]),
}


# the QP types and their opcodes (perftest's -c: UC has no READ and no atomics, UD sends only)
CONNS = {
    "RC": tuple(OPS),
    "UC": ("SEND", "SEND_IMM", "WRITE", "WRITE_IMM"),
    "UD": ("SEND", "SEND_IMM"),
}
LOST = re.compile(r"Messages lost\s*:\s*(\d+) of (\d+)")


def is_atomic(op):
    return OPS[op][0] == "atomic_bw"


def sizes_of(op, sizes=SIZES, conn="RC"):
    """The sizes a cell runs: 8 for the atomics, up to the MTU for UD."""
    if is_atomic(op):
        return (ATOMIC_SIZE,)
    return tuple(s for s in sizes if conn != "UD" or s <= MTU)


def packets(size, mtu=MTU):
    return max(1, -(-size // mtu))


def ideal_frames(op, sizes, n, mtu=MTU):
    """Frames of a lossless run in the data's direction: the requests
    (SEND, WRITE, atomics: client to server, "b->a") or READ's responses
    (server to client, "a->b"). (direction, frames)."""
    if OPS[op][0] == "read_bw":
        return "a->b", sum(n * packets(s, mtu) for s in sizes)
    return "b->a", sum(n * packets(s, mtu) for s in sizes)


@dataclass
class Cell:
    op: str
    mode: str
    sizes: tuple
    iters: int
    conn: str = "RC"
    lost_msgs: int = 0          # UC, UD: messages the receiver counted lost
    ok: bool = False
    why: str = ""
    seconds: float = 0.0
    counters: dict = field(default_factory=dict)
    direction: str = ""
    ideal: int = 0
    sent: int = 0

    @property
    def messages(self):
        return self.iters * len(self.sizes)

    @property
    def frames_per_needed(self):
        return self.sent / self.ideal if self.ideal else 0.0


def _judge(cell, res, fl):
    if not res.ok:
        return "the pair failed:\n" + res.describe() + "\n" + fl.describe()
    for side in (res.client, res.server):
        rows = table.rows(side.stdout)
        if [r["bytes"] for r in rows] != list(cell.sizes):
            return "%s: rows %s, sizes %s:\n%s" % (side.name, [r["bytes"] for r in rows],
                                                   list(cell.sizes), side.describe())
        if any(r["iters"] != cell.iters for r in rows):
            return "%s: not %d iterations in every row:\n%s" % (side.name, cell.iters,
                                                                side.describe())
        if "Data check: OK" not in side.stdout:
            return "%s: no data check line:\n%s" % (side.name, side.describe())
    if cell.conn != "RC":
        m = LOST.search(res.server.stdout)
        if not m or int(m.group(2)) != cell.messages:
            return "the receiver does not say what was lost (%d sent):\n%s" % (
                cell.messages, res.server.describe())
        cell.lost_msgs = int(m.group(1))
        if cell.lost_msgs >= cell.messages and any(s <= MTU for s in cell.sizes):
            return "nothing arrived: the QP stopped delivering (%s)" % m.group(0)
    c = fl.counters or {}
    if set(c) != {"a->b", "b->a"} or not all(faultlink.conserved(d) for d in c.values()):
        return "the fault link's counters: %s\n%s" % (c, fl.describe())
    if cell.sent < cell.ideal:
        return "the sender sent %d frames, a lossless run needs %d" % (cell.sent, cell.ideal)
    if cell.conn != "RC" and cell.sent != cell.ideal:
        return "%s sent %d frames for %d: it never retransmits" % (cell.conn, cell.sent, cell.ideal)
    return ""


def run_cell(op, mode, sizes, iters, kinds=("memif", "memif"), impair=IMPAIR, seed=1,
             perf_exe=None, faultlink_exe=None, timeout=300, conn="RC", perf_args=()):
    """One cell: a Cell with ok/why and what it cost on the wire (@perf_args: more options,
    e.g. --go-back-n)."""
    test, extra = OPS[op]
    cell = Cell(op, mode, tuple(sizes_of(op, sizes, conn)), iters, conn)
    args = [test, "--check", "-m", str(MTU), "--sizes", ",".join(map(str, cell.sizes)),
            "-n", str(iters), "-c", conn] + extra + list(perf_args)
    start = time.monotonic()
    with faultlink.FaultLink(kinds, ["--both", impair, "--seed", str(seed)],
                             exe=faultlink_exe) as fl:
        res = fl.run_perf(args, exe=perf_exe, timeout=timeout, mode=mode)
    cell.seconds = time.monotonic() - start
    cell.counters = fl.counters or {}
    cell.direction, cell.ideal = ideal_frames(op, cell.sizes, iters)
    cell.sent = cell.counters.get(cell.direction, {}).get("rx", 0)
    cell.why = _judge(cell, res, fl)
    cell.ok = not cell.why
    return cell


def format_table(cells):
    """One line per cell: the numbers a reader compares."""
    lines = ["%-4s %-10s %-9s %-28s %9s %8s %12s %10s %9s  %s" % (
        "QP", "opcode", "mode", "sizes", "messages", "seconds", "frames/need", "lost", "msgs lost",
        "result")]
    for c in cells:
        lost = sum(d.get("lost", 0) for d in c.counters.values())
        sizes = ",".join(map(str, c.sizes))
        lines.append("%-4s %-10s %-9s %-28s %9d %8.1f %12.2f %10d %9s  %s" % (
            c.conn, c.op, c.mode, sizes[:28], c.messages, c.seconds, c.frames_per_needed, lost,
            c.lost_msgs if c.conn != "RC" else "-", "ok" if c.ok else "FAIL"))
    return "\n".join(lines)
