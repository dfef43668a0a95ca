# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-faultlink as a learning switch of memif ports, and
dpdk-rdma-perf pairs through it (doc/guides/faultlink.rst, "Switch mode").

    with Switch(4, ["--egress-group", "2,3", "rate 100mbit ecn kmin 30KB"]) as sw:
        results = sw.run_pairs([(2, 0), (3, 1)], ["write_bw", "-n", "50", "--check"])
    sw.counters["egress2+3"]["ecn_not_ect"], switch.conserved(sw.counters)

The switch is the memif server of one socket per port (port i is
net_memif<i>, DPDK port i); each endpoint is a memif client of its port's
socket with a MAC of its own (mac_of(port)), so the switch learns it from its
first frame, and its ARP requests are flooded to every other port. Pair j of
run_pairs() is a perf server on one port and its client on another, with
addresses of their own (192.0.2.(2j+1) and 192.0.2.(2j+2)) and their own OOB
TCP port on loopback; the pairs run at the same time. The switch starts
first and says it forwards before an endpoint starts (a memif client that
comes before its server is never connected in DPDK 22.11), and stops last;
its counters are parsed from its exit lines. Everything is killed by PID and
every socket removed."""

import os
import threading
import time

from . import faultlink, pair

READY = faultlink.READY
MAX_PORTS = 16


def mac_of(port, tag=0):
    """The endpoint MAC of switch port `port`: locally administered, unicast."""
    return "02:00:5f:%02x:00:%02x" % (tag & 0xFF, port)


def pair_ips(j):
    """(server, client) addresses of pair j (TEST-NET-1, RFC 5737)."""
    return "192.0.2.%d" % (2 * j + 1), "192.0.2.%d" % (2 * j + 2)


def conserved(c):
    """The switch's conservation: every frame received or copied by the
    switch was filtered or handed to an egress queue; each egress queue
    conserves what it was given as a direction does; what the egress queues
    sent is what the ports sent. `c` is Switch.counters."""
    sw = c["switch"]
    egress = {k: v for k, v in c.items() if k.startswith("egress")}
    ports = {k: v for k, v in c.items() if k.startswith("port")}
    return (sw["rx"] + sw["copies"] == sw["filtered"] + sw["enqueued"] and
            sw["rx"] == sum(p["rx"] for p in ports.values()) and
            sw["enqueued"] == sum(e["rx"] for e in egress.values()) and
            all(faultlink.conserved(e) for e in egress.values()) and
            sum(e["tx"] for e in egress.values()) == sum(p["tx"] for p in ports.values()))


def endpoint_lcores(cpus=None):
    """Every endpoint's lcores: a main and a worker lcore on the first CPU,
    yielding when idle (rtc mode); the switch polls on the last."""
    cpus = sorted(os.sched_getaffinity(0) if cpus is None else cpus)
    return "(0-1)@%d" % cpus[0], str(cpus[-1])


class Switch:
    """nports memif ports (2..16); args: the switch's options after
    --switch (--all SPEC, --egress PORT SPEC, --egress-group P,Q SPEC, ...)."""

    def __init__(self, nports, args=(), tag=None, idle_us=0, lcores=None, exe=None,
                 start_timeout=30, mem_mb=512, cpus=None):
        if not 2 <= nports <= MAX_PORTS:
            raise ValueError("a switch has 2 to %d ports" % MAX_PORTS)
        self.nports = nports
        self.args = [str(a) for a in args]
        self.tag = str(tag if tag is not None else "%d%d" % (os.getpid() % 100000,
                                                            time.monotonic_ns() % 10000))[-9:]
        self.idle_us = idle_us
        self.ep_lcores, sw_lcores = endpoint_lcores(cpus)
        self.lcores = lcores if lcores is not None else sw_lcores
        self.exe = exe or faultlink.exe_path()
        self.start_timeout = start_timeout
        self.mem_mb = mem_mb
        self.socks = ["/tmp/dr-sw-%s-%d.sock" % (self.tag, i) for i in range(nports)]
        self.side = None
        self.counters = None
        self.stdout = self.stderr = ""

    def _unlink_socks(self):
        for s in self.socks:
            try:
                os.unlink(s)
            except FileNotFoundError:
                pass

    def prefix(self):
        return "drsw_" + self.tag

    def start(self):
        self._unlink_socks()
        vdevs = ["--vdev=net_memif%d,role=server,socket=%s,socket-abstract=no,bsize=%d" %
                 (i, s, pair.MEMIF_BSIZE) for i, s in enumerate(self.socks)]
        cmd = [str(self.exe)] + pair.eal_common(self.prefix(), mem_mb=self.mem_mb,
                                                lcores=self.lcores) + vdevs
        cmd += ["--", "--switch", "--idle-us", str(self.idle_us)] + self.args
        self.side = pair.Side("switch", cmd, prefixes=[self.prefix()], lcores=str(self.lcores))
        self.side.start()
        end = time.monotonic() + self.start_timeout
        while time.monotonic() < end and self.side.proc.poll() is None:
            if READY.search(self.side.printed()):
                return self
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("the switch did not start:\n" + self.side.describe())

    def stop(self):
        """SIGTERM (it prints its counters and exits), SIGKILL if it does not;
        then the sockets go. Returns the counters."""
        s = self.side
        if s is not None and s.proc is not None and s.rc is None:
            pair.terminate(s.proc, grace=10)
            s.collect()
            self.stdout, self.stderr = s.stdout, s.stderr
            self.counters = faultlink.parse_counters(s.stdout)
        self._unlink_socks()
        return self.counters

    def describe(self):
        return self.side.describe() if self.side else "switch: not started"

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- endpoints
    def endpoint_eal(self, port, prefix, lcores=None, mem_mb=256):
        """EAL arguments of the endpoint on switch port `port`."""
        return pair.eal_common(prefix, mem_mb=mem_mb, lcores=lcores or self.ep_lcores) + [
            "--vdev=net_memif0,role=client,socket=%s,socket-abstract=no,bsize=%d,mac=%s" %
            (self.socks[port], pair.MEMIF_BSIZE, mac_of(port, int(self.tag[-2:])))]

    def pair_sides(self, j, server_port, client_port, perf_args, exe=None, server_args=(),
                   client_args=()):
        """The (server, client) Sides of pair j, not started."""
        exe = exe or pair.perf_exe()
        tcp = pair.free_tcp_port()
        sip, cip = pair_ips(j)
        tag = "%s_%d_%d" % (self.tag, j, time.monotonic_ns() % 10000)
        prefixes = ("drsws_" + tag, "drswc_" + tag)
        engine = ["--mode", "rtc", "--workers", "1", "--idle", "yield"]
        args = [str(a) for a in perf_args] + engine
        server = pair.Side("server%d" % j, pair.perf_cmd(
            exe, self.endpoint_eal(server_port, prefixes[0]), args + list(server_args), sip, tcp),
            prefixes=[prefixes[0]], lcores=self.ep_lcores)
        client = pair.Side("client%d" % j, pair.perf_cmd(
            exe, self.endpoint_eal(client_port, prefixes[1]), args + list(client_args), cip, tcp,
            server_addr="127.0.0.1"), prefixes=[prefixes[1]], lcores=self.ep_lcores)
        return server, client

    def run_pairs(self, pairs, perf_args, exe=None, timeout=120, server_args=(), client_args=()):
        """Run dpdk-rdma-perf pairs through the switch at the same time:
        pairs is [(server_port, client_port), ...]. A PairResult each."""
        results = [None] * len(pairs)

        def one(j, srv_port, cli_port):
            server, client = self.pair_sides(j, srv_port, cli_port, perf_args, exe, server_args,
                                              client_args)
            results[j] = pair.run_pair(server, client, timeout)

        threads = [threading.Thread(target=one, args=(j, s, c)) for j, (s, c) in enumerate(pairs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout + pair.GRACE_S + 30)
        return results
