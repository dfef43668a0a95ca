# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The libfabric provider under a peer's bad packets: while unmodified
fi_pingpong (-e msg, and -e rdm through ofi_rxm) moves checked messages
between two namespaces over dpdk_rdma, a third party on the client's link
(scapy, hostile_peer.py) sprays the server's port with RoCEv2 frames:

- requests of every kind (SEND, RDMA WRITE with a made-up R_Key, READ,
  CmpSwap, ACK) to the server's QPNs (its telemetry names them) and to QPNs
  it does not have, with random PSNs, from an address that is no peer's and
  from the client's own address (spoofed);
- the same with a wrong ICRC, cut short, or with lying IP / UDP lengths;
- UD SENDs to QP1 carrying random MADs (the CM's GSI).

The application never sees them: both fi_pingpong sides finish every
iteration with the data checked (-c), exit 0, and no process dies of a
signal. The transport's drop rules are the ones of hostile.rst (IBA
9.6-9.7, rxe's check_addr()): what a spoofed frame can do is what a peer's
can, on the wire, without keys or the PSN it would need.
"""

import os
import random
import re
import struct
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

import hostile as H
import roce
from perfutil import netns
from drperf import soak  # noqa: E402 (perfutil puts usertools/ on the path)
from test_libfabric import IP_A, IP_B, side

pytestmark = pytest.mark.skipif(not os.path.exists("/usr/bin/fi_pingpong"), reason="libfabric-bin not installed")

STRANGER = "10.88.0.77"
QKEY_GSI = 0x80010000
RUN_TIMEOUT = 90
CONNECT_WAIT = 60          # seconds for the client to start and connect (EAL, the CM) on a busy machine
SPRAY_ROUNDS = 4           # the frames sent this many times while the exchange runs
DROP_WAIT = 30             # seconds for the server to reach the frames of the spray in its rx queue
DROPS = ("rx_malformed", "rx_bad_icrc", "rx_bad_addr")   # how it drops them (hostile.rst)
ROW = re.compile(r"^(\S+)\s+(\S+)\s+=(\S+)\s", re.M)    # size, sent, acked ("300k": fi_pingpong's units)


def server_stats(prefix):
    """/dr/context/stats,0 of the server (its EAL's telemetry socket)."""
    return soak.telemetry(prefix, "/dr/context/stats,0")


def stall_snapshot(prefixes):
    """What each side's transport holds when a run did not end in time: the
    context's counters and every QP's state, PSNs and queues (telemetry.rst),
    so a failure says where the exchange stopped."""
    out = []
    for prefix in prefixes:
        try:
            out.append("%s stats: %s" % (prefix, soak.telemetry(prefix, "/dr/context/stats,0")))
            for qpn in soak.telemetry(prefix, "/dr/qp/list,0") or []:
                out.append("%s qp %s: %s" % (prefix, qpn, soak.telemetry(prefix, "/dr/qp/info,%d,0" % qpn)))
        except (OSError, ValueError, KeyError) as e:
            out.append("%s: no telemetry (%r)" % (prefix, e))
    return "\n".join(out) + "\n"


def frame(dst_mac, src_mac, src_ip, transport_hdrs, payload=b"", *, good_icrc=True):
    pad = -len(payload) % 4
    body = transport_hdrs + payload + bytes(pad) + bytes(4)
    body = bytearray(body)
    body[1] |= pad << 4                         # BTH PadCnt (IBA 9.2.4)
    f = bytearray(bytes(Ether(src=src_mac, dst=dst_mac) /
                        IP(src=src_ip, dst=IP_A, tos=0x02, ttl=64, flags="DF", id=7) /
                        UDP(sport=0xC123, dport=roce.ROCEV2_PORT, chksum=0) / bytes(body)))
    struct.pack_into("<I", f, len(f) - 4, roce.icrc(bytes(f)) ^ (0 if good_icrc else 0xFFFFFFFF))
    return bytes(f)


def hostile_frames(dst_mac, src_mac, rnd, qpns):
    out = []
    for src in (STRANGER, IP_B):
        for qpn in qpns:
            psn = rnd.randrange(1 << 24)
            rkey = rnd.randrange(1 << 32)
            va = rnd.randrange(1 << 48)
            reqs = [
                (roce.bth(H.RC_SEND_ONLY, qpn, psn, ackreq=True), rnd.randbytes(64)),
                (roce.bth(H.RC_WRITE_ONLY, qpn, psn, ackreq=True) + H.reth(va, rkey, 64), rnd.randbytes(64)),
                (roce.bth(H.RC_READ_REQ, qpn, psn, ackreq=True) + H.reth(va, rkey, 4096), b""),
                (roce.bth(H.RC_CMP_SWAP, qpn, psn, ackreq=True) + H.atomic_eth(va & ~7, rkey, 1, 0), b""),
                (roce.bth(H.RC_ACK, qpn, psn) + H.aeth(H.NAK_REM_ACCESS, psn), b""),
            ]
            for hdrs, payload in reqs:
                good = frame(dst_mac, src_mac, src, hdrs, payload)
                out += [good, frame(dst_mac, src_mac, src, hdrs, payload, good_icrc=False),
                        good[:14 + 20 + 8 + rnd.randrange(1, 12)]]          # cut inside the BTH
                lie = bytearray(good)
                struct.pack_into("!H", lie, 14 + 20 + 4, len(good) + 100)   # UDP length past the frame
                out.append(bytes(lie))
                lie = bytearray(good)
                struct.pack_into("!H", lie, 14 + 2, 20)                      # IP total length: no UDP
                out.append(bytes(lie))
    for src in (STRANGER, IP_B):                                             # random MADs to the GSI
        for _ in range(16):
            hdrs = roce.bth(H.UD_SEND_ONLY, 1, rnd.randrange(1 << 24)) + H.deth(QKEY_GSI, 1)
            mad = bytearray(rnd.randbytes(256))
            mad[0:4] = bytes([1, rnd.choice([3, 7]), 2, rnd.choice([1, 2, 3, 6])])  # base version, class CM
            out.append(frame(dst_mac, src_mac, src, hdrs, bytes(mad)))
    return out


@pytest.mark.parametrize("ep", ["msg", "rdm"])
def test_bad_packets_never_reach_the_application(ep):
    cpus = sorted(os.sched_getaffinity(0))
    tag = "%d_%d" % (os.getpid(), time.monotonic_ns() % 1000000)
    iters = 300000
    args = ["-e", ep, "-I", str(iters), "-S", "1024", "-c"]
    rnd = random.Random(4791)
    stalled = ""
    sent = 0
    with netns.VethNetns(tag=tag[-6:]) as net:
        s, senv = side(net, "server", net.ns_a, net.if_a, IP_A, cpus[0], None, args, tag)
        c, cenv = side(net, "client", net.ns_b, net.if_b, IP_B, cpus[-1], None, args + [netns.CTL_A], tag)
        attacker = None
        try:
            attacker = H.Attacker(net.ns_b, net.if_b, H.mac_of(net.ns_a, net.if_a))
            s.start(env=senv)
            time.sleep(1.0)
            c.start(env=cenv)
            # connected, messages moving: the server's data QPs (beside QP1, the CM's). Their
            # numbers vary (ofi_rxm may make more than one connection on a busy machine):
            # the spray goes to them and to as many QPNs that it does not have
            qpns = []
            end = time.monotonic() + CONNECT_WAIT
            while not qpns and time.monotonic() < end:
                assert s.proc.poll() is None and c.proc.poll() is None, s.describe() + c.describe()
                time.sleep(0.2)
                try:
                    qpns = sorted(q for q in soak.telemetry("drfis_" + tag, "/dr/qp/list,0") or [] if q != 1)
                except (OSError, ValueError, KeyError):
                    pass                       # its EAL or context is not up yet
            assert qpns, "the server made no QP in %d s" % CONNECT_WAIT
            time.sleep(0.5)
            absent = [q for q in range(0x11, 0x40) if q not in qpns][:max(2, 8 - len(qpns))]
            frames = hostile_frames(H.mac_of(net.ns_a, net.if_a), H.mac_of(net.ns_b, net.if_b), rnd,
                                    qpns + absent)
            # the spray in rounds while the exchange runs (at most SPRAY_ROUNDS): a
            # round counts when both sides still ran after its last frame, and at
            # least one must, else this tested nothing. The exchange's length is
            # fixed, the spray's pace is the machine's: on a busy one the exchange
            # may end first, after a round or more.
            whole = 0
            stats = None
            for _ in range(SPRAY_ROUNDS):
                if s.proc.poll() is not None or c.proc.poll() is not None:
                    break
                sent += attacker.send(frames, repeat=1, listen_ms=0)["sent"]
                if s.proc.poll() is None and c.proc.poll() is None:
                    whole += 1
                    try:
                        stats = server_stats("drfis_" + tag)
                    except (OSError, ValueError, KeyError):
                        pass                   # it finished meanwhile: its last counters stand
            assert whole >= 1, "the run ended before a whole round of the spray was sent (%d frames)" % sent
            # the server drops them as its polls reach them: on a busy machine after the spray ends
            end = time.monotonic() + DROP_WAIT
            while (time.monotonic() < end and s.proc.poll() is None and
                   not (stats and all(stats[k] > 0 for k in DROPS))):
                time.sleep(0.1)
                try:
                    stats = server_stats("drfis_" + tag)
                except (OSError, ValueError, KeyError):
                    break                      # it finished meanwhile: its last counters stand
            end = time.monotonic() + RUN_TIMEOUT
            while time.monotonic() < end and (c.proc.poll() is None or s.proc.poll() is None):
                time.sleep(0.05)
            if c.proc.poll() is None or s.proc.poll() is None:
                stalled = stall_snapshot(["drfis_" + tag, "drfic_" + tag])
        finally:
            if attacker is not None:
                attacker.close()
            for x in (s, c):
                x.kill()
            for x in (s, c):
                x.collect()
    assert (s.rc, c.rc) == (0, 0), "%d hostile frames sent\n%s%s%s" % (sent, s.describe(), c.describe(), stalled)
    for x in (s, c):
        rows = ROW.findall(x.stdout)
        assert rows and all(n == a == "%dk" % (iters // 1000) for _, n, a in rows), x.describe()
    # they reached the server's transport and were dropped there, by their kind (hostile.rst)
    assert stats is not None, "no counters of the server's were read while it ran"
    for k in DROPS:
        assert stats[k] > 0, "%s: %s" % (k, " ".join("%s=%s" % kv for kv in sorted(stats.items())))
    shown = ("rx_malformed", "rx_bad_icrc", "rx_bad_addr", "rx_no_qp", "rx_dropped",
             "sr_probes", "rx_duplicate", "max_gap_us")
    print("\n%s: %d hostile frames (%d whole rounds, QPNs %s) during %d checked iterations: both sides "
          "done, exit 0; the server's counters %s" % (ep, sent, whole, [hex(q) for q in qpns], iters,
                                                    {k: stats.get(k) for k in shown}))
