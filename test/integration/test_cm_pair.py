# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The connection manager's programs between two of our processes, each in
a network namespace of its own on one CPU, over a veth pair (net_af_packet):
dpdk-rdma-udaddy (UD QPs through SIDR, 8 connections, every arrival
checked with -V) and dpdk-rdma-server / dpdk-rdma-client (synchronous ids,
rdma_create_ep, rdma_get_request, the rdma_verbs.h helpers, DREQ/DREP, and
the CM lingering at close until its DREP is out), inline and in rtc mode.
A veth rather than memif: the sides end at once, and a memif peer that
vanishes while the other polls can crash it (DPDK 22.11)."""

import os
import time

import pytest

from perfutil import netns, pair

IP_A, IP_B = "10.77.0.1", "10.77.0.2"
TIMEOUT = 60


def side(net, name, exe, ns, iface, ip, args, cpu, mode, tag):
    prefix = "drcm%s_%s" % (name[0], tag)
    # inline: one lcore; rtc: the main lcore and a worker, both on the side's CPU (idle ones yield)
    eal = pair.afpacket_eal(iface, prefix) + (["--lcores", "(0-1)@%d" % cpu] if mode else ["-l", str(cpu)])
    engine = ["--mode", mode, "--workers", "1", "--idle", "yield"] if mode else []
    cmd = ["ip", "netns", "exec", ns, exe] + eal + ["--", "--ip", ip] + args + engine
    return pair.Side(name, cmd, prefixes=[prefix])


def run(exe_dir, server_exe, client_exe, server_args, client_args, ready, mode):
    cpus = sorted(os.sched_getaffinity(0))
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000)
    with netns.VethNetns(tag=tag[-6:]) as net:
        s = side(net, "server", os.path.join(exe_dir, server_exe), net.ns_a, net.if_a, IP_A, server_args,
                 cpus[0], mode, tag)
        c = side(net, "client", os.path.join(exe_dir, client_exe), net.ns_b, net.if_b, IP_B, client_args,
                 cpus[-1], mode, tag)
        try:
            s.start()
            end = time.monotonic() + 30
            while ready not in s.printed() and s.proc.poll() is None and time.monotonic() < end:
                time.sleep(0.05)
            time.sleep(0.3)
            c.start()
            end = time.monotonic() + TIMEOUT
            while time.monotonic() < end and (s.proc.poll() is None or c.proc.poll() is None):
                time.sleep(0.05)
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
