# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-faultlink on net_pcap ports: a known frame sequence in (port a
reads a pcap), what it did to it out (port b writes a pcap), each
impairment judged frame by frame against the input: loss as an ordered
subsequence, duplicates right behind their original, corruption as bit
flips, reordering as frames overtaken by exactly the configured count,
rate as spacing of the output's timestamps, delay and tail drop in the
counters; the same seed giving the same output; every counter line
conserving frames. And its command line: every bad value refused with exit
2 and a reason."""

import os
import shutil
import struct
import subprocess

import pytest

import roce
from perfutil import pair
from drperf import faultlink  # noqa: E402 (perfutil puts usertools/ on the path)

N = 1000
FRAME_LEN = 200
RUN_S = 1.5


def seq_frame(i, n=FRAME_LEN):
    """A RoCEv2-looking frame (UDP 4791) carrying its sequence number i throughout."""
    body = struct.pack("!I", i) * ((n - 42) // 4 + 1)
    return roce.roce_frame(body[:n - 42 - 4 - 12] + bytes(12))


def seq_of(frame):
    return struct.unpack_from("!I", frame, 42)[0]


def run_fl(exe, tmp_path, args, frames_a, frames_b=(), duration=RUN_S, lcores=None, tag="x"):
    """The fault link between two pcap ports for `duration` s: returns
    (counters, frames port b sent, frames port a sent, stdout); the sent
    frames as (timestamp, bytes)."""
    paths = {k: tmp_path / ("%s_%s.pcap" % (tag, k)) for k in ("in_a", "in_b", "out_a", "out_b")}
    roce.write_pcap(paths["in_a"], list(frames_a))
    roce.write_pcap(paths["in_b"], list(frames_b))
    prefix = "drflp_%s_%d" % (tag, tmp_path.stat().st_ino)
    cmd = [str(exe)] + pair.eal_common(prefix, mem_mb=256,
                                       lcores=lcores or faultlink.floating_lcore()) + [
        "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (paths["in_a"], paths["out_a"]),
        "--vdev=net_pcap1,rx_pcap=%s,tx_pcap=%s" % (paths["in_b"], paths["out_b"]),
        "--", "--duration", str(duration)] + list(args)
    side = pair.Side("faultlink", cmd, prefixes=[prefix])
    side.start()
    try:
        side.proc.wait(timeout=duration + 30)
    except subprocess.TimeoutExpired:
        side.kill()
    side.collect()
    assert side.rc == 0, side.describe()
    counters = faultlink.parse_counters(side.stdout)
    assert set(counters) == {"a->b", "b->a"}, side.describe()
    for name, c in counters.items():
        assert faultlink.conserved(c), (name, c)
    return (counters, roce.read_pcap_timed(paths["out_b"]), roce.read_pcap_timed(paths["out_a"]),
            side.stdout)


@pytest.fixture(scope="module")
def frames():
    return [seq_frame(i) for i in range(N)]


def test_plain_wire(faultlink_exe, tmp_path, frames):
    c, out_b, out_a, stdout = run_fl(faultlink_exe, tmp_path, [], frames, frames[:10])
    assert [f for _, f in out_b] == frames
    assert [f for _, f in out_a] == frames[:10]
    assert c["a->b"]["rx"] == c["a->b"]["tx"] == N
    assert c["a->b"]["rx_bytes"] == c["a->b"]["tx_bytes"] == sum(map(len, frames))
    assert "a->b: port 0 (net_pcap0) -> port 1 (net_pcap1): none limit 1000" in stdout


def test_loss_is_an_ordered_subsequence(faultlink_exe, tmp_path, frames):
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "loss 20%"], frames)
    got = [f for _, f in out]
    seqs = [seq_of(f) for f in got]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert all(f == frames[seq_of(f)] for f in got)
    assert c["a->b"]["lost"] == N - len(got)
    assert abs(c["a->b"]["lost"] - 0.2 * N) < 5 * (N * 0.2 * 0.8) ** 0.5
    assert c["b->a"]["rx"] == 0


def test_gemodel_loses_in_bursts(faultlink_exe, tmp_path):
    """p 2%, r 20%: 2/22 of the frames lost, in runs of 1/r = 5 on average."""
    n = 4000
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "loss gemodel 2% 20%", "--seed", "5"],
                          [seq_frame(i) for i in range(n)])
    kept = {seq_of(f) for _, f in out}
    lost = [i not in kept for i in range(n)]
    runs = sum(1 for i in range(n) if lost[i] and (i == 0 or not lost[i - 1]))
    assert c["a->b"]["lost"] == sum(lost)
    assert 0.04 < sum(lost) / n < 0.16, sum(lost)
    assert 3 < sum(lost) / runs < 8, (sum(lost), runs)


def test_duplicates_follow_their_original(faultlink_exe, tmp_path, frames):
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "duplicate 10%"], frames)
    got = [f for _, f in out]
    dups = sum(1 for i in range(1, len(got)) if got[i] == got[i - 1])
    assert c["a->b"]["duplicated"] == dups == len(got) - N
    assert 50 < dups < 150
    assert [seq_of(f) for i, f in enumerate(got) if i == 0 or f != got[i - 1]] == list(range(N))


def _bit_diff(a, b):
    return sum(bin(x ^ y).count("1") for x, y in zip(a, b))


def test_corruption_flips_bits_anywhere(faultlink_exe, tmp_path, frames):
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "corrupt 100%"], frames)
    assert len(out) == N and c["a->b"]["corrupted"] == N
    offsets = []
    for (_, f), orig in zip(out, frames):
        assert len(f) == len(orig)
        assert _bit_diff(f, orig) == 1
        offsets.append(next(i for i in range(len(f)) if f[i] != orig[i]))
    # the whole frame is exposed, Ethernet header to ICRC
    assert min(offsets) < 14 and max(offsets) >= FRAME_LEN - 4
    # three bits a frame, 5% of the frames
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "corrupt 5% bits 3"], frames, tag="b3")
    diffs = [_bit_diff(f, orig) for (_, f), orig in zip(out, frames)]
    assert sum(1 for d in diffs if d) == c["a->b"]["corrupted"]
    assert all(d in (0, 1, 3) for d in diffs)
    assert 20 < c["a->b"]["corrupted"] < 90


def test_reorder_holds_back_by_k_frames(faultlink_exe, tmp_path, frames):
    """reorder 10% frames 3: a held frame leaves after 3 later frames went
    ahead (time 10s: never by time in this run; the ones held at the end stay)."""
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "reorder 10% frames 3 time 10s"],
                          frames)
    seqs = [seq_of(f) for _, f in out]
    held = c["a->b"]["reordered"]
    assert 50 < held < 150
    assert c["a->b"]["left"] == N - len(seqs) and c["a->b"]["left"] <= 3
    assert len(set(seqs)) == len(seqs)
    late = [i for i, s in enumerate(seqs) if s < max(seqs[:i + 1])]
    assert len(late) == held - c["a->b"]["left"]
    for i in late:
        # overtaken by exactly 3 frames that were not held themselves
        overtakers = [s for s in seqs[:i] if s > seqs[i] and s not in (seqs[j] for j in late)]
        assert len(overtakers) == 3, (i, seqs[max(0, i - 8):i + 1])
    # everything not held keeps its order
    on_time = [s for i, s in enumerate(seqs) if i not in set(late)]
    assert on_time == sorted(on_time)


def test_same_seed_same_fates(faultlink_exe, tmp_path, frames):
    spec = ["--ab", "loss 10% duplicate 5% corrupt 5% reorder 10% frames 2 time 10s"]
    runs = [run_fl(faultlink_exe, tmp_path, spec + ["--seed", s], frames, tag="s%d" % i)
            for i, s in enumerate(("7", "7", "8"))]
    outs = [[f for _, f in r[1]] for r in runs]
    assert outs[0] == outs[1]
    assert runs[0][0] == runs[1][0]
    assert outs[0] != outs[2]


def test_rate_spaces_frames(faultlink_exe, tmp_path, frames):
    """1 Mbit/s: a 200-byte frame takes 1.6 ms on the wire, 200 of them at
    least 318 ms. Each frame is due a serialisation time after the one
    before (netem's rule); a link lcore that was descheduled sends what
    came due meanwhile at once, as netem does, so on a busy machine single
    gaps say nothing. Spans over many frames do: a stall of a scheduler
    slice (milliseconds) shifts a 20-frame window of 32 ms and the whole run
    by that much and no more."""
    n, k = 200, 20
    tx = FRAME_LEN * 8 / 1e6
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "rate 1mbit"], frames[:n])
    assert len(out) == n and c["a->b"]["queue_drop"] == 0
    span = out[-1][0] - out[0][0]
    assert span >= 0.95 * (n - 1) * tx, span
    windows = sorted(out[i + k][0] - out[i][0] for i in range(n - k))
    assert windows[len(windows) // 2] >= 0.9 * k * tx, windows[len(windows) // 2]


def test_rate_queue_tail_drops(faultlink_exe, tmp_path, frames):
    """1 Mbit/s and a queue of 20: a burst of 1000 frames mostly falls off the tail."""
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "rate 1mbit limit 20"], frames)
    d = c["a->b"]
    assert d["queue_drop"] > 800
    assert d["tx"] + d["left"] + d["queue_drop"] == N
    assert len(out) == d["tx"] >= 20
    seqs = [seq_of(f) for _, f in out]
    assert seqs == sorted(seqs)


def test_delay_holds_every_frame(faultlink_exe, tmp_path, frames):
    """delay 400ms: a run of 0.2 s sends nothing (all left at exit), a run of 2 s all."""
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "delay 400ms"], frames[:100],
                          duration=0.2)
    assert len(out) == 0 and c["a->b"]["left"] == 100
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "delay 400ms"], frames[:100],
                          duration=2.0, tag="long")
    assert len(out) == 100 and c["a->b"]["left"] == 0


def test_jitter_keeps_order(faultlink_exe, tmp_path, frames):
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--ab", "delay 1ms 900us"], frames)
    assert [f for _, f in out] == frames


def test_roce_only_spares_other_frames(faultlink_exe, tmp_path, frames):
    arp = roce.l2(roce.ETH_P_ARP) + bytes(46)
    other = roce.udp_frame(4792, b"x" * 40)
    mix = [frames[i] if i % 3 else (arp if i % 2 else other) for i in range(300)]
    c, out, _, _ = run_fl(faultlink_exe, tmp_path, ["--roce-only", "--ab", "loss 100%"], mix)
    spared = [f for f in mix if f in (arp, other)]
    assert [f for _, f in out] == spared
    assert c["a->b"]["passed"] == len(spared)
    assert c["a->b"]["lost"] == len(mix) - len(spared)


def test_directions_are_independent(faultlink_exe, tmp_path, frames):
    c, out_b, out_a, _ = run_fl(faultlink_exe, tmp_path, ["--both", "loss 100%", "--ba", "none"],
                                frames[:100], frames[100:300])
    assert out_b == [] and c["a->b"]["lost"] == 100
    assert [f for _, f in out_a] == frames[100:300]


def test_one_lcore_per_direction(faultlink_exe, tmp_path, frames):
    cpus = sorted(os.sched_getaffinity(0))
    lcores = "(0-1)@%d" % cpus[0]
    c, out_b, out_a, stdout = run_fl(faultlink_exe, tmp_path, ["--idle-us", "50"], frames,
                                     frames[:500], lcores=lcores)
    assert "one lcore per direction" in stdout
    assert [f for _, f in out_b] == frames
    assert [f for _, f in out_a] == frames[:500]


# -- the command line
def _cli(exe, *args, eal=()):
    return subprocess.run([str(exe)] + list(eal) + ["--"] + list(args), capture_output=True,
                          text=True, timeout=30)


@pytest.mark.parametrize("args, why", [
    (["--ab", "loss 10"], "not a percentage"),
    (["--ab", "loss 120%"], "not a percentage"),
    (["--both", "delay 10"], "not a time with a unit"),
    (["--ba", "rate 100"], "not a rate with a unit"),
    (["--ab", "jitter 1ms"], "unknown word 'jitter'"),
    (["--ab", ""], "empty impairment string"),
    (["--ab", "limit 0"], "limit"),
    (["--ab", "reorder 5% frames 0"], "reorder frames"),
    (["--ports", "0"], "two port numbers"),
    (["--ports", "1,1"], "cannot be wired to itself"),
    (["--ports", "0,99"], "not a number from 0"),
    (["--burst", "0"], "--burst"),
    (["--burst", "513"], "--burst"),
    (["--idle-us", "x"], "--idle-us"),
    (["--duration", "-1"], "--duration"),
    (["--max-frame", "10"], "--max-frame"),
    (["--seed", "-3"], "--seed"),
    (["--ab"], "needs a value"),
    (["--bogus"], "unknown option"),
    (["loss", "10%"], "not an option"),
])
def test_bad_command_line(faultlink_exe, args, why):
    r = _cli(faultlink_exe, *args)
    assert r.returncode == 2, r
    assert why in r.stderr, r.stderr
    assert r.stdout == ""


def test_help(faultlink_exe):
    r = _cli(faultlink_exe, "--help")
    assert r.returncode == 0 and "Usage:" in r.stdout and "gemodel" in r.stdout


@pytest.fixture
def prefix(tmp_path):
    p = "drflp_one_%d" % tmp_path.stat().st_ino
    yield p
    for d in pair.dpdk_runtime_dirs(p):
        shutil.rmtree(d, ignore_errors=True)


def test_needs_two_ports(faultlink_exe, tmp_path, prefix):
    roce.write_pcap(tmp_path / "e.pcap", [])
    eal = pair.eal_common(prefix, mem_mb=128) + [
        "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (tmp_path / "e.pcap", tmp_path / "o.pcap")]
    r = _cli(faultlink_exe, eal=eal)
    assert r.returncode == 1 and "needs two DPDK ports" in r.stderr, r
    eal += ["--vdev=net_pcap1,rx_pcap=%s,tx_pcap=%s" % (tmp_path / "e.pcap", tmp_path / "p.pcap")]
    r = _cli(faultlink_exe, "--ports", "0,5", eal=eal)
    assert r.returncode == 2 and "there is no port 5" in r.stderr, r
