# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf -R against Debian's unmodified perftest -R (rdma_cm mode)
on Linux rxe, both ways: ib_write_bw, ib_send_bw and ib_read_lat.

perftest -R makes two RC connections through the connection manager to
the server's port 18515: the first carries perftest's exchange (versions,
page and cache-line sizes, MTU, the 56-byte pingpong_dest hand shakes, the
write_bw report) as SENDs instead of TCP, the second is the test's QP,
readied by the CM. Both sides must print their rows and "rdma_cm QPs : ON",
the VM's tap must hold the CM's MADs (two connections: two REQs, two REPs)
and every frame's ICRC must hold."""

import os
import re
import shutil
import subprocess
import time

import pytest

from .conftest import harness_session, perftest_clock_failed
from .test_perftest_rxe import rows

VM = ("pcvm", "10.99.0.2/24")
OUR_IP = "10.99.0.13"
VETH = "pcv0"
PORT = 18515
TIMEOUT = 60

CASES = [("write_bw", 65536, 200), ("send_bw", 4096, 200), ("read_lat", 64, 100)]


@pytest.fixture(scope="module")
def peer(tmp_path_factory, perf_exe):
    with harness_session() as h:
        vm = h.start(*VM, timeout=120)
        h.veth(VETH)
        yield h, vm, tmp_path_factory.mktemp("perftest_cm"), str(perf_exe)


def run(peer, test, size, iters, ours_server, seq):
    h, vm, outdir, perf = peer
    prefix = "drpc%d_%d" % (os.getpid(), seq)
    args = ["-s", str(size), "-n", str(iters)]
    # --counters: a run that stalled shows its RTO expiries and go-back-Ns in the log
    # (write_bw of 64 KiB against rxe's server once took 35 s instead of 5: our 10 ms RTO
    # resending a 256-packet window that rxe under TCG drains in about 60 ms)
    ours_argv = [perf, "--no-huge", "-m", "256", "--no-pci", "--file-prefix=" + prefix,
                 "--vdev=net_af_packet0,iface=%s" % VETH, "--", test, "--ip", OUR_IP, "-R",
                 "-p", str(PORT), "--counters"] + args + ([] if ours_server else [vm.ip])
    tool = "ib_%s -d rxe0 -x $RXE_GID_IDX -R -p %d %s" % (test, PORT, " ".join(args))
    name = "%s_%s" % (test, "oursrv" if ours_server else "rxesrv")
    pcap = str(outdir / (name + ".pcap"))
    h.capture_start(pcap, vm.tap)
    ours = None
    try:
        if ours_server:
            ours = h.netns_popen(ours_argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            time.sleep(2.0)          # EAL, the port, the listener: then perftest's client, which never retries
            res = vm.exec("%s %s" % (tool, OUR_IP), TIMEOUT)
        else:
            job = vm.spawn(tool, TIMEOUT)
            time.sleep(1.0)          # our client retries a refused connect anyway
            ours = h.netns_popen(ours_argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                ours.wait(TIMEOUT)
            finally:
                res = job.wait(TIMEOUT if ours.returncode == 0 else 5)
        out, _ = ours.communicate(timeout=TIMEOUT)
    finally:
        if ours is not None and ours.poll() is None:
            ours.kill()
            ours.communicate()
        h.capture_stop(pcap)
    shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    vm.explain(res)
    for who, text in (("ours", out), ("rxe", res.output)):
        with open(outdir / ("%s.%s.txt" % (name, who)), "w") as f:
            f.write(text)
    return ours.returncode, out, res.rc, res.output, pcap


@pytest.mark.parametrize("ours_server", [True, False], ids=["oursrv", "rxesrv"])
@pytest.mark.parametrize("test,size,iters", CASES)
def test_perftest_rdma_cm(peer, dump_json, test, size, iters, ours_server):
    seq = CASES.index((test, size, iters)) * 2 + ours_server
    rc, out, trc, tout, pcap = run(peer, test, size, iters, ours_server, seq)
    if perftest_clock_failed(tout):
        rc, out, trc, tout, pcap = run(peer, test, size, iters, ours_server, seq + 10)
    assert (rc, trc) == (0, 0), "ours %s:\n%s\nrxe %s:\n%s" % (rc, out, trc, tout)
    for text in (out, tout):
        assert re.search(r"rdma_cm QPs\s*: ON", text), text
    # read_lat: perftest's server prints no row, and neither does ours
    printer = (out, tout) if test != "read_lat" else ((tout,) if ours_server else (out,))
    for text in printer:
        got = rows(test, text)
        assert got and int(got[0][0]) == size, text
    frames, _ = dump_json(pcap)
    assert frames and all(f["icrc_ok"] for f in frames)
    msgs = [f["cm"]["msg"] for f in frames if "cm" in f]
    assert msgs.count("REQ") >= 2 and msgs.count("REP") >= 2 and msgs.count("RTU") >= 2, msgs
