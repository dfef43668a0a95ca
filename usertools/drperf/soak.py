# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The soak: mixed traffic through the fault link for a set time, one
dpdk-rdma-perf --persist server serving client after client.

    report = Soak(duration=60, mode="inline", seed=1).run()
    report["ok"], report["errors"], report["heap"]["diff_bytes"]

dpdk-rdma-faultlink joins two memif ports (usertools/drperf/faultlink.py),
impairing both directions (matrix.IMPAIR by default: 10% loss, 5%
reordering, 1% duplication, 0.5% corruption). Behind side a runs one
dpdk-rdma-perf --persist server in the engine mode asked, for the whole
soak: its EAL, port, context and engine lcores stay, while every client
creates and destroys its QPs, CQs, MRs and buffers (the connect/destroy
churn) and is itself a new process with a new port on side b. Each round
is a seeded random choice: the test (the eight of send, write, read, atomic
x bw, lat; with or without immediate data; -A), the QP type (RC; UC for
send_bw and write_bw, UD for send_bw: bw tests only, judged as the fault
matrix judges them: every message that arrives is checked, the receiver
counts the lost ones, nothing is retransmitted, something arrives), 1 to 8
QPs for the bw tests, one to three sizes of 0, 1, MTU-1, MTU+1, 64 KiB+1,
1 MiB (UD: up to the MTU; atomics: 8; write_lat: from 1), iterations for a
round of a few seconds, always --check.

