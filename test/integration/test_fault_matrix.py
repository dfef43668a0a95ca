# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The fault matrix at a CI-sized count (usertools/drperf/matrix.py): every
opcode of every QP type - RC: SEND, SEND_WITH_IMM, RDMA WRITE,
WRITE_WITH_IMM, RDMA READ, CMP_AND_SWAP, FETCH_AND_ADD; UC: the SENDs and
WRITEs; UD: the SENDs - at sizes 0, 1, MTU-1, MTU, MTU+1, 64 KiB+1 and
1 MiB (UD: up to the MTU; atomics: 8), 3 messages each, in every engine
mode, through dpdk-rdma-faultlink at 10% loss, 5% reordering, 1%
duplication and 0.5% corruption in both directions, --check on. RC: every
message completed once and checked; UC, UD: every message that arrived
checked, the losses counted by the receiver, nothing retransmitted, the QP
still delivering; the fault link conserved its frames.
usertools/dr-fault-matrix.py runs the same cells at 10^5 messages."""

import os
import shutil

import pytest

from perfutil import RUN_TIMEOUT
from drperf import matrix  # noqa: E402 (perfutil puts usertools/ on the path)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2: the endpoints' namespaces")

ITERS = 3


def _cells():
    for conn, ops in matrix.CONNS.items():
        for op in ops:
            for mode in matrix.MODES:
                yield pytest.param(conn, op, mode, id="%s-%s-%s" % (conn, op, mode))


@pytest.mark.parametrize("conn, op, mode", list(_cells()))
def test_fault_matrix(perf_exe, faultlink_exe, conn, op, mode):
    cell = matrix.run_cell(op, mode, matrix.SIZES, ITERS, perf_exe=perf_exe,
                           faultlink_exe=faultlink_exe, timeout=RUN_TIMEOUT, conn=conn)
    assert cell.ok, cell.why
    lost = sum(d["lost"] for d in cell.counters.values())
    assert lost > 0 or cell.ideal < 20, cell.counters   # the faults were there
    print("%s %s %s: %d messages, %.2f frames sent per frame needed, %d messages lost" % (
        conn, op, mode, cell.messages, cell.frames_per_needed, cell.lost_msgs))
