/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * RC recovery of READs and the local ACK timer (IBA 9.7.5.2.x, 9.7.6.1.3):
 * a lost READ response asked again from its first missing byte only, READ
 * responses kept ahead of an older request, a long READ reply that goes on
 * arriving after a loss (every response re-arms the timer, as rxe's
 * completer does), and a timeout that comes before the last go-back-N went
 * out (no retry spent). Every byte checked, completions exactly once.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "dr_transport.h"
#include "test_rc.h"

/*
 * Eight READs in flight, one response of the first lost: only that READ is
 * asked again, from its first missing byte (one more READ request on the
 * wire, its PSN the lost response's), the responses of the seven others are
 * kept as they come; every byte right, completions in order.
 */
static void
test_read_reread(struct rc_env *e)
{
	enum { NREAD = 8, RLEN = 4 * 1024 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_wcs sw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf la, rb;
	uint32_t reqs = 0, lost_psn = 0, reread_psn = 0, i;

	rc_params_default(&p);
	p.max_rd_atomic = p.max_dest_rd_atomic = NREAD;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, NREAD * RLEN, acc) != 0 ||
	    rc_buf_alloc(b, &rb, NREAD * RLEN, acc) != 0) {
		RC_CHECK_MSG(0, "reread setup");
		return;
	}
	rc_fill(rb.p, NREAD * RLEN, 77);
	memset(la.p, 0, NREAD * RLEN);
	/* the second response of the first READ (MTU 1024: four per READ) */
	rc_rule_add(e, RC_B2A, -1, 1, 0, 1, RC_DROP);
	e->logging = true;
	for (i = 0; i < NREAD; i++) {
		struct dr_sge sge = { (uint64_t)(uintptr_t)(la.p + i * RLEN), RLEN, la.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, i, DR_WR_RDMA_READ, &sge, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)(rb.p + i * RLEN), rb.mr->rkey, 0), 0);
	}
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, NREAD, 3000000));
	for (i = 0; i < sw.n; i++)
		RC_CHECK(sw.wc[i].wr_id == i && sw.wc[i].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(la.p, rb.p, NREAD * RLEN) == 0);
	for (i = 0; i < e->nlog; i++) {
		if (e->log[i].dir == RC_A2B && e->log[i].opcode == DR_OPCODE(RC, READ_REQ)) {
			reqs++;
			reread_psn = e->log[i].psn;
		}
		if (e->log[i].dir == RC_B2A && e->log[i].action == RC_DROP)
			lost_psn = e->log[i].psn;
	}
	/* (rtc, pipeline: engine lcores share a CPU here; a local ACK timeout may add a retry) */
	RC_CHECK_MSG(reqs == NREAD + 1 || (strcmp(rc_mode_name(), "inline") != 0 && reqs <= NREAD + 3),
		     "%u READ requests for %u READs and one lost response", reqs, NREAD);
	if (getenv("DR_TEST_WIRELOG") != NULL)
		rc_wirelog_print(e, UINT32_MAX);
	RC_CHECK_EQ(reread_psn, lost_psn);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

/*
 * A READ answered in full ahead of an older atomic whose ACK was lost
 * (comp_read_ahead()), then replayed by the go-back-N retry: a replayed
 * response of that READ that also acknowledges the SEND before it
 * (implicitly, its PSN is later) is a duplicate for the READ and must be
 * dropped, not matched against the WQE after the READ (which made it a
 * "bad response error"). Found by the random mix in rtc mode.
 */
