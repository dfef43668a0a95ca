# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The hostile-frame suite: scapy in one network namespace (hostile_peer.py)
sends what a broken or malicious peer would to a running endpoint in the
other, test/hostile/dr-hostile-target on net_af_packet or net_af_xdp over
a veth, in each engine mode. The target's victim RC, UC and UD QPs are
connected to the attacker's address, so every frame reaches the check it
is aimed at; its regions sit between PROT_NONE guard pages (a read or
write outside a region kills it) and the small one inside guard bytes.

For each frame (or burst): the target survives, the counter the drop
belongs to moves by exactly what was sent (telemetry /dr/context/stats),
an RC victim answers with the NAK IBA prescribes (sniffed) and goes to
ERR where IBA says so (then reset), no region's pattern or guard bytes
changed, and valid frames built the same way are accepted (the positive
controls: the attacks fail for the reason tested, not for a bad frame).
At the end a flood of 10^5 valid-looking frames, random bytes behind a
valid UDP 4791 header, and a real client (its own process, RC over the
same link) that WRITEs, READs, SENDs and runs atomics against the same
context and protection domain, every byte checked; then the target
exits with its regions intact.

Needs root (namespaces), scapy and a built dr-hostile-target."""

import os
import random
import shutil
from dataclasses import dataclass, field

import pytest

import hostile as H
import roce
from perfutil import netns, pair

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2: the namespaces")

SETUPS = [("af_packet", "inline"), ("af_xdp", "rtc"), ("af_packet", "pipeline")]
FLOOD = 100000
RANDOM_FRAMES = 500
PAGE = 4096
PSN_MASK = 0xFFFFFF


@dataclass
class Env:
    net: object
    target: H.Target
    attacker: H.Attacker
    frames: H.Frames
    engine: list
    client_lcores: str
    tcp_port: int
    tag: str


@pytest.fixture(scope="module", params=SETUPS, ids=["%s-%s" % s for s in SETUPS])
def env(request):
    kind, mode = request.param
    if not H.target_exe().exists():
        pytest.fail("dr-hostile-target is not built: %s" % H.target_exe())
    tag = "%d%d" % (os.getpid() % 100000, SETUPS.index(request.param))
    net = netns.VethNetns(tag=tag)
    target = attacker = None
    try:
        net.create()
        engine, server_lcores, client_lcores = pair.engine(mode)
        attacker_mac = H.mac_of(net.ns_b, net.if_b)
        tcp_port = pair.free_tcp_port()
        target = H.Target(net.ns_a, kind, net.if_a, attacker_mac, engine, server_lcores, tcp_port,
                          tag)
        attacker = H.Attacker(net.ns_b, net.if_b, target.layout["mac"])
        yield Env(net, target, attacker, H.Frames(target.layout, attacker_mac), engine,
                  client_lcores, tcp_port, tag)
    finally:
        if attacker is not None:
            attacker.close()
        if target is not None:
            target.close()
        net.destroy()


def attack(env, frames, repeat=1, listen_ms=300):
    """Send; (the attacker's result, the counters' deltas)."""
    before = env.target.stats()
    res = env.attacker.send(frames, repeat=repeat, listen_ms=listen_ms)
    after = env.target.stats()
    return res, {k: after[k] - before[k] for k in after if isinstance(after[k], int)}


def intact(env):
    assert env.target.check() == {"check": "ok"}, env.target.describe()


def acks(res):
    """(psn, syndrome) of every ACK / NAK the target sent back."""
    out = []
    for f in res["replies"]:
        op, psn, syn, _ = H.parse_reply(f)
        if op == H.RC_ACK:
            out.append((psn, syn))
    return out


# ------------------------------------------------------------------ the cases
#
# A case builds its frames from (F: Frames, s: the victim's state), names the
# counters that must move by exactly the number of frames (or at least one,
# for those marked ">="), the victim's state after, and the NAK expected.

@dataclass
class Case:
    victim: str
    build: object
    counters: dict
    state: str = "RTS"
    nak: tuple = ()                  # acceptable AETH syndromes of the one NAK (RC)
    replies: int = None              # exact number of frames the target sends back
    cqes: dict = field(default_factory=dict)


def write_only(F, s, va, rkey, length, payload=None, psn=None, opcode=H.RC_WRITE_ONLY, qp="rc"):
    payload = bytes(length) if payload is None else payload
    return F.roce(opcode, F.qpn(qp), s["epsn"] if psn is None else psn,
                  H.reth(va, rkey, length), payload)


def data(F, off=0):
    m = F.mr("data")
    return m["addr"] + off, m["rkey"]


def bth_only(F, s, opcode, cut):
    return F.ip_udp(roce.bth(opcode, F.qpn("rc"), s["epsn"])[:cut])


def qkey(F):
    return F.lay["qkey"]


CASES = {
    # -- headers: dropped before any QP sees them (IBA 9.6.1; Annex A17.4)
    "truncated-bth": Case("rc", lambda F, s: [bth_only(F, s, H.RC_WRITE_ONLY, 6)],
                          {"rx_malformed": 1}, replies=0),
    "truncated-reth": Case("rc", lambda F, s: [F.ip_udp(
        roce.bth(H.RC_WRITE_ONLY, F.qpn("rc"), s["epsn"]) + bytes(10))],
        {"rx_malformed": 1}, replies=0),
    "truncated-atomiceth": Case("rc", lambda F, s: [F.roce(
        H.RC_FETCH_ADD, F.qpn("rc"), s["epsn"], bytes(20))], {"rx_malformed": 1}, replies=0),
    "reserved-opcode": Case("rc", lambda F, s: [F.roce(0x1F, F.qpn("rc"), s["epsn"], bytes(16))],
                            {"rx_malformed": 1}, replies=0),
    "unknown-vendor-opcode": Case("rc", lambda F, s: [F.roce(0xC7, F.qpn("rc"), s["epsn"],
                                                             bytes(16))],
                                  {"rx_malformed": 1}, replies=0),
    "ip-length-zero": Case("rc", lambda F, s: [F.ip_udp(bytes(40), ip_len=0)],
                           {"rx_malformed": 1}, replies=0),
    "ip-length-short": Case("rc", lambda F, s: [F.ip_udp(bytes(40), ip_len=20 + 8 + 12)],
                            {"rx_malformed": 1}, replies=0),
    "ip-length-long": Case("rc", lambda F, s: [F.ip_udp(bytes(40), ip_len=1400)],
                           {"rx_malformed": 1}, replies=0),
    "udp-length-lies": Case("rc", lambda F, s: [F.ip_udp(bytes(40), udp_len=8 + 200)],
                            {"rx_malformed": 1}, replies=0),
    "bad-icrc": Case("rc", lambda F, s: [F.roce(H.RC_WRITE_ONLY, F.qpn("rc"), s["epsn"],
                                                H.reth(*data(F), 64), bytes(64), good_icrc=False)],
                     {"rx_bad_icrc": 1}, replies=0),
    "unknown-qpn": Case("rc", lambda F, s: [F.roce(H.RC_WRITE_ONLY, 0xFFFFF0, s["epsn"],
                                                   H.reth(*data(F), 64), bytes(64))],
                        {"rx_no_qp": 1}, replies=0),
    "uc-opcode-to-rc-qp": Case("rc", lambda F, s: [F.roce(H.UC | H.RC_WRITE_ONLY, F.qpn("rc"),
                                                          s["epsn"], H.reth(*data(F), 64),
                                                          bytes(64))],
                               {"rx_no_qp": 1}, replies=0),
    "foreign-pkey": Case("rc", lambda F, s: [F.roce(H.RC_WRITE_ONLY, F.qpn("rc"), s["epsn"],
                                                    H.reth(*data(F), 64), bytes(64),
                                                    pkey=0x1234)],
                         {"rx_bad_pkey": 1}, replies=0),
    "stranger-source": Case("rc", lambda F, s: [F.roce(H.RC_WRITE_ONLY, F.qpn("rc"), s["epsn"],
                                                       H.reth(*data(F), 64), bytes(64),
                                                       src=H.STRANGER_IP)],
                            {"rx_bad_addr": 1}, replies=0),
    # -- PSNs far outside the window (IBA 9.7.5.1.1): a sequence NAK / a duplicate's ACK
    "psn-far-ahead": Case("rc", lambda F, s: [write_only(F, s, *data(F), 64,
                                                         psn=(s["epsn"] + 0x400000) & PSN_MASK)],
                          {"naks_seq_tx": 1}, nak=(H.NAK_PSN_SEQ,), replies=1),
    "psn-far-behind": Case("rc", lambda F, s: [write_only(F, s, *data(F), 64,
                                                          psn=(s["epsn"] - 0x400000) & PSN_MASK)],
                           {"rx_duplicate": 1}, replies=1),
    # -- R_Key, PD, bounds, rights (IBA 9.7.5.1.3, 10.6.3.2, C9-88): remote access NAK, QP to ERR
    "rkey-unknown": Case("rc", lambda F, s: [write_only(F, s, data(F)[0], data(F)[1] ^ 0x5A5A00,
                                                        64)],
                         {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    "rkey-of-another-pd": Case("rc", lambda F, s: [write_only(F, s, F.mr("other")["addr"],
                                                              F.mr("other")["rkey"], 64)],
                               {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    "va-just-below": Case("rc", lambda F, s: [write_only(F, s, data(F)[0] - 8, data(F)[1], 16)],
                          {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    "va-just-past": Case("rc", lambda F, s: [write_only(F, s, *data(F, 4 * PAGE), 1)],
                         {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    "va-straddles-end": Case("rc", lambda F, s: [write_only(F, s, *data(F, 4 * PAGE - 8), 16)],
                             {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    "small-region-below": Case("rc", lambda F, s: [write_only(F, s, F.mr("small")["addr"] - 4,
                                                              F.mr("small")["rkey"], 8)],
                               {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    "small-region-past": Case("rc", lambda F, s: [write_only(F, s, F.mr("small")["addr"] + 96,
                                                             F.mr("small")["rkey"], 8)],
                              {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    "read-past-end": Case("rc", lambda F, s: [F.roce(H.RC_READ_REQ, F.qpn("rc"), s["epsn"],
                                                     H.reth(*data(F, 4 * PAGE - 4), 8))],
                          {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    "read-4gib": Case("rc", lambda F, s: [F.roce(H.RC_READ_REQ, F.qpn("rc"), s["epsn"],
                                                 H.reth(*data(F), 0xFFFFFFFF))],
                      {"naks_err_tx": 1}, "ERR", (H.NAK_INVALID_REQ, H.NAK_REM_ACCESS), 1),
    "read-2gib": Case("rc", lambda F, s: [F.roce(H.RC_READ_REQ, F.qpn("rc"), s["epsn"],
                                                 H.reth(*data(F), 1 << 31))],
                      {"naks_err_tx": 1}, "ERR", (H.NAK_INVALID_REQ, H.NAK_REM_ACCESS), 1),
    "reth-length-2gib": Case("rc", lambda F, s: [write_only(F, s, *data(F), 1 << 31, bytes(1024),
                                                            opcode=H.RC_WRITE_FIRST)],
                             {"naks_err_tx": 1}, "ERR", (H.NAK_INVALID_REQ, H.NAK_REM_ACCESS), 1),
    # -- lengths (IBA 9.7.5.1.x C9-...: payload vs PMTU and DMA length): invalid request NAK
    "payload-above-mtu": Case("rc", lambda F, s: [write_only(F, s, *data(F), 1100)],
                              {"naks_err_tx": 1}, "ERR", (H.NAK_INVALID_REQ,), 1),
    "dma-length-disagrees": Case("rc", lambda F, s: [write_only(F, s, *data(F), 100, bytes(48))],
                                 {"naks_err_tx": 1}, "ERR", (H.NAK_INVALID_REQ,), 1),
    "send-above-mtu": Case("rc", lambda F, s: [F.roce(H.RC_SEND_ONLY, F.qpn("rc"), s["epsn"],
                                                      payload=bytes(1100))],
                           {"naks_err_tx": 1}, "ERR", (H.NAK_INVALID_REQ,), 1,
                           cqes={"error": 1}),
    # -- atomics (IBA 9.4.5: naturally aligned 8 bytes inside the region)
    "atomic-misaligned": Case("rc", lambda F, s: [F.roce(H.RC_FETCH_ADD, F.qpn("rc"), s["epsn"],
                                                         H.atomic_eth(data(F)[0] + 3, data(F)[1],
                                                                      1))],
                              {"naks_err_tx": 1}, "ERR", (H.NAK_INVALID_REQ,), 1),
    "atomic-past-end": Case("rc", lambda F, s: [F.roce(H.RC_FETCH_ADD, F.qpn("rc"), s["epsn"],
                                                       H.atomic_eth(*data(F, 4 * PAGE), 1))],
                            {"naks_err_tx": 1}, "ERR", (H.NAK_REM_ACCESS,), 1),
    # -- responses nobody asked for (IBA 9.7.5.2.x): dropped by the idle requester
    "unsolicited-ack": Case("rc", lambda F, s: [F.roce(H.RC_ACK, F.qpn("rc"), s["sq_psn"],
                                                       H.aeth(0x1F, 1))],
                            {"rx_stale_resp": 1}, replies=0),
    "unsolicited-read-response": Case("rc", lambda F, s: [F.roce(
        H.RC_READ_RESP_ONLY, F.qpn("rc"), s["sq_psn"], H.aeth(0x1F, 1), bytes(64))],
        {"rx_stale_resp": 1}, replies=0),
    # -- UC (IBA 9.8.x): no NAK exists, the message is dropped, the QP stays
    "uc-rkey-unknown": Case("uc", lambda F, s: [write_only(F, s, data(F)[0], data(F)[1] ^ 0x5A5A00,
                                                           64, opcode=H.UC | H.RC_WRITE_ONLY,
                                                           qp="uc")],
                            {"rx_dropped": 1}, replies=0),
    "uc-va-past": Case("uc", lambda F, s: [write_only(F, s, *data(F, 4 * PAGE - 8), 16,
                                                      opcode=H.UC | H.RC_WRITE_ONLY, qp="uc")],
                       {"rx_dropped": 1}, replies=0),
    # -- UD (IBA 9.6.x, 10.2.4): Q_Key, length
    "ud-wrong-qkey": Case("ud", lambda F, s: [F.roce(H.UD_SEND_ONLY, F.qpn("ud"), 0,
                                                     H.deth(0x22222222, 0x77), bytes(64))],
                          {"rx_dropped": 1}, replies=0),
    "ud-above-mtu": Case("ud", lambda F, s: [F.roce(H.UD_SEND_ONLY, F.qpn("ud"), 0,
                                                    H.deth(qkey(F), 0x77), bytes(1100))],
                         {"rx_dropped": 1}, replies=0),
    # -- positive controls: the same frames, right, are taken
    "control-rc-write": Case("rc", lambda F, s: [write_only(F, s, *data(F, 3 * PAGE), 64,
                                                            bytes(range(64)))],
                             {"acks_tx": 1}, replies=1),
    "control-rc-send": Case("rc", lambda F, s: [F.roce(H.RC_SEND_ONLY, F.qpn("rc"), s["epsn"],
                                                       payload=bytes(100))],
                            {"acks_tx": 1}, replies=1, cqes={"success": 1, "recv_bytes": 100}),
    "control-uc-send": Case("uc", lambda F, s: [F.roce(H.UC | H.RC_SEND_ONLY, F.qpn("uc"),
                                                       s["epsn"], payload=bytes(100))],
                            {}, replies=0, cqes={"success": 1, "recv_bytes": 100}),
    "control-ud-send": Case("ud", lambda F, s: [F.roce(H.UD_SEND_ONLY, F.qpn("ud"), 0,
                                                       H.deth(qkey(F), 0x77), bytes(100))],
                            {}, replies=0, cqes={"success": 1, "recv_bytes": 140}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_frame(env, name):
    case = CASES[name]
    t = env.target
    state = t.qp(case.victim)
    assert state["state"] == "RTS", state
    cq0 = t.cqes()["cqes"]
    res, delta = attack(env, case.build(env.frames, state))
    after = t.qp(case.victim)
    what = "%s: counters %s, replies %s, qp %s\n%s" % (
        name, {k: v for k, v in delta.items() if v}, acks(res), after, t.describe())
    for counter, n in case.counters.items():
        assert delta[counter] == n, what
    assert after["state"] == case.state, what
    if case.replies is not None:
        assert res["nreplies"] == case.replies, what
    if case.nak:
        naks = [syn for _, syn in acks(res) if syn is not None and syn >= 0x60]
        assert len(naks) == 1 and naks[0] in case.nak, what
        assert acks(res)[0][0] == state["epsn"], what      # the NAK names the bad request's PSN
    if case.counters.get("acks_tx") or name == "psn-far-behind":
        assert all(syn is not None and syn < 0x60 for _, syn in acks(res)), what
    cq = t.cqes()["cqes"]
    for k in ("success", "error", "recv_bytes"):
        assert cq[k] - cq0[k] == case.cqes.get(k, 0), what
    # nothing outside the attack's effect moved: PSNs advance only for what was accepted
    if case.state == "RTS" and case.victim != "ud":
        accepted = name.startswith("control-")
        assert after["epsn"] == (state["epsn"] + accepted) & PSN_MASK, what
    intact(env)
    if case.state != "RTS":
        assert t.reset(case.victim)["state"] == "RTS"


def test_read_returns_the_region(env):
    """A valid RDMA READ crafted here gets the region's pattern (ht_pat, seed 1)."""
    t, F = env.target, env.frames
    s = t.qp("rc")
    res, delta = attack(env, [F.roce(H.RC_READ_REQ, F.qpn("rc"), s["epsn"], H.reth(*data(F, 100), 64))])
    resp = [H.parse_reply(f) for f in res["replies"]]
    assert len(resp) == 1 and resp[0][0] == H.RC_READ_RESP_ONLY, (resp, delta)
    assert resp[0][3] == bytes(H.pattern(100 + k, 1) for k in range(64))
    assert t.qp("rc")["epsn"] == (s["epsn"] + 1) & PSN_MASK


