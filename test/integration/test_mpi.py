# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Unmodified Open MPI 4.1 (Debian's openmpi-bin) across namespace hosts
of usertools/dr-cluster.py: test/mpi/dr_mpi_check (ping-pong by size with
every payload checked, an allreduce of a known vector, an all-to-all whose
blocks say who sent them where) over the dpdk_rdma provider (pml cm, mtl
ofi; libfabric layers ofi_rxm on it) and, in the same run, over Open MPI's
TCP transport (pml ob1, btl tcp); both must check out, and the two are
printed side by side (a user's first question: is it faster than TCP?).

Every host is this machine: --bind-to none, and each rank pinned to its
host's CPU (EAL's -l over dpdk_rdma, taskset over TCP)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "usertools" / "dr-cluster.py"
PREFIX = "drm%d-" % (os.getpid() % 1000)
NET = 67
TIMEOUT = 180
ROW = re.compile(r"^pingpong (\d+) ([\d.]+) ([\d.]+)$", re.M)

pytestmark = pytest.mark.skipif(shutil.which("mpirun") is None, reason="openmpi-bin not installed")


def build_dir():
    return Path(os.environ.get("DR_BUILD_DIR") or REPO / "build")


def cluster(*args):
    return subprocess.run([sys.executable, str(TOOL), "--prefix", PREFIX, "--net", str(NET)] + list(map(str, args)),
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    prog = build_dir() / "test" / "mpi" / "dr_mpi_check"
    prov = build_dir() / "drivers" / "libfabric"
    if not prog.exists() or not (prov / "libdpdk_rdma-fi.so").exists():
        pytest.fail("dr_mpi_check or the provider is not built (libopenmpi-dev, libfabric-dev)")
    d = tmp_path_factory.mktemp("mpi")
    # each rank's transport settings, from the DR_* environment the cluster's agent gives its host
    (d / "over_dpdk_rdma").write_text(
        "#!/bin/sh\n"
        "export FI_PROVIDER_PATH=%s FI_PROVIDER=dpdk_rdma FI_DPDK_RDMA_IP=$DR_ROCE_IP\n"
        "export FI_DPDK_RDMA_EAL=\"-l $DR_CPU --no-huge -m 256 --no-pci --file-prefix=$DR_HOST"
        " --vdev net_af_packet0,iface=$DR_IFACE\"\n"
        "exec \"$@\"\n" % prov)
    (d / "over_tcp").write_text("#!/bin/sh\nexec taskset -c $DR_CPU \"$@\"\n")
    for f in ("over_dpdk_rdma", "over_tcp"):
        os.chmod(d / f, 0o755)
    r = cluster("up", 2)
    assert r.returncode == 0, r.stderr
    try:
        yield d, prog
    finally:
        cluster("down")


def mpirun(d, prog, transport):
    agent = "%s %s --prefix %s --net %d agent" % (sys.executable, TOOL, PREFIX, NET)
    cmd = ["mpirun", "--allow-run-as-root", "-H", "%sh1,%sh2" % (PREFIX, PREFIX), "-np", "2", "--bind-to", "none",
           "--mca", "plm_rsh_agent", agent, "--mca", "oob_tcp_if_include", "10.%d.0.0/24" % NET]
    if transport == "dpdk_rdma":
        cmd += ["--mca", "pml", "cm", "--mca", "mtl", "ofi", "--mca", "mtl_ofi_provider_include", "dpdk_rdma",
                str(d / "over_dpdk_rdma")]
    else:
        cmd += ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include",
                "10.%d.0.0/24" % NET, str(d / "over_tcp")]
    return subprocess.run(cmd + [str(prog)], capture_output=True, text=True, timeout=TIMEOUT)


def test_mpi_over_dpdk_rdma_and_tcp(hosts):
    d, prog = hosts
    rows = {}
    for transport in ("dpdk_rdma", "tcp"):
        r = mpirun(d, prog, transport)
        assert r.returncode == 0, "%s:\n%s\n%s" % (transport, r.stdout, r.stderr[-4000:])
        assert "allreduce ok" in r.stdout and "alltoall ok" in r.stdout, r.stdout
        rows[transport] = {int(s): (float(us), float(mbps)) for s, us, mbps in ROW.findall(r.stdout)}
        assert sorted(rows[transport]) == [8, 1024, 65536, 1 << 20], r.stdout
    print("\nMPI ping-pong, 2 namespace hosts, half round trip (us) and MB/s: dpdk_rdma | tcp | ratio")
    for size in sorted(rows["tcp"]):
        (us, mbps), (tus, tmbps) = rows["dpdk_rdma"][size], rows["tcp"][size]
        print("%8d  %9.2f %8.1f | %9.2f %8.1f | latency x%.2f" % (size, us, mbps, tus, tmbps, us / tus))
