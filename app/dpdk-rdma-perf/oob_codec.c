/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The OOB messages on the wire: a 12-byte header (magic, version, type,
 * payload length) and the fixed payload of the type, every field big-endian,
 * written out field by field (doc/guides/perf.rst has the same layouts).
 */

#include <string.h>

#include "oob.h"

/* payload lengths */
#define LEN_HELLO (OOB_TEST_NAME_LEN + 4 + 4 + 8 + 4 + 4 + 4 * PERF_MAX_SIZES)  /* 168 */
#define LEN_ACCEPT 4
#define LEN_REJECT OOB_TEXT_LEN
#define LEN_QP (4 * 4 + 8 + 16 + 6 + 1 + 1 + 4 + 4 + 4 + 4)                         /* 64 */
#define LEN_BARRIER 8
#define LEN_DONE (4 + 4 + 8 + 8 + 4 + 4 + 8 + 8 + 8 * OOB_NB_VALS + OOB_TEXT_LEN) /* 240 */
#define LEN_FIN 0
_Static_assert(LEN_DONE <= OOB_MAX_PAYLOAD, "OOB_MAX_PAYLOAD too small");
_Static_assert(LEN_HELLO == 168 && LEN_QP == 64 && LEN_DONE == 240, "OOB layouts changed");

static const uint32_t payload_len[] = {
	[OOB_HELLO] = LEN_HELLO, [OOB_ACCEPT] = LEN_ACCEPT, [OOB_REJECT] = LEN_REJECT,
	[OOB_QP] = LEN_QP, [OOB_BARRIER] = LEN_BARRIER, [OOB_DONE] = LEN_DONE, [OOB_FIN] = LEN_FIN,
};

const char *
oob_type_name(unsigned int type)
{
	static const char *const names[] = {
		[OOB_HELLO] = "HELLO", [OOB_ACCEPT] = "ACCEPT", [OOB_REJECT] = "REJECT",
		[OOB_QP] = "QP", [OOB_BARRIER] = "BARRIER", [OOB_DONE] = "DONE", [OOB_FIN] = "FIN",
	};

	return type < RTE_DIM(names) && names[type] != NULL ? names[type] : "unknown";
}

/* ---- encoding ---- */

struct cur {
	uint8_t *p;
};

static void
put32(struct cur *c, uint32_t v)
{
	for (int i = 3; i >= 0; i--)
		*c->p++ = (uint8_t)(v >> (8 * i));
}

static void
put64(struct cur *c, uint64_t v)
{
	put32(c, (uint32_t)(v >> 32));
	put32(c, (uint32_t)v);
}

static void
putd(struct cur *c, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	put64(c, v);
}

static void
putb(struct cur *c, const void *b, size_t n)
{
	memcpy(c->p, b, n);
	c->p += n;
}

/* a string, NUL-padded to n bytes (always NUL-terminated) */
static void
puts_n(struct cur *c, const char *s, size_t n)
{
	size_t l = strnlen(s, n - 1);

	memset(c->p, 0, n);
	memcpy(c->p, s, l);
	c->p += n;
}

static uint32_t
get32(struct cur *c)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v = v << 8 | *c->p++;
	return v;
}

static uint64_t
get64(struct cur *c)
{
	uint64_t hi = get32(c);

	return hi << 32 | get32(c);
}

