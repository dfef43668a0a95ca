/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * A concurrent MPI workload, every byte checked: what an application does
 * between its computations, not one message at a time. Per round:
 *
 *   p2p        every pair of ranks exchanges 16 non-blocking messages,
 *              posted in one tag order and received in the reverse one
 *              (tag matching out of order), of sizes from 0 to 300 KB
 *   bcast      3 MB from a root that rotates with the round
 *   allreduce  800 KB of 32-bit integers, every rank's contribution known
 *   alltoallv  uneven blocks (0 to 16 KB, by sender, receiver and round)
 *
 * Each payload is a function of who sent it to whom, in which round and
 * which message, so any byte out of place fails the run (MPI_Abort, exit
 * status 3). Rank 0 prints the job's time without start-up (from the
 * barrier after MPI_Init to the barrier after the last round) and the
 * start-up (MPI_Init), then where its own time went: in each phase's MPI
 * calls, and in filling and checking the payloads (the same work over any
 * transport):
 *
 *   workload ok: R rounds, N ranks, T s (start-up S s)
 *   phases: p2p P s, bcast B s, allreduce A s, alltoallv V s, compute C s
 *
 * Usage: dr_mpi_workload [ROUNDS]   (default 10)
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define P2P_MSGS 16
#define P2P_MAX (300 * 1000)
#define BCAST_LEN (3 * 1000 * 1000)
#define REDUCE_INTS (800 * 1000 / 4)
#define A2A_UNIT 1000

static int rank, nranks;

enum phase { PH_P2P, PH_BCAST, PH_ALLREDUCE, PH_ALLTOALLV, PH_MAX };
static double in_mpi[PH_MAX];    /* seconds this rank spent in each phase's MPI calls */

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
fail(const char *what, int round, int peer, size_t at)
{
	fprintf(stderr, "rank %d: %s: round %d, peer %d, byte %zu wrong\n", rank, what, round, peer, at);
	MPI_Abort(MPI_COMM_WORLD, 3);
}

/* The byte at @i of the payload named by (a, b, c, d). */
static inline uint8_t
pattern(uint32_t a, uint32_t b, uint32_t c, uint32_t d, size_t i)
{
	uint32_t x = a * 2654435761u ^ b * 40503u ^ c * 2246822519u ^ d * 3266489917u ^ (uint32_t)(i / 4) * 668265263u;

	x ^= x >> 15;
	x *= 2246822519u;
	return (uint8_t)(x >> (8 * (i % 4)));
}

static void
fill(uint8_t *p, size_t len, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern(a, b, c, d, i);
}

/* The first byte of @p that is not the pattern, or @len. */
static size_t
check(const uint8_t *p, size_t len, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern(a, b, c, d, i))
			return i;
	return len;
}

/* Size of message @k from @src to @dst in @round: 0 to P2P_MAX, small ones often. */
static size_t
p2p_len(int src, int dst, int round, int k)
{
	uint32_t x = (uint32_t)(src * 131 + dst * 31 + round * 17 + k) * 2654435761u;

	switch (x >> 30) {
	case 0: return (x >> 8) % 64;
	case 1: return (x >> 8) % 8192;
	case 2: return (x >> 8) % 65536;
	default: return (x >> 8) % (P2P_MAX + 1);
	}
}

static size_t
a2a_len(int src, int dst, int round)
{
	return (size_t)((src * 7 + dst * 3 + round) % 17) * A2A_UNIT;
}

static void
p2p(int round, uint8_t **sbuf, uint8_t **rbuf)
{
	MPI_Request req[2 * P2P_MSGS * 64];
	int n = 0, peer, k;
	double t = now_s(), fill_s = 0;

	for (peer = 0; peer < nranks; peer++) {
		if (peer == rank)
			continue;
		/* receives in the reverse tag order of the sends: matching by tag, not by order */
		for (k = P2P_MSGS - 1; k >= 0; k--)
			MPI_Irecv(rbuf[peer * P2P_MSGS + k], (int)p2p_len(peer, rank, round, k), MPI_BYTE, peer, k,
				  MPI_COMM_WORLD, &req[n++]);
		for (k = 0; k < P2P_MSGS; k++) {
			size_t len = p2p_len(rank, peer, round, k);
			double f = now_s();

			fill(sbuf[peer * P2P_MSGS + k], len, (uint32_t)rank, (uint32_t)peer, (uint32_t)round, (uint32_t)k);
			fill_s += now_s() - f;
			MPI_Isend(sbuf[peer * P2P_MSGS + k], (int)len, MPI_BYTE, peer, k, MPI_COMM_WORLD, &req[n++]);
		}
	}
	MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
	in_mpi[PH_P2P] += now_s() - t - fill_s;
	for (peer = 0; peer < nranks; peer++) {
		if (peer == rank)
			continue;
		for (k = 0; k < P2P_MSGS; k++) {
			size_t len = p2p_len(peer, rank, round, k);
			size_t at = check(rbuf[peer * P2P_MSGS + k], len, (uint32_t)peer, (uint32_t)rank, (uint32_t)round,
					  (uint32_t)k);

			if (at != len)
				fail("p2p", round, peer, at);
		}
	}
}

