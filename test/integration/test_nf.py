# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The example network function, app/dpdk-rdma-nf (doc/guides/embedding.rst):
an NF process forwards between its two ports and exports one frame in 16 by
RDMA on port 0 and the same lcore; a peer process is both links' other end,
generates numbered frames, checks each one that comes back and is the RDMA
collector, which checks every byte of every record and reads the NF's
counters with RDMA READ.

Links: net_memif (two socket pairs) and veth pairs in two network namespaces
of the test's own, with net_af_packet and net_af_xdp on them. --io app and
--io graph (the NF an rte_graph with the transport's nodes) on every link;
--io queue on memif, whose link pairs queue 1 with queue 1, and refused with
its reason on af_packet, which cannot steer. A run passes when
both processes end with 0: the peer's "ok" means every frame came back, in
order per flow and unchanged but for the MAC swap, every record was the
head of the right frame, and the counters the NF sent and the ones read
agree; each process checked its pool got every mbuf back."""

import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import app_exe, dpdk_runtime_dirs

COUNT = 20000          # frames: 1250 records; a few seconds on a busy machine
SAMPLE = 16
PROG_TIMEOUT = 30      # the programs' own bound on every wait (--timeout)
RUN_TIMEOUT = 180      # the pair's: start-up, the run, a slow machine's teardown
SERVER_START_S = 2     # the NF (memif server) first
NF_IP, PEER_IP = "10.77.9.1", "10.77.9.2"


@pytest.fixture(scope="module")
def nf_exe():
    return app_exe("dpdk-rdma-nf")


class Veths:
    """Namespaces nf/peer joined by two veth pairs (port 0 and port 1), IPv6 off."""

    def __init__(self):
        tag = "%d" % (os.getpid() % 100000)
        self.ns = {"nf": "drnf-n" + tag, "peer": "drnf-p" + tag}
        self.ifs = {"nf": ["drnfn%s_%d" % (tag, i) for i in (0, 1)],
                    "peer": ["drnfp%s_%d" % (tag, i) for i in (0, 1)]}

    def ip(self, *args, ns=None, check=True):
        cmd = ["ip"] + (["-n", ns] if ns else []) + list(args)
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=30)

    def create(self):
        self.destroy()
        for ns in self.ns.values():
            self.ip("netns", "add", ns)
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                           check=True, timeout=30)
        for a, b in zip(self.ifs["nf"], self.ifs["peer"]):
            self.ip("link", "add", a, "type", "veth", "peer", "name", b)
            self.ip("link", "set", a, "netns", self.ns["nf"])
            self.ip("link", "set", b, "netns", self.ns["peer"])
            self.ip("link", "set", a, "up", ns=self.ns["nf"])
            self.ip("link", "set", b, "up", ns=self.ns["peer"])

    def destroy(self):
        for ns in self.ns.values():
            self.ip("netns", "del", ns, check=False)


@pytest.fixture(scope="module")
def veths():
    if os.geteuid() != 0:
        pytest.fail("veth pairs in network namespaces need root")
    v = Veths()
    v.create()
    yield v
    v.destroy()


def eal(link, side, io, prefix, sockdir=None, veths=None):
    args = ["--no-huge", "-m", "512", "--no-pci", "--file-prefix=" + prefix, "-l", "0" if side == "nf" else "1"]
    if link == "memif":
        role = "server" if side == "nf" else "client"
        for i in (0, 1):
            args.append("--vdev=net_memif%d,role=%s,socket=%s/p%d.sock,socket-abstract=no,bsize=4608"
                        % (i, role, sockdir, i))
    elif link == "af_packet":
        qp = 2 if io == "queue" else 1
        for i, iface in enumerate(veths.ifs[side]):
            args.append("--vdev=net_af_packet%d,iface=%s,qpairs=%d" % (i, iface, qp if i == 0 else 1))
    else:
        for i, iface in enumerate(veths.ifs[side]):
            args.append("--vdev=net_af_xdp%d,iface=%s,start_queue=0,queue_count=1" % (i, iface))
    return args


def start(exe, link, side, io, prefix, sockdir, veths, log):
    if side == "peer" and io == "graph":
        io = "app"                 # the graph is the NF's; its peer hands frames over itself
    own = ["--role", side, "--io", io, "--timeout", str(PROG_TIMEOUT)]
    if side == "nf":
        own += ["--ip", NF_IP, "--collector", PEER_IP, "--once", "--sample", str(SAMPLE)]
    else:
        own += ["--ip", PEER_IP, "--count", str(COUNT)]
    cmd = [str(exe)] + eal(link, side, io, prefix, sockdir, veths) + ["--"] + own
    if link != "memif":
        cmd = ["ip", "netns", "exec", veths.ns[side]] + cmd
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)


def stop(proc):
    """Wait for `proc` within the run's bound; past it, SIGKILL by PID."""
    try:
        return proc.wait(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, 9)
        proc.wait(timeout=10)
        return None


def run_pair(exe, link, io, tmp_path, veths=None):
    tag = "%s%s%d" % (link, io, os.getpid())
    prefixes = ("drnfn" + tag, "drnfp" + tag)
    logs = (open(tmp_path / "nf.log", "w+"), open(tmp_path / "peer.log", "w+"))
    procs = []
    try:
        procs.append(start(exe, link, "nf", io, prefixes[0], tmp_path, veths, logs[0]))
        time.sleep(SERVER_START_S)
        procs.append(start(exe, link, "peer", io, prefixes[1], tmp_path, veths, logs[1]))
        rcs = [stop(p) for p in reversed(procs)][::-1]
    finally:
        for p in procs:
            if p.poll() is None:
                os.kill(p.pid, 9)
                p.wait(timeout=10)
        for pre in prefixes:
            for d in dpdk_runtime_dirs(pre):
                shutil.rmtree(d, ignore_errors=True)
    out = []
    for f in logs:
        f.seek(0)
        out.append(f.read())
        f.close()
    return rcs, out


def check_run(rcs, out):
    nf, peer = out
    assert rcs == [0, 0], "exit %s\n--- nf ---\n%s\n--- peer ---\n%s" % (rcs, nf[-3000:], peer[-3000:])
    m = re.search(r"peer: generated (\d+), received (\d+) \((\d+) bad, (\d+) out of order, \d+ foreign\); "
                  r"records (\d+) in \d+ batches \((\d+) bad, (\d+) misplaced, (\d+) bad batches\); "
                  r"nf: forwarded (\d+), sampled (\d+), records (\d+), export dropped (\d+).*: ok", peer)
    assert m, peer[-3000:]
    gen, rec, bad, ooo, records, bad_rec, misplaced, bad_b, fwd, sampled, nf_records, dropped = map(int, m.groups())
    assert gen == rec == COUNT and bad == ooo == 0
    # every sampled frame was exported and checked: one in SAMPLE of those forwarded
    assert fwd >= COUNT and sampled == fwd // SAMPLE and dropped == 0
    assert records == nf_records == sampled and bad_rec == misplaced == bad_b == 0
    for text in out:
        assert "dpdk-rdma-nf: done" in text


@pytest.mark.parametrize("io", ["app", "queue", "graph"])
def test_memif(nf_exe, tmp_path, io):
    check_run(*run_pair(nf_exe, "memif", io, tmp_path))


@pytest.mark.parametrize("io", ["app", "graph"])
@pytest.mark.parametrize("link", ["af_packet", "af_xdp"])
def test_veth(nf_exe, tmp_path, veths, link, io):
    check_run(*run_pair(nf_exe, link, io, tmp_path, veths))


def test_af_packet_queue_refused(nf_exe, tmp_path, veths):
    """Every af_packet socket sees every frame of its interface: no queue of
    the transport's own, and the program says so and ends."""
    rcs, out = run_pair(nf_exe, "af_packet", "queue", tmp_path, veths)
    assert rcs == [1, 1], out
    for text in out:
        assert "--io queue: port 0 (net_af_packet) cannot steer the transport's frames" in text
        assert "use --io app" in text


@pytest.mark.parametrize("args,says", [
    (["--role", "x", "--ip", NF_IP], "--role x: nf or peer"),
    (["--role", "nf", "--ip", NF_IP], "--role nf needs --collector"),
    (["--role", "peer", "--ip", PEER_IP, "--collector", NF_IP], "the peer is the collector"),
    (["--role", "nf", "--ip", "10.1.2", "--collector", PEER_IP], "--ip 10.1.2: not an IPv4 address"),
    (["--role", "peer", "--ip", PEER_IP, "--sample", "0"], "--sample 0: not a number from 1"),
    (["--role", "peer", "--ip", PEER_IP, "--io", "pipe"], "--io pipe: app, queue or graph"),
    (["--role", "peer", "--ip", PEER_IP, "--io", "graph"], "--io graph is the nf's"),
    (["--role", "peer"], "--role and --ip are needed"),
])
def test_bad_command_line(nf_exe, args, says):
    """A bad command line is answered before EAL starts: exit 2 and the reason."""
    p = subprocess.run([str(nf_exe), "--"] + args, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and says in p.stderr, (p.returncode, p.stderr)
