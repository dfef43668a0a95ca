# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""usertools/rxepeer without VMs: rxe's rules, the initramfs writer, module
dependencies, the image's stage handling, the host half of the guest job
protocol (against a fake agent), and the command line."""

import os
import struct
import subprocess
import sys
import threading
import time

import pytest

from rxepeer import elfmod, harness, image, initramfs, rxe

from .conftest import REPO

CLI = REPO / "usertools" / "dr-rxe-peer.py"


# --- rxe's rules -----------------------------------------------------------

def test_udp_sport_known_ports():
    # the ports rxe sent from in test/vectors (QPNs from the .txt logs)
    assert rxe.udp_sport_connected(0x11, 0x11) == 0xC121      # rc_pingpong.pcap
    assert rxe.udp_sport_connected(0x12, 0x12) == 0xC144      # uc_pingpong.pcap
    assert rxe.udp_sport_connected(0x14, 0x14) == 0xC190      # opgen_rc.pcap
    assert rxe.udp_sport_connected(0x1C, 0x1D) == 0xC32C      # perftest_send_bw_4k.pcap
    assert rxe.udp_sport_connected(0x1D, 0x1C) == 0xC32C      # both ends: one port
    assert rxe.udp_sport_connected(0x18, 0x19) == 0xC258      # perftest_write_lat.pcap
    assert rxe.udp_sport_ud(0x13) == 0xD078                   # ud_pingpong.pcap
    assert rxe.udp_sport_ud(0x18) == 0xCAB3                   # hostpeer_ud.pcap


def test_flow_label_fold():
    assert rxe.flow_label(0x11, 0x11) == 0x121
    assert rxe.flow_label(0x100000, 1) == 1              # bits above 20 fold back
    assert rxe.sport_from_flow_label(0xFC000) == 0xC03F
    assert rxe.sport_from_flow_label(0x03FFF) == 0xFFFF
    assert rxe.sport_from_flow_label(0) == 0xC000
    for q in range(0, 1 << 24, 99991):
        assert 0xC000 <= rxe.udp_sport_ud(q) <= 0xFFFF
        assert 0xC000 <= rxe.udp_sport_connected(q, q ^ 0x5A5A5A) <= 0xFFFF


@pytest.mark.parametrize("mtu,active", [
    (335, None), (336, 256), (591, 256), (592, 512), (1103, 512), (1104, 1024), (1500, 1024),
    (2127, 1024), (2128, 2048), (4175, 2048), (4176, 4096), (4200, 4096), (9000, 4096)])
def test_active_mtu(mtu, active):
    assert rxe.active_mtu(mtu) == active


def test_gid_spelling():
    assert rxe.ipv4_mapped_gid("10.99.0.2") == "0000:0000:0000:0000:0000:ffff:0a63:0002"
    assert rxe.ipv6_gid("fd99::3") == "fd99:0000:0000:0000:0000:0000:0000:0003"
    with pytest.raises(ValueError):
        rxe.ipv4_mapped_gid("10.99.0")


# --- initramfs -------------------------------------------------------------

def test_cpio_newc_round_trip(tmp_path):
    a = initramfs.Archive()
    a.file("usr/bin/tool", b"#!/bin/sh\necho hi\n", 0o755)
    a.symlink("bin", "usr/bin")
    a.chardev("dev/console", 5, 1)
    a.file("etc/odd", b"x" * 5)
    a.dir("tmp", 0o1777)
    out = tmp_path / "i.cpio"
    with open(out, "wb") as f:
        size = a.write(f)
    data = out.read_bytes()
    assert size == len(data) and size % 4 == 0
    ents = {n: (m, d, dev) for n, m, d, dev in initramfs.read(data)}
    # parents come first and exist, entries are sorted
    names = [n for n, *_ in initramfs.read(data)]
    assert names == sorted(names) and names.index("usr") < names.index("usr/bin")
    assert ents["usr/bin/tool"][0] == 0o100755 and ents["usr/bin/tool"][1].endswith(b"hi\n")
    assert ents["bin"] == (0o120777, b"usr/bin", (0, 0))
    assert ents["dev/console"][0] == 0o020600 and ents["dev/console"][2] == (5, 1)
    assert ents["etc/odd"][1] == b"xxxxx" and ents["tmp"][0] == 0o041777
    for bad in ("", "/", "a/../b"):
        with pytest.raises(ValueError):
            a.file(bad, b"")


# --- modules ---------------------------------------------------------------

def test_modinfo_from_elf(tmp_path):
    src = tmp_path / "m.c"
    src.write_text('__attribute__((section(".modinfo"), used)) static const char mi[] =\n'
                   '  "license=GPL\\0depends=ib_core,ip6-udp-tunnel\\0vermagic=6.1.0 SMP\\0";\n')
    obj = tmp_path / "rdma-rxe.ko"
    subprocess.run(["gcc", "-c", "-o", str(obj), str(src)], check=True, timeout=60)
    info = elfmod.modinfo(str(obj))
    assert ("license", "GPL") in info and ("vermagic", "6.1.0 SMP") in info
    assert elfmod.depends(str(obj)) == ["ib_core", "ip6_udp_tunnel"]
    assert elfmod.module_name(str(obj)) == "rdma_rxe"
    bad = tmp_path / "x.ko"
    bad.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 100)    # a zstd-compressed module
    with pytest.raises(elfmod.ModuleError):
        elfmod.modinfo(str(bad))


def test_load_order():
    deps = {"rdma_rxe": ["ib_uverbs", "ib_core", "udp_tunnel"], "ib_uverbs": ["ib_core"],
            "ib_core": [], "udp_tunnel": [], "virtio_net": ["virtio"], "virtio": []}
    index = {n: n for n in deps}
    order = elfmod.load_order(["virtio_net", "rdma_rxe"], index, deps=lambda p: deps[p])
    assert order == ["virtio", "virtio_net", "ib_core", "ib_uverbs", "udp_tunnel", "rdma_rxe"]
    with pytest.raises(elfmod.ModuleError, match="not found"):
        elfmod.load_order(["nope"], index, deps=lambda p: deps[p])
    cyc = {"a": ["b"], "b": ["a"]}
    with pytest.raises(elfmod.ModuleError, match="cycle"):
        elfmod.load_order(["a"], {"a": "a", "b": "b"}, deps=lambda p: cyc[p])


# --- image -----------------------------------------------------------------

def test_stage_path_keeps_links_inside(tmp_path):
    st = tmp_path / "stage"
    (st / "lib/x86_64-linux-gnu").mkdir(parents=True)
    (st / "lib/x86_64-linux-gnu/ld-2.36.so").write_bytes(b"ld")
    (st / "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2").symlink_to("ld-2.36.so")
    (st / "lib64").mkdir()
    # absolute, as in libc6: must resolve in the stage, not on the build host
    (st / "lib64/ld-linux-x86-64.so.2").symlink_to("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
    got = image.stage_path(str(st), str(st / "lib64/ld-linux-x86-64.so.2"))
    assert got == str(st / "lib/x86_64-linux-gnu/ld-2.36.so")
    (st / "loop").symlink_to("loop")
    with pytest.raises(image.ImageError):
        image.stage_path(str(st), str(st / "loop"))


def _elf_with_note(name, ntype):
    desc = b"\0" * 4
    note = struct.pack("<III", len(name) + 1, len(desc), ntype) + name + b"\0"
    note += b"\0" * (-len(note) % 4) + desc
    ehdr = bytearray(64)
    ehdr[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", ehdr, 0x20, 64)               # e_phoff
    struct.pack_into("<HH", ehdr, 0x36, 56, 1)           # e_phentsize, e_phnum
    phdr = struct.pack("<IIQQQQQQ", 4, 0, 120, 0, 0, len(note), len(note), 4)
    return bytes(ehdr) + phdr + note


def test_pvh_note_detection(tmp_path):
    assert image._has_pvh_note(_elf_with_note(b"Xen", 18))
    assert not image._has_pvh_note(_elf_with_note(b"Xen", 17))
    assert not image._has_pvh_note(_elf_with_note(b"GNU", 18))
    junk = tmp_path / "vmlinuz"
    junk.write_bytes(b"\0" * 4096)
    assert image.pvh_vmlinux(str(junk)) is None


def test_image_key_follows_inputs():
    k = image.image_key("6.1.0-56-amd64", ["/d/a_1_amd64.deb", "/d/b_2_amd64.deb"])
    assert k == image.image_key("6.1.0-56-amd64", ["/x/b_2_amd64.deb", "/x/a_1_amd64.deb"])
    assert k != image.image_key("6.1.0-57-amd64", ["/d/a_1_amd64.deb", "/d/b_2_amd64.deb"])
    assert k != image.image_key("6.1.0-56-amd64", ["/d/a_1_amd64.deb", "/d/b_3_amd64.deb"])
    # every guest source is part of the key
    names = [n for n, _ in image.guest_sources()]
    assert "dr-opgen.c" in names and "agent" in names and "setup" in names
    # the operation table dr-opgen shares with app/dpdk-rdma-opgen
    for h in image.OPGEN_HEADERS:
        assert h in names
    for src in image.GUEST_SCRIPTS:
        assert src in names


def test_guest_sources_have_spdx():
    for name, data in image.guest_sources():
        assert b"SPDX-License-Identifier: BSD-3-Clause" in data[:300], name


# --- the job protocol, host half, against a fake guest agent ---------------

class FakeAgent(threading.Thread):
    """Does what guest/agent and guest/runjob do, with the host's sh."""

    def __init__(self, jobs):
        super().__init__(daemon=True)
        self.jobs = jobs
        self.stop = False
        self.procs = {}

    def run(self):
        while not self.stop:
            for f in os.listdir(self.jobs):
                p = os.path.join(self.jobs, f)
                if f.endswith(".cmd"):
                    jid = p[:-4]
                    os.rename(p, jid + ".run")
                    out = open(jid + ".out", "w")
                    self.procs[jid] = subprocess.Popen(["sh", jid + ".run"], stdout=out,
                                                       stderr=subprocess.STDOUT,
                                                       start_new_session=True)
                elif f.endswith(".kill"):
                    os.unlink(p)
                    proc = self.procs.get(p[:-5])
                    if proc:
                        os.killpg(proc.pid, 9)
            for jid, proc in list(self.procs.items()):
                if proc.poll() is not None:
                    with open(jid + ".rc.tmp", "w") as f:
                        f.write("%d\n" % (proc.returncode if proc.returncode >= 0
                                          else 128 - proc.returncode))
                    os.rename(jid + ".rc.tmp", jid + ".rc")
                    del self.procs[jid]
            time.sleep(0.01)


