# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf's atomic_bw and atomic_lat (perftest's ib_atomic_bw and
ib_atomic_lat) between two of our processes over net_memif, with --check:
the client checks the original value of every FETCH_AND_ADD / CMP_AND_SWAP,
the server every word of its region once the client is done (the rules are
in app/dpdk-rdma-perf/atomic.c). Needs the transport: fails (does not skip)
until it links."""

import pytest

from perfutil import MTU, RUN_TIMEOUT, assert_checked_run, pair, table

TYPES = ("FETCH_AND_ADD", "CMP_AND_SWAP")
ITERS = {"atomic_bw": 300, "atomic_lat": 40}
WORDS = 64          # a word per cache line over the server's 4 KiB cycle buffer
WORD = 8


def memif(perf_exe, *args, **kw):
    kw.setdefault("timeout", RUN_TIMEOUT)
    return pair.run_memif(list(map(str, args)), exe=perf_exe, **kw)


def verified(side):
    line = next(x for x in side.stdout.splitlines() if x.startswith(" Data check: OK"))
    return int(line.split()[3])


@pytest.mark.parametrize("atype", TYPES)
@pytest.mark.parametrize("test", ["atomic_bw", "atomic_lat"])
def test_atomic_checked(perf_exe, test, atype):
    """Every original value and every word right; -A is the client's, and
    the server adopts it (its header says so)."""
    iters = ITERS[test]
    res = memif(perf_exe, test, "--check", "-m", MTU, "-n", iters, client_args=["-A", atype])
    assert_checked_run(res, [WORD], iters)
    kind = "BW Test" if test == "atomic_bw" else "Latency Test"
    for side in (res.client, res.server):
        assert "                    Atomic %s %s\n" % (atype, kind) in side.stdout, side.describe()
        h = table.header(side.stdout)
        assert h["Outstand reads"] == "16" and "Max inline data" not in h
        # perftest prints no OUT, RKey or VAddr for the atomic tests
        for _, vals, _ in table.addresses(side.stdout):
            assert set(vals) == {"LID", "QPN", "PSN"}, side.stdout
        # both sides' counts: every original value (client), every word (server)
        assert verified(side) == iters * WORD + WORDS * WORD, side.describe()


def test_atomic_bw_several_qps_and_outs(perf_exe):
    """-q 3 (a region of words per QP), -o 4 (our max_dest_rd_atomic, the
    peer's max_rd_atomic) with a deeper TX queue than 4 atomics."""
    res = memif(perf_exe, "atomic_bw", "--check", "-m", MTU, "-n", 200, "-q", 3, "-o", 4,
                "-A", "CMP_AND_SWAP")
    assert_checked_run(res, [WORD], 200)
    assert table.header(res.client.stdout)["Outstand reads"] == "4"
    assert verified(res.client) == 3 * (200 * WORD + WORDS * WORD)


def test_atomic_defaults(perf_exe):
    """As perftest: 8 bytes, 1000 iterations, FETCH_AND_ADD."""
    res = memif(perf_exe, "atomic_bw", "-m", MTU)
    assert res.ok, res.describe()
    assert [(r["bytes"], r["iters"]) for r in table.rows(res.client.stdout)] == [(WORD, 1000)]
    assert "Atomic FETCH_AND_ADD BW Test" in res.client.stdout


@pytest.mark.parametrize("test", ["atomic_bw", "atomic_lat"])
def test_atomic_duration(perf_exe, test):
    """-D: the server checks its words against the count the client reports."""
    res = memif(perf_exe, test, "--check", "-D", "1", "-A", "CMP_AND_SWAP")
    assert res.ok, res.describe()
    rows = table.rows(res.client.stdout)
    assert len(rows) == 1 and rows[0]["bytes"] == WORD and rows[0]["iters"] > 0
    assert "Data check: OK" in res.client.stdout and "Data check: OK" in res.server.stdout
