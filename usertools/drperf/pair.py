# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Run a dpdk-rdma-perf server and client as two processes and collect both.

Every process is bounded by a deadline and killed by its PID (SIGTERM, then
SIGKILL) when it outlives it; the EAL runtime directories of the
--file-prefix used are removed afterwards."""

import os
import shutil
import signal
import socket
import subprocess
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


def eal_common(prefix, mem_mb=EAL_MEM_MB):
    return ["--no-huge", "-m", str(mem_mb), "--no-pci", "--file-prefix=" + prefix]


def memif_eal(role, sock, prefix, bsize=MEMIF_BSIZE):
    """EAL arguments of one memif endpoint (role "server" or "client")."""
    vdev = "net_memif0,role=%s,socket=%s,socket-abstract=no,bsize=%d" % (role, sock, bsize)
    return eal_common(prefix) + ["--vdev=" + vdev]


def afxdp_eal(iface, prefix, extra=""):
    """EAL arguments of a net_af_xdp port on iface (extra: more devargs, ",k=v")."""
    return eal_common(prefix) + [
        "--vdev=net_af_xdp0,iface=%s,start_queue=0,queue_count=1%s" % (iface, extra)]


def afpacket_eal(iface, prefix, extra=""):
    """EAL arguments of a net_af_packet port on iface."""
    return eal_common(prefix) + ["--vdev=net_af_packet0,iface=%s,qpairs=1%s" % (iface, extra)]


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

    def start(self, env=None):
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.cmd, stdout=self.out, stderr=self.err,
                                     stdin=subprocess.DEVNULL, env=env,
                                     start_new_session=True)

    def kill(self):
        """SIGTERM by PID, then SIGKILL if it is still there 2 s later."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.timed_out = True
        for sig, wait in ((signal.SIGTERM, 2), (signal.SIGKILL, 5)):
            try:
                os.kill(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                pass

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


def run_pair(server, client, timeout, start_gap=0.3, env=None):
    """Start server then client (Side objects), wait for both up to `timeout`
    seconds; when one fails, the other gets GRACE_S more. Kills what is left."""
    sides = (server, client)
    try:
        server.start(env)
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


def run_memif(perf_args, exe=None, timeout=120, server_args=(), client_args=(),
              bsize=MEMIF_BSIZE, tag=None):
    """One dpdk-rdma-perf pair over net_memif: returns a PairResult.
    perf_args go to both sides (TEST first); server_args/client_args to one."""
    exe = exe or perf_exe()
    tag = tag or "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000000)
    sock = "/tmp/dr-memif-%s.sock" % tag
    port = free_tcp_port()
    prefixes = ("drps_" + tag, "drpc_" + tag)
    try:
        os.unlink(sock)                    # a stale socket from a killed run
    except FileNotFoundError:
        pass
    server = Side("server", perf_cmd(exe, memif_eal("server", sock, prefixes[0], bsize),
                                     list(perf_args) + list(server_args), SERVER_IP, port),
                  prefixes=[prefixes[0]])
    client = Side("client", perf_cmd(exe, memif_eal("client", sock, prefixes[1], bsize),
                                     list(perf_args) + list(client_args), CLIENT_IP, port,
                                     server_addr="127.0.0.1"),
                  prefixes=[prefixes[1]])
    try:
        return run_pair(server, client, timeout)
    finally:
        try:
            os.unlink(sock)
        except FileNotFoundError:
            pass
