/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Memory-region rules (ibv_reg_mr(3); IBA 10.6.3). */

#include <errno.h>

#include "dr_mr_check.h"
#include "dr_test.h"

int
main(void)
{
	const struct dr_mr_region r = { .iova = 0x1000, .length = 0x100,
					.access = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ };
	const struct dr_mr_region top = { .iova = UINT64_MAX - 0xF, .length = 0x10, .access = 0 };

	/* registration flags */
	CHECK_EQ(dr_mr_check_reg_flags(0), 0);
	CHECK_EQ(dr_mr_check_reg_flags(DR_ACCESS_REMOTE_READ), 0);
	CHECK_EQ(dr_mr_check_reg_flags(DR_ACCESS_REMOTE_WRITE), -EINVAL);
	CHECK_EQ(dr_mr_check_reg_flags(DR_ACCESS_REMOTE_ATOMIC), -EINVAL);
	CHECK_EQ(dr_mr_check_reg_flags(DR_ACCESS_REMOTE_WRITE | DR_ACCESS_LOCAL_WRITE), 0);
	CHECK_EQ(dr_mr_check_reg_flags(DR_ACCESS_REMOTE_ATOMIC | DR_ACCESS_LOCAL_WRITE), 0);
	CHECK_EQ(dr_mr_check_reg_flags(1u << 15), -EINVAL);

	/* bounds: inclusive start, exclusive end, no wrap-around */
	CHECK(dr_mr_range_ok(&r, 0x1000, 0x100));
	CHECK(dr_mr_range_ok(&r, 0x10FF, 1));
	CHECK(dr_mr_range_ok(&r, 0x1100, 0));     /* zero bytes at the end */
	CHECK(!dr_mr_range_ok(&r, 0x1100, 1));
	CHECK(!dr_mr_range_ok(&r, 0x0FFF, 1));
	CHECK(!dr_mr_range_ok(&r, 0x1001, 0x100));
	CHECK(!dr_mr_range_ok(&r, 0x1080, UINT64_MAX)); /* would wrap */
	CHECK(!dr_mr_range_ok(&r, UINT64_MAX, 2));
	CHECK(dr_mr_range_ok(&top, UINT64_MAX - 0xF, 0x10));
	CHECK(!dr_mr_range_ok(&top, UINT64_MAX - 0xF, 0x11));

	/* rights */
	CHECK_EQ(dr_mr_check_access(&r, 0x1000, 8, 0), 0);
	CHECK_EQ(dr_mr_check_access(&r, 0x1000, 8, DR_ACCESS_LOCAL_WRITE), 0);
	CHECK_EQ(dr_mr_check_access(&r, 0x1000, 8, DR_ACCESS_REMOTE_READ), 0);
	CHECK_EQ(dr_mr_check_access(&r, 0x1000, 8, DR_ACCESS_REMOTE_WRITE), -EACCES);
	CHECK_EQ(dr_mr_check_access(&r, 0x2000, 8, DR_ACCESS_REMOTE_READ), -EFAULT);

	/* the right each remote request needs */
	CHECK_EQ(dr_mr_remote_rights(dr_opcode_table[DR_OPCODE(RC, WRITE_FIRST)].mask), DR_ACCESS_REMOTE_WRITE);
	CHECK_EQ(dr_mr_remote_rights(dr_opcode_table[DR_OPCODE(UC, WRITE_ONLY_IMM)].mask), DR_ACCESS_REMOTE_WRITE);
	CHECK_EQ(dr_mr_remote_rights(dr_opcode_table[DR_OPCODE(RC, READ_REQ)].mask), DR_ACCESS_REMOTE_READ);
	CHECK_EQ(dr_mr_remote_rights(dr_opcode_table[DR_OPCODE(RC, CMP_SWAP)].mask), DR_ACCESS_REMOTE_ATOMIC);
	CHECK_EQ(dr_mr_remote_rights(dr_opcode_table[DR_OPCODE(RC, FETCH_ADD)].mask), DR_ACCESS_REMOTE_ATOMIC);
	CHECK_EQ(dr_mr_remote_rights(dr_opcode_table[DR_OPCODE(RC, SEND_ONLY)].mask), 0);
	CHECK_EQ(dr_mr_remote_rights(dr_opcode_table[DR_OPCODE(RC, READ_RESP_ONLY)].mask), 0);

	/* keys */
	CHECK_EQ(dr_mr_key_make(0x123456, 0x78), 0x12345678);
	CHECK_EQ(dr_mr_key_index(0x12345678), 0x123456);
	CHECK_EQ(dr_mr_key_variant(0x12345678), 0x78);
	CHECK(dr_atomic_aligned(0x1000));
	CHECK(!dr_atomic_aligned(0x1004));
	return dr_test_report("test_mr_check");
}
