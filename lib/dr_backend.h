/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_BACKEND_H
#define DR_BACKEND_H

/*
 * The driver SDK: what a backend (drivers/) gives the transport, and the few
 * services the library gives a backend. Not installed: backends are built
 * into the library (doc/guides/backends.rst says how to write one).
 *
 * A backend is one const struct dr_backend_ops. It registers itself from a
 * constructor, DR_BACKEND_REGISTER(ops), as a DPDK PMD does with
 * RTE_PMD_REGISTER_VDEV: the library names no driver. A context picks one
 * when it opens: by name (dr_context_attr.backend), else the registered
 * backend of highest priority that claims the port (port_info() == 0).
 *
 * Everything a backend learns of the context it binds is in its struct
 * dr_backend_port: the library fills the "in" part before open(), the
 * backend the "out" part in open(). Backends never see struct dr_context.
 * All ops return 0 or -errno and never print, exit or abort.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dr_verbs.h"

/* Largest number of registered backends. */
#define DR_BACKEND_MAX 8
/* Room for a port's name in struct dr_backend_port_info (RTE_ETH_NAME_MAX_LEN is 64). */
#define DR_BACKEND_NAME_LEN 64

/* What a backend says of a port before any context is open on it (port_info). */
struct dr_backend_port_info {
	char name[DR_BACKEND_NAME_LEN];     /* the port's name ("net_memif0", "0000:81:00.0") */
	int socket_id;                      /* its NUMA socket, SOCKET_ID_ANY when unknown */
	bool listed;                        /* dr_get_device_list() shows it (false: another
					     * DPDK entity owns it, e.g. a bonding member) */
	uint16_t max_queues;                /* queue pairs it can have (min of rx and tx) */
	uint16_t mtu;                       /* its MTU now (IP MTU, bytes) */
	uint16_t max_data_room;             /* largest mbuf data room it receives into (0: any) */
	bool rss_udp;                       /* spreads received UDP over its queues by a hash that
					     * includes the source port (RoCEv2's per-QP entropy) */
};

/* Link state (link_get). */
struct dr_backend_link {
	bool up;
	uint32_t speed_mbps;                /* 0: unknown (virtual PMDs) */
};

/* The port's own counters (port_stats): what never reached a queue, or left it. */
struct dr_backend_port_stats {
	uint64_t ipackets, opackets;
	uint64_t imissed;                   /* dropped by the port: its rx queues were full */
	uint64_t ierrors;                   /* received in error */
	uint64_t rx_nombuf;                 /* dropped: no mbuf for them */
	uint64_t oerrors;                   /* failed to transmit */
};

/* A context's binding to its port: what the library gives open(), and what open() gives back. */
struct dr_backend_port {
	/* in: set by the library before open(), constant until close() */
	uint16_t port_id;
	const struct dr_context_attr *attr; /* as the application opened the context */
	uint16_t nb_queues;                 /* queue pairs wanted, >= 1 (one per rtc worker / pipeline group that is to
					     * own one); configure_port: the backend makes at most
					     * this many; else it uses at most this many from
					     * attr->rx_queue / attr->tx_queue */
	struct rte_mempool *pool;           /* receive into it; ARP/ND frames come from it */
	uint64_t tsc_hz;
	const union dr_gid *gid;            /* the context's GID table (DR_MAX_GIDS entries, */
	const uint8_t *gid_valid;           /* filled after open(): read it when frames come) */

	/* out: set by open() */
	struct rte_ether_addr mac;
	uint32_t mtu;                       /* the link's IP MTU in bytes */
	uint32_t max_frame;                 /* the longest frame (Ethernet header on) the port
					     * carries when that is less than the MTU says (a
					     * PMD's ring frames), else 0: the path MTU fits it */
	uint16_t rx_queue, tx_queue;        /* the first queue of each the workers use */
	uint16_t nb_rxq, nb_txq;            /* how many from there (1 .. nb_queues) */
	bool rss_udp;                       /* the rx queues are fed by RSS on UDP */
	bool flow_isolated;                 /* rte_flow (or an XDP program) steers RoCEv2, ARP and ND to
					     * the rx queues and leaves the port's other traffic to its owner */
	bool tx_zcopy;                      /* tx_burst takes chains whose payload is attached from
					     * any memory (dr_pkt_attach()): the PMD reads frames with
					     * the CPU by virtual address (software PMDs) */
	uint16_t rx_data_room;              /* of a port the application runs: the data room of the
					     * mbufs its rx queue attr->rx_queue receives into, when one
					     * mbuf holds each frame (no scattered receive); else 0 */
	void *priv;                         /* the backend's own */
};

