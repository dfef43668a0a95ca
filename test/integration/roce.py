# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""RoCEv2 frames, their ICRC and pcap files, written from the specs with the
Python standard library only, so that the tests judge the C code with code
that shares nothing with it.

ICRC (IBA vol. 1 7.8.1, Annex A17.3.3): CRC-32 (zlib.crc32) over 8 bytes of
0xFF standing for the LRH, the IP header with TOS/TTL/checksum (IPv4) or
traffic class/flow label/hop limit (IPv6) set to ones, the UDP header with
its checksum set to ones, the BTH with byte 4 (FECN, BECN, resv6a) set to
ones, then every byte up to the ICRC; sent least significant byte first.
"""

import struct
import zlib

ROCEV2_PORT = 4791
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
ETH_P_8021Q = 0x8100
ETH_P_ARP = 0x0806

SRC_MAC = bytes.fromhex("020000000001")
DST_MAC = bytes.fromhex("020000000002")
SRC_IP4 = bytes([10, 99, 0, 3])
DST_IP4 = bytes([10, 99, 0, 2])
SRC_IP6 = bytes.fromhex("fd00000000000000000000000000000a")
DST_IP6 = bytes.fromhex("fd00000000000000000000000000000b")


def bth(opcode, dqpn, psn, *, se=False, mig=False, pad=0, tver=0, pkey=0xFFFF,
        ackreq=False, fecn=False, becn=False):
    """Base Transport Header (IBA 9.2), 12 bytes."""
    flags = (se << 7) | (mig << 6) | ((pad & 3) << 4) | (tver & 0xF)
    qpn = (fecn << 31) | (becn << 30) | (dqpn & 0xFFFFFF)
    apsn = (ackreq << 31) | (psn & 0xFFFFFF)
    return struct.pack("!BBHII", opcode, flags, pkey, qpn, apsn)


def ipv4_checksum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def l2(ethertype, vlan=None):
    """Ethernet header, with an 802.1Q tag when vlan (the TCI) is given."""
    tag = struct.pack("!HH", ETH_P_8021Q, vlan) if vlan is not None else b""
    return DST_MAC + SRC_MAC + tag + struct.pack("!H", ethertype)


def ipv4(proto, payload_len, *, tos=0x02, ttl=64, ident=1, frag=0x4000):
    """IPv4 header (no options); frag is the flags + fragment offset word."""
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + payload_len, ident, frag,
                                ttl, proto, 0, SRC_IP4, DST_IP4))
    struct.pack_into("!H", hdr, 10, ipv4_checksum(bytes(hdr)))
    return bytes(hdr)


def ipv6(proto, payload_len, *, tclass=0x1A, flow=0x12345, hlim=64):
    word = (6 << 28) | (tclass << 20) | flow
    return struct.pack("!IHBB16s16s", word, payload_len, proto, hlim, SRC_IP6, DST_IP6)


def roce_frame(transport, *, ipv6_=False, vlan=None, sport=0xC000, udp_len=None,
               good_icrc=True, tclass=None):
    """Ethernet [802.1Q] / IPv4|IPv6 / UDP 4791 / transport / ICRC.

    transport is the BTH, extension headers, payload and pad bytes. udp_len
    overrides the UDP length field (to build a mismatch); tclass the IP
    traffic class (DSCP << 2 | ECN; default ipv4()'s and ipv6()'s)."""
    udp_payload = len(transport) + 4
    udp = struct.pack("!HHHH", sport, ROCEV2_PORT,
                      8 + udp_payload if udp_len is None else udp_len, 0)
    tc = {} if tclass is None else ({"tclass": tclass} if ipv6_ else {"tos": tclass})
    if ipv6_:
        head = l2(ETH_P_IPV6, vlan) + ipv6(17, 8 + udp_payload, **tc)
    else:
        head = l2(ETH_P_IP, vlan) + ipv4(17, 8 + udp_payload, **tc)
    body = head + udp + transport
    crc = icrc(body + bytes(4))
    if not good_icrc:
        crc ^= 0xFFFFFFFF
    return body + struct.pack("<I", crc)


def udp_frame(dport, payload=b"hello", *, frag=0x4000):
    """A plain IPv4 UDP frame (not RoCEv2 unless dport is 4791)."""
    udp = struct.pack("!HHHH", 0x1234, dport, 8 + len(payload), 0) + payload
    return l2(ETH_P_IP) + ipv4(17, len(udp), frag=frag) + udp


def _layout(frame):
    """(l3 offset, IP version, offset of the end of the IP packet) of an Ethernet frame."""
    off = 14
    etype = struct.unpack_from("!H", frame, 12)[0]
    if etype == ETH_P_8021Q:
        etype = struct.unpack_from("!H", frame, 16)[0]
        off += 4
    if etype == ETH_P_IP:
        return off, 4, off + struct.unpack_from("!H", frame, off + 2)[0]
    if etype == ETH_P_IPV6:
        return off, 6, off + 40 + struct.unpack_from("!H", frame, off + 4)[0]
    raise ValueError("not IP")


def icrc(frame):
    """ICRC of a RoCEv2 frame (its last four IP-payload bytes are the ICRC field)."""
    l3, ver, end = _layout(frame)
    pkt = bytearray(frame[l3:end - 4])
    if ver == 4:
        ihl = (pkt[0] & 0xF) * 4
        pkt[1] = 0xFF                      # TOS
        pkt[8] = 0xFF                      # TTL
        pkt[10:12] = b"\xff\xff"           # header checksum
    else:
        ihl = 40
        pkt[0] |= 0x0F                     # traffic class, high nibble
        pkt[1:4] = b"\xff\xff\xff"         # traffic class low nibble, flow label
        pkt[7] = 0xFF                      # hop limit
    pkt[ihl + 6:ihl + 8] = b"\xff\xff"     # UDP checksum
    pkt[ihl + 8 + 4] = 0xFF                # BTH FECN, BECN, resv6a
    return zlib.crc32(b"\xff" * 8 + bytes(pkt)) & 0xFFFFFFFF


def icrc_ok(frame):
    """Whether the ICRC field of a RoCEv2 frame is right."""
    _, _, end = _layout(frame)
    return struct.unpack_from("<I", frame, end - 4)[0] == icrc(frame)


def flip_bit(frame, offset, bit=0):
    b = bytearray(frame)
    b[offset] ^= 1 << bit
    return bytes(b)


PCAP_MAGIC = 0xA1B2C3D4
LINKTYPE_ETHERNET = 1


def write_pcap(path, frames, linktype=LINKTYPE_ETHERNET):
    """Write a classic pcap. A frame is bytes, or (captured bytes, length on the wire)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", PCAP_MAGIC, 2, 4, 0, 0, 262144, linktype))
        for i, fr in enumerate(frames):
            data, wire = (fr, len(fr)) if isinstance(fr, (bytes, bytearray)) else fr
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(data), wire))
            f.write(data)


def read_pcap(path):
    """The frames (captured bytes) of a classic pcap file, either byte order."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        end = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        end = ">"
    else:
        raise ValueError("%s: not a classic pcap" % path)
    frames, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from(end + "I", data, off + 8)[0]
        frames.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return frames


def read_pcap_timed(path):
    """[(seconds, frame)] of a classic pcap (microsecond or nanosecond stamps)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    scale = 1e9 if struct.unpack_from(end + "I", data, 0)[0] == 0xA1B23C4D else 1e6
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, caplen = struct.unpack_from(end + "III", data, off)
        out.append((sec + frac / scale, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return out
