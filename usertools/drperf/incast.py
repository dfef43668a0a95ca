# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""An N->1 incast through dpdk-rdma-faultlink's switch (doc/guides/congestion.rst).

    inc = Incast(senders=4, rate="200mbit", cc="dcqcn", cc_param="line_rate=1g,...")
    res = inc.run(duration=5)
    res["jain"], res["egress"]["ecn_marked"], res["probe"]["p99"]

The switch has a memif port per process: N senders (write_bw clients), N
receivers (their servers) and a 64-byte write_lat probe pair. The receivers'
ports and the probe server's share one egress queue (--egress-group): one
rate, one RED/ECN marker, one tail drop, as the ranks of one host behind its
link. Everything else is switched unimpaired. The senders, receivers and the
probe run in rtc mode, their lcores yielding on one CPU; the switch polls on
the other. Each sender's telemetry is sampled every `sample_s` seconds: its
QP's acknowledged PSN (goodput over time) and DCQCN rate. Every WRITE is
checked (--check). A benchmark: nothing here asserts speed."""

import re
import statistics
import time

from . import pair, soak, switch

BW_ROW = re.compile(r"^ (\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", re.M)
LAT_ROW = re.compile(r"^ (\d+)\s+(\d+)" + r"\s+([\d.]+|-?nan|-?inf)" * 7 + r"\s*$", re.M)
VERIFIED = re.compile(r"Data check: OK, (\d+) bytes verified")
PSN_MASK = 0xFFFFFF
RETRANSMIT_KEYS = ("retries", "sr_resends", "rereads", "ack_timeouts")


def jain(xs):
    """Jain's fairness index: (sum x)^2 / (n sum x^2), 1 when all are equal."""
    xs = [float(x) for x in xs]
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if sq > 0 else 0.0


def telemetry(prefix, cmd, timeout=2):
    """soak.telemetry(), None when the process is gone or does not answer that command."""
    try:
        return soak.telemetry(prefix, cmd, timeout)
    except (OSError, ValueError, KeyError):
        return None


