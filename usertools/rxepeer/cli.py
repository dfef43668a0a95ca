# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dr-rxe-peer.py: the command line over rxepeer (see doc/guides/interop.rst)."""

import argparse
import json
import os
import sys

from . import harness as hm
from . import image as im

USAGE_EPILOG = """
examples:
  dr-rxe-peer.py build
  dr-rxe-peer.py start vm1 10.99.0.2/24
  dr-rxe-peer.py start vm2 10.99.0.3/24 --mtu 4200
  dr-rxe-peer.py capture-start /tmp/rc.pcap --iface tap-vm1
  dr-rxe-peer.py exec vm1 'ibv_rc_pingpong -g $RXE_GID_IDX -n 5' &
  dr-rxe-peer.py exec -t 60 vm2 'ibv_rc_pingpong -g $RXE_GID_IDX -n 5 10.99.0.2'
  dr-rxe-peer.py capture-stop /tmp/rc.pcap
  dr-rxe-peer.py impair vm1 loss 10% reorder 5% 50% duplicate 1% corrupt 0.5% delay 1ms
  dr-rxe-peer.py impair vm1 show
  dr-rxe-peer.py veth dpdk0 && dr-rxe-peer.py netns-exec ip link
  dr-rxe-peer.py stop-all

environment: DR_RXE_WORK (work dir, default /tmp/dr-rxepeer), DR_RXE_SESSION
(default "default"), DR_RXE_ACCEL (tcg), DR_RXE_QEMU_CPU (TCG's CPU model,
qemu64), DR_RXE_CAPTURE_LINGER (0.5 s)
"""


def parser():
    p = argparse.ArgumentParser(
        prog="dr-rxe-peer.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Linux rxe (Soft-RoCE) peers in qemu VMs on a private bridge, "
                    "for dpdk-rdma's interop tests.", epilog=USAGE_EPILOG)
    p.add_argument("--work", help="work directory (images, sessions)")
    p.add_argument("--session", default=os.environ.get("DR_RXE_SESSION", "default"),
                   help="harness session: its own namespace, bridge and VMs")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    s = sub.add_parser("check-host", help="report the host packages missing (no install)")
    s = sub.add_parser("build", help="check/install host packages, download the guest "
                       "packages, make kernel + initramfs (cached)")
    s.add_argument("--force", action="store_true", help="rebuild even if cached")
    s.add_argument("--no-install", action="store_true",
                   help="only print the apt-get line for missing host packages")

    s = sub.add_parser("start", help="boot a VM and wait until rxe0 is ready")
    s.add_argument("name")
    s.add_argument("cidr", metavar="IP/LEN")
    s.add_argument("--mtu", type=int, default=1500, help="guest eth0 MTU (1500)")
    s.add_argument("--timeout", type=float, default=hm.BOOT_TIMEOUT, help="boot timeout (s)")
    s.add_argument("--mem", type=int, default=512, help="guest memory (MiB)")

    s = sub.add_parser("exec", help="run a sh command in a guest; its output and exit status")
    s.add_argument("-t", "--timeout", type=float, default=hm.EXEC_TIMEOUT)
    s.add_argument("name")
    s.add_argument("command", nargs=argparse.REMAINDER)

    s = sub.add_parser("impair", help="netem on both directions of a guest's RoCEv2 frames "
                       "(SPEC; 'off' removes it, 'show' prints its counters)")
    s.add_argument("name")
    s.add_argument("spec", nargs=argparse.REMAINDER, metavar="SPEC|off|show")

    s = sub.add_parser("info", help="a guest's ready report (GIDs, MTU, boot time)")
    s.add_argument("name")
    s.add_argument("--json", action="store_true")

    sub.add_parser("list", help="the session's VMs, captures and veths")

    s = sub.add_parser("veth", help="veth NAME in the namespace, NAME-br on the bridge "
                       "(for a DPDK net_af_packet / net_af_xdp endpoint)")
    s.add_argument("name")
    s.add_argument("--mtu", type=int)

    s = sub.add_parser("attach", help="put an interface of the namespace (a net_tap tap) "
                       "on the bridge")
    s.add_argument("ifname")

    s = sub.add_parser("netns-exec", help="run a host command in the session's namespace")
    s.add_argument("command", nargs=argparse.REMAINDER)

    s = sub.add_parser("capture-start", help="dumpcap into FILE (pcap)")
    s.add_argument("file")
    s.add_argument("--iface", help="default: the bridge; tap-NAME for a VM's frames")
    s.add_argument("--filter", default="udp port 4791")

    s = sub.add_parser("capture-stop", help="stop the capture into FILE (all when omitted)")
    s.add_argument("file", nargs="?")

    s = sub.add_parser("console", help="the tail of a guest's serial console")
    s.add_argument("name")
    s.add_argument("-n", type=int, default=50)

    s = sub.add_parser("stop", help="stop a VM")
    s.add_argument("name")

    s = sub.add_parser("stop-all", help="stop everything of the session, delete its namespace")
    s.add_argument("--all-sessions", action="store_true", help="every session under the work dir")
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    work = hm.work_dir(a.work)
    try:
        return run(a, work)
    except (hm.HarnessError, im.ImageError, im.elfmod.ModuleError) as e:
        print("dr-rxe-peer: %s" % e, file=sys.stderr)
        return 1


