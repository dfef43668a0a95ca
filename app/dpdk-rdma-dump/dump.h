/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DUMP_H
#define DUMP_H

/**
 * @file
 * dpdk-rdma-dump: prints the RoCEv2 frames of a pcap/pcapng file or of a
 * DPDK port, one line (text or JSON) per frame. The frames are decoded by the
 * library's parser (dr_pkt_parse*) and ICRC check; this program only decides
 * which frames are RoCEv2, counts them and formats them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dr_pkt.h"

#define DUMP_PROG "dpdk-rdma-dump"
#define DUMP_MAD_LEN 256      /**< a MAD on QP1 (IBA 13.4.2) */

/** Exit statuses. */
enum {
	DUMP_EXIT_OK = 0,
	DUMP_EXIT_FAIL = 1,   /**< unreadable input, device error, or --fail-on-error tripped */
	DUMP_EXIT_USAGE = 2,  /**< bad command line */
};

/** Command line. */
struct dump_opts {
	bool live;            /**< live mode: EAL arguments came before "--" */
	const char *file;     /**< file mode: the capture to read ("-": standard input) */
	bool json;            /**< one JSON object per line instead of text */
	bool verbose;         /**< also show addressing fields and skipped frames */
	bool fail_on_error;   /**< exit 1 when a bad ICRC or malformed frame was seen */
	uint16_t port;        /**< live mode: ethdev port id */
	uint64_t count;       /**< live mode: stop after this many RoCEv2 frames (0: no limit) */
	double duration;      /**< live mode: stop after this many seconds (0: no limit) */
};

/** Counters of one run; the summary line prints them. */
struct dump_stats {
	uint64_t frames;      /**< every frame read, RoCEv2 or not */
	uint64_t roce;        /**< frames to UDP port 4791, well-formed or not */
	uint64_t bad_icrc;    /**< well-formed RoCEv2 frames whose ICRC is wrong */
	uint64_t malformed;   /**< RoCEv2 frames the parser rejected */
};

/** Which parts of a struct dr_pkt_info the parser filled before it stopped. */
enum dump_depth {
	DUMP_DEPTH_NONE,      /**< nothing */
	DUMP_DEPTH_IP,        /**< ip_ver */
	DUMP_DEPTH_ADDR,      /**< + sgid, dgid */
	DUMP_DEPTH_UDP,       /**< + udp_sport */
	DUMP_DEPTH_BTH,       /**< + opcode and the BTH */
	DUMP_DEPTH_EXT,       /**< + pad, mask and the extension headers */
	DUMP_DEPTH_ALL,       /**< + payload length: a complete parse */
};

/** One frame, decoded, as the output formats see it. */
struct dump_frame {
	uint64_t num;                  /**< 1-based number among all frames read */
	uint32_t caplen;               /**< bytes captured */
	uint32_t len;                  /**< bytes on the wire (> caplen: cut by the capture) */
	enum dr_pkt_status status;     /**< the parser's verdict */
	enum dump_depth depth;         /**< set by dump_frame_report() */
	bool icrc_ok;                  /**< ICRC checked and right (only when status is OK) */
	const struct dr_pkt_info *pi;  /**< what the parser filled */
	const uint8_t *mad;            /**< a UD SEND to QP1: its 256-byte MAD (else NULL) */
};

/** Which fields of struct dump_cm a message has. */
enum {
	DUMP_CM_LCID = 1 << 0,         /**< local comm ID (SIDR: request ID) */
	DUMP_CM_RCID = 1 << 1,
	DUMP_CM_SID = 1 << 2,
	DUMP_CM_QPN = 1 << 3,
	DUMP_CM_PSN = 1 << 4,
	DUMP_CM_REASON = 1 << 5,
	DUMP_CM_STATUS = 1 << 6,
};

/** A CM MAD, decoded (IBA 12.6). */
struct dump_cm {
	const char *msg;               /**< "REQ", "REP", ..., "SIDR_REP", "?" */
	unsigned int fields;           /**< DUMP_CM_* */
	uint64_t tid;
	uint32_t lcid, rcid;
	uint64_t sid;
	uint32_t qpn, psn;
	uint16_t reason;               /**< REJ */
	const char *reason_str;
	uint8_t status;                /**< SIDR_REP */
};

/* options.c */
/**
 * Parse the program's own options (@p argv[0] is the program name).
 * @return 0 to run, 1 when --help was printed, -1 after a usage message.
 */
int dump_parse_args(int argc, char **argv, bool live, struct dump_opts *o);
/** Print the usage text. */
void dump_usage(FILE *out);
/** Print "dpdk-rdma-dump: @p what: message" on stderr. */
void dump_err(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* frame.c */
/**
 * Number, classify, count and print one frame. Fills f->num and f->depth.
 * @return true when the frame is RoCEv2 (counted in stats->roce).
 */
bool dump_frame_report(const struct dump_opts *o, struct dump_stats *s, struct dump_frame *f);
/** Print the summary line (standard output in text mode, standard error in JSON mode). */
void dump_summary(const struct dump_opts *o, const struct dump_stats *s);

/* fields.c: field texts shared by both output formats */
/** Text of the source (@p src true) or destination IP address of a parsed frame. */
const char *dump_addr_str(const struct dr_pkt_info *pi, bool src, char *buf, size_t size);
/** "ACK", "RNR_NAK", "NAK" or "RESERVED": the class of an AETH syndrome. */
const char *dump_aeth_type_str(uint8_t syndrome);
/** Name of a NAK code ("PSN_SEQ_ERR", ...), or "RESERVED". */
const char *dump_nak_code_str(uint8_t code);
/** Credits an ACK syndrome's 5-bit credit code stands for, or -1 for "invalid". */
int dump_aeth_credits(uint8_t code);

/* cm.c */
/** True for a parsed UD SEND to QP1 long enough for a MAD. */
bool dump_cm_is_mad(const struct dr_pkt_info *pi);
/** Decode @p mad (NULL: none) if it is of the CM's class: true, @p cm filled. */
bool dump_cm_decode(const uint8_t *mad, struct dump_cm *cm);

/* out_text.c */
void dump_text_frame(FILE *out, const struct dump_frame *f, bool verbose);
void dump_text_skipped(FILE *out, const struct dump_frame *f);

/* out_json.c */
void dump_json_frame(FILE *out, const struct dump_frame *f);
void dump_json_skipped(FILE *out, const struct dump_frame *f);

/* input_pcap.c */
/** File mode: decode every frame of o->file. 0, or -1 after a message. */
int dump_pcap(const struct dump_opts *o, struct dump_stats *s);

/* input_live.c */
/** Live mode: initialise EAL with @p argv, capture on o->port. 0, or -1 after a message. */
int dump_live(const struct dump_opts *o, int argc, char **argv, struct dump_stats *s);

#endif /* DUMP_H */
