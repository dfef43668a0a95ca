/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * A direction's impairments from a tc-netem-like string (impair.h,
 * doc/guides/faultlink.rst), and back. The grammar follows tc-netem(8)
 * where netem has the impairment (loss random|gemodel, duplicate, corrupt,
 * delay with jitter, rate with packet overhead, limit); reorder is ours:
 * netem reorders by sending some frames without the delay, here a frame is
 * held back by a number of later frames or a time.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "impair.h"

#define MAX_TOKENS 32
#define MAX_SPEC 512

struct toks {
	char *t[MAX_TOKENS];
	int n, i;
	char *err;
	size_t errlen;
};

static int
fail(struct toks *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->err, k->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *
peek(const struct toks *k)
{
	return k->i < k->n ? k->t[k->i] : NULL;
}

static const char *
next(struct toks *k)
{
	return k->i < k->n ? k->t[k->i++] : NULL;
}

/* "12.5%" -> 0.125; the % is required (tc-netem(8) writes them so) */
static int
percent(struct toks *k, const char *what, double *out)
{
	const char *s = next(k);
	char *end;
	double v;

	if (s == NULL)
		return fail(k, "%s: a percentage is missing (e.g. 1%%)", what);
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || strcmp(end, "%") != 0 || !(v >= 0 && v <= 100))
		return fail(k, "%s: '%s' is not a percentage from 0%% to 100%% (write e.g. 1.5%%)", what,
			    s);
	*out = v / 100.0;
	return 0;
}

static bool
is_percent(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	return n > 1 && s[n - 1] == '%' && (isdigit((unsigned char)s[0]) || s[0] == '.');
}

static const struct unit {
	const char *name;
	double mult;
} time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "usec", 1e3 }, { "ms", 1e6 }, { "msec", 1e6 }, { "s", 1e9 },
	{ "sec", 1e9 }, { NULL, 0 }
}, rate_units[] = {
	{ "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 }, { "gbit", 1e9 }, { "tbit", 1e12 },
	{ "bps", 8 }, { "kbps", 8e3 }, { "mbps", 8e6 }, { "gbps", 8e9 }, { NULL, 0 }
}, size_units[] = {
	{ "", 1 }, { "b", 1 }, { "kb", 1e3 }, { "mb", 1e6 }, { "gb", 1e9 }, { "kib", 1024.0 },
	{ "mib", 1048576.0 }, { "gib", 1073741824.0 }, { NULL, 0 }
};

/* a number and one of @units: 0 and *out, else -EINVAL (number or unit bad) */
static int
with_unit(const char *s, const struct unit *units, double *out)
{
	char *end;
	double v;

	if (s == NULL || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v >= 0))
		return -EINVAL;
	for (const struct unit *u = units; u->name != NULL; u++)
		if (strcasecmp(end, u->name) == 0) {
			*out = v * u->mult;
			return 0;
		}
	return -EINVAL;
}

static int
time_ns(struct toks *k, const char *what, uint64_t *out)
{
	const char *s = next(k);
	double v;

	if (s == NULL)
		return fail(k, "%s: a time is missing (e.g. 100us)", what);
	if (with_unit(s, time_units, &v) != 0)
		return fail(k, "%s: '%s' is not a time with a unit (ns, us, ms, s)", what, s);
	if (v > (double)FL_MAX_TIME_NS)
		return fail(k, "%s: '%s' is more than 10 s", what, s);
	*out = (uint64_t)(v + 0.5);
	return 0;
}

static int
uint_arg(struct toks *k, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *s = next(k);
	char *end;
	unsigned long long v;

	if (s == NULL)
		return fail(k, "%s: a number is missing", what);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || !isdigit((unsigned char)s[0]) || v < min ||
	    v > max)
		return fail(k, "%s: '%s' is not a whole number from %" PRIu64 " to %" PRIu64, what, s,
			    min, max);
	*out = v;
	return 0;
}

