/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * An application of the installed library, built outside the project from
 * nothing but the installed headers and libdpdk-rdma.pc, shared and
 * --static (test/integration/test_consumer.py). It is what a DPDK network
 * function does first (doc/guides/embedding.rst): it starts its own port,
 * opens a DR_IO_APP context on it with dr_device_from_port(), makes the
 * verbs objects, builds and parses a RoCEv2 frame with the public header
 * accessors (the inline ones read dr_opcode_table, which the shared library
 * must export), and hands the transport an ARP request whose reply it
 * drains. It prints "consumer: ok" and returns 0, or says what failed and
 * returns 1.
 *
 * Build it as C11 with -D_GNU_SOURCE (DPDK's headers use POSIX and GNU
 * functions, as the project itself is built). Run it with EAL options that give it one port, e.g.
 *   consumer --no-huge -m 256 --no-pci --file-prefix=c --vdev=net_ring0
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <dr_opcode.h>
#include <dr_pkt.h>
#include <dr_verbs.h>

#define FAIL(...) do { fprintf(stderr, "consumer: " __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

static const uint8_t our_ip[4] = { 192, 0, 2, 1 };

/* A frame of RDMA WRITE ONLY with a RETH, built and parsed back through the public accessors. */
static int
frame_round_trip(struct rte_mempool *mp)
{
	struct dr_pkt_route rt;
	struct dr_pkt_info pi, back;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t payload[64];
	int rc = 1;

	if (m == NULL)
		FAIL("no mbuf");
	memset(&rt, 0, sizeof(rt));
	rt.ip_ver = 4;
	rt.hop_limit = 64;
	rt.udp_sport = dr_udp_sport_from_qpn(0x11);
	dr_gid_from_ipv4(rt.sgid, rte_cpu_to_be_32(0xC0000201));
	dr_gid_from_ipv4(rt.dgid, rte_cpu_to_be_32(0xC0000202));
	memset(payload, 0x5A, sizeof(payload));
	if (dr_pkt_build(m, &rt, 1, DR_OP_WRITE_ONLY, sizeof(payload), &pi) != 0)
		goto out;
	dr_bth_set_opcode(dr_pkt_bth(&pi), DR_OP_WRITE_ONLY);
	dr_reth_set_va(dr_pkt_reth(&pi), 0x1122334455667788ull);
	dr_reth_set_rkey(dr_pkt_reth(&pi), 0xABCD);
	dr_reth_set_len(dr_pkt_reth(&pi), sizeof(payload));
	if (dr_pkt_append(m, payload, sizeof(payload)) != 0 || dr_pkt_finalize(m, &pi) != 0)
		goto out;
	if (dr_pkt_parse(m, &back) != DR_PKT_OK || !dr_opcode_valid(back.opcode) ||
	    dr_reth_va(dr_pkt_reth(&back)) != 0x1122334455667788ull || dr_reth_rkey(dr_pkt_reth(&back)) != 0xABCD ||
	    back.paylen != sizeof(payload) || dr_pkt_check_icrc(m, &back) != DR_PKT_OK)
		goto out;
	printf("consumer: built and parsed %s (%s), %u payload bytes\n", dr_opcode_name(back.opcode),
	       dr_transport_name(back.opcode), back.paylen);
	rc = 0;
out:
	rte_pktmbuf_free(m);
	if (rc != 0)
		FAIL("the RoCEv2 frame did not come back as built");
	return 0;
}

/* An ARP request for our address (RFC 826) from 192.0.2.9. */
static struct rte_mbuf *
arp_request(struct rte_mempool *mp)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *f;

	if (m == NULL || (f = (uint8_t *)rte_pktmbuf_append(m, 60)) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(f, 0, 60);
	memset(f, 0xFF, 6);
	memcpy(f + 6, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x09 }, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	f[15] = 1;                                 /* Ethernet */
	f[16] = 0x08;                              /* IPv4 */
	f[18] = 6;
	f[19] = 4;
	f[21] = 1;                                 /* request */
	memcpy(f + 22, f + 6, 6);
	memcpy(f + 28, (const uint8_t[]){ 192, 0, 2, 9 }, 4);
	memcpy(f + 38, our_ip, 4);
	return m;
}

int
main(int argc, char **argv)
{
	struct rte_eth_conf conf;
	struct dr_context_attr attr;
	struct rte_mempool *mp;
	struct dr_context *ctx;
	struct dr_device *dev;
	struct dr_pd *pd;
	struct dr_mr *mr;
	struct dr_cq *cq;
	struct rte_mbuf *m, *out[8];
	static char buf[4096];
	uint16_t n = 0, i;
	bool replied = false;

	if (rte_eal_init(argc, argv) < 0)
		FAIL("EAL: %s", rte_strerror(rte_errno));
	if (rte_eth_dev_count_avail() < 1)
		FAIL("no port: give one (--vdev=net_ring0)");
	mp = rte_pktmbuf_pool_create("consumer", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		FAIL("pool: %s", rte_strerror(rte_errno));
	if (frame_round_trip(mp) != 0)
		return 1;

	/* the application's own port, as a network function starts it */
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(0, 1, 1, &conf) != 0 || rte_eth_rx_queue_setup(0, 0, 512, SOCKET_ID_ANY, NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(0, 0, 512, SOCKET_ID_ANY, NULL) != 0 || rte_eth_dev_start(0) != 0)
		FAIL("port 0 did not start");
	dev = dr_device_from_port(0);
	if (dev == NULL)
		FAIL("no device for port 0: %s (is the ethdev backend linked?)", strerror(errno));
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr.ipv4_addr, our_ip, 4);
	attr.io = DR_IO_APP;
	ctx = dr_open_device(dev, &attr);
	if (ctx == NULL)
		FAIL("dr_open_device(%s): %s", dr_get_device_name(dev), strerror(errno));
	pd = dr_alloc_pd(ctx);
	mr = pd != NULL ? dr_reg_mr(pd, buf, sizeof(buf), DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) : NULL;
	cq = dr_create_cq(ctx, 64, NULL, NULL, 0);
	if (pd == NULL || mr == NULL || cq == NULL)
		FAIL("verbs objects: %s", strerror(errno));

	/* the loop of an NF: an ARP request for our address in, its reply out */
	m = arp_request(mp);
	if (m == NULL)
		FAIL("no mbuf");
	if (dr_rx_burst_input(ctx, &m, 1, 0) != 0)
		FAIL("the ARP request for our address came back");
	for (i = 0; i < 100 && n == 0; i++) {
		dr_progress(ctx);
		n = dr_tx_drain(ctx, out, 8);
	}
	for (i = 0; i < n; i++) {
		const uint8_t *r = rte_pktmbuf_mtod(out[i], const uint8_t *);

		if (r[12] == 0x08 && r[13] == 0x06 && r[21] == 2 && memcmp(r + 28, our_ip, 4) == 0)
			replied = true;
	}
	rte_pktmbuf_free_bulk(out, n);
	if (!replied)
		FAIL("no ARP reply among %u frames drained", n);

	if (dr_destroy_cq(cq) != 0 || dr_dereg_mr(mr) != 0 || dr_dealloc_pd(pd) != 0 || dr_close_device(ctx) != 0)
		FAIL("teardown: %s", strerror(errno));
	rte_eth_dev_stop(0);
	printf("consumer: ok (device %s, ARP answered through dr_tx_drain())\n", dr_get_device_name(dev));
	rte_eal_cleanup();
	return 0;
}
