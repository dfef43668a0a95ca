/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * perftest's out-of-band messages (src/perftest_communication.c of
 * perftest 4.5-0.17): raw fixed-size exchanges in which the client writes
 * first and the server reads first. What crosses the socket:
 *
 *   exchange_versions   16 bytes: the version string, NUL-padded
 *   check_sys_data      4 + 4 bytes: page size (the cycle buffer) and cache
 *                       line size (the stride of small messages), big-endian
 *                       ints; both take the larger
 *   check_mtu           2 bytes: "%d" of enum ibv_mtu and its NUL; both take
 *                       the smaller
 *   ctx_hand_shake      108 bytes: KEY_PRINT_FMT_GID, the QP's address
 *   xchg_bw_reports     8 + 8 + 8 + 8 + 8 bytes: size, iterations (big-endian),
 *                       peak BW, average BW, message rate (big-endian IEEE
 *                       754 doubles, in the sender's unit: MB/s or Gb/s, Mpps)
 *   ctx_close_connection a hand shake, then "done" and its NUL (never read)
 *
 * With -R the same messages are SENDs on the comm connection (rdma_cm.c),
 * but for two: the hand shake is struct pingpong_dest itself, 56 bytes,
 * big-endian (rdma_write_keys()), and the close is the hand shake alone.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>

#include "perf.h"

#define MBS_FACTOR 1048576.0      /* perftest's "MB" (report.c) */
#define GBITS_FACTOR 125000000.0

void
pt_key_encode(const struct pt_dest *d, char *msg)
{
	const uint8_t *g = d->gid;

	memset(msg, 0, PT_KEY_LEN);
	snprintf(msg, PT_KEY_LEN, "%04x:%04x:%06x:%06x:%08x:%016" PRIx64 ":"
		 "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:"
		 "%08x:", d->lid, d->out_reads, d->qpn, d->psn, d->rkey, d->vaddr, g[0], g[1],
		 g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14],
		 g[15], d->srqn);
}

/* The next ':'-terminated hex field of at most @p max. */
static int
field(const char **s, const char *end, uint64_t max, uint64_t *v)
{
	char *e;

	if (*s >= end || **s == ':' || **s == '\0')
		return -1;
	errno = 0;
	*v = strtoull(*s, &e, 16);
	if (errno != 0 || e >= end || *e != ':' || *v > max)
		return -1;
	*s = e + 1;
	return 0;
}

int
pt_key_decode(const char *msg, struct pt_dest *d)
{
	const char *s = msg, *end = msg + PT_KEY_LEN;
	uint64_t v[6], b;

	if (memchr(msg, '\0', PT_KEY_LEN) == NULL)
		return -1;
	for (unsigned int i = 0; i < 6; i++)
		if (field(&s, end, i == 5 ? UINT64_MAX : UINT32_MAX, &v[i]) != 0)
			return -1;
	for (unsigned int i = 0; i < 16; i++) {
		if (field(&s, end, 0xff, &b) != 0)
			return -1;
		d->gid[i] = (uint8_t)b;
	}
	if (field(&s, end, UINT32_MAX, &b) != 0)
		return -1;
	d->lid = (uint32_t)v[0];
	d->out_reads = (uint32_t)v[1];
	d->qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->rkey = (uint32_t)v[4];
	d->vaddr = v[5];
	d->srqn = (uint32_t)b;
	return 0;
}

void
pt_dest_pack(const struct pt_dest *d, int gid_index, uint8_t *m)
{
	const rte_be32_t f[5] = { rte_cpu_to_be_32(d->lid), rte_cpu_to_be_32(d->out_reads), rte_cpu_to_be_32(d->qpn),
				  rte_cpu_to_be_32(d->psn), rte_cpu_to_be_32(d->rkey) };
	const rte_be64_t va = rte_cpu_to_be_64(d->vaddr);
	const rte_be32_t srqn = rte_cpu_to_be_32(d->srqn), gi = rte_cpu_to_be_32((uint32_t)gid_index);

	/* struct pingpong_dest on x86-64: five ints, 4 bytes of padding, vaddr, gid, srqn, gid_index */
	memset(m, 0, PT_DEST_LEN);
	memcpy(m, f, sizeof(f));
	memcpy(m + 24, &va, 8);
	memcpy(m + 32, d->gid, 16);
	memcpy(m + 48, &srqn, 4);
	memcpy(m + 52, &gi, 4);
}

