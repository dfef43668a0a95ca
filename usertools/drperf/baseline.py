# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The raw link of dpdk-rdma-perf checked against programs that are not
ours, on the same link (net_memif) and CPUs, in the same run:

* frame rate: raw_bw's receiver against dpdk-testpmd's, testpmd
  --forward-mode=txonly sending frames of the same length to testpmd
  --forward-mode=rxonly (its Rx-pps, per second, after the first);
* half round trip: raw_lat against test/bench/bench_link, a minimal DPDK
  client whose frames dpdk-testpmd --forward-mode=macswap sends back.

Frames are those of a one-packet message of --raw-like write (Ethernet,
IPv4, UDP, BTH, RETH, payload, ICRC) at path MTU 4096. Each process is bounded by a deadline
and stopped by its PID (pair.terminate()); testpmd prints its statistics on
SIGINT."""

import os
import re
import shutil
import signal
import statistics
import subprocess
import time

from . import pair, table

# Ethernet, IPv4, UDP, BTH, RETH before a WRITE ONLY's payload; the ICRC after
WRITE_ONLY_OVERHEAD = 14 + 20 + 8 + 12 + 16 + 4
TESTPMD = "dpdk-testpmd"
RX_PPS = re.compile(r"Rx-pps:\s+(\d+)")
LINK_LAT = re.compile(r"half_rtt_median_us ([\d.]+)")


def write_frame_len(size):
    """The length of the frame that carries a WRITE ONLY of `size` bytes (padded to 4)."""
    return WRITE_ONLY_OVERHEAD + size + (-size) % 4


def testpmd_cmd(role, sock, prefix, cpu, bsize, args):
    """dpdk-testpmd on a memif endpoint: its main lcore and one forwarding
    lcore both on CPU `cpu` (the main one sleeps between its statistics)."""
    eal = pair.memif_eal(role, sock, prefix, bsize, lcores="(0-1)@%d" % cpu)
    return [TESTPMD] + eal + ["--", "--nb-cores=1", "--total-num-mbufs=8192",
                              "--mbuf-size=%d" % max(2176, bsize + 128)] + list(args)


def _cleanup(sock, prefixes):
    for p in prefixes:
        for d in pair.dpdk_runtime_dirs(p):
            shutil.rmtree(d, ignore_errors=True)
    try:
        os.unlink(sock)
    except FileNotFoundError:
        pass


def _tag(what):
    return "%s%d_%d" % (what, os.getpid(), time.monotonic_ns() % 1000000000)


# how long a testpmd may take to come up: seconds of a busy machine, where
# EAL's start waits for a CPU
START_BOUND = 60
# what testpmd prints once its port is started (a memif server's socket
# then answers: a client that connects before is refused for good, pair.run_pair())
TESTPMD_READY = re.compile(rb"start packet forwarding")


def _start(name, cmd):
    """testpmd started, its output to files (pair.Side)."""
    side = pair.Side(name, cmd)
    side.start()
    return side


def _stop(side, grace):
    """SIGINT (testpmd prints its totals and closes its ports), then the rest
    of terminate(); everything it printed."""
    pair.terminate(side.proc, grace=grace, sig=signal.SIGINT)
    side.collect()
    return side.stdout + side.stderr


def _ready(side, what):
    """Wait for testpmd `side` to start forwarding, or raise with what it
    printed (it exited, or did not start within START_BOUND seconds)."""
    if side.wait_ready(START_BOUND, TESTPMD_READY):
        return
    state = "exited %d" % side.proc.returncode if side.proc.poll() is not None else \
        "not forwarding after %d s" % START_BOUND
    err = os.pread(side.err.fileno(), 1 << 20, 0) if side.err else b""
    raise RuntimeError("%s %s:\n%s%s" % (what, state, side.printed().decode(errors="replace")[-3000:],
                                         err.decode(errors="replace")[-3000:]))


def testpmd_rate(frame, seconds, cpus, bsize=pair.MEMIF_BSIZE):
    """Frames a second testpmd rxonly receives from testpmd txonly over memif
    (the median of its per-second Rx-pps after the first second it counted
    any), or raises with what they printed. The seconds are counted from the
    first frame: a machine that is doing other work may take a while to
    start the two and connect them (up to START_BOUND)."""
    tag = _tag("bl")
    sock = "/tmp/dr-memif-%s.sock" % tag
    prefixes = ("drbrx_" + tag, "drbtx_" + tag)
    rx = tx = None
    try:
        rx = _start("testpmd rxonly", testpmd_cmd("server", sock, prefixes[0], cpus[0], bsize,
                                                  ["--forward-mode=rxonly", "--stats-period=1"]))
        _ready(rx, "testpmd rxonly")
        tx = _start("testpmd txonly", testpmd_cmd("client", sock, prefixes[1], cpus[1 % len(cpus)], bsize,
                                                  ["--forward-mode=txonly", "--txpkts=%d" % frame,
                                                   "--stats-period=1"]))
        end = time.monotonic() + START_BOUND + seconds
        while time.monotonic() < end and rx.proc.poll() is None and tx.proc.poll() is None:
            if len([x for x in RX_PPS.findall(rx.printed().decode(errors="replace")) if int(x) > 0]) > seconds:
                break
            time.sleep(0.2)
    finally:
        out_tx = _stop(tx, 5) if tx else ""
        out_rx = _stop(rx, 5) if rx else ""
        _cleanup(sock, prefixes)
    pps = [int(x) for x in RX_PPS.findall(out_rx)]
    pps = [x for x in pps if x > 0][1:]          # the first second: the link coming up
    if not pps:
        raise RuntimeError("testpmd rxonly counted nothing:\n%s\n--- txonly\n%s" % (out_rx[-3000:],
                                                                                    out_tx[-3000:]))
    return statistics.median(pps)


def link_lat(exe, frame, iters, cpus, bsize=pair.MEMIF_BSIZE):
    """bench_link's median half round trip (µs) of `frame`-byte frames against
    testpmd macswap over memif, or raises with what they printed."""
    tag = _tag("bl")
    sock = "/tmp/dr-memif-%s.sock" % tag
    prefixes = ("drbms_" + tag, "drblc_" + tag)
    echo = None
    try:
        echo = _start("testpmd macswap", testpmd_cmd("server", sock, prefixes[0], cpus[0], bsize,
                                                     ["--forward-mode=macswap", "--stats-period=5"]))
        _ready(echo, "testpmd macswap")
        cli = subprocess.run([str(exe)] + pair.memif_eal("client", sock, prefixes[1], bsize,
                                                         lcores=str(cpus[1 % len(cpus)]))
                             + ["--", "--size", str(frame), "--iters", str(iters)],
                             capture_output=True, text=True, timeout=120)
    finally:
        out_echo = _stop(echo, 5) if echo else ""
        _cleanup(sock, prefixes)
    m = LINK_LAT.search(cli.stdout)
    if cli.returncode != 0 or not m:
        raise RuntimeError("bench_link failed (%d):\n%s%s\n--- testpmd macswap\n%s" % (
            cli.returncode, cli.stdout, cli.stderr[-3000:], out_echo[-3000:]))
    return float(m.group(1))


# a one-frame message of up to 4096 bytes: path MTU 4096 (rxe's rule: link MTU 4200)
MTU_ARGS = ["-m", "4096", "--link-mtu", "4200"]


def raw_rate(perf, size, seconds, cpus):
    """raw_bw's message rate (frames a second at the receiver: one frame a message)."""
    res = pair.run_memif(["raw_bw", "--raw-like", "write", "-s", str(size), "-D", str(seconds)] + MTU_ARGS,
                         exe=perf, server_lcores=str(cpus[0]), client_lcores=str(cpus[1 % len(cpus)]))
    if not res.ok:
        raise RuntimeError("raw_bw failed:\n" + res.describe())
    rows = table.rows(res.client.stdout)
    return rows[0]["msg_rate"] * 1e6


def raw_lat(perf, size, iters, cpus):
    """raw_lat's typical half round trip (µs)."""
    res = pair.run_memif(["raw_lat", "--raw-like", "write", "-s", str(size), "-n", str(iters)] + MTU_ARGS,
                         exe=perf, server_lcores=str(cpus[0]), client_lcores=str(cpus[1 % len(cpus)]))
    if not res.ok:
        raise RuntimeError("raw_lat failed:\n" + res.describe())
    return table.rows(res.client.stdout)[0]["t_typical"]
