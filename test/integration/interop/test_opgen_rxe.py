# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Every RC opcode between our stack and Linux rxe: the guest's unmodified
dr-opgen against app/dpdk-rdma-opgen (the same program on the dr_ API, the
same operation table: usertools/rxepeer/guest/dr-opgen-ops.h), both
directions: SEND and SEND_WITH_IMM (zero-length, pads 1-3, multi-packet),
RDMA WRITE and WRITE_WITH_IMM, RDMA READ (zero-length, multi-packet
responses), FETCH_ADD and CMP_SWAP, and an RDMA WRITE through a type 2
memory window the server binds, then a SEND_WITH_INV that invalidates it
(RC_SEND_ONLY_WITH_INVALIDATE, its IETH naming the window's R_Key; the
server checks the WITH_INV flag and the invalidated R_Key). Both sides check every completion and
every byte and agree on the verdict; the capture of the VM's tap must hold
exactly the packets the IBA prescribes for the table (wire.py), PSNs from
dr-opgen's 0x100, every ICRC good.

One VM at link MTU 4200 with fd99::2 (rxe GID 2); our veth has MTU 4200.
Path MTU 1024 on net_af_packet with IPv4 and IPv6 GIDs, path MTU 4096 on
net_pcap (net_af_packet at 4096, with ring frames that hold it, is
test_mtu_ipv6_rxe.py's). UC and UD run the table's SENDs and WRITEs (UC) or
SENDs (UD) at path MTU 1024: nothing acknowledged, the UD DETH and ports."""

import re
import subprocess

import pytest

from rxepeer import rxe

from . import ours, wire
from .conftest import ENGINE_MODES, OPGEN_PORT, harness_session, qpns
from .ours import exe_of
from .test_pingpong_rxe import decode

VM = ("ogvm", "10.99.0.2/24")
VM_IP6 = "fd99::2"
OUR_IP = "10.99.0.13"
OUR_IP6 = "fd99::13"
VETH = "ogv0"
LINK_MTU = 4200

# (GID family, path MTU, our PMD)
CASES = {
    "v4_1024": ("ipv4", 1024, "af_packet"),
    "v6_1024": ("ipv6", 1024, "af_packet"),
    "v4_4096": ("ipv4", 4096, "pcap"),
}

# what the table makes appear on the wire that the pingpongs and perftest never send
RC_OPCODES = ("RC_SEND_ONLY_WITH_IMMEDIATE", "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
              "RC_SEND_ONLY_WITH_INVALIDATE",
              "RC_RDMA_READ_RESPONSE_FIRST", "RC_RDMA_READ_RESPONSE_LAST",
              "RC_RDMA_READ_RESPONSE_ONLY", "RC_COMPARE_SWAP", "RC_FETCH_ADD",
              "RC_ATOMIC_ACKNOWLEDGE")


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    with harness_session() as h:
        vm = h.start(*VM, mtu=LINK_MTU, timeout=120)
        h.veth(VETH, mtu=LINK_MTU)
        p = ours.Peer(h, vm, VETH, tmp_path_factory.mktemp("opgen"), "drog")
        p.gid6 = vm.add_ipv6(VM_IP6 + "/64")
        try:
            yield p
        finally:
            p.cleanup()


def window_keys(srv, cli):
    """(the server's window R_Key, its region's R_Key) from the outputs."""
    window = re.search(r"^server window rkey=(0x[0-9a-f]+) bound over ", srv, re.M)
    region = re.search(r"^client \S+ local .* rkey=(0x[0-9a-f]+) path_mtu=", cli, re.M)
    assert window and region, (srv, cli)
    return int(window.group(1), 16), int(region.group(1), 16)


def windowed(cli):
    """The indices of the client's operations through the server's window."""
    return {int(m) for m in re.findall(r"^client op +(\d+) .* window=0x", cli, re.M)}


def run_opgen(peer, dump_json, case, we_serve, mode=None):
    """mode: our engine mode (rtc, pipeline; None: inline)."""
    fam, mtu, pmd = CASES[case]
    our_gid, rxe_gid = (1, "$RXE_GID_IDX") if fam == "ipv4" else (2, peer.gid6)
    link = ["--link-mtu", str(LINK_MTU)] if pmd == "pcap" else []
    common = ["-t", "rc", "-m", str(mtu), "-p", str(OPGEN_PORT)]
    our_args = ["--ip", OUR_IP, "--ipv6", OUR_IP6, "--timeout", "30"] + link + common + \
        ["-g", str(our_gid)]
    tool = "dr-opgen %s -g %s" % (" ".join(common), rxe_gid)
    name = "opgen_%s_%s%s" % (case, "oursrv" if we_serve else "rxesrv", "_" + mode if mode else "")
    # dr-opgen's client retries its connection: no need to wait for the listener
    rc, out, theirs, pcap = peer.run(name, exe_of("dpdk-rdma-opgen"), pmd, our_args, tool,
                                     OPGEN_PORT, we_serve, wait_listen=False, mode=mode)
    assert (rc, theirs.rc) == (0, 0), "ours:\n%s\nrxe:\n%s" % (out, theirs.output)
    srv, cli = (out, theirs.output) if we_serve else (theirs.output, out)
    assert "server done: 0 failures, client reported 0: OK" in srv, srv
    assert "client done:" in cli and "0 local failures, server OK" in cli, cli
    ops = wire.client_ops(cli)
    assert len(ops) == 25 and all(" ok " in line or line.endswith(" ok")
                                  for line in cli.splitlines() if line.startswith("client op"))
    window, rkey = window_keys(srv, cli)
    inv = re.search(r"^server op +\d+ SEND_WITH_INV +status=success opcode=RECV byte_len=62 "
                    r"invalidated=(0x[0-9a-f]+)( \(rxe: flag in bit 2\))? data=ok ok$", srv, re.M)
    assert inv and int(inv.group(1), 16) == window, srv
    # rxe puts the kernel's IB_WC_WITH_INVALIDATE (1 << 2) in the user CQE:
    # libibverbs' IBV_WC_IP_CSUM_OK, not IBV_WC_WITH_INV (1 << 3)
    assert bool(inv.group(2)) == (not we_serve), inv.group(0)

    our_addr, vm_addr = (OUR_IP, peer.vm.ip) if fam == "ipv4" else (OUR_IP6, VM_IP6)
    cli_addr, srv_addr = (vm_addr, our_addr) if we_serve else (our_addr, vm_addr)
    lq, rq = qpns(cli)
    assert qpns(srv) == (rq, lq)
    frames = decode(dump_json, pcap)
    assert {f["ip_version"] for f in frames} == {4 if fam == "ipv4" else 6}
    assert {f["src"] for f in frames} == {our_addr, vm_addr}
    assert {f["udp_sport"] for f in frames} == {rxe.udp_sport_connected(lq, rq)}

    # the client's requests, retransmissions aside: exactly the table's packets,
    # PSNs counted from 0x100, to the server's QP, with the right pads
    reqs = wire.first_seen(wire.sent_by(frames, cli_addr))
    reqs = [f for f in reqs if f["opcode"] != wire.ACK]
    want = wire.requests(ops, "rc", mtu)
    assert [(f["opcode"], f["payload_len"]) for f in reqs] == [(o, n) for o, n, _ in want]
    psn = 0x100
    for f, (_, n, used) in zip(reqs, want):
        assert f["psn"] == psn and f["pad"] == wire.pad(n) and f["dest_qp"] == rq, f
        psn += used
    assert [f["reth"]["dma_len"] for f in reqs if f["opcode"] == wire.READ_REQ] == \
        [n for _, wr, n in ops if wr == "RDMA_READ"]
    imms = [f["immdt"]["imm"] for f in reqs if "immdt" in f]
    assert imms == [0x12340000 + i for i, wr, _ in ops if wr.endswith("_WITH_IMM")]
    # the window: the WRITE through it names its R_Key, every other RETH the
    # region's; the SEND_WITH_INV's IETH names it
    win = windowed(cli)
    assert [f["reth"]["rkey"] for f in reqs if "reth" in f] == \
        [window if i in win else rkey for i, wr, _ in ops if wr.startswith("RDMA_")]
    assert [(f["opcode_name"], f["ieth"]["rkey"]) for f in reqs if "ieth" in f] == \
        [("RC_SEND_ONLY_WITH_INVALIDATE", window)]
    zero = {f["opcode_name"] for f in reqs if f["payload_len"] == 0}
    assert {"RC_SEND_ONLY", "RC_SEND_ONLY_WITH_IMMEDIATE", "RC_RDMA_WRITE_ONLY",
            "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"} <= zero

    # the server: READ responses and atomic ACKs in order, original values
    resp = wire.first_seen([f for f in wire.sent_by(frames, srv_addr)
                            if f["opcode"] != wire.ACK])
    assert [(f["opcode"], f["payload_len"]) for f in resp] == wire.read_responses(ops, mtu)
    assert any(f["opcode"] == wire.READ_RESP_ONLY and f["payload_len"] == 0 for f in resp)
    assert [f["atomicacketh"]["orig"] for f in resp if "atomicacketh" in f] == \
        [100, 105, 0xABCDEF]
    aeths = [f for f in frames if "aeth" in f]
    assert {(f["aeth"]["type"], f["aeth"]["syndrome"]) for f in aeths} == {("ACK", 0x1F)}
    assert not any("aeth" in f for f in resp if f["opcode"] == wire.READ_RESP_MIDDLE)
    # every message is acknowledged: the server's MSN reaches the message count
    assert max(f["aeth"]["msn"] for f in aeths if f["src"] == srv_addr) == len(ops)

    names = {f["opcode_name"] for f in frames}
    for n in RC_OPCODES:
        assert n in names, n
    assert {f["pad"] for f in frames} == {0, 1, 2, 3}
    if mtu == 4096:
        assert max(f["payload_len"] for f in frames) == 4096
        big = [f["payload_len"] for f in resp if f["opcode"] in (wire.READ_RESP_FIRST,
                                                                 wire.READ_RESP_LAST)]
        assert big[-2:] == [4096, 4096]      # the 8 KiB READ: two responses
    else:
        # 3000-3003 bytes: three packets at 1024 (one at 4096)
        assert {"RC_RDMA_READ_RESPONSE_MIDDLE", "RC_SEND_MIDDLE", "RC_SEND_LAST_WITH_IMMEDIATE",
                "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE"} <= names


@pytest.mark.parametrize("we_serve", [False, True], ids=["rxe_server", "our_server"])
@pytest.mark.parametrize("case", list(CASES))
def test_opgen_rc(peer, dump_json, case, we_serve):
    run_opgen(peer, dump_json, case, we_serve)


@pytest.mark.parametrize("mode", ENGINE_MODES)
@pytest.mark.parametrize("we_serve", [False, True], ids=["rxe_server", "our_server"])
def test_opgen_engine_modes(peer, dump_json, we_serve, mode):
    """Ours in run-to-completion mode (one worker lcore) or pipeline mode (an
    rx, a tx and a completion lcore), all on one CPU yielding when idle: the
    whole table with IPv4 GIDs at path MTU 1024, checked as in inline mode."""
    run_opgen(peer, dump_json, "v4_1024", we_serve, mode)


def test_list_is_dr_opgens(peer):
    """-L prints the guest's table: one table, two programs."""
    for t in ("rc", "uc", "ud"):
        mine = subprocess.run([exe_of("dpdk-rdma-opgen"), "-L", "-t", t], capture_output=True,
                              text=True, timeout=30, check=True).stdout
        assert mine == peer.vm.check("dr-opgen -L -t " + t, timeout=30), t


def test_rxe_refuses_xrc(peer):
    """rxe has no XRC: the guest's dr-opgen says so and exits 2 (ours runs
    -t xrc against itself: test_opgen_memif.py)."""
    r = peer.vm.exec("dr-opgen -t xrc", timeout=30)
    assert r.rc == 2 and "-t xrc: rxe has no XRC" in r.output, r.output


def test_rxe_memory_windows(peer):
    """What rxe (Debian 12: kernel 6.1, rdma-core 44) says about memory windows:
    type 1 and type 2, MW_BIND, as the table's window relies on."""
    out = peer.vm.check("ibv_devinfo -v -d $RXE_DEV", timeout=30)
    assert re.search(r"max_mw:\s+[1-9]", out), out
    assert "MEM_WINDOW" in out and "MEM_WINDOW_TYPE_2B" in out, out


def run_opgen_unreliable(peer, dump_json, qpt, we_serve):
    """UC and UD: the table's SENDs and WRITEs (UC) or SENDs (UD) both ways, nothing acknowledged."""
    mtu = 1024
    common = ["-t", qpt, "-m", str(mtu), "-p", str(OPGEN_PORT)] if qpt == "uc" else \
        ["-t", qpt, "-p", str(OPGEN_PORT)]
    our_args = ["--ip", OUR_IP, "--timeout", "30", "-g", "1"] + common
    tool = "dr-opgen %s -g $RXE_GID_IDX" % " ".join(common)
    name = "opgen_%s_%s" % (qpt, "oursrv" if we_serve else "rxesrv")
    rc, out, theirs, pcap = peer.run(name, exe_of("dpdk-rdma-opgen"), "af_packet", our_args, tool,
                                     OPGEN_PORT, we_serve, wait_listen=False)
    assert (rc, theirs.rc) == (0, 0), "ours:\n%s\nrxe:\n%s" % (out, theirs.output)
    srv, cli = (out, theirs.output) if we_serve else (theirs.output, out)
    assert "server done: 0 failures, client reported 0: OK" in srv, srv
    assert "client done:" in cli and "0 local failures, server OK" in cli, cli
    ops = wire.client_ops(cli)
    table = [line for line in peer.vm.check("dr-opgen -L -t " + qpt, timeout=30).splitlines()
             if line.strip() and not line.startswith("#")]
    assert ops and len(ops) <= len(table)
    assert {wr for _, wr, _ in ops} == ({"SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM"}
                                        if qpt == "uc" else {"SEND", "SEND_WITH_IMM"})
    cli_addr, srv_addr = (peer.vm.ip, OUR_IP) if we_serve else (OUR_IP, peer.vm.ip)
    lq, rq = qpns(cli)
    assert qpns(srv) == (rq, lq)
    frames = decode(dump_json, pcap)
    assert {f["transport"] for f in frames} == {qpt.upper()}
    # nothing acknowledges UC or UD: no ACK, no AckReq (as rxe)
    assert not any("aeth" in f or f["ack_req"] for f in frames)
    reqs = wire.sent_by(frames, cli_addr)
    want = wire.requests(ops, qpt, mtu)
    assert [(f["opcode"], f["payload_len"]) for f in reqs] == [(o, n) for o, n, _ in want]
    psn = 0x100
    for f, (_, n, used) in zip(reqs, want):
        assert f["psn"] == psn and f["pad"] == wire.pad(n) and f["dest_qp"] == rq, f
        psn += used
    imms = [f["immdt"]["imm"] for f in reqs if "immdt" in f]
    assert imms == [0x12340000 + i for i, wr, _ in ops if wr.endswith("_WITH_IMM")]
    for f in frames:
        sender = lq if f["src"] == cli_addr else rq
        if qpt == "ud":
            assert f["udp_sport"] == rxe.udp_sport_ud(sender), f
            assert f["deth"] == {"qkey": 0x11111111, "src_qp": sender}, f
        else:
            assert f["udp_sport"] == rxe.udp_sport_connected(lq, rq), f
    assert {f["pad"] for f in reqs} == {0, 1, 2, 3}


@pytest.mark.parametrize("we_serve", [False, True], ids=["rxe_server", "our_server"])
@pytest.mark.parametrize("qpt", ["uc", "ud"])
def test_opgen_uc_ud(peer, dump_json, qpt, we_serve):
    run_opgen_unreliable(peer, dump_json, qpt, we_serve)


def test_usage_errors():
    exe = exe_of("dpdk-rdma-opgen")
    for args, msg in ((["-t", "xx"], "-t xx: rc, uc, ud or xrc"), (["-m", "1000"], "-m 1000"),
                      (["a", "b"], "one server address at most")):
        p = subprocess.run([exe, "--"] + args, capture_output=True, text=True, timeout=30)
        assert p.returncode == 2 and msg in p.stderr, (args, p.stderr)
