# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-faultlink --switch: a learning switch whose egress queues are
congestion points. A dumbbell of two checked write_bw pairs over memif whose
receivers share one 100 Mb/s egress queue with RED/ECN: both complete with
every byte checked, the frames are conserved, the shared queue drops or
would mark (our frames are Not-ECT without --cc) and, with --cc dcqcn
(ECT(0) on every frame), marks CE. On net_pcap ports, frame by frame: ECT
frames past kmax come out CE with their IPv4 header checksum and RoCEv2
ICRC valid, Not-ECT frames untouched. Telemetry in switch mode, and the
switch's command line errors."""

import json
import os
import signal
import subprocess
import threading
import time

import pytest

import roce
from perfutil import RUN_TIMEOUT, pair
from drperf import faultlink, switch  # noqa: E402 (perfutil puts usertools/ on the path)

TELEMETRY_PY = "/usr/bin/dpdk-telemetry.py"
BOTTLENECK = "rate 100mbit limit 200 ecn kmin 30KB kmax 150KB pmax 10%"
BW = ["write_bw", "-s", "65536", "-n", "50", "--check"]


def _dumbbell(perf_exe, faultlink_exe, extra=()):
    """s1, s2 on ports 0, 1; r1, r2 on ports 2, 3 behind one shared egress queue."""
    with switch.Switch(4, ["--egress-group", "2,3", BOTTLENECK], exe=faultlink_exe) as sw:
        res = sw.run_pairs([(2, 0), (3, 1)], BW + list(extra), exe=perf_exe,
                           timeout=RUN_TIMEOUT)
    for r in res:
        assert r is not None and r.ok, (r.describe() if r else "pair hung") + "\n" + sw.describe()
        assert "Data check: OK" in r.client.stdout + r.server.stdout, r.describe()
    c = sw.counters
    assert c and switch.conserved(c), sw.stdout
    assert set(c) == {"port0", "port1", "port2", "port3", "egress0", "egress1", "egress2+3",
                      "switch"}, c
    assert c["switch"]["learned"] == 4, c["switch"]
    # the data went through the bottleneck: it held a queue
    bn = c["egress2+3"]
    assert bn["tx"] > 2 * 50 * 65536 // 1500, bn
    assert 0 < bn["q_p50"] <= bn["q_p90"] <= bn["q_p99"] <= bn["q_max"], bn
    assert bn["q_max"] > 150000, bn          # above kmax: every arrival there is marked
    for k in ("egress0", "egress1"):         # the unimpaired ACK side dropped nothing
        assert c[k]["queue_drop"] == 0 and c[k]["ecn_marked"] == c[k]["ecn_not_ect"] == 0, c[k]
    return c


def test_dumbbell_not_ect(perf_exe, faultlink_exe):
    """No --cc: Not-ECT frames are never marked, RED only counts them and the
    queue tail-drops past its limit."""
    bn = _dumbbell(perf_exe, faultlink_exe)["egress2+3"]
    assert bn["ecn_marked"] == 0 and bn["ecn_not_ect"] > 0, bn
    assert bn["queue_drop"] > 0, bn


def test_dumbbell_dcqcn_marked(perf_exe, faultlink_exe):
    """--cc dcqcn: every frame ECT(0), the shared queue marks them CE."""
    bn = _dumbbell(perf_exe, faultlink_exe, ["--cc", "dcqcn"])["egress2+3"]
    assert bn["ecn_marked"] > 0 and bn["ecn_not_ect"] == 0, bn


# -- endpoints that come and go while the switch forwards to them

CHURN_S = 30          # how long endpoints keep coming and going
CHURN_MAX = 40        # exits at most


def _wire_side(exe, name, prefix, lcores, vdevs, mem_mb=128):
    """A two-port dpdk-rdma-faultlink wire (no impairments): an endpoint of the switch."""
    cmd = [str(exe)] + pair.eal_common(prefix, mem_mb=mem_mb, lcores=lcores) + vdevs + \
        ["--", "--max-frame", "2048"]
    return pair.Side(name, cmd, prefixes=[prefix])


def _wait_forwarding(side, limit=20):
    end = time.monotonic() + limit
    while time.monotonic() < end and side.proc.poll() is None:
        if faultlink.READY.search(side.printed()):
            return True
        time.sleep(0.02)
    return False


