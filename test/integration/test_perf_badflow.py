# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Bad flows dpdk-rdma-perf's command line can cause, over net_memif: the
server refusing what the client asks (oversized messages, another test,
another QP count), arguments only the device can judge, an OOB port in
use, no server, and a run ended by a signal or by a peer that vanishes.
Each ends with exit status 1 and a message on both sides, and neither side
crashes. (Bad flows at the verbs level -- bad lkey, rkey without rights, out
of bounds, RNR exhaustion -- are the C tests of test/unit.)

Needs the transport: fails (does not skip) until dpdk-rdma-perf links."""

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass

import pytest

from perfutil import netns, pair
from drperf import soak  # noqa: E402  (perfutil put usertools on the path)

TIMEOUT = 60
# frames each way on the client's port that show a run under way (each size's run starts after a barrier)
RUNNING_PKTS = 200


@dataclass
class Refusal:
    """The server (args after "--", test first) refuses the client's request."""
    server: list
    client: list
    reason: str


REFUSALS = {
    "oversized-size": Refusal(["write_bw", "-s", "4096"], ["write_bw", "-s", "65536"],
                              "message size 65536 is above the server's largest, 4096 bytes"),
    "oversized-default-lat": Refusal(["write_lat"], ["write_lat", "-s", "64"],
                                     "message size 64 is above the server's largest, 2 bytes"),
    "oversized-all": Refusal(["read_bw"], ["read_bw", "-a", "-n", "5"],
                             "message size 8388608 is above the server's largest, 65536 bytes"),
    "oversized-sizes": Refusal(["send_bw", "--sizes", "1,1024"], ["send_bw", "--sizes", "1,1025"],
                               "message size 1025 is above the server's largest, 1024 bytes"),
    "oversized-1GiB": Refusal(["send_bw", "-s", "1M"], ["send_bw", "-s", "1G"],
                              "message size 1073741824 is above the server's largest"),
    "test-mismatch": Refusal(["write_bw"], ["read_bw"],
                             "test mismatch: the server runs write_bw, the client asked for "
                             "read_bw"),
    "lat-vs-bw": Refusal(["send_lat"], ["send_bw", "-s", "2"],
                         "test mismatch: the server runs send_lat, the client asked for send_bw"),
    "qp-count-mismatch": Refusal(["write_bw", "-q", "2"], ["write_bw", "-q", "3"],
                                 "QP count mismatch: the server has -q 2, the client -q 3"),
}


@pytest.mark.parametrize("case", list(REFUSALS.values()), ids=list(REFUSALS))
def test_server_refuses(perf_exe, case):
    res = pair.run_memif([], exe=perf_exe, timeout=TIMEOUT, server_args=case.server,
                         client_args=case.client)
    assert res.server.rc == 1 and res.client.rc == 1, res.describe()
    assert "dpdk-rdma-perf: refused the client: " + case.reason in res.server.stderr, \
        res.describe()
    assert "dpdk-rdma-perf: the server refused the run: " + case.reason in res.client.stderr, \
        res.describe()
    assert " #bytes" not in res.client.stdout + res.server.stdout


def _one(perf_exe, args, port=None, timeout=TIMEOUT):
    """One endpoint alone on a memif server port; returns (rc, stderr)."""
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000000)
    sock, prefix = "/tmp/dr-memif-%s.sock" % tag, "drpb_" + tag
    cmd = pair.perf_cmd(perf_exe, pair.memif_eal("server", sock, prefix), args,
                        pair.SERVER_IP, port or pair.free_tcp_port())
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    finally:
        for d in pair.dpdk_runtime_dirs(prefix):
            shutil.rmtree(d, ignore_errors=True)
        if os.path.exists(sock):
            os.unlink(sock)
    return p.returncode, p.stderr


DEVICE_ERRORS = {
    # args after "--" (a server: it fails before it waits), message
    "gid-index-empty": (["write_bw", "-x", "5"], "-x/--gid-index: GID 5 is empty"),
    "unknown-device": (["write_bw", "-d", "dr_nope"], "-d/--ib-dev: no device 'dr_nope'"),
}


@pytest.mark.parametrize("args,message", list(DEVICE_ERRORS.values()), ids=list(DEVICE_ERRORS))
def test_device_refuses(perf_exe, args, message):
    rc, err = _one(perf_exe, args)
    assert rc == 1 and message in err, err


def test_oob_port_in_use(perf_exe):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        rc, err = _one(perf_exe, ["write_bw"], port=port)
    assert rc == 1 and "cannot listen on 127.0.0.1 port %d" % port in err, err


@pytest.mark.slow
def test_no_server(perf_exe):
    """The client retries for 10 s, then gives up."""
    port = pair.free_tcp_port()
    start = time.monotonic()
    rc, err = _one(perf_exe, ["write_bw", "127.0.0.1"], port=port, timeout=40)
    assert rc == 1 and "cannot connect to 127.0.0.1 port %d" % port in err, err
    assert 9 <= time.monotonic() - start < 40


