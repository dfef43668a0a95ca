/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Selective repeat negotiated through the CM (lib/cm/dr_cm_ece.h): two
 * contexts connected with the rdma_cm-shaped API over the test wire, in
 * every engine mode. The wire reads the ECE of each REQ and REP (VendorID,
 * AttributeModifier) and, to play a peer that is not dpdk-rdma, rewrites it.
 *
 *   dpdk-rdma both ends    the REQ offers selective repeat (VendorID
 *                          0x520000, options 1), the REP answers it, both
 *                          QPs use it (dr_qp_sr(), dr_query_ece()); a lost
 *                          packet costs one frame again and a SACK, no NAK,
 *                          every byte right
 *   one end set none       an application's dr_set_ece() with options 0
 *                          before dr_cm_connect() or dr_cm_accept(): that
 *                          end offers (or answers) none, neither QP uses it
 *   a peer without ECE     the REQ as rxe's librdmacm sends it (VendorID 0,
 *                          options 0): nothing set on either QP, the REP
 *                          carries no ECE (the bytes of before), a loss is
 *                          recovered by go-back-N, every byte right
 *   another vendor         a REQ of VendorID 0x0002C9: nothing set, the REP
 *                          echoes that ID with no option (librdmacm's REP)
 *   an rxe passive side    the REP as librdmacm on rxe answers our offer
 *                          (our VendorID, options 0): the active QP takes none
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "dr_cm_msg.h"
#include "dr_mad.h"
#include "test_cm.h"

#define PORT 7176
#define NPKTS 16                 /* packets of the message that loses one */
#define LOST 5                   /* the one lost: the 4th SEND_MIDDLE */

static struct dr_cm_event_channel *chs, *chc;

/* What the wire does to the CM's REQ and REP, and what it saw. */
enum rewrite {
	KEEP,
	REQ_NO_ECE,                  /* the REQ's VendorID and options 0 (rxe's librdmacm) */
	REQ_OTHER_VENDOR,            /* the REQ's VendorID another vendor's, its options kept */
	REP_NO_OPTIONS,              /* the REP's options 0, its VendorID kept (librdmacm on rxe) */
};

static struct {
	enum rewrite rewrite;
	bool req_seen, rep_seen;
	uint32_t req_vendor, req_opts;   /* as our active side sent it */
	uint32_t rep_vendor, rep_opts;   /* as our passive side sent it */
} wire;

#define OTHER_VENDOR 0x0002C9u

static bool
tamper(struct rc_env *e, int dir, uint8_t *frame, const struct dr_pkt_info *pi)
{
	uint8_t *mad = frame + pi->pay_off;
	uint16_t attr;

	(void)e;
	if (dr_bth_qpn(dr_pkt_bth(pi)) != DR_GSI_QPN || pi->paylen != DR_MAD_SIZE ||
	    dr_mad_get(mad, DR_MAD_MGMT_CLASS) != DR_CM_MGMT_CLASS)
		return false;
	attr = (uint16_t)dr_mad_get(mad, DR_MAD_ATTR_ID);
	if (attr == DR_CM_ATTR_REQ && dir == RC_A2B) {
		wire.req_seen = true;
		wire.req_vendor = (uint32_t)dr_mad_get(mad, DR_CM_REQ_VENDOR_ID);
		wire.req_opts = (uint32_t)dr_mad_get(mad, DR_MAD_ATTR_MOD);
		if (wire.rewrite == REQ_NO_ECE || wire.rewrite == REQ_OTHER_VENDOR) {
			dr_mad_put(mad, DR_CM_REQ_VENDOR_ID, wire.rewrite == REQ_NO_ECE ? 0 : OTHER_VENDOR);
			if (wire.rewrite == REQ_NO_ECE)
				dr_mad_put(mad, DR_MAD_ATTR_MOD, 0);
			return true;
		}
	} else if (attr == DR_CM_ATTR_REP && dir == RC_B2A) {
		wire.rep_seen = true;
		wire.rep_vendor = (uint32_t)(dr_mad_get(mad, DR_CM_REP_VENDOR_ID_H) << 16 |
					     dr_mad_get(mad, DR_CM_REP_VENDOR_ID_M) << 8 |
					     dr_mad_get(mad, DR_CM_REP_VENDOR_ID_L));
		wire.rep_opts = (uint32_t)dr_mad_get(mad, DR_MAD_ATTR_MOD);
		if (wire.rewrite == REP_NO_OPTIONS) {
			dr_mad_put(mad, DR_MAD_ATTR_MOD, 0);
			return true;
		}
	}
	return false;
}

struct conn {
	struct dr_cm_id *cid, *sid;
	struct dr_cq *ccq, *scq;
};

static int
make_qp(struct dr_cm_id *id, struct rc_side *s, struct dr_cq **cq)
{
	struct dr_qp_init_attr ia = { .qp_type = DR_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 4, .max_recv_sge = 4 } };

	*cq = dr_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (*cq == NULL)
		return -1;
	ia.send_cq = ia.recv_cq = *cq;
	return dr_cm_create_qp(id, s->pd, &ia);
}