static void
test_read_ahead_dup(struct rc_env *e)
{
	/* longer than a responder round (DR_RESP_PKTS_PER_ROUND): its last responses come a round later */
	enum { RLEN = (DR_MAX_PKTS_PER_QP_ROUND + 2) * 1024 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			DR_ACCESS_REMOTE_ATOMIC;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf la, rb;
	struct dr_sge s8, s64, srd, r64;
	uint64_t v;
	unsigned int i;

	rc_params_default(&p);
	p.mtu = DR_MTU_1024;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, 4096 + RLEN, acc) != 0 ||
	    rc_buf_alloc(b, &rb, 4096 + RLEN, acc) != 0) {
		RC_CHECK_MSG(0, "read-ahead dup setup");
		return;
	}
	rc_fill(rb.p + 4096, RLEN, 31);
	v = 100;
	memcpy(rb.p, &v, 8);
	s8 = (struct dr_sge){ (uint64_t)(uintptr_t)la.p, 8, la.mr->lkey };
	s64 = (struct dr_sge){ (uint64_t)(uintptr_t)(la.p + 64), 64, la.mr->lkey };
	srd = (struct dr_sge){ (uint64_t)(uintptr_t)(la.p + 4096), RLEN, la.mr->lkey };
	for (i = 0; i < 2; i++) {
		r64 = (struct dr_sge){ (uint64_t)(uintptr_t)(rb.p + 1024 + 128 * i), 128, rb.mr->lkey };
		RC_CHECK_EQ(rc_post_recv(b, 10 + i, &r64, 1), 0);
	}
	/*
	 * The atomic's first ACK and the first plain ACKs are lost: the READ's
	 * responses come first (placed ahead; the atomic is retried, the READ
	 * asked again), its last ones a round later, then the atomic's ACK and
	 * the replayed READ responses, the SEND before the READ unacknowledged.
	 */
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ATOMIC_ACK), 0, 0, 1, RC_DROP);
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ACK), 0, 0, 3, RC_DROP);
	e->logging = true;
	RC_CHECK_EQ(rc_post_send(a, 0, DR_WR_ATOMIC_FETCH_AND_ADD, &s8, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)rb.p, rb.mr->rkey, 0), 0);
	RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_SEND, &s64, 1, DR_SEND_SIGNALED, 0, 0, 0), 0);
	RC_CHECK_EQ(rc_post_send(a, 2, DR_WR_RDMA_READ, &srd, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)(rb.p + 4096), rb.mr->rkey, 0), 0);
	RC_CHECK_EQ(rc_post_send(a, 3, DR_WR_SEND, &s64, 1, DR_SEND_SIGNALED, 0, 0, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 4, 5000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 2, 2000000));
	for (i = 0; i < sw.n; i++)
		RC_CHECK_MSG(sw.wc[i].wr_id == i && sw.wc[i].status == DR_WC_SUCCESS, "read-ahead dup: wr %u: %s", i,
			     dr_wc_status_str(sw.wc[i].status));
	RC_CHECK(memcmp(la.p + 4096, rb.p + 4096, RLEN) == 0);
	memcpy(&v, la.p, 8);
	RC_CHECK_EQ(v, 100);
	memcpy(&v, rb.p, 8);
	RC_CHECK_EQ(v, 101);            /* added once */
	if (getenv("DR_TEST_WIRELOG") != NULL)
		rc_wirelog_print(e, UINT32_MAX);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

/*
 * A READ re-requested whole by a retry, whose first original response then
 * comes late, ahead of the older atomic's ACK: placed ahead. The SEND
 * between them is acknowledged only implicitly, by the replayed first
 * response, which must then be taken as the duplicate it is (the READ's
 * next response PSN is past it), not placed again at the next offset
 * (which wrote wrong bytes). Found by the random mix in rtc mode.
 */
static void
test_read_ahead_replay(struct rc_env *e)
{
	enum { RLEN = 3 * 1024 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_READ |
			DR_ACCESS_REMOTE_ATOMIC;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf la, rb;
	struct dr_sge s8, s64, srd, r64;
	uint64_t v;
	unsigned int i;

	rc_params_default(&p);
	p.mtu = DR_MTU_1024;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, 8192, acc) != 0 || rc_buf_alloc(b, &rb, 8192, acc) != 0) {
		RC_CHECK_MSG(0, "read-ahead replay setup");
		return;
	}
	rc_fill(rb.p + 4096, RLEN, 57);
	memset(la.p, 0, 8192);
	v = 7;
	memcpy(rb.p, &v, 8);
	s8 = (struct dr_sge){ (uint64_t)(uintptr_t)la.p, 8, la.mr->lkey };
	s64 = (struct dr_sge){ (uint64_t)(uintptr_t)(la.p + 64), 64, la.mr->lkey };
	srd = (struct dr_sge){ (uint64_t)(uintptr_t)(la.p + 4096), RLEN, la.mr->lkey };
	r64 = (struct dr_sge){ (uint64_t)(uintptr_t)(rb.p + 1024), 128, rb.mr->lkey };
	RC_CHECK_EQ(rc_post_recv(b, 10, &r64, 1), 0);
	/* the atomic's first ACK and the plain ACKs lost; the READ's first response a round late */
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ATOMIC_ACK), 0, 0, 1, RC_DROP);
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, ACK), 0, 0, 3, RC_DROP);
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, READ_RESP_FIRST), 0, 0, 1, RC_DELAY);
	e->logging = true;
	RC_CHECK_EQ(rc_post_send(a, 0, DR_WR_ATOMIC_FETCH_AND_ADD, &s8, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)rb.p, rb.mr->rkey, 0), 0);
	RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_SEND, &s64, 1, DR_SEND_SIGNALED, 0, 0, 0), 0);
	RC_CHECK_EQ(rc_post_send(a, 2, DR_WR_RDMA_READ, &srd, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)(rb.p + 4096), rb.mr->rkey, 0), 0);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 3, 5000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 2000000));
	for (i = 0; i < sw.n; i++)
		RC_CHECK_MSG(sw.wc[i].wr_id == i && sw.wc[i].status == DR_WC_SUCCESS, "read-ahead replay: wr %u: %s",
			     i, dr_wc_status_str(sw.wc[i].status));
	RC_CHECK_MSG(memcmp(la.p + 4096, rb.p + 4096, RLEN) == 0, "read-ahead replay: the READ's data");
	memcpy(&v, rb.p, 8);
	RC_CHECK_EQ(v, 8);              /* added once */
	if (getenv("DR_TEST_WIRELOG") != NULL)
		rc_wirelog_print(e, UINT32_MAX);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_disconnect(e);
}


