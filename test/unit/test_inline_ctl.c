/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Slow-path calls from another thread in inline mode (dr_control.h): a
 * network function's control thread creates, connects and destroys QPs
 * while its lcore drives the contexts with dr_progress(). The test's main
 * thread is the progress thread of both contexts; a second thread makes
 * the verbs calls.
 *
 * - While the progress thread does not run, the control thread's call
 *   waits: it is queued, not run beside the rounds.
 * - Once rounds run, every call is executed by the progress thread and
 *   returns its result: a QP pair created and moved to RTS (rc_connect()),
 *   a modify IBA 10.3.1 forbids (RESET to RTS) refused with -EINVAL
 *   through the queue, and the QPs destroyed.
 * - The QPs the other thread made carry RDMA WRITEs, every byte checked.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "test_rc.h"

#define MSG 4096
#define WAIT_US 10000000        /* rounds a busy machine may need for the other thread's calls */

enum job_step { JOB_CONNECT, JOB_BAD_MODIFY, JOB_DESTROY };

struct job {
	struct rc_env *e;
	enum job_step step;
	struct rc_qp_params p;
	struct dr_qp *spare;        /* JOB_BAD_MODIFY: a QP in RESET */
	int rc;
	int done;
};

static void *
job_main(void *arg)
{
	struct job *j = arg;

	switch (j->step) {
	case JOB_CONNECT:
		j->rc = rc_connect(j->e, &j->p);
		break;
	case JOB_BAD_MODIFY: {
		struct dr_qp_init_attr qa;
		struct dr_qp_attr a;

		memset(&qa, 0, sizeof(qa));
		qa.send_cq = j->e->s[0].scq;
		qa.recv_cq = j->e->s[0].rcq;
		qa.qp_type = DR_QPT_RC;
		qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
		qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
		j->spare = dr_create_qp(j->e->s[0].pd, &qa);
		memset(&a, 0, sizeof(a));
		a.qp_state = DR_QPS_RTS;                /* RESET -> RTS: not a transition (IBA 10.3.1) */
		j->rc = j->spare != NULL ? dr_modify_qp(j->spare, &a, DR_QP_STATE) : -ENOMEM;
		if (j->spare != NULL)
			(void)dr_destroy_qp(j->spare);
		break;
	}
	case JOB_DESTROY:
		/* the QPs and the CQs rc_connect() made for them */
		rc_side_qp_destroy(&j->e->s[0], "A");
		rc_side_qp_destroy(&j->e->s[1], "B");
		j->rc = j->e->s[0].qp == NULL && j->e->s[1].qp == NULL ? 0 : -1;
		break;
	}
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool
job_done(struct rc_env *e, void *arg)
{
	RTE_SET_USED(e);
	return __atomic_load_n(&((struct job *)arg)->done, __ATOMIC_ACQUIRE) != 0;
}

/* Run @j on another thread while this one runs rounds; returns its result. */
static int
job_run(struct rc_env *e, struct job *j, bool hold_first)
{
	pthread_t t;

	j->e = e;
	j->done = 0;
	if (pthread_create(&t, NULL, job_main, j) != 0) {
		RC_CHECK_MSG(0, "pthread_create");
		return -1;
	}
	if (hold_first) {
		/* no round: the call waits in the queue (it would be done by now if it ran in its thread) */
		const struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		RC_CHECK_MSG(!job_done(e, j), "a slow-path call ran while the progress thread did not");
	}
	RC_CHECK_MSG(rc_run(e, WAIT_US, job_done, j), "the other thread's calls did not end");
	pthread_join(t, NULL);
	return j->rc;
}

static void
body(struct rc_env *e)
{
	struct job j;
	struct rc_buf src, dst;
	struct rc_wcs w = { .n = 0 };
	struct dr_sge sge;

	if (!rc_inline_only("inline_ctl", "the progress thread is the test's"))
		return;
	rc_round(e);                              /* this thread drives both contexts from now on */

	memset(&j, 0, sizeof(j));
	j.step = JOB_CONNECT;
	rc_params_default(&j.p);
	RC_CHECK_EQ(job_run(e, &j, true), 0);
	RC_CHECK(e->s[0].qp != NULL && e->s[1].qp != NULL);
	RC_CHECK_EQ(rc_qp_state(e->s[0].qp), DR_QPS_RTS);

	/* the QPs the other thread made carry data */
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &src, MSG, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(&e->s[1], &dst, MSG, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE), 0);
	rc_fill(src.p, MSG, 5);
	rc_sges(&src, 0, MSG, 1, &sge);
	RC_CHECK_EQ(rc_post_send(&e->s[0], 1, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED,
				 (uint64_t)(uintptr_t)dst.p, dst.mr->rkey, 0), 0);
	RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &w, 1, WAIT_US));
	RC_CHECK(w.n == 1 && w.wc[0].status == DR_WC_SUCCESS);
	RC_CHECK(memcmp(src.p, dst.p, MSG) == 0);

	/* an error comes back through the queue */
	memset(&j, 0, sizeof(j));
	j.step = JOB_BAD_MODIFY;
	RC_CHECK_EQ(job_run(e, &j, false), -EINVAL);

	rc_buf_free(&src);
	rc_buf_free(&dst);
	memset(&j, 0, sizeof(j));
	j.step = JOB_DESTROY;
	RC_CHECK_EQ(job_run(e, &j, true), 0);
	rc_disconnect(e);                         /* the wire's leftovers; nothing left to destroy */
	printf("inline control: a QP pair created, connected and destroyed by another thread while this one "
	       "ran the rounds; 4 KiB WRITE checked; EINVAL through the queue\n");
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_inline_ctl", argv[0], 1500, body);
}
