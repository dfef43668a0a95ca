/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * Output in perftest's layout (its format strings, as Debian 12's perftest
 * prints them: see test/vectors' perftest_*.txt), and the statistics behind
 * the columns, computed as perftest does (print_report_bw/print_report_lat).
 */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "perf.h"

#define RESULT_LINE "---------------------------------------------------------------------------------------\n"
#define RESULT_FMT " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
#define RESULT_FMT_G " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
#define RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    " \
	"t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] "
#define RESULT_FMT_LAT_DUR " #bytes        #iterations       t_avg[usec]    tps average"
#define REPORT_FMT " %-7lu    %-10" PRIu64 "       %-7.2lf            %-7.2lf\t\t   %-7.6lf\n"
#define REPORT_FMT_LAT " %-7lu %" PRIu64 "          %-7.2f        %-7.2f      %-7.2f  \t       " \
	"%-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n"
#define REPORT_FMT_LAT_DUR " %-7lu       %" PRIu64 "            %-7.2f        %-7.2f\n"
#define BASIC_ADDR_FMT " %s address: LID %#04x QPN %#06x PSN %#06x"
#define READ_FMT " OUT %#04x"
#define RDMA_FMT " RKey %#08x VAddr %#016" PRIx64
#define GID_FMT " GID: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d\n"

#define LAT_MEASURE_TAIL 2       /* perftest drops the 2 largest samples */
#define MBS_FACTOR 0x100000      /* perftest's "MB": 2^20 bytes */
#define GBITS_FACTOR 125000000.0 /* bytes per second in 1 Gb/sec */

void
perf_print_waiting(void)
{
	printf("\n************************************\n"
	       "* Waiting for client to connect... *\n"
	       "************************************\n");
	fflush(stdout);
}

static void
print_gid(const uint8_t *g)
{
	printf(GID_FMT, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11],
	       g[12], g[13], g[14], g[15]);
}

/* perftest's ctx_print_pingpong_data(): OUT for READ, RKey and VAddr for READ and WRITE */
static void
print_addr(const struct perf *p, const char *side, uint32_t qpn, uint32_t psn, uint32_t out,
	   uint32_t rkey, uint64_t vaddr, const uint8_t *gid)
{
	printf(BASIC_ADDR_FMT, side, 0u, qpn, psn);
	if (p->test->verb == PERF_READ)
		printf(READ_FMT, out);
	if (p->test->verb == PERF_READ || p->test->verb == PERF_WRITE)
		printf(RDMA_FMT, rkey, vaddr);
	putchar('\n');
	print_gid(gid);
}

void
perf_print_header(const struct perf *p)
{
	const struct perf_opts *o = p->o;
	const struct perf_test *t = p->test;
	struct dr_qp_mem mem;

	printf(RESULT_LINE);
	if (t->verb == PERF_ATOMIC)
		printf("                    Atomic %s %s\n", perf_atomic_name(p->atomic), t->title);
	else
		printf("                    %s\n", t->title);
	printf(" Dual-port       : OFF\t\tDevice         : %s\n", dr_get_device_name(p->dev));
	printf(" Number of qps   : %u\t\tTransport type : IB\n", p->nb_qps);
	printf(" Connection type : %s\t\tUsing SRQ      : OFF\n", perf_conn_name(p->conn));
	printf(" ibv_wr* API     : OFF\n");
	if (!p->server)
		printf(" TX depth        : %u\n", t->kind == PERF_BW ? p->window : o->tx_depth);
	if (t->verb == PERF_SEND && p->server)
		printf(" RX depth        : %u\n", p->rq_depth);
	if (t->kind == PERF_BW)
		printf(" CQ Moderation   : %u\n", p->server ? RTE_MIN(o->cq_mod, o->tx_depth) : p->cq_mod);
	printf(" Mtu             : %u[B]\n", p->path_mtu);
	printf(" Link type       : Ethernet\n");
	printf(" GID index       : %d\n", o->gid_index);
	if (perf_verb_fetches(t->verb))
		printf(" Outstand reads  : %u\n", p->out_reads);
	else
		printf(" Max inline data : 0[B]\n");
	printf(" rdma_cm QPs\t : %s\n", o->rdma_cm ? "ON" : "OFF");
	printf(" Data ex. method : %s\n", o->rdma_cm ? "rdma_cm" : "Ethernet");
	if (p->check)
		printf(" Data check      : ON\n");
	if (p->imm)
		printf(" Immediate data  : ON (each message's number)\n");
	if (o->use_hugepages)
		printf(" Buffers         : hugepages (EAL memory)\n");
	if (t->raw) {
		static const char *const like[] = {
			[PERF_SEND] = "SEND requests", [PERF_WRITE] = "RDMA_Write requests",
			[PERF_READ] = "RDMA_Read responses", [PERF_ATOMIC] = "atomic requests (no payload)",
		};

		printf(" Raw frames      : shaped as %s, no transport\n", like[p->raw_like]);
	}
	if (p->nb_qps > 0 && p->qps[0].qp != NULL && dr_query_qp_mem(p->qps[0].qp, &mem) == 0)
		printf(" QP memory       : %" PRIu64 "[B] per QP (object %" PRIu64 ", SQ %" PRIu64
		       ", RQ %" PRIu64 ", tables %" PRIu64 ")\n", mem.total, mem.qp, mem.sq, mem.rq,
		       mem.tables);
	printf(RESULT_LINE);
	for (unsigned int i = 0; i < p->nb_qps; i++) {
		const struct perf_qp *q = &p->qps[i];

		print_addr(p, "local", q->qp->qp_num, q->psn, p->out_reads, p->mr->rkey,
			   (uintptr_t)q->rx, p->gid.raw);
	}
	for (unsigned int i = 0; i < p->nb_qps; i++) {
		const struct oob_qp *r = &p->qps[i].remote;

		print_addr(p, "remote", r->qpn, r->psn, p->perftest ? p->pt_out_reads : r->out_reads,
			   r->rkey, r->vaddr, r->gid);
	}
	fflush(stdout);
}

