# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The bifurcated host on af_xdp: drivers/ethdev/bpf/dr_xdp_steer.o as the
xdp_prog of a net_af_xdp port hands dpdk-rdma RoCEv2 and the ARP of its own
address, and passes everything else to the kernel on the same interface.

Each end of a veth pair (its own namespace) carries a kernel address
(198.18.0.1/2, RFC 2544's benchmarking block) and our RoCEv2 address
(192.0.2.1/2) on the same interface. While dpdk-rdma-perf moves checked
RDMA WRITEs between the two af_xdp ports:

- the kernels move a checked TCP stream over the same veth: the kernel
  kept its traffic, and answered ARP for its address;
- our ports resolved each other's RoCEv2 address (ARP through the program)
  and every byte of the run checks;
- the port logs that the program steers our addresses to us;
- control: with DPDK's default program (every frame to the socket) the
  kernel's TCP over the same veth fails while the port runs.
"""

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from perfutil import netns

KERNEL_A, KERNEL_B = "198.18.0.1", "198.18.0.2"
TCP_PORT = 5201
TCP_BYTES = 4 << 20


def steer_prog():
    build = Path(os.environ.get("DR_BUILD_DIR") or Path(__file__).resolve().parents[2] / "build")
    p = build / "drivers" / "ethdev" / "bpf" / "dr_xdp_steer.o"
    if not p.exists():
        pytest.fail("%s is not built (clang)" % p)
    return str(p)


def ns_run(ns, *cmd, timeout=20):
    return subprocess.run(["ip", "netns", "exec", ns] + list(cmd), capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def veth():
    net = netns.VethNetns(tag="bf%d" % (os.getpid() % 100000))
    try:
        net.create()
        for ns, iface, addr in ((net.ns_a, net.if_a, KERNEL_A), (net.ns_b, net.if_b, KERNEL_B)):
            subprocess.run(["ip", "-n", ns, "addr", "add", addr + "/24", "dev", iface], check=True)
        yield net
    finally:
        net.destroy()


TCP_SERVER = """
import hashlib, socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(30)
c, _ = s.accept(); c.settimeout(30); h = hashlib.sha256(); n = 0
while True:
    b = c.recv(65536)
    if not b: break
    h.update(b); n += len(b)
print(n, h.hexdigest())
"""

TCP_CLIENT = """
import hashlib, socket, sys
data = bytes(range(256)) * (int(sys.argv[3]) // 256)
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30); s.sendall(data); s.close()
print(len(data), hashlib.sha256(data).hexdigest())
"""


def kernel_traffic(net):
    """A checked TCP stream from b's kernel to a's, over the data veth: (ok, report)."""
    py = "/usr/bin/python3"
    srv = subprocess.Popen(["ip", "netns", "exec", net.ns_a, py, "-c", TCP_SERVER, KERNEL_A, str(TCP_PORT)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        cli = ns_run(net.ns_b, py, "-c", TCP_CLIENT, KERNEL_A, str(TCP_PORT), str(TCP_BYTES), timeout=40)
        out = srv.communicate(timeout=40)[0] if cli.returncode == 0 else ""
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.communicate()
    ok = cli.returncode == 0 and out.strip() == cli.stdout.strip() and out.strip()
    return bool(ok), "tcp: client %r server %r %s" % (cli.stdout, out, cli.stderr[-300:])


def run_perf_with_kernel_traffic(net, vdev_extra):
    res = {}

    def perf():
        res["perf"] = netns.run_veth(net, "af_xdp", ["write_bw", "-m", "1024", "-s", "4096", "-D", "4", "--check"],
                                     vdev_extra=vdev_extra, timeout=60)
    t = threading.Thread(target=perf)
    t.start()
    time.sleep(2.0)                 # both ports up, the RDMA stream running
    ok, report = kernel_traffic(net)
    t.join(timeout=90)
    return res.get("perf"), ok, report


def test_roce_to_us_the_rest_to_the_kernel(veth):
    r, kernel_ok, report = run_perf_with_kernel_traffic(veth, ",xdp_prog=" + steer_prog())
    assert r is not None and r.ok, r.describe() if r is not None else "no result"
    assert kernel_ok, report
    for side in (r.server, r.client):
        assert "steers RoCEv2 and the ARP / ND of our" in side.stderr + side.stdout, side.describe()
    # the kernel resolved its peer itself: the ARP for its address reached it
    neigh = ns_run(veth.ns_b, "ip", "neigh", "show", KERNEL_A).stdout
    assert KERNEL_A in neigh and "FAILED" not in neigh, neigh


def test_default_program_takes_everything(veth):
    """Control: without our program the kernel loses the interface."""
    r, kernel_ok, report = run_perf_with_kernel_traffic(veth, "")
    assert r is not None and r.ok, r.describe() if r is not None else "no result"
    assert not kernel_ok, report
