/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The opcode tables: every entry checked against the rules it encodes. */

#include <errno.h>

#include "dr_hdr.h"
#include "dr_opcode.h"
#include "dr_test.h"

/* Offsets must be the running sum of the headers present, in wire order (IBA 9.2-9.3). */
static void
check_offsets(unsigned int op, const struct dr_opcode_info *e)
{
	unsigned int sum = 0;

	for (int t = 0; t < DR_HDR_PAYLOAD; t++) {
		if (!(e->mask & DR_HDR_BIT(t)))
			continue;
		CHECK_MSG(e->offset[t] == sum, "%s: %s at %u, expected %u", e->name,
			  dr_hdr_name[t], e->offset[t], sum);
		sum += dr_hdr_size[t];
	}
	CHECK_MSG(e->length == sum, "%s: length %u, headers sum to %u", e->name, e->length, sum);
	CHECK_MSG(e->offset[DR_HDR_PAYLOAD] == sum, "%s: payload offset %u", e->name,
		  e->offset[DR_HDR_PAYLOAD]);
	(void)op;
}

static bool
has(const struct dr_opcode_info *e, uint32_t f)
{
	return (e->mask & f) == f;
}

static void
check_semantics(unsigned int op, const struct dr_opcode_info *e)
{
	uint8_t tr = op & DR_OPCODE_TRANSPORT_MASK;
	uint8_t low = op & DR_OPCODE_OP_MASK;
	const char *tn = dr_transport_name((uint8_t)op);

	/* dpdk-rdma's SACK: an RC ACKNOWLEDGE with its map (dr_hdr.h struct dr_sack) */
	if (tr == DR_TRANSPORT_VENDOR) {
		CHECK_EQ(op, DR_OPCODE_SACK);
		CHECK_EQ(e->mask, DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_ONLY | DR_OPF_ACK |
			 DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE);
		CHECK(strcmp(e->name, "DR_SACK") == 0);
		return;
	}
	CHECK_MSG(strncmp(e->name, tn, strlen(tn)) == 0, "%s does not start with %s", e->name, tn);
	CHECK(has(e, DR_OPF_BTH));
	CHECK_EQ(e->offset[DR_HDR_BTH], 0);
	/* a request or a response, never both; a CNP is neither */
	if (e->mask & DR_OPF_CNP)
		CHECK(!(e->mask & (DR_OPF_REQ | DR_OPF_RESP)));
	else
		CHECK_MSG(!!(e->mask & DR_OPF_REQ) != !!(e->mask & DR_OPF_RESP), "%s", e->name);
	/* middle excludes first and last */
	if (e->mask & DR_OPF_MIDDLE)
		CHECK(!(e->mask & (DR_OPF_FIRST | DR_OPF_LAST)));
	else if (!(e->mask & DR_OPF_CNP))
		CHECK_MSG(e->mask & (DR_OPF_FIRST | DR_OPF_LAST), "%s has no position", e->name);
	/* immediate data <-> ImmDt, invalidate <-> IETH (IBA 9.3.8, 9.3.11) */
	CHECK_EQ(!!(e->mask & DR_OPF_IMM), !!(e->mask & DR_OPF_IMMDT));
	CHECK_EQ(!!(e->mask & DR_OPF_INV), !!(e->mask & DR_OPF_IETH));
	/* RETH on the first packet of a WRITE, on READ requests, FLUSH, ATOMIC WRITE (9.3.4) */
	if ((e->mask & DR_OPF_WRITE) || (e->mask & DR_OPF_READ && e->mask & DR_OPF_REQ))
		CHECK_EQ(!!(e->mask & DR_OPF_RETH), !!(e->mask & DR_OPF_FIRST));
	if (e->mask & (DR_OPF_FLUSH | DR_OPF_ATOMIC_WRITE))
		CHECK(has(e, DR_OPF_RETH));
	CHECK_EQ(!!(e->mask & DR_OPF_FETH), !!(e->mask & DR_OPF_FLUSH));
	/* AtomicETH on atomic requests, AtomicAckETH on atomic responses (9.3.5, 9.3.7) */
	if (e->mask & DR_OPF_ATOMIC)
		CHECK(has(e, (e->mask & DR_OPF_REQ) ? DR_OPF_ATMETH : DR_OPF_ATMACK | DR_OPF_AETH));
	/* READ responses: AETH on first, last and only, not on middle (9.3.6) */
	if ((e->mask & DR_OPF_READ) && (e->mask & DR_OPF_RESP))
		CHECK_EQ(!!(e->mask & DR_OPF_AETH), !(e->mask & DR_OPF_MIDDLE));
	/* responses carry no XRCETH; XRC requests always do (XRC annex) */
	if (tr == DR_TRANSPORT_XRC)
		CHECK_EQ(!!(e->mask & DR_OPF_XRCETH), !!(e->mask & DR_OPF_REQ));
	else
		CHECK(!(e->mask & DR_OPF_XRCETH));
	/* UD: DETH on every packet, only SEND ONLY (IBA 9.8.3) */
	CHECK_EQ(!!(e->mask & DR_OPF_DETH), tr == DR_TRANSPORT_UD);
	if (tr == DR_TRANSPORT_UD)
		CHECK(low == DR_OP_SEND_ONLY || low == DR_OP_SEND_ONLY_IMM);
	/* reliability classes */
	CHECK_EQ(!!(e->mask & DR_OPF_RELIABLE), tr == DR_TRANSPORT_RC || tr == DR_TRANSPORT_XRC);
	CHECK_EQ(!!(e->mask & DR_OPF_CONNECTED),
		 tr == DR_TRANSPORT_RC || tr == DR_TRANSPORT_XRC || tr == DR_TRANSPORT_UC);
	/* UC has no READ, atomics, ACKs or invalidate (IBA table 38) */
	if (tr == DR_TRANSPORT_UC)
		CHECK(low <= DR_OP_WRITE_ONLY_IMM);
	/* a receive WQE is consumed by SEND first/only and WRITE-with-immediate */
	if (e->mask & DR_OPF_RWR)
		CHECK((e->mask & DR_OPF_SEND && e->mask & DR_OPF_FIRST) || (e->mask & DR_OPF_IMM && e->mask & DR_OPF_WRITE));
	if (e->mask & DR_OPF_COMP)
		CHECK(e->mask & DR_OPF_LAST);
	/* ACKs carry no payload */
	if (e->mask & (DR_OPF_ACK | DR_OPF_AETH) && !(e->mask & DR_OPF_READ))
		CHECK(!(e->mask & DR_OPF_PAYLOAD));
}

