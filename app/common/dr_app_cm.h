/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_APP_CM_H
#define DR_APP_CM_H

/*
 * What librdmacm's example programs on dr_cm_ (cmatose, udaddy, rping)
 * share: their options (-s -b -c -C -S, --ip, --timeout, the engine's),
 * their main() (EAL and the port around the test), waits bounded by
 * --timeout and a stop flag, the loop that takes CM events until a count
 * is down, and a listening id.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <sys/socket.h>

#include "dr_app_engine.h"
#include "dr_app_port.h"
#include "dr_cm.h"

/* The options cmatose and udaddy share (the tools' own -s -b -c -C -S, and ours). */
struct dr_app_cm_opts {
	struct sockaddr_storage dst;  /* -s: the server (client mode); AF_UNSPEC: server mode */
	struct sockaddr_storage src;  /* -b: bind address (AF_UNSPEC: dr_app_cm_bind_default()) */
	unsigned int connections;  /* -c (1) */
	unsigned int count;        /* -C (10) */
	unsigned int size;         /* -S (100) */
	unsigned int max_conn;     /* -c's bound */
	unsigned int max_size;     /* -S's bound */
	bool validate;             /* -V */
	struct dr_app_ips ips;     /* --ip, --ipv6: the port's addresses */
	double timeout_s;          /* --timeout (30): every wait */
	struct dr_app_engine engine;
};

/* Long options every such program takes (before its own and DR_APP_ENGINE_LONG_OPTS). */
enum { DR_APP_CM_OPT_IP = 0x180, DR_APP_CM_OPT_IPV6, DR_APP_CM_OPT_TIMEOUT };
#define DR_APP_CM_LONG_OPTS \
	{ "ip", required_argument, NULL, DR_APP_CM_OPT_IP }, \
	{ "ipv6", required_argument, NULL, DR_APP_CM_OPT_IPV6 }, \
	{ "timeout", required_argument, NULL, DR_APP_CM_OPT_TIMEOUT }

/* What --help says of them. */
#define DR_APP_CM_ADDR_HELP \
	"  --ip ADDR          the port's IPv4 address (GID index 1)\n" \
	"  --ipv6 ADDR        an IPv6 address of the port (GID index 2, then 3; up to 2)\n"

/*
 * @arg, an IPv4 or IPv6 address, into @ss (port 0). 0, or -1 after saying
 * "<prog>: <opt>: not an IP address: <arg>" on stderr.
 */
int dr_app_cm_addr(const char *prog, const char *opt, const char *arg, struct sockaddr_storage *ss);

/* @ss's address as text in @buf (INET6_ADDRSTRLEN bytes will do). */
void dr_app_cm_addr_str(const struct sockaddr_storage *ss, char *buf, size_t len);

/* @ip with @port (host order): what dr_cm_bind_addr() / resolve_addr() take. */
struct sockaddr_storage dr_app_cm_with_port(const struct sockaddr_storage *ip, uint16_t port);

/*
 * A server's bind address when -b is not given: the IPv6 wildcard where
 * the port has an IPv6 address (it takes IPv4 requests too), else the
 * port's IPv4 address.
 */
struct sockaddr_storage dr_app_cm_bind_default(const struct dr_app_ips *ips);

/* --ip / --ipv6 into @ips: 1 taken, 0 not one of them, -1 a bad value (said). */
int dr_app_ips_opt(struct dr_app_ips *ips, const char *prog, int c, const char *arg);

/* Defaults: one connection, 10 messages of 100 bytes, 30 s waits. */
void dr_app_cm_opts_init(struct dr_app_cm_opts *o, unsigned int max_conn, unsigned int max_size);

/*
 * Option @c (getopt's) of the shared set: 1 taken, 0 not one of them, -1
 * a bad value (said on stderr, prefixed by @prog).
 */
int dr_app_cm_opt(struct dr_app_cm_opts *o, const char *prog, int c, const char *arg);

/* After getopt: --ip or --ipv6 given, -b defaulted, the engine's options checked. 0 or -1 (said). */
int dr_app_cm_opts_finish(struct dr_app_cm_opts *o, const char *prog);

/*
 * The whole program: own options (@parse: 0 run, 1 help printed, -1 usage
 * error), EAL and the first port as a context with the addresses @ips in
 * @engine's mode, @run, teardown. Exit status: 0 done, 1 failed, 2 usage
 * or setup.
 */
int dr_app_cm_main(int argc, char **argv, const char *prog, volatile sig_atomic_t *stop,
		   int (*parse)(int argc, char **argv, void *opts), int (*run)(struct dr_context *ctx, const void *opts),
		   void *opts, const struct dr_app_ips *ips, const struct dr_app_engine *engine);

/* A wait bounded by a time (dr_app_now(), dr_app_sock.h) and a stop flag. */
struct dr_app_wait {
	double deadline;
	double timeout_s;
	volatile sig_atomic_t *stop;
	const char *prog;          /* the tool's name in what it prints ("cmatose") */
};

/* Start a wait of w->timeout_s. */
void dr_app_wait_arm(struct dr_app_wait *w);
/* True (said on stdout: "<prog>: no <what> in N s") when the wait is over or stopped. */
bool dr_app_wait_over(const struct dr_app_wait *w, const char *what);

/*
 * What a program does with each CM event (the examples' cma_handler()):
 * ADDR_RESOLVED resolves the route, an error event is printed and the
 * connection given up (@failed); the rest go to the program.
 */
struct dr_app_cm_calls {
	const char *prog;
	int (*route)(void *arg, struct dr_cm_id *id);           /* ROUTE_RESOLVED: QP, connect */
	int (*request)(void *arg, struct dr_cm_id *id);         /* CONNECT_REQUEST: QP, accept */
	int (*established)(void *arg, struct dr_cm_event *ev);  /* ESTABLISHED */
	void (*disconnected)(void *arg, struct dr_cm_id *id);   /* DISCONNECTED (NULL: none expected) */
	void (*failed)(void *arg);                              /* a connection given up */
};

/*
 * Take events of @ch (O_NONBLOCK) and hand each on as @calls say until
 * *@left is 0 or a call fails: its result, -ETIMEDOUT, or the -errno of
 * dr_cm_get_cm_event(). Every event is acknowledged after its call.
 */
int dr_app_cm_events(struct dr_cm_event_channel *ch, unsigned int *left, struct dr_app_wait *w, const char *what,
		     const struct dr_app_cm_calls *calls, void *arg);

/* An id of @ps bound to @ip:@port and listening, with @context; NULL after saying why. */
struct dr_cm_id *dr_app_cm_listen(struct dr_cm_event_channel *ch, uint16_t ps, const struct sockaddr_storage *ip,
				  uint16_t port, void *context, const char *prog);


#endif /* DR_APP_CM_H */