/*
 * A 1 MiB READ reply (1024 responses at MTU 1024) loses its third response;
 * the requester asks again at once, but the responder does not answer the
 * re-asks while it streams (the wire drops them, as rxe, which serves one
 * request at a time, would answer only after its multi-megabyte reply).
 * Every response that arrives starts the local ACK timer again (rxe's
 * completer re-arms it whenever it ran, COMPST_EXIT): while the stream
 * lasts, many timeouts long, no timeout and no retry; once it ends the timer
 * asks again and the READ completes with retry_cnt 2. Before, each timeout
 * spent a retry: ib_read_lat of 4 to 8 MB against rxe ended in "transport
 * retry counter exceeded". Inline the stream is paced by the test's rounds
 * (64 responses each, 0.6 timeouts apart); with engine lcores it may come
 * at once, so only the outcome is checked there.
 */
static void
test_read_stream_keeps_timer(struct rc_env *e)
{
	enum { RLEN = 1 << 20, TIMEOUT = 8, ROUND_US = 630 };   /* 4.096 us << 8 = 1.05 ms */
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct dr_qp_impl *qa, *qb;
	struct rc_wcs sw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf la, rb;
	struct dr_sge sge;
	uint64_t end, timeouts;
	unsigned int rounds = 0;
	bool inline_mode = strcmp(rc_mode_name(), "inline") == 0;

	rc_params_default(&p);
	p.timeout = inline_mode ? TIMEOUT : 12;     /* engine lcores share 2 CPUs: no 1 ms timer there */
	p.retry_cnt = 2;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, RLEN, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &rb, RLEN, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ) != 0) {
		RC_CHECK_MSG(0, "read stream setup");
		return;
	}
	qa = dr_qp_impl(a->qp);
	qb = dr_qp_impl(b->qp);
	rc_fill(rb.p, RLEN, 91);
	memset(la.p, 0, RLEN);
	rc_rule_add(e, RC_B2A, DR_OPCODE(RC, READ_RESP_MIDDLE), 1, 0, 1, RC_DROP);
	rc_rule_add(e, RC_A2B, DR_OPCODE(RC, READ_REQ), 1, 0, 0, RC_DROP);
	sge = (struct dr_sge){ (uint64_t)(uintptr_t)la.p, RLEN, la.mr->lkey };
	RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_RDMA_READ, &sge, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)rb.p, rb.mr->rkey, 0), 0);
	/* the stream: rounds a little over half a timeout apart until the responder has sent it all */
	end = rte_get_timer_cycles() + 5 * rte_get_timer_hz();
	do {
		rc_round(e);
		rc_sleep_us(ROUND_US);
		rounds++;
	} while (__atomic_load_n(&qb->resp.res_active, __ATOMIC_ACQUIRE) >= 0 &&
		 rte_get_timer_cycles() < end);
	rc_round(e);                       /* what the last round left on the wire */
	timeouts = rc_counter(&qa->cnt.ack_timeouts);
	if (inline_mode) {
		RC_CHECK_MSG(rounds >= 8, "the stream took %u rounds (want several timeouts)", rounds);
		RC_CHECK_MSG(timeouts == 0, "%" PRIu64 " local ACK timeouts while responses kept coming "
			     "(%u rounds of %u us, timeout 1.05 ms)", timeouts, rounds, ROUND_US);
		RC_CHECK_EQ(rc_counter(&qa->cnt.rereads), 1);
	}
	/* the stream is over: the re-asks get through, the timer asks once more */
	rc_rules_clear(e);
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 5000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].wr_id == 1 && sw.wc[0].status == DR_WC_SUCCESS);
	if (sw.n == 1 && sw.wc[0].status != DR_WC_SUCCESS)
		printf("read stream: %s after %" PRIu64 " timeouts\n", dr_wc_status_str(sw.wc[0].status),
		       rc_counter(&qa->cnt.ack_timeouts));
	RC_CHECK(memcmp(la.p, rb.p, RLEN) == 0);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

