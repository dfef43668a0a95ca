# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""dpdk-rdma-perf end to end over net_memif (two processes, shared memory,
no hugepages): every test at the sizes around the path MTU with --check,
1 MiB and 1 GiB messages (slow), several QPs, -D, 4096-byte MTU, and the output's
perftest layout. Needs the transport: fails (does not skip) until it links."""

import re

import pytest

from perfutil import (ITERS_MIB, ITERS_SMALL, MIB, MTU, REPO, RUN_TIMEOUT, SIZE_IDS, TESTS,
                      assert_checked_run, assert_size_row, kind, matrix_args, pair,
                      small_sizes, table)

VECTORS = REPO / "test" / "vectors"
TITLES = {"send_bw": "Send BW Test", "send_lat": "Send Latency Test",
          "write_bw": "RDMA_Write BW Test", "write_lat": "RDMA_Write Latency Test",
          "read_bw": "RDMA_Read BW Test", "read_lat": "RDMA_Read Latency Test"}


MODES = ["inline", "rtc", "pipeline"]


def memif(perf_exe, *args, mode="inline", workers=1, queues=None, **kw):
    """A pair over memif, both sides in engine `mode` (pair.engine())."""
    kw.setdefault("timeout", RUN_TIMEOUT)
    extra, kw["server_lcores"], kw["client_lcores"] = pair.engine(mode, workers, queues)
    return pair.run_memif(list(map(str, args)) + extra, exe=perf_exe, **kw)


@pytest.fixture(scope="module", params=[(t, m) for m in MODES for t in TESTS],
                ids=["%s-%s" % (t, m) for m in MODES for t in TESTS])
def small_run(request, perf_exe):
    """One pair per test and engine mode: all the small sizes in one run (--sizes)."""
    test, mode = request.param
    sizes, iters = small_sizes(test), ITERS_SMALL[kind(test)]
    return test, sizes, iters, memif(perf_exe, *matrix_args(test, sizes, iters), mode=mode)


@pytest.mark.parametrize("index", range(5), ids=SIZE_IDS)
def test_sizes_around_mtu_checked(small_run, index):
    test, sizes, iters, res = small_run
    assert_size_row(res, sizes[index], iters)


def test_both_sides_agree(small_run):
    """Both exit 0, print one row per size, and verified the data."""
    test, sizes, iters, res = small_run
    assert_checked_run(res, sizes, iters)
    assert table.header(res.client.stdout)["Data check"] == "ON"


@pytest.mark.slow
@pytest.mark.parametrize("test", TESTS)
def test_one_mib_checked(perf_exe, test):
    iters = ITERS_MIB[kind(test)]
    res = memif(perf_exe, *matrix_args(test, [MIB], iters))
    assert_checked_run(res, [MIB], iters)


@pytest.mark.slow
@pytest.mark.parametrize("test", ["write_bw", "send_bw", "read_bw"])
def test_one_gib_message_checked(perf_exe, test):
    """The largest message the API takes (DR_MAX_MSG_SIZE, 1 GiB: 262144
    packets of 4096 bytes), every byte verified on both sides."""
    gib = 1 << 30
    res = memif(perf_exe, test, "-s", gib, "-n", 1, "--check", "-m", 4096, "--link-mtu", 4200,
                timeout=300)
    assert res.ok, "the pair failed:\n" + res.describe()
    for side in (res.client, res.server):
        rows = table.rows(side.stdout)
        assert [(r["bytes"], r["iters"]) for r in rows] == [(gib, 1)], side.describe()
        assert "Data check: OK" in side.stdout, side.describe()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("test,qps", [("write_bw", 4), ("send_bw", 3), ("read_bw", 2)])
def test_several_qps(perf_exe, test, qps, mode):
    res = memif(perf_exe, *matrix_args(test, [3000], 200), "-q", qps, mode=mode)
    assert_checked_run(res, [3000], 200)
    addrs = table.addresses(res.client.stdout)
    assert [a[0] for a in addrs] == ["local"] * qps + ["remote"] * qps
    assert table.header(res.client.stdout)["Number of qps"] == str(qps)


@pytest.mark.parametrize("test", ["write_bw", "send_bw", "read_bw", "send_lat", "write_lat"])
def test_duration(perf_exe, test):
    """-D: the client stops after the duration, the server follows in-band."""
    res = memif(perf_exe, test, "--check", "-D", "1", "-s", 2048)
    assert res.ok, res.describe()
    rows = table.rows(res.client.stdout)
    assert len(rows) == 1 and rows[0]["bytes"] == 2048 and rows[0]["iters"] > 0, res.describe()
    if kind(test) == "lat":
        assert "tps average" in res.client.stdout
    assert "Data check: OK" in res.client.stdout


@pytest.mark.parametrize("test, flag, qps", [("send_bw", "--send_with_imm", 2),
                                             ("send_lat", "--send_with_imm", 1),
                                             ("write_bw", "--write_with_imm", 2)])
def test_immediate_data(perf_exe, test, flag, qps):
    """SEND_WITH_IMM / RDMA_WRITE_WITH_IMM: every receive completion has the
    right opcode and, checked, the message's number as its immediate."""
    res = memif(perf_exe, test, flag, "--check", "--sizes", "0,1,1025,65537", "-n", 40, "-q", qps)
    assert res.ok, res.describe()
    for side in (res.client, res.server):
        assert "Immediate data  : ON" in side.stdout and "Data check: OK" in side.stdout, \
            res.describe()
        assert [r["iters"] for r in table.rows(side.stdout)] == [40] * 4, res.describe()