def test_queued_after_error_state(env):
    """A valid request to a QP that a bad R_Key put in ERR is dropped (IBA 10.3.1), counted."""
    t, F = env.target, env.frames
    s = t.qp("rc")
    attack(env, [write_only(F, s, data(F)[0], 0x0BAD0BAD, 64)])
    assert t.qp("rc")["state"] == "ERR"
    res, delta = attack(env, [write_only(F, s, *data(F, 3 * PAGE), 64)])
    assert delta["rx_bad_state"] == 1 and res["nreplies"] == 0, delta
    intact(env)
    assert t.reset("rc")["state"] == "RTS"


def test_random_bytes_behind_udp_4791(env):
    """Random transport bytes (seeded): every one dropped and counted, nothing completes."""
    t, F = env.target, env.frames
    rnd = random.Random(4791)
    frames = [F.ip_udp(bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 1200))))
              for _ in range(RANDOM_FRAMES)]
    cq0 = t.cqes()["cqes"]
    res, delta = attack(env, frames, listen_ms=500)
    dropped = sum(delta[k] for k in ("rx_malformed", "rx_bad_icrc", "rx_no_qp", "rx_bad_pkey",
                                     "rx_bad_addr"))
    assert delta["rx_pkts"] - delta["rx_not_roce"] == RANDOM_FRAMES, delta
    assert dropped == RANDOM_FRAMES, delta
    assert t.cqes()["cqes"] == cq0
    for v in ("rc", "uc", "ud"):
        assert t.qp(v)["state"] == "RTS"
    intact(env)


