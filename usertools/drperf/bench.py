# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""What the benchmark runners share: where each side's lcores go in an engine
mode, how a configuration is named, medians of runs. Benchmarks print numbers
and ratios; they assert nothing about speed."""

import statistics

from . import pair


def placement(mode, workers, cpus):
    """(perf args, server lcores, client lcores, oversubscribed) of a
    configuration. inline: each side's main lcore on a CPU of its own. rtc
    with W workers wants W + 1 CPUs a side, pipeline with W groups 3W + 1;
    with fewer, every lcore of a side is mapped onto one CPU (--lcores
    '(0-L)@C', engine lcores yielding when idle) and the result is flagged:
    such numbers measure the scheduler, not the engine."""
    if mode == "inline":
        s, c = pair.default_lcores(cpus)
        return [], s, c, len(cpus) < 2
    args = ["--mode", mode, "--workers", str(workers), "--queues", str(workers)]
    lcores = workers * (3 if mode == "pipeline" else 1)
    need = lcores + 1
    if len(cpus) >= 2 * need:
        srv = ",".join("%d@%d" % (i, cpus[i]) for i in range(need))
        cli = ",".join("%d@%d" % (i, cpus[need + i]) for i in range(need))
        return args + ["--idle", "spin"], srv, cli, False
    s_cpu, c_cpu = cpus[0], cpus[1 % len(cpus)]
    return (args + ["--idle", "yield"], "(0-%d)@%d" % (lcores, s_cpu),
            "(0-%d)@%d" % (lcores, c_cpu), True)


def label(mode, workers):
    """"inline", "rtc, 1 worker", "pipeline, 2 groups"."""
    if mode == "pipeline":
        return "pipeline, %d group%s" % (workers, "s" * (workers > 1))
    return "inline" if mode == "inline" else "rtc, %d worker%s" % (workers, "s" * (workers > 1))


def median(samples):
    """The median of the samples, None for none."""
    return statistics.median(samples) if samples else None


def raw_counterpart(perf_args):
    """The raw test under an RDMA test's arguments (TEST first): raw_bw or
    raw_lat with --raw-like of the test's operation, the other arguments
    kept but --check (the raw tests have no data check). None for a test
    without one (a raw test itself)."""
    test, rest = perf_args[0], list(perf_args[1:])
    op, _, kind = test.partition("_")
    if op not in ("write", "send", "read", "atomic") or kind not in ("bw", "lat"):
        return None
    return ["raw_" + kind, "--raw-like", op] + [x for x in rest if x != "--check"]


def headline(rows):
    """(field, unit, higher is better) that sums up a row of either kind."""
    if rows and "msg_rate" in rows[0]:
        return "bw_avg", "MB/sec", True
    return "t_typical", "usec", False
