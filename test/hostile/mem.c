/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Guarded regions: the pages of a region between two PROT_NONE pages, so
 * that the transport reading or writing a byte before or after it faults
 * (the process dies: the suite sees it). A region that does not fill its
 * pages (page_off > 0, or a length that is not a page multiple) has guard
 * bytes around it in those pages, compared by ht_region_check(): a write
 * that stays inside the pages but leaves the region shows there.
 */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hostile.h"

static size_t
page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

int
ht_region_alloc(struct ht_region *r, const char *name, size_t len, size_t page_off, uint8_t seed)
{
	size_t pg = page_size();
	size_t inner = (page_off + len + pg - 1) / pg * pg;

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->map_len = inner + 2 * pg;
	r->map = mmap(NULL, r->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	if (mprotect(r->map + pg, inner, PROT_READ | PROT_WRITE) != 0) {
		int err = errno;

		munmap(r->map, r->map_len);
		r->map = NULL;
		return -err;
	}
	r->page_off = page_off;
	r->buf = r->map + pg + page_off;
	r->len = len;
	r->seed = seed;
	r->check_from = 0;
	r->check_to = len;
	ht_region_fill(r);
	return 0;
}

void
ht_region_fill(struct ht_region *r)
{
	size_t pg = page_size();
	size_t inner = r->map_len - 2 * pg;

	memset(r->map + pg, HT_GUARD_BYTE, inner);
	for (size_t k = 0; k < r->len; k++)
		r->buf[k] = ht_pat(k, r->seed);
}

bool
ht_region_check(const struct ht_region *r, const char **where, long *off)
{
	size_t pg = page_size();
	const uint8_t *first = r->map + pg;
	size_t inner = r->map_len - 2 * pg;

	for (size_t k = 0; k < r->page_off; k++)
		if (first[k] != HT_GUARD_BYTE) {
			*where = "guard bytes before the region";
			*off = (long)k - (long)r->page_off;
			return false;
		}
	for (size_t k = r->page_off + r->len; k < inner; k++)
		if (first[k] != HT_GUARD_BYTE) {
			*where = "guard bytes after the region";
			*off = (long)(k - r->page_off);
			return false;
		}
	for (size_t k = r->check_from; k < r->check_to; k++)
		if (r->buf[k] != ht_pat(k, r->seed)) {
			*where = "the region's pattern";
			*off = (long)k;
			return false;
		}
	*where = NULL;
	*off = 0;
	return true;
}

void
ht_region_free(struct ht_region *r)
{
	if (r->mr != NULL)
		(void)dr_dereg_mr(r->mr);
	if (r->map != NULL)
		munmap(r->map, r->map_len);
	memset(r, 0, sizeof(*r));
}
