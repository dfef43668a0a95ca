# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf's raw-link tests over net_memif: raw_bw and raw_lat move
frames shaped as an RDMA test's over the same port, pool and lcore, in every
engine mode, for every --raw-like operation, at sizes of one and of several
frames; both sides print the receiver's row for raw_bw, the client's for
raw_lat, and nothing is lost on memif."""

import pytest

from perfutil import RUN_TIMEOUT, pair, table

MODES = ["inline", "rtc", "pipeline"]


def memif(perf_exe, *args, mode="inline"):
    extra, server_lcores, client_lcores = pair.engine(mode, 1, None)
    return pair.run_memif(list(map(str, args)) + extra, exe=perf_exe, timeout=RUN_TIMEOUT,
                          server_lcores=server_lcores, client_lcores=client_lcores)


def rows(side):
    return [(r["bytes"], r["iters"]) for r in table.rows(side.stdout)]


@pytest.mark.parametrize("mode", MODES)
def test_raw_bw_rows(perf_exe, mode):
    """Sizes of one frame, of 4 (MTU 1024) and of 64 frames; both sides print
    the server's row, every message counted."""
    sizes = [64, 4096, 65536]
    res = memif(perf_exe, "raw_bw", "--sizes", ",".join(map(str, sizes)), "-n", 2000, "-m", 1024,
                mode=mode)
    assert res.ok, res.describe()
    for side in (res.client, res.server):
        assert rows(side) == [(s, 2000) for s in sizes], side.describe()
        assert "lost" not in side.stderr, side.describe()
    assert table.rows(res.client.stdout) == table.rows(res.server.stdout)
    assert "Raw frames      : shaped as RDMA_Write requests" in res.client.stdout


@pytest.mark.parametrize("mode", MODES)
def test_raw_lat_rows(perf_exe, mode):
    res = memif(perf_exe, "raw_lat", "--sizes", "8,3000", "-n", 200, "-m", 1024, mode=mode)
    assert res.ok, res.describe()
    for side in (res.client, res.server):
        assert rows(side) == [(8, 200), (3000, 200)], side.describe()
    for r in table.rows(res.client.stdout):
        assert 0 < r["t_min"] <= r["t_typical"] <= r["t_max"], res.client.stdout


@pytest.mark.parametrize("test", ["raw_bw", "raw_lat"])
@pytest.mark.parametrize("like", ["send", "read", "atomic"])
def test_raw_like(perf_exe, test, like):
    """Each shape both ways: raw_lat like read or atomic is a request frame
    answered by the response frames (a READ's 3 of 1024 bytes here)."""
    res = memif(perf_exe, test, "-s", 2500, "-n", 300, "-m", 1024, "--raw-like", like)
    assert res.ok, res.describe()
    assert rows(res.client) == [(2500, 300)], res.client.describe()
    shape = {"send": "SEND requests", "read": "RDMA_Read responses",
             "atomic": "atomic requests (no payload)"}[like]
    assert "shaped as " + shape in res.server.stdout, res.server.stdout


def test_raw_bw_duration(perf_exe):
    """-D: the client sends for the time given, the server counts until the link is quiet."""
    res = memif(perf_exe, "raw_bw", "--sizes", "64,4096", "-D", "0.5")
    assert res.ok, res.describe()
    got = table.rows(res.client.stdout)
    assert [r["bytes"] for r in got] == [64, 4096] and all(r["iters"] > 1000 for r in got), \
        res.client.stdout
    assert "lost" not in res.server.stderr


def test_raw_mtu_4096(perf_exe):
    res = memif(perf_exe, "raw_bw", "-s", 65536, "-n", 500, "-m", 4096, "--link-mtu", 4200)
    assert res.ok, res.describe()
    assert rows(res.client) == [(65536, 500)]
    assert table.header(res.client.stdout)["Mtu"] == "4096[B]"
