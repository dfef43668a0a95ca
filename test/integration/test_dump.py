# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-dump in file mode: the captured vectors (checked against the
peers' own logs, against tshark and against an ICRC written in Python),
crafted frames, malformed and mutated frames, and the command line."""

import json
import random
import re
import shutil
import struct
import subprocess

import pytest

import roce
from conftest import RUN_TIMEOUT, vector_pcaps

# BTH opcodes of test/vectors/opgen_rc.pcap, as tshark 4.0 decodes them
# (tshark -r opgen_rc.pcap -T fields -e infiniband.bth.opcode)
OPGEN_RC_OPCODES = [
    4, 17, 5, 17, 4, 17,                # SEND 64, SEND_WITH_IMM 61, SEND 0
    0, 1, 2, 17,                        # SEND 3000
    0, 1, 3, 17,                        # SEND_WITH_IMM 3001
    10, 17, 6, 7, 8, 17,                # RDMA_WRITE 64, 3001
    11, 17, 6, 7, 9, 17,                # RDMA_WRITE_WITH_IMM 64, 3002
    12, 16, 12, 13, 14, 15,             # RDMA_READ 64, 3003
    20, 18, 19, 18, 19, 18,             # FETCH_AND_ADD, CMP_AND_SWP x2
]

# RC opcodes of each message family, and those that end a message (IBA table 38)
SEND_OPS = {0, 1, 2, 3, 4, 5}
WRITE_OPS = {6, 7, 8, 9, 10, 11}
READ_RESP_OPS = {13, 14, 15, 16}
MESSAGE_END = {2, 3, 4, 5, 8, 9, 10, 11, 15, 16}

SUMMARY = re.compile(r"^(\d+) frames, (\d+) RoCEv2, (\d+) bad ICRC, (\d+) malformed$", re.M)


def summary(text):
    m = SUMMARY.search(text)
    assert m, "no summary line in %r" % text
    return tuple(int(x) for x in m.groups())


def message_lengths(frames, ops):
    """Payload bytes of each message made of packets with opcodes in ops."""
    out, cur = [], 0
    for f in frames:
        if f["opcode"] in ops:
            cur += f["payload_len"]
            if f["opcode"] in MESSAGE_END:
                out.append(cur)
                cur = 0
    return out


# --- the captured vectors ------------------------------------------------

def test_opgen_rc(dump_json, vectors):
    frames, p = dump_json(vectors / "opgen_rc.pcap")
    assert [f["frame"] for f in frames] == list(range(1, 39))
    assert [f["opcode"] for f in frames] == OPGEN_RC_OPCODES
    assert all(f["icrc_ok"] for f in frames)
    assert all("error" not in f for f in frames)
    assert summary(p.stderr) == (38, 38, 0, 0)
    # both QPs are 0x14, the client starts at PSN 0x100 (opgen_rc.client.txt)
    assert {f["dest_qp"] for f in frames} == {0x14}
    assert frames[0]["psn"] == 0x100 and frames[0]["opcode_name"] == "RC_SEND_ONLY"
    assert {f["transport"] for f in frames} == {"RC"}
    assert {(f["src"], f["dst"]) for f in frames} == {("10.99.0.3", "10.99.0.2"),
                                                      ("10.99.0.2", "10.99.0.3")}

    # message sizes of opgen_rc.client.txt
    assert message_lengths(frames, SEND_OPS) == [64, 61, 0, 3000, 3001]
    assert message_lengths(frames, WRITE_OPS) == [64, 3001, 64, 3002]
    assert message_lengths(frames, READ_RESP_OPS) == [64, 3003]
    writes = [f for f in frames if f["opcode"] in (6, 10, 11)]
    assert [f["reth"]["dma_len"] for f in writes] == [64, 3001, 64, 3002]
    assert {f["reth"]["rkey"] for f in writes} == {0x563}
    reads = [f for f in frames if f["opcode"] == 12]
    assert [f["reth"]["dma_len"] for f in reads] == [64, 3003]

    # immediate data of opgen_rc.server.txt, in network order
    imms = {f["opcode_name"]: f["immdt"]["imm"] for f in frames if "immdt" in f}
    assert imms == {
        "RC_SEND_ONLY_WITH_IMMEDIATE": 0x12345602,
        "RC_SEND_LAST_WITH_IMMEDIATE": 0x12345605,
        "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE": 0x12345608,
        "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE": 0x12345609,
    }

    # atomics: 100 + 5 = 105, then CmpSwap(105 -> 0xabcdef) twice (client.txt)
    atomics = [f["atomiceth"] for f in frames if "atomiceth" in f]
    assert [(a["swap_add"], a["compare"]) for a in atomics] == [(5, 0), (0xABCDEF, 105), (2, 1)]
    assert [f["atomicacketh"]["orig"] for f in frames if "atomicacketh" in f] == \
        [100, 105, 0xABCDEF]

    # rxe acknowledges with an ACK syndrome and no credit count (0x1F)
    aeths = [f["aeth"] for f in frames if "aeth" in f]
    assert {(a["type"], a["syndrome"]) for a in aeths} == {("ACK", 0x1F)}
    msns = [a["msn"] for a in aeths]
    assert msns == sorted(msns) and msns[-1] == 14


def test_hostpeer_ud_bad_icrc_first(dump_json, vectors):
    frames, p = dump_json(vectors / "hostpeer_ud.pcap")
    assert [f["icrc_ok"] for f in frames] == [False, True, True]
    assert summary(p.stderr) == (3, 3, 1, 0)
    # the guest's reply of hostpeer_ud.txt
    last = frames[2]
    assert last["opcode"] == 0x64 and last["dest_qp"] == 0x42
    assert last["deth"] == {"qkey": 0x11111111, "src_qp": 0x18}
    assert last["udp_sport"] == 0xCAB3 and last["payload_len"] == 64


def test_fail_on_error_with_bad_icrc(dump, vectors):
    assert dump("--fail-on-error", vectors / "opgen_rc.pcap").returncode == 0
    assert dump("--fail-on-error", vectors / "hostpeer_ud.pcap").returncode == 1
    assert dump(vectors / "hostpeer_ud.pcap").returncode == 0


def tshark_fields(pcap):
    """(frame, opcode, psn, dest_qp, ack_req) of each RoCEv2 frame, as tshark decodes them."""
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "fields", "-e", "frame.number",
         "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn",
         "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.a",
         "-Y", "udp.dstport==4791"],
        capture_output=True, text=True, timeout=RUN_TIMEOUT, check=True).stdout
    rows = []
    for line in out.splitlines():
        num, op, psn, dqp, ack = line.split("\t")
        rows.append((int(num), int(op, 0), int(psn, 0), int(dqp, 0),
                     ack in ("1", "True", "true")))
    return rows


@pytest.mark.parametrize("pcap", vector_pcaps(), ids=lambda p: p.name)
def test_matches_tshark(dump_json, pcap):
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed")
    want = tshark_fields(pcap)
    frames, _ = dump_json(pcap)
    got = [(f["frame"], f["opcode"], f["psn"], f["dest_qp"], f["ack_req"]) for f in frames]
    assert want and got == want


@pytest.mark.parametrize("pcap", vector_pcaps(), ids=lambda p: p.name)
def test_icrc_matches_python(dump_json, pcap):
    raw = roce.read_pcap(pcap)
    frames, _ = dump_json(pcap)
    assert len(frames) == len(raw)
    assert [f["icrc_ok"] for f in frames] == [roce.icrc_ok(r) for r in raw]
    # only the deliberately corrupted frame of hostpeer_ud is wrong
    bad = [i + 1 for i, r in enumerate(raw) if not roce.icrc_ok(r)]
    assert bad == ([1] if pcap.name == "hostpeer_ud.pcap" else [])


def test_python_icrc_agrees_with_scapy():
    scapy_roce = pytest.importorskip("scapy.contrib.roce")
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    pkt = Ether() / IP(src="10.0.0.1", dst="10.0.0.2", tos=3, ttl=9) / \
        UDP(sport=0xC123, dport=4791) / \
        scapy_roce.BTH(opcode=4, dqpn=0x11, psn=0x123, padcount=3, fecn=1) / (b"abcde" + bytes(3))
    frame = bytes(pkt)
    assert roce.icrc_ok(frame)


def test_pcapng_input(dump, dump_json, vectors, tmp_path):
    if shutil.which("editcap") is None:
        pytest.skip("editcap is not installed")
    ng = tmp_path / "opgen_rc.pcapng"
    subprocess.run(["editcap", "-F", "pcapng", str(vectors / "opgen_rc.pcap"), str(ng)],
                   check=True, capture_output=True, timeout=RUN_TIMEOUT)
    assert dump_json(ng)[0] == dump_json(vectors / "opgen_rc.pcap")[0]


def test_stdin_input(dump_exe, dump_json, vectors):
    with open(vectors / "rc_pingpong.pcap", "rb") as f:
        p = subprocess.run([str(dump_exe), "--json", "-"], stdin=f, capture_output=True,
                           text=True, timeout=RUN_TIMEOUT, check=False)
    assert p.returncode == 0, p.stderr
    got = [json.loads(line) for line in p.stdout.splitlines()]
    assert got == dump_json(vectors / "rc_pingpong.pcap")[0]


# --- text mode -------------------------------------------------------------

def test_text_mode(dump, dump_json, vectors):
    frames, _ = dump_json(vectors / "opgen_rc.pcap")
    p = dump(vectors / "opgen_rc.pcap")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == len(frames) + 1
    for f, line in zip(frames, lines):
        assert line.startswith("%d RC %s psn=0x%06x dqpn=0x%06x " %
                               (f["frame"], f["opcode_name"], f["psn"], f["dest_qp"]))
        assert ("ackreq=1" in line) == f["ack_req"]
        assert line.endswith("payload=%d icrc=ok" % f["payload_len"])
    assert "immdt[0x12345602]" in lines[2]
    assert "reth[" in lines[26] and "len=64]" in lines[26]
    assert "aeth[syn=0x1f ACK credits=invalid msn=0x00000c] atomicacketh[orig=0x64]" in lines[33]
    assert summary(lines[-1]) == (38, 38, 0, 0)


def test_text_mode_bad_icrc(dump, vectors):
    p = dump(vectors / "hostpeer_ud.pcap")
    lines = p.stdout.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("1 UD UD_SEND_ONLY ") and lines[0].endswith("icrc=BAD")
    assert "deth[qkey=0x11111111 srcqp=0x000042]" in lines[0]
    assert all(line.endswith("icrc=ok") for line in lines[1:3])
    assert lines[3] == "3 frames, 3 RoCEv2, 1 bad ICRC, 0 malformed"


def test_text_verbose(dump, vectors):
    lines = dump("--verbose", vectors / "hostpeer_ud.pcap").stdout.splitlines()
    assert "ipv4 10.99.0.2 > 10.99.0.1 dscp=0 ecn=not-ect sport=0xcab3 pkey=0xffff pad=0" in lines[2]


# --- crafted frames ------------------------------------------------------------

def deth(qkey, src_qp):
    return struct.pack("!II", qkey, src_qp)


# name: (frame, expected fields, offset of a payload byte or None)
CRAFTED = {
    "ipv6_send_pad3": (
        roce.roce_frame(roce.bth(4, 0x11, 7, pad=3, ackreq=True) + b"hello" + bytes(3),
                        ipv6_=True),
        {"opcode": 4, "psn": 7, "dest_qp": 0x11, "ack_req": True, "pad": 3, "payload_len": 5,
         "ip_version": 6, "src": "fd00::a", "dst": "fd00::b", "dscp": 6, "ecn": 2},
        14 + 40 + 8 + 12),
    # a CNP (Annex A17.9.3) in a frame a switch marked CE (RFC 3168), DSCP 26
    "cnp_ce_ipv4": (
        roce.roce_frame(roce.bth(0x81, 0x33, 0, becn=True) + bytes(16), tclass=(26 << 2) | 3),
        {"opcode": 0x81, "transport": "CNP", "becn": True, "dest_qp": 0x33, "payload_len": 16,
         "dscp": 26, "ecn": 3},
        None),
    "ce_ipv6": (
        roce.roce_frame(roce.bth(4, 0x11, 9) + b"data", ipv6_=True, tclass=3),
        {"opcode": 4, "dscp": 0, "ecn": 3},
        14 + 40 + 8 + 12),
    "vlan_ipv4_ud": (
        roce.roce_frame(roce.bth(0x64, 0x42, 0x5F062A, se=True) + deth(0x11111111, 0x18) +
                        bytes(range(16)), vlan=(3 << 13) | 100),
        {"opcode": 0x64, "se": True, "payload_len": 16, "ip_version": 4,
         "vlan": {"vid": 100, "pcp": 3, "dei": 0}, "deth": {"qkey": 0x11111111, "src_qp": 0x18}},
        18 + 20 + 8 + 20),
    "zero_len_58": (
        roce.roce_frame(roce.bth(4, 0x14, 0x102, ackreq=True)),
        {"opcode": 4, "payload_len": 0, "pad": 0},
        None),
    "zero_len_padded_60": (
        roce.roce_frame(roce.bth(4, 0x14, 0x102, ackreq=True)) + bytes(2),
        {"opcode": 4, "payload_len": 0, "pad": 0},
        None),
}


@pytest.mark.parametrize("name", CRAFTED)
def test_crafted_frame(dump_json, tmp_path, name):
    frame, want, pay_off = CRAFTED[name]
    if name == "zero_len_58":
        assert len(frame) == 58
    assert roce.icrc_ok(frame)
    # corrupt a payload bit, or a PSN bit when there is no payload: both are under the ICRC
    bad = roce.flip_bit(frame, pay_off if pay_off is not None else 14 + 20 + 8 + 11)
    assert not roce.icrc_ok(bad)
    pcap = tmp_path / (name + ".pcap")
    roce.write_pcap(pcap, [frame, bad])

    frames, p = dump_json(pcap)
    assert len(frames) == 2
    good_json, bad_json = frames
    for k, v in want.items():
        assert good_json[k] == v, k
    assert good_json["icrc_ok"] is True
    assert bad_json["icrc_ok"] is False and "error" not in bad_json
    assert summary(p.stderr) == (2, 2, 1, 0)


def test_ethernet_padding_is_not_covered(dump_json, tmp_path):
    """Bytes after the ICRC (Ethernet padding to 60) are outside the packet (A17.4)."""
    frame = CRAFTED["zero_len_padded_60"][0]
    pcap = tmp_path / "pad.pcap"
    roce.write_pcap(pcap, [roce.flip_bit(frame, 59, 7)])
    frames, _ = dump_json(pcap)
    assert frames[0]["icrc_ok"] is True and frames[0]["payload_len"] == 0


def test_jumbo_frame(dump_json, tmp_path):
    payload = bytes(i & 0xFF for i in range(8900))
    frame = roce.roce_frame(roce.bth(4, 0x11, 1) + payload)
    pcap = tmp_path / "jumbo.pcap"
    roce.write_pcap(pcap, [frame, roce.flip_bit(frame, 5000)])
    frames, _ = dump_json(pcap)
    assert [(f["payload_len"], f["icrc_ok"]) for f in frames] == [(8900, True), (8900, False)]


# --- malformed and non-RoCEv2 frames -----------------------------------------------

GOOD = roce.roce_frame(roce.bth(4, 0x11, 1) + bytes(8))


def bad_ip_checksum(frame):
    b = bytearray(frame)
    b[24] ^= 0xFF
    return bytes(b)


def later_fragment_like_roce():
    """A non-first IPv4 fragment whose first bytes would read as UDP port 4791:
    it has no UDP header at all, so it is not RoCEv2."""
    data = struct.pack("!HHHH", 0xC000, roce.ROCEV2_PORT, 16, 0) + bytes(8)
    return roce.l2(roce.ETH_P_IP) + roce.ipv4(17, len(data), frag=0x0010) + data


# (frame, verdict): "ok", the parser's error text, or None for a frame that is not RoCEv2
MIXED = [
    (GOOD, "ok"),
    (roce.roce_frame(roce.bth(4, 0x11, 2)[:8]), "truncated BTH"),
    (roce.roce_frame(roce.bth(0x15, 0x11, 3) + bytes(8)), "unknown opcode"),
    (roce.roce_frame(roce.bth(4, 0x11, 4, tver=1) + bytes(8)), "bad BTH transport version"),
    (roce.roce_frame(roce.bth(4, 0x11, 5) + bytes(8), udp_len=8 + 12 + 8 + 4 - 2),
     "UDP length disagrees with IP length"),
    (roce.roce_frame(roce.bth(4, 0x11, 6, pad=3)), "pad count exceeds payload"),
    (roce.roce_frame(roce.bth(0x11, 0x11, 7) + bytes(4) + bytes(4)),
     "payload length not allowed for opcode"),
    (roce.roce_frame(roce.bth(0x0A, 0x11, 8) + bytes(8)), "truncated extension header"),
    (bad_ip_checksum(GOOD), "bad IPv4 header checksum"),
    (roce.udp_frame(roce.ROCEV2_PORT, bytes(20), frag=0x2000), "IP fragment"),
    ((GOOD[:40], len(GOOD)), "IP length disagrees with frame or header"),
    (roce.l2(roce.ETH_P_ARP) + bytes(28), None),
    (roce.udp_frame(53), None),
    (roce.udp_frame(53, frag=0x2000), None),
    (later_fragment_like_roce(), None),
    ((roce.udp_frame(53)[:30], 47), None),
    (bytes(10), None),
]


def mixed_pcap(tmp_path):
    pcap = tmp_path / "mixed.pcap"
    roce.write_pcap(pcap, [f for f, _ in MIXED])
    return pcap


def test_malformed_frames(dump, dump_json, tmp_path):
    pcap = mixed_pcap(tmp_path)
    frames, p = dump_json(pcap)
    want = [(i + 1, None if v == "ok" else v) for i, (_, v) in enumerate(MIXED) if v is not None]
    assert [(f["frame"], f.get("error")) for f in frames] == want
    assert frames[0]["icrc_ok"] is True
    assert all(f["icrc_ok"] is False for f in frames[1:])
    by_error = {f.get("error"): f for f in frames}
    # whatever was parsed before the error is there
    assert by_error["unknown opcode"]["opcode"] == 0x15
    assert by_error["unknown opcode"]["opcode_name"] == "UNKNOWN"
    assert by_error["bad BTH transport version"]["tver"] == 1
    assert by_error["UDP length disagrees with IP length"]["udp_sport"] == 0xC000
    assert "opcode" not in by_error["truncated BTH"]
    assert by_error["pad count exceeds payload"]["pad"] == 3
    assert "payload_len" not in by_error["pad count exceeds payload"]
    assert (by_error["IP length disagrees with frame or header"]["caplen"],
            by_error["IP length disagrees with frame or header"]["len"]) == (40, len(GOOD))
    assert summary(p.stderr) == (len(MIXED), len(want), 0, len(want) - 1)

    assert dump("--fail-on-error", "--json", pcap).returncode == 1
    text = dump(pcap)
    assert text.returncode == 0
    assert len(text.stdout.splitlines()) == len(want) + 1
    assert "3 RC UNKNOWN psn=0x000003 dqpn=0x000011 " in text.stdout
    assert "malformed: unknown opcode" in text.stdout


def test_verbose_lists_skipped_frames(dump_json, tmp_path):
    frames, _ = dump_json(mixed_pcap(tmp_path), "--verbose")
    skipped = [(f["frame"], f["skipped"]) for f in frames if "skipped" in f]
    assert [n for n, _ in skipped] == [i + 1 for i, (_, v) in enumerate(MIXED) if v is None]
    # the parser's reason, even where it stopped before the UDP port
    assert [reason for _, reason in skipped] == [
        "not IP", "not UDP port 4791", "not UDP port 4791", "not UDP port 4791",
        "truncated IP header", "truncated Ethernet header"]


def test_mutated_frames_do_not_crash(dump, tmp_path, vectors):
    """Every cut and random byte changes of real frames: one well-formed JSON
    line per RoCEv2 frame, and an ICRC verdict that agrees with Python's."""
    rng = random.Random(4791)
    base = roce.read_pcap(vectors / "opgen_rc.pcap") + roce.read_pcap(vectors / "hostpeer_ud.pcap")
    base += [c[0] for c in CRAFTED.values()]
    cases = []
    for f in base:
        cases += [f[:n] for n in range(0, min(len(f), 110))]
        cases += [(f[:n], len(f)) for n in range(110, len(f), 97)]
    for _ in range(4000):
        f = bytearray(rng.choice(base))
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(min(len(f), 100)) if rng.random() < 0.8 else rng.randrange(len(f))
            f[i] = rng.randrange(256)
        cases.append(bytes(f))
    pcap = tmp_path / "mutated.pcap"
    roce.write_pcap(pcap, cases)

    p = dump("--json", pcap)
    assert p.returncode == 0, p.stderr
    frames = [json.loads(line) for line in p.stdout.splitlines()]
    nums = [f["frame"] for f in frames]
    assert nums == sorted(set(nums)) and nums[-1] <= len(cases)
    errors = 0
    for f in frames:
        if "error" in f:
            errors += 1
            assert f["icrc_ok"] is False
            continue
        data = cases[f["frame"] - 1]
        data = data if isinstance(data, bytes) else data[0]
        assert f["icrc_ok"] == roce.icrc_ok(data), f
    assert summary(p.stderr)[0::3] == (len(cases), errors)
    assert summary(p.stderr)[1] == len(frames)
    assert dump(pcap).returncode == 0


