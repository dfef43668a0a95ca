/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_OPGEN_OPS_H
#define DR_OPGEN_OPS_H

/*
 * dr-opgen's protocol, shared by the guest's dr-opgen (dr-opgen.c, libibverbs)
 * and our app/dpdk-rdma-opgen (the dr_ API): the operation table, the memory
 * layout both sides use, the immediate data and payload patterns, and the
 * TCP exchange's struct wire_info. One table, two programs: what one posts
 * the other checks. (XRC runs between two app/dpdk-rdma-opgen only: rxe has
 * no XRC, and dr-opgen refuses -t xrc.)
 *
 * Only C11 and <stdint.h> here: the opcode numbers are neutral; they equal
 * enum ibv_wr_opcode's and enum dr_wr_opcode's (each program asserts so).
 *
 * The exchange: the client connects (retrying until the server listens),
 * both send struct wire_info (integers in network byte order), move their
 * QP to RTS, the server binds its memory window (when the QP type's rows
 * use one) and waits for the bind to complete, and both swap a go byte. The client posts the table's operations
 * one at a time, each signaled, and checks every completion. The server
 * checks each receive completion in order; then it reads the client's
 * failure count (uint32_t, network order), checks the WRITE targets and the
 * atomic word, and answers its own failure count: the verdict. Exit status:
 * 0 when both sides saw everything right, 1 on a failed check, 2 on a setup
 * error, 3 on timeout.
 */

#include <stddef.h>
#include <stdint.h>

/* work-request opcodes (values of enum ibv_wr_opcode and enum dr_wr_opcode) */
enum opgen_wr {
	OPGEN_WR_RDMA_WRITE = 0,
	OPGEN_WR_RDMA_WRITE_WITH_IMM = 1,
	OPGEN_WR_SEND = 2,
	OPGEN_WR_SEND_WITH_IMM = 3,
	OPGEN_WR_RDMA_READ = 4,
	OPGEN_WR_ATOMIC_CMP_AND_SWP = 5,
	OPGEN_WR_ATOMIC_FETCH_AND_ADD = 6,
	OPGEN_WR_BIND_MW = 8,		/* the server's window; not a row of the table */
	OPGEN_WR_SEND_WITH_INV = 9,
};

/* QP types an operation applies to (XRC: XRC_SEND to an XRC_RECV QP and XRC SRQ) */
#define T_RC 1u
#define T_UC 2u
#define T_UD 4u
#define T_XRC 8u
#define T_REL (T_RC | T_XRC)		/* reliable: READ, atomics, SEND_WITH_INV */
#define T_CONN (T_REL | T_UC)		/* connected: WRITE, multi-packet SENDs */
#define T_ALL (T_CONN | T_UD)
/*
 * The rows that use the server's type 2 memory window: RC only. A type 2
 * window is bound through a QP's send queue and reached only through that QP
 * (IBA type 2B); an XRC_RECV QP has no send queue, and UC has no
 * SEND_WITH_INV.
 */
#define T_MW T_RC

/* the R_Key an operation names: the server's region's, or its memory window's */
enum opgen_key {
	K_MR,
	K_MW,		/* RDMA WRITE: the window's R_Key; SEND_WITH_INV: invalidates it */
};

#define OPGEN_PORT 18600
#define OPGEN_CLIENT_PSN 0x100u
#define OPGEN_SERVER_PSN 0x200u
#define OPGEN_TIMEOUT_S 60
#define OPGEN_WC_TIMEOUT_MS 10000	/* one completion */

#define QKEY 0x11111111u
#define IMM(i) (0x12340000u + (i))
#define GRH_LEN 40u

/* memory layout, the same on both sides (one MR) */
#define AREA 0x4000u			/* per-operation area: the largest op is 8 KiB */
#define NOPS_MAX 32u
#define RECV_OFF 0x000000u		/* NOPS_MAX receive slots of AREA bytes */
#define SRC_OFF 0x080000u		/* client: source / READ destination of op i */
#define WRITE_OFF 0x100000u		/* server: WRITE target of op i */
#define READ_OFF 0x180000u		/* server: READ source of op i */
#define ATOMIC_OFF 0x200000u		/* server: the atomic word */
#define BUF_SZ (ATOMIC_OFF + 4096u)
/* the server's window: the WRITE target of the table's WRITE through it (opgen_window()) */

