/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_APP_SOCK_H
#define DR_APP_SOCK_H

/*
 * Non-blocking TCP for the apps' out-of-band exchanges: every wait drives
 * the transport (dr_progress), because the peer resolves our MAC (ARP, ND)
 * and moves its QP while we wait for it, and only our process answers for
 * our address.
 */

#include <signal.h>
#include <netdb.h>

#include "dr_verbs.h"

/* CLOCK_MONOTONIC in seconds. */
double dr_app_now(void);

/* O_NONBLOCK on @fd: 0 or -1 (errno). */
int dr_app_nonblock(int fd);

/*
 * Drive @ctx's transport until @fd is ready for @events (poll(2) events).
 * @deadline: dr_app_now() seconds, 0 = none; @stop: a flag a signal sets,
 * or NULL. Returns 0, -ETIMEDOUT, -EINTR (stop set), or -errno of poll(2).
 */
int dr_app_wait_fd(struct dr_context *ctx, int fd, short events, double deadline,
		   const volatile sig_atomic_t *stop);

/*
 * One non-blocking connect to @ai, driving the transport while it is under
 * way: the connected non-blocking socket, or -1 (refused, timed out, stopped).
 */
int dr_app_try_connect(struct dr_context *ctx, const struct addrinfo *ai, double deadline,
		       const volatile sig_atomic_t *stop);

#endif /* DR_APP_SOCK_H */
