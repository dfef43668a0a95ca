# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-faultlink between two dpdk-rdma-perf endpoints.

    with FaultLink(("memif", "af_xdp"), ["--both", "loss 5% reorder 2%"]) as fl:
        res = fl.run_perf(["write_bw", "-s", "4096", "--check"])
    fl.counters["a->b"]["lost"]

The endpoints' data link is the fault link's: a memif side is a memif
client of the fault link's memif server socket, an af_xdp side a veth whose
other end the fault link drives with net_af_xdp from a namespace of its
own. With an af_xdp side the endpoints run in two network namespaces joined
by a control veth (the OOB TCP exchange: an AF_XDP port takes every frame
of its queue); memif to memif, they stay here and meet on loopback. The perf server is on side a, the client on side b: "a->b" is
client-bound traffic at the server's sending. The fault link starts first
and says it forwards before an endpoint starts (a memif client that comes
before its server is never connected in DPDK 22.11), and stops last, after
both endpoints are gone; its counters are parsed from its exit lines.
Everything is killed by PID and every namespace and socket removed."""

import os
import re
import time

from . import netns, pair

READY = re.compile(rb"dpdk-rdma-faultlink: forwarding")
# the two-port wire's "a->b" and "b->a"; a switch's "port2", "egress2+3" and "switch"
COUNTERS = re.compile(r"^(a->b|b->a|port\d+|egress[\d+]+|switch)((?: [a-z_0-9]+=\d+)+)$", re.M)
KINDS = ("memif", "af_xdp")
MEMIF_BSIZE = pair.MEMIF_BSIZE


def exe_path():
    return pair.build_dir() / "app" / "dpdk-rdma-faultlink" / "dpdk-rdma-faultlink"


def parse_counters(text):
    """{"a->b": {"rx": N, ...}, "b->a": {...}} from the fault link's exit lines
    (a switch's: {"port2": ..., "egress2+3": ..., "switch": ...})."""
    out = {}
    for m in COUNTERS.finditer(text):
        out[m.group(1)] = {k: int(v) for k, v in (kv.split("=") for kv in m.group(2).split())}
    return out


def conserved(c):
    """Every frame received or duplicated was lost, tail-dropped, too big,
    sent or left at exit: nothing vanished inside the fault link."""
    return c["rx"] + c["duplicated"] == (c["lost"] + c["queue_drop"] + c["too_big"] + c["tx"] +
                                         c["left"])


def floating_lcore(cpus=None):
    """The fault link's lcore: free to run on either CPU of a pair (EAL
    --lcores 0@(C0,C1)); with --idle-us it sleeps when it has nothing to do."""
    server, client = pair.default_lcores(cpus)
    cpu = lambda spec: spec.split("@")[-1]
    return "0@(%s,%s)" % (cpu(server), cpu(client)) if server != client else server


class FaultLink:
    """kinds: the (a, b) port kinds, "memif" or "af_xdp"; args: the fault
    link's own options (--both SPEC, --seed N, ...)."""

    def __init__(self, kinds=("memif", "memif"), args=(), tag=None, idle_us=20, mtu=1500,
                 lcores=None, exe=None, start_timeout=30):
        for k in kinds:
            if k not in KINDS:
                raise ValueError("unknown fault link port kind %r" % k)
        self.kinds = tuple(kinds)
        self.args = [str(a) for a in args]
        self.tag = str(tag if tag is not None else "%d%d" % (os.getpid() % 100000,
                                                            time.monotonic_ns() % 10000))[-9:]
        self.idle_us = idle_us
        self.mtu = mtu
        self.lcores = lcores if lcores is not None else floating_lcore()
        self.exe = exe or exe_path()
        self.start_timeout = start_timeout
        self.net = netns.VethNetns(tag="f" + self.tag[-8:], mtu=mtu, data=False)
        self.ns_fl = "dr-fl-" + self.tag
        self.socks = ["/tmp/dr-fl-%s-%s.sock" % (self.tag, s) for s in "ab"]
        self.fl_ifs = ["drfl%s%s" % (s, self.tag[-8:]) for s in "ab"]   # the fault link's veth ends
        self.side = None
        self.counters = None
        self.stdout = self.stderr = ""

    # -- topology
    def _netns_needed(self):
        return "af_xdp" in self.kinds

    def _make_links(self):
        if not self._netns_needed():
            return
        self.net.create()
        netns._ip("netns", "del", self.ns_fl, check=False)
        netns._ip("netns", "add", self.ns_fl)
        netns._in_ns(self.ns_fl, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", check=False)
        for i, kind in enumerate(self.kinds):
            if kind != "af_xdp":
                continue
            ns, ep_if = (self.net.ns_a, self.net.if_a) if i == 0 else (self.net.ns_b, self.net.if_b)
            netns._ip("link", "add", ep_if, "type", "veth", "peer", "name", self.fl_ifs[i])
            netns._ip("link", "set", ep_if, "netns", ns)
            netns._ip("link", "set", self.fl_ifs[i], "netns", self.ns_fl)
            for n, iface in ((ns, ep_if), (self.ns_fl, self.fl_ifs[i])):
                netns._in_ns(n, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % iface,
                             check=False)
                netns._ip("link", "set", iface, "mtu", str(self.mtu), ns=n)
                netns._ip("link", "set", iface, "up", ns=n)

    def _unlink_socks(self):
        for s in self.socks:
            try:
                os.unlink(s)
            except FileNotFoundError:
                pass

    def _fl_vdevs(self):
        vdevs = []
        for i, kind in enumerate(self.kinds):
            if kind == "memif":
                vdevs.append("--vdev=net_memif%d,role=server,socket=%s,socket-abstract=no,"
                             "bsize=%d" % (i, self.socks[i], MEMIF_BSIZE))
            else:
                vdevs.append("--vdev=net_af_xdp%d,iface=%s,start_queue=0,queue_count=1" %
                             (i, self.fl_ifs[i]))
        return vdevs

    def endpoint_eal(self, side, prefix, lcores=None):
        """EAL arguments of the endpoint on side "a" or "b"."""
        i = "ab".index(side)
        if self.kinds[i] == "memif":
            return pair.eal_common(prefix, lcores=lcores) + [
                "--vdev=net_memif0,role=client,socket=%s,socket-abstract=no,bsize=%d" %
                (self.socks[i], MEMIF_BSIZE)]
        iface = self.net.if_a if i == 0 else self.net.if_b
        return pair.eal_common(prefix, lcores=lcores) + [
            "--vdev=net_af_xdp0,iface=%s,start_queue=0,queue_count=1" % iface]

    # -- the fault link process
    def start(self):
        self._unlink_socks()
        self._make_links()
        prefix = "drfl_" + self.tag
        cmd = ["ip", "netns", "exec", self.ns_fl] if self._netns_needed() else []
        cmd += [str(self.exe)] + pair.eal_common(prefix, lcores=self.lcores) + self._fl_vdevs()
        cmd += ["--", "--idle-us", str(self.idle_us)] + self.args
        self.side = pair.Side("faultlink", cmd, prefixes=[prefix], lcores=str(self.lcores))
        self.side.start()
        end = time.monotonic() + self.start_timeout
        while time.monotonic() < end and self.side.proc.poll() is None:
            if READY.search(self.side.printed()):
                return self
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("the fault link did not start:\n" + self.side.describe())

    def stop(self):
        """SIGTERM (it prints its counters and exits), SIGKILL if it does not;
        then the namespaces and sockets go. Returns the counters."""
        s = self.side
        if s is not None and s.proc is not None and s.rc is None:
            pair.terminate(s.proc, grace=10)
            s.collect()
            self.stdout, self.stderr = s.stdout, s.stderr
            self.counters = parse_counters(s.stdout)
        if self._netns_needed():
            self.net.destroy()
            netns._ip("netns", "del", self.ns_fl, check=False)
        self._unlink_socks()
        return self.counters

    def describe(self):
        return self.side.describe() if self.side else "faultlink: not started"

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- endpoints
    def run_perf(self, perf_args, exe=None, timeout=120, server_args=(), client_args=(),
                 mode="inline", workers=1):
        """One dpdk-rdma-perf pair through the fault link: server on side a,
        client on side b, in engine `mode` (pair.engine()). A PairResult."""
        exe = exe or pair.perf_exe()
        extra, srv_lcores, cli_lcores = pair.engine(mode, workers)
        port = pair.free_tcp_port()
        tag = "%s_%d" % (self.tag, time.monotonic_ns() % 100000)
        prefixes = ("drfs_" + tag, "drfc_" + tag)
        args = list(map(str, perf_args)) + extra
        ns = self._netns_needed()
        server = pair.Side("server", pair.perf_cmd(
            exe, self.endpoint_eal("a", prefixes[0], srv_lcores), args + list(server_args),
            pair.SERVER_IP, port, netns=self.net.ns_a if ns else None,
            oob_bind=netns.CTL_A if ns else None),
            prefixes=[prefixes[0]], lcores=str(srv_lcores))
        client = pair.Side("client", pair.perf_cmd(
            exe, self.endpoint_eal("b", prefixes[1], cli_lcores), args + list(client_args),
            pair.CLIENT_IP, port, server_addr=netns.CTL_A if ns else "127.0.0.1",
            netns=self.net.ns_b if ns else None),
            prefixes=[prefixes[1]], lcores=str(cli_lcores))
        return pair.run_pair(server, client, timeout)
