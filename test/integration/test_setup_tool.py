# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""usertools/dr-setup.py against fake sysfs/procfs trees built in tmp_path
(--root): the CPU layout and isolation of a 2-socket 8-CPU machine, a
machine without NUMA information, the EAL lcore lists of each engine mode
(oversubscribed ones included), hugepage reservation where the kernel gives
fewer pages than asked, the command line's errors; and `show` on this
machine. Needs no build and no root beyond what tmp_path allows."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "usertools" / "dr-setup.py"
TIMEOUT = 30
CMDLINE = ("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet isolcpus=managed_irq,domain,2-3,6-7 "
           "nohz_full=2-3,6-7 rcu_nocbs=2-3,6-7 -- isolcpus=1 init-arg")
HUGE_2M = "hugepages-2048kB"
HUGE_1G = "hugepages-1048576kB"


def run(*args, root=None):
    cmd = [sys.executable, str(TOOL)] + (["--root", str(root)] if root else []) + list(
        map(str, args))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def put(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_tree(root, topo, nodes=None, cmdline="quiet", isolated="", nohz_full=None,
              huge_sizes=(HUGE_2M, HUGE_1G), mounts="", default_kb=2048):
    """A fake root: topo is [(cpu, socket, core, siblings)], nodes {node: "cpulist"}
    (None: no /sys/devices/system/node at all)."""
    cpu = root / "sys/devices/system/cpu"
    cpus = [t[0] for t in topo]
    put(cpu / "online", "%d-%d\n" % (min(cpus), max(cpus)))
    put(cpu / "possible", "%d-%d\n" % (min(cpus), max(cpus)))
    put(cpu / "isolated", isolated + "\n")
    if nohz_full is not None:
        put(cpu / "nohz_full", nohz_full + "\n")
    for c, socket, core, siblings in topo:
        put(cpu / ("cpu%d/topology/physical_package_id" % c), "%d\n" % socket)
        put(cpu / ("cpu%d/topology/core_id" % c), "%d\n" % core)
        put(cpu / ("cpu%d/topology/thread_siblings_list" % c), siblings + "\n")
    for size in huge_sizes:
        d = root / "sys/kernel/mm/hugepages" / size
        for f in ("nr_hugepages", "free_hugepages", "surplus_hugepages", "resv_hugepages"):
            put(d / f, "0\n")
    if nodes is not None:
        for n, cpulist in nodes.items():
            nd = root / ("sys/devices/system/node/node%d" % n)
            put(nd / "cpulist", cpulist + "\n")
            for size in huge_sizes:
                for f in ("nr_hugepages", "free_hugepages", "surplus_hugepages"):
                    put(nd / "hugepages" / size / f, "0\n")
    put(root / "proc/cmdline", cmdline + "\n")
    put(root / "proc/meminfo", "MemTotal:       16384000 kB\nHugepagesize:       %d kB\n"
        % default_kb)
    put(root / "proc/mounts", "proc /proc proc rw 0 0\n" + mounts)
    return root


# 2 sockets x 2 cores x 2 threads; CPUs 0-3 first threads, 4-7 their siblings
TWO_SOCKETS = [(0, 0, 0, "0,4"), (1, 0, 1, "1,5"), (2, 1, 0, "2,6"), (3, 1, 1, "3,7"),
               (4, 0, 0, "0,4"), (5, 0, 1, "1,5"), (6, 1, 0, "2,6"), (7, 1, 1, "3,7")]


@pytest.fixture
def two_socket(tmp_path):
    """Node 1 (socket 1: CPUs 2,3,6,7) isolated, nohz_full and rcu_nocbs; a 2M
    hugetlbfs mounted."""
    return make_tree(tmp_path / "two-socket", TWO_SOCKETS, nodes={0: "0-1,4-5", 1: "2-3,6-7"},
                     cmdline=CMDLINE, isolated="2-3,6-7", nohz_full="2-3,6-7",
                     mounts="hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n")


@pytest.fixture
def no_numa(tmp_path):
    """4 CPUs, one socket, no /sys/devices/system/node, nothing isolated."""
    topo = [(c, 0, c, str(c)) for c in range(4)]
    return make_tree(tmp_path / "no-numa", topo, nodes=None, huge_sizes=(HUGE_2M,))


@pytest.fixture
def two_cpus(tmp_path):
    topo = [(0, 0, 0, "0"), (1, 0, 1, "1")]
    return make_tree(tmp_path / "two-cpus", topo, nodes={0: "0-1"})


def show_json(root):
    p = run("show", "--json", root=root)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def eal(root, *args):
    p = run("eal", "--json", *args, root=root)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


# ---------------------------------------------------------------- show

def test_show_two_sockets(two_socket):
    js = show_json(two_socket)
    cpus = {c["cpu"]: c for c in js["cpus"]}
    assert sorted(cpus) == list(range(8))
    assert [cpus[c]["socket"] for c in range(8)] == [0, 0, 1, 1, 0, 0, 1, 1]
    assert cpus[2]["siblings"] == [2, 6] and cpus[5]["core"] == 1
    assert [cpus[c]["node"] for c in range(8)] == [0, 0, 1, 1, 0, 0, 1, 1]
    assert js["nodes"] == {"0": [0, 1, 4, 5], "1": [2, 3, 6, 7]}
    iso = js["isolation"]
    assert iso["isolcpus"]["flags"] == ["managed_irq", "domain"]
    assert iso["isolcpus"]["cpus"] == [2, 3, 6, 7]       # not the "isolcpus=1" given to init
    assert iso["isolated"] == [2, 3, 6, 7]
    assert iso["nohz_full"]["cpus"] == [2, 3, 6, 7] and iso["rcu_nocbs"]["cpus"] == [2, 3, 6, 7]
    assert cpus[3]["flags"] == ["isolated", "nohz_full", "rcu_nocbs"] and cpus[1]["flags"] == []
    hp = js["hugepages"]
    assert [s["size"] for s in hp["sizes"]] == ["2M", "1G"]
    assert sorted(hp["sizes"][0]["nodes"]) == ["0", "1"]
    assert hp["mounts"] == [{"dir": "/dev/hugepages", "options": "rw,relatime,pagesize=2M",
                             "pagesize": "2M"}]
    assert js["notes"] == []                               # a complete isolation set-up


def test_show_two_sockets_text(two_socket):
    p = run("show", root=two_socket)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "CPUs: 8 online (0-7), 2 socket(s), 4 core(s), 2 thread(s) per core" in out
    assert "NUMA nodes: 0 (CPUs 0-1,4-5), 1 (CPUs 2-3,6-7)" in out
    assert "Core 0    [0, 4]        [2, 6]" in out            # cpu_layout.py's table
    assert "isolcpus   managed_irq,domain,2-3,6-7: CPUs 2-3,6-7" in out
    assert "isolated CPUs: 2-3,6-7; housekeeping CPUs: 0-1,4-5" in out
    assert "hugetlbfs on /dev/hugepages (pagesize 2M)" in out


def test_show_root_after_subcommand(two_socket):
    """--root is taken before or after the subcommand."""
    p = subprocess.run([sys.executable, str(TOOL), "show", "--json", "--root", str(two_socket)],
                       capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert p.returncode == 0, p.stderr
    assert len(json.loads(p.stdout)["cpus"]) == 8


def test_show_no_numa(no_numa):
    js = show_json(no_numa)
    assert js["nodes"] == {}
    assert all(c["node"] is None for c in js["cpus"])
    assert js["isolation"]["isolated"] == []
    assert any("no isolcpus" in n for n in js["notes"])
    p = run("show", root=no_numa)
    assert p.returncode == 0, p.stderr
    assert "NUMA nodes: no information" in p.stdout
    assert "no hugetlbfs mounted" in p.stdout and "none reserved" in p.stdout


@pytest.mark.parametrize("cmdline,isolated,first,expect", [
    ("isolcpus=2-3", "2-3", 0, ["nohz_full", "RCU callbacks"]),
    ("isolcpus=managed_irq,2-3", "", 0, ["no 'domain' flag"]),
    ("isolcpus=domain,1-3", "1-3", 1, ["every online CPU is isolated"]),
    ("nohz_full=1-3", "", 0, ["no isolcpus", "nohz_full but not isolated"]),
    ("isolcpus=2-5", "2-3", 0, ["not online"]),
    ("isolcpus=2-x", "", 0, ["isolcpus=2-x: invalid CPU list"]),
], ids=["no-nohz", "no-domain", "all-isolated", "nohz-only", "offline", "bad-list"])
def test_show_isolation_checks(tmp_path, cmdline, isolated, first, expect):
    """Incomplete isolation set-ups are reported, and show still exits 0 (CPUs
    first-3 online; the fake has no nohz_full file: the command line counts)."""
    topo = [(c, 0, c, str(c)) for c in range(first, 4)]
    root = make_tree(tmp_path / "r", topo, nodes={0: "%d-3" % first}, cmdline=cmdline,
                     isolated=isolated)
    notes = " | ".join(show_json(root)["notes"])
    for text in expect:
        assert text in notes


def test_show_real_machine():
    """This machine's own /sys and /proc."""
    p = run("show")
    assert p.returncode == 0, p.stderr
    assert "CPUs: " in p.stdout and "Hugepages" in p.stdout
    p = run("show", "--json")
    assert p.returncode == 0, p.stderr
    js = json.loads(p.stdout)
    assert {c["cpu"] for c in js["cpus"]} >= set(os.sched_getaffinity(0))


# ---------------------------------------------------------------- eal

@pytest.mark.parametrize("mode,workers,eal_args,roles", [
    ("inline", None, ["-l", "0", "--main-lcore", "0"], ["main"]),
    ("rtc", 2, ["-l", "0,2-3", "--main-lcore", "0"], ["main", "worker", "worker"]),
    # one per physical core first (2, 3), then the second threads (6, 7)
    ("rtc", 4, ["-l", "0,2-3,6-7", "--main-lcore", "0"], ["main"] + ["worker"] * 4),
    ("pipeline", 1, ["-l", "0,2-3,6", "--main-lcore", "0"], ["main", "rx", "tx", "completion"]),
    # 6 workers: the 4 isolated CPUs, then 1 and 5; 4 (the main lcore's sibling) unused
    ("pipeline", 2, ["-l", "0-3,5-7", "--main-lcore", "0"],
     ["main"] + ["rx", "tx", "completion"] * 2),
])
def test_eal_modes(two_socket, mode, workers, eal_args, roles):
    args = ["--mode", mode] + (["--workers", workers] if workers else [])
    plan = eal(two_socket, *args)
    assert plan["eal_args"] == eal_args
    assert [lc["role"] for lc in plan["lcores"]] == roles
    assert plan["lcores"][0]["cpu"] == 0 and not plan["lcores"][0]["isolated"]
    assert not plan["shared_cpus"] and plan["idle"] is None
    cpus = [lc["cpu"] for lc in plan["lcores"]]
    assert len(set(cpus)) == len(cpus)                      # one lcore per CPU
    if mode == "inline":
        assert plan["perf_args"] == []
    else:
        assert plan["perf_args"] == ["--mode", mode, "--workers", str(workers)]
    if mode == "pipeline":
        assert [lc["group"] for lc in plan["lcores"][1:]] == sorted(list(range(workers)) * 3)


def test_eal_text_output(two_socket):
    """stdout: the arguments alone (shell-quoted); the explanation on stderr."""
    p = run("eal", "--mode", "rtc", "--workers", 2, root=two_socket)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "-l 0,2-3 --main-lcore 0\n"
    assert "main lcore 0 on CPU 0 (not isolated" in p.stderr
    assert "worker lcore 2 on CPU 2 (isolated)" in p.stderr
    assert "-- TEST --mode rtc --workers 2" in p.stderr


def test_eal_oversubscribed(two_socket):
    """9 worker lcores, 7 CPUs besides the main lcore's: --lcores mapping,
    lcores numbered from 0, and --idle yield."""
    plan = eal(two_socket, "--mode", "pipeline", "--workers", 3)
    assert plan["shared_cpus"] and plan["idle"] == "yield"
    assert plan["eal_args"] == ["--lcores", "0@0,(1-2)@2,(3-4)@3,5@6,6@7,7@1,8@5,9@4",
                                "--main-lcore", "0"]
    assert plan["perf_args"] == ["--mode", "pipeline", "--workers", "3", "--idle", "yield"]
    assert [lc["lcore"] for lc in plan["lcores"]] == list(range(10))
    p = run("eal", "--mode", "pipeline", "--workers", 3, root=two_socket)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "--lcores '0@0,(1-2)@2,(3-4)@3,5@6,6@7,7@1,8@5,9@4' --main-lcore 0\n"
    assert "--idle yield" in p.stderr


@pytest.mark.parametrize("mode,workers,lcores", [
    ("rtc", 1, None),
    ("rtc", 3, "0@0,(1-3)@1"),
    ("pipeline", 1, "0@0,(1-3)@1"),
    ("pipeline", 2, "0@0,(1-6)@1"),
])
def test_eal_two_cpus(two_cpus, mode, workers, lcores):
    plan = eal(two_cpus, "--mode", mode, "--workers", workers)
    if lcores is None:
        assert plan["eal_args"] == ["-l", "0-1", "--main-lcore", "0"]
        assert not plan["shared_cpus"]
    else:
        assert plan["eal_args"] == ["--lcores", lcores, "--main-lcore", "0"]
        assert plan["shared_cpus"] and "--idle" in plan["perf_args"]
        assert any("--idle yield" in n for n in plan["notes"])


def test_eal_one_cpu(tmp_path):
    """Nothing besides the main lcore's CPU: every lcore shares it."""
    root = make_tree(tmp_path / "one", [(0, 0, 0, "0")], nodes={0: "0"})
    plan = eal(root, "--mode", "rtc", "--workers", 2)
    assert plan["eal_args"] == ["--lcores", "(0-2)@0", "--main-lcore", "0"]
    assert plan["idle"] == "yield"


def test_eal_main_core_and_cpus(two_socket):
    plan = eal(two_socket, "--mode", "rtc", "--workers", 2, "--main-core", 1)
    assert plan["eal_args"] == ["-l", "1-3", "--main-lcore", "1"]
    plan = eal(two_socket, "--mode", "rtc", "--workers", 2, "--main-core", 2)
    assert plan["main_cpu"] == 2 and plan["eal_args"] == ["-l", "2-3,7", "--main-lcore", "2"]
    assert any("isolated CPU 2: start the process under taskset -c 0-1,4-5" in n
               for n in plan["notes"])
    plan = eal(two_socket, "--mode", "rtc", "--workers", 1, "--cpus", "5-7")
    assert plan["eal_args"] == ["-l", "5-6", "--main-lcore", "5"]


def test_eal_inline_on_isolated(two_socket):
    """Inline mode on an isolated CPU: the main lcore is the data path; EAL's
    control threads go to the housekeeping CPUs of the starting affinity."""
    plan = eal(two_socket, "--mode", "inline", "--main-core", 3)
    assert plan["eal_args"] == ["-l", "3", "--main-lcore", "3"]
    assert plan["control_cpus"] == [0, 1, 4, 5]
    p = run("eal", "--mode", "inline", "--main-core", 3, root=two_socket)
    assert p.returncode == 0 and p.stdout == "-l 3 --main-lcore 3\n"
    assert "taskset -c 0-1,4-5" in p.stderr
    plan = eal(two_socket, "--mode", "inline")
    assert plan["eal_args"] == ["-l", "0", "--main-lcore", "0"]
    assert plan["control_cpus"] == [1, 4, 5] and plan["notes"] == []


def test_eal_no_numa(no_numa):
    """No NUMA information and nothing isolated: main lcore on CPU 0, workers on the rest."""
    plan = eal(no_numa, "--mode", "rtc", "--workers", 3)
    assert plan["eal_args"] == ["-l", "0-3", "--main-lcore", "0"]


# ---------------------------------------------------------------- the command line

@pytest.mark.parametrize("args,text", [
    ([], "required"),
    (["bogus"], "invalid choice"),
    (["eal"], "--mode"),
    (["eal", "--mode", "turbo", "--workers", "1"], "invalid choice"),
    (["eal", "--mode", "rtc"], "needs --workers"),
    (["eal", "--mode", "rtc", "--workers", "0"], "needs --workers"),
    (["eal", "--mode", "pipeline", "--workers", "x"], "invalid int"),
    (["eal", "--mode", "inline", "--workers", "2"], "no worker lcores"),
    (["eal", "--mode", "rtc", "--workers", "1", "--cpus", "1-x"], "invalid CPU list"),
    (["eal", "--mode", "rtc", "--workers", "200"], "at most 128"),
    (["hugepages"], "nothing to do"),
    (["hugepages", "--reserve", "12Q"], "invalid size"),
    (["hugepages", "--reserve", "1G", "--pagesize", "huge"], "invalid size"),
    (["hugepages", "--node", "0", "--mount"], "--node goes with --reserve"),
    (["hugepages", "--reserve"], "expected one argument"),
    (["show", "--bogus"], "unrecognized"),
], ids=lambda v: "_".join(v) if isinstance(v, list) else None)
def test_bad_command_line(two_socket, args, text):
    p = run(*args, root=two_socket)
    assert p.returncode == 2, p.stdout + p.stderr
    assert text in p.stderr
    assert p.stdout == ""


def test_root_not_a_directory(tmp_path):
    p = run("show", root=tmp_path / "missing")
    assert p.returncode == 2 and "not a directory" in p.stderr


@pytest.mark.parametrize("args,text", [
    (["eal", "--mode", "rtc", "--workers", "1", "--main-core", "9"], "not an online CPU"),
    (["eal", "--mode", "rtc", "--workers", "1", "--cpus", "6-9"], "not online"),
    (["hugepages", "--reserve", "1G", "--pagesize", "16M"], "no 16M pages"),
    (["hugepages", "--reserve", "1G", "--node", "5"], "no NUMA node 5 (nodes: 0,1)"),
    (["hugepages", "--unmount", "/mnt/none"], "no hugetlbfs is mounted on /mnt/none"),
])
def test_machine_refuses(two_socket, args, text):
    """Valid command lines this machine cannot satisfy: exit 1."""
    p = run(*args, root=two_socket)
    assert p.returncode == 1, p.stdout + p.stderr
    assert text in p.stderr


# ---------------------------------------------------------------- hugepages

def nr(root, size=HUGE_2M, node=None):
    if node is None:
        return (root / "sys/kernel/mm/hugepages" / size / "nr_hugepages").read_text().strip()
    return (root / ("sys/devices/system/node/node%d/hugepages" % node) / size
            / "nr_hugepages").read_text().strip()


def test_hugepages_reserve(two_socket):
    p = run("hugepages", "--reserve", "1G", root=two_socket)       # default size: 2M
    assert p.returncode == 0, p.stderr
    assert nr(two_socket) == "512"
    assert "reserved 512 2M pages (1G)" in p.stdout
    p = run("hugepages", "--reserve", "3M", "--node", 1, root=two_socket)
    assert p.returncode == 0, p.stderr
    assert nr(two_socket, node=1) == "2" and "on node 1" in p.stdout   # rounded up
    p = run("hugepages", "--reserve", "2G", "--pagesize", "1G", root=two_socket)
    assert p.returncode == 0, p.stderr
    assert nr(two_socket, HUGE_1G) == "2"


def test_hugepages_clear(two_socket):
    for rel in ("sys/kernel/mm/hugepages/%s/nr_hugepages" % HUGE_2M,
                "sys/devices/system/node/node1/hugepages/%s/nr_hugepages" % HUGE_1G):
        (two_socket / rel).write_text("8\n")
    p = run("hugepages", "--clear", root=two_socket)
    assert p.returncode == 0, p.stderr
    assert nr(two_socket) == "0" and nr(two_socket, HUGE_1G, node=1) == "0"


def test_hugepages_dry_run(two_socket):
    p = run("hugepages", "--reserve", "64M", "--node", 0, "--dry-run", root=two_socket)
    assert p.returncode == 0, p.stderr
    assert nr(two_socket, node=0) == "0"
    assert "would write 32 to %s" % (two_socket / "sys/devices/system/node/node0/hugepages"
                                      / HUGE_2M / "nr_hugepages") in p.stdout


def test_hugepages_mount_fake_root(two_socket):
    """A fake tree cannot be mounted on: the commands are printed, not run."""
    p = run("hugepages", "--mount", "/mnt/huge1g", "--pagesize", "1G", root=two_socket)
    assert p.returncode == 0, p.stderr
    assert "would run: mount -t hugetlbfs -o pagesize=1G nodev /mnt/huge1g" in p.stdout
    p = run("hugepages", "--mount", root=two_socket)
    assert p.returncode == 0 and "already mounted on /dev/hugepages" in p.stdout
    p = run("hugepages", "--unmount", root=two_socket)
    assert p.returncode == 0 and "would run: umount /dev/hugepages" in p.stdout


def test_hugepages_no_numa_node(no_numa):
    p = run("hugepages", "--reserve", "1G", "--node", 0, root=no_numa)
    assert p.returncode == 1
    assert "no NUMA information" in p.stderr


def fifo_kernel(path, gives):
    """nr_hugepages as a FIFO played by a thread, like the kernel when memory
    is short: it takes the number the tool writes, then answers the tool's
    read-back with `gives`. Returns the thread and the list of writes."""
    path.unlink()
    os.mkfifo(path)
    writes = []

    def play():
        with open(path) as f:             # blocks until the tool opens to write
            writes.append(f.read())
        with open(path, "w") as f:        # blocks until the tool opens to read back
            f.write("%d\n" % gives)

    t = threading.Thread(target=play, daemon=True)
    t.start()
    return t, writes


def release_fifo(path, thread):
    """Unblock the thread if the tool did not play its part."""
    for _ in range(10):
        if not thread.is_alive():
            return
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        os.close(fd)
        thread.join(0.2)


def test_hugepages_kernel_gives_fewer(two_socket):
    path = two_socket / "sys/kernel/mm/hugepages" / HUGE_2M / "nr_hugepages"
    thread, writes = fifo_kernel(path, gives=200)
    try:
        p = run("hugepages", "--reserve", "1G", root=two_socket)
    finally:
        release_fifo(path, thread)
    assert writes == ["512\n"]
    assert p.returncode == 1, p.stdout + p.stderr
    assert "asked for 512 2M pages, the kernel gave 200 (400M of 1G)" in p.stderr
    assert "reserved" not in p.stdout


def test_hugepages_kernel_gives_fewer_on_node(two_socket):
    path = (two_socket / "sys/devices/system/node/node1/hugepages" / HUGE_1G / "nr_hugepages")
    thread, writes = fifo_kernel(path, gives=0)
    try:
        p = run("hugepages", "--reserve", "4G", "--pagesize", "1G", "--node", 1,
                root=two_socket)
    finally:
        release_fifo(path, thread)
    assert writes == ["4\n"]
    assert p.returncode == 1, p.stdout + p.stderr
    assert "asked for 4 1G pages on node 1, the kernel gave 0" in p.stderr