@pytest.mark.parametrize("test, conn, extra", [
    ("send_bw", "UC", []), ("send_bw", "UD", ["--send_with_imm"]), ("write_bw", "UC", []),
    ("write_bw", "UC", ["--write_with_imm"]), ("send_lat", "UD", []), ("write_lat", "UC", []),
])
def test_uc_ud_checked(perf_exe, test, conn, extra):
    """-c UC / UD on a clean link: every message arrives, checked; the receiver
    says none was lost. UD: a size above the MTU becomes the MTU (perftest)."""
    sizes = "1,1023,1024,1025" if conn == "UD" else "1,1025,65537"
    res = memif(perf_exe, test, "-c", conn, "--check", "-m", 1024, "--sizes", sizes, "-n", 30,
                *extra)
    assert res.ok, res.describe()
    for side in (res.client, res.server):
        assert "Connection type : %s" % conn in side.stdout and "Data check: OK" in side.stdout
    want = [1, 1023, 1024] if conn == "UD" else [1, 1025, 65537]
    assert [r["bytes"] for r in table.rows(res.client.stdout)] == want, res.describe()
    if conn == "UD":
        assert "Max msg size in UD is MTU 1024" in res.client.stdout
    if kind(test) == "bw":
        assert re.search(r"Messages lost\s+: 0 of 90 \(%s" % conn, res.server.stdout), res.describe()


def test_connection_mismatch_refused(perf_exe):
    res = memif(perf_exe, "send_bw", "-n", 10, server_args=["-c", "UD"])
    assert res.server.rc == 1 and res.client.rc == 1, res.describe()
    assert "connection type mismatch: the server has -c UD, the client asked for RC" in \
        res.server.stderr, res.describe()


def test_immediate_data_mismatch_refused(perf_exe):
    """A server given --write_with_imm refuses a client without it (both exit 1)."""
    res = memif(perf_exe, "write_bw", "-n", 10, server_args=["--write_with_imm"])
    assert res.server.rc == 1 and res.client.rc == 1, res.describe()
    assert "the server has --write_with_imm, the client not" in res.server.stderr, res.describe()
    assert "the server refused the run" in res.client.stderr, res.describe()


@pytest.mark.parametrize("mode", MODES)
def test_mtu_4096(perf_exe, mode):
    res = memif(perf_exe, "write_bw", "--check", "-m", 4096, "--link-mtu", 4200, "--sizes",
                "4095,4096,4097,100000", "-n", 200, mode=mode)
    assert res.ok, res.describe()
    assert table.header(res.client.stdout)["Mtu"] == "4096[B]"
    assert [r["bytes"] for r in table.rows(res.client.stdout)] == [4095, 4096, 4097, 100000]


@pytest.mark.parametrize("zcopy", ["1", "off"])
@pytest.mark.parametrize("test", ["write_bw", "send_bw", "read_bw"])
@pytest.mark.parametrize("mode", MODES)
def test_zcopy_and_one_pass(perf_exe, mode, test, zcopy):
    """Payloads attached from the MR (--zcopy-min 1: every one) or copied (off), and the
    receiver's one-pass placement of MIDDLE / LAST packets, every byte checked."""
    res = memif(perf_exe, test, "--check", "-m", 4096, "--link-mtu", 4200, "--zcopy-min", zcopy,
                "--sizes", "100,4096,20000,65536", "-n", 200, mode=mode)
    assert_checked_run(res, [100, 4096, 20000, 65536], 200, mtu=4096)


