# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Bad requests against Linux rxe, both ways: the fault table of
usertools/rxepeer/guest/dr-opgen-ops.h (dr-opgen -E / dpdk-rdma-opgen -E),
one fault per run, fresh QPs, our program on net_af_packet and dr-opgen in
the VM, one serving the other.

Each side checks its own half and the two agree on the verdict: the
requester's completion status (remote access / invalid request / RNR retry
exceeded; success where UC and UD drop silently), the responder's receive
completions (LOC_LEN_ERR for a SEND longer than its buffer; the good SEND
after a dropped UC/UD fault), that nothing was written or executed, and both
QPs' states (ERR after an RC error, RTS otherwise). The capture adds the wire:
the NAK syndrome of the fault's row at the bad request's PSN (RC), no
acknowledgement at all (UC/UD), the R_Key and Q_Key that went out, and
nothing on the wire for a UD message above the path MTU. Local faults: a
bad L_Key sends nothing (our dr_post_send() refuses it with EINVAL, rxe
completes it with LOC_QP_OP_ERR), two SGEs on a QP of max_send_sge 1 are
refused with EINVAL by both and the QP lives on. Where rxe departs from the
row, each program knows its own stack's answer and they swap which stacks
run (opgen_fault_expect(): rxe refuses a misaligned atomic at post, answers
a SEND longer than its buffer with a remote operational error NAK, sends a
Q_Key with bit 31 set as given); doc/guides/interop.rst lists them.
Every frame's ICRC is checked by dpdk-rdma-dump."""

import functools
import re
import subprocess

import pytest

from . import ours, wire
from .conftest import OPGEN_PORT, harness_session, qpns
from .ours import exe_of
from .test_pingpong_rxe import decode

VM = ("fvm", "10.99.0.2/24")
OUR_IP = "10.99.0.14"
VETH = "flt0"
QKEY = 0x11111111
MTU = 1024

FAULT_LINE = re.compile(r"^(\S+) (rc|uc|ud) nak=0x([0-9a-f]{2}) # (.*)$", re.M)


@functools.lru_cache(maxsize=None)
def fault_list():
    """dpdk-rdma-opgen -E list, run once."""
    return subprocess.run([exe_of("dpdk-rdma-opgen"), "--", "-E", "list"], capture_output=True,
                          text=True, timeout=30, check=True).stdout


def faults():
    """{name: (QP type, NAK syndrome)} of dpdk-rdma-opgen -E list."""
    return {n: (t, int(s, 16)) for n, t, s, _ in FAULT_LINE.findall(fault_list())}


# every fault of the table: a new row must come with its checks here
FAULTS = {
    "rkey", "bounds", "mr-no-read", "qp-no-atomic", "misaligned", "too-long", "rnr",
    "invalidated", "uc-rkey", "ud-qkey", "ud-qkey-msb", "ud-over-mtu", "lkey", "sge-list",
}


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    with harness_session() as h:
        vm = h.start(*VM, timeout=120)
        h.veth(VETH)
        p = ours.Peer(h, vm, VETH, tmp_path_factory.mktemp("faults"), "drflt")
        try:
            yield p
        finally:
            p.cleanup()


def test_fault_table_is_dr_opgens(peer):
    """One table, two programs: -E list is the same on both sides, and it
    holds every fault this module runs."""
    assert fault_list() == peer.vm.check("dr-opgen -E list", timeout=30)
    assert set(faults()) == FAULTS


def requests(frames, addr):
    """What addr sent that is not an acknowledgement, retransmissions aside."""
    return [f for f in wire.first_seen(wire.sent_by(frames, addr))
            if f["opcode"] not in (wire.ACK, wire.ATOMIC_ACK)]


@pytest.mark.parametrize("we_serve", [False, True], ids=["rxe_server", "our_server"])
@pytest.mark.parametrize("name", sorted(FAULTS))
def test_fault(peer, dump_json, name, we_serve):
    run_fault(peer, dump_json, name, we_serve)


# (engine mode, fault, we serve): our requester's NAK handling from the
# pipeline's completion lcore, our responder's NAK and LOC_LEN_ERR from an rtc worker
ENGINE_CASES = [("rtc", "too-long", True), ("pipeline", "rkey", False)]


@pytest.mark.parametrize("mode,name,we_serve", ENGINE_CASES,
                         ids=["%s-%s-%s" % (m, n, "oursrv" if s else "rxesrv")
                              for m, n, s in ENGINE_CASES])
def test_fault_engine_modes(peer, dump_json, mode, name, we_serve):
    """Ours in run-to-completion mode (one worker lcore) or pipeline mode (an
    rx, a tx and a completion lcore), all on one CPU yielding when idle: the
    same verdicts, NAK and QP states as in inline mode."""
    run_fault(peer, dump_json, name, we_serve, mode)


