# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf's command line: every bad argument ends with a message on
stderr and exit status 2, before EAL starts (no device, no transport
activity needed); --help and --version exit 0."""

import os
import shutil
import subprocess

import pytest

from perfutil import pair

TIMEOUT = 20
IP = ["--ip", "192.0.2.1"]


def run(exe, *args):
    return subprocess.run([str(exe), "--", *map(str, args)], capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


BAD = [
    # (id, arguments after "--", text expected on stderr)
    ("raw-like-unknown", ["raw_bw", *IP, "--raw-like", "flush"], "--raw-like: unknown operation 'flush'"),
    ("raw-like-not-raw", ["write_bw", *IP, "--raw-like", "send"], "--raw-like: only for the raw tests"),
    ("raw-check", ["raw_bw", *IP, "--check"], "--check: not for the raw tests"),
    ("conn-xrc", ["send_bw", *IP, "-c", "XRC"], "-c/--connection: 'XRC': RC, UC or UD"),
    ("conn-ud-write", ["write_bw", *IP, "-c", "UD"], "UD: only the send tests"),
    ("conn-uc-read", ["read_bw", *IP, "-c", "UC"], "UC: only the send and write tests"),
    ("conn-uc-atomic", ["atomic_lat", *IP, "--connection=UC"], "UC: only the send and write"),
    ("conn-raw", ["raw_bw", *IP, "-c", "UD"], "-c/--connection: not for the raw tests"),
    ("conn-perftest", ["send_bw", *IP, "-c", "UD", "--perftest-compat"], "UD not yet with"),
    ("send-imm-write", ["write_bw", *IP, "--send_with_imm"],
     "--send_with_imm: only for the send tests"),
    ("write-imm-send", ["send_bw", *IP, "--write_with_imm"],
     "--write_with_imm: only for the write tests"),
    ("write-imm-lat", ["write_lat", *IP, "--write_with_imm"], "--write_with_imm: not for write_lat"),
    ("write-imm-raw", ["raw_bw", *IP, "--write_with_imm"], "--write_with_imm: only for the write"),
    ("imm-perftest", ["send_bw", *IP, "--send_with_imm", "--perftest-compat"],
     "--send_with_imm: not with --perftest-compat"),
    ("raw-lat-duration", ["raw_lat", *IP, "-D", "2"], "-D/--duration: not for the raw tests"),
    ("raw-qps", ["raw_bw", *IP, "-q", "2"], "-q/--qp: not for the raw tests"),
    ("raw-perftest", ["raw_bw", *IP, "--perftest-compat"], "--perftest-compat: not for the raw tests"),
    ("no-test", [], "missing TEST"),
    ("unknown-test", ["write_bandwidth", *IP], "unknown test 'write_bandwidth'"),
    ("missing-ip", ["write_bw"], "--ip: required"),
    ("bad-ip", ["write_bw", "--ip", "192.0.2"], "invalid IPv4 address"),
    ("ip-unspecified", ["write_bw", "--ip", "0.0.0.0"], "cannot be a port's address"),
    ("ip-multicast", ["write_bw", "--ip", "224.0.0.1"], "cannot be a port's address"),
    ("unknown-long-option", ["write_bw", *IP, "--bogus"], "unknown option '--bogus'"),
    ("unknown-short-option", ["write_bw", *IP, "-Z"], "unknown option '-Z'"),
    ("missing-argument", ["write_bw", *IP, "-s"], "missing argument"),
    ("size-not-a-number", ["write_bw", *IP, "-s", "64k4"], "invalid size '64k4'"),
    ("size-negative", ["write_bw", *IP, "-s", "-5"], "invalid size '-5'"),
    ("size-above-1GiB", ["write_bw", *IP, "-s", "1073741825"], "above the largest message"),
    ("size-2G", ["write_bw", *IP, "-s", "2G"], "above the largest message"),
    ("size-1025M", ["send_bw", *IP, "-s", "1025M"], "above the largest message"),
    ("sizes-above-1GiB", ["write_bw", *IP, "--sizes", "1,2G"], "above the largest message"),
    ("sizes-too-many", ["write_bw", *IP, "--sizes", ",".join(["1"] * 33)], "more than 32 sizes"),
    ("sizes-empty", ["write_bw", *IP, "--sizes", ","], "invalid list"),
    ("size-and-all", ["write_bw", *IP, "-s", "64", "-a"], "give only one of them"),
    ("write-lat-size-0", ["write_lat", *IP, "-s", "0"], "1 byte at least"),
    ("mtu-not-power-of-2", ["write_bw", *IP, "-m", "1000"], "invalid MTU 1000"),
    ("mtu-too-small", ["write_bw", *IP, "-m", "128"], "from 256 to 4096"),
    ("mtu-too-large", ["write_bw", *IP, "-m", "8192"], "from 256 to 4096"),
    ("qps-zero", ["write_bw", *IP, "-q", "0"], "-q/--qp: invalid value '0'"),
    ("qps-too-many", ["write_bw", *IP, "-q", "65537"], "-q/--qp: invalid value '65537'"),
    ("qps-on-lat", ["send_lat", *IP, "-q", "2"], "only available on bw tests"),
    ("tx-depth-zero", ["write_bw", *IP, "-t", "0"], "-t/--tx-depth: invalid value"),
    ("rx-depth-zero", ["send_bw", *IP, "-r", "0"], "-r/--rx-depth: invalid value"),
    ("cq-mod-zero", ["write_bw", *IP, "-Q", "0"], "-Q/--cq-mod: invalid value"),
    ("iters-zero", ["write_bw", *IP, "-n", "0"], "-n/--iters: invalid value"),
    ("iters-lat-below-5", ["write_lat", *IP, "-n", "4"], "5 iterations at least"),
    ("iters-lat-too-many", ["read_lat", *IP, "-n", "10000001"], "one timestamp per iteration"),
    ("duration-zero", ["write_bw", *IP, "-D", "0"], "-D/--duration: invalid value"),
    ("duration-negative", ["write_bw", *IP, "-D", "-1"], "-D/--duration: invalid value"),
    ("duration-and-iters", ["write_bw", *IP, "-D", "2", "-n", "10"], "cannot be combined"),
    ("ib-port-2", ["write_bw", *IP, "-i", "2"], "-i/--ib-port: invalid value '2'"),
    ("perftest-check", ["write_bw", *IP, "--perftest-compat", "--check"], "--perftest-compat"),
    ("perftest-sizes", ["send_bw", *IP, "--perftest-compat", "--sizes", "1,2"],
     "--perftest-compat"),
    ("perftest-duration", ["read_lat", *IP, "--perftest-compat", "-D", "2"], "--perftest-compat"),
    ("atomic-size-16", ["atomic_bw", *IP, "-s", "16"], "the atomic tests move 8 bytes, not 16"),
    ("atomic-sizes", ["atomic_lat", *IP, "--sizes", "8,16"], "move 8 bytes, not 16"),
    ("atomic-all", ["atomic_bw", *IP, "-a"], "not for the atomic tests"),
    ("atomic-type-bad", ["atomic_bw", *IP, "-A", "SWAP"], "invalid type 'SWAP'"),
    ("atomic-type-lowercase", ["atomic_lat", *IP, "-A", "fetch_and_add"], "invalid type"),
    ("atomic-type-on-write", ["write_bw", *IP, "-A", "FETCH_AND_ADD"],
     "only for the atomic tests"),
    ("outs-on-send", ["send_bw", *IP, "-o", "4"], "only for the read and atomic tests"),
    ("outs-zero", ["atomic_bw", *IP, "-o", "0"], "-o/--outs: invalid value '0'"),
    ("outs-too-large", ["read_bw", *IP, "--outs", "256"], "-o/--outs: invalid value '256'"),
    ("qp-timeout-32", ["write_lat", *IP, "-u", "32"], "-u/--qp-timeout: invalid value '32'"),
    ("qp-timeout-word", ["send_bw", *IP, "--qp-timeout", "long"], "-u/--qp-timeout: invalid value 'long'"),
    ("perftest-check-read", ["read_bw", *IP, "--perftest-compat", "--check"],
     "--check only for the atomic tests"),
    ("gid-index-8", ["write_bw", *IP, "-x", "8"], "-x/--gid-index: invalid value '8'"),
    ("port-zero", ["write_bw", *IP, "-p", "0"], "-p/--port: invalid value '0'"),
    ("port-too-large", ["write_bw", *IP, "-p", "65536"], "-p/--port: invalid value"),
    ("peer-mac-bad", ["write_bw", *IP, "--peer-mac", "02:00:00:00:00"], "invalid MAC address"),
    ("peer-mac-multicast", ["write_bw", *IP, "--peer-mac", "01:00:5e:00:00:01"],
     "is not a unicast address"),
    ("link-mtu-too-small", ["write_bw", *IP, "--link-mtu", "100"], "--link-mtu: invalid value"),
    ("link-mtu-too-large", ["write_bw", *IP, "--link-mtu", "65536"], "--link-mtu: invalid value"),
    ("extra-argument", ["write_bw", *IP, "127.0.0.1", "extra"], "unexpected argument 'extra'"),
    ("oob-bind-on-client", ["write_bw", *IP, "--oob-bind", "127.0.0.1", "127.0.0.1"],
     "only for the server"),
]


@pytest.mark.parametrize("args,message", [pytest.param(a, m, id=i) for i, a, m in BAD])
def test_bad_arguments_exit_2(perf_exe, args, message):
    p = run(perf_exe, *args)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert message in p.stderr, p.stderr
    assert p.stderr.startswith("dpdk-rdma-perf: "), p.stderr
    assert p.stdout == ""
    assert "EAL:" not in p.stderr, "EAL started before the command line was checked"


def test_bad_argument_without_separator(perf_exe):
    """Without "--" every argument is the tool's (EAL gets none)."""
    p = subprocess.run([str(perf_exe), "write_bw", "--ip", "192.0.2.1", "-m", "3000"],
                       capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert p.returncode == 2 and "invalid MTU 3000" in p.stderr


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help(perf_exe, flag):
    p = run(perf_exe, flag)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("usage: dpdk-rdma-perf <EAL args> -- TEST --ip A.B.C.D")
    for opt in ("--port", "--size", "--iters", "--all", "--duration", "--mtu", "--tx-depth",
                "--qp", "--CPU-freq", "--report_gbits", "--ib-dev", "--ib-port", "--gid-index",
                "--ip", "--peer-mac", "--check", "--link-mtu", "--oob-bind", "--sizes",
                "--perftest-compat", "--atomic_type", "--outs", "--qp-timeout"):
        assert opt in p.stdout, opt
    for test in ("send_bw", "send_lat", "write_bw", "write_lat", "read_bw", "read_lat",
                 "atomic_bw", "atomic_lat"):
        assert test in p.stdout


def test_version(perf_exe):
    p = run(perf_exe, "--version")
    assert p.returncode == 0 and p.stdout.startswith("dpdk-rdma-perf (dpdk-rdma) ")


@pytest.mark.parametrize("args", [
    pytest.param(["write_bw", *IP, "-s", "64K", "-F", "--report_gbits", "-Q", "10"], id="suffix-K"),
    pytest.param(["send_bw", *IP, "--size=1G"], id="size-1G"),
    pytest.param(["read_lat", *IP, "-s", "0", "-n", "5"], id="read-lat-size-0"),
    pytest.param(["write_bw", *IP, "-a", "-q", "4", "-t", "16"], id="all-sizes"),
    pytest.param(["send_lat", *IP, "-D", "1.5", "--check", "-m", "4096"], id="duration"),
    pytest.param(["write_bw", *IP, "--perftest-compat", "-s", "64", "-q", "2"], id="perftest"),
    pytest.param(["read_lat", *IP, "--perftest-compat", "-a", "-n", "5"], id="perftest-all"),
    pytest.param(["atomic_bw", *IP, "-A", "CMP_AND_SWAP", "-s", "8", "-o", "4", "-q", "2"],
                 id="atomic-bw"),
    pytest.param(["atomic_lat", *IP, "--atomic_type=FETCH_AND_ADD", "--outs", "200"],
                 id="atomic-lat-outs-above-device"),
    pytest.param(["atomic_bw", *IP, "--perftest-compat", "--check"], id="perftest-atomic-check"),
    pytest.param(["read_bw", *IP, "-o", "1"], id="read-outs"),
    pytest.param(["write_lat", *IP, "-u", "0"], id="qp-timeout-none"),
    pytest.param(["send_bw", *IP, "--perftest-compat", "--qp-timeout=31"], id="qp-timeout-31"),
    pytest.param(["send_lat", *IP, "--send_with_imm"], id="send-imm"),
    pytest.param(["send_bw", *IP, "-c", "UD", "--check"], id="conn-ud"),
    pytest.param(["write_lat", *IP, "--connection=uc"], id="conn-uc-lowercase"),
    pytest.param(["write_bw", *IP, "--write_with_imm", "--check"], id="write-imm"),
])
def test_good_arguments_pass_the_parser(perf_exe, args):
    """Valid command lines get past the parser: EAL then finds no device
    (exit 1, not 2)."""
    prefix = "drcli%d" % os.getpid()
    try:
        p = subprocess.run([str(perf_exe), "--no-huge", "-m", "64", "--no-pci",
                            "--file-prefix=" + prefix, "--", *args], capture_output=True,
                           text=True, timeout=TIMEOUT, check=False)
    finally:
        for d in pair.dpdk_runtime_dirs(prefix):
            shutil.rmtree(d, ignore_errors=True)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "no DPDK port" in p.stderr, p.stderr