# --- the command line -----------------------------------------------------------

def test_nonexistent_file(dump, tmp_path):
    missing = tmp_path / "missing.pcap"
    p = dump(missing)
    assert p.returncode == 1
    assert p.stderr.strip() == "dpdk-rdma-dump: %s: No such file or directory" % missing


def test_not_a_pcap(dump, tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("this is not a capture file\n" * 4)
    p = dump(f)
    assert p.returncode == 1
    assert p.stderr.startswith("dpdk-rdma-dump: %s: " % f)


def test_not_ethernet(dump, tmp_path):
    f = tmp_path / "raw.pcap"
    roce.write_pcap(f, [bytes(40)], linktype=101)
    p = dump(f)
    assert p.returncode == 1 and "not Ethernet" in p.stderr


# where to cut opgen_rc.pcap (24-byte file header, 16-byte record headers; the
# last record holds 70 bytes), and how many frames are still whole
CUTS = {
    "in_last_record_data": (lambda n: n - 30, 37),
    "in_last_record_header": (lambda n: n - 70 - 8, 37),
    "in_first_record_header": (lambda n: 24 + 8, 0),
    "in_file_header": (lambda n: 10, 0),
}


@pytest.mark.parametrize("where", CUTS)
def test_truncated_pcap(dump, vectors, tmp_path, where):
    cut, whole = CUTS[where]
    data = (vectors / "opgen_rc.pcap").read_bytes()
    f = tmp_path / "cut.pcap"
    f.write_bytes(data[:cut(len(data))])
    p = dump("--json", f)
    assert p.returncode == 1
    assert "dpdk-rdma-dump: %s: truncated" % f in p.stderr
    assert len(p.stdout.splitlines()) == whole


@pytest.mark.parametrize("args", [
    ["--bogus", "x.pcap"],
    [],
    ["a.pcap", "b.pcap"],
    ["--port", "0", "a.pcap"],
    ["--count", "3", "a.pcap"],
    ["--", "--count", "3"],
    ["--", "--port", "0", "extra"],
    ["--", "--port", "99999"],
    ["--", "--port", "0", "--duration", "-1"],
], ids=["unknown_option", "no_arguments", "two_files", "port_in_file_mode",
        "count_in_file_mode", "live_without_port", "live_extra_argument", "port_out_of_range",
        "negative_duration"])
def test_usage_errors(dump, args):
    p = dump(*args)
    assert p.returncode == 2
    assert "usage: dpdk-rdma-dump" in p.stderr
    assert p.stdout == ""


def test_help(dump):
    p = dump("--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: dpdk-rdma-dump")


# CM MADs (IBA 12.6) of rdma_cm traffic between two rxe VMs: the fields
# tshark 4.0 decodes too, by message
TSHARK_CM = {
    "REQ": [("infiniband.cm.req.localqpn", "qpn"), ("infiniband.cm.req.serviceid", "service_id")],
    "REP": [("infiniband.cm.rep.localqpn", "qpn"), ("infiniband.cm.rep.remotecommid", "remote_comm_id")],
    "RTU": [("infiniband.cm.rtu.localcommid", "local_comm_id"),
            ("infiniband.cm.rtu.remotecommid", "remote_comm_id")],
    "REJ": [("infiniband.cm.rej.localcommid", "local_comm_id"), ("infiniband.cm.rej.reason", "reason")],
    "DREQ": [("infiniband.cm.dreq.localcommid", "local_comm_id"),
             ("infiniband.cm.dreq.remotecommid", "remote_comm_id")],
    "DREP": [("infiniband.cm.drsp.localcommid", "local_comm_id"),
             ("infiniband.cm.drsp.remotecommid", "remote_comm_id")],
}


def tshark_cm(pcap):
    fields = sorted({f for v in TSHARK_CM.values() for f, _ in v})
    out = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=|"] +
                         [a for f in fields for a in ("-e", f)], capture_output=True, text=True,
                         timeout=RUN_TIMEOUT, check=True).stdout
    rows = []
    for line in out.splitlines():
        vals = line.split("|")
        rows.append({f: int(v.split(",")[0], 0) for f, v in zip(fields, vals) if v})
    return rows


