# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Two Linux rxe peers talk to each other; dpdk-rdma-dump must decode every
frame they send (ICRC included) and the frames must be what the IBA and
rxe's own rules say: opcodes and payload sizes of each message, pad bytes,
PSN accounting, ACK syndromes, UDP source ports, MTU mapping, IPv6 GIDs.
A DPDK process on a veth in the peers' namespace sees the same frames.
These tests do not use dpdk-rdma's transport yet: they validate the peers,
the harness and the decoder that the transport's interop tests build on."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

import rxepeer
from rxepeer import rxe

from . import wire
from .conftest import OPGEN_PORT, REPO, qpns, require_peers

SUMMARY = re.compile(r"(\d+) frames, (\d+) RoCEv2, (\d+) bad ICRC, (\d+) malformed")
ITERS = 5


def decode(dump_json, pcap):
    """Frames of pcap; asserts every one is RoCEv2, well formed, ICRC ok."""
    frames, p = dump_json(pcap, "--fail-on-error")
    m = SUMMARY.search(p.stderr)
    assert m, p.stderr
    total, roce, bad, malformed = map(int, m.groups())
    assert (bad, malformed) == (0, 0), p.stderr
    assert total == roce == len(frames) > 0
    assert all(f["icrc_ok"] and "error" not in f for f in frames)
    return frames


def check_sports(frames, qpt, lqpn=None, rqpn=None):
    """rxe's UDP source ports (rxepeer.rxe): per connection or per UD QP."""
    for f in frames:
        if qpt == "ud":
            assert f["udp_sport"] == rxe.udp_sport_ud(f["deth"]["src_qp"]), f
        else:
            assert f["udp_sport"] == rxe.udp_sport_connected(lqpn, rqpn), f


def test_peers_ready(rxe_pair):
    for vm in (rxe_pair.vm1, rxe_pair.vm2):
        r = vm.ready()
        assert r["kernel"].startswith("6.1."), r
        assert r["active_mtu"] == "1024" and r["mtu"] == "1500"
        gids = {g[0]: g for g in r["gids"]}
        # index 0: the link-local default GID (from the MAC); 1: ::ffff:<IPv4>
        assert r["gid_index"] == "1"
        assert gids[0][1].startswith("fe80:0000:0000:0000:")
        assert gids[1][1] == rxe.ipv4_mapped_gid(vm.ip)
        assert {g[3] for g in r["gids"]} == {"RoCE v2"} and {g[2] for g in r["gids"]} == {"eth0"}
        assert vm.info["boot_seconds"] < 60


def test_exec_semantics(rxe_pair):
    vm = rxe_pair.vm1
    r = vm.exec("echo out; echo err >&2; exit 3", timeout=20)
    assert (r.rc, r.output) == (3, "out\nerr\n")
    t0 = time.monotonic()
    r = vm.exec("echo started; sleep 30", timeout=1.5)
    assert r.timed_out and r.rc == 124 and r.output == "started\n"
    assert time.monotonic() - t0 < 10
    # explained for an assertion message: the note, the guest's link and log, the tap
    vm.explain(r)
    assert r.output.startswith("started\n[killed after 2 s: the command's timeout]\n"), r.output
    for part in ("--- %s: console tail" % vm.name, "--- %s: eth0, neighbours, dmesg\n" % vm.name,
                 "eth0: <", "RX:", "--- host: %s, neighbours\n" % vm.tap):
        assert part in r.output, r.output
    # the killed job is gone from the guest
    assert "sleep 30" not in vm.check("ps", timeout=20)
    assert vm.check("echo $RXE_DEV $RXE_GID_IDX $RXE_IP", timeout=20).split() == \
        ["rxe0", "1", vm.ip]


def test_address_clash_refused(rxe_pair):
    """A third VM with vm1's address, or the host's, is refused before anything starts."""
    h = rxe_pair.harness
    for cidr, why in ((rxe_pair.vm1.cidr, "is %s's address already" % rxe_pair.vm1.name),
                      (h.host_ip + "/24", "is the host's address on the bridge")):
        with pytest.raises(rxepeer.HarnessError, match=re.escape(why)):
            h.start("clash", cidr, timeout=30)
    assert "clash" not in h.state()["vms"]


