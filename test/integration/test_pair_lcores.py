# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Where usertools/drperf/pair.py and dr-memif-run.py put the two processes
of a memif pair: each on its own CPU (EAL -l) by default, both on the one
CPU with a warning when there is only one, or where the caller says. Checked
on the command lines built, and through dr-memif-run.py with a stand-in for
dpdk-rdma-perf that prints its arguments; nothing is timed, no build needed."""

import os
import time
import subprocess
import sys

import pytest

from perfutil import REPO, pair

MEMIF_RUN = REPO / "usertools" / "dr-memif-run.py"
TIMEOUT = 60


def eal_opt(cmd, opt):
    """The value of EAL option opt in a dpdk-rdma-perf command line (before "--")."""
    eal = cmd[:cmd.index("--")]
    assert eal.count(opt) == 1, cmd
    return eal[eal.index(opt) + 1]


def sides(**kw):
    return pair.memif_sides(["write_bw", "--check"], "/bin/true", "/tmp/dr-memif-t.sock",
                            4791, "t", **kw)


def test_default_sides_on_different_cpus():
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one CPU: test_one_cpu_shared covers it")
    server, client = sides()
    assert eal_opt(server.cmd, "-l") == str(cpus[0]) == server.lcores
    assert eal_opt(client.cmd, "-l") == str(cpus[1]) == client.lcores
    assert server.lcores != client.lcores


def test_default_lcores_choice(capsys):
    assert pair.default_lcores([7, 3, 5]) == ("3", "5")
    assert pair.default_lcores([130, 131]) == ("0@130", "0@131")   # beyond RTE_MAX_LCORE
    assert capsys.readouterr().err == ""


def test_one_cpu_shared(capsys):
    assert pair.default_lcores([4]) == ("4", "4")
    assert "only CPU 4 is available" in capsys.readouterr().err


def test_overrides():
    server, client = sides(server_lcores="3", client_lcores="(0-1)@2")
    assert eal_opt(server.cmd, "-l") == "3"
    assert eal_opt(client.cmd, "--lcores") == "(0-1)@2" and "-l" not in client.cmd
    server, client = sides(client_lcores=5)            # one side given, the other default
    assert eal_opt(client.cmd, "-l") == "5"
    assert eal_opt(server.cmd, "-l") == pair.default_lcores()[0]


def test_single_process_eal_unchanged():
    """memif_eal() without lcores (one-process callers) gives no lcore option."""
    eal = pair.memif_eal("server", "/tmp/x.sock", "p")
    assert "-l" not in eal and "--lcores" not in eal
    assert pair.describe_lcores(None) == "EAL's default CPU"
    assert pair.describe_lcores("(0-2)@1") == "CPU 1 (EAL --lcores (0-2)@1)"


@pytest.fixture
def echo_perf(tmp_path):
    """A dpdk-rdma-perf stand-in: prints its arguments and exits 0."""
    exe = tmp_path / "echo-perf"
    exe.write_text('#!/bin/sh\necho "$@"\n')
    exe.chmod(0o755)
    return exe


def memif_run(exe, *args):
    return subprocess.run([sys.executable, str(MEMIF_RUN), "--perf", str(exe), "--show-server",
                           *args, "write_bw", "--check"], capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def test_memif_run_says_where(echo_perf):
    p = memif_run(echo_perf)
    assert p.returncode == 0, p.stderr
    server_line, client_line = p.stdout.splitlines()
    s_l, c_l = pair.default_lcores()
    assert " -l %s " % s_l in server_line and " -l %s " % c_l in client_line
    assert "server on CPU %s (EAL -l %s), client on CPU %s (EAL -l %s)" % (
        s_l, s_l, c_l, c_l) in p.stderr


def test_memif_run_lcore_options(echo_perf):
    p = memif_run(echo_perf, "--server-lcores", "1", "--client-lcores", "0@0")
    assert p.returncode == 0, p.stderr
    server_line, client_line = p.stdout.splitlines()
    assert " -l 1 " in server_line and " --lcores 0@0 " in client_line
    assert "server on CPU 1 (EAL -l 1), client on CPU 0 (EAL --lcores 0@0)" in p.stderr


def test_client_starts_after_the_server_is_ready(tmp_path):
    """run_pair() starts the client once the server printed its ready line
    (a memif client that connects earlier never gets its link), however long
    the server takes; a server that never says so costs at most READY_WAIT_S."""
    stamp = tmp_path / "client_started"
    server = pair.Side("server", ["sh", "-c", "sleep 1.5; date +%s.%N; echo '* Waiting for "
                                  "client to connect... *'; sleep 1"])
    client = pair.Side("client", ["sh", "-c", "date +%%s.%%N > %s" % stamp])
    res = pair.run_pair(server, client, TIMEOUT)
    assert res.ok, res.describe()
    ready_at = float(res.server.stdout.split()[0])
    assert float(stamp.read_text()) > ready_at
    # a server that exits without the line: the client still runs, at once
    t0 = time.monotonic()
    res = pair.run_pair(pair.Side("server", ["sh", "-c", "exit 3"]),
                        pair.Side("client", ["true"]), TIMEOUT)
    assert (res.server.rc, res.client.rc) == (3, 0)
    assert time.monotonic() - t0 < 5
