/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The timer encodings of the RC transport: the RNR NAK timer field (IBA
 * table 45) and the local ACK timeout (IBA 9.7.6.1.3), as the completer
 * (dr_comp.c) and the responder's RNR NAKs use them.
 */

#include <stdint.h>

#include "dr_transport.h"

/*
 * IBA vol. 1 table 45 (9.7.5.2.8): the RNR NAK timer field in microseconds.
 * Code 0 is the longest wait, 655.36 ms. (rxe's table has 61410 for 61.44 ms;
 * we use the value of the table.)
 */
static const uint32_t dr_rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

uint32_t
dr_rnr_timer_usec(uint8_t code)
{
	return dr_rnr_usec[code & 0x1F];
}

uint64_t
dr_ack_timeout_ticks(uint8_t timeout, uint64_t hz)
{
	uint64_t ns, ticks;

	if (timeout == 0)
		return 0;      /* IBA 9.7.6.1.3: 0 disables the timer */
	if (timeout > 31)
		timeout = 31;
	ns = 4096ull << timeout;   /* 4.096 us * 2^timeout */
	ticks = ns / 1000000000ull * hz + ns % 1000000000ull * hz / 1000000000ull;
	return ticks != 0 ? ticks : 1;
}
