/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef TEST_CM_H
#define TEST_CM_H

/*
 * What the tests of the rdma_cm-shaped API share (test_cm_api.c,
 * test_cm_api_ud.c): a side's address, and a CM event waited for while
 * the test wire (test_rc.h) runs.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "dr_cm.h"
#include "test_rc.h"

/* Side @s's IPv4 address (its GID's last bytes) and @port. */
static inline struct sockaddr_in
cm_addr_of(const struct rc_side *s, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	memcpy(&a.sin_addr.s_addr, &s->gid.raw[12], 4);
	return a;
}

/* Side @s's IPv6 address (GID index 2) and @port. */
static inline struct sockaddr_in6
cm_addr6_of(const struct rc_side *s, uint16_t port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

	memcpy(a.sin6_addr.s6_addr, s->gid6.raw, 16);
	return a;
}

/* Run the wire until @ch (O_NONBLOCK) has an event; it must be @type. NULL after 5 s. */
static inline struct dr_cm_event *
cm_wait_event(struct rc_env *e, struct dr_cm_event_channel *ch, enum dr_cm_event_type type)
{
	struct dr_cm_event *ev = NULL;

	for (int i = 0; i < 50000; i++) {
		int ret = dr_cm_get_cm_event(ch, &ev);

		if (ret == 0)
			break;
		RC_CHECK_EQ(ret, -EAGAIN);
		ev = NULL;
		rc_run(e, 100, NULL, NULL);
	}
	RC_CHECK_MSG(ev != NULL, "no event (wanted %s)", dr_cm_event_str(type));
	if (ev != NULL)
		RC_CHECK_MSG(ev->event == type, "%s, not %s (status %d)", dr_cm_event_str(ev->event),
			     dr_cm_event_str(type), ev->status);
	return ev;
}

static inline void
cm_ack(struct dr_cm_event *ev)
{
	if (ev != NULL)
		RC_CHECK_EQ(dr_cm_ack_cm_event(ev), 0);
}

#endif /* TEST_CM_H */
