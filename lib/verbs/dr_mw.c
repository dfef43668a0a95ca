/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Memory windows (ibv_alloc_mw(3), ibv_bind_mw(3), ibv_dealloc_mw(3);
 * IBA 10.6.7): allocation, the bind and invalidation rules the transport
 * applies when it reaches a BIND_MW or LOCAL_INV WQE or a SEND with
 * invalidate, and R_Key resolution for the responder.
 *
 * Keys: a window's R_Key is its table index (DR_MAX_MR + slot) and an
 * 8-bit key portion; type 1 binds step the key portion (dr_inc_rkey()),
 * type 2 binds take the one the WR gives, with the same index. A bound
 * window holds its MR (dr_dereg_mr(): -EBUSY).
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "dr_control.h"
#include "dr_engine.h"
#include "dr_log.h"
#include "dr_mw.h"

#define DR_MW_ACCESS (DR_ACCESS_REMOTE_READ | DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_ATOMIC | \
		      DR_ACCESS_ZERO_BASED)

static struct dr_mw *
alloc_mw_ctl(struct dr_pd *pd, enum dr_mw_type type)
{
	struct dr_context *ctx;
	struct dr_mw_impl *mw;
	unsigned int i;

	if (pd == NULL || (type != DR_MW_TYPE_1 && type != DR_MW_TYPE_2)) {
		errno = EINVAL;
		return NULL;
	}
	ctx = pd->context;
	for (i = 0; i < DR_MAX_MW && ctx->mw_table[i] != NULL; i++)
		;
	if (i == DR_MAX_MW) {
		errno = ENOMEM;
		return NULL;
	}
	mw = rte_zmalloc("dr_mw", sizeof(*mw), 0);
	if (mw == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mw->pub.context = ctx;
	mw->pub.pd = pd;
	mw->pub.type = type;
	mw->pub.handle = i;
	/* the key portion starts where the slot's last window left it: an old key does not name a new window */
	mw->pub.rkey = dr_mr_key_make(DR_MAX_MR + i, (uint8_t)(ctx->mw_variant[i] + 1));
	__atomic_store_n(&ctx->mw_table[i], mw, __ATOMIC_RELEASE);
	ctx->num_mws++;
	pd->refcnt++;
	return &mw->pub;
}

/* dr_alloc_mw() as a control command (dr_control.h) */
struct alloc_mw_args {
	struct dr_pd *pd;
	enum dr_mw_type type;
	struct dr_mw *ret;
};

static int
alloc_mw_call(void *arg)
{
	struct alloc_mw_args *a = arg;

	a->ret = alloc_mw_ctl(a->pd, a->type);
	return 0;
}

struct dr_mw *
dr_alloc_mw(struct dr_pd *pd, enum dr_mw_type type)
{
	struct alloc_mw_args a = { .pd = pd, .type = type };

	if (pd == NULL)
		return alloc_mw_ctl(pd, type);
	(void)dr_ctl_run(pd->context, alloc_mw_call, &a);
	return a.ret;
}

static void
mw_unbind(struct dr_mw_impl *mw)
{
	if (mw->bound)
		mw->mr->num_mw--;
	mw->bound = false;
	mw->mr = NULL;
	mw->qp = NULL;
}

static int
dealloc_mw_ctl(struct dr_mw *pub)
{
	struct dr_mw_impl *mw;
	struct dr_context *ctx;
	uint32_t slot;

	if (pub == NULL)
		return -EINVAL;
	mw = dr_mw_impl(pub);
	ctx = pub->context;
	slot = pub->handle;
	if (slot >= DR_MAX_MW || ctx->mw_table[slot] != mw)
		return -EINVAL;
	if (__atomic_load_n(&mw->inflight, __ATOMIC_ACQUIRE) != 0)
		return -EBUSY;
	/* out of the table; once no worker holds it, nothing binds or invalidates it any more */
	__atomic_store_n(&ctx->mw_table[slot], NULL, __ATOMIC_RELEASE);
	dr_engine_sync(ctx);
	mw_unbind(mw);
	ctx->mw_variant[slot] = dr_mr_key_variant(pub->rkey);
	ctx->num_mws--;
	pub->pd->refcnt--;
	rte_free(mw);
	return 0;
}

/* dr_dealloc_mw() as a control command (dr_control.h) */
struct dealloc_mw_args {
	struct dr_mw *pub;
};

static int
dealloc_mw_call(void *arg)
{
	struct dealloc_mw_args *a = arg;

	return dealloc_mw_ctl(a->pub);
}

int
dr_dealloc_mw(struct dr_mw *pub)
{
	struct dealloc_mw_args a = { .pub = pub };

	if (pub == NULL)
		return dealloc_mw_ctl(pub);
	return dr_ctl_run(pub->context, dealloc_mw_call, &a);
}

int
dr_bind_mw(struct dr_qp *qp, struct dr_mw *mw, struct dr_mw_bind *b)
{
	struct dr_send_wr wr, *bad;
	int rc;

	/* ibv_bind_mw(3): type 1 windows; type 2 ones are bound with a BIND_MW WR */
	if (qp == NULL || mw == NULL || b == NULL || mw->type != DR_MW_TYPE_1)
		return EINVAL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = b->wr_id;
	wr.opcode = DR_WR_BIND_MW;
	wr.send_flags = b->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = dr_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = b->bind_info;
	rc = dr_post_send(qp, &wr, &bad);
	if (rc == 0)
		mw->rkey = wr.bind_mw.rkey;   /* as libibverbs providers: the key the bind will give */
	return rc;
}

/* The checks of a bind (IBA 10.6.7.2; rxe rxe_check_bind_mw()). */
static bool
bind_ok(const struct dr_qp_impl *qp, const struct dr_mw_impl *mw, const struct dr_send_wqe *wqe)
{
	const struct dr_mr_impl *mr = wqe->bind_mr;
	unsigned int access = wqe->bind_access;
	struct dr_mr_region r;

	/* the window and the QP share a PD */
	if (mw->pub.pd != qp->pub.pd)
		return false;
	if (mw->pub.type == DR_MW_TYPE_1) {
		/* type 1: no zero-based addressing (rxe) */
		if (access & DR_ACCESS_ZERO_BASED)
			return false;
	} else {
		/* type 2: from the free state, the index of its key kept */
		if (mw->bound || dr_mr_key_index(wqe->rkey) != dr_mr_key_index(mw->pub.rkey))
			return false;
	}
	if (wqe->bind_len == 0)
		return true;                  /* unbinds (type 1) / binds nothing */
	/* the MR: of the QP's PD, with MW_BIND; remote write or atomic need its local write (ibv_bind_mw(3)) */
	if (mr == NULL || mr->pub.pd != qp->pub.pd || !(mr->region.access & DR_ACCESS_MW_BIND))
		return false;
	if ((access & (DR_ACCESS_REMOTE_WRITE | DR_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->region.access & DR_ACCESS_LOCAL_WRITE))
		return false;
	/* the window lies inside the MR */
	r = mr->region;
	return dr_mr_range_ok(&r, wqe->remote_addr, wqe->bind_len);
}

enum dr_wc_status
dr_mw_bind_exec(struct dr_qp_impl *qp, const struct dr_send_wqe *wqe)
{
	struct dr_mw_impl *mw = wqe->mw;
	struct dr_mr_impl *mr = wqe->bind_mr;

	/* the MR must still be the one posted (registered, same key) */
	if (mr != NULL && dr_mr_lookup(qp->pub.context, mr->pub.lkey) != mr)
		mr = NULL;
	if (mw == NULL || (wqe->bind_len != 0 && mr == NULL) || !bind_ok(qp, mw, wqe)) {
		DR_DP_LOG(req, DEBUG, "qp %u: bind of window 0x%x refused", qp->pub.qp_num,
			  mw != NULL ? mw->pub.rkey : 0);
		return DR_WC_MW_BIND_ERR;
	}
	mw_unbind(mw);
	mw->pub.rkey = wqe->rkey;
	if (wqe->bind_len != 0) {
		mw->bound = true;
		mw->mr = mr;
		mw->addr = wqe->remote_addr;
		mw->length = wqe->bind_len;
		mw->access = wqe->bind_access;
		mw->qp = mw->pub.type == DR_MW_TYPE_2 ? qp : NULL;
		mr->num_mw++;
	}
	return DR_WC_SUCCESS;
}

/* A type 2 window @rkey names, bound, of @qp's PD. */
static struct dr_mw_impl *
inv_target(struct dr_qp_impl *qp, uint32_t rkey)
{
	struct dr_mw_impl *mw = dr_mw_lookup(qp->pub.context, rkey);

	if (mw == NULL || mw->pub.type != DR_MW_TYPE_2 || !mw->bound || mw->pub.pd != qp->pub.pd)
		return NULL;
	return mw;
}

enum dr_wc_status
dr_mw_local_inv_exec(struct dr_qp_impl *qp, uint32_t rkey)
{
	struct dr_mw_impl *mw = inv_target(qp, rkey);

	/* an MR of ibv_reg_mr() cannot be invalidated (rxe: only fast-registration MRs, which we lack) */
	if (mw == NULL)
		return DR_WC_LOC_QP_OP_ERR;
	mw_unbind(mw);
	return DR_WC_SUCCESS;
}

int
dr_mw_remote_invalidate(struct dr_qp_impl *qp, uint32_t rkey)
{
	struct dr_mw_impl *mw = inv_target(qp, rkey);

	/* IBA 10.6.7.3: a window the message names, bound through this QP */
	if (mw == NULL || mw->qp != qp)
		return -EINVAL;
	mw_unbind(mw);
	return 0;
}

bool
dr_rkey_resolve(struct dr_qp_impl *qp, uint32_t rkey, struct dr_rkey_target *t)
{
	struct dr_context *ctx = qp->pub.context;
	struct dr_mr_impl *mr = dr_rkey_mr(qp, rkey);
	struct dr_mw_impl *mw;

	/* an MR's key (MR indexes lie below the windows': an MR of another PD finds no window either) */
	if (mr != NULL) {
		t->mr = mr;
		t->region = mr->region;
		t->host = mr->pub.addr;
		return true;
	}
	mw = dr_mw_lookup(ctx, rkey);
	if (mw == NULL || !mw->bound || mw->pub.pd != qp->pub.pd ||
	    (mw->pub.type == DR_MW_TYPE_2 && mw->qp != qp))
		return false;
	t->mr = mw->mr;
	t->region.iova = (mw->access & DR_ACCESS_ZERO_BASED) ? 0 : mw->addr;
	t->region.length = mw->length;
	t->region.access = mw->access & ~DR_ACCESS_ZERO_BASED;
	t->host = (uint8_t *)mw->mr->pub.addr + (mw->addr - mw->mr->region.iova);
	return true;
}

void
dr_mw_qp_destroyed(struct dr_qp_impl *qp)
{
	struct dr_context *ctx = qp->pub.context;
	unsigned int i;

	if (ctx->num_mws == 0)
		return;
	for (i = 0; i < DR_MAX_MW; i++) {
		struct dr_mw_impl *mw = ctx->mw_table[i];

		if (mw != NULL && mw->qp == qp)
			mw_unbind(mw);
	}
}
