/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_MR_CHECK_H
#define DR_MR_CHECK_H

/*
 * Memory-region rules, as pure functions on the fields of a region:
 * registration flags (ibv_reg_mr(3)), key layout, and the bounds and rights
 * check of every local (L_Key, IBA 10.6.3.1) and remote (R_Key, IBA 10.6.3.2,
 * 9.7.5.2.3 / C9-88) access.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "dr_verbs.h"

/* What a region grants, as the checks see it. */
struct dr_mr_region {
	uint64_t iova;          /* first address (the VA given at registration) */
	uint64_t length;        /* bytes */
	unsigned int access;    /* enum dr_access_flags */
};

/*
 * Registration flags: known bits only, and REMOTE_WRITE or REMOTE_ATOMIC
 * need LOCAL_WRITE ("If IBV_ACCESS_REMOTE_WRITE or IBV_ACCESS_REMOTE_ATOMIC is
 * set, then IBV_ACCESS_LOCAL_WRITE must be set too", ibv_reg_mr(3)).
 * Returns 0 or -EINVAL.
 */
int dr_mr_check_reg_flags(unsigned int access);

/* Keys: a 24-bit table index and an 8-bit variant that changes on every reuse (as rxe). */
static inline uint32_t dr_mr_key_make(uint32_t index, uint8_t variant) { return (index << 8) | variant; }
static inline uint32_t dr_mr_key_index(uint32_t key) { return key >> 8; }
static inline uint8_t dr_mr_key_variant(uint32_t key) { return (uint8_t)key; }

/* True when [addr, addr + len) lies inside the region, without overflow. */
static inline bool
dr_mr_range_ok(const struct dr_mr_region *r, uint64_t addr, uint64_t len)
{
	/* written so that no sum can wrap: addr >= iova, then compare remaining room */
	if (addr < r->iova)
		return false;
	if (addr - r->iova > r->length)
		return false;
	return len <= r->length - (addr - r->iova);
}

/*
 * An access of @len bytes at @addr needing the rights @need (enum
 * dr_access_flags; 0 for a local read, which every region allows).
 * Returns 0, -EFAULT when out of bounds, or -EACCES when a right is missing.
 */
static inline int
dr_mr_check_access(const struct dr_mr_region *r, uint64_t addr, uint64_t len, unsigned int need)
{
	if (!dr_mr_range_ok(r, addr, len))
		return -EFAULT;
	if ((r->access & need) != need)
		return -EACCES;
	return 0;
}

/*
 * Rights a remote request needs from the region its R_Key names, from the
 * opcode table mask @opf (enum dr_opcode_flag): RDMA WRITE -> REMOTE_WRITE,
 * RDMA READ -> REMOTE_READ, CmpSwap/FetchAdd -> REMOTE_ATOMIC (IBA 10.6.3.2,
 * 10.6.7.2). Returns 0 for requests that name no region. FLUSH and ATOMIC
 * WRITE are not executed by the responder yet and are not covered here.
 */
unsigned int dr_mr_remote_rights(uint32_t opf);

/* Atomic operations need an 8-byte aligned virtual address (IBA 9.4.5). */
static inline bool dr_atomic_aligned(uint64_t va) { return (va & 7) == 0; }

#endif /* DR_MR_CHECK_H */
