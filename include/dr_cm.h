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
 * so does every dr_progress() / dr_poll_cq().
 *
 * Port spaces: DR_CM_PS_TCP, reliable connected QPs through REQ/REP/RTU;
 * DR_CM_PS_UDP, UD QPs through Service ID Resolution (IBA 12.11: SIDR_REQ,
 * SIDR_REP with the service's QPN and Q_Key DR_UDP_QKEY).
 *
 * Addresses: IPv4 and IPv6 (struct sockaddr_in, sockaddr_in6). A RoCEv2
 * GID is the IP address, so an address of a port is an entry of its
 * context's GID table: IPv4 at index 1, IPv6 from index 2
 * (dr_context_attr.ipv6_addr), the link-local fe80:: at 0.
 * See doc/guides/cm.rst.
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
	DR_CM_PS_TCP = 0x0106,        /**< reliable connected QPs */
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
	struct dr_cm_event_channel *channel;  /**< NULL: a synchronous id (dr_cm_create_ep()) */
	void *context;                /**< the application's */
	struct dr_qp *qp;             /**< dr_cm_create_qp() */
	struct dr_cm_route route;
	uint16_t ps;                  /**< DR_CM_PS_TCP or DR_CM_PS_UDP */
	uint8_t port_num;             /**< 1 */
	struct dr_pd *pd;
	enum dr_qp_type qp_type;      /**< DR_QPT_RC (PS_TCP) or DR_QPT_UD (PS_UDP) */
	/** dr_cm_create_qp() without CQs: the CQs (and their channels) it made, as librdmacm */
	struct dr_comp_channel *send_cq_channel;
	struct dr_cq *send_cq;
	struct dr_comp_channel *recv_cq_channel;
	struct dr_cq *recv_cq;
	/** A synchronous id: the event of its last call (CONNECT_REQUEST of dr_cm_get_request(), ESTABLISHED) */
	struct dr_cm_event *event;
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

/** What a UD id's events carry (struct rdma_ud_param). */
struct dr_cm_ud_param {
	const void *private_data;
	uint8_t private_data_len;     /**< CONNECT_REQUEST: 180 bytes; ESTABLISHED: 136 */
	struct dr_ah_attr ah_attr;    /**< ESTABLISHED (active): the way to the service (dr_create_ah()) */
	uint32_t qp_num;              /**< ESTABLISHED: the service's QPN */
	uint32_t qkey;                /**< ESTABLISHED: its Q_Key (DR_UDP_QKEY) */
};

/** An event (struct rdma_cm_event); its private data lives until dr_cm_ack_cm_event(). */
struct dr_cm_event {
	struct dr_cm_id *id;          /**< CONNECT_REQUEST: the new id */
	struct dr_cm_id *listen_id;   /**< CONNECT_REQUEST: the listener */
	enum dr_cm_event_type event;
	/**
	 * REJECTED: the REJ reason (IBA table 109); UNREACHABLE of a UD id
	 * answered: the SIDR_REP status (IBA table 121); errors: -errno
	 * (-ETIMEDOUT: no answer to the REQ, REP or SIDR_REQ)
	 */
	int status;
	union {
		struct dr_cm_conn_param conn; /**< PS_TCP: CONNECT_REQUEST, ESTABLISHED, REJECTED, DISCONNECTED */
		struct dr_cm_ud_param ud;     /**< PS_UDP: CONNECT_REQUEST, ESTABLISHED */
	} param;
};

/** rdma_getaddrinfo(3) flags (RAI_*, same values). */
#define DR_CM_RAI_PASSIVE 0x00000001   /**< an address to bind and listen on */
#define DR_CM_RAI_NUMERICHOST 0x00000002

/** An address pair for a port space (struct rdma_addrinfo). */
struct dr_cm_addrinfo {
	int ai_flags;                 /**< DR_CM_RAI_* */
	int ai_family;                /**< AF_INET or AF_INET6 */
	int ai_qp_type;               /**< enum dr_qp_type: RC for PS_TCP, UD for PS_UDP */
	int ai_port_space;            /**< enum dr_cm_port_space */
	socklen_t ai_src_len;
	socklen_t ai_dst_len;
	struct sockaddr *ai_src_addr; /**< passive: the address to bind; active: the source, if hinted */
	struct sockaddr *ai_dst_addr; /**< active: the destination */
	char *ai_src_canonname;       /**< NULL */
	char *ai_dst_canonname;       /**< NULL */
	size_t ai_route_len;          /**< 0 */
	void *ai_route;               /**< NULL */
	size_t ai_connect_len;        /**< 0 */
	void *ai_connect;             /**< NULL */
	struct dr_cm_addrinfo *ai_next;
};

/** rdma_create_event_channel(3). NULL with errno set. */
struct dr_cm_event_channel *dr_cm_create_event_channel(void);
/** rdma_destroy_event_channel(3): every id on it destroyed first. @return 0 or -EBUSY. */
int dr_cm_destroy_event_channel(struct dr_cm_event_channel *channel);

/**
 * rdma_create_id(3): an id on @channel for @ps (DR_CM_PS_TCP or
 * DR_CM_PS_UDP; others -EPROTONOSUPPORT). @p channel NULL: a synchronous
 * id, whose resolve_addr, resolve_route, connect and accept return when
 * their event has come (kept in id->event) and whose listener takes
 * requests with dr_cm_get_request(). @return 0 or -errno.
 */
int dr_cm_create_id(struct dr_cm_event_channel *channel, struct dr_cm_id **id, void *context, uint16_t ps);
/**
 * rdma_destroy_id(3): its connection released (a REJ, DREQ or DREP as the
 * state asks), its queued events dropped. @return 0, or -EBUSY while it
 * has a QP (dr_cm_destroy_qp() first), an event taken and not
 * acknowledged, or (a listener) a CONNECT_REQUEST not yet taken.
 */
int dr_cm_destroy_id(struct dr_cm_id *id);

/**
 * rdma_bind_addr(3): an IPv4 or IPv6 address (and port) of an open
 * context; the wildcard (INADDR_ANY, in6addr_any): the first context with
 * an address of that family. An IPv6 wildcard listener also takes IPv4
 * requests; a bound address only requests to it. @return 0,
 * -EADDRNOTAVAIL if no context has it, -EAFNOSUPPORT, -EINVAL (bound).
 */
int dr_cm_bind_addr(struct dr_cm_id *id, const struct sockaddr *addr);
/**
 * rdma_resolve_addr(3): bind to @p src (NULL: the wildcard of @p dst's
 * family), then take as source the address that reaches @p dst (a
 * link-local IPv6 destination: the link-local GID; a global one: the
 * global GID on its /64, else the first) and post ADDR_RESOLVED.
 * @return 0, -EADDRNOTAVAIL (no source of the family), -EINVAL (families
 * differ, @p dst the wildcard), -EAFNOSUPPORT.
 */
int dr_cm_resolve_addr(struct dr_cm_id *id, const struct sockaddr *src, const struct sockaddr *dst,
		       int timeout_ms);
/** rdma_resolve_route(3): the path (GIDs, MTU); ROUTE_RESOLVED. */
int dr_cm_resolve_route(struct dr_cm_id *id, int timeout_ms);

/** rdma_get_local_addr(3): the id's source address (bound, resolved or from the request); NULL for NULL. */
struct sockaddr *dr_cm_get_local_addr(struct dr_cm_id *id);
/** rdma_get_peer_addr(3): the id's destination address. */
struct sockaddr *dr_cm_get_peer_addr(struct dr_cm_id *id);
/** rdma_get_src_port(3): the id's source port, network order (0: none yet, or @p id NULL). */
uint16_t dr_cm_get_src_port(struct dr_cm_id *id);
/** rdma_get_dst_port(3): the id's destination port, network order. */
uint16_t dr_cm_get_dst_port(struct dr_cm_id *id);

/**
 * rdma_create_qp(3): a QP on the id's context, RC for PS_TCP (in INIT;
 * the CM readies it) or UD for PS_UDP (ready at once: INIT with Q_Key
 * DR_UDP_QKEY, RTR, RTS). @p pd NULL: a PD of the id's. Without send_cq or
 * recv_cq in @p qp_init_attr, a CQ of cap.max_send_wr / max_recv_wr
 * entries with its own completion channel is made for each (id->send_cq,
 * id->recv_cq), as librdmacm does. @return 0 or -errno.
 */
int dr_cm_create_qp(struct dr_cm_id *id, struct dr_pd *pd, struct dr_qp_init_attr *qp_init_attr);
/** rdma_destroy_qp(3): the QP, and the CQs dr_cm_create_qp() made. */
void dr_cm_destroy_qp(struct dr_cm_id *id);

/** rdma_listen(3): CONNECT_REQUEST events for the bound port (a SIDR_REQ's for PS_UDP). */
int dr_cm_listen(struct dr_cm_id *id, int backlog);
/**
 * rdma_connect(3). PS_TCP: the REQ; ESTABLISHED, REJECTED or UNREACHABLE
 * follows. PS_UDP: the SIDR_REQ; ESTABLISHED (param.ud: the service's QPN,
 * Q_Key and address) or UNREACHABLE follows. @p param NULL: librdmacm's
 * defaults (no private data, retry counts 7). A synchronous id returns
 * when it is established: 0, -ECONNREFUSED (rejected), -ETIMEDOUT.
 *
 * The REQ offers the QP's ECE (dr_query_ece(): selective repeat on RC, or
 * what the application set with dr_set_ece() before this call), as Linux's
 * ib_cm carries it; a REP of dpdk-rdma's answers it and the QP takes the
 * options agreed before RTR. A REP without ECE, or another vendor's, sets
 * nothing: IBA's go-back-N (doc/guides/cm.rst).
 */
int dr_cm_connect(struct dr_cm_id *id, struct dr_cm_conn_param *param);
/**
 * rdma_accept(3) on a CONNECT_REQUEST's id. PS_TCP: QP to RTR and RTS, the
 * REP; ESTABLISHED follows (a synchronous id: waited for). PS_UDP: the
 * SIDR_REP with the id's QPN (or @p param->qp_num without a QP) and Q_Key;
 * no event follows. @p param NULL: no private data, responder resources
 * and initiator depth the QP's.
 *
 * A REQ with dpdk-rdma's ECE: the QP takes the options both it
 * (dr_query_ece()) and the REQ offer (dr_set_ece(), before RTR) and the REP
 * answers them; a REQ without ECE (rxe) or of another vendor sets nothing.
 */
int dr_cm_accept(struct dr_cm_id *id, struct dr_cm_conn_param *param);
/** rdma_reject(3): the REJ (consumer reason) with @private_data; PS_UDP: a SIDR_REP "rejected". */
int dr_cm_reject(struct dr_cm_id *id, const void *private_data, uint8_t len);
/** rdma_disconnect(3): QP to ERR, the DREQ (or the DREP of the peer's); DISCONNECTED follows. */
int dr_cm_disconnect(struct dr_cm_id *id);

/**
 * rdma_notify(3): an asynchronous event of the id's QP the CM should know.
 * DR_EVENT_COMM_EST (the QP received before the RTU) establishes a passive
 * connection still waiting for its RTU (IBA 12.9.6); the CM also notices
 * that by itself (at its next pass: within 50 µs inline, 100 ms otherwise).
 * Other events: nothing to do. @return 0 or -EINVAL.
 */
int dr_cm_notify(struct dr_cm_id *id, enum dr_event_type event);
/** dr_cm_set_option() levels and names: rdma_set_option(3)'s values. */
enum {
	DR_CM_OPTION_ID = 0,              /**< RDMA_OPTION_ID: options of the id */
};
enum {
	DR_CM_OPTION_ID_ACK_TIMEOUT = 3,  /**< RDMA_OPTION_ID_ACK_TIMEOUT: a uint8_t */
};

/**
 * rdma_set_option(3). DR_CM_OPTION_ID_ACK_TIMEOUT (a uint8_t, 0 to 31):
 * the local ACK timeout of the id's QP, IBA's encoding (4.096 us *
 * 2^timeout, 0: none; IBA 9.7.6.1.3), in place of the 19 (2.1 s) Linux's
 * rdma_cm sends for RoCE. Set before dr_cm_connect() (the REQ carries it,
 * the QP takes it at RTS) or dr_cm_accept() (our QP takes it instead of
 * the REQ's). @return 0, -EINVAL (NULL id or value, a value above 31, a
 * length not 1), -ENOSYS (another level or option: not offered).
 */
int dr_cm_set_option(struct dr_cm_id *id, int level, int optname, const void *optval, size_t optlen);

/**
 * rdma_migrate_id(3): @p id's events go to @p channel from now on (NULL:
 * the id becomes synchronous), its queued ones moved there. @return 0,
 * -EBUSY while an event of it is taken and not acknowledged, -EINVAL,
 * -ENOMEM.
 */
int dr_cm_migrate_id(struct dr_cm_id *id, struct dr_cm_event_channel *channel);

/**
 * rdma_get_request(3): on a synchronous listener, wait for the next
 * connection request; *@p id is its new id (synchronous, id->event its
 * CONNECT_REQUEST), with a QP if the listener came from dr_cm_create_ep()
 * with QP attributes. @return 0 or -errno (-EINVAL: not a synchronous
 * listener).
 */
int dr_cm_get_request(struct dr_cm_id *listen, struct dr_cm_id **id);

/**
 * rdma_getaddrinfo(3): @p node (an IPv4 or IPv6 address or a name of
 * @p hints->ai_family, AF_INET, AF_INET6 or 0 for either; NULL with
 * DR_CM_RAI_PASSIVE: the wildcard, IPv4 unless the hints ask IPv6) and @p service (a port number) as an address
 * pair for @p hints->ai_port_space (default DR_CM_PS_TCP). Free it with
 * dr_cm_freeaddrinfo(). @return 0, -EINVAL (a service that is not a
 * port), -EADDRNOTAVAIL (a name that does not resolve), -EAFNOSUPPORT,
 * -EPROTONOSUPPORT, -ENOMEM.
 */
int dr_cm_getaddrinfo(const char *node, const char *service, const struct dr_cm_addrinfo *hints,
		      struct dr_cm_addrinfo **res);
/** rdma_freeaddrinfo(3). */
void dr_cm_freeaddrinfo(struct dr_cm_addrinfo *res);

/**
 * rdma_create_ep(3): a synchronous id for @p res. Passive (RAI_PASSIVE):
 * bound to its source (then dr_cm_listen(), dr_cm_get_request()); with
 * @p qp_init_attr, every request's id gets a QP of them on @p pd. Active:
 * its address and route resolved, and with @p qp_init_attr its QP.
 * @return 0 or -errno.
 */
int dr_cm_create_ep(struct dr_cm_id **id, const struct dr_cm_addrinfo *res, struct dr_pd *pd,
		    struct dr_qp_init_attr *qp_init_attr);
/** rdma_destroy_ep(3): its QP (and the CQs made for it), then the id. */
void dr_cm_destroy_ep(struct dr_cm_id *id);

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