@pytest.fixture
def fake_vm(tmp_path):
    h = harness.Harness(str(tmp_path / "work"), session="fake")
    d = tmp_path / "vm"
    (d / "share" / "jobs").mkdir(parents=True)
    (d / "share" / "ready").write_text(
        "name=vm9\nip=10.99.0.9/24\nmtu=1500\ngid_index=1\nactive_mtu=1024\n"
        "gid=0 fe80:0000:0000:0000:5054:00ff:fe00:0001 eth0 RoCE v2\n"
        "gid=1 0000:0000:0000:0000:0000:ffff:0a63:0009 eth0 RoCE v2\n")
    vm = harness.Vm(h, "vm9", {"dir": str(d), "ip": "10.99.0.9/24", "tap": "tap-vm9",
                               "mtu": 1500, "qemu_name": "none", "pid": None})
    vm.running = lambda: True
    agent = FakeAgent(vm.jobs)
    agent.start()
    yield vm
    agent.stop = True
    agent.join(5)


def test_job_protocol(fake_vm):
    r = fake_vm.exec("echo a; echo b >&2; exit 4", timeout=10)
    assert (r.rc, r.output, r.timed_out) == (4, "a\nb\n", False)
    assert fake_vm.check("echo ok", timeout=10) == "ok\n"
    with pytest.raises(harness.HarnessError, match="exited 1"):
        fake_vm.check("false", timeout=10)
    jobs = [fake_vm.spawn("sleep 0.%d; echo %d" % (i, i), timeout=10) for i in range(3)]
    assert [j.wait().output for j in jobs] == ["0\n", "1\n", "2\n"]
    t0 = time.monotonic()
    r = fake_vm.exec("echo started; exec sleep 20", timeout=0.5)
    assert r.timed_out and r.rc == 124 and r.output == "started\n"
    assert time.monotonic() - t0 < 6
    assert os.listdir(fake_vm.jobs) == []           # nothing left behind