/*
 * IBA 9.7.6.1.3: the local ACK timer measures the wait for an answer to what
 * was sent. A timeout that comes while the go-back-N the last one asked for
 * has not gone out yet (the requester's lcore had no turn: pipeline mode on
 * a busy machine) spends no retry; the timer runs again. Played inline: the
 * test runs the completer's timer by hand between rounds, the requester not
 * at all; with retry_cnt 1 the second timeout would otherwise end the QP.
 */
static void
test_timeout_before_retransmission(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_wcs sw = { .n = 0 };
	struct rc_qp_params p;
	struct rc_buf la, rb;
	struct dr_qp_impl *qa;
	struct dr_sge sge;
	uint64_t t, later;

	if (strcmp(rc_mode_name(), "inline") != 0) {
		printf("test_timeout_before_retransmission: skipped in %s mode (the test plays the "
		       "completer's timer on its own thread)\n", rc_mode_name());
		return;
	}
	rc_params_default(&p);
	p.timeout = 8;
	p.retry_cnt = 1;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, 512, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &rb, 512, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
		RC_CHECK_MSG(0, "timeout setup");
		return;
	}
	qa = dr_qp_impl(a->qp);
	rc_fill(la.p, 512, 5);
	memset(rb.p, 0, 512);
	rc_rule_add(e, RC_A2B, -1, 0, 0, 1, RC_DROP);
	sge = (struct dr_sge){ (uint64_t)(uintptr_t)la.p, 512, la.mr->lkey };
	RC_CHECK_EQ(rc_post_send(a, 7, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)rb.p, rb.mr->rkey, 0), 0);
	rc_round(e);                        /* sent, lost */
	dr_comp_timers(qa, rte_rdtsc());    /* the ACK timer runs (IBA 9.7.6.1.3) */
	RC_CHECK(qa->comp.timeout_at != 0);
	t = qa->comp.timeout_at;
	dr_comp_timers(qa, t + 1);          /* the timeout: a retry, a go-back-N asked for */
	RC_CHECK_EQ(qa->cnt.ack_timeouts, 1);
	RC_CHECK_EQ(qa->comp.retry_left, 0);
	later = qa->comp.timeout_at + 1;
	dr_comp_timers(qa, later);          /* again, the requester has not run: not a failed retry */
	RC_CHECK_EQ(qa->cnt.ack_timeouts, 1);
	RC_CHECK(dr_qp_can_send(qa));
	RC_CHECK(qa->comp.timeout_at > later);
	/* the requester runs, resends, the ACK comes */
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 3000000));
	RC_CHECK(sw.n == 1 && sw.wc[0].wr_id == 7 && sw.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(la.p, rb.p, 512) == 0);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_disconnect(e);
}

/*
 * A stream of FETCH_ADDs, max_rd_atomic deep, through random loss,
 * duplication and reordering both ways (dpdk-rdma-perf atomic_bw through
 * dpdk-rdma-faultlink found it: "transport retry counter exceeded"). Every
 * atomic completes once, in order, with its original value, and the word
 * ends at the sum.
 */