/* ibv_set_ece(3) on @qp before the CM readies it: the options the application wants offered. */
static void
app_ece(struct dr_qp *qp, uint32_t opts)
{
	struct dr_ece ece = { .vendor_id = DR_ECE_VENDOR_ID, .options = opts };

	RC_CHECK_EQ(dr_set_ece(qp, &ece), 0);
}

/*
 * A connection from A to B's listener through the CM, the wire rewriting
 * as @rw says; @a_opts / @b_opts (not UINT32_MAX): the ECE options each
 * end's application set on its QP first. False if it was not established.
 */
static bool
connect_pair(struct rc_env *e, struct conn *c, enum rewrite rw, uint32_t a_opts, uint32_t b_opts)
{
	struct sockaddr_in src = cm_addr_of(&e->s[0], 0), dst = cm_addr_of(&e->s[1], PORT);
	struct dr_cm_conn_param cp = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
				       .rnr_retry_count = 7 };
	struct dr_cm_event *ev;

	memset(c, 0, sizeof(*c));
	memset(&wire, 0, sizeof(wire));
	wire.rewrite = rw;
	e->tamper = tamper;
	RC_CHECK_EQ(dr_cm_create_id(chc, &c->cid, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_resolve_addr(c->cid, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ADDR_RESOLVED));
	RC_CHECK_EQ(dr_cm_resolve_route(c->cid, 2000), 0);
	cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_ROUTE_RESOLVED));
	RC_CHECK_EQ(make_qp(c->cid, &e->s[0], &c->ccq), 0);
	if (c->cid->qp == NULL)
		return false;
	if (a_opts != UINT32_MAX)
		app_ece(c->cid->qp, a_opts);
	RC_CHECK_EQ(dr_cm_connect(c->cid, &cp), 0);
	ev = cm_wait_event(e, chs, DR_CM_EVENT_CONNECT_REQUEST);
	if (ev == NULL)
		return false;
	c->sid = ev->id;
	cm_ack(ev);
	RC_CHECK_EQ(make_qp(c->sid, &e->s[1], &c->scq), 0);
	if (c->sid->qp == NULL)
		return false;
	if (b_opts != UINT32_MAX)
		app_ece(c->sid->qp, b_opts);
	RC_CHECK_EQ(dr_cm_accept(c->sid, &cp), 0);
	ev = cm_wait_event(e, chc, DR_CM_EVENT_ESTABLISHED);
	cm_ack(ev);
	if (ev == NULL)
		return false;
	cm_ack(cm_wait_event(e, chs, DR_CM_EVENT_ESTABLISHED));
	RC_CHECK(wire.req_seen && wire.rep_seen);
	return rc_qp_state(c->cid->qp) == DR_QPS_RTS && rc_qp_state(c->sid->qp) == DR_QPS_RTS;
}

static void
release(struct rc_env *e, struct conn *c)
{
	if (c->cid != NULL && c->sid != NULL && c->sid->qp != NULL) {
		RC_CHECK_EQ(dr_cm_disconnect(c->cid), 0);
		cm_ack(cm_wait_event(e, chs, DR_CM_EVENT_DISCONNECTED));
		RC_CHECK_EQ(dr_cm_disconnect(c->sid), 0);
		cm_ack(cm_wait_event(e, chc, DR_CM_EVENT_DISCONNECTED));
	}
	rc_wire_flush(e);
	rc_rules_clear(e);
	e->tamper = NULL;
	e->logging = false;
	e->nlog = 0;
	for (int i = 0; i < 2; i++) {
		struct dr_cm_id *id = i == 0 ? c->cid : c->sid;
		struct dr_cq *cq = i == 0 ? c->ccq : c->scq;

		if (id != NULL) {
			dr_cm_destroy_qp(id);
			RC_CHECK_EQ(dr_cm_destroy_id(id), 0);
		}
		if (cq != NULL)
			RC_CHECK_EQ(dr_destroy_cq(cq), 0);
	}
}

