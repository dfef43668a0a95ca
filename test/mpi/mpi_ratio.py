#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The MPI workload's job time over dpdk_rdma against TCP, run after run.

usage: DR_BUILD_DIR=build-rel python3 test/mpi/mpi_ratio.py LINK HOSTS RANKS RUNS ROUNDS
(LINK: af_packet, af_xdp or xsk; as root). Brings up test_mpi.py's namespace
cluster, then RUNS times runs dr_mpi_workload ROUNDS rounds over dpdk_rdma and
then over TCP with test_mpi.py's own mpirun command lines and wrappers, and
prints each ratio, the ranks' RTO expiries and longest RTO (FI_DPDK_RDMA_STATS),
rank 0's phases over both, then the median and range. Start a busy loop yourself to
measure beside one (setsid: a session of its own). The ranks of both transports
run with malloc's transparent huge pages (test_mpi.py's RANK_ENV);
DR_MPI_MALLOC_THP=0 runs them without."""

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
import test_mpi as T  # noqa: E402


class _TmpFactory:
    @staticmethod
    def mktemp(name):
        return Path(tempfile.mkdtemp(prefix=name))


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in T.LINK_MTU:
        sys.exit(__doc__)
    link, hosts, ranks, runs, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    d, _ = T.scripts.__wrapped__(_TmpFactory())
    prog = T.build_dir() / "test" / "mpi" / "dr_mpi_workload"
    shape = (hosts, ranks, link)
    r = T.cluster("--ranks", ranks, "--mtu", T.LINK_MTU[link], "up", hosts)
    if r.returncode != 0:
        sys.exit(r.stderr)
    ratios = []
    try:
        for i in range(runs):
            t, ph = {}, {}
            for tr in ("dpdk_rdma", "tcp"):
                r = subprocess.run(T.mpirun_cmd(d, shape, tr) + [str(prog), rounds], capture_output=True,
                                   text=True, timeout=300)
                if r.returncode != 0:
                    sys.exit("%s failed:\n%s\n%s" % (tr, r.stdout, r.stderr[-3000:]))
                t[tr] = float(T.WORKLOAD.search(r.stdout).group(3))
                ph[tr] = T.PHASES.search(r.stdout).group(1)
                if tr == "dpdk_rdma":
                    qps = T.STATS_QPS.findall(r.stderr)
                    ctx = T.STATS_CTX.findall(r.stderr)
                    longest = max(int(q[1]) for q in qps)
                    expiries = sum(int(c[2]) for c in ctx)
            ratios.append(t["dpdk_rdma"] / t["tcp"])
            print("run %d: %.3f s / %.3f s = %.2f, RTO expiries %d (longest %d us)\n  dpdk_rdma | %s\n  tcp       | %s"
                  % (i, t["dpdk_rdma"], t["tcp"], ratios[-1], expiries, longest, ph["dpdk_rdma"], ph["tcp"]),
                  flush=True)
    finally:
        T.cluster("down")
    print("median %.2f (%.2f-%.2f) over %d" % (statistics.median(ratios), min(ratios), max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
