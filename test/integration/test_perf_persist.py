# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf --persist: one server serves client after client, each
running the test, QP count, QP type, sizes and iterations it asks, every
run's QPs, CQs, MRs and buffers made and destroyed for it (the server's
context has no QP left after a run: telemetry); a refused client, a failed
one or one that vanishes mid-run ends its run, not the server; SIGTERM ends
the server, idle or mid-run (the client is told in-band), with exit status
0; the option's refusals (exit 2). Over net_memif, the server inline (it
polls its port only during a run, so a client closing its memif port never
races its polling); the vanishing client over a veth (net_af_packet), as
test_perf_badflow.py's: memif in DPDK 22.11 can crash the survivor of a
peer killed mid-run. usertools/dr-soak.py (test_soak.py) runs the server
in every engine mode behind the fault link."""

import os
import re
import signal
import subprocess
import time

import pytest

from perfutil import MTU, netns, pair, table
from drperf import soak  # noqa: E402 (perfutil puts usertools/ on the path)

TIMEOUT = 60
RUN_LINE = re.compile(r"persist: run (\d+) \(([^)]*)\): (ok|failed)")


class Server:
    """A --persist server on a memif server port (or on net.if_a, net_af_packet)."""

    def __init__(self, perf_exe, args, net=None):
        self.exe = perf_exe
        self.net = net
        self.tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000000)
        self.sock = "/tmp/dr-memif-%s.sock" % self.tag
        self.port = pair.free_tcp_port()
        self.prefix = "drpp_" + self.tag
        self.lcores, self.client_lcores = pair.default_lcores()
        self.clients = 0
        if net is None:
            eal = pair.memif_eal("server", self.sock, self.prefix, lcores=self.lcores)
            cmd = pair.perf_cmd(perf_exe, eal, ["--persist"] + list(args), pair.SERVER_IP, self.port)
        else:
            eal = pair.afpacket_eal(net.if_a, self.prefix) + pair.lcore_args(self.lcores)
            cmd = pair.perf_cmd(perf_exe, eal, ["--persist"] + list(args), pair.SERVER_IP,
                                self.port, netns=net.ns_a, oob_bind=netns.CTL_A)
        self.side = pair.Side("server", cmd, prefixes=[self.prefix], lcores=self.lcores)

    def __enter__(self):
        if os.path.exists(self.sock):
            os.unlink(self.sock)
        self.side.start()
        assert self.side.wait_ready(), self.describe()
        return self

    def __exit__(self, *exc):
        self.side.kill()
        self.side.collect()
        if os.path.exists(self.sock):
            os.unlink(self.sock)

    def err(self):
        return os.pread(self.side.err.fileno(), 1 << 22, 0).decode(errors="replace")

    def describe(self):
        out = os.pread(self.side.out.fileno(), 1 << 22, 0).decode(errors="replace")
        return "server: %s\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(self.side.cmd),
                                                               out[-4000:], self.err()[-4000:])

    def client_side(self, args):
        self.clients += 1
        prefix = "drpq%d_%s" % (self.clients, self.tag)
        if self.net is None:
            eal = pair.memif_eal("client", self.sock, prefix, lcores=self.client_lcores)
            cmd = pair.perf_cmd(self.exe, eal, args, pair.CLIENT_IP, self.port,
                                server_addr="127.0.0.1")
        else:
            eal = pair.afpacket_eal(self.net.if_b, prefix) + pair.lcore_args(self.client_lcores)
            cmd = pair.perf_cmd(self.exe, eal, args, pair.CLIENT_IP, self.port,
                                server_addr=netns.CTL_A, netns=self.net.ns_b)
        return pair.Side("client%d" % self.clients, cmd, prefixes=[prefix],
                         lcores=self.client_lcores)

    def client(self, args):
        """Run one client to its end; wait for the server's line about its run."""
        runs = len(self.runs())
        c = self.client_side(args)
        c.run_to_end(TIMEOUT)
        self.wait_runs(runs + 1)
        return c

    def runs(self):
        return RUN_LINE.findall(self.err())

    def wait_runs(self, n, limit=20):
        end = time.monotonic() + limit
        while len(self.runs()) < n and time.monotonic() < end and self.side.proc.poll() is None:
            time.sleep(0.05)
        assert len(self.runs()) >= n, self.describe()

    def qps(self):
        return soak.telemetry(self.prefix, "/dr/context/stats,0")["qps"]

    def stop(self, sig=signal.SIGTERM):
        os.kill(self.side.proc.pid, sig)
        try:
            self.side.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
        return self.side.proc.poll()


def _start_running(c):
    """Start client c and wait until it prints its table (the run is under way), then a little."""
    c.start()
    end = time.monotonic() + TIMEOUT
    while " #bytes" not in c.printed().decode(errors="replace") and time.monotonic() < end:
        assert c.proc.poll() is None, "the client ended early"
        time.sleep(0.05)
    time.sleep(0.5)


