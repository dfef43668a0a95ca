#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Regenerate the seed corpus of the fuzz harnesses (test/fuzz/corpus/) from
the golden rxe captures in test/vectors/ (doc/guides/fuzzing.rst).

fuzz_pkt/: every distinct frame of the captures as it is, then for one frame
of each opcode an 802.1Q-tagged copy and an IPv6 copy (ICRC recomputed), a
CNP and an ARP request.

fuzz_rx/: for one frame of each (capture, opcode): the frame as is (mode 0),
the frame with every fix-up (mode 1: aimed at a slot of the harness's
context, PSN, R_Key, lengths and ICRC made to fit), and its transport part
behind the slot's own headers (mode 2, the same fix-ups); input format in
test/fuzz/fuzz_rx.c. With --harness build-fuzz/test/fuzz/fuzz_rx, the
harness's own templates too (DR_FUZZ_DUMP_SEEDS): each packet its peer sent
to each slot, raw, as a template, from a fresh state, and each slot's whole
stream as one input.

  usertools/dr-fuzz-corpus.py --harness build-fuzz/test/fuzz/fuzz_rx

Replaces the files it owns (vec-*, cap-*, stream-*) and leaves any other
file of the corpus directories alone. Standard library only."""

import argparse
import glob
import os
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROCE_PORT = 4791

# fuzz_rx input header bits (test/fuzz/fuzz_rx.c)
F_ICRC, F_QPN, F_PSN, F_RKEY, F_LEN = 0x04, 0x08, 0x10, 0x20, 0x40
G_RESET = 0x08
# the slot each transport is aimed at (fuzz_rx.c): RC in RTS, UC, UD, XRC
SLOTS = {0x00: (0,), 0x20: (1,), 0x60: (2,), 0xA0: (5,)}
OWNED = ("vec-", "cap-", "stream-")


def read_pcap(path):
    """The frames of a classic pcap file (either byte order)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError(f"{path}: not a pcap file")
    off, frames = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def layers(f):
    """(l3, l4, ip_ver) of an Ethernet/[802.1Q]/IP/UDP frame, or None."""
    if len(f) < 14:
        return None
    l3, et = 14, f[12:14]
    if et == b"\x81\x00":
        l3, et = 18, f[16:18]
    if et == b"\x08\x00" and len(f) >= l3 + 20 and f[l3 + 9] == 17:
        return l3, l3 + (f[l3] & 15) * 4, 4
    if et == b"\x86\xdd" and len(f) >= l3 + 40 and f[l3 + 6] == 17:
        return l3, l3 + 40, 6
    return None


def roce(f):
    """(l3, l4, ip_ver, opcode) of a RoCEv2 frame, or None."""
    ls = layers(f)
    if ls is None or len(f) < ls[1] + 20:
        return None
    if struct.unpack(">H", f[ls[1] + 2:ls[1] + 4])[0] != ROCE_PORT:
        return None
    return ls + (f[ls[1] + 8],)


