# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Our stack against Linux rxe at path MTU 4096 and with IPv6 GIDs, both
directions: rdma-core's ibv_rc_pingpong against app/dpdk-rdma-pingpong,
perftest's ib_write_bw / ib_read_bw / ib_send_bw against dpdk-rdma-perf
--perftest-compat.

One VM booted with link MTU 4200 (rxe's active MTU 4096) and an IPv6
address (fd99::2, rxe GID index 2); one veth of MTU 4200 for us (10.99.0.12
and fd99::12: our GID indexes 1 and 2, --ipv6). The path MTU is each run's
-m, so the same VM serves the 1024 cases too.

Our port: net_af_packet for the IPv4 4096 cases, with ring frames that
hold a 4096-byte packet's frame (framesz=4352, blocksz=69632: its default
2048-byte frames cap the path MTU at 1024). DPDK 22.11's net_af_packet says
max_rx_pktlen 1518 whatever framesz is, so ethdev refuses
rte_eth_dev_set_mtu(4200); the backend sets the interface's MTU as the
PMD's mtu_set would (drivers/ethdev/dr_ethdev_af_packet.c). The IPv6 4096
cases run on net_pcap over the same veth (no mtu_set: the library takes
--link-mtu as given), so both PMDs carry 4096; the IPv6 case at 1024 runs
on net_af_packet at the port's MTU as the other interop modules do.

