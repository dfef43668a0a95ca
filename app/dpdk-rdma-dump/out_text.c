/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Text output: one line per frame,
 *   N TRANSPORT OPCODE psn=0x.. dqpn=0x.. ackreq=0|1 se=0|1 [headers] payload=N icrc=ok|BAD
 * and, for a frame the parser rejected, whatever it decoded followed by
 * "malformed: <reason>".
 */

#include <inttypes.h>
#include <netinet/in.h>

#include "dump.h"

static void
print_aeth(FILE *out, const struct dr_aeth *h)
{
	uint8_t syn = dr_aeth_syndrome(h);
	uint8_t val = dr_aeth_syn_value(syn);

	fprintf(out, " aeth[syn=0x%02x %s", syn, dump_aeth_type_str(syn));
	switch (dr_aeth_syn_type(syn)) {
	case DR_AETH_ACK:
		if (dump_aeth_credits(val) < 0)
			fprintf(out, " credits=invalid");
		else
			fprintf(out, " credits=%d", dump_aeth_credits(val));
		break;
	case DR_AETH_RNR_NAK:
		fprintf(out, " timer=%u", val);
		break;
	case DR_AETH_NAK:
		fprintf(out, " %s", dump_nak_code_str(val));
		break;
	case DR_AETH_RESERVED:
		fprintf(out, " value=%u", val);
		break;
	}
	fprintf(out, " msn=0x%06" PRIx32 "]", dr_aeth_msn(h));
}

/* the extension headers, in wire order (IBA 9.3) */
static void
print_ext(FILE *out, const struct dr_pkt_info *pi)
{
	if (pi->mask & DR_OPF_DETH) {
		const struct dr_deth *h = dr_pkt_deth(pi);

		fprintf(out, " deth[qkey=0x%08" PRIx32 " srcqp=0x%06" PRIx32 "]",
			dr_deth_qkey(h), dr_deth_sqp(h));
	}
	if (pi->mask & DR_OPF_XRCETH)
		fprintf(out, " xrceth[srq=0x%06" PRIx32 "]", dr_xrceth_srq(dr_pkt_xrceth(pi)));
	if (pi->mask & DR_OPF_FETH) {
		const struct dr_feth *h = dr_pkt_feth(pi);

		fprintf(out, " feth[plt=%u sel=%u]", dr_feth_plt(h), dr_feth_sel(h));
	}
	if (pi->mask & DR_OPF_RETH) {
		const struct dr_reth *h = dr_pkt_reth(pi);

		fprintf(out, " reth[va=0x%016" PRIx64 " rkey=0x%08" PRIx32 " len=%" PRIu32 "]",
			dr_reth_va(h), dr_reth_rkey(h), dr_reth_len(h));
	}
	if (pi->mask & DR_OPF_ATMETH) {
		const struct dr_atmeth *h = dr_pkt_atmeth(pi);

		fprintf(out, " atomiceth[va=0x%016" PRIx64 " rkey=0x%08" PRIx32
			" swap_add=0x%" PRIx64 " compare=0x%" PRIx64 "]",
			dr_atmeth_va(h), dr_atmeth_rkey(h), dr_atmeth_swap_add(h), dr_atmeth_comp(h));
	}
	if (pi->mask & DR_OPF_AETH)
		print_aeth(out, dr_pkt_aeth(pi));
	if (pi->mask & DR_OPF_ATMACK)
		fprintf(out, " atomicacketh[orig=0x%" PRIx64 "]", dr_atmack_orig(dr_pkt_atmack(pi)));
	if (pi->mask & DR_OPF_IMMDT)
		fprintf(out, " immdt[0x%08" PRIx32 "]", rte_be_to_cpu_32(dr_immdt_imm(dr_pkt_immdt(pi))));
	if (pi->mask & DR_OPF_IETH)
		fprintf(out, " ieth[rkey=0x%08" PRIx32 "]", dr_ieth_rkey(dr_pkt_ieth(pi)));
}

