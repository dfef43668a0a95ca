# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-opgen against itself: two of our processes run the operation
table (usertools/rxepeer/guest/dr-opgen-ops.h) over net_memif for -t rc, uc,
ud and xrc, and both must agree on the verdict. XRC is tested here because
rxe has none (the guest's dr-opgen refuses -t xrc: test_opgen_rxe.py): the
server's XRC_RECV QP and XRC SRQ, the client's XRC_SEND QP naming the SRQ.
RC adds the type 2 memory window (a WRITE through it, a SEND_WITH_INV that
invalidates it). Every fault of -E (one bad request, fault.c) runs between
two of our processes too. The XRC run is also captured on a veth pair between two
network namespaces (net_af_packet, dumpcap) and decoded with dpdk-rdma-dump:
XRC opcodes, each request's XRCETH naming the server's SRQ.

The pairs are started and cleaned up by usertools/drperf/pair.py (memif
socket removed before and after, EAL runtime directories removed, every
process bounded and killed by PID). Needs the transport: fails (does not
skip) until dpdk-rdma-opgen links."""

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from interop import wire
from perfutil import netns, pair

QPTS = ("rc", "uc", "ud", "xrc")
RUN_TIMEOUT = 90          # one pair; a run takes 1-3 s here
MTU = 1024
CAPTURE_LINGER = 0.5      # libpcap hands over its last block on a timeout: wait for it

OP_LINE = re.compile(r"^(\d+) (\S+) (\d+) (recv|-) # ", re.M)


def table(exe, qpt):
    """[(index, wr, length, consumes a receive)] of -L -t qpt."""
    out = subprocess.run([str(exe), "-L", "-t", qpt], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    return [(int(i), wr, int(n), r == "recv") for i, wr, n, r in OP_LINE.findall(out)]


def opgen_args(qpt):
    return ["-t", qpt, "-m", MTU, "--timeout", 30, "-T", 60]


def assert_verdict(res, rows):
    """Both exit 0 and agree; the client ran every row, each ok; the server
    checked every receive of the table, in order, each ok."""
    assert res.ok, "the pair failed:\n" + res.describe()
    srv, cli = res.server.stdout, res.client.stdout
    assert "server done: 0 failures, client reported 0: OK" in srv, res.describe()
    assert re.search(r"^client done: %d ops, 0 local failures, server OK$" % len(rows), cli,
                     re.M), res.describe()
    ops = re.findall(r"^client op +(\d+) (\S+) .* ok  # ", cli, re.M)
    assert [(int(i), wr) for i, wr in ops] == [(i, wr) for i, wr, _, _ in rows], cli
    recvs = re.findall(r"^server op +(\d+) (\S+) +status=success .* ok$", srv, re.M)
    assert [(int(i), wr) for i, wr in recvs] == [(i, wr) for i, wr, _, r in rows if r], srv
    assert "FAIL" not in srv + cli, res.describe()


@pytest.mark.parametrize("qpt", QPTS)
def test_opgen_pair(opgen_exe, qpt):
    rows = table(opgen_exe, qpt)
    res = pair.run_memif(list(map(str, opgen_args(qpt))), exe=opgen_exe, timeout=RUN_TIMEOUT)
    assert_verdict(res, rows)
    srv, cli = res.server.stdout, res.client.stdout
    window = re.search(r"^server window rkey=(0x[0-9a-f]+) bound over ", srv, re.M)
    if qpt == "rc":
        # the WRITE through the window and the SEND_WITH_INV that invalidates it
        assert window, srv
        assert re.findall(r"^client op +\d+ (\S+) .* window=(0x[0-9a-f]+) ", cli, re.M) == \
            [("RDMA_WRITE", window.group(1)), ("SEND_WITH_INV", window.group(1))], cli
        assert re.search(r"^server op +\d+ SEND_WITH_INV +status=success opcode=RECV byte_len=62 "
                         r"invalidated=%s data=ok ok$" % window.group(1), srv, re.M), srv
    else:
        assert not window and "window=" not in cli, res.describe()
    if qpt == "xrc":
        # the client names the server's SRQ; READs and atomics run, the window's rows do not
        srqn = re.findall(r"^(?:server|client) xrc srqn=(0x[0-9a-f]+)$", srv + cli, re.M)
        assert len(srqn) == 2 and srqn[0] == srqn[1], res.describe()
        assert "server atomic word=0xabcdef ok" in srv


# dr-opgen-ops.h's opgen_faults (-E list); against rxe: interop/test_faults_rxe.py
FAULTS = ("rkey", "bounds", "mr-no-read", "qp-no-atomic", "misaligned", "too-long", "rnr",
          "invalidated", "uc-rkey", "ud-qkey", "ud-qkey-msb", "ud-over-mtu", "lkey", "sge-list")


def test_fault_list(opgen_exe):
    out = subprocess.run([str(opgen_exe), "--", "-E", "list"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    assert tuple(re.findall(r"^(\S+) (?:rc|uc|ud) nak=0x[0-9a-f]{2} # ", out, re.M)) == FAULTS


@pytest.mark.parametrize("name", FAULTS)
def test_fault_pair(opgen_exe, name):
    """One bad request between two of our processes: the requester's error
    status, nothing executed at the responder, both QPs' states (fault.c)."""
    res = pair.run_memif(["-E", name, "-m", str(MTU), "--timeout", "30", "-T", "60"],
                         exe=opgen_exe, timeout=RUN_TIMEOUT)
    assert res.ok, "the pair failed:\n" + res.describe()
    srv, cli = res.server.stdout, res.client.stdout
    assert "server done: fault %s, 0 failures, client reported 0: OK" % name in srv, srv
    assert "client done: fault %s, 0 local failures, server OK" % name in cli, cli
    assert re.search(r"^client fault %s wr 1 .* ok$" % re.escape(name), cli, re.M), cli
    assert re.search(r"^server qp state=(ERR|RTS) ok$", srv, re.M), srv
    assert "FAIL" not in srv + cli, res.describe()


LOSSY_RE = re.compile(r"^server lossy: (\d+) of (\d+) messages arrived, (\d+) lost, "
                      r"(\d+) duplicates, 0 bad$", re.M)


@pytest.mark.parametrize("qpt", ["uc", "ud"])
def test_lossy_through_faultlink(opgen_exe, faultlink_exe, qpt):
    """-l (UC, UD through a lossy link): two of ours through dpdk-rdma-faultlink
    at 30% loss and 20% duplication both ways; the server judges what
    arrived by itself, counts the losses, and everything it got is right."""
    from drperf import faultlink

    with faultlink.FaultLink(("memif", "memif"), ["--both", "loss 30% duplicate 20%", "--seed", "5"],
                             exe=faultlink_exe) as fl:
        res = fl.run_perf(["-t", qpt, "-l", "-m", MTU, "--timeout", 30, "-T", 60], exe=opgen_exe,
                          timeout=RUN_TIMEOUT)
    assert res.ok, "the pair failed:\n" + res.describe()
    srv, cli = res.server.stdout, res.client.stdout
    assert "server done: 0 failures, client reported 0: OK" in srv, res.describe()
    assert re.search(r"^client done: \d+ ops, 0 local failures, server OK$", cli, re.M), cli
    m = LOSSY_RE.search(srv)
    assert m, srv
    arrived, expected, lost, _ = map(int, m.groups())
    # 30% of the frames lost: of the table's messages some arrived and some did not
    assert 0 < arrived < expected and arrived + lost == expected, srv
    assert "FAIL" not in srv, srv


@pytest.mark.parametrize("args, msg", [
    (["-l"], "-l: the uc and ud tables only, not rc"),
    (["-l", "-t", "xrc"], "-l: the uc and ud tables only, not xrc"),
    (["-l", "-E", "rkey"], "-l: the uc and ud tables only, not a fault run"),
    (["-E", "nope"], "-E nope: no such fault (-E list)"),
    (["-E", "rkey", "-t", "ud"], "-E rkey is a rc fault, not -t ud"),
    (["-t", "uc", "-E", "ud-qkey"], "-E ud-qkey is a ud fault, not -t uc"),
])
def test_fault_usage(opgen_exe, args, msg):
    p = subprocess.run([str(opgen_exe), "--"] + args, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and msg in p.stderr, p.stderr


# (QP type, engine mode, the side in that mode): the other side runs inline
ENGINE_CASES = [("rc", "rtc", "server"), ("rc", "pipeline", "client"),
                ("xrc", "rtc", "client"), ("xrc", "pipeline", "server")]


@pytest.mark.parametrize("qpt,mode,side", ENGINE_CASES, ids=["-".join(c) for c in ENGINE_CASES])
def test_opgen_pair_engine_modes(opgen_exe, qpt, mode, side):
    """One side in an engine mode (pair.engine(): one worker lcore or one
    pipeline group, every lcore of that side on its CPU, yielding when idle),
    the other inline on the other CPU: the same verdict. XRC here only (rxe
    has none); RC against rxe in interop/test_opgen_rxe.py. Not both sides:
    each side's control thread would share a CPU with the other side's
    yielding lcores, which this host's scheduler lets starve for seconds."""
    rows = table(opgen_exe, qpt)
    extra, *engine_lcores = pair.engine(mode, 1)
    _, *inline_lcores = pair.engine("inline")
    kw = {"server_lcores": inline_lcores[0], "client_lcores": inline_lcores[1]}
    kw[side + "_args"] = extra
    kw[side + "_lcores"] = engine_lcores[0 if side == "server" else 1]
    res = pair.run_memif(list(map(str, opgen_args(qpt))), exe=opgen_exe, timeout=RUN_TIMEOUT,
                         **kw)
    assert_verdict(res, rows)


ENGINE_CLI_ERRORS = [
    (["--mode", "pipe"], "--mode: unknown mode 'pipe' (inline, rtc or pipeline)"),
    (["--workers", "2"], "--workers: only with --mode rtc or pipeline (the default mode is inline)"),
    (["--mode", "inline", "--idle", "yield"], "--idle: only with --mode rtc or pipeline\n"),
    (["--queues", "1"], "--queues: only with --mode rtc or pipeline"),
    (["--mode", "rtc", "--workers", "17"], "--workers: invalid value '17' (an integer from 1 to 16)"),
    (["--mode", "pipeline", "--workers", "6"], "--workers: 6 pipeline groups: at most 5"),
    (["--mode", "rtc", "--idle", "nap"], "--idle: unknown policy 'nap'"),
    (["--mode", "pipeline", "--workers", "1", "--queues", "2"],
     "--queues: 2 queue pairs for 1 workers"),
]


@pytest.mark.parametrize("args, msg", ENGINE_CLI_ERRORS, ids=[" ".join(a) for a, _ in ENGINE_CLI_ERRORS])
def test_engine_cli_errors(opgen_exe, args, msg):
    """Bad engine options: exit 2 (a usage error) and dpdk-rdma-perf's
    message naming the option, before EAL starts."""
    p = subprocess.run([str(opgen_exe), "--"] + args, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "dpdk-rdma-opgen: " + msg in p.stderr, p.stderr
    assert "EAL" not in p.stderr


def test_xrc_table_is_rcs_without_the_window(opgen_exe):
    """-t xrc runs every RC row but the two through the server's type 2
    window: an XRC_RECV QP has no send queue to bind one through."""
    rc, xrc = table(opgen_exe, "rc"), table(opgen_exe, "xrc")
    assert [r for r in rc if r not in xrc] == [(24, "RDMA_WRITE", 64, False),
                                               (25, "SEND_WITH_INV", 62, True)]
    assert [r for r in rc if r in xrc] == xrc
    assert table(opgen_exe, "uc") and all(r in xrc for r in table(opgen_exe, "uc"))


# ---- the XRC run on a real link, captured ----

@pytest.fixture(scope="module")
def veth():
    if os.geteuid() != 0:
        pytest.skip("needs root: network namespaces and veth pairs")
    if shutil.which("ip") is None or shutil.which("dumpcap") is None:
        pytest.skip("needs iproute2 (ip) and dumpcap (tshark)")
    net = netns.VethNetns(tag="o%d" % (os.getpid() % 10 ** 8))
    try:
        net.create()
        yield net
    finally:
        net.destroy()


class Capture:
    """dumpcap on one veth end (UDP 4791), stopped by its PID."""

    def __init__(self, ns, iface, path):
        self.path = str(path)
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, "dumpcap", "-q", "-P", "-i", iface, "-f",
             "udp port 4791", "-w", self.path], stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
        end = time.monotonic() + 10
        while time.monotonic() < end and self.proc.poll() is None:
            if os.path.exists(self.path) and os.path.getsize(self.path) >= 24:
                time.sleep(0.1)
                return
            time.sleep(0.05)
        self.stop(0)
        pytest.fail("dumpcap did not start: %s" % self.proc.stderr.read().decode(errors="replace"))

    def stop(self, linger=CAPTURE_LINGER):
        time.sleep(linger)
        for sig, wait in ((signal.SIGINT, 5), (signal.SIGKILL, 5)):
            if self.proc.poll() is not None:
                break
            os.kill(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                pass
        self.proc.stderr.close()


def run_veth(exe, net, args):
    """The pair over net's data veth: server in ns_a, client in ns_b, the
    TCP exchange over the control veth. qdisc_bypass=0: what net_af_packet
    sends goes through dev_queue_xmit(), where packet taps (dumpcap on the
    same end) see it; with the PMD's default bypass they see only what
    arrives."""
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000000)
    port = pair.free_tcp_port()
    prefixes = ("drogs_" + tag, "drogc_" + tag)
    eal = [pair.afpacket_eal(iface, prefix, ",qdisc_bypass=0")
           for iface, prefix in ((net.if_a, prefixes[0]), (net.if_b, prefixes[1]))]
    server = pair.Side("server", pair.perf_cmd(exe, eal[0], args, pair.SERVER_IP, port,
                                               netns=net.ns_a), prefixes=[prefixes[0]])
    client = pair.Side("client", pair.perf_cmd(exe, eal[1], args, pair.CLIENT_IP, port,
                                               server_addr=netns.CTL_A, netns=net.ns_b),
                       prefixes=[prefixes[1]])
    return pair.run_pair(server, client, RUN_TIMEOUT)


def test_xrc_capture(opgen_exe, veth, dump_json, tmp_path):
    """The wire of -t xrc: the client's requests are exactly the table's
    packets with XRC opcodes (0xA0-0xB7), PSNs from 0x100, each with an
    XRCETH naming the server's SRQ; the server answers with XRC ACKs, READ
    responses and atomic ACKs (no XRCETH); every ICRC good."""
    rows = table(opgen_exe, "xrc")
    pcap = tmp_path / "opgen_xrc.pcap"
    cap = Capture(veth.ns_a, veth.if_a, pcap)
    try:
        res = run_veth(opgen_exe, veth, list(map(str, opgen_args("xrc"))))
    finally:
        cap.stop()
    assert_verdict(res, rows)
    srv = res.server.stdout
    srqn = int(re.search(r"^server xrc srqn=(0x[0-9a-f]+)$", srv, re.M).group(1), 16)
    frames, p = dump_json(pcap, "--fail-on-error")
    assert "0 bad ICRC, 0 malformed" in p.stderr, p.stderr
    assert {f["transport"] for f in frames} == {"XRC"}
    ops = [(i, wr, n) for i, wr, n, _ in rows]
    reqs = wire.first_seen([f for f in frames if f["src"] == pair.CLIENT_IP])
    want = wire.requests(ops, "xrc", MTU)
    assert [(f["opcode"], f["payload_len"]) for f in reqs] == [(o, n) for o, n, _ in want]
    psn = 0x100
    for f, (_, n, used) in zip(reqs, want):
        assert f["psn"] == psn and f["pad"] == wire.pad(n) and f["xrceth"]["srq"] == srqn, f
        psn += used
    resp = [f for f in frames if f["src"] == pair.SERVER_IP]
    assert resp and not any("xrceth" in f for f in resp)
    data = wire.first_seen([f for f in resp if f["opcode"] != wire.TRANSPORT["xrc"] | wire.ACK])
    assert [(f["opcode"], f["payload_len"]) for f in data] == wire.read_responses(ops, MTU, "xrc")
    assert [f["atomicacketh"]["orig"] for f in data if "atomicacketh" in f] == \
        [100, 105, 0xABCDEF]
    names = {f["opcode_name"] for f in frames}
    for n in ("XRC_SEND_ONLY", "XRC_SEND_ONLY_WITH_IMMEDIATE", "XRC_SEND_FIRST", "XRC_SEND_MIDDLE",
              "XRC_SEND_LAST_WITH_IMMEDIATE", "XRC_RDMA_WRITE_ONLY", "XRC_RDMA_WRITE_FIRST",
              "XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "XRC_RDMA_READ_REQUEST",
              "XRC_RDMA_READ_RESPONSE_ONLY", "XRC_RDMA_READ_RESPONSE_MIDDLE", "XRC_FETCH_ADD",
              "XRC_COMPARE_SWAP", "XRC_ATOMIC_ACKNOWLEDGE", "XRC_ACKNOWLEDGE"):
        assert n in names, n