static int
parse_loss(struct toks *k, struct fl_impair_conf *c)
{
	const char *s = peek(k);
	double *opt[] = { &c->ge_r, &c->ge_1h, &c->ge_1k };
	int ret;

	if (s != NULL && strcmp(s, "random") == 0)
		k->i++;
	else if (s != NULL && strcmp(s, "gemodel") == 0) {
		k->i++;
		ret = percent(k, "loss gemodel p", &c->loss);
		if (ret != 0)
			return ret;
		/* tc-netem(8): r defaults to 100% - p, 1-h to 100%, 1-k to 0% */
		c->loss_model = FL_LOSS_GEMODEL;
		c->ge_r = 1.0 - c->loss;
		c->ge_1h = 1.0;
		c->ge_1k = 0.0;
		for (unsigned int j = 0; j < 3 && is_percent(peek(k)); j++) {
			ret = percent(k, "loss gemodel", opt[j]);
			if (ret != 0)
				return ret;
		}
		return 0;
	}
	ret = percent(k, "loss", &c->loss);
	if (ret == 0)
		c->loss_model = c->loss > 0 ? FL_LOSS_RANDOM : FL_LOSS_NONE;
	return ret;
}

static int
parse_corrupt(struct toks *k, struct fl_impair_conf *c)
{
	uint64_t v;
	int ret = percent(k, "corrupt", &c->corrupt);

	if (ret == 0 && peek(k) != NULL && strcmp(peek(k), "bits") == 0) {
		k->i++;
		ret = uint_arg(k, "corrupt bits", 1, FL_MAX_CORRUPT_BITS, &v);
		c->corrupt_bits = (uint32_t)v;
	}
	return ret;
}

static int
parse_reorder(struct toks *k, struct fl_impair_conf *c)
{
	bool frames = false, time = false;
	uint64_t v;
	int ret = percent(k, "reorder", &c->reorder);

	c->reorder_frames = FL_DEFAULT_REORDER_FRAMES;
	c->reorder_ns = FL_DEFAULT_HOLD_NS;
	while (ret == 0 && peek(k) != NULL) {
		if (strcmp(peek(k), "frames") == 0 && !frames) {
			k->i++;
			ret = uint_arg(k, "reorder frames", 1, 1u << 16, &v);
			c->reorder_frames = (uint32_t)v;
			frames = true;
		} else if (strcmp(peek(k), "time") == 0 && !time) {
			k->i++;
			ret = time_ns(k, "reorder time", &c->reorder_ns);
			if (ret == 0 && c->reorder_ns == 0)
				ret = fail(k, "reorder time: must be more than 0");
			time = true;
		} else {
			break;
		}
	}
	if (ret == 0 && time && !frames)
		c->reorder_frames = 0;   /* by time only */
	return ret;
}

static int
parse_delay(struct toks *k, struct fl_impair_conf *c)
{
	double v;
	int ret = time_ns(k, "delay", &c->delay_ns);

	c->jitter_ns = 0;
	/* an optional jitter: the next token if it is a time */
	if (ret == 0 && with_unit(peek(k), time_units, &v) == 0)
		ret = time_ns(k, "delay jitter", &c->jitter_ns);
	return ret;
}

/* a queue size in bytes: a number and an optional unit (B, KB, KiB, ...) */
static int
size_bytes(struct toks *k, const char *what, uint64_t *out)
{
	const char *s = next(k);
	double v;

	if (s == NULL)
		return fail(k, "%s: a size is missing (e.g. 100KB)", what);
	if (with_unit(s, size_units, &v) != 0)
		return fail(k, "%s: '%s' is not a number of bytes with an optional unit (B, KB, MB, GB; "
			    "KiB, MiB, GiB)", what, s);
	if (v > (double)FL_MAX_ECN_BYTES)
		return fail(k, "%s: '%s' is more than 1 TiB", what, s);
	if (v != (double)(uint64_t)v)
		return fail(k, "%s: '%s' is not a whole number of bytes", what, s);
	*out = (uint64_t)v;
	return 0;
}