def _checked(c, sizes, iters):
    assert c.rc == 0, c.describe()
    rows = table.rows(c.stdout)
    assert [r["bytes"] for r in rows] == sizes and all(r["iters"] == iters for r in rows), \
        c.describe()
    assert "Data check: OK" in c.stdout, c.describe()


def test_persist_clients_one_after_another(perf_exe):
    """Four clients, each another test, QP count and type, and one refused
    between them; the server's context has no QP between runs; SIGTERM
    while it waits ends it with exit status 0."""
    with Server(perf_exe, ["write_bw", "-s", "65536", "-m", str(MTU)]) as srv:
        c = srv.client(["send_bw", "--check", "-m", MTU, "--sizes", "0,%d" % (MTU + 1), "-n", 200,
                        "-q", 2, "--send_with_imm"])
        _checked(c, [0, MTU + 1], 200)
        assert srv.runs()[-1] == ("1", "send_bw -c RC -q 2", "ok"), srv.describe()
        assert srv.qps() == 0
        c = srv.client(["write_bw", "-s", "131072", "-n", 10])
        assert c.rc == 1 and "the server refused the run: message size 131072 is above the " \
            "server's largest, 65536 bytes" in c.stderr, c.describe()
        assert srv.runs()[-1][2] == "failed" and srv.side.proc.poll() is None, srv.describe()
        c = srv.client(["read_lat", "--check", "-m", MTU, "-s", 4096, "-n", 50])
        _checked(c, [4096], 50)
        c = srv.client(["atomic_bw", "--check", "-A", "CMP_AND_SWAP", "-q", 3, "-n", 100])
        _checked(c, [8], 100)
        c = srv.client(["send_bw", "--check", "-c", "UD", "-m", MTU, "-s", MTU, "-n", 100, "-q", 2])
        _checked(c, [MTU], 100)
        assert [r[1:] for r in srv.runs()] == [
            ("send_bw -c RC -q 2", "ok"), ("handshake", "failed"),
            ("read_lat -c RC -q 1", "ok"), ("atomic_bw -c RC -q 3", "ok"),
            ("send_bw -c UD -q 2", "ok")], srv.describe()
        assert srv.qps() == 0
        assert srv.stop() == 0, srv.describe()
        assert "persist: stopped by a signal after 5 runs, 1 failed" in srv.err(), srv.describe()


def test_persist_sigterm_mid_run(perf_exe):
    """SIGTERM while a client runs: the client is told in-band and exits 1,
    the server closes its connection after its port (the client closes its
    own after that) and exits 0."""
    with Server(perf_exe, ["write_bw", "-s", "4096"]) as srv:
        c = srv.client_side(["write_bw", "-D", "60", "-s", "4096"])
        _start_running(c)
        rc = srv.stop()
        try:
            c.proc.wait(timeout=30)
        finally:
            c.kill()
            c.collect()
        assert rc == 0, srv.describe()
        assert "persist: stopped by a signal after 1 runs, 1 failed" in srv.err(), srv.describe()
        assert c.rc == 1 and not c.timed_out, c.describe()
        assert "the peer stopped: run: interrupted" in c.stderr, c.describe()


@pytest.fixture(scope="module")
def veth():
    if os.geteuid() != 0:
        pytest.skip("needs root: network namespaces and veth pairs")
    with netns.VethNetns(tag="p%d" % (os.getpid() % 100000000)) as net:
        yield net


def test_persist_client_vanishes(perf_exe, veth):
    """A client killed mid-run ends its run: the server destroys the run's
    objects, says so, and serves the next client (over a veth: see above)."""
    with Server(perf_exe, ["write_bw", "-s", "4096"], net=veth) as srv:
        c = srv.client_side(["write_bw", "-D", "60", "-s", "1024"])
        _start_running(c)
        os.kill(c.proc.pid, signal.SIGKILL)
        c.proc.wait(timeout=10)
        c.collect()
        srv.wait_runs(1)
        assert srv.runs()[-1] == ("1", "write_bw -c RC -q 1", "failed"), srv.describe()
        assert "the peer closed the connection" in srv.err(), srv.describe()
        assert srv.qps() == 0
        c = srv.client(["write_bw", "--check", "-s", "4096", "-n", "200", "-q", "2"])
        _checked(c, [4096], 200)
        assert srv.runs()[-1] == ("2", "write_bw -c RC -q 2", "ok"), srv.describe()
        assert srv.stop() == 0, srv.describe()


CLI = [
    (["write_bw", "--ip", "192.0.2.2", "--persist", "127.0.0.1"], "--persist: only for the server"),
    (["write_bw", "--ip", "192.0.2.1", "--persist", "--perftest-compat"],
     "--persist: not with --perftest-compat"),
    (["raw_bw", "--ip", "192.0.2.1", "--persist"], "--persist: not for the raw tests"),
]


@pytest.mark.parametrize("args,message", CLI, ids=["client", "perftest", "raw"])
def test_persist_refused(perf_exe, args, message):
    p = subprocess.run([str(perf_exe), "--"] + args, capture_output=True, text=True, timeout=20,
                       check=False)
    assert p.returncode == 2 and "dpdk-rdma-perf: " + message in p.stderr, p.stderr