def test_cli_drives_the_same_vms(rxe_pair):
    """dr-rxe-peer.py on the fixture's session: exec status and output, info, list."""
    h = rxe_pair.harness

    def cli(*args):
        return subprocess.run([sys.executable, str(REPO / "usertools" / "dr-rxe-peer.py"),
                               "--work", h.work, "--session", h.session, *args],
                              capture_output=True, text=True, timeout=60, check=False)
    p = cli("exec", "vm1", "echo $RXE_NAME; exit 5")
    assert (p.returncode, p.stdout) == (5, "vm1\n")
    p = cli("exec", "-t", "1", "vm2", "sleep 20")
    assert p.returncode == 124 and "timed out" in p.stderr
    p = cli("info", "--json", "vm2")
    assert p.returncode == 0 and json.loads(p.stdout)["ip"] == "10.99.0.3/24"
    p = cli("list")
    assert p.returncode == 0 and "vm vm1 10.99.0.2/24" in p.stdout and "DEAD" not in p.stdout
    assert h.netns in p.stdout


PINGPONG = {  # opcodes each peer sends
    "rc": {wire.SEND_ONLY, wire.ACK},
    "uc": {0x20 | wire.SEND_ONLY},
    "ud": {0x60 | wire.SEND_ONLY},
}


@pytest.mark.parametrize("qpt", ["rc", "uc", "ud"])
def test_pingpong(rxe_pair, dump_json, qpt):
    cmd = "ibv_%s_pingpong -d rxe0 -g $RXE_GID_IDX -n %d -s 64 -c" % (qpt, ITERS)
    srv, cli, pcap = rxe_pair.run(qpt + "_pingpong", cmd, cmd)
    assert (srv.rc, cli.rc) == (0, 0), (srv.output, cli.output)
    assert "%d iters" % ITERS in cli.output

    frames = decode(dump_json, pcap)
    assert {f["opcode"] for f in frames} == PINGPONG[qpt]
    lq, rq = qpns(cli.output)
    sends = wire.first_seen([f for f in frames if f["opcode"] != wire.ACK])
    # each side sends ITERS messages of 64 bytes to the other's QP
    for vm, dqpn in ((rxe_pair.vm2, rq), (rxe_pair.vm1, lq)):
        mine = wire.sent_by(sends, vm.ip)
        assert len(mine) == ITERS and {f["dest_qp"] for f in mine} == {dqpn}
        assert {f["payload_len"] for f in mine} == {64}
    if qpt == "rc":
        acks = [f for f in frames if f["opcode"] == wire.ACK]
        assert {(a["aeth"]["type"], a["aeth"]["syndrome"]) for a in acks} == {("ACK", 0x1F)}
        # every SEND (each asks for an ACK) is acknowledged by its receiver
        assert {(f["psn"], f["dst"]) for f in sends} <= {(a["psn"], a["src"]) for a in acks}
    if qpt == "ud":
        assert {f["deth"]["qkey"] for f in frames} == {0x11111111}
    check_sports(frames, qpt, lq, rq)


def opgen_run(rxe_pair, dump_json, qpt, gid="", mtu=1024, name=None, client_addr=None):
    opts = "-t %s -m %d -p %d %s" % (qpt, mtu, OPGEN_PORT, gid)
    srv, cli, pcap = rxe_pair.run(name or "opgen_" + qpt, "dr-opgen " + opts,
                                  "dr-opgen " + opts, port=OPGEN_PORT, wait_listen=False)
    assert (srv.rc, cli.rc) == (0, 0), (srv.output, cli.output)
    assert "server done: 0 failures" in srv.output and "server OK" in cli.output
    ops = wire.client_ops(cli.output)
    frames = decode(dump_json, pcap)
    lq, rq = qpns(cli.output)
    check_sports(frames, qpt, lq, rq)

    # the client's requests, retransmissions aside, are exactly the packets
    # the IBA prescribes for its operations, PSNs counted from 0x100
    reqs = wire.first_seen(wire.sent_by(frames, client_addr or rxe_pair.vm2.ip))
    want = wire.requests(ops, qpt, mtu)
    assert [(f["opcode"], f["payload_len"]) for f in reqs] == [(o, n) for o, n, _ in want]
    psn = 0x100
    for f, (_, n, used) in zip(reqs, want):
        assert f["psn"] == psn and f["pad"] == wire.pad(n) and f["dest_qp"] == rq
        psn += used
    return ops, frames, reqs, (lq, rq)


