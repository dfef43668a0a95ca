/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * JSON output: one object per line per frame (JSON Lines). Integers are
 * JSON numbers; a frame the parser rejected has an "error" key, icrc_ok
 * false, and only the fields the parser got to.
 */

#include <inttypes.h>
#include <netinet/in.h>

#include "dump.h"

/* A JSON object being written: keys after the first are preceded by ", ". */
struct jw {
	FILE *out;
	bool first;
};

static void
jw_key(struct jw *w, const char *k)
{
	fprintf(w->out, w->first ? "\"%s\": " : ", \"%s\": ", k);
	w->first = false;
}

static void
jw_u64(struct jw *w, const char *k, uint64_t v)
{
	jw_key(w, k);
	fprintf(w->out, "%" PRIu64, v);
}

static void
jw_bool(struct jw *w, const char *k, bool v)
{
	jw_key(w, k);
	fputs(v ? "true" : "false", w->out);
}

/* a string value, escaped as RFC 8259 section 7 requires */
static void
jw_str(struct jw *w, const char *k, const char *s)
{
	jw_key(w, k);
	fputc('"', w->out);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(w->out, "\\%c", c);
		else if (c < 0x20)
			fprintf(w->out, "\\u%04x", c);
		else
			fputc(c, w->out);
	}
	fputc('"', w->out);
}

/* open a nested object under key @k; close it with jw_end() */
static struct jw
jw_obj(struct jw *w, const char *k)
{
	jw_key(w, k);
	fputc('{', w->out);
	return (struct jw){ .out = w->out, .first = true };
}

static void
jw_end(struct jw *w)
{
	fputc('}', w->out);
}

static void
json_bth(struct jw *w, const struct dr_pkt_info *pi)
{
	const struct dr_bth *bth = dr_pkt_bth(pi);

	jw_u64(w, "opcode", pi->opcode);
	jw_str(w, "opcode_name", dr_opcode_name(pi->opcode));
	jw_str(w, "transport", dr_transport_name(pi->opcode));
	jw_u64(w, "psn", dr_bth_psn(bth));
	jw_u64(w, "dest_qp", dr_bth_qpn(bth));
	jw_bool(w, "ack_req", dr_bth_ackreq(bth));
	jw_bool(w, "se", dr_bth_se(bth));
	jw_bool(w, "mig", dr_bth_mig(bth));
	jw_u64(w, "pad", dr_bth_pad(bth));
	jw_u64(w, "tver", dr_bth_tver(bth));
	jw_u64(w, "pkey", dr_bth_pkey(bth));
	jw_bool(w, "fecn", dr_bth_fecn(bth));
	jw_bool(w, "becn", dr_bth_becn(bth));
}

static void
json_addressing(struct jw *w, const struct dump_frame *f)
{
	const struct dr_pkt_info *pi = f->pi;
	char buf[INET6_ADDRSTRLEN];

	jw_u64(w, "ip_version", pi->ip_ver);
	if (pi->has_vlan) {
		struct jw o = jw_obj(w, "vlan");

		jw_u64(&o, "vid", pi->vlan_tci & 0xFFFu);
		jw_u64(&o, "pcp", pi->vlan_tci >> 13);
		jw_u64(&o, "dei", (pi->vlan_tci >> 12) & 1u);
		jw_end(&o);
	}
	if (f->depth >= DUMP_DEPTH_ADDR) {
		jw_str(w, "src", dump_addr_str(pi, true, buf, sizeof(buf)));
		jw_str(w, "dst", dump_addr_str(pi, false, buf, sizeof(buf)));
		/* the IP traffic class: DSCP and ECN (RFC 3168: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE) */
		jw_u64(w, "dscp", pi->tclass >> 2);
		jw_u64(w, "ecn", pi->tclass & DR_ECN_MASK);
	}
	if (f->depth >= DUMP_DEPTH_UDP)
		jw_u64(w, "udp_sport", pi->udp_sport);
}

static void
json_aeth(struct jw *w, const struct dr_aeth *h)
{
	uint8_t syn = dr_aeth_syndrome(h);
	struct jw o = jw_obj(w, "aeth");

	jw_u64(&o, "syndrome", syn);
	jw_str(&o, "type", dump_aeth_type_str(syn));
	jw_u64(&o, "value", dr_aeth_syn_value(syn));
	jw_u64(&o, "msn", dr_aeth_msn(h));
	jw_end(&o);
}

