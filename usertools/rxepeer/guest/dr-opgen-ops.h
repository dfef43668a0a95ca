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

#endif /* DR_OPGEN_OPS_H */
