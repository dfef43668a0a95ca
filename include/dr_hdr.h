/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_HDR_H
#define DR_HDR_H

/**
 * @file
 * InfiniBand transport headers as carried by RoCEv2 (IBA vol. 1, 9.2 and
 * 9.3; Annex A17), with accessors that do the byte order.
 *
 * Every structure here is the exact wire layout (network byte order, packed,
 * no padding; the sizes are checked with static_assert). Accessors take a
 * pointer to the header itself; they never read outside it.
 */

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of RoCEv2 (IBA Annex A17.2.1). */
#define DR_ROCEV2_UDP_PORT 4791
/** Lowest UDP source port a RoCEv2 sender uses (A17.2.1: 0xC000..0xFFFF). */
#define DR_ROCEV2_SPORT_MIN 0xC000
/** Transport header version carried in BTH.TVer (IBA 9.2.6). */
#define DR_BTH_TVER 0
/** Default partition key (IBA 10.9.1.1: full member of the default partition). */
#define DR_DEFAULT_PKEY 0xFFFF
/** Size of the invariant CRC trailer (IBA 7.8.1). */
#define DR_ICRC_BYTES 4
/** Largest PSN value plus one: PSNs are 24-bit (IBA 9.7.1). */
#define DR_PSN_MODULO (1u << 24)
/** Mask of the 24-bit PSN/QPN fields. */
#define DR_24BIT_MASK 0x00FFFFFFu

/** Base Transport Header, 12 bytes (IBA 9.2). */
struct dr_bth {
	uint8_t opcode;       /**< BTH.OpCode (IBA 9.2.1) */
	uint8_t flags;        /**< SE(7) M(6) PadCnt(5:4) TVer(3:0) */
	rte_be16_t pkey;      /**< P_Key (IBA 9.2.7) */
	rte_be32_t qpn;       /**< FECN(31) BECN(30) Resv6(29:24) DestQP(23:0) */
	rte_be32_t apsn;      /**< AckReq(31) Resv7(30:24) PSN(23:0) */
} __rte_packed;

/** Reliable Datagram Extended Transport Header, 4 bytes (IBA 9.3.2). */
struct dr_rdeth {
	rte_be32_t een;       /**< Resv8(31:24) EE-Context(23:0) */
} __rte_packed;

/** Datagram Extended Transport Header, 8 bytes (IBA 9.3.3). */
struct dr_deth {
	rte_be32_t qkey;      /**< Q_Key */
	rte_be32_t sqp;       /**< Resv8(31:24) SrcQP(23:0) */
} __rte_packed;

/** XRC Extended Transport Header, 4 bytes (IBA 9.3.9 / XRC Annex A14). */
struct dr_xrceth {
	rte_be32_t xrcsrq;    /**< Resv8(31:24) XRCSRQ(23:0) */
} __rte_packed;

/** FLUSH Extended Transport Header, 4 bytes (IBA 1.5 memory placement, 9.3.10). */
struct dr_feth {
	rte_be32_t bits;      /**< Resv(31:6) SelectivityLevel(5:4) PlacementType(3:0) */
} __rte_packed;

/** RDMA Extended Transport Header, 16 bytes (IBA 9.3.4). */
struct dr_reth {
	rte_be64_t va;        /**< Virtual address */
	rte_be32_t rkey;      /**< R_Key */
	rte_be32_t len;       /**< DMA length */
} __rte_packed;

/** Atomic Extended Transport Header, 28 bytes (IBA 9.3.5). */
struct dr_atmeth {
	rte_be64_t va;        /**< Virtual address (8-byte aligned) */
	rte_be32_t rkey;      /**< R_Key */
	rte_be64_t swap_add;  /**< Swap (CmpSwap) or Add (FetchAdd) data */
	rte_be64_t comp;      /**< Compare data (CmpSwap) */
} __rte_packed;

/** ACK Extended Transport Header, 4 bytes (IBA 9.3.6). */
struct dr_aeth {
	rte_be32_t smsn;      /**< Syndrome(31:24) MSN(23:0) */
} __rte_packed;

/** Atomic Acknowledge Extended Transport Header, 8 bytes (IBA 9.3.7). */
struct dr_atmack {
	rte_be64_t orig;      /**< Original remote data */
} __rte_packed;

/** Immediate Data Extended Transport Header, 4 bytes (IBA 9.3.8). */
struct dr_immdt {
	rte_be32_t imm;       /**< Immediate data, opaque (kept in wire order) */
} __rte_packed;

