/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_TEST_H
#define DR_TEST_H

/*
 * A minimal unit-test harness: CHECK* record a failure and go on, each test
 * program ends with "N passed, N failed" and exits non-zero on any failure.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned int dr_test_passed, dr_test_failed;

#define CHECK(cond) do { \
	if (cond) { dr_test_passed++; } else { dr_test_failed++; \
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	if (cond) { dr_test_passed++; } else { dr_test_failed++; \
		fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
} while (0)

#define CHECK_EQ(a, b) do { \
	uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
	if (a_ == b_) { dr_test_passed++; } else { dr_test_failed++; \
		fprintf(stderr, "%s:%d: %s == %s failed: 0x%" PRIx64 " != 0x%" PRIx64 "\n", \
			__FILE__, __LINE__, #a, #b, a_, b_); } \
} while (0)

static inline int
dr_test_report(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, dr_test_passed, dr_test_failed);
	return dr_test_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* DR_TEST_H */
