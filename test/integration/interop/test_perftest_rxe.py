# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf --perftest-compat against Debian's unmodified perftest
(ib_write_bw, ib_send_bw, ib_read_bw and the _lat tests) on Linux rxe.

One VM (10.99.0.2, rxe0 on a 1500-byte link: path MTU 1024). Our
dpdk-rdma-perf runs in the harness namespace on a veth joined to the bridge
(net_af_packet; RoCE from 10.99.0.11, which our ARP answers); the TCP
exchange goes over the namespace's kernel stack (10.99.0.1) to the guest's.
Each test runs both ways (rxe server and our client, our server and rxe
client), with the VM's tap captured and decoded: every frame's ICRC must
hold. Both sides must print their result row (perftest's read_lat server
prints none, and neither does ours).
"""

import os
import re
import subprocess
import time

import pytest

from .conftest import harness_session

VM = ("ptvm", "10.99.0.2/24")
OUR_IP = "10.99.0.11"
VETH = "ptv0"
PORT = 18515
TIMEOUT = 60

BW_ROW = re.compile(r"^ (\d+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s*$", re.M)
LAT_ROW = re.compile(r"^ (\d+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s*$",
                     re.M)

# (test, size, iterations, more arguments for both sides)
CASES = [("write_bw", 64, 100, []), ("write_bw", 8192, 100, []),
         ("send_bw", 64, 100, []), ("send_bw", 8192, 100, []),
         ("read_bw", 64, 100, []), ("read_bw", 8192, 100, []),
         ("write_bw", 4096, 50, ["-q", "2"]), ("send_bw", 2048, 50, ["-q", "2"]),
         ("write_lat", 64, 50, []), ("send_lat", 64, 50, []), ("read_lat", 64, 50, []),
         ("write_lat", 300, 300, [])]


class Peer:
    def __init__(self, harness, vm, outdir, perf):
        self.harness = harness
        self.vm = vm
        self.outdir = outdir
        self.perf = perf
        self.seq = 0

    def ours(self, test, args, server):
        self.seq += 1
        argv = [self.perf, "--no-huge", "-m", "256", "--no-pci",
                "--file-prefix=drpt%d_%d" % (os.getpid(), self.seq),
                "--vdev=net_af_packet0,iface=%s" % VETH, "--",
                test, "--ip", OUR_IP, "--perftest-compat", "-p", str(PORT)] + args
        argv += ["--oob-bind", self.harness.host_ip] if server else [self.vm.ip]
        return self.harness.netns_popen(argv, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)

    def run(self, test, size, iters, more, ours_server):
        """Returns (our rc, our output, rxe rc, rxe output, pcap)."""
        name = "%s_%d%s_%s" % (test, size, "".join(more), "oursrv" if ours_server else "rxesrv")
        args = ["-s", str(size), "-n", str(iters)] + more
        tool = "ib_%s -d rxe0 -x 1 -p %d %s" % (test, PORT, " ".join(args))
        pcap = str(self.outdir / (name + ".pcap"))
        self.harness.capture_start(pcap, self.vm.tap)
        ours = None
        try:
            if ours_server:
                ours = self.ours(test, args, True)
                self._wait_listen()
                res = self.vm.exec("%s %s" % (tool, self.harness.host_ip), TIMEOUT)
            else:
                job = self.vm.spawn(tool, TIMEOUT)
                self.vm.wait_tcp_listen(PORT, timeout=30)
                ours = self.ours(test, args, False)
                res = None
                try:
                    ours.wait(TIMEOUT)
                finally:
                    res = job.wait(TIMEOUT if ours.returncode == 0 else 5)
            out, _ = ours.communicate(timeout=TIMEOUT)
        finally:
            if ours is not None and ours.poll() is None:
                ours.kill()
                ours.communicate()
            self.harness.capture_stop(pcap)
        for who, text in (("ours", out), ("rxe", res.output)):
            with open(self.outdir / ("%s.%s.txt" % (name, who)), "w") as f:
                f.write(text)
        return ours.returncode, out, res.rc, res.output, pcap

    def _wait_listen(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            r = self.harness.netns_run(["ss", "-Hltn", "sport = :%d" % PORT], check=False)
            if r.stdout.strip():
                return
            time.sleep(0.1)
        raise AssertionError("dpdk-rdma-perf did not listen on %d" % PORT)


@pytest.fixture(scope="module")
def peer(tmp_path_factory, perf_exe):
    with harness_session() as h:
        vm = h.start(*VM, timeout=120)
        h.veth(VETH)
        yield Peer(h, vm, tmp_path_factory.mktemp("perftest"), str(perf_exe))


def rows(test, text):
    return (BW_ROW if test.endswith("_bw") else LAT_ROW).findall(text)


@pytest.mark.parametrize("ours_server", [False, True], ids=["rxe_server", "our_server"])
@pytest.mark.parametrize("test,size,iters,more", CASES,
                         ids=["%s_%d%s" % (c[0], c[1], "".join(c[3])) for c in CASES])
def test_perftest(peer, dump_json, test, size, iters, more, ours_server):
    rc, out, rrc, rout, pcap = peer.run(test, size, iters, more, ours_server)
    assert rc == 0 and rrc == 0, "ours %d:\n%s\nrxe %d:\n%s" % (rc, out, rrc, rout)
    # perftest's read_lat server prints no row; ours does as perftest
    for who, text, server in (("ours", out, ours_server), ("rxe", rout, not ours_server)):
        # perftest's bw rows count the messages of all QPs
        qps = int(more[more.index("-q") + 1]) if "-q" in more else 1
        want = [] if (test == "read_lat" and server) else [(str(size), str(iters * qps))]
        assert rows(test, text) == want, "%s:\n%s" % (who, text)
    frames, _ = dump_json(pcap, "--fail-on-error")
    assert frames and all(f["icrc_ok"] for f in frames)
    assert {f["src"] for f in frames} == {peer.vm.ip, OUR_IP}