#define ATOMIC_INIT 100u
#define ATOMIC_FINAL 0xabcdefu		/* the atomic word after the table */

struct opgen_op {
	enum opgen_wr wr;
	uint32_t len;
	unsigned int qpts;		/* T_* the operation applies to */
	enum opgen_key key;		/* the remote key it names */
	uint64_t compare_add, swap;	/* atomics */
	uint64_t orig;			/* atomics: expected original value */
	const char *why;
};

/*
 * In posting order. The lengths are chosen for a 1024-byte path MTU: 61, 62
 * and 63 bytes need 3, 2 and 1 pad bytes, 3000-3003 span three packets, 8192
 * eight. UD messages fit one packet. The last UC operation consumes a
 * receive, so once the server has seen it every earlier UC WRITE has landed.
 * The window's rows come last (RC): the WRITE through the window proves the
 * bind, then the SEND_WITH_INV invalidates the window, which nothing may use
 * after it; as it consumes a receive, every WRITE has landed once the server
 * has seen it.
 */
static const struct opgen_op opgen_ops[] = {
	{ OPGEN_WR_SEND, 64, T_ALL, K_MR, 0, 0, 0, "SEND_ONLY" },
	{ OPGEN_WR_SEND, 63, T_ALL, K_MR, 0, 0, 0, "pad 1" },
	{ OPGEN_WR_SEND_WITH_IMM, 62, T_ALL, K_MR, 0, 0, 0, "SEND_ONLY_WITH_IMM, pad 2" },
	{ OPGEN_WR_SEND, 61, T_ALL, K_MR, 0, 0, 0, "pad 3" },
	{ OPGEN_WR_SEND, 0, T_ALL, K_MR, 0, 0, 0, "zero-length SEND" },
	{ OPGEN_WR_SEND_WITH_IMM, 0, T_ALL, K_MR, 0, 0, 0, "zero-length SEND_WITH_IMM" },
	{ OPGEN_WR_SEND_WITH_IMM, 1021, T_UD, K_MR, 0, 0, 0, "UD near the MTU, pad 3" },
	{ OPGEN_WR_SEND, 3000, T_CONN, K_MR, 0, 0, 0, "SEND_FIRST/MIDDLE/LAST" },
	{ OPGEN_WR_SEND_WITH_IMM, 3001, T_CONN, K_MR, 0, 0, 0, "SEND_LAST_WITH_IMM, pad 3" },
	{ OPGEN_WR_RDMA_WRITE, 64, T_CONN, K_MR, 0, 0, 0, "WRITE_ONLY" },
	{ OPGEN_WR_RDMA_WRITE, 62, T_CONN, K_MR, 0, 0, 0, "WRITE_ONLY, pad 2" },
	{ OPGEN_WR_RDMA_WRITE, 0, T_CONN, K_MR, 0, 0, 0, "zero-length WRITE" },
	{ OPGEN_WR_RDMA_WRITE, 3001, T_CONN, K_MR, 0, 0, 0, "WRITE_FIRST/MIDDLE/LAST, pad 3" },
	{ OPGEN_WR_RDMA_READ, 64, T_REL, K_MR, 0, 0, 0, "READ_RESPONSE_ONLY" },
	{ OPGEN_WR_RDMA_READ, 61, T_REL, K_MR, 0, 0, 0, "READ_RESPONSE_ONLY, pad 3" },
	{ OPGEN_WR_RDMA_READ, 0, T_REL, K_MR, 0, 0, 0, "zero-length READ" },
	{ OPGEN_WR_RDMA_READ, 3003, T_REL, K_MR, 0, 0, 0, "READ_RESPONSE_FIRST/MIDDLE/LAST, pad 1" },
	{ OPGEN_WR_RDMA_READ, 8192, T_REL, K_MR, 0, 0, 0, "8 READ responses" },
	{ OPGEN_WR_ATOMIC_FETCH_AND_ADD, 8, T_REL, K_MR, 5, 0, ATOMIC_INIT, "FETCH_ADD 100 -> 105" },
	{ OPGEN_WR_ATOMIC_CMP_AND_SWP, 8, T_REL, K_MR, ATOMIC_INIT + 5, ATOMIC_FINAL, ATOMIC_INIT + 5,
	  "CMP_SWAP 105 -> 0xabcdef" },
	{ OPGEN_WR_ATOMIC_CMP_AND_SWP, 8, T_REL, K_MR, 1, 2, ATOMIC_FINAL, "CMP_SWAP, no swap" },
	{ OPGEN_WR_RDMA_WRITE_WITH_IMM, 63, T_CONN, K_MR, 0, 0, 0, "WRITE_ONLY_WITH_IMM, pad 1" },
	{ OPGEN_WR_RDMA_WRITE_WITH_IMM, 0, T_CONN, K_MR, 0, 0, 0, "zero-length WRITE_WITH_IMM" },
	{ OPGEN_WR_RDMA_WRITE_WITH_IMM, 3002, T_CONN, K_MR, 0, 0, 0, "WRITE_LAST_WITH_IMM, pad 2" },
	{ OPGEN_WR_RDMA_WRITE, 64, T_MW, K_MW, 0, 0, 0, "WRITE_ONLY through the window" },
	{ OPGEN_WR_SEND_WITH_INV, 62, T_MW, K_MW, 0, 0, 0, "SEND_ONLY_WITH_INVALIDATE, pad 2" },
};
#define NOPS (sizeof(opgen_ops) / sizeof(opgen_ops[0]))