struct dr_backend_ops {
	const char *name;
	/* The default for a port is the registered backend of highest priority that claims it. */
	int priority;
	/* open() binds with attr->io == DR_IO_APP (a port the application owns, queues and all) */
	bool app_io;
	/*
	 * What the port is, or -ENODEV when there is no such port or it is not
	 * this backend's to drive. Called before any context opens on the port
	 * (device list, dr_open_device()), from the control thread.
	 */
	int (*port_info)(uint16_t port_id, struct dr_backend_port_info *info);
	/*
	 * Bind to bp->port_id. When bp->attr->configure_port: configure and
	 * start the port with up to bp->nb_queues rx and tx queues (as far as
	 * the PMD has them), steer RoCEv2 to them where the port can; else use
	 * the queues the application set up. With bp->attr->io == DR_IO_APP
	 * (only where app_io is set): touch no queue, read the port only
	 * (rx_burst and tx_burst are not called; the library moves the frames
	 * through the application). Fill the "out" fields. On failure leave
	 * nothing allocated. 0 or -errno.
	 */
	int (*open)(struct dr_backend_port *bp);
	/* Undo open (stop and close the port when open configured it); frees bp->priv. */
	void (*close)(struct dr_backend_port *bp);
	/* Link state, without waiting (a system call at most). 0 or -errno. */
	int (*link_get)(struct dr_backend_port *bp, struct dr_backend_link *link);
	/*
	 * Optional: make tx queue @queue give back the mbufs it has sent (a port
	 * the application keeps running after close, whose ring still holds our
	 * pool's mbufs). May be called after close(). 0 or -errno.
	 */
	int (*tx_done_cleanup)(struct dr_backend_port *bp, uint16_t queue);
	/*
	 * The fast path: receive up to n frames from rx queue @queue / transmit up
	 * to n on tx queue @queue (the frames not taken stay the caller's, in
	 * order). One worker owns each queue: no lock, no allocation, no system
	 * call, no log above DEBUG.
	 */
	uint16_t (*rx_burst)(struct dr_backend_port *bp, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
	uint16_t (*tx_burst)(struct dr_backend_port *bp, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
	/*
	 * A received frame that is not RoCEv2 (dr_pkt_parse() said DR_PKT_NOT_*):
	 * answer ARP / neighbour solicitations for our addresses, learn from
	 * replies. Takes ownership of m. Called by worker 0 only.
	 */
	void (*rx_other)(struct dr_backend_port *bp, struct rte_mbuf *m);
	/*
	 * MAC of the neighbour with address gid (IPv4-mapped or IPv6).
	 * Returns 0, or -EAGAIN while resolution is under way (a request was
	 * sent, rate-limited; retry later), or -errno. Called by any worker and
	 * by the control side: the backend makes its table safe for that.
	 */
	int (*resolve)(struct dr_backend_port *bp, const union dr_gid *gid, struct rte_ether_addr *mac);
	/* Optional: the port's counters (the whole port, whoever else uses it). 0 or -errno. */
	int (*port_stats)(struct dr_backend_port *bp, struct dr_backend_port_stats *st);
	/* Optional: add a static neighbour. */
	int (*add_neighbour)(struct dr_backend_port *bp, const union dr_gid *gid,
			     const struct rte_ether_addr *mac);
	/*
	 * Optional (dr_flow_steer()): on a port the application configured (open
	 * did not), steer the frames of our addresses to its rx queue @queue
	 * without taking the port's other traffic or isolating it; undone by
	 * close. The number of rules (or steering entries) made, or -ENOTSUP
	 * where the port cannot, -EINVAL for a queue it does not have, -errno.
	 * Control thread.
	 */
	int (*flow_steer)(struct dr_backend_port *bp, uint16_t queue);
};

/*
 * Add @ops to the registry (a backend's constructor calls it). -EINVAL when
 * a mandatory op or the name is missing, -EEXIST when the name is taken,
 * -ENOSPC beyond DR_BACKEND_MAX.
 */
int dr_backend_register(const struct dr_backend_ops *ops);

/* Register @ops when the program starts (the driver's object must be linked whole). */
#define DR_BACKEND_REGISTER(ops) \
	RTE_INIT(dr_backend_init_ ## ops) \
	{ \
		(void)dr_backend_register(&(ops)); \
	}

/* The registered backend named @name; NULL: the one of highest priority. NULL if none. */
const struct dr_backend_ops *dr_backend_find(const char *name);
/*
 * The registered backend of highest priority that claims @port_id (its info
 * in @info); with @app_io, the one of those that binds DR_IO_APP contexts.
 * NULL if none.
 */
const struct dr_backend_ops *dr_backend_for_port(uint16_t port_id, struct dr_backend_port_info *info);
const struct dr_backend_ops *dr_backend_for_port_io(uint16_t port_id, bool app_io,
						    struct dr_backend_port_info *info);
/* The registered backends, in order of decreasing priority; returns how many (at most @max). */
unsigned int dr_backend_list(const struct dr_backend_ops **list, unsigned int max);

/*
 * Services of the library to backends.
 *
 * Queue a frame the backend built (an ARP reply, a neighbour solicitation)
 * for transmission on the port of @bp: with the calling worker's next flush,
 * or through worker 0 when called outside the workers. Takes @m.
 */
void dr_backend_tx(struct dr_backend_port *bp, struct rte_mbuf *m);

#endif /* DR_BACKEND_H */
