# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The connection manager's programs between two of our processes, each in
a network namespace of its own on one CPU, over a veth pair (net_af_packet):
dpdk-rdma-udaddy (UD QPs through SIDR, 8 connections, every arrival
checked with -V), dpdk-rdma-server / dpdk-rdma-client (synchronous ids,
rdma_create_ep, rdma_get_request, the rdma_verbs.h helpers, DREQ/DREP, and
the CM lingering at close until its DREP is out), dpdk-rdma-cmatose with
100 connections at once and 1,000 one after the other (each carrying
checked messages both ways, then DREQ/DREP), and a server that stops
answering mid-handshake: the client's REQ is given up (UNREACHABLE) and it
closes with nothing left. Inline and in rtc mode.
A veth rather than memif: the sides end at once, and a memif peer that
vanishes while the other polls can crash it (DPDK 22.11)."""

import os
import signal
import subprocess
import time

import pytest

from perfutil import netns, pair

IP_A, IP_B = "10.77.0.1", "10.77.0.2"
IP6_A, IP6_B = "fd77::1", "fd77::2"
TIMEOUT = 60


def side(net, name, exe, ns, iface, ip, args, cpu, mode, tag, env=(), ip6=None):
    prefix = "drcm%s_%s" % (name[0], tag)
    # inline: one lcore; rtc: the main lcore and a worker, both on the side's CPU (idle ones yield)
    eal = pair.afpacket_cpu_eal(iface, prefix, cpu, engine=bool(mode))
    engine = ["--mode", mode, "--workers", "1", "--idle", "yield"] if mode else []
    ips = ["--ip", ip] + (["--ipv6", ip6] if ip6 else [])
    cmd = ["ip", "netns", "exec", ns, "env"] + list(env) + [exe] + eal + ["--"] + ips + args + engine
    return pair.Side(name, cmd, prefixes=[prefix])


def run(exe_dir, server_exe, client_exe, server_args, client_args, ready, mode, timeout=TIMEOUT, env=(),
        stop_server=False, ipv6=False):
    """Server, then the client once the server printed `ready`; both to their
    end (`timeout`), killed by PID past it. stop_server: SIGSTOP the server
    before the client starts (it vanishes: nothing it receives is answered).
    ipv6: each side's port has an IPv6 address too (IP6_A, IP6_B: GID 2)."""
    cpus = sorted(os.sched_getaffinity(0))
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000)
    with netns.VethNetns(tag=tag[-6:]) as net:
        s = side(net, "server", os.path.join(exe_dir, server_exe), net.ns_a, net.if_a, IP_A, server_args,
                 cpus[0], mode, tag, env, IP6_A if ipv6 else None)
        c = side(net, "client", os.path.join(exe_dir, client_exe), net.ns_b, net.if_b, IP_B, client_args,
                 cpus[-1], mode, tag, env, IP6_B if ipv6 else None)
        try:
            s.start()
            end = time.monotonic() + 30
            while ready not in s.printed() and s.proc.poll() is None and time.monotonic() < end:
                time.sleep(0.05)
            time.sleep(0.3)
            if stop_server:
                os.killpg(s.proc.pid, signal.SIGSTOP)
            c.start()
            end = time.monotonic() + timeout
            while time.monotonic() < end and (c.proc.poll() is None or
                                              (s.proc.poll() is None and not stop_server)):
                time.sleep(0.05)
            if stop_server:
                os.killpg(s.proc.pid, signal.SIGKILL)
        finally:
            for x in (s, c):
                x.kill()
            for x in (s, c):
                x.collect()
    return s, c