static void
test_atomic_stream(struct rc_env *e, uint32_t n_atomics, uint32_t every, uint32_t seed)
{
	enum { WINDOW = 64 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf res, ctr;
	struct rc_wcs sw = { .n = 0 };
	uint32_t posted = 0, done = 0, fails = 0;
	uint64_t deadline, sum = 0;
	struct rc_rule *r;
	char tag[64];

	snprintf(tag, sizeof(tag), "atomic stream, 1/%u lost, seed %u", every, seed);
	rc_params_default(&p);
	p.max_rd_atomic = p.max_dest_rd_atomic = 16;
	p.max_wr = WINDOW;
	p.sq_sig_all = 1;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &res, WINDOW * 8, DR_ACCESS_LOCAL_WRITE) != 0 ||
	    rc_buf_alloc(b, &ctr, 8, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_ATOMIC) != 0) {
		RC_CHECK_MSG(0, "%s: setup", tag);
		return;
	}
	memset(ctr.p, 0, 8);
	for (int k = 0; k < 2; k++) {
		r = rc_rule_add(e, k, -1, 0, every, 0, RC_DROP);
		r->random = true;
		r->seed = seed * 7 + (uint32_t)k;
		r = rc_rule_add(e, k, -1, 0, 10 * every, 0, RC_DUP);
		r->random = true;
		r->seed = seed * 11 + (uint32_t)k;
		r = rc_rule_add(e, k, -1, 0, 2 * every, 0, RC_SWAP);
		r->random = true;
		r->seed = seed * 13 + (uint32_t)k;
	}
	/*
	 * A hang is a stream that stops: 30 s without a completion. Not a bound
	 * on the whole stream, whose time is the machine's (beside other work
	 * the pipeline's lcores may get little of a CPU, and each loss waits
	 * for a timer).
	 */
	deadline = rte_rdtsc() + rte_get_tsc_hz() * 30;
	while (done < n_atomics && rte_rdtsc() < deadline) {
		while (posted < n_atomics && posted - done < WINDOW) {
			struct dr_sge s = { (uint64_t)(uintptr_t)(res.p + (posted % WINDOW) * 8), 8, res.mr->lkey };
			struct dr_send_wr wr = { .wr_id = posted, .sg_list = &s, .num_sge = 1,
						 .opcode = DR_WR_ATOMIC_FETCH_AND_ADD,
						 .send_flags = DR_SEND_SIGNALED }, *bad;

			wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)ctr.p;
			wr.wr.atomic.rkey = ctr.mr->rkey;
			wr.wr.atomic.compare_add = 1;
			if (dr_post_send(a->qp, &wr, &bad) != 0)
				break;
			posted++;
		}
		rc_round(e);
		sw.n = 0;
		rc_poll(a->scq, &sw);
		for (unsigned int i = 0; i < sw.n; i++) {
			if (sw.wc[i].status != DR_WC_SUCCESS || sw.wc[i].wr_id != done) {
				if (fails++ == 0)
					RC_CHECK_MSG(0, "%s: completion %u: wr_id %" PRIu64 " %s", tag, done,
						     sw.wc[i].wr_id, dr_wc_status_str(sw.wc[i].status));
				done = n_atomics;
				break;
			}
			done++;
			deadline = rte_rdtsc() + rte_get_tsc_hz() * 30;
		}
	}
	RC_CHECK_MSG(done == n_atomics && fails == 0, "%s: %u of %u completed, then none for 30 s", tag, done,
		     n_atomics);
	memcpy(&sum, ctr.p, 8);
	RC_CHECK_MSG(fails != 0 || sum == n_atomics, "%s: the word is %" PRIu64 ", want %u", tag, sum,
		     n_atomics);
	rc_rules_clear(e);
	rc_buf_free(&res);
	rc_buf_free(&ctr);
	rc_disconnect(e);
}

/*
 * A duplicate READ request makes the responder replay that READ from its
 * resource (IBA 9.7.5.1.3). With one resource (max_dest_rd_atomic 1) the
 * next READ, sent once the first completed at the requester (initiator
 * depth 1), takes the resource the replay is using: the replay is stale and
 * must end there. Left active, the new READ's reply went out twice, the
 * second time as one zero-length LAST response at the PSN after it - the
 * SEND behind it - which the requester took for a bad response. Found by
 * the random mix with selective repeat in rtc and pipeline mode, where
 * resends and probes make duplicate requests common.
 */
