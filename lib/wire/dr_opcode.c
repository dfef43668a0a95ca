/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The packet opcode table (IBA vol. 1, 9.2.1 table 38 for the opcodes, 9.3
 * for the extension headers each carries, Annex A17.9.3 for the RoCEv2 CNP)
 * and the work-request opcode x QP type table (ibv_post_send(3)).
 *
 * Offsets are written out as data on purpose: test_opcode.c recomputes each
 * one from the header bits of the mask and fails on any disagreement.
 */

#include <errno.h>
#include <stddef.h>

#include "dr_hdr.h"
#include "dr_opcode.h"

const uint8_t dr_hdr_size[DR_NUM_HDR_TYPES] = {
	[DR_HDR_BTH] = DR_BTH_BYTES,
	[DR_HDR_RDETH] = DR_RDETH_BYTES,
	[DR_HDR_DETH] = DR_DETH_BYTES,
	[DR_HDR_XRCETH] = DR_XRCETH_BYTES,
	[DR_HDR_FETH] = DR_FETH_BYTES,
	[DR_HDR_RETH] = DR_RETH_BYTES,
	[DR_HDR_ATMETH] = DR_ATMETH_BYTES,
	[DR_HDR_AETH] = DR_AETH_BYTES,
	[DR_HDR_ATMACK] = DR_ATMACK_BYTES,
	[DR_HDR_IMMDT] = DR_IMMDT_BYTES,
	[DR_HDR_IETH] = DR_IETH_BYTES,
	[DR_HDR_PAYLOAD] = 0,
};

const char *const dr_hdr_name[DR_NUM_HDR_TYPES] = {
	[DR_HDR_BTH] = "BTH",
	[DR_HDR_RDETH] = "RDETH",
	[DR_HDR_DETH] = "DETH",
	[DR_HDR_XRCETH] = "XRCETH",
	[DR_HDR_FETH] = "FETH",
	[DR_HDR_RETH] = "RETH",
	[DR_HDR_ATMETH] = "AtomicETH",
	[DR_HDR_AETH] = "AETH",
	[DR_HDR_ATMACK] = "AtomicAckETH",
	[DR_HDR_IMMDT] = "ImmDt",
	[DR_HDR_IETH] = "IETH",
	[DR_HDR_PAYLOAD] = "payload",
};

/*
 * RC 0x00-0x1D, UC 0x20-0x2B, UD 0x64-0x65, CNP 0x81, XRC 0xA0-0xB7, and
 * dpdk-rdma's SACK 0xC1 (manufacturer specific, DR_OPCODE_SACK).
 * RD (0x40-0x55) is not supported: its opcodes are left undefined, so the
 * parser reports them as unknown. FLUSH and ATOMIC WRITE are defined for RC
 * only, as Linux (include/rdma/ib_pack.h) and rdma-core define them.
 */
