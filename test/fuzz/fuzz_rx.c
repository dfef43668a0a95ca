/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * libFuzzer harness: the whole receive path of a context with live QPs
 * (doc/guides/fuzzing.rst). This file: the libFuzzer entry points and what
 * an input becomes (modes, fix-ups, frames delivered to T, T settled after
 * it); the environment it runs in is fuzz_rx_env.c, what crosses fuzz_rx.h.
 *
 * Set up once (LLVMFuzzerInitialize, fuzz_rx_env.c), as the transport tests do
 * (test/unit/test_rc_harness.c): EAL without hugepages or PCI, two contexts
 * in inline mode on in-process net_ring ports, T (the target) and P (its
 * peer). T has eight QP "slots", each with a peer QP on P:
 *
 *   0 RC in RTS, with receives posted and requests of its own outstanding
 *     (SEND, WRITE, READ 64 B, FETCH_ADD, CMP_SWAP, READ 3000 B: never
 *     answered but by the fuzzer; the ACK timer is off, so they wait)
 *   1 UC in RTS        2 UD in RTS          3 RC in RTR (responder only)
 *   4 RC in ERR        5 XRC target in RTS, receiving into an XRC SRQ
 *   6 RC in RTS on a basic SRQ
 *   7 RC in RTS without receives and without remote access rights
 *
 * MRs with guard bytes around them (checked after every input: nothing may
 * be written outside an MR), a second PD with an MR of its own. P then sends
 * every kind of request to every slot and answers slot 0's requests; those
 * frames, never delivered, are the templates: valid packets of each QP (its
 * MACs, IPs, UDP 4791, QPN, PSNs, R_Keys).
 *
 * Each input is delivered to T's rx ring as received frames, then T's
 * dr_progress() runs (parse, ICRC, QP lookup, responder, completer, UD
 * receive, ARP/ND for what is not RoCEv2), its frames out are freed, its CQ
 * polled (receives are posted again as they complete). Input format:
 *
 *   byte 0  bits 0-1 mode: 0 the rest is a frame as is; 1 a frame with the
 *                  fix-ups below; 2 the transport part (BTH onwards, ICRC
 *                  included) behind the slot's template headers (Ethernet,
 *                  IPv4, UDP; lengths and checksum set); 3 as 2, several
 *                  frames, each as a 16-bit big-endian length and its bytes
 *           bit 2  recompute the ICRC (so a mutated frame passes the check)
 *           bit 3  BTH.DestQP := the slot's QPN (XRCETH: its SRQ; DETH: its Q_Key)
 *           bit 4  BTH.PSN := the PSN the slot expects (requests: T's
 *                  initial ePSN; responses: T's first outstanding PSN) + delta
 *           bit 5  RETH / AtomicETH R_Key and VA := inside T's MR
 *           bit 6  (mode 1) IP and UDP lengths and IPv4 checksum := the frame's
 *           bit 7  deliver each frame twice
 *   byte 1  bits 0-2 slot; bits 3-7 PSN delta + 8 (-8 .. 23)
 *   byte 2  bits 0-1 extra mbuf segments (0-3); bit 2 the R_Key of the
 *           second PD's MR; bit 3 reset every slot first (a self-contained
 *           input: how regressions replay)
 *
 * Every DR_FUZZ_RESET_EVERY inputs (default 256), and whenever a slot left
 * the state it should be in, its QP is taken RESET -> INIT -> RTR -> RTS
 * (and its requests and receives posted again), so the state machines stay
 * reachable. DR_FUZZ_DUMP_SEEDS=dir writes the templates as seed inputs
 * (usertools/dr-fuzz-corpus.py). DR_FUZZ_LOG sets EAL's log level
 * (default: error); DR_FUZZ_VERBOSE=1 prints the slots and counters.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dr_engine.h"
#include "dr_icrc.h"
#include "dr_pkt.h"
#include "dr_verbs.h"

#include "fuzz_rx.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *re = getenv("DR_FUZZ_RESET_EVERY"), *dump = getenv("DR_FUZZ_DUMP_SEEDS");
	unsigned int i;

	fz.verbose = getenv("DR_FUZZ_VERBOSE") != NULL;
	fz.reset_every = re != NULL ? strtoull(re, NULL, 0) : 256;
	fz_env_setup(*argc > 0 ? (*argv)[0] : "fuzz_rx");
	if (fz.verbose) {
		for (i = 0; i < NSLOT; i++)
			fprintf(stderr, "fuzz_rx: slot %u %-8s T QPN 0x%06x  P QPN 0x%06x\n", i, fz.s[i].name,
				fz.s[i].tq->qp_num, fz.s[i].pq->qp_num);
		fprintf(stderr, "fuzz_rx: %u templates, XRC SRQ 0x%x, reset every %" PRIu64 "\n", fz.ntm,
			fz.xsrqn, fz.reset_every);
	}
	if (dump != NULL)
		fz_dump_seeds(dump);
	return 0;
}

/* ---- one input ---- */

