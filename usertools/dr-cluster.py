#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""A cluster on one machine: N network namespaces, each a "host" with a
veth into a switch (a bridge in namespace <prefix>sw, which the root
namespace reaches through a veth, drbr0 for prefix dr-), a kernel address of its
own (for launchers, out-of-band TCP) and a RoCEv2 address for dpdk-rdma on
the same veth; commands run in each, cleaned up by PID.

  usertools/dr-cluster.py up 4                   # dr-h1..dr-h4, switch dr-sw
  usertools/dr-cluster.py --ranks 2 up 4         # and 2 rank ports per host (macvlans)
  usertools/dr-cluster.py run 2 -- CMD ARGS...   # up, CMD in every host at once, down
  usertools/dr-cluster.py agent HOST CMD...      # run CMD in HOST with its DR_* environment
                                                 # (an rsh agent for mpirun)
  usertools/dr-cluster.py down

Host i (1-based) is namespace <prefix>hI with veth <prefix>vI (its kernel
address 10.<net>.0.I/24, the root namespace's 10.<net>.0.254) and RoCEv2 address
10.<net>.1.I. A command in host I runs in its network namespace and in a
UTS namespace whose hostname is the host's name. `run` gives each command
its host in the environment:
DR_HOST, DR_HOST_INDEX, DR_HOSTS (all, comma separated), DR_IFACE,
DR_KERNEL_IP, DR_ROCE_IP, DR_CPU (i - 1 modulo the CPUs: a process per
CPU), DR_MTU (every link's, --mtu). Exit status: 0 every command ended 0, 1 one did not (or timed out),
2 a bad command line. See doc/guides/libfabric.rst.

Several ranks per host (--ranks R): each host's veth carries R macvlans
<prefix>vIrK (K = 0..R-1, bridge mode: each its own MAC, the kernel hands
it only its frames and broadcasts, siblings reach each other), the port of
the host's K-th local rank with RoCEv2 address 10.<net>.(1+K).I, as a VF
per rank would on a real NIC. The environment then also lists them, in
local-rank order: DR_RANK_IFACES, DR_RANK_ROCE_IPS, DR_RANK_CPUS (with one
rank: the veth, DR_ROCE_IP, DR_CPU). Rank K of host I gets CPU K * N + I - 1
modulo the CPUs: neighbours in a --map-by node placement run apart."""

import argparse
import os
import signal
import subprocess
import sys
import time

PROG = "dr-cluster"
MAX_HOSTS = 16
MAX_RANKS = 8


class Cluster:
    def __init__(self, n, prefix="dr-", net=55, ranks=1, mtu=1500):
        self.n, self.prefix, self.net, self.ranks, self.mtu = n, prefix, net, ranks, mtu
        self.bridge = prefix.replace("-", "") + "br0"

    def host(self, i):
        return "%sh%d" % (self.prefix, i)

    def iface(self, i):
        return "%sv%d" % (self.prefix.replace("-", ""), i)

    def kernel_ip(self, i):
        return "10.%d.0.%d" % (self.net, i)

    def roce_ip(self, i):
        return "10.%d.1.%d" % (self.net, i)

    def rank_iface(self, i, k):
        return self.iface(i) if self.ranks == 1 else "%sr%d" % (self.iface(i), k)

    def rank_roce_ip(self, i, k):
        return "10.%d.%d.%d" % (self.net, 1 + k, i)

    def env(self, i):
        cpus = sorted(os.sched_getaffinity(0))
        # the global rank's CPU when ranks are placed host by host in turn (mpirun --map-by node)
        rank_cpus = [cpus[(k * self.n + i - 1) % len(cpus)] for k in range(self.ranks)]
        return {"DR_HOST": self.host(i), "DR_HOST_INDEX": str(i),
                "DR_HOSTS": ",".join(self.host(k) for k in range(1, self.n + 1)),
                "DR_IFACE": self.iface(i), "DR_KERNEL_IP": self.kernel_ip(i), "DR_ROCE_IP": self.roce_ip(i),
                "DR_CPU": str(rank_cpus[0]),
                "DR_RANK_IFACES": ",".join(self.rank_iface(i, k) for k in range(self.ranks)),
                "DR_RANK_ROCE_IPS": ",".join(self.rank_roce_ip(i, k) for k in range(self.ranks)),
                "DR_RANK_CPUS": ",".join(map(str, rank_cpus)), "DR_MTU": str(self.mtu)}

    def switch(self):
        return self.prefix + "sw"

    def up(self):
        self.down()                    # a killed run's leftovers
        # the switch: a bridge in a namespace of its own, where the kernel's bridge
        # netfilter (br_netfilter, if loaded) does not pass every frame through
        # iptables as it does in the root namespace; the root reaches the hosts
        # through a veth into it (the address launchers and out-of-band TCP use)
        sw = self.switch()
        ip("netns", "add", sw)
        for table in ("iptables", "ip6tables", "arptables"):
            sh(["ip", "netns", "exec", sw, "sysctl", "-qw", "net.bridge.bridge-nf-call-%s=0" % table], check=False)
        ip("link", "add", "br0", "type", "bridge", ns=sw)
        ip("link", "set", "br0", "up", ns=sw)
        self.plug(self.bridge)
        ip("addr", "add", "10.%d.0.254/24" % self.net, "dev", self.bridge)
        ip("link", "set", self.bridge, "up")
        for i in range(1, self.n + 1):
            ns, v, peer = self.host(i), self.iface(i), self.iface(i) + "b"
            ip("netns", "add", ns)
            self.plug(v)
            ip("link", "set", v, "netns", ns)
            for iface in ("all", "default", v, "lo"):
                sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % iface],
                   check=False)
            ip("addr", "add", self.kernel_ip(i) + "/24", "dev", v, ns=ns)
            ip("link", "set", v, "up", ns=ns)
            ip("link", "set", "lo", "up", ns=ns)
            for k in range(self.ranks if self.ranks > 1 else 0):
                m = self.rank_iface(i, k)
                # its ifindex far from its siblings': DPDK 22.11's net_af_packet names its
                # PACKET_FANOUT group pid ^ ifindex (16 bits, one space per namespace), and
                # two ranks whose pid ^ ifindex meet on different interfaces fail (EINVAL)
                ip("link", "add", "link", v, "name", m, "index", str((k + 1) << 12 | i), "mtu", str(self.mtu),
                   "type", "macvlan", "mode", "bridge", ns=ns)
                sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % m],
                   check=False)
                ip("link", "set", m, "up", ns=ns)
        return self

    def plug(self, v):
        """A veth v (in the root namespace) whose other end, v + "b", is a port of the switch."""
        ip("link", "add", v, "mtu", str(self.mtu), "type", "veth", "peer", "name", v + "b", "mtu", str(self.mtu))
        ip("link", "set", v + "b", "netns", self.switch())
        ip("link", "set", v + "b", "master", "br0", ns=self.switch())
        ip("link", "set", v + "b", "up", ns=self.switch())

    def down(self):
        for i in range(1, MAX_HOSTS + 1):
            sh(["ip", "netns", "del", self.host(i)], check=False)       # takes its veth end along
        sh(["ip", "netns", "del", self.switch()], check=False)          # the bridge and its ports
        sh(["ip", "link", "del", self.bridge], check=False)

    def run(self, cmd, timeout):
        """cmd in every host at once: their exit statuses (None: killed at the timeout)."""
        procs = []
        for i in range(1, self.n + 1):
            env = dict(os.environ, **self.env(i))
            procs.append(subprocess.Popen(enter(self.host(i)) + cmd, env=env,
                                          start_new_session=True))
        end = time.monotonic() + timeout
        rcs = []
        for p in procs:
            try:
                rcs.append(p.wait(timeout=max(0.1, end - time.monotonic())))
            except subprocess.TimeoutExpired:
                rcs.append(None)
        for p in procs:                # by PID: the whole session of each
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        return rcs


def enter(host):
    """The command prefix that runs in HOST: its network namespace, and a UTS
    namespace of its own whose hostname is HOST (Open MPI names a node, and
    its session directory, by gethostname(): one machine's daemons would all
    be "the same node" otherwise)."""
    return ["ip", "netns", "exec", host, "unshare", "--uts", "--", "sh", "-c", 'hostname "$0" && exec "$@"', host]


def sh(cmd, check=True):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr.strip()))
    return r


def ip(*args, ns=None):
    return sh(["ip"] + (["-n", ns] if ns else []) + list(args))


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prefix", default="dr-", help="namespace / interface prefix (dr-)")
    ap.add_argument("--net", type=int, default=55, help="second octet of the addresses (55: 10.55.x.y)")
    ap.add_argument("--ranks", type=int, default=1, help="rank ports (macvlans) per host (1: the veth itself)")
    ap.add_argument("--mtu", type=int, default=1500, help="every link's MTU (1500); in DR_MTU")
    sub = ap.add_subparsers(dest="op", required=True)
    p = sub.add_parser("up", help="create N hosts")
    p.add_argument("hosts", type=int)
    sub.add_parser("down", help="remove every host and the switch")
    p = sub.add_parser("run", help="up, CMD in every host at once, down")
    p.add_argument("hosts", type=int)
    p.add_argument("--timeout", type=float, default=600, help="seconds before the commands are killed (600)")
    p = sub.add_parser("agent", help="run CMD in HOST: an rsh agent (mpirun --mca plm_rsh_agent)")
    p.add_argument("host")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    run_cmd = []
    if argv[:1] != ["agent"] and "agent" not in argv[:3] and "--" in argv:
        k = argv.index("--")
        argv, run_cmd = argv[:k], argv[k + 1:]
    a = ap.parse_args(argv)
    if not (1 <= a.net <= 254):
        ap.error("--net: 1 to 254")
    if not (1 <= a.ranks <= MAX_RANKS):
        ap.error("--ranks: 1 to %d" % MAX_RANKS)
    if not (1280 <= a.mtu <= 9000):
        ap.error("--mtu: 1280 to 9000")        # IPv6's least (the hosts may turn it on) to jumbo
    if a.op == "agent":
        if not a.cmd:
            ap.error("agent: no command")
        # ssh's form: the command is one string for the remote shell; a host of
        # this cluster gets its DR_* environment, as `run` gives it
        c = Cluster(MAX_HOSTS, a.prefix, a.net, a.ranks, a.mtu)
        env = dict(os.environ)
        for i in range(1, MAX_HOSTS + 1):
            if a.host == c.host(i):
                env.update(c.env(i))
        os.execvpe("ip", enter(a.host) + ["sh", "-c", " ".join(a.cmd)], env)
    if a.op in ("up", "run") and not (1 <= a.hosts <= MAX_HOSTS):
        ap.error("hosts: 1 to %d" % MAX_HOSTS)
    cmd = run_cmd
    if a.op == "run" and not cmd:
        ap.error("run: no command (after --)")
    c = Cluster(getattr(a, "hosts", MAX_HOSTS), a.prefix, a.net, a.ranks, a.mtu)
    try:
        if a.op == "down":
            c.down()
            return 0
        c.up()
        if a.op == "up":
            for i in range(1, c.n + 1):
                print("%s %s %s roce %s" % (c.host(i), c.iface(i), c.kernel_ip(i),
                                            " ".join("%s=%s" % (c.rank_iface(i, k), c.rank_roce_ip(i, k))
                                                     for k in range(c.ranks))))
            return 0
        try:
            rcs = c.run(cmd, a.timeout)
        finally:
            c.down()
    except RuntimeError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        c.down()
        return 1
    for i, rc in enumerate(rcs, 1):
        if rc != 0:
            print("%s: %s: %s" % (PROG, c.host(i), "killed at the timeout" if rc is None else "exit %d" % rc),
                  file=sys.stderr)
    return 0 if all(rc == 0 for rc in rcs) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