# ---- runs cut short ----

def _output(side):
    """What a running side has printed so far (pread: the child's offset stays)."""
    return side.printed().decode(errors="replace")


def _start_long_run(perf_exe, test, net=None):
    """A 60 s run of `test` over memif, or over the data veth of `net` with
    net_af_packet (server in ns_a, client in ns_b, OOB on the control veth)."""
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000000)
    sock, port = "/tmp/dr-memif-%s.sock" % tag, pair.free_tcp_port()
    sides = []
    for role, ip, addr in (("server", pair.SERVER_IP, None), ("client", pair.CLIENT_IP,
                                                             "127.0.0.1")):
        prefix = "drpb%s_%s" % (role[0], tag)
        if net is None:
            cmd = pair.perf_cmd(perf_exe, pair.memif_eal(role, sock, prefix),
                                [test, "-D", "60", "-s", "4096"], ip, port, server_addr=addr)
        else:
            ns, iface = (net.ns_a, net.if_a) if role == "server" else (net.ns_b, net.if_b)
            cmd = pair.perf_cmd(perf_exe, pair.afpacket_eal(iface, prefix),
                                [test, "-D", "60", "-s", "1024"], ip, port,
                                server_addr=netns.CTL_A if role == "client" else None,
                                netns=ns, oob_bind=netns.CTL_A if role == "server" else None)
        side = pair.Side(role, cmd, prefixes=[prefix])
        side.start()
        sides.append(side)
        if role == "server":
            side.wait_ready()             # its port started (pair.run_pair())
    deadline = time.monotonic() + TIMEOUT
    while " #bytes" not in _output(sides[1]) and time.monotonic() < deadline:
        if any(s.proc.poll() is not None for s in sides):
            break
        time.sleep(0.1)
    # well into the measured run: past the barrier that starts it (an OOB exchange, which a
    # loaded machine can keep the server from for a while), frames both ways on the client's port
    client_prefix = "drpbc_%s" % tag
    while time.monotonic() < deadline and all(s.proc.poll() is None for s in sides):
        try:
            st = soak.telemetry(client_prefix, "/dr/context/stats,0") or {}   # its port 0's context
            if st.get("tx_pkts", 0) >= RUNNING_PKTS and st.get("rx_pkts", 0) >= RUNNING_PKTS:
                break
        except (OSError, ValueError, KeyError, TypeError):
            pass                          # the socket is not up yet
        time.sleep(0.1)
    return sides, sock


def _finish(sides, sock):
    deadline = time.monotonic() + TIMEOUT
    for s in sides:
        try:
            s.proc.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        s.kill()
        s.collect()
    if os.path.exists(sock):
        os.unlink(sock)


@pytest.mark.parametrize("test", ["write_bw", "send_lat"])
def test_sigint_stops_both_in_band(perf_exe, test):
    """SIGINT to the client mid-run: it tells the server, both stop driving
    their ports before either closes, both exit 1."""
    sides, sock = _start_long_run(perf_exe, test)
    try:
        server, client = sides
        assert client.proc.poll() is None, "the run ended early"
        os.kill(client.proc.pid, signal.SIGINT)
    finally:
        _finish(sides, sock)
    desc = server.describe() + client.describe()
    assert client.rc == 1 and server.rc == 1 and not client.timed_out, desc
    assert "dpdk-rdma-perf: run: interrupted" in client.stderr, desc
    assert "dpdk-rdma-perf: the peer stopped: run: interrupted" in server.stderr, desc


@pytest.fixture(scope="module")
def veth():
    if os.geteuid() != 0:
        pytest.skip("needs root: network namespaces and veth pairs")
    with netns.VethNetns(tag="v%d" % (os.getpid() % 100000000)) as net:
        yield net


@pytest.mark.parametrize("victim", ["server", "client"])
def test_peer_vanishes(perf_exe, veth, victim):
    """SIGKILL one side mid-run: the other sees the OOB connection close,
    stops, and exits 1 (no crash, no hang). Over a kernel veth link: with
    memif, a peer that vanishes while its shared memory is being polled can
    crash the survivor inside DPDK 22.11's memif PMD itself, which no
    application can prevent (doc/guides/backends.rst)."""
    sides, sock = _start_long_run(perf_exe, "write_bw", net=veth)
    dead, alive = (sides[0], sides[1]) if victim == "server" else (sides[1], sides[0])
    try:
        assert alive.proc.poll() is None and dead.proc.poll() is None, "the run ended early"
        os.kill(dead.proc.pid, signal.SIGKILL)
    finally:
        _finish(sides, sock)
    desc = alive.describe()
    assert alive.rc == 1 and not alive.timed_out, desc
    assert "the peer closed the connection" in alive.stderr, desc
