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
 * the other checks.
 *
 * Only C11 and <stdint.h> here: the opcode numbers are neutral; they equal
 * enum ibv_wr_opcode's and enum dr_wr_opcode's (each program asserts so).
 *
 * The exchange: the client connects (retrying until the server listens),
 * both send struct wire_info (integers in network byte order), move their
 * QP to RTS, and swap a go byte. The client posts the table's operations
 * one at a time, each signaled, and checks every completion. The server
 * checks each receive completion in order; then it reads the client's
 * failure count (uint32_t, network order), checks the WRITE targets and the
 * atomic word, and answers its own failure count: the verdict. Exit status:
 * 0 when both sides saw everything right, 1 on a failed check, 2 on a setup
 * error, 3 on timeout.
 */

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
};

/* QP types an operation applies to */
#define T_RC 1u
#define T_UC 2u
#define T_UD 4u
#define T_CONN (T_RC | T_UC)
#define T_ALL (T_RC | T_UC | T_UD)

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

#define ATOMIC_INIT 100u
#define ATOMIC_FINAL 0xabcdefu		/* the atomic word after the table */

struct opgen_op {
	enum opgen_wr wr;
	uint32_t len;
	unsigned int qpts;		/* T_* the operation applies to */
	uint64_t compare_add, swap;	/* atomics */
	uint64_t orig;			/* atomics: expected original value */
	const char *why;
};

/*
 * In posting order. The lengths are chosen for a 1024-byte path MTU: 61, 62
 * and 63 bytes need 3, 2 and 1 pad bytes, 3000-3003 span three packets, 8192
 * eight. UD messages fit one packet. The last UC operation consumes a
 * receive, so once the server has seen it every earlier UC WRITE has landed.
 */
static const struct opgen_op opgen_ops[] = {
	{ OPGEN_WR_SEND, 64, T_ALL, 0, 0, 0, "SEND_ONLY" },
	{ OPGEN_WR_SEND, 63, T_ALL, 0, 0, 0, "pad 1" },
	{ OPGEN_WR_SEND_WITH_IMM, 62, T_ALL, 0, 0, 0, "SEND_ONLY_WITH_IMM, pad 2" },
	{ OPGEN_WR_SEND, 61, T_ALL, 0, 0, 0, "pad 3" },
	{ OPGEN_WR_SEND, 0, T_ALL, 0, 0, 0, "zero-length SEND" },
	{ OPGEN_WR_SEND_WITH_IMM, 0, T_ALL, 0, 0, 0, "zero-length SEND_WITH_IMM" },
	{ OPGEN_WR_SEND_WITH_IMM, 1021, T_UD, 0, 0, 0, "UD near the MTU, pad 3" },
	{ OPGEN_WR_SEND, 3000, T_CONN, 0, 0, 0, "SEND_FIRST/MIDDLE/LAST" },
	{ OPGEN_WR_SEND_WITH_IMM, 3001, T_CONN, 0, 0, 0, "SEND_LAST_WITH_IMM, pad 3" },
	{ OPGEN_WR_RDMA_WRITE, 64, T_CONN, 0, 0, 0, "WRITE_ONLY" },
	{ OPGEN_WR_RDMA_WRITE, 62, T_CONN, 0, 0, 0, "WRITE_ONLY, pad 2" },
	{ OPGEN_WR_RDMA_WRITE, 0, T_CONN, 0, 0, 0, "zero-length WRITE" },
	{ OPGEN_WR_RDMA_WRITE, 3001, T_CONN, 0, 0, 0, "WRITE_FIRST/MIDDLE/LAST, pad 3" },
	{ OPGEN_WR_RDMA_READ, 64, T_RC, 0, 0, 0, "READ_RESPONSE_ONLY" },
	{ OPGEN_WR_RDMA_READ, 61, T_RC, 0, 0, 0, "READ_RESPONSE_ONLY, pad 3" },
	{ OPGEN_WR_RDMA_READ, 0, T_RC, 0, 0, 0, "zero-length READ" },
	{ OPGEN_WR_RDMA_READ, 3003, T_RC, 0, 0, 0, "READ_RESPONSE_FIRST/MIDDLE/LAST, pad 1" },
	{ OPGEN_WR_RDMA_READ, 8192, T_RC, 0, 0, 0, "8 READ responses" },
	{ OPGEN_WR_ATOMIC_FETCH_AND_ADD, 8, T_RC, 5, 0, ATOMIC_INIT, "FETCH_ADD 100 -> 105" },
	{ OPGEN_WR_ATOMIC_CMP_AND_SWP, 8, T_RC, ATOMIC_INIT + 5, ATOMIC_FINAL, ATOMIC_INIT + 5,
	  "CMP_SWAP 105 -> 0xabcdef" },
	{ OPGEN_WR_ATOMIC_CMP_AND_SWP, 8, T_RC, 1, 2, ATOMIC_FINAL, "CMP_SWAP, no swap" },
	{ OPGEN_WR_RDMA_WRITE_WITH_IMM, 63, T_CONN, 0, 0, 0, "WRITE_ONLY_WITH_IMM, pad 1" },
	{ OPGEN_WR_RDMA_WRITE_WITH_IMM, 0, T_CONN, 0, 0, 0, "zero-length WRITE_WITH_IMM" },
	{ OPGEN_WR_RDMA_WRITE_WITH_IMM, 3002, T_CONN, 0, 0, 0, "WRITE_LAST_WITH_IMM, pad 2" },
};
#define NOPS (sizeof(opgen_ops) / sizeof(opgen_ops[0]))

_Static_assert(NOPS <= NOPS_MAX, "one receive slot per operation");

/* what the two sides exchange over TCP, integers in network byte order */
struct wire_info {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t mtu;
	uint64_t addr;
	uint8_t gid[16];
};

_Static_assert(sizeof(struct wire_info) == 40, "the exchange's 40 bytes");

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
	default: return "?";
	}
}

static inline const char *
opgen_qpt_name(unsigned int qpt)
{
	return qpt == T_RC ? "rc" : qpt == T_UC ? "uc" : "ud";
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
	       o->wr == OPGEN_WR_RDMA_WRITE_WITH_IMM;
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

#endif /* DR_OPGEN_OPS_H */
