/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The graph nodes (include/dr_graph.h) in two graphs, one per side, each a
 * graph application's: its rx node ("tsrc-<port>") -> "dr_rx" -> its own
 * node ("tsink"), and "dr_tx-<port>" -> its tx node ("ttx-<port>"). The
 * test walks both graphs and carries the wire between them (DR_IO_APP
 * contexts on ring ports, inline mode).
 *
 * - An RDMA WRITE of 64 KiB and a SEND go through the nodes: completions
 *   and every byte checked.
 * - The application's frames reach its node through dr_rx unchanged, the
 *   same mbufs in the order they came, among RoCE frames the transport takes.
 * - dr_graph_attach() refuses what it must (NULL, an unknown next node, a
 *   second context of a port) and a detached context's port passes dr_rx
 *   untouched.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ring.h>

#include "dr_graph.h"
#include "test_rc.h"

#define LEN (64 * 1024)
#define NF_FRAMES 24
#define WALK_US 10000000

/* ---- the application's nodes ---- */

static struct rte_mbuf *sunk[NF_FRAMES * 2];
static unsigned int nsunk;

struct port_ctx {
	uint16_t port;
};

static int
port_init(const struct rte_graph *graph, struct rte_node *node)
{
	unsigned int port = UINT16_MAX;

	RTE_SET_USED(graph);
	(void)(sscanf(node->name, "tsrc-%u", &port) == 1 || sscanf(node->name, "ttx-%u", &port) == 1);
	((struct port_ctx *)node->ctx)->port = (uint16_t)port;
	return 0;
}

/* The port's rx: a burst, each frame's port set as a PMD sets it. */
static uint16_t
tsrc_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	uint16_t port = ((struct port_ctx *)node->ctx)->port, n, i;
	void **to;

	RTE_SET_USED(objs);
	RTE_SET_USED(nb);
	if (port == UINT16_MAX)
		return 0;
	to = rte_node_next_stream_get(graph, node, 0, RTE_GRAPH_BURST_SIZE);
	n = rte_eth_rx_burst(port, 0, (struct rte_mbuf **)to, RTE_GRAPH_BURST_SIZE);
	for (i = 0; i < n; i++)
		((struct rte_mbuf *)to[i])->port = port;
	rte_node_next_stream_put(graph, node, 0, n);
	return n;
}

static uint16_t
ttx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	uint16_t port = ((struct port_ctx *)node->ctx)->port, sent = 0;

	RTE_SET_USED(graph);
	if (port != UINT16_MAX)
		sent = rte_eth_tx_burst(port, 0, (struct rte_mbuf **)objs, nb);
	if (sent < nb)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs + sent, nb - sent);   /* a loss: RC resends */
	return nb;
}

/* The application's next node: what dr_rx passed on, kept in order for the test. */
static uint16_t
tsink_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	uint16_t i;

	RTE_SET_USED(graph);
	RTE_SET_USED(node);
	for (i = 0; i < nb; i++) {
		if (nsunk < RTE_DIM(sunk))
			sunk[nsunk++] = objs[i];
		else
			rte_pktmbuf_free(objs[i]);
	}
	return nb;
}

static struct rte_node_register tsrc = {
	.name = "tsrc", .flags = RTE_NODE_SOURCE_F, .process = tsrc_process, .init = port_init,
	.nb_edges = 1, .next_nodes = { DR_NODE_RX_NAME },
};
static struct rte_node_register ttx = {
	.name = "ttx", .process = ttx_process, .init = port_init, .nb_edges = 0,
};
static struct rte_node_register tsink = {
	.name = "tsink", .process = tsink_process, .nb_edges = 0,
};
RTE_NODE_REGISTER(tsrc);
RTE_NODE_REGISTER(ttx);
RTE_NODE_REGISTER(tsink);

/* ---- the test ---- */