static void
test_replay_yields_resource(struct rc_env *e)
{
	enum { ALEN = 64 * 1024, BLEN = 3000, CLEN = 2000 };
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	const int acc = DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_READ;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rc_buf la, rb, sb, rcv;
	struct rc_qp_params p;
	unsigned int empty_last = 0;
	uint32_t i;

	rc_params_default(&p);
	p.max_rd_atomic = p.max_dest_rd_atomic = 1;
	if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &la, ALEN + BLEN, acc) != 0 ||
	    rc_buf_alloc(b, &rb, ALEN + BLEN, acc) != 0 || rc_buf_alloc(a, &sb, CLEN, acc) != 0 ||
	    rc_buf_alloc(b, &rcv, CLEN, acc) != 0) {
		RC_CHECK_MSG(0, "replay setup");
		return;
	}
	rc_fill(rb.p, ALEN + BLEN, 31);
	rc_fill(sb.p, CLEN, 32);
	memset(la.p, 0, ALEN + BLEN);
	{
		struct dr_sge r = { (uint64_t)(uintptr_t)rcv.p, CLEN, rcv.mr->lkey };

		RC_CHECK_EQ(rc_post_recv(b, 7, &r, 1), 0);
	}
	/* the first READ's request arrives twice: the second copy is replayed after the first reply */
	rc_rule_add(e, RC_A2B, DR_OPCODE(RC, READ_REQ), 0, 0, 1, RC_DUP);
	e->logging = true;
	{
		struct dr_sge ra = { (uint64_t)(uintptr_t)la.p, ALEN, la.mr->lkey };
		struct dr_sge rbs = { (uint64_t)(uintptr_t)(la.p + ALEN), BLEN, la.mr->lkey };
		struct dr_sge sc = { (uint64_t)(uintptr_t)sb.p, CLEN, sb.mr->lkey };

		RC_CHECK_EQ(rc_post_send(a, 0, DR_WR_RDMA_READ, &ra, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)rb.p, rb.mr->rkey, 0), 0);
		RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_RDMA_READ, &rbs, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)(rb.p + ALEN), rb.mr->rkey, 0), 0);
		RC_CHECK_EQ(rc_post_send(a, 2, DR_WR_SEND, &sc, 1, DR_SEND_SIGNALED, 0, 0, 0), 0);
	}
	RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 3, 3000000));
	RC_CHECK(rc_wait_wcs(e, b->rcq, &rw, 1, 3000000));
	for (i = 0; i < sw.n; i++)
		RC_CHECK_MSG(sw.wc[i].wr_id == i && sw.wc[i].status == DR_WC_SUCCESS, "wr %u: %s", i,
			     dr_wc_status_str(sw.wc[i].status));
	RC_CHECK(memcmp(la.p, rb.p, ALEN + BLEN) == 0);
	RC_CHECK(memcmp(rcv.p, sb.p, CLEN) == 0);
	for (i = 0; i < e->nlog; i++)
		empty_last += e->log[i].dir == RC_B2A && e->log[i].opcode == DR_OPCODE(RC, READ_RESP_LAST) &&
			      e->log[i].paylen == 0;
	RC_CHECK_MSG(empty_last == 0, "%u zero-length READ RESPONSE LAST frames", empty_last);
	rc_buf_free(&la);
	rc_buf_free(&rb);
	rc_buf_free(&sb);
	rc_buf_free(&rcv);
	rc_disconnect(e);
}

/*
 * A gap of the inline application's own is no loss (lib/engine/dr_run_clock.h:
 * the frames that came meanwhile are taken before the timers look): A sends
 * a WRITE, B's ACK reaches A's receive queue, then A does not run for 50 ms
 * of the wire's time, three local ACK timeouts (16.8 ms). When A runs again
 * it takes the ACK first: no timeout, no retry, one transmission. The
 * control: A runs every 100 us while the wire holds its request as long, and
 * its timer fires (IBA 9.7.6.1.3). Inline only: there the test decides when
 * A runs. (Engine lcores leave their own stalls out of the clock: the
 * transport suites beside busy loops, test_run_clock.)
 */
