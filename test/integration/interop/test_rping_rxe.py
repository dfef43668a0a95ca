# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Connection management against Linux's rdma_cm: librdmacm's unmodified
rping in an rxe VM (Debian 12, kernel 6.1) against dpdk-rdma-rping (the same
program on our dr_cm_ API), both ways: the REQ, REP and RTU of the InfiniBand
CM in MADs on QP1, five ping-pongs (a SEND of the source buffer's key and
address, the server's RDMA READ of it, a SEND back, the sink's key, the
server's RDMA WRITE into it, a SEND back; -V: every byte compared), then
DREQ and DREP. Our side inline, and in rtc and pipeline mode. The capture of
the VM's tap must hold the CM's MADs, each to QP1 with a good ICRC."""

import re
import subprocess
import time

import pytest

from . import ours
from .conftest import engine_mode, harness_session
from .ours import exe_of

VM = ("rpvm", "10.99.0.2/24")
OUR_IP = "10.99.0.17"
VETH = "rpv0"
PORT = 7174
COUNT = 5
TIMEOUT = 60
PING = re.compile(r"^(server )?ping data: rdma-ping-(\d+): ", re.M)


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    with harness_session() as h:
        vm = h.start(*VM, timeout=120)
        h.veth(VETH)
        p = ours.Peer(h, vm, VETH, tmp_path_factory.mktemp("rping"), "drrp")
        try:
            yield p
        finally:
            p.cleanup()


def start_ours(peer, args, mode, out):
    eal, engine = engine_mode(mode) if mode else ((), [])
    argv = [exe_of("dpdk-rdma-rping")] + peer.eal("af_packet", more=eal) + ["--", "--ip", OUR_IP] + \
        args + engine
    return peer.harness.netns_popen(argv, stdout=out, stderr=subprocess.STDOUT, text=True)


def finish(proc, timeout):
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def cm_mads(dump_json, pcap):
    """The frames to QP1 in the capture (all must have a good ICRC)."""
    frames, _ = dump_json(pcap)
    mads = [f for f in frames if f.get("dest_qp") == 1]
    assert mads and all(f["icrc_ok"] for f in mads), mads
    return mads


MODES = [None, "rtc", "pipeline"]


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_rxe_client(peer, dump_json, mode):
    """rxe's rping -c against our dpdk-rdma-rping -s."""
    name = "rxe_client_%s" % (mode or "inline")
    pcap = str(peer.outdir / (name + ".pcap"))
    log = peer.outdir / (name + ".ours.txt")
    peer.harness.capture_start(pcap, peer.vm.tap)
    with open(log, "w") as out:
        proc = start_ours(peer, ["-s", "-v", "-p", str(PORT)], mode, out)
    try:
        end = time.monotonic() + 30
        while "server listening" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < end, log.read_text()
            time.sleep(0.1)
        theirs = peer.vm.exec("rping -c -a %s -p %d -C %d -v -V" % (OUR_IP, PORT, COUNT), TIMEOUT)
        rc = finish(proc, 5 if theirs.rc != 0 else TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        peer.harness.capture_stop(pcap)
    text = log.read_text()
    peer.vm.explain(theirs)
    assert (rc, ours.rxe_rping_rc(theirs, "client")) == (0, 0), \
        "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    assert [int(i) for _, i in PING.findall(theirs.output)] == list(range(COUNT)), theirs.output
    assert [int(i) for _, i in PING.findall(text)] == list(range(COUNT)), text
    assert "server DISCONNECT EVENT" in text and "data mismatch" not in theirs.output
    assert len(cm_mads(dump_json, pcap)) >= 5        # REQ REP RTU DREQ DREP


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_rxe_server(peer, dump_json, mode):
    """rxe's rping -s against our dpdk-rdma-rping -c."""
    name = "rxe_server_%s" % (mode or "inline")
    pcap = str(peer.outdir / (name + ".pcap"))
    log = peer.outdir / (name + ".ours.txt")
    peer.harness.capture_start(pcap, peer.vm.tap)
    job = peer.vm.spawn("rping -s -a %s -p %d -v" % (peer.vm.ip, PORT), TIMEOUT)
    try:
        # rping -s prints nothing when it listens: until it does, its CM answers REJ 8
        for _ in range(10):
            time.sleep(1.0)
            with open(log, "w") as out:
                proc = start_ours(peer, ["-c", "-a", peer.vm.ip, "-p", str(PORT), "-C", str(COUNT),
                                         "-v", "-V"], mode, out)
            rc = finish(proc, TIMEOUT)
            if rc == 0 or "REJECTED, error 8" not in log.read_text():
                break
        theirs = job.wait(TIMEOUT if rc == 0 else 5)
    finally:
        peer.harness.capture_stop(pcap)
    text = log.read_text()
    peer.vm.explain(theirs)
    assert (rc, ours.rxe_rping_rc(theirs, "server")) == (0, 0), \
        "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    assert [int(i) for _, i in PING.findall(text)] == list(range(COUNT)), text
    assert [int(i) for _, i in PING.findall(theirs.output)] == list(range(COUNT)), theirs.output
    assert "data mismatch" not in text
    assert len(cm_mads(dump_json, pcap)) >= 5


def test_rejected_by_rxe(peer):
    """A port nobody listens on in the VM: rxe's CM answers REJ 8 (invalid
    service ID) and our client says so as rping does, exit 1."""
    log = peer.outdir / "rejected.ours.txt"
    with open(log, "w") as out:
        proc = start_ours(peer, ["-c", "-a", peer.vm.ip, "-p", str(PORT + 5), "-C", "1"], None, out)
    rc = finish(proc, TIMEOUT)
    text = log.read_text()
    assert rc == 1 and "cma event RDMA_CM_EVENT_REJECTED, error 8" in text, text