static void
test_table(void)
{
	unsigned int defined = 0;

	for (unsigned int op = 0; op < 256; op++) {
		const struct dr_opcode_info *e = &dr_opcode_table[op];

		if (e->name == NULL) {
			CHECK(!dr_opcode_valid((uint8_t)op));
			CHECK(strcmp(dr_opcode_name((uint8_t)op), "UNKNOWN") == 0);
			continue;
		}
		defined++;
		check_offsets(op, e);
		check_semantics(op, e);
	}
	/* RC 25 (incl. FLUSH, ATOMIC WRITE), UC 12, UD 2, XRC 23, CNP 1, dpdk-rdma's SACK 1 */
	CHECK_EQ(defined, 64);
	CHECK(!dr_opcode_valid(0xC0));   /* manufacturer specific: only the SACK */
	CHECK(!dr_opcode_valid(0x15));   /* reserved */
	CHECK(!dr_opcode_valid(0x40));   /* RD: unsupported */
	CHECK(!dr_opcode_valid(0x2C));   /* UC has no READ */
	CHECK(!dr_opcode_valid(0x60));   /* UD has no SEND FIRST */
	CHECK(!dr_opcode_valid(0xBC));   /* no XRC FLUSH */
	CHECK(!dr_opcode_valid(0xFF));
}

