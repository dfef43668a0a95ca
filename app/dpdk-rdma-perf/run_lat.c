/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Latency runs (perftest's run_iter_lat_{write,send} and run_iter_lat).
 *
 * write_lat, send_lat: ping-pong. The client posts message i then waits for
 * the server's message i; the server waits for message i then posts its own.
 * write_lat detects arrival as perftest does, by polling the last byte of
 * its buffer (it carries the iteration tag) while driving the transport;
 * send_lat by its receive completion. read_lat, atomic_lat: the client
 * issues one READ or atomic at a time; its server only drives its transport.
 *
 * Each side timestamps its posts; latency = the time between consecutive
 * posts, halved for the ping-pongs (perftest's rtt_factor). Every send WR is
 * signaled; a local slot is refilled only once the WR that used it is
 * complete (two slots alternate).
 *
 * --check: the sender fills each message with its pattern; the receiver (the
 * READ issuer for read_lat) verifies every byte of every message. atomic_lat:
 * the client checks every original value, the server its words (atomic.c).
 */

#include <errno.h>
#include <inttypes.h>

#include <rte_cycles.h>

#include "perf.h"

#define LAT_BURST 8
#define LAT_STALL_S 20u   /* write_lat: a message this late is taken as damaged */

/* Reap send completions (every send WR is signaled; this also drives the transport). */
static int
reap_send(struct perf *p, struct perf_qp *q)
{
	struct dr_wc wc[LAT_BURST];
	int n = dr_poll_cq(p->send_cq, LAT_BURST, wc);

	if (n < 0)
		return perf_api_err("dr_poll_cq", -n);
	for (int i = 0; i < n; i++) {
		uint64_t k = wc[i].wr_id & ((1ull << PERF_WR_ITER_BITS) - 1);

		if (wc[i].status != DR_WC_SUCCESS)
			return perf_wc_err(&wc[i]);
		if (k != q->completed || k >= q->posted) {
			perf_err("completion", "unexpected wr_id 0x%" PRIx64, wc[i].wr_id);
			return PERF_FAIL;
		}
		if (p->check && perf_verb_fetches(p->test->verb))
			perf_verify_fetched(p, q, k);
		q->completed++;
	}
	return PERF_OK;
}

/* Wait until at most @p max send WRs are outstanding. */
static int
wait_sends(struct perf *p, struct perf_qp *q, uint64_t max)
{
	while (q->posted - q->completed > max)
		if (reap_send(p, q) != PERF_OK || perf_oob_poll(p, false) != PERF_OK)
			return PERF_FAIL;
	return PERF_OK;
}

/* The tag of message @p i; perftest's is the iteration count, (char)(i + 1). */
static uint8_t
lat_tag(const struct perf *p, uint64_t i)
{
	return p->perftest ? (uint8_t)(i + 1) : perf_check_tag(i);
}

static int
lat_post(struct perf *p, struct perf_qp *q, uint64_t i)
{
	uint8_t *local = q->tx + (size_t)(i % q->tx_slots) * p->slot_size;
	struct dr_sge sge = { .addr = (uintptr_t)local, .length = p->size, .lkey = p->mr->lkey };
	struct dr_send_wr wr = {
		.wr_id = perf_wr_id(q->index, i),
		.sg_list = p->size > 0 ? &sge : NULL,
		.num_sge = p->size > 0 ? 1 : 0,
		.send_flags = DR_SEND_SIGNALED,
	};
	struct dr_send_wr *bad = NULL;
	int ret;

	/* the slot was last used by WR i - tx_slots: it must be complete */
	if (wait_sends(p, q, q->tx_slots - 1) != PERF_OK)
		return PERF_FAIL;
	perf_wr_target(p, q, i, &wr);
	if (p->check && !perf_verb_fetches(p->test->verb))
		perf_check_fill(local, p->size, perf_seed(p, p->server, q->index, i));
	if (p->test->verb == PERF_WRITE)
		local[p->size - 1] = lat_tag(p, i);
	if (p->tstamp != NULL)
		p->tstamp[i] = rte_rdtsc();
	ret = dr_post_send(q->qp, &wr, &bad);
	if (ret != 0)
		return perf_api_err("dr_post_send", ret);
	q->posted++;
	return PERF_OK;
}

/*
 * Wait for the peer's message @p i: its tag in our last byte (write) or a
 * receive completion (send). *stopped: the peer ended the run instead (-D).
 */
static int
wait_peer_msg(struct perf *p, struct perf_qp *q, uint64_t i, bool *stopped)
{
	const uint8_t want = lat_tag(p, i), before = i == 0 ? 0 : lat_tag(p, i - 1);
	const uint64_t stall = rte_rdtsc() + LAT_STALL_S * p->tsc_hz;
	uint8_t got = want;

	for (;;) {
		if (p->test->verb == PERF_WRITE) {
			volatile const uint8_t *last = q->rx + p->size - 1;

			got = *last;
			/*
			 * Neither the last tag nor this one: the byte arrived damaged.
			 * Damaged into the last tag, it cannot be told from a message
			 * still on its way: after LAT_STALL_S, the data tells (--check).
			 */
			if (got == want || got != before)
				break;
			if (rte_rdtsc() > stall) {
				if (!p->check) {
					perf_err("write_lat", "message %" PRIu64 " did not arrive in "
						 "%u s", i, LAT_STALL_S);
					return PERF_FAIL;
				}
				break;
			}
		} else {
			struct dr_wc wc;
			int n = dr_poll_cq(p->recv_cq, 1, &wc);

			if (n < 0)
				return perf_api_err("dr_poll_cq", -n);
			if (n == 1)
				return perf_recv_complete(p, &wc);
		}
		if (reap_send(p, q) != PERF_OK || perf_oob_poll(p, false) != PERF_OK)
			return PERF_FAIL;
		if (p->peer_done_seen) {
			*stopped = true;
			return PERF_OK;
		}
		perf_idle(p);           /* nothing arrived yet */
	}
	if (p->check) {
		unsigned int w, g;
		size_t off = perf_check_verify(q->rx, p->size - 1,
					       perf_seed(p, !p->server, q->index, i), &w, &g);

		if (off != SIZE_MAX)
			perf_note_bad(p, q->index, i, off, w, g);
		p->res.verified += p->size;
	}
	if (got != want) {
		if (!p->check) {
			perf_err("write_lat", "message %" PRIu64 " arrived with tag 0x%02x, 0x%02x "
				 "expected (--check tells more)", i, got, want);
			return PERF_FAIL;
		}
		perf_note_bad(p, q->index, i, p->size - 1, want, got);
	}
	q->received++;
	return PERF_OK;
}

/* Wait for the READ or atomic just posted to complete. */
static int
wait_fetch(struct perf *p, struct perf_qp *q)
{
	return wait_sends(p, q, 0);
}

static bool
time_up(const struct perf *p, uint64_t i, uint64_t start)
{
	if (p->duration == 0)
		return i >= p->iters;
	return rte_rdtsc() - start >= (uint64_t)(p->duration * p->tsc_hz);
}

static int
lat_active(struct perf *p)
{
	struct perf_qp *q = &p->qps[0];
	/*
	 * The side that posts first: the client, except in perftest's
	 * write_lat, where the server does (run_iter_lat_write: a client waits
	 * for message 1 before its first post).
	 */
	const bool client = p->perftest && p->test->verb == PERF_WRITE ? p->server : !p->server;
	uint64_t start = rte_rdtsc(), i;
	bool stopped = false;

	for (i = 0; !stopped; i++) {
		if (client && time_up(p, i, start))
			break;
		if (!client && p->duration == 0 && i >= p->iters)
			break;
		if (client) {
			if (lat_post(p, q, i) != PERF_OK)
				return PERF_FAIL;
			if (perf_verb_fetches(p->test->verb) ? wait_fetch(p, q) != PERF_OK :
			    wait_peer_msg(p, q, i, &stopped) != PERF_OK)
				return PERF_FAIL;
		} else {
			if (wait_peer_msg(p, q, i, &stopped) != PERF_OK)
				return PERF_FAIL;
			/* a damaged message ends the run: DONE tells the peer, which stops */
			if (!stopped && !p->res.bad.found && lat_post(p, q, i) != PERF_OK)
				return PERF_FAIL;
		}
		if (p->res.bad.found && !stopped)
			break;
	}
	if (stopped)
		i--;
	/* our last WR must be acknowledged before we say DONE */
	if (wait_sends(p, q, 0) != PERF_OK)
		return PERF_FAIL;
	p->res.iters = i;
	if (perf_lat_result(p, i, rte_rdtsc() - start) != 0)
		return perf_api_err("malloc", ENOMEM);
	return PERF_OK;
}

static int
lat_passive(struct perf *p)
{
	if (perf_wait_peer_done(p) != PERF_OK)
		return PERF_FAIL;
	p->res.iters = p->peer_done.iters;
	if (p->check && p->test->verb == PERF_ATOMIC)
		perf_atomic_verify_words(p, p->peer_done.iters);
	return PERF_OK;
}

int
perf_run_lat(struct perf *p)
{
	if (p->server && perf_verb_fetches(p->test->verb))
		return lat_passive(p);
	return lat_active(p);
}
