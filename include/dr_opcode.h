/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_OPCODE_H
#define DR_OPCODE_H

/**
 * @file
 * The packet opcode table and the work-request opcode x QP type table.
 *
 * Packet opcodes are the BTH.OpCode byte (IBA 9.2.1, table 38): the top three
 * bits name the transport, the low five the operation. One table entry per
 * defined opcode says which extension headers follow the BTH, at which offset,
 * the total transport header length and what the packet means. Build and parse
 * are driven by this data, never by switch statements on opcodes.
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Transport field of BTH.OpCode (bits 7:5). */
enum dr_transport {
	DR_TRANSPORT_RC = 0x00,   /**< Reliable Connection */
	DR_TRANSPORT_UC = 0x20,   /**< Unreliable Connection */
	DR_TRANSPORT_RD = 0x40,   /**< Reliable Datagram (not supported) */
	DR_TRANSPORT_UD = 0x60,   /**< Unreliable Datagram */
	DR_TRANSPORT_CNP = 0x80,  /**< Congestion Notification Packet (RoCEv2, A17.9.3) */
	DR_TRANSPORT_XRC = 0xA0,  /**< eXtended Reliable Connection */
	DR_TRANSPORT_VENDOR = 0xC0, /**< manufacturer specific (IBA table 38: 110 and 111) */
};

/** Transport bits of an opcode. */
#define DR_OPCODE_TRANSPORT_MASK 0xE0
/** Operation bits of an opcode. */
#define DR_OPCODE_OP_MASK 0x1F

/** Operation field of BTH.OpCode (bits 4:0), common to RC, UC, UD and XRC (IBA table 38). */
enum dr_op {
	DR_OP_SEND_FIRST = 0x00,
	DR_OP_SEND_MIDDLE = 0x01,
	DR_OP_SEND_LAST = 0x02,
	DR_OP_SEND_LAST_IMM = 0x03,
	DR_OP_SEND_ONLY = 0x04,
	DR_OP_SEND_ONLY_IMM = 0x05,
	DR_OP_WRITE_FIRST = 0x06,
	DR_OP_WRITE_MIDDLE = 0x07,
	DR_OP_WRITE_LAST = 0x08,
	DR_OP_WRITE_LAST_IMM = 0x09,
	DR_OP_WRITE_ONLY = 0x0A,
	DR_OP_WRITE_ONLY_IMM = 0x0B,
	DR_OP_READ_REQ = 0x0C,
	DR_OP_READ_RESP_FIRST = 0x0D,
	DR_OP_READ_RESP_MIDDLE = 0x0E,
	DR_OP_READ_RESP_LAST = 0x0F,
	DR_OP_READ_RESP_ONLY = 0x10,
	DR_OP_ACK = 0x11,
	DR_OP_ATOMIC_ACK = 0x12,
	DR_OP_CMP_SWAP = 0x13,
	DR_OP_FETCH_ADD = 0x14,
	/* 0x15 reserved (was RD RESYNC) */
	DR_OP_SEND_LAST_INV = 0x16,
	DR_OP_SEND_ONLY_INV = 0x17,
	/** FLUSH (IBA 1.5, memory placement extensions, 9.4.9). */
	DR_OP_FLUSH = 0x1C,
	/** ATOMIC WRITE (IBA 1.5, memory placement extensions, 9.4.10). */
	DR_OP_ATOMIC_WRITE = 0x1D,
};

/** Compose an opcode from a transport and an operation. */
#define DR_OPCODE(t, op) ((uint8_t)((DR_TRANSPORT_##t) | (DR_OP_##op)))
/** The RoCEv2 CNP opcode (IBA Annex A17.9.3): transport CNP, operation 0x01. */
#define DR_OPCODE_CNP ((uint8_t)(DR_TRANSPORT_CNP | 0x01))

/**
 * dpdk-rdma's selective acknowledgement, in the manufacturer-specific
 * range (IBA table 38): BTH, AETH as an RC ACKNOWLEDGE, then struct dr_sack.
 * Sent only to a peer that negotiated selective repeat (dr_set_ece()).
 */
#define DR_OPCODE_SACK ((uint8_t)(DR_TRANSPORT_VENDOR | 0x01))

/** Headers a packet may carry, in wire order after the BTH. */
enum dr_hdr_type {
	DR_HDR_BTH,
	DR_HDR_RDETH,
	DR_HDR_DETH,
	DR_HDR_XRCETH,
	DR_HDR_FETH,
	DR_HDR_RETH,
	DR_HDR_ATMETH,
	DR_HDR_AETH,
	DR_HDR_ATMACK,
	DR_HDR_IMMDT,
	DR_HDR_IETH,
	DR_HDR_PAYLOAD,   /**< not a header: the offset where the payload starts */
	DR_NUM_HDR_TYPES,
};