static void
bcast(int round, uint8_t *buf)
{
	int root = round % nranks;
	size_t at;
	double t;

	if (rank == root)
		fill(buf, BCAST_LEN, (uint32_t)root, 0xB, (uint32_t)round, 0);
	else
		memset(buf, 0, BCAST_LEN);
	t = now_s();
	MPI_Bcast(buf, BCAST_LEN, MPI_BYTE, root, MPI_COMM_WORLD);
	in_mpi[PH_BCAST] += now_s() - t;
	at = check(buf, BCAST_LEN, (uint32_t)root, 0xB, (uint32_t)round, 0);
	if (at != BCAST_LEN)
		fail("bcast", round, root, at);
}

static void
allreduce(int round, int32_t *in, int32_t *out)
{
	int64_t ranks_sum = (int64_t)nranks * (nranks - 1) / 2;
	double t;

	for (int i = 0; i < REDUCE_INTS; i++)
		in[i] = rank * 3 + i % 1000 + round;
	t = now_s();
	MPI_Allreduce(in, out, REDUCE_INTS, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
	in_mpi[PH_ALLREDUCE] += now_s() - t;
	for (int i = 0; i < REDUCE_INTS; i++)
		if (out[i] != (int32_t)(3 * ranks_sum + (int64_t)nranks * (i % 1000 + round)))
			fail("allreduce", round, -1, (size_t)i * 4);
}

static void
alltoallv(int round, uint8_t *sbuf, uint8_t *rbuf)
{
	int scount[64], sdispl[64], rcount[64], rdispl[64];
	int peer, s = 0, r = 0;
	double t;

	for (peer = 0; peer < nranks; peer++) {
		scount[peer] = (int)a2a_len(rank, peer, round);
		sdispl[peer] = s;
		fill(sbuf + s, (size_t)scount[peer], (uint32_t)rank, (uint32_t)peer, (uint32_t)round, 0xA2A);
		s += scount[peer];
		rcount[peer] = (int)a2a_len(peer, rank, round);
		rdispl[peer] = r;
		r += rcount[peer];
	}
	memset(rbuf, 0, (size_t)r);
	t = now_s();
	MPI_Alltoallv(sbuf, scount, sdispl, MPI_BYTE, rbuf, rcount, rdispl, MPI_BYTE, MPI_COMM_WORLD);
	in_mpi[PH_ALLTOALLV] += now_s() - t;
	for (peer = 0; peer < nranks; peer++) {
		size_t at = check(rbuf + rdispl[peer], (size_t)rcount[peer], (uint32_t)peer, (uint32_t)rank,
				  (uint32_t)round, 0xA2A);

		if (at != (size_t)rcount[peer])
			fail("alltoallv", round, peer, at);
	}
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	uint8_t **sbuf, **rbuf, *big, *a2a_s, *a2a_r;
	int32_t *rin, *rout;
	double t0, tinit, t1, t2;
	int i;

	t0 = now_s();
	MPI_Init(&argc, &argv);
	tinit = now_s();
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (rounds < 1 || nranks > 64) {
		if (rank == 0)
			fprintf(stderr, "usage: dr_mpi_workload [ROUNDS >= 1], at most 64 ranks\n");
		MPI_Finalize();
		return 2;
	}
	sbuf = calloc((size_t)nranks * P2P_MSGS, sizeof(*sbuf));
	rbuf = calloc((size_t)nranks * P2P_MSGS, sizeof(*rbuf));
	for (i = 0; sbuf != NULL && rbuf != NULL && i < nranks * P2P_MSGS; i++) {
		sbuf[i] = malloc(P2P_MAX + 1);
		rbuf[i] = malloc(P2P_MAX + 1);
		if (sbuf[i] == NULL || rbuf[i] == NULL)
			break;
	}
	big = malloc(BCAST_LEN);
	rin = malloc(REDUCE_INTS * sizeof(*rin));
	rout = malloc(REDUCE_INTS * sizeof(*rout));
	a2a_s = malloc((size_t)nranks * 16 * A2A_UNIT);
	a2a_r = malloc((size_t)nranks * 16 * A2A_UNIT);
	if (sbuf == NULL || rbuf == NULL || i < nranks * P2P_MSGS || big == NULL || rin == NULL || rout == NULL ||
	    a2a_s == NULL || a2a_r == NULL) {
		fprintf(stderr, "rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = now_s();                    /* the job's time starts after the barrier */
	for (int round = 0; round < rounds; round++) {
		p2p(round, sbuf, rbuf);
		bcast(round, big);
		allreduce(round, rin, rout);
		alltoallv(round, a2a_s, a2a_r);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t2 = now_s();
	if (rank == 0) {
		printf("workload ok: %d rounds, %d ranks, %.3f s (start-up %.3f s)\n", rounds, nranks, t2 - t1,
		       tinit - t0);
		printf("phases: p2p %.3f s, bcast %.3f s, allreduce %.3f s, alltoallv %.3f s, compute %.3f s\n",
		       in_mpi[PH_P2P], in_mpi[PH_BCAST], in_mpi[PH_ALLREDUCE], in_mpi[PH_ALLTOALLV],
		       t2 - t1 - in_mpi[PH_P2P] - in_mpi[PH_BCAST] - in_mpi[PH_ALLREDUCE] - in_mpi[PH_ALLTOALLV]);
		fflush(stdout);
	}
	for (i = 0; i < nranks * P2P_MSGS; i++) {
		free(sbuf[i]);
		free(rbuf[i]);
	}
	free(sbuf);
	free(rbuf);
	free(big);
	free(rin);
	free(rout);
	free(a2a_s);
	free(a2a_r);
	MPI_Finalize();
	return 0;
}