/* ecn [kmin SIZE] [kmax SIZE] [pmax P%] | ecn off: RED/ECN marking (ecn.h) */
static int
parse_ecn(struct toks *k, struct fl_impair_conf *c)
{
	bool kmin = false, kmax = false, pmax = false;
	int ret = 0;

	if (peek(k) != NULL && strcmp(peek(k), "off") == 0) {
		k->i++;
		c->ecn = false;
		return 0;
	}
	c->ecn = true;
	c->ecn_kmin = FL_DEFAULT_ECN_KMIN;
	c->ecn_kmax = FL_DEFAULT_ECN_KMAX;
	c->ecn_pmax = FL_DEFAULT_ECN_PMAX;
	while (ret == 0 && peek(k) != NULL) {
		if (strcmp(peek(k), "kmin") == 0 && !kmin) {
			k->i++;
			ret = size_bytes(k, "ecn kmin", &c->ecn_kmin);
			kmin = true;
		} else if (strcmp(peek(k), "kmax") == 0 && !kmax) {
			k->i++;
			ret = size_bytes(k, "ecn kmax", &c->ecn_kmax);
			kmax = true;
		} else if (strcmp(peek(k), "pmax") == 0 && !pmax) {
			k->i++;
			ret = percent(k, "ecn pmax", &c->ecn_pmax);
			pmax = true;
		} else {
			break;
		}
	}
	if (ret == 0 && c->ecn_kmin > c->ecn_kmax)
		ret = fail(k, "ecn: kmin (%" PRIu64 " bytes) is above kmax (%" PRIu64 " bytes)",
			   c->ecn_kmin, c->ecn_kmax);
	return ret;
}

static int
parse_rate(struct toks *k, struct fl_impair_conf *c)
{
	const char *s = next(k);
	uint64_t v;
	double r;

	if (s == NULL)
		return fail(k, "rate: a rate is missing (e.g. 100mbit)");
	if (with_unit(s, rate_units, &r) != 0)
		return fail(k, "rate: '%s' is not a rate with a unit (bit, kbit, mbit, gbit; bps, kbps, "
			    "mbps, gbps for bytes/s)", s);
	if (r != 0 && (r < 1e3 || r > 1e13))
		return fail(k, "rate: '%s' is outside 1kbit..10tbit (0 turns the rate off)", s);
	c->rate_bps = (uint64_t)(r + 0.5);
	c->overhead = 0;
	if (peek(k) != NULL && strcmp(peek(k), "overhead") == 0) {
		k->i++;
		if (uint_arg(k, "rate overhead", 0, 1024, &v) != 0)
			return -EINVAL;
		c->overhead = (uint32_t)v;
	}
	return 0;
}

int
fl_spec_parse(const char *spec, struct fl_impair_conf *c, char *err, size_t errlen)
{
	char copy[MAX_SPEC], *save = NULL, *t;
	struct toks k = { .err = err, .errlen = errlen };
	struct fl_impair_conf tmp = *c;
	const char *kw;
	uint64_t v;
	int ret = 0;

	if (errlen > 0)
		err[0] = '\0';
	if (spec == NULL || strlen(spec) >= sizeof(copy))
		return fail(&k, "the impairment string is missing or longer than %d bytes", MAX_SPEC - 1);
	strcpy(copy, spec);
	for (t = strtok_r(copy, " \t\n,", &save); t != NULL; t = strtok_r(NULL, " \t\n,", &save)) {
		if (k.n == MAX_TOKENS)
			return fail(&k, "more than %d words", MAX_TOKENS);
		k.t[k.n++] = t;
	}
	if (k.n == 0)
		return fail(&k, "empty impairment string (\"none\" for a plain wire)");
	while (ret == 0 && (kw = next(&k)) != NULL) {
		if (strcmp(kw, "none") == 0) {
			fl_impair_conf_init(&tmp);
		} else if (strcmp(kw, "loss") == 0) {
			ret = parse_loss(&k, &tmp);
		} else if (strcmp(kw, "duplicate") == 0) {
			ret = percent(&k, "duplicate", &tmp.duplicate);
		} else if (strcmp(kw, "corrupt") == 0) {
			ret = parse_corrupt(&k, &tmp);
		} else if (strcmp(kw, "reorder") == 0) {
			ret = parse_reorder(&k, &tmp);
		} else if (strcmp(kw, "delay") == 0) {
			ret = parse_delay(&k, &tmp);
		} else if (strcmp(kw, "rate") == 0) {
			ret = parse_rate(&k, &tmp);
		} else if (strcmp(kw, "ecn") == 0) {
			ret = parse_ecn(&k, &tmp);
		} else if (strcmp(kw, "limit") == 0) {
			ret = uint_arg(&k, "limit", 1, FL_MAX_LIMIT, &v);
			tmp.limit = (uint32_t)v;
		} else {
			ret = fail(&k, "unknown word '%s' (loss, duplicate, corrupt, reorder, delay, rate, "
				   "limit, ecn, none)", kw);
		}
	}
	if (ret == 0)
		*c = tmp;
	return ret;
}