@pytest.mark.parametrize("name,msgs", [
    ("rdmacm_rping.pcap", ["REQ", "REP", "RTU", "DREQ", "DREP"]),
    ("rdmacm_rping_rej.pcap", ["REQ", "REJ"]),
    ("rdmacm_udaddy.pcap", ["SIDR_REQ", "SIDR_REP"]),
])
def test_cm_mads(dump, dump_json, vectors, name, msgs):
    """Every UD SEND to QP1 decodes as its CM message, with the fields
    tshark decodes equal to tshark's; the REQ and REP name the QPNs the data
    frames use; the REJ says 8 (invalid service ID); the SIDR_REP gives the
    QPN udaddy sends to; text mode says the same."""
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed")
    frames, _ = dump_json(vectors / name)
    theirs = tshark_cm(vectors / name)
    cms = [(f, t) for f, t in zip(frames, theirs) if "cm" in f]
    assert all(f["dest_qp"] == 1 for f, _ in cms)
    assert [f["cm"]["msg"] for f, _ in cms][:len(msgs)] == msgs
    for f, t in cms:
        for field, ours in TSHARK_CM.get(f["cm"]["msg"], []):
            assert f["cm"][ours] == t[field], (f, t)
    data_qps = {f["dest_qp"] for f in frames if "cm" not in f}
    by = {f["cm"]["msg"]: f["cm"] for f, _ in cms}
    if "REQ" in by:
        assert by["REQ"]["service_id"] >> 16 == 0x0106 and by["REQ"]["starting_psn"] < 1 << 24
    if "REP" in by:
        assert {by["REQ"]["qpn"], by["REP"]["qpn"]} == data_qps
        assert by["REP"]["remote_comm_id"] == by["REQ"]["local_comm_id"]
    if "REJ" in by:
        assert by["REJ"]["reason"] == 8 and by["REJ"]["reason_name"]
    if "SIDR_REP" in by:
        assert by["SIDR_REP"]["status"] == 0 and by["SIDR_REP"]["qpn"] in data_qps
        assert by["SIDR_REP"]["local_comm_id"] == by["SIDR_REQ"]["local_comm_id"]
        assert by["SIDR_REQ"]["service_id"] == 0x0000000001111C06      # RDMA_PS_UDP, port 7174
    text = dump(str(vectors / name)).stdout
    assert re.search(r"^\d+ UD UD_SEND_ONLY .* cm\[%s tid=0x[0-9a-f]+ " % msgs[0], text, re.M), text