_Static_assert(NOPS <= NOPS_MAX, "one receive slot per operation");

/*
 * What the two sides exchange over TCP: 48 bytes, no padding, integers in
 * network byte order.
 *   0 qpn      the QP (XRC: the client's XRC_SEND, the server's XRC_RECV QP)
 *   4 psn      the first PSN it sends
 *   8 rkey     the R_Key of its region (the whole buffer)
 *  12 mtu      the path MTU in bytes
 *  16 addr     the region's address (64 bits)
 *  24 gid      its GID (16 bytes, as they are)
 *  40 mw_rkey  server: its type 2 window's R_Key once bound (the next key of
 *              the window: ibv_inc_rkey()), 0 when the QP type uses none;
 *              client: 0
 *  44 srqn     XRC server: the number of its XRC SRQ (ibv_get_srq_num()); else 0
 */
struct wire_info {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t mtu;
	uint64_t addr;
	uint8_t gid[16];
	uint32_t mw_rkey;
	uint32_t srqn;
};

_Static_assert(sizeof(struct wire_info) == 48 && offsetof(struct wire_info, addr) == 16 &&
	       offsetof(struct wire_info, gid) == 24 && offsetof(struct wire_info, mw_rkey) == 40 &&
	       offsetof(struct wire_info, srqn) == 44, "the exchange's 48 bytes");

/* byte k of operation i's payload (seed i), or of READ source i (seed 100 + i) */
static inline uint8_t
opgen_pat(uint32_t k, uint32_t seed)
{
	return (uint8_t)(k * 7u + seed * 13u + 1u);
}

static inline const char *
opgen_wr_name(enum opgen_wr wr)
{
	switch (wr) {
	case OPGEN_WR_SEND: return "SEND";
	case OPGEN_WR_SEND_WITH_IMM: return "SEND_WITH_IMM";
	case OPGEN_WR_RDMA_WRITE: return "RDMA_WRITE";
	case OPGEN_WR_RDMA_WRITE_WITH_IMM: return "RDMA_WRITE_WITH_IMM";
	case OPGEN_WR_RDMA_READ: return "RDMA_READ";
	case OPGEN_WR_ATOMIC_CMP_AND_SWP: return "ATOMIC_CMP_AND_SWP";
	case OPGEN_WR_ATOMIC_FETCH_AND_ADD: return "ATOMIC_FETCH_AND_ADD";
	case OPGEN_WR_BIND_MW: return "BIND_MW";
	case OPGEN_WR_SEND_WITH_INV: return "SEND_WITH_INV";
	default: return "?";
	}
}

