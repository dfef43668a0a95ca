/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * dr-opgen's TCP: the server listens on the IPv6 wildcard (IPv4 too) and
 * takes one client; the client retries until the server listens. dr-opgen
 * blocks in read()/write(); here the sockets are non-blocking and every
 * wait drives the transport (dr_progress): the peer resolves our MAC (ARP,
 * ND) while it moves its QP to RTR, and our responder must run while the
 * server waits for the client's verdict. Errors and the deadline end the run
 * through og_fail().
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dr_app_sock.h"
#include "opgen.h"

#define OG_SLICE_S 0.05      /* stop and deadlines are looked at this often while waiting */
#define OG_RETRY_S 0.1

static void
check_time(double deadline)
{
	og_check_deadline();
	if (deadline > 0 && og_now() > deadline)
		og_fail(OG_EXIT_TIMEOUT, "timed out in the TCP exchange (--timeout)");
}

/* Drive the transport until @fd is ready for @events; errors, a stop and the deadlines end the run. */
static void
wait_fd(struct dr_context *ctx, int fd, short events, double deadline)
{
	for (;;) {
		int rc = dr_app_wait_fd(ctx, fd, events, og_now() + OG_SLICE_S, NULL);

		if (rc == 0)
			return;
		if (rc != -ETIMEDOUT)
			og_fail(OG_EXIT_SETUP, "poll: %s", strerror(-rc));
		check_time(deadline);
	}
}

int
og_tcp_server(struct dr_context *ctx, unsigned int port, double deadline)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
				  .sin6_addr = IN6ADDR_ANY_INIT };
	int one = 1, zero = 0, fd, c;

	fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd < 0)
		og_fail(OG_EXIT_SETUP, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0 ||
	    dr_app_nonblock(fd) != 0) {
		int err = errno;

		close(fd);
		og_fail(OG_EXIT_SETUP, "bind/listen on port %u: %s", port, strerror(err));
	}
	printf("server listening on tcp port %u\n", port);
	fflush(stdout);
	for (;;) {
		wait_fd(ctx, fd, POLLIN, deadline);
		c = accept(fd, NULL, NULL);
		if (c >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
			int err = errno;

			close(fd);
			og_fail(OG_EXIT_SETUP, "accept: %s", strerror(err));
		}
	}
	close(fd);
	if (dr_app_nonblock(c) != 0) {
		close(c);
		og_fail(OG_EXIT_SETUP, "fcntl: %s", strerror(errno));
	}
	return c;
}


int
og_tcp_client(struct dr_context *ctx, const char *host, unsigned int port, double deadline)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *r;
	char service[16];
	int err, fd;

	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(host, service, &hints, &res);
	if (err != 0)
		og_fail(OG_EXIT_SETUP, "%s: %s", host, gai_strerror(err));
	/* the server may still be starting: retry until the deadline */
	for (;;) {
		for (r = res; r != NULL; r = r->ai_next) {
			fd = dr_app_try_connect(ctx, r, deadline, &og_stop);
			if (fd >= 0) {
				freeaddrinfo(res);
				return fd;
			}
		}
		for (double until = og_now() + OG_RETRY_S; og_now() < until;) {
			dr_progress(ctx);
			check_time(deadline);   /* a timeout ends the process: res goes with it */
			usleep(1000);
		}
	}
}

void
og_put(struct dr_context *ctx, int fd, const void *p, size_t n, double deadline)
{
	const char *c = p;

	while (n != 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			wait_fd(ctx, fd, POLLOUT, deadline);
			continue;
		}
		if (w <= 0)
			og_fail(OG_EXIT_SETUP, "tcp write: %s", w != 0 ? strerror(errno) : "closed");
		c += w;
		n -= (size_t)w;
	}
}

void
og_get(struct dr_context *ctx, int fd, void *p, size_t n, double deadline)
{
	char *c = p;

	while (n != 0) {
		ssize_t r;

		wait_fd(ctx, fd, POLLIN, deadline);
		r = read(fd, c, n);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			og_fail(OG_EXIT_SETUP, "tcp read: %s", r != 0 ? strerror(errno) : "peer closed");
		c += r;
		n -= (size_t)r;
	}
}

/* Up to @ms ms for @fd to be readable: 1, or 0 (timeout, error). Drives nothing. */
static int
readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	double end = og_now() + ms / 1000.0;

	for (;;) {
		int left = (int)((end - og_now()) * 1000.0);
		int rc = poll(&p, 1, left > 0 ? left : 0);

		if (rc > 0)
			return 1;
		if ((rc < 0 && errno != EINTR) || left <= 0)
			return 0;
	}
}

void
og_tcp_fin(int fd, int ms)
{
	char b = 'F';

	/* best effort: the peer may be gone already (an early end) */
	if (send(fd, &b, 1, MSG_NOSIGNAL) != 1 || !readable(fd, ms))
		return;
	(void)!read(fd, &b, 1);
}

void
og_tcp_wait_closed(int fd, int ms)
{
	char b;

	while (readable(fd, ms)) {
		ssize_t r = read(fd, &b, 1);

		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			return;
	}
}
