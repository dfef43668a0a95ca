/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef TEST_EAL_H
#define TEST_EAL_H

/*
 * The end of a test program's EAL: rte_eal_cleanup(), then the runtime
 * directory EAL made for its --file-prefix (/var/run/dpdk/PREFIX: config,
 * fbarray files), which EAL leaves behind. Tests clean up what they start.
 */

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include "dr_verbs.h"

/*
 * EAL for a test program without devices or hugepages: @mem MiB, its own
 * --file-prefix (@prefix and the pid), quiet unless DR_TEST_LOG names a
 * level; through dr_eal_init(). Returns what dr_eal_init() does.
 */
static inline int
test_eal_start(const char *prog, const char *prefix, unsigned int mem)
{
	char args[8][96];
	char *argv[8];
	const char *lvl = getenv("DR_TEST_LOG");
	int argc = 0, i;

	snprintf(args[argc++], sizeof(args[0]), "%s", prog);
	snprintf(args[argc++], sizeof(args[0]), "--no-huge");
	snprintf(args[argc++], sizeof(args[0]), "-m%u", mem);
	snprintf(args[argc++], sizeof(args[0]), "--no-pci");
	snprintf(args[argc++], sizeof(args[0]), "--no-telemetry");
	snprintf(args[argc++], sizeof(args[0]), "--no-shconf");
	snprintf(args[argc++], sizeof(args[0]), "--file-prefix=%s%d", prefix, (int)getpid());
	snprintf(args[argc++], sizeof(args[0]), "--log-level=%s", lvl != NULL ? lvl : "warning");
	for (i = 0; i < argc; i++)
		argv[i] = args[i];
	return dr_eal_init(argc, argv);
}

static inline void
test_eal_cleanup(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		(void)unlink(path);
	}
	closedir(d);
	(void)rmdir(dir);
}

#endif /* TEST_EAL_H */