def test_mtu_above_active_is_capped(perf_exe):
    """perftest's rule: -m above the port's active MTU is lowered to it, with a warning."""
    res = memif(perf_exe, "send_bw", "-m", 4096, "-s", 64, "-n", 100)
    assert res.ok, res.describe()
    assert "Requested mtu is higher than active mtu" in res.client.stderr
    assert table.header(res.client.stdout)["Mtu"] == "%d[B]" % MTU


def test_gid_index_0(perf_exe):
    """-x 0: the link-local IPv6 GID (RoCEv2 over IPv6)."""
    res = memif(perf_exe, "write_bw", "--check", "-x", 0, "-s", 3000, "-n", 100)
    assert res.ok, res.describe()
    gids = [g for _, _, g in table.addresses(res.client.stdout)]
    assert all(g.startswith("254:128:00:00:00:00:00:00:") for g in gids), gids


# ---- run-to-completion workers across a link (DR_PROGRESS_RTC) ----

@pytest.mark.parametrize("test", ["write_bw", "send_bw", "read_bw"])
def test_rtc_eight_qps_two_workers_two_queues(perf_exe, test):
    """perftest-style -q 8 over two workers a side, each with its own memif
    queue pair: QPs spread over both workers, every byte checked."""
    res = memif(perf_exe, *matrix_args(test, [3000, 65536], 100), "-q", 8, mode="rtc", workers=2,
                queues=2)
    assert_checked_run(res, [3000, 65536], 100)
    assert table.header(res.client.stdout)["Number of qps"] == "8"


@pytest.mark.parametrize("test", ["write_bw", "send_lat", "read_bw", "atomic_bw"])
def test_rtc_two_workers_one_queue(perf_exe, test):
    """Two workers on one queue pair (the default without RSS): worker 1's
    QPs get their frames redirected by worker 0 and send through it."""
    sizes = [8] if test.startswith("atomic") else [3000]
    args = [test, "--check", "-n", 100] + (["-s", 8] if test.startswith("atomic") else
                                           ["--sizes", "3000"])
    if test.endswith("_bw"):
        args += ["-q", 4]
    res = memif(perf_exe, *args, mode="rtc", workers=2)
    assert res.ok, res.describe()
    assert [r["bytes"] for r in table.rows(res.client.stdout)] == sizes
    assert "Data check: OK" in res.client.stdout, res.client.describe()


# ---- pipeline groups across a link (DR_PROGRESS_PIPELINE) ----

@pytest.mark.parametrize("queues", [1, 2])
@pytest.mark.parametrize("test", ["write_bw", "read_bw", "send_bw"])
def test_pipeline_two_groups(perf_exe, test, queues):
    """-q 8 over two pipeline groups a side (six engine lcores): with two
    memif queue pairs each group's rx lcore has its own; with one, group 1's
    frames are redirected by group 0's rx lcore and sent through its tx lcore.
    Every byte checked."""
    res = memif(perf_exe, *matrix_args(test, [3000, 65536], 100), "-q", 8, mode="pipeline", workers=2,
                queues=queues)
    assert_checked_run(res, [3000, 65536], 100)
    assert table.header(res.client.stdout)["Number of qps"] == "8"


@pytest.mark.parametrize("rtc_side", ["server", "client"])
def test_rtc_against_inline(perf_exe, rtc_side):
    """The modes are the same wire: an rtc side (two workers) against an inline one."""
    rtc_args, rtc_lcores, _ = pair.engine("rtc", 2)
    _, server_cpu, client_cpu = pair.engine("inline")
    kw = {"server_lcores": server_cpu, "client_lcores": client_cpu}
    kw[rtc_side + "_lcores"] = rtc_lcores if rtc_side == "server" else \
        rtc_lcores.replace("@" + server_cpu.split("@")[-1], "@" + client_cpu.split("@")[-1])
    kw[rtc_side + "_args"] = rtc_args
    res = pair.run_memif(["send_bw", "--check", "-q", 3, "--sizes", "100,5000", "-n", 200],
                         exe=perf_exe, timeout=RUN_TIMEOUT, **kw)
    assert_checked_run(res, [100, 5000], 200)


