# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""What Linux rxe (drivers/infiniband/sw/rxe, Debian 12's 6.1 kernel) does on
the wire and in its port attributes, as plain functions, so tests can check
captures against it and the docs can point at one place.

- UDP source port of connected QPs (RC, UC): rdma_get_udp_sport() of the
  flow label rdma_calc_flow_label(lqpn, rqpn) (include/rdma/ib_verbs.h) when
  the address vector carries flow label 0, which is what every rdma-core
  example and perftest pass. The product of the QPNs is symmetric, so both
  ends of a connection send from the same port.
- UDP source port of UD QPs: 0xC000 + hash_32(qpn, 14) (rxe_qp.c,
  rxe_qp_init_req()), per sending QP.
- Port active MTU: the largest IB MTU not above the netdev MTU minus
  RXE_MAX_HDR_LENGTH (80) (rxe.c, eth_mtu_int_to_enum()).
"""

ROCE_UDP_DPORT = 4791
ROCE_SPORT_MIN = 0xC000
RXE_MAX_HDR_LENGTH = 80
IB_MTUS = (256, 512, 1024, 2048, 4096)
GOLDEN_RATIO_32 = 0x61C88647


def flow_label(lqpn, rqpn):
    """rdma_calc_flow_label(): 20 bits from the product of the two QPNs."""
    v = (lqpn & 0xFFFFFF) * (rqpn & 0xFFFFFF)
    v ^= v >> 20
    v ^= v >> 40
    return v & 0xFFFFF


def sport_from_flow_label(fl):
    """rdma_flow_label_to_udp_sport(): fold bits 19:14 into 13:0, set 0xC000."""
    low = fl & 0x3FFF
    high = fl & 0xFC000
    low ^= high >> 14
    return (low | ROCE_SPORT_MIN) & 0xFFFF


def udp_sport_connected(lqpn, rqpn):
    """Source port rxe uses for an RC or UC QP lqpn connected to rqpn."""
    return sport_from_flow_label(flow_label(lqpn, rqpn))


def hash_32(val, bits):
    """The kernel's hash_32() (include/linux/hash.h, generic version)."""
    return ((val * GOLDEN_RATIO_32) & 0xFFFFFFFF) >> (32 - bits)


def udp_sport_ud(qpn):
    """Source port rxe uses for UD QP qpn."""
    return ROCE_SPORT_MIN + (hash_32(qpn & 0xFFFFFF, 14) & 0x3FFF)


def active_mtu(netdev_mtu):
    """rxe's port active_mtu (bytes) for a netdev MTU, None when below 256."""
    room = netdev_mtu - RXE_MAX_HDR_LENGTH
    fit = [m for m in IB_MTUS if m <= room]
    return fit[-1] if fit else None


def ipv4_mapped_gid(addr):
    """The sysfs spelling of the RoCEv2 GID of an IPv4 address."""
    a = [int(x) for x in addr.split(".")]
    if len(a) != 4 or not all(0 <= x < 256 for x in a):
        raise ValueError("not an IPv4 address: %r" % addr)
    return "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % tuple(a)


def ipv6_gid(addr):
    """The sysfs spelling (8 groups of 4 hex digits) of an IPv6 address."""
    import ipaddress
    b = ipaddress.IPv6Address(addr).packed
    return ":".join(b[i:i + 2].hex() for i in range(0, 16, 2))