static void
put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

/* a time in the largest unit that shows it exactly */
static void
put_time(char *buf, size_t len, size_t *off, uint64_t ns)
{
	if (ns != 0 && ns % 1000000000u == 0)
		put(buf, len, off, "%" PRIu64 "s", ns / 1000000000u);
	else if (ns != 0 && ns % 1000000u == 0)
		put(buf, len, off, "%" PRIu64 "ms", ns / 1000000u);
	else if (ns != 0 && ns % 1000u == 0)
		put(buf, len, off, "%" PRIu64 "us", ns / 1000u);
	else
		put(buf, len, off, "%" PRIu64 "ns", ns);
}

int
fl_spec_format(const struct fl_impair_conf *c, char *buf, size_t len)
{
	size_t off = 0;

	if (len > 0)
		buf[0] = '\0';
	if (c->loss_model == FL_LOSS_RANDOM)
		put(buf, len, &off, " loss %g%%", c->loss * 100);
	else if (c->loss_model == FL_LOSS_GEMODEL)
		put(buf, len, &off, " loss gemodel %g%% %g%% %g%% %g%%", c->loss * 100, c->ge_r * 100,
		    c->ge_1h * 100, c->ge_1k * 100);
	if (c->duplicate > 0)
		put(buf, len, &off, " duplicate %g%%", c->duplicate * 100);
	if (c->corrupt > 0)
		put(buf, len, &off, " corrupt %g%% bits %u", c->corrupt * 100, c->corrupt_bits);
	if (c->reorder > 0) {
		put(buf, len, &off, " reorder %g%%", c->reorder * 100);
		if (c->reorder_frames != 0)
			put(buf, len, &off, " frames %u", c->reorder_frames);
		put(buf, len, &off, " time ");
		put_time(buf, len, &off, c->reorder_ns);
	}
	if (c->delay_ns != 0 || c->jitter_ns != 0) {
		put(buf, len, &off, " delay ");
		put_time(buf, len, &off, c->delay_ns);
		if (c->jitter_ns != 0) {
			put(buf, len, &off, " ");
			put_time(buf, len, &off, c->jitter_ns);
		}
	}
	if (c->rate_bps != 0) {
		put(buf, len, &off, " rate %" PRIu64 "bit", c->rate_bps);
		if (c->overhead != 0)
			put(buf, len, &off, " overhead %u", c->overhead);
	}
	if (c->ecn)
		put(buf, len, &off, " ecn kmin %" PRIu64 "B kmax %" PRIu64 "B pmax %g%%", c->ecn_kmin,
		    c->ecn_kmax, c->ecn_pmax * 100);
	if (off == 0)
		put(buf, len, &off, " none");
	put(buf, len, &off, " limit %u", c->limit);
	if (off >= len)
		return -ENOSPC;
	memmove(buf, buf + 1, off);   /* the leading blank */
	return 0;
}
