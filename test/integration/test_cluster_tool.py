# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""usertools/dr-cluster.py: N namespace hosts on a bridge, a command in each.

- each host's command sees its own namespace, address and environment, and
  nothing is left after the run;
- a command past --timeout is killed by PID, the run fails and still cleans up;
- --ranks 2: a macvlan per rank on each host's veth, the environment lists
  each rank's port, address and CPU;
- a bad command line exits 2;
- two hosts carry RoCEv2 between each other through the bridge: fi_pingpong
  over the dpdk_rdma provider (-e rdm, ofi_rxm over our RC endpoints), each
  host's port a net_af_packet of its veth, its RoCEv2 address beside the
  kernel's on the same veth, fi_pingpong's own TCP to the kernel address.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "usertools" / "dr-cluster.py"
PREFIX = "drt%d-" % (os.getpid() % 1000)     # this run's names, apart from any other
NET = 66


def cluster(*args, timeout=120):
    cmd = [sys.executable, str(TOOL), "--prefix", PREFIX, "--net", str(NET)] + list(map(str, args))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def leftovers():
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return [x for x in ns.split() if x.startswith(PREFIX)] + \
        [x for x in re.findall(r"^\d+: ([^:@]+)", links, re.M) if x.startswith(PREFIX.replace("-", ""))]


@pytest.fixture(autouse=True)
def clean():
    yield
    cluster("down")
    assert leftovers() == []


def test_each_host_its_own():
    r = cluster("run", 3, "--", "sh", "-c",
                'echo "$DR_HOST $DR_HOST_INDEX $DR_KERNEL_IP $DR_ROCE_IP $DR_HOSTS"; '
                'ip -4 -o addr show dev "$DR_IFACE"; ip netns identify $$; echo "name $(hostname)"')
    assert r.returncode == 0, r.stdout + r.stderr
    hosts = ",".join("%sh%d" % (PREFIX, i) for i in (1, 2, 3))
    for i in (1, 2, 3):
        host = "%sh%d" % (PREFIX, i)
        assert "%s %d 10.%d.0.%d 10.%d.1.%d %s\n" % (host, i, NET, i, NET, i, hosts) in r.stdout, r.stdout
        assert "inet 10.%d.0.%d/24" % (NET, i) in r.stdout, r.stdout
        assert "\n%s\n" % host in "\n" + r.stdout, r.stdout
        assert "name %s\n" % host in r.stdout, r.stdout          # its own hostname (UTS namespace)
    assert leftovers() == []


def test_ranks_per_host():
    """--ranks 2: two macvlans per host on its veth, each its own MAC, their
    ifindexes far apart; the environment lists each rank's port, RoCEv2
    address and CPU; the agent gives a host the same lists."""
    r = cluster("--ranks", 2, "run", 2, "--", "sh", "-c",
                'echo "$DR_HOST $DR_RANK_IFACES $DR_RANK_ROCE_IPS $DR_RANK_CPUS"; ip -o link show')
    assert r.returncode == 0, r.stdout + r.stderr
    cpus = sorted(os.sched_getaffinity(0))
    macs = set()
    for i in (1, 2):
        v = "%sv%d" % (PREFIX.replace("-", ""), i)
        cpu = [cpus[(k * 2 + i - 1) % len(cpus)] for k in (0, 1)]
        assert "%sh%d %sr0,%sr1 10.%d.1.%d,10.%d.2.%d %d,%d\n" % (PREFIX, i, v, v, NET, i, NET, i, cpu[0], cpu[1]) \
            in r.stdout, r.stdout
        for k in (0, 1):
            m = re.search(r"^(\d+): %sr%d@%s: .*link/ether ([0-9a-f:]+)" % (v, k, v), r.stdout, re.M)
            assert m and int(m.group(1)) == (k + 1) << 12 | i, r.stdout
            macs.add(m.group(2))
    assert len(macs) == 4, r.stdout
    assert leftovers() == []
    assert cluster("--ranks", 2, "up", 2).returncode == 0
    a = subprocess.run([sys.executable, str(TOOL), "--prefix", PREFIX, "--net", str(NET), "--ranks", "2", "agent",
                        "%sh2" % PREFIX, "echo $DR_RANK_ROCE_IPS"], capture_output=True, text=True, timeout=30)
    assert a.returncode == 0 and a.stdout == "10.%d.1.2,10.%d.2.2\n" % (NET, NET), a.stdout + a.stderr


