# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Run a dpdk-rdma-perf server and client as two processes and collect both.

Over memif each side gets its own CPU (EAL -l) unless told otherwise: EAL's
default puts both main lcores on the same CPU, and two busy-polling
processes sharing it run several times slower.

Every process is bounded by a deadline and killed by its PID (SIGTERM, then
SIGKILL) when it outlives it; the EAL runtime directories of the
--file-prefix used are removed afterwards."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SERVER_IP = "192.0.2.1"      # TEST-NET-1 (RFC 5737): never routed
CLIENT_IP = "192.0.2.2"
MEMIF_BSIZE = 10240          # memif buffer: one 9000-byte frame, headers included
EAL_MEM_MB = 512
GRACE_S = 15                 # how long the other side may take once one has failed
RTE_MAX_LCORE = 128          # Debian's DPDK 22.11: a CPU at or above needs --lcores
# what a server prints once its port is started and it waits for its client
# (dpdk-rdma-perf, perftest's banner; dpdk-rdma-opgen)
SERVER_READY = re.compile(rb"Waiting for client to connect|server listening on tcp port")
READY_WAIT_S = 30            # longest wait for that line before the client starts anyway


def build_dir():
    return Path(os.environ.get("DR_BUILD_DIR", REPO / "build"))


def perf_exe():
    return build_dir() / "app" / "dpdk-rdma-perf" / "dpdk-rdma-perf"


