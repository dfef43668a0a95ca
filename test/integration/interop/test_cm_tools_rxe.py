# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""librdmacm's other example programs against ours, both ways, in an rxe VM
(Debian 12, kernel 6.1):

- udaddy (UD QPs found through service ID resolution, IBA 12.11: SIDR_REQ,
  SIDR_REP with the service's QPN and Q_Key 0x01234567; then 10 SENDs with
  immediate each way per connection, replies addressed from the receive's
  GRH) against dpdk-rdma-udaddy, two connections;
- ucmatose (cmatose: RC connections through REQ/REP/RTU, 10 SENDs of 100
  bytes each way on each, then DREQ/DREP) against dpdk-rdma-cmatose, two
  connections;
- rdma_server / rdma_client (synchronous ids, rdma_create_ep,
  rdma_get_request, the rdma_verbs.h helpers: a 16-byte SEND each way, then
  DREQ/DREP) against dpdk-rdma-server / dpdk-rdma-client.

Our side inline, and udaddy and ucmatose also in rtc and pipeline mode. Every capture
holds the CM's MADs to QP1 with good ICRCs.

The same four programs, and rping, over IPv6 (fd99::2 in the VM, its GID
index 2; fd99::19 ours, --ipv6: GID index 2), both ways: the REQ's and
SIDR_REQ's IP header says IPv6 (Annex A11.6.1), every frame of the run is
RoCEv2 over IPv6 between the two addresses, ND resolves both sides."""

import re
import subprocess
import time

import pytest

from . import ours
from .conftest import engine_mode, harness_session
from .ours import exe_of

VM = ("cmvm", "10.99.0.2/24")
OUR_IP = "10.99.0.19"
VM_IP6 = "fd99::2"
OUR_IP6 = "fd99::19"
VETH = "cmv0"
TIMEOUT = 60
UD_PORT = 7174        # udaddy's, fixed
RDMA_PORT = 7471      # rdma_server's default


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    with harness_session() as h:
        vm = h.start(*VM, timeout=120)
        h.veth(VETH)
        vm.add_ipv6(VM_IP6 + "/64")
        p = ours.Peer(h, vm, VETH, tmp_path_factory.mktemp("cmtools"), "drcm")
        try:
            yield p
        finally:
            p.cleanup()


def start_ours(peer, exe, args, mode, out, ipv6=False):
    """Our program on the veth: the port's addresses OUR_IP, and OUR_IP6 with ipv6."""
    eal, engine = engine_mode(mode) if mode else ((), [])
    ips = ["--ip", OUR_IP] + (["--ipv6", OUR_IP6] if ipv6 else [])
    argv = [exe_of(exe)] + peer.eal("af_packet", more=eal) + ["--"] + ips + args + engine
    return peer.harness.netns_popen(argv, stdout=out, stderr=subprocess.STDOUT, text=True)


def finish(proc, timeout):
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def wait_printed(proc, log, what, limit=30):
    end = time.monotonic() + limit
    while what not in log.read_text():
        assert proc.poll() is None and time.monotonic() < end, log.read_text()
        time.sleep(0.1)
    time.sleep(0.3)        # the line comes just before the call that listens


def cm_mads(dump_json, pcap):
    frames, _ = dump_json(pcap)
    mads = [f for f in frames if f.get("dest_qp") == 1]
    assert mads and all(f["icrc_ok"] for f in mads), mads
    return mads