def test_ready_report(fake_vm):
    r = fake_vm.ready()
    assert r["gid_index"] == "1" and r["active_mtu"] == "1024"
    assert r["gids"][1] == (1, "0000:0000:0000:0000:0000:ffff:0a63:0009", "eth0", "RoCE v2")


def test_impair_spec_and_stats(fake_vm, monkeypatch):
    """Vm.impair() refuses what is not a netem spec before running anything,
    passes a spec to guest/rxepeer-impair, and reads its counters."""
    sent = []

    def check(cmd, timeout=None):
        sent.append(cmd)
        return "egress sent=10 dropped=2\ningress sent=7 dropped=1\n"

    monkeypatch.setattr(fake_vm, "check", check)
    for bad in ("loss 1%; reboot", "loss $(id)", "delay 1ms\n"):
        with pytest.raises(harness.HarnessError, match="not a netem spec"):
            fake_vm.impair(bad)
    assert sent == []
    fake_vm.impair("loss 10% reorder 5% 50% delay 1ms")
    assert sent == ["rxepeer-impair on loss 10% reorder 5% 50% delay 1ms"]
    assert fake_vm.impair_stats() == {"egress": {"sent": 10, "dropped": 2},
                                      "ingress": {"sent": 7, "dropped": 1}}
    fake_vm.impair(None)
    assert sent[-1] == "rxepeer-impair off"


