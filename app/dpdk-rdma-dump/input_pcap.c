/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* File mode: the frames of a pcap or pcapng capture, through libpcap. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rte_common.h>

#include "dump.h"

static FILE *
open_input(const char *name)
{
	return strcmp(name, "-") == 0 ? stdin : fopen(name, "rb");
}

/* Decode one captured frame: the parser is given caplen, never len. */
static void
decode(const struct dump_opts *o, struct dump_stats *s, const struct pcap_pkthdr *h, const uint8_t *data)
{
	struct dr_pkt_info pi;
	struct dump_frame f = {
		.caplen = h->caplen,
		.len = h->len,
		.pi = &pi,
	};

	f.status = dr_pkt_parse_buf(data, h->caplen, &pi);
	f.icrc_ok = f.status == DR_PKT_OK && dr_pkt_check_icrc_buf(data, &pi) == DR_PKT_OK;
	if (f.status == DR_PKT_OK && dump_cm_is_mad(&pi) && pi.pay_off + DUMP_MAD_LEN <= h->caplen)
		f.mad = data + pi.pay_off;
	dump_frame_report(o, s, &f);
}

int
dump_pcap(const struct dump_opts *o, struct dump_stats *s)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct pcap_pkthdr *h;
	const u_char *data;
	FILE *fp;
	pcap_t *p;
	int rc;

	fp = open_input(o->file);
	if (fp == NULL) {
		dump_err(o->file, "%s", strerror(errno));
		return -1;
	}
	/* reads pcap and pcapng alike; on success the pcap_t owns fp */
	p = pcap_fopen_offline(fp, errbuf);
	if (p == NULL) {
		dump_err(o->file, "%s", errbuf);
		if (fp != stdin)
			fclose(fp);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(pcap_datalink(p));

		dump_err(o->file, "link type %s is not Ethernet", name != NULL ? name : "unknown");
		pcap_close(p);
		return -1;
	}

	while ((rc = pcap_next_ex(p, &h, &data)) == 1)
		decode(o, s, h, data);
	dump_summary(o, s);

	if (rc == PCAP_ERROR) {
		const char *msg = pcap_geterr(p);

		/* libpcap says "truncated dump file; tried to read N ..., only got M" */
		if (strstr(msg, "truncated") != NULL)
			dump_err(o->file, "truncated file after frame %" PRIu64 " (%s)", s->frames, msg);
		else
			dump_err(o->file, "read error after frame %" PRIu64 " (%s)", s->frames, msg);
	}
	pcap_close(p);
	return rc == PCAP_ERROR ? -1 : 0;
}