/* the extension headers, in wire order (IBA 9.3) */
static void
json_ext(struct jw *w, const struct dr_pkt_info *pi)
{
	struct jw o;

	if (pi->mask & DR_OPF_DETH) {
		o = jw_obj(w, "deth");
		jw_u64(&o, "qkey", dr_deth_qkey(dr_pkt_deth(pi)));
		jw_u64(&o, "src_qp", dr_deth_sqp(dr_pkt_deth(pi)));
		jw_end(&o);
	}
	if (pi->mask & DR_OPF_XRCETH) {
		o = jw_obj(w, "xrceth");
		jw_u64(&o, "srq", dr_xrceth_srq(dr_pkt_xrceth(pi)));
		jw_end(&o);
	}
	if (pi->mask & DR_OPF_FETH) {
		o = jw_obj(w, "feth");
		jw_u64(&o, "placement_type", dr_feth_plt(dr_pkt_feth(pi)));
		jw_u64(&o, "selectivity_level", dr_feth_sel(dr_pkt_feth(pi)));
		jw_end(&o);
	}
	if (pi->mask & DR_OPF_RETH) {
		o = jw_obj(w, "reth");
		jw_u64(&o, "va", dr_reth_va(dr_pkt_reth(pi)));
		jw_u64(&o, "rkey", dr_reth_rkey(dr_pkt_reth(pi)));
		jw_u64(&o, "dma_len", dr_reth_len(dr_pkt_reth(pi)));
		jw_end(&o);
	}
	if (pi->mask & DR_OPF_ATMETH) {
		o = jw_obj(w, "atomiceth");
		jw_u64(&o, "va", dr_atmeth_va(dr_pkt_atmeth(pi)));
		jw_u64(&o, "rkey", dr_atmeth_rkey(dr_pkt_atmeth(pi)));
		jw_u64(&o, "swap_add", dr_atmeth_swap_add(dr_pkt_atmeth(pi)));
		jw_u64(&o, "compare", dr_atmeth_comp(dr_pkt_atmeth(pi)));
		jw_end(&o);
	}
	if (pi->mask & DR_OPF_AETH)
		json_aeth(w, dr_pkt_aeth(pi));
	if (pi->mask & DR_OPF_ATMACK) {
		o = jw_obj(w, "atomicacketh");
		jw_u64(&o, "orig", dr_atmack_orig(dr_pkt_atmack(pi)));
		jw_end(&o);
	}
	if (pi->mask & DR_OPF_IMMDT) {
		/* the 32 bits as they are on the wire, read as a big-endian number */
		o = jw_obj(w, "immdt");
		jw_u64(&o, "imm", rte_be_to_cpu_32(dr_immdt_imm(dr_pkt_immdt(pi))));
		jw_end(&o);
	}
	if (pi->mask & DR_OPF_IETH) {
		o = jw_obj(w, "ieth");
		jw_u64(&o, "rkey", dr_ieth_rkey(dr_pkt_ieth(pi)));
		jw_end(&o);
	}
}

/* a CM MAD (IBA 12.6) */
static void
json_cm(struct jw *w, const uint8_t *mad)
{
	struct dump_cm cm;
	struct jw o;

	if (!dump_cm_decode(mad, &cm))
		return;
	o = jw_obj(w, "cm");
	jw_str(&o, "msg", cm.msg);
	jw_u64(&o, "tid", cm.tid);
	if (cm.fields & DUMP_CM_LCID)
		jw_u64(&o, "local_comm_id", cm.lcid);
	if (cm.fields & DUMP_CM_RCID)
		jw_u64(&o, "remote_comm_id", cm.rcid);
	if (cm.fields & DUMP_CM_SID)
		jw_u64(&o, "service_id", cm.sid);
	if (cm.fields & DUMP_CM_QPN)
		jw_u64(&o, "qpn", cm.qpn);
	if (cm.fields & DUMP_CM_PSN)
		jw_u64(&o, "starting_psn", cm.psn);
	if (cm.fields & DUMP_CM_REASON) {
		jw_u64(&o, "reason", cm.reason);
		jw_str(&o, "reason_name", cm.reason_str);
	}
	if (cm.fields & DUMP_CM_STATUS)
		jw_u64(&o, "status", cm.status);
	jw_end(&o);
}

void
dump_json_frame(FILE *out, const struct dump_frame *f)
{
	struct jw w = { .out = out, .first = true };

	fputc('{', out);
	jw_u64(&w, "frame", f->num);
	if (f->status != DR_PKT_OK)
		jw_str(&w, "error", dr_pkt_status_str(f->status));
	if (f->caplen < f->len) {
		jw_u64(&w, "caplen", f->caplen);
		jw_u64(&w, "len", f->len);
	}
	if (f->depth >= DUMP_DEPTH_BTH)
		json_bth(&w, f->pi);
	if (f->depth >= DUMP_DEPTH_IP)
		json_addressing(&w, f);
	if (f->depth >= DUMP_DEPTH_EXT)
		json_ext(&w, f->pi);
	if (f->mad != NULL)
		json_cm(&w, f->mad);
	if (f->depth >= DUMP_DEPTH_ALL)
		jw_u64(&w, "payload_len", f->pi->paylen);
	jw_bool(&w, "icrc_ok", f->status == DR_PKT_OK && f->icrc_ok);
	fputs("}\n", out);
}

void
dump_json_skipped(FILE *out, const struct dump_frame *f)
{
	struct jw w = { .out = out, .first = true };

	fputc('{', out);
	jw_u64(&w, "frame", f->num);
	jw_str(&w, "skipped", dr_pkt_status_str(f->status));
	fputs("}\n", out);
}