Judged, each round: the client exits 0, its rows have every size with
exactly the iterations asked, both sides say "Data check: OK", the server
says the run was ok, the server's context has no QP left once the run is
over (/dr/context/stats "qps" 0); where one side's frames alone cross a
direction (the client's requests of a bw test, of read_lat and atomic_lat;
the server's READ and atomic responses) they are counted on the fault link:
at least a lossless run's, the excess its retransmissions (and, from a
responder, its SACKs and NAKs; UC and UD: exactly a lossless run's). Over the soak: the server's heap (/eal/heap_info,0
Alloc_size, Alloc_count) and the mbufs in use of its context's pool
(dpdk-rdma-perf's /perf/pool: rte_mempool_in_use_count(), what the lcore
caches hold counted as available; DPDK 22.11's /mempool/info has no free
count)
after a reference round at the start and the same reference round at the
end, within HEAP_TOLERANCE and MBUF_TOLERANCE; the server exits 0 on
SIGTERM and says it served every run. Everything started is killed by PID
and its runtime directory and sockets removed, each step bounded in time."""

import json
import os
import random
import re
import socket
import time
from collections import Counter

from . import faultlink, matrix, pair, table

MTU = matrix.MTU
SIZES = (0, 1, MTU - 1, MTU + 1, 64 * 1024 + 1, 1 << 20)
UD_SIZES = (0, 1, MTU - 1, MTU)
ATOMIC_SIZE = 8
TESTS = ("send_bw", "send_lat", "write_bw", "write_lat", "read_bw", "read_lat",
         "atomic_bw", "atomic_lat")
MAX_QPS = 8
BW_BYTES = 16 << 20          # bytes a bw round moves per size (all QPs), about
LAT_BYTES = 4 << 20          # ... and a lat round
MIN_ITERS, MAX_ITERS = 5, 500
ROUND_TIMEOUT = 120          # a client's longest round, seconds
SERVER_LOG_WAIT = 20         # the server's "persist: run N" line after its client exited
# Memory at the end against the start, both after the same reference round:
# the heap must come back exactly (every object of a run is freed when the
# run is destroyed; a lazily made table that stays would show once, not grow);
# the pool's count is read while the engine may be in the middle of a burst
# (rtc, pipeline: the worker lcores poll on; the telemetry thread reads
# each lcore cache without a lock), so one burst of it is allowed.
HEAP_TOLERANCE = 0
MBUF_TOLERANCE = 32
REFERENCE = {"test": "send_bw", "conn": "RC", "qps": 2, "sizes": [1, MTU + 1, 64 * 1024 + 1],
             "iters": 20, "extra": []}
RUN_LINE = re.compile(r"dpdk-rdma-perf: persist: run (\d+) \(([^)]*)\): (ok|failed)")
STOP_LINE = re.compile(r"dpdk-rdma-perf: persist: stopped by a signal after (\d+) runs, "
                       r"(\d+) failed")
VERIFIED = re.compile(r"Data check: OK, (\d+) bytes verified")
RETRANSMIT_KEYS = ("retries", "sr_resends", "rereads", "ack_timeouts", "naks_seq_rx",
                   "sacks_rx", "sacks_tx", "rx_duplicate")


def telemetry(prefix, cmd, timeout=10):
    """One command to a DPDK process's telemetry socket (v2, SOCK_SEQPACKET)."""
    path = pair.dpdk_runtime_dirs(prefix)[0] / "dpdk_telemetry.v2"
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(timeout)
        s.connect(str(path))
        s.recv(65536)                       # the greeting
        s.send(cmd.encode())
        return json.loads(s.recv(1 << 22).decode())[cmd.split(",")[0]]


def _iters(test, sizes, qps):
    big = max(max(sizes), 256)
    # READ responses are recovered go-back-N from the first byte lost (not selectively):
    # at 10% loss a 64 KiB READ costs about 7 times its frames, a 1 MiB one 85 times
    cost = 8 if test.startswith("read") else 1
    if test.startswith("atomic"):
        return 500 if test.endswith("_bw") else 200
    if test.endswith("_lat"):
        return max(MIN_ITERS, min(200, LAT_BYTES // (big * cost)))
    return max(MIN_ITERS, min(MAX_ITERS, BW_BYTES // (big * qps * cost)))


def choose_round(rng, max_qps=MAX_QPS):
    """One round's test, QP type, QP count, sizes, iterations and options."""
    test = rng.choice(TESTS)
    conn, extra = "RC", []
    if test == "send_bw":
        conn = rng.choice(("RC", "RC", "UC", "UD"))
    elif test == "write_bw":
        conn = rng.choice(("RC", "RC", "UC"))
    if test in ("send_bw", "send_lat") and rng.random() < 0.5:
        extra.append("--send_with_imm")
    if test == "write_bw" and rng.random() < 0.5:
        extra.append("--write_with_imm")
    if test.startswith("atomic"):
        extra += ["-A", rng.choice(("CMP_AND_SWAP", "FETCH_AND_ADD"))]
    qps = rng.randint(1, max_qps) if test.endswith("_bw") else 1
    if test.startswith("atomic"):
        sizes = [ATOMIC_SIZE]
    else:
        allowed = UD_SIZES if conn == "UD" else SIZES
        if test == "write_lat":
            allowed = tuple(s for s in allowed if s > 0)
        sizes = sorted(rng.sample(allowed, rng.randint(1, 3)))
    return {"test": test, "conn": conn, "qps": qps, "sizes": sizes,
            "iters": _iters(test, sizes, qps), "extra": extra}


def ideal_frames(spec):
    """Frames each side sends on a lossless link where only its own requests or
    responses cross in that direction: {"client": n, "server": n}, None where
    both kinds cross (a ping-pong's messages and ACKs). The client's: a bw
    test's requests (a READ or an atomic is one frame), read_lat's and
    atomic_lat's; the server's: the READ responses (a frame per MTU) and the
    atomic responses (one each)."""
    test, n = spec["test"], spec["iters"] * spec["qps"]
    fetch = test.startswith(("read", "atomic"))
    per = (lambda s: 1) if fetch else matrix.packets
    client = sum(n * per(s) for s in spec["sizes"]) if test.endswith("_bw") or fetch else None
    server = None
    if fetch:
        per = (lambda s: 1) if test.startswith("atomic") else matrix.packets
        server = sum(n * per(s) for s in spec["sizes"])
    return {"client": client, "server": server}


def perf_args(spec):
    return ([spec["test"], "--check", "-m", str(MTU), "--sizes", ",".join(map(str, spec["sizes"])),
             "-n", str(spec["iters"]), "-q", str(spec["qps"]), "-c", spec["conn"]] + spec["extra"])


def describe_spec(spec):
    return " ".join(perf_args(spec))


class Soak:
    """duration: seconds of random rounds (after the reference round); mode:
    the server's engine mode (the clients run inline); impair: the fault
    link's SPEC for both directions."""

    def __init__(self, duration=60, mode="inline", seed=1, impair=matrix.IMPAIR,
                 max_qps=MAX_QPS, perf_exe=None, faultlink_exe=None, log=None,
                 max_rounds=None):
        self.duration = duration
        self.mode = mode
        self.seed = seed
        self.impair = impair
        self.max_qps = max_qps
        self.perf_exe = perf_exe or pair.perf_exe()
        self.faultlink_exe = faultlink_exe or faultlink.exe_path()
        self.log = log or (lambda msg: None)
        self.max_rounds = max_rounds
        self.rng = random.Random(seed)
        self.fl = None
        self.server = None
        self.port = None
        self.tag = "%d%d" % (os.getpid() % 100000, time.monotonic_ns() % 10000)
        self.server_prefix = "drsk_s" + self.tag
        self.rounds = []
        self.failures = []
        self.out_off = 0
        self.runs_seen = 0
        self.qps_left_max = 0

    # -- the server and its telemetry
    def _server_text(self, f, off=0):
        return os.pread(f.fileno(), 1 << 26, off).decode(errors="replace")

    def _start(self):
        self.fl = faultlink.FaultLink(("memif", "memif"),
                                      ["--both", self.impair, "--seed", str(self.seed)],
                                      exe=self.faultlink_exe, tag=self.tag).start()
        extra, srv_lcores, _ = pair.engine(self.mode)
        self.cli_lcores = pair.default_lcores()[1]          # the clients run inline
        self.port = pair.free_tcp_port()
        cmd = pair.perf_cmd(self.perf_exe, self.fl.endpoint_eal("a", self.server_prefix, srv_lcores),
                            ["write_bw", "--persist", "-s", str(max(SIZES)), "-m", str(MTU)] + extra,
                            pair.SERVER_IP, self.port)
        self.server = pair.Side("server", cmd, prefixes=[self.server_prefix], lcores=str(srv_lcores))
        self.server.start()
        if not self.server.wait_ready():
            raise RuntimeError("the persist server did not start:\n" + self._server_tail())

    def _server_tail(self, n=4000):
        s = self.server
        if s is None or s.out is None:
            return "server: not started"
        return "server (%s): %s\n--- stdout (end)\n%s\n--- stderr (end)\n%s" % (
            "running" if s.proc.poll() is None else "exit %s" % s.proc.poll(), " ".join(s.cmd),
            self._server_text(s.out)[-n:], self._server_text(s.err)[-n:])

    def ctx_stats(self):
        return telemetry(self.server_prefix, "/dr/context/stats,0")

    def memory(self):
        """The server's heap (/eal/heap_info,0) and its context pool's mbufs in use
        (dpdk-rdma-perf's /perf/pool: DPDK 22.11's /mempool/info says no free count)."""
        heap = telemetry(self.server_prefix, "/eal/heap_info,0")
        pool = telemetry(self.server_prefix, "/perf/pool")
        return {"heap_alloc_bytes": int(heap["Alloc_size"]),
                "heap_alloc_count": int(heap["Alloc_count"]),
                "pool": pool["name"], "pool_size": int(pool["size"]),
                "mbufs_in_use": int(pool["in_use"]), "pool_cached": int(pool["cached"])}

    def fl_stats(self):
        return telemetry("drfl_" + self.fl.tag, "/faultlink/stats")

    # -- one round
    def _wait_server_run(self):
        """The server's next "persist: run N (...): ok|failed" line: (N, ok) or None."""
        end = time.monotonic() + SERVER_LOG_WAIT
        while time.monotonic() < end:
            runs = RUN_LINE.findall(self._server_text(self.server.err))
            if len(runs) > self.runs_seen:
                self.runs_seen = len(runs)
                return int(runs[-1][0]), runs[-1][2] == "ok"
            if self.server.proc.poll() is not None:
                return None
            time.sleep(0.02)
        return None

    def _judge(self, spec, client, server_out, server_ok, wire):
        sizes = spec["sizes"]
        if client.rc != 0:
            return "client exit %s%s" % (client.rc, " (killed after the timeout)"
                                          if client.timed_out else "")
        if not server_ok:
            return "the server says the run failed"
        for name, text in (("client", client.stdout), ("server", server_out)):
            rows = table.rows(text)
            if [r["bytes"] for r in rows] != sizes:
                return "%s: rows %s, sizes %s" % (name, [r["bytes"] for r in rows], sizes)
            if any(r["iters"] != spec["iters"] for r in rows):
                return "%s: not %d iterations in every row" % (name, spec["iters"])
            if "Data check: OK" not in text:
                return "%s: no 'Data check: OK'" % name
        if spec["conn"] != "RC":
            m = matrix.LOST.search(server_out)
            sent = spec["iters"] * spec["qps"] * len(sizes)
            if not m or int(m.group(2)) != sent:
                return "the receiver does not say what was lost of %d" % sent
            spec["lost_msgs"] = int(m.group(1))
            if spec["lost_msgs"] >= sent and any(s <= MTU for s in sizes):
                return "nothing arrived: the QP stopped delivering (%s)" % m.group(0)
        # the server is on side a: the client's frames go b->a, the server's a->b
        ideal = ideal_frames(spec)
        for side, sent in (("client", wire["b_to_a"]), ("server", wire["a_to_b"])):
            if ideal[side] is None:
                continue
            spec[side + "_frames"], spec[side + "_frames_needed"] = sent, ideal[side]
            if sent < ideal[side]:
                return "the %s sent %d frames, a lossless run needs %d" % (side, sent, ideal[side])
            if spec["conn"] != "RC" and sent != ideal[side]:
                return "%s: the %s sent %d frames for %d: it never retransmits" % (
                    spec["conn"], side, sent, ideal[side])
        return ""

    def run_round(self, spec, index):
        tag = "%s_%d" % (self.tag, index)
        prefix = "drsk_c" + tag
        client = pair.Side("client", pair.perf_cmd(
            self.perf_exe, self.fl.endpoint_eal("b", prefix, self.cli_lcores), perf_args(spec),
            pair.CLIENT_IP, self.port, server_addr="127.0.0.1"),
            prefixes=[prefix], lcores=str(self.cli_lcores))
        fl0 = self.fl_stats()
        self.out_off = os.fstat(self.server.out.fileno()).st_size
        start = time.monotonic()
        client.run_to_end(ROUND_TIMEOUT)
        run = self._wait_server_run()
        spec["seconds"] = round(time.monotonic() - start, 2)
        fl1 = self.fl_stats()
        wire = {k: fl1[k]["rx"] - fl0[k]["rx"] for k in ("a_to_b", "b_to_a")}
        server_out = os.pread(self.server.out.fileno(), 1 << 26, self.out_off).decode(
            errors="replace")
        stats = self.ctx_stats()
        spec["qps_left"] = int(stats["qps"])
        self.qps_left_max = max(self.qps_left_max, spec["qps_left"])
        why = self._judge(spec, client, server_out, run is not None and run[1], wire)
        if not why and spec["qps_left"] != 0:
            why = "%d QPs left on the server after the run" % spec["qps_left"]
        if not why and run is None:
            why = "the server said nothing of the run"
        m = VERIFIED.search(client.stdout)
        spec["bytes_verified"] = int(m.group(1)) if m else 0
        spec["messages"] = spec["iters"] * spec["qps"] * len(spec["sizes"]) - spec.get("lost_msgs", 0)
        spec["ok"] = not why
        spec["why"] = why
        if why:
            self.failures.append("round %d (%s): %s\n%s\n--- server's output of the run\n%s" % (
                index, describe_spec(spec), why, client.describe(), server_out[-3000:]))
        self.log("round %d %-60s %5.1f s  %s" % (index, describe_spec(spec)[:60], spec["seconds"],
                                                  "ok" if not why else "FAIL: " + why))
        return spec

    # -- the soak
    def run(self):
        t0 = time.monotonic()
        report = {"mode": self.mode, "seed": self.seed, "impair": self.impair,
                  "duration_asked": self.duration}
        try:
            self._start()
            stats0 = self.ctx_stats()
            ref = self.run_round(dict(REFERENCE, reference=True), 0)
            mem0 = self.memory()
            stats1 = self.ctx_stats()
            end = time.monotonic() + self.duration
            n = 0
            while time.monotonic() < end and (self.max_rounds is None or n < self.max_rounds):
                n += 1
                self.rounds.append(self.run_round(choose_round(self.rng, self.max_qps), n))
                if self.server.proc.poll() is not None:
                    self.failures.append("the server exited:\n" + self._server_tail())
                    break
            stats2 = self.ctx_stats()
            ref_end = self.run_round(dict(REFERENCE, reference=True), n + 1)
            mem1 = self.memory()
            report.update(self._summary([ref] + self.rounds + [ref_end], mem0, mem1,
                                        stats0, stats1, stats2))
        except Exception as e:                      # noqa: BLE001 (reported, then cleaned up)
            self.failures.append("the soak stopped: %r\n%s" % (e, self._server_tail()))
        finally:
            report["server_exit"] = self._stop()
        report["seconds"] = round(time.monotonic() - t0, 1)
        report["failures"] = self.failures
        report["ok"] = self._verdict(report)
        return report

    def _summary(self, all_rounds, mem0, mem1, stats0, stats1, stats2):
        per_test = Counter("%s %s" % (r["test"], r["conn"]) for r in self.rounds)
        retrans = {k: int(stats2.get(k, 0)) - int(stats1.get(k, 0)) for k in RETRANSMIT_KEYS}
        resent = {side: sum(r.get(side + "_frames", 0) - r.get(side + "_frames_needed", 0)
                            for r in self.rounds if r["conn"] == "RC") for side in ("client", "server")}
        return {
            "rounds": len(self.rounds),
            "rounds_failed": sum(1 for r in self.rounds if not r["ok"]),
            "reference_rounds_failed": sum(1 for r in all_rounds if r.get("reference") and not r["ok"]),
            "per_test": dict(sorted(per_test.items())),
            "messages_checked": sum(r["messages"] for r in self.rounds),
            "bytes_checked": sum(r["bytes_verified"] for r in self.rounds),
            "errors": sum(1 for r in all_rounds if not r["ok"]),
            "qps_left_max": self.qps_left_max,
            "retransmissions": {
                "client_frames_resent": resent["client"],
                "server_frames_resent": resent["server"],
                "server": retrans,
            },
            "heap": {"start_bytes": mem0["heap_alloc_bytes"], "end_bytes": mem1["heap_alloc_bytes"],
                     "diff_bytes": mem1["heap_alloc_bytes"] - mem0["heap_alloc_bytes"],
                     "start_count": mem0["heap_alloc_count"], "end_count": mem1["heap_alloc_count"],
                     "tolerance_bytes": HEAP_TOLERANCE},
            "mbufs": {"pool": mem0["pool"], "size": mem0["pool_size"],
                      "start_cached": mem0["pool_cached"], "end_cached": mem1["pool_cached"],
                      "start_in_use": mem0["mbufs_in_use"], "end_in_use": mem1["mbufs_in_use"],
                      "diff": mem1["mbufs_in_use"] - mem0["mbufs_in_use"],
                      "tolerance": MBUF_TOLERANCE},
            "fault_link": self.fl_stats(),
            "server_stats_start": {k: stats0.get(k) for k in ("mode", "workers", "qps")},
            "round_list": self.rounds,
        }

    def _stop(self):
        """SIGTERM to the server (it must exit 0 and say it served every run), then the
        fault link; everything killed by PID if it does not go, dirs and sockets removed."""
        res = {"rc": None, "runs": None, "runs_failed": None}
        s = self.server
        if s is not None and s.proc is not None:
            res["rc"] = pair.terminate(s.proc, grace=15)
            err = self._server_text(s.err)
            m = STOP_LINE.search(err)
            if m:
                res["runs"], res["runs_failed"] = int(m.group(1)), int(m.group(2))
            res["stderr_tail"] = err[-2000:]
            s.collect()
        if self.fl is not None:
            self.fl.stop()
            res["fault_link_conserved"] = bool(self.fl.counters) and all(
                faultlink.conserved(d) for d in self.fl.counters.values())
        return res

    def _verdict(self, r):
        why = []
        if "rounds" not in r:
            why.append("the soak did not complete")
        else:
            if r["errors"]:
                why.append("%d rounds failed" % r["errors"])
            if r["rounds"] == 0:
                why.append("no round ran")
            if r["qps_left_max"]:
                why.append("QPs left between runs (%d at most)" % r["qps_left_max"])
            if abs(r["heap"]["diff_bytes"]) > HEAP_TOLERANCE:
                why.append("heap: %+d bytes (%+d allocations) from start to end" % (
                    r["heap"]["diff_bytes"], r["heap"]["end_count"] - r["heap"]["start_count"]))
            if abs(r["mbufs"]["diff"]) > MBUF_TOLERANCE:
                why.append("mbufs in use: %+d from start to end" % r["mbufs"]["diff"])
        se = r.get("server_exit", {})
        if se.get("rc") != 0:
            why.append("the server exited %s on SIGTERM" % se.get("rc"))
        elif se.get("runs_failed"):
            why.append("the server counted %d failed runs" % se["runs_failed"])
        if not se.get("fault_link_conserved", False):
            why.append("the fault link did not conserve its frames")
        r["verdict"] = why
        return not why and not self.failures


def format_report(r):
    """The report as lines of text."""
    out = ["dr-soak: %s s, server mode %s, seed %s, both ways: %s" % (
        r.get("seconds"), r["mode"], r["seed"], r["impair"])]
    if "rounds" in r:
        h, m, rt = r["heap"], r["mbufs"], r["retransmissions"]
        fl = r.get("fault_link", {})
        out += [
            "rounds            %d (failed %d), and a reference round at the start and the end" % (
                r["rounds"], r["rounds_failed"]),
            "per test          " + ", ".join("%s: %d" % kv for kv in r["per_test"].items()),
            "checked           %d messages, %d bytes (--check, both sides)" % (
                r["messages_checked"], r["bytes_checked"]),
            "errors            %d" % r["errors"],
            "retransmissions   on the wire, frames over a lossless run's: client requests %d, "
            "server READ and atomic responses (and SACKs) %d" % (rt["client_frames_resent"],
                                                     rt["server_frames_resent"]),
            "                  server's counters: " + ", ".join(
                "%s %d" % kv for kv in rt["server"].items()),
            "fault link        " + "; ".join(
                "%s lost %d corrupted %d duplicated %d reordered %d of %d" % (
                    k, d.get("lost", 0), d.get("corrupted", 0), d.get("duplicated", 0),
                    d.get("reordered", 0), d.get("rx", 0)) for k, d in sorted(fl.items())),
            "heap (EAL)        start %d bytes in %d allocations, end %d in %d: %+d bytes "
            "(tolerance %d)" % (h["start_bytes"], h["start_count"], h["end_bytes"], h["end_count"],
                                h["diff_bytes"], h["tolerance_bytes"]),
            "mbufs in use      %s (%d mbufs): start %d, end %d: %+d (tolerance %d)" % (
                m["pool"], m["size"], m["start_in_use"], m["end_in_use"], m["diff"], m["tolerance"]),
            "QPs left          %d at most after a run" % r["qps_left_max"],
        ]
    se = r.get("server_exit", {})
    out.append("server            exit %s on SIGTERM, %s runs served, %s failed" % (
        se.get("rc"), se.get("runs"), se.get("runs_failed")))
    why = "; ".join(r.get("verdict", [])) or "see the failures above"
    out.append("result            %s" % ("PASS" if r["ok"] else "FAIL: " + why))
    return "\n".join(out)
