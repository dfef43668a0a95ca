/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_MAD_H
#define DR_MAD_H

/*
 * Management datagrams (IBA vol. 1, chapter 13.4): the 256-byte MAD, its
 * common header (13.4.3) and bit-field access by position.
 *
 * A field is named by where IBA's tables put it: byte offset from the start
 * of the MAD, bit offset from that byte's most significant bit, width in
 * bits. Fields are big-endian and may cross bytes (the 24-bit QPNs, the
 * 20-bit flow label); get and put touch the field's bits only. Pure: no EAL,
 * no allocation, no logging.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dr_config.h"

/** Size of every MAD on QP0/QP1 (IBA 13.4.2). */
#define DR_MAD_SIZE 256
/** Size of the common MAD header (IBA 13.4.3, Table 145). */
#define DR_MAD_HDR_SIZE 24

/* QP1 and its Q_Key: DR_GSI_QPN, DR_GSI_QKEY (dr_config.h) */

/** BaseVersion of every MAD (IBA 13.4.3). */
#define DR_MAD_BASE_VERSION 1

/** Methods (IBA 13.4.5, Table 147); bit 7 of the byte is R (response). */
enum dr_mad_method {
	DR_MAD_METHOD_GET = 0x01,
	DR_MAD_METHOD_SET = 0x02,
	DR_MAD_METHOD_SEND = 0x03,
	DR_MAD_METHOD_GET_RESP = 0x81,
};

/** Status field (IBA 13.4.7, Table 148): bits of the 16-bit status word. */
#define DR_MAD_STATUS_BAD_VERSION 0x0004     /* class or base version not supported */
#define DR_MAD_STATUS_UNSUP_METHOD 0x0008    /* method not supported */
#define DR_MAD_STATUS_UNSUP_METHOD_ATTR 0x000C
#define DR_MAD_STATUS_INVALID_FIELD 0x001C

/** Where a field lies in a MAD: first bit (from the MSB of byte 0) and width (1..64). */
struct dr_mad_field {
	uint16_t bit;
	uint8_t width;
};

/** A field @width bits wide at bit @bit of byte @byte of the MAD. */
#define DR_MAD_FIELD(byte, bit_, width_) \
	((struct dr_mad_field){ .bit = (uint16_t)((byte) * 8 + (bit_)), .width = (width_) })

/* The common MAD header (IBA 13.4.3, Table 145). */
#define DR_MAD_BASE_VER DR_MAD_FIELD(0, 0, 8)
#define DR_MAD_MGMT_CLASS DR_MAD_FIELD(1, 0, 8)
#define DR_MAD_CLASS_VER DR_MAD_FIELD(2, 0, 8)
#define DR_MAD_METHOD DR_MAD_FIELD(3, 0, 8)       /* R and Method together */
#define DR_MAD_STATUS DR_MAD_FIELD(4, 0, 16)
#define DR_MAD_CLASS_SPECIFIC DR_MAD_FIELD(6, 0, 16)
#define DR_MAD_TID DR_MAD_FIELD(8, 0, 64)
#define DR_MAD_ATTR_ID DR_MAD_FIELD(16, 0, 16)
#define DR_MAD_ATTR_MOD DR_MAD_FIELD(20, 0, 32)

/**
 * The value of field @f of @mad (DR_MAD_SIZE bytes). A field spans at most
 * eight bytes (every IBA management field does: 64-bit ones are aligned).
 */
static inline uint64_t
dr_mad_get(const uint8_t *mad, struct dr_mad_field f)
{
	unsigned int first = f.bit / 8, last = (f.bit + f.width - 1u) / 8;
	unsigned int tail = 7u - (f.bit + f.width - 1u) % 8;
	uint64_t v = 0;

	for (unsigned int i = first; i <= last; i++)
		v = v << 8 | mad[i];
	v >>= tail;
	return f.width >= 64 ? v : v & ((UINT64_C(1) << f.width) - 1);
}

/** Store @v (its low @f.width bits) in field @f of @mad; the other bits stay. */
static inline void
dr_mad_put(uint8_t *mad, struct dr_mad_field f, uint64_t v)
{
	unsigned int first = f.bit / 8, last = (f.bit + f.width - 1u) / 8;
	unsigned int tail = 7u - (f.bit + f.width - 1u) % 8;
	uint64_t mask = f.width >= 64 ? UINT64_MAX : (UINT64_C(1) << f.width) - 1;

	v = (v & mask) << tail;
	mask <<= tail;
	for (unsigned int i = last + 1; i-- > first;) {
		mad[i] = (uint8_t)((mad[i] & ~mask) | (v & mask));
		v >>= 8;
		mask >>= 8;
	}
}

/** What dr_mad_check() found wrong with a MAD, if anything. */
enum dr_mad_status {
	DR_MAD_OK = 0,
	DR_MAD_SHORT,           /* fewer than DR_MAD_SIZE bytes (IBA 13.4.2) */
	DR_MAD_BAD_BASE_VERSION,  /* BaseVersion is not 1 (13.4.3) */
	DR_MAD_OTHER_CLASS,     /* a class this endpoint does not serve */
	DR_MAD_BAD_CLASS_VERSION, /* a version of the class it does not serve */
	DR_MAD_BAD_METHOD,      /* a method the class does not take */
};

/**
 * Check the common header of @mad (@len bytes, the UD payload of a packet to
 * QP1) for management class @mgmt_class at version @class_version, method
 * @method.
 */
enum dr_mad_status dr_mad_check(const uint8_t *mad, size_t len, uint8_t mgmt_class,
				uint8_t class_version, uint8_t method);

/** A short name of @st for logs and counters. */
const char *dr_mad_status_str(enum dr_mad_status st);

/** Fill the common header of @mad (the rest untouched). */
void dr_mad_init_hdr(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version, uint8_t method,
		     uint64_t tid, uint16_t attr_id, uint32_t attr_mod);

#endif /* DR_MAD_H */
