/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * ibv_rc_pingpong's exchange over the kernel's TCP: the client connects and
 * writes its address, the server reads it, connects its QP (RTR, RTS) and
 * writes its own, the client reads that and writes "done" (sizeof "done"
 * bytes, its NUL included). An address is "%04x:%06x:%06x:%s" of LID, QPN,
 * PSN and the GID as 32 hex digits (the 16 bytes in network order), sent as
 * sizeof "0000:000000:000000:<32 zeros>" bytes with the NUL. Each side sends
 * n addresses back to back: 1 for ibv_{rc,uc,ud}_pingpong; MAX_QP (256) for
 * ibv_srq_pingpong whatever its -q, the ones after its QPs all zeros.
 *
 * The sockets are non-blocking and every wait drives the transport: the
 * peer resolves our MAC (ARP, ND) when it moves its QP to RTR, during the
 * exchange, and only our DPDK process answers for our address.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dr_app_sock.h"
#include "pingpong.h"

#define PP_CONNECT_RETRY_MS 100

void
pp_gid_to_wire(const union dr_gid *gid, char wgid[33])
{
	for (int i = 0; i < 16; i++)
		snprintf(&wgid[i * 2], 3, "%02x", gid->raw[i]);
}

int
pp_wire_to_gid(const char *wgid, union dr_gid *gid)
{
	for (int i = 0; i < 16; i++) {
		char tmp[3] = { wgid[i * 2], wgid[i * 2 + 1], 0 };
		char *end;

		gid->raw[i] = (uint8_t)strtoul(tmp, &end, 16);
		if (tmp[0] == 0 || *end != 0)
			return -1;
	}
	return 0;
}

int
pp_format_dest(const struct pp_dest *d, char msg[PP_MSG_LEN])
{
	char gid[33];

	pp_gid_to_wire(&d->gid, gid);
	memset(msg, 0, PP_MSG_LEN);
	return snprintf(msg, PP_MSG_LEN, "%04x:%06x:%06x:%s", d->lid, d->qpn, d->psn, gid) ==
	       (int)PP_MSG_LEN - 1 ? 0 : -1;
}

int
pp_parse_dest(const char *msg, struct pp_dest *d)
{
	char gid[33] = "";

	if (memchr(msg, 0, PP_MSG_LEN) == NULL ||
	    sscanf(msg, "%x:%x:%x:%32s", &d->lid, &d->qpn, &d->psn, gid) != 4 ||
	    strlen(gid) != 32 || pp_wire_to_gid(gid, &d->gid) != 0)
		return -1;
	return 0;
}

/* @n addresses, PP_MSG_LEN bytes each, into @msgs */
static int
format_dests(const struct pp_dest *d, unsigned int n, char *msgs)
{
	for (unsigned int i = 0; i < n; i++)
		if (pp_format_dest(&d[i], msgs + (size_t)i * PP_MSG_LEN) != 0)
			return -1;
	return 0;
}

static int
parse_dests(const char *msgs, unsigned int n, struct pp_dest *d)
{
	for (unsigned int i = 0; i < n; i++) {
		const char *msg = msgs + (size_t)i * PP_MSG_LEN;

		if (pp_parse_dest(msg, &d[i]) != 0) {
			fprintf(stderr, "Couldn't parse remote address [%u] '%.*s'\n", i,
				(int)PP_MSG_LEN - 1, msg);
			return -1;
		}
	}
	return 0;
}

/* Drive the transport until @fd is ready for @events; 0, or -1 on timeout / stop / error. */
static int
wait_fd(struct dr_context *ctx, int fd, short events, double deadline)
{
	int rc = dr_app_wait_fd(ctx, fd, events, deadline, &pp_stop);

	if (rc == -EINTR || rc == -ETIMEDOUT)
		fprintf(stderr, PP_PROG ": %s\n", rc == -EINTR ? "interrupted" : "timed out in the TCP exchange");
	else if (rc != 0)
		fprintf(stderr, PP_PROG ": poll: %s\n", strerror(-rc));
	return rc == 0 ? 0 : -1;
}

/* read() until @len bytes or EOF; the count read, or -1 */
static ssize_t
read_full(struct dr_context *ctx, int fd, char *buf, size_t len, double deadline)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n;

		if (wait_fd(ctx, fd, POLLIN, deadline) != 0)
			return -1;
		n = read(fd, buf + got, len - got);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int
write_full(struct dr_context *ctx, int fd, const char *buf, size_t len, double deadline)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -1;
			if (wait_fd(ctx, fd, POLLOUT, deadline) != 0)
				return -1;
			continue;
		}
		done += (size_t)n;
	}
	return 0;
}

