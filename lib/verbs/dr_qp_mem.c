/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * What a QP costs in memory (dr_query_qp_mem(), /dr/qp/info's mem_bytes):
 * the allocations dr_qp.c makes for it (queues_alloc()), the builder's
 * (dr_wr_ex.c), and its share of the context's QPN table and free list.
 */

#include <errno.h>
#include <string.h>

#include "dr_context.h"
#include "dr_qp_impl.h"

void
dr_qp_mem_get(const struct dr_qp_impl *qp, struct dr_qp_mem *mem)
{
	const struct dr_sq *sq = &qp->sq;
	const struct dr_rq *rq = &qp->rq;
	const struct dr_context *ctx = qp->pub.context;

	memset(mem, 0, sizeof(*mem));
	mem->qp = dr_malloc_cost(sizeof(*qp));
	/* queues_alloc(): the WQE slots, their SGE arrays, the inline buffers */
	mem->sq = dr_malloc_cost(sq->size * sizeof(*sq->wqe)) +
		  dr_malloc_cost((size_t)sq->size * sq->max_sge * sizeof(*sq->sges)) +
		  dr_malloc_cost((size_t)sq->size * sq->max_inline);
	if (rq->wqe != NULL)
		mem->rq = dr_malloc_cost(rq->size * sizeof(*rq->wqe)) +
			  dr_malloc_cost((size_t)rq->size * rq->max_sge * sizeof(*rq->sges));
	mem->builder = dr_wr_batch_mem(qp);
	/* selective repeat's reorder map and resend record (dr_set_ece()), counted with the QP */
	if (qp->sr != NULL)
		mem->qp += dr_malloc_cost(sizeof(*qp->sr));
	/* a table entry and a free-list entry of each of the context's max_qp slots */
	mem->tables = sizeof(ctx->qp_table[0]) + sizeof(ctx->qp_free.slot[0]);
	mem->total = mem->qp + mem->sq + mem->rq + mem->builder + mem->tables;
}

int
dr_query_qp_mem(struct dr_qp *qp, struct dr_qp_mem *mem)
{
	if (qp == NULL || mem == NULL)
		return -EINVAL;
	dr_qp_mem_get(dr_qp_impl(qp), mem);
	return 0;
}
