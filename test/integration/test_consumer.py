# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""An application of the installed library (issue 29): test/consumer/consumer.c
built from nothing but what `meson install` puts in place, through
libdpdk-rdma.pc, linked shared and --static, and run on a net_ring port.

The build is installed with DESTDIR into a temporary directory, and the two
pkg-config files' prefix is moved there with it (what a package's relocation
does); everything else in them is as installed. What each link proves:
- shared: the program needs libdpdk_rdma.so.0 and finds every symbol the
  public headers' inline accessors use (dr_opcode_table: version.map);
- static: the program needs no libdpdk_rdma.so, and the ethdev backend, which
  registers itself from a constructor nothing refers to, is in it (the
  whole-archive flags of Libs.private): dr_device_from_port() finds the port.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, build_dir, dpdk_runtime_dirs

SOURCE = REPO / "test" / "consumer" / "consumer.c"
INSTALL_TIMEOUT = 300       # meson install copies the whole build: seconds on a busy machine
BUILD_TIMEOUT = 300         # one C file against DPDK's headers; the static link reads every archive
RUN_TIMEOUT = 60            # EAL without hugepages, one context opened and closed


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The staged install: (pkg-config dir, library dir)."""
    if not (build_dir() / "build.ninja").exists():
        pytest.fail("no build in %s (set DR_BUILD_DIR)" % build_dir())
    root = tmp_path_factory.mktemp("destdir")
    subprocess.run(["meson", "install", "-C", str(build_dir()), "--destdir", str(root), "--no-rebuild",
                    "--quiet"], check=True, timeout=INSTALL_TIMEOUT, stdout=subprocess.DEVNULL)
    pcs = list(root.rglob("libdpdk-rdma.pc"))
    assert len(pcs) == 1, "libdpdk-rdma.pc installed %d times" % len(pcs)
    pcdir = pcs[0].parent
    for name in ("libdpdk-rdma.pc", "libdpdk-rdma-libs.pc"):
        pc = pcdir / name
        text = pc.read_text()
        m = re.search(r"^prefix=(.*)$", text, re.M)
        assert m, "%s has no prefix" % name
        pc.write_text(text.replace("prefix=" + m.group(1), "prefix=" + str(root) + m.group(1), 1))
    libdir = pcdir.parent
    assert (libdir / "libdpdk_rdma.a").exists() and (libdir / "libdpdk_rdma.so.0").exists()
    yield pcdir, libdir
    shutil.rmtree(root, ignore_errors=True)


def pkg_config(pcdir, *args):
    env = dict(os.environ, PKG_CONFIG_PATH=str(pcdir))
    p = subprocess.run(["pkg-config", *args, "libdpdk-rdma"], env=env, capture_output=True, text=True,
                       timeout=BUILD_TIMEOUT)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def needed(exe):
    out = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\).*\[(.+)\]", out)


def build_and_run(tmp_path, pcdir, libdir, static):
    cc = os.environ.get("CC", "cc")
    flags = ["--static"] if static else []
    exe = tmp_path / ("consumer-static" if static else "consumer-shared")
    cmd = [cc, "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-O2", str(SOURCE), "-o", str(exe),
           *pkg_config(pcdir, *flags, "--cflags"), *pkg_config(pcdir, *flags, "--libs")]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    assert p.returncode == 0, "%s\n%s" % (" ".join(cmd), p.stderr[-4000:])
    prefix = "drconsumer%d%s" % (os.getpid(), "s" if static else "d")
    env = dict(os.environ, LD_LIBRARY_PATH=str(libdir))
    try:
        r = subprocess.run([str(exe), "--no-huge", "-m", "256", "--no-pci", "--file-prefix=" + prefix,
                            "--vdev=net_ring0", "-l", "0", "--log-level=lib.eal:error"], env=env,
                           capture_output=True, text=True, timeout=RUN_TIMEOUT)
    finally:
        for d in dpdk_runtime_dirs(prefix):
            shutil.rmtree(d, ignore_errors=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "consumer: ok" in r.stdout
    assert "built and parsed RC_RDMA_WRITE_ONLY (RC), 64 payload bytes" in r.stdout
    return exe


def test_shared(tmp_path, installed):
    pcdir, libdir = installed
    exe = build_and_run(tmp_path, pcdir, libdir, static=False)
    assert "libdpdk_rdma.so.0" in needed(exe)


def test_static(tmp_path, installed):
    pcdir, libdir = installed
    exe = build_and_run(tmp_path, pcdir, libdir, static=True)
    assert not [n for n in needed(exe) if n.startswith("libdpdk_rdma")], needed(exe)
