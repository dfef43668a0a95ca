# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The libfabric provider dpdk_rdma (drivers/libfabric) under Debian's
unmodified libfabric 1.17 and its tools (libfabric-bin):

- fi_info lists the provider, and ofi_rxm layered on it (FI_EP_RDM);
  without an address it offers nothing and says why;
- fi_pingpong between two network namespaces joined by a veth (each side's
  port a net_af_packet of its veth end, its own CPU; fi_pingpong's own
  out-of-band TCP on a second veth with kernel addresses): -e msg (our RC
  endpoints through the connection manager) and -e rdm (ofi_rxm over
  them), every size, data checked (-c), inline mode; and rtc mode (a
  worker lcore, FI_PROGRESS_AUTO).
"""

import os
import re
import shutil
import subprocess
import time

import pytest

from perfutil import netns, pair

IP_A, IP_B = "10.88.0.1", "10.88.0.2"     # our ports' RoCEv2 addresses (GID index 1)
TIMEOUT = 120
ROW = re.compile(r"^(\d+[kmg]?)\s+(\d+)\s+=(\d+)\s", re.M)

pytestmark = pytest.mark.skipif(shutil.which("fi_pingpong") is None, reason="libfabric-bin not installed")


def provider_dir():
    build = os.environ.get("DR_BUILD_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "build")
    d = os.path.join(build, "drivers", "libfabric")
    if not os.path.exists(os.path.join(d, "libdpdk_rdma-fi.so")):
        pytest.fail("%s/libdpdk_rdma-fi.so is not built (libfabric-dev missing?)" % d)
    return os.path.abspath(d)


def fi_env(ip=None, eal=None, mode=None):
    env = dict(os.environ, FI_PROVIDER_PATH=provider_dir(), FI_PROVIDER="dpdk_rdma,ofi_rxm")
    for k, v in (("FI_DPDK_RDMA_IP", ip), ("FI_DPDK_RDMA_EAL", eal), ("FI_DPDK_RDMA_MODE", mode)):
        if v is not None:
            env[k] = v
        else:
            env.pop(k, None)
    return env


def test_fi_info_lists_provider():
    out = subprocess.run(["fi_info", "-p", "dpdk_rdma"], env=fi_env(ip=IP_A), capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "provider: dpdk_rdma\n" in out.stdout and "FI_EP_MSG" in out.stdout, out.stdout
    assert "FI_PROTO_RDMA_CM_IB_RC" in out.stdout and "domain: dpdk_rdma0" in out.stdout, out.stdout
    # the whole fi_info, as an application sees it
    verbose = subprocess.run(["fi_info", "-v", "-p", "dpdk_rdma", "-t", "FI_EP_MSG"], env=fi_env(ip=IP_A),
                             capture_output=True, text=True, timeout=30)
    assert "fi_sockaddr_in://%s:0" % IP_A in verbose.stdout, verbose.stdout
    assert "FI_MR_LOCAL" in verbose.stdout and "FI_PROGRESS_MANUAL" in verbose.stdout, verbose.stdout
    rxm = subprocess.run(["fi_info", "-p", "dpdk_rdma;ofi_rxm"], env=fi_env(ip=IP_A), capture_output=True,
                         text=True, timeout=30)
    assert rxm.returncode == 0 and "provider: dpdk_rdma;ofi_rxm" in rxm.stdout, rxm.stdout + rxm.stderr
    assert "FI_EP_RDM" in rxm.stdout and "FI_PROTO_RXM" in rxm.stdout, rxm.stdout


def test_fi_info_without_address():
    """No FI_DPDK_RDMA_IP: no fabric to offer; FI_LOG_LEVEL=info says why."""
    env = fi_env()
    env["FI_LOG_LEVEL"] = "info"
    out = subprocess.run(["fi_info", "-p", "dpdk_rdma"], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "provider: dpdk_rdma" not in out.stdout, out.stdout
    assert "FI_DPDK_RDMA_IP (or _IPV6) not set" in out.stderr, out.stderr
    env = fi_env(ip="10.88.0")
    env["FI_LOG_LEVEL"] = "warn"
    out = subprocess.run(["fi_info", "-p", "dpdk_rdma"], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "FI_DPDK_RDMA_IP=10.88.0: not an IPv4 address" in out.stderr, out.stderr
    for param, value, says in (("FI_DPDK_RDMA_MODE", "pipe", "one of inline, rtc, pipeline"),
                               ("FI_DPDK_RDMA_IDLE", "nap", "one of spin, pause, yield, sleep"),
                               ("FI_DPDK_RDMA_STATS", "2", "0 or 1"),
                               ("FI_DPDK_RDMA_ACK_TIMEOUT", "32", "0 to 31"),
                               ("FI_DPDK_RDMA_MTU", "100", "576 to 9000 bytes"),
                               ("FI_DPDK_RDMA_MTU", "9001", "576 to 9000 bytes")):
        env = fi_env(ip=IP_A)
        env.update({"FI_LOG_LEVEL": "warn", param: value})
        out = subprocess.run(["fi_info", "-p", "dpdk_rdma"], env=env, capture_output=True, text=True, timeout=30)
        assert out.returncode != 0 and "%s=%s: %s" % (param, value, says) in out.stderr, out.stderr


def side(net, name, ns, iface, ip, cpu, mode, args, tag):
    prefix = "drfi%s_%s" % (name[0], tag)
    eal = " ".join(pair.afpacket_cpu_eal(iface, prefix, cpu, engine=mode == "rtc"))
    env = fi_env(ip=ip, eal=eal, mode=mode)
    env["FI_DPDK_RDMA_STATS"] = "1"     # the counters to stderr at close (drfi_stats.c)
    if mode == "rtc":
        env.update(FI_DPDK_RDMA_WORKERS="1", FI_DPDK_RDMA_IDLE="yield")
    cmd = ["ip", "netns", "exec", ns, "fi_pingpong", "-p", "dpdk_rdma"] + args
    s = pair.Side(name, cmd, prefixes=[prefix])
    return s, env


def pingpong(ep, mode, sizes, iters):
    """fi_pingpong server in namespace a, client in b: (server, client) Sides."""
    cpus = sorted(os.sched_getaffinity(0))
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000)
    args = ["-e", ep, "-I", str(iters), "-S", sizes, "-c"]
    with netns.VethNetns(tag=tag[-6:]) as net:
        s, senv = side(net, "server", net.ns_a, net.if_a, IP_A, cpus[0], mode, args, tag)
        c, cenv = side(net, "client", net.ns_b, net.if_b, IP_B, cpus[-1], mode, args + [netns.CTL_A], tag)
        try:
            s.start(env=senv)
            time.sleep(1.0)             # its out-of-band socket listens (the client retries a while anyway)
            c.start(env=cenv)
            end = time.monotonic() + TIMEOUT
            while time.monotonic() < end and (c.proc.poll() is None or s.proc.poll() is None):
                time.sleep(0.05)
        finally:
            for x in (s, c):
                x.kill()
            for x in (s, c):
                x.collect()
    return s, c


CASES = [("msg", None, "all"), ("rdm", None, "all"), ("msg", "rtc", "4096"), ("rdm", "rtc", "65536")]


@pytest.mark.parametrize("ep,mode,sizes", CASES, ids=["%s-%s-%s" % (e, m or "inline", s) for e, m, s in CASES])
def test_fi_pingpong(ep, mode, sizes):
    """Unmodified fi_pingpong both sides over dpdk_rdma: every row of both
    sides complete (sent = acknowledged), the data checked (-c)."""
    iters = 10
    s, c = pingpong(ep, mode, sizes, iters)
    assert (s.rc, c.rc) == (0, 0), s.describe() + c.describe()
    for x in (s, c):
        rows = ROW.findall(x.stdout)
        assert rows and all(int(sent) == iters and int(acked) == iters for _, sent, acked in rows), x.describe()
    for x in (s, c):
        # FI_DPDK_RDMA_STATS=1: each side's context and QP counters at close
        ctx = re.search(r"dpdk_rdma stats pid \d+: context: rx_pkts (\d+) tx_pkts (\d+) .* stalls (\d+) "
                        r"stall_us \d+ max_gap_us \d+ idle_naps \d+ port_imissed (\d+)", x.stderr)
        qps = re.search(r"dpdk_rdma stats pid \d+: qps: closed (\d+) retries (\d+) .* max_ack_timeout_us (\d+)",
                        x.stderr)
        assert ctx and qps, x.describe()
        assert int(ctx.group(1)) > 0 and int(ctx.group(2)) > 0 and int(qps.group(1)) >= 1, x.describe()
        # ... and where its start-up went: EAL, the port, the connection (made or accepted)
        st = re.search(r"dpdk_rdma stats pid \d+: start-up: eal_ms ([\d.]+) port_ms ([\d.]+) connects (\d+) "
                       r".* accepts (\d+) ", x.stderr)
        assert st and float(st.group(1)) > 0 and float(st.group(2)) > 0, x.describe()
        assert int(st.group(3)) + int(st.group(4)) >= 1, x.describe()
    if sizes == "all":
        # 1 B goes by fi_inject (below inject_size), 6 MiB spans thousands of MTU-sized packets
        assert {"1", "64", "6m"} <= {size for size, _, _ in ROW.findall(c.stdout)}, c.describe()



@pytest.mark.parametrize("ep", ["msg"])
def test_peer_killed_mid_run(ep):
    """The server killed (SIGKILL) in the middle of a long run: a killed
    DPDK process sends no DREQ. Whether the client has a send outstanding
    (its RC QP gives up after its retries: retry_cnt 7, the CM's ACK timeout
    19, 8 tries of 2.1 s) or only waits for the dead peer's message
    (nothing outstanding: the keepalive, FI_DPDK_RDMA_KEEPALIVE's default
    2 s, fails the QP after 3 unanswered probes, 8 s), the error reaches
    fi_pingpong and it exits with an error within a bound: no hang, no
    crash. Not -e rdm yet: the QP fails the same way under ofi_rxm, but
    rxm does not fail the application's posted receives when one of its
    connections breaks, so a client that only waits still waits
    (libfabric.rst, "Faults")."""
    cpus = sorted(os.sched_getaffinity(0))
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000)
    args = ["-e", ep, "-I", "10000000", "-S", "1024"]
    with netns.VethNetns(tag=tag[-6:]) as net:
        s, senv = side(net, "server", net.ns_a, net.if_a, IP_A, cpus[0], None, args, tag)
        c, cenv = side(net, "client", net.ns_b, net.if_b, IP_B, cpus[-1], None, args + [netns.CTL_A], tag)
        try:
            s.start(env=senv)
            time.sleep(1.0)
            c.start(env=cenv)
            time.sleep(3.0)             # well into the exchange
            assert c.proc.poll() is None and s.proc.poll() is None, s.describe() + c.describe()
            s.proc.kill()
            killed = time.monotonic()
            # the bound: the slower of the two ways, 17 s, and room for a loaded machine
            while c.proc.poll() is None and time.monotonic() < killed + 60:
                time.sleep(0.05)
            took = time.monotonic() - killed
        finally:
            for x in (s, c):
                x.kill()
            for x in (s, c):
                x.collect()
    assert c.rc not in (0, None) and c.rc > 0, c.describe()        # an error exit, not a signal
    assert took < 40, "the client took %.1f s to give up\n%s" % (took, c.describe())
    print("\n%s: the client gave up %.2f s after its peer was killed (exit %d)" % (ep, took, c.rc))