static struct rte_graph *
graph_of(struct rc_side *s, const char *name)
{
	char src[RTE_NODE_NAMESIZE], tx[RTE_NODE_NAMESIZE], drtx[RTE_NODE_NAMESIZE];
	const char *patterns[] = { src, DR_NODE_RX_NAME, "tsink", drtx, tx };
	struct rte_graph_param prm = { .socket_id = SOCKET_ID_ANY, .nb_node_patterns = RTE_DIM(patterns),
				       .node_patterns = patterns };
	rte_graph_t id;

	snprintf(src, sizeof(src), "tsrc-%u", s->port);
	snprintf(tx, sizeof(tx), "ttx-%u", s->port);
	snprintf(drtx, sizeof(drtx), "%s-%u", DR_NODE_TX_NAME, s->port);
	id = rte_graph_create(name, &prm);
	return id != RTE_GRAPH_ID_INVALID ? rte_graph_lookup(name) : NULL;
}

/* Walk both graphs and carry the wire until @cq has @n completions in @w. */
static bool
walk_until(struct rc_env *e, struct rte_graph *g[2], struct dr_cq *cq, struct rc_wcs *w, unsigned int n)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() / 1000000 * WALK_US;

	while (w->n < n && rte_get_timer_cycles() < end) {
		rte_graph_walk(g[0]);
		rc_carry(e, RC_A2B);
		rte_graph_walk(g[1]);
		rc_carry(e, RC_B2A);
		if (rc_poll(cq, w) < 0)
			return false;
	}
	return w->n >= n;
}