const struct dr_opcode_info dr_opcode_table[256] = {
	[0x00] = {
		.name = "RC_SEND_FIRST",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x01] = {
		.name = "RC_SEND_MIDDLE",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_MIDDLE | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x02] = {
		.name = "RC_SEND_LAST",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x03] = {
		.name = "RC_SEND_LAST_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_IMMDT] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x04] = {
		.name = "RC_SEND_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x05] = {
		.name = "RC_SEND_ONLY_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_IMMDT] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x06] = {
		.name = "RC_RDMA_WRITE_FIRST",
		.mask = DR_OPF_BTH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 28,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_RETH] = 12, [DR_HDR_PAYLOAD] = 28 },
	},
	[0x07] = {
		.name = "RC_RDMA_WRITE_MIDDLE",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_MIDDLE | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x08] = {
		.name = "RC_RDMA_WRITE_LAST",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x09] = {
		.name = "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_IMMDT] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x0A] = {
		.name = "RC_RDMA_WRITE_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 28,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_RETH] = 12, [DR_HDR_PAYLOAD] = 28 },
	},
	[0x0B] = {
		.name = "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_RETH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 32,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_RETH] = 12, [DR_HDR_IMMDT] = 28, [DR_HDR_PAYLOAD] = 32 },
	},
	[0x0C] = {
		.name = "RC_RDMA_READ_REQUEST",
		.mask = DR_OPF_BTH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_READ | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 28,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_RETH] = 12, [DR_HDR_PAYLOAD] = 28 },
	},
	[0x0D] = {
		.name = "RC_RDMA_READ_RESPONSE_FIRST",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_READ | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x0E] = {
		.name = "RC_RDMA_READ_RESPONSE_MIDDLE",
		.mask = DR_OPF_BTH | DR_OPF_RESP | DR_OPF_MIDDLE | DR_OPF_READ | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x0F] = {
		.name = "RC_RDMA_READ_RESPONSE_LAST",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_LAST | DR_OPF_READ | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x10] = {
		.name = "RC_RDMA_READ_RESPONSE_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_READ | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x11] = {
		.name = "RC_ACKNOWLEDGE",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ACK | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x12] = {
		.name = "RC_ATOMIC_ACKNOWLEDGE",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_ATMACK | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ATOMIC | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 24,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_ATMACK] = 16, [DR_HDR_PAYLOAD] = 24 },
	},
	[0x13] = {
		.name = "RC_COMPARE_SWAP",
		.mask = DR_OPF_BTH | DR_OPF_ATMETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ATOMIC | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 40,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_ATMETH] = 12, [DR_HDR_PAYLOAD] = 40 },
	},
	[0x14] = {
		.name = "RC_FETCH_ADD",
		.mask = DR_OPF_BTH | DR_OPF_ATMETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ATOMIC | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 40,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_ATMETH] = 12, [DR_HDR_PAYLOAD] = 40 },
	},
	[0x16] = {
		.name = "RC_SEND_LAST_WITH_INVALIDATE",
		.mask = DR_OPF_BTH | DR_OPF_IETH | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_INV | DR_OPF_PAYLOAD | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_IETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x17] = {
		.name = "RC_SEND_ONLY_WITH_INVALIDATE",
		.mask = DR_OPF_BTH | DR_OPF_IETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_INV | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_IETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x1C] = {
		.name = "RC_FLUSH",
		.mask = DR_OPF_BTH | DR_OPF_FETH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_FLUSH | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 32,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_FETH] = 12, [DR_HDR_RETH] = 16, [DR_HDR_PAYLOAD] = 32 },
	},
	[0x1D] = {
		.name = "RC_ATOMIC_WRITE",
		.mask = DR_OPF_BTH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ATOMIC_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 28,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_RETH] = 12, [DR_HDR_PAYLOAD] = 28 },
	},
	[0x20] = {
		.name = "UC_SEND_FIRST",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_CONNECTED,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x21] = {
		.name = "UC_SEND_MIDDLE",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_MIDDLE | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_CONNECTED,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x22] = {
		.name = "UC_SEND_LAST",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_COMP | DR_OPF_CONNECTED,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x23] = {
		.name = "UC_SEND_LAST_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_COMP | DR_OPF_CONNECTED,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_IMMDT] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x24] = {
		.name = "UC_SEND_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x25] = {
		.name = "UC_SEND_ONLY_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_IMMDT] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x26] = {
		.name = "UC_RDMA_WRITE_FIRST",
		.mask = DR_OPF_BTH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED,
		.length = 28,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_RETH] = 12, [DR_HDR_PAYLOAD] = 28 },
	},
	[0x27] = {
		.name = "UC_RDMA_WRITE_MIDDLE",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_MIDDLE | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x28] = {
		.name = "UC_RDMA_WRITE_LAST",
		.mask = DR_OPF_BTH | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0x29] = {
		.name = "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_IMMDT] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0x2A] = {
		.name = "UC_RDMA_WRITE_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED,
		.length = 28,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_RETH] = 12, [DR_HDR_PAYLOAD] = 28 },
	},
	[0x2B] = {
		.name = "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_RETH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED,
		.length = 32,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_RETH] = 12, [DR_HDR_IMMDT] = 28, [DR_HDR_PAYLOAD] = 32 },
	},
	[0x64] = {
		.name = "UD_SEND_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_DETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP,
		.length = 20,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_DETH] = 12, [DR_HDR_PAYLOAD] = 20 },
	},
	[0x65] = {
		.name = "UD_SEND_ONLY_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_DETH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP,
		.length = 24,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_DETH] = 12, [DR_HDR_IMMDT] = 20, [DR_HDR_PAYLOAD] = 24 },
	},
	[0x81] = {
		.name = "CNP",
		.mask = DR_OPF_BTH | DR_OPF_PAYLOAD | DR_OPF_CNP,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[DR_OPCODE_SACK] = {
		/* an RC ACKNOWLEDGE followed by struct dr_sack (doc/guides/reliability.rst) */
		.name = "DR_SACK",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ACK | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xA0] = {
		.name = "XRC_SEND_FIRST",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xA1] = {
		.name = "XRC_SEND_MIDDLE",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_REQ | DR_OPF_MIDDLE | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xA2] = {
		.name = "XRC_SEND_LAST",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xA3] = {
		.name = "XRC_SEND_LAST_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 20,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_IMMDT] = 16, [DR_HDR_PAYLOAD] = 20 },
	},
	[0xA4] = {
		.name = "XRC_SEND_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xA5] = {
		.name = "XRC_SEND_ONLY_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 20,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_IMMDT] = 16, [DR_HDR_PAYLOAD] = 20 },
	},
	[0xA6] = {
		.name = "XRC_RDMA_WRITE_FIRST",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 32,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_RETH] = 16, [DR_HDR_PAYLOAD] = 32 },
	},
	[0xA7] = {
		.name = "XRC_RDMA_WRITE_MIDDLE",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_REQ | DR_OPF_MIDDLE | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xA8] = {
		.name = "XRC_RDMA_WRITE_LAST",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xA9] = {
		.name = "XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 20,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_IMMDT] = 16, [DR_HDR_PAYLOAD] = 20 },
	},
	[0xAA] = {
		.name = "XRC_RDMA_WRITE_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 32,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_RETH] = 16, [DR_HDR_PAYLOAD] = 32 },
	},
	[0xAB] = {
		.name = "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_RETH | DR_OPF_IMMDT | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_WRITE | DR_OPF_IMM | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 36,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_RETH] = 16, [DR_HDR_IMMDT] = 32, [DR_HDR_PAYLOAD] = 36 },
	},
	[0xAC] = {
		.name = "XRC_RDMA_READ_REQUEST",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_RETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_READ | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 32,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_RETH] = 16, [DR_HDR_PAYLOAD] = 32 },
	},
	[0xAD] = {
		.name = "XRC_RDMA_READ_RESPONSE_FIRST",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_READ | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xAE] = {
		.name = "XRC_RDMA_READ_RESPONSE_MIDDLE",
		.mask = DR_OPF_BTH | DR_OPF_RESP | DR_OPF_MIDDLE | DR_OPF_READ | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 12,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_PAYLOAD] = 12 },
	},
	[0xAF] = {
		.name = "XRC_RDMA_READ_RESPONSE_LAST",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_LAST | DR_OPF_READ | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xB0] = {
		.name = "XRC_RDMA_READ_RESPONSE_ONLY",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_READ | DR_OPF_PAYLOAD | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xB1] = {
		.name = "XRC_ACKNOWLEDGE",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ACK | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 16,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_PAYLOAD] = 16 },
	},
	[0xB2] = {
		.name = "XRC_ATOMIC_ACKNOWLEDGE",
		.mask = DR_OPF_BTH | DR_OPF_AETH | DR_OPF_ATMACK | DR_OPF_RESP | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ATOMIC | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 24,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_AETH] = 12, [DR_HDR_ATMACK] = 16, [DR_HDR_PAYLOAD] = 24 },
	},
	[0xB3] = {
		.name = "XRC_COMPARE_SWAP",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_ATMETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ATOMIC | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 44,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_ATMETH] = 16, [DR_HDR_PAYLOAD] = 44 },
	},
	[0xB4] = {
		.name = "XRC_FETCH_ADD",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_ATMETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_ATOMIC | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 44,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_ATMETH] = 16, [DR_HDR_PAYLOAD] = 44 },
	},
	[0xB6] = {
		.name = "XRC_SEND_LAST_WITH_INVALIDATE",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_IETH | DR_OPF_REQ | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_INV | DR_OPF_PAYLOAD | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 20,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_IETH] = 16, [DR_HDR_PAYLOAD] = 20 },
	},
	[0xB7] = {
		.name = "XRC_SEND_ONLY_WITH_INVALIDATE",
		.mask = DR_OPF_BTH | DR_OPF_XRCETH | DR_OPF_IETH | DR_OPF_REQ | DR_OPF_FIRST | DR_OPF_LAST | DR_OPF_SEND | DR_OPF_INV | DR_OPF_PAYLOAD | DR_OPF_RWR | DR_OPF_COMP | DR_OPF_CONNECTED | DR_OPF_RELIABLE,
		.length = 20,
		.offset = { [DR_HDR_BTH] = 0, [DR_HDR_XRCETH] = 12, [DR_HDR_IETH] = 16, [DR_HDR_PAYLOAD] = 20 },
	},
};