def app_dir(name):
    build = os.environ.get("DR_BUILD_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "build")
    d = os.path.join(build, "app", name)
    if not os.path.isdir(d):
        pytest.fail("%s is not built" % d)
    return d


MODES = [None, "rtc"]


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_udaddy_pair(mode):
    """Eight UD connections through SIDR, ten checked messages each way on each."""
    d = app_dir("dpdk-rdma-udaddy")
    s, c = run(d, "dpdk-rdma-udaddy", "dpdk-rdma-udaddy", ["-c", "8", "-V"], ["-s", IP_A, "-c", "8", "-V"],
               b"udaddy: starting server", mode)
    assert (s.rc, c.rc) == (0, 0), s.describe() + c.describe()
    for x in (s, c):
        assert "data transfers complete" in x.stdout and "return status 0" in x.stdout, x.describe()


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_server_client_pair(mode):
    """rdma_server / rdma_client's exchange, both sides ours; both close clean
    (no object left: dr_close_device() would say so)."""
    d = app_dir("dpdk-rdma-cmsample")
    s, c = run(d, "dpdk-rdma-server", "dpdk-rdma-client", [], ["-s", IP_A], b"rdma_server: listening", mode)
    assert (s.rc, c.rc) == (0, 0), s.describe() + c.describe()
    assert "rdma_server: received 16 bytes, status 0" in s.stdout, s.describe()
    assert "rdma_client: received 16 bytes, status 0" in c.stdout, c.describe()
    for x in (s, c):
        assert "dr_close_device failed" not in x.stderr, x.describe()


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_cmatose_concurrent(mode):
    """100 RC connections at once through the CM, 10 checked messages each
    way on each, then 100 DREQ/DREP."""
    d = app_dir("dpdk-rdma-cmatose")
    s, c = run(d, "dpdk-rdma-cmatose", "dpdk-rdma-cmatose", ["-c", "100", "-V"],
               ["-s", IP_A, "-c", "100", "-V"], b"cmatose: starting server", mode, timeout=120)
    assert (s.rc, c.rc) == (0, 0), s.describe() + c.describe()
    assert "disconnected" in s.stdout and "return status 0" in c.stdout, s.describe() + c.describe()
    for x in (s, c):
        assert "dr_close_device failed" not in x.stderr, x.describe()


def test_cmatose_sequential():
    """1,000 connections one after the other (new ids each time), a checked
    message each way on each, released with DREQ/DREP: the slots of those in
    time wait come back, nothing leaks."""
    d = app_dir("dpdk-rdma-cmatose")
    args = ["-c", "1", "-C", "1", "-V", "--rounds", "1000"]
    s, c = run(d, "dpdk-rdma-cmatose", "dpdk-rdma-cmatose", args, ["-s", IP_A] + args,
               b"cmatose: starting server", None, timeout=240)
    assert (s.rc, c.rc) == (0, 0), s.describe()[-3000:] + c.describe()[-3000:]
    for x in (s, c):
        assert "1000 rounds done" in x.stdout and "dr_close_device failed" not in x.stderr, x.describe()[-3000:]


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_peer_vanishes_mid_handshake(mode):
    """The server stops (SIGSTOP) once it listens: the client's REQ goes
    unanswered; with short CM timeouts (DR_CM_RESPONSE_TIMEOUT=14: 67 ms,
    3 retries) it hears UNREACHABLE (-ETIMEDOUT), says so, and closes clean
    (exit 1, no object left, no crash); then the server is killed."""
    d = app_dir("dpdk-rdma-cmatose")
    env = ["DR_CM_RESPONSE_TIMEOUT=14", "DR_CM_MAX_RETRIES=3"]
    t0 = time.monotonic()
    s, c = run(d, "dpdk-rdma-cmatose", "dpdk-rdma-cmatose", [], ["-s", IP_A], b"cmatose: starting server",
               mode, timeout=30, env=env, stop_server=True)
    assert c.rc == 1 and not c.timed_out, c.describe()
    assert "RDMA_CM_EVENT_UNREACHABLE, error: -110" in c.stdout, c.describe()
    assert "dr_close_device failed" not in c.stderr and "return status" in c.stdout, c.describe()
    assert time.monotonic() - t0 < 25


@pytest.mark.parametrize("test", ["write_bw", "send_bw", "read_lat"])
def test_perf_rdma_cm_pair(test):
    """dpdk-rdma-perf -R against itself: perftest's rdma_cm mode both sides
    (the exchange on a comm connection of the CM, the QP on a second one)."""
    d = app_dir("dpdk-rdma-perf")
    args = [test, "-R", "-s", "4096" if test != "read_lat" else "64", "-n", "200"]
    s, c = run(d, "dpdk-rdma-perf", "dpdk-rdma-perf", args, args + [IP_A], b"Waiting for client to connect",
               None)
    assert (s.rc, c.rc) == (0, 0), s.describe() + c.describe()
    for x in (s, c):
        assert "rdma_cm QPs\t : ON" in x.stdout and "Data ex. method : rdma_cm" in x.stdout, x.describe()
    assert " 4096 " in c.stdout or test == "read_lat", c.describe()


# Over IPv6 GIDs (IBA Annex A11's header with IPV 6, RoCEv2 in IPv6), and an
# IPv4 client to a server whose wildcard is IPv6's (it takes both).
IPV6_CASES = {
    "udaddy": ("dpdk-rdma-udaddy", "dpdk-rdma-udaddy", "dpdk-rdma-udaddy", ["-c", "2", "-V"],
               ["-s", IP6_A, "-c", "2", "-V"], b"udaddy: starting server", "return status 0"),
    "cmatose": ("dpdk-rdma-cmatose", "dpdk-rdma-cmatose", "dpdk-rdma-cmatose", ["-c", "4", "-V"],
                ["-s", IP6_A, "-c", "4", "-V"], b"cmatose: starting server", "return status 0"),
    "cmatose_v4_to_v6_wildcard": ("dpdk-rdma-cmatose", "dpdk-rdma-cmatose", "dpdk-rdma-cmatose", ["-c", "2", "-V"],
                                  ["-s", IP_A, "-c", "2", "-V"], b"cmatose: starting server", "return status 0"),
    "server_client": ("dpdk-rdma-cmsample", "dpdk-rdma-server", "dpdk-rdma-client", [], ["-s", IP6_A],
                      b"rdma_server: listening", "end 0"),
    "perf_write_bw": ("dpdk-rdma-perf", "dpdk-rdma-perf", "dpdk-rdma-perf",
                      ["write_bw", "-R", "-s", "4096", "-n", "200"],
                      ["write_bw", "-R", "-s", "4096", "-n", "200", IP6_A], b"Waiting for client to connect",
                      "rdma_cm QPs\t : ON"),
}


@pytest.mark.parametrize("case", list(IPV6_CASES))
def test_ipv6_pair(case):
    """The CM programs between two of ours whose ports have IPv6 addresses:
    the client names the server's IPv6 address (or, last case, its IPv4 one
    to a server bound to ::), and everything the IPv4 runs check holds."""
    folder, server_exe, client_exe, sargs, cargs, ready, done = IPV6_CASES[case]
    d = app_dir(folder)
    s, c = run(d, server_exe, client_exe, sargs, cargs, ready, None, ipv6=True)
    assert (s.rc, c.rc) == (0, 0), s.describe() + c.describe()
    assert done in c.stdout, c.describe()
    for x in (s, c):
        assert "dr_close_device failed" not in x.stderr, x.describe()


BAD_ARGS = [
    ("dpdk-rdma-cmatose", "dpdk-rdma-cmatose", ["-c", "0", "--ip", IP_A], "-c: connections"),
    ("dpdk-rdma-cmatose", "dpdk-rdma-cmatose", ["-P", "ib", "--ip", IP_A], "-P: only the tcp port space"),
    ("dpdk-rdma-cmatose", "dpdk-rdma-cmatose", ["--rounds", "0", "--ip", IP_A], "--rounds"),
    ("dpdk-rdma-cmatose", "dpdk-rdma-cmatose", ["-s", "nowhere", "--ip", IP_A], "-s: not an IP address"),
    ("dpdk-rdma-cmatose", "dpdk-rdma-cmatose", [], "--ip or --ipv6 is needed"),
    ("dpdk-rdma-cmatose", "dpdk-rdma-cmatose", ["--ipv6", IP_A], "not an IPv6 address"),
    ("dpdk-rdma-udaddy", "dpdk-rdma-udaddy", ["--ipv6", "::"], "not a unicast IPv6 address"),
    ("dpdk-rdma-rping", "dpdk-rdma-rping", ["-c", "-a", "fd77::1::2", "--ip", IP_A], "-a: not an IP address"),
    ("dpdk-rdma-udaddy", "dpdk-rdma-udaddy", ["-S", "0", "--ip", IP_A], "-S: a size"),
    ("dpdk-rdma-udaddy", "dpdk-rdma-udaddy", ["-P", "tcp", "--ip", IP_A], "-P: only the udp port space"),
    ("dpdk-rdma-udaddy", "dpdk-rdma-udaddy", ["--timeout", "0", "--ip", IP_A], "--timeout"),
    ("dpdk-rdma-cmsample", "dpdk-rdma-server", ["-p", "0", "--ip", IP_A], "-p: not a port"),
    ("dpdk-rdma-cmsample", "dpdk-rdma-client", ["--ip", IP_A], "-s is needed"),
    ("dpdk-rdma-cmsample", "dpdk-rdma-server", ["-s", "10.77.0", "--ip", IP_A], "-s: not an IP address"),
    ("dpdk-rdma-perf", "dpdk-rdma-perf", ["write_bw", "-R", "-q", "2", "--ip", IP_A], "-R/--rdma_cm"),
    ("dpdk-rdma-perf", "dpdk-rdma-perf", ["send_bw", "-R", "-c", "UD", "--ip", IP_A], "-R/--rdma_cm"),
    ("dpdk-rdma-perf", "dpdk-rdma-perf", ["write_bw", "-R"], "--ip: required"),
]


@pytest.mark.parametrize("folder,exe,args,says", BAD_ARGS, ids=["%s %s" % (e, " ".join(a)) for _, e, a, _ in BAD_ARGS])
def test_bad_command_lines(folder, exe, args, says):
    """Every bad argument of the CM programs: exit 2 and a line that says which, before EAL starts."""
    p = subprocess.run([os.path.join(app_dir(folder), exe), "--"] + args, capture_output=True, text=True,
                       timeout=20)
    assert p.returncode == 2 and says in p.stderr, (p.returncode, p.stdout, p.stderr)


TELEMETRY_PY = "/usr/bin/dpdk-telemetry.py"


@pytest.mark.skipif(not os.access(TELEMETRY_PY, os.X_OK), reason="dpdk-telemetry.py not installed")
def test_cm_telemetry():
    """/dr/cm/stats of a cmatose server after one round of 4 connections
    (it waits for its second): the CM MADs taken and sent (REQ, RTU, DREQ,
    DREP each way per connection), no bad or unmatched one, QP1's counts at
    least the agent's; a context without a CM or a bad id is refused."""
    import json
    d = app_dir("dpdk-rdma-cmatose")
    cpus = sorted(os.sched_getaffinity(0))
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000)
    with netns.VethNetns(tag=tag[-6:]) as net:
        s = side(net, "server", os.path.join(d, "dpdk-rdma-cmatose"), net.ns_a, net.if_a, IP_A,
                 ["-c", "4", "--rounds", "2", "--timeout", "60"], cpus[0], None, tag)
        c = side(net, "client", os.path.join(d, "dpdk-rdma-cmatose"), net.ns_b, net.if_b, IP_B,
                 ["-s", IP_A, "-c", "4"], cpus[-1], None, tag)
        try:
            s.start()
            end = time.monotonic() + 30
            while b"cmatose: starting server" not in s.printed() and time.monotonic() < end:
                time.sleep(0.05)
            time.sleep(0.3)
            c.start()
            c.proc.wait(timeout=60)
            time.sleep(0.5)
            r = subprocess.run(["/usr/bin/python3", TELEMETRY_PY, "-f", s.prefixes[0]],
                               input="/dr/cm/stats,0\n/dr/cm/stats,7\n/dr/cm/stats,x\n",
                               capture_output=True, text=True, timeout=30)
        finally:
            for x in (s, c):
                x.kill()
            for x in (s, c):
                x.collect()
    assert c.rc == 0, c.describe()
    replies = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert len(replies) == 3, r.stdout
    st = replies[0]["/dr/cm/stats"]
    assert st["rx"] >= 12 and st["tx"] >= 8, st             # in: REQ, RTU, DREP each; out: REP, DREQ each
    assert st["rx_bad"] == 0 and st["rx_unmatched"] == 0 and st["rej_sent"] == 0, st
    assert st["qp1_rx"] >= st["rx"] and st["qp1_tx"] >= st["tx"] - st["tx_dropped"], st
    assert replies[1]["/dr/cm/stats"] is None and replies[2]["/dr/cm/stats"] is None, replies