static inline const char *
opgen_qpt_name(unsigned int qpt)
{
	return qpt == T_RC ? "rc" : qpt == T_UC ? "uc" : qpt == T_UD ? "ud" : "xrc";
}

static inline int
opgen_applies(const struct opgen_op *o, unsigned int qpt)
{
	return (o->qpts & qpt) != 0;
}

static inline int
opgen_consumes_recv(const struct opgen_op *o)
{
	return o->wr == OPGEN_WR_SEND || o->wr == OPGEN_WR_SEND_WITH_IMM ||
	       o->wr == OPGEN_WR_SEND_WITH_INV || o->wr == OPGEN_WR_RDMA_WRITE_WITH_IMM;
}

static inline int
opgen_has_imm(const struct opgen_op *o)
{
	return o->wr == OPGEN_WR_SEND_WITH_IMM || o->wr == OPGEN_WR_RDMA_WRITE_WITH_IMM;
}

static inline int
opgen_is_atomic(const struct opgen_op *o)
{
	return o->wr == OPGEN_WR_ATOMIC_CMP_AND_SWP || o->wr == OPGEN_WR_ATOMIC_FETCH_AND_ADD;
}

static inline int
opgen_is_write(const struct opgen_op *o)
{
	return o->wr == OPGEN_WR_RDMA_WRITE || o->wr == OPGEN_WR_RDMA_WRITE_WITH_IMM;
}

/*
 * The server's type 2 memory window for QP type @qpt: 1 and its offset in
 * the buffer (the WRITE target of the table's WRITE through it, AREA bytes,
 * REMOTE_WRITE), or 0 when no row of @qpt uses a window.
 */
static inline int
opgen_window(unsigned int qpt, uint32_t *off)
{
	for (unsigned int i = 0; i < NOPS; i++) {
		const struct opgen_op *o = &opgen_ops[i];

		if (opgen_applies(o, qpt) && o->key == K_MW && opgen_is_write(o)) {
			*off = WRITE_OFF + i * AREA;
			return 1;
		}
	}
	return 0;
}

/*
 * Lossy mode (-l, UC and UD only: their losses are not recovered): the
 * client posts the table as always; the server takes the receive
 * completions as they come until the client is done and the link has been
 * quiet for OPGEN_LOSSY_QUIET_MS, and judges each message by itself:
 * opgen_lossy_row() finds its row (by its immediate data, else by its
 * length: the SENDs without immediate data of UC and UD have distinct
 * lengths), its opcode, length and payload must be the row's. Neither order
 * nor once is asked: a UC responder starts a new message at any FIRST or
 * ONLY packet whatever its PSN (IBA 9.8: UC recovers no loss, so a PSN
 * gap only means lost packets; rxe check_psn() does the same), so a frame
 * the network duplicates or reorders is delivered again or late, as on UD;
 * such arrivals are counted as duplicates. Then every WRITE
 * target must be whole, untouched, or partly written with its own bytes (a
 * UC WRITE whose later packets were lost), and whole where its
 * WRITE_WITH_IMM completion arrived. The verdict also needs at least one
 * message to have arrived (the QP kept delivering); the server prints how
 * many were lost.
 */
#define OPGEN_LOSSY_QUIET_MS 500

struct opgen_lossy {
	uint8_t seen[NOPS_MAX];         /* arrivals of each row */
	int last;                       /* the highest row that arrived, -1 */
	unsigned int arrived, dups, bad, expected;
};

