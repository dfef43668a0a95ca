/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_CM_H
#define DR_CM_H

/**
 * @file
 * Connection management shaped like librdmacm (rdma_cm(7),
 * rdma_create_id(3), rdma_connect(3), rdma_get_cm_event(3)) under the dr_cm_
 * prefix, over the InfiniBand CM protocol (IBA vol. 1, chapter 12) in MADs
 * on QP1 and the RDMA IP CM service (Annex A11): the peer may be Linux's
 * rdma_cm over rxe or a RoCE NIC.
 *
 * An id is bound to the dpdk-rdma context whose port has its address (the
 * application opens its contexts as usual; the CM of a context starts with
 * its first id). The CM moves an id's QP through INIT (dr_cm_create_qp()),
 * RTR and RTS (on the REP: active; on dr_cm_accept(): passive) and ERR
 * (dr_cm_disconnect()); the application never calls dr_modify_qp() on it.
 *
 * Events come in order on the id's channel, whose fd is readable while one
 * is queued. In DR_PROGRESS_INLINE mode the application's thread drives
 * the transport and the CM: dr_cm_get_cm_event() does while it waits, and
 * so does every dr_progress() / dr_poll_cq(). This version: connected QPs
 * of RDMA_PS_TCP (RC) and IPv4 addresses; see doc/guides/cm.rst.
 */

#include <stdint.h>
#include <sys/socket.h>

#include "dr_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Port spaces (enum rdma_port_space, same values: 0x01 then the IP protocol). */
enum dr_cm_port_space {
	DR_CM_PS_IPOIB = 0x0002,
	DR_CM_PS_TCP = 0x0106,        /**< reliable connected QPs (this version's only) */
	DR_CM_PS_UDP = 0x0111,        /**< UD QPs, through SIDR */
	DR_CM_PS_IB = 0x013F,
};

/** Event types (enum rdma_cm_event_type, same values). */
enum dr_cm_event_type {
	DR_CM_EVENT_ADDR_RESOLVED = 0,
	DR_CM_EVENT_ADDR_ERROR,
	DR_CM_EVENT_ROUTE_RESOLVED,
	DR_CM_EVENT_ROUTE_ERROR,
	DR_CM_EVENT_CONNECT_REQUEST,
	DR_CM_EVENT_CONNECT_RESPONSE,
	DR_CM_EVENT_CONNECT_ERROR,
	DR_CM_EVENT_UNREACHABLE,
	DR_CM_EVENT_REJECTED,
	DR_CM_EVENT_ESTABLISHED,
	DR_CM_EVENT_DISCONNECTED,
	DR_CM_EVENT_DEVICE_REMOVAL,
	DR_CM_EVENT_MULTICAST_JOIN,
	DR_CM_EVENT_MULTICAST_ERROR,
	DR_CM_EVENT_ADDR_CHANGE,
	DR_CM_EVENT_TIMEWAIT_EXIT,
};

/** An event channel (struct rdma_event_channel). */
struct dr_cm_event_channel {
	int fd;                       /**< readable while an event is queued (an eventfd) */
};

/** The route of an id (struct rdma_route, RoCEv2: one path). */
struct dr_cm_route {
	struct sockaddr_storage src_addr;
	struct sockaddr_storage dst_addr;
	union dr_gid sgid;
	union dr_gid dgid;
	uint8_t sgid_index;
	enum dr_mtu mtu;              /**< the path MTU (the context's active MTU) */
};

/** A CM id (struct rdma_cm_id). */
struct dr_cm_id {
	struct dr_context *verbs;     /**< bound context, NULL until bound */
	struct dr_cm_event_channel *channel;
	void *context;                /**< the application's */
	struct dr_qp *qp;             /**< dr_cm_create_qp() */
	struct dr_cm_route route;
	uint16_t ps;                  /**< DR_CM_PS_TCP */
	uint8_t port_num;             /**< 1 */
	struct dr_pd *pd;
};

/** Connection parameters (struct rdma_conn_param). */
struct dr_cm_conn_param {
	const void *private_data;
	uint8_t private_data_len;     /**< REQ: 56 bytes at most; REP 196; REJ 148; DREQ 220 */
	uint8_t responder_resources;  /**< READs/atomics taken at once */
	uint8_t initiator_depth;      /**< READs/atomics issued at once */
	uint8_t flow_control;
	uint8_t retry_count;          /**< 0..7 */
	uint8_t rnr_retry_count;      /**< 0..7, 7 infinite */
	uint8_t srq;
	uint32_t qp_num;
};