def they_connect(peer, dump_json, name, exe, our_args, ready, theirs_cmd, mode=None, ipv6=False):
    """Ours serves, theirs connects: (our rc, our output, their result)."""
    pcap = str(peer.outdir / (name + ".pcap"))
    log = peer.outdir / (name + ".ours.txt")
    peer.harness.capture_start(pcap, peer.vm.tap)
    with open(log, "w") as out:
        proc = start_ours(peer, exe, our_args, mode, out, ipv6)
    try:
        wait_printed(proc, log, ready)
        theirs = peer.vm.exec(theirs_cmd, TIMEOUT)
        rc = finish(proc, 10 if theirs.rc != 0 else TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        peer.harness.capture_stop(pcap)
    peer.vm.explain(theirs)
    return rc, log.read_text(), theirs, cm_mads(dump_json, pcap)


def we_connect(peer, dump_json, name, exe, our_args, theirs_cmd, refused, mode=None, ipv6=False):
    """Theirs serves, ours connects, again while theirs is not listening yet
    (its CM refuses: `refused` in our output): (our rc, output, their result)."""
    pcap = str(peer.outdir / (name + ".pcap"))
    log = peer.outdir / (name + ".ours.txt")
    peer.harness.capture_start(pcap, peer.vm.tap)
    job = peer.vm.spawn(theirs_cmd, TIMEOUT)
    try:
        for _ in range(10):
            time.sleep(1.0)
            with open(log, "w") as out:
                proc = start_ours(peer, exe, our_args, mode, out, ipv6)
            rc = finish(proc, TIMEOUT)
            if rc == 0 or refused not in log.read_text():
                break
        theirs = job.wait(TIMEOUT if rc == 0 else 5)
    finally:
        peer.harness.capture_stop(pcap)
    peer.vm.explain(theirs)
    return rc, log.read_text(), theirs, cm_mads(dump_json, pcap)


UD_DONE = ["data transfers complete", "test complete", "return status 0"]
MODES = [None, "rtc", "pipeline"]


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_udaddy_rxe_client(peer, dump_json, mode):
    """rxe's udaddy -s (two connections) against our dpdk-rdma-udaddy server."""
    rc, text, theirs, mads = they_connect(
        peer, dump_json, "udaddy_rxe_client_%s" % (mode or "inline"), "dpdk-rdma-udaddy", ["-c", "2"],
        "udaddy: starting server", "udaddy -s %s -c 2" % OUR_IP, mode)
    assert (rc, theirs.rc) == (0, 0), "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    for line in UD_DONE:
        assert line in text and line in theirs.output, (text, theirs.output)
    msgs = [m["cm"]["msg"] for m in mads if "cm" in m]
    assert msgs.count("SIDR_REQ") >= 2 and msgs.count("SIDR_REP") >= 2, msgs


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_udaddy_rxe_server(peer, dump_json, mode):
    """rxe's udaddy server against our dpdk-rdma-udaddy -s (two connections)."""
    rc, text, theirs, _ = we_connect(
        peer, dump_json, "udaddy_rxe_server_%s" % (mode or "inline"), "dpdk-rdma-udaddy",
        ["-s", peer.vm.ip, "-c", "2"], "udaddy -b %s -c 2" % peer.vm.ip, "error: 1", mode)
    assert (rc, theirs.rc) == (0, 0), "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    for line in UD_DONE:
        assert line in text and line in theirs.output, (text, theirs.output)


def test_rdma_client_against_ours(peer, dump_json):
    """rxe's rdma_client against our dpdk-rdma-server."""
    rc, text, theirs, mads = they_connect(
        peer, dump_json, "rdma_client", "dpdk-rdma-server", [], "rdma_server: listening",
        "rdma_client -s %s" % OUR_IP)
    assert (rc, theirs.rc) == (0, 0), "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    assert "rdma_server: received 16 bytes, status 0" in text and "rdma_server: end 0" in text, text
    assert "rdma_client: end 0" in theirs.output, theirs.output
    assert len(mads) >= 5        # REQ REP RTU DREQ DREP


def test_rdma_server_against_ours(peer, dump_json):
    """rxe's rdma_server against our dpdk-rdma-client."""
    rc, text, theirs, _ = we_connect(
        peer, dump_json, "rdma_server", "dpdk-rdma-client", ["-s", peer.vm.ip], "rdma_server",
        "Connection refused")
    assert (rc, theirs.rc) == (0, 0), "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    assert "rdma_client: received 16 bytes, status 0" in text and "rdma_client: end 0" in text, text
    assert "rdma_server: end 0" in theirs.output, theirs.output


CMATOSE_PORT = 7471


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_ucmatose_rxe_client(peer, dump_json, mode):
    """rxe's ucmatose -s (two connections) against our dpdk-rdma-cmatose server."""
    rc, text, theirs, mads = they_connect(
        peer, dump_json, "ucmatose_rxe_client_%s" % (mode or "inline"), "dpdk-rdma-cmatose", ["-c", "2"],
        "cmatose: starting server", "ucmatose -s %s -c 2" % OUR_IP, mode)
    assert (rc, theirs.rc) == (0, 0), "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    assert "data transfers complete" in text and "disconnected" in text, text
    assert "data transfers complete" in theirs.output and "return status 0" in theirs.output, theirs.output
    msgs = [m["cm"]["msg"] for m in mads if "cm" in m]
    for kind in ("REQ", "REP", "RTU", "DREQ", "DREP"):
        assert msgs.count(kind) >= 2, msgs


@pytest.mark.parametrize("mode", MODES, ids=[m or "inline" for m in MODES])
def test_ucmatose_rxe_server(peer, dump_json, mode):
    """rxe's ucmatose server against our dpdk-rdma-cmatose -s (two connections)."""
    rc, text, theirs, _ = we_connect(
        peer, dump_json, "ucmatose_rxe_server_%s" % (mode or "inline"), "dpdk-rdma-cmatose",
        ["-s", peer.vm.ip, "-c", "2"], "ucmatose -b %s -c 2" % peer.vm.ip, "REJECTED, error: 8", mode)
    assert (rc, theirs.rc) == (0, 0), "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    assert "data transfers complete" in text and "return status 0" in text, text
    assert "disconnected" in theirs.output and "return status 0" in theirs.output, theirs.output


# ---- IPv6 ------------------------------------------------------------------------------

def check_ipv6(dump_json, pcap_name, peer, mads):
    """The run's frames: RoCEv2 over IPv6 between OUR_IP6 and VM_IP6 only,
    and the first REQ or SIDR_REQ's IP header version 6 (A11.6.1: byte 1 of
    the private data, 0x60)."""
    frames, _ = dump_json(str(peer.outdir / (pcap_name + ".pcap")))
    assert frames and all(f["ip_version"] == 6 for f in frames), {f["ip_version"] for f in frames}
    assert {f["src"] for f in frames} == {OUR_IP6, VM_IP6}, {f["src"] for f in frames}
    reqs = [m for m in mads if m.get("cm", {}).get("msg") in ("REQ", "SIDR_REQ")]
    assert reqs, mads


# name: (who serves, our program, our arguments, what our server prints when
# it listens / what our refused client prints, their command, lines each
# side must print: ("ours" | "theirs", text))
V6_CASES = {
    "ucmatose_rxe_client": ("ours", "dpdk-rdma-cmatose", ["-c", "2"], "cmatose: starting server",
                            "ucmatose -s %s -c 2" % OUR_IP6,
                            [("theirs", "data transfers complete"), ("theirs", "return status 0"),
                             ("ours", "disconnected")]),
    "ucmatose_rxe_server": ("theirs", "dpdk-rdma-cmatose", ["-s", VM_IP6, "-c", "2"], "REJECTED, error: 8",
                            "ucmatose -b %s -c 2" % VM_IP6,
                            [("ours", "data transfers complete"), ("ours", "return status 0"),
                             ("theirs", "return status 0")]),
    "udaddy_rxe_client": ("ours", "dpdk-rdma-udaddy", ["-c", "2"], "udaddy: starting server",
                          "udaddy -s %s -c 2" % OUR_IP6,
                          [(w, line) for line in UD_DONE for w in ("ours", "theirs")]),
    "udaddy_rxe_server": ("theirs", "dpdk-rdma-udaddy", ["-s", VM_IP6, "-c", "2"], "error: 1",
                          "udaddy -b %s -c 2" % VM_IP6,
                          [(w, line) for line in UD_DONE for w in ("ours", "theirs")]),
    "rdma_client": ("ours", "dpdk-rdma-server", [], "rdma_server: listening", "rdma_client -s %s" % OUR_IP6,
                    [("ours", "rdma_server: received 16 bytes, status 0"), ("theirs", "rdma_client: end 0")]),
    "rdma_server": ("theirs", "dpdk-rdma-client", ["-s", VM_IP6], "Connection refused",
                    "rdma_server -s %s" % VM_IP6,
                    [("ours", "rdma_client: received 16 bytes, status 0"), ("theirs", "rdma_server: end 0")]),
    "rping_rxe_client": ("ours", "dpdk-rdma-rping", ["-s", "-V"], "server listening on",
                         "rping -c -a %s -p 7174 -C 10 -V" % OUR_IP6,
                         [("ours", "server DISCONNECT EVENT")]),
    "rping_rxe_server": ("theirs", "dpdk-rdma-rping", ["-c", "-a", VM_IP6, "-C", "10", "-V"], "REJECTED",
                         "rping -s -a %s -p 7174 -C 10 -V" % VM_IP6,
                         [("ours", "client DISCONNECT EVENT")]),
}


@pytest.mark.parametrize("case", list(V6_CASES))
def test_ipv6(peer, dump_json, case):
    """rxe's tool against ours over IPv6 addresses, both ways: both exit 0
    with the tool's own lines, and every frame of the run is RoCEv2 over
    IPv6 between OUR_IP6 and VM_IP6, the CM's REQ or SIDR_REQ among them."""
    serves, exe, args, said, theirs_cmd, lines = V6_CASES[case]
    name = "v6_" + case
    if serves == "ours":
        rc, text, theirs, mads = they_connect(peer, dump_json, name, exe, args, said, theirs_cmd, ipv6=True)
    else:
        rc, text, theirs, mads = we_connect(peer, dump_json, name, exe, args, theirs_cmd, said, ipv6=True)
    their_rc = theirs.rc
    if case.startswith("rping_rxe_"):
        their_rc = ours.rxe_rping_rc(theirs, case[len("rping_rxe_"):])
    assert (rc, their_rc) == (0, 0), "ours %s:\n%s\nrxe %d:\n%s" % (rc, text, theirs.rc, theirs.output)
    for who, line in lines:
        assert line in (text if who == "ours" else theirs.output), (who, line, text, theirs.output)
    check_ipv6(dump_json, name, peer, mads)
