/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The real client's session, after the attacks: a fresh RC QP on each side
 * (the target's in the attacked context and protection domain), exchanged
 * over TCP, then from the client:
 *
 *   RDMA WRITE of 64 KiB + 1 bytes of a pattern into the target's session
 *   region, RDMA READ of them back (compared), a SEND of 1000 bytes into a
 *   receive the target posted, FETCH_AND_ADD and CMP_AND_SWP on a word of
 *   the region (their original values compared);
 *
 * then "done" on TCP; the target compares the region, the receive and the
 * word, and answers its verdict. Each side says what failed in @why.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>

#include "dr_app_sock.h"
#include "hostile.h"

#define HT_SESSION_S 30.0
#define HT_CLIENT_PSN 0x0C0000
#define HT_TARGET_PSN 0x0D0000
#define HT_SEND_SEED 21
#define HT_WRITE_SEED 22

/* Both sides' verbs objects of one session. */
struct ht_sess {
	struct dr_context *ctx;
	struct dr_pd *pd;
	struct dr_cq *cq;
	struct dr_qp *qp;
	int fd;
	double deadline;
};

static int
sess_io(struct ht_sess *s, void *buf, size_t len, bool out)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = out ? write(s->fd, p, len) : read(s->fd, p, len);
		int ret;

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		ret = dr_app_wait_fd(s->ctx, s->fd, out ? POLLOUT : POLLIN, s->deadline, NULL);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* A fresh RC QP with its own CQ, in RESET. */
static int
sess_qp(struct ht_sess *s)
{
	struct dr_qp_init_attr qa = {
		.qp_type = DR_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	s->cq = dr_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (s->cq == NULL)
		return -errno;
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	s->qp = dr_create_qp(s->pd, &qa);
	return s->qp == NULL ? -errno : 0;
}

static void
sess_close(struct ht_sess *s)
{
	if (s->qp != NULL)
		(void)dr_destroy_qp(s->qp);
	if (s->cq != NULL)
		(void)dr_destroy_cq(s->cq);
	if (s->fd >= 0)
		close(s->fd);
}

/* Exchange QPN, PSN, region with the peer and move the QP to RTS. */
static int
sess_connect(struct ht_sess *s, const struct ht_opts *o, struct ht_wire *me, struct ht_wire *peer)
{
	struct ht_wire w = *me;
	union dr_gid gid;
	int ret;

	w.qpn = htonl(me->qpn);
	w.psn = htonl(me->psn);
	w.rkey = htonl(me->rkey);
	w.len = htonl(me->len);
	w.addr = rte_cpu_to_be_64(me->addr);
	ret = sess_io(s, &w, sizeof(w), true);
	if (ret == 0)
		ret = sess_io(s, &w, sizeof(w), false);
	if (ret != 0)
		return ret;
	peer->qpn = ntohl(w.qpn);
	peer->psn = ntohl(w.psn);
	peer->rkey = ntohl(w.rkey);
	peer->len = ntohl(w.len);
	peer->addr = rte_be_to_cpu_64(w.addr);
	memcpy(peer->gid, w.gid, 16);
	memcpy(gid.raw, peer->gid, 16);
	return ht_connect_qp(s->qp, DR_QPT_RC, &gid, peer->qpn, peer->psn, me->psn, o->path_mtu);
}

static int
fail(char *why, size_t len, const char *fmt, const char *what, int err)
{
	snprintf(why, len, fmt, what, strerror(err < 0 ? -err : err));
	return HT_EXIT_CHECK;
}

/* ------------------------------------------------------------ target side */

/* The target's checks once the client is done: the SEND's receive, the WRITE, the atomic word. */
static int
serve_check(struct ht_sess *s, const struct ht_opts *o, const struct ht_region *sess, const uint8_t *rbuf,
	    char *why, size_t why_len)
{
	struct dr_wc wc;
	uint64_t word;
	int ret = ht_wait_wc(o, s->cq, &wc, s->deadline);

	if (ret <= 0 || wc.status != DR_WC_SUCCESS || wc.opcode != DR_WC_RECV ||
	    wc.byte_len != HT_SESSION_SEND) {
		snprintf(why, why_len, "the SEND's receive: %s, %s, %u bytes", ret <= 0 ? "missing" : "there",
			 ret > 0 ? dr_wc_status_str(wc.status) : "-", ret > 0 ? wc.byte_len : 0);
		return HT_EXIT_CHECK;
	}
	for (uint32_t k = 0; k < HT_SESSION_SEND; k++)
		if (rbuf[k] != ht_pat(k, HT_SEND_SEED)) {
			snprintf(why, why_len, "the SEND's byte %u is 0x%02x", k, rbuf[k]);
			return HT_EXIT_CHECK;
		}
	for (uint32_t k = 0; k < HT_SESSION_RDMA; k++)
		if (sess->buf[k] != ht_pat(k, HT_WRITE_SEED)) {
			snprintf(why, why_len, "the WRITE's byte %u is 0x%02x", k, sess->buf[k]);
			return HT_EXIT_CHECK;
		}
	memcpy(&word, sess->buf + HT_ATOMIC_OFF, 8);
	if (word != HT_ATOMIC_SWAP) {
		snprintf(why, why_len, "the atomic word is 0x%016llx", (unsigned long long)word);
		return HT_EXIT_CHECK;
	}
	return HT_EXIT_OK;
}

int
ht_session_serve(struct dr_context *ctx, struct dr_pd *pd, struct ht_region *sess,
		 const struct ht_opts *o, int fd, char *why, size_t why_len)
{
	struct ht_sess s = { .ctx = ctx, .pd = pd, .fd = fd, .deadline = dr_app_now() + HT_SESSION_S };
	struct ht_wire me = { .psn = HT_TARGET_PSN, .len = HT_SESSION_LEN }, peer;
	struct dr_sge sge;
	struct dr_recv_wr rw = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;
	uint8_t *rbuf = sess->buf + HT_SESSION_RDMA + 7;   /* the SEND lands after the WRITE */
	union dr_gid gid;
	uint64_t word;
	uint8_t done = 0, verdict;
	int ret, rc = HT_EXIT_CHECK;

	if (dr_app_nonblock(fd) != 0) {
		close(fd);
		return fail(why, why_len, "%s: %s", "O_NONBLOCK", errno);
	}
	ht_region_fill(sess);
	word = HT_ATOMIC_INIT;
	memcpy(sess->buf + HT_ATOMIC_OFF, &word, 8);
	ret = sess_qp(&s);
	if (ret != 0) {
		rc = fail(why, why_len, "%s: %s", "QP", ret);
		goto out;
	}
	ret = dr_query_gid(ctx, 1, 1, &gid);
	if (ret != 0) {
		rc = fail(why, why_len, "%s: %s", "dr_query_gid", ret);
		goto out;
	}
	me.qpn = s.qp->qp_num;
	me.rkey = sess->mr->rkey;
	me.addr = (uintptr_t)sess->buf;
	memcpy(me.gid, gid.raw, 16);
	ret = sess_connect(&s, o, &me, &peer);
	if (ret != 0) {
		rc = fail(why, why_len, "%s: %s", "connect", ret);
		goto out;
	}
	sge = (struct dr_sge){ .addr = (uintptr_t)rbuf, .length = HT_SESSION_SEND, .lkey = sess->mr->lkey };
	ret = dr_post_recv(s.qp, &rw, &bad);
	if (ret != 0) {
		rc = fail(why, why_len, "%s: %s", "dr_post_recv", ret);
		goto out;
	}
	/* both QPs are in RTS and the receive is posted: go; then the client's "done" */
	ret = sess_io(&s, &done, 1, true);
	if (ret == 0)
		ret = sess_io(&s, &done, 1, false);
	if (ret == 0)
		ret = sess_io(&s, &done, 1, false);
	if (ret != 0) {
		rc = fail(why, why_len, "%s: %s", "TCP", ret);
		goto out;
	}
	rc = serve_check(&s, o, sess, rbuf, why, why_len);
	if (rc == HT_EXIT_OK && done != 0) {
		snprintf(why, why_len, "the client's checks failed");
		rc = HT_EXIT_CHECK;
	}
	verdict = rc != HT_EXIT_OK;
	(void)sess_io(&s, &verdict, 1, true);
out:
	sess_close(&s);
	ht_region_fill(sess);
	return rc;
}

/* ------------------------------------------------------------ client side */

static int
post_one(struct ht_sess *s, struct dr_send_wr *w, const struct ht_opts *o, char *why, size_t why_len,
	 const char *what)
{
	struct dr_send_wr *bad;
	struct dr_wc wc;
	int ret = dr_post_send(s->qp, w, &bad);

	if (ret != 0)
		return fail(why, why_len, "%s: post: %s", what, ret);
	ret = ht_wait_wc(o, s->cq, &wc, s->deadline);
	if (ret <= 0) {
		snprintf(why, why_len, "%s: no completion", what);
		return HT_EXIT_CHECK;
	}
	if (wc.status != DR_WC_SUCCESS) {
		snprintf(why, why_len, "%s: %s", what, dr_wc_status_str(wc.status));
		return HT_EXIT_CHECK;
	}
	return HT_EXIT_OK;
}

static int
client_ops(struct ht_sess *s, const struct ht_opts *o, struct dr_mr *mr, uint8_t *buf,
	   const struct ht_wire *peer, char *why, size_t why_len)
{
	struct dr_sge sge = { .addr = (uintptr_t)buf, .length = HT_SESSION_RDMA, .lkey = mr->lkey };
	struct dr_send_wr w = { .wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = DR_WR_RDMA_WRITE,
				.send_flags = DR_SEND_SIGNALED };
	uint64_t orig;
	int rc;

	for (uint32_t k = 0; k < HT_SESSION_RDMA; k++)
		buf[k] = ht_pat(k, HT_WRITE_SEED);
	w.wr.rdma.remote_addr = peer->addr;
	w.wr.rdma.rkey = peer->rkey;
	rc = post_one(s, &w, o, why, why_len, "RDMA WRITE");
	if (rc != HT_EXIT_OK)
		return rc;
	memset(buf, 0, HT_SESSION_RDMA);
	w.opcode = DR_WR_RDMA_READ;
	rc = post_one(s, &w, o, why, why_len, "RDMA READ");
	if (rc != HT_EXIT_OK)
		return rc;
	for (uint32_t k = 0; k < HT_SESSION_RDMA; k++)
		if (buf[k] != ht_pat(k, HT_WRITE_SEED)) {
			snprintf(why, why_len, "RDMA READ: byte %u is 0x%02x", k, buf[k]);
			return HT_EXIT_CHECK;
		}
	for (uint32_t k = 0; k < HT_SESSION_SEND; k++)
		buf[k] = ht_pat(k, HT_SEND_SEED);
	sge.length = HT_SESSION_SEND;
	w.opcode = DR_WR_SEND;
	rc = post_one(s, &w, o, why, why_len, "SEND");
	if (rc != HT_EXIT_OK)
		return rc;
	sge.length = 8;
	w.opcode = DR_WR_ATOMIC_FETCH_AND_ADD;
	w.wr.atomic.remote_addr = peer->addr + HT_ATOMIC_OFF;
	w.wr.atomic.rkey = peer->rkey;
	w.wr.atomic.compare_add = HT_ATOMIC_ADD;
	rc = post_one(s, &w, o, why, why_len, "FETCH_AND_ADD");
	if (rc != HT_EXIT_OK)
		return rc;
	memcpy(&orig, buf, 8);
	if (orig != HT_ATOMIC_INIT) {
		snprintf(why, why_len, "FETCH_AND_ADD: original 0x%016llx", (unsigned long long)orig);
		return HT_EXIT_CHECK;
	}
	w.opcode = DR_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.remote_addr = peer->addr + HT_ATOMIC_OFF;
	w.wr.atomic.rkey = peer->rkey;
	w.wr.atomic.compare_add = HT_ATOMIC_INIT + HT_ATOMIC_ADD;
	w.wr.atomic.swap = HT_ATOMIC_SWAP;
	rc = post_one(s, &w, o, why, why_len, "CMP_AND_SWP");
	if (rc != HT_EXIT_OK)
		return rc;
	memcpy(&orig, buf, 8);
	if (orig != HT_ATOMIC_INIT + HT_ATOMIC_ADD) {
		snprintf(why, why_len, "CMP_AND_SWP: original 0x%016llx", (unsigned long long)orig);
		return HT_EXIT_CHECK;
	}
	return HT_EXIT_OK;
}

static int
client_connect_tcp(struct ht_sess *s, const struct ht_opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char port[16];
	int ret;

	snprintf(port, sizeof(port), "%u", o->port);
	ret = getaddrinfo(o->client, port, &hints, &ai);
	if (ret != 0)
		return -EHOSTUNREACH;
	while (dr_app_now() < s->deadline) {
		s->fd = dr_app_try_connect(s->ctx, ai, s->deadline, NULL);
		if (s->fd >= 0)
			break;
		usleep(100000);        /* the target is not listening yet */
	}
	freeaddrinfo(ai);
	return s->fd >= 0 ? 0 : -ETIMEDOUT;
}

int
ht_session_client(struct dr_context *ctx, const struct ht_opts *o, char *why, size_t why_len)
{
	struct ht_sess s = { .ctx = ctx, .fd = -1, .deadline = dr_app_now() + o->timeout_s };
	struct ht_wire me = { .psn = HT_CLIENT_PSN }, peer;
	struct dr_mr *mr = NULL;
	union dr_gid gid;
	uint8_t *buf, go = 0, verdict = 1;
	int ret, rc = HT_EXIT_CHECK;

	buf = aligned_alloc(4096, HT_SESSION_LEN);
	s.pd = dr_alloc_pd(ctx);
	if (buf == NULL || s.pd == NULL) {
		rc = fail(why, why_len, "%s: %s", "setup", ENOMEM);
		goto out;
	}
	mr = dr_reg_mr(s.pd, buf, HT_SESSION_LEN, DR_ACCESS_LOCAL_WRITE);
	ret = mr == NULL ? -errno : sess_qp(&s);
	if (ret == 0)
		ret = dr_query_gid(ctx, 1, 1, &gid);
	if (ret != 0) {
		rc = fail(why, why_len, "%s: %s", "setup", ret);
		goto out;
	}
	ret = client_connect_tcp(&s, o);
	if (ret != 0) {
		rc = fail(why, why_len, "%s: %s", "connect to the target", ret);
		goto out;
	}
	me.qpn = s.qp->qp_num;
	memcpy(me.gid, gid.raw, 16);
	ret = sess_connect(&s, o, &me, &peer);
	if (ret == 0)
		ret = sess_io(&s, &go, 1, false);
	if (ret == 0)
		ret = sess_io(&s, &go, 1, true);
	if (ret != 0) {
		rc = fail(why, why_len, "%s: %s", "exchange", ret);
		goto out;
	}
	rc = client_ops(&s, o, mr, buf, &peer, why, why_len);
	go = rc != HT_EXIT_OK;
	ret = sess_io(&s, &go, 1, true);
	if (ret == 0)
		ret = sess_io(&s, &verdict, 1, false);
	if (rc == HT_EXIT_OK && (ret != 0 || verdict != 0)) {
		snprintf(why, why_len, "the target's checks failed%s", ret != 0 ? " (no verdict)" : "");
		rc = HT_EXIT_CHECK;
	}
out:
	sess_close(&s);
	if (mr != NULL)
		(void)dr_dereg_mr(mr);
	if (s.pd != NULL)
		(void)dr_dealloc_pd(s.pd);
	free(buf);
	return rc;
}
