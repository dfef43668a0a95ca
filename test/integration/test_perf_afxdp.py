# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf over a real kernel link: a veth pair between two network
namespaces (created and deleted here), each end a DPDK port on net_af_xdp
(net_af_packet when a dpdk-testpmd probe shows af_xdp cannot work on this
kernel: test_link_is_af_xdp then says so). The OOB TCP exchange uses a
second veth pair: an AF_XDP socket takes every frame of its queue.

Loss: 5% of the frames are dropped at random in both directions by an XDP
program (xdp_faults.bpf.c) on af_xdp; with net_af_packet by
`tc qdisc ... netem loss 5%`. netem cannot be used with af_xdp: frames an
AF_XDP socket sends bypass the qdisc layer. The same program corrupts data
frames without breaking their ICRC, to show that --check sees it.

Needs root (namespaces). Needs the transport: fails (does not skip) until
dpdk-rdma-perf links."""

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from perfutil import (ITERS_MIB, ITERS_SMALL, MIB, MTU, RUN_TIMEOUT, SIZE_IDS, TESTS,
                      assert_checked_run, assert_size_row, faults_program, kind, matrix_args, netns,
                      pair, small_sizes, veth_netns)

PROBE_S = 2.0


@pytest.fixture(scope="module")
def veth():
    yield from veth_netns("%d" % os.getpid())


def _testpmd(net, ns, iface, mode, prefix):
    cmd = ["ip", "netns", "exec", ns, "dpdk-testpmd"] + pair.afxdp_eal(iface, prefix) + [
        "--", "--forward-mode=" + mode, "--total-num-mbufs=8192", "--no-mlockall",
        "--stats-period=1"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True)


def _stop(proc):
    """SIGINT by PID (testpmd prints its totals), SIGKILL if it lingers."""
    pair.terminate(proc, sig=signal.SIGINT)
    return proc.communicate()[0]


def probe_af_xdp(net):
    """(works, why): dpdk-testpmd txonly on one end, rxonly on the other."""
    if shutil.which("dpdk-testpmd") is None:
        return True, "dpdk-testpmd not installed: af_xdp not probed"
    tag = "%d" % os.getpid()
    prefixes = ("drprobe_b" + tag, "drprobe_a" + tag)
    rx = _testpmd(net, net.ns_b, net.if_b, "rxonly", prefixes[0])
    time.sleep(PROBE_S)
    tx = _testpmd(net, net.ns_a, net.if_a, "txonly", prefixes[1])
    time.sleep(PROBE_S)
    out_tx, out_rx = _stop(tx), _stop(rx)
    for p in prefixes:
        for d in pair.dpdk_runtime_dirs(p):
            shutil.rmtree(d, ignore_errors=True)
    got = [int(n) for n in re.findall(r"RX-packets:\s+(\d+)", out_rx)]
    if got and max(got) > 0:
        return True, "dpdk-testpmd moved %d frames over af_xdp" % max(got)
    tail = "\n".join((out_tx + out_rx).splitlines()[-6:])
    return False, "dpdk-testpmd could not move frames over net_af_xdp: " + tail


@pytest.fixture(scope="module")
def link(veth):
    works, why = probe_af_xdp(veth)
    return ("af_xdp" if works else "af_packet"), why


def run(perf_exe, veth, link, *args, vdev_extra="", timeout=RUN_TIMEOUT):
    return netns.run_veth(veth, link[0], list(map(str, args)), exe=perf_exe, timeout=timeout,
                          vdev_extra=vdev_extra)


def test_link_is_af_xdp(link):
    kind_, why = link
    if kind_ != "af_xdp":
        pytest.xfail("af_xdp cannot work on this kernel; the tests of this file ran on "
                     "net_af_packet instead. " + why)


@pytest.fixture(scope="module", params=TESTS)
def small_run(request, perf_exe, veth, link):
    test = request.param
    sizes, iters = small_sizes(test), ITERS_SMALL[kind(test)]
    return test, sizes, iters, run(perf_exe, veth, link, *matrix_args(test, sizes, iters))


@pytest.mark.parametrize("index", range(5), ids=SIZE_IDS)
def test_sizes_around_mtu_checked(small_run, index):
    test, sizes, iters, res = small_run
    assert_size_row(res, sizes[index], iters)


def test_both_sides_agree(small_run):
    test, sizes, iters, res = small_run
    assert_checked_run(res, sizes, iters)


@pytest.mark.slow
@pytest.mark.parametrize("test", TESTS)
def test_one_mib_checked(perf_exe, veth, link, test):
    iters = ITERS_MIB[kind(test)]
    res = run(perf_exe, veth, link, *matrix_args(test, [MIB], iters))
    assert_checked_run(res, [MIB], iters)


# ---- loss ----

def _data_frames(sizes, iters):
    """Frames one pass of the data takes (a 0-byte message is one frame)."""
    return iters * sum(max(1, -(-size // MTU)) for size in sizes)


@pytest.fixture
def lossy(veth, link, tmp_path):
    """Make the data link drop `per_mille` frames in 1000 each way; returns
    the extra devargs of the DPDK ports."""
    kind_, _ = link
    added = []

    def make(per_mille):
        if kind_ == "af_xdp":
            return ",xdp_prog=%s" % faults_program(tmp_path, loss=per_mille)
        for side in ("a", "b"):
            try:
                veth.netem("loss %g%%" % (per_mille / 10), side)
            except subprocess.CalledProcessError as e:
                pytest.skip("tc netem is not available here: " + e.stderr.strip())
            added.append(side)
        return ",qdisc_bypass=0"     # let af_packet's frames meet the qdisc
    yield make
    for side in added:
        ns, iface = (veth.ns_a, veth.if_a) if side == "a" else (veth.ns_b, veth.if_b)
        subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", iface, "root"],
                       capture_output=True, check=False, timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize("test,iters", [("write_bw", 300), ("read_bw", 300), ("send_bw", 300),
                                        ("send_lat", 60)])
def test_loss_5_percent_stays_checked(perf_exe, veth, link, lossy, test, iters):
    """5% of the frames lost each way: retransmission must deliver every
    byte (--check clean); the bw tests also show that frames were resent."""
    extra = lossy(50)
    sizes = [1, 1024, 5000]
    # the side whose frames carry the data and nothing else (a requester of
    # WRITEs or SENDs, a responder to READs): without loss it sends each once
    data_side = "a" if test == "read_bw" else "b"
    before = veth.tx_stats(data_side)["packets"]
    res = run(perf_exe, veth, link, *matrix_args(test, sizes, iters), vdev_extra=extra)
    assert_checked_run(res, sizes, iters)
    if kind(test) == "bw":
        sent = veth.tx_stats(data_side)["packets"] - before
        assert sent > _data_frames(sizes, iters), \
            "%d data frames for %d needed: nothing was retransmitted" % (
                sent, _data_frames(sizes, iters))


def test_total_loss_reports_retry_exceeded(perf_exe, veth, link, lossy):
    """Nothing gets through: the client's WR fails with the wc status text,
    the server is told in-band, both exit 1."""
    extra = lossy(1000)
    res = run(perf_exe, veth, link, "write_bw", "-s", 64, "-n", 10, vdev_extra=extra,
              timeout=60)
    assert res.client.rc == 1 and res.server.rc == 1, res.describe()
    assert "transport retry counter exceeded" in res.client.stderr, res.describe()
    assert "the peer stopped: completion on QP" in res.server.stderr, res.describe()


@pytest.mark.parametrize("test", ["send_bw", "write_bw", "read_bw", "write_lat", "send_lat",
                                  "read_lat"])
def test_check_catches_what_the_icrc_cannot(perf_exe, veth, link, tmp_path, test):
    """Every data frame gets 5 bytes before its ICRC XORed with the CRC-32
    polynomial: the ICRC still holds, the transport accepts the frames, and
    --check must fail on the first message, at offset MTU - 5 (the end of
    its first packet): the receiving side says so, the other side reports
    the peer's failure, both exit 1."""
    if link[0] != "af_xdp":
        pytest.skip("needs an XDP program on the data link (af_xdp)")
    extra = ",xdp_prog=%s" % faults_program(tmp_path, corrupt=1000)
    # write_lat polls the last byte: with a pad byte after it, the XOR
    # changes it into no earlier tag (4096 bytes would turn tag 1 into 0)
    size = 4 * MTU - (1 if test == "write_lat" else 0)
    res = run(perf_exe, veth, link, test, "--check", "-m", MTU, "-s", size, "-n", 10,
              vdev_extra=extra, timeout=60)
    assert res.server.rc == 1 and res.client.rc == 1, res.describe()
    finder, told = (res.client, res.server) if test.startswith("read") else \
        (res.server, res.client)
    bad = "size %d QP 0 message 0 first bad offset %d" % (size, MTU - 5)
    assert "dpdk-rdma-perf: data check failed: " + bad in finder.stderr, res.describe()
    assert "dpdk-rdma-perf: the peer's data check failed: " + bad in told.stderr, res.describe()
    assert "Data check: OK" not in res.client.stdout + res.server.stdout