/* Both QPs' selective repeat is @sr_a / @sr_b; dr_query_ece() says what was negotiated when both have it. */
static void
check_sr(const struct conn *c, bool sr_a, bool sr_b, const char *tag)
{
	RC_CHECK_MSG(dr_qp_sr(dr_qp_impl(c->cid->qp)) == sr_a, "%s: active QP's selective repeat %d", tag,
		     dr_qp_sr(dr_qp_impl(c->cid->qp)));
	RC_CHECK_MSG(dr_qp_sr(dr_qp_impl(c->sid->qp)) == sr_b, "%s: passive QP's selective repeat %d", tag,
		     dr_qp_sr(dr_qp_impl(c->sid->qp)));
	if (sr_a && sr_b) {
		struct dr_ece ece;

		for (int i = 0; i < 2; i++) {
			RC_CHECK_EQ(dr_query_ece(i == 0 ? c->cid->qp : c->sid->qp, &ece), 0);
			RC_CHECK(ece.vendor_id == DR_ECE_VENDOR_ID && ece.options == DR_ECE_OPT_SELECTIVE_REPEAT);
		}
	}
}

/*
 * A SEND of NPKTS packets from A to B over the connection's QPs, the LOST-th
 * lost once on the wire: every byte arrives (rc_xfer_run()'s checks). With
 * selective repeat on both QPs, B SACKs (no NAK) and A sends the lost one
 * again, not the rest; without it, no SACK.
 */
static void
lossy_send(struct rc_env *e, const struct conn *c, bool sr, const char *tag)
{
	bool inline_mode = strcmp(rc_mode_name(), "inline") == 0;
	struct dr_qp_init_attr ia;
	struct dr_qp_attr qa;
	unsigned int data = 0, sacks = 0, naks = 0;
	uint32_t mtu;
	struct rc_xfer x = { .op = DR_WR_SEND, .nsge_l = 2, .nsge_r = 3, .seed = 77, .settle_usec = 20000 };

	RC_CHECK_EQ(dr_query_qp(c->cid->qp, &qa, DR_QP_PATH_MTU, &ia), 0);
	mtu = 128u << qa.path_mtu;
	x.len = NPKTS * mtu;
	/* the harness's transfer on the CM's QPs (one CQ each side for both queues) */
	e->s[0].qp = c->cid->qp;
	e->s[0].scq = e->s[0].rcq = c->ccq;
	e->s[1].qp = c->sid->qp;
	e->s[1].scq = e->s[1].rcq = c->scq;
	e->any_psn[0] = e->any_psn[1] = false;
	e->nlog = 0;
	e->logging = true;
	rc_rule_add(e, RC_A2B, DR_OPCODE(RC, SEND_MIDDLE), LOST - 2, 0, 1, RC_DROP);
	RC_CHECK_MSG(rc_xfer_run(e, &x, tag) == 0, "%s: the transfer", tag);
	for (uint32_t i = 0; i < e->nlog; i++) {
		const struct rc_log_entry *l = &e->log[i];

		data += l->dir == RC_A2B && l->dqpn == c->sid->qp->qp_num;
		sacks += l->dir == RC_B2A && l->opcode == DR_OPCODE_SACK;
		naks += l->dir == RC_B2A && l->opcode == DR_OPCODE(RC, ACK) &&
			dr_aeth_syn_type(l->syn) == DR_AETH_NAK;
	}
	if (sr) {
		/* inline is deterministic: the lost one again, nothing else (see test_rc_sr.c) */
		if (inline_mode)
			RC_CHECK_MSG(data == NPKTS + 1, "%s: %u frames for %u packets", tag, data, NPKTS);
		else
			RC_CHECK_MSG(data >= NPKTS + 1 && data <= NPKTS + 4, "%s: %u frames for %u packets", tag,
				     data, NPKTS);
		RC_CHECK_MSG(sacks >= 1 && naks == 0, "%s: %u SACKs, %u NAKs", tag, sacks, naks);
	} else {
		RC_CHECK_MSG(sacks == 0, "%s: %u SACKs without selective repeat", tag, sacks);
		RC_CHECK_MSG(data >= NPKTS + 2, "%s: %u frames for %u packets (go-back-N)", tag, data, NPKTS);
	}
	for (int i = 0; i < 2; i++) {
		e->s[i].qp = NULL;
		e->s[i].scq = e->s[i].rcq = NULL;
	}
}