def test_endpoint_churn(faultlink_exe, tmp_path):
    """A source floods broadcast frames into port 0 without pause; on port 1
    a sink connects, takes them and exits (SIGTERM: its port closes and tells
    the switch; SIGKILL: its socket just closes), again and again. The switch
    handles each exit on EAL's interrupt thread, where memif_disconnect()
    unmaps the port's rings, while its lcore sends to that port: it must
    outlive every exit (it holds the interrupt thread between bursts,
    intr_gate.c), then exit on SIGTERM with its counters conserved."""
    cpus = sorted(os.sched_getaffinity(0))
    frame = b"\xff" * 6 + bytes.fromhex("02005fee0001") + b"\x88\xb5" + bytes(1000)
    src_pcap = tmp_path / "src.pcap"
    roce.write_pcap(src_pcap, [frame] * 64)
    tag = "%d" % (os.getpid() % 100000)
    sinks_rx, exits = 0, 0
    with switch.Switch(2, ["--all", "limit 256"], exe=faultlink_exe) as sw:
        # the source shares the switch's CPU: the switch's lcore is preempted, in bursts too
        src = _wire_side(faultlink_exe, "source", "drswsrc_" + tag, str(cpus[-1]), [
            "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=/dev/null,infinite_rx=1" % src_pcap,
            "--vdev=net_memif0,role=client,socket=%s,socket-abstract=no,bsize=%d,mac=%s" %
            (sw.socks[0], pair.MEMIF_BSIZE, switch.mac_of(0, 0xee))])
        src.start()
        try:
            assert _wait_forwarding(src), src.describe()
            end = time.monotonic() + CHURN_S
            while time.monotonic() < end and exits < CHURN_MAX:
                sink = _wire_side(faultlink_exe, "sink", "drswsnk_%s_%d" % (tag, exits),
                                  str(cpus[0]), [
                    "--vdev=net_memif0,role=client,socket=%s,socket-abstract=no,bsize=%d,"
                    "mac=%s" % (sw.socks[1], pair.MEMIF_BSIZE, switch.mac_of(1, 0xee)),
                    "--vdev=net_null0,no-rx=1"])
                sink.start()
                up = _wait_forwarding(sink)
                time.sleep(0.3)
                pair.terminate(sink.proc, grace=5,
                               sig=signal.SIGTERM if exits % 2 == 0 else signal.SIGKILL)
                sink.collect()
                exits += 1
                assert up, sink.describe()
                c = faultlink.parse_counters(sink.stdout)
                sinks_rx += c.get("a->b", {}).get("rx", 0)
                if sw.side.proc.poll() is not None:
                    break               # it died: Switch.stop() collects what it said
        finally:
            pair.terminate(src.proc, grace=5)
            src.collect()
    assert sw.side.rc == 0, "the switch, at exit %d of a sink:\n%s" % (exits, sw.describe())
    c = sw.counters
    assert c and switch.conserved(c), sw.stdout
    assert exits >= 10 and sinks_rx > 0 and c["port1"]["tx"] > 0, (exits, sinks_rx, c)


# -- frame by frame on net_pcap ports

DSCP = 26 << 2
KINDS = (("ipv4 ect0", dict(tclass=DSCP | 2)), ("ipv4 not-ect", dict(tclass=DSCP)),
         ("ipv6 ect1", dict(tclass=DSCP | 1, ipv6_=True)),
         ("vlan ipv4 ect0", dict(tclass=DSCP | 2, vlan=5)))


def _frames(n):
    out = []
    for i in range(n):
        name, kw = KINDS[i % len(KINDS)]
        out.append((name, roce.roce_frame(roce.bth(0x04, 0x11, i) + bytes(100), **kw)))
    return out


def _ip_offset(frame):
    return 18 if frame[12:14] == b"\x81\x00" else 14


def _tclass(frame):
    l3 = _ip_offset(frame)
    if frame[l3] >> 4 == 4:
        return frame[l3 + 1]
    return ((frame[l3] & 0xF) << 4) | (frame[l3 + 1] >> 4)