/* Set the IP and UDP lengths of the frame to its length, and the IPv4 header checksum. */
static void
fix_lengths(uint8_t *f, uint32_t len)
{
	uint32_t l3 = 14, l4;
	uint16_t et;

	if (len < 14)
		return;
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == RTE_ETHER_TYPE_VLAN) {
		if (len < 18)
			return;
		l3 = 18;
		et = (uint16_t)(f[16] << 8 | f[17]);
	}
	if (et == RTE_ETHER_TYPE_IPV4 && len >= l3 + 20) {
		uint32_t ihl = (f[l3] & 0xFu) * 4u, sum = 0, i;
		uint32_t tot = RTE_MIN(len - l3, 0xFFFFu);

		if (ihl < 20 || len < l3 + ihl)
			return;
		f[l3 + 2] = (uint8_t)(tot >> 8);
		f[l3 + 3] = (uint8_t)tot;
		f[l3 + 10] = f[l3 + 11] = 0;
		for (i = 0; i < ihl; i += 2)
			sum += (uint32_t)(f[l3 + i] << 8 | f[l3 + i + 1]);
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		f[l3 + 10] = (uint8_t)(~sum >> 8);
		f[l3 + 11] = (uint8_t)~sum;
		l4 = l3 + ihl;
	} else if (et == RTE_ETHER_TYPE_IPV6 && len >= l3 + 40) {
		uint32_t pl = RTE_MIN(len - l3 - 40, 0xFFFFu);

		f[l3 + 4] = (uint8_t)(pl >> 8);
		f[l3 + 5] = (uint8_t)pl;
		l4 = l3 + 40;
	} else {
		return;
	}
	if (len >= l4 + 8) {
		uint32_t ul = RTE_MIN(len - l4, 0xFFFFu);

		f[l4 + 4] = (uint8_t)(ul >> 8);
		f[l4 + 5] = (uint8_t)ul;
	}
}

/* The fix-ups of byte 0 on frame @k of the input. */
static void
fixup(uint8_t *f, uint32_t len, uint8_t b0, uint8_t b1, uint8_t b2, unsigned int k)
{
	const struct slot *s = &fz.s[b1 & 7];
	int delta = (int)(b1 >> 3) - 8 + (int)k;
	const struct gbuf *mr = (b2 & G_PD2) ? &fz.tmr2 : &fz.tmr;
	struct dr_pkt_info pi;
	enum dr_pkt_status st;

	if ((b0 & F_MODE) >= 2 || (b0 & F_LEN))
		fix_lengths(f, len);
	st = dr_pkt_parse_buf(f, len, &pi);
	/* BTH fields need the opcode known and valid; extension headers need them all inside */
	if (st != DR_PKT_OK && st < DR_PKT_ERR_PAD)
		return;
	if (b0 & F_QPN) {
		dr_bth_set_qpn(dr_pkt_bth(&pi), s->tq->qp_num);
		if (pi.mask & DR_OPF_XRCETH)
			dr_xrceth_set_srq(dr_pkt_xrceth(&pi), fz.xsrqn);
		if (pi.mask & DR_OPF_DETH)
			dr_deth_set_qkey(dr_pkt_deth(&pi), QKEY);
	}
	if (b0 & F_PSN) {
		uint32_t base = (pi.mask & DR_OPF_RESP) ? PSN_T : PSN_P;

		dr_bth_set_psn(dr_pkt_bth(&pi), (uint32_t)((int)base + delta) & 0xFFFFFF);
	}
	if (b0 & F_RKEY) {
		if (pi.mask & DR_OPF_RETH) {
			struct dr_reth *r = dr_pkt_reth(&pi);

			dr_reth_set_rkey(r, mr->mr->rkey);
			dr_reth_set_va(r, (uint64_t)(uintptr_t)mr->p + dr_reth_va(r) % mr->len);
		}
		if (pi.mask & DR_OPF_ATMETH) {
			struct dr_atmeth *a = dr_pkt_atmeth(&pi);

			dr_atmeth_set_rkey(a, mr->mr->rkey);
			dr_atmeth_set_va(a, (uint64_t)(uintptr_t)mr->p + ((dr_atmeth_va(a) % mr->len) & ~7ull));
		}
	}
	if ((b0 & F_ICRC) && (st == DR_PKT_OK || st == DR_PKT_ERR_ICRC)) {
		uint32_t crc = rte_cpu_to_le_32(dr_icrc_compute_buf(f, &pi));

		memcpy(f + pi.frame_len - DR_ICRC_BYTES, &crc, DR_ICRC_BYTES);
	}
}