Every run is captured on the VM's tap and decoded: good ICRCs, the IP
version and the addresses (the GIDs) of the run, payloads cut at the path
MTU (4096-byte packets at MTU 4096), and for IPv6 the guest's neighbour
entry for our address (our Neighbour Advertisement)."""

import re

import pytest

from rxepeer import rxe

from . import ours, wire
from .conftest import PINGPONG_PORT, harness_session, qpns
from .ours import exe_of
from .test_perftest_rxe import rows
from .test_pingpong_rxe import BYTES_LINE, decode, iters_of

VM = ("mivm", "10.99.0.2/24")
VM_IP6 = "fd99::2"
OUR_IP = "10.99.0.12"
OUR_IP6 = "fd99::12"
VETH = "miv0"
LINK_MTU = 4200
PERF_PORT = 18516
TIMEOUT = ours.TIMEOUT
ITERS = 20

# ring frames of net_af_packet that hold a 4096-byte packet's frame (4203 bytes at most)
AF_PACKET_4096 = ",framesz=4352,blocksz=69632"
# (GID family, path MTU, our PMD)
LINKS = {
    "v4_4096": ("ipv4", 4096, "af_packet"),
    "v6_4096": ("ipv6", 4096, "pcap"),
    "v6_1024": ("ipv6", 1024, "af_packet"),
}


class Peer(ours.Peer):
    def __init__(self, harness, vm, vm_gid6, outdir):
        super().__init__(harness, vm, VETH, outdir, "drmi")
        self.vm_gid6 = vm_gid6

    def addresses(self, fam):
        """(ours, the VM's) IP addresses of family fam: what the frames carry."""
        return (OUR_IP, self.vm.ip) if fam == "ipv4" else (OUR_IP6, VM_IP6)

    def rxe_gid(self, fam):
        """rxe's GID index of fam: its IPv4 address's, as the guest found it
        at boot (the order of rxe's GID table is the kernel's, not ours)."""
        return "$RXE_GID_IDX" if fam == "ipv4" else str(self.vm_gid6)

    def neighbour_of_ours(self):
        """The guest's neighbour entry for our IPv6 address (ND resolved it)."""
        return self.vm.check("ip -6 neigh show %s dev eth0" % OUR_IP6, timeout=30)


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    with harness_session() as h:
        vm = h.start(*VM, mtu=LINK_MTU, timeout=120)
        assert vm.active_mtu() == 4096
        h.veth(VETH, mtu=LINK_MTU)
        gid6 = vm.add_ipv6(VM_IP6 + "/64")
        peer = Peer(h, vm, gid6, tmp_path_factory.mktemp("mtu_ipv6"))
        try:
            yield peer
        finally:
            peer.cleanup()


def our_link_args(peer, fam, pmd, mtu):
    """Our addresses (GID 1: --ip, 2: --ipv6) and link MTU; the GID index of
    fam; more devargs of our port. At path MTU 1024 net_af_packet stays at the
    port's MTU (1500: active MTU 1024)."""
    gid = 1 if fam == "ipv4" else 2
    link = ["--link-mtu", str(LINK_MTU)] if mtu == 4096 else []
    extra = AF_PACKET_4096 if pmd == "af_packet" and mtu == 4096 else ""
    return ["--ip", OUR_IP, "--ipv6", OUR_IP6] + link, gid, extra


def check_frames(peer, frames, fam, mtu):
    """Every frame: the run's IP version, between our address and the VM's
    (a RoCEv2 GID is the IP address), data cut at the path MTU."""
    mine, theirs = peer.addresses(fam)
    for f in frames:
        assert f["ip_version"] == (4 if fam == "ipv4" else 6), f
        assert {f["src"], f["dst"]} == {mine, theirs}, f
    assert {f["src"] for f in frames} == {mine, theirs}
    assert max(f["payload_len"] for f in frames) == mtu
    assert all(f["pad"] == (-f["payload_len"]) % 4 for f in frames)


@pytest.mark.parametrize("we_serve", [False, True], ids=["rxe_server", "our_server"])
@pytest.mark.parametrize("link", list(LINKS))
def test_pingpong(peer, dump_json, link, we_serve):
    fam, mtu, pmd = LINKS[link]
    size = 10000
    opts = "-s %d -m %d -n %d -c" % (size, mtu, ITERS)
    largs, gid, extra = our_link_args(peer, fam, pmd, mtu)
    rc, out, theirs, pcap = peer.run(
        "pingpong_%s_%s" % (link, "oursrv" if we_serve else "rxesrv"),
        exe_of("dpdk-rdma-pingpong"), pmd,
        largs + ["--timeout", str(TIMEOUT), "-g", str(gid)] + opts.split(),
        "ibv_rc_pingpong -d rxe0 -g %s %s" % (peer.rxe_gid(fam), opts), PINGPONG_PORT, we_serve,
        extra=extra)
    assert (rc, theirs.rc) == (0, 0), "ours:\n%s\nrxe:\n%s" % (out, theirs.output)
    ours_addr, their_addr = peer.addresses(fam)
    for o in (out, theirs.output):
        assert iters_of(o) == ITERS, o
        assert int(BYTES_LINE.search(o).group(1)) == size * ITERS * 2, o
        assert "invalid data" not in o, o
    # the GIDs each side printed are the addresses of the run
    gids = [("::ffff:" + a if fam == "ipv4" else a) for a in (ours_addr, their_addr)]
    assert "GID %s\n" % gids[0] in out and "GID %s\n" % gids[1] in out, out
    our_qpn, their_qpn = qpns(out)
    assert qpns(theirs.output) == (their_qpn, our_qpn)
    frames = decode(dump_json, pcap)
    check_frames(peer, frames, fam, mtu)
    sport = rxe.udp_sport_connected(our_qpn, their_qpn)
    assert {f["udp_sport"] for f in frames} == {sport}
    # each side's SENDs: exactly the packets of a 10000-byte message at this MTU
    want = [(op, n) for op, n, _ in wire.requests([(0, "SEND", size)], "rc", mtu)] * ITERS
    for src in (ours_addr, their_addr):
        reqs = wire.first_seen([f for f in wire.sent_by(frames, src) if f["opcode"] != wire.ACK])
        assert [(f["opcode"], f["payload_len"]) for f in reqs] == want, src
    if fam == "ipv6":
        assert "lladdr" in peer.neighbour_of_ours()


PERF = ["write_bw", "read_bw", "send_bw"]


@pytest.mark.parametrize("we_serve", [False, True], ids=["rxe_server", "our_server"])
@pytest.mark.parametrize("link", ["v4_4096", "v6_4096"])
@pytest.mark.parametrize("test", PERF)
def test_perftest(peer, dump_json, test, link, we_serve):
    fam, mtu, pmd = LINKS[link]
    size, iters = 16384, 100
    args = ["-s", str(size), "-n", str(iters), "-m", str(mtu)]
    largs, gid, extra = our_link_args(peer, fam, pmd, mtu)
    our_args = [test] + largs + ["-x", str(gid), "--perftest-compat", "-p", str(PERF_PORT)] + args
    if we_serve:
        our_args += ["--oob-bind", peer.harness.host_ip]
    tool = "ib_%s -d rxe0 -x %s -p %d %s" % (test, peer.rxe_gid(fam), PERF_PORT, " ".join(args))
    rc, out, theirs, pcap = peer.run("%s_%s_%s" % (test, link, "oursrv" if we_serve else "rxesrv"),
                                     exe_of("dpdk-rdma-perf"), pmd, our_args, tool, PERF_PORT,
                                     we_serve, extra=extra)
    assert (rc, theirs.rc) == (0, 0), "ours:\n%s\nrxe:\n%s" % (out, theirs.output)
    for who, text in (("ours", out), ("rxe", theirs.output)):
        assert rows(test, text) == [(str(size), str(iters))], "%s:\n%s" % (who, text)
    assert re.search(r"Mtu\s*:\s*%d\[B\]" % mtu, theirs.output), theirs.output
    frames = decode(dump_json, pcap)
    check_frames(peer, frames, fam, mtu)
    # who carries the data: the requester of WRITEs and SENDs, the responder of READs
    ours_addr, their_addr = peer.addresses(fam)
    client = ours_addr if not we_serve else their_addr
    server = their_addr if client == ours_addr else ours_addr
    data_src = server if test == "read_bw" else client
    data = wire.first_seen([f for f in wire.sent_by(frames, data_src) if f["payload_len"]])
    # a 16 KiB message at MTU 4096: four full packets, iters messages
    assert len(data) == 4 * iters and {f["payload_len"] for f in data} == {mtu}
    if fam == "ipv6":
        assert "lladdr" in peer.neighbour_of_ours()


def test_af_packet_default_frames_cap_path_mtu(peer, dump_json):
    """net_af_packet's default ring frames (2048 bytes: frames of 2014 at most
    both ways) cannot carry a 4096-byte packet's frame: at link MTU 4200 our
    port's active MTU is 1024, not 4096, and perftest's rule (-m above the
    active MTU) moves our -m 4096 to it. rxe at 1024: every data packet of
    the run is 1024 bytes."""
    size, iters = 16384, 20
    args = ["-s", str(size), "-n", str(iters)]
    our_args = ["write_bw", "--ip", OUR_IP, "--link-mtu", str(LINK_MTU), "-x", "1", "--perftest-compat",
                "-p", str(PERF_PORT), "-m", "4096"] + args
    tool = "ib_write_bw -d rxe0 -x $RXE_GID_IDX -p %d -m 1024 %s" % (PERF_PORT, " ".join(args))
    rc, out, theirs, pcap = peer.run("af_packet_default_frames", exe_of("dpdk-rdma-perf"), "af_packet",
                                     our_args, tool, PERF_PORT, False)
    assert (rc, theirs.rc) == (0, 0), "ours:\n%s\nrxe:\n%s" % (out, theirs.output)
    assert "Changing to active mtu - 1024" in out, out
    assert "its ring carries frames of at most 2014 bytes" in out, out
    assert rows("write_bw", out) == [(str(size), str(iters))], out
    frames = decode(dump_json, pcap)
    data = [f for f in wire.sent_by(frames, OUR_IP) if f["payload_len"]]
    assert data and {f["payload_len"] for f in data} == {1024}


@pytest.mark.parametrize("devargs,says", [
    (",framesz=3072,blocksz=8192", "blocksz 8192 is not a multiple of framesz 3072"),
    (",framesz=8192,blocksz=8192", "net_af_packet copies each ring frame"),
], ids=["ring_misread", "frames_above_mbufs"])
def test_af_packet_ring_refused(peer, devargs, says):
    """Ring frames the PMD would misread (it finds frame i at i * framesz, so
    a block must end where a frame does), or frames longer than the
    context's mbufs (the PMD copies each into one): dr_open_device fails and
    says why, before any frame moves."""
    proc = peer.ours(exe_of("dpdk-rdma-perf"), "af_packet",
                     ["write_bw", "--ip", OUR_IP, "--link-mtu", str(LINK_MTU), "-x", "1", "-n", "5",
                      "--oob-bind", peer.harness.host_ip], extra=devargs)
    rc, out = ours.finish(proc, 30)
    assert rc != 0, out
    assert says in out, out
