# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""What the hostile-frame suite (test_hostile.py) drives: the target
(test/hostile/dr-hostile-target in one namespace, on net_af_packet or
net_af_xdp over a veth), the attacker (hostile_peer.py: scapy in the other
namespace), the target's counters (its telemetry socket) and the frames:
RoCEv2 requests built with scapy's Ether/IP/UDP and the transport headers
of IBA 9.2-9.5 packed here, the ICRC from roce.py."""

import json
import os
import queue
import shutil
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

import roce
from perfutil import REPO, pair

TARGET_IP = pair.SERVER_IP
CLIENT_IP = pair.CLIENT_IP
ATTACKER_IP = "192.0.2.9"
STRANGER_IP = "192.0.2.77"
REPLY_TIMEOUT = 20.0

# BTH opcodes (IBA table 38)
RC_SEND_ONLY, RC_WRITE_FIRST, RC_WRITE_ONLY = 0x04, 0x06, 0x0A
RC_READ_REQ, RC_READ_RESP_ONLY, RC_ACK = 0x0C, 0x10, 0x11
RC_CMP_SWAP, RC_FETCH_ADD = 0x13, 0x14
UC = 0x20
UD_SEND_ONLY = 0x64

# AETH syndromes (IBA 9.3.5, table 42)
NAK_PSN_SEQ, NAK_INVALID_REQ, NAK_REM_ACCESS = 0x60, 0x61, 0x62


def reth(va, rkey, length):
    return struct.pack("!QII", va & (2**64 - 1), rkey, length)


def atomic_eth(va, rkey, swap_add, compare=0):
    return struct.pack("!QIQQ", va & (2**64 - 1), rkey, swap_add, compare)


def deth(qkey, src_qp):
    return struct.pack("!II", qkey, src_qp & 0xFFFFFF)


def aeth(syndrome, msn):
    return struct.pack("!I", (syndrome << 24) | (msn & 0xFFFFFF))


def pattern(k, seed):
    """Byte k of the target's pattern (ht_pat() of test/hostile/hostile.h)."""
    return ((k * 131 + seed * 7 + (k >> 8)) ^ seed) & 0xFF


class Frames:
    """RoCEv2 frames from the attacker to the target of `layout` (the
    target's ready line) and `attacker_mac`."""

    def __init__(self, layout, attacker_mac):
        self.lay = layout
        self.dst_mac = layout["mac"]
        self.src_mac = attacker_mac

    def ip_udp(self, transport, *, src=ATTACKER_IP, ip_len=None, udp_len=None, sport=0xC000):
        ip = IP(src=src, dst=TARGET_IP, tos=0x02, ttl=64, flags="DF", id=1)
        if ip_len is not None:
            ip.len = ip_len
        udp = UDP(sport=sport, dport=roce.ROCEV2_PORT, chksum=0)
        if udp_len is not None:
            udp.len = udp_len
        return bytes(Ether(src=self.src_mac, dst=self.dst_mac) / ip / udp / transport)

    def roce(self, opcode, qpn, psn, ext=b"", payload=b"", *, pkey=0xFFFF, ackreq=True,
             good_icrc=True, src=ATTACKER_IP):
        """A whole frame: BTH, extension headers, payload padded to 4, ICRC."""
        pad = -len(payload) % 4
        transport = (roce.bth(opcode, qpn, psn, pad=pad, pkey=pkey, ackreq=ackreq) + ext +
                     payload + bytes(pad) + bytes(4))
        frame = bytearray(self.ip_udp(transport, src=src))
        crc = roce.icrc(bytes(frame))
        struct.pack_into("<I", frame, len(frame) - 4, crc ^ (0 if good_icrc else 0xFFFFFFFF))
        return bytes(frame)

    def mr(self, name):
        return self.lay["mrs"][name]

    def qpn(self, name):
        return self.lay["qps"][name]


def parse_reply(frame):
    """(opcode, psn, syndrome or None, payload) of a RoCEv2 frame from the target."""
    bth = 14 + 20 + 8
    opcode = frame[bth]
    psn = struct.unpack_from("!I", frame, bth + 8)[0] & 0xFFFFFF
    syn, body = None, bth + 12
    if opcode in (RC_ACK, RC_READ_RESP_ONLY, 0x0D, 0x0F, 0x12):     # the ones with an AETH
        syn = frame[body]
        body += 4
    if opcode == 0x12:                                                # ATOMIC ACKNOWLEDGE
        body += 8
    pad = (frame[bth + 1] >> 4) & 3
    return opcode, psn, syn, frame[body:len(frame) - 4 - pad]


