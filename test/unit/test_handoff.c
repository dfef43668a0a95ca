/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The named hand-offs between a QP's stages (lib/transport/dr_handoff.h):
 * each rule on its own, then the credit and go-back-N protocols run by two
 * threads at once, as a requester and a completer on two lcores would run
 * them. No EAL: the QP is a zeroed struct and the stage functions used are
 * the ones that touch no packet.
 */

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "dr_test.h"

#include "dr_handoff.h"

static struct dr_qp_impl *
qp_new(void)
{
	struct dr_qp_impl *qp = aligned_alloc(RTE_CACHE_LINE_SIZE,
					      RTE_ALIGN_CEIL(sizeof(*qp), RTE_CACHE_LINE_SIZE));

	memset(qp, 0, sizeof(*qp));
	qp->pub.qp_type = DR_QPT_RC;
	return qp;
}

/* IBA 9.7.1: both start at sq_psn; the requester's sent PSN reaches the completer. */
static void
test_psns(void)
{
	struct dr_qp_impl *qp = qp_new();

	dr_comp_start(qp, 0xFFFFFE);
	dr_req_start(qp, 0xFFFFFE);
	CHECK_EQ(dr_ho_acked_psn(qp), 0xFFFFFE);
	CHECK_EQ(dr_ho_sent_psn(qp), 0xFFFFFE);
	qp->req.psn = 0x000001;          /* three packets out, across the 24-bit wrap */
	dr_ho_req_sent(qp, 0);
	CHECK_EQ(dr_ho_sent_psn(qp), 1);
	CHECK_EQ(dr_ho_acked_psn(qp), 0xFFFFFE);  /* nothing acknowledged by that */
	free(qp);
}

/* IBA 9.7.4.1.x: initiator depth = slots taken by the requester minus slots freed by the completer. */
static void
test_credits(void)
{
	struct dr_qp_impl *qp = qp_new();

	dr_comp_start(qp, 0);
	dr_req_start(qp, 0);
	CHECK_EQ(dr_ho_rd_outstanding(qp), 0);
	qp->req.rd_taken += 3;
	CHECK_EQ(dr_ho_rd_outstanding(qp), 3);
	dr_ho_rd_free(qp);
	dr_ho_rd_free(qp);
	CHECK_EQ(dr_ho_rd_outstanding(qp), 1);
	/* the move to ERR: the requester gives up what it held, the counters stay monotonic */
	dr_req_stop(qp);
	CHECK_EQ(dr_ho_rd_outstanding(qp), 0);
	CHECK_EQ(qp->comp_out.rd_freed, 2);
	/* a stale free (a READ flushed with the queue) never makes the count negative */
	dr_ho_rd_free(qp);
	CHECK_EQ(dr_ho_rd_outstanding(qp), 0);
	/* RESET: a new incarnation starts from zero whatever the counters say */
	dr_comp_reset(qp);
	dr_req_reset(qp);
	CHECK_EQ(dr_ho_rd_outstanding(qp), 0);
	free(qp);
}

/* Go-back-N (IBA 9.7.5.2.x) is a request the requester acts on once; a new incarnation forgets old ones. */
static void
test_rewind(void)
{
	struct dr_qp_impl *qp = qp_new();

	dr_comp_start(qp, 100);
	dr_req_start(qp, 100);
	CHECK(!dr_ho_rewind_due(qp));
	CHECK(!dr_ho_rewind_pending(qp));
	dr_ho_rewind(qp);
	CHECK(dr_ho_rewind_pending(qp));    /* asked for, not acted on: the completer can tell */
	CHECK(dr_ho_rewind_due(qp));
	CHECK(!dr_ho_rewind_pending(qp));
	CHECK(!dr_ho_rewind_due(qp));      /* once */
	dr_ho_rewind(qp);
	dr_ho_rewind(qp);
	CHECK(dr_ho_rewind_pending(qp));
	CHECK(dr_ho_rewind_due(qp));       /* two requests before the requester ran: one rewind */
	CHECK(!dr_ho_rewind_pending(qp));
	CHECK(!dr_ho_rewind_due(qp));
	dr_ho_rewind(qp);                   /* asked for, then the QP is reset and started again */
	dr_comp_reset(qp);
	dr_req_reset(qp);
	dr_comp_start(qp, 7);
	dr_req_start(qp, 7);
	CHECK(!dr_ho_rewind_due(qp));
	CHECK(!dr_ho_rewind_pending(qp));  /* nothing owed to the new incarnation */
	free(qp);
}

/* IBA 9.7.5.2.8: the RNR wait stops the requester; ERR and a restart end it. */
static void
test_rnr_wait(void)
{
	struct dr_qp_impl *qp = qp_new();

	dr_comp_start(qp, 0);
	CHECK(!dr_ho_rnr_waiting(qp));
	dr_ho_rnr_wait(qp, true);
	CHECK(dr_ho_rnr_waiting(qp));
	dr_comp_stop(qp);
	CHECK(!dr_ho_rnr_waiting(qp));
	dr_ho_rnr_wait(qp, true);
	dr_comp_start(qp, 0);
	CHECK(!dr_ho_rnr_waiting(qp));
	free(qp);
}

