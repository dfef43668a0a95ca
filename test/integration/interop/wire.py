# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""What the wire must carry for a list of verbs operations (IBA vol. 1
9.2-9.4, table 38: packetization of messages at the path MTU), and helpers
over dpdk-rdma-dump --json frames."""

import re

# BTH operation codes (low five bits; the transport is the high three)
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM = range(0, 6)
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM = range(6, 12)
READ_REQ, READ_RESP_FIRST, READ_RESP_MIDDLE, READ_RESP_LAST, READ_RESP_ONLY = range(12, 17)
ACK, ATOMIC_ACK, CMP_SWAP, FETCH_ADD = 17, 18, 19, 20
# AETH syndromes of NAKs (IBA table 43)
NAK_INV_REQ, NAK_REM_ACCESS, NAK_REM_OP = 0x61, 0x62, 0x63
SEND_LAST_INV, SEND_ONLY_INV = 22, 23          # with an IETH (RC and XRC only)
# XRC's opcodes are RC's low five bits under 0xA0, each with an XRCETH
TRANSPORT = {"rc": 0x00, "uc": 0x20, "ud": 0x60, "xrc": 0xA0}

OP_LINE = re.compile(r"^client op +(\d+) (\S+) +len=(\d+)", re.M)


def client_ops(output):
    """[(index, wr name, length)] of dr-opgen's client output."""
    return [(int(i), wr, int(n)) for i, wr, n in OP_LINE.findall(output)]


def _split(length, mtu):
    n = max(1, -(-length // mtu))
    return [min(mtu, length - k * mtu) for k in range(n)]


def _message(first, middle, last, only, length, mtu):
    parts = _split(length, mtu)
    if len(parts) == 1:
        return [(only, parts[0])]
    return [(first, parts[0])] + [(middle, p) for p in parts[1:-1]] + [(last, parts[-1])]


def requests(ops, qpt, mtu):
    """The requester's packets for ops [(i, wr, len)], in order:
    [(opcode, payload length, PSNs consumed)]."""
    t = TRANSPORT[qpt]
    out = []
    for _, wr, n in ops:
        if wr in ("SEND", "SEND_WITH_IMM"):
            imm = wr == "SEND_WITH_IMM"
            pk = _message(SEND_FIRST, SEND_MIDDLE, SEND_LAST_IMM if imm else SEND_LAST,
                          SEND_ONLY_IMM if imm else SEND_ONLY, n, mtu)
        elif wr == "SEND_WITH_INV":
            pk = _message(SEND_FIRST, SEND_MIDDLE, SEND_LAST_INV, SEND_ONLY_INV, n, mtu)
        elif wr in ("RDMA_WRITE", "RDMA_WRITE_WITH_IMM"):
            imm = wr == "RDMA_WRITE_WITH_IMM"
            pk = _message(WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST_IMM if imm else WRITE_LAST,
                          WRITE_ONLY_IMM if imm else WRITE_ONLY, n, mtu)
        elif wr == "RDMA_READ":
            # one request packet; it consumes one PSN per response packet
            out.append((t | READ_REQ, 0, len(_split(n, mtu))))
            continue
        elif wr == "ATOMIC_FETCH_AND_ADD":
            pk = [(FETCH_ADD, 0)]
        elif wr == "ATOMIC_CMP_AND_SWP":
            pk = [(CMP_SWAP, 0)]
        else:
            raise ValueError(wr)
        out += [(t | op, p, 1) for op, p in pk]
    return out


def read_responses(ops, mtu, qpt="rc"):
    """RC (or XRC) responder packets carrying data: [(opcode, payload length)]."""
    t = TRANSPORT[qpt]
    out = []
    for _, wr, n in ops:
        if wr == "RDMA_READ":
            out += [(t | op, p) for op, p in _message(READ_RESP_FIRST, READ_RESP_MIDDLE,
                                                      READ_RESP_LAST, READ_RESP_ONLY, n, mtu)]
        elif wr.startswith("ATOMIC"):
            out.append((t | ATOMIC_ACK, 0))
    return out


def pad(length):
    return -length % 4


def first_seen(frames, key=lambda f: (f["psn"], f["opcode"])):
    """frames without retransmissions (a key seen again is dropped)."""
    seen, out = set(), []
    for f in frames:
        k = key(f)
        if k not in seen:
            seen.add(k)
            out.append(f)
    return out


def sent_by(frames, ip):
    return [f for f in frames if f["src"] == ip]
