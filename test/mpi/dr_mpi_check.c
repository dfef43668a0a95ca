/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * An MPI job that checks what it moves and times it (test_mpi.py runs it
 * over dpdk_rdma and over TCP in the same run):
 *
 *   pingpong SIZE HALF_RTT_US MBPS   ranks 0 and 1, after a warm-up, the
 *                                    payload checked on every return
 *   allreduce ok                     the sum of every rank's known vector
 *   alltoall ok                      each block says who sent it to whom
 *
 * Exit status 0 when every check held, 1 otherwise (said on stderr).
 *
 * dr_mpi_check --soak SECONDS: allreduce and all-to-all again and again,
 * each checked, for SECONDS ("soak started", "soak ok ROUNDS" from rank 0):
 * the job a fault test kills a rank of.
 */

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (1 << 20)
#define VEC 1024
#define BLOCK 256

static int
fail(int rank, const char *what)
{
	fprintf(stderr, "rank %d: %s\n", rank, what);
	return 1;
}

static void
fill(uint8_t *b, int size, int seed)
{
	for (int i = 0; i < size; i++)
		b[i] = (uint8_t)(i * 31 + seed);
}

static int
pingpong(int rank, uint8_t *buf, uint8_t *want)
{
	static const int sizes[] = { 8, 1024, 65536, MAX_SIZE };
	int bad = 0;

	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int size = sizes[s], iters = size >= 65536 ? 20 : 200, warm = 5;
		double t = 0;

		fill(want, size, (int)s);
		MPI_Barrier(MPI_COMM_WORLD);
		for (int i = -warm; i < iters; i++) {
			if (i == 0)
				t = MPI_Wtime();
			if (rank == 0) {
				memcpy(buf, want, (size_t)size);
				MPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				memset(buf, 0, (size_t)size);
				MPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				bad |= memcmp(buf, want, (size_t)size) != 0;
			} else if (rank == 1) {
				MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				bad |= memcmp(buf, want, (size_t)size) != 0;
				MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
		}
		t = MPI_Wtime() - t;
		if (rank == 0)
			printf("pingpong %d %.2f %.1f\n", size, t / iters / 2 * 1e6, 2.0 * size * iters / t / 1e6);
	}
	return bad ? fail(rank, "pingpong: a payload came back changed") : 0;
}

static int
allreduce(int rank, int n, bool quiet)
{
	static long v[VEC], sum[VEC];
	int bad = 0;

	for (int i = 0; i < VEC; i++)
		v[i] = (long)(rank + 1) * i;
	MPI_Allreduce(v, sum, VEC, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	for (int i = 0; i < VEC; i++)
		bad |= sum[i] != (long)n * (n + 1) / 2 * i;
	if (bad)
		return fail(rank, "allreduce: a wrong sum");
	if (rank == 0 && !quiet)
		printf("allreduce ok\n");
	return 0;
}

static int
alltoall(int rank, int n, bool quiet)
{
	int *out = calloc((size_t)n * BLOCK, sizeof(int)), *in = calloc((size_t)n * BLOCK, sizeof(int));
	int bad = 0;

	if (out == NULL || in == NULL) {
		free(out);
		free(in);
		return fail(rank, "alltoall: no memory");
	}
	for (int p = 0; p < n; p++)
		for (int k = 0; k < BLOCK; k++)
			out[p * BLOCK + k] = (rank << 20) | (p << 10) | k;    /* from, to, index */
	MPI_Alltoall(out, BLOCK, MPI_INT, in, BLOCK, MPI_INT, MPI_COMM_WORLD);
	for (int p = 0; p < n; p++)
		for (int k = 0; k < BLOCK; k++)
			bad |= in[p * BLOCK + k] != ((p << 20) | (rank << 10) | k);
	free(out);
	free(in);
	if (bad)
		return fail(rank, "alltoall: a block from the wrong rank or place");
	if (rank == 0 && !quiet)
		printf("alltoall ok\n");
	return 0;
}

/* Checked collectives for @seconds (rank 0's clock decides, for everyone). */
static int
soak(int rank, int n, double seconds)
{
	double end = MPI_Wtime() + seconds;
	long rounds = 0;
	int more = 1, bad = 0;

	if (rank == 0) {
		printf("soak started\n");
		fflush(stdout);
	}
	while (more && !bad) {
		bad |= allreduce(rank, n, true);
		bad |= alltoall(rank, n, true);
		rounds++;
		more = MPI_Wtime() < end;
		MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	if (rank == 0 && !bad)
		printf("soak ok %ld\n", rounds);
	return bad;
}

int
main(int argc, char **argv)
{
	int rank, n, bad = 0;
	uint8_t *buf = malloc(MAX_SIZE), *want = malloc(MAX_SIZE);
	double soak_s = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc == 3 && strcmp(argv[1], "--soak") == 0)
		soak_s = atof(argv[2]);
	if (argc != 1 && !(soak_s > 0)) {
		bad = fail(rank, "usage: dr_mpi_check [--soak SECONDS]");
	} else if (buf == NULL || want == NULL || n < 2) {
		bad = fail(rank, n < 2 ? "needs 2 ranks or more" : "no memory");
	} else if (soak_s > 0) {
		bad |= soak(rank, n, soak_s);
	} else {
		bad |= pingpong(rank, buf, want);
		bad |= allreduce(rank, n, false);
		bad |= alltoall(rank, n, false);
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	free(buf);
	free(want);
	return bad ? 1 : 0;
}
