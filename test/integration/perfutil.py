# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""What the dpdk-rdma-perf suites share: the pair runners of
usertools/drperf, the sizes of the matrix, and the assertions on a run.
(The perf_exe fixture, which fails when the binary is not built, is in
conftest.py.)"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "usertools"))

from drperf import netns, pair, table  # noqa: E402

__all__ = ["REPO", "TESTS", "MTU", "MIB", "RUN_TIMEOUT", "ITERS_SMALL", "ITERS_MIB", "SIZE_IDS",
           "kind", "small_sizes", "matrix_args", "assert_checked_run", "assert_size_row",
           "veth_netns", "faults_program", "netns", "pair", "table"]

TESTS = ("send_bw", "send_lat", "write_bw", "write_lat", "read_bw", "read_lat")
MTU = 1024                 # path MTU of a 1500-byte link (rxe's rule), asked with -m
MIB = 1 << 20
RUN_TIMEOUT = 150          # seconds a server/client pair may take
# iterations per size: enough to cycle the queues, few enough for 2 shared cores
ITERS_SMALL = {"bw": 300, "lat": 60}
ITERS_MIB = {"bw": 12, "lat": 6}


def kind(test):
    return test.rsplit("_", 1)[1]


def small_sizes(test):
    """0 (1 for write_lat, which polls the last byte; perftest itself takes
    no size below 1), 1, MTU-1, MTU, MTU+1."""
    return [1 if test == "write_lat" else 0, 1, MTU - 1, MTU, MTU + 1]


SIZE_IDS = ["zero", "one", "mtu-1", "mtu", "mtu+1"]


def matrix_args(test, sizes, iters):
    return [test, "--check", "-m", str(MTU), "--sizes", ",".join(map(str, sizes)),
            "-n", str(iters)]


def assert_checked_run(res, sizes, iters, mtu=MTU):
    """Both sides exited 0; every size has its row with `iters` iterations
    on the client (and on the server, which prints the same table); both
    said the data check passed, at path MTU `mtu`."""
    assert res.ok, "the pair failed:\n" + res.describe()
    for side in (res.client, res.server):
        rows = table.rows(side.stdout)
        assert [r["bytes"] for r in rows] == sizes, side.describe()
        assert all(r["iters"] == iters for r in rows), side.describe()
        assert "Data check: OK" in side.stdout, side.describe()
        assert "data check failed" not in side.stderr, side.describe()
        assert table.header(side.stdout).get("Mtu") == "%d[B]" % mtu, side.describe()


def assert_size_row(res, size, iters):
    assert res.ok, "the pair failed (at some size):\n" + res.describe()
    rows = {r["bytes"]: r for r in table.rows(res.client.stdout)}
    assert size in rows, res.client.describe()
    assert rows[size]["iters"] == iters
    assert "Data check: OK" in res.client.stdout and "Data check: OK" in res.server.stdout


def veth_netns(tag, mtu=1500):
    """A module fixture's body: a created netns.VethNetns (data link of MTU
    `mtu`), destroyed after; skips without root or iproute2."""
    if os.geteuid() != 0:
        pytest.skip("needs root: network namespaces and veth pairs")
    if shutil.which("ip") is None:
        pytest.skip("needs iproute2 (ip)")
    net = netns.VethNetns(tag=tag, mtu=mtu)
    try:
        net.create()
        yield net
    finally:
        net.destroy()


FAULTS_SRC = REPO / "test" / "integration" / "xdp_faults.bpf.c"


def faults_program(tmp_path, loss=0, corrupt=0):
    """xdp_faults.bpf.c (an "xdp.frags" program with the xsks_map the ports
    fill) built to drop `loss` and corrupt `corrupt` frames in 1000; skips
    without clang or libbpf-dev."""
    clang = shutil.which("clang")
    if clang is None:
        pytest.skip("needs clang (BPF target) to build the XDP fault program")
    obj = tmp_path / ("xdp_faults_%d_%d.o" % (loss, corrupt))
    p = subprocess.run([clang, "-O2", "-g", "-target", "bpf", "-DLOSS_PER_MILLE=%d" % loss,
                        "-DCORRUPT_PER_MILLE=%d" % corrupt,
                        "-I/usr/include/%s-linux-gnu" % os.uname().machine, "-c",
                        str(FAULTS_SRC), "-o", str(obj)], capture_output=True, text=True,
                       timeout=60, check=False)
    if p.returncode != 0:
        pytest.skip("cannot build the XDP fault program (clang, libbpf-dev): " + p.stderr[-300:])
    return obj
