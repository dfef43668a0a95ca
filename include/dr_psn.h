/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_PSN_H
#define DR_PSN_H

/**
 * @file
 * 24-bit packet sequence number arithmetic (IBA vol. 1, 9.7.1).
 *
 * PSNs wrap at 2^24. Two PSNs are ordered by their signed 24-bit distance:
 * a PSN up to 2^23 - 1 ahead of another is "after" it, which is the rule the
 * responder uses to tell a duplicate from an out-of-sequence request
 * (IBA 9.7.5.1.1: the valid region is the 2^23 PSNs before the expected one).
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Mask of a PSN. */
#define DR_PSN_MASK 0x00FFFFFFu
/** Half the PSN space: the largest forward distance that compares "after". */
#define DR_PSN_HALF (1u << 23)

/** @p psn + @p n modulo 2^24. */
static inline uint32_t
dr_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & DR_PSN_MASK;
}

/** @p psn - @p n modulo 2^24. */
static inline uint32_t
dr_psn_sub(uint32_t psn, uint32_t n)
{
	return (psn - n) & DR_PSN_MASK;
}

/**
 * Signed distance from @p b to @p a in the 24-bit space: positive when @p a
 * is after @p b, in [-2^23, 2^23 - 1].
 */
static inline int32_t
dr_psn_diff(uint32_t a, uint32_t b)
{
	/* move the 24-bit difference to the top of a 32-bit word, then back with sign */
	return (int32_t)((a - b) << 8) >> 8;
}

/** True when @p a is strictly before @p b. */
static inline bool
dr_psn_before(uint32_t a, uint32_t b)
{
	return dr_psn_diff(a, b) < 0;
}

/** True when @p a is strictly after @p b. */
static inline bool
dr_psn_after(uint32_t a, uint32_t b)
{
	return dr_psn_diff(a, b) > 0;
}

/**
 * True when @p psn lies in the window of @p size PSNs that starts at @p base
 * (base, base + 1, ..., base + size - 1, modulo 2^24). @p size is at most 2^24.
 */
static inline bool
dr_psn_in_window(uint32_t psn, uint32_t base, uint32_t size)
{
	return ((psn - base) & DR_PSN_MASK) < size || size > DR_PSN_MASK;
}

#ifdef __cplusplus
}
#endif

#endif /* DR_PSN_H */
