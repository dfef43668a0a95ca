# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Shared fixtures: where the build and the test vectors are, and how to run
dpdk-rdma-dump (every run has a timeout).

DR_BUILD_DIR names the meson build directory (default: <repo>/build).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "test" / "vectors"
RUN_TIMEOUT = 60


def build_dir():
    return Path(os.environ.get("DR_BUILD_DIR", REPO / "build"))


def vector_pcaps():
    return sorted(VECTORS.glob("*.pcap"))


def app_exe(name, why=""):
    """build/app/NAME/NAME of DR_BUILD_DIR; missing, the test fails (why: the reason it may be)."""
    exe = build_dir() / "app" / name / name
    if not exe.is_file():
        pytest.fail("%s is not built%s (set DR_BUILD_DIR or run ninja -C %s)" % (exe, why,
                                                                                  build_dir()))
    return exe


@pytest.fixture(scope="session")
def dump_exe():
    return app_exe("dpdk-rdma-dump")


@pytest.fixture(scope="session")
def perf_exe():
    """dpdk-rdma-perf; it needs the transport to link: missing, the test fails."""
    return app_exe("dpdk-rdma-perf",
                   ": dpdk-rdma-perf needs the transport (lib/, drivers/) to link")


@pytest.fixture(scope="session")
def opgen_exe():
    """dpdk-rdma-opgen; it needs the transport to link: missing, the test fails."""
    return app_exe("dpdk-rdma-opgen", ": dpdk-rdma-opgen needs the transport to link")


@pytest.fixture(scope="session")
def faultlink_exe():
    return app_exe("dpdk-rdma-faultlink")


@pytest.fixture(scope="session")
def vectors():
    return VECTORS


@pytest.fixture(scope="session")
def dump(dump_exe):
    """dump(*args, timeout=...) -> CompletedProcess with text stdout/stderr."""
    def run(*args, timeout=RUN_TIMEOUT):
        return subprocess.run([str(dump_exe), *map(str, args)], capture_output=True,
                              text=True, timeout=timeout, check=False)
    return run


def parse_json_lines(text):
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture(scope="session")
def dump_json(dump):
    """dump_json(pcap, *options) -> (list of JSON objects, CompletedProcess); asserts exit 0."""
    def run(path, *opts):
        p = dump("--json", *opts, path)
        assert p.returncode == 0, p.stderr
        return parse_json_lines(p.stdout), p
    return run


def dpdk_runtime_dirs(prefix):
    """Where EAL keeps the runtime files of --file-prefix=prefix (eal_get_runtime_dir())."""
    dirs = [Path("/var/run/dpdk") / prefix]
    if "XDG_RUNTIME_DIR" in os.environ:
        dirs.append(Path(os.environ["XDG_RUNTIME_DIR"]) / "dpdk" / prefix)
    dirs.append(Path("/tmp/dpdk") / prefix)
    return dirs


@pytest.fixture
def eal_args():
    """eal_args(rx_pcap) -> EAL arguments for one net_pcap port reading rx_pcap;
    the EAL runtime directories are removed afterwards."""
    prefixes = []

    def make(rx_pcap):
        prefix = "drdump%d_%d" % (os.getpid(), len(prefixes))
        prefixes.append(prefix)
        return ["--no-pci", "--no-huge", "-m", "256", "--file-prefix=" + prefix,
                "--vdev", "net_pcap0,rx_pcap=%s" % rx_pcap]

    yield make
    for prefix in prefixes:
        for d in dpdk_runtime_dirs(prefix):
            shutil.rmtree(d, ignore_errors=True)
