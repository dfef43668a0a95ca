/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The backend registry (lib/dr_backend.c): drivers register themselves from
 * constructors. This program names no driver and calls nothing of one: the
 * ethdev backend is found only if its object was linked in (the static
 * library linked whole, lib/meson.build) and its constructor ran. Then the
 * registry's rules, with backends of the test's own. No EAL: a registry
 * lookup needs none, and without EAL there are no ports.
 */

#include <errno.h>

#include "dr_backend.h"
#include "dr_test.h"

/* A backend that claims port 7 only. */
static int
fake_port_info(uint16_t port, struct dr_backend_port_info *info)
{
	if (port != 7)
		return -ENODEV;
	snprintf(info->name, sizeof(info->name), "fake%u", port);
	info->listed = true;
	info->max_queues = 4;
	return 0;
}

static int fake_open(struct dr_backend_port *bp) { RTE_SET_USED(bp); return -ENOTSUP; }
static void fake_close(struct dr_backend_port *bp) { RTE_SET_USED(bp); }
static int fake_link_get(struct dr_backend_port *bp, struct dr_backend_link *l)
{
	RTE_SET_USED(bp);
	l->up = false;
	return 0;
}
static uint16_t fake_burst(struct dr_backend_port *bp, uint16_t q, struct rte_mbuf **p, uint16_t n)
{
	RTE_SET_USED(bp), RTE_SET_USED(q), RTE_SET_USED(p), RTE_SET_USED(n);
	return 0;
}
static void fake_rx_other(struct dr_backend_port *bp, struct rte_mbuf *m) { RTE_SET_USED(bp); RTE_SET_USED(m); }
static int fake_resolve(struct dr_backend_port *bp, const union dr_gid *g, struct rte_ether_addr *mac)
{
	RTE_SET_USED(bp), RTE_SET_USED(g), RTE_SET_USED(mac);
	return -EAGAIN;
}

#define FAKE_OPS(nm, prio) { \
	.name = nm, .priority = prio, .port_info = fake_port_info, .open = fake_open, \
	.close = fake_close, .link_get = fake_link_get, .rx_burst = fake_burst, .tx_burst = fake_burst, \
	.rx_other = fake_rx_other, .resolve = fake_resolve }

int
main(void)
{
	static const struct dr_backend_ops high = FAKE_OPS("high", 10), low = FAKE_OPS("low", -5),
		same = FAKE_OPS("ethdev", 3), more[DR_BACKEND_MAX] = {
			FAKE_OPS("m0", 1), FAKE_OPS("m1", 1), FAKE_OPS("m2", 1), FAKE_OPS("m3", 1),
			FAKE_OPS("m4", 1), FAKE_OPS("m5", 1), FAKE_OPS("m6", 1), FAKE_OPS("m7", 1) };
	struct dr_backend_ops partial = FAKE_OPS("partial", 0);
	const struct dr_backend_ops *eth, *xsk, *list[DR_BACKEND_MAX];
	struct dr_backend_port_info info;
	unsigned int n, i, added, base;
	int rc;

	/* the ethdev driver registered itself before main() */
	eth = dr_backend_find("ethdev");
	CHECK_MSG(eth != NULL, "the ethdev backend is not registered: was its object linked whole?");
	if (eth == NULL)
		return dr_test_report("backend");
	CHECK(strcmp(eth->name, "ethdev") == 0);
	CHECK(eth->open != NULL && eth->close != NULL && eth->rx_burst != NULL && eth->tx_burst != NULL &&
	      eth->port_info != NULL && eth->link_get != NULL && eth->tx_done_cleanup != NULL &&
	      eth->rx_other != NULL && eth->resolve != NULL && eth->add_neighbour != NULL);
	/* the xsk backend (drivers/xsk, when libxdp is found): by name only, below ethdev */
	xsk = dr_backend_find("xsk");
	base = xsk != NULL ? 2 : 1;
	if (xsk != NULL) {
		CHECK(xsk->priority < eth->priority);
		CHECK(xsk->port_stats != NULL && xsk->link_get != NULL && xsk->resolve != NULL);
		CHECK_EQ(xsk->port_info(0, &info), (uint64_t)-ENODEV);
	}
	CHECK(dr_backend_find(NULL) == eth);            /* the default */
	CHECK_EQ(dr_backend_list(list, DR_BACKEND_MAX), base);
	CHECK(dr_backend_find("mlx5") == NULL);
	/* no EAL, no ports: nobody claims one, and ethdev's port_info says so */
	CHECK(dr_backend_for_port(0, &info) == NULL);
	CHECK_EQ(eth->port_info(0, &info), (uint64_t)-ENODEV);

	/* the rules of registration */
	CHECK_EQ(dr_backend_register(NULL), (uint64_t)-EINVAL);
	partial.rx_burst = NULL;
	CHECK_EQ(dr_backend_register(&partial), (uint64_t)-EINVAL);
	partial = (struct dr_backend_ops)FAKE_OPS("", 0);
	CHECK_EQ(dr_backend_register(&partial), (uint64_t)-EINVAL);
	CHECK_EQ(dr_backend_register(&same), (uint64_t)-EEXIST);
	CHECK_EQ(dr_backend_register(&low), 0);
	CHECK_EQ(dr_backend_register(&high), 0);
	CHECK_EQ(dr_backend_register(&high), (uint64_t)-EEXIST);

	/* in order of priority: the default is the highest, a port goes to the highest that claims it */
	n = dr_backend_list(list, DR_BACKEND_MAX);
	CHECK_EQ(n, base + 2);
	CHECK(n == base + 2 && list[0] == &high && list[1] == eth && list[n - 1] == &low);
	CHECK(xsk == NULL || (n == 4 && list[2] == xsk));
	CHECK(dr_backend_find(NULL) == &high);
	CHECK(dr_backend_find("low") == &low);
	CHECK(dr_backend_for_port(7, &info) == &high);
	CHECK(strcmp(info.name, "fake7") == 0 && info.max_queues == 4 && info.listed);
	CHECK(dr_backend_for_port(6, &info) == NULL);

	/* full: DR_BACKEND_MAX in all */
	added = 0;
	for (i = 0; i < RTE_DIM(more); i++) {
		rc = dr_backend_register(&more[i]);
		if (rc == 0)
			added++;
		else
			CHECK_EQ(rc, (uint64_t)-ENOSPC);
	}
	CHECK_EQ(added, DR_BACKEND_MAX - base - 2);
	CHECK_EQ(dr_backend_list(list, DR_BACKEND_MAX), DR_BACKEND_MAX);
	/* equal priorities keep their order of registration, between the higher and the lower */
	CHECK(list[0] == &high && list[1] == &more[0] && list[DR_BACKEND_MAX - base - 1] == eth &&
	      list[DR_BACKEND_MAX - 1] == &low);
	return dr_test_report("backend");
}
