# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Two network namespaces joined by veth pairs: a data link for the DPDK
ports (net_af_xdp or net_af_packet on its ends, IPv6 off so the kernel
sends nothing on it, optional netem) and a control link for the OOB TCP
exchange (an AF_XDP port takes every frame of its queue: TCP cannot share
it). Needs root and iproute2."""

import json
import os
import subprocess
import time

from . import pair

CTL_A = "198.51.100.1"        # TEST-NET-2 (RFC 5737)
CTL_B = "198.51.100.2"


def _ip(*args, ns=None, check=True):
    cmd = ["ip"] + (["-n", ns] if ns else []) + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=30)


def _in_ns(ns, *cmd, check=True):
    return subprocess.run(["ip", "netns", "exec", ns] + list(cmd), capture_output=True,
                          text=True, check=check, timeout=30)


class VethNetns:
    """ns_a/ns_b with data veth if_a <-> if_b and control veth ctl_a <-> ctl_b
    (data=False: the control veth only, the data link is someone else's,
    e.g. a fault link's, FaultLink in faultlink.py)."""

    def __init__(self, tag=None, mtu=1500, data=True):
        tag = str(tag if tag is not None else os.getpid())[-9:]
        self.ns_a, self.ns_b = "dr-a-" + tag, "dr-b-" + tag
        self.if_a, self.if_b = "dra" + tag, "drb" + tag
        self.ctl_a, self.ctl_b = "drca" + tag, "drcb" + tag
        self.mtu = mtu
        self.data = data
        self.created = False

    def create(self):
        self.destroy()                         # leftovers of a killed run
        self.created = True
        _ip("netns", "add", self.ns_a)
        _ip("netns", "add", self.ns_b)
        links = ((self.if_a, self.if_b),) if self.data else ()
        for a, b in links + ((self.ctl_a, self.ctl_b),):
            _ip("link", "add", a, "type", "veth", "peer", "name", b)
            _ip("link", "set", a, "netns", self.ns_a)
            _ip("link", "set", b, "netns", self.ns_b)
        for ns, data, ctl, addr in ((self.ns_a, self.if_a, self.ctl_a, CTL_A),
                                    (self.ns_b, self.if_b, self.ctl_b, CTL_B)):
            for iface in (data, ctl, "lo"):
                _in_ns(ns, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % iface,
                       check=False)
            if self.data:
                _ip("link", "set", data, "mtu", str(self.mtu), ns=ns)
                _ip("link", "set", data, "up", ns=ns)
            _ip("addr", "add", addr + "/24", "dev", ctl, ns=ns)
            _ip("link", "set", ctl, "up", ns=ns)
            _ip("link", "set", "lo", "up", ns=ns)
        return self

    def netem(self, spec, side="a"):
        """tc qdisc add dev <data veth of side> root netem <spec...>"""
        ns, iface = (self.ns_a, self.if_a) if side == "a" else (self.ns_b, self.if_b)
        _in_ns(ns, "tc", "qdisc", "replace", "dev", iface, "root", "netem", *spec.split())

    def tx_stats(self, side="a"):
        """The data veth end of `side`'s transmit counters ("packets", "bytes", ...: ip -s -j)."""
        ns, iface = (self.ns_a, self.if_a) if side == "a" else (self.ns_b, self.if_b)
        out = subprocess.run(["ip", "-n", ns, "-s", "-j", "link", "show", "dev", iface],
                             capture_output=True, text=True, check=True, timeout=30).stdout
        return json.loads(out)[0]["stats64"]["tx"]

    def destroy(self):
        for ns in (self.ns_a, self.ns_b):
            _ip("netns", "del", ns, check=False)     # takes its veth ends along
        self.created = False

    def __enter__(self):
        return self.create()

    def __exit__(self, *exc):
        self.destroy()


def eal_for(kind, iface, prefix, extra=""):
    """EAL arguments of a DPDK port of `kind` ("af_xdp" or "af_packet") on iface."""
    if kind == "af_xdp":
        return pair.afxdp_eal(iface, prefix, extra)
    return pair.afpacket_eal(iface, prefix, extra)


def run_veth(net, kind, perf_args, exe=None, timeout=120, server_args=(), client_args=(),
             tag=None, vdev_extra=""):
    """One dpdk-rdma-perf pair over the data veth of `net` (a created
    VethNetns): server in ns_a, client in ns_b, OOB over the control veth.
    vdev_extra: more devargs for both ports (",xdp_prog=...")."""
    exe = exe or pair.perf_exe()
    tag = tag or "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000000)
    port = pair.free_tcp_port()
    prefixes = ("drxs_" + tag, "drxc_" + tag)
    server = pair.Side("server", pair.perf_cmd(
        exe, eal_for(kind, net.if_a, prefixes[0], vdev_extra), list(perf_args) + list(server_args),
        pair.SERVER_IP, port, netns=net.ns_a, oob_bind=CTL_A), prefixes=[prefixes[0]])
    client = pair.Side("client", pair.perf_cmd(
        exe, eal_for(kind, net.if_b, prefixes[1], vdev_extra), list(perf_args) + list(client_args),
        pair.CLIENT_IP, port, server_addr=CTL_A, netns=net.ns_b), prefixes=[prefixes[1]])
    return pair.run_pair(server, client, timeout)