def test_dead_vm_is_noticed(fake_vm):
    fake_vm.running = lambda: False
    with pytest.raises(harness.HarnessError, match="died"):
        fake_vm.exec("sleep 5", timeout=10)


# --- harness and command line ----------------------------------------------

def test_bad_names_rejected_before_any_change(tmp_path):
    h = harness.Harness(str(tmp_path), session="s1")
    for name in ("Vm1", "a-b", "toolongname12", ""):
        with pytest.raises(harness.HarnessError, match="bad VM name"):
            h.start(name, "10.99.0.2/24")
    with pytest.raises(harness.HarnessError, match="IPv4"):
        h.start("vm1", "fd99::2/64")
    with pytest.raises(harness.HarnessError, match="bad veth name"):
        h.veth("dpdk-0")
    with pytest.raises(harness.HarnessError):
        harness.Harness(str(tmp_path), session="../x")
    assert h.state() == {"vms": {}, "captures": {}, "veths": []}


def test_reap_stale_sessions(tmp_path):
    dead = 2 ** 22 + 12345      # above the default pid_max, never a live pid
    harness.Harness(str(tmp_path), session="pytest-%d" % dead)._save(
        {"vms": {}, "captures": {}, "veths": [], "netns": None})
    harness.Harness(str(tmp_path), session="pytest-%d" % os.getpid())._save(
        {"vms": {}, "captures": {}, "veths": [], "netns": None})
    harness.reap_stale(str(tmp_path))
    assert harness.sessions(str(tmp_path)) == ["pytest-%d" % os.getpid()]


def cli(*args, work):
    return subprocess.run([sys.executable, str(CLI), "--work", str(work), *args],
                          capture_output=True, text=True, timeout=60, check=False)


def test_cli(tmp_path):
    p = cli("--help", work=tmp_path)
    assert p.returncode == 0
    for cmd in ("build", "start", "exec", "veth", "capture-start", "capture-stop", "stop",
                "stop-all", "netns-exec"):
        assert cmd in p.stdout
    p = cli("--session", "s1", "list", work=tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("session s1 netns -")
    p = cli("exec", "vm1", "true", work=tmp_path)
    assert p.returncode == 1 and "no VM vm1" in p.stderr
    p = cli("start", "BAD", "10.99.0.2/24", work=tmp_path)
    assert p.returncode == 1 and "bad VM name" in p.stderr
    p = cli("stop-all", "--all-sessions", work=tmp_path)
    assert p.returncode == 0