static void
test_values(void)
{
	/* IBA table 38 numbers */
	CHECK_EQ(DR_OPCODE(RC, SEND_FIRST), 0x00);
	CHECK_EQ(DR_OPCODE(RC, ACK), 0x11);
	CHECK_EQ(DR_OPCODE(UC, WRITE_ONLY_IMM), 0x2B);
	CHECK_EQ(DR_OPCODE(UD, SEND_ONLY), 0x64);
	CHECK_EQ(DR_OPCODE(UD, SEND_ONLY_IMM), 0x65);
	CHECK_EQ(DR_OPCODE(XRC, SEND_ONLY_INV), 0xB7);
	CHECK_EQ(DR_OPCODE_CNP, 0x81);
	CHECK(strcmp(dr_opcode_name(0x04), "RC_SEND_ONLY") == 0);
	CHECK(strcmp(dr_opcode_name(0x81), "CNP") == 0);
	CHECK(strcmp(dr_opcode_name(0x1C), "RC_FLUSH") == 0);
	CHECK(strcmp(dr_transport_name(0xA0), "XRC") == 0);

	/* spot checks of the offsets the parser relies on */
	const struct dr_opcode_info *e = &dr_opcode_table[DR_OPCODE(RC, WRITE_ONLY_IMM)];
	CHECK_EQ(e->offset[DR_HDR_RETH], 12);
	CHECK_EQ(e->offset[DR_HDR_IMMDT], 28);
	CHECK_EQ(e->length, 32);
	e = &dr_opcode_table[DR_OPCODE(XRC, CMP_SWAP)];
	CHECK_EQ(e->offset[DR_HDR_XRCETH], 12);
	CHECK_EQ(e->offset[DR_HDR_ATMETH], 16);
	CHECK_EQ(e->length, 44);
	e = &dr_opcode_table[DR_OPCODE(UD, SEND_ONLY_IMM)];
	CHECK_EQ(e->offset[DR_HDR_DETH], 12);
	CHECK_EQ(e->offset[DR_HDR_IMMDT], 20);
	CHECK_EQ(e->length, 24);
	e = &dr_opcode_table[DR_OPCODE(RC, FLUSH)];
	CHECK_EQ(e->offset[DR_HDR_FETH], 12);
	CHECK_EQ(e->offset[DR_HDR_RETH], 16);
	CHECK_EQ(e->length, 32);
	e = &dr_opcode_table[DR_OPCODE(RC, ATOMIC_ACK)];
	CHECK_EQ(e->offset[DR_HDR_AETH], 12);
	CHECK_EQ(e->offset[DR_HDR_ATMACK], 16);
	CHECK_EQ(e->length, 24);
	e = &dr_opcode_table[DR_OPCODE_CNP];
	CHECK_EQ(e->length, 12);
	CHECK(e->mask & DR_OPF_PAYLOAD);
}