def test_opgen_rc(rxe_pair, dump_json):
    ops, frames, reqs, _ = opgen_run(rxe_pair, dump_json, "rc")
    names = {f["opcode_name"] for f in frames}
    # what this test exists for: the frames the pingpongs never send
    for n in ("RC_SEND_ONLY_WITH_IMMEDIATE", "RC_SEND_LAST_WITH_IMMEDIATE",
              "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
              "RC_RDMA_READ_RESPONSE_FIRST", "RC_RDMA_READ_RESPONSE_MIDDLE",
              "RC_RDMA_READ_RESPONSE_LAST", "RC_RDMA_READ_RESPONSE_ONLY",
              "RC_COMPARE_SWAP", "RC_FETCH_ADD", "RC_ATOMIC_ACKNOWLEDGE",
              "RC_SEND_ONLY_WITH_INVALIDATE"):
        assert n in names, n
    # rxe to rxe: the SEND_WITH_INV's IETH names the server's type 2 window,
    # which one WRITE went through (its RETH); every other RETH names the region
    iks = [f["ieth"]["rkey"] for f in reqs if "ieth" in f]
    rkeys = [f["reth"]["rkey"] for f in reqs if "reth" in f]
    assert len(iks) == 1 and rkeys.count(iks[0]) == 1 and len(set(rkeys)) == 2
    assert {f["pad"] for f in frames} == {0, 1, 2, 3}
    zero = {f["opcode_name"] for f in reqs if f["payload_len"] == 0}
    assert {"RC_SEND_ONLY", "RC_SEND_ONLY_WITH_IMMEDIATE", "RC_RDMA_WRITE_ONLY",
            "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"} <= zero
    assert [f["reth"]["dma_len"] for f in reqs if f["opcode"] == wire.READ_REQ] == \
        [n for _, wr, n in ops if wr == "RDMA_READ"]

    # the responder: READ responses and atomic ACKs, in order, one per PSN
    resp = wire.first_seen([f for f in wire.sent_by(frames, rxe_pair.vm1.ip)
                            if f["opcode"] != wire.ACK])
    assert [(f["opcode"], f["payload_len"]) for f in resp] == wire.read_responses(ops, 1024)
    assert any(f["opcode"] == wire.READ_RESP_ONLY and f["payload_len"] == 0 for f in resp)
    assert [f["atomicacketh"]["orig"] for f in resp if "atomicacketh" in f] == \
        [100, 105, 0xABCDEF]
    # AETH: always "ACK, credits invalid" (0x1F); MIDDLE read responses have none
    aeths = [f for f in frames if "aeth" in f]
    assert {(f["aeth"]["type"], f["aeth"]["syndrome"]) for f in aeths} == {("ACK", 0x1F)}
    assert not any("aeth" in f for f in resp if f["opcode"] == wire.READ_RESP_MIDDLE)
    # every message is acknowledged: the ACKs' MSN reaches the message count
    assert max(f["aeth"]["msn"] for f in aeths) == len(ops)
    imms = [f["immdt"]["imm"] for f in reqs if "immdt" in f]
    assert imms == [0x12340000 + i for i, wr, _ in ops if wr.endswith("_WITH_IMM")]


def test_opgen_uc(rxe_pair, dump_json):
    ops, frames, reqs, _ = opgen_run(rxe_pair, dump_json, "uc")
    assert len(frames) == len(reqs)       # UC: requests only, never an ACK
    assert {f["pad"] for f in frames} == {0, 1, 2, 3}
    assert {"UC_SEND_LAST_WITH_IMMEDIATE", "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
            "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE"} <= {f["opcode_name"] for f in frames}


