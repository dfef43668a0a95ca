/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The out-of-band TCP exchange: one connection; whole messages in and out
 * (their layout: oob_codec.c); a timeout for the rest of a message once it
 * has begun; a signal or a closed connection ends any wait.
 */

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oob.h"

static int
sock_err(const char *what)
{
	perf_err("out-of-band exchange", "%s: %s", what, strerror(errno));
	return -1;
}

static void
tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int
oob_listen(struct oob *ob, const char *bind_addr, uint16_t port, volatile sig_atomic_t *stop)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	char service[8];
	int one = 1, ret;

	ob->fd = ob->lfd = -1;
	ob->stop = stop;
	ob->broken = false;
	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(bind_addr, service, &hints, &res);
	if (ret != 0) {
		perf_err("--oob-bind", "%s: %s", bind_addr, gai_strerror(ret));
		return -1;
	}
	ob->lfd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
	if (ob->lfd < 0) {
		freeaddrinfo(res);
		return sock_err("socket");
	}
	setsockopt(ob->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ob->lfd, res->ai_addr, res->ai_addrlen) != 0) {
		freeaddrinfo(res);
		perf_err("out-of-band exchange", "cannot listen on %s port %u: %s", bind_addr, port,
			 strerror(errno));
		return -1;
	}
	freeaddrinfo(res);
	if (listen(ob->lfd, 1) != 0)
		return sock_err("listen");
	return 0;
}

int
oob_accept_next(struct oob *ob)
{
	int ret;

	ob->broken = false;
	for (;;) {
		struct pollfd pfd = { .fd = ob->lfd, .events = POLLIN };

		if (*ob->stop)
			return 0;
		ret = poll(&pfd, 1, 100);
		if (ret < 0 && errno != EINTR)
			return sock_err("poll");
		if (ret <= 0)
			continue;
		ob->fd = accept4(ob->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (ob->fd >= 0)
			break;
		if (errno != EINTR && errno != ECONNABORTED)
			return sock_err("accept");
	}
	tune(ob->fd);
	return 1;
}

int
oob_accept(struct oob *ob, const char *bind_addr, uint16_t port, volatile sig_atomic_t *stop)
{
	int ret;

	if (oob_listen(ob, bind_addr, port, stop) != 0)
		return -1;
	ret = oob_accept_next(ob);
	if (ret == 0)
		perf_err("out-of-band exchange", "interrupted while waiting for a client");
	return ret == 1 ? 0 : -1;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
oob_connect(struct oob *ob, const char *host, uint16_t port, volatile sig_atomic_t *stop)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	double deadline = now_s() + OOB_CONNECT_TIMEOUT_S;
	int last_err = 0;
	char service[8];

	ob->fd = ob->lfd = -1;
	ob->stop = stop;
	ob->broken = false;
	snprintf(service, sizeof(service), "%u", port);
	while (!*stop) {
		struct addrinfo *res = NULL, *ai;
		int ret = getaddrinfo(host, service, &hints, &res);

		if (ret != 0) {
			perf_err(host, "cannot resolve the server address: %s", gai_strerror(ret));
			return -1;
		}
		for (ai = res; ai != NULL; ai = ai->ai_next) {
			ob->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
			if (ob->fd < 0)
				continue;
			if (connect(ob->fd, ai->ai_addr, ai->ai_addrlen) == 0)
				break;
			last_err = errno;
			close(ob->fd);
			ob->fd = -1;
		}
		freeaddrinfo(res);
		if (ob->fd >= 0) {
			tune(ob->fd);
			return 0;
		}
		if (now_s() >= deadline)
			break;
		usleep(100 * 1000);
	}
	perf_err("out-of-band exchange", "cannot connect to %s port %u%s%s", host, port,
		 *stop ? ": interrupted" : (last_err ? ": " : ""),
		 *stop ? "" : (last_err ? strerror(last_err) : ""));
	return -1;
}

static int
write_all(struct oob *ob, const uint8_t *b, size_t n)
{
	while (n > 0) {
		ssize_t w = send(ob->fd, b, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ob->broken = true;
			return sock_err("send");
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Read exactly n bytes: the first within first_ms (-1: forever; returns 0 if
 * none came), the rest within OOB_IO_TIMEOUT_MS each. started: the message
 * has begun already (a timeout is then an error).
 */
static int
read_all(struct oob *ob, uint8_t *b, size_t n, int first_ms, bool started)
{
	int wait = started ? OOB_IO_TIMEOUT_MS : first_ms;
	int fd = ob->fd;

	while (n > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ret = poll(&pfd, 1, wait);
		ssize_t r;

		if (ret < 0 && errno == EINTR && ob->stop != NULL && *ob->stop) {
			perf_err("out-of-band exchange", "interrupted");
			return -1;
		}
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return sock_err("poll");
		if (ret == 0) {
			if (!started)
				return 0;
			perf_err("out-of-band exchange", "the peer stopped in the middle of a message");
			return -1;
		}
		r = recv(fd, b, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ob->broken = true;
			if (r < 0)
				return sock_err("recv");
			perf_err("out-of-band exchange", "the peer closed the connection");
			return -1;
		}
		b += r;
		n -= (size_t)r;
		started = true;
		wait = OOB_IO_TIMEOUT_MS;
	}
	return 1;
}

int
oob_send(struct oob *ob, const struct oob_msg *m)
{
	uint8_t b[OOB_HDR_LEN + OOB_MAX_PAYLOAD];

	if (ob->broken)
		return -1;
	return write_all(ob, b, oob_encode(m, b));
}

int
oob_recv(struct oob *ob, struct oob_msg *m, int timeout_ms)
{
	uint8_t b[OOB_HDR_LEN + OOB_MAX_PAYLOAD];
	uint32_t len;
	int ret;

	if (ob->broken)
		return -1;
	ret = read_all(ob, b, OOB_HDR_LEN, timeout_ms, false);
	if (ret <= 0)
		return ret;
	if (oob_decode_header(b, &m->type, &len) != 0)
		return -1;
	if (len > 0 && read_all(ob, b, len, OOB_IO_TIMEOUT_MS, true) != 1)
		return -1;
	oob_decode(m, b);
	return 1;
}

int
oob_write_raw(struct oob *ob, const void *b, size_t n)
{
	if (ob->broken)
		return -1;
	return write_all(ob, b, n);
}

int
oob_read_raw(struct oob *ob, void *b, size_t n, int first_ms)
{
	if (ob->broken)
		return -1;
	return read_all(ob, b, n, first_ms, false);
}

void
oob_wait_closed(struct oob *ob, int timeout_ms)
{
	struct pollfd pfd = { .fd = ob->fd, .events = POLLIN };
	uint8_t scratch[256];

	while (ob->fd >= 0 && !ob->broken && poll(&pfd, 1, timeout_ms) > 0) {
		/* whatever the peer still sends is of no use now */
		if (recv(ob->fd, scratch, sizeof(scratch), 0) <= 0)
			ob->broken = true;
	}
}

void
oob_close_conn(struct oob *ob)
{
	if (ob->fd >= 0)
		close(ob->fd);
	ob->fd = -1;
	ob->broken = false;
}

void
oob_close(struct oob *ob)
{
	if (ob->fd >= 0)
		close(ob->fd);
	if (ob->lfd >= 0)
		close(ob->lfd);
	ob->fd = ob->lfd = -1;
}