/** Size of each header type, indexed by enum dr_hdr_type (payload: 0). */
extern const uint8_t dr_hdr_size[DR_NUM_HDR_TYPES];
/** Name of each header type ("BTH", "RETH", ...). */
extern const char *const dr_hdr_name[DR_NUM_HDR_TYPES];

/** Bit of the opcode mask saying header type @p t is present. */
#define DR_HDR_BIT(t) (1u << (t))

/** Semantic flags of a packet opcode: the upper bits of dr_opcode_info.mask. */
enum dr_opcode_flag {
	DR_OPF_BTH = DR_HDR_BIT(DR_HDR_BTH),
	DR_OPF_RDETH = DR_HDR_BIT(DR_HDR_RDETH),
	DR_OPF_DETH = DR_HDR_BIT(DR_HDR_DETH),
	DR_OPF_XRCETH = DR_HDR_BIT(DR_HDR_XRCETH),
	DR_OPF_FETH = DR_HDR_BIT(DR_HDR_FETH),
	DR_OPF_RETH = DR_HDR_BIT(DR_HDR_RETH),
	DR_OPF_ATMETH = DR_HDR_BIT(DR_HDR_ATMETH),
	DR_OPF_AETH = DR_HDR_BIT(DR_HDR_AETH),
	DR_OPF_ATMACK = DR_HDR_BIT(DR_HDR_ATMACK),
	DR_OPF_IMMDT = DR_HDR_BIT(DR_HDR_IMMDT),
	DR_OPF_IETH = DR_HDR_BIT(DR_HDR_IETH),
	DR_OPF_PAYLOAD = DR_HDR_BIT(DR_HDR_PAYLOAD), /**< carries a payload (possibly empty) */
	DR_OPF_REQ = 1u << 12,       /**< a request (sent by a requester) */
	DR_OPF_RESP = 1u << 13,      /**< a response (ACK, READ response, atomic ACK) */
	DR_OPF_FIRST = 1u << 14,     /**< first packet of a message */
	DR_OPF_MIDDLE = 1u << 15,    /**< middle packet of a message */
	DR_OPF_LAST = 1u << 16,      /**< last packet of a message (ONLY = FIRST|LAST) */
	DR_OPF_SEND = 1u << 17,      /**< SEND family */
	DR_OPF_WRITE = 1u << 18,     /**< RDMA WRITE family */
	DR_OPF_READ = 1u << 19,      /**< RDMA READ request or response */
	DR_OPF_ATOMIC = 1u << 20,    /**< CmpSwap / FetchAdd request or atomic ACK */
	DR_OPF_IMM = 1u << 21,       /**< carries immediate data */
	DR_OPF_INV = 1u << 22,       /**< carries an R_Key to invalidate */
	DR_OPF_ACK = 1u << 23,       /**< ACK / NAK (AETH, no payload) */
	DR_OPF_RWR = 1u << 24,       /**< consumes a receive WQE at the responder (first/only) */
	DR_OPF_COMP = 1u << 25,      /**< completes a receive WQE at the responder (last/only) */
	DR_OPF_FLUSH = 1u << 26,     /**< FLUSH request */
	DR_OPF_ATOMIC_WRITE = 1u << 27, /**< ATOMIC WRITE request */
	DR_OPF_CNP = 1u << 28,       /**< congestion notification */
	DR_OPF_CONNECTED = 1u << 29, /**< RC, UC or XRC: has a PSN sequence per QP pair */
	DR_OPF_RELIABLE = 1u << 30,  /**< RC or XRC: acknowledged */
};

/** First + last: an ONLY packet. */
#define DR_OPF_ONLY (DR_OPF_FIRST | DR_OPF_LAST)
/** Bits of the mask that name headers. */
#define DR_OPF_HDR_MASK ((1u << DR_NUM_HDR_TYPES) - 1u)

/** One packet opcode. An entry with a NULL name is an undefined opcode. */
struct dr_opcode_info {
	const char *name;                 /**< e.g. "RC_SEND_FIRST" */
	uint32_t mask;                    /**< enum dr_opcode_flag bits */
	uint8_t length;                   /**< BTH + extension headers, bytes */
	uint8_t offset[DR_NUM_HDR_TYPES]; /**< offset of each present header from the BTH */
};

/** The packet opcode table, indexed by BTH.OpCode. */
extern const struct dr_opcode_info dr_opcode_table[256];