/** Invalidate Extended Transport Header, 4 bytes (IBA 9.3.11). */
struct dr_ieth {
	rte_be32_t rkey;      /**< R_Key to invalidate */
} __rte_packed;

/**
 * Payload of a selective acknowledgement (dpdk-rdma's SACK, opcode
 * DR_OPCODE_SACK; doc/guides/reliability.rst): sent only to a peer that
 * negotiated selective repeat (dr_set_ece(), DR_ECE_OPT_SELECTIVE_REPEAT).
 * The BTH and AETH before it are those of an RC ACKNOWLEDGE (IBA 9.7.5.1.6).
 */
struct dr_sack {
	rte_be32_t epsn;      /**< bits 23:0: the responder's expected PSN, the oldest missing one */
	/** bit i (byte i / 8, bit i % 8 from the least significant) set: PSN epsn + 1 + i is held */
	uint8_t bits[32];
} __rte_packed;

/** Header sizes in bytes. */
enum {
	DR_BTH_BYTES = 12,
	DR_RDETH_BYTES = 4,
	DR_DETH_BYTES = 8,
	DR_XRCETH_BYTES = 4,
	DR_FETH_BYTES = 4,
	DR_RETH_BYTES = 16,
	DR_ATMETH_BYTES = 28,
	DR_AETH_BYTES = 4,
	DR_ATMACK_BYTES = 8,
	DR_IMMDT_BYTES = 4,
	DR_IETH_BYTES = 4,
	/** CNP payload: 16 reserved bytes (IBA Annex A17.9.3). */
	DR_CNP_PAYLOAD_BYTES = 16,
	/** SACK payload: the expected PSN and a 256-bit map of the PSNs after it (struct dr_sack). */
	DR_SACK_PAYLOAD_BYTES = 36,
	/** PSNs after the expected one a SACK describes. */
	DR_SACK_BITS = 256,
};

static_assert(sizeof(struct dr_bth) == DR_BTH_BYTES, "BTH is 12 bytes");
static_assert(sizeof(struct dr_sack) == DR_SACK_PAYLOAD_BYTES, "SACK payload is 36 bytes");
static_assert(sizeof(struct dr_rdeth) == DR_RDETH_BYTES, "RDETH is 4 bytes");
static_assert(sizeof(struct dr_deth) == DR_DETH_BYTES, "DETH is 8 bytes");
static_assert(sizeof(struct dr_xrceth) == DR_XRCETH_BYTES, "XRCETH is 4 bytes");
static_assert(sizeof(struct dr_feth) == DR_FETH_BYTES, "FETH is 4 bytes");
static_assert(sizeof(struct dr_reth) == DR_RETH_BYTES, "RETH is 16 bytes");
static_assert(sizeof(struct dr_atmeth) == DR_ATMETH_BYTES, "AtomicETH is 28 bytes");
static_assert(sizeof(struct dr_aeth) == DR_AETH_BYTES, "AETH is 4 bytes");
static_assert(sizeof(struct dr_atmack) == DR_ATMACK_BYTES, "AtomicAckETH is 8 bytes");
static_assert(sizeof(struct dr_immdt) == DR_IMMDT_BYTES, "ImmDt is 4 bytes");
static_assert(sizeof(struct dr_ieth) == DR_IETH_BYTES, "IETH is 4 bytes");

/* BTH bit fields (IBA 9.2, figure 124). */
#define DR_BTH_SE     0x80u        /**< Solicited Event (flags byte) */
#define DR_BTH_MIG    0x40u        /**< MigReq (flags byte) */
#define DR_BTH_PAD_MASK 0x30u      /**< PadCnt (flags byte) */
#define DR_BTH_PAD_SHIFT 4
#define DR_BTH_TVER_MASK 0x0Fu     /**< TVer (flags byte) */
#define DR_BTH_FECN   0x80000000u  /**< FECN (qpn word) */
#define DR_BTH_BECN   0x40000000u  /**< BECN (qpn word) */
#define DR_BTH_RESV6A 0x3F000000u  /**< reserved bits of the qpn word */
#define DR_BTH_ACKREQ 0x80000000u  /**< AckReq (apsn word) */
#define DR_BTH_RESV7  0x7F000000u  /**< reserved bits of the apsn word */