def _run_pcap(exe, tmp_path, args, inputs, duration=1.5, telemetry=None):
    paths = []
    cmd_vdevs = []
    for i, frames in enumerate(inputs):
        rx, tx = tmp_path / ("in%d.pcap" % i), tmp_path / ("out%d.pcap" % i)
        roce.write_pcap(rx, list(frames))
        paths.append(tx)
        cmd_vdevs.append("--vdev=net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (i, rx, tx))
    prefix = "drswp_%d" % tmp_path.stat().st_ino
    cmd = [str(exe)] + pair.eal_common(prefix, mem_mb=256, lcores=faultlink.floating_lcore()) + \
        cmd_vdevs + ["--", "--switch", "--duration", str(duration), "--idle-us", "20"] + list(args)
    side = pair.Side("switch", cmd, prefixes=[prefix])
    side.start()
    answers = telemetry(prefix, side) if telemetry else None
    try:
        side.proc.wait(timeout=duration + 30)
    except subprocess.TimeoutExpired:
        side.kill()
    side.collect()
    assert side.rc == 0, side.describe()
    c = faultlink.parse_counters(side.stdout)
    assert switch.conserved(c), side.describe()
    return c, [roce.read_pcap(p) for p in paths], side.stdout, answers


def test_pcap_ce_marking(faultlink_exe, tmp_path):
    """200 frames to an unknown station, flooded to ports 1 and 2 through their
    shared 10 Mb/s queue: the first finds it empty (never marked), every ECT
    frame from the 100th on finds it past kmax (always marked); nothing else
    in a frame changes, its IPv4 checksum and ICRC stay valid."""
    frames = _frames(200)
    c, outs, stdout, _ = _run_pcap(
        faultlink_exe, tmp_path,
        ["--egress-group", "1,2", "rate 10mbit ecn kmin 3KB kmax 6KB pmax 20%"],
        [[f for _, f in frames], [], []])
    eg = c["egress1+2"]
    assert eg["rx"] == 400 and eg["tx"] == 400 and eg["queue_drop"] == 0, eg
    assert c["port0"]["flooded"] == 200 and c["switch"]["copies"] == 200, c
    assert "egress1+2: to port 1 (net_pcap1) port 2 (net_pcap2): rate 10000000bit ecn kmin " \
           "3000B kmax 6000B pmax 20% limit 1000" in stdout, stdout
    marked = 0
    for out in outs[1:]:
        assert len(out) == 200
        for i, ((name, inp), got) in enumerate(zip(frames, out)):
            assert roce.icrc_ok(got), (i, name)
            l3 = _ip_offset(got)
            if "ipv4" in name:
                assert roce.ipv4_checksum(got[l3:l3 + 20]) == 0, (i, name)
            tin, tout = _tclass(inp), _tclass(got)
            if "not-ect" in name:
                assert got == inp, (i, name)
                continue
            assert tout in (tin, tin | 3), (i, name, tin, tout)
            if i == 0:
                assert got == inp, "the first frame found an empty queue"
            if i >= 100:
                assert tout == tin | 3, (i, name, "past kmax: always CE")
            # only the traffic class (and the IPv4 checksum) changed
            same = bytearray(got)
            if "ipv4" in name:
                same[l3 + 1], same[l3 + 10:l3 + 12] = inp[l3 + 1], inp[l3 + 10:l3 + 12]
            else:
                same[l3:l3 + 2] = inp[l3:l3 + 2]
            assert bytes(same) == inp, (i, name)
            marked += tout != tin
    assert eg["ecn_marked"] == marked and eg["ecn_not_ect"] > 0, (eg, marked)
    assert eg["q_max"] > 6000


def _query(prefix, cmds):
    r = subprocess.run(["/usr/bin/python3", TELEMETRY_PY, "-f", prefix],
                       input="\n".join(cmds) + "\n", capture_output=True, text=True, timeout=30)
    replies = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    return [rep[c.split(",")[0]] for rep, c in zip(replies, cmds)] \
        if len(replies) == len(cmds) else None


@pytest.mark.skipif(not os.access(TELEMETRY_PY, os.X_OK), reason="dpdk-telemetry.py not installed")
def test_switch_telemetry(faultlink_exe, tmp_path):
    def ask(prefix, side):
        end = time.monotonic() + 20
        while time.monotonic() < end and b"forwarding" not in side.printed():
            time.sleep(0.05)
        return _query(prefix, ["/faultlink/config", "/faultlink/stats",
                               "/faultlink/set,egress1_2 loss 5%", "/faultlink/set,egress7 none",
                               "/faultlink/set,all delay 1ms"])
    holder = {}
    th = threading.Thread(target=lambda: holder.setdefault("r", _run_pcap(
        faultlink_exe, tmp_path, ["--egress-group", "1,2", "rate 1gbit", "--all", "limit 100"],
        [[f for _, f in _frames(10)], [], []], duration=3, telemetry=ask)))
    th.start()
    th.join(60)
    c, _, _, answers = holder["r"]
    assert answers, "no telemetry answers"
    config, stats, set1, bad, set_all = answers
    assert config["ports"] == 3
    assert config["egress0"] == "none limit 100"
    assert config["egress1_2"] == "rate 1000000000bit limit 100"
    assert {"egress0", "egress1_2", "port0", "port1", "port2", "switch"} <= set(stats), stats
    assert "q_p99" in stats["egress1_2"] and "in_flight" in stats["egress1_2"]
    assert stats["port0"]["rx"] == 10 and stats["switch"]["rx"] == 10, stats
    assert set1["egress1_2"] == "loss 5% rate 1000000000bit limit 100", set1
    assert "unknown egress queue" in bad["error"], bad
    assert set_all["egress0"] == "delay 1ms limit 100", set_all
    # two changes published back to back may be taken as one (the latest)
    assert c["egress1+2"]["changes"] in (1, 2) and c["egress0"]["changes"] == 1, c


def _cli(exe, *args, vdevs=0, tmp_path=None):
    eal = ["--no-huge", "-m", "64", "--no-pci", "--file-prefix=drswcli_%d" % os.getpid(), "-l", "0"]
    for i in range(vdevs):
        f = tmp_path / ("e%d.pcap" % i)
        roce.write_pcap(f, [])
        eal.append("--vdev=net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (i, f, tmp_path / ("o%d.pcap" % i)))
    return subprocess.run([str(exe)] + eal + ["--"] + list(args), capture_output=True, text=True,
                          timeout=30)


@pytest.mark.parametrize("args,why", [
    (["--switch", "--both", "loss 1%"], "--both: is for the two-port wire"),
    (["--egress", "1", "rate 1mbit"], "--egress: needs --switch"),
    (["--all", "rate 1mbit"], "--all: needs --switch"),
    (["--switch", "--egress", "1"], "needs a SPEC after it"),
    (["--switch", "--egress", "x", "rate 1mbit"], "'x' is not a number"),
    (["--switch", "--egress", "1", "rate 1"], "rate: '1' is not a rate"),
    (["--switch", "--all", "ecn kmin 5KB kmax 1KB"], "ecn: kmin (5000 bytes) is above kmax"),
    (["--switch", "--all", "ecn kmin 5XB"], "ecn kmin: '5XB' is not a number of bytes"),
    (["--switch", "--all", "ecn pmax 5"], "ecn pmax: '5' is not a percentage"),
    (["--switch", "--egress-group", "1,2", "none", "--egress-group", "2,3", "none"],
     "port 2 is in another group already"),
    (["--switch", "--egress-group", "1,1", "none"], "a port is named twice"),
    (["--switch", "--ports", "0"], "not a list of two port numbers or more"),
    (["--switch", "--ports", ",".join(map(str, range(17)))], "16 at most"),
    (["--ab", "ecn kmax"], "ecn kmax: a size is missing"),
])
def test_bad_command_line(faultlink_exe, args, why):
    r = _cli(faultlink_exe, *args)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    assert why in r.stderr, (args, r.stderr)


def test_bad_ports_at_setup(faultlink_exe, tmp_path):
    r = _cli(faultlink_exe, "--switch", "--egress", "5", "none", vdevs=2, tmp_path=tmp_path)
    assert r.returncode == 2 and "--egress 5: port 5 is not a port of the switch" in r.stderr, \
        r.stderr
    r = _cli(faultlink_exe, "--switch", "--ports", "0,7", vdevs=2, tmp_path=tmp_path)
    assert r.returncode == 2 and "--ports: there is no port 7" in r.stderr, r.stderr
    r = _cli(faultlink_exe, "--switch", vdevs=1, tmp_path=tmp_path)
    assert r.returncode == 1 and "needs two ports at least" in r.stderr, r.stderr