static void
test_wr_table(void)
{
	static const enum dr_qp_type qpts[] = { DR_QPT_RC, DR_QPT_UC, DR_QPT_UD, DR_QPT_XRC_SEND,
						DR_QPT_XRC_RECV, DR_QPT_RAW_PACKET };

	/* ibv_post_send(3): which opcode on which QP type */
	CHECK(dr_wr_opcode_flags(DR_QPT_RC, DR_WR_RDMA_READ) & DR_WRF_ALLOWED);
	CHECK(!(dr_wr_opcode_flags(DR_QPT_UC, DR_WR_RDMA_READ) & DR_WRF_ALLOWED));
	CHECK(!(dr_wr_opcode_flags(DR_QPT_UC, DR_WR_ATOMIC_FETCH_AND_ADD) & DR_WRF_ALLOWED));
	CHECK(!(dr_wr_opcode_flags(DR_QPT_UC, DR_WR_SEND_WITH_INV) & DR_WRF_ALLOWED));
	CHECK(dr_wr_opcode_flags(DR_QPT_UC, DR_WR_RDMA_WRITE_WITH_IMM) & DR_WRF_IMM);
	CHECK(dr_wr_opcode_flags(DR_QPT_UD, DR_WR_SEND) & DR_WRF_NEEDS_AH);
	CHECK(!(dr_wr_opcode_flags(DR_QPT_UD, DR_WR_RDMA_WRITE) & DR_WRF_ALLOWED));
	CHECK(!(dr_wr_opcode_flags(DR_QPT_UD, DR_WR_TSO) & DR_WRF_ALLOWED));
	CHECK(dr_wr_opcode_flags(DR_QPT_XRC_SEND, DR_WR_ATOMIC_CMP_AND_SWP) & DR_WRF_ATOMIC);
	CHECK(!(dr_wr_opcode_flags(DR_QPT_XRC_SEND, DR_WR_FLUSH) & DR_WRF_ALLOWED));
	CHECK(dr_wr_opcode_flags(DR_QPT_RC, DR_WR_FLUSH) & DR_WRF_FLUSH);
	CHECK(dr_wr_opcode_flags(DR_QPT_RC, DR_WR_BIND_MW) & DR_WRF_LOCAL);
	CHECK(!(dr_wr_opcode_flags(DR_QPT_RC, DR_WR_RDMA_READ) & DR_WRF_INLINE));
	CHECK_EQ(dr_wr_opcode_flags(DR_QPT_XRC_RECV, DR_WR_SEND), 0);
	CHECK_EQ(dr_wr_opcode_flags(DR_QPT_RC, (enum dr_wr_opcode)99), 0);
	CHECK_EQ(dr_wr_opcode_flags((enum dr_qp_type)99, DR_WR_SEND), 0);

	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_RC, DR_WR_SEND, DR_POS_FIRST), 0x00);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_RC, DR_WR_SEND_WITH_INV, DR_POS_LAST), 0x16);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_UC, DR_WR_RDMA_WRITE_WITH_IMM, DR_POS_ONLY), 0x2B);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_UD, DR_WR_SEND_WITH_IMM, DR_POS_ONLY), 0x65);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_UD, DR_WR_SEND, DR_POS_FIRST), -EINVAL);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_XRC_SEND, DR_WR_RDMA_WRITE_WITH_IMM, DR_POS_LAST), 0xA9);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_RC, DR_WR_RDMA_READ, DR_POS_ONLY), 0x0C);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_RC, DR_WR_RDMA_READ, DR_POS_FIRST), -EINVAL);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_UC, DR_WR_RDMA_READ, DR_POS_ONLY), -EINVAL);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_RC, DR_WR_LOCAL_INV, DR_POS_ONLY), -EINVAL);
	CHECK_EQ(dr_wr_pkt_opcode(DR_QPT_RC, DR_WR_SEND, (enum dr_pkt_pos)7), -EINVAL);

	/* every opcode the WR table can produce agrees with the packet table */
	for (unsigned int q = 0; q < RTE_DIM(qpts); q++) {
		for (int op = 0; op < DR_NUM_WR_OPCODES; op++) {
			uint16_t f = dr_wr_opcode_flags(qpts[q], (enum dr_wr_opcode)op);

			for (int pos = DR_POS_FIRST; pos <= DR_POS_ONLY; pos++) {
				int pkt = dr_wr_pkt_opcode(qpts[q], (enum dr_wr_opcode)op, (enum dr_pkt_pos)pos);
				uint32_t m;

				if (pkt < 0)
					continue;
				CHECK(f & DR_WRF_ALLOWED);
				m = dr_opcode_table[pkt].mask;
				CHECK(m & DR_OPF_REQ);
				CHECK_EQ(!!(f & DR_WRF_SEND), !!(m & DR_OPF_SEND));
				CHECK_EQ(!!(f & DR_WRF_WRITE), !!(m & DR_OPF_WRITE));
				CHECK_EQ(!!(f & DR_WRF_READ), !!(m & DR_OPF_READ));
				CHECK_EQ(!!(f & DR_WRF_ATOMIC), !!(m & DR_OPF_ATOMIC));
				if (pos == DR_POS_LAST || pos == DR_POS_ONLY) {
					CHECK_EQ(!!(f & DR_WRF_IMM), !!(m & DR_OPF_IMM));
					CHECK_EQ(!!(f & DR_WRF_INV), !!(m & DR_OPF_INV));
				}
				CHECK_EQ(!!(m & DR_OPF_FIRST), pos == DR_POS_FIRST || pos == DR_POS_ONLY);
				CHECK_EQ(!!(m & DR_OPF_LAST), pos == DR_POS_LAST || pos == DR_POS_ONLY);
			}
		}
	}
	for (int op = 0; op < DR_NUM_WR_OPCODES; op++)
		if (dr_wr_opcode_table[op].name == NULL)
			CHECK(op == 12 || op == 13); /* unused values of enum ibv_wr_opcode */
}

int
main(void)
{
	test_table();
	test_values();
	test_wr_table();
	return dr_test_report("test_opcode");
}