static inline void
opgen_lossy_init(struct opgen_lossy *l, unsigned int qpt)
{
	for (unsigned int i = 0; i < NOPS_MAX; i++)
		l->seen[i] = 0;
	l->last = -1;
	l->arrived = l->dups = l->bad = l->expected = 0;
	for (unsigned int i = 0; i < NOPS; i++)
		l->expected += opgen_applies(&opgen_ops[i], qpt) && opgen_consumes_recv(&opgen_ops[i]);
}

/*
 * The row of QP type @qpt a receive completion belongs to (@rdma_imm: it is
 * RECV_RDMA_WITH_IMM; @len: its payload length, GRH excluded), or -1.
 */
static inline int
opgen_lossy_row(unsigned int qpt, int rdma_imm, uint32_t len, int has_imm, uint32_t imm)
{
	for (unsigned int i = 0; i < NOPS; i++) {
		const struct opgen_op *o = &opgen_ops[i];

		if (!opgen_applies(o, qpt) || !opgen_consumes_recv(o))
			continue;
		if (has_imm ? imm == IMM(i) : (!opgen_has_imm(o) && o->len == len))
			return (o->wr == OPGEN_WR_RDMA_WRITE_WITH_IMM) == !!rdma_imm ? (int)i : -1;
	}
	return -1;
}

/*
 * Count an arrival of row @i (-1: none matched) of QP type @qpt, @whole: its
 * length and payload are the row's. 1 when it is right, 0 when it is wrong.
 */
static inline int
opgen_lossy_take(struct opgen_lossy *l, unsigned int qpt, int i, int whole)
{
	int ok = i >= 0 && whole;

	(void)qpt;
	if (ok && l->seen[i] > 0)
		l->dups++;
	if (i >= 0) {
		if (l->seen[i] == 0)
			l->arrived++;
		if (l->seen[i] < 255)
			l->seen[i]++;
		if (i > l->last)
			l->last = i;
	}
	l->bad += !ok;
	return ok;
}

/*
 * A WRITE target after a lossy run: 0 untouched, 1 whole, 2 partly written
 * with its own bytes (each byte its pattern or 0), -1 anything else (a wrong
 * byte, or bytes past the length).
 */
static inline int
opgen_lossy_target(const uint8_t *p, const struct opgen_op *o, unsigned int i)
{
	uint32_t mine = 0, zero = 0;

	for (uint32_t k = 0; k < AREA; k++) {
		if (k >= o->len) {
			if (p[k] != 0)
				return -1;
			continue;
		}
		mine += p[k] == opgen_pat(k, i);
		zero += p[k] == 0;
		if (p[k] != opgen_pat(k, i) && p[k] != 0)
			return -1;
	}
	return mine == o->len ? 1 : zero == o->len ? 0 : 2;
}

/*
 * Faults (-E NAME): one bad request per run instead of the table, both sides
 * given the same NAME, fresh QPs each run (an RC error ends the connection).
 * The client posts the request (after a good SEND_WITH_INV for F_INVALIDATED)
 * and checks its completion status; where the QP type drops the fault
 * silently it then posts a good SEND (follow) that must still arrive. The
 * server checks the receive completions it must see (and no other, flushes
 * aside), that nothing was written or executed, and its QP state: ERR after
 * an RC responder error (IBA 9.7.5.1, the class C errors of table 43; rxe
 * do_class_ac_error() + rxe_qp_error()),
 * RTS otherwise. Both sides check their own QP's state and exchange the
 * verdict as the table's run does. Before the request they swap which stack
 * they run (enum opgen_stack): where Linux rxe departs from the row, the
 * outcome follows opgen_fault_expect().
 */
