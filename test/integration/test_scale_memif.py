# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""16384 RC QP pairs between two dpdk-rdma-perf processes over net_memif
(issue 9, scale): every QP created, connected (its address exchanged over
the TCP side channel), moving --check'ed data, and destroyed (a failed
destroy or close is exit status 1), the per-QP memory and the transport's
counters (--counters) printed. Each side on its own CPU
(pair.default_lcores()), EAL's -m 512 without hugepages."""

import re
import time

import pytest

from perfutil import MTU, pair, table

QPS = 16384
ITERS = 4
SIZE = 1500                 # two packets at the 1024-byte path MTU
TIMEOUT = 110               # seconds the pair may take (about 5 here on two shared CPUs)
COUNTER_RE = re.compile(r"^ (\w+)\s+: (\d+)$", re.M)
MEM_RE = re.compile(r"^ QP memory\s+: (\d+)\[B\] per QP \(object (\d+), SQ (\d+), RQ (\d+), "
                    r"tables (\d+)\)$", re.M)


@pytest.mark.parametrize("test", ["write_bw", "send_bw", "read_bw"])
def test_16k_qp_pairs(perf_exe, test):
    # READ: one outstanding a QP. All 16k QPs' responses come from one responder
    # lcore in turn; two a QP bring the last ones near the requester's ACK timeout
    # (perftest's 14: 67 ms, 7 retries) on two shared CPUs.
    depth = 1 if test == "read_bw" else 2
    args = [test, "--check", "-q", QPS, "-n", ITERS, "-t", depth, "-r", 2, "-s", SIZE,
            "-m", MTU, "--counters"]
    start = time.monotonic()
    res = pair.run_memif(list(map(str, args)), exe=perf_exe, timeout=TIMEOUT)
    elapsed = time.monotonic() - start
    assert res.ok, "the pair failed after %.1f s:\n%s" % (elapsed, res.describe()[-6000:])

    locals_, remotes = {}, {}
    for side in (res.server, res.client):
        out = side.stdout
        assert table.header(out)["Number of qps"] == str(QPS)
        assert [(r["bytes"], r["iters"]) for r in table.rows(out)] == [(SIZE, ITERS)]
        # every message of every QP checked (send_bw: by the receiver; write_bw: the server
        # reads every slot, one per message here; both sides print the sum)
        assert "Data check: OK, %d bytes verified" % (QPS * ITERS * SIZE) in out
        assert "dr_destroy_qp" not in side.stderr and "dr_close_device" not in side.stderr
        addrs = table.addresses(out)
        locals_[side.name] = [a[1]["QPN"] for a in addrs if a[0] == "local"]
        remotes[side.name] = [a[1]["QPN"] for a in addrs if a[0] == "remote"]
        # a fresh context hands its QPNs out in order from 0x11, all within 24 bits
        assert locals_[side.name] == list(range(0x11, 0x11 + QPS))

        # --counters: what the transport did (a failed run shows them in its message)
        c = dict((k, int(v)) for k, v in COUNTER_RE.findall(out))
        assert c["rx_malformed"] == 0 and c["rx_bad_icrc"] == 0, out[-3000:]
        print("%s %s: %d local ACK timeouts, %d retries, %d requests dropped, longest srtt %d us"
              % (test, side.name, c["ack_timeouts"], c["retries"], c["rx_dropped"],
                 c["max_srtt_us"]))

        m = MEM_RE.search(out)
        assert m, side.describe()[:3000]
        total, obj, sq, rq, tables = map(int, m.groups())
        assert total == obj + sq + rq + tables and tables == 12
        assert 2048 < obj < total < 16384
        print("%s %s: %d QPs, %d bytes per QP (object %d, SQ %d, RQ %d, tables %d): "
              "%.1f MiB of QPs" % (test, side.name, QPS, total, obj, sq, rq, tables,
                                   total * QPS / 2**20))
    assert remotes["client"] == locals_["server"] and remotes["server"] == locals_["client"]
    print("%s: %d QP pairs created, connected, checked and destroyed in %.1f s"
          % (test, QPS, elapsed))
