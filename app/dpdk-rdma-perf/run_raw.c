/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The bare link under the RDMA tests (raw_bw, raw_lat): frames of exactly
 * the sizes and headers an RDMA test of the same size and path MTU puts on
 * the wire (--raw-like write, send, read or atomic: Ethernet, IP, UDP 4791,
 * BTH, the operation's extension headers, payload, pad, ICRC), moved over
 * the same port, queue, mbuf pool and lcore the transport would use, with
 * every payload byte copied in by the sender and out by the receiver, as
 * the transport copies them. No transport: no ACKs, no ICRC computed or
 * checked, no retransmission; frames carry DestQP 0xFFFFFF (no QP of ours)
 * and a PSN so that the receiver counts what the link lost.
 *
 * raw_bw: the client sends -n messages' frames (or for -D seconds) back to
 * back; the server receives them and its rate (first to last frame) is the
 * row both sides print. raw_lat: ping-pong, as the lat test of --raw-like:
 * like write or send, the client sends a message and the server sends one
 * back when it has all of it (the row is half the round trip, perftest's
 * rtt_factor); like read or atomic, the client sends one request frame and
 * the server answers with the response frames (a READ's of the message
 * size, an atomic ACK), the row the whole round trip as read_lat's.
 *
 * Where the engine runs on lcores (--mode rtc, pipeline) the workers stop
 * first and the loop runs on the first worker lcore; inline, on the main
 * lcore.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "dr_hdr.h"
#include "dr_opcode.h"
#include "dr_pkt.h"
#include "dr_psn.h"
#include "perf.h"

#define RAW_BURST 32
#define RAW_QPN 0xFFFFFFu           /* no QP of ours (the IB multicast QPN) */
#define RAW_FIRST_WAIT_S 10u        /* for the first frame of a run */
#define RAW_QUIET_MS 200u           /* raw_bw: the sender is done when nothing came this long */
#define RAW_REPLY_WAIT_S 2u         /* raw_lat: for the rest of a message, or the reply */
#define RAW_MAX_HDR 128u
#define RAW_DURATION_CHUNK 64u      /* raw_bw -D: messages between looks at the clock */

/* The frames of one position in a message: headers, then payload, then pad and ICRC. */
struct raw_tpl {
	uint8_t hdr[RAW_MAX_HDR];
	uint16_t hdr_len;
	uint16_t bth_off;
	uint32_t paylen;
	uint8_t tail[8];            /* pad and ICRC */
	uint8_t tail_len;
};

enum { RAW_ONLY, RAW_FIRST, RAW_MIDDLE, RAW_LAST, RAW_KINDS };

/* What one side sends per message: the opcodes of each position, the payload bytes. */
struct raw_shape {
	uint8_t op[RAW_KINDS];
	uint32_t size;
};

struct raw_run {
	struct perf *p;
	struct rte_mempool *mp;
	uint16_t port;
	uint32_t mtu;
	uint32_t nf;                /* frames per message we send */
	uint32_t rx_nf;             /* ... and per message we receive */
	struct raw_tpl tpl[RAW_KINDS];
	uint8_t hdr_len_of[256];    /* by BTH opcode: where the payload starts (0: not ours) */
	uint32_t tx_psn;
	uint32_t rx_psn;            /* next expected */
	bool rx_started;
	uint64_t rx_frames;
	uint64_t rx_lost;
	uint64_t rx_first, rx_last; /* TSC of the first and last frame received */
	int rc;
};

static void
raw_shape_set(struct raw_shape *s, uint8_t only, uint8_t first, uint8_t middle, uint8_t last,
	      uint32_t size)
{
	s->op[RAW_ONLY] = (uint8_t)(DR_TRANSPORT_RC | only);
	s->op[RAW_FIRST] = (uint8_t)(DR_TRANSPORT_RC | first);
	s->op[RAW_MIDDLE] = (uint8_t)(DR_TRANSPORT_RC | middle);
	s->op[RAW_LAST] = (uint8_t)(DR_TRANSPORT_RC | last);
	s->size = size;
}

/*
 * The frames of --raw-like: what the client sends (@req) and what the
 * server sends (@resp; raw_bw: nothing). raw_bw moves the operation's
 * data-carrying frames (a READ's responses, an atomic's request); raw_lat
 * its request and its answer (a message back for write and send).
 */
static void
raw_shapes(const struct perf *p, struct raw_shape *req, struct raw_shape *resp)
{
	const bool lat = p->test->kind == PERF_LAT;

	switch (p->raw_like) {
	case PERF_SEND:
		raw_shape_set(req, DR_OP_SEND_ONLY, DR_OP_SEND_FIRST, DR_OP_SEND_MIDDLE, DR_OP_SEND_LAST,
			      p->size);
		*resp = *req;
		break;
	case PERF_WRITE:
		raw_shape_set(req, DR_OP_WRITE_ONLY, DR_OP_WRITE_FIRST, DR_OP_WRITE_MIDDLE,
			      DR_OP_WRITE_LAST, p->size);
		*resp = *req;
		break;
	case PERF_READ:
		raw_shape_set(resp, DR_OP_READ_RESP_ONLY, DR_OP_READ_RESP_FIRST, DR_OP_READ_RESP_MIDDLE,
			      DR_OP_READ_RESP_LAST, p->size);
		if (lat)
			raw_shape_set(req, DR_OP_READ_REQ, DR_OP_READ_REQ, DR_OP_READ_REQ, DR_OP_READ_REQ, 0);
		else
			*req = *resp;
		break;
	case PERF_ATOMIC:
	default:
		raw_shape_set(req, DR_OP_FETCH_ADD, DR_OP_FETCH_ADD, DR_OP_FETCH_ADD, DR_OP_FETCH_ADD, 0);
		raw_shape_set(resp, DR_OP_ATOMIC_ACK, DR_OP_ATOMIC_ACK, DR_OP_ATOMIC_ACK, DR_OP_ATOMIC_ACK,
			      0);
		break;
	}
}

/*
 * Build the template of one frame kind with dr_pkt_build() (the transport's
 * own builder); note where its payload starts for the receiver.
 */
static int
raw_tpl_make(struct raw_run *r, const struct dr_pkt_route *rt, uint8_t opcode, uint32_t paylen,
	     struct raw_tpl *t)
{
	static const uint8_t zeros[8192];
	struct rte_mbuf *m = rte_pktmbuf_alloc(r->mp);
	struct dr_pkt_info pi;
	uint32_t len;
	int ret;

	if (m == NULL)
		return perf_api_err("rte_pktmbuf_alloc", ENOMEM);
	ret = dr_pkt_build(m, rt, 0, opcode, paylen, &pi);
	if (ret == 0) {
		dr_bth_set_qpn(dr_pkt_bth(&pi), RAW_QPN);
		ret = dr_pkt_append(m, zeros, paylen);
	}
	if (ret == 0)
		ret = dr_pkt_finalize(m, &pi);
	if (ret != 0 || rte_pktmbuf_data_len(m) != rte_pktmbuf_pkt_len(m) || pi.pay_off > RAW_MAX_HDR) {
		rte_pktmbuf_free(m);
		perf_err("raw frame", "cannot build a %u-byte %s frame (%s)", paylen, dr_opcode_name(opcode),
			 ret != 0 ? strerror(-ret) : "it does not fit one segment");
		return PERF_FAIL;
	}
	len = rte_pktmbuf_pkt_len(m);
	t->hdr_len = (uint16_t)pi.pay_off;
	t->bth_off = pi.bth_off;
	t->paylen = paylen;
	t->tail_len = (uint8_t)(len - pi.pay_off - paylen);
	memcpy(t->hdr, rte_pktmbuf_mtod(m, uint8_t *), t->hdr_len);
	memcpy(t->tail, rte_pktmbuf_mtod_offset(m, uint8_t *, pi.pay_off + paylen), t->tail_len);
	r->hdr_len_of[opcode] = (uint8_t)t->hdr_len;
	rte_pktmbuf_free(m);
	return PERF_OK;
}

static uint32_t
raw_frames(uint32_t size, uint32_t mtu)
{
	return size <= mtu ? 1 : (size + mtu - 1) / mtu;
}

/* The frames of one message of @s at the path MTU into @tpl; returns how many in @nf. */
static int
raw_tpl_shape(struct raw_run *r, const struct dr_pkt_route *rt, const struct raw_shape *s,
	      struct raw_tpl *tpl, uint32_t *nf)
{
	int ret;

	*nf = raw_frames(s->size, r->mtu);
	if (*nf == 1)
		return raw_tpl_make(r, rt, s->op[RAW_ONLY], s->size, &tpl[RAW_ONLY]);
	ret = raw_tpl_make(r, rt, s->op[RAW_FIRST], r->mtu, &tpl[RAW_FIRST]);
	if (ret == PERF_OK)
		ret = raw_tpl_make(r, rt, s->op[RAW_MIDDLE], r->mtu, &tpl[RAW_MIDDLE]);
	if (ret == PERF_OK)
		ret = raw_tpl_make(r, rt, s->op[RAW_LAST], s->size - (*nf - 1) * r->mtu, &tpl[RAW_LAST]);
	return ret;
}

/*
 * The templates of this size: what we send (r->tpl, r->nf frames a
 * message), and where the payload of what we receive starts (r->rx_nf
 * frames a message; the headers have the same length both ways).
 */
static int
raw_prepare(struct raw_run *r)
{
	struct perf *p = r->p;
	const struct oob_qp *peer = &p->qps[0].remote;
	struct raw_shape req, resp;
	struct raw_tpl scratch[RAW_KINDS];
	const struct raw_shape *tx, *rx;
	struct dr_pkt_route rt;
	int ret;

	memset(&rt, 0, sizeof(rt));
	memset(r->hdr_len_of, 0, sizeof(r->hdr_len_of));
	rte_ether_addr_copy(&p->mac, &rt.smac);
	memcpy(rt.dmac.addr_bytes, peer->mac, RTE_ETHER_ADDR_LEN);
	memcpy(rt.sgid, p->gid.raw, 16);
	memcpy(rt.dgid, peer->gid, 16);
	rt.ip_ver = dr_gid_is_ipv4(rt.sgid) ? 4 : 6;
	rt.hop_limit = 64;
	rt.ipv4_df = 1;
	rt.flow_label = dr_flow_label_from_qpns(p->qps[0].qp->qp_num, peer->qpn);
	rt.udp_sport = dr_udp_sport_from_flow_label(rt.flow_label);
	r->mtu = p->path_mtu;
	raw_shapes(p, &req, &resp);
	if (p->test->kind == PERF_BW) {
		tx = &req;              /* the client's frames, which the server receives */
		rx = &req;
	} else {
		tx = p->server ? &resp : &req;
		rx = p->server ? &req : &resp;
	}
	ret = raw_tpl_shape(r, &rt, tx, r->tpl, &r->nf);
	if (ret == PERF_OK)
		ret = raw_tpl_shape(r, &rt, rx, scratch, &r->rx_nf);
	return ret;
}

static const struct raw_tpl *
raw_tpl_of(const struct raw_run *r, uint32_t k)
{
	if (r->nf == 1)
		return &r->tpl[RAW_ONLY];
	return &r->tpl[k == 0 ? RAW_FIRST : k + 1 == r->nf ? RAW_LAST : RAW_MIDDLE];
}

/* Fill @m as frame @k of a message whose payload is at @src. */
static int
raw_fill(struct raw_run *r, struct rte_mbuf *m, uint32_t k, const uint8_t *src)
{
	const struct raw_tpl *t = raw_tpl_of(r, k);
	uint32_t len = t->hdr_len + t->paylen + t->tail_len;
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	uint8_t *psn;

	if (d == NULL)
		return -1;
	memcpy(d, t->hdr, t->hdr_len);
	memcpy(d + t->hdr_len, src + (size_t)k * r->mtu, t->paylen);
	memcpy(d + t->hdr_len + t->paylen, t->tail, t->tail_len);
	psn = d + t->bth_off + 9;           /* BTH bytes 9..11: PSN */
	psn[0] = (uint8_t)(r->tx_psn >> 16);
	psn[1] = (uint8_t)(r->tx_psn >> 8);
	psn[2] = (uint8_t)r->tx_psn;
	r->tx_psn = (r->tx_psn + 1) & DR_PSN_MASK;
	return 0;
}

/* Send @n messages from @src (frames back to back; what the PMD refuses is offered again). */
static int
raw_send(struct raw_run *r, uint64_t n, const uint8_t *src)
{
	struct rte_mbuf *pkts[RAW_BURST];
	uint64_t total = n * r->nf, done = 0;
	uint32_t k = 0;

	while (done < total) {
		unsigned int want = (unsigned int)RTE_MIN((uint64_t)RAW_BURST, total - done), sent = 0;

		if (rte_pktmbuf_alloc_bulk(r->mp, pkts, want) != 0) {
			if (perf_stop)
				return PERF_FAIL;
			continue;               /* the PMD still holds our frames: it frees them soon */
		}
		for (unsigned int i = 0; i < want; i++) {
			if (raw_fill(r, pkts[i], k, src) != 0) {
				rte_pktmbuf_free_bulk(pkts, want);
				perf_err("raw frame", "an mbuf of the pool cannot hold a %u-byte payload",
					 r->mtu);
				return PERF_FAIL;
			}
			k = k + 1 == r->nf ? 0 : k + 1;
		}
		while (sent < want) {
			sent += rte_eth_tx_burst(r->port, 0, pkts + sent, (uint16_t)(want - sent));
			if (perf_stop) {
				rte_pktmbuf_free_bulk(pkts + sent, want - sent);
				return PERF_FAIL;
			}
		}
		done += want;
	}
	return PERF_OK;
}

/* One received frame: ours? count it, note a gap in the PSNs, copy the payload out to @dst. */
static void
raw_take(struct raw_run *r, struct rte_mbuf *m, uint8_t *dst)
{
	const struct raw_tpl *t0 = r->nf == 1 ? &r->tpl[RAW_ONLY] : &r->tpl[RAW_FIRST];
	uint32_t len = rte_pktmbuf_pkt_len(m), psn, paylen, hl, k;
	uint8_t hdr[RAW_MAX_HDR];
	const uint8_t *h, *pay;

	if (len < t0->bth_off + sizeof(struct dr_bth))
		return;
	h = rte_pktmbuf_read(m, 0, t0->bth_off + sizeof(struct dr_bth), hdr);
	hl = r->hdr_len_of[h[t0->bth_off]];
	if (hl == 0 || len < hl + 4u ||
	    ((uint32_t)h[t0->bth_off + 5] << 16 | (uint32_t)h[t0->bth_off + 6] << 8 | h[t0->bth_off + 7]) != RAW_QPN)
		return;                          /* not one of ours (ARP, the transport's) */
	psn = (uint32_t)h[t0->bth_off + 9] << 16 | (uint32_t)h[t0->bth_off + 10] << 8 | h[t0->bth_off + 11];
	paylen = len - hl - ((h[t0->bth_off + 1] >> 4) & 3) - 4;
	if (r->rx_started && psn != r->rx_psn)
		r->rx_lost += (psn - r->rx_psn) & DR_PSN_MASK;
	k = (uint32_t)(r->rx_frames + r->rx_lost) % r->rx_nf;
	r->rx_psn = (psn + 1) & DR_PSN_MASK;
	r->rx_started = true;
	r->rx_frames++;
	/* the receiver's copy, as the responder's into the MR */
	pay = rte_pktmbuf_read(m, hl, paylen, dst + (size_t)k * r->mtu);
	if (pay != NULL && pay != dst + (size_t)k * r->mtu)
		memcpy(dst + (size_t)k * r->mtu, pay, paylen);
}

/* Receive until @want frames (received or lost) are in, or @wait_ms pass without one. */
static uint64_t
raw_recv(struct raw_run *r, uint64_t want, uint8_t *dst, uint64_t wait_ms)
{
	struct rte_mbuf *pkts[RAW_BURST];
	uint64_t got0 = r->rx_frames + r->rx_lost, quiet = wait_ms * (r->p->tsc_hz / 1000);
	uint64_t last = rte_rdtsc();

	while (r->rx_frames + r->rx_lost - got0 < want && !perf_stop) {
		uint16_t n = rte_eth_rx_burst(r->port, 0, pkts, RAW_BURST);
		uint64_t now = rte_rdtsc();

		if (n == 0) {
			if (now - last > quiet)
				break;
			continue;
		}
		for (uint16_t i = 0; i < n; i++)
			raw_take(r, pkts[i], dst);
		rte_pktmbuf_free_bulk(pkts, n);
		if (r->rx_first == 0)
			r->rx_first = now;
		r->rx_last = now;
		last = now;
	}
	return r->rx_frames + r->rx_lost - got0;
}

static int
raw_bw(struct raw_run *r)
{
	struct perf *p = r->p;
	struct perf_qp *q = &p->qps[0];
	uint64_t total = p->iters * r->rx_nf, cycles;

	if (!p->server) {
		uint64_t t0 = rte_rdtsc(), sent = 0, dur = (uint64_t)(p->duration * p->tsc_hz);

		if (p->duration == 0) {
			if (raw_send(r, p->iters, q->tx) != PERF_OK)
				return PERF_FAIL;
			sent = p->iters;
		} else {
			do {
				if (raw_send(r, RAW_DURATION_CHUNK, q->tx) != PERF_OK)
					return PERF_FAIL;
				sent += RAW_DURATION_CHUNK;
			} while (rte_rdtsc() - t0 < dur);
		}
		cycles = rte_rdtsc() - t0;
		p->res.iters = sent;
		perf_bw_result(p, sent, cycles, 0);
		return PERF_OK;
	}
	if (raw_recv(r, 1, q->rx, RAW_FIRST_WAIT_S * 1000) == 0) {
		perf_err("raw_bw", "no frame in %u s", RAW_FIRST_WAIT_S);
		return PERF_FAIL;
	}
	/* -D: the sender's count is not known here: until the link is quiet */
	raw_recv(r, p->duration > 0 ? UINT64_MAX : total - 1, q->rx, RAW_QUIET_MS);
	if (p->duration == 0 && r->rx_lost + r->rx_frames < total)
		r->rx_lost += total - r->rx_lost - r->rx_frames;      /* the tail never came */
	if (r->rx_lost != 0)
		fprintf(stderr, PERF_PROG ": raw_bw: size %u: %" PRIu64 " of %" PRIu64 " frames lost "
			"on the link\n", p->size, r->rx_lost, r->rx_lost + r->rx_frames);
	cycles = r->rx_last - r->rx_first;
	p->res.iters = r->rx_frames / r->rx_nf;
	perf_bw_result(p, p->res.iters, cycles, 0);
	/* a rate from n frames is over n - 1 gaps: scale to whole messages */
	if (r->rx_frames > 1) {
		double f = (double)r->rx_frames / (double)(r->rx_frames - 1);

		for (int i = 0; i < 3; i++)
			p->res.vals[i] /= f;
	}
	return PERF_OK;
}

static int
raw_lat(struct raw_run *r)
{
	struct perf *p = r->p;
	struct perf_qp *q = &p->qps[0];
	uint64_t t0 = rte_rdtsc();

	for (uint64_t i = 0; i < p->iters && !perf_stop; i++) {
		uint64_t wait = i == 0 && p->server ? RAW_FIRST_WAIT_S * 1000 : RAW_REPLY_WAIT_S * 1000;

		if (!p->server) {
			p->tstamp[i] = rte_rdtsc();
			if (raw_send(r, 1, q->tx) != PERF_OK)
				return PERF_FAIL;
		}
		if (raw_recv(r, r->rx_nf, q->rx, wait) < r->rx_nf) {
			perf_err("raw_lat", "message %" PRIu64 ": %" PRIu64 " of %u frames in %" PRIu64 " ms "
				 "(the link lost one)", i, r->rx_frames % r->rx_nf, r->rx_nf, wait);
			return PERF_FAIL;
		}
		if (p->server && raw_send(r, 1, q->tx) != PERF_OK)
			return PERF_FAIL;
	}
	if (perf_stop)
		return PERF_FAIL;
	p->res.iters = p->iters;
	if (!p->server && perf_lat_result(p, p->iters, rte_rdtsc() - t0) != 0)
		return perf_api_err("malloc", ENOMEM);
	return PERF_OK;
}

static int
raw_lcore(void *arg)
{
	struct raw_run *r = arg;

	r->rc = r->p->test->kind == PERF_BW ? raw_bw(r) : raw_lat(r);
	return 0;
}

int
perf_run_raw(struct perf *p)
{
	struct raw_run r = { .p = p, .port = p->port_id };
	unsigned int lcore;

	r.mp = dr_context_mempool(p->ctx);
	if (r.mp == NULL)
		return perf_api_err("dr_context_mempool", errno);
	if (raw_prepare(&r) != PERF_OK)
		return PERF_FAIL;
	/* the transport's lcore: its workers let go of the port first */
	if (p->o->engine.mode != DR_PROGRESS_INLINE)
		(void)dr_stop_workers(p->ctx);
	/*
	 * and the peer's too, before the first frame: one that came while its
	 * workers still ran was theirs (DestQP 0xFFFFFF: no QP, dropped), and
	 * its raw loop waited for it in vain ("the link lost one"). Both sides
	 * whatever their modes; the perftest-shaped and persistent sessions
	 * have exchanges of their own.
	 */
	if (!p->o->perftest && !p->o->persist && perf_barrier(p) != PERF_OK)
		return PERF_FAIL;
	if (p->o->engine.mode == DR_PROGRESS_INLINE) {
		raw_lcore(&r);
		return r.rc;
	}
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE) {
		raw_lcore(&r);
		return r.rc;
	}
	if (rte_eal_remote_launch(raw_lcore, &r, lcore) != 0)
		return perf_api_err("rte_eal_remote_launch", EBUSY);
	rte_eal_wait_lcore(lcore);
	return r.rc;
}