@pytest.mark.parametrize("args, msg", [
    (["--workers", "2"], "--workers: only with --mode rtc or pipeline"),
    (["--idle", "yield"], "--idle: only with --mode rtc or pipeline"),
    (["--mode", "pipe"], "--mode: unknown mode 'pipe'"),
    (["--mode", "pipeline", "--workers", "6"], "--workers: 6 pipeline groups: at most 5"),
    (["--mode", "rtc", "--idle", "nap"], "--idle: unknown policy 'nap'"),
    (["--mode", "rtc", "--workers", "0"], "--workers: invalid value '0'"),
    (["--mode", "rtc", "--workers", "2", "--queues", "3"], "--queues: 3 queue pairs for 2 workers"),
    (["--zcopy-min", "0"], "--zcopy-min: invalid value '0'"),
    (["--zcopy-min", "65536"], "--zcopy-min: invalid value '65536'"),
    (["--zcopy-min", "never"], "--zcopy-min: invalid value 'never'"),
    (["--inflight", "16383"], "--inflight: invalid value '16383'"),
    (["--inflight", "65m"], "--inflight: invalid value '65m'"),
    (["--inflight", "17592186044417m"], "--inflight: invalid value '17592186044417m'"),   # 2^44 + 1: wraps
    (["--inflight", "1g"], "--inflight: invalid value '1g'"),
    (["--inflight", "-1m"], "--inflight: invalid value '-1m'"),
    (["--cc", "cubic"], "--cc: unknown algorithm 'cubic' (none or dcqcn)"),
    (["--cc-param", "rate_ai=1m"], "--cc-param: DCQCN's keys need --cc dcqcn"),
    (["--cc", "dcqcn", "--cc-param", "rate_ai=1m"], "--cc-param: give line_rate with DCQCN's other keys"),
    (["--cc", "dcqcn", "--cc-param", "line_rate=1g,rate_ai=2g"], "DCQCN cannot run with these"),
    (["--cc", "dcqcn", "--cc-param", "line_rate=1g,alpha_period=55"],
     "alpha_period: '55' is not a time with a unit"),
    (["--cc", "dcqcn", "--cc-param", "line_rate=1g,rate=1"], "'rate=1': not KEY=VALUE of a known key"),
    (["--cc", "dcqcn", "--cc-param", "line_rate=1g,initial_alpha=2"], "initial_alpha: '2' is not a fraction"),
    (["--cc-param", "cnp_interval=soon"], "cnp_interval: 'soon' is not a time with a unit"),
])
def test_engine_cli_errors(perf_exe, args, msg):
    """Bad engine options: exit 2 and a message naming the option, before EAL starts."""
    import subprocess
    r = subprocess.run([str(perf_exe), "--no-pci", "--", "write_bw", "--ip", "192.0.2.1"] + args,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, r
    assert msg in r.stderr, r.stderr


@pytest.mark.parametrize("mode", MODES)
def test_dcqcn_on_uncongested(perf_exe, mode):
    """--cc dcqcn on both sides of a link that marks nothing: every byte checked, no
    CNP, no rate cut (the machine rests at line rate)."""
    res = memif(perf_exe, "write_bw", "--check", "-q", 2, "--sizes", "64,65536", "-n", 300,
                "--cc", "dcqcn", "--cc-param", "line_rate=10g,rate_ai=100m", mode=mode)
    assert_checked_run(res, [64, 65536], 300)


def test_rtc_more_workers_than_lcores(perf_exe):
    """--workers beyond EAL's idle worker lcores: a clear error, exit 1, no hang."""
    extra, server_lcores, client_lcores = pair.engine("rtc", 1)
    res = pair.run_memif(["write_bw", "-s", 64, "-n", 10], exe=perf_exe, timeout=60,
                         server_args=["--mode", "rtc", "--workers", "3", "--idle", "yield"],
                         server_lcores=server_lcores, client_lcores=client_lcores)
    assert res.server.rc == 1, res.describe()
    assert "dr_open_device" in res.server.stderr, res.server.describe()


# ---- the output: perftest's layout ----

PERFTEST_BW_ROW = " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f"
PERFTEST_LAT_ROW = (" %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     "
                    "\t%-7.2f\t\t%-7.2f \t\t%-7.2f")


def perftest_lines(name):
    return (VECTORS / name).read_text().splitlines()


def test_format_strings_match_perftest():
    """The Python formats used below reproduce Debian perftest's own rows."""
    for name, fmt, cast in (("perftest_send_bw_4k.client.txt", PERFTEST_BW_ROW, (int, int)),
                            ("perftest_write_lat.client.txt", PERFTEST_LAT_ROW, (int, int))):
        lines = perftest_lines(name)
        head = next(i for i, line in enumerate(lines) if line.startswith(" #bytes"))
        row = lines[head + 1]
        vals = [c(v) for c, v in zip(cast, row.split())] + [float(v) for v in row.split()[2:]]
        assert fmt % tuple(vals) == row


@pytest.fixture(scope="module")
def bw_output(perf_exe):
    res = memif(perf_exe, "write_bw", "-s", 4096, "-n", 300)
    assert res.ok, res.describe()
    return res


def test_bw_table_layout(bw_output):
    ref = perftest_lines("perftest_send_bw_4k.client.txt")
    for side in (bw_output.client, bw_output.server):
        lines = side.stdout.splitlines()
        head = lines.index(next(line for line in lines if line.startswith(" #bytes")))
        ref_head = ref.index(next(line for line in ref if line.startswith(" #bytes")))
        assert lines[head] == ref[ref_head]
        assert lines[head - 1] == ref[ref_head - 1] == "-" * 87
        row = table.rows(side.stdout)[0]
        assert lines[head + 1] == PERFTEST_BW_ROW % (
            row["bytes"], row["iters"], row["bw_peak"], row["bw_avg"], row["msg_rate"])
        assert lines[head + 2] == "-" * 87


def test_bw_header(bw_output):
    out = bw_output.client.stdout
    lines = out.splitlines()
    assert lines[0] == "-" * 87
    assert lines[1] == "                    RDMA_Write BW Test"
    assert lines[2] == " Dual-port       : OFF\t\tDevice         : dr_net_memif0"
    h = table.header(out)
    assert h["Number of qps"] == "1" and h["Transport type"] == "IB"
    assert h["Connection type"] == "RC" and h["Using SRQ"] == "OFF"
    assert h["TX depth"] == "128" and h["CQ Moderation"] == "100"
    assert h["Mtu"] == "%d[B]" % MTU and h["Link type"] == "Ethernet"
    assert h["GID index"] == "1" and h["Max inline data"] == "0[B]"
    assert " rdma_cm QPs\t : OFF" in lines and " Data ex. method : Ethernet" in lines
    assert "TX depth" not in table.header(bw_output.server.stdout)   # as perftest's server
    assert bw_output.server.stdout.lstrip("\n").startswith(
        "************************************\n* Waiting for client to connect... *\n")


def test_addresses_cross_match(bw_output):
    """Each side's remote address is the other's local one; the GIDs are the
    IPv4-mapped GIDs of --ip, printed as perftest does (decimal bytes)."""
    cli, srv = table.addresses(bw_output.client.stdout), table.addresses(bw_output.server.stdout)
    assert [a[0] for a in cli] == ["local", "remote"]
    assert cli[0][1] == srv[1][1] and cli[1][1] == srv[0][1]
    assert cli[0][2] == srv[1][2] == "00:00:00:00:00:00:00:00:00:00:255:255:192:00:02:02"
    assert cli[1][2] == srv[0][2] == "00:00:00:00:00:00:00:00:00:00:255:255:192:00:02:01"
    for vals in (cli[0][1], cli[1][1]):
        assert set(vals) == {"LID", "QPN", "PSN", "RKey", "VAddr"}
        assert 0 <= vals["PSN"] < 1 << 24
    line = next(line for line in bw_output.client.stdout.splitlines() if "local address" in line)
    assert re.fullmatch(r" local address: LID 0000 QPN 0x[0-9a-f]{4,6} PSN 0x[0-9a-f]{1,6} "
                        r"RKey 0x[0-9a-f]{6,8} VAddr 0x[0-9a-f]{14}", line), line


def test_server_prints_the_client_row(bw_output):
    """write_bw's server has nothing to measure: it prints the client's row."""
    assert table.rows(bw_output.server.stdout) == table.rows(bw_output.client.stdout)


def test_report_gbits(perf_exe):
    res = memif(perf_exe, "send_bw", "--report_gbits", "-s", 4096, "-n", 300)
    assert res.ok, res.describe()
    assert "BW peak[Gb/sec]    BW average[Gb/sec]" in res.client.stdout
    assert len(table.rows(res.client.stdout)) == 1


def test_lat_table_layout(perf_exe):
    res = memif(perf_exe, "write_lat", "-s", 64, "-n", 40)
    assert res.ok, res.describe()
    ref = perftest_lines("perftest_write_lat.client.txt")
    ref_head = next(line for line in ref if line.startswith(" #bytes"))
    for side in (res.client, res.server):
        lines = side.stdout.splitlines()
        head = lines.index(ref_head)
        r = table.rows(side.stdout)[0]
        assert lines[head + 1] == PERFTEST_LAT_ROW % (
            r["bytes"], r["iters"], r["t_min"], r["t_max"], r["t_typical"], r["t_avg"],
            r["t_stdev"], r["p99"], r["p99_9"])
        assert r["t_min"] <= r["t_typical"] <= r["t_max"] and r["t_min"] <= r["t_avg"]
        assert table.header(side.stdout)["Max inline data"] == "0[B]"
    assert table.header(res.client.stdout)["TX depth"] == "1"