def free_tcp_port(host="127.0.0.1"):
    """A TCP port nobody listens on right now (for the OOB exchange)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def dpdk_runtime_dirs(prefix):
    """Where EAL keeps the runtime files of --file-prefix=prefix."""
    dirs = [Path("/var/run/dpdk") / prefix]
    if "XDG_RUNTIME_DIR" in os.environ:
        dirs.append(Path(os.environ["XDG_RUNTIME_DIR"]) / "dpdk" / prefix)
    dirs.append(Path("/tmp/dpdk") / prefix)
    return dirs


def lcore_args(lcores):
    """EAL's option for an lcore spec: "-l LIST" for a CPU list ("1", "2-3"),
    "--lcores SPEC" for a mapping ("0@1", "(0-2)@1"); none for None."""
    if lcores is None:
        return []
    lcores = str(lcores)
    return ["--lcores" if "@" in lcores or "(" in lcores else "-l", lcores]


def describe_lcores(lcores):
    """"CPU 1 (EAL -l 1)" for an lcore spec: where that side runs."""
    if lcores is None:
        return "EAL's default CPU"
    opt, spec = lcore_args(lcores)
    cpus = spec if opt == "-l" else ",".join(
        a or b for a, b in re.findall(r"@(?:\(([0-9,-]+)\)|(\d+))", spec))
    return "CPU %s (EAL %s %s)" % (cpus, opt, spec)


def default_lcores(cpus=None):
    """The lcore specs of a pair's server and client: two different CPUs of
    `cpus` (default: this process's affinity), the first two. Without -l EAL
    puts every process's main lcore on the first CPU of its affinity, and two
    busy-polling processes on one CPU run several times slower. With one CPU
    both get it, and a warning on stderr."""
    cpus = sorted(os.sched_getaffinity(0) if cpus is None else cpus)
    specs = ["%d" % c if c < RTE_MAX_LCORE else "0@%d" % c for c in cpus[:2]]
    if len(specs) == 1:
        print("drperf: warning: only CPU %d is available: server and client share it "
              "and run much slower" % cpus[0], file=sys.stderr)
        specs.append(specs[0])
    return specs[0], specs[1]


def engine(mode, workers=1, queues=None, cpus=None):
    """How to run both sides of a pair in an engine mode: (perf args,
    server lcores, client lcores). inline: no args, each side on its own CPU
    (default_lcores()). rtc: each side's main lcore and its `workers` worker
    lcores mapped onto that side's CPU (--lcores '(0-W)@C'), the workers
    yielding when idle (they share the CPU with the main lcore); pipeline: the
    same with `workers` groups of 3 lcores (rx, tx, completion); `queues`
    port queue pairs (memif pairs queues one to one: give both sides the same)."""
    server_cpu, client_cpu = default_lcores(cpus)
    if mode == "inline":
        return [], server_cpu, client_cpu
    if mode not in ("rtc", "pipeline"):
        raise ValueError("unknown engine mode %r" % mode)
    lcores = workers * (3 if mode == "pipeline" else 1)

    def mapping(spec):
        cpu = spec.split("@")[-1]
        return "(0-%d)@%s" % (lcores, cpu)
    args = ["--mode", mode, "--workers", str(workers), "--idle", "yield"]
    if queues:
        args += ["--queues", str(queues)]
    return args, mapping(server_cpu), mapping(client_cpu)


def eal_common(prefix, mem_mb=EAL_MEM_MB, lcores=None, huge=False):
    """EAL's arguments: mem_mb of the process's own pages (--no-huge), or
    with huge, hugepages as EAL needs them (--huge-unlink: nothing is left
    in hugetlbfs when a process is killed; huge a path: that hugetlbfs
    mount, --huge-dir)."""
    mem = ["--no-huge", "-m", str(mem_mb)]
    if huge:
        mem = ["--huge-unlink"] + (["--huge-dir", huge] if isinstance(huge, str) else [])
    return mem + ["--no-pci", "--file-prefix=" + prefix] + lcore_args(lcores)


def hugepages_free():
    """(free pages, page size in kB) of the default hugepage size (/proc/meminfo);
    no pages when no hugetlbfs is mounted (EAL could not use them)."""
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, _, v = line.partition(":")
            info[k] = v.split()
    with open("/proc/mounts") as f:
        mounted = any(line.split()[2] == "hugetlbfs" for line in f if len(line.split()) > 2)
    free = int(info.get("HugePages_Free", ["0"])[0]) if mounted else 0
    return free, int(info.get("Hugepagesize", ["0"])[0])


def memif_eal(role, sock, prefix, bsize=MEMIF_BSIZE, lcores=None, huge=False):
    """EAL arguments of one memif endpoint (role "server" or "client"); lcores:
    an lcore_args() spec, or None for EAL's default; huge: hugepage memory."""
    vdev = "net_memif0,role=%s,socket=%s,socket-abstract=no,bsize=%d" % (role, sock, bsize)
    return eal_common(prefix, lcores=lcores, huge=huge) + ["--vdev=" + vdev]


def afxdp_eal(iface, prefix, extra=""):
    """EAL arguments of a net_af_xdp port on iface (extra: more devargs, ",k=v")."""
    return eal_common(prefix) + [
        "--vdev=net_af_xdp0,iface=%s,start_queue=0,queue_count=1%s" % (iface, extra)]


def afpacket_eal(iface, prefix, extra=""):
    """EAL arguments of a net_af_packet port on iface."""
    return eal_common(prefix) + ["--vdev=net_af_packet0,iface=%s,qpairs=1%s" % (iface, extra)]


def afpacket_cpu_eal(iface, prefix, cpu, engine=False):
    """afpacket_eal() placed on CPU `cpu`: one lcore (-l), or with `engine`
    the main lcore and one worker both on it (--lcores '(0-1)@cpu'), for a
    side whose engine lcores yield when idle."""
    lcores = ["--lcores", "(0-1)@%d" % cpu] if engine else ["-l", str(cpu)]
    return afpacket_eal(iface, prefix) + lcores


def terminate(proc, grace=10, sig=signal.SIGTERM, kill_wait=5):
    """Stop `proc` by its PID: `sig` (SIGTERM, or SIGINT for a program that
    prints its totals on it), SIGKILL if it is still there `grace` seconds
    later. Returns its exit status (None if even SIGKILL did not end it
    within `kill_wait` seconds)."""
    for s, wait in ((sig, grace), (signal.SIGKILL, kill_wait)):
        if proc.poll() is not None:
            break
        try:
            os.kill(proc.pid, s)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            pass
    return proc.poll()


@dataclass
class Side:
    """One process of the pair, and what became of it."""
    name: str
    cmd: list
    proc: subprocess.Popen = None
    out: object = None
    err: object = None
    rc: int = None
    timed_out: bool = False
    stdout: str = ""
    stderr: str = ""
    prefixes: list = field(default_factory=list)
    lcores: str = None           # the lcore spec given to EAL, None for EAL's default

    def start(self, env=None):
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.cmd, stdout=self.out, stderr=self.err,
                                     stdin=subprocess.DEVNULL, env=env,
                                     start_new_session=True)

    def printed(self):
        """What the running process wrote to stdout so far (bytes)."""
        return os.pread(self.out.fileno(), 1 << 20, 0) if self.out else b""

    def wait_ready(self, limit=READY_WAIT_S, ready=SERVER_READY):
        """Wait until the process prints `ready` (a bytes pattern; by default
        SERVER_READY) (True), exits or `limit` seconds pass (False)."""
        end = time.monotonic() + limit
        while time.monotonic() < end and self.proc.poll() is None:
            if ready.search(self.printed()):
                return True
            time.sleep(0.02)
        return False

    def kill(self):
        """SIGTERM by PID, then SIGKILL if it is still there 2 s later."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.timed_out = True
        terminate(self.proc, grace=2)

    def run_to_end(self, timeout):
        """Start, wait up to `timeout` seconds for the process to end (killed
        past it, timed_out set), collect what it printed."""
        self.start()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        self.collect()

    def collect(self):
        if self.proc is None:
            return
        self.rc = self.proc.poll()
        for f, attr in ((self.out, "stdout"), (self.err, "stderr")):
            f.seek(0)
            setattr(self, attr, f.read().decode(errors="replace"))
            f.close()
        for prefix in self.prefixes:
            for d in dpdk_runtime_dirs(prefix):
                shutil.rmtree(d, ignore_errors=True)

    def describe(self):
        state = "killed after the timeout" if self.timed_out else "exit %s" % self.rc
        return "%s (%s): %s\n--- stdout\n%s--- stderr\n%s" % (
            self.name, state, " ".join(map(str, self.cmd)), self.stdout, self.stderr)


@dataclass
class PairResult:
    server: Side
    client: Side

    @property
    def ok(self):
        return self.server.rc == 0 and self.client.rc == 0

    def describe(self):
        return self.server.describe() + "\n" + self.client.describe()


def run_pair(server, client, timeout, start_gap=0.05, env=None):
    """Start server then client (Side objects), wait for both up to `timeout`
    seconds; when one fails, the other gets GRACE_S more. Kills what is left.
    The client starts start_gap seconds after the server said it is ready
    (Side.wait_ready()): a memif client that connects before the server's
    port is started is told "ID not found" and DPDK 22.11 never tries again,
    the link stays down; a fixed delay is not enough on a loaded machine."""
    sides = (server, client)
    try:
        server.start(env)
        server.wait_ready()
        time.sleep(start_gap)
        client.start(env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = [s.proc.poll() for s in sides]
            if all(st is not None for st in states):
                break
            if any(st not in (None, 0) for st in states):
                deadline = min(deadline, time.monotonic() + GRACE_S)
            time.sleep(0.05)
    finally:
        for s in sides:
            s.kill()
        for s in sides:
            s.collect()
    return PairResult(server, client)


def perf_cmd(exe, eal, perf_args, ip, port, server_addr=None, netns=None, oob_bind=None):
    """The command line of one dpdk-rdma-perf endpoint."""
    cmd = []
    if netns:
        cmd += ["ip", "netns", "exec", netns]
    cmd += [str(exe)] + list(eal) + ["--"] + list(map(str, perf_args))
    cmd += ["--ip", ip, "-p", str(port)]
    if oob_bind:
        cmd += ["--oob-bind", oob_bind]
    if server_addr:
        cmd.append(server_addr)
    return cmd


def memif_sides(perf_args, exe, sock, port, tag, server_args=(), client_args=(),
                bsize=MEMIF_BSIZE, server_lcores=None, client_lcores=None, huge=False):
    """The server and client Sides of a memif pair, not started. Each side's
    lcores default to its own CPU (default_lcores()); huge: EAL on hugepages."""
    if server_lcores is None or client_lcores is None:
        defaults = default_lcores()
        server_lcores = defaults[0] if server_lcores is None else server_lcores
        client_lcores = defaults[1] if client_lcores is None else client_lcores
    prefixes = ("drps_" + tag, "drpc_" + tag)
    server = Side("server", perf_cmd(exe, memif_eal("server", sock, prefixes[0], bsize,
                                                    server_lcores, huge),
                                     list(perf_args) + list(server_args), SERVER_IP, port),
                  prefixes=[prefixes[0]], lcores=str(server_lcores))
    client = Side("client", perf_cmd(exe, memif_eal("client", sock, prefixes[1], bsize,
                                                    client_lcores, huge),
                                     list(perf_args) + list(client_args), CLIENT_IP, port,
                                     server_addr="127.0.0.1"),
                  prefixes=[prefixes[1]], lcores=str(client_lcores))
    return server, client


def run_memif(perf_args, exe=None, timeout=120, server_args=(), client_args=(),
              bsize=MEMIF_BSIZE, tag=None, server_lcores=None, client_lcores=None,
              start_gap=0.05, huge=False):
    """One dpdk-rdma-perf pair over net_memif: returns a PairResult.
    perf_args go to both sides (TEST first); server_args/client_args to one.
    server_lcores/client_lcores: each side's EAL -l list (or --lcores mapping,
    lcore_args()); by default each side gets its own CPU (default_lcores()).
    start_gap: seconds between the server saying it is ready and the client's
    start (run_pair()). huge: both EALs on hugepages (eal_common())."""
    exe = exe or perf_exe()
    tag = tag or "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000000)
    sock = "/tmp/dr-memif-%s.sock" % tag
    port = free_tcp_port()
    try:
        os.unlink(sock)                    # a stale socket from a killed run
    except FileNotFoundError:
        pass
    server, client = memif_sides(perf_args, exe, sock, port, tag, server_args, client_args,
                                 bsize, server_lcores, client_lcores, huge)
    try:
        return run_pair(server, client, timeout, start_gap)
    finally:
        try:
            os.unlink(sock)
        except FileNotFoundError:
            pass