def test_switch_and_mtu():
    """--mtu: every link of the cluster (hosts' veths and macvlans, the
    switch's ports) has it, and a host's DR_MTU says it; the switch is a
    bridge in a namespace of its own whose bridge netfilter is off (frames
    between hosts pass no iptables; the launchers of test_mpi.py reach the
    hosts through it)."""
    assert cluster("--ranks", 2, "--mtu", 3000, "up", 2).returncode == 0
    sw = PREFIX + "sw"
    links = subprocess.run(["ip", "-n", sw, "-o", "link"], capture_output=True, text=True).stdout
    ports = re.findall(r"^\d+: ([^:@]+)@?[^:]*: .* mtu (\d+) .*master br0", links, re.M)
    assert sorted(p for p, _ in ports) == sorted("%s%s" % (PREFIX.replace("-", ""), x)
                                                 for x in ("br0b", "v1b", "v2b")), links
    assert {m for _, m in ports} == {"3000"}, links
    nf = subprocess.run(["ip", "netns", "exec", sw, "sysctl", "-n", "net.bridge.bridge-nf-call-iptables"],
                        capture_output=True, text=True)
    assert nf.returncode != 0 or nf.stdout.strip() == "0", nf.stdout   # no br_netfilter, or off
    a = subprocess.run([sys.executable, str(TOOL), "--prefix", PREFIX, "--net", str(NET), "--ranks", "2", "--mtu",
                        "3000", "agent", "%sh1" % PREFIX, "echo $DR_MTU; ip -o link show"], capture_output=True, text=True, timeout=30)
    assert a.returncode == 0 and a.stdout.startswith("3000\n"), a.stdout + a.stderr
    mtus = re.findall(r"^\d+: %sv1(?:r\d)?[@:].* mtu (\d+)" % PREFIX.replace("-", ""), a.stdout, re.M)
    assert mtus == ["3000"] * 3, a.stdout


def test_timeout_kills_and_cleans():
    r = cluster("run", 2, "--timeout", 1, "--", "sleep", 60, timeout=30)
    assert r.returncode == 1 and "killed at the timeout" in r.stderr, r.stdout + r.stderr
    assert leftovers() == []


@pytest.mark.parametrize("args,says", [(["run", 0, "--", "true"], "hosts: 1 to 16"),
                                       (["run", 2], "no command"),
                                       (["--net", 300, "up", 2], "--net"),
                                       (["--ranks", 9, "up", 2], "--ranks: 1 to 8"),
                                       (["--mtu", 100, "up", 2], "--mtu: 1280 to 9000"),
                                       (["bogus"], "invalid choice")])
def test_bad_command_lines(args, says):
    r = cluster(*args)
    assert r.returncode == 2 and says in r.stderr, r.stderr


@pytest.mark.skipif(shutil.which("fi_pingpong") is None, reason="libfabric-bin not installed")
def test_roce_between_hosts():
    build = os.environ.get("DR_BUILD_DIR") or str(REPO / "build")
    prov = os.path.join(build, "drivers", "libfabric")
    if not os.path.exists(os.path.join(prov, "libdpdk_rdma-fi.so")):
        pytest.fail("the libfabric provider is not built")
    script = (
        'export FI_PROVIDER_PATH=%s FI_PROVIDER=dpdk_rdma,ofi_rxm FI_DPDK_RDMA_IP=$DR_ROCE_IP '
        'FI_DPDK_RDMA_EAL="-l $DR_CPU --no-huge -m 256 --no-pci --file-prefix=$DR_HOST '
        '--vdev net_af_packet0,iface=$DR_IFACE"; '
        'if [ "$DR_HOST_INDEX" = 1 ]; then exec fi_pingpong -p dpdk_rdma -e rdm -I 20 -S 4096 -c; '
        'else sleep 1; exec fi_pingpong -p dpdk_rdma -e rdm -I 20 -S 4096 -c 10.%d.0.1; fi' % (prov, NET))
    r = cluster("run", 2, "--timeout", 60, "--", "sh", "-c", script)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = re.findall(r"^4k\s+20\s+=20\s", r.stdout, re.M)
    assert len(rows) == 2, r.stdout      # both sides' rows