class Lines:
    """A process's stdout, line by line, read by a thread (a read with a timeout)."""

    def __init__(self, stream):
        self.q = queue.Queue()
        self.all = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for line in stream:
            self.all.append(line)
            self.q.put(line)
        self.q.put(None)

    def json(self, timeout=REPLY_TIMEOUT, key=None):
        """The next JSON line (with `key` when given); AssertionError at EOF or timeout."""
        end = time.monotonic() + timeout
        while True:
            line = self.q.get(timeout=max(0.0, end - time.monotonic()))
            assert line is not None, "the process ended:\n" + "".join(self.all[-20:])
            if line.startswith("{"):
                obj = json.loads(line)
                if key is None or key in obj:
                    return obj


def target_exe():
    build = Path(os.environ.get("DR_BUILD_DIR", REPO / "build"))
    return build / "test" / "hostile" / "dr-hostile-target"


def port_eal(kind, iface, prefix, lcores):
    vdev = ("net_af_xdp0,iface=%s,start_queue=0,queue_count=1" % iface if kind == "af_xdp"
            else "net_af_packet0,iface=%s,qpairs=1" % iface)
    return pair.eal_common(prefix, lcores=lcores) + ["--vdev=" + vdev]


class Target:
    """dr-hostile-target in ns, its commands, its counters (telemetry)."""

    def __init__(self, ns, kind, iface, attacker_mac, engine, lcores, tcp_port, tag):
        """engine, lcores: the engine options and lcores of pair.engine()."""
        self.prefix = "drht_" + tag
        cmd = (["ip", "netns", "exec", ns, str(target_exe())] +
               port_eal(kind, iface, self.prefix, lcores) +
               ["--", "--ip", TARGET_IP, "--peer-ip", ATTACKER_IP, "--peer-mac", attacker_mac,
                "-p", str(tcp_port)] + engine)
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.out = Lines(self.proc.stdout)
        self.err = Lines(self.proc.stderr)
        self.layout = self.out.json(timeout=60, key="event")

    def command(self, line, key):
        assert self.proc.poll() is None, "the target died: " + self.describe()
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.out.json(key=key)

    def qp(self, name):
        return self.command("qp " + name, "qp")

    def reset(self, name):
        return self.command("reset " + name, "qp")

    def check(self):
        return self.command("check", "check")

    def cqes(self):
        return self.command("cqes", "cqes")

    def stats(self):
        """/dr/context/stats,0 through the telemetry socket."""
        path = pair.dpdk_runtime_dirs(self.prefix)[0] / "dpdk_telemetry.v2"
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
            s.settimeout(10)
            s.connect(str(path))
            s.recv(65536)                          # the greeting
            s.send(b"/dr/context/stats,0")
            return json.loads(s.recv(1 << 20).decode())["/dr/context/stats"]

    def quit(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        answer = self.out.json(key="check")
        self.proc.wait(timeout=30)
        return answer, self.proc.returncode

    def describe(self):
        return "target %s rc=%s\nstdout:\n%s\nstderr:\n%s" % (
            " ".join(self.cmd), self.proc.poll(), "".join(self.out.all[-20:]),
            "".join(self.err.all[-30:]))

    def close(self):
        pair.terminate(self.proc)
        for d in pair.dpdk_runtime_dirs(self.prefix):
            shutil.rmtree(d, ignore_errors=True)


class Attacker:
    """hostile_peer.py in ns on iface: sends frames, returns the target's answers."""

    def __init__(self, ns, iface, target_mac):
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, "/usr/bin/python3",
             str(Path(__file__).with_name("hostile_peer.py")), iface, target_mac],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        self.out = Lines(self.proc.stdout)
        self.err = Lines(self.proc.stderr)
        try:
            self.out.json(timeout=60, key="ready")
        except AssertionError:
            raise AssertionError("the attacker did not start:\n" + "".join(self.err.all[-20:]))

    def send(self, frames, repeat=1, listen_ms=300):
        req = {"frames": [f.hex() for f in frames], "repeat": repeat, "listen_ms": listen_ms}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        res = self.out.json(timeout=REPLY_TIMEOUT + repeat * len(frames) / 5000.0, key="sent")
        res["replies"] = [bytes.fromhex(h) for h in res["replies"]]
        return res

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        pair.terminate(self.proc)


def mac_of(ns, iface):
    r = subprocess.run(["ip", "-n", ns, "-j", "link", "show", iface], capture_output=True,
                       text=True, check=True, timeout=30)
    return json.loads(r.stdout)[0]["address"]


def run_client(ns, iface, engine, lcores, tcp_port, server, tag, timeout=60):
    """The real client (dr-hostile-target --client) over net_af_packet, engine and lcores as
    pair.engine() gives them: (rc, stdout, stderr)."""
    prefix = "drhc_" + tag
    cmd = (["ip", "netns", "exec", ns, str(target_exe())] +
           port_eal("af_packet", iface, prefix, lcores) +
           ["--", "--ip", CLIENT_IP, "--client", server, "-p", str(tcp_port),
            "--timeout", "40"] + engine)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        pair.terminate(p)
        out, err = p.communicate()
    finally:
        for d in pair.dpdk_runtime_dirs(prefix):
            shutil.rmtree(d, ignore_errors=True)
    return p.returncode, out, err