const char *
dr_opcode_name(uint8_t opcode)
{
	const char *n = dr_opcode_table[opcode].name;

	return n != NULL ? n : "UNKNOWN";
}

const char *
dr_transport_name(uint8_t opcode)
{
	switch (opcode & DR_OPCODE_TRANSPORT_MASK) {
	case DR_TRANSPORT_RC: return "RC";
	case DR_TRANSPORT_UC: return "UC";
	case DR_TRANSPORT_RD: return "RD";
	case DR_TRANSPORT_UD: return "UD";
	case DR_TRANSPORT_CNP: return "CNP";
	case DR_TRANSPORT_XRC: return "XRC";
	case DR_TRANSPORT_VENDOR: return "VENDOR";
	default: return "RESERVED";
	}
}

#define A DR_WRF_ALLOWED
#define CONN_SEND (A | DR_WRF_INLINE | DR_WRF_SEND)
#define CONN_WRITE (A | DR_WRF_INLINE | DR_WRF_WRITE)
#define RELIABLE_ONLY(m) { [DR_QPT_RC] = (m), [DR_QPT_XRC_SEND] = (m) }

/*
 * Which WR opcode each QP type accepts (ibv_post_send(3), "opcode"; IBA 10.7.2).
 * UD sends take an address handle; XRC_RECV QPs have no send queue at all.
 */
