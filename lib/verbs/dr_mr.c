/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Memory regions (ibv_reg_mr(3), ibv_dereg_mr(3)). Keys are a 24-bit table
 * index and an 8-bit variant bumped at every reuse of the slot (never 0), so
 * a stale key misses the new region (as rxe's key layout). Free slots are a
 * stack (dr_idx.h): registration and deregistration are O(1). L_Key == R_Key as
 * in rxe; the region's IOVA is its virtual address.
 */

#include <errno.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "dr_context.h"
#include "dr_control.h"
#include "dr_engine.h"
#include "dr_log.h"

/* How long dr_dereg_mr() waits for the port to free frames sent zero-copy from the region. */
#define DR_DEREG_ZC_WAIT_MS 1000

/*
 * Wait until no frame in flight holds payload attached from @mr (zero-copy
 * transmit, dr_qp_pkt_attach()): the PMD frees them once it has read them,
 * the workers flush their staging every round (inline: flushed here, the
 * caller being the only thread that drives them). False after
 * DR_DEREG_ZC_WAIT_MS (a port that holds frames, as a net_ring nobody reads).
 */
static bool
zc_frames_gone(struct dr_context *ctx, struct dr_mr_impl *mr)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() / 1000 * DR_DEREG_ZC_WAIT_MS;

	while (__atomic_load_n(&mr->zc_frames, __ATOMIC_ACQUIRE) != 0) {
		if (rte_get_timer_cycles() > end)
			return false;
		if (ctx->attr.mode == DR_PROGRESS_INLINE)
			for (uint16_t i = 0; i < ctx->nb_workers; i++)
				dr_wk_tx_flush(&ctx->wk[i]);
		rte_delay_us_sleep(20);
	}
	return true;
}

static struct dr_mr *
reg_fail(int err)
{
	errno = err;
	return NULL;
}

static struct dr_mr *
reg_mr_ctl(struct dr_pd *pd, void *addr, size_t length, int access)
{
	struct dr_context *ctx;
	struct dr_mr_impl *mr;
	uint8_t variant;
	int idx;

	if (pd == NULL)
		return reg_fail(EINVAL);
	ctx = pd->context;
	if (dr_mr_check_reg_flags((unsigned int)access) != 0) {
		DR_LOG(ctx, INFO, "reg_mr: bad access flags 0x%x", (unsigned int)access);
		return reg_fail(EINVAL);
	}
	/* a zero-length region is legal (ibv_reg_mr(3) does not forbid it); any other needs memory */
	if (addr == NULL && length != 0)
		return reg_fail(EINVAL);
	if ((uint64_t)length > UINT64_MAX - (uint64_t)(uintptr_t)addr) {
		DR_LOG(ctx, INFO, "reg_mr: [%p, +%zu) wraps around", addr, length);
		return reg_fail(EINVAL);
	}
	if (ctx->mr_free.top == 0) {
		DR_LOG(ctx, INFO, "reg_mr: %u MRs already", ctx->num_mrs);
		return reg_fail(ENOMEM);
	}
	mr = rte_zmalloc("dr_mr", sizeof(*mr), 0);
	if (mr == NULL)
		return reg_fail(ENOMEM);
	idx = (int)dr_idx_stack_take(&ctx->mr_free);    /* O(1): one is free */

	variant = ++ctx->mr_variant[idx];
	if (variant == 0)
		variant = ++ctx->mr_variant[idx];
	mr->pub.context = ctx;
	mr->pub.pd = pd;
	mr->pub.addr = addr;
	mr->pub.length = length;
	mr->pub.handle = (uint32_t)idx;
	mr->pub.lkey = dr_mr_key_make((uint32_t)idx, variant);
	mr->pub.rkey = mr->pub.lkey;
	mr->region.iova = (uint64_t)(uintptr_t)addr;
	mr->region.length = length;
	mr->region.access = (unsigned int)access;

	pd->refcnt++;
	ctx->num_mrs++;
	__atomic_store_n(&ctx->mr_table[idx], mr, __ATOMIC_RELEASE);  /* workers read it lock-free */
	return &mr->pub;
}

/* dr_reg_mr() as a control command (dr_control.h) */
struct reg_mr_args {
	struct dr_pd *pd;
	void *addr;
	size_t length;
	int access;
	struct dr_mr *ret;
};

static int
reg_mr_call(void *arg)
{
	struct reg_mr_args *a = arg;

	a->ret = reg_mr_ctl(a->pd, a->addr, a->length, a->access);
	return 0;
}

struct dr_mr *
dr_reg_mr(struct dr_pd *pd, void *addr, size_t length, int access)
{
	struct reg_mr_args a = { .pd = pd, .addr = addr, .length = length, .access = access };

	if (pd == NULL)
		return reg_mr_ctl(pd, addr, length, access);
	(void)dr_ctl_run(pd->context, reg_mr_call, &a);
	return a.ret;
}

static int
dereg_mr_ctl(struct dr_mr *pub)
{
	struct dr_context *ctx;
	struct dr_mr_impl *mr;
	uint32_t idx;

	if (pub == NULL)
		return -EINVAL;
	ctx = pub->context;
	mr = dr_mr_impl(pub);
	idx = dr_mr_key_index(pub->lkey);
	if (idx >= DR_MAX_MR || ctx->mr_table[idx] != mr)
		return -EINVAL;
	/* a memory window bound to it keeps it (IBA 10.6.7.2.x; rxe refuses too) */
	if (mr->num_mw != 0) {
		DR_LOG(ctx, INFO, "dereg_mr: %u memory windows are bound to it", mr->num_mw);
		return -EBUSY;
	}
	/*
	 * Out of the table, then wait for every worker to pass a quiescent
	 * point: a WRITE / READ / atomic that found the MR before is finished,
	 * every later one fails its R_Key / L_Key check. Nothing lands in the
	 * memory once this call returns.
	 */
	__atomic_store_n(&ctx->mr_table[idx], NULL, __ATOMIC_RELEASE);
	__atomic_fetch_add(&ctx->mr_gen, 1, __ATOMIC_RELEASE);   /* WQEs checked before: checked again */
	dr_engine_sync(ctx);
	if (!zc_frames_gone(ctx, mr)) {
		DR_LOG(ctx, WARNING, "dereg_mr: %u frames sent zero-copy from it are still held by the port",
		       __atomic_load_n(&mr->zc_frames, __ATOMIC_RELAXED));
		__atomic_store_n(&ctx->mr_table[idx], mr, __ATOMIC_RELEASE);
		return -EBUSY;
	}
	dr_idx_stack_put(&ctx->mr_free, idx);   /* no worker holds it: the slot may be reused */
	ctx->num_mrs--;
	pub->pd->refcnt--;
	rte_free(mr);
	return 0;
}

/* dr_dereg_mr() as a control command (dr_control.h) */
struct dereg_mr_args {
	struct dr_mr *pub;
};

static int
dereg_mr_call(void *arg)
{
	struct dereg_mr_args *a = arg;

	return dereg_mr_ctl(a->pub);
}

int
dr_dereg_mr(struct dr_mr *pub)
{
	struct dereg_mr_args a = { .pub = pub };

	if (pub == NULL)
		return dereg_mr_ctl(pub);
	return dr_ctl_run(pub->context, dereg_mr_call, &a);
}
