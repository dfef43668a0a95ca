/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Memory-region rules: registration flags, bounds, rights (IBA 10.6.3; ibv_reg_mr(3)). */

#include <errno.h>

#include "dr_mr_check.h"

#define DR_MR_ACCESS_KNOWN (DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ | \
			    DR_ACCESS_REMOTE_ATOMIC | DR_ACCESS_MW_BIND | DR_ACCESS_ZERO_BASED | \
			    DR_ACCESS_ON_DEMAND | DR_ACCESS_HUGETLB | DR_ACCESS_FLUSH_GLOBAL | \
			    DR_ACCESS_FLUSH_PERSISTENT | DR_ACCESS_RELAXED_ORDERING)

int
dr_mr_check_reg_flags(unsigned int access)
{
	if (access & ~DR_MR_ACCESS_KNOWN)
		return -EINVAL;
	/* ibv_reg_mr(3): remote write or atomic access needs local write */
	if ((access & (DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_ATOMIC)) && !(access & DR_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

unsigned int
dr_mr_remote_rights(uint32_t opf)
{
	if (!(opf & DR_OPF_REQ))
		return 0;
	if (opf & DR_OPF_WRITE)
		return DR_ACCESS_REMOTE_WRITE;
	if (opf & DR_OPF_READ)
		return DR_ACCESS_REMOTE_READ;
	if (opf & DR_OPF_ATOMIC)
		return DR_ACCESS_REMOTE_ATOMIC;
	return 0;
}
