# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""VMs, their network and captures.

A Harness is one session: a network namespace of its own (drrxe-PID, PID of
the process that made it), a bridge in it with the host address, a tap per
VM, veths for DPDK endpoints, dumpcap captures. Its state is a JSON file
under WORK/sessions/SESSION, so separate command-line invocations share it;
every change happens under a lock. Processes are stopped by PID only after
/proc/PID/cmdline shows they are ours (our qemu's -name, our dumpcap's
output file), and the namespace is deleted on the way out, which removes the
bridge, taps and veths with it even when a VM or a capture died.

Guest commands go through a 9p share: the host writes jobs/ID.cmd and rings
a virtio-serial port, the guest agent runs the script and leaves ID.out and
ID.rc (guest/agent, guest/runjob).
"""

import errno
import fcntl
import hashlib
import ipaddress
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time

from . import rxe
from .image import current_image

DEFAULT_WORK = "/tmp/dr-rxepeer"
BRIDGE = "br0"
HOST_CIDR = "10.99.0.1/24"
BOOT_TIMEOUT = 90.0
EXEC_TIMEOUT = 120.0
POLL = 0.02
# libpcap's TPACKET_V3 ring hands a block to dumpcap when it fills or when
# its timeout expires: stopping dumpcap sooner loses the last frames
CAPTURE_LINGER = float(os.environ.get("DR_RXE_CAPTURE_LINGER", "0.5"))
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_]{0,10}$")   # tap-NAME fits IFNAMSIZ
IFNAME_RE = re.compile(r"^[A-Za-z0-9_]{1,12}$")       # NAME and NAME-br fit IFNAMSIZ


class HarnessError(Exception):
    pass


def work_dir(work=None):
    return os.path.abspath(work or os.environ.get("DR_RXE_WORK") or DEFAULT_WORK)


def _run(argv, check=True, timeout=60, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, **kw)
    if check and r.returncode != 0:
        raise HarnessError("%s: %s" % (" ".join(argv), (r.stderr or r.stdout).strip()))
    return r


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except (OSError, ValueError):
        return None


def _alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _signal_and_wait(pid, first, wait_s):
    """Send first, wait up to wait_s for the process to go, then SIGKILL."""
    try:
        os.kill(pid, first)
    except ProcessLookupError:
        return
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        if not _alive(pid):
            return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    end = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < end:
        time.sleep(0.05)


class ExecResult:
    """What a guest command did: rc (124 on timeout), output (stdout and
    stderr together), seconds."""

    def __init__(self, rc, output, seconds, timed_out=False):
        self.rc = rc
        self.output = output
        self.seconds = seconds
        self.timed_out = timed_out

    @property
    def note(self):
        """A line saying the command was killed at its timeout ("" if not)."""
        return "[killed after %.0f s: the command's timeout]\n" % self.seconds \
            if self.timed_out else ""

    @property
    def ok(self):
        return self.rc == 0

    def __repr__(self):
        return "ExecResult(rc=%r, %.1fs, %d bytes)" % (self.rc, self.seconds, len(self.output))


class Job:
    """A command running in a guest (Vm.spawn)."""

    def __init__(self, vm, jid, cmd, timeout):
        self.vm = vm
        self.id = jid
        self.cmd = cmd
        self.t0 = time.monotonic()
        self.deadline = self.t0 + timeout
        self.result = None

    def _path(self, ext):
        return os.path.join(self.vm.jobs, "%s.%s" % (self.id, ext))

    def _read(self, ext):
        try:
            with open(self._path(ext), errors="replace") as f:
                return f.read()
        except OSError:
            return None

    def output(self):
        """What the command printed so far."""
        return self._read("out") or ""

    def _finish(self, rc, timed_out=False):
        self.result = ExecResult(rc, self.output(), time.monotonic() - self.t0, timed_out)
        for ext in ("cmd", "run", "out", "pid", "rc", "rc.tmp", "kill"):
            try:
                os.unlink(self._path(ext))
            except OSError:
                pass
        return self.result

    def poll(self):
        """The ExecResult once the command ended, else None."""
        if self.result:
            return self.result
        rc = self._read("rc")
        if rc is not None and rc.strip():
            return self._finish(int(rc))
        return None

    def kill(self):
        """Kill the command's process group in the guest; returns its ExecResult."""
        if self.poll():
            return self.result
        with open(self._path("kill"), "w"):
            pass
        self.vm.ring()
        end = time.monotonic() + 5
        while time.monotonic() < end and self._read("rc") in (None, ""):
            time.sleep(POLL)
        return self._finish(124, timed_out=True)

    def wait(self, timeout=None):
        """Wait until the command ends (or its deadline, or timeout seconds
        if that is sooner: the command is then killed, rc 124)."""
        end = self.deadline if timeout is None else min(self.deadline, time.monotonic() + timeout)
        n = 0
        while True:
            r = self.poll()
            if r:
                return r
            if time.monotonic() >= end:
                return self.kill()
            n += 1
            if n % 50 == 0 and not self.vm.running():
                self._finish(255)
                raise HarnessError("%s died while running: %s\n%s" % (
                    self.vm.name, self.cmd, self.vm.console_tail()))
            time.sleep(POLL)


