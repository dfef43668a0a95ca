/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* ECN marking: the RED/ECN probability and the CE rewrite (ecn.h). */

#include "ecn.h"

uint64_t
fl_ecn_threshold(uint64_t kmin, uint64_t kmax, uint64_t pmax_thr, uint64_t backlog)
{
	if (backlog <= kmin)
		return 0;
	if (backlog > kmax)
		return UINT64_MAX;
	/* kmin < backlog <= kmax, so kmax > kmin */
	return (uint64_t)(((unsigned __int128)pmax_thr * (backlog - kmin)) / (kmax - kmin));
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') in ones' complement arithmetic */
static uint16_t
csum_update16(uint16_t hc, uint16_t old, uint16_t new)
{
	uint32_t s = (uint16_t)~hc + (uint32_t)(uint16_t)~old + new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

enum fl_ecn_result
fl_ecn_mark(uint8_t *p, uint32_t len)
{
	uint32_t l3 = 14;
	uint16_t type, old, new, hc;
	uint8_t ecn;

	if (len < l3)
		return FL_ECN_NOT_ECT;
	type = (uint16_t)(p[12] << 8 | p[13]);
	for (int tags = 0; tags < 2 && (type == 0x8100 || type == 0x88A8); tags++) {
		if (len < l3 + 4)
			return FL_ECN_NOT_ECT;
		type = (uint16_t)(p[l3 + 2] << 8 | p[l3 + 3]);
		l3 += 4;
	}
	if (type == 0x0800) {
		if (len < l3 + 20 || (p[l3] >> 4) != 4)
			return FL_ECN_NOT_ECT;
		ecn = p[l3 + 1] & 3;
		if (ecn == 0)
			return FL_ECN_NOT_ECT;
		if (ecn == 3)
			return FL_ECN_ALREADY_CE;
		/* the checksummed 16-bit word holding the TOS: version/IHL and TOS */
		old = (uint16_t)(p[l3] << 8 | p[l3 + 1]);
		p[l3 + 1] |= 3;
		new = (uint16_t)(p[l3] << 8 | p[l3 + 1]);
		hc = (uint16_t)(p[l3 + 10] << 8 | p[l3 + 11]);
		hc = csum_update16(hc, old, new);
		p[l3 + 10] = (uint8_t)(hc >> 8);
		p[l3 + 11] = (uint8_t)hc;
		return FL_ECN_MARKED;
	}
	if (type == 0x86DD) {
		/* version (4 bits), traffic class (8), flow label (20): ECN is bits 4-5 of byte 1 */
		if (len < l3 + 40 || (p[l3] >> 4) != 6)
			return FL_ECN_NOT_ECT;
		ecn = (p[l3 + 1] >> 4) & 3;
		if (ecn == 0)
			return FL_ECN_NOT_ECT;
		if (ecn == 3)
			return FL_ECN_ALREADY_CE;
		p[l3 + 1] |= 0x30;
		return FL_ECN_MARKED;
	}
	return FL_ECN_NOT_ECT;
}