enum opgen_fault_how {
	F_RKEY,		/* an R_Key naming no region: the region's with its key byte flipped */
	F_BOUNDS,	/* 64 bytes at the last 32 of the region (IBA 9.7.5.1.3 length check) */
	F_MR_NO_READ,	/* the server registers its region without REMOTE_READ */
	F_QP_NO_ATOMIC,	/* the server's QP has no REMOTE_ATOMIC in qp_access_flags */
	F_MISALIGNED,	/* an atomic 4 bytes past the 8-byte aligned word (IBA 9.4.5) */
	F_TOO_LONG,	/* a SEND longer than the server's receive buffer (SHORT_RECV bytes) */
	F_NO_RECV,	/* the server posts no receive; the client's rnr_retry is 0 */
	F_INVALIDATED,	/* after a SEND_WITH_INV of the window, a WRITE with its old R_Key */
	F_QKEY,		/* UD: a Q_Key the server's QP does not have (IBA 10.2.5) */
	F_QKEY_MSB,	/* UD: remote_qkey with bit 31 set: the sender's own Q_Key goes out */
	F_OVER_MTU,	/* UD: a message longer than the path MTU (IBA C10-93.1.1) */
	F_LKEY,		/* the SGE's L_Key names no region: a local protection error */
	F_SGE_LIST,	/* two SGEs on a QP made with max_send_sge 1: the post fails */
};

/* completion status values (enum ibv_wc_status and enum dr_wc_status; asserted by each program) */
enum opgen_wc_status {
	OPGEN_WC_SUCCESS = 0,
	OPGEN_WC_LOC_LEN_ERR = 1,
	OPGEN_WC_LOC_QP_OP_ERR = 2,
	OPGEN_WC_LOC_PROT_ERR = 4,
	OPGEN_WC_WR_FLUSH_ERR = 5,
	OPGEN_WC_REM_INV_REQ_ERR = 9,
	OPGEN_WC_REM_ACCESS_ERR = 10,
	OPGEN_WC_REM_OP_ERR = 11,
	OPGEN_WC_RNR_RETRY_EXC_ERR = 13,
	OPGEN_WC_NONE = -1,		/* no completion (F_SGE_LIST: the post fails, EINVAL) */
};

/* AETH syndromes of the server's answer (IBA table 43), for the tests reading the capture */
#define OPGEN_NAK_INV_REQ 0x61u
#define OPGEN_NAK_REM_ACCESS 0x62u
#define OPGEN_NAK_REM_OP 0x63u
#define OPGEN_RNR_NAK(timer) (0x20u | (timer))
#define OPGEN_MIN_RNR_TIMER 12u		/* the server's min_rnr_timer: 0.64 ms */
#define SHORT_RECV 1024u		/* F_TOO_LONG: the server's receive buffers */
#define FOLLOW_LEN 64u			/* the good SEND after a dropped fault */
#define MISALIGN 4u

struct opgen_fault {
	const char *name;
	unsigned int qpt;		/* the one QP type the fault is for */
	enum opgen_fault_how how;
	enum opgen_wr wr;
	uint32_t len;
	int status;			/* the client's completion of it; OPGEN_WC_NONE: no post */
	int recv;			/* the server's receive completion of it, or OPGEN_WC_NONE */
	int follow;			/* then a good SEND must arrive: the QP lives on */
	int server_err;			/* the server's QP ends in ERR */
	unsigned int nak;		/* RC: the syndrome of the server's answer */
	const char *why;
};