class Vm:
    """One guest. Made by Harness.start()/Harness.vm(); state in its directory."""

    def __init__(self, harness, name, info):
        self.harness = harness
        self.name = name
        self.info = info
        self.dir = info["dir"]
        self.share = os.path.join(self.dir, "share")
        self.jobs = os.path.join(self.share, "jobs")
        self.cidr = info["ip"]
        self.ip = info["ip"].split("/")[0]
        self.tap = info["tap"]
        self.mtu = info["mtu"]
        self._seq = 0

    def __repr__(self):
        return "Vm(%s, %s)" % (self.name, self.cidr)

    @property
    def pid(self):
        return self.info.get("pid")

    def running(self):
        return self.harness._our_qemu(self.pid, self.info["qemu_name"])

    def ready(self):
        """The guest's report (/share/ready): {key: value}, 'gids' a list of
        (index, gid, netdev, type)."""
        out = {"gids": []}
        with open(os.path.join(self.share, "ready")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                if k == "gid":
                    out["gids"].append(_parse_gid_line(v))
                elif k:
                    out[k] = v
        return out

    def report(self, timeout=10):
        """What to look at when a command in this guest timed out: its
        serial console's tail, then (if its agent still answers) the guest's
        eth0 counters, neighbour tables and kernel log tail, and the host
        side of its tap. Bounded by timeout seconds in the guest."""
        parts = ["--- %s: console tail\n%s" % (self.name, self.console_tail(15))]
        if self.running():
            r = self.spawn("ip -s link show eth0; ip neigh show; ip -6 neigh show; "
                           "dmesg | tail -n 15", timeout).wait()
            parts.append("--- %s: eth0, neighbours, dmesg%s\n%s" % (
                self.name, " (timed out)" if r.timed_out else "", r.output))
        host = self.harness._ip("-s", "link", "show", self.tap, check=False)
        neigh = self.harness._ip("neigh", "show", check=False)
        parts.append("--- host: %s, neighbours\n%s" % (
            self.tap, host.stdout + host.stderr + neigh.stdout + neigh.stderr))
        return "".join(parts)

    def explain(self, res):
        """res (an ExecResult of this guest) with, when it timed out, its
        note and report() added to its output, for an assertion message."""
        if res is not None and res.timed_out:
            res.output += res.note + self.report()
        return res

    def console_tail(self, n=30):
        try:
            with open(os.path.join(self.dir, "console.log"), errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    # ---------------------------------------------------------- commands
    def spawn(self, cmd, timeout=EXEC_TIMEOUT):
        """Start cmd (a sh command line) in the guest; returns a Job."""
        if isinstance(cmd, (list, tuple)):
            cmd = " ".join(shlex.quote(str(a)) for a in cmd)
        self._seq += 1
        jid = "j%d_%d_%d" % (os.getpid(), self._seq, time.monotonic_ns() % 10**9)
        tmp = os.path.join(self.jobs, jid + ".tmp")
        with open(tmp, "w") as f:
            f.write(cmd + "\n")
        os.rename(tmp, os.path.join(self.jobs, jid + ".cmd"))
        self.ring()
        return Job(self, jid, cmd, timeout)

    def ring(self):
        """Wake the guest agent (a line on its virtio-serial port)."""
        try:
            fd = os.open(os.path.join(self.dir, "bell.in"), os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return   # qemu is gone: the job waits for nothing, Job.wait notices
        try:
            os.write(fd, b"\n")
        except OSError:
            pass
        finally:
            os.close(fd)

    def exec(self, cmd, timeout=EXEC_TIMEOUT):
        """Run cmd in the guest and wait: ExecResult."""
        return self.spawn(cmd, timeout).wait()

    def check(self, cmd, timeout=EXEC_TIMEOUT):
        """Run cmd; its output, or HarnessError when it fails."""
        r = self.exec(cmd, timeout)
        if r.rc != 0:
            raise HarnessError("%s: %r exited %d%s:\n%s" % (
                self.name, cmd, r.rc, " (timeout)" if r.timed_out else "", r.output))
        return r.output

    def gids(self, dev="rxe0", n=16):
        """[(index, gid, netdev, type)] of the valid GIDs among the first n."""
        out = self.check("rxepeer-gids %s %d" % (dev, n), timeout=30)
        return [_parse_gid_line(line) for line in out.splitlines() if line.strip()]

    def wait_gid(self, gid, timeout=15.0):
        """Index of GID gid (sysfs spelling) once rxe has it."""
        cmd = ("i=0; while [ $i -lt %d ]; do rxepeer-gids | while read -r x g r; do "
               "[ \"$g\" = %s ] && echo $x; done | grep . && exit 0; i=$((i+1)); usleep 100000; "
               "done; exit 1" % (int(timeout * 10), gid))
        r = self.exec(cmd, timeout=timeout + 10)
        if r.rc != 0:
            raise HarnessError("%s: GID %s did not appear within %ss" % (self.name, gid, timeout))
        return int(r.output.split()[0])

    def add_ipv6(self, cidr, timeout=15.0):
        """Add an IPv6 address to eth0 (no DAD) and return the index of its GID."""
        addr = cidr.split("/")[0]
        self.check("ip -6 addr replace %s dev eth0 nodad" % cidr, timeout=30)
        return self.wait_gid(rxe.ipv6_gid(addr), timeout)

    def set_mtu(self, mtu):
        """Set the guest's eth0 MTU (rxe follows: see rxe.active_mtu()) and
        raise its tap's to match, so frames of that size do pass. An MTU
        below 1280 drops eth0's IPv6 addresses, and their GIDs, in the guest."""
        if mtu > 1500:
            self.harness._ip("link", "set", self.tap, "mtu", str(mtu))
        self.check("ip link set eth0 mtu %d" % mtu, timeout=30)

    def impair(self, spec):
        """Impair both directions of the guest's RoCEv2 frames (UDP port
        4791 on eth0) with netem spec (a tc-netem(8) string such as "loss
        10% reorder 5% 50% duplicate 1% corrupt 0.5% delay 1ms"); ARP and
        TCP pass untouched. spec None or "" removes it (guest/rxepeer-impair)."""
        if not spec:
            self.check("rxepeer-impair off", timeout=30)
            return
        if not re.fullmatch(r"[A-Za-z0-9.% ]+", spec):
            raise HarnessError("impair: %r is not a netem spec (words, numbers, %%)" % spec)
        self.check("rxepeer-impair on " + spec, timeout=30)

    def impair_stats(self):
        """{'egress'|'ingress': {'sent': packets, 'dropped': packets}} of the
        netem qdiscs impair() made (empty when there are none)."""
        out = {}
        for line in self.check("rxepeer-impair show", timeout=30).splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] in ("egress", "ingress"):
                out[parts[0]] = {k: int(v) for k, v in (p.split("=") for p in parts[1:])}
        return out

    def active_mtu(self, dev="rxe0"):
        """Port 1's active_mtu, as ibv_devinfo shows it (bytes)."""
        out = self.check("ibv_devinfo -d %s" % dev, timeout=30)
        m = re.search(r"active_mtu:\s*(\d+)", out)
        if not m:
            raise HarnessError("no active_mtu in ibv_devinfo output:\n" + out)
        return int(m.group(1))

    def wait_tcp_listen(self, port, timeout=30.0):
        """Wait until something in the guest listens on TCP port."""
        hexport = "%04X" % port
        cmd = ("i=0; while [ $i -lt %d ]; do "
               "grep -q ':%s [0-9A-F:]* 0A ' /proc/net/tcp /proc/net/tcp6 && exit 0; "
               "i=$((i+1)); usleep 50000; done; exit 1" % (int(timeout * 20), hexport))
        r = self.exec(cmd, timeout=timeout + 10)
        if r.rc != 0:
            raise HarnessError("%s: nothing listens on tcp port %d after %ss" % (
                self.name, port, timeout))


def _parse_gid_line(v):
    parts = v.split(None, 3)
    return (int(parts[0]), parts[1], parts[2] if len(parts) > 2 else "-",
            parts[3] if len(parts) > 3 else "-")


class Harness:
    """One session of VMs on one bridge in one private network namespace."""

    def __init__(self, work=None, session="default", host_cidr=None, image=None):
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", session):
            raise HarnessError("bad session name %r" % session)
        self.work = work_dir(work)
        self.session = session
        self.dir = os.path.join(self.work, "sessions", session)
        self.state_file = os.path.join(self.dir, "state.json")
        self.host_cidr = host_cidr or HOST_CIDR
        self._image = image
        self._popen = {}      # capture pid -> Popen, when this process started it
        os.makedirs(self.dir, exist_ok=True)

    # ---------------------------------------------------------- state
    def _lock(self):
        f = open(os.path.join(self.dir, ".lock"), "w")
        fcntl.flock(f, fcntl.LOCK_EX)
        return f

    def _load(self):
        try:
            with open(self.state_file) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {"vms": {}, "captures": {}, "veths": []}

    def _save(self, st):
        tmp = self.state_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump(st, f, indent=1)
        os.replace(tmp, self.state_file)

    def state(self):
        return self._load()

    @property
    def netns(self):
        return self._load().get("netns")

    @property
    def bridge(self):
        return BRIDGE

    @property
    def host_ip(self):
        return self._load().get("host_cidr", self.host_cidr).split("/")[0]

    # ---------------------------------------------------------- netns
    def netns_cmd(self, argv):
        """argv prefixed to run in the harness's namespace (ip netns exec)."""
        ns = self.netns
        if not ns:
            raise HarnessError("session %s has no network namespace yet" % self.session)
        return ["ip", "netns", "exec", ns] + [str(a) for a in argv]

    def netns_run(self, argv, timeout=60, check=True, **kw):
        """subprocess.run of argv inside the namespace (text, captured)."""
        return _run(self.netns_cmd(argv), check=check, timeout=timeout, **kw)

    def netns_popen(self, argv, **kw):
        """subprocess.Popen of argv inside the namespace: a DPDK endpoint, a host peer."""
        return subprocess.Popen(self.netns_cmd(argv), **kw)

    def _ip(self, *args, check=True, ns=None):
        return _run(["ip", "-n", ns or self.netns] + list(args), check=check)

    @staticmethod
    def _netns_exists(ns):
        return bool(ns) and os.path.exists("/run/netns/" + ns)

    def _net_up(self, st):
        """Namespace and bridge, made when missing; called with the lock held,
        st is saved as soon as a namespace exists so nothing made here leaks."""
        ns = st.get("netns")
        if not self._netns_exists(ns):
            ns = "drrxe-%d" % os.getpid()
            n = 1
            while self._netns_exists(ns):   # another session of this process
                n += 1
                ns = "drrxe-%d-%d" % (os.getpid(), n)
            _run(["ip", "netns", "add", ns])
            st.update(netns=ns, host_cidr=self.host_cidr, veths=[])
            self._save(st)
            self._ip("link", "set", "lo", "up", ns=ns)
        if self._ip("link", "show", BRIDGE, check=False, ns=ns).returncode != 0:
            self._ip("link", "add", BRIDGE, "type", "bridge", ns=ns)
            self._ip("addr", "add", st.get("host_cidr", self.host_cidr), "dev", BRIDGE, ns=ns)
            self._ip("link", "set", BRIDGE, "up", ns=ns)
        return ns

    def _net_down(self, st):
        ns = st.get("netns")
        if self._netns_exists(ns):
            _run(["ip", "netns", "del", ns], check=False)
        st["netns"] = None
        st["veths"] = []

    def veth(self, name, mtu=None):
        """A veth pair for a DPDK endpoint: NAME stays in the namespace (attach
        net_af_packet/net_af_xdp to it, from a process run with netns_popen),
        NAME-br joins the bridge. The kernel side gets no address and no IPv6,
        so only the DPDK process answers for its IP. Returns NAME."""
        if not IFNAME_RE.match(name):
            raise HarnessError("bad veth name %r (letters, digits, _; at most 12)" % name)
        with self._lock():
            st = self._load()
            self._net_up(st)
            self._save(st)
            self._ip("link", "add", name, "type", "veth", "peer", "name", name + "-br")
            for ifc in (name, name + "-br"):
                self.netns_run(["sysctl", "-q", "-w", "net.ipv6.conf.%s.disable_ipv6=1" % ifc],
                               check=False)
            if mtu:
                self._ip("link", "set", name, "mtu", str(mtu))
                self._ip("link", "set", name + "-br", "mtu", str(mtu))
            self._ip("link", "set", name + "-br", "master", BRIDGE, "up")
            self._ip("link", "set", name, "up")
            st["veths"].append(name)
            self._save(st)
        return name

    def veth_del(self, name):
        """Remove veth NAME (and NAME-br with it)."""
        with self._lock():
            st = self._load()
            if self._netns_exists(st.get("netns")):
                self._ip("link", "del", name, check=False, ns=st["netns"])
            st["veths"] = [v for v in st.get("veths", []) if v != name]
            self._save(st)

    def attach(self, ifname):
        """Put an interface already in the namespace (a DPDK net_tap's tap) on the bridge."""
        self._ip("link", "set", ifname, "master", BRIDGE, "up")

    # ---------------------------------------------------------- VMs
    def image(self):
        if self._image is None:
            self._image = current_image(self.work)
            if self._image is None:
                raise HarnessError("no image under %s: run 'dr-rxe-peer.py build' first"
                                   % self.work)
        return self._image

    def _qemu_name(self, name):
        return "drrxe-%s-%s" % (self.session, name)

    @staticmethod
    def _our_qemu(pid, qemu_name):
        if not pid or not _alive(pid):
            return False
        argv = _cmdline(pid)
        return bool(argv) and "qemu-system" in os.path.basename(argv[0]) and \
            any(a == qemu_name for a in argv)

    def vm(self, name):
        info = self._load()["vms"].get(name)
        if not info:
            raise HarnessError("no VM %s in session %s" % (name, self.session))
        return Vm(self, name, info)

    def vms(self):
        return [Vm(self, n, i) for n, i in sorted(self._load()["vms"].items())]

    def start(self, name, cidr, mtu=1500, timeout=BOOT_TIMEOUT, mem=512, accel=None):
        """Boot a VM: eth0 gets cidr and mtu, rxe0 sits on it. Returns the
        Vm once the guest reports its GID table (bounded by timeout)."""
        if not NAME_RE.match(name):
            raise HarnessError("bad VM name %r (a-z, 0-9, _; at most 11)" % name)
        iface = ipaddress.ip_interface(cidr)
        if iface.version != 4:
            raise HarnessError("the VM address must be IPv4/LEN (add IPv6 later with add_ipv6)")
        image = self.image()
        accel = accel or os.environ.get("DR_RXE_ACCEL", "tcg")
        qname = self._qemu_name(name)
        d = os.path.join(self.dir, "vms", name)
        tap = "tap-" + name
        created = False
        try:
            with self._lock():
                st = self._load()
                old = st["vms"].get(name)
                if old and self._our_qemu(old.get("pid"), old["qemu_name"]):
                    raise HarnessError("%s is already running" % name)
                self._check_address(st, name, iface)
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(os.path.join(d, "share", "jobs"))
                self._net_up(st)
                info = {"dir": d, "ip": str(iface), "mtu": mtu, "tap": tap, "qemu_name": qname,
                        "pid": None, "accel": accel, "image": image.path}
                st["vms"][name] = info
                self._save(st)
                created = True
                r, pid, t0 = None, None, time.monotonic()
                try:
                    r, pid, t0 = self._launch(name, iface, mtu, mem, accel, image, d, tap, qname)
                finally:
                    info.update(pid=pid, t_start=time.time())
                    st["vms"][name] = info
                    self._save(st)
        except BaseException:
            if created:
                self.stop(name)
            raise
        if r is None or r.returncode != 0 or not pid:
            self.stop(name)
            raise HarnessError("%s: qemu failed to start: %s" % (
                name, (r.stderr or r.stdout).strip() if r else "no pid"))
        vm = Vm(self, name, info)
        ready = os.path.join(d, "share", "ready")
        end = t0 + timeout
        while not os.path.exists(ready):
            if not vm.running():
                tail = vm.console_tail()
                self.stop(name)
                raise HarnessError("%s: qemu exited during boot:\n%s" % (name, tail))
            if time.monotonic() > end:
                tail = vm.console_tail()
                self.stop(name)
                raise HarnessError("%s: not ready after %ss:\n%s" % (name, timeout, tail))
            time.sleep(0.05)
        with self._lock():
            st = self._load()
            if name in st["vms"]:
                st["vms"][name]["boot_seconds"] = round(time.monotonic() - t0, 2)
                self._save(st)
                vm.info = st["vms"][name]
        if not vm.ready().get("gid_index"):
            raise HarnessError("%s: rxe has no GID for %s:\n%s" % (name, vm.ip, vm.console_tail()))
        return vm

    def _check_address(self, st, name, iface):
        """Refuse an address that another running VM of the session, or the
        host side of the bridge, already has: two guests answering ARP for one
        address make every run between them depend on which answered first."""
        if str(iface.ip) == self.host_ip:
            raise HarnessError("%s: %s is the host's address on the bridge" % (name, iface.ip))
        for other, info in st["vms"].items():
            if other == name or not self._our_qemu(info.get("pid"), info["qemu_name"]):
                continue
            if ipaddress.ip_interface(info["ip"]).ip == iface.ip:
                raise HarnessError("%s: %s is %s's address already" % (name, iface.ip, other))

    def _launch(self, name, iface, mtu, mem, accel, image, d, tap, qname):
        """The VM's tap, then qemu (daemonized, in the namespace): (run result, pid, t0)."""
        self._ip("link", "del", tap, check=False)
        self._ip("tuntap", "add", "dev", tap, "mode", "tap")
        self._ip("link", "set", tap, "mtu", str(max(mtu, 1500)))
        self._ip("link", "set", tap, "master", BRIDGE, "up")
        mac = "52:54:00:" + ":".join(
            hashlib.sha256(qname.encode()).hexdigest()[i:i + 2] for i in (0, 2, 4))
        # under TCG qemu's plain qemu64 model: the interop suite ran 10 % faster on it
        # than on "max" (1056 s against 1177 s, doc/guides/interop.rst; which of max's
        # features costs is not known), the wire the same; DR_RXE_QEMU_CPU picks another
        cpu = "host" if accel == "kvm" else os.environ.get("DR_RXE_QEMU_CPU", "qemu64")
        bell = os.path.join(d, "bell")   # qemu opens bell.in and bell.out
        os.mkfifo(bell + ".in")
        os.mkfifo(bell + ".out")
        argv = [
            "qemu-system-x86_64", "-name", qname, "-nodefaults", "-no-user-config",
            "-no-reboot", "-machine", "pc", "-accel", accel, "-cpu", cpu, "-smp", "1",
            "-m", str(mem), "-kernel", image.kernel, "-initrd", image.initrd,
            "-append", "console=ttyS0 panic=-1 quiet loglevel=4 mitigations=off %s "
            "rxepeer.name=%s rxepeer.ip=%s rxepeer.mtu=%d" % (
                os.environ.get("DR_RXE_KERNEL_ARGS", ""), name, iface, mtu),
            "-display", "none", "-serial", "file:" + os.path.join(d, "console.log"),
            "-netdev", "tap,id=n0,ifname=%s,script=no,downscript=no" % tap,
            "-device", "virtio-net-pci,netdev=n0,mac=%s,romfile=" % mac,
            "-fsdev", "local,id=fs0,path=%s,security_model=none" % os.path.join(d, "share"),
            "-device", "virtio-9p-pci,fsdev=fs0,mount_tag=share",
            "-device", "virtio-serial-pci", "-chardev", "pipe,id=bell,path=" + bell,
            "-device", "virtserialport,chardev=bell,name=rxepeer.bell",
            "-daemonize", "-pidfile", os.path.join(d, "qemu.pid"),
        ]
        t0 = time.monotonic()
        r = _run(self.netns_cmd(argv), check=False, timeout=60)
        pid = None
        try:
            with open(os.path.join(d, "qemu.pid")) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            pass
        return r, pid, t0

    def stop(self, name):
        """Stop VM name (if ours and running), remove its tap; the namespace
        goes when no VM and no capture is left."""
        with self._lock():
            st = self._load()
            info = st["vms"].get(name)
            if not info:
                raise HarnessError("no VM %s in session %s" % (name, self.session))
            self._stop_vm(st, info)
            del st["vms"][name]
            if not st["vms"] and not st["captures"] and not st.get("veths"):
                self._net_down(st)
            self._save(st)

    def _stop_vm(self, st, info):
        pid = info.get("pid")
        if self._our_qemu(pid, info["qemu_name"]):
            _signal_and_wait(pid, signal.SIGTERM, 5)
        if self._netns_exists(st.get("netns")):
            self._ip("link", "del", info["tap"], check=False)

    # ---------------------------------------------------------- captures
    def capture_start(self, path, iface=None, filt="udp port 4791"):
        """dumpcap (pcap format) on iface (default: the bridge, which sees
        only host<->VM traffic; a VM's tap sees all of that VM's frames)."""
        path = os.path.abspath(path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with self._lock():
            st = self._load()
            self._net_up(st)
            self._save(st)
            old = st["captures"].get(path)
            if old and self._our_dumpcap(old["pid"], path):
                raise HarnessError("a capture into %s is running" % path)
            if os.path.exists(path):
                os.unlink(path)
            key = hashlib.sha256(path.encode()).hexdigest()[:10]
            logf = os.path.join(self.dir, "capture.%s.log" % key)
            with open(logf, "w") as lf:
                p = self.netns_popen(["dumpcap", "-q", "-P", "-i", iface or BRIDGE, "-f", filt,
                                      "-w", path], stdout=lf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
            self._popen[p.pid] = p
            st["captures"][path] = {"pid": p.pid, "iface": iface or BRIDGE, "log": logf}
            self._save(st)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            if p.poll() is not None:
                break
            try:
                if os.path.getsize(path) >= 24:
                    time.sleep(0.1)
                    return path
            except OSError:
                pass
            time.sleep(0.05)
        with open(logf, errors="replace") as f:
            msg = f.read()
        self.capture_stop(path, linger=0)
        raise HarnessError("capture on %s did not start: %s" % (iface, msg.strip()))

    @staticmethod
    def _our_dumpcap(pid, path):
        argv = _cmdline(pid) if pid and _alive(pid) else None
        return bool(argv) and os.path.basename(argv[0]) == "dumpcap" and path in argv

    def capture_stop(self, path=None, linger=None):
        """Stop the capture into path (every capture when None); returns the paths."""
        want = os.path.abspath(path) if path else None
        with self._lock():
            st = self._load()
            todo = [p for p in st["captures"] if want in (None, p)]
            if todo:
                time.sleep(CAPTURE_LINGER if linger is None else linger)
            for p in todo:
                c = st["captures"].pop(p)
                pid = c["pid"]
                if self._our_dumpcap(pid, p):
                    _signal_and_wait(pid, signal.SIGINT, 5)
                if pid in self._popen:
                    try:
                        self._popen.pop(pid).wait(5)
                    except subprocess.TimeoutExpired:
                        pass
                try:
                    os.unlink(c["log"])
                except OSError:
                    pass
            if not st["vms"] and not st["captures"] and not st.get("veths"):
                self._net_down(st)
            self._save(st)
        return todo

    # ---------------------------------------------------------- teardown
    def stop_all(self):
        """Stop every capture and VM of the session and delete its namespace
        (with the bridge, taps and veths in it), whatever state they are in."""
        errs = []
        try:
            self.capture_stop(linger=0)
        except Exception as e:  # noqa: BLE001 - keep tearing down
            errs.append(e)
        with self._lock():
            st = self._load()
            for name, info in list(st["vms"].items()):
                try:
                    self._stop_vm(st, info)
                except Exception as e:  # noqa: BLE001
                    errs.append(e)
                del st["vms"][name]
            self._net_down(st)
            self._save(st)
        if errs:
            raise HarnessError("stop-all: %s" % "; ".join(map(str, errs)))


def sessions(work=None):
    """Names of the sessions under WORK."""
    d = os.path.join(work_dir(work), "sessions")
    try:
        return sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n, "state.json")))
    except OSError as e:
        if e.errno == errno.ENOENT:
            return []
        raise


def reap_stale(work=None, prefix="pytest-"):
    """stop_all() every session PREFIXPID whose PID is gone (a killed test run)."""
    for s in sessions(work):
        m = re.fullmatch(re.escape(prefix) + r"(\d+)", s)
        if m and not _alive(int(m.group(1))):
            Harness(work, s).stop_all()
            shutil.rmtree(os.path.join(work_dir(work), "sessions", s), ignore_errors=True)
