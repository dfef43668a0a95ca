# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""One of our programs (DPDK, in the harness's namespace, on a veth of its
bridge) against a tool in one rxe VM: who serves, the capture of the VM's
tap, the outputs kept next to the pcap. Used by the modules that run our
stack against rxe with other links and programs than the first two
(test_mtu_ipv6_rxe.py, test_opgen_rxe.py, test_loss_rxe.py)."""

import glob
import os
import shutil
import subprocess
import time

import pytest

from .conftest import REPO, engine_mode, perftest_clock_failed
from .test_pingpong_rxe import finish, listening

TIMEOUT = 60

# runs of a pair whose rxe perftest could not measure the guest's clock, at most
CLOCK_TRIES = 3


# librdmacm's rping before July 2025 (Debian 12's rdma-core 44.0: no eventfd in the
# binary): its CM thread loops on rdma_get_cm_event() with no end; when the main
# thread destroys the event channel after the last event but before the thread is
# back in the call, the call fails and rping exits 255 with exactly this line, after
# a session that succeeded (rdma-core pull request 1622, "rping: Fix spurious failure
# return codes", ends the thread through an eventfd). The channel is rping's own.
RPING_CHANNEL_RACE = "rdma_get_cm_event: Bad file descriptor"


def rxe_rping_rc(theirs, side):
    """rxe's rping's exit status; 0 also for its 255 from that race after a whole
    session: its SIDE ("client", "server") saw the disconnect, then the race's line
    (its buffered stdout, flushed by exit(), may follow it)."""
    lines = [line.strip() for line in theirs.output.splitlines()]
    if theirs.rc == 255 and RPING_CHANNEL_RACE in lines and \
            ("%s DISCONNECT EVENT" % side) in theirs.output:
        print("rxe's rping exited 255 after its session: its CM thread's race with the "
              "channel's destruction (rdma-core pull request 1622)")
        return 0
    return theirs.rc


def gid_tables(vm):
    """rxe's GID table as the guest reported it at boot and as it is now: a
    run that fails may owe it to the index of the GID it named."""
    ready = vm.ready()
    boot = "\n".join("  %d %s %s" % g[:3] for g in ready["gids"])
    now = vm.exec("rxepeer-gids", timeout=15)
    return "\n--- %s: rxe0's GIDs at boot (IPv4: index %s)\n%s\n--- now%s\n%s" % (
        vm.name, ready.get("gid_index"), boot,
        " (timed out)" if now.timed_out else "", now.output)


def exe_of(name):
    """build/app/NAME/NAME of DR_BUILD_DIR (default build/), or build/app/*/NAME
    for a folder that builds several programs (dpdk-rdma-cmsample)."""
    build = os.environ.get("DR_BUILD_DIR") or str(REPO / "build")
    exe = os.path.join(build, "app", name, name)
    if not os.path.isfile(exe):
        exe = next(iter(sorted(glob.glob(os.path.join(build, "app", "*", name)))), exe)
    if not os.path.isfile(exe):
        pytest.fail("%s is not built (set DR_BUILD_DIR or run ninja -C %s)" % (exe, build))
    return exe


def vdev(pmd, veth, extra=""):
    """--vdev of our port on veth: net_pcap (large frames), net_af_packet,
    net_af_xdp (extra: more devargs, ",xdp_prog=...")."""
    if pmd == "pcap":
        # rx_iface_in: our own transmitted frames stay out of our receive path
        return "net_pcap0,rx_iface_in=%s,tx_iface=%s%s" % (veth, veth, extra)
    if pmd == "af_xdp":
        return "net_af_xdp0,iface=%s,start_queue=0,queue_count=1%s" % (veth, extra)
    return "net_af_packet0,iface=%s%s" % (veth, extra)


class Peer:
    """The VM, our veth, where outputs go; prefix names our EAL runtime dirs."""

    def __init__(self, harness, vm, veth, outdir, prefix):
        self.harness = harness
        self.vm = vm
        self.veth = veth
        self.outdir = outdir
        self.prefix = "%s%d" % (prefix, os.getpid())
        self.seq = 0

    def eal(self, pmd, extra="", more=()):
        """Our EAL arguments (more: beyond the usual ones, e.g. --lcores)."""
        self.seq += 1
        return list(more) + ["--no-pci", "--no-huge", "-m", "256",
                "--file-prefix=%s_%d" % (self.prefix, self.seq),
                "--vdev", vdev(pmd, self.veth, extra),
                "--log-level=pmd.net.af_packet:warning", "--log-level=pmd.net.pcap:warning",
                "--log-level=pmd.net.af_xdp:warning"]

    def ours(self, exe, pmd, args, extra="", eal=()):
        argv = [exe] + self.eal(pmd, extra, eal) + ["--"] + args
        return self.harness.netns_popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True)

    def wait_listen(self, proc, port):
        end = time.monotonic() + 30
        while not listening(self, port):
            assert proc.poll() is None, finish(proc, 5)
            assert time.monotonic() < end, "our server does not listen on %d" % port
            time.sleep(0.1)

    def run(self, name, exe, pmd, our_args, tool, port, we_serve, extra="", wait_listen=True,
            timeout=TIMEOUT, mode=None):
        """Our program and an rxe tool (a sh command line), one serving the
        other (the client gets the server's address appended), the VM's tap
        captured into OUTDIR/name.pcap; mode: our engine mode (rtc,
        pipeline: conftest.engine_mode(); None: inline). Returns (our rc, our
        output, rxe ExecResult, pcap). Runs again, up to CLOCK_TRIES in all,
        while rxe's perftest could not measure its clock
        (conftest.perftest_clock_failed; twice in a row once in CI)."""
        eal, engine = engine_mode(mode) if mode else ((), [])
        our_args = list(our_args) + engine
        for _ in range(CLOCK_TRIES):
            res = self._run_once(name, exe, pmd, our_args, tool, port, we_serve, extra,
                                 wait_listen, timeout, eal)
            if not perftest_clock_failed(res[2].output):
                break
        return res

    def _run_once(self, name, exe, pmd, our_args, tool, port, we_serve, extra, wait_listen,
                  timeout, eal):
        pcap = str(self.outdir / (name + ".pcap"))
        self.harness.capture_start(pcap, self.vm.tap)
        proc = None
        try:
            if we_serve:
                proc = self.ours(exe, pmd, our_args, extra, eal)
                if wait_listen:
                    self.wait_listen(proc, port)
                theirs = self.vm.exec("%s %s" % (tool, self.harness.host_ip), timeout)
                rc, out = finish(proc, 5 if theirs.rc != 0 else timeout)
            else:
                job = self.vm.spawn(tool, timeout)
                if wait_listen:
                    self.vm.wait_tcp_listen(port, timeout=30)
                proc = self.ours(exe, pmd, our_args + [self.vm.ip], extra, eal)
                rc, out = finish(proc, timeout)
                theirs = job.wait(None if rc == 0 else 5)
        finally:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
            self.harness.capture_stop(pcap)
        self.vm.explain(theirs)
        if rc != 0 or theirs.rc != 0:
            theirs.output += gid_tables(self.vm)
        (self.outdir / (name + ".ours.txt")).write_text(out)
        (self.outdir / (name + ".rxe.txt")).write_text(theirs.output)
        return rc, out, theirs, pcap

    def cleanup(self):
        """Our processes' EAL runtime directories."""
        for d in glob.glob("/var/run/dpdk/%s_*" % self.prefix):
            shutil.rmtree(d, ignore_errors=True)
