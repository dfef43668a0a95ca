/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* What the connection manager's example programs share (dr_app_cm.h). */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dr_app.h"
#include "dr_app_cm.h"
#include "dr_app_port.h"
#include "dr_app_sock.h"

void
dr_app_cm_opts_init(struct dr_app_cm_opts *o, unsigned int max_conn, unsigned int max_size)
{
	memset(o, 0, sizeof(*o));
	o->connections = 1;
	o->count = 10;
	o->size = 100;
	o->max_conn = max_conn;
	o->max_size = max_size;
	o->timeout_s = 30;
}

static int
bad(const char *prog, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s %s (see --help)\n", prog, what, arg != NULL ? arg : "");
	return -1;
}

int
dr_app_cm_addr(const char *prog, const char *opt, const char *arg, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, arg, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, arg, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		return 0;
	}
	memset(ss, 0, sizeof(*ss));
	fprintf(stderr, "%s: %s: not an IP address: %s (see --help)\n", prog, opt, arg);
	return -1;
}

void
dr_app_cm_addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const void *a = ss->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr :
						     (const void *)&((const struct sockaddr_in *)ss)->sin_addr;

	if (inet_ntop(ss->ss_family == AF_INET6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

struct sockaddr_storage
dr_app_cm_with_port(const struct sockaddr_storage *ip, uint16_t port)
{
	struct sockaddr_storage ss = *ip;

	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	return ss;
}

struct sockaddr_storage
dr_app_cm_bind_default(const struct dr_app_ips *ips)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (ips->num_ipv6 > 0) {
		ss.ss_family = AF_INET6;          /* in6addr_any */
	} else {
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = ips->ipv4;
	}
	return ss;
}

int
dr_app_ips_opt(struct dr_app_ips *ips, const char *prog, int c, const char *arg)
{
	struct in_addr a;

	if (c == DR_APP_CM_OPT_IP) {
		if (inet_pton(AF_INET, arg, &a) != 1 || a.s_addr == 0)
			return bad(prog, "--ip: not an IPv4 address:", arg);
		ips->ipv4 = a.s_addr;
		return 1;
	}
	if (c == DR_APP_CM_OPT_IPV6)
		return dr_app_add_ipv6(prog, arg, ips->ipv6, 2, &ips->num_ipv6) == 0 ? 1 : -1;
	return 0;
}

int
dr_app_cm_opt(struct dr_app_cm_opts *o, const char *prog, int c, const char *arg)
{
	unsigned long v;
	int ret = dr_app_ips_opt(&o->ips, prog, c, arg);

	if (ret != 0)
		return ret;
	switch (c) {
	case 's':
		return dr_app_cm_addr(prog, "-s", arg, &o->dst) == 0 ? 1 : -1;
	case 'b':
		return dr_app_cm_addr(prog, "-b", arg, &o->src) == 0 ? 1 : -1;
	case 'c':
		if (dr_app_number(arg, 1, o->max_conn, &v) != 0)
			return bad(prog, "-c: connections, from 1 to the tool's bound, not", arg);
		o->connections = (unsigned int)v;
		return 1;
	case 'C':
		if (dr_app_number(arg, 0, 4096, &v) != 0)
			return bad(prog, "-C: a count from 0 to 4096, not", arg);
		o->count = (unsigned int)v;
		return 1;
	case 'S':
		if (dr_app_number(arg, 1, o->max_size, &v) != 0)
			return bad(prog, "-S: a size from 1 to the tool's bound, not", arg);
		o->size = (unsigned int)v;
		return 1;
	case 'V':
		o->validate = true;
		return 1;
	case DR_APP_CM_OPT_TIMEOUT:
		if (dr_app_number(arg, 1, 86400, &v) != 0)
			return bad(prog, "--timeout: seconds, not", arg);
		o->timeout_s = (double)v;
		return 1;
	default:
		if (c >= DR_APP_OPT_MODE && c <= DR_APP_OPT_LAST)
			return dr_app_engine_opt(&o->engine, prog, c, arg) == 0 ? 1 : -1;
		return 0;
	}
}

int
dr_app_cm_opts_finish(struct dr_app_cm_opts *o, const char *prog)
{
	if (o->ips.ipv4 == 0 && o->ips.num_ipv6 == 0)
		return bad(prog, "--ip or --ipv6 is needed", NULL);
	if (o->src.ss_family == AF_UNSPEC && o->dst.ss_family == AF_UNSPEC)
		o->src = dr_app_cm_bind_default(&o->ips);
	return dr_app_engine_finish(&o->engine, prog) != 0 ? -1 : 0;
}

int
dr_app_cm_main(int argc, char **argv, const char *prog, volatile sig_atomic_t *stop,
	       int (*parse)(int argc, char **argv, void *opts), int (*run)(struct dr_context *ctx, const void *opts),
	       void *opts, const struct dr_app_ips *ips, const struct dr_app_engine *engine)
{
	struct dr_app_port port;
	int own_argc, eal_argc, ret;
	char **own_argv;

	eal_argc = dr_app_split_args(argc, argv, &own_argc, &own_argv);
	ret = parse(own_argc, own_argv, opts);
	if (ret != 0)
		return ret < 0 ? 2 : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	dr_app_stop_on_signals(stop, true);
	ret = dr_app_port_open(prog, eal_argc, argv, ips, engine, &port);
	if (ret != 0)
		return ret;
	ret = run(port.ctx, opts);
	dr_app_port_close(prog, &port);
	return ret != 0 ? 1 : 0;
}

void
dr_app_wait_arm(struct dr_app_wait *w)
{
	w->deadline = dr_app_now() + w->timeout_s;
}

bool
dr_app_wait_over(const struct dr_app_wait *w, const char *what)
{
	if (w->stop != NULL && *w->stop) {
		printf("%s: stopped while waiting for %s\n", w->prog, what);
		return true;
	}
	if (dr_app_now() > w->deadline) {
		printf("%s: no %s in %.0f s\n", w->prog, what, w->timeout_s);
		return true;
	}
	return false;
}

static int
dispatch(const struct dr_app_cm_calls *c, void *arg, struct dr_cm_event *ev)
{
	int ret = 0;

	switch (ev->event) {
	case DR_CM_EVENT_ADDR_RESOLVED:
		ret = dr_cm_resolve_route(ev->id, 2000);
		if (ret != 0) {
			printf("%s: resolve route failed: %s\n", c->prog, strerror(-ret));
			c->failed(arg);
		}
		return ret;
	case DR_CM_EVENT_ROUTE_RESOLVED:
		return c->route(arg, ev->id);
	case DR_CM_EVENT_CONNECT_REQUEST:
		return c->request(arg, ev->id);
	case DR_CM_EVENT_ESTABLISHED:
		return c->established(arg, ev);
	case DR_CM_EVENT_ADDR_ERROR:
	case DR_CM_EVENT_ROUTE_ERROR:
	case DR_CM_EVENT_CONNECT_ERROR:
	case DR_CM_EVENT_UNREACHABLE:
	case DR_CM_EVENT_REJECTED:
		printf("%s: event: %s, error: %d\n", c->prog, dr_cm_event_str(ev->event), ev->status);
		c->failed(arg);
		return ev->status != 0 ? ev->status : -1;
	case DR_CM_EVENT_DISCONNECTED:
		if (c->disconnected != NULL)
			c->disconnected(arg, ev->id);
		return 0;
	default:
		return 0;
	}
}

int
dr_app_cm_events(struct dr_cm_event_channel *ch, unsigned int *left, struct dr_app_wait *w, const char *what,
		 const struct dr_app_cm_calls *calls, void *arg)
{
	int ret = 0;

	dr_app_wait_arm(w);
	while (*left > 0 && ret == 0) {
		struct dr_cm_event *ev;

		ret = dr_cm_get_cm_event(ch, &ev);
		if (ret == -EAGAIN) {
			ret = dr_app_wait_over(w, what) ? -ETIMEDOUT : 0;
			continue;
		}
		if (ret != 0) {
			printf("%s: failure in rdma_get_cm_event: %s\n", w->prog, strerror(-ret));
			break;
		}
		ret = dispatch(calls, arg, ev);
		(void)dr_cm_ack_cm_event(ev);
	}
	return ret;
}

struct dr_cm_id *
dr_app_cm_listen(struct dr_cm_event_channel *ch, uint16_t ps, const struct sockaddr_storage *ip, uint16_t port,
		 void *context, const char *prog)
{
	struct sockaddr_storage a = dr_app_cm_with_port(ip, port);
	struct dr_cm_id *id;
	int ret = dr_cm_create_id(ch, &id, context, ps);

	if (ret != 0) {
		printf("%s: listen request failed: %s\n", prog, strerror(-ret));
		return NULL;
	}
	ret = dr_cm_bind_addr(id, (struct sockaddr *)&a);
	if (ret != 0)
		printf("%s: bind address failed: %s\n", prog, strerror(-ret));
	if (ret == 0) {
		ret = dr_cm_listen(id, 0);
		if (ret != 0)
			printf("%s: failure trying to listen: %s\n", prog, strerror(-ret));
	}
	if (ret != 0) {
		(void)dr_cm_destroy_id(id);
		return NULL;
	}
	return id;
}
