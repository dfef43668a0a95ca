# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The soak at CI size: usertools/dr-soak.py (usertools/drperf/soak.py) for
DR_SOAK_SECONDS (default 20) of mixed rounds in each engine mode of the
server - every test, RC and the UC/UD cells the fault matrix judges, 1 to
8 QPs, sizes 0 to 1 MiB, --check - through dpdk-rdma-faultlink at 10%
loss, 5% reordering, 1% duplication and 0.5% corruption both ways, one
dpdk-rdma-perf --persist server serving every client. Its report must say: no round failed, no QP left on the
server after any run, the server's heap back to the byte and its mbufs in
use within a burst at the end, the faults hit (frames lost on the link,
requests resent), and the server exited 0 on SIGTERM having served every
run. In rtc and pipeline mode the server's engine lcores live through every
client's connect and destroy. usertools/dr-soak.py --duration 3600 is the
hour by hand (doc/guides/reliability.rst, "Soak")."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from perfutil import REPO, pair

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root: EAL's runtime directories, memif sockets")

SECONDS = float(os.environ.get("DR_SOAK_SECONDS", "20"))
MODES = {"inline": 1, "rtc": 2, "pipeline": 3}           # mode: seed


@pytest.mark.parametrize("mode", list(MODES))
def test_soak(perf_exe, faultlink_exe, tmp_path, mode):
    out = tmp_path / "soak.json"
    cmd = [sys.executable, str(REPO / "usertools" / "dr-soak.py"), "--duration", str(SECONDS),
           "--mode", mode, "--seed", str(MODES[mode]), "--perf", str(perf_exe), "--faultlink",
           str(faultlink_exe), "--json", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=SECONDS + 240, check=False,
                       env=dict(os.environ, DR_BUILD_DIR=str(pair.build_dir())))
    print(p.stdout)
    desc = "%s\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(cmd), p.stdout, p.stderr[-20000:])
    assert out.exists(), desc
    r = json.loads(out.read_text())
    assert p.returncode == 0 and r["ok"], desc
    assert r["rounds"] >= 3 and r["errors"] == 0 and r["rounds_failed"] == 0, desc
    assert r["qps_left_max"] == 0, desc
    assert r["heap"]["diff_bytes"] == 0, desc
    assert abs(r["mbufs"]["diff"]) <= r["mbufs"]["tolerance"], desc
    assert r["messages_checked"] > 0 and r["bytes_checked"] > 0, desc
    lost = sum(d["lost"] for d in r["fault_link"].values())
    rt = r["retransmissions"]
    resent = (rt["client_frames_resent"] + rt["server_frames_resent"] +
              sum(rt["server"][k] for k in ("retries", "sr_resends")))
    assert lost > 0 and resent > 0, desc                       # the faults hit, and were recovered
    se = r["server_exit"]
    assert se["rc"] == 0 and se["runs_failed"] == 0 and se["runs"] == r["rounds"] + 2, desc
    assert se["fault_link_conserved"], desc