static const struct opgen_fault opgen_faults[] = {
	{ "rkey", T_RC, F_RKEY, OPGEN_WR_RDMA_WRITE, 64, OPGEN_WC_REM_ACCESS_ERR, OPGEN_WC_NONE, 0, 1,
	  OPGEN_NAK_REM_ACCESS, "WRITE with an R_Key of no region: remote access error (9.7.5.1.3)" },
	{ "bounds", T_RC, F_BOUNDS, OPGEN_WR_RDMA_WRITE, 64, OPGEN_WC_REM_ACCESS_ERR, OPGEN_WC_NONE, 0,
	  1, OPGEN_NAK_REM_ACCESS, "WRITE past the region's end: remote access error (9.7.5.1.3)" },
	{ "mr-no-read", T_RC, F_MR_NO_READ, OPGEN_WR_RDMA_READ, 64, OPGEN_WC_REM_ACCESS_ERR,
	  OPGEN_WC_NONE, 0, 1, OPGEN_NAK_REM_ACCESS,
	  "READ of a region without REMOTE_READ: remote access error (10.6.3.2)" },
	{ "qp-no-atomic", T_RC, F_QP_NO_ATOMIC, OPGEN_WR_ATOMIC_FETCH_AND_ADD, 8,
	  OPGEN_WC_REM_INV_REQ_ERR, OPGEN_WC_NONE, 0, 1, OPGEN_NAK_INV_REQ,
	  "atomic to a QP without REMOTE_ATOMIC: invalid request (9.7.5.1.2)" },
	{ "misaligned", T_RC, F_MISALIGNED, OPGEN_WR_ATOMIC_FETCH_AND_ADD, 8, OPGEN_WC_REM_INV_REQ_ERR,
	  OPGEN_WC_NONE, 0, 1, OPGEN_NAK_INV_REQ, "atomic not 8-byte aligned: invalid request (9.4.5)" },
	{ "too-long", T_RC, F_TOO_LONG, OPGEN_WR_SEND, 3000, OPGEN_WC_REM_INV_REQ_ERR,
	  OPGEN_WC_LOC_LEN_ERR, 0, 1, OPGEN_NAK_INV_REQ,
	  "SEND longer than the receive buffer: invalid request, LOC_LEN_ERR (9.7.5.1)" },
	{ "rnr", T_RC, F_NO_RECV, OPGEN_WR_SEND, 64, OPGEN_WC_RNR_RETRY_EXC_ERR, OPGEN_WC_NONE, 0, 0,
	  OPGEN_RNR_NAK(OPGEN_MIN_RNR_TIMER), "SEND with no receive posted, rnr_retry 0 (9.7.5.2.8)" },
	{ "invalidated", T_RC, F_INVALIDATED, OPGEN_WR_RDMA_WRITE, 64, OPGEN_WC_REM_ACCESS_ERR,
	  OPGEN_WC_NONE, 0, 1, OPGEN_NAK_REM_ACCESS,
	  "WRITE with a window's R_Key after SEND_WITH_INV: remote access error (10.6.7; ibv_bind_mw(3))" },
	{ "uc-rkey", T_UC, F_RKEY, OPGEN_WR_RDMA_WRITE, 64, OPGEN_WC_SUCCESS, OPGEN_WC_NONE, 1, 0, 0,
	  "UC WRITE with an R_Key of no region: dropped, the QP lives (9.7.5.1.3, class E)" },
	{ "ud-qkey", T_UD, F_QKEY, OPGEN_WR_SEND, 64, OPGEN_WC_SUCCESS, OPGEN_WC_NONE, 1, 0, 0,
	  "UD SEND with the wrong Q_Key: dropped silently (10.2.5)" },
	{ "ud-qkey-msb", T_UD, F_QKEY_MSB, OPGEN_WR_SEND, 64, OPGEN_WC_SUCCESS, OPGEN_WC_SUCCESS, 0, 0,
	  0, "UD remote_qkey 0x80000000: the sender's own Q_Key is used (10.2.5; ibv_post_send(3))" },
	{ "ud-over-mtu", T_UD, F_OVER_MTU, OPGEN_WR_SEND, 2000, OPGEN_WC_SUCCESS, OPGEN_WC_NONE, 1, 0,
	  0, "UD SEND above the path MTU: nothing sent, success (C10-93.1.1)" },
	{ "lkey", T_RC, F_LKEY, OPGEN_WR_SEND, 64, OPGEN_WC_LOC_PROT_ERR, OPGEN_WC_NONE, 0, 0, 0,
	  "SEND from an L_Key of no region: local protection error, nothing sent (10.6.3.1)" },
	{ "sge-list", T_RC, F_SGE_LIST, OPGEN_WR_SEND, 64, OPGEN_WC_NONE, OPGEN_WC_NONE, 1, 0, 0,
	  "two SGEs, max_send_sge 1: the post fails with EINVAL, the QP lives (ibv_post_send(3))" },
};
#define NFAULTS (sizeof(opgen_faults) / sizeof(opgen_faults[0]))

