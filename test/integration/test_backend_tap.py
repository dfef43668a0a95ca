# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The ethdev backend's rte_flow path on a PMD that has rte_flow: net_tap, in
a network namespace of the test's own (never the host's interfaces).

net_tap implements rte_flow with the kernel's TC (multiq qdisc, flower). On
this machine's kernel neither exists: the PMD disables its rte_flow, accepts
rule validation for Ethernet/IP/UDP patterns but not the ARP item, and can
neither create rules nor leave isolated mode once the port runs. The
backend validates every rule before it asks for isolation, so here it must
say so at INFO, stay out of isolated mode, and use the port whole: the
kernel at the other end resolves our address (our ARP reply arrives).
Where TC has flower and multiq the same test shows the rules taken instead
(the log then says "rte_flow steers"); either way the port must work."""

import os
import re
import subprocess
import threading
import time

import pytest

from conftest import app_exe

NS = "drtap%d" % os.getpid()
IFACE = "drtap0"
OUR_IP, PEER_IP = "10.77.0.1", "10.77.0.2"


def sh(*cmd, check=True):
    return subprocess.run(list(cmd), check=check, capture_output=True, text=True, timeout=30)


@pytest.fixture
def netns():
    if os.geteuid() != 0:
        pytest.fail("net_tap in a network namespace needs root")
    sh("ip", "netns", "add", NS)
    yield NS
    sh("ip", "netns", "del", NS, check=False)


def test_tap_rte_flow_falls_back_and_port_works(netns):
    perf = app_exe("dpdk-rdma-perf")
    prefix = "drtap_%d" % os.getpid()
    cmd = ["ip", "netns", "exec", netns, str(perf), "--no-pci", "--no-huge", "-m", "256",
           "--lcores", "0@0,1@1", "--file-prefix", prefix, "--vdev", "net_tap0,iface=" + IFACE,
           "--log-level", "lib.dr.*:info", "--",
           "send_bw", "--ip", OUR_IP, "--mode", "rtc", "--workers", "1", "--idle", "yield"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        # the server waits for a client once its context is open: its worker polls the port
        deadline = time.monotonic() + 20
        while not any("Waiting for client" in l for l in lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
            time.sleep(0.2)
        sh("ip", "netns", "exec", netns, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % IFACE)
        sh("ip", "-n", netns, "addr", "add", PEER_IP + "/24", "dev", IFACE)
        neigh = ""
        while time.monotonic() < deadline:
            # the PMD sets the interface's flags as it starts: up again, until it answers
            sh("ip", "-n", netns, "link", "set", IFACE, "up")
            # a datagram to us makes the kernel ask for our MAC (ARP)
            sh("ip", "netns", "exec", netns, "/usr/bin/python3", "-c",
               "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
               ".sendto(b'x', (%r, 9))" % OUR_IP, check=False)
            time.sleep(0.5)
            neigh = sh("ip", "-n", netns, "neigh", "show", OUR_IP).stdout
            if "lladdr" in neigh:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        reader.join(timeout=10)
    out = "".join(lines)
    assert re.search(r"lladdr [0-9a-f:]{17}", neigh), (neigh, out)
    our_mac = re.search(r"MAC ([0-9A-F:]{17})", out).group(1).lower()
    assert our_mac in neigh, (neigh, out)
    # the rte_flow decision, logged at INFO, never as an error
    steered = "rte_flow steers RoCEv2" in out
    assert steered or "no rte_flow steering" in out or "no rte_flow isolated mode" in out, out
    assert not re.search(r"dr_drv: .*(cannot leave isolated|isolated with no rule)", out), out
    if not steered:
        assert "flow-isolated" not in out, out