/** @name BTH accessors */
/**@{*/
static inline uint8_t dr_bth_opcode(const struct dr_bth *h) { return h->opcode; }
static inline void dr_bth_set_opcode(struct dr_bth *h, uint8_t op) { h->opcode = op; }
static inline bool dr_bth_se(const struct dr_bth *h) { return h->flags & DR_BTH_SE; }
static inline void dr_bth_set_se(struct dr_bth *h, bool v)
{ h->flags = (uint8_t)(v ? (h->flags | DR_BTH_SE) : (h->flags & ~DR_BTH_SE)); }
static inline bool dr_bth_mig(const struct dr_bth *h) { return h->flags & DR_BTH_MIG; }
static inline void dr_bth_set_mig(struct dr_bth *h, bool v)
{ h->flags = (uint8_t)(v ? (h->flags | DR_BTH_MIG) : (h->flags & ~DR_BTH_MIG)); }
static inline uint8_t dr_bth_pad(const struct dr_bth *h)
{ return (h->flags & DR_BTH_PAD_MASK) >> DR_BTH_PAD_SHIFT; }
static inline void dr_bth_set_pad(struct dr_bth *h, uint8_t pad)
{ h->flags = (uint8_t)((h->flags & ~DR_BTH_PAD_MASK) | ((pad << DR_BTH_PAD_SHIFT) & DR_BTH_PAD_MASK)); }
static inline uint8_t dr_bth_tver(const struct dr_bth *h) { return h->flags & DR_BTH_TVER_MASK; }
static inline void dr_bth_set_tver(struct dr_bth *h, uint8_t tver)
{ h->flags = (uint8_t)((h->flags & ~DR_BTH_TVER_MASK) | (tver & DR_BTH_TVER_MASK)); }
static inline uint16_t dr_bth_pkey(const struct dr_bth *h) { return rte_be_to_cpu_16(h->pkey); }
static inline void dr_bth_set_pkey(struct dr_bth *h, uint16_t pkey) { h->pkey = rte_cpu_to_be_16(pkey); }
static inline uint32_t dr_bth_qpn(const struct dr_bth *h)
{ return rte_be_to_cpu_32(h->qpn) & DR_24BIT_MASK; }
static inline void dr_bth_set_qpn(struct dr_bth *h, uint32_t qpn)
{ h->qpn = rte_cpu_to_be_32((rte_be_to_cpu_32(h->qpn) & ~DR_24BIT_MASK) | (qpn & DR_24BIT_MASK)); }
static inline bool dr_bth_fecn(const struct dr_bth *h) { return rte_be_to_cpu_32(h->qpn) & DR_BTH_FECN; }
static inline void dr_bth_set_fecn(struct dr_bth *h, bool v)
{ uint32_t w = rte_be_to_cpu_32(h->qpn); h->qpn = rte_cpu_to_be_32(v ? w | DR_BTH_FECN : w & ~DR_BTH_FECN); }
static inline bool dr_bth_becn(const struct dr_bth *h) { return rte_be_to_cpu_32(h->qpn) & DR_BTH_BECN; }
static inline void dr_bth_set_becn(struct dr_bth *h, bool v)
{ uint32_t w = rte_be_to_cpu_32(h->qpn); h->qpn = rte_cpu_to_be_32(v ? w | DR_BTH_BECN : w & ~DR_BTH_BECN); }
static inline uint8_t dr_bth_resv6a(const struct dr_bth *h)
{ return (uint8_t)((rte_be_to_cpu_32(h->qpn) & DR_BTH_RESV6A) >> 24); }
static inline void dr_bth_set_resv6a(struct dr_bth *h, uint8_t v)
{ h->qpn = rte_cpu_to_be_32((rte_be_to_cpu_32(h->qpn) & ~DR_BTH_RESV6A) | (((uint32_t)v << 24) & DR_BTH_RESV6A)); }
static inline bool dr_bth_ackreq(const struct dr_bth *h) { return rte_be_to_cpu_32(h->apsn) & DR_BTH_ACKREQ; }
static inline void dr_bth_set_ackreq(struct dr_bth *h, bool v)
{ uint32_t w = rte_be_to_cpu_32(h->apsn); h->apsn = rte_cpu_to_be_32(v ? w | DR_BTH_ACKREQ : w & ~DR_BTH_ACKREQ); }
static inline uint8_t dr_bth_resv7(const struct dr_bth *h)
{ return (uint8_t)((rte_be_to_cpu_32(h->apsn) & DR_BTH_RESV7) >> 24); }
static inline void dr_bth_set_resv7(struct dr_bth *h, uint8_t v)
{ h->apsn = rte_cpu_to_be_32((rte_be_to_cpu_32(h->apsn) & ~DR_BTH_RESV7) | (((uint32_t)v << 24) & DR_BTH_RESV7)); }
static inline uint32_t dr_bth_psn(const struct dr_bth *h)
{ return rte_be_to_cpu_32(h->apsn) & DR_24BIT_MASK; }
static inline void dr_bth_set_psn(struct dr_bth *h, uint32_t psn)
{ h->apsn = rte_cpu_to_be_32((rte_be_to_cpu_32(h->apsn) & ~DR_24BIT_MASK) | (psn & DR_24BIT_MASK)); }
/**@}*/

