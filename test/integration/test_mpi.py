# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Unmodified Open MPI 4.1 (Debian's openmpi-bin) across namespace hosts
of usertools/dr-cluster.py: test/mpi/dr_mpi_check (ping-pong by size with
every payload checked, an allreduce of a known vector, an all-to-all whose
blocks say who sent them where) over the dpdk_rdma provider (pml cm, mtl
ofi; libfabric layers ofi_rxm on it) and, in the same run, over Open MPI's
TCP transport (pml ob1, btl tcp); both must check out, and the two are
printed side by side (a user's first question: is it faster than TCP?).

Shapes: 2 and 4 hosts, 1 and 2 ranks per host. With 2 ranks a host has a
macvlan per rank on its veth (dr-cluster.py --ranks: each rank its own MAC,
RoCEv2 address and port, as a VF per rank on a NIC). A rank's port is a
net_af_packet of its interface, or a net_af_xdp with the bifurcated host's
XDP program (drivers/ethdev/bpf/dr_xdp_steer.o): RoCEv2 and the ARP of the
rank's address go to it, mpirun's own TCP on the same interface to the
kernel.
Every host is this machine: --bind-to none, and each rank pinned to the CPU
dr-cluster gives it (EAL's -l over dpdk_rdma, taskset over TCP); ranks
sharing a CPU nap when idle (the provider's default idle policy, auto, sees
them preempted) and yield (mpi_yield_when_idle).

Faults: a rank killed mid-job (4 hosts x 2 ranks): mpirun ends the job,
non-zero, within a bound, and no rank is left."""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
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


WRAPPER = """#!/bin/sh
# this rank's port, RoCEv2 address and CPU: the host's K-th of each (DR_RANK_*
# from the cluster's agent), K its local rank
k=$((${OMPI_COMM_WORLD_LOCAL_RANK:-0} + 1))
pick() { echo "$1" | cut -d, -f$k; }
@RANK_ENV@
%s
exec %s "$@"
"""
# Every rank, over either transport: malloc() gives its large blocks transparent huge
# pages (glibc 2.35+; the kernel's THP in "madvise" mode, Debian's default). ofi_rxm
# zeroes two bounce-buffer pools of 1024 x FI_OFI_RXM_BUFFER_SIZE (2 x 17 MB) when
# they are first used, the send pool at the job's first eager message; in 4 KiB pages
# that is 8,400 first-touch faults, 65 ms a pool on this machine's VM, in the first
# round (libfabric.rst, "The first round"). DR_MPI_MALLOC_THP=0 leaves malloc as it is.
RANK_ENV = 'export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1"'


def rank_env():
    return "" if os.environ.get("DR_MPI_MALLOC_THP", "1") == "0" else RANK_ENV


OVER_DPDK_RDMA = (WRAPPER % (
    'export FI_PROVIDER_PATH=@PROV@ FI_PROVIDER=dpdk_rdma FI_DPDK_RDMA_IP=$(pick "$DR_RANK_ROCE_IPS")\n'
    'export FI_DPDK_RDMA_STATS=1 FI_DPDK_RDMA_MTU=$DR_MTU @EXTRA_ENV@\n'
    'export FI_DPDK_RDMA_EAL="-l $(pick "$DR_RANK_CPUS") --no-huge -m 256 --no-pci --file-prefix=$DR_HOST-$k'
    ' --vdev @VDEV@"', ""))
# the rank's port on its interface: net_af_packet (sees what the kernel sees; ring frames that
# hold a 4096-byte packet's frame), or net_af_xdp with the bifurcated host's XDP program
# (RoCEv2 and our ARP to us, the launcher's TCP to the kernel)
VDEV = {"af_packet": 'net_af_packet0,iface=$(pick "$DR_RANK_IFACES"),framesz=4352,blocksz=69632',
        "af_xdp": 'net_af_xdp0,iface=$(pick "$DR_RANK_IFACES"),start_queue=0,queue_count=1,xdp_prog=@STEER@'}
# the xsk backend on the same port: AF_XDP sockets of its own, multi-buffer (drivers/xsk)
VDEV["xsk"] = VDEV["af_xdp"]
LINK_ENV = {"xsk": "FI_DPDK_RDMA_BACKEND=xsk"}
OVER_TCP = WRAPPER % ("", 'taskset -c $(pick "$DR_RANK_CPUS")')
# every link's MTU (dr-cluster --mtu, the provider's FI_DPDK_RDMA_MTU): jumbo frames where the
# port carries a 4096-byte path MTU (net_af_packet, its frames as above; xsk, a frame in two
# chunks); net_af_xdp's 4 KiB UMEM frames and the kernel's XDP on a veth (a frame in a page)
# hold 3000, a 2048-byte path MTU
LINK_MTU = {"af_packet": 9000, "af_xdp": 3000, "xsk": 9000}
# hosts, ranks per host, the ranks' port
SHAPES = [(2, 1, "af_packet"), (4, 1, "af_packet"), (2, 2, "af_packet"), (4, 2, "af_packet"),
          (2, 1, "af_xdp"), (4, 2, "af_xdp"), (2, 1, "xsk")]


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    prog = build_dir() / "test" / "mpi" / "dr_mpi_check"
    if not (build_dir() / "test" / "mpi" / "dr_mpi_workload").exists():
        pytest.fail("dr_mpi_workload is not built (libopenmpi-dev)")
    prov = build_dir() / "drivers" / "libfabric"
    steer = build_dir() / "drivers" / "ethdev" / "bpf" / "dr_xdp_steer.o"
    if not prog.exists() or not (prov / "libdpdk_rdma-fi.so").exists() or not steer.exists():
        pytest.fail("dr_mpi_check, the provider or the XDP program is not built (libopenmpi-dev, "
                    "libfabric-dev, clang)")
    d = tmp_path_factory.mktemp("mpi")
    for link, vdev in VDEV.items():
        # DR_MPI_PROVIDER_ENV: more of the provider's settings for every rank, e.g.
        # "FI_DPDK_RDMA_MODE=rtc FI_DPDK_RDMA_IDLE=sleep" (after the defaults: it wins)
        extra = " ".join(shlex.quote(x) for x in os.environ.get("DR_MPI_PROVIDER_ENV", "").split())
        (d / ("over_" + link)).write_text(OVER_DPDK_RDMA.replace("@PROV@", str(prov)).replace(
            "@VDEV@", vdev.replace("@STEER@", str(steer))).replace(
            "@EXTRA_ENV@", (LINK_ENV.get(link, "") + " " + extra).strip()).replace("@RANK_ENV@", rank_env()))
    (d / "over_tcp").write_text(OVER_TCP.replace("@RANK_ENV@", rank_env()))
    for f in list(VDEV) + ["tcp"]:
        os.chmod(d / ("over_" + f), 0o755)
    return d, prog


@pytest.fixture(params=SHAPES, ids=["%dhosts-%drank-%s" % s for s in SHAPES])
def shape(request, scripts):
    hosts, ranks, link = request.param
    r = cluster("--ranks", ranks, "--mtu", LINK_MTU[link], "up", hosts)
    assert r.returncode == 0, r.stderr
    try:
        yield hosts, ranks, link
    finally:
        cluster("down")


def mpirun_cmd(d, shape, transport):
    hosts, ranks, link = shape
    agent = "%s %s --prefix %s --net %d --ranks %d --mtu %d agent" % (sys.executable, TOOL, PREFIX, NET, ranks,
                                                                       LINK_MTU[link])
    # --map-by node: ranks 0 and 1 (the ping-pong) on two hosts; a rank's CPU
    # from dr-cluster places neighbours apart; ranks yield when idle only where
    # they outnumber the CPUs (Open MPI's own rule, for oversubscribed nodes)
    shared = hosts * ranks > len(os.sched_getaffinity(0))
    cmd = ["mpirun", "--allow-run-as-root", "-H", ",".join("%sh%d:%d" % (PREFIX, i, ranks)
                                                           for i in range(1, hosts + 1)),
           "-np", str(hosts * ranks), "--map-by", "node", "--bind-to", "none", "--mca", "routed", "direct",
           "--mca", "mpi_yield_when_idle", "1" if shared else "0",
           "--mca", "plm_rsh_agent", agent, "--mca", "oob_tcp_if_include", "10.%d.0.0/24" % NET]
    if transport == "dpdk_rdma":
        cmd += ["--mca", "pml", "cm", "--mca", "mtl", "ofi", "--mca", "mtl_ofi_provider_include", "dpdk_rdma",
                str(d / ("over_" + link))]
    else:
        cmd += ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include",
                "10.%d.0.0/24" % NET, str(d / "over_tcp")]
    return cmd


def test_mpi_over_dpdk_rdma_and_tcp(scripts, shape):
    d, prog = scripts
    rows = {}
    for transport in ("dpdk_rdma", "tcp"):
        r = subprocess.run(mpirun_cmd(d, shape, transport) + [str(prog)], capture_output=True, text=True,
                           timeout=TIMEOUT)
        assert r.returncode == 0, "%s:\n%s\n%s" % (transport, r.stdout, r.stderr[-4000:])
        assert "allreduce ok" in r.stdout and "alltoall ok" in r.stdout, r.stdout
        rows[transport] = {int(s): (float(us), float(mbps)) for s, us, mbps in ROW.findall(r.stdout)}
        assert sorted(rows[transport]) == [8, 1024, 65536, 1 << 20], r.stdout
    print("\nMPI ping-pong, %d namespace hosts x %d ranks on %s ports (ranks 0 and 1 on two hosts), half "
          "round trip (us) and MB/s: dpdk_rdma | tcp | ratio" % shape)
    for size in sorted(rows["tcp"]):
        (us, mbps), (tus, tmbps) = rows["dpdk_rdma"][size], rows["tcp"][size]
        print("%8d  %9.2f %8.1f | %9.2f %8.1f | latency x%.2f" % (size, us, mbps, tus, tmbps, us / tus))


STATS_CTX = re.compile(r"dpdk_rdma stats pid \d+: context: .*? retries (\d+) ack_timeouts (\d+) rto_expiries (\d+) "
                       r"tlp_probes (\d+) .*? stalls (\d+) stall_us (\d+) max_gap_us (\d+) idle_naps (\d+) "
                       r"port_imissed (\d+)")
STATS_QPS = re.compile(r"dpdk_rdma stats pid \d+: qps: closed \d+ retries \d+ rereads \d+ ack_timeouts \d+ "
                       r"max_ack_timeout_us (\d+) rto_expiries \d+ max_rto_us (\d+)")
STATS_START = re.compile(r"dpdk_rdma stats pid \d+: start-up: eal_ms ([\d.]+) port_ms ([\d.]+) connects (\d+) "
                         r"connect_ms ([\d.]+) max_connect_ms ([\d.]+) resolve_ms ([\d.]+) "
                         r"max_resolve_ms ([\d.]+) accepts (\d+) accept_ms ([\d.]+) max_accept_ms ([\d.]+)")
WORKLOAD = re.compile(r"^workload ok: (\d+) rounds, (\d+) ranks, ([\d.]+) s \(start-up ([\d.]+) s\)$", re.M)
PHASES = re.compile(r"^phases: (p2p [\d.]+ s, bcast [\d.]+ s, allreduce [\d.]+ s, alltoallv [\d.]+ s, "
                    r"compute [\d.]+ s)$", re.M)
# af_xdp 2 x 1 for comparison: the xsk backend's port carries twice its path MTU
WORKLOAD_SHAPES = [(2, 1, "af_packet"), (2, 2, "af_packet"), (2, 1, "af_xdp"), (2, 1, "xsk"), (2, 2, "xsk")]


@pytest.mark.parametrize("wshape", WORKLOAD_SHAPES, ids=["%dhosts-%drank-%s" % s for s in WORKLOAD_SHAPES])
def test_mpi_workload(scripts, wshape):
    """test/mpi/dr_mpi_workload (16 non-blocking messages per pair of ranks
    matched out of order, a 3 MB bcast, an 800 KB allreduce, an alltoallv;
    every byte checked) over dpdk_rdma and over TCP in the same run: both
    check out; the job times, start-ups, the ranks' transport counters
    (FI_DPDK_RDMA_STATS) and where rank 0 spent its time are printed side by
    side. Times are printed, not asserted: a benchmark's business, and this
    machine may be busy."""
    d, _ = scripts
    prog = build_dir() / "test" / "mpi" / "dr_mpi_workload"
    hosts, ranks, link = wshape
    assert cluster("--ranks", ranks, "--mtu", LINK_MTU[link], "up", hosts).returncode == 0
    got = {}
    try:
        for transport in ("dpdk_rdma", "tcp"):
            r = subprocess.run(mpirun_cmd(d, wshape, transport) + [str(prog), "10"], capture_output=True,
                               text=True, timeout=TIMEOUT)
            assert r.returncode == 0, "%s:\n%s\n%s" % (transport, r.stdout, r.stderr[-4000:])
            m = WORKLOAD.search(r.stdout)
            assert m and int(m.group(2)) == hosts * ranks, r.stdout
            ph = PHASES.search(r.stdout)
            assert ph, r.stdout
            got[transport] = (float(m.group(3)), float(m.group(4)), r.stderr, ph.group(1))
    finally:
        cluster("down")
    ctx = [tuple(map(int, x)) for x in STATS_CTX.findall(got["dpdk_rdma"][2])]
    qps = [tuple(map(int, x)) for x in STATS_QPS.findall(got["dpdk_rdma"][2])]
    st = [tuple(map(float, x)) for x in STATS_START.findall(got["dpdk_rdma"][2])]
    assert len(ctx) == hosts * ranks and len(qps) == hosts * ranks, got["dpdk_rdma"][2][-3000:]
    assert len(st) == hosts * ranks, got["dpdk_rdma"][2][-3000:]
    (t, su), (tt, tsu) = got["dpdk_rdma"][:2], got["tcp"][:2]
    print("\nMPI workload, 10 rounds, %d namespace hosts x %d ranks on %s ports: job %.3f s over dpdk_rdma, "
          "%.3f s over TCP (x%.2f); start-up %.3f s / %.3f s" % (hosts, ranks, link, t, tt, t / tt, su, tsu))
    # rank 0's time in each phase's MPI calls, and in filling and checking (the same over both)
    print("  rank 0 over dpdk_rdma: %s\n  rank 0 over TCP:       %s" % (got["dpdk_rdma"][3], got["tcp"][3]))
    print("  dpdk_rdma ranks: retries %d, ack timeouts %d (longest %d us), RTO expiries %d (longest %d us), "
          "tail-loss probes %d, own stalls %d (%d us left out, longest gap %d us), idle naps %d, "
          "port drops (imissed) %d" % (
              sum(c[0] for c in ctx), sum(c[1] for c in ctx), max(q[0] for q in qps), sum(c[2] for c in ctx),
              max(q[1] for q in qps), sum(c[3] for c in ctx), sum(c[4] for c in ctx), sum(c[5] for c in ctx),
              max(c[6] for c in ctx), sum(c[7] for c in ctx), sum(c[8] for c in ctx)))
    # where a rank's start-up went (the longest rank's of each part, ms)
    print("  dpdk_rdma start-up, longest of the ranks: EAL %.0f ms, port %.0f ms; %d connections made "
          "(longest %.0f ms, its address and route %.0f ms), %d accepted (longest %.0f ms)" % (
              max(x[0] for x in st), max(x[1] for x in st), int(sum(x[2] for x in st)),
              max(x[4] for x in st), max(x[6] for x in st), int(sum(x[7] for x in st)),
              max(x[9] for x in st)))


def job_ranks():
    """{MPI rank: PID} of this test's dr_mpi_check processes (by their DR_HOST)."""
    out = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/comm" % pid) as f:
                if f.read().strip() != "dr_mpi_check":
                    continue
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = dict(x.split(b"=", 1) for x in f.read().split(b"\0") if b"=" in x)
        except OSError:
            continue
        if env.get(b"DR_HOST", b"").startswith(PREFIX.encode()) and b"OMPI_COMM_WORLD_RANK" in env:
            out[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(pid)
    return out


@pytest.mark.parametrize("kill_rank", [1, 6])
def test_rank_killed_mid_job(scripts, kill_rank):
    """4 hosts x 2 ranks in a minute of checked collectives over dpdk_rdma;
    a rank killed (SIGKILL) mid-job: mpirun fails (not 0) within a bound
    and no rank is left."""
    d, prog = scripts
    assert cluster("--ranks", 2, "--mtu", LINK_MTU["af_packet"], "up", 4).returncode == 0
    p = None
    try:
        p = subprocess.Popen(mpirun_cmd(d, (4, 2, "af_packet"), "dpdk_rdma") + [str(prog), "--soak", "60"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)
        out, end = [], time.monotonic() + 60
        for line in p.stdout:
            out.append(line)
            if "soak started" in line or time.monotonic() > end:
                break
        assert "soak started\n" in out, "".join(out[-40:])
        time.sleep(2)
        ranks = job_ranks()
        assert sorted(ranks) == list(range(8)), ranks
        os.kill(ranks[kill_rank], signal.SIGKILL)
        killed = time.monotonic()
        rest = p.communicate(timeout=60)[0]
        took = time.monotonic() - killed
        assert p.returncode != 0, rest[-3000:]
        assert "rank %d with PID %d" % (kill_rank, ranks[kill_rank]) in rest, rest[-3000:]
        assert took < 20, "mpirun took %.1f s" % took
        deadline = time.monotonic() + 10
        while job_ranks() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert job_ranks() == {}
        print("\nrank %d killed: mpirun ended the job in %.2f s (exit %d)" % (kill_rank, took, p.returncode))
    finally:
        if p is not None and p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        for pid in job_ranks().values():
            os.kill(pid, signal.SIGKILL)
        cluster("down")