def test_opgen_ud(rxe_pair, dump_json):
    ops, frames, reqs, (lq, _) = opgen_run(rxe_pair, dump_json, "ud")
    assert len(frames) == len(reqs) == len(ops)
    assert {f["opcode_name"] for f in frames} == {"UD_SEND_ONLY", "UD_SEND_ONLY_WITH_IMMEDIATE"}
    assert {f["pad"] for f in frames} == {0, 1, 2, 3}
    assert {(f["deth"]["qkey"], f["deth"]["src_qp"]) for f in frames} == {(0x11111111, lq)}


def ipv6_gids(rxe_pair):
    """Give both guests an IPv6 address; (vm1's GID index, vm2's)."""
    return (rxe_pair.vm1.add_ipv6("fd99::2/64"), rxe_pair.vm2.add_ipv6("fd99::3/64"))


def test_ipv6_gid_rc_pingpong(rxe_pair, dump_json):
    g1, g2 = ipv6_gids(rxe_pair)
    # index 0 link-local, 1 the IPv4-mapped GID, then the IPv6 address
    assert (g1, g2) == (2, 2)
    srv, cli, pcap = rxe_pair.run(
        "rc_pingpong_ipv6", "ibv_rc_pingpong -d rxe0 -g %d -n %d -s 64 -c" % (g1, ITERS),
        "ibv_rc_pingpong -d rxe0 -g %d -n %d -s 64 -c" % (g2, ITERS))
    assert (srv.rc, cli.rc) == (0, 0), (srv.output, cli.output)
    assert "GID fd99::3" in cli.output and "GID fd99::2" in cli.output
    frames = decode(dump_json, pcap)
    assert {f["ip_version"] for f in frames} == {6}
    assert {(f["src"], f["dst"]) for f in frames} == {("fd99::3", "fd99::2"),
                                                      ("fd99::2", "fd99::3")}
    assert {f["opcode"] for f in frames} == PINGPONG["rc"]
    assert len(wire.first_seen([f for f in frames if f["opcode"] == wire.SEND_ONLY])) == 2 * ITERS
    check_sports(frames, "rc", *qpns(cli.output))


def test_ipv6_gid_opgen_rc(rxe_pair, dump_json):
    g1, g2 = ipv6_gids(rxe_pair)
    assert g1 == g2
    _, frames, _, _ = opgen_run(rxe_pair, dump_json, "rc", gid="-g %d" % g1, name="opgen_rc_ipv6",
                               client_addr="fd99::3")
    assert {f["ip_version"] for f in frames} == {6}


@pytest.mark.parametrize("mtu", [1500, 4200, 4176, 4175, 2128, 2127, 9000])
def test_mtu_mapping(rxe_pair, mtu):
    """rxe's active_mtu: the largest IB MTU <= netdev MTU - 80."""
    vm = rxe_pair.vm2
    try:
        vm.set_mtu(mtu)
        assert vm.active_mtu() == rxe.active_mtu(mtu)
    finally:
        vm.set_mtu(1500)
    assert {1500: 1024, 4200: 4096}.get(mtu, rxe.active_mtu(mtu)) == rxe.active_mtu(mtu)


def test_path_mtu_4096(rxe_pair, dump_json):
    """Both links at 4200: 4096-byte packets, an 8 KiB READ in two responses."""
    try:
        for vm in (rxe_pair.vm1, rxe_pair.vm2):
            vm.set_mtu(4200)
            assert vm.active_mtu() == 4096
        _, frames, _, _ = opgen_run(rxe_pair, dump_json, "rc", mtu=4096, name="opgen_rc_4096")
    finally:
        for vm in (rxe_pair.vm1, rxe_pair.vm2):
            vm.set_mtu(1500)
    assert max(f["payload_len"] for f in frames) == 4096
    resp = [f for f in frames if f["opcode"] in (wire.READ_RESP_FIRST, wire.READ_RESP_LAST)]
    assert [f["payload_len"] for f in resp][-2:] == [4096, 4096]


