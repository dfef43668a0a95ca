/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * RoCEv2 UDP source ports as Linux rxe chooses them, so our flows hash like
 * its flows (A17.2.1: the source port identifies the flow, in 0xC000..0xFFFF).
 * Connected QPs: rdma_calc_flow_label() of the two QPNs, folded to 14 bits
 * by rdma_flow_label_to_udp_sport(); UD QPs: a hash of the QPN. The expected
 * values are the ports rxe sent from in the captures under test/vectors
 * (QPNs from the matching .txt logs).
 */

#include "test_pkt.h"

static uint16_t
rc_sport(uint32_t lqpn, uint32_t rqpn)
{
	return dr_udp_sport_from_flow_label(dr_flow_label_from_qpns(lqpn, rqpn));
}

static void
test_known_ports(void)
{
	CHECK_EQ(rc_sport(0x11, 0x11), 0xC121);   /* rc_pingpong.pcap */
	CHECK_EQ(rc_sport(0x12, 0x12), 0xC144);   /* uc_pingpong.pcap */
	CHECK_EQ(rc_sport(0x14, 0x14), 0xC190);   /* opgen_rc.pcap */
	CHECK_EQ(rc_sport(0x1C, 0x1D), 0xC32C);   /* perftest_send_bw_4k.pcap */
	CHECK_EQ(rc_sport(0x1D, 0x1C), 0xC32C);   /* symmetric: both ends pick the same port */
	CHECK_EQ(rc_sport(0x18, 0x19), 0xC258);   /* perftest_write_lat.pcap */
	CHECK_EQ(dr_udp_sport_from_qpn(0x13), 0xD078);   /* ud_pingpong.pcap */
	CHECK_EQ(dr_udp_sport_from_qpn(0x18), 0xCAB3);   /* hostpeer_ud.pcap */
}

static void
test_flow_label(void)
{
	/* 20 bits; the high bits of the product are folded in, not dropped */
	CHECK_EQ(dr_flow_label_from_qpns(0x11, 0x11), 0x121);
	CHECK_EQ(dr_flow_label_from_qpns(0x100000, 1), 0x1);
	CHECK_EQ(dr_flow_label_from_qpns(0, 0xFFFFFF), 0);
	/* flow label bits 19:14 fold into the low 6 bits of the port */
	CHECK_EQ(dr_udp_sport_from_flow_label(0xFC000), 0xC03F);
	CHECK_EQ(dr_udp_sport_from_flow_label(0x03FFF), 0xFFFF);
	CHECK_EQ(dr_udp_sport_from_flow_label(0), 0xC000);
}

static void
test_range(void)
{
	uint64_t seed = 3;
	unsigned int out = 0, asym = 0;

	for (int i = 0; i < 100000; i++) {
		uint32_t a = (uint32_t)tpkt_rand(&seed) & DR_24BIT_MASK;
		uint32_t b = (uint32_t)tpkt_rand(&seed) & DR_24BIT_MASK;
		uint16_t p = rc_sport(a, b), q = dr_udp_sport_from_qpn(a);

		out += p < DR_ROCEV2_SPORT_MIN || q < DR_ROCEV2_SPORT_MIN;
		asym += p != rc_sport(b, a);
	}
	CHECK_EQ(out, 0);
	CHECK_EQ(asym, 0);
}

int
main(void)
{
	test_known_ports();
	test_flow_label();
	test_range();
	return dr_test_report("test_udp_sport");
}