/** @name RDETH accessors */
/**@{*/
static inline uint32_t dr_rdeth_een(const struct dr_rdeth *h) { return rte_be_to_cpu_32(h->een) & DR_24BIT_MASK; }
static inline void dr_rdeth_set_een(struct dr_rdeth *h, uint32_t v) { h->een = rte_cpu_to_be_32(v & DR_24BIT_MASK); }
/**@}*/

/** @name DETH accessors */
/**@{*/
static inline uint32_t dr_deth_qkey(const struct dr_deth *h) { return rte_be_to_cpu_32(h->qkey); }
static inline void dr_deth_set_qkey(struct dr_deth *h, uint32_t v) { h->qkey = rte_cpu_to_be_32(v); }
static inline uint32_t dr_deth_sqp(const struct dr_deth *h) { return rte_be_to_cpu_32(h->sqp) & DR_24BIT_MASK; }
static inline void dr_deth_set_sqp(struct dr_deth *h, uint32_t v) { h->sqp = rte_cpu_to_be_32(v & DR_24BIT_MASK); }
/**@}*/

/** @name XRCETH accessors */
/**@{*/
static inline uint32_t dr_xrceth_srq(const struct dr_xrceth *h) { return rte_be_to_cpu_32(h->xrcsrq) & DR_24BIT_MASK; }
static inline void dr_xrceth_set_srq(struct dr_xrceth *h, uint32_t v) { h->xrcsrq = rte_cpu_to_be_32(v & DR_24BIT_MASK); }
/**@}*/

/** @name FETH accessors (placement type: 1 global visibility, 2 persistence; level: 0 region, 1 range) */
/**@{*/
static inline uint8_t dr_feth_plt(const struct dr_feth *h) { return rte_be_to_cpu_32(h->bits) & 0xFu; }
static inline uint8_t dr_feth_sel(const struct dr_feth *h) { return (rte_be_to_cpu_32(h->bits) >> 4) & 0x3u; }
static inline void dr_feth_set(struct dr_feth *h, uint8_t plt, uint8_t sel)
{ h->bits = rte_cpu_to_be_32(((uint32_t)(sel & 0x3u) << 4) | (plt & 0xFu)); }
/**@}*/

/** @name RETH accessors */
/**@{*/
static inline uint64_t dr_reth_va(const struct dr_reth *h) { return rte_be_to_cpu_64(h->va); }
static inline void dr_reth_set_va(struct dr_reth *h, uint64_t v) { h->va = rte_cpu_to_be_64(v); }
static inline uint32_t dr_reth_rkey(const struct dr_reth *h) { return rte_be_to_cpu_32(h->rkey); }
static inline void dr_reth_set_rkey(struct dr_reth *h, uint32_t v) { h->rkey = rte_cpu_to_be_32(v); }
static inline uint32_t dr_reth_len(const struct dr_reth *h) { return rte_be_to_cpu_32(h->len); }
static inline void dr_reth_set_len(struct dr_reth *h, uint32_t v) { h->len = rte_cpu_to_be_32(v); }
/**@}*/

