/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The connection manager of a context: QP1, the agent, and who drives them (dr_cm_svc.h). */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_random.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "dr_cm_svc.h"
#include "dr_context.h"
#include "dr_log.h"

#define IDLE_MS 100              /* the thread looks again at least this often */

uint64_t
dr_cm_svc_now(void)
{
	static uint64_t hz;

	if (hz == 0)
		hz = rte_get_tsc_hz();
	return (uint64_t)((double)rte_rdtsc() * 1e9 / (double)hz);
}

void
dr_cm_svc_lock(struct dr_cm_svc *s)
{
	pthread_mutex_lock(&s->lock);
}

void
dr_cm_svc_unlock(struct dr_cm_svc *s)
{
	pthread_mutex_unlock(&s->lock);
}

struct dr_cm_svc *
dr_cm_svc_of(struct dr_context *ctx)
{
	return ctx->cm;
}

/* ---- the agent's callbacks: the wire (QP1) and the owner ------------------- */

static void
agent_send(void *owner, const struct dr_cm_peer *to, const uint8_t *mad)
{
	struct dr_cm_svc *s = owner;

	/* a MAD QP1 cannot take now is lost as on the wire: the CM resends on its timer */
	if (dr_gsi_send(&s->gsi, to->gid, mad) != 0)
		s->stats.tx_dropped++;
}

static void
agent_req(void *owner, void *listener, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct dr_cm_svc *s = owner;

	if (s->ops->req != NULL)
		s->ops->req(s, listener, from, mad);
}

static void
agent_event(void *owner, struct dr_cm_conn *c, enum dr_cm_conn_event ev, const uint8_t *mad)
{
	struct dr_cm_svc *s = owner;

	if (s->ops->event != NULL)
		s->ops->event(s, c, ev, mad);
}

static void
agent_sidr_req(void *owner, void *listener, const struct dr_cm_peer *from, const uint8_t *mad)
{
	struct dr_cm_svc *s = owner;

	if (s->ops->sidr_req != NULL)
		s->ops->sidr_req(s, listener, from, mad);
	else
		(void)dr_cm_agent_sidr_rep(&s->agent, from, mad, DR_CM_SIDR_UNSUPPORTED, 0, 0, NULL, 0);
}

static void
agent_sidr_rep(void *owner, void *user, const uint8_t *mad)
{
	struct dr_cm_svc *s = owner;

	if (s->ops->sidr_rep != NULL)
		s->ops->sidr_rep(s, user, mad);
}

static const struct dr_cm_agent_ops agent_ops = {
	.send = agent_send, .req = agent_req, .event = agent_event,
	.sidr_req = agent_sidr_req, .sidr_rep = agent_sidr_rep,
};

/* ---- driving ---------------------------------------------------------------- */

static void
gsi_rx(void *arg, const uint8_t gid[16], const uint8_t *mad, size_t len)
{
	struct dr_cm_svc *s = arg;
	struct dr_cm_peer from;

	memcpy(from.gid, gid, 16);
	dr_cm_agent_rx(&s->agent, &from, mad, len, dr_cm_svc_now());
}

/* One pass, locked: every MAD QP1 holds, then every timer due. */
static void
poll_once(struct dr_cm_svc *s)
{
	uint64_t now;

	s->stats.polls++;
	while (dr_gsi_poll(&s->gsi, gsi_rx, s) > 0)
		;
	now = dr_cm_svc_now();
	dr_cm_agent_timers(&s->agent, now);
	if (s->ops->tick != NULL)
		s->ops->tick(s, now);
}

/* Inline: from dr_progress(), at most every DR_CM_POLL_US; never waits for the lock. */
static void
svc_progress(struct dr_context *ctx, uint64_t now)
{
	struct dr_cm_svc *s = ctx->cm;

	ctx->cm_next = now + s->poll_cycles;
	/* QP1's CQ poll drives dr_progress() in inline mode, which comes back here */
	if (s->polling || pthread_mutex_trylock(&s->lock) != 0)
		return;
	s->polling = true;
	poll_once(s);
	s->polling = false;
	pthread_mutex_unlock(&s->lock);
}

/* rtc, pipeline: asleep until QP1 has a completion, a timer is due, or it must stop. */
static void *
svc_thread(void *arg)
{
	struct dr_cm_svc *s = arg;

	while (!s->stop) {
		struct pollfd p[2] = { { .fd = s->chan->fd, .events = POLLIN },
				       { .fd = s->wake_fd, .events = POLLIN } };
		uint64_t next, now;
		int ms;

		pthread_mutex_lock(&s->lock);
		(void)dr_req_notify_cq(s->gsi.cq, 0);
		poll_once(s);
		next = dr_cm_agent_next_deadline(&s->agent);
		pthread_mutex_unlock(&s->lock);
		now = dr_cm_svc_now();
		ms = next == UINT64_MAX ? IDLE_MS :
		     next <= now ? 0 : (int)RTE_MIN((next - now) / 1000000 + 1, (uint64_t)IDLE_MS);
		if (poll(p, 2, ms) > 0 && (p[0].revents & POLLIN)) {
			struct dr_cq *cq;
			void *cq_ctx;

			if (dr_get_cq_event(s->chan, &cq, &cq_ctx) == 0)
				dr_ack_cq_events(cq, 1);
		}
	}
	return NULL;
}

