/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef PERF_CHECK_H
#define PERF_CHECK_H

/**
 * @file
 * --check: the data pattern of a message and its verification.
 *
 * Byte @c off of the message with seed @c s is byte (off % 8) of
 * splitmix64(s + (off / 8) * 0x9e3779b97f4a7c15), with its low bit set: never
 * 0, so a zeroed buffer never passes. The seed mixes the QP index, the size
 * index and the iteration (perf_check_seed()). write_lat also overwrites the
 * last byte with the iteration tag (perf_check_tag()): the byte each side polls.
 */

#include <stddef.h>
#include <stdint.h>

/** Largest remote-visible or local region per QP with --check (bytes). */
#define PERF_CHECK_REGION (64u << 20)

/** Seed of message @p iter of size @p size_index on QP @p qp (with the sender's role bit). */
uint64_t perf_check_seed(uint32_t qp, uint32_t size_index, uint64_t iter);

/** The polled last byte of write_lat's message @p iter: 1..255, never twice in a row. */
static inline uint8_t
perf_check_tag(uint64_t iter)
{
	return (uint8_t)(iter % 255 + 1);
}

/** Fill @p len bytes with the pattern of @p seed. */
void perf_check_fill(uint8_t *buf, size_t len, uint64_t seed);

/**
 * Compare @p len bytes with the pattern of @p seed.
 * @return SIZE_MAX when they match, else the first bad offset, with the
 *         expected and actual bytes in @p expected and @p got.
 */
size_t perf_check_verify(const uint8_t *buf, size_t len, uint64_t seed,
			 unsigned int *expected, unsigned int *got);

/**
 * Compare bytes [@p off, @p off + @p len) of @p buf (@p off a multiple of 8)
 * with the pattern of @p seed at the same offsets. @return as perf_check_verify().
 */
size_t perf_check_verify_at(const uint8_t *buf, size_t off, size_t len, uint64_t seed,
			    unsigned int *expected, unsigned int *got);

#endif /* PERF_CHECK_H */