def ipv4_csum(h):
    s = sum(struct.unpack(f">{len(h) // 2}H", h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def icrc(f, l3, l4, ver, end):
    """The ICRC of f[:end] (dr_icrc.h: variant fields masked, CRC-32, little-endian)."""
    h = bytearray(f[l3:l4 + 8 + 12])
    if ver == 4:
        h[1] = 0xFF
        h[8] = 0xFF
        h[10] = h[11] = 0xFF
    else:
        h[0] |= 0x0F
        h[1] = h[2] = h[3] = 0xFF
        h[7] = 0xFF
    u = l4 - l3
    h[u + 6] = h[u + 7] = 0xFF
    h[u + 8 + 4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(h) + f[l4 + 8 + 12:end - 4])
    return struct.pack("<I", crc)


def with_icrc(f):
    r = roce(f)
    if r is None:
        return f
    l3, l4, ver, _ = r
    end = l3 + (struct.unpack(">H", f[l3 + 2:l3 + 4])[0] if ver == 4
                else 40 + struct.unpack(">H", f[l3 + 4:l3 + 6])[0])
    return f[:end - 4] + icrc(f, l3, l4, ver, end) + f[end:]


def vlan(f):
    return f[:12] + b"\x81\x00\xa1\x23" + f[12:]


def to_ipv6(f):
    """The IPv4 RoCEv2 frame f over IPv6 (fd00::/8 addresses), ICRC recomputed."""
    r = roce(f)
    if r is None or r[2] != 4:
        return None
    l3, l4, _, _ = r
    tot = struct.unpack(">H", f[l3 + 2:l3 + 4])[0]
    udp = f[l4:l3 + tot]
    ip6 = (struct.pack(">IHBB", 0x60000000 | (f[l3 + 1] << 20) | 0x12345, len(udp), 17, 64)
           + b"\xfd" + b"\x00" * 14 + b"\x01" + b"\xfd" + b"\x00" * 14 + b"\x02")
    g = f[:l3 - 2] + b"\x86\xdd" + ip6 + udp
    return with_icrc(g)


def cnp(template):
    """A CNP (opcode 0x81, 16 reserved bytes) with the addresses of an IPv4 frame."""
    r = roce(template)
    l3, l4, _, _ = r
    bth = bytes([0x81, 0, 0xFF, 0xFF, 0x40, 0, 0, 0x11, 0, 0, 0, 0])
    body = bth + b"\x00" * 16 + b"\x00" * 4
    udp = template[l4:l4 + 4] + struct.pack(">HH", 8 + len(body), 0) + body
    ip = bytearray(template[l3:l4])
    ip[2:4] = struct.pack(">H", len(ip) + len(udp))
    ip[10:12] = b"\x00\x00"
    ip[10:12] = struct.pack(">H", ipv4_csum(bytes(ip)))
    return with_icrc(template[:l3] + bytes(ip) + udp)


def arp_request():
    return (b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x0b" + b"\x08\x06"
            + struct.pack(">HHBBH", 1, 0x0800, 6, 4, 1) + b"\x02\x00\x00\x00\x00\x0b"
            + bytes([10, 0, 0, 2]) + b"\x00" * 6 + bytes([10, 0, 0, 1]) + b"\x00" * 18)


def clean(d):
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        if name.startswith(OWNED):
            os.unlink(os.path.join(d, name))


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vectors", default=os.path.join(ROOT, "test", "vectors"))
    ap.add_argument("--out", default=os.path.join(ROOT, "test", "fuzz", "corpus"))
    ap.add_argument("--harness", help="fuzz_rx binary: add its own templates (DR_FUZZ_DUMP_SEEDS)")
    args = ap.parse_args()

    pkt_dir, rx_dir = os.path.join(args.out, "fuzz_pkt"), os.path.join(args.out, "fuzz_rx")
    clean(pkt_dir)
    clean(rx_dir)
    seen, per_op = set(), {}
    n_pkt = n_rx = 0
    for path in sorted(glob.glob(os.path.join(args.vectors, "*.pcap"))):
        cap = os.path.splitext(os.path.basename(path))[0]
        for i, f in enumerate(read_pcap(path)):
            if f not in seen:
                seen.add(f)
                write(pkt_dir, f"vec-{cap}-{i:03d}", f)
                n_pkt += 1
            r = roce(f)
            if r is None or (cap, r[3]) in per_op:
                continue
            per_op[(cap, r[3])] = f
            op = r[3]
            for slot in SLOTS.get(op & 0xE0, (0,)):
                b1 = slot | (8 << 3)
                fix = F_ICRC | F_QPN | F_PSN | F_RKEY
                write(rx_dir, f"vec-{cap}-{op:02x}-s{slot}-raw", bytes([0, b1, 0]) + f)
                write(rx_dir, f"vec-{cap}-{op:02x}-s{slot}-fix",
                      bytes([1 | fix | F_LEN, b1, G_RESET]) + f)
                write(rx_dir, f"vec-{cap}-{op:02x}-s{slot}-tmpl",
                      bytes([2 | fix, b1, G_RESET]) + f[r[1] + 8:])
                n_rx += 3
    # one frame per opcode: tagged and IPv6 copies
    by_op = {}
    for (cap, op), f in sorted(per_op.items()):
        by_op.setdefault(op, f)
    for op, f in sorted(by_op.items()):
        write(pkt_dir, f"vec-vlan-{op:02x}", vlan(f))
        g = to_ipv6(f)
        if g is not None:
            write(pkt_dir, f"vec-ipv6-{op:02x}", g)
            write(pkt_dir, f"vec-ipv6-vlan-{op:02x}", vlan(g))
            n_pkt += 2
        n_pkt += 1
    any4 = next(f for f in by_op.values() if roce(f)[2] == 4)
    write(pkt_dir, "vec-cnp", cnp(any4))
    write(pkt_dir, "vec-arp", arp_request())
    write(rx_dir, "vec-cnp-raw", bytes([0, 0, 0]) + cnp(any4))
    write(rx_dir, "vec-arp-raw", bytes([0, 0, 0]) + arp_request())
    n_pkt += 2
    n_rx += 2

    if args.harness:
        with tempfile.TemporaryDirectory() as tmp:
            supp = os.path.join(ROOT, "test", "fuzz", "ubsan.supp")
            env = dict(os.environ, DR_FUZZ_DUMP_SEEDS=tmp,
                       UBSAN_OPTIONS=f"halt_on_error=1:print_stacktrace=1:suppressions={supp}")
            subprocess.run([args.harness, "-runs=0", tmp], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for name in sorted(os.listdir(tmp)):
                with open(os.path.join(tmp, name), "rb") as f:
                    write(rx_dir, name, f.read())
                n_rx += 1
    print(f"fuzz_pkt: {n_pkt} files in {pkt_dir}")
    print(f"fuzz_rx: {n_rx} files in {rx_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
