# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf --use_hugepages: the message buffers, and so the MR, in
EAL's hugepage memory; EAL's pools on hugepages too (pair.eal_common(huge)).
The module reserves 2 MiB hugepages and mounts a hugetlbfs of its own for
the run, and gives both back afterwards. Without hugepages the option is
refused with exit 2."""

import os
import shutil
import subprocess
import tempfile

import pytest

from perfutil import RUN_TIMEOUT, assert_checked_run, pair, table

NR = "/proc/sys/vm/nr_hugepages"
PAGES = 400                    # 800 MiB: two EALs, their pools, 1 MiB messages


@pytest.fixture(scope="module")
def hugetlbfs():
    """A hugetlbfs mount (its path) with PAGES more hugepages reserved."""
    with open(NR) as f:
        before = int(f.read())
    mnt = tempfile.mkdtemp(prefix="dr-huge-")
    mounted = False
    try:
        try:
            with open(NR, "w") as f:
                f.write(str(before + PAGES))
        except OSError as e:
            pytest.skip("cannot reserve hugepages here: %s" % e)
        with open("/proc/meminfo") as f:
            total_free = next(int(line.split()[1]) for line in f
                              if line.startswith("HugePages_Free"))
        if total_free < PAGES:
            pytest.skip("the kernel gave %d of %d hugepages" % (total_free, PAGES))
        r = subprocess.run(["mount", "-t", "hugetlbfs", "nodev", mnt], capture_output=True,
                           text=True, timeout=30)
        if r.returncode != 0:
            pytest.skip("cannot mount hugetlbfs: %s" % r.stderr.strip())
        mounted = True
        yield mnt
    finally:
        if mounted:
            subprocess.run(["umount", mnt], timeout=30, check=False)
        shutil.rmtree(mnt, ignore_errors=True)
        with open(NR, "w") as f:
            f.write(str(before))


@pytest.mark.parametrize("test", ["write_bw", "read_bw", "send_lat"])
def test_pair_on_hugepages(hugetlbfs, perf_exe, test):
    """Both EALs on hugepages, the buffers in them, every byte checked; the
    header says where the buffers are; nothing is left in the mount."""
    sizes = [64, 4096, 1 << 20]
    res = pair.run_memif([test, "--check", "--use_hugepages", "-m", 4096, "--link-mtu", 4200,
                          "--sizes", ",".join(map(str, sizes)), "-n", 50],
                         exe=perf_exe, timeout=RUN_TIMEOUT, huge=hugetlbfs)
    assert_checked_run(res, sizes, 50, mtu=4096)
    for side in (res.server, res.client):
        assert table.header(side.stdout)["Buffers"] == "hugepages (EAL memory)", side.stdout
    assert os.listdir(hugetlbfs) == []


def test_refused_without_hugepages(perf_exe):
    """--use_hugepages under --no-huge: exit 2, the option named, before any port."""
    prefix = "drhuge%d" % os.getpid()
    try:
        p = subprocess.run([str(perf_exe), "--no-huge", "-m", "64", "--no-pci",
                            "--file-prefix=" + prefix, "--", "write_bw", "--ip", "192.0.2.1",
                            "--use_hugepages"], capture_output=True, text=True, timeout=60)
    finally:
        for d in pair.dpdk_runtime_dirs(prefix):
            shutil.rmtree(d, ignore_errors=True)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "--use_hugepages: EAL runs without hugepages" in p.stderr, p.stderr
