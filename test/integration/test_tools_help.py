# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Every Python tool in usertools/ answers --help: exit 0, a usage line on
stdout, nothing on stderr (argparse formats each option's help when asked,
so a '%' left unescaped in one, as dr-soak.py's default impairments
'loss 10%' once were, fails only then, with a traceback)."""

import subprocess
import sys
from pathlib import Path

import pytest

TOOLS = sorted((Path(__file__).resolve().parents[2] / "usertools").glob("*.py"))
CLUSTER_COMMANDS = ["up", "down", "run", "agent"]


@pytest.mark.parametrize("tool", TOOLS, ids=[t.name for t in TOOLS])
def test_help(tool):
    r = subprocess.run([sys.executable, str(tool), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stdout + r.stderr
    assert r.stdout.lower().startswith("usage:"), r.stdout


@pytest.mark.parametrize("command", CLUSTER_COMMANDS)
def test_cluster_command_help(command):
    tool = TOOLS[0].parent / "dr-cluster.py"
    r = subprocess.run([sys.executable, str(tool), command, "--help"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stdout + r.stderr
    assert r.stdout.lower().startswith("usage:"), r.stdout