static double
getd(struct cur *c)
{
	uint64_t v = get64(c);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

static void
getb(struct cur *c, void *b, size_t n)
{
	memcpy(b, c->p, n);
	c->p += n;
}

static void
gets_n(struct cur *c, char *s, size_t n)
{
	memcpy(s, c->p, n);
	s[n - 1] = '\0';
	c->p += n;
}

size_t
oob_encode(const struct oob_msg *m, uint8_t *b)
{
	struct cur c = { b };
	uint32_t len = m->type < RTE_DIM(payload_len) ? payload_len[m->type] : 0;

	put32(&c, OOB_MAGIC);
	put32(&c, (uint32_t)OOB_VERSION << 16 | m->type);
	put32(&c, len);
	memset(c.p, 0, len);
	switch (m->type) {
	case OOB_HELLO:
		puts_n(&c, m->u.hello.test, OOB_TEST_NAME_LEN);
		put32(&c, m->u.hello.num_qps);
		put32(&c, m->u.hello.flags);
		put64(&c, m->u.hello.iters);
		put32(&c, m->u.hello.duration_ms);
		put32(&c, m->u.hello.nb_sizes);
		for (unsigned int i = 0; i < PERF_MAX_SIZES; i++)
			put32(&c, m->u.hello.sizes[i]);
		break;
	case OOB_ACCEPT:
		put32(&c, m->u.accept.flags);
		break;
	case OOB_REJECT:
		puts_n(&c, m->u.reject.reason, OOB_TEXT_LEN);
		break;
	case OOB_QP:
		put32(&c, m->u.qp.qpn);
		put32(&c, m->u.qp.psn);
		put32(&c, m->u.qp.rkey);
		put32(&c, m->u.qp.mtu);
		put64(&c, m->u.qp.vaddr);
		putb(&c, m->u.qp.gid, 16);
		putb(&c, m->u.qp.mac, 6);
		putb(&c, &m->u.qp.out_reads, 1);
		putb(&c, "", 1);
		put32(&c, m->u.qp.slots);
		put32(&c, m->u.qp.slot_size);
		put32(&c, m->u.qp.ece_vendor);
		put32(&c, m->u.qp.ece_options);
		break;
	case OOB_BARRIER:
		put32(&c, m->u.barrier.size_index);
		put32(&c, m->u.barrier.size);
		break;
	case OOB_DONE:
		put32(&c, m->u.done.size_index);
		put32(&c, m->u.done.status);
		put64(&c, m->u.done.iters);
		put64(&c, m->u.done.verified);
		put32(&c, m->u.done.bad_qp);
		put32(&c, 0);
		put64(&c, m->u.done.bad_iter);
		put64(&c, m->u.done.bad_offset);
		for (unsigned int i = 0; i < OOB_NB_VALS; i++)
			putd(&c, m->u.done.vals[i]);
		puts_n(&c, m->u.done.text, OOB_TEXT_LEN);
		break;
	default:
		break;
	}
	return OOB_HDR_LEN + len;
}

int
oob_decode_header(const uint8_t *b, uint16_t *type, uint32_t *len)
{
	struct cur c = { (uint8_t *)(uintptr_t)b };
	uint32_t magic = get32(&c), vt = get32(&c);

	*len = get32(&c);
	*type = (uint16_t)vt;
	if (magic != OOB_MAGIC || vt >> 16 != OOB_VERSION || *type == 0 ||
	    *type >= RTE_DIM(payload_len) || *len != payload_len[*type]) {
		perf_err("out-of-band exchange", "bad message from the peer (magic 0x%08x, "
			 "version %u, type %u, length %u): not " PERF_PROG " version %u?",
			 magic, vt >> 16, vt & 0xffff, *len, OOB_VERSION);
		return -1;
	}
	return 0;
}

void
oob_decode(struct oob_msg *m, uint8_t *b)
{
	struct cur c = { b };

	switch (m->type) {
	case OOB_HELLO:
		gets_n(&c, m->u.hello.test, OOB_TEST_NAME_LEN);
		m->u.hello.num_qps = get32(&c);
		m->u.hello.flags = get32(&c);
		m->u.hello.iters = get64(&c);
		m->u.hello.duration_ms = get32(&c);
		m->u.hello.nb_sizes = get32(&c);
		for (unsigned int i = 0; i < PERF_MAX_SIZES; i++)
			m->u.hello.sizes[i] = get32(&c);
		break;
	case OOB_ACCEPT:
		m->u.accept.flags = get32(&c);
		break;
	case OOB_REJECT:
		gets_n(&c, m->u.reject.reason, OOB_TEXT_LEN);
		break;
	case OOB_QP:
		m->u.qp.qpn = get32(&c);
		m->u.qp.psn = get32(&c);
		m->u.qp.rkey = get32(&c);
		m->u.qp.mtu = get32(&c);
		m->u.qp.vaddr = get64(&c);
		getb(&c, m->u.qp.gid, 16);
		getb(&c, m->u.qp.mac, 6);
		getb(&c, &m->u.qp.out_reads, 1);
		c.p += 1;
		m->u.qp.slots = get32(&c);
		m->u.qp.slot_size = get32(&c);
		m->u.qp.ece_vendor = get32(&c);
		m->u.qp.ece_options = get32(&c);
		break;
	case OOB_BARRIER:
		m->u.barrier.size_index = get32(&c);
		m->u.barrier.size = get32(&c);
		break;
	case OOB_DONE:
		m->u.done.size_index = get32(&c);
		m->u.done.status = get32(&c);
		m->u.done.iters = get64(&c);
		m->u.done.verified = get64(&c);
		m->u.done.bad_qp = get32(&c);
		c.p += 4;
		m->u.done.bad_iter = get64(&c);
		m->u.done.bad_offset = get64(&c);
		for (unsigned int i = 0; i < OOB_NB_VALS; i++)
			m->u.done.vals[i] = getd(&c);
		gets_n(&c, m->u.done.text, OOB_TEXT_LEN);
		break;
	default:
		break;
	}
}