def run_fault(peer, dump_json, name, we_serve, mode=None):
    """One fault against rxe, checked on both sides and on the wire; mode:
    our engine mode (rtc, pipeline; None: inline)."""
    qpt, nak = faults()[name]
    common = ["-E", name, "-m", str(MTU), "-p", str(OPGEN_PORT)]
    our_args = ["--ip", OUR_IP, "--timeout", "30", "-g", "1"] + common
    tool = "dr-opgen %s -g $RXE_GID_IDX" % " ".join(common)
    run = "fault_%s_%s%s" % (name, "oursrv" if we_serve else "rxesrv", "_" + mode if mode else "")
    rc, out, theirs, pcap = peer.run(run, exe_of("dpdk-rdma-opgen"), "af_packet", our_args, tool,
                                     OPGEN_PORT, we_serve, wait_listen=False, mode=mode)
    srv, cli = (out, theirs.output) if we_serve else (theirs.output, out)
    assert (rc, theirs.rc) == (0, 0), "ours:\n%s\nrxe:\n%s" % (out, theirs.output)
    assert "server done: fault %s, 0 failures, client reported 0: OK" % name in srv, srv
    assert "client done: fault %s, 0 local failures, server OK" % name in cli, cli
    assert "FAIL" not in srv + cli

    cli_addr, srv_addr = (peer.vm.ip, OUR_IP) if we_serve else (OUR_IP, peer.vm.ip)
    lq, rq = qpns(cli)
    rxe_cli, rxe_srv = we_serve, not we_serve
    # each side printed what it expected from the two stacks (opgen_fault_expect())
    stacks = "stacks %s -> %s" % tuple("rxe" if r else "dpdk-rdma" for r in (rxe_cli, rxe_srv))
    assert "client fault %s: %s" % (name, stacks) in cli and \
        "server fault %s: %s" % (name, stacks) in srv, (cli, srv)
    if name == "lkey" or (name == "misaligned" and rxe_cli):
        # refused at post (ours: every L_Key is checked; rxe's provider: a
        # misaligned atomic), or rxe's L_Key check before it builds a packet:
        # not one RoCEv2 frame
        refused = "post_send=Invalid argument ok"
        assert (refused in cli) == (not rxe_cli or name == "misaligned"), cli
        if name == "lkey" and rxe_cli:
            assert "status=local QP operation error ok" in cli, cli
        frames, _ = dump_json(pcap, "--fail-on-error")
        assert frames == []
        return
    if name == "too-long" and rxe_srv:
        nak = wire.NAK_REM_OP     # rxe 6.1: a malformed WQE, not invalid request
    frames = decode(dump_json, pcap)
    reqs = requests(frames, cli_addr)
    assert reqs and all(f["dest_qp"] == rq for f in reqs)
    names = [f["opcode_name"] for f in reqs]
    rkey = int(re.search(r"^client \S+ local .* rkey=(0x[0-9a-f]+) path_mtu=", cli,
                         re.M).group(1), 16)
    if qpt == "rc":
        # the responder answers the bad request, the last one, with the row's
        # NAK; too-long: at its second packet, the first beyond the 1024-byte buffer
        psn = reqs[1]["psn"] if name == "too-long" else reqs[-1]["psn"]
        if name == "too-long":
            # the LAST may never leave: a requester that has the NAK of the MIDDLE
            # before it sends the LAST stops there (rxe under TCG, our rtc responder)
            assert names in (["RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST"],
                             ["RC_SEND_FIRST", "RC_SEND_MIDDLE"]), names
        answers = {(f["aeth"]["syndrome"], f["psn"]) for f in wire.sent_by(frames, srv_addr)
                   if "aeth" in f and f["aeth"]["syndrome"] != 0x1F}
        assert answers == ({(nak, psn)} if nak else set())
        if name == "rnr":
            # rnr_retry 0: the SEND goes out once
            assert [f["opcode_name"] for f in wire.sent_by(frames, cli_addr)] == ["RC_SEND_ONLY"]
        if name == "rkey":
            assert reqs[-1]["reth"]["rkey"] == rkey ^ 0x80
        if name == "invalidated":
            window = reqs[0]["ieth"]["rkey"]
            assert names == ["RC_SEND_ONLY_WITH_INVALIDATE", "RC_RDMA_WRITE_ONLY"]
            assert reqs[1]["reth"]["rkey"] == window != rkey
    else:
        assert nak == 0
        assert not any("aeth" in f for f in frames)
    if name == "uc-rkey":
        assert names == ["UC_RDMA_WRITE_ONLY", "UC_SEND_ONLY"]
        assert reqs[0]["reth"]["rkey"] == rkey ^ 0x80
    if qpt == "ud":
        qkeys = [f["deth"]["qkey"] for f in reqs]
        # ud-qkey: the wrong one, then the good SEND; ud-qkey-msb: 0x80000000
        # became the sender's own (rxe 6.1 sends it as given, and our server
        # drops it); ud-over-mtu: nothing of the 2000 bytes left
        msb = [0x80000000] if rxe_cli else [QKEY]
        assert qkeys == {"ud-qkey": [QKEY ^ 1, QKEY], "ud-qkey-msb": msb,
                         "ud-over-mtu": [QKEY]}[name]
        assert all(f["payload_len"] == 64 for f in reqs)
        assert len(wire.sent_by(frames, cli_addr)) == len(reqs)
