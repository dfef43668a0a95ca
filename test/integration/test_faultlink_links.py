# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-faultlink between two dpdk-rdma-perf endpoints on real links:
memif to memif, af_xdp to af_xdp (veths into the fault link's namespace),
memif to af_xdp. Through loss, reordering, duplication and corruption in
both directions every byte still checks; the counters of the direction the
data flows show each impairment at work and conserve frames; a delay shows
in the measured latency; telemetry answers while it runs. The fault
matrix (every opcode, QP type, size and engine mode) is its own suite."""

import json
import os
import shutil
import subprocess
import threading
import time

import pytest

from perfutil import RUN_TIMEOUT, table
from drperf import faultlink  # noqa: E402 (perfutil puts usertools/ on the path)

IMPAIR = "loss 5% reorder 5% duplicate 1% corrupt 0.5%"
TELEMETRY_PY = "/usr/bin/dpdk-telemetry.py"

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2: namespaces and veth pairs")


def _impaired(c):
    return {k for k in ("lost", "duplicated", "corrupted", "reordered") if c[k] > 0}


@pytest.mark.parametrize("kinds", [("memif", "memif"), ("af_xdp", "af_xdp"), ("memif", "af_xdp")],
                         ids=lambda k: "-".join(k))
def test_checked_through_faults(perf_exe, faultlink_exe, kinds):
    """write_bw client on b, server on a: the data goes b->a, the ACKs a->b."""
    with faultlink.FaultLink(kinds, ["--both", IMPAIR, "--seed", "3"], exe=faultlink_exe) as fl:
        res = fl.run_perf(["write_bw", "-s", "4096", "-n", "400", "--check"], exe=perf_exe,
                          timeout=RUN_TIMEOUT)
    assert res.ok, res.describe() + "\n" + fl.describe()
    assert "Data check: OK" in res.client.stdout + res.server.stdout, res.describe()
    c = fl.counters
    assert c and all(faultlink.conserved(d) for d in c.values()), c
    assert _impaired(c["b->a"]) == {"lost", "duplicated", "corrupted", "reordered"}, c
    # the ACK direction carries few frames (one coalesced ACK or SACK a round):
    # some of them met an impairment
    assert _impaired(c["a->b"]) and c["a->b"]["rx"] > 0, c


@pytest.mark.parametrize("mode", ["rtc", "pipeline"])
def test_checked_in_engine_modes(perf_exe, faultlink_exe, mode):
    with faultlink.FaultLink(("memif", "memif"), ["--both", IMPAIR], exe=faultlink_exe) as fl:
        res = fl.run_perf(["send_bw", "-s", "3000", "-n", "300", "--check"], exe=perf_exe,
                          timeout=RUN_TIMEOUT, mode=mode)
    assert res.ok, res.describe() + "\n" + fl.describe()
    assert "Data check: OK" in res.client.stdout + res.server.stdout, res.describe()
    assert _impaired(fl.counters["b->a"]) >= {"lost", "reordered"}, fl.counters


def test_delay_shows_in_latency(perf_exe, faultlink_exe):
    """1 ms each way: no round trip can take less than 2 ms, and perftest's
    latency is half the round trip: >= 1000 us (a lower bound)."""
    with faultlink.FaultLink(("memif", "memif"), ["--both", "delay 1ms"], exe=faultlink_exe) as fl:
        res = fl.run_perf(["write_lat", "-s", "64", "-n", "50"], exe=perf_exe, timeout=RUN_TIMEOUT)
    assert res.ok, res.describe() + "\n" + fl.describe()
    rows = table.rows(res.client.stdout)
    assert rows and rows[0]["t_min"] >= 1000, res.client.stdout
    assert all(d["lost"] == 0 and faultlink.conserved(d) for d in fl.counters.values())


def _query(prefix, cmds):
    r = subprocess.run(["/usr/bin/python3", TELEMETRY_PY, "-f", prefix],
                       input="\n".join(cmds) + "\n", capture_output=True, text=True, timeout=30)
    replies = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    return [rep[c.split(",")[0]] for rep, c in zip(replies, cmds)] \
        if len(replies) == len(cmds) else None


@pytest.mark.skipif(not os.access(TELEMETRY_PY, os.X_OK), reason="dpdk-telemetry.py not installed")
def test_telemetry_while_forwarding(perf_exe, faultlink_exe):
    seen = []
    with faultlink.FaultLink(("memif", "memif"), ["--both", "loss 1%", "--seed", "11"],
                             exe=faultlink_exe) as fl:
        prefix = fl.side.prefixes[0]
        out = {}
        th = threading.Thread(target=lambda: out.setdefault("res", fl.run_perf(
            ["send_bw", "-D", "4", "-s", "1024"], exe=perf_exe, timeout=RUN_TIMEOUT)))
        th.start()
        deadline = time.monotonic() + 30
        while th.is_alive() and time.monotonic() < deadline and len(seen) < 2:
            r = _query(prefix, ["/faultlink/stats", "/faultlink/config"])
            if r and r[0]["b_to_a"]["rx"] > 0 and (not seen or
                                                 r[0]["b_to_a"]["rx"] > seen[-1][0]["b_to_a"]["rx"]):
                seen.append(r)
            time.sleep(0.5)
        th.join(RUN_TIMEOUT)
    assert out["res"].ok, out["res"].describe()
    assert len(seen) == 2, seen
    stats, config = seen[1]
    assert config["seed"] == 11
    assert config["a_to_b"] == config["b_to_a"] == "loss 1% limit 1000"
    assert set(stats) == {"a_to_b", "b_to_a"}
    assert stats["b_to_a"]["rx"] >= stats["b_to_a"]["tx"] > 0
    assert "in_flight" in stats["b_to_a"]
    final = fl.counters["b->a"]
    assert final["rx"] >= stats["b_to_a"]["rx"] and final["lost"] >= stats["b_to_a"]["lost"]


@pytest.mark.skipif(not os.access(TELEMETRY_PY, os.X_OK), reason="dpdk-telemetry.py not installed")
def test_change_while_running(perf_exe, faultlink_exe):
    """/faultlink/set as tc qdisc change: a clean link turns lossy for a
    while and clean again under a checked run; bad changes are refused."""
    with faultlink.FaultLink(("memif", "memif"), [], exe=faultlink_exe) as fl:
        prefix = fl.side.prefixes[0]
        out = {}
        th = threading.Thread(target=lambda: out.setdefault("res", fl.run_perf(
            ["send_bw", "-D", "5", "-s", "4096", "--check"], exe=perf_exe, timeout=RUN_TIMEOUT)))
        th.start()
        time.sleep(1.5)
        lossy = _query(prefix, ["/faultlink/set,both loss 20% duplicate 1%"])[0]
        time.sleep(1.5)
        bad = _query(prefix, ["/faultlink/set,a_to_b loss 20", "/faultlink/set,sideways none",
                              "/faultlink/set,both limit 5000", "/faultlink/set"])
        clean = _query(prefix, ["/faultlink/set,both none", "/faultlink/config"])
        th.join(RUN_TIMEOUT)
    assert out["res"].ok, out["res"].describe()
    assert "Data check: OK" in out["res"].client.stdout + out["res"].server.stdout
    assert lossy == {"a_to_b": "loss 20% duplicate 1% limit 1000",
                     "b_to_a": "loss 20% duplicate 1% limit 1000"}, lossy
    assert "not a percentage" in bad[0]["error"] and "unknown direction" in bad[1]["error"]
    assert "capacity" in bad[2]["error"] and "give a direction" in bad[3]["error"], bad
    assert clean[0] == {"a_to_b": "none limit 1000", "b_to_a": "none limit 1000"}, clean
    assert clean[1]["a_to_b"] == "none limit 1000"
    for d in fl.counters.values():
        assert d["changes"] == 2 and faultlink.conserved(d), fl.counters
    assert fl.counters["b->a"]["lost"] > 0 and fl.counters["b->a"]["duplicated"] > 0
