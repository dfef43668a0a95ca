/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Bandwidth runs (perftest's run_iter_bw and its server side).
 *
 * The client keeps up to `window` send WRs in flight per QP, signals one in
 * cq_mod (and the last), and counts a signaled completion as the completion
 * of every earlier WR of its QP. The send_bw server (and write_bw's with
 * --write_with_imm) keeps rq_depth receives posted per QP and reposts each as
 * it completes. The write_bw, read_bw and atomic_bw servers only drive their
 * transport until the client's DONE.
 *
 * --check: the client fills message i with its pattern before posting it
 * (a slot is reused only once the WR that last used it is complete). The
 * send_bw server verifies every message; the write_bw server, at the end, the
 * last message written to each of its slots (every message when -n fits in
 * PERF_CHECK_REGION); the read_bw client every message it read; the
 * atomic_bw client every original value, its server every word (atomic.c).
 */

#include <inttypes.h>

#include <rte_cycles.h>

#include "perf.h"

#define BW_BURST 32

/*
 * BW peak: the best rate over a stretch of at least `min_msgs` completions
 * and PEAK_MIN_US microseconds (completions come in bursts: a shorter stretch
 * measures a burst, not the link). A shorter run reports its average.
 */
#define PEAK_MIN_US 1000
struct bw_peak {
	uint64_t mark;          /* TSC where the stretch began */
	uint64_t msgs;          /* completions in it */
	uint64_t min_msgs;
	uint64_t min_cycles;
	double best;            /* bytes per cycle */
};

static void
peak_add(struct bw_peak *pk, uint64_t now, uint64_t msgs, uint32_t size)
{
	pk->msgs += msgs;
	if (pk->msgs < pk->min_msgs || now - pk->mark < pk->min_cycles)
		return;
	pk->best = RTE_MAX(pk->best, (double)pk->msgs * size / (double)(now - pk->mark));
	pk->mark = now;
	pk->msgs = 0;
}

static int
bw_post(struct perf *p, struct perf_qp *q)
{
	const uint64_t i = q->posted;
	uint8_t *local = q->tx + (size_t)(i % q->tx_slots) * p->slot_size;
	struct dr_sge sge = { .addr = (uintptr_t)local, .length = p->size, .lkey = p->mr->lkey };
	struct dr_send_wr wr = {
		.wr_id = perf_wr_id(q->index, i),
		.sg_list = p->size > 0 ? &sge : NULL,
		.num_sge = p->size > 0 ? 1 : 0,
	};
	struct dr_send_wr *bad = NULL;
	int ret;

	if ((i + 1) % p->cq_mod == 0 || (p->duration == 0 && i + 1 == p->iters))
		wr.send_flags = DR_SEND_SIGNALED;
	perf_wr_target(p, q, i, &wr);
	if (p->check && !perf_verb_fetches(p->test->verb))
		perf_check_fill(local, p->size, perf_seed(p, false, q->index, i));
	ret = dr_post_send(q->qp, &wr, &bad);
	if (ret != 0)
		return perf_api_err("dr_post_send", ret);
	q->posted++;
	return PERF_OK;
}

/* A send completion: @return the messages it completes, or PERF_FAIL. */
static int64_t
bw_complete(struct perf *p, const struct dr_wc *wc)
{
	uint32_t qi = (uint32_t)(wc->wr_id >> PERF_WR_ITER_BITS);
	uint64_t k = wc->wr_id & ((1ull << PERF_WR_ITER_BITS) - 1);
	struct perf_qp *q;
	uint64_t n;

	if (wc->status != DR_WC_SUCCESS)
		return perf_wc_err(wc);
	if (qi >= p->nb_qps || k < p->qps[qi].completed || k >= p->qps[qi].posted) {
		perf_err("completion", "unexpected wr_id 0x%" PRIx64, wc->wr_id);
		return PERF_FAIL;
	}
	q = &p->qps[qi];
	if (p->check && perf_verb_fetches(p->test->verb))
		for (uint64_t j = q->completed; j <= k; j++)
			perf_verify_fetched(p, q, j);
	n = k + 1 - q->completed;
	q->completed = k + 1;
	return (int64_t)n;
}

static int
bw_client(struct perf *p)
{
	const uint64_t dur = (uint64_t)(p->duration * p->tsc_hz);
	uint64_t target = p->duration > 0 ? UINT64_MAX : p->iters;
	uint64_t start, last;
	struct bw_peak pk = { .min_msgs = p->cq_mod, .min_cycles = p->tsc_hz / 1000000 * PEAK_MIN_US };
	struct dr_wc wc[BW_BURST];

	start = last = pk.mark = rte_rdtsc();
	for (;;) {
		bool all_done = true;
		uint64_t msgs = 0, now;
		int n;

		for (unsigned int i = 0; i < p->nb_qps; i++) {
			struct perf_qp *q = &p->qps[i];

			while (q->posted < target && q->posted - q->completed < p->window)
				if (bw_post(p, q) != PERF_OK)
					return PERF_FAIL;
			if (q->completed < target)
				all_done = false;
		}
		if (all_done)
			break;
		n = dr_poll_cq(p->send_cq, BW_BURST, wc);
		if (n < 0)
			return perf_api_err("dr_poll_cq", -n);
		if (n == 0)
			perf_idle(p);
		for (int i = 0; i < n; i++) {
			int64_t c = bw_complete(p, &wc[i]);

			if (c < 0)
				return PERF_FAIL;
			msgs += (uint64_t)c;
		}
		now = rte_rdtsc();
		if (msgs > 0) {
			last = now;
			peak_add(&pk, now, msgs, p->size);
		}
		if (target == UINT64_MAX && now - start >= dur) {
			/* stop every QP at one count, a multiple of cq_mod: its last WR is signaled */
			uint64_t m = 0;

			for (unsigned int i = 0; i < p->nb_qps; i++)
				m = RTE_MAX(m, p->qps[i].posted);
			target = (m + p->cq_mod - 1) / p->cq_mod * p->cq_mod;
		}
		if (perf_oob_poll(p, false) != PERF_OK)
			return PERF_FAIL;
	}
	p->res.iters = target;
	perf_bw_result(p, target * p->nb_qps, last - start, pk.best);
	return PERF_OK;
}

/*
 * UC, UD: after the client's DONE (it has sent everything), what has not
 * come within this long is lost; the wait starts again at each arrival.
 */
#define UNREL_QUIET_MS 100

static inline uint64_t
unrel_quiet(const struct perf *p)
{
	return p->tsc_hz / 1000 * UNREL_QUIET_MS;
}

static bool
all_received(const struct perf *p, uint64_t total)
{
	if (perf_unreliable(p))         /* only the sender knows how many it sent */
		return p->peer_done_seen && perf_unrel_unique(p) >= p->peer_done.iters * p->nb_qps;
	if (p->peer_done_seen)
		return total >= p->peer_done.iters * p->nb_qps;
	if (p->duration > 0)
		return false;
	for (unsigned int i = 0; i < p->nb_qps; i++)
		if (p->qps[i].received < p->iters)
			return false;
	return true;
}

static int
bw_recv_server(struct perf *p)
{
	struct bw_peak pk = { .min_msgs = RTE_MIN(p->o->cq_mod, p->rq_depth),
			      .min_cycles = p->tsc_hz / 1000000 * PEAK_MIN_US };
	struct dr_wc wc[BW_BURST];
	uint64_t start, last, total = 0, quiet = unrel_quiet(p);

	start = last = pk.mark = rte_rdtsc();
	while (!all_received(p, total)) {
		int n;

		if (perf_unreliable(p) && p->peer_done_seen &&
		    rte_rdtsc() - RTE_MAX(last, p->peer_done_tsc) > quiet)
			break;                  /* the rest was lost */
		n = dr_poll_cq(p->recv_cq, BW_BURST, wc);

		if (n < 0)
			return perf_api_err("dr_poll_cq", -n);
		if (n == 0)
			perf_idle(p);
		for (int i = 0; i < n; i++)
			if (perf_recv_complete(p, &wc[i]) != PERF_OK)
				return PERF_FAIL;
		if (n > 0) {
			last = rte_rdtsc();
			total += (uint64_t)n;
			peak_add(&pk, last, (uint64_t)n, p->size);
		}
		if (perf_oob_poll(p, false) != PERF_OK)
			return PERF_FAIL;
	}
	p->res.iters = total / p->nb_qps;
	if (perf_unreliable(p)) {
		/* the row says what was sent, as the client's; lost is said below the table */
		p->res.iters = p->peer_done.iters;
		p->res.lost = perf_unrel_lost(p, p->peer_done.iters);
	}
	perf_bw_result(p, total, last - start, pk.best);
	return PERF_OK;
}

/* write_bw's server: the last message the client wrote to each slot. */
static void
verify_writes(struct perf *p, uint64_t n)
{
	for (unsigned int qi = 0; qi < p->nb_qps; qi++) {
		struct perf_qp *q = &p->qps[qi];
		const uint64_t r = q->rx_slots;

		for (uint64_t s = 0; s < RTE_MIN(n, r); s++) {
			uint64_t i = s + r * ((n - 1 - s) / r);
			unsigned int want, got;
			size_t off = perf_check_verify(q->rx + s * p->slot_size, p->size,
						       perf_seed(p, false, qi, i), &want, &got);

			if (off != SIZE_MAX)
				perf_note_bad(p, qi, i, off, want, got);
			p->res.verified += p->size;
		}
	}
}

/*
 * write_bw's server, --check: the data written (verify_writes(); UC: each
 * slot whole or untouched). @return UC messages not whole (lost or cut).
 */
static uint64_t
check_written(struct perf *p, uint64_t n)
{
	if (!p->check || p->test->verb != PERF_WRITE)
		return 0;
	if (perf_unreliable(p))
		return perf_unrel_verify_writes(p, n);
	verify_writes(p, n);
	return 0;
}

/* UC write_bw: the client's WRITEs complete as they leave; let the last ones land first. */
static int
let_land(struct perf *p)
{
	uint64_t end = rte_rdtsc() + unrel_quiet(p);

	while (rte_rdtsc() < end)
		if (perf_progress(p) != PERF_OK)
			return PERF_FAIL;
	return PERF_OK;
}

static int
bw_passive_server(struct perf *p)
{
	if (perf_wait_peer_done(p) != PERF_OK)
		return PERF_FAIL;
	if (perf_unreliable(p) && let_land(p) != PERF_OK)
		return PERF_FAIL;
	p->res.iters = p->peer_done.iters;
	p->res.lost = check_written(p, p->peer_done.iters);
	if (p->check && p->test->verb == PERF_ATOMIC)
		perf_atomic_verify_words(p, p->peer_done.iters);
	return PERF_OK;
}

int
perf_run_bw(struct perf *p)
{
	if (!p->server)
		return bw_client(p);
	if (!perf_uses_recv(p))
		return bw_passive_server(p);
	if (bw_recv_server(p) != PERF_OK)
		return PERF_FAIL;
	/* RDMA_WRITE_WITH_IMM: the receives came (their immediates checked, UC's losses counted);
	 * now the data */
	(void)check_written(p, p->res.iters);
	return PERF_OK;
}
