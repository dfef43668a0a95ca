# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The engine's telemetry (/dr/...) read with DPDK's own dpdk-telemetry.py
from a dpdk-rdma-perf server while a run moves data, in both engine modes:
the commands answer, the values are consistent with each other and grow
between two reads, bad parameters are refused."""

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from perfutil import RUN_TIMEOUT, pair

TELEMETRY_PY = "/usr/bin/dpdk-telemetry.py"
pytestmark = pytest.mark.skipif(not os.access(TELEMETRY_PY, os.X_OK),
                                reason="dpdk-telemetry.py (Debian's dpdk package) not installed")


def query(prefix, cmds):
    """Each command's JSON reply, through dpdk-telemetry.py (non-interactive)."""
    r = subprocess.run(["/usr/bin/python3", TELEMETRY_PY, "-f", prefix], input="\n".join(cmds) + "\n",
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r
    replies = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert len(replies) == len(cmds), r.stdout
    return [rep[c.split(",")[0]] for rep, c in zip(replies, cmds)]


def wait_for(prefix, deadline):
    """Until the server's telemetry socket answers with one context open."""
    sock = Path(pair.dpdk_runtime_dirs(prefix)[0]) / "dpdk_telemetry.v2"
    while time.monotonic() < deadline:
        if sock.exists():
            try:
                if query(prefix, ["/dr/context/list"])[0]:
                    return True
            except (AssertionError, json.JSONDecodeError, subprocess.TimeoutExpired):
                pass
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("mode", ["inline", "rtc", "pipeline"])
def test_telemetry_while_running(perf_exe, mode):
    tag = "tel%d_%s" % (os.getpid(), mode)
    prefix = "drps_" + tag
    extra, srv, cli = pair.engine(mode, 1)
    out = {}

    def run():
        out["res"] = pair.run_memif(["send_bw", "-D", "6", "-s", "1024", "-q", "2"] + extra,
                                    exe=perf_exe, timeout=RUN_TIMEOUT, tag=tag, server_lcores=srv,
                                    client_lcores=cli)
    th = threading.Thread(target=run)
    th.start()
    try:
        assert wait_for(prefix, time.monotonic() + 30), "no telemetry from the server"
        time.sleep(1.5)                 # the run is under way
        cmds = ["/dr/context/list", "/dr/context/stats,0", "/dr/qp/list", "/dr/qp/info,17",
                "/dr/qp/info,17,0", "/dr/lcore/stats,1"]
        first = query(prefix, cmds)
        time.sleep(1.0)
        second = query(prefix, cmds)
        bad = query(prefix, ["/dr/context/stats,9", "/dr/context/stats,x", "/dr/qp/info,99999",
                             "/dr/lcore/stats,-1"])
        roles = query(prefix, ["/dr/lcore/stats,2", "/dr/lcore/stats,3"]) if mode == "pipeline" else []
    finally:
        th.join()
    res = out["res"]
    assert res.ok, res.describe()

    ids, stats, qps, info, info0, lcore = first
    assert ids == [0]
    assert stats["mode"] == mode and stats["groups"] == 1 and stats["qps"] == 2
    assert stats["workers"] == (3 if mode == "pipeline" else 1)
    assert stats["device"].startswith("dr_net_memif")
    assert stats["rx_pkts"] > 0 and stats["tx_pkts"] > 0
    # the server of send_bw receives SENDs and answers with ACKs, nothing else goes wrong
    assert stats["acks_tx"] > 0 and stats["rx_bad_icrc"] == 0 and stats["rx_malformed"] == 0
    # memif is a software PMD: zero-copy transmit from 2 KiB (the default); 1 KiB SEND ONLY
    # packets are neither attached nor placed in one pass
    assert stats["tx_zcopy_min"] == 2048 and stats["tx_zcopy"] == 0 and stats["rx_placed"] == 0
    assert sorted(qps) == [17, 18]
    # the same QP through both forms (the moving counters aside)
    assert {k: info[k] for k in ("qpn", "type", "state", "worker", "dest_qpn")} == \
        {k: info0[k] for k in ("qpn", "type", "state", "worker", "dest_qpn")}
    assert info["qpn"] == 17 and info["type"] == "RC" and info["state"] == "RTS"
    assert info["worker"] == 0 and info["recv_wrs_posted"] > 0
    later = second[1]
    assert later["rx_pkts"] > stats["rx_pkts"] and later["acks_tx"] >= stats["acks_tx"]
    if mode != "inline":
        # lcore 1: the rtc worker, or the pipeline group's rx lcore (its QPs' home)
        assert lcore["worker"] == 0 and lcore["rx_queue"] == 0 and lcore["qps"] == 2
        assert lcore["role"] == ("rx" if mode == "pipeline" else "all")
        assert lcore["tx_queue"] == (-1 if mode == "pipeline" else 0)
        assert lcore["busy_loops"] > 0 and lcore["rx_burst_pkts"] >= lcore["rx_bursts"] > 0
        assert second[5]["loops"] > lcore["loops"]
    if mode == "pipeline":
        # the group's tx lcore owns the tx queue, the completion lcore neither queue; both work
        tx, comp = roles
        assert tx["role"] == "tx" and tx["tx_queue"] == 0 and tx["rx_queue"] == -1
        assert comp["role"] == "completion" and comp["tx_queue"] == -1 and comp["rx_queue"] == -1
        assert tx["busy_loops"] > 0 and comp["busy_loops"] > 0
    if mode == "inline":
        assert lcore is None           # inline mode has no worker lcore
    # unknown context, malformed, unknown QPN, bad lcore: an empty answer, no crash
    assert bad == [None, None, None, None]