/** An event (struct rdma_cm_event); its private data lives until dr_cm_ack_cm_event(). */
struct dr_cm_event {
	struct dr_cm_id *id;          /**< CONNECT_REQUEST: the new id */
	struct dr_cm_id *listen_id;   /**< CONNECT_REQUEST: the listener */
	enum dr_cm_event_type event;
	int status;                   /**< REJECTED: the REJ reason (IBA table 109); errors: -errno */
	struct dr_cm_conn_param conn; /**< CONNECT_REQUEST, ESTABLISHED, REJECTED, DISCONNECTED */
};

/** rdma_create_event_channel(3). NULL with errno set. */
struct dr_cm_event_channel *dr_cm_create_event_channel(void);
/** rdma_destroy_event_channel(3): every id on it destroyed first. @return 0 or -EBUSY. */
int dr_cm_destroy_event_channel(struct dr_cm_event_channel *channel);

/** rdma_create_id(3): an id on @channel for @ps (DR_CM_PS_TCP). @return 0 or -errno. */
int dr_cm_create_id(struct dr_cm_event_channel *channel, struct dr_cm_id **id, void *context, uint16_t ps);
/**
 * rdma_destroy_id(3): its connection released (a REJ, DREQ or DREP as the
 * state asks), its queued events dropped. @return 0, or -EBUSY while it
 * has a QP (dr_cm_destroy_qp() first), an event taken and not
 * acknowledged, or (a listener) a CONNECT_REQUEST not yet taken.
 */
int dr_cm_destroy_id(struct dr_cm_id *id);

/** rdma_bind_addr(3): an IPv4 address (and port) of an open context. -EADDRNOTAVAIL if none has it. */
int dr_cm_bind_addr(struct dr_cm_id *id, const struct sockaddr *addr);
/** rdma_resolve_addr(3): bind to @src (NULL: the first context with an IPv4 address); ADDR_RESOLVED. */
int dr_cm_resolve_addr(struct dr_cm_id *id, const struct sockaddr *src, const struct sockaddr *dst,
		       int timeout_ms);
/** rdma_resolve_route(3): the path (GIDs, MTU); ROUTE_RESOLVED. */
int dr_cm_resolve_route(struct dr_cm_id *id, int timeout_ms);

/** rdma_create_qp(3): a QP on the id's context, in INIT. @p pd NULL: a PD of the id's. */
int dr_cm_create_qp(struct dr_cm_id *id, struct dr_pd *pd, struct dr_qp_init_attr *qp_init_attr);
/** rdma_destroy_qp(3). */
void dr_cm_destroy_qp(struct dr_cm_id *id);

/** rdma_listen(3): CONNECT_REQUEST events for the bound port. */
int dr_cm_listen(struct dr_cm_id *id, int backlog);
/** rdma_connect(3): the REQ; ESTABLISHED, REJECTED or UNREACHABLE follows. */
int dr_cm_connect(struct dr_cm_id *id, struct dr_cm_conn_param *param);
/** rdma_accept(3): on a CONNECT_REQUEST's id: QP to RTR and RTS, the REP; ESTABLISHED follows. */
int dr_cm_accept(struct dr_cm_id *id, struct dr_cm_conn_param *param);
/** rdma_reject(3): the REJ (consumer reason) with @private_data. */
int dr_cm_reject(struct dr_cm_id *id, const void *private_data, uint8_t len);
/** rdma_disconnect(3): QP to ERR, the DREQ (or the DREP of the peer's); DISCONNECTED follows. */
int dr_cm_disconnect(struct dr_cm_id *id);

/**
 * rdma_get_cm_event(3): the next event of @channel (blocking; with
 * O_NONBLOCK on channel->fd, -EAGAIN when there is none). Inline contexts
 * are driven while it waits.
 */
int dr_cm_get_cm_event(struct dr_cm_event_channel *channel, struct dr_cm_event **event);
/** rdma_ack_cm_event(3). */
int dr_cm_ack_cm_event(struct dr_cm_event *event);
/** rdma_event_str(3). */
const char *dr_cm_event_str(enum dr_cm_event_type event);

#ifdef __cplusplus
}
#endif

#endif /* DR_CM_H */
