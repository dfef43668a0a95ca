# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Interop fixtures: two Linux rxe peers (Debian's 6.1 kernel under qemu TCG)
on a bridge in a private network namespace, made by usertools/rxepeer.

rxe_pair (module scope) builds the guest image (cached under DR_RXE_WORK,
default /tmp/dr-rxepeer), boots vm1 (10.99.0.2) and vm2 (10.99.0.3) once,
and tears everything down afterwards, whatever happened. Its run() helper
runs a server in vm1 and a client in vm2 while dumpcap captures vm1's tap.

A DPDK endpoint joins the same bridge with rxe_pair.harness.veth(NAME) and
runs inside the namespace with rxe_pair.harness.netns_popen([...]),
attaching net_af_packet (or net_af_xdp) to NAME.

The tests skip only when this machine cannot run the VMs at all (not root,
no /dev/net/tun, no qemu); DR_INTEROP_REQUIRED=1 (set by usertools/dr-test.sh)
turns those skips into failures, so CI cannot pass by skipping.
"""

import contextlib
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "usertools"))

import rxepeer  # noqa: E402
from rxepeer import harness as rxh  # noqa: E402

VM1 = ("vm1", "10.99.0.2/24")
VM2 = ("vm2", "10.99.0.3/24")
PINGPONG_PORT = 18515
OPGEN_PORT = 18600
STEP_TIMEOUT = 60


# perftest measures the CPU clock before it reports; on a loaded TCG guest the
# fit can fail ("Correlation coefficient r^2 ... < 0.9") and it then refuses to
# report with this line: such a run says nothing about either transport.
PERFTEST_NO_CLOCK = "Can't produce a report"


def perftest_clock_failed(rxe_output):
    """True when rxe's perftest gave up over its own clock measurement."""
    return PERFTEST_NO_CLOCK in rxe_output


def _unusable():
    """Why this machine cannot boot the peers, or None."""
    if sys.platform != "linux":
        return "not Linux"
    if os.geteuid() != 0:
        return "needs root (network namespaces, taps)"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun"
    if not shutil.which("qemu-system-x86_64"):
        return "qemu-system-x86_64 is not installed (usertools/dr-deps.sh test installs it)"
    if not shutil.which("dumpcap"):
        return "dumpcap is not installed (tshark)"
    return None


def require_peers():
    why = _unusable()
    if why:
        if os.environ.get("DR_INTEROP_REQUIRED") == "1":
            pytest.fail("rxe interop tests cannot run: %s" % why)
        pytest.skip("rxe interop tests cannot run: %s" % why)


def engine_mode(mode):
    """(our EAL arguments, our own arguments) in engine mode MODE, rtc or
    pipeline: one worker lcore or one pipeline group (rx, tx, completion),
    every lcore of ours on one CPU (the last we may use), yielding when idle,
    as test_perftest_engine_modes runs dpdk-rdma-perf."""
    lcores = 3 if mode == "pipeline" else 1
    return (["--lcores", "(0-%d)@%d" % (lcores, max(os.sched_getaffinity(0)))],
            ["--mode", mode, "--workers", "1", "--idle", "yield"])


ENGINE_MODES = ("rtc", "pipeline")


def qpns(output):
    """(local, remote) QPNs of an ibv_*_pingpong or dr-opgen output."""
    m = re.findall(r"QPN (0x[0-9a-f]+)", output) or re.findall(r"qpn=(0x[0-9a-f]+)", output)
    assert len(m) >= 2, "no QPNs in:\n" + output
    return int(m[0], 16), int(m[1], 16)


class Pair:
    """The two VMs and what the tests do with them."""

    def __init__(self, harness, vm1, vm2, outdir):
        self.harness = harness
        self.vm1 = vm1
        self.vm2 = vm2
        self.outdir = outdir

    def run(self, name, server, client, port=PINGPONG_PORT, wait_listen=True,
            timeout=STEP_TIMEOUT):
        """server (sh command) in vm1, client in vm2 with vm1's address
        appended, vm1's tap captured into OUTDIR/name.pcap. Returns
        (server ExecResult, client ExecResult, pcap path)."""
        pcap = str(self.outdir / (name + ".pcap"))
        self.harness.capture_start(pcap, self.vm1.tap)
        cli = None
        try:
            srv = self.vm1.spawn(server, timeout)
            try:
                if wait_listen:
                    self.vm1.wait_tcp_listen(port, timeout=30)
                cli = self.vm2.exec("%s %s" % (client, self.vm1.ip), timeout)
            finally:
                # a server whose client failed would wait for it until its deadline
                res = srv.wait(None if cli is not None and cli.rc == 0 else 5)
        finally:
            self.harness.capture_stop(pcap)
        self.vm1.explain(res)
        self.vm2.explain(cli)
        for what, r in (("server", res), ("client", cli)):
            with open(self.outdir / ("%s.%s.txt" % (name, what)), "w") as f:
                f.write(r.output)
        return res, cli, pcap


@contextlib.contextmanager
def harness_session():
    """A harness session on the (cached) guest image: every VM, veth and
    capture started in it is stopped, and its directory removed, on the way
    out, whatever happened."""
    require_peers()
    work = rxepeer.work_dir()
    rxh.reap_stale(work)
    image = rxepeer.build(work, install=False)
    h = rxepeer.Harness(work, session="pytest-%d" % os.getpid(), image=image)
    try:
        yield h
    finally:
        h.stop_all()
        shutil.rmtree(h.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def rxe_pair(tmp_path_factory):
    t0 = time.monotonic()
    with harness_session() as h:
        t_build = time.monotonic() - t0
        vm1 = h.start(*VM1, timeout=120)
        vm2 = h.start(*VM2, timeout=120)
        print("\nrxe peers: image %.1f s, boot %s s + %s s" % (
            t_build, vm1.info.get("boot_seconds"), vm2.info.get("boot_seconds")))
        yield Pair(h, vm1, vm2, tmp_path_factory.mktemp("rxe"))