/* The frame as received: an mbuf chain of @segs + 1 segments (more when it needs them). */
static struct rte_mbuf *
to_mbuf(const uint8_t *f, uint32_t len, unsigned int segs)
{
	uint32_t room = DR_MBUF_DATA_ROOM - RTE_PKTMBUF_HEADROOM, off = 0;
	uint32_t per = segs != 0 ? len / (segs + 1) + 1 : room;
	struct rte_mbuf *head = NULL;

	if (per > room)
		per = room;
	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(fz.pool);
		uint32_t n = RTE_MIN(per, len - off);
		char *d;

		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		d = rte_pktmbuf_append(m, (uint16_t)n);
		if (d == NULL) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(d, f + off, n);
		off += n;
		if (head == NULL) {
			head = m;
		} else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
	} while (off < len);
	return head;
}

static void
deliver(const uint8_t *f, uint32_t len, uint8_t b0, uint8_t b2)
{
	unsigned int copies = (b0 & F_DUP) ? 2 : 1, i;

	for (i = 0; i < copies; i++) {
		struct rte_mbuf *m = to_mbuf(f, len, b2 & G_SEGS);

		if (m == NULL)
			return;
		if (rte_ring_enqueue(fz.t_rx, m) != 0)
			rte_pktmbuf_free(m);
		fz.frames_in++;
	}
}

/* After every input: T runs, its frames out go, its CQ is polled, guards and states checked. */
static void
settle(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		dr_progress(fz.t);
	fz_drain(fz.t_tx);
	fz_poll_t();
	fz_gbuf_check(&fz.tmr, "tmr");
	fz_gbuf_check(&fz.tmr2, "tmr2");
	fz_gbuf_check(&fz.trecv, "trecv");
	for (i = 0; i < NSLOT; i++) {
		struct dr_qp_init_attr ia;
		struct dr_qp_attr a;

		if (dr_query_qp(fz.s[i].tq, &a, DR_QP_STATE, &ia) != 0)
			FZ_FATAL("query_qp failed");
		if (a.qp_state != fz.s[i].want && fz_slot_reset(i) != 0)
			FZ_FATAL("slot %s: reset failed", fz.s[i].name);
	}
}

static void
reset_all(void)
{
	unsigned int i;

	for (i = 0; i < NSLOT; i++)
		if (fz_slot_reset(i) != 0)
			FZ_FATAL("slot %s: reset failed", fz.s[i].name);
	dr_progress(fz.t);
	fz_drain(fz.t_tx);
	fz_poll_t();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[MAX_FRAME];
	uint8_t b0, b1, b2;
	const struct slot *s;
	unsigned int mode;

	if (size < HDR_BYTES)
		return 0;
	b0 = data[0];
	b1 = data[1];
	b2 = data[2];
	data += HDR_BYTES;
	size -= HDR_BYTES;
	mode = b0 & F_MODE;
	s = &fz.s[b1 & 7];
	fz.execs++;
	if ((b2 & G_RESET) || (fz.reset_every != 0 && fz.execs % fz.reset_every == 0))
		reset_all();

	if (mode <= 1) {
		uint32_t len = (uint32_t)RTE_MIN(size, (size_t)MAX_FRAME);

		memcpy(f, data, len);
		if (mode == 1)
			fixup(f, len, b0, b1, b2, 0);
		deliver(f, len, b0, b2);
	} else {
		unsigned int k;

		for (k = 0; k < (mode == 2 ? 1u : MAX_FRAMES) && size > 0; k++) {
			size_t n = size;
			uint32_t len;

			if (mode == 3) {
				if (size < 2)
					break;
				n = RTE_MIN((size_t)(data[0] << 8 | data[1]), size - 2);
				data += 2;
				size -= 2;
			}
			n = RTE_MIN(n, (size_t)MAX_FRAME - s->hdr_len);
			memcpy(f, s->hdr, s->hdr_len);
			memcpy(f + s->hdr_len, data, n);
			len = (uint32_t)(s->hdr_len + n);
			fixup(f, len, b0, b1, b2, k);
			deliver(f, len, b0, b2);
			data += n;
			size -= n;
		}
	}
	settle();
	return 0;
}

/* DR_FUZZ_VERBOSE: what T's context counted, at exit. */
static void __attribute__((destructor))
fuzz_rx_report(void)
{
	struct dr_ctx_stats st;
	unsigned int i;

	if (!fz.verbose || fz.t == NULL)
		return;
	st = dr_ctx_stats_sum(fz.t);
	fprintf(stderr, "fuzz_rx: %" PRIu64 " inputs, %" PRIu64 " frames: rx %" PRIu64 " malformed %" PRIu64
		" bad_icrc %" PRIu64 " no_qp %" PRIu64 " dropped %" PRIu64 " naks_tx seq/rnr/err %" PRIu64
		"/%" PRIu64 "/%" PRIu64 " acks_tx %" PRIu64 "\n",
		fz.execs, fz.frames_in, st.rx_pkts, st.rx_malformed, st.rx_bad_icrc, st.rx_no_qp, st.rx_dropped,
		st.naks_seq_tx, st.naks_rnr_tx, st.naks_err_tx, st.acks_tx);
	for (i = 0; i < NSLOT; i++)
		fprintf(stderr, "fuzz_rx: slot %-8s resets %" PRIu64 "\n", fz.s[i].name, fz.s[i].resets);
}