void
pt_dest_unpack(const uint8_t *m, struct pt_dest *d)
{
	rte_be32_t f[5];
	rte_be64_t va;
	rte_be32_t srqn;

	memcpy(f, m, sizeof(f));
	memcpy(&va, m + 24, 8);
	memcpy(&srqn, m + 48, 4);
	d->lid = rte_be_to_cpu_32(f[0]);
	d->out_reads = rte_be_to_cpu_32(f[1]);
	d->qpn = rte_be_to_cpu_32(f[2]);
	d->psn = rte_be_to_cpu_32(f[3]);
	d->rkey = rte_be_to_cpu_32(f[4]);
	d->vaddr = rte_be_to_cpu_64(va);
	memcpy(d->gid, m + 32, 16);
	d->srqn = rte_be_to_cpu_32(srqn);
}

/* The exchange's bytes: the TCP connection, or with -R the comm connection's SENDs. */
static int
pt_write(struct perf *p, const void *b, size_t len)
{
	return p->cm != NULL ? perf_cm_write(p, b, len) : oob_write_raw(&p->ob, b, len);
}

static int
pt_read_raw(struct perf *p, void *b, size_t len, int wait_ms)
{
	return p->cm != NULL ? perf_cm_read(p, b, len, wait_ms) : oob_read_raw(&p->ob, b, len, wait_ms);
}

/* A hand shake's length: the address message, or -R's struct */
static size_t
pt_key_len(const struct perf *p)
{
	return p->cm != NULL ? PT_DEST_LEN : PT_KEY_LEN;
}

/* Read @p len bytes; @p drive: run the transport meanwhile. */
static int
pt_read(struct perf *p, void *b, size_t len, bool drive)
{
	for (;;) {
		int r = pt_read_raw(p, b, len, drive ? 0 : PT_FIRST_MS);

		if (r == 1)
			return PERF_OK;
		if (r < 0)
			return PERF_FAIL;
		if (!drive) {
			perf_err("out-of-band exchange", "perftest peer silent for %d s",
				 PT_FIRST_MS / 1000);
			return PERF_FAIL;
		}
		if (perf_stop) {
			perf_err("run", "interrupted");
			return PERF_FAIL;
		}
		if (perf_progress(p) != PERF_OK)
			return PERF_FAIL;
	}
}

int
pt_xchg(struct perf *p, const void *mine, void *theirs, size_t len, bool drive)
{
	if (p->server) {
		if (pt_read(p, theirs, len, drive) != PERF_OK)
			return PERF_FAIL;
		return pt_write(p, mine, len) == 0 ? PERF_OK : PERF_FAIL;
	}
	if (pt_write(p, mine, len) != 0)
		return PERF_FAIL;
	return pt_read(p, theirs, len, drive);
}

/* enum ibv_mtu of a path MTU in bytes, and back */
static int
mtu_code(uint32_t bytes)
{
	int c = 1;

	while (c < 5 && (256u << (c - 1)) < bytes)
		c++;
	return c;
}

