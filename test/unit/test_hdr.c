/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Header accessors: each field lands on the bits IBA 9.2/9.3 give it, and nowhere else. */

#include "dr_hdr.h"
#include "dr_test.h"

static void
test_bth(void)
{
	struct dr_bth b;
	uint8_t raw[12];

	memset(&b, 0, sizeof(b));
	dr_bth_set_opcode(&b, 0x0A);
	dr_bth_set_se(&b, true);
	dr_bth_set_pad(&b, 3);
	dr_bth_set_tver(&b, 0);
	dr_bth_set_pkey(&b, 0xFFFF);
	dr_bth_set_qpn(&b, 0xABCDEF);
	dr_bth_set_becn(&b, true);
	dr_bth_set_ackreq(&b, true);
	dr_bth_set_psn(&b, 0x123456);
	memcpy(raw, &b, sizeof(raw));
	static const uint8_t want[12] = { 0x0A, 0xB0, 0xFF, 0xFF, 0x40, 0xAB, 0xCD, 0xEF,
					  0x80, 0x12, 0x34, 0x56 };
	CHECK(memcmp(raw, want, sizeof(want)) == 0);
	CHECK_EQ(dr_bth_opcode(&b), 0x0A);
	CHECK(dr_bth_se(&b));
	CHECK(!dr_bth_mig(&b));
	CHECK_EQ(dr_bth_pad(&b), 3);
	CHECK_EQ(dr_bth_tver(&b), 0);
	CHECK_EQ(dr_bth_pkey(&b), 0xFFFF);
	CHECK_EQ(dr_bth_qpn(&b), 0xABCDEF);
	CHECK(dr_bth_becn(&b));
	CHECK(!dr_bth_fecn(&b));
	CHECK(dr_bth_ackreq(&b));
	CHECK_EQ(dr_bth_psn(&b), 0x123456);

	/* setters keep their neighbours */
	dr_bth_set_psn(&b, 0x1FFFFFF);     /* bit 24 must not reach AckReq's word */
	CHECK_EQ(dr_bth_psn(&b), 0xFFFFFF);
	CHECK(dr_bth_ackreq(&b));
	CHECK_EQ(dr_bth_resv7(&b), 0);
	dr_bth_set_qpn(&b, 0);
	CHECK(dr_bth_becn(&b));
	dr_bth_set_fecn(&b, true);
	dr_bth_set_resv6a(&b, 0x3F);
	memcpy(raw, &b, sizeof(raw));
	CHECK_EQ(raw[4], 0xFF);
	dr_bth_set_resv6a(&b, 0);
	dr_bth_set_becn(&b, false);
	dr_bth_set_fecn(&b, false);
	memcpy(raw, &b, sizeof(raw));
	CHECK_EQ(raw[4], 0x00);
	dr_bth_set_pad(&b, 0);
	dr_bth_set_se(&b, false);
	dr_bth_set_mig(&b, true);
	dr_bth_set_tver(&b, 0xF);
	memcpy(raw, &b, sizeof(raw));
	CHECK_EQ(raw[1], 0x4F);
	dr_bth_set_ackreq(&b, false);
	dr_bth_set_resv7(&b, 0x7F);
	memcpy(raw, &b, sizeof(raw));
	CHECK_EQ(raw[8], 0x7F);
	CHECK(!dr_bth_ackreq(&b));
}

static void
test_ext(void)
{
	struct dr_reth r;
	struct dr_atmeth a;
	struct dr_aeth k;
	struct dr_deth d;
	struct dr_feth f;
	struct dr_xrceth x;
	struct dr_atmack o;
	struct dr_ieth ie;
	uint8_t raw[28];

	dr_reth_set_va(&r, 0x0102030405060708ull);
	dr_reth_set_rkey(&r, 0x11223344);
	dr_reth_set_len(&r, 0x00010000);
	memcpy(raw, &r, 16);
	static const uint8_t want_reth[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22, 0x33, 0x44, 0, 1, 0, 0 };
	CHECK(memcmp(raw, want_reth, 16) == 0);
	CHECK_EQ(dr_reth_va(&r), 0x0102030405060708ull);
	CHECK_EQ(dr_reth_rkey(&r), 0x11223344);
	CHECK_EQ(dr_reth_len(&r), 0x10000);

	dr_atmeth_set_va(&a, 0xA0A1A2A3A4A5A6A8ull);
	dr_atmeth_set_rkey(&a, 0x563);
	dr_atmeth_set_swap_add(&a, 0xDEADBEEF00000001ull);
	dr_atmeth_set_comp(&a, 0x0102);
	memcpy(raw, &a, 28);
	CHECK_EQ(raw[0], 0xA0);
	CHECK_EQ(raw[11], 0x63);
	CHECK_EQ(raw[12], 0xDE);
	CHECK_EQ(raw[19], 0x01);
	CHECK_EQ(raw[27], 0x02);
	CHECK_EQ(dr_atmeth_va(&a), 0xA0A1A2A3A4A5A6A8ull);
	CHECK_EQ(dr_atmeth_rkey(&a), 0x563);
	CHECK_EQ(dr_atmeth_swap_add(&a), 0xDEADBEEF00000001ull);
	CHECK_EQ(dr_atmeth_comp(&a), 0x0102);

	/* AETH syndromes (IBA 9.7.5.1 table 43) */
	dr_aeth_set(&k, dr_aeth_syn_make(DR_AETH_NAK, DR_NAK_REM_ACCESS_ERR), 0x00ABCD);
	memcpy(raw, &k, 4);
	CHECK_EQ(raw[0], 0x62);
	CHECK_EQ(raw[3], 0xCD);
	CHECK_EQ(dr_aeth_syn_type(dr_aeth_syndrome(&k)), DR_AETH_NAK);
	CHECK_EQ(dr_aeth_syn_value(dr_aeth_syndrome(&k)), DR_NAK_REM_ACCESS_ERR);
	CHECK_EQ(dr_aeth_msn(&k), 0xABCD);
	CHECK_EQ(dr_aeth_syn_make(DR_AETH_RNR_NAK, 14), 0x2E);
	CHECK_EQ(dr_aeth_syn_make(DR_AETH_ACK, DR_AETH_CREDIT_INVALID), 0x1F);
	CHECK_EQ(dr_aeth_syn_type(0x1F), DR_AETH_ACK);

	dr_deth_set_qkey(&d, 0x11111111);
	dr_deth_set_sqp(&d, 0xFF000018);
	memcpy(raw, &d, 8);
	CHECK_EQ(raw[4], 0);
	CHECK_EQ(dr_deth_sqp(&d), 0x18);
	CHECK_EQ(dr_deth_qkey(&d), 0x11111111);

	dr_feth_set(&f, 2, 1);
	memcpy(raw, &f, 4);
	CHECK_EQ(raw[3], 0x12);
	CHECK_EQ(dr_feth_plt(&f), 2);
	CHECK_EQ(dr_feth_sel(&f), 1);

	dr_xrceth_set_srq(&x, 0x123456);
	CHECK_EQ(dr_xrceth_srq(&x), 0x123456);
	dr_atmack_set_orig(&o, 105);
	CHECK_EQ(dr_atmack_orig(&o), 105);
	dr_ieth_set_rkey(&ie, 0xCAFE);
	memcpy(raw, &ie, 4);
	CHECK_EQ(raw[2], 0xCA);
	CHECK_EQ(dr_ieth_rkey(&ie), 0xCAFE);
}

int
main(void)
{
	test_bth();
	test_ext();
	return dr_test_report("test_hdr");
}