void
perf_print_table_head(const struct perf *p)
{
	printf(RESULT_LINE);
	if (p->test->kind == PERF_BW)
		printf("%s\n", p->o->report_gbits ? RESULT_FMT_G : RESULT_FMT);
	else
		printf("%s\n", p->duration > 0 ? RESULT_FMT_LAT_DUR : RESULT_FMT_LAT);
	fflush(stdout);
}

void
perf_print_row(const struct perf *p, uint64_t iters, const double *v)
{
	unsigned long size = p->size;

	if (p->test->kind == PERF_BW) {
		double f = p->o->report_gbits ? GBITS_FACTOR : MBS_FACTOR;

		printf(REPORT_FMT, size, iters, v[0] / f, v[1] / f, v[2] / 1e6);
	} else if (p->duration > 0) {
		printf(REPORT_FMT_LAT_DUR, size, iters, v[0], v[1]);
	} else {
		printf(REPORT_FMT_LAT, size, iters, v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
	}
	fflush(stdout);
}

void
perf_print_table_end(void)
{
	printf(RESULT_LINE);
	fflush(stdout);
}

void
perf_bw_result(struct perf *p, uint64_t msgs, uint64_t cycles, double peak_bytes_per_cycle)
{
	double hz = (double)p->tsc_hz, sec = cycles > 0 ? cycles / hz : 0;

	p->res.vals[0] = peak_bytes_per_cycle * hz;
	p->res.vals[1] = sec > 0 ? (double)msgs * p->size / sec : 0;
	p->res.vals[2] = sec > 0 ? msgs / sec : 0;
	/* a run too short to have a peak window: its average is its peak */
	if (p->res.vals[0] < p->res.vals[1])
		p->res.vals[0] = p->res.vals[1];
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* perftest's get_median() */
static uint64_t
median(uint64_t n, const uint64_t *d)
{
	if ((n - 1) % 2)
		return (d[n / 2] + d[n / 2 - 1]) / 2;
	return d[n / 2];
}

int
perf_lat_result(struct perf *p, uint64_t n, uint64_t cycles)
{
	/* a READ's or atomic's latency is the round trip; a ping-pong's half of it */
	const bool fetches = perf_verb_fetches(p->test->raw ? p->raw_like : p->test->verb);
	const double rtt = fetches ? 1 : 2;
	const double per_us = (double)p->tsc_hz / 1e6 * rtt;
	double sum = 0, var = 0, avg;
	uint64_t cnt, *d;

	for (unsigned int i = 0; i < OOB_NB_VALS; i++)
		p->res.vals[i] = 0;
	if (p->duration > 0) {
		if (n > 0 && cycles > 0) {
			p->res.vals[0] = cycles / per_us / n;
			p->res.vals[1] = n / ((double)cycles / p->tsc_hz);
		}
		return 0;
	}
	if (n < PERF_MIN_ITERS_LAT)
		return 0;
	d = malloc((n - 1) * sizeof(*d));
	if (d == NULL)
		return -1;
	for (uint64_t i = 0; i + 1 < n; i++)
		d[i] = p->tstamp[i + 1] - p->tstamp[i];
	qsort(d, n - 1, sizeof(*d), cmp_u64);
	cnt = n - 1 - LAT_MEASURE_TAIL;
	for (uint64_t i = 0; i < cnt; i++)
		sum += d[i] / per_us;
	avg = sum / cnt;
	for (uint64_t i = 0; i < cnt; i++)
		var += (avg - d[i] / per_us) * (avg - d[i] / per_us);
	p->res.vals[0] = d[0] / per_us;
	p->res.vals[1] = d[cnt] / per_us;
	p->res.vals[2] = median(cnt, d) / per_us;
	p->res.vals[3] = avg;
	p->res.vals[4] = sqrt(var / cnt);
	p->res.vals[5] = d[(uint64_t)ceil(cnt * 0.99)] / per_us;
	p->res.vals[6] = d[(uint64_t)ceil(cnt * 0.999)] / per_us;
	free(d);
	return 0;
}