/* A WQE's state is the requester's, its verdict the completer's; either can finish or fail it. */
static void
test_wqe_verdicts(void)
{
	struct dr_send_wqe w;

	memset(&w, 0, sizeof(w));
	dr_wqe_set_state(&w, DR_WQE_SENT);
	CHECK(!dr_wqe_done(&w) && !dr_wqe_failed(&w));
	dr_wqe_set_verdict(&w, DR_WQE_DONE, DR_WC_SUCCESS);
	CHECK(dr_wqe_done(&w));
	/* a rewind writes the requester's state only: the verdict survives it */
	dr_wqe_set_state(&w, DR_WQE_ACTIVE);
	CHECK(dr_wqe_done(&w));

	memset(&w, 0, sizeof(w));
	dr_wqe_set_state(&w, DR_WQE_SENT);
	dr_wqe_set_verdict(&w, DR_WQE_ERROR, DR_WC_REM_ACCESS_ERR);
	CHECK(dr_wqe_failed(&w) && !dr_wqe_done(&w));
	CHECK_EQ(dr_wqe_fail_status(&w), DR_WC_REM_ACCESS_ERR);

	memset(&w, 0, sizeof(w));            /* a local error of the requester (bad L_Key) */
	w.status = DR_WC_LOC_PROT_ERR;
	dr_wqe_set_state(&w, DR_WQE_ERROR);
	CHECK(dr_wqe_failed(&w));
	CHECK_EQ(dr_wqe_fail_status(&w), DR_WC_LOC_PROT_ERR);

	memset(&w, 0, sizeof(w));            /* UC / UD: done when it went out */
	dr_wqe_set_state(&w, DR_WQE_DONE);
	CHECK(dr_wqe_done(&w) && !dr_wqe_failed(&w));
}

/*
 * The credit protocol on two threads: the requester takes a slot only while
 * fewer than DEPTH are outstanding, the completer frees the ones it has seen
 * taken. Whatever the interleaving, the completer never sees more than DEPTH
 * outstanding and every slot comes back.
 */
#define DEPTH 4u
#define ROUNDS 50000u   /* the waits yield: two threads may share one CPU here */

struct credit_run {
	struct dr_qp_impl *qp;
	uint32_t published;                 /* slots taken, as the requester publishes them */
	uint32_t max_seen;
};

static void *
credit_requester(void *arg)
{
	struct credit_run *r = arg;
	uint32_t taken = 0;

	while (taken < ROUNDS) {
		if (dr_ho_rd_outstanding(r->qp) >= DEPTH) {
			sched_yield();
			continue;
		}
		r->qp->req.rd_taken++;
		taken++;
		__atomic_store_n(&r->published, taken, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *
credit_completer(void *arg)
{
	struct credit_run *r = arg;
	uint32_t freed = 0;

	while (freed < ROUNDS) {
		uint32_t taken = __atomic_load_n(&r->published, __ATOMIC_ACQUIRE);

		if (taken - freed > r->max_seen)
			r->max_seen = taken - freed;
		if (taken != freed) {
			dr_ho_rd_free(r->qp);
			freed++;
		} else {
			sched_yield();
		}
	}
	return NULL;
}

static void
test_credits_two_threads(void)
{
	struct credit_run r = { .qp = qp_new() };
	pthread_t a, b;

	dr_comp_start(r.qp, 0);
	dr_req_start(r.qp, 0);
	CHECK(pthread_create(&a, NULL, credit_requester, &r) == 0);
	CHECK(pthread_create(&b, NULL, credit_completer, &r) == 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	CHECK_MSG(r.max_seen <= DEPTH, "%u outstanding", r.max_seen);
	CHECK_EQ(dr_ho_rd_outstanding(r.qp), 0);
	CHECK_EQ(r.qp->comp_out.rd_freed, ROUNDS);
	free(r.qp);
}

/*
 * Go-back-N requests from another thread: every burst of requests the
 * completer makes is seen by the requester as at least one rewind, no
 * rewind is seen that was not asked for, and the completer learns when
 * its request was acted on.
 */
struct rewind_run {
	struct dr_qp_impl *qp;
	uint32_t asked, acted, done;
};

static void *
rewind_requester(void *arg)
{
	struct rewind_run *r = arg;

	for (;;) {
		bool fin = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);

		if (dr_ho_rewind_due(r->qp))
			r->acted++;
		else
			sched_yield();
		if (fin)
			break;
	}
	return NULL;
}

static void
test_rewind_two_threads(void)
{
	struct rewind_run r = { .qp = qp_new() };
	pthread_t a;
	uint32_t i;

	dr_comp_start(r.qp, 0);
	dr_req_start(r.qp, 0);
	CHECK(pthread_create(&a, NULL, rewind_requester, &r) == 0);
	for (i = 0; i < ROUNDS; i++) {
		dr_ho_rewind(r.qp);
		r.asked++;
		if (i % 1024 == 0) {
			/* the completer sees the request acted on (a timeout then spends a retry) */
			uint32_t spins = 0;

			while (dr_ho_rewind_pending(r.qp) && spins++ < 10000000)
				sched_yield();
			CHECK(!dr_ho_rewind_pending(r.qp));
		}
	}
	__atomic_store_n(&r.done, 1, __ATOMIC_RELEASE);
	pthread_join(a, NULL);
	CHECK(r.acted >= 1 && r.acted <= r.asked);
	CHECK(!dr_ho_rewind_due(r.qp));    /* the last request was acted on */
	free(r.qp);
}

int
main(void)
{
	test_psns();
	test_credits();
	test_rewind();
	test_rnr_wait();
	test_wqe_verdicts();
	test_credits_two_threads();
	test_rewind_two_threads();
	return dr_test_report("handoff");
}
