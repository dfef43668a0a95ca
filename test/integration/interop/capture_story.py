# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The timeline of a RoCEv2 capture, told for a failed interop run: who sent
what last, and the longest silences with the frames on either side. A run
that timed out leaves a capture of hundreds of MB behind in a directory CI
does not keep; this is what its log keeps instead (the side that went
quiet, the PSN it was at, whether a NAK or a retransmission was the last
word)."""

import struct

_OPNAMES = {0: "SEND_FIRST", 1: "SEND_MIDDLE", 2: "SEND_LAST", 3: "SEND_LAST_IMM",
            4: "SEND_ONLY", 5: "SEND_ONLY_IMM", 6: "WRITE_FIRST", 7: "WRITE_MIDDLE",
            8: "WRITE_LAST", 9: "WRITE_LAST_IMM", 10: "WRITE_ONLY", 11: "WRITE_ONLY_IMM",
            12: "READ_REQ", 13: "READ_RESP_FIRST", 14: "READ_RESP_MIDDLE",
            15: "READ_RESP_LAST", 16: "READ_RESP_ONLY", 17: "ACK", 18: "ATOMIC_ACK",
            19: "CMP_SWAP", 20: "FETCH_ADD"}
_AETH_OPS = (13, 15, 16, 17, 18)


def frames(path):
    """[(time s, src IPv4, BTH opcode, PSN, AETH syndrome or None, AckReq)]
    of the IPv4 RoCEv2 frames of a classic pcap file (dumpcap -P)."""
    out = []
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            return out
        magic = struct.unpack("<I", head[:4])[0]
        endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            sec, frac, incl, _ = struct.unpack(endian + "IIII", rec)
            data = f.read(incl)
            if len(data) < incl:
                break
            t = sec + frac / (1e9 if nano else 1e6)
            off = 14
            eth = struct.unpack(">H", data[12:14])[0] if len(data) >= 14 else 0
            if eth == 0x8100:
                off, eth = 18, struct.unpack(">H", data[16:18])[0]
            if eth != 0x0800 or len(data) < off + 20:
                continue
            ihl = (data[off] & 0x0F) * 4
            if data[off + 9] != 17:
                continue
            src = ".".join(str(b) for b in data[off + 12:off + 16])
            udp = off + ihl
            if len(data) < udp + 8 + 12 or struct.unpack(">H", data[udp + 2:udp + 4])[0] != 4791:
                continue
            bth = udp + 8
            op = data[bth] & 0x1F
            psn = struct.unpack(">I", data[bth + 8:bth + 12])[0] & 0xFFFFFF
            ackreq = bool(data[bth + 8] & 0x80)
            syn = data[bth + 12] if op in _AETH_OPS and len(data) > bth + 12 else None
            out.append((t, src, op, psn, syn, ackreq))
    return out


def _line(t0, fr):
    t, src, op, psn, syn, ackreq = fr
    what = _OPNAMES.get(op, "op%d" % op)
    if syn is not None and op == 17:
        kind = syn >> 5
        what = {0: "ACK", 1: "RNR_NAK", 3: "NAK 0x%02x" % syn}.get(kind, "AETH 0x%02x" % syn)
    return "  %10.6f %-15s %-15s psn %d%s" % (t - t0, src, what, psn, " A" if ackreq else "")


def story(path, silences=6, context=3, tail=12):
    """A few dozen lines: per source the frames, requests resent (a PSN
    seen again), NAKs; the longest silences with `context` frames on either
    side; the last `tail` frames."""
    try:
        fr = frames(path)
    except OSError as e:
        return "capture %s: %s" % (path, e)
    if not fr:
        return "capture %s: no RoCEv2 frames" % path
    t0 = fr[0][0]
    lines = ["capture %s: %d RoCEv2 frames over %.3f s" % (path, len(fr), fr[-1][0] - t0)]
    per = {}
    for t, src, op, psn, syn, _ in fr:
        s = per.setdefault(src, {"frames": 0, "resent": 0, "naks": 0, "seen": set(), "last": t})
        s["frames"] += 1
        s["last"] = t
        if op < 17 and op not in (13, 14, 15, 16):
            if (op, psn) in s["seen"]:
                s["resent"] += 1
            s["seen"].add((op, psn))
        if op == 17 and syn is not None and syn >> 5 in (1, 3):
            s["naks"] += 1
    for src, s in per.items():
        lines.append("  from %s: %d frames, %d requests resent, %d NAKs, last at %.6f s"
                     % (src, s["frames"], s["resent"], s["naks"], s["last"] - t0))
    gaps = sorted(range(1, len(fr)), key=lambda i: fr[i][0] - fr[i - 1][0], reverse=True)
    lines.append(" longest silences:")
    for i in sorted(gaps[:silences]):
        lines.append(" silence of %.3f s:" % (fr[i][0] - fr[i - 1][0]))
        lines.extend(_line(t0, x) for x in fr[max(0, i - context):i + context])
    lines.append(" last frames:")
    lines.extend(_line(t0, x) for x in fr[-tail:])
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    print(story(sys.argv[1]))