def test_start_with_mtu(rxe_pair):
    """start --mtu 4200 boots a guest whose rxe0 reports active_mtu 4096."""
    h = rxe_pair.harness
    vm = h.start("vm3", "10.99.0.4/24", mtu=4200, timeout=120)
    try:
        r = vm.ready()
        assert (r["mtu"], r["active_mtu"]) == ("4200", "4096")
        assert vm.active_mtu() == 4096
        assert "mtu 4200" in vm.check("ip link show eth0", timeout=20)
    finally:
        h.stop("vm3")
    assert "vm3" not in h.state()["vms"]


def packet_socket_on(h, ifname):
    """True once a packet socket in the namespace is bound to ifname."""
    idx = h.netns_run(["cat", "/sys/class/net/%s/ifindex" % ifname]).stdout.strip()
    rows = h.netns_run(["cat", "/proc/net/packet"]).stdout.splitlines()[1:]
    return any(r.split()[4] == idx for r in rows if len(r.split()) > 4)


def test_dpdk_endpoint_on_veth(rxe_pair, dump_exe):
    """A DPDK process (dpdk-rdma-dump, net_af_packet) on a veth of the
    harness's bridge receives the peers' RoCEv2 frames. The bridge is made
    a hub (no MAC learning) so the VMs' unicast reaches the veth."""
    h = rxe_pair.harness
    veth = h.veth("dpdk0")
    h.netns_run(["ip", "link", "set", h.bridge, "type", "bridge", "ageing_time", "0"])
    prefix = "drinterop%d" % os.getpid()
    want = 4 * ITERS   # RC pingpong: 2 x ITERS SENDs and as many ACKs
    proc = h.netns_popen(
        [str(dump_exe), "--no-pci", "--no-huge", "-m", "256", "--file-prefix=" + prefix,
         "--vdev", "net_af_packet0,iface=" + veth, "--", "--port", "0", "--count", str(want),
         "--duration", "60", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 30
        while not packet_socket_on(h, veth):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < end, "dpdk-rdma-dump did not open %s" % veth
            time.sleep(0.2)
        cmd = "ibv_rc_pingpong -d rxe0 -g $RXE_GID_IDX -n %d -s 64" % ITERS
        srv, cli, _ = rxe_pair.run("rc_pingpong_veth", cmd, cmd)
        assert (srv.rc, cli.rc) == (0, 0), (srv.output, cli.output)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        h.netns_run(["ip", "link", "set", h.bridge, "type", "bridge", "ageing_time", "30000"])
        h.veth_del(veth)
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    assert proc.returncode == 0, err
    frames = [json.loads(line) for line in out.splitlines()]
    assert len(frames) >= want
    assert all(f["icrc_ok"] for f in frames)
    assert {f["opcode"] for f in frames} == {wire.SEND_ONLY, wire.ACK}
    assert {f["src"] for f in frames} == {rxe_pair.vm1.ip, rxe_pair.vm2.ip}


def test_failed_boot_leaves_nothing(tmp_path):
    """A VM that cannot boot: start() raises and its tap, bridge and
    namespace are gone (the session is separate from the pair's)."""
    require_peers()
    img = tmp_path / "img"
    img.mkdir()
    (img / "manifest.json").write_text(json.dumps({"kernel": "none", "boot": "bzImage"}))
    (img / "vmlinuz").write_bytes(b"not a kernel" * 100)
    (img / "initrd.img").write_bytes(b"")
    h = rxepeer.Harness(str(tmp_path / "work"), session="broken", image=rxepeer.Image(str(img)))
    before = set(netns_names())
    try:
        with pytest.raises(rxepeer.HarnessError, match="qemu"):
            h.start("vm1", "10.99.0.2/24", timeout=30)
        st = h.state()
        assert st["vms"] == {} and st["netns"] is None
        assert set(netns_names()) == before
    finally:
        h.stop_all()


def netns_names():
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("drrxe-")]
