# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The benchmark tools run and say what they measured (they assert nothing
about speed; these tests only check that they work): dr-memif-run.py
--raw-ratio, dr-bench.py on a one-row matrix and its --check-baseline, and
test/bench/instr.py on one step of the release build's bench_instr under
callgrind."""

import json
import subprocess

import pytest

from perfutil import REPO, pair
from drperf import baseline

PY = "/usr/bin/python3"


def run(args, timeout=300):
    return subprocess.run([PY] + list(map(str, args)), capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=REPO)


def test_memif_run_raw_ratio(perf_exe):
    r = run([REPO / "usertools" / "dr-memif-run.py", "--perf", perf_exe, "--raw-ratio",
             "write_bw", "--check", "-s", "4096", "-n", "500"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Data check: OK" in r.stdout
    line = [x for x in r.stdout.splitlines() if x.startswith(" The raw link in the same run")]
    assert len(line) == 1 and "raw_bw --raw-like write" in line[0] and "ratio " in line[0], r.stdout


def test_dr_bench_one_row(perf_exe, tmp_path):
    out = tmp_path / "bench.json"
    r = run([REPO / "usertools" / "dr-bench.py", "--perf", perf_exe, "--tests", "send,read",
             "--kinds", "bw,lat", "--sizes", "2048", "--mtus", "1024", "--modes", "inline",
             "--runs", "1", "--duration", "0.3", "--lat-iters", "50", "--rdma-args", "--zcopy-min 1",
             "--memory", "small", "--json", out], timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert doc["rdma_args"] == ["--zcopy-min", "1"], doc["rdma_args"]
    assert doc["memory"] == "small" and "no hugepages (EAL --no-huge" in r.stdout.splitlines()[0]
    res = doc["results"]
    got = {(x["test"], x["kind"], x["metric"]) for x in res}
    assert got == {("send", "bw", "msg_rate"), ("send", "bw", "bw_avg"), ("read", "bw", "msg_rate"),
                   ("read", "bw", "bw_avg"), ("send", "lat", "t_typical"),
                   ("read", "lat", "t_typical")}, got
    for x in res:
        assert x["rdma"] > 0 and x["raw"] > 0 and x["size"] == 2048, x
    assert "read_lat" in r.stdout and "ratio" in r.stdout


def test_dr_bench_bad_arguments():
    r = run([REPO / "usertools" / "dr-bench.py", "--tests", "flush"])
    assert r.returncode == 2 and "--tests: one or more of write, send, read, atomic" in r.stderr


def test_dr_bench_bad_rdma_args(perf_exe):
    """Arguments the RDMA side refuses: the pair fails, dr-bench says so and exits 1."""
    r = run([REPO / "usertools" / "dr-bench.py", "--perf", perf_exe, "--tests", "write", "--kinds", "bw",
             "--sizes", "64", "--mtus", "1024", "--modes", "inline", "--runs", "1", "--duration", "0.2",
             "--rdma-args", "--zcopy-min 0"], timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "the pair failed" in r.stderr and "--zcopy-min: invalid value '0'" in r.stderr, r.stderr


def test_instr_one_step(tmp_path):
    exe = REPO / "build-rel" / "test" / "bench" / "bench_instr"
    if not exe.exists():
        pytest.fail("%s is not built (usertools/dr-test.sh builds build-rel)" % exe)
    out = tmp_path / "instr.json"
    r = run([REPO / "test" / "bench" / "instr.py", exe, "--steps", "ack_write", "--tolerance", "100",
             "--json", out], timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(out.read_text())["ack_write"]
    assert got["ops"] == 8192 and got["frames"] > 0 and got["per_op"] > 10, got
    # the library's count leaves out the harness's functions and the ring PMD's bursts
    assert got["all_per_op"] > got["per_op"], got


def test_dr_bench_check_baseline(perf_exe, tmp_path):
    """--check-baseline: raw_bw and raw_lat beside dpdk-testpmd (txonly to
    rxonly; macswap echoing test/bench/bench_link's frames) over memif, for
    one-frame WRITEs of 64 B and 4 KiB: every side measured, the table
    printed, the samples in the JSON."""
    out = tmp_path / "baseline.json"
    r = run([REPO / "usertools" / "dr-bench.py", "--perf", perf_exe, "--check-baseline", "--runs", "1",
             "--duration", "1", "--lat-iters", "2000", "--memory", "small", "--json", out], timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert sorted(doc["samples"]) == ["4096", "64"], doc
    for size, got in doc["samples"].items():
        for k in ("raw_rate", "ref_rate", "raw_lat", "ref_lat"):
            assert len(got[k]) == 1 and got[k][0] > 0, (size, k, got)
    lines = r.stdout.splitlines()
    for frame in ("138 B", "4170 B"):
        assert any(x.startswith(frame) and "testpmd txonly -> rxonly" in x for x in lines), r.stdout
        assert any(x.startswith(frame) and "bench_link <-> macswap" in x for x in lines), r.stdout


def test_baseline_testpmd_that_fails_says_why():
    """A testpmd of the baseline that exits before it forwards (EAL refuses
    an lcore the machine lacks): the baseline raises at once with what it
    printed, not after its start bound with nothing to show."""
    with pytest.raises(RuntimeError) as e:
        baseline.testpmd_rate(64, 1, [4000, 4001])
    msg = str(e.value)
    assert msg.startswith("testpmd rxonly exited"), msg
    assert "lcore" in msg.lower(), msg


def test_dr_bench_memory_huge_without_hugepages():
    """--memory huge where no hugepages are free: exit 2, how much is free and how to reserve."""
    free, kb = pair.hugepages_free()
    if free * kb >= 512 << 10:
        pytest.skip("this machine has hugepages free")
    r = run([REPO / "usertools" / "dr-bench.py", "--memory", "huge", "--quick"])
    assert r.returncode == 2, r.stdout + r.stderr
    assert "--memory huge: %d MiB of hugepages free, a pair needs 512" % (free * kb >> 10) in r.stderr


LOSS_CURVE = REPO / "usertools" / "dr-loss-curve.py"


def test_loss_curve_plot_json(tmp_path):
    """--plot-json draws the kept curve (doc/guides/img/loss-curve.json) again, running nothing;
    without --png it is refused."""
    pytest.importorskip("matplotlib")
    png = tmp_path / "curve.png"
    kept = REPO / "doc" / "guides" / "img" / "loss-curve.json"
    r = subprocess.run(["/usr/bin/python3", str(LOSS_CURVE), "--plot-json", str(kept), "--png",
                        str(png)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = subprocess.run(["/usr/bin/python3", str(LOSS_CURVE), "--plot-json", str(kept)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--plot-json needs --png" in r.stderr
