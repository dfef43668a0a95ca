/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#include <string.h>

#include "dr_app.h"

int
dr_app_split_args(int argc, char **argv, int *own_argc, char ***own_argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = argv[0];
			*own_argc = argc - i;
			*own_argv = argv + i;
			return i;
		}
	}
	*own_argc = argc;
	*own_argv = argv;
	return 0;
}

static volatile sig_atomic_t *stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	*stop_flag = 1;
}

void
dr_app_stop_on_signals(volatile sig_atomic_t *flag, bool sigpipe)
{
	struct sigaction sa = { .sa_handler = on_signal };

	stop_flag = flag;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (sigpipe)
		sigaction(SIGPIPE, &sa, NULL);
}
