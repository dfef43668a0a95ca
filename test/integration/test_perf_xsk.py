# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The xsk backend (drivers/xsk, doc/guides/backends.rst): dpdk-rdma-perf
with --backend xsk over a veth pair of MTU 9000 between two network
namespaces (created and deleted here), each end named by a net_af_xdp port
whose interface the backend drives through AF_XDP sockets of its own, bound
multi-buffer (XDP_USE_SG, Linux 6.6), with the XDP steering program
(xdp_prog=dr_xdp_steer.o, an "xdp.frags" program).

- send_bw, write_bw, read_bw and send_lat at path MTU 4096, sizes around it
  and 64 KiB, data checked on both sides: a frame of a 4096-byte path MTU is larger
  than a UMEM chunk (4 KiB), so each crosses as two descriptors; in the bw
  tests the veth's counters show frames of more than 4 KiB went over it.
- 5% of the frames dropped each way by an XDP program (xdp_faults.bpf.c,
  built "xdp.frags"): retransmission delivers every byte.
- Bad set-ups are refused with the reason: --backend xsk on a port that is
  not net_af_xdp, and on one without xdp_prog=.

Needs root (namespaces) and Linux 6.6 (AF_XDP multi-buffer): skips with the
kernel's answer when the socket cannot be bound that way."""

import os
from pathlib import Path

import pytest

from perfutil import REPO, assert_checked_run, faults_program, kind, netns, veth_netns

MTU = 4096                          # the path MTU a 9000-byte link carries (rxe's rule)
LINK_MTU = 9000
SIZES = {"lat": [0, 1, MTU - 1, MTU, MTU + 1, 65536], "bw": [0, 1, MTU - 1, MTU, MTU + 1, 65536]}
ITERS = {"bw": 300, "lat": 60}


def steer_prog():
    build = Path(os.environ.get("DR_BUILD_DIR") or REPO / "build")
    p = build / "drivers" / "ethdev" / "bpf" / "dr_xdp_steer.o"
    if not p.exists():
        pytest.fail("%s is not built (clang)" % p)
    return p


@pytest.fixture(scope="module")
def veth():
    yield from veth_netns("x%d" % (os.getpid() % 100000), mtu=LINK_MTU)


def run(perf_exe, veth, args, prog=None, backend=("--backend", "xsk"), kind_="af_xdp"):
    extra = ",xdp_prog=%s" % (prog or steer_prog()) if kind_ == "af_xdp" and prog != "" else ""
    return netns.run_veth(veth, kind_, list(map(str, args)) + list(backend), exe=perf_exe, timeout=150,
                          vdev_extra=extra)


def args_of(test, sizes, iters):
    if test == "write_lat":
        sizes = [1 if s == 0 else s for s in sizes]    # write_lat polls the last byte: 1 at least
    return sizes, [test, "--check", "-m", str(MTU), "--link-mtu", str(LINK_MTU), "--sizes",
                   ",".join(map(str, sizes)), "-n", str(iters)]


def skip_without_multibuffer(res):
    """The kernel refused a multi-buffer socket (before Linux 6.6): say so."""
    err = res.server.stderr + res.client.stderr
    if "XDP_USE_SG needs Linux 6.6" in err:
        pytest.skip("AF_XDP multi-buffer not in this kernel (%s)" % os.uname().release)


# the bw tests move every opcode's frames one way (the lat ones the same frames, fewer);
# send_lat for the ping-pong (the ethdev suites run all six)
XSK_TESTS = ("send_bw", "write_bw", "read_bw", "send_lat")


@pytest.mark.parametrize("test", XSK_TESTS)
def test_matrix_at_path_mtu_4096_checked(perf_exe, veth, test):
    sizes, args = args_of(test, SIZES[kind(test)], ITERS[kind(test)])
    # the side that carries the data (and nothing else: its peer acknowledges)
    data = "a" if test.startswith("read") else "b"
    before = veth.tx_stats(data)
    res = run(perf_exe, veth, args)
    skip_without_multibuffer(res)
    assert_checked_run(res, sizes, ITERS[kind(test)], mtu=MTU)
    if kind(test) != "bw":
        return
    # the data side sent frames longer than one 4 KiB UMEM chunk: 3.6 KiB a frame on average
    # with the sizes above (1.9 KiB at a 2048-byte path MTU)
    tx = veth.tx_stats(data)
    frames, octets = tx["packets"] - before["packets"], tx["bytes"] - before["bytes"]
    assert frames > 0 and octets / frames > 3000, "%d frames of %d bytes: not a 4096-byte path MTU" % (
        frames, octets)


@pytest.mark.parametrize("test", ["write_bw", "read_bw"])
def test_loss_5_percent_checked(perf_exe, veth, tmp_path, test):
    """5% of the frames lost each way (the fault program is the port's
    xdp_prog: it has the xsks_map the backend fills): every byte arrives."""
    sizes, args = args_of(test, [1, MTU + 1, 3 * MTU], 200)
    res = run(perf_exe, veth, args, prog=faults_program(tmp_path, loss=50))
    skip_without_multibuffer(res)
    assert_checked_run(res, sizes, 200, mtu=MTU)


def test_refused_on_a_port_that_is_not_af_xdp(perf_exe, veth):
    res = run(perf_exe, veth, ["write_bw", "-n", "10"], kind_="af_packet")
    assert not res.ok
    assert "backend xsk does not drive it" in res.server.stderr + res.client.stderr, res.describe()


def test_refused_without_xdp_prog(perf_exe, veth):
    res = run(perf_exe, veth, ["write_bw", "-n", "10"], prog="")
    assert not res.ok
    assert "xdp_prog=" in res.server.stderr + res.client.stderr, res.describe()
