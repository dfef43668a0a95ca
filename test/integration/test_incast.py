# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The incast through the fault link's switch (usertools/drperf/incast.py,
dr-incast.py; doc/guides/congestion.rst): 2 -> 1 write_bw senders behind one
rate-limited, ECN-marking egress queue, every WRITE checked, with DCQCN off
and on. What is asserted is what must happen, not how fast: without DCQCN
our frames are not ECN-capable, so the queue marks none (it counts them);
with it, the queue marks our ECT(0) frames, every receiver answers with
CNPs, every sender takes them and cuts its rate. The tool's own output and
its errors."""

import json
import subprocess

import pytest

from perfutil import REPO
from drperf import incast

PY = "/usr/bin/python3"
CC_PARAM = ("line_rate=1g,min_rate=5m,rate_ai=1m,rate_hai=5m,byte_counter=2m,alpha_period=1ms,"
            "rate_period=2ms,min_dec_period=50us")


@pytest.fixture(scope="module", params=["none", "dcqcn"])
def run(request, perf_exe):
    cc = request.param
    # a buffer deeper than both windows (2 x 256 KiB, 21 ms at 200 Mb/s, well under
    # perf's 67 ms ACK timeout): the queue marks (or counts Not-ECT frames) past
    # kmin and never drops or delays past the timeout, so neither setting's senders
    # can run out of retries on a loaded machine (without DCQCN, behind a deeper or
    # fuller queue, they can: the collapse the benchmark shows)
    inc = incast.Incast(senders=2, rate="200mbit", limit=600, ecn="kmin 8KB kmax 64KB pmax 50%",
                        cc=cc, cc_param=CC_PARAM if cc == "dcqcn" else None, probe_iters=50,
                        perf=perf_exe)
    return cc, inc.run(duration=2)


def test_every_write_checked(run):
    cc, res = run
    assert res["ok"] and not res["failed"], "\n".join(res["failed"])
    for f in res["flows"]:
        assert f["checked_bytes"] > 0 and f["goodput_mbps"] > 0, f
    assert res["probe"]["p99"] > 0
    assert 0 < res["jain"] <= 1.0


def test_marks_and_cnps(run):
    cc, res = run
    e = res["egress"]
    # everything the group's ports received was sent, dropped (tail drop; lost: a port of the
    # group was down, link_down) or left at exit
    assert e["rx"] + e["duplicated"] == (e["lost"] + e["queue_drop"] + e["too_big"] + e["tx"] +
                                         e["left"]), e
    assert e["lost"] == e["link_down"], e        # no loss impairment
    if cc == "none":
        assert e["ecn_marked"] == 0 and e["ecn_not_ect"] > 0, e
        assert all(f["rx_cnp"] == 0 for f in res["flows"]), res["flows"]
    else:
        assert e["ecn_marked"] > 0 and e["ecn_not_ect"] == 0, e
        assert all(f["rx_cnp"] > 0 for f in res["flows"]), [f["rx_cnp"] for f in res["flows"]]
        # a DCQCN rate below line rate was seen while the flows ran
        assert all(any(0 < p[2] < 1000 for p in f["series"]) for f in res["flows"])


def test_tool_output(tmp_path, perf_exe):
    out = tmp_path / "incast.json"
    r = subprocess.run([PY, REPO / "usertools" / "dr-incast.py", "--senders", "1", "--duration", "1",
                        "--rate", "100mbit", "--no-probe", "--json", out], capture_output=True,
                       text=True, timeout=300, cwd=REPO)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("1 -> 1 incast through 100mbit")
    assert lines[1].split()[:4] == ["DCQCN", "total", "Mb/s", "min"]
    assert lines[2].split()[0] == "none" and lines[3].split()[0] == "dcqcn"
    assert lines[2].split()[-1] == "True" and lines[3].split()[-1] == "True"
    saved = json.loads(out.read_text())
    assert [row["cc"] for row in saved["table"]] == ["none", "dcqcn"]


@pytest.mark.parametrize("args, msg", [
    (["--senders", "0"], "--senders: 1 to 7"),
    (["--senders", "9", "--no-probe"], "--senders: 1 to 8"),
    (["--settings", "maybe"], "--settings: off, on or off,on"),
    (["--plot-json", "x.json"], "--plot-json needs --png"),
])
def test_tool_errors(args, msg):
    r = subprocess.run([PY, REPO / "usertools" / "dr-incast.py"] + args, capture_output=True,
                       text=True, timeout=60, cwd=REPO)
    assert r.returncode == 2 and msg in r.stderr, r.stderr
