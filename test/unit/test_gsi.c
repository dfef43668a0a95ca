/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * QP1 (lib/cm/dr_gsi.c) over the test wire (test_rc.h), in every engine
 * mode: one per context under QPN 1 and nowhere in the QP table, MADs both
 * ways with the sender's GID, a burst past the send slots held back and
 * delivered in order (only a full backlog refuses), the GSI Q_Key enforced (an application's UD QP cannot reach
 * QP1, not even naming 0x80010000: IBA 10.2.4's controlled Q_Keys), closed
 * and opened again.
 */

#include <errno.h>
#include <string.h>

#include "dr_cm_msg.h"
#include "dr_gsi.h"
#include "test_rc.h"

struct got {
	unsigned int n;
	uint8_t gid[16];
	uint8_t mad[DR_MAD_SIZE];
	size_t len;
};

/* test_burst: the tags (local comm ids) of what side 1 receives, in arrival order */
#define GOT_LOG (DR_GSI_SENDS + DR_GSI_BACKLOG)
static bool got_log;
static unsigned int got_first;
static uint32_t got_tags[GOT_LOG];
static struct got got[2];

static void
on_rx(void *arg, const uint8_t gid[16], const uint8_t *mad, size_t len)
{
	struct got *g = arg;

	if (got_log && g == &got[1] && g->n >= got_first && g->n - got_first < GOT_LOG)
		got_tags[g->n - got_first] = (uint32_t)dr_mad_get(mad, DR_CM_DREQ_LOCAL_COMM_ID);
	g->n++;
	memcpy(g->gid, gid, 16);
	memcpy(g->mad, mad, DR_MAD_SIZE);
	g->len = len;
}

static struct dr_gsi gsi[2];

static bool
both_polled(struct rc_env *e, void *arg)
{
	unsigned int *want = arg;

	(void)e;
	for (int s = 0; s < 2; s++)
		RC_CHECK(dr_gsi_poll(&gsi[s], on_rx, &got[s]) >= 0);
	return got[0].n >= want[0] && got[1].n >= want[1] && gsi[0].send_out == 0 && gsi[1].send_out == 0;
}

/* rc_run()'s end: @arg's sends have all completed, its backlog too */
static bool
sends_done(struct rc_env *e, void *arg)
{
	unsigned int none[2] = { 0, 0 };

	(void)both_polled(e, none);
	return !dr_gsi_sending(arg);
}

static void
make_mad(uint8_t *mad, uint32_t tag)
{
	dr_cm_msg_init(mad, DR_CM_ATTR_DREQ, tag);
	dr_mad_put(mad, DR_CM_DREQ_LOCAL_COMM_ID, tag);
	for (unsigned int i = DR_CM_DREQ_PDATA_OFF; i < DR_MAD_SIZE; i++)
		mad[i] = (uint8_t)(i * 7 + tag);
}

static void
test_both_ways(struct rc_env *e)
{
	uint8_t mad[DR_MAD_SIZE];
	unsigned int want[2] = { 0, 1 };

	make_mad(mad, 1);
	RC_CHECK_EQ(dr_gsi_send(&gsi[0], e->s[1].gid.raw, mad), 0);
	RC_CHECK(rc_run(e, 2000000, both_polled, want));
	RC_CHECK_EQ(got[1].n, 1);
	RC_CHECK_EQ(got[1].len, DR_MAD_SIZE);
	RC_CHECK(memcmp(got[1].mad, mad, DR_MAD_SIZE) == 0);
	RC_CHECK(memcmp(got[1].gid, e->s[0].gid.raw, 16) == 0);
	/* the answer goes to the GID it came from */
	make_mad(mad, 2);
	RC_CHECK_EQ(dr_gsi_send(&gsi[1], got[1].gid, mad), 0);
	want[0] = 1;
	RC_CHECK(rc_run(e, 2000000, both_polled, want));
	RC_CHECK_EQ(got[0].n, 1);
	RC_CHECK(memcmp(got[0].mad, mad, DR_MAD_SIZE) == 0);
	RC_CHECK(memcmp(got[0].gid, e->s[1].gid.raw, 16) == 0);
	RC_CHECK_EQ(gsi[0].stats.tx, 1);
	RC_CHECK_EQ(gsi[1].stats.rx, 1);
}

/*
 * A burst past the send slots (the CM answering 100 DREQs at once): what
 * the slots cannot take waits in the backlog and goes out, in order, as
 * sends complete; every MAD arrives, none is refused. Only a full backlog
 * refuses (-EAGAIN), and nothing of the burst is lost to it.
 */
static void
test_burst(struct rc_env *e)
{
	const uint32_t total = DR_GSI_SENDS + DR_GSI_BACKLOG;
	uint8_t mad[DR_MAD_SIZE];
	unsigned int want[2] = { got[0].n, got[1].n + total };
	unsigned int before = got[1].n;
	uint64_t tx0 = gsi[0].stats.tx, queued0 = gsi[0].stats.tx_queued, busy0 = gsi[0].stats.tx_busy;
	bool in_order = true;

	got_log = true;
	got_first = before;
	for (uint32_t i = 0; i < total; i++) {
		make_mad(mad, 100 + i);
		RC_CHECK_EQ(dr_gsi_send(&gsi[0], e->s[1].gid.raw, mad), 0);
	}
	RC_CHECK_EQ(gsi[0].stats.tx_queued - queued0, DR_GSI_BACKLOG);
	RC_CHECK(dr_gsi_sending(&gsi[0]));
	make_mad(mad, 99);
	RC_CHECK_EQ(dr_gsi_send(&gsi[0], e->s[1].gid.raw, mad), -EAGAIN);
	RC_CHECK_EQ(gsi[0].stats.tx_busy - busy0, 1);
	RC_CHECK(rc_run(e, 10000000, both_polled, want));
	RC_CHECK_EQ(got[1].n - before, total);
	for (uint32_t i = 0; i < total && i < GOT_LOG; i++)
		in_order &= got_tags[i] == 100 + i;
	RC_CHECK_MSG(in_order, "the burst arrived out of order");
	RC_CHECK_EQ(gsi[0].stats.tx - tx0, total);
	RC_CHECK(rc_run(e, 2000000, sends_done, &gsi[0]));
	RC_CHECK(!dr_gsi_sending(&gsi[0]));
	got_log = false;
	make_mad(mad, 100 + total);
	RC_CHECK_EQ(dr_gsi_send(&gsi[0], e->s[1].gid.raw, mad), 0);
	want[1]++;
	RC_CHECK(rc_run(e, 2000000, both_polled, want));
}

/* An application's UD QP sends to QPN 1: its own Q_Key goes out, QP1 drops it. */
static void
test_qkey(struct rc_env *e)
{
	struct rc_qp_params p;
	struct rc_buf b;
	struct dr_ah_attr av;
	struct dr_ah *ah;
	struct dr_sge sge;
	unsigned int before = got[1].n, want[2] = { 0, 0 };
	const uint32_t qkeys[] = { 0x11111111u, DR_GSI_QKEY };

	rc_params_default(&p);
	p.qp_type = DR_QPT_UD;
	p.qkey = 0x11111111u;
	if (rc_connect(e, &p) != 0) {
		RC_CHECK(!"rc_connect");
		return;
	}
	RC_CHECK_EQ(rc_buf_alloc(&e->s[0], &b, 4096, DR_ACCESS_LOCAL_WRITE), 0);
	memset(&av, 0, sizeof(av));
	av.is_global = 1;
	av.port_num = 1;
	av.grh.dgid = e->s[1].gid;
	av.grh.sgid_index = 1;
	ah = dr_create_ah(e->s[0].pd, &av);
	RC_CHECK(ah != NULL);
	make_mad(b.p, 7);
	sge = (struct dr_sge){ .addr = (uintptr_t)b.p, .length = DR_MAD_SIZE, .lkey = b.mr->lkey };
	for (unsigned int i = 0; i < RTE_DIM(qkeys); i++) {
		struct dr_send_wr w = { .wr_id = i, .opcode = DR_WR_SEND, .sg_list = &sge, .num_sge = 1,
					.send_flags = DR_SEND_SIGNALED }, *bad;

		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = DR_GSI_QPN;
		w.wr.ud.remote_qkey = qkeys[i];
		RC_CHECK_EQ(dr_post_send(e->s[0].qp, &w, &bad), 0);
	}
	/* both sends complete (UD: once sent), then a while for anything to arrive */
	{
		struct rc_wcs wcs = { .n = 0 };

		RC_CHECK(rc_wait_wcs(e, e->s[0].scq, &wcs, 2, 2000000));
		RC_CHECK(wcs.n == 2 && wcs.wc[0].status == DR_WC_SUCCESS && wcs.wc[1].status == DR_WC_SUCCESS);
	}
	rc_run(e, 50000, both_polled, want);
	RC_CHECK_EQ(got[1].n, before);
	RC_CHECK_EQ(dr_destroy_ah(ah), 0);
	rc_buf_free(&b);
	rc_disconnect(e);
}

static void
run(struct rc_env *e)
{
	struct dr_gsi extra;

	for (int s = 0; s < 2; s++) {
		RC_CHECK_EQ(dr_gsi_open(&gsi[s], e->s[s].ctx, NULL), 0);
		RC_CHECK_EQ(gsi[s].qp->qp_num, DR_GSI_QPN);
		RC_CHECK(dr_qp_lookup(e->s[s].ctx, DR_GSI_QPN) == dr_qp_impl(gsi[s].qp));
		/* not in the table: the QPN its slot would have had reaches nothing */
		RC_CHECK(dr_qp_lookup(e->s[s].ctx, DR_QPN_BASE + dr_qp_impl(gsi[s].qp)->index) == NULL);
	}
	RC_CHECK_EQ(dr_gsi_open(&extra, e->s[0].ctx, NULL), -EEXIST);
	test_both_ways(e);
	test_burst(e);
	test_qkey(e);
	for (int s = 0; s < 2; s++) {
		dr_gsi_close(&gsi[s]);
		RC_CHECK(dr_qp_lookup(e->s[s].ctx, DR_GSI_QPN) == NULL);
	}
	/* and again, after its number and slot went back */
	RC_CHECK_EQ(dr_gsi_open(&gsi[0], e->s[0].ctx, NULL), 0);
	RC_CHECK_EQ(dr_gsi_open(&gsi[1], e->s[1].ctx, NULL), 0);
	memset(got, 0, sizeof(got));
	test_both_ways(e);
	dr_gsi_close(&gsi[0]);
	dr_gsi_close(&gsi[1]);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_gsi", argv[0], 1500, run);
}