const struct dr_wr_opcode_info dr_wr_opcode_table[DR_NUM_WR_OPCODES] = {
	[DR_WR_RDMA_WRITE] = {
		.name = "RDMA_WRITE",
		.mask = { [DR_QPT_RC] = CONN_WRITE, [DR_QPT_UC] = CONN_WRITE, [DR_QPT_XRC_SEND] = CONN_WRITE },
	},
	[DR_WR_RDMA_WRITE_WITH_IMM] = {
		.name = "RDMA_WRITE_WITH_IMM",
		.mask = {
			[DR_QPT_RC] = CONN_WRITE | DR_WRF_IMM,
			[DR_QPT_UC] = CONN_WRITE | DR_WRF_IMM,
			[DR_QPT_XRC_SEND] = CONN_WRITE | DR_WRF_IMM,
		},
	},
	[DR_WR_SEND] = {
		.name = "SEND",
		.mask = {
			[DR_QPT_RC] = CONN_SEND, [DR_QPT_UC] = CONN_SEND, [DR_QPT_XRC_SEND] = CONN_SEND,
			[DR_QPT_UD] = CONN_SEND | DR_WRF_NEEDS_AH,
		},
	},
	[DR_WR_SEND_WITH_IMM] = {
		.name = "SEND_WITH_IMM",
		.mask = {
			[DR_QPT_RC] = CONN_SEND | DR_WRF_IMM, [DR_QPT_UC] = CONN_SEND | DR_WRF_IMM,
			[DR_QPT_XRC_SEND] = CONN_SEND | DR_WRF_IMM,
			[DR_QPT_UD] = CONN_SEND | DR_WRF_IMM | DR_WRF_NEEDS_AH,
		},
	},
	[DR_WR_RDMA_READ] = {
		.name = "RDMA_READ",
		.mask = RELIABLE_ONLY(A | DR_WRF_READ),
	},
	[DR_WR_ATOMIC_CMP_AND_SWP] = {
		.name = "ATOMIC_CMP_AND_SWP",
		.mask = RELIABLE_ONLY(A | DR_WRF_ATOMIC),
	},
	[DR_WR_ATOMIC_FETCH_AND_ADD] = {
		.name = "ATOMIC_FETCH_AND_ADD",
		.mask = RELIABLE_ONLY(A | DR_WRF_ATOMIC),
	},
	[DR_WR_LOCAL_INV] = {
		.name = "LOCAL_INV",
		.mask = {
			[DR_QPT_RC] = A | DR_WRF_LOCAL, [DR_QPT_UC] = A | DR_WRF_LOCAL,
			[DR_QPT_XRC_SEND] = A | DR_WRF_LOCAL,
		},
	},
	[DR_WR_BIND_MW] = {
		.name = "BIND_MW",
		.mask = {
			[DR_QPT_RC] = A | DR_WRF_LOCAL, [DR_QPT_UC] = A | DR_WRF_LOCAL,
			[DR_QPT_XRC_SEND] = A | DR_WRF_LOCAL,
		},
	},
	[DR_WR_SEND_WITH_INV] = {
		.name = "SEND_WITH_INV",
		.mask = RELIABLE_ONLY(CONN_SEND | DR_WRF_INV),
	},
	[DR_WR_TSO] = {
		/* TSO applies to UD and raw packet QPs only (ibv_post_send(3)); not offered yet. */
		.name = "TSO",
	},
	[DR_WR_DRIVER1] = {
		.name = "DRIVER1",
	},
	[DR_WR_FLUSH] = {
		.name = "FLUSH",
		.mask = { [DR_QPT_RC] = A | DR_WRF_FLUSH },
	},
	[DR_WR_ATOMIC_WRITE] = {
		.name = "ATOMIC_WRITE",
		.mask = { [DR_QPT_RC] = A | DR_WRF_ATOMIC_WRITE },
	},
};

