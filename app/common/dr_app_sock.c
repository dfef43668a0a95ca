/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* Non-blocking TCP waits that drive the transport (dr_app_sock.h). */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dr_app_sock.h"

#define DR_APP_POLL_MS 1

double
dr_app_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
dr_app_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL, 0);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int
dr_app_wait_fd(struct dr_context *ctx, int fd, short events, double deadline,
	       const volatile sig_atomic_t *stop)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	for (;;) {
		int n = poll(&pfd, 1, DR_APP_POLL_MS);

		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		dr_progress(ctx);
		if (stop != NULL && *stop)
			return -EINTR;
		if (deadline > 0 && dr_app_now() > deadline)
			return -ETIMEDOUT;
	}
}

int
dr_app_try_connect(struct dr_context *ctx, const struct addrinfo *ai, double deadline,
		   const volatile sig_atomic_t *stop)
{
	int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	int err = 0;
	socklen_t elen = sizeof(err);

	if (fd < 0)
		return -1;
	if (dr_app_nonblock(fd) != 0)
		goto fail;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS)
		goto fail;
	if (dr_app_wait_fd(ctx, fd, POLLOUT, deadline, stop) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}
