# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The fault matrix at a CI-sized count (usertools/drperf/matrix.py): every
RC opcode (SEND, SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM, RDMA READ,
CMP_AND_SWAP, FETCH_AND_ADD) at sizes 0, 1, MTU-1, MTU, MTU+1 (30 messages
each) and 64 KiB+1, 1 MiB (2 each), in every engine mode, through
dpdk-rdma-faultlink at 10% loss, 5% reordering, 1% duplication and 0.5%
corruption in both directions, --check on: both sides exit 0 with every
row at exactly the iterations asked (no message lost or doubled), the data
check passed on both, the fault link conserved its frames, and the sender
sent at least what a lossless run needs (the excess: retransmissions).
usertools/dr-fault-matrix.py runs the same cells at 10^5 messages."""

import os
import shutil

import pytest

from perfutil import RUN_TIMEOUT
from drperf import matrix  # noqa: E402 (perfutil puts usertools/ on the path)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2: the endpoints' namespaces")

SMALL_ITERS = 30
LARGE_ITERS = 2


def _cells():
    for op in matrix.OPS:
        groups = [("8", (matrix.ATOMIC_SIZE,), SMALL_ITERS)] if matrix.is_atomic(op) else [
            ("small", matrix.SMALL, SMALL_ITERS), ("large", matrix.LARGE, LARGE_ITERS)]
        for mode in matrix.MODES:
            for name, sizes, iters in groups:
                yield pytest.param(op, mode, sizes, iters, id="%s-%s-%s" % (op, mode, name))


@pytest.mark.parametrize("op, mode, sizes, iters", list(_cells()))
def test_fault_matrix(perf_exe, faultlink_exe, op, mode, sizes, iters):
    cell = matrix.run_cell(op, mode, sizes, iters, perf_exe=perf_exe,
                           faultlink_exe=faultlink_exe, timeout=RUN_TIMEOUT)
    assert cell.ok, cell.why
    lost = sum(d["lost"] for d in cell.counters.values())
    assert lost > 0 or cell.ideal < 20, cell.counters   # the faults were there
    print("%s %s: %d messages, %.2f frames sent per frame needed" % (
        op, mode, cell.messages, cell.frames_per_needed))