/** True when @p opcode is defined (and supported by the parser). */
static inline bool dr_opcode_valid(uint8_t opcode) { return dr_opcode_table[opcode].name != NULL; }
/** Name of @p opcode, or "UNKNOWN". */
const char *dr_opcode_name(uint8_t opcode);
/** Name of the transport of @p opcode ("RC", "UC", "RD", "UD", "CNP", "XRC", ...). */
const char *dr_transport_name(uint8_t opcode);

/**
 * Work-request opcodes. The values are those of enum ibv_wr_opcode
 * (ibv_post_send(3)), so that a verbs application can be ported by renaming.
 */
enum dr_wr_opcode {
	DR_WR_RDMA_WRITE = 0,
	DR_WR_RDMA_WRITE_WITH_IMM = 1,
	DR_WR_SEND = 2,
	DR_WR_SEND_WITH_IMM = 3,
	DR_WR_RDMA_READ = 4,
	DR_WR_ATOMIC_CMP_AND_SWP = 5,
	DR_WR_ATOMIC_FETCH_AND_ADD = 6,
	DR_WR_LOCAL_INV = 7,
	DR_WR_BIND_MW = 8,
	DR_WR_SEND_WITH_INV = 9,
	DR_WR_TSO = 10,
	DR_WR_DRIVER1 = 11,
	DR_WR_FLUSH = 14,
	DR_WR_ATOMIC_WRITE = 15,
	DR_NUM_WR_OPCODES = 16,
};

/** QP types. The values are those of enum ibv_qp_type. */
enum dr_qp_type {
	DR_QPT_RC = 2,
	DR_QPT_UC = 3,
	DR_QPT_UD = 4,
	DR_QPT_RAW_PACKET = 8,
	DR_QPT_XRC_SEND = 9,
	DR_QPT_XRC_RECV = 10,
	DR_NUM_QP_TYPES = 11,
};

/** What a work-request opcode does on a QP type; 0 = not allowed. */
enum dr_wr_flag {
	DR_WRF_ALLOWED = 1u << 0,    /**< the opcode may be posted on this QP type */
	DR_WRF_INLINE = 1u << 1,     /**< IBV_SEND_INLINE applies */
	DR_WRF_SEND = 1u << 2,       /**< sends a message into a receive WQE */
	DR_WRF_WRITE = 1u << 3,      /**< RDMA WRITE (needs remote_addr/rkey) */
	DR_WRF_READ = 1u << 4,       /**< RDMA READ (needs remote_addr/rkey, LOCAL_WRITE on SGEs) */
	DR_WRF_ATOMIC = 1u << 5,     /**< 8-byte atomic (needs remote_addr/rkey, one 8-byte SGE) */
	DR_WRF_LOCAL = 1u << 6,      /**< local operation: no packet on the wire */
	DR_WRF_IMM = 1u << 7,        /**< carries immediate data */
	DR_WRF_INV = 1u << 8,        /**< carries an R_Key to invalidate */
	DR_WRF_FLUSH = 1u << 9,      /**< FLUSH */
	DR_WRF_ATOMIC_WRITE = 1u << 10, /**< ATOMIC WRITE (8 bytes of payload) */
	DR_WRF_NEEDS_AH = 1u << 11,  /**< takes an address handle and remote QPN (UD) */
};

/** One work-request opcode. */
struct dr_wr_opcode_info {
	const char *name;                   /**< e.g. "RDMA_WRITE" */
	uint16_t mask[DR_NUM_QP_TYPES];     /**< enum dr_wr_flag bits per QP type */
};

/** The WR opcode x QP type table, indexed by enum dr_wr_opcode. */
extern const struct dr_wr_opcode_info dr_wr_opcode_table[DR_NUM_WR_OPCODES];

/** Flags of @p op on @p qpt; 0 when the pair is not allowed or either is out of range. */
uint16_t dr_wr_opcode_flags(enum dr_qp_type qpt, enum dr_wr_opcode op);

/** Position of a packet within its message. */
enum dr_pkt_pos {
	DR_POS_FIRST,
	DR_POS_MIDDLE,
	DR_POS_LAST,
	DR_POS_ONLY,
};

/**
 * The packet opcode that carries part @p pos of a work request.
 *
 * @param qpt   QP type of the sender (XRC_SEND uses the XRC transport).
 * @param op    work-request opcode.
 * @param pos   position of the packet in the message (READ, atomics,
 *              FLUSH and ATOMIC WRITE are single-packet requests: ONLY).
 * @return the BTH opcode, or -EINVAL when the combination does not exist.
 */
int dr_wr_pkt_opcode(enum dr_qp_type qpt, enum dr_wr_opcode op, enum dr_pkt_pos pos);

#ifdef __cplusplus
}
#endif

#endif /* DR_OPCODE_H */
