# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Our stack against Linux rxe over a lossy link. This host kernel has no
netem; our endpoint runs on net_af_xdp on the harness veth with the XDP
fault program (test/integration/xdp_faults.bpf.c, built with
LOSS_PER_MILLE=50 and LOSS_ROCE_ONLY=1) as its xdp_prog: 5% of the RoCEv2
frames it receives (rxe's requests, ACKs and READ responses) are dropped
before our transport sees them; ARP gets through. The pingpong runs spare
ACKs (LOSS_KEEP_ACKS, see test_pingpong). XDP sees only received
frames: what our endpoint transmits is not dropped (an AF_XDP socket's
frames bypass the qdisc layer too), so the loss is one-way, into our stack,
and both roles are covered by running each tool both ways (as requester we
lose ACKs and READ responses and must time out and resend; as responder we
lose requests and must NAK the gap or let rxe time out).

rxe in one VM runs ibv_rc_pingpong -c, ib_write_bw / ib_read_bw /
ib_send_bw and dr-opgen (every byte of every operation checked on both
sides) against dpdk-rdma-pingpong, dpdk-rdma-perf --perftest-compat and
dpdk-rdma-opgen, both directions. Each run must complete with its checks;
the capture of the VM's tap (which sees frames before our XDP drops them)
must decode with good ICRCs, and across the module retransmissions (a
request or READ response PSN sent twice) must appear: the proof that frames
were lost (the veth's rx_dropped does not count XDP_DROP, and there is no
ethtool or bpftool here to read the XDP counters)."""

import os
import re
import shutil
import subprocess
from collections import Counter

import pytest

from . import ours, wire
from .conftest import OPGEN_PORT, PINGPONG_PORT, REPO, harness_session
from .ours import exe_of
from .test_perftest_rxe import rows
from .test_pingpong_rxe import decode, iters_of

VM = ("lsvm", "10.99.0.2/24")
OUR_IP = "10.99.0.14"
VETH = "lsv0"
PERF_PORT = 18517
LOSS_PER_MILLE = 50
FAULTS_SRC = REPO / "test" / "integration" / "xdp_faults.bpf.c"
TIMEOUT = 120


def build_faults(tmp_path, keep_acks):
    clang = shutil.which("clang")
    if clang is None:
        pytest.skip("needs clang (BPF target) to build the XDP fault program")
    obj = tmp_path / ("xdp_faults_roce_%d_%d.o" % (LOSS_PER_MILLE, keep_acks))
    p = subprocess.run([clang, "-O2", "-g", "-target", "bpf",
                        "-DLOSS_PER_MILLE=%d" % LOSS_PER_MILLE, "-DLOSS_ROCE_ONLY=1",
                        "-DLOSS_KEEP_ACKS=%d" % keep_acks,
                        "-I/usr/include/%s-linux-gnu" % os.uname().machine, "-c",
                        str(FAULTS_SRC), "-o", str(obj)], capture_output=True, text=True,
                       timeout=60, check=False)
    if p.returncode != 0:
        pytest.skip("cannot build the XDP fault program (clang, libbpf-dev): " + p.stderr[-300:])
    return obj


class Lossy(ours.Peer):
    def __init__(self, harness, vm, outdir, progs, dump_json):
        super().__init__(harness, vm, VETH, outdir, "drls")
        self.dump_json = dump_json
        self.progs = progs          # {keep_acks: XDP object}
        self.resent = Counter()     # run name -> retransmitted requests in its capture

    def lossy_run(self, name, exe, our_args, tool, port, we_serve, wait_listen=True,
                  keep_acks=False, mode=None):
        extra = ",xdp_prog=%s" % self.progs[keep_acks]
        rc, out, theirs, pcap = self.run(name, exe, "af_xdp", our_args, tool, port, we_serve,
                                         extra=extra, wait_listen=wait_listen,
                                         timeout=TIMEOUT, mode=mode)
        assert (rc, theirs.rc) == (0, 0), "ours:\n%s\nrxe:\n%s" % (out, theirs.output)
        frames = decode(self.dump_json, pcap)
        assert {f["src"] for f in frames} == {OUR_IP, self.vm.ip}
        self.resent[name] = retransmitted(frames)
        return out, theirs.output, frames


def retransmitted(frames):
    """Requests and READ responses sent more than once (same source, opcode, PSN)."""
    c = Counter((f["src"], f["opcode"], f["psn"]) for f in frames
                if f["opcode"] not in (wire.ACK, wire.ATOMIC_ACK))
    return sum(n - 1 for n in c.values())


@pytest.fixture(scope="module")
def lossy(tmp_path_factory, dump_json):
    d = tmp_path_factory.mktemp("faults")
    progs = {k: build_faults(d, int(k)) for k in (False, True)}
    with harness_session() as h:
        vm = h.start(*VM, timeout=120)
        h.veth(VETH)
        p = Lossy(h, vm, tmp_path_factory.mktemp("loss"), progs, dump_json)
        try:
            yield p
        finally:
            p.cleanup()


WAYS = pytest.mark.parametrize("we_serve", [False, True], ids=["rxe_server", "our_server"])


@WAYS
def test_pingpong(lossy, we_serve):
    """ibv_rc_pingpong has no closing handshake: a lost ACK of the last SEND
    leaves its sender retrying against a QP the peer has destroyed
    (transport retry counter exceeded). Here the program spares RC ACKs;
    SENDs are lost as elsewhere, and the other modules lose ACKs too."""
    size, iters = 4096, 50
    opts = "-s %d -m 1024 -n %d -c" % (size, iters)
    out, rout, _ = lossy.lossy_run(
        "pingpong_%s" % ("oursrv" if we_serve else "rxesrv"), exe_of("dpdk-rdma-pingpong"),
        ["--ip", OUR_IP, "--timeout", "60"] + opts.split(),
        "ibv_rc_pingpong -d rxe0 -g $RXE_GID_IDX " + opts, PINGPONG_PORT, we_serve, keep_acks=True)
    for o in (out, rout):
        assert iters_of(o) == iters and "invalid data" not in o, o


@WAYS
@pytest.mark.parametrize("test", ["write_bw", "read_bw", "send_bw"])
def test_perftest(lossy, test, we_serve):
    size, iters = 8192, 100
    args = ["-s", str(size), "-n", str(iters)]
    our_args = [test, "--ip", OUR_IP, "--perftest-compat", "-p", str(PERF_PORT)] + args
    if we_serve:
        our_args += ["--oob-bind", lossy.harness.host_ip]
    out, rout, _ = lossy.lossy_run(
        "%s_%s" % (test, "oursrv" if we_serve else "rxesrv"), exe_of("dpdk-rdma-perf"),
        our_args, "ib_%s -d rxe0 -x $RXE_GID_IDX -p %d %s" % (test, PERF_PORT, " ".join(args)),
        PERF_PORT, we_serve)
    for who, text in (("ours", out), ("rxe", rout)):
        assert rows(test, text) == [(str(size), str(iters))], "%s:\n%s" % (who, text)


def run_opgen(lossy, we_serve, mode=None):
    """Every RC operation, every byte checked by both sides, through the loss;
    mode: our engine mode (rtc, pipeline; None: inline)."""
    common = ["-t", "rc", "-m", "1024", "-p", str(OPGEN_PORT), "-T", "100"]
    out, rout, _ = lossy.lossy_run(
        "opgen_%s%s" % ("oursrv" if we_serve else "rxesrv", "_" + mode if mode else ""),
        exe_of("dpdk-rdma-opgen"), ["--ip", OUR_IP, "-g", "1"] + common,
        "dr-opgen -g $RXE_GID_IDX " + " ".join(common), OPGEN_PORT, we_serve, wait_listen=False, mode=mode)
    srv, cli = (out, rout) if we_serve else (rout, out)
    assert "server done: 0 failures, client reported 0: OK" in srv, srv
    assert re.search(r"client done: 25 ops, 0 local failures, server OK", cli), cli


@WAYS
def test_opgen(lossy, we_serve):
    """Every RC operation, every byte checked by both sides, through the loss."""
    run_opgen(lossy, we_serve)


# (engine mode, we serve): our requester resending from the pipeline's tx and
# completion lcores, our responder answering gaps from an rtc worker
ENGINE_CASES = [("rtc", True), ("pipeline", False)]


@pytest.mark.parametrize("mode,we_serve", ENGINE_CASES,
                         ids=["%s-%s" % (m, "oursrv" if s else "rxesrv") for m, s in ENGINE_CASES])
def test_opgen_engine_modes(lossy, mode, we_serve):
    """The opgen table through the loss with ours in run-to-completion mode
    (one worker lcore) or pipeline mode (an rx, a tx and a completion lcore),
    all on one CPU yielding when idle."""
    run_opgen(lossy, we_serve, mode)


def test_loss_happened(lossy):
    """Runs after the others (file order): frames were dropped by XDP and
    the transports resent."""
    assert len(lossy.resent) == 10 + len(ENGINE_CASES), lossy.resent
    assert sum(lossy.resent.values()) > 0, lossy.resent
    (lossy.outdir / "resent.txt").write_text("%s\n" % dict(lossy.resent))
    print("\nretransmitted per run: %s" % dict(lossy.resent))