static void
test_own_stall_not_loss(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rc_qp_params p;
	struct rc_buf src, dst;
	struct dr_qp_impl *qa;
	struct dr_sge sge;
	unsigned int k;
	int t;

	if (strcmp(rc_mode_name(), "inline") != 0)
		return;
	for (k = 0; k < 2; k++) {
		struct rc_wcs sw = { .n = 0 };
		bool a_runs = k == 1;

		rc_params_default(&p);          /* timeout 12: 16.8 ms */
		if (rc_connect(e, &p) != 0 || rc_buf_alloc(a, &src, 256, DR_ACCESS_LOCAL_WRITE) != 0 ||
		    rc_buf_alloc(b, &dst, 256, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE) != 0) {
			RC_CHECK_MSG(0, "own stall setup");
			return;
		}
		qa = dr_qp_impl(a->qp);
		rc_fill(src.p, 256, 7 + k);
		sge = (struct dr_sge){ (uint64_t)(uintptr_t)src.p, 256, src.mr->lkey };
		RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED,
					 (uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0), 0);
		/* the request goes out, then the timer is armed (the round after) */
		dr_progress(a->ctx);
		dr_progress(a->ctx);
		RC_CHECK(qa->comp.timeout_at != 0);
		if (!a_runs) {
			/* the request to B, B's ACK to A's receive queue: A has not looked yet */
			rc_carry(e, RC_A2B);
			dr_progress(b->ctx);
			rc_carry(e, RC_B2A);
		}
		for (t = 0; t < 500; t++) {     /* 50 ms of the wire's time */
			rc_sleep_us(100);
			if (a_runs)
				dr_progress(a->ctx);
		}
		dr_progress(a->ctx);
		if (a_runs)
			RC_CHECK_MSG(rc_counter(&qa->cnt.ack_timeouts) >= 1,
				     "A ran through 50 ms with its request unanswered: no timeout");
		else
			RC_CHECK_MSG(rc_counter(&qa->cnt.ack_timeouts) == 0 && rc_counter(&qa->cnt.retries) == 0,
				     "A's own 50 ms gap was charged: %" PRIu64 " timeouts, %" PRIu64 " retries",
				     rc_counter(&qa->cnt.ack_timeouts), rc_counter(&qa->cnt.retries));
		{
			/* what a user reads of it (dr_verbs_counters.h) */
			struct dr_context_counters cc0, cc1;
			struct dr_qp_counters qc;

			RC_CHECK_EQ(dr_query_qp_counters(a->qp, &qc), 0);
			RC_CHECK_EQ(qc.ack_timeouts, rc_counter(&qa->cnt.ack_timeouts));
			RC_CHECK_EQ(qc.retries, rc_counter(&qa->cnt.retries));
			/* the timer that expired: timeout 12, 4.096 us << 12 = 16777 us */
			if (a_runs)
				RC_CHECK_MSG(qc.max_ack_timeout_us >= 16700 && qc.max_ack_timeout_us <= 16800,
					     "max_ack_timeout_us %" PRIu64, qc.max_ack_timeout_us);
			RC_CHECK_EQ(dr_query_context_counters(a->ctx, &cc0), 0);
			if (!a_runs)
				RC_CHECK_MSG(cc0.stalls >= 1 && cc0.max_gap_us >= 40000,
					     "A's gap not counted: %" PRIu64 " stalls, longest gap %" PRIu64 " us",
					     cc0.stalls, cc0.max_gap_us);
			RC_CHECK_EQ(dr_query_context_counters(a->ctx, &cc1), 0);
			RC_CHECK(cc1.tx_pkts >= cc0.tx_pkts && cc1.ack_timeouts >= cc0.ack_timeouts);
			RC_CHECK_EQ(dr_query_context_counters(NULL, &cc1), -EINVAL);
			RC_CHECK_EQ(dr_query_context_counters(a->ctx, NULL), -EINVAL);
			RC_CHECK_EQ(dr_query_qp_counters(NULL, &qc), -EINVAL);
		}
		RC_CHECK(rc_wait_wcs(e, a->scq, &sw, 1, 2000000));
		RC_CHECK(sw.n == 1 && sw.wc[0].status == DR_WC_SUCCESS);
		RC_CHECK(memcmp(src.p, dst.p, 256) == 0);
		if (!a_runs)
			RC_CHECK_EQ(e->frames[RC_A2B], 1);      /* the first transmission only */
		rc_buf_free(&src);
		rc_buf_free(&dst);
		rc_disconnect(e);
	}
}

static void
run(struct rc_env *e)
{
	for (uint32_t seed = 1; seed <= 2; seed++)
		test_atomic_stream(e, 1500, 10, seed);
	test_read_reread(e);
	test_read_ahead_dup(e);
	test_read_ahead_replay(e);
	test_read_stream_keeps_timer(e);
	test_timeout_before_retransmission(e);
	test_replay_yields_resource(e);
	test_own_stall_not_loss(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_rc_recovery", argv[0], 4200, run);
}