def run(a, work):
    h = None if a.cmd in ("check-host", "build") else hm.Harness(work, a.session)
    if a.cmd == "check-host":
        missing = im.check_host(install=False)
        print("ok" if not missing else im.apt_get_line(missing))
        return 1 if missing else 0
    if a.cmd == "build":
        img = im.build(work, force=a.force, install=False if a.no_install else None)
        print(img.path)
        return 0
    if a.cmd == "start":
        vm = h.start(a.name, a.cidr, mtu=a.mtu, timeout=a.timeout, mem=a.mem)
        r = vm.ready()
        print("%s up in %.1f s: ip=%s gid_index=%s active_mtu=%s netns=%s tap=%s" % (
            vm.name, vm.info.get("boot_seconds", 0), r.get("ip"), r.get("gid_index"),
            r.get("active_mtu"), h.netns, vm.tap))
        return 0
    if a.cmd == "exec":
        if not a.command:
            raise hm.HarnessError("exec: no command")
        cmd = a.command[0] if len(a.command) == 1 else " ".join(a.command)
        r = h.vm(a.name).exec(cmd, timeout=a.timeout)
        sys.stdout.write(r.output)
        if r.timed_out:
            print("dr-rxe-peer: timed out after %.0f s" % a.timeout, file=sys.stderr)
        return r.rc
    if a.cmd == "impair":
        vm = h.vm(a.name)
        spec = " ".join(a.spec)
        if spec == "show":
            for d, c in sorted(vm.impair_stats().items()):
                print("%s sent=%d dropped=%d" % (d, c["sent"], c["dropped"]))
        else:
            vm.impair(None if spec in ("", "off") else spec)
        return 0
    if a.cmd == "info":
        r = h.vm(a.name).ready()
        if a.json:
            print(json.dumps(r))
        else:
            for k, v in r.items():
                if k != "gids":
                    print("%s=%s" % (k, v))
            for g in r["gids"]:
                print("gid[%d]=%s %s %s" % g)
        return 0
    if a.cmd == "list":
        st = h.state()
        print("session %s netns %s bridge %s host %s" % (
            h.session, st.get("netns") or "-", hm.BRIDGE, st.get("host_cidr", "-")))
        for vm in h.vms():
            print("vm %s %s pid=%s tap=%s %s" % (vm.name, vm.cidr, vm.pid, vm.tap,
                                                "running" if vm.running() else "DEAD"))
        for path, c in sorted(st["captures"].items()):
            print("capture %s iface=%s pid=%s" % (path, c["iface"], c["pid"]))
        for v in st.get("veths", []):
            print("veth %s (%s-br on %s)" % (v, v, hm.BRIDGE))
        return 0
    if a.cmd == "veth":
        print(h.veth(a.name, a.mtu))
        return 0
    if a.cmd == "attach":
        h.attach(a.ifname)
        return 0
    if a.cmd == "netns-exec":
        if not a.command:
            raise hm.HarnessError("netns-exec: no command")
        return os.spawnvp(os.P_WAIT, "ip", h.netns_cmd(a.command))
    if a.cmd == "capture-start":
        print(h.capture_start(a.file, a.iface, a.filter))
        return 0
    if a.cmd == "capture-stop":
        for p in h.capture_stop(a.file):
            print(p)
        return 0
    if a.cmd == "console":
        sys.stdout.write(h.vm(a.name).console_tail(a.n))
        return 0
    if a.cmd == "stop":
        h.stop(a.name)
        return 0
    if a.cmd == "stop-all":
        names = hm.sessions(work) if a.all_sessions else [a.session]
        for s in names:
            hm.Harness(work, s).stop_all()
        return 0
    raise hm.HarnessError("unknown command %s" % a.cmd)
