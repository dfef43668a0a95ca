/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The forwarding loop: per direction, held frames whose time came, a burst
 * from the input port through the impairments (loss, duplication,
 * corruption, reordering; delay, jitter and rate as the due time in the
 * output queue), and the frames now due out of the other port. Nothing here
 * allocates except the mbuf copy of a duplicate, nothing locks, nothing
 * makes a system call unless a whole pass found nothing to do and
 * --idle-us allows a sleep.
 */

#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ecn.h"
#include "faultlink.h"

/* Flip bit @bit (0: the most significant bit of byte 0) of a possibly chained frame. */
static void
flip_bit(struct rte_mbuf *m, uint32_t bit)
{
	uint32_t off = bit / 8;

	for (struct rte_mbuf *s = m; s != NULL; s = s->next) {
		if (off < s->data_len) {
			rte_pktmbuf_mtod(s, uint8_t *)[off] ^= (uint8_t)(0x80u >> (bit % 8));
			return;
		}
		off -= s->data_len;
	}
}

/* What the output port can take: a chain only where the PMD sends chains
 * (af_xdp copies the first segment only), a frame no larger than it sends. */
static bool
fits_output(const struct fl_dir *d, struct rte_mbuf *m)
{
	/* --switch: the output is the port the switch chose, in m->port */
	const struct fl_port *out = d->out != NULL ? d->out : d->by_id[m->port];

	if (m->nb_segs > 1 && !out->multiseg_tx && rte_pktmbuf_linearize(m) != 0)
		return false;
	return out->max_tx_frame == 0 || m->pkt_len <= out->max_tx_frame;
}

/* RED/ECN at the queue's admission (ecn.h): CE in an ECN-capable frame, counted either way */
static void
ecn_mark(struct fl_dir *d, struct rte_mbuf *m)
{
	if (fl_ecn_mark(rte_pktmbuf_mtod(m, uint8_t *), m->data_len) == FL_ECN_NOT_ECT)
		FL_ADD(&d->c, ecn_not_ect, 1);
	else
		FL_ADD(&d->c, ecn_marked, 1);
}

/*
 * Into the output queue at @now: an impaired frame with its delay and
 * serialisation time and RED/ECN marking, a frame --roce-only spares with
 * none (it still waits behind the frames ahead of it). The backlog it
 * finds is recorded, whether it gets in or not. Counted and freed when it
 * cannot go.
 */