#undef A
#undef CONN_SEND
#undef CONN_WRITE
#undef RELIABLE_ONLY

uint16_t
dr_wr_opcode_flags(enum dr_qp_type qpt, enum dr_wr_opcode op)
{
	if ((unsigned int)op >= DR_NUM_WR_OPCODES || (unsigned int)qpt >= DR_NUM_QP_TYPES)
		return 0;
	return dr_wr_opcode_table[op].mask[qpt];
}

/* Operation bits of the packets of each multi-packet WR: first, middle, last, only. */
struct dr_wr_pkt_ops {
	int8_t op[4];
};

static const struct dr_wr_pkt_ops dr_wr_pkt_ops[DR_NUM_WR_OPCODES] = {
	[DR_WR_RDMA_WRITE] = { { DR_OP_WRITE_FIRST, DR_OP_WRITE_MIDDLE, DR_OP_WRITE_LAST, DR_OP_WRITE_ONLY } },
	[DR_WR_RDMA_WRITE_WITH_IMM] = { { DR_OP_WRITE_FIRST, DR_OP_WRITE_MIDDLE, DR_OP_WRITE_LAST_IMM,
					  DR_OP_WRITE_ONLY_IMM } },
	[DR_WR_SEND] = { { DR_OP_SEND_FIRST, DR_OP_SEND_MIDDLE, DR_OP_SEND_LAST, DR_OP_SEND_ONLY } },
	[DR_WR_SEND_WITH_IMM] = { { DR_OP_SEND_FIRST, DR_OP_SEND_MIDDLE, DR_OP_SEND_LAST_IMM,
				    DR_OP_SEND_ONLY_IMM } },
	[DR_WR_SEND_WITH_INV] = { { DR_OP_SEND_FIRST, DR_OP_SEND_MIDDLE, DR_OP_SEND_LAST_INV,
				    DR_OP_SEND_ONLY_INV } },
	[DR_WR_RDMA_READ] = { { -1, -1, -1, DR_OP_READ_REQ } },
	[DR_WR_ATOMIC_CMP_AND_SWP] = { { -1, -1, -1, DR_OP_CMP_SWAP } },
	[DR_WR_ATOMIC_FETCH_AND_ADD] = { { -1, -1, -1, DR_OP_FETCH_ADD } },
	[DR_WR_FLUSH] = { { -1, -1, -1, DR_OP_FLUSH } },
	[DR_WR_ATOMIC_WRITE] = { { -1, -1, -1, DR_OP_ATOMIC_WRITE } },
	[DR_WR_LOCAL_INV] = { { -1, -1, -1, -1 } },
	[DR_WR_BIND_MW] = { { -1, -1, -1, -1 } },
	[DR_WR_TSO] = { { -1, -1, -1, -1 } },
	[DR_WR_DRIVER1] = { { -1, -1, -1, -1 } },
};

int
dr_wr_pkt_opcode(enum dr_qp_type qpt, enum dr_wr_opcode op, enum dr_pkt_pos pos)
{
	uint8_t transport;
	int8_t bits;
	int opcode;

	if ((unsigned int)pos > DR_POS_ONLY)
		return -EINVAL;
	if (!(dr_wr_opcode_flags(qpt, op) & DR_WRF_ALLOWED))
		return -EINVAL;
	switch (qpt) {
	case DR_QPT_RC: transport = DR_TRANSPORT_RC; break;
	case DR_QPT_UC: transport = DR_TRANSPORT_UC; break;
	case DR_QPT_UD: transport = DR_TRANSPORT_UD; break;
	case DR_QPT_XRC_SEND: transport = DR_TRANSPORT_XRC; break;
	default: return -EINVAL;
	}
	bits = dr_wr_pkt_ops[op].op[pos];
	if (bits < 0)
		return -EINVAL;
	opcode = transport | bits;
	/* the table is the judge: UD has only SEND ONLY (IBA 9.8.3), for instance */
	return dr_opcode_valid((uint8_t)opcode) ? opcode : -EINVAL;
}