static inline const struct opgen_fault *
opgen_fault_find(const char *name)
{
	for (unsigned int i = 0; i < NFAULTS; i++) {
		const char *a = opgen_faults[i].name, *b = name;

		while (*a && *a == *b) {
			a++;
			b++;
		}
		if (*a == *b)
			return &opgen_faults[i];
	}
	return NULL;
}

/* the client's R_Key for the fault: @rkey its region's (F_RKEY flips the key byte) */
static inline uint32_t
opgen_fault_rkey(const struct opgen_fault *f, uint32_t rkey, uint32_t mw_rkey)
{
	return f->how == F_RKEY ? rkey ^ 0x80u : f->how == F_INVALIDATED ? mw_rkey : rkey;
}

/* the remote address of the fault's request (offset from the server's region) */
/*
 * Which stack a side runs, swapped as a uint32_t (network order) right after
 * struct wire_info in a fault run: each side's expectations follow from the
 * row and from the two stacks (opgen_fault_expect()).
 */
enum opgen_stack {
	OPGEN_STACK_DR = 0,	/* dpdk-rdma: the row as it stands */
	OPGEN_STACK_RXE = 1,	/* Linux rxe as Debian 12 ships it (6.1, rdma-core 44) */
};

/* What a fault run must end with. */
struct opgen_fault_outcome {
	int status;		/* the client's completion; OPGEN_WC_NONE: the post is refused, EINVAL */
	int recv;		/* the server's receive completion of it, or OPGEN_WC_NONE */
	int server_err;		/* the server's QP ends in ERR */
	unsigned int nak;	/* RC: the syndrome of the server's answer, 0 none */
};

/*
 * The row's outcome with the client on stack @req and the server on @resp.
 * Where they differ from the row (IBA), the stacks say so themselves:
 *  - dpdk-rdma checks every SGE's L_Key at post time: EINVAL
 *    (doc/guides/api.rst, Posting); rxe completes it LOC_QP_OP_ERR (its
 *    requester reports any failed copy so).
 *  - rxe's provider refuses an atomic to a misaligned address at post time
 *    (EINVAL): nothing goes out.
 *  - rxe's responder reports a SEND longer than its buffer as a malformed
 *    WQE: receive LOC_QP_OP_ERR, NAK remote operational error (0x63), the
 *    requester REM_OP_ERR.
 *  - rxe sends remote_qkey as given, bit 31 and all: the server drops it.
 */
static inline struct opgen_fault_outcome
opgen_fault_expect(const struct opgen_fault *f, enum opgen_stack req, enum opgen_stack resp)
{
	struct opgen_fault_outcome o = { f->status, f->recv, f->server_err, f->nak };

	if (f->how == F_LKEY)
		o.status = req == OPGEN_STACK_RXE ? OPGEN_WC_LOC_QP_OP_ERR : OPGEN_WC_NONE;
	if (f->how == F_MISALIGNED && req == OPGEN_STACK_RXE) {
		o.status = OPGEN_WC_NONE;
		o.server_err = 0;
		o.nak = 0;
	}
	if (f->how == F_TOO_LONG && resp == OPGEN_STACK_RXE) {
		o.status = OPGEN_WC_REM_OP_ERR;
		o.recv = OPGEN_WC_LOC_QP_OP_ERR;
		o.nak = OPGEN_NAK_REM_OP;
	}
	if (f->how == F_QKEY_MSB && req == OPGEN_STACK_RXE)
		o.recv = OPGEN_WC_NONE;
	return o;
}

static inline uint64_t
opgen_fault_off(const struct opgen_fault *f)
{
	switch (f->how) {
	case F_BOUNDS: return BUF_SZ - 32u;
	case F_MISALIGNED: return ATOMIC_OFF + MISALIGN;
	case F_QP_NO_ATOMIC: return ATOMIC_OFF;
	case F_MR_NO_READ: return READ_OFF;
	case F_INVALIDATED: {
		uint32_t off = WRITE_OFF;

		opgen_window(T_RC, &off);	/* where the window was */
		return off;
	}
	default: return WRITE_OFF;
	}
}

#endif /* DR_OPGEN_OPS_H */