int
pt_preamble(struct perf *p)
{
	char ver[PT_VERSION_LEN] = PT_VERSION, rver[PT_VERSION_LEN + 1] = { 0 };
	uint32_t mine, theirs;
	char mtu[PT_MTU_LEN], rmtu[PT_MTU_LEN + 1] = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	int code;

	if (pt_xchg(p, ver, rver, PT_VERSION_LEN, false) != PERF_OK)
		return PERF_FAIL;
	if (atof(rver) < PT_MIN_VERSION) {
		perf_err("out-of-band exchange", "perftest version \"%.15s\": %.2f or later needed",
			 rver, PT_MIN_VERSION);
		return PERF_FAIL;
	}
	/* check_sys_data: the cycle buffer (page size), the cache line; the larger of each */
	mine = rte_cpu_to_be_32((uint32_t)(page > 0 ? page : 4096));
	if (pt_xchg(p, &mine, &theirs, sizeof(mine), false) != PERF_OK)
		return PERF_FAIL;
	p->pt_cycle = RTE_MAX(rte_be_to_cpu_32(mine), rte_be_to_cpu_32(theirs));
	if (p->pt_cycle > (64u << 20)) {
		perf_err("out-of-band exchange", "the peer's cycle buffer %u is too large",
			 p->pt_cycle);
		return PERF_FAIL;
	}
	mine = rte_cpu_to_be_32(PT_CACHE_LINE);
	if (pt_xchg(p, &mine, &theirs, sizeof(mine), false) != PERF_OK)
		return PERF_FAIL;
	/* the stride of perftest's small messages (INC()): a power of two up to the page */
	p->pt_line = RTE_MAX(PT_CACHE_LINE, rte_be_to_cpu_32(theirs));
	if (!rte_is_power_of_2(p->pt_line) || p->pt_line > p->pt_cycle) {
		perf_err("out-of-band exchange", "the peer's cache line size %u is not a power of "
			 "two up to its cycle buffer", p->pt_line);
		return PERF_FAIL;
	}
	/* check_mtu: one digit and its NUL */
	snprintf(mtu, sizeof(mtu), "%d", mtu_code(p->mtu));
	if (pt_xchg(p, mtu, rmtu, PT_MTU_LEN, false) != PERF_OK)
		return PERF_FAIL;
	code = atoi(rmtu);
	if (code < 1 || code > 5) {
		perf_err("out-of-band exchange", "the peer's MTU \"%.1s\" is not an IB MTU", rmtu);
		return PERF_FAIL;
	}
	p->pt_peer_mtu = 256u << (code - 1);
	return PERF_OK;
}

int
pt_hand_shake(struct perf *p, unsigned int qi, bool parse)
{
	const struct perf_qp *q = &p->qps[qi];
	struct pt_dest d = {
		.lid = 0,
		.out_reads = p->out_reads,
		.qpn = q->qp->qp_num,
		.psn = q->psn,
		.rkey = p->mr->rkey,
		.vaddr = (uintptr_t)q->rx,
	};
	char mine[PT_KEY_LEN], theirs[PT_KEY_LEN];
	const size_t len = pt_key_len(p);
	struct pt_dest r;

	memcpy(d.gid, p->gid.raw, sizeof(d.gid));
	if (p->cm != NULL)
		pt_dest_pack(&d, p->o->gid_index, (uint8_t *)mine);
	else
		pt_key_encode(&d, mine);
	if (p->server && p->pt_key_seen) {
		/* the peer's message came during the run (pt_poll): answer it */
		p->pt_key_seen = false;
		return pt_write(p, mine, len) == 0 ? PERF_OK : PERF_FAIL;
	}
	if (pt_xchg(p, mine, theirs, len, true) != PERF_OK)
		return PERF_FAIL;
	if (p->cm != NULL) {
		pt_dest_unpack((const uint8_t *)theirs, &r);
	} else if (pt_key_decode(theirs, &r) != 0) {
		perf_err("out-of-band exchange", "cannot parse the peer's address <%.*s>",
			 PT_KEY_LEN, theirs);
		return PERF_FAIL;
	}
	if (!parse)
		return PERF_OK;
	memset(&p->qps[qi].remote, 0, sizeof(p->qps[qi].remote));
	p->qps[qi].remote.qpn = r.qpn & 0xffffff;
	p->qps[qi].remote.psn = r.psn & 0xffffff;
	p->qps[qi].remote.rkey = r.rkey;
	p->qps[qi].remote.vaddr = r.vaddr;
	p->qps[qi].remote.mtu = p->pt_peer_mtu;
	p->qps[qi].remote.slots = 1;
	p->qps[qi].remote.slot_size = 0;
	if (p->test->verb == PERF_ATOMIC && p->test->kind == PERF_BW) {
		/* atomic_bw's words: one per cache line over the cycle buffer (increase_rem_addr) */
		p->qps[qi].remote.slots = p->pt_cycle / p->pt_line;
		p->qps[qi].remote.slot_size = p->pt_line;
	}
	memcpy(p->qps[qi].remote.gid, r.gid, sizeof(r.gid));
	p->pt_out_reads = r.out_reads;
	return PERF_OK;
}

