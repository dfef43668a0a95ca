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
agree; each process checked its pool got every mbuf back.

The benchmark's modes (--export-flood, --no-export, the peer's --duration,
--rate, --window 0, --no-collect) are run once each with their checks, and
usertools/dr-nf-bench.py once through."""

import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import REPO, app_exe, build_dir, dpdk_runtime_dirs

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


def start(exe, link, side, io, prefix, sockdir, veths, log, extra=()):
    if side == "peer" and io == "graph":
        io = "app"                 # the graph is the NF's; its peer hands frames over itself
    own = ["--role", side, "--io", io, "--timeout", str(PROG_TIMEOUT)]
    if side == "nf":
        own += ["--ip", NF_IP, "--sample", str(SAMPLE)]
        if "--no-export" not in extra:
            own += ["--collector", PEER_IP, "--once"]
    else:
        own += ["--ip", PEER_IP] + ([] if "--duration" in extra else ["--count", str(COUNT)])
    own += list(extra)
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


def interrupt_when_done(nf, peer_log):
    """--no-export: the NF forwards until a signal. Once the peer has said
    its result (it then waits for the NF's links to go down before it closes
    its own), SIGINT the NF by PID."""
    end = time.monotonic() + RUN_TIMEOUT
    while time.monotonic() < end and nf.poll() is None:
        with open(peer_log.name) as f:
            if re.search(r"peer: generated .*: (ok|FAILED)", f.read()):
                break
        time.sleep(0.1)
    if nf.poll() is None:
        os.kill(nf.pid, signal.SIGINT)


def run_pair(exe, link, io, tmp_path, veths=None, nf_args=(), peer_args=()):
    tag = "%s%s%d" % (link, io, os.getpid())
    prefixes = ("drnfn" + tag, "drnfp" + tag)
    logs = (open(tmp_path / "nf.log", "w+"), open(tmp_path / "peer.log", "w+"))
    procs = []
    try:
        procs.append(start(exe, link, "nf", io, prefixes[0], tmp_path, veths, logs[0], nf_args))
        time.sleep(SERVER_START_S)
        procs.append(start(exe, link, "peer", io, prefixes[1], tmp_path, veths, logs[1], peer_args))
        if "--no-export" in nf_args:
            interrupt_when_done(procs[0], logs[1])
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


def nf_stats(text):
    m = re.search(r"nf stats: forwarded (\d+) in [\d.]+ s = [\d.]+ Mpps; busy ([\d.]+) cycles per frame moved "
                  r".*?export (\d+) writes, (\d+) records", text)
    assert m, text[-3000:]
    return int(m.group(1)), float(m.group(2)), int(m.group(3)), int(m.group(4))


def test_memif_export_flood(nf_exe, tmp_path):
    """--export-flood: full batches of tags as fast as the collector takes
    them while the NF forwards; the collector checks every record's tag and
    zeros, the peer every frame."""
    rcs, out = run_pair(nf_exe, "memif", "app", tmp_path, nf_args=["--export-flood"])
    nf, peer = out
    assert rcs == [0, 0], "exit %s\n--- nf ---\n%s\n--- peer ---\n%s" % (rcs, nf[-3000:], peer[-3000:])
    m = re.search(r"peer: generated (\d+), received (\d+) \((\d+) bad, (\d+) out of order, \d+ foreign\); "
                  r"records (\d+) in (\d+) batches \((\d+) bad, (\d+) misplaced, (\d+) bad batches\).*: ok", peer)
    assert m, peer[-3000:]
    gen, rec, bad, ooo, records, batches, bad_rec, misplaced, bad_b = map(int, m.groups())
    assert gen == rec == COUNT and bad == ooo == 0
    assert records > 0 and batches > 0 and bad_rec == misplaced == bad_b == 0
    fwd, cycles, writes, nf_records = nf_stats(nf)
    assert fwd >= COUNT and writes == batches and nf_records == records and cycles > 0


def test_memif_no_export_paced(nf_exe, tmp_path):
    """--no-export and --no-collect: forwarding alone, the NF until SIGINT; the
    peer paces --duration seconds at --rate with no window and says what it
    lost (a slow machine may lose; every frame that came back is checked)."""
    rate, duration = 20000, 2
    rcs, out = run_pair(nf_exe, "memif", "app", tmp_path, nf_args=["--no-export"],
                        peer_args=["--no-collect", "--duration", str(duration), "--rate", str(rate),
                                   "--window", "0"])
    nf, peer = out
    assert rcs == [0, 0], "exit %s\n--- nf ---\n%s\n--- peer ---\n%s" % (rcs, nf[-3000:], peer[-3000:])
    m = re.search(r"peer stats: generated (\d+) in ([\d.]+) s = [\d.]+ Mpps; received (\d+) in [\d.]+ s = "
                  r"[\d.]+ Mpps, lost (\d+); collector 0 records", peer)
    assert m, peer[-3000:]
    gen, gen_s, rec, lost = int(m.group(1)), float(m.group(2)), int(m.group(3)), int(m.group(4))
    # paced: never ahead of the rate (one burst of slack), and the time bounded by --duration
    assert 0 < gen <= rate * gen_s + 32 and gen_s <= duration + 0.1, (gen, gen_s)
    assert rec + lost == gen
    assert re.search(r"received \d+ \(0 bad, 0 out of order, \d+ foreign\): ok", peer), peer[-3000:]
    fwd, _, writes, _ = nf_stats(nf)
    assert fwd >= rec and writes == 0


def test_bench_tool(nf_exe, tmp_path):
    """usertools/dr-nf-bench.py runs every phase and says what it measured
    (a benchmark: no figure is judged here)."""
    out = tmp_path / "bench.json"
    env = dict(os.environ, DR_BUILD_DIR=str(build_dir()))
    r = subprocess.run(["/usr/bin/python3", str(REPO / "usertools" / "dr-nf-bench.py"), "--runs", "1",
                        "--duration", "1", "--load", "0.25", "--json", str(out)],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert [x["phase"] for x in doc["runs"]] == ["A", "B", "D", "C", "A"]
    assert [x["phase"] for x in doc["fixed"]] == ["A", "B"]
    for x in doc["runs"]:
        assert x["rx_mpps"] > 0 if x["phase"] != "C" else x["collector_mbs"] > 0, x
    assert "forwarding B/A" in r.stdout and "fixed load" in r.stdout, r.stdout


@pytest.mark.parametrize("args,says", [
    (["--role", "x", "--ip", NF_IP], "--role x: nf or peer"),
    (["--role", "nf", "--ip", NF_IP], "--role nf needs --collector"),
    (["--role", "peer", "--ip", PEER_IP, "--collector", NF_IP], "the peer is the collector"),
    (["--role", "nf", "--ip", "10.1.2", "--collector", PEER_IP], "--ip 10.1.2: not an IPv4 address"),
    (["--role", "peer", "--ip", PEER_IP, "--sample", "0"], "--sample 0: not a number from 1"),
    (["--role", "peer", "--ip", PEER_IP, "--io", "pipe"], "--io pipe: app, queue or graph"),
    (["--role", "peer", "--ip", PEER_IP, "--io", "graph"], "--io graph is the nf's"),
    (["--role", "peer"], "--role and --ip are needed"),
    (["--role", "nf", "--ip", NF_IP, "--no-export", "--collector", PEER_IP], "--no-export goes without"),
    (["--role", "nf", "--ip", NF_IP, "--collector", PEER_IP, "--duration", "5"], "are the peer's"),
    (["--role", "peer", "--ip", PEER_IP, "--export-flood"], "are the nf's"),
    (["--role", "peer", "--ip", PEER_IP, "--rate", "0"], "--rate 0: not a number from 1"),
    (["--role", "peer", "--ip", PEER_IP, "--duration", "-1"], "--duration -1: not a number from 1"),
])
def test_bad_command_line(nf_exe, args, says):
    """A bad command line is answered before EAL starts: exit 2 and the reason."""
    p = subprocess.run([str(nf_exe), "--"] + args, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and says in p.stderr, (p.returncode, p.stderr)