def test_flood(env):
    """10^5 valid-looking frames: duplicates for the RC victim, wrong Q_Key for UD, an unknown
    QPN, a bad ICRC. The target takes what the link delivers, drops each for its reason, and
    answers a valid request right after."""
    t, F = env.target, env.frames
    s = t.qp("rc")
    frames = [write_only(F, s, *data(F), 64, psn=(s["epsn"] - 1000) & PSN_MASK),
              F.roce(H.UD_SEND_ONLY, F.qpn("ud"), 0, H.deth(0x22222222, 0x77), bytes(64)),
              F.roce(H.RC_WRITE_ONLY, 0xFFFFF0, s["epsn"], H.reth(*data(F), 64), bytes(64)),
              F.roce(H.RC_WRITE_ONLY, F.qpn("rc"), s["epsn"], H.reth(*data(F), 64), bytes(64),
                     good_icrc=False)]
    res, delta = attack(env, frames, repeat=FLOOD // len(frames), listen_ms=1500)
    assert res["sent"] == FLOOD
    # a veth and AF_PACKET / AF_XDP ring may drop under a flood; what arrived is accounted for
    assert delta["rx_pkts"] >= FLOOD // 2, delta
    accounted = delta["rx_duplicate"] + delta["rx_dropped"] + delta["rx_no_qp"] + \
        delta["rx_bad_icrc"]
    assert accounted == delta["rx_pkts"] - delta["rx_not_roce"], delta
    print("flood: %d frames in %.2f s, %d received, %d ACKs back" % (
        res["sent"], res["seconds"], delta["rx_pkts"], res["nreplies"]))
    assert t.qp("rc")["state"] == "RTS" and t.qp("rc")["epsn"] == s["epsn"]
    res, delta = attack(env, [write_only(F, t.qp("rc"), *data(F, 3 * PAGE), 64)])
    assert delta["acks_tx"] == 1 and t.qp("rc")["epsn"] == (s["epsn"] + 1) & PSN_MASK, delta
    intact(env)


def test_real_client_afterwards(env):
    """A real client's RC session over the same link: every byte checked on both sides."""
    rc, out, err = H.run_client(env.net.ns_b, env.net.if_b, env.engine, env.client_lcores,
                                env.tcp_port, netns.CTL_A, env.tag)
    assert rc == 0 and '{"client": "ok"}' in out, (rc, out, err, env.target.describe())
    assert env.target.out.json(key="session") == {"session": "ok"}
    intact(env)


def test_exits_intact(env):
    """quit: the regions checked once more, exit status 0."""
    answer, rc = env.target.quit()
    assert answer == {"check": "ok"} and rc == 0, env.target.describe()