static void
body(struct rc_env *e)
{
	struct rc_side *a = &e->s[0], *b = &e->s[1];
	struct rte_mbuf *mine[NF_FRAMES];
	struct rc_buf src, dst, ssrc, sdst;
	struct rc_wcs sw = { .n = 0 }, rw = { .n = 0 };
	struct rte_graph *g[2] = { NULL, NULL };
	struct rc_qp_params p;
	struct dr_sge sge;
	char name[RTE_NODE_NAMESIZE];
	const char *sink = "tsink";
	uint32_t txa;
	unsigned int i;

	if (!rc_inline_only("graph", "the graphs' walks are the contexts' progress"))
		return;
	rc_io_app = false;                        /* the graphs are the NFs now: the wire only carries frames */
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%u", e->s[i].port);
		RC_CHECK(rte_node_clone(rte_node_from_name("tsrc"), name) != RTE_NODE_ID_INVALID);
		RC_CHECK(rte_node_clone(rte_node_from_name("ttx"), name) != RTE_NODE_ID_INVALID);
	}
	/* refusals */
	RC_CHECK_EQ(dr_graph_attach(NULL, "tsink", NULL), -EINVAL);
	RC_CHECK_EQ(dr_graph_attach(a->ctx, NULL, NULL), -EINVAL);
	RC_CHECK_EQ(dr_graph_attach(a->ctx, "no_such_node", NULL), -ENOENT);
	RC_CHECK_EQ(dr_graph_detach(a->ctx), -ENOENT);
	snprintf(name, sizeof(name), "ttx-%u", a->port);
	RC_CHECK_EQ(dr_graph_attach(a->ctx, name, &txa), 0);
	RC_CHECK_EQ(dr_graph_attach(a->ctx, name, NULL), -EEXIST);
	snprintf(name, sizeof(name), "ttx-%u", b->port);
	RC_CHECK_EQ(dr_graph_attach(b->ctx, name, NULL), 0);
	RC_CHECK(rte_node_edge_update(rte_node_from_name(DR_NODE_RX_NAME), DR_NODE_RX_NEXT, &sink, 1) !=
		 RTE_EDGE_ID_INVALID);
	g[0] = graph_of(a, "dr_test_a");
	g[1] = graph_of(b, "dr_test_b");
	RC_CHECK_MSG(g[0] != NULL && g[1] != NULL, "rte_graph_create: %s", rte_strerror(rte_errno));
	if (g[0] == NULL || g[1] == NULL)
		return;

	rc_params_default(&p);
	RC_CHECK_EQ(rc_connect(e, &p), 0);
	RC_CHECK_EQ(rc_buf_alloc(a, &src, LEN, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(b, &dst, LEN, DR_ACCESS_LOCAL_WRITE | DR_ACCESS_REMOTE_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(a, &ssrc, 2000, DR_ACCESS_LOCAL_WRITE), 0);
	RC_CHECK_EQ(rc_buf_alloc(b, &sdst, 2000, DR_ACCESS_LOCAL_WRITE), 0);
	rc_fill(src.p, LEN, 31);
	rc_fill(ssrc.p, 2000, 32);
	rc_sges(&sdst, 0, 2000, 1, &sge);
	RC_CHECK_EQ(rc_post_recv(b, 7, &sge, 1), 0);
	rc_sges(&src, 0, LEN, 1, &sge);
	RC_CHECK_EQ(rc_post_send(a, 1, DR_WR_RDMA_WRITE, &sge, 1, DR_SEND_SIGNALED, (uint64_t)(uintptr_t)dst.p,
				 dst.mr->rkey, 0), 0);
	rc_sges(&ssrc, 0, 2000, 1, &sge);
	RC_CHECK_EQ(rc_post_send(a, 2, DR_WR_SEND, &sge, 1, DR_SEND_SIGNALED, 0, 0, 0), 0);

	/* the application's frames on B's link among the RoCE frames: not ours, so passed on */
	for (i = 0; i < NF_FRAMES; i++) {
		mine[i] = rte_pktmbuf_alloc(a->ctx->pool);
		RC_CHECK(mine[i] != NULL);
		if (mine[i] == NULL)
			return;
		memset(rte_pktmbuf_append(mine[i], 64), (int)i + 1, 64);   /* no Ethernet type of ours */
	}
	rte_graph_walk(g[0]);                     /* A's first frames on the wire */
	for (i = 0; i < NF_FRAMES; i++)
		RC_CHECK_EQ(rte_ring_enqueue(b->rx[0], mine[i]), 0);
	RC_CHECK_MSG(walk_until(e, g, a->scq, &sw, 2), "%u of 2 sends completed", sw.n);
	RC_CHECK(walk_until(e, g, b->rcq, &rw, 1));
	for (i = 0; i < sw.n; i++)
		RC_CHECK(sw.wc[i].status == DR_WC_SUCCESS);
	RC_CHECK(rw.n == 1 && rw.wc[0].status == DR_WC_SUCCESS && rw.wc[0].byte_len == 2000);
	RC_CHECK_MSG(memcmp(src.p, dst.p, LEN) == 0, "the WRITE did not land");
	RC_CHECK(memcmp(ssrc.p, sdst.p, 2000) == 0);
	RC_CHECK_EQ(nsunk, NF_FRAMES);
	for (i = 0; i < nsunk && i < NF_FRAMES; i++)
		RC_CHECK_MSG(sunk[i] == mine[i] && rte_pktmbuf_mtod(sunk[i], uint8_t *)[63] == i + 1,
			     "frame %u: not the application's %u-th", i, i);
	rte_pktmbuf_free_bulk(sunk, nsunk);

	/* detached: B's frames pass dr_rx untouched, whatever they are */
	RC_CHECK_EQ(dr_graph_detach(b->ctx), 0);
	nsunk = 0;
	for (i = 0; i < 4; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(a->ctx->pool);

		RC_CHECK(m != NULL && rte_pktmbuf_append(m, 64) != NULL);
		if (m != NULL)
			RC_CHECK_EQ(rte_ring_enqueue(b->rx[0], m), 0);
	}
	rte_graph_walk(g[1]);
	RC_CHECK_EQ(nsunk, 4);
	rte_pktmbuf_free_bulk(sunk, nsunk);
	nsunk = 0;
	RC_CHECK_EQ(dr_graph_detach(a->ctx), 0);
	printf("graph: 64 KiB WRITE and a SEND through dr_rx and dr_tx-<port> nodes, %d frames of the "
	       "application's passed on in order\n", NF_FRAMES);
	rte_graph_destroy(rte_graph_from_name("dr_test_a"));
	rte_graph_destroy(rte_graph_from_name("dr_test_b"));
	rc_buf_free(&src);
	rc_buf_free(&dst);
	rc_buf_free(&ssrc);
	rc_buf_free(&sdst);
	rc_disconnect(e);
}

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	setenv("DR_TEST_IO", "app", 1);         /* DR_IO_APP contexts (test_rc_nf.c configures the ports) */
	return rc_main("test_graph", argv[0], 1500, body);
}