/* a CM MAD (IBA 12.6): the message and what names its connection */
static void
print_cm(FILE *out, const uint8_t *mad)
{
	struct dump_cm cm;

	if (!dump_cm_decode(mad, &cm))
		return;
	fprintf(out, " cm[%s tid=0x%" PRIx64, cm.msg, cm.tid);
	if (cm.fields & DUMP_CM_LCID)
		fprintf(out, " lcid=0x%08" PRIx32, cm.lcid);
	if (cm.fields & DUMP_CM_RCID)
		fprintf(out, " rcid=0x%08" PRIx32, cm.rcid);
	if (cm.fields & DUMP_CM_SID)
		fprintf(out, " sid=0x%016" PRIx64, cm.sid);
	if (cm.fields & DUMP_CM_QPN)
		fprintf(out, " qpn=0x%06" PRIx32, cm.qpn);
	if (cm.fields & DUMP_CM_PSN)
		fprintf(out, " psn=0x%06" PRIx32, cm.psn);
	if (cm.fields & DUMP_CM_REASON)
		fprintf(out, " reason=%u(%s)", cm.reason, cm.reason_str);
	if (cm.fields & DUMP_CM_STATUS)
		fprintf(out, " status=%u", cm.status);
	fputc(']', out);
}

/* --verbose: addressing and the BTH fields that are usually zero or constant */
static void
print_addressing(FILE *out, const struct dump_frame *f)
{
	const struct dr_pkt_info *pi = f->pi;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

	if (pi->has_vlan)
		fprintf(out, " vlan=%u pcp=%u", pi->vlan_tci & 0xFFFu, pi->vlan_tci >> 13);
	fprintf(out, " ipv%u", pi->ip_ver);
	if (f->depth >= DUMP_DEPTH_ADDR) {
		static const char *const ecn[] = { "not-ect", "ect1", "ect0", "ce" };

		fprintf(out, " %s > %s dscp=%u ecn=%s", dump_addr_str(pi, true, src, sizeof(src)),
			dump_addr_str(pi, false, dst, sizeof(dst)), pi->tclass >> 2u, ecn[pi->tclass & DR_ECN_MASK]);
	}
	if (f->depth >= DUMP_DEPTH_UDP)
		fprintf(out, " sport=0x%04x", pi->udp_sport);
	if (f->depth >= DUMP_DEPTH_BTH) {
		const struct dr_bth *bth = dr_pkt_bth(pi);

		fprintf(out, " pkey=0x%04x pad=%u tver=%u mig=%d fecn=%d becn=%d",
			dr_bth_pkey(bth), dr_bth_pad(bth), dr_bth_tver(bth),
			dr_bth_mig(bth), dr_bth_fecn(bth), dr_bth_becn(bth));
	}
}

void
dump_text_frame(FILE *out, const struct dump_frame *f, bool verbose)
{
	const struct dr_pkt_info *pi = f->pi;

	fprintf(out, "%" PRIu64, f->num);
	if (f->depth >= DUMP_DEPTH_BTH) {
		const struct dr_bth *bth = dr_pkt_bth(pi);

		fprintf(out, " %s %s psn=0x%06" PRIx32 " dqpn=0x%06" PRIx32 " ackreq=%d se=%d",
			dr_transport_name(pi->opcode), dr_opcode_name(pi->opcode),
			dr_bth_psn(bth), dr_bth_qpn(bth), dr_bth_ackreq(bth), dr_bth_se(bth));
	}
	if (verbose && f->depth >= DUMP_DEPTH_IP)
		print_addressing(out, f);
	if (f->depth >= DUMP_DEPTH_EXT)
		print_ext(out, pi);
	if (f->mad != NULL)
		print_cm(out, f->mad);
	if (f->depth >= DUMP_DEPTH_ALL)
		fprintf(out, " payload=%" PRIu32, pi->paylen);
	if (f->status == DR_PKT_OK) {
		fprintf(out, " icrc=%s\n", f->icrc_ok ? "ok" : "BAD");
		return;
	}
	fprintf(out, " malformed: %s", dr_pkt_status_str(f->status));
	if (f->caplen < f->len)
		fprintf(out, " (captured %" PRIu32 " of %" PRIu32 " bytes)", f->caplen, f->len);
	fputc('\n', out);
}

void
dump_text_skipped(FILE *out, const struct dump_frame *f)
{
	fprintf(out, "%" PRIu64 " not RoCEv2: %s\n", f->num, dr_pkt_status_str(f->status));
}