static double
deadline_of(const struct pp_opts *o)
{
	return o->timeout_s > 0 ? dr_app_now() + o->timeout_s : 0;
}

int
pp_client_exch(struct dr_context *ctx, const struct pp_opts *o, const struct pp_dest *me,
	       struct pp_dest *rem, unsigned int n)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *t;
	double deadline = deadline_of(o);
	size_t len = (size_t)n * PP_MSG_LEN;
	char service[8], *msgs;
	int fd = -1, rc, ret = -1;

	msgs = malloc(len);
	if (msgs == NULL) {
		fprintf(stderr, "Couldn't allocate %u addresses\n", n);
		return -1;
	}
	snprintf(service, sizeof(service), "%u", o->port);
	rc = getaddrinfo(o->servername, service, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "%s for %s:%u\n", gai_strerror(rc), o->servername, o->port);
		free(msgs);
		return -1;
	}
	for (t = res; t != NULL && fd < 0; t = t->ai_next)
		fd = dr_app_try_connect(ctx, t, deadline, &pp_stop);
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "Couldn't connect to %s:%u\n", o->servername, o->port);
		free(msgs);
		return -1;
	}
	if (format_dests(me, n, msgs) != 0 || write_full(ctx, fd, msgs, len, deadline) != 0) {
		fprintf(stderr, "Couldn't send local address\n");
		goto out;
	}
	if (read_full(ctx, fd, msgs, len, deadline) != (ssize_t)len ||
	    write_full(ctx, fd, PP_DONE, sizeof(PP_DONE), deadline) != 0) {
		fprintf(stderr, "Couldn't read/write remote address\n");
		goto out;
	}
	if (parse_dests(msgs, n, rem) != 0)
		goto out;
	ret = 0;
out:
	close(fd);
	free(msgs);
	return ret;
}

static int
listen_on(unsigned int port)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *t;
	char service[8];
	int fd = -1, n, one = 1;

	snprintf(service, sizeof(service), "%u", port);
	n = getaddrinfo(NULL, service, &hints, &res);
	if (n != 0) {
		fprintf(stderr, "%s for port %u\n", gai_strerror(n), port);
		return -1;
	}
	for (t = res; t != NULL; t = t->ai_next) {
		fd = socket(t->ai_family, t->ai_socktype, t->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, t->ai_addr, t->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0 || listen(fd, 1) != 0 || dr_app_nonblock(fd) != 0) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "Couldn't listen to port %u\n", port);
		return -1;
	}
	return fd;
}

int
pp_server_exch(struct dr_context *ctx, const struct pp_opts *o, const struct pp_dest *me,
	       struct pp_dest *rem, unsigned int n,
	       int (*connect_qp)(void *arg, const struct pp_dest *rem), void *arg)
{
	double deadline = deadline_of(o);
	size_t len = (size_t)n * PP_MSG_LEN;
	char done[sizeof(PP_DONE)], *msgs;
	int lfd, fd, ret = -1;
	ssize_t got;

	msgs = malloc(len);
	if (msgs == NULL) {
		fprintf(stderr, "Couldn't allocate %u addresses\n", n);
		return -1;
	}
	lfd = listen_on(o->port);
	if (lfd < 0) {
		free(msgs);
		return -1;
	}
	for (;;) {
		if (wait_fd(ctx, lfd, POLLIN, deadline) != 0) {
			close(lfd);
			free(msgs);
			return -1;
		}
		fd = accept(lfd, NULL, NULL);
		if (fd >= 0 || (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED))
			break;
	}
	close(lfd);
	if (fd < 0 || dr_app_nonblock(fd) != 0) {
		fprintf(stderr, "accept() failed\n");
		if (fd >= 0)
			close(fd);
		free(msgs);
		return -1;
	}
	got = read_full(ctx, fd, msgs, len, deadline);
	if (got != (ssize_t)len) {
		fprintf(stderr, "%d/%d: Couldn't read remote address\n", (int)got, (int)len);
		goto out;
	}
	if (parse_dests(msgs, n, rem) != 0)
		goto out;
	if (connect_qp(arg, rem) != 0) {
		fprintf(stderr, "Couldn't connect to remote QP\n");
		goto out;
	}
	/* the client answers "done" (sizeof "done" bytes), then closes */
	if (format_dests(me, n, msgs) != 0 || write_full(ctx, fd, msgs, len, deadline) != 0 ||
	    read_full(ctx, fd, done, sizeof(done), deadline) != (ssize_t)sizeof(done)) {
		fprintf(stderr, "Couldn't send/recv local address\n");
		goto out;
	}
	ret = 0;
out:
	close(fd);
	free(msgs);
	return ret;
}