/*
 * Linger (as SO_LINGER): for at most DR_CM_LINGER_MS, until QP1 has sent
 * all it holds and no DREQ of ours waits for its DREP, keep the CM going,
 * so the last DREQ, DREP or RTU reaches the peer and the peer's DREQ is
 * answered. A kernel's CM outlives the process that used it; ours ends
 * with the context, and a peer left without a DREP retries for a minute
 * (rdma_destroy_id() blocks that long on Linux).
 */
static void
svc_linger(struct dr_context *ctx)
{
	struct dr_cm_svc *s = ctx->cm;
	uint64_t end = dr_cm_svc_now() + DR_CM_LINGER_MS * 1000000ull;

	if (s == NULL)
		return;
	ctx->cm_linger = NULL;
	for (;;) {
		bool settled;

		if (!s->threaded)
			(void)dr_progress(ctx);          /* inline: the transport and the CM */
		pthread_mutex_lock(&s->lock);
		if (!s->threaded)
			poll_once(s);
		settled = !dr_gsi_sending(&s->gsi) && !dr_cm_agent_disconnecting(&s->agent);
		pthread_mutex_unlock(&s->lock);
		if (settled || dr_cm_svc_now() > end)
			break;
		if (s->threaded)
			rte_delay_us_sleep(200);
	}
}

static void
svc_close(struct dr_context *ctx)
{
	svc_linger(ctx);    /* inline (its workers stopped first otherwise: nothing carries it) */
	dr_cm_svc_stop(ctx);
}

static void
svc_free(struct dr_cm_svc *s)
{
	dr_gsi_close(&s->gsi);
	dr_cm_agent_fini(&s->agent);
	if (s->chan != NULL)
		(void)dr_destroy_comp_channel(s->chan);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	pthread_mutex_destroy(&s->lock);
	rte_free(s);
}

int
dr_cm_svc_start(struct dr_context *ctx, const struct dr_cm_svc_ops *ops, void *owner)
{
	bool engine = ctx->attr.mode != DR_PROGRESS_INLINE;
	union dr_gid gid;
	struct dr_cm_svc *s;
	uint64_t guid = 0;
	int ret;

	if (ctx->cm != NULL)
		return -EEXIST;
	s = rte_zmalloc("dr_cm_svc", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		return -ENOMEM;
	s->ctx = ctx;
	s->ops = ops;
	s->owner = owner;
	s->wake_fd = -1;
	s->poll_cycles = rte_get_tsc_hz() / 1000000 * DR_CM_POLL_US;
	pthread_mutex_init(&s->lock, NULL);
	/*
	 * Our CA GUID: the EUI-64 of the link-local GID (the port's MAC), as
	 * rxe's node GUID. A port without a MAC (all zero: ring ports) gets a
	 * random one, locally administered (bit 57: the EUI-64 U/L bit).
	 */
	if (dr_query_gid(ctx, 1, 0, &gid) == 0)
		for (int i = 8; i < 16; i++)
			guid = guid << 8 | gid.raw[i];
	if ((guid & ~(UINT64_C(0xFFFF) << 24) & ~(UINT64_C(1) << 57)) == 0)
		guid = (rte_rand() & ~(UINT64_C(1) << 57)) | (UINT64_C(1) << 57);
	ret = dr_cm_agent_init(&s->agent, DR_CM_MAX_CONNS, DR_CM_MAX_LISTENERS, DR_CM_MAX_SIDR, guid,
			       (uint32_t)rte_rdtsc(), &agent_ops, s);
	if (ret == 0 && engine) {
		s->chan = dr_create_comp_channel(ctx);
		s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (s->chan == NULL || s->wake_fd < 0)
			ret = -ENOMEM;
	}
	if (ret == 0)
		ret = dr_gsi_open(&s->gsi, ctx, s->chan);
	if (ret == 0 && engine) {
		ret = -pthread_create(&s->thread, NULL, svc_thread, s);
		s->threaded = ret == 0;
	}
	if (ret != 0) {
		DR_LOG(cm, ERR, "connection manager: %s", strerror(-ret));
		svc_free(s);
		return ret;
	}
	dr_cm_telemetry_init();
	ctx->cm = s;
	ctx->cm_close = svc_close;
	ctx->cm_linger = svc_linger;
	if (!engine) {
		ctx->cm_next = 0;
		__atomic_store_n(&ctx->cm_progress, svc_progress, __ATOMIC_RELEASE);
	}
	return 0;
}

void
dr_cm_svc_stop(struct dr_context *ctx)
{
	struct dr_cm_svc *s = ctx->cm;
	uint64_t one = 1;

	if (s == NULL)
		return;
	ctx->cm_progress = NULL;
	ctx->cm_close = NULL;
	ctx->cm_linger = NULL;
	/* unhooked under the registry's lock: /dr/cm/stats reads the service under it */
	dr_ctx_registry_lock();
	ctx->cm = NULL;
	dr_ctx_registry_unlock();
	if (s->threaded) {
		s->stop = true;
		(void)!write(s->wake_fd, &one, sizeof(one));
		pthread_join(s->thread, NULL);
	}
	svc_free(s);
}