static void
admit(struct fl_dir *d, struct rte_mbuf *m, uint64_t now, bool impaired)
{
	uint64_t backlog;

	if (!fits_output(d, m)) {
		FL_ADD(&d->c, too_big, 1);
		rte_pktmbuf_free(m);
		return;
	}
	backlog = fl_tq_bytes(&d->q);
	fl_hist_add(&d->backlog, backlog);
	if (fl_tq_full(&d->q)) {
		FL_ADD(&d->c, queue_drop, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (impaired && fl_impair_ecn(&d->im, backlog))
		ecn_mark(d, m);
	(void)fl_tq_push(&d->q, m, m->pkt_len, now, impaired ? fl_impair_delay(&d->im) : 0,
			 impaired ? fl_impair_tx_cycles(&d->im, m->pkt_len) : 0);
}

static inline void
enqueue(struct fl_dir *d, struct rte_mbuf *m, uint64_t now)
{
	admit(d, m, now, true);
}

/* Held frames whose time came (count or deadline), into the queue in the order held. */
unsigned int
fl_dir_release_held(struct fl_dir *d, uint64_t now)
{
	void *out[FL_MAX_BURST];
	unsigned int n, total = 0;

	while (d->hold.n > 0 && (n = fl_hold_release(&d->hold, now, out, RTE_DIM(out))) > 0) {
		for (unsigned int i = 0; i < n; i++)
			enqueue(d, out[i], now);
		total += n;
	}
	return total;
}

/* One copy of a received frame: corrupt it or not, hold it back or queue it. */
static void
one_copy(struct fl_dir *d, struct rte_mbuf *m, uint64_t now)
{
	uint32_t bits[FL_MAX_CORRUPT_BITS];
	unsigned int nb = fl_impair_corrupt(&d->im, m->pkt_len, bits);

	if (nb > 0) {
		for (unsigned int i = 0; i < nb; i++)
			flip_bit(m, bits[i]);
		FL_ADD(&d->c, corrupted, 1);
	}
	if (fl_impair_reorder(&d->im)) {
		uint64_t deadline = d->im.reorder_cyc != 0 ? now + d->im.reorder_cyc : UINT64_MAX;

		if (fl_hold_put(&d->hold, m, d->im.reorder_frames, deadline)) {
			FL_ADD(&d->c, reordered, 1);
			return;
		}
		FL_ADD(&d->c, hold_full, 1);
	}
	enqueue(d, m, now);
	if (d->hold.n > 0) {
		/* it went ahead of what is held: a count may have run out */
		fl_hold_passed(&d->hold);
		fl_dir_release_held(d, now);
	}
}

void
fl_dir_ingress(struct fl_dir *d, struct rte_mbuf *m, uint64_t now)
{
	struct rte_mbuf *dup = NULL;

	FL_ADD(&d->c, rx, 1);
	FL_ADD(&d->c, rx_bytes, m->pkt_len);
	if (d->roce_only && !fl_frame_is_roce(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len)) {
		FL_ADD(&d->c, passed, 1);
		admit(d, m, now, false);
		return;
	}
	if (fl_impair_lose(&d->im)) {
		FL_ADD(&d->c, lost, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (fl_impair_duplicate(&d->im)) {
		dup = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		if (dup == NULL)
			FL_ADD(&d->c, nombuf, 1);
		else
			FL_ADD(&d->c, duplicated, 1);
	}
	one_copy(d, m, now);
	if (dup != NULL)
		one_copy(d, dup, now);
}

/* One pass over a direction; the number of frames it moved. */
static unsigned int
poll_dir(struct fl_dir *d, uint64_t now)
{
	struct rte_mbuf *pkts[FL_MAX_BURST];
	uint32_t len[FL_MAX_BURST];
	unsigned int n, sent, work = 0;
	uint64_t bytes = 0;

	if (d->hold.n > 0)
		work += fl_dir_release_held(d, now);
	n = rte_eth_rx_burst(d->in->id, 0, pkts, (uint16_t)d->burst);
	for (unsigned int i = 0; i < n; i++)
		fl_dir_ingress(d, pkts[i], now);
	work += n;
	n = fl_tq_pop_due(&d->q, now, (void **)pkts, d->burst);
	if (n == 0)
		return work;
	/* the lengths before the burst: the PMD may free what it took at once (memif does) */
	for (unsigned int i = 0; i < n; i++)
		len[i] = pkts[i]->pkt_len;
	sent = rte_eth_tx_burst(d->out->id, 0, pkts, (uint16_t)n);
	for (unsigned int i = 0; i < sent; i++)
		bytes += len[i];
	FL_ADD(&d->c, tx_bytes, bytes);
	FL_ADD(&d->c, tx, sent);
	if (sent < n)
		fl_tq_unpop(&d->q, n - sent);   /* the port is full: they wait at the head */
	return work + sent;
}

uint64_t
fl_dir_next_event(const struct fl_dir *d)
{
	uint64_t a = fl_tq_next_due(&d->q), b = fl_hold_next_deadline(&d->hold);

	return a < b ? a : b;
}

void
fl_forward(struct fl_dir **dirs, unsigned int n, uint32_t idle_us, uint64_t end_tsc)
{
	uint64_t hz = rte_get_tsc_hz(), now, next;
	unsigned int work;

	while (!fl_stop) {
		now = rte_rdtsc();
		if (end_tsc != 0 && now >= end_tsc)
			break;
		work = 0;
		next = UINT64_MAX;
		if (!fl_gate_enter())   /* EAL's interrupt thread parked: memif's rings stay mapped */
			break;
		for (unsigned int i = 0; i < n; i++) {
			fl_dir_take_change(dirs[i]);
			work += poll_dir(dirs[i], now);
			next = RTE_MIN(next, fl_dir_next_event(dirs[i]));
		}
		fl_gate_leave();
		fl_gate_tick(now);
		if (work != 0 || idle_us == 0)
			continue;
		fl_idle_wait(idle_us, next, now, hz);
	}
}

void
fl_idle_wait(uint32_t idle_us, uint64_t next, uint64_t now, uint64_t hz)
{
	uint64_t wait_us = idle_us;

	/* idle: yield the CPU (it may be shared), but not past the next due frame */
	if (next != UINT64_MAX)
		wait_us = next <= now ? 0 : RTE_MIN(wait_us, (next - now) * 1000000u / hz);
	if (wait_us > 0) {
		struct timespec ts = { .tv_sec = (time_t)(wait_us / 1000000u),
				       .tv_nsec = (long)(wait_us % 1000000u) * 1000 };

		nanosleep(&ts, NULL);
	}
}

void
fl_dir_drain(struct fl_dir *d)
{
	void *out[FL_HOLD_MAX];
	struct rte_mbuf *m;
	unsigned int n;

	n = fl_hold_release(&d->hold, UINT64_MAX, out, RTE_DIM(out));
	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free(out[i]);
	FL_ADD(&d->c, left, n);
	while ((m = fl_tq_drain_one(&d->q)) != NULL) {
		rte_pktmbuf_free(m);
		FL_ADD(&d->c, left, 1);
	}
}
