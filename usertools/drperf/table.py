# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Read dpdk-rdma-perf's (perftest's) output: the header fields and the rows
of the result table."""

import re

RULE = "-" * 87
BW_COLS = ("bytes", "iters", "bw_peak", "bw_avg", "msg_rate")
LAT_COLS = ("bytes", "iters", "t_min", "t_max", "t_typical", "t_avg", "t_stdev", "p99", "p99_9")
LAT_DUR_COLS = ("bytes", "iters", "t_avg", "tps")


def header(text):
    """{'Mtu': '1024[B]', 'Number of qps': '1', ...}: every "name : value"
    field of the header block (two per line where perftest has two)."""
    fields = {}
    for line in text.splitlines():
        for part in line.split("\t\t"):
            m = re.match(r"^\s*([A-Za-z][A-Za-z0-9 .*_-]*?)\s*:\s*(\S.*?)\s*$", part)
            if m and not part.lstrip().startswith(("#", "local address", "remote address")):
                fields.setdefault(m.group(1), m.group(2))
    return fields


def rows(text):
    """The result rows as dicts (numbers as int/float), in order."""
    cols, out = None, []
    for line in text.splitlines():
        if line.startswith(" #bytes"):
            if "t_min" in line:
                cols = LAT_COLS
            elif "tps" in line:
                cols = LAT_DUR_COLS
            else:
                cols = BW_COLS
            continue
        if cols is None or line.strip() == RULE:
            if line.strip() == RULE and out:
                cols = None
            continue
        f = line.split()
        if len(f) == len(cols) and f[0].isdigit():
            out.append({c: (int(v) if i < 2 else float(v)) for i, (c, v) in
                        enumerate(zip(cols, f))})
    return out


def addresses(text):
    """[(side, {'QPN': int, 'PSN': int, ...}, gid_str)] of the address lines."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^ (local|remote) address: (.*)$", line)
        if not m:
            continue
        toks = m.group(2).split()
        vals = {toks[j]: int(toks[j + 1], 16) for j in range(0, len(toks) - 1, 2)}
        gid = None
        if i + 1 < len(lines) and lines[i + 1].startswith(" GID: "):
            gid = lines[i + 1][len(" GID: "):]
        out.append((m.group(1), vals, gid))
    return out
