/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* 24-bit PSN arithmetic (IBA 9.7.1), above all at the wrap. */

#include "dr_psn.h"
#include "dr_test.h"

int
main(void)
{
	CHECK_EQ(dr_psn_add(0xFFFFFF, 1), 0);
	CHECK_EQ(dr_psn_add(0xFFFFFE, 5), 3);
	CHECK_EQ(dr_psn_add(0x123456, 0), 0x123456);
	CHECK_EQ(dr_psn_sub(0, 1), 0xFFFFFF);
	CHECK_EQ(dr_psn_sub(2, 5), 0xFFFFFD);

	CHECK_EQ(dr_psn_diff(0, 0xFFFFFF), 1);
	CHECK_EQ(dr_psn_diff(0xFFFFFF, 0), -1);
	CHECK_EQ(dr_psn_diff(5, 5), 0);
	CHECK_EQ(dr_psn_diff(0x7FFFFF, 0), 0x7FFFFF);       /* largest "after" */
	CHECK_EQ(dr_psn_diff(0x800000, 0), -0x800000);      /* half way is "before" */
	CHECK_EQ(dr_psn_diff(0x000010, 0xFFFFF0), 0x20);
	CHECK_EQ(dr_psn_diff(0xFFFFF0, 0x000010), -0x20);
	/* bits above 24 are ignored */
	CHECK_EQ(dr_psn_diff(0xFF000001, 0x00000000), 1);

	CHECK(dr_psn_after(0, 0xFFFFFF));
	CHECK(dr_psn_before(0xFFFFFF, 0));
	CHECK(!dr_psn_before(7, 7));
	CHECK(!dr_psn_after(7, 7));
	/* a duplicate far behind is still "before" (IBA 9.7.5.1.1 valid region) */
	CHECK(dr_psn_before(dr_psn_sub(0x000100, 0x7FFFFF), 0x000100));

	CHECK(dr_psn_in_window(0xFFFFFE, 0xFFFFFE, 4));
	CHECK(dr_psn_in_window(0x000001, 0xFFFFFE, 4));
	CHECK(!dr_psn_in_window(0x000002, 0xFFFFFE, 4));
	CHECK(!dr_psn_in_window(0xFFFFFD, 0xFFFFFE, 4));
	CHECK(!dr_psn_in_window(10, 10, 0));
	CHECK(dr_psn_in_window(12345, 99, 1u << 24));

	/* exhaustive sweep of the wrap: add then diff round-trips */
	for (uint32_t base = 0xFFFF00; base != 0x000100; base = dr_psn_add(base, 1))
		for (uint32_t n = 0; n < 300; n += 7)
			CHECK_EQ(dr_psn_diff(dr_psn_add(base, n), base), n);
	return dr_test_report("test_psn");
}