/** @name AtomicETH accessors */
/**@{*/
static inline uint64_t dr_atmeth_va(const struct dr_atmeth *h) { return rte_be_to_cpu_64(h->va); }
static inline void dr_atmeth_set_va(struct dr_atmeth *h, uint64_t v) { h->va = rte_cpu_to_be_64(v); }
static inline uint32_t dr_atmeth_rkey(const struct dr_atmeth *h) { return rte_be_to_cpu_32(h->rkey); }
static inline void dr_atmeth_set_rkey(struct dr_atmeth *h, uint32_t v) { h->rkey = rte_cpu_to_be_32(v); }
static inline uint64_t dr_atmeth_swap_add(const struct dr_atmeth *h) { return rte_be_to_cpu_64(h->swap_add); }
static inline void dr_atmeth_set_swap_add(struct dr_atmeth *h, uint64_t v) { h->swap_add = rte_cpu_to_be_64(v); }
static inline uint64_t dr_atmeth_comp(const struct dr_atmeth *h) { return rte_be_to_cpu_64(h->comp); }
static inline void dr_atmeth_set_comp(struct dr_atmeth *h, uint64_t v) { h->comp = rte_cpu_to_be_64(v); }
/**@}*/

/**
 * AETH syndrome classes (IBA 9.7.5.1, table 43): bits 6:5 of the syndrome.
 */
enum dr_aeth_type {
	DR_AETH_ACK = 0,          /**< ACK; bits 4:0 carry the credit count */
	DR_AETH_RNR_NAK = 1,      /**< RNR NAK; bits 4:0 carry the RNR timer */
	DR_AETH_RESERVED = 2,     /**< reserved */
	DR_AETH_NAK = 3,          /**< NAK; bits 4:0 carry the NAK code */
};

/** NAK codes (IBA 9.7.5.2.4, table 44). */
enum dr_aeth_nak_code {
	DR_NAK_PSN_SEQ_ERR = 0,     /**< PSN sequence error */
	DR_NAK_INVALID_REQ = 1,     /**< invalid request */
	DR_NAK_REM_ACCESS_ERR = 2,  /**< remote access error */
	DR_NAK_REM_OP_ERR = 3,      /**< remote operational error */
	DR_NAK_INV_RD_REQ = 4,      /**< invalid RD request */
};

/** Credit count value meaning "no credit count available" (IBA 9.7.7.2.5). */
#define DR_AETH_CREDIT_INVALID 0x1F

/** @name AETH accessors */
/**@{*/
static inline uint8_t dr_aeth_syndrome(const struct dr_aeth *h) { return (uint8_t)(rte_be_to_cpu_32(h->smsn) >> 24); }
static inline uint32_t dr_aeth_msn(const struct dr_aeth *h) { return rte_be_to_cpu_32(h->smsn) & DR_24BIT_MASK; }
static inline void dr_aeth_set(struct dr_aeth *h, uint8_t syndrome, uint32_t msn)
{ h->smsn = rte_cpu_to_be_32(((uint32_t)syndrome << 24) | (msn & DR_24BIT_MASK)); }
/** Class of an AETH syndrome (bits 6:5). */
static inline enum dr_aeth_type dr_aeth_syn_type(uint8_t syndrome) { return (enum dr_aeth_type)((syndrome >> 5) & 0x3); }
/** Low five bits of a syndrome: credits, RNR timer or NAK code. */
static inline uint8_t dr_aeth_syn_value(uint8_t syndrome) { return syndrome & 0x1F; }
/** Compose a syndrome from a class and its five-bit value (bit 7 is reserved, zero). */
static inline uint8_t dr_aeth_syn_make(enum dr_aeth_type t, uint8_t v) { return (uint8_t)(((t & 0x3) << 5) | (v & 0x1F)); }
/**@}*/

/** @name AtomicAckETH / ImmDt / IETH accessors */
/**@{*/
static inline uint64_t dr_atmack_orig(const struct dr_atmack *h) { return rte_be_to_cpu_64(h->orig); }
static inline void dr_atmack_set_orig(struct dr_atmack *h, uint64_t v) { h->orig = rte_cpu_to_be_64(v); }
/** Immediate data in network order, as ibv_wc.imm_data carries it. */
static inline rte_be32_t dr_immdt_imm(const struct dr_immdt *h) { return h->imm; }
static inline void dr_immdt_set_imm(struct dr_immdt *h, rte_be32_t v) { h->imm = v; }
static inline uint32_t dr_ieth_rkey(const struct dr_ieth *h) { return rte_be_to_cpu_32(h->rkey); }
static inline void dr_ieth_set_rkey(struct dr_ieth *h, uint32_t v) { h->rkey = rte_cpu_to_be_32(v); }
/**@}*/

#ifdef __cplusplus
}
#endif

#endif /* DR_HDR_H */