class Incast:
    """senders: N; rate, limit, ecn: the shared egress queue's spec words
    (tc-like: "200mbit", 400 frames, "kmin 20KB kmax 100KB pmax 20%" or
    None for no marking); cc, cc_param: every endpoint's --cc / --cc-param;
    size: the senders' WRITE size; probe: run the 64-byte latency pair
    (probe_iters round trips, from probe_delay seconds after the senders
    start: perftest's latency tests print percentiles with -n only)."""

    def __init__(self, senders=4, rate="200mbit", limit=400, ecn="kmin 20KB kmax 100KB pmax 20%",
                 cc="none", cc_param=None, size=65536, probe=True, mtu=1024, tag=None,
                 perf=None, switch_exe=None, sample_s=0.1, cpus=None, probe_iters=200, probe_delay=1.0, warmup_s=1.0):
        self.n = senders
        self.rate, self.limit, self.ecn = rate, limit, ecn
        self.cc, self.cc_param = cc, cc_param
        self.size, self.probe, self.mtu = size, probe, mtu
        self.perf = perf or pair.perf_exe()
        self.sample_s = sample_s
        self.probe_iters, self.probe_delay = probe_iters, probe_delay
        self.warmup_s = warmup_s
        self.sw_series = []
        self.nports = 2 * senders + (2 if probe else 0)
        # endpoints yield on the first CPU, the switch polls on the last (switch.endpoint_lcores())
        self.sw = switch.Switch(self.nports, ["--egress-group", ",".join(map(str, self.receiver_ports())),
                                              self.egress_spec()],
                                tag=tag, idle_us=0, exe=switch_exe, cpus=cpus)

    # ports: senders 0..N-1, receivers N..2N-1, probe client 2N, probe server 2N+1
    def receiver_ports(self):
        ports = list(range(self.n, 2 * self.n))
        return ports + ([2 * self.n + 1] if self.probe else [])

    def egress_spec(self):
        spec = "rate %s limit %d" % (self.rate, self.limit)
        return spec + (" ecn " + self.ecn if self.ecn else "")

    def _endpoint(self, name, port, args, ip, tcp_port, server_addr=None):
        prefix = "drinc_%s_%s" % (name, self.sw.tag)
        eal = self.sw.endpoint_eal(port, prefix)
        cc = ["--cc", self.cc] + (["--cc-param", self.cc_param] if self.cc_param else [])
        engine = ["--mode", "rtc", "--workers", "1", "--idle", "yield"]
        cmd = pair.perf_cmd(self.perf, eal, list(args) + engine + cc, ip, tcp_port,
                            server_addr=server_addr)
        return pair.Side(name, cmd, prefixes=[prefix], lcores=self.sw.ep_lcores)

    def _pairs(self, duration):
        pairs = []
        bw = ["write_bw", "-s", str(self.size), "-D", str(duration), "--check", "-m", str(self.mtu)]
        for i in range(self.n):
            p = pair.free_tcp_port()
            srv = self._endpoint("r%d" % i, self.n + i, bw, "10.77.1.%d" % (i + 1), p)
            cli = self._endpoint("s%d" % i, i, bw, "10.77.0.%d" % (i + 1), p, "127.0.0.1")
            pairs.append((srv, cli))
        if self.probe:
            # perftest's latency tests print percentiles with -n only (-D: the average)
            lat = ["write_lat", "-s", "64", "-n", str(self.probe_iters), "-m", str(self.mtu)]
            p = pair.free_tcp_port()
            srv = self._endpoint("pr", 2 * self.n + 1, lat, "10.77.1.200", p)
            cli = self._endpoint("pc", 2 * self.n, lat, "10.77.0.200", p, "127.0.0.1")
            pairs.append((srv, cli))
        return pairs

    def _sample(self, senders, series, t0):
        """One telemetry sample of every sender (acknowledged PSN, rate, counters)
        and of the switch's shared egress queue (drops, marks)."""
        now = time.monotonic() - t0
        sw = telemetry(self.sw.prefix(), "/faultlink/stats")
        egress = [v for k, v in (sw or {}).items() if k.startswith("egress") and isinstance(v, dict)]
        if egress:
            e = max(egress, key=lambda x: x.get("rx", 0))     # the group's: it carries the data
            self.sw_series.append((now, e.get("queue_drop", 0), e.get("ecn_marked", 0), e.get("rx", 0)))
        for i, s in enumerate(senders):
            prefix = s.prefixes[0]
            qps = telemetry(prefix, "/dr/qp/list")
            if not qps:
                continue
            info = telemetry(prefix, "/dr/qp/info,%d" % qps[0])
            stats = telemetry(prefix, "/dr/context/stats,0")
            if not info or not stats:
                continue
            if info.get("state") != "RTS":
                continue                # not connected yet, or gone: its PSNs say nothing
            series[i].append({"t": now, "psn": info["sq_psn_unacked"], "mtu": info["path_mtu"],
                              "rate": info.get("cc_rate_bps", 0), "stats": stats})

    def run(self, duration=5, timeout=None):
        """Start the switch, the receivers, the senders; sample until they end. A dict."""
        timeout = timeout or duration * 3 + 60
        pairs, series = [], [[] for _ in range(self.n)]
        self.sw_series = []
        try:
            self.sw.start()
            pairs = self._pairs(duration)
            for srv, _ in pairs:
                srv.start()
            for srv, _ in pairs:
                if not srv.wait_ready():
                    raise RuntimeError("a receiver did not start:\n" + srv.describe())
            time.sleep(0.1)
            t0 = time.monotonic()
            for _, cli in pairs[:self.n]:
                cli.start()
            deadline = t0 + timeout
            senders = [cli for _, cli in pairs[:self.n]]
            probe = pairs[self.n][1] if self.probe else None
            while time.monotonic() < deadline:
                # the probe once the senders have filled the queue
                if probe is not None and probe.proc is None and time.monotonic() > t0 + self.probe_delay:
                    probe.start()
                if all(p.proc is not None and p.proc.poll() is not None for pr in pairs for p in pr):
                    break
                self._sample(senders, series, t0)
                time.sleep(self.sample_s)
        finally:
            for pr in pairs:
                for p in pr:
                    p.kill()
                    p.collect()
            self.sw.stop()
        return self._result(pairs, series, duration)

    def _result(self, pairs, series, duration):
        out = {"senders": self.n, "rate": self.rate, "limit": self.limit, "ecn": self.ecn,
               "cc": self.cc, "cc_param": self.cc_param, "size": self.size, "duration": duration,
               "ok": all(p.rc == 0 for pr in pairs for p in pr), "flows": [], "failed": []}
        for i, (srv, cli) in enumerate(pairs[:self.n]):
            rows = BW_ROW.findall(cli.stdout)
            checked = sum(int(v) for v in VERIFIED.findall(srv.stdout + cli.stdout))
            last = series[i][-1]["stats"] if series[i] else {}
            flow = {"goodput_mbps": float(rows[-1][3]) * 8 if rows else 0.0,
                    "checked_bytes": checked,
                    "retransmissions": sum(last.get(k, 0) for k in RETRANSMIT_KEYS),
                    "rx_cnp": last.get("rx_cnp", 0),
                    "series": self._goodput_series(series[i])}
            out["flows"].append(flow)
            if srv.rc != 0 or cli.rc != 0:
                out["failed"].append(srv.describe() + "\n" + cli.describe())
        if self.probe and len(pairs) > self.n:
            srv, cli = pairs[self.n]
            rows = LAT_ROW.findall(cli.stdout)
            if rows:
                r = rows[-1]
                out["probe"] = {"typical": float(r[4]), "avg": float(r[5]), "p99": float(r[7]),
                                "p999": float(r[8]), "max": float(r[3])}
            if srv.rc != 0 or cli.rc != 0:
                out["failed"].append(srv.describe() + "\n" + cli.describe())
        counters = self.sw.counters or {}
        key = "egress" + "+".join(map(str, self.receiver_ports()))
        out["egress"] = counters.get(key, {})
        out["switch"] = counters
        # a second after data first reached the queue: the flows' first windows (sent at
        # line rate before the first CNP can come back) are behind them
        first = next((p[0] for p in self.sw_series if p[3] > 0), None)   # data reaches the queue
        t_warm = (first if first is not None else 0.0) + self.warmup_s
        warm = [p for p in self.sw_series if p[0] >= t_warm]
        out["drops_after_warmup"] = (out["egress"].get("queue_drop", 0) - warm[0][1]) if warm else None
        retr = []
        for i in range(self.n):
            w = [p for p in series[i] if p["t"] >= t_warm]
            if w:
                retr.append(sum(w[-1]["stats"].get(k, 0) - w[0]["stats"].get(k, 0) for k in RETRANSMIT_KEYS))
        out["retrans_after_warmup"] = sum(retr) if len(retr) == self.n else None
        out["warmup_s"] = self.warmup_s
        g = [f["goodput_mbps"] for f in out["flows"]]
        out["total_mbps"] = sum(g)
        out["jain"] = jain(g) if g else 0.0
        return out

    @staticmethod
    def _goodput_series(samples):
        """[(t, goodput Mb/s, DCQCN rate Mb/s)] from successive acknowledged PSNs."""
        pts = []
        for a, b in zip(samples, samples[1:]):
            dt = b["t"] - a["t"]
            if dt <= 0:
                continue
            d = (b["psn"] - a["psn"]) & PSN_MASK
            if d >= PSN_MASK // 2:
                continue                # behind (a sample raced a rewind): no progress to show
            pts.append((round(b["t"], 3), d * b["mtu"] * 8 / dt / 1e6, b["rate"] / 1e6))
        return pts


