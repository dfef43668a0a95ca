# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma's RC transport against Linux rxe with rdma-core's unmodified
ibv_rc_pingpong: build/app/dpdk-rdma-pingpong (net_af_packet on a veth of
the harness's bridge, 10.99.0.10, answering ARP itself; its TCP exchange on
the namespace's kernel stack, 10.99.0.1) is the client of ibv_rc_pingpong in
the guest, then its server. One VM. Every run is captured on the VM's tap
and decoded by dpdk-rdma-dump: good ICRCs, BTH TVer 0 and P_Key 0xFFFF, the
two GIDs, and the UDP source port of rxe's rule on both sides. The same
for ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong (--qp-type srq:
several RC connections, each side's QPs on one SRQ)."""

import os
import re
import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest

from rxepeer import rxe

from . import wire
from .conftest import ENGINE_MODES, PINGPONG_PORT, REPO, engine_mode, harness_session, qpns

VM = ("vm1", "10.99.0.2/24")
OUR_IP = "10.99.0.10"
VETH = "dpp0"
STEP_TIMEOUT = 60
ITERS = 20
ITERS_LINE = re.compile(r"^(\d+) iters in [0-9.]+ seconds = [0-9.]+ usec/iter$", re.M)
BYTES_LINE = re.compile(r"^(\d+) bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$", re.M)
SUMMARY = re.compile(r"(\d+) frames, (\d+) RoCEv2, (\d+) bad ICRC, (\d+) malformed")


class Peer:
    def __init__(self, harness, vm, outdir):
        self.harness = harness
        self.vm = vm
        self.outdir = outdir
        self.prefix = "drpp%d" % os.getpid()


@pytest.fixture(scope="module")
def rxe_peer(tmp_path_factory):
    try:
        with harness_session() as h:
            vm = h.start(*VM, timeout=120)
            h.veth(VETH)
            yield Peer(h, vm, tmp_path_factory.mktemp("pingpong"))
    finally:
        shutil.rmtree("/var/run/dpdk/drpp%d" % os.getpid(), ignore_errors=True)


@pytest.fixture(scope="session")
def pingpong_exe():
    build = os.environ.get("DR_BUILD_DIR") or str(REPO / "build")
    exe = Path(build) / "app" / "dpdk-rdma-pingpong" / "dpdk-rdma-pingpong"
    if not exe.is_file():
        pytest.fail("%s is not built (set DR_BUILD_DIR or run ninja -C %s)" % (exe, build))
    return str(exe)


def ours(peer, exe, args, eal=()):
    """dpdk-rdma-pingpong in the harness's namespace on the veth (eal: more EAL arguments)."""
    argv = [exe, "--no-pci", "--no-huge", "-m", "256", "--file-prefix=" + peer.prefix,
            "--vdev", "net_af_packet0,iface=%s" % VETH, "--log-level=pmd.net.af_packet:warning"] + \
        list(eal) + ["--", "--ip", OUR_IP, "--timeout", str(STEP_TIMEOUT)] + args
    return peer.harness.netns_popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True)


def finish(proc, timeout):
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        out += "\n[killed after %ss]" % timeout
    return proc.returncode, out


def iters_of(output):
    m = ITERS_LINE.search(output)
    return int(m.group(1)) if m else None


def decode(dump_json, pcap):
    frames, p = dump_json(pcap, "--fail-on-error")
    m = SUMMARY.search(p.stderr)
    assert m, p.stderr
    total, roce, bad, malformed = map(int, m.groups())
    assert (bad, malformed) == (0, 0), p.stderr
    assert total == roce == len(frames) > 0
    return frames


def ip_ttls(pcap):
    """{IPv4 source: {TTL}} of a pcap's frames (Ethernet, no VLAN)."""
    out = {}
    with open(pcap, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(pkt) >= 34 and pkt[12:14] == b"\x08\x00":
            src = ".".join(str(b) for b in pkt[26:30])
            out.setdefault(src, set()).add(pkt[22])
    return out


def check_wire(frames, peer, our_qpn, their_qpn, size, mtu, qpt="rc"):
    """What rxe checks of every frame, and rxe's rules for ours."""
    vm_ip = peer.vm.ip
    for f in frames:
        assert f["icrc_ok"] and "error" not in f, f
        assert f["tver"] == 0 and f["pkey"] == 0xFFFF, f
        assert f["ip_version"] == 4, f
        assert {f["src"], f["dst"]} == {OUR_IP, vm_ip}, f
        sender = our_qpn if f["src"] == OUR_IP else their_qpn
        if qpt == "ud":
            # a UD QP's port is the hash of its own QPN; the DETH names it and the Q_Key
            assert f["udp_sport"] == rxe.udp_sport_ud(sender), f
            assert f["deth"] == {"qkey": 0x11111111, "src_qp": sender}, f
        else:
            # the flow-label rule: both ends of the connection use the same port
            assert f["udp_sport"] == rxe.udp_sport_connected(our_qpn, their_qpn), f
        dqp = their_qpn if f["dst"] == vm_ip else our_qpn
        assert f["dest_qp"] == dqp, f
        assert f["transport"] == qpt.upper(), f
    mine = [f for f in frames if f["src"] == OUR_IP]
    theirs = [f for f in frames if f["src"] == vm_ip]
    assert mine and theirs
    # each side sends ITERS messages cut at the path MTU, all acknowledged (RC)
    want = wire.requests([(0, "SEND", size)], qpt, mtu)
    for side in (mine, theirs):
        reqs = wire.first_seen([f for f in side if f["opcode"] != wire.ACK])
        assert [(f["opcode"], f["payload_len"]) for f in reqs] == \
            [(op, n) for op, n, _ in want] * ITERS, side[:6]
        assert all(f["pad"] == (-f["payload_len"]) % 4 for f in reqs)
    if qpt != "rc":
        # nothing acknowledges UC or UD; rxe never sets AckReq there
        assert not any(f["ack_req"] for f in frames), frames[:4]
        assert len(mine) == len(theirs) == ITERS * len(want)
        return
    for src in (OUR_IP, vm_ip):
        acks = [(i, f["psn"]) for i, f in enumerate(frames)
                if f["src"] != src and f["opcode"] == wire.ACK]
        assert {frames[i]["aeth"]["type"] for i, _ in acks} == {"ACK"}, acks[:4]
        # every AckReq is answered by a later ACK of its PSN or, coalesced, of a
        # later one (IBA 9.7.5.1.6): rxe asks on a middle packet once 64 went
        # unasked (RXE_MAX_PKT_PER_ACK, retransmissions count), and we answer a
        # burst that holds the message's end with one ACK of the last PSN
        unacked = [(i, f["psn"]) for i, f in enumerate(frames)
                   if f["src"] == src and f["opcode"] != wire.ACK and f["ack_req"] and
                   not any(j > i and (a - f["psn"]) & 0xFFFFFF < 0x800000 for j, a in acks)]
        assert not unacked, (src, unacked, acks[-4:])


CASES = [
    # (name, size, path MTU, -c)
    ("s1", 1, 1024, True),
    ("s4096", 4096, 1024, True),
    ("s10000", 10000, 1024, True),
]


def run_pair(peer, exe, name, tool, opts, ours_args, we_serve, eal=()):
    """ibv_*_pingpong OPTS in the guest and ours (OURS_ARGS; EAL: more EAL
    arguments) on the veth, ours the server when WE_SERVE, the VM's tap
    captured into NAME.pcap; both outputs kept next to it. Returns (our
    output, the guest's ExecResult, the pcap) once both exited 0."""
    pcap = str(peer.outdir / (name + ".pcap"))
    peer.harness.capture_start(pcap, peer.vm.tap)
    job = proc = None
    try:
        if we_serve:
            proc = ours(peer, exe, ours_args, eal)
            end = time.monotonic() + 30
            while not listening(peer, PINGPONG_PORT):
                assert proc.poll() is None, finish(proc, 5)
                assert time.monotonic() < end, "dpdk-rdma-pingpong does not listen"
                time.sleep(0.1)
            cli = peer.vm.exec("%s -d rxe0 -g $RXE_GID_IDX %s %s" % (
                tool, opts, peer.harness.host_ip), STEP_TIMEOUT)
            rc, out = finish(proc, 5 if cli.rc != 0 else STEP_TIMEOUT)
            theirs = cli
        else:
            job = peer.vm.spawn("%s -d rxe0 -g $RXE_GID_IDX %s" % (tool, opts), STEP_TIMEOUT)
            peer.vm.wait_tcp_listen(PINGPONG_PORT, timeout=30)
            proc = ours(peer, exe, ours_args + [peer.vm.ip], eal)
            rc, out = finish(proc, STEP_TIMEOUT)
            theirs = job.wait(None if rc == 0 else 5)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        peer.harness.capture_stop(pcap)
    peer.vm.explain(theirs)
    (peer.outdir / (name + ".ours.txt")).write_text(out)
    (peer.outdir / (name + ".rxe.txt")).write_text(theirs.output)
    assert (rc, theirs.rc) == (0, 0), "ours:\n%s\nrxe:\n%s" % (out, theirs.output)
    return out, theirs, pcap


def check_lines(outputs, size):
    """Both sides' final lines: ITERS iterations, 2 * size * ITERS bytes."""
    for o in outputs:
        assert iters_of(o) == ITERS, o
        assert int(BYTES_LINE.search(o).group(1)) == size * ITERS * 2, o
        assert "invalid data" not in o, o


def run_case(peer, dump_json, exe, name, size, mtu, chk, we_serve, qpt="rc", extra="", mode=None):
    """mode: our engine mode (rtc, pipeline; None: inline)."""
    # ibv_ud_pingpong has no -m (the port's MTU)
    opts = "-s %d%s -n %d%s%s" % (size, "" if qpt == "ud" else " -m %d" % mtu, ITERS,
                                  " -c" if chk else "", extra)
    eal, engine = engine_mode(mode) if mode else ((), [])
    out, theirs, pcap = run_pair(peer, exe, name, "ibv_%s_pingpong" % qpt, opts,
                                 opts.split() + ["--qp-type", qpt] + engine, we_serve, eal)
    check_lines((out, theirs.output), size)
    our_qpn, their_qpn = qpns(out)
    assert qpns(theirs.output) == (their_qpn, our_qpn)
    frames = decode(dump_json, pcap)
    check_wire(frames, peer, our_qpn, their_qpn, size, mtu, qpt)
    # ibv_*_pingpong ask for hop_limit 1; ib_core sends the route's TTL (64): so must we
    assert ip_ttls(pcap) == {OUR_IP: {64}, peer.vm.ip: {64}}


def listening(peer, port):
    out = peer.harness.netns_run(["cat", "/proc/net/tcp", "/proc/net/tcp6"]).stdout
    return re.search(r":%04X [0-9A-F:]+ 0A " % port, out) is not None


@pytest.mark.parametrize("name,size,mtu,chk", CASES, ids=[c[0] for c in CASES])
def test_rxe_server_ours_client(rxe_peer, dump_json, pingpong_exe, name, size, mtu, chk):
    run_case(rxe_peer, dump_json, pingpong_exe, "rxesrv_" + name, size, mtu, chk, False)


@pytest.mark.parametrize("name,size,mtu,chk", CASES, ids=[c[0] for c in CASES])
def test_ours_server_rxe_client(rxe_peer, dump_json, pingpong_exe, name, size, mtu, chk):
    run_case(rxe_peer, dump_json, pingpong_exe, "oursrv_" + name, size, mtu, chk, True)


UC_UD_CASES = [
    # (QP type, name, size, path MTU): UD messages fit the active MTU (1500 -> 1024)
    ("uc", "s1", 1, 1024),
    ("uc", "s10000", 10000, 1024),
    ("ud", "s1", 1, 1024),
    ("ud", "s1024", 1024, 1024),
]


@pytest.mark.parametrize("qpt,name,size,mtu", UC_UD_CASES, ids=["%s-%s" % c[:2] for c in UC_UD_CASES])
def test_uc_ud_rxe_server_ours_client(rxe_peer, dump_json, pingpong_exe, qpt, name, size, mtu):
    """-c on both sides (v44's uc and ud have it): rxe's server checks the
    first byte of every page our client sent (UD: past the 40-byte GRH
    area), which rdma-core's buffers start at 0x7b and a -c client zeroes."""
    run_case(rxe_peer, dump_json, pingpong_exe, "rxesrv_%s_%s" % (qpt, name), size, mtu, True, False,
             qpt)


@pytest.mark.parametrize("qpt,name,size,mtu", UC_UD_CASES, ids=["%s-%s" % c[:2] for c in UC_UD_CASES])
def test_uc_ud_ours_server_rxe_client(rxe_peer, dump_json, pingpong_exe, qpt, name, size, mtu):
    run_case(rxe_peer, dump_json, pingpong_exe, "oursrv_%s_%s" % (qpt, name), size, mtu, True, True,
             qpt)


def test_ud_size_above_mtu_refused(pingpong_exe, tmp_path):
    """ibv_ud_pingpong's check: a message above the port's active MTU is refused before anything."""
    sock = tmp_path / "m.sock"
    p = subprocess.run([pingpong_exe, "--no-pci", "--no-huge", "-m", "256",
                        "--file-prefix=drppud%d" % os.getpid(),
                        "--vdev", "net_memif0,role=server,socket=%s,socket-abstract=no" % sock,
                        "--", "--ip", "10.0.0.1", "--qp-type", "ud", "-s", "1025",
                        "--link-mtu", "1500"],
                       capture_output=True, text=True, timeout=60)
    shutil.rmtree("/var/run/dpdk/drppud%d" % os.getpid(), ignore_errors=True)
    assert p.returncode == 1 and "Requested size larger than port MTU (1024)" in p.stderr, p.stderr


@pytest.mark.parametrize("args,why", [
    (["--qp-type", "ud", "-m", "1024"], "no -m"),
    (["--qp-type", "xrc"], "rc, uc, ud or srq"),
])
def test_pingpong_bad_qp_type_options(pingpong_exe, args, why):
    p = subprocess.run([pingpong_exe, "--"] + args, capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and why in p.stderr, p.stderr


ENGINE_CLI_ERRORS = [
    (["--mode", "pipe"], "--mode: unknown mode 'pipe' (inline, rtc or pipeline)"),
    (["--workers", "2"], "--workers: only with --mode rtc or pipeline (the default mode is inline)"),
    (["--mode", "inline", "--idle", "yield"], "--idle: only with --mode rtc or pipeline\n"),
    (["--queues", "1"], "--queues: only with --mode rtc or pipeline"),
    (["--mode", "rtc", "--workers", "0"], "--workers: invalid value '0' (an integer from 1 to 16)"),
    (["--mode", "pipeline", "--workers", "6"], "--workers: 6 pipeline groups: at most 5"),
    (["--mode", "rtc", "--idle", "nap"], "--idle: unknown policy 'nap'"),
    (["--mode", "rtc", "--workers", "2", "--queues", "3"], "--queues: 3 queue pairs for 2 workers"),
]


@pytest.mark.parametrize("args,why", ENGINE_CLI_ERRORS, ids=[" ".join(a) for a, _ in ENGINE_CLI_ERRORS])
def test_engine_cli_errors(pingpong_exe, args, why):
    """Bad engine options: exit 1 (as every usage error of the pingpongs) and
    dpdk-rdma-perf's message naming the option, before EAL starts."""
    p = subprocess.run([pingpong_exe, "--"] + args, capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "dpdk-rdma-pingpong: " + why in p.stderr, p.stderr
    assert "EAL" not in p.stderr


def test_engine_help(pingpong_exe):
    p = subprocess.run([pingpong_exe, "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0
    for opt in ("--mode M", "--workers N", "--idle P", "--queues N"):
        assert "      %-19s" % opt in p.stdout, p.stdout


@pytest.mark.parametrize("qpt", ["rc", "ud"])
@pytest.mark.parametrize("we_serve", [False, True], ids=["rxesrv", "oursrv"])
def test_events(rxe_peer, dump_json, pingpong_exe, qpt, we_serve):
    """-e on both sides: rxe sleeps on its completion channel, we wait on ours
    (dr_req_notify_cq / dr_get_cq_event, re-armed after every event)."""
    run_case(rxe_peer, dump_json, pingpong_exe, "%s_events_%s" % ("oursrv" if we_serve else "rxesrv", qpt),
             1024, 1024, qpt == "rc", we_serve, qpt, " -e")


# ibv_srq_pingpong: num_qp RC QPs on one SRQ each side, one connection per pair
SRQ_QPS = 4
ADDR_LINE = re.compile(r"^  (local|remote) address: +LID 0x[0-9a-f]+, QPN (0x[0-9a-f]+), "
                       r"PSN 0x[0-9a-f]+, GID \S+$", re.M)


def addresses(output):
    """(local QPNs, remote QPNs) of ibv_srq_pingpong's address lines, in order."""
    lines = ADDR_LINE.findall(output)
    return ([int(q, 16) for w, q in lines if w == "local"],
            [int(q, 16) for w, q in lines if w == "remote"])


def check_wire_srq(frames, peer, conns, size, mtu):
    """conns: [(our QPN, their QPN)]. Every frame RC on one of them with
    rxe's source port of that connection; each side's SENDs per connection
    cut at the path MTU, every AckReq acknowledged on its connection."""
    vm_ip = peer.vm.ip
    by_dest = {(OUR_IP, o): (o, t) for o, t in conns}
    by_dest.update({(vm_ip, t): (o, t) for o, t in conns})
    for f in frames:
        assert f["icrc_ok"] and "error" not in f, f
        assert f["tver"] == 0 and f["pkey"] == 0xFFFF and f["ip_version"] == 4, f
        assert {f["src"], f["dst"]} == {OUR_IP, vm_ip}, f
        assert f["transport"] == "RC", f
        conn = by_dest.get((f["dst"], f["dest_qp"]))
        assert conn is not None, f
        assert f["udp_sport"] == rxe.udp_sport_connected(*conn), f
    want = [(op, n) for op, n, _ in wire.requests([(0, "SEND", size)], "rc", mtu)]
    for src, dst in ((OUR_IP, vm_ip), (vm_ip, OUR_IP)):
        total = 0
        for o, t in conns:
            me, peer_qp = (o, t) if src == OUR_IP else (t, o)
            side = [f for f in frames if f["src"] == src and f["dest_qp"] == peer_qp]
            other = [f for f in frames if f["src"] == dst and f["dest_qp"] == me]
            reqs = wire.first_seen([f for f in side if f["opcode"] != wire.ACK])
            n = len(reqs) // len(want)
            # every connection carries SENDs both ways
            assert n >= 1 and [(f["opcode"], f["payload_len"]) for f in reqs] == want * n, reqs[:6]
            assert all(f["pad"] == (-f["payload_len"]) % 4 for f in reqs)
            acks = [f for f in other if f["opcode"] == wire.ACK]
            assert {a["aeth"]["type"] for a in acks} == {"ACK"}, acks[:4]
            asked = {f["psn"] for f in side if f["opcode"] != wire.ACK and f["ack_req"]}
            # an ACK acknowledges every PSN up to its own (IBA 9.7.5.1.6: coalesced);
            # the last message's may be owed when the program exits (ibv_srq_pingpong has
            # no closing handshake: each side destroys its QPs once its own count is done)
            last = {f["psn"] for f in reqs[-len(want):]}
            unacked = {p for p in asked
                       if not any((a["psn"] - p) & 0xFFFFFF < 0x800000 for a in acks)}
            assert unacked <= last, (src, o, t, sorted(unacked), sorted(last), acks[-4:])
            total += n
        # -n counts the messages of all QPs together (a QP may send once more
        # while the others' last completions are on their way)
        assert ITERS <= total < ITERS + len(conns), (src, total)


SRQ_DEFAULT_QPS = 16
SRQ_CASES = [
    # (name, QPs, size, extra options of both sides)
    ("s4096", SRQ_QPS, 4096, " -c"),          # v44's srq has -c too
    ("events", SRQ_QPS, 1024, " -e"),
    ("default_q", SRQ_DEFAULT_QPS, 64, ""),    # no -q on either side: 16 QPs
]


def run_srq(peer, dump_json, exe, name, num_qp, size, extra, we_serve, mode=None):
    """ibv_srq_pingpong against ours (--qp-type srq; mode: our engine mode, None: inline)."""
    mtu = 1024
    opts = "%s-n %d -s %d -m %d%s" % ("" if num_qp == SRQ_DEFAULT_QPS else "-q %d " % num_qp,
                                      ITERS, size, mtu, extra)
    eal, engine = engine_mode(mode) if mode else ((), [])
    out, theirs, pcap = run_pair(peer, exe, "%s_srq_%s" % ("oursrv" if we_serve else "rxesrv", name),
                                 "ibv_srq_pingpong", opts,
                                 opts.split() + ["--qp-type", "srq"] + engine, we_serve, eal)
    check_lines((out, theirs.output), size)
    our_local, our_remote = addresses(out)
    their_local, their_remote = addresses(theirs.output)
    assert len(our_local) == len(their_local) == num_qp, (out, theirs.output)
    assert (our_remote, their_remote) == (their_local, our_local), (out, theirs.output)
    frames = decode(dump_json, pcap)
    check_wire_srq(frames, peer, list(zip(our_local, our_remote)), size, mtu)
    assert ip_ttls(pcap) == {OUR_IP: {64}, peer.vm.ip: {64}}


@pytest.mark.parametrize("we_serve", [False, True], ids=["rxesrv", "oursrv"])
@pytest.mark.parametrize("name,num_qp,size,extra", SRQ_CASES, ids=[c[0] for c in SRQ_CASES])
def test_srq(rxe_peer, dump_json, pingpong_exe, name, num_qp, size, extra, we_serve):
    """rdma-core's ibv_srq_pingpong against ours (--qp-type srq): num_qp RC
    connections, each side's QPs receiving from one SRQ."""
    run_srq(rxe_peer, dump_json, pingpong_exe, name, num_qp, size, extra, we_serve)


# ---- the engine modes: each program once per mode, the same wire from worker lcores ----

ENGINE_CASES = [
    # (QP type, we serve, size, extra options of both sides): both directions, -e twice
    ("rc", False, 4096, " -e"),
    ("uc", True, 10000, ""),
    ("ud", False, 1024, ""),
    ("srq", True, 4096, " -e"),
]


@pytest.mark.parametrize("mode", ENGINE_MODES)
@pytest.mark.parametrize("qpt,we_serve,size,extra", ENGINE_CASES,
                         ids=["%s_%s%s" % (c[0], "oursrv" if c[1] else "rxesrv",
                                           c[3].replace(" -", "_")) for c in ENGINE_CASES])
def test_engine_modes(rxe_peer, dump_json, pingpong_exe, qpt, we_serve, size, extra, mode):
    """Ours in run-to-completion mode (one worker lcore) or pipeline mode (an
    rx, a tx and a completion lcore), all on one CPU yielding when idle,
    against rdma-core's pingpongs: the same lines and wire as inline; -e
    sleeps on the completion channel while the workers run the transport."""
    name = "%s_%s" % (mode, qpt)
    if qpt == "srq":
        run_srq(rxe_peer, dump_json, pingpong_exe, name, SRQ_QPS, size, extra, we_serve, mode)
    else:
        run_case(rxe_peer, dump_json, pingpong_exe, "%s_%s" % ("oursrv" if we_serve else "rxesrv", name),
                 size, 1024, qpt == "rc", we_serve, qpt, extra, mode)


@pytest.mark.parametrize("args,why", [
    (["-q", "8", "-r", "4"], "rx_depth 4 is too small for 8 QPs -- must have at least one receive per QP.\n"),
    (["-r", "8"], "rx_depth 8 is too small for 16 QPs"),   # -q's default: 16
    (["-q", "257"], "1 to 256 QPs"),
], ids=["q8-r4", "q16-r8", "q257"])
def test_srq_bad_options(pingpong_exe, args, why):
    """ibv_srq_pingpong's refusals (exit 1 before anything)."""
    p = subprocess.run([pingpong_exe, "--", "--qp-type", "srq"] + args, capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 1 and why in p.stderr, p.stderr


def test_num_qp_is_srqs_only(pingpong_exe):
    p = subprocess.run([pingpong_exe, "--", "-q", "2"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "-q: only ibv_srq_pingpong" in p.stderr, p.stderr