static void
test_both_ours(struct rc_env *e)
{
	struct conn c;

	if (connect_pair(e, &c, KEEP, UINT32_MAX, UINT32_MAX)) {
		RC_CHECK_EQ(wire.req_vendor, 0x520000);     /* DR_ECE_VENDOR_ID's low 24 bits */
		RC_CHECK_EQ(wire.req_opts, DR_ECE_OPT_SELECTIVE_REPEAT);
		RC_CHECK_EQ(wire.rep_vendor, 0x520000);
		RC_CHECK_EQ(wire.rep_opts, DR_ECE_OPT_SELECTIVE_REPEAT);
		check_sr(&c, true, true, "ours + ours");
		lossy_send(e, &c, true, "ours + ours, one loss");
	} else {
		RC_CHECK_MSG(0, "ours + ours: not established");
	}
	release(e, &c);
}

static void
test_one_side_none(struct rc_env *e)
{
	struct conn c;

	/* the active application offers none */
	if (connect_pair(e, &c, KEEP, 0, UINT32_MAX)) {
		RC_CHECK(wire.req_vendor == 0x520000 && wire.req_opts == 0);
		RC_CHECK(wire.rep_vendor == 0x520000 && wire.rep_opts == 0);
		check_sr(&c, false, false, "active without");
	} else {
		RC_CHECK_MSG(0, "active without: not established");
	}
	release(e, &c);
	/* the passive application answers none */
	if (connect_pair(e, &c, KEEP, UINT32_MAX, 0)) {
		RC_CHECK(wire.req_vendor == 0x520000 && wire.req_opts == DR_ECE_OPT_SELECTIVE_REPEAT);
		RC_CHECK(wire.rep_vendor == 0x520000 && wire.rep_opts == 0);
		check_sr(&c, false, false, "passive without");
	} else {
		RC_CHECK_MSG(0, "passive without: not established");
	}
	release(e, &c);
}

static void
test_foreign(struct rc_env *e)
{
	struct conn c;

	/* an active peer without ECE (rxe): nothing set, the REP as before ECE, go-back-N */
	if (connect_pair(e, &c, REQ_NO_ECE, UINT32_MAX, UINT32_MAX)) {
		RC_CHECK(wire.rep_vendor == 0 && wire.rep_opts == 0);
		check_sr(&c, false, false, "vendor 0");
		lossy_send(e, &c, false, "vendor 0, one loss");
	} else {
		RC_CHECK_MSG(0, "vendor 0: not established");
	}
	release(e, &c);
	/* another vendor's ECE: not ours to read; its ID echoed with no option */
	if (connect_pair(e, &c, REQ_OTHER_VENDOR, UINT32_MAX, UINT32_MAX)) {
		RC_CHECK(wire.rep_vendor == OTHER_VENDOR && wire.rep_opts == 0);
		check_sr(&c, false, false, "another vendor");
	} else {
		RC_CHECK_MSG(0, "another vendor: not established");
	}
	release(e, &c);
	/*
	 * librdmacm on rxe answers our REQ with our VendorID and no option: the
	 * active QP takes none (its passive end here is ours, which took the
	 * option: only the active side is the case)
	 */
	if (connect_pair(e, &c, REP_NO_OPTIONS, UINT32_MAX, UINT32_MAX))
		RC_CHECK_MSG(!dr_qp_sr(dr_qp_impl(c.cid->qp)), "REP without options: the active QP has it");
	else
		RC_CHECK_MSG(0, "REP without options: not established");
	release(e, &c);
}

static void
run(struct rc_env *e)
{
	struct sockaddr_in b = cm_addr_of(&e->s[1], PORT);
	struct dr_cm_id *listener = NULL;

	chs = dr_cm_create_event_channel();
	chc = dr_cm_create_event_channel();
	RC_CHECK(chs != NULL && chc != NULL);
	if (chs == NULL || chc == NULL)
		return;
	RC_CHECK_EQ(fcntl(chs->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(fcntl(chc->fd, F_SETFL, O_NONBLOCK), 0);
	RC_CHECK_EQ(dr_cm_create_id(chs, &listener, NULL, DR_CM_PS_TCP), 0);
	RC_CHECK_EQ(dr_cm_bind_addr(listener, (struct sockaddr *)&b), 0);
	RC_CHECK_EQ(dr_cm_listen(listener, 8), 0);
	test_both_ours(e);
	test_one_side_none(e);
	test_foreign(e);
	RC_CHECK_EQ(dr_cm_destroy_id(listener), 0);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chs), 0);
	RC_CHECK_EQ(dr_cm_destroy_event_channel(chc), 0);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	return rc_main("test_cm_ece", argv[0], 1500, run);
}