def summary(res):
    """The medians-free one-run summary line set of a result (for tables)."""
    e = res.get("egress", {})
    p = res.get("probe", {})
    return {"cc": res["cc"], "total_mbps": res["total_mbps"], "jain": res["jain"],
            "drops": e.get("queue_drop", 0), "marked": e.get("ecn_marked", 0),
            "retrans": sum(f["retransmissions"] for f in res["flows"]),
            "drops_1s": res.get("drops_after_warmup"), "retrans_1s": res.get("retrans_after_warmup"),
            "q_p50": e.get("q_p50", 0), "q_p99": e.get("q_p99", 0), "q_max": e.get("q_max", 0),
            "lat_typ": p.get("typical"), "lat_p99": p.get("p99"), "lat_p999": p.get("p999"),
            "checked": all(f["checked_bytes"] > 0 for f in res["flows"]) and res["ok"],
            "min_mbps": min((f["goodput_mbps"] for f in res["flows"]), default=0),
            "max_mbps": max((f["goodput_mbps"] for f in res["flows"]), default=0)}


def median_summary(runs):
    """Field by field medians of several runs' summaries (checked: all of them)."""
    sums = [summary(r) for r in runs]
    out = {"cc": sums[0]["cc"], "runs": len(sums), "checked": all(s["checked"] for s in sums)}
    for k in sums[0]:
        if k in out:
            continue
        vals = [s[k] for s in sums if s[k] is not None]
        out[k] = statistics.median(vals) if vals else None
    return out
