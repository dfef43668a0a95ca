# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-dump in live mode, over a real DPDK port: a net_pcap vdev that
replays a capture file into the rx queue (no hugepages, no NIC)."""

import json
import os
import select
import signal
import subprocess
import time

import roce
from conftest import RUN_TIMEOUT


def live(dump_exe, eal, *opts, timeout=RUN_TIMEOUT):
    return subprocess.run([str(dump_exe), *eal, "--", *map(str, opts)], capture_output=True,
                          text=True, timeout=timeout, check=False)


def json_lines(text):
    return [json.loads(line) for line in text.splitlines()]


def test_live_matches_file_mode(dump_exe, dump_json, eal_args, vectors):
    pcap = vectors / "opgen_rc.pcap"
    want, _ = dump_json(pcap)
    p = live(dump_exe, eal_args(pcap), "--port", 0, "--json", "--count", 38, "--duration", 20)
    assert p.returncode == 0, p.stderr
    got = json_lines(p.stdout)
    assert len(got) == 38
    assert [(f["frame"], f["opcode"], f["psn"], f["dest_qp"], f["icrc_ok"]) for f in got] == \
        [(f["frame"], f["opcode"], f["psn"], f["dest_qp"], f["icrc_ok"]) for f in want]
    assert got == want
    assert "38 frames, 38 RoCEv2, 0 bad ICRC, 0 malformed" in p.stderr


def test_live_bad_icrc_and_fail_on_error(dump_exe, eal_args, vectors):
    pcap = vectors / "hostpeer_ud.pcap"
    p = live(dump_exe, eal_args(pcap), "--port", 0, "--count", 3, "--duration", 20)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].endswith("icrc=BAD") and lines[1].endswith("icrc=ok")
    assert lines[-1] == "3 frames, 3 RoCEv2, 1 bad ICRC, 0 malformed"
    p = live(dump_exe, eal_args(pcap), "--port", 0, "--count", 3, "--duration", 20,
             "--fail-on-error")
    assert p.returncode == 1


def test_live_multi_segment_mbufs(dump_exe, dump_json, eal_args, tmp_path):
    """Frames larger than an mbuf's data room arrive as mbuf chains: the
    parser and the ICRC check must follow the segments."""
    frames = [roce.roce_frame(roce.bth(4, 0x11, n) + bytes((n + i) & 0xFF for i in range(size)))
              for n, size in enumerate([4096, 8900, 2100, 100])]
    frames.append(roce.flip_bit(frames[1], 8000))
    pcap = tmp_path / "jumbo.pcap"
    roce.write_pcap(pcap, frames)
    want, _ = dump_json(pcap)
    assert [f["icrc_ok"] for f in want] == [True, True, True, True, False]
    p = live(dump_exe, eal_args(pcap), "--port", 0, "--json", "--count", 5, "--duration", 20)
    assert p.returncode == 0, p.stderr
    assert json_lines(p.stdout) == want


def test_live_stops_after_duration(dump_exe, eal_args, vectors):
    start = time.monotonic()
    p = live(dump_exe, eal_args(vectors / "rc_pingpong.pcap"), "--port", 0, "--json",
             "--count", 1000, "--duration", 1.5)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 20
    assert 1.5 <= time.monotonic() - start < RUN_TIMEOUT


def test_live_stops_on_sigint(dump_exe, eal_args, vectors):
    cmd = [str(dump_exe), *eal_args(vectors / "rc_pingpong.pcap"), "--",
           "--port", "0", "--json", "--duration", "60"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        out = b""
        deadline = time.monotonic() + RUN_TIMEOUT
        while out.count(b"\n") < 20 and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
        assert out.count(b"\n") == 20
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == 0, err
    assert len((out + rest).splitlines()) == 20
    assert b"20 frames, 20 RoCEv2, 0 bad ICRC, 0 malformed" in err


def test_live_nonexistent_port(dump_exe, eal_args, vectors):
    p = live(dump_exe, eal_args(vectors / "opgen_rc.pcap"), "--port", 5, "--duration", 5)
    assert p.returncode != 0
    assert "dpdk-rdma-dump: port 5: no such port" in p.stderr


def test_live_eal_failure(dump_exe, eal_args, vectors):
    p = live(dump_exe, eal_args(vectors / "opgen_rc.pcap") + ["--no-such-eal-option"],
             "--port", 0, "--duration", 5)
    assert p.returncode == 1
    assert "dpdk-rdma-dump: EAL: initialisation failed" in p.stderr