static uint64_t
dbl_bits(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	return rte_cpu_to_be_64(b);
}

static double
bits_dbl(uint64_t be)
{
	uint64_t b = rte_be_to_cpu_64(be);
	double v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

int
pt_xchg_bw_reports(struct perf *p, double *vals, uint64_t *iters, uint64_t *size)
{
	const double f = p->o->report_gbits ? GBITS_FACTOR : MBS_FACTOR;
	const bool have = !p->server || p->test->verb == PERF_SEND;
	uint64_t mine[5], theirs[5];

	mine[0] = rte_cpu_to_be_64(p->size);
	mine[1] = rte_cpu_to_be_64(have ? p->res.iters * p->nb_qps : 0);  /* all QPs' */
	mine[2] = dbl_bits(have ? p->res.vals[0] / f : 0);
	mine[3] = dbl_bits(have ? p->res.vals[1] / f : 0);
	mine[4] = dbl_bits(have ? p->res.vals[2] / 1e6 : 0);
	for (unsigned int i = 0; i < 5; i++)
		if (pt_xchg(p, &mine[i], &theirs[i], sizeof(mine[i]), true) != PERF_OK)
			return PERF_FAIL;
	*size = rte_be_to_cpu_64(theirs[0]);
	*iters = rte_be_to_cpu_64(theirs[1]);
	vals[0] = bits_dbl(theirs[2]) * f;
	vals[1] = bits_dbl(theirs[3]) * f;
	vals[2] = bits_dbl(theirs[4]) * 1e6;
	return PERF_OK;
}

int
pt_close(struct perf *p)
{
	static const char done[] = PT_DONE;

	if (pt_hand_shake(p, 0, false) != PERF_OK)
		return PERF_FAIL;
	if (p->cm != NULL)
		return PERF_OK;          /* ctx_close_connection() with rdma_cm: the hand shake alone */
	return oob_write_raw(&p->ob, done, sizeof(done)) == 0 ? PERF_OK : PERF_FAIL;
}

int
pt_barrier(struct perf *p)
{
	uint8_t mine[PT_DEST_LEN] = { 0 }, theirs[PT_DEST_LEN];

	/* create_rdma_cm_connection()'s hand shakes before and after the data connection: zeros */
	return pt_xchg(p, mine, theirs, PT_DEST_LEN, true);
}

int
pt_poll(struct perf *p)
{
	char msg[PT_KEY_LEN];
	struct pt_dest r;
	int ret;

	if (!p->pt_expect_key || p->pt_key_seen)
		return PERF_OK;
	ret = pt_read_raw(p, msg, pt_key_len(p), 0);
	if (ret == 0)
		return PERF_OK;
	if (ret < 0)
		return PERF_FAIL;
	if (p->cm == NULL && pt_key_decode(msg, &r) != 0) {
		perf_err("out-of-band exchange", "cannot parse the peer's message <%.*s>",
			 PT_KEY_LEN, msg);
		return PERF_FAIL;
	}
	p->pt_key_seen = true;
	p->peer_done_seen = true;
	memset(&p->peer_done, 0, sizeof(p->peer_done));
	p->peer_done.iters = p->iters;
	return PERF_OK;
}
